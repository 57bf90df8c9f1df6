/* base/zstd.h: zstd compression of bytes in memory. Everything is borrowed for the call; out is the
 * caller's. */
#ifndef WP_BASE_ZSTD_H
#define WP_BASE_ZSTD_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

/* data compressed with zstd into out (reset first). -WPE_IO when libarchive cannot. */
int wp_zstd_compress(const void *data, size_t len, struct wp_buf *out, struct wp_err *err);

/* zstd-compressed data (or data not compressed at all) decompressed into out (reset first),
 * refused past max_out bytes or a ratio of 1000:1 beyond the first 16 MiB (-WPE_TOO_BIG); corrupt
 * compression is -WPE_SOURCE. Messages name what. */
int wp_zstd_decompress(const void *data, size_t len, size_t max_out, const char *what,
		       struct wp_buf *out, struct wp_err *err);

#endif
