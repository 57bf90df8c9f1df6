/* ops/core/unpack.c: a bundle member written to disk through the OS seam (ops/core/unpack.h). */
#include "ops/core/unpack.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/os/os.h"


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
