/* tests/unit/readfile.h: a whole file as a NUL-terminated string, for unit tests that compare
 * what was written. Test-only, header-only. NULL when the file cannot be opened; len (optional)
 * gets its length. The caller frees the string. */
#ifndef WP_TEST_READFILE_H
#define WP_TEST_READFILE_H

#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"

static char *test_read_file(const char *path, size_t *len)
{
	struct wp_buf b;
	if (wp_file_read_capped(path, 64 << 20, &b, NULL) < 0) {
		wp_buf_free(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.data ? wp_buf_detach(&b, NULL) : wp_xstrdup("");
}

#endif
