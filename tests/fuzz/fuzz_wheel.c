/* tests/fuzz/fuzz_wheel.c: libFuzzer target for wheel verification (zip, RECORD, WHEEL, METADATA)
 * and the installer's reader, via a temp file. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "verify/wheel.h"
#include "verify/wheelstream.h"

/* Input: the wheel's bytes, named demo_pkg-1.0-py3-none-any.whl; or, when it does not start with
 * "PK", a first line naming the wheel ("x-1.0-py3-none-any.whl") and the bytes after it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[256] = "demo_pkg-1.0-py3-none-any.whl";
	if (size < 2 || memcmp(data, "PK", 2) != 0) {
		const uint8_t *nl = memchr(data, '\n', size < sizeof(name) ? size : sizeof(name));
		if (nl) {
			size_t n = (size_t)(nl - data);
			memcpy(name, data, n);
			name[n] = 0;
			data = nl + 1;
			size -= n + 1;
		}
	}
	const char *path = fz_write_tmp("fuzz.whl", data, size);
	if (!path)
		return 0;
	/* small ceilings keep one input fast; the defaults are for real wheels */
	struct wp_wheel_limits lim = { .max_members = 1000,
				       .max_total_size = 64 << 20,
				       .max_ratio = 500,
				       .ratio_min_size = 1 << 16,
				       .max_record = 1 << 20 };
	struct wp_wheel_info info;
	struct wp_err err = WP_ERR_INIT;
	if (wp_wheel_verify_named(path, name, &lim, &info, &err) == 0) {
		FZ_CHECK(info.name && info.version && info.dist_info);
		size_t n = fz_touch(info.requires_python) + fz_touch(info.wheel_version);
		for (size_t i = 0; i < info.n_tags; i++)
			n += fz_touch(info.tags[i]);
		for (size_t i = 0; i < info.n_requires_dist; i++)
			n += fz_touch(info.requires_dist[i]);
		(void)n;
	}
	wp_wheel_info_release(&info);

	/* the same bytes with no info wanted, under the default limits */
	wp_err_clear(&err);
	int full = wp_wheel_verify_named(path, name, NULL, NULL, &err);

	/* ... and streamed past in pieces, as a download checks them: a wheel the full pass accepts
	 * is accepted, and a rejection is the full pass's word for word; the one difference allowed
	 * is the CRC-32 that the stream skips where RECORD's sha256 holds the bytes (libarchive's
	 * "cannot be read" on the full pass, where the stream accepts or names the sha256
	 * mismatch) */
	static const size_t cuts[] = { 1, 13, 4096 };
	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		struct wp_wheel_stream *st = wp_wheel_stream_new(NULL);
		struct wp_err serr = WP_ERR_INIT;
		for (size_t off = 0; off < size; off += cuts[c])
			wp_wheel_stream_feed(st, data + off,
					     size - off < cuts[c] ? size - off : cuts[c]);
		int streamed = wp_wheel_verify_streamed(path, name, st, NULL, NULL, &serr);
		if (!full)
			FZ_CHECK(streamed == 0);
		else if (streamed == 0)
			FZ_CHECK(strstr(err.msg, "cannot be read") != NULL);
		else
			FZ_CHECK(streamed == full && (strcmp(serr.msg, err.msg) == 0 ||
						      strstr(err.msg, "cannot be read") != NULL));
		wp_wheel_stream_free(st);
	}

	/* ... and through the pool (every deflated member read back from the file by two threads):
	 * exactly the serial stream's verdict and message */
	{
		struct wp_wheel_stream *ser = wp_wheel_stream_new(NULL),
				       *pool = wp_wheel_stream_new(NULL);
		struct wp_err e1 = WP_ERR_INIT, e2 = WP_ERR_INIT;
		wp_wheel_stream_feed(ser, data, size);
		if (wp_wheel_stream_use_file(pool, path, 2) == 0)
			wp_wheel_stream_pool_from(pool, 0, 0);
		for (size_t off = 0; off < size; off += 4096)
			wp_wheel_stream_feed(pool, data + off,
					     size - off < 4096 ? size - off : 4096);
		int a = wp_wheel_verify_streamed(path, name, ser, NULL, NULL, &e1);
		int b = wp_wheel_verify_streamed(path, name, pool, NULL, NULL, &e2);
		FZ_CHECK(a == b && strcmp(e1.msg, e2.msg) == 0);
		wp_wheel_stream_free(ser);
		wp_wheel_stream_free(pool);
	}

	/* the installer's reader (one inflate per member, RECORD checked after): every wheel the
	 * full pass accepts it accepts too */
	struct wp_wheel_reader *r = NULL;
	struct wp_err rerr = WP_ERR_INIT;
	int rd = wp_wheel_reader_open(path, name, NULL, &r, &info, &rerr);
	for (size_t i = 0; !rd && i < wp_wheel_reader_count(r); i++)
		rd = wp_wheel_reader_extract(r, i, NULL, NULL, &rerr);
	if (!rd)
		rd = wp_wheel_reader_check(r, &rerr);
	if (!full)
		FZ_CHECK(rd == 0);
	wp_wheel_reader_close(r);
	wp_wheel_info_release(&info);
	/* ... and a wheel it accepted, read again for a link from the store, takes RECORD's word */
	if (!rd) {
		r = NULL;
		if (wp_wheel_reader_open(path, name, NULL, &r, &info, &rerr) == 0)
			FZ_CHECK(wp_wheel_reader_trust_record(r, &rerr) == 0);
		wp_wheel_reader_close(r);
		wp_wheel_info_release(&info);
	}

	char shown[64];
	(void)wp_member_name_problem((const char *)data, size < 300 ? size : 300);
	(void)wp_member_name_show((const char *)data, size < 300 ? size : 300, shown,
				  sizeof(shown));
	return 0;
}
