/* tests/unit/readfile.h: a whole file as a NUL-terminated string, for unit tests that compare
 * what was written. Test-only, header-only. NULL when the file cannot be opened; len (optional)
 * gets its length. The caller frees the string. */
#ifndef WP_TEST_READFILE_H
#define WP_TEST_READFILE_H

#include <fcntl.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"

static char *test_read_file(const char *path, size_t *len)
{
	struct wp_buf b = WP_BUF_INIT_MAX(64 << 20);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	int rc = wp_buf_read_fd(&b, fd);
	close(fd);
	if (rc < 0) {
		wp_buf_free(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.data ? wp_buf_detach(&b, NULL) : wp_xstrdup("");
}

#endif
