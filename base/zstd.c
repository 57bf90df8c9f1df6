/* base/zstd.c: zstd in memory, through libarchive (loaded on first use: base/lazy_archive.c), for
 * CEP 16 shards and their index, conda's repodata.json.zst and bundles' manifests. */
#include "base/zstd.h"
#include "base/mem.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdbool.h>
#include <stdlib.h>

int wp_zstd_compress(const void *data, size_t len, struct wp_buf *out, struct wp_err *err)
{
	/* zstd's worst case is a little over the input; the raw format adds nothing */
	size_t cap = len + len / 64 + 4096, used = 0;
	unsigned char *buf = wp_xmalloc(cap);
	wp_buf_reset(out);
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	int rc = 0;
	if (e) {
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, (la_int64_t)len);
	}
	bool ok = a && e && archive_write_add_filter_zstd(a) == ARCHIVE_OK &&
		  archive_write_set_format_raw(a) == ARCHIVE_OK &&
		  archive_write_set_bytes_in_last_block(a, 1) == ARCHIVE_OK &&
		  archive_write_open_memory(a, buf, cap, &used) == ARCHIVE_OK &&
		  archive_write_header(a, e) == ARCHIVE_OK &&
		  (len == 0 || archive_write_data(a, data, len) == (la_ssize_t)len) &&
		  archive_write_close(a) == ARCHIVE_OK;
	if (!ok)
		rc = wp_fail(err, -WPE_IO, "cannot compress with zstd: %s",
			     a && archive_error_string(a) ? archive_error_string(a) :
							    "out of memory");
	else if (wp_buf_add(out, buf, used))
		rc = wp_fail(err, -WPE_IO, "cannot compress with zstd: out of memory");
	free(buf);
	if (e)
		archive_entry_free(e);
	if (a)
		archive_write_free(a);
	return rc;
}

int wp_zstd_decompress(const void *data, size_t len, size_t max_out, const char *what,
		       struct wp_buf *out, struct wp_err *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int rc = 0;
	wp_buf_reset(out);
	if (!a)
		return wp_fail(err, -WPE_IO, "cannot read '%s': out of memory", what);
	/* zstd as CEP 16 asks; "raw" with no filter takes bytes that were never compressed */
	archive_read_support_filter_zstd(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_SOURCE, "'%s' is not zstd: %s", what,
			     archive_error_string(a) ? archive_error_string(a) : "empty");
		goto out;
	}
	for (;;) {
		char chunk[65536];
		la_ssize_t got = archive_read_data(a, chunk, sizeof(chunk));
		if (got == 0)
			break;
		if (got < 0) {
			rc = wp_fail(err, -WPE_SOURCE, "'%s' is damaged: %s", what,
				     archive_error_string(a) ? archive_error_string(a) :
							       "cannot decompress");
			goto out;
		}
		size_t have = out->len + (size_t)got;
		if (have > max_out || (have > ((size_t)16 << 20) && have / 1000 > len) ||
		    wp_buf_add(out, chunk, (size_t)got) < 0) {
			rc = wp_fail(err, -WPE_TOO_BIG,
				     "'%s' decompresses past %zu bytes (or 1000 times its size)",
				     what, max_out);
			goto out;
		}
	}
out:
	archive_read_free(a);
	return rc;
}
