/* base/fs.h: crash-safe file writes (temp + fsync + rename), whole-file reads with a ceiling,
 * mkdir -p, link-or-copy.
 * Ownership: a struct wp_atomic_file owns its paths and its fd until _commit or _abort, after
 * which it holds nothing and either may be called again harmlessly. Paths are borrowed. */
#ifndef WP_FS_H
#define WP_FS_H

#include <stdbool.h>
#include <stddef.h>
#include "base/os/os.h" /* ssize_t, mode_t */

#include "base/buf.h"
#include "base/err.h"

struct wp_atomic_file {
	int fd;     /* write here; -1 when closed */
	char *path; /* where _commit puts it */
	char *tmp;  /* path.tmp.<pid>.<rand>, in the same directory so rename stays atomic */
};

#define WP_ATOMIC_FILE_INIT { -1, NULL, NULL }

/* Write data to path so that a crash leaves the old file or the new one, never a mix. Files are
 * created 0644. */
int wp_atomic_write(const char *path, const void *data, size_t len, struct wp_err *err);

/* Create the temp file next to path; write to af->fd (opened read-write, so a writer can
 * re-read what it wrote), then _commit or _abort. Temp files a killed process left for path
 * (its PID gone) are removed first; names are never reused (PID and a random part, O_EXCL). */
int wp_atomic_file_open(struct wp_atomic_file *af, const char *path, struct wp_err *err);
/* fsync, rename onto the path given to _open, fsync the directory. On failure the temp is gone. */
int wp_atomic_file_commit(struct wp_atomic_file *af, struct wp_err *err);
/* Same, onto another path on the same file system (the store learns the name only at the end). */
int wp_atomic_file_commit_to(struct wp_atomic_file *af, const char *path, struct wp_err *err);
/* Close and unlink the temp; a no-op after _commit. */
void wp_atomic_file_abort(struct wp_atomic_file *af);

/* The whole file at path into *b, which this initialises with max as its ceiling (the caller
 * frees b, also after a failure). -WPE_IO naming path when it cannot be opened or read, with
 * errno saying why (ENOENT: there is no such file; EISDIR: a directory; ETIMEDOUT: a FIFO or
 * device that gave nothing for 10 s, where a plain read would block for ever); -WPE_TOO_BIG when
 * it holds more than max bytes (/dev/zero). err may be NULL for a caller that words its own
 * message. A pipe (<(cmd)) is read as its writer writes. */
int wp_file_read_capped(const char *path, size_t max, struct wp_buf *b, struct wp_err *err);
/* The same, with a FIFO or device given idle_ms (when shorter than 10 s; <= 0: 10 s): the run's
 * configured timeout, handed down by the caller. */
int wp_file_read_waiting(const char *path, size_t max, int idle_ms, struct wp_buf *b,
			 struct wp_err *err);
/* The same, but a file that does not exist is no error: 0 with *found false and b empty. */
int wp_file_read_if_exists(const char *path, size_t max, struct wp_buf *b, bool *found,
			   struct wp_err *err);

/* Remove from dir the temp names (of _open, _commit, wp_link_or_copy: "<name>.tmp.<pid>.<hex>")
 * that processes killed mid-write left, their PID gone; a job that writes a tree calls it for
 * each folder it writes, so that leftovers of files it does not write again go too. Returns how
 * many were removed. */
int wp_fs_sweep_stale_tmp(const char *dir);

/* flock(fd, LOCK_EX), waiting at most max_ms for another process to let go (polled, so a
 * signal or a hung holder cannot keep us forever). 0 when held; -1 with errno EWOULDBLOCK when
 * the wait ran out, or flock's errno. */
int wp_flock_wait(int fd, unsigned max_ms);

/* The last part of path: after its last separator ('/', and '\\' too on Windows), or path
 * itself. */
const char *wp_path_base(const char *path);
/* The folder part of path, before its last separator (as wp_path_base): "." for a bare name,
 * "/" for a name in the root; newly allocated. */
char *wp_path_dir(const char *path);

/* mkdir -p; an existing directory is fine, an existing non-directory is an error. */
int wp_mkdir_p(const char *path, mode_t mode, struct wp_err *err);
/* The directory made (as wp_mkdir_p, 0755) and opened read-only into *fd, for a writer's flock on
 * the tree under it; *fd is -1 on failure. */
int wp_dir_make_open(const char *dir, int *fd, struct wp_err *err);

/* Make `to` the same content as `from`: a hard link when the file system allows one, else a copy
 * through an atomic temp. An existing `to` is replaced atomically; temp links a killed process
 * left for it are removed. */
int wp_link_or_copy(const char *from, const char *to, struct wp_err *err);

/* The same, without syncing to's folder after a link: for a batch of links into one folder,
 * whose caller syncs it once (wp_fs_sync_dir) when the batch is in. A copy is still synced. */
int wp_link_or_copy_unsynced(const char *from, const char *to, struct wp_err *err);

/* fsync a folder so that the names made in it survive a crash (a file system that cannot sync a
 * folder is not an error). 0 or -WPE_IO. */
int wp_fs_sync_dir(const char *dir, struct wp_err *err);

/* All of data to fd, across short writes and EINTR; path names it in the message. */
int wp_fd_write_all(int fd, const void *data, size_t len, const char *path, struct wp_err *err);

/* Removes path and everything under it, best effort (a staging or temp folder of ours). Links
 * are removed, never followed out of it. A missing path is no error. */
void wp_fs_remove_tree(const char *path); /* NULL: nothing */

/* A new folder under base (made first) whose files are thrown away when the run ends (a staging
 * folder), *out newly allocated: writes anywhere under it skip fsync, which buys nothing there and
 * costs most of a staged mirror's time. Its name says so (it starts with WP_FS_SCRATCH_PREFIX): a
 * path with a component that starts so is taken for scratch. */
#define WP_FS_SCRATCH_PREFIX "wheelpick-scratch."
int wp_fs_mkscratch(const char *base, char **out, struct wp_err *err);
bool wp_fs_in_scratch(const char *path);

/* Record an error for a failed file operation with a message that says what to do for the
 * errno values users meet (no space, read-only, permission, a parent that is a file).
 * what is a verb phrase: "cannot create", "cannot write". Returns -WPE_IO. */
int wp_fs_fail(struct wp_err *err, int errnum, const char *what, const char *path);

/* True for a name that wp_atomic_write or wp_link_or_copy uses while writing
 * ("<final>.tmp.<pid>.<8 hex>"): what a crash leaves behind. */
bool wp_fs_is_tmp_name(const char *name);

/* A fresh folder base/name.XXXXXX (mkdtemp: never a killed run's), base made first; *out is the
 * caller's. */
int wp_fs_mkdtemp(const char *base, const char *name, char **out, struct wp_err *err);

#endif
