/* base/beneath.c: changes to a path beneath an open folder that never leave it (base/beneath.h). */
#include "base/beneath.h"
#include "base/os/os.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static bool bad_part(const char *p, size_t n)
{
	return n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.');
}

int wp_beneath_parent(int root_fd, const char *rel, int *dir_fd, const char **leaf)
{
	*dir_fd = -1;
	if (!rel || !*rel || rel[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	int cur = wp_os_dup(root_fd);
	if (cur < 0)
		return -1;
	const char *p = rel;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (bad_part(p, n) || n >= NAME_MAX + 1) {
			wp_os_close(cur);
			errno = n > NAME_MAX ? ENAMETOOLONG : EXDEV;
			return -1;
		}
		if (!slash) {
			*dir_fd = cur;
			*leaf = p;
			return 0;
		}
		char part[NAME_MAX + 1];
		memcpy(part, p, n);
		part[n] = 0;
		int next = wp_os_openat(cur, part,
					WP_O_RDONLY | WP_O_DIRECTORY | WP_O_NOFOLLOW |
						WP_O_CLOEXEC);
		int e = errno;
		wp_os_close(cur);
		if (next < 0) {
			errno = e;
			return -1;
		}
		cur = next;
		p = slash + 1;
	}
}

int wp_beneath_unlink(int root_fd, const char *rel)
{
	int d;
	const char *leaf;
	if (wp_beneath_parent(root_fd, rel, &d, &leaf) < 0)
		return -1;
	int rc = wp_os_unlinkat(d, leaf, 0), e = errno;
	wp_os_close(d);
	errno = e;
	return rc;
}

int wp_beneath_rmdir(int root_fd, const char *rel)
{
	int d;
	const char *leaf;
	if (wp_beneath_parent(root_fd, rel, &d, &leaf) < 0)
		return -1;
	int rc = wp_os_unlinkat(d, leaf, WP_AT_REMOVEDIR), e = errno;
	wp_os_close(d);
	errno = e;
	return rc;
}

int wp_beneath_mkdir(int root_fd, const char *rel, mode_t mode)
{
	int d;
	const char *leaf;
	if (wp_beneath_parent(root_fd, rel, &d, &leaf) < 0)
		return -1;
	int rc = wp_os_mkdirat(d, leaf, mode), e = errno;
	wp_os_close(d);
	errno = e;
	return rc;
}

int wp_beneath_rename(int root_fd, const char *from, const char *to)
{
	int fd, td;
	const char *fl, *tl;
	if (wp_beneath_parent(root_fd, from, &fd, &fl) < 0)
		return -1;
	if (wp_beneath_parent(root_fd, to, &td, &tl) < 0) {
		int e = errno;
		wp_os_close(fd);
		errno = e;
		return -1;
	}
	int rc = wp_os_renameat(fd, fl, td, tl), e = errno;
	wp_os_close(fd);
	wp_os_close(td);
	errno = e;
	return rc;
}

int wp_beneath_link(int from_dirfd, const char *from, int root_fd, const char *rel)
{
	int d;
	const char *leaf;
	if (wp_beneath_parent(root_fd, rel, &d, &leaf) < 0)
		return -1;
	int rc = wp_os_linkat(from_dirfd, from, d, leaf, 0), e = errno;
	wp_os_close(d);
	errno = e;
	return rc;
}

int wp_beneath_open(int root_fd, const char *rel, int flags, mode_t mode)
{
	int d;
	const char *leaf;
	if (wp_beneath_parent(root_fd, rel, &d, &leaf) < 0)
		return -1;
	int fd = wp_os_openat(d, leaf, flags | WP_O_NOFOLLOW | WP_O_CLOEXEC, mode), e = errno;
	wp_os_close(d);
	errno = e;
	return fd;
}

const char *wp_beneath_rel(const char *path, const char *root)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) || path[n] != '/' || !path[n + 1])
		return NULL;
	return path + n + 1;
}
