/* ops/core/unpack.c: a bundle read from its volumes and its members written to disk, both through
 * the OS seam (ops/core/unpack.h). */
#include "ops/core/unpack.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/os/os.h"

#include <archive.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int wp_unpack_begin(struct wp_unpack_out *o, const char *dest, bool dir, unsigned perm,
		    struct wp_err *err)
{
	*o = (struct wp_unpack_out){ .fd = -1, .path = dest };
	/* the owner keeps write and search on a folder, or the members after it cannot land */
	if (dir)
		return wp_mkdir_p(dest, (mode_t)((perm & 0777) | 0700), err);
	const char *slash = strrchr(dest, '/');
	if (slash && slash != dest) {
		char *parent = wp_xstrndup(dest, (size_t)(slash - dest));
		int rc = wp_mkdir_p(parent, 0755, err);
		free(parent);
		if (rc)
			return rc;
	}
	o->fd = wp_os_open(dest,
			   WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL | WP_O_NOFOLLOW | WP_O_CLOEXEC,
			   perm & 0777);
	if (o->fd < 0)
		return wp_fs_fail(err, errno, "cannot create", dest);
	/* exactly the member's mode, whatever the umask (as ARCHIVE_EXTRACT_PERM did) */
	if (wp_os_fchmod(o->fd, perm & 0777) < 0) {
		int e = errno;
		wp_os_close(o->fd);
		o->fd = -1;
		return wp_fs_fail(err, e, "cannot set the mode of", dest);
	}
	return 0;
}

int wp_unpack_block(struct wp_unpack_out *o, const void *blk, size_t n, long long off,
		    struct wp_err *err)
{
	const char *p = blk;
	while (n) {
		ssize_t w = wp_os_pwrite(o->fd, p, n, (int64_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return wp_fs_fail(err, w < 0 ? errno : EIO, "cannot write", o->path);
		p += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

int wp_unpack_end(struct wp_unpack_out *o, struct wp_err *err)
{
	if (o->fd < 0)
		return 0;
	int rc = 0;
	if (wp_os_close(o->fd) < 0)
		rc = wp_fs_fail(err, errno, "cannot write", o->path);
	o->fd = -1;
	return rc;
}

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
		wp_os_close(r->fd);
		r->fd = -1;
		r->at++;
	}
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

int wp_bundle_read_open(struct archive *a, char *const *names, size_t n)
{
	struct vol_reader *r = wp_xcalloc(1, sizeof(*r));
	r->names = wp_xcalloc(n ? n : 1, sizeof(*r->names));
	for (size_t i = 0; i < n; i++)
		r->names[i] = wp_xstrdup(names[i]);
	r->n = n;
	r->fd = -1;
	/* libarchive calls vol_close, which frees r, whether the open succeeds or not */
	return archive_read_open(a, r, NULL, vol_read, vol_close);
}
