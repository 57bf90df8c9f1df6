/* verify/archopen.c: a libarchive read handle on files opened through the OS seam (archopen.h). */
#include "verify/archopen.h"
#include "base/mem.h"
#include "base/os/os.h"

#include <archive.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Volumes are one stream cut in pieces: read one after the other. (libarchive's own
 * archive_read_open_filenames crashed here, in its client switching, on a zstd stream cut in
 * two.) */
struct vol_reader {
	char **names;
	size_t n, at;
	int fd;
	char buf[64 << 10];
};

static la_ssize_t vol_read(struct archive *a, void *ctx, const void **out)
{
	struct vol_reader *r = ctx;
	for (;;) {
		if (r->fd < 0) {
			if (r->at >= r->n)
				return 0;
			r->fd = wp_os_open(r->names[r->at], WP_O_RDONLY | WP_O_CLOEXEC);
			if (r->fd < 0) {
				archive_set_error(a, errno, "cannot read '%s': %s", r->names[r->at],
						  strerror(errno));
				return -1;
			}
		}
		ssize_t got = wp_os_read(r->fd, r->buf, sizeof(r->buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			archive_set_error(a, errno, "cannot read '%s': %s", r->names[r->at],
					  strerror(errno));
			return -1;
		}
		if (got > 0) {
			*out = r->buf;
			return got;
		}
		if (r->n == 1)
			return 0; /* one file stays open: a seekable reader may come back */
		wp_os_close(r->fd);
		r->fd = -1;
		r->at++;
	}
}

/* One file only: a zip's central directory is read from its end (zip_seekable). */
static la_int64_t vol_seek(struct archive *a, void *ctx, la_int64_t off, int whence)
{
	struct vol_reader *r = ctx;
	if (r->fd < 0 && (r->fd = wp_os_open(r->names[0], WP_O_RDONLY | WP_O_CLOEXEC)) < 0) {
		archive_set_error(a, errno, "cannot read '%s': %s", r->names[0], strerror(errno));
		return ARCHIVE_FATAL;
	}
	int64_t at = wp_os_lseek(r->fd, (int64_t)off, whence);
	if (at < 0) {
		archive_set_error(a, errno, "cannot seek in '%s': %s", r->names[0],
				  strerror(errno));
		return ARCHIVE_FATAL;
	}
	return (la_int64_t)at;
}

static int vol_close(struct archive *a, void *ctx)
{
	struct vol_reader *r = ctx;
	(void)a;
	if (r->fd >= 0)
		wp_os_close(r->fd);
	for (size_t i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	free(r);
	return ARCHIVE_OK;
}

int wp_archive_read_open_paths(struct archive *a, const char *const *names, size_t n)
{
	struct vol_reader *r = wp_xcalloc(1, sizeof(*r));
	r->names = wp_xcalloc(n ? n : 1, sizeof(*r->names));
	for (size_t i = 0; i < n; i++)
		r->names[i] = wp_xstrdup(names[i]);
	r->n = n;
	r->fd = -1;
	/* libarchive calls vol_close, which frees r, whether the open succeeds or not */
	archive_read_set_read_callback(a, vol_read);
	archive_read_set_close_callback(a, vol_close);
	if (n == 1)
		archive_read_set_seek_callback(a, vol_seek);
	archive_read_set_callback_data(a, r);
	return archive_read_open1(a);
}
