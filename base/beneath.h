/* base/beneath.h: changes to a path beneath an open folder that never leave it: the path is walked
 * one component at a time from the folder's handle with O_NOFOLLOW | O_DIRECTORY, so a symlink
 * (anywhere, the last component included), "..", "." or an empty component stops the walk instead
 * of leading out, whatever was swapped in since the path was checked. POSIX style: 0, or -1 with
 * errno (ELOOP or ENOTDIR for a symlink met, EXDEV for "..", "." or an absolute or empty part). The
 * caller owns root_fd; nothing here keeps a handle. */
#ifndef WP_BASE_BENEATH_H
#define WP_BASE_BENEATH_H

#include <stdbool.h>
#include "base/os/os.h" /* mode_t */

/* The folder that holds rel's last component, opened beneath root_fd (O_DIRECTORY, every part with
 * O_NOFOLLOW); *leaf points into rel at that component. The caller closes *dir_fd. */
int wp_beneath_parent(int root_fd, const char *rel, int *dir_fd, const char **leaf);

/* unlink(2), rmdir(2), mkdir(2) of rel beneath root_fd (a symlink at rel itself is removed, never
 * followed). */
int wp_beneath_unlink(int root_fd, const char *rel);
int wp_beneath_rmdir(int root_fd, const char *rel);
int wp_beneath_mkdir(int root_fd, const char *rel, mode_t mode);
/* rename(2) from one path beneath root_fd to another. */
int wp_beneath_rename(int root_fd, const char *from, const char *to);
/* linkat(2): a hard link at rel beneath root_fd to from (resolved from from_dirfd, a symlink at
 * from itself linked, not followed). */
int wp_beneath_link(int from_dirfd, const char *from, int root_fd, const char *rel);
/* open(2) of rel beneath root_fd, O_NOFOLLOW added: a new fd, or -1. */
int wp_beneath_open(int root_fd, const char *rel, int flags, mode_t mode);

/* rel for an absolute path under root (both lexically plain), pointing into path; NULL when path is
 * not under root. */
const char *wp_beneath_rel(const char *path, const char *root);

#endif
