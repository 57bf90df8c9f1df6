/* tests/fuzz/fuzz_condapack.c: libFuzzer target for the catalog's packed conda records and
 * first-seen lists (cache/condapack.h): a damaged blob is refused, never read past, and what
 * decodes re-encodes to the same rows. The first byte picks the decoder. */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "cache/condapack.h"

static void same_str(const char *a, const char *b)
{
	FZ_CHECK((!a && !b) || (a && b && !strcmp(a, b)));
}

static void rows(const uint8_t *data, size_t size)
{
	struct wp_condapack_reader r, again;
	struct wp_condapack_writer w;
	struct wp_buf out = WP_BUF_INIT;
	struct wp_file_row f, g;
	int got;
	wp_condapack_begin(&out);
	wp_condapack_writer_init(&w, &out);
	wp_condapack_reader_init(&r, data, size);
	while ((got = wp_condapack_get_row(&r, &f)) == 1) {
		FZ_CHECK(f.filename && f.url && f.version);
		(void)(fz_touch(f.url) + fz_touch(f.sha256) + fz_touch(f.depends) +
		       fz_touch(f.hash_conflict));
		wp_condapack_put_row(&w, &f);
	}
	FZ_CHECK(got == 0 || got == -1);
	wp_condapack_writer_release(&w);
	wp_condapack_reader_release(&r);
	/* what was read re-encodes to rows that read back the same, up to where the input broke */
	wp_condapack_reader_init(&r, data, size);
	wp_condapack_reader_init(&again, out.data, out.len);
	while (wp_condapack_get_row(&r, &f) == 1) {
		memset(&g, 0, sizeof(g));
		FZ_CHECK(wp_condapack_get_row(&again, &g) == 1);
		same_str(f.filename, g.filename);
		same_str(f.url, g.url);
		same_str(f.version, g.version);
		same_str(f.sha256, g.sha256);
		same_str(f.depends, g.depends);
		same_str(f.hash_conflict, g.hash_conflict);
		FZ_CHECK(f.size == g.size && f.build_number == g.build_number &&
			 f.timestamp == g.timestamp);
	}
	wp_condapack_reader_release(&r);
	wp_condapack_reader_release(&again);
	wp_buf_free(&out);
}

static void seen(const uint8_t *data, size_t size)
{
	struct wp_seen_list l = { 0 }, back = { 0 };
	if (wp_seen_decode(&l, data, size) == 0) {
		struct wp_buf out = WP_BUF_INIT;
		wp_seen_encode(&l, &out);
		FZ_CHECK(wp_seen_decode(&back, out.data, out.len) == 0 && back.n == l.n);
		for (size_t i = 0; i < l.n; i++) {
			FZ_CHECK(wp_seen_find(&back, l.v[i].leaf, l.v[i].leaf_len) != NULL);
			FZ_CHECK(!strcmp(back.v[i].sha256, l.v[i].sha256) &&
				 back.v[i].first_seen == l.v[i].first_seen);
		}
		wp_buf_free(&out);
	}
	wp_seen_release(&l);
	wp_seen_release(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	/* an exact-size copy of the rest, so that reading one byte past it is caught */
	uint8_t *blob = wp_xmalloc(size - 1 ? size - 1 : 1);
	memcpy(blob, data + 1, size - 1);
	if (data[0] & 1)
		seen(blob, size - 1);
	else
		rows(blob, size - 1);
	free(blob);
	return 0;
}
