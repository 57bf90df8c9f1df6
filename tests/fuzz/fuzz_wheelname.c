/* tests/fuzz/fuzz_wheelname.c: libFuzzer target for wheel and sdist file names and PEP 503
 * names. */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "resolver/wheelname.h"

static bool count_tag(void *ctx, const char *tag)
{
	(*(size_t *)ctx)++;
	return !*tag; /* never: a tag is never empty */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_cstr(data, size);
	struct wp_err err = WP_ERR_INIT;
	struct wp_wheelname w;
	/* the allocation-free walk over the tags refuses and accepts what the parser does */
	struct wp_err terr = WP_ERR_INIT;
	long long tbuild = -7;
	size_t ntags = 0;
	int trc = wp_wheelname_each_tag(s, &tbuild, count_tag, &ntags, &terr);
	int prc = wp_wheelname_parse(s, &w, &err);
	FZ_CHECK(trc == prc && !strcmp(terr.msg, err.msg));
	FZ_CHECK(prc || (tbuild == w.build_num && ntags >= w.n_tags));
	if (prc == 0) {
		FZ_CHECK(w.n_tags >= 1);
		size_t n = fz_touch(w.name) + fz_touch(w.project) + fz_touch(w.version) +
			   fz_touch(w.build);
		n += fz_touch(w.build_suffix);
		for (size_t i = 0; i < w.n_tags; i++)
			n += fz_touch(w.tags[i]);
		(void)n;
		FZ_CHECK(wp_pep440_valid(w.version, strlen(w.version)));
		wp_wheelname_release(&w);
	}
	FZ_CHECK(err.msg[sizeof(err.msg) - 1] == 0);

	wp_err_clear(&err);
	struct wp_sdistname sd;
	if (wp_sdistname_parse(s, &sd, &err) == 0) {
		(void)(fz_touch(sd.name) + fz_touch(sd.project) + fz_touch(sd.version) +
		       fz_touch(sd.ext));
		wp_sdistname_release(&sd);
	}

	struct wp_buf norm = WP_BUF_INIT;
	wp_project_name_normalize((const char *)data, size, &norm);
	/* normalising is idempotent */
	struct wp_buf again = WP_BUF_INIT;
	wp_project_name_normalize(norm.data ? norm.data : "", norm.len, &again);
	FZ_CHECK(again.len == norm.len &&
		 memcmp(wp_buf_cstr(&again), wp_buf_cstr(&norm), norm.len) == 0);
	wp_buf_free(&again);
	wp_buf_free(&norm);

	(void)wp_pep440_valid((const char *)data, size);
	free(s);
	return 0;
}
