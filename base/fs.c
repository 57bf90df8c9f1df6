/* base/fs.c: crash-safe writes, capped reads and directory helpers; errors name the path and the
 * remedy. */
#include "base/fs.h"
#include "base/mem.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int wp_fs_fail(struct wp_err *err, int errnum, const char *what, const char *path)
{
	char buf[128];
	switch (errnum) {
	case ENOSPC:
		return wp_fail(err, -WPE_IO, "%s '%s': no space left on device; free some space or "
			       "point the cache elsewhere", what, path);
	case EDQUOT:
		return wp_fail(err, -WPE_IO, "%s '%s': disk quota exceeded", what, path);
	case EROFS:
		return wp_fail(err, -WPE_IO, "%s '%s': the file system is read-only; choose a "
			       "writable directory", what, path);
	case EACCES:
	case EPERM:
		return wp_fail(err, -WPE_IO, "%s '%s': permission denied; check the owner and mode "
			       "of its directory", what, path);
	case ENOTDIR:
		return wp_fail(err, -WPE_IO, "%s '%s': a parent in the path is not a directory",
			       what, path);
	case ENOENT:
		return wp_fail(err, -WPE_IO, "%s '%s': no such file or directory", what, path);
	default:
		return wp_fail(err, -WPE_IO, "%s '%s': %s", what, path,
			       wp_os_strerror(errnum, buf, sizeof(buf)));
	}
}

/* A FIFO, a pipe or a device: read as bytes arrive, but nothing for this long (a FIFO nobody
 * writes to, a terminal nobody types at) ends the read instead of blocking for ever. A caller with
 * a shorter wait configured (the run's timeout) gives it (wp_file_read_waiting). */
#define SPECIAL_IDLE_MS 10000

/* 0 at the end of the stream; -1 (errno set) or -2 (over b's ceiling) as wp_buf_read_fd; -3 when
 * nothing came for idle_ms. fd is non-blocking. */
static int read_special(struct wp_buf *b, int fd, int idle_ms)
{
	char chunk[65536];
	for (;;) {
		struct wp_os_pollfd p = { .fd = fd, .events = WP_POLLIN };
		int r = wp_os_poll(&p, 1, idle_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return -3;
		ssize_t n = wp_os_read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (wp_buf_add(b, chunk, (size_t)n) < 0)
			return -2;
	}
}

static int read_whole(const char *path, size_t max, struct wp_buf *b, bool *found, int idle_ms,
		      struct wp_err *err)
{
	*b = (struct wp_buf)WP_BUF_INIT_MAX(max);
	if (found)
		*found = false;
	/* non-blocking: opening a FIFO nobody writes to would otherwise wait for ever */
	int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC | WP_O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		if (found && e == ENOENT)
			return 0;
		int rc = wp_fs_fail(err, e, "cannot read", path);
		errno = e;
		return rc;
	}
	if (found)
		*found = true;
	struct wp_os_stat sb;
	int rc = 0, r;
	if (wp_os_fstat(fd, &sb) == 0 && WP_S_ISDIR(sb.st_mode)) {
		wp_os_close(fd);
		errno = EISDIR;
		return wp_fs_fail(err, EISDIR, "cannot read", path);
	}
	if (wp_os_fstat(fd, &sb) == 0 && !WP_S_ISREG(sb.st_mode)) {
		int idle = idle_ms > 0 && idle_ms < SPECIAL_IDLE_MS ? idle_ms : SPECIAL_IDLE_MS;
		r = read_special(b, fd, idle);
		if (r == -3) {
			wp_os_close(fd);
			errno = ETIMEDOUT;
			return wp_fail(err, -WPE_IO,
				       "cannot read '%s': it is %s and nothing came from it for %d s",
				       path,
				       WP_S_ISFIFO(sb.st_mode) ? "a FIFO" :
				       WP_S_ISCHR(sb.st_mode)  ? "a device" :
								 "not a regular file",
				       idle / 1000);
		}
	} else {
		(void)wp_os_set_nonblock(fd, false);
		r = wp_buf_read_fd(b, fd);
	}
	int e = errno;
	if (r == -1)
		rc = wp_fs_fail(err, e, "cannot read", path);
	else if (r == -2)
		rc = wp_fail(err, -WPE_TOO_BIG, "'%s' is larger than %zu bytes", path, max);
	wp_os_close(fd);
	errno = e;
	return rc;
}

int wp_file_read_capped(const char *path, size_t max, struct wp_buf *b, struct wp_err *err)
{
	return read_whole(path, max, b, NULL, 0, err);
}

int wp_file_read_waiting(const char *path, size_t max, int idle_ms, struct wp_buf *b,
			 struct wp_err *err)
{
	return read_whole(path, max, b, NULL, idle_ms, err);
}

int wp_file_read_if_exists(const char *path, size_t max, struct wp_buf *b, bool *found,
			   struct wp_err *err)
{
	return read_whole(path, max, b, found, 0, err);
}

/* The last separator in path ('/', and '\\' too on Windows: wp_os_is_sep), or NULL. */
static const char *last_sep(const char *path)
{
	const char *last = NULL;
	for (const char *p = path; *p; p++)
		if (wp_os_is_sep(*p))
			last = p;
	return last;
}

const char *wp_path_base(const char *path)
{
	const char *sep = last_sep(path);
	return sep ? sep + 1 : path;
}

char *wp_path_dir(const char *path)
{
	const char *slash = last_sep(path);
	if (!slash)
		return wp_xstrdup(".");
	if (slash == path)
		return wp_xstrdup("/");
	return wp_xstrndup(path, (size_t)(slash - path));
}

static uint32_t rand32(void)
{
	uint32_t v;
	if (wp_os_random(&v, sizeof(v)) == 0)
		return v;
	/* No entropy yet (early boot): O_EXCL still keeps names unique, this only spreads them. */
	return (uint32_t)(wp_os_monotonic_ns() % 1000000000) ^ (uint32_t)(uintptr_t)&v;
}

/* Create path.tmp.<pid>.<rand> exclusively; the name goes to *tmp_out. */
static int open_tmp(const char *path, char **tmp_out, struct wp_err *err)
{
	for (int tries = 0; tries < 16; tries++) {
		char *tmp = wp_xasprintf("%s.tmp.%ld.%08x", path, wp_os_getpid(), rand32());
		int fd = wp_os_open(tmp, WP_O_RDWR | WP_O_CREAT | WP_O_EXCL | WP_O_CLOEXEC, 0644);
		if (fd >= 0) {
			*tmp_out = tmp;
			return fd;
		}
		int e = errno;
		if (e != EEXIST) {
			/* The user knows the file they asked for, not our temp name. */
			int rc = wp_fs_fail(err, e, "cannot create", path);
			free(tmp);
			return rc;
		}
		free(tmp);
	}
	return wp_fail(err, -WPE_IO, "cannot create a temporary file next to '%s': every name "
		       "tried exists", path);
}

int wp_fd_write_all(int fd, const void *data, size_t len, const char *path, struct wp_err *err)
{
	const char *p = data;
	while (len) {
		ssize_t n = wp_os_write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return wp_fs_fail(err, errno, "cannot write", path);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Whether path lies in a scratch folder (wp_fs_mkscratch): one of its components starts with
 * the scratch prefix. Told by the name, not by a process-wide setting, so every writer under the
 * folder (the mirror writer staging an S3 publish, the bundle writer) knows it without being
 * told, and two publishes in one process cannot confuse each other's folders. */
bool wp_fs_in_scratch(const char *path)
{
	static const char pfx[] = WP_FS_SCRATCH_PREFIX;
	if (!path)
		return false;
	for (const char *p = path; (p = strstr(p, pfx)); p++)
		if (p == path || wp_os_is_sep(p[-1]))
			return true;
	return false;
}

int wp_fs_mkscratch(const char *base, char **out, struct wp_err *err)
{
	return wp_fs_mkdtemp(base, WP_FS_SCRATCH_PREFIX "d", out, err);
}

/* fsync a directory so a rename in it survives a crash. */
int wp_fs_sync_dir(const char *dir, struct wp_err *err)
{
	if (wp_fs_in_scratch(dir))
		return 0;
	int fd = wp_os_open(dir, WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC);
	if (fd < 0)
		return wp_fs_fail(err, errno, "cannot open directory", dir);
	int rc = 0;
	/* Some file systems cannot fsync a directory (EINVAL); the rename is then as durable as
	 * they make it, and refusing to work there would help nobody. */
	if (wp_os_fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		rc = wp_fs_fail(err, errno, "cannot sync directory", dir);
	wp_os_close(fd);
	return rc;
}

/* Temp names left beside path by processes that were killed: "<name>.tmp.<pid>.<hex>" whose pid
 * is gone (and that were last written a moment ago at least, so that a process in another PID
 * namespace writing now is not robbed of a fresh one). Removed before we make ours, so a killed
 * run's leftovers go on the next run that writes the same file. */
#define STALE_TMP_MIN_AGE_S 2
/* In dir, the temp names "<name>.tmp.<pid>.<8 hex>" (of base, when it is not NULL) whose process
 * is gone; returns how many were removed. */
static int sweep_dir(const char *dir, const char *base)
{
	size_t bn = base ? strlen(base) : 0;
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *e;
	time_t now = time(NULL);
	int n = 0;
	if (!d)
		return 0;
	while ((e = wp_os_readdir(d))) {
		const char *p = e->d_name, *t;
		struct wp_os_stat sb;
		char *end;
		if (base) {
			if (strncmp(p, base, bn) != 0 || strncmp(p + bn, ".tmp.", 5) != 0)
				continue;
			t = p + bn + 5;
		} else {
			/* the last ".tmp." in the name: a file may itself be called x.tmp.whl */
			const char *q = p, *last = NULL;
			while ((q = strstr(q, ".tmp.")))
				last = q++;
			if (!last)
				continue;
			t = last + 5;
		}
		long pid = strtol(t, &end, 10);
		if (pid <= 0 || *end != '.' || strlen(end + 1) != 8 ||
		    strspn(end + 1, "0123456789abcdef") != 8)
			continue;
		if (pid == wp_os_getpid() || wp_os_pid_alive(pid))
			continue;
		if (wp_os_fstatat(wp_os_dirfd(d), p, &sb, WP_AT_SYMLINK_NOFOLLOW) == 0 &&
		    WP_S_ISREG(sb.st_mode) && now - sb.st_mtime_s >= STALE_TMP_MIN_AGE_S &&
		    wp_os_unlinkat(wp_os_dirfd(d), p, 0) == 0)
			n++;
	}
	wp_os_closedir(d);
	return n;
}

/* Temp names left beside path by processes that were killed (their PID gone, and last written a
 * moment ago at least, so that a process in another PID namespace writing now is not robbed of a
 * fresh one). Removed before we make ours, so a killed run's leftovers go on the next run that
 * writes the same file. */
static void sweep_stale_tmp(const char *path)
{
	char *dir = wp_path_dir(path);
	const char *slash = last_sep(path);
	sweep_dir(dir, slash ? slash + 1 : path);
	free(dir);
}

int wp_flock_wait(int fd, unsigned max_ms)
{
	for (unsigned waited = 0;; waited += 50) {
		if (wp_os_flock(fd, WP_LOCK_EX | WP_LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (waited >= max_ms) {
			errno = EWOULDBLOCK;
			return -1;
		}
		wp_os_sleep_ms(50);
	}
}

int wp_fs_sweep_stale_tmp(const char *dir)
{
	return sweep_dir(dir, NULL);
}

int wp_atomic_file_open(struct wp_atomic_file *af, const char *path, struct wp_err *err)
{
	sweep_stale_tmp(path);
	af->fd = -1;
	af->tmp = NULL;
	af->path = NULL;
	int fd = open_tmp(path, &af->tmp, err);
	if (fd < 0)
		return fd;
	af->fd = fd;
	af->path = wp_xstrdup(path);
	return 0;
}

void wp_atomic_file_abort(struct wp_atomic_file *af)
{
	if (af->fd >= 0)
		wp_os_close(af->fd);
	if (af->tmp)
		wp_os_unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	af->fd = -1;
	af->tmp = af->path = NULL;
}

int wp_atomic_file_commit_to(struct wp_atomic_file *af, const char *path, struct wp_err *err)
{
	int rc = 0;
	char *dir = NULL, *tmpdir = NULL;
	if (!af->tmp)
		return wp_fail(err, -WPE_IO, "cannot commit '%s': the file is not open",
			       path ? path : "(none)");
	/* Data first, then the name: otherwise a crash can leave a complete-looking empty file. */
	if (!wp_fs_in_scratch(af->tmp) && wp_os_fsync(af->fd) < 0) {
		rc = wp_fs_fail(err, errno, "cannot sync", af->tmp);
		goto out;
	}
	int fd = af->fd;
	af->fd = -1;
	if (wp_os_close(fd) < 0) {
		rc = wp_fs_fail(err, errno, "cannot write", af->tmp);
		goto out;
	}
	if (wp_os_rename(af->tmp, path) < 0) {
		rc = wp_fs_fail(err, errno, "cannot rename into place", path);
		goto out;
	}
	/* rename() leaves both names when they were already links to one file. */
	wp_os_unlink(af->tmp);
	dir = wp_path_dir(path);
	tmpdir = wp_path_dir(af->tmp);
	free(af->tmp);
	af->tmp = NULL;
	rc = wp_fs_sync_dir(dir, err);
	if (!rc && strcmp(dir, tmpdir) != 0)
		rc = wp_fs_sync_dir(tmpdir, err);
out:
	free(dir);
	free(tmpdir);
	wp_atomic_file_abort(af);
	return rc;
}

int wp_atomic_file_commit(struct wp_atomic_file *af, struct wp_err *err)
{
	if (!af->path)
		return wp_fail(err, -WPE_IO, "cannot commit a file that is not open");
	char *path = wp_xstrdup(af->path);
	int rc = wp_atomic_file_commit_to(af, path, err);
	free(path);
	return rc;
}

int wp_atomic_write(const char *path, const void *data, size_t len, struct wp_err *err)
{
	struct wp_atomic_file af = WP_ATOMIC_FILE_INIT;
	int rc = wp_atomic_file_open(&af, path, err);
	if (rc)
		return rc;
	rc = wp_fd_write_all(af.fd, data, len, af.tmp, err);
	if (rc)
		goto out;
	rc = wp_atomic_file_commit(&af, err);
out:
	wp_atomic_file_abort(&af);
	return rc;
}

static int mkdir_one(const char *path, mode_t mode, struct wp_err *err)
{
	if (wp_os_mkdir(path, mode) == 0)
		return 0;
	int e = errno;
	struct wp_os_stat st;
	if (e == EEXIST || e == EROFS || e == EACCES || e == EPERM) {
		/* An existing directory is success even where we could not have made it. */
		if (wp_os_stat(path, &st) == 0) {
			if (WP_S_ISDIR(st.st_mode))
				return 0;
			return wp_fail(err, -WPE_IO, "cannot create directory '%s': a file of that "
				       "name is in the way", path);
		}
	}
	return wp_fs_fail(err, e, "cannot create directory", path);
}

int wp_mkdir_p(const char *path, mode_t mode, struct wp_err *err)
{
	if (!*path)
		return wp_fail(err, -WPE_IO, "cannot create a directory with an empty name");
	/* the whole path first: its parent is there nearly always (a store's fan-out folder), and a
	 * walk from the root cost two calls per existing level (16 small wheels: 400 of them) */
	struct wp_os_stat sb;
	if (wp_os_mkdir(path, mode) == 0 ||
	    (errno == EEXIST && wp_os_stat(path, &sb) == 0 && WP_S_ISDIR(sb.st_mode)))
		return 0;
	char *p = wp_xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; *s; s++) {
		if (!wp_os_is_sep(*s) || wp_os_is_sep(s[-1]))
			continue;
		char sep = *s;
		*s = 0;
		rc = mkdir_one(p, mode, err);
		*s = sep;
		if (rc)
			goto out;
	}
	rc = mkdir_one(p, mode, err);
out:
	free(p);
	return rc;
}

int wp_dir_make_open(const char *dir, int *fd, struct wp_err *err)
{
	*fd = -1;
	int rc = wp_mkdir_p(dir, 0755, err);
	if (rc)
		return rc;
	*fd = wp_os_open(dir, WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC);
	return *fd < 0 ? wp_fs_fail(err, errno, "cannot open directory", dir) : 0;
}

static int copy_into(const char *from, const char *to, struct wp_err *err)
{
	struct wp_atomic_file af = WP_ATOMIC_FILE_INIT;
	char *buf = NULL;
	int rc = 0;
	int in = wp_os_open(from, WP_O_RDONLY | WP_O_CLOEXEC);
	if (in < 0)
		return wp_fs_fail(err, errno, "cannot open", from);
	rc = wp_atomic_file_open(&af, to, err);
	if (rc)
		goto out;
	enum { CHUNK = 256 << 10 };
	buf = wp_xmalloc(CHUNK);
	for (;;) {
		ssize_t n = wp_os_read(in, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = wp_fs_fail(err, errno, "cannot read", from);
			goto out;
		}
		if (n == 0)
			break;
		rc = wp_fd_write_all(af.fd, buf, (size_t)n, af.tmp, err);
		if (rc)
			goto out;
	}
	rc = wp_atomic_file_commit(&af, err);
out:
	wp_atomic_file_abort(&af);
	free(buf);
	wp_os_close(in);
	return rc;
}

static bool link_unsupported(int e)
{
	return e == EXDEV || e == EPERM || e == EMLINK || e == EOPNOTSUPP || e == ENOSYS;
}

static int link_or_copy(const char *from, const char *to, bool sync_dir, struct wp_err *err)
{
	struct wp_os_stat a, b;
	char *tmp = NULL, *dir = NULL;
	int rc = 0;
	if (wp_os_stat(from, &a) < 0)
		return wp_fs_fail(err, errno, "cannot read", from);
	if (!WP_S_ISREG(a.st_mode))
		return wp_fail(err, -WPE_IO, "cannot link '%s': not a regular file", from);
	/* A name not taken yet is linked at once: link() is atomic, so a crash leaves no name or
	 * the whole file under it, never part of one, and no temp name is made that could be left
	 * behind. Only a name already taken goes the long way below (a stat, a sweep of the folder,
	 * a temp link and a rename). 16 small wheels into a fresh wheelhouse paid 16 failed stats,
	 * 16 reads of the folder, 16 renames and 16 failed unlinks for it (issue 42). */
	if (wp_os_link(from, to) == 0)
		goto synced;
	if (errno != EEXIST) {
		if (link_unsupported(errno))
			return copy_into(from, to, err);
		/* anything else: the long way, which says what went wrong */
	}
	if (wp_os_stat(to, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 0;
	sweep_stale_tmp(to);
	/* Link under a temp name and rename: link() alone refuses an existing `to`. */
	for (int tries = 0; tries < 16 && !tmp; tries++) {
		char *t = wp_xasprintf("%s.tmp.%ld.%08x", to, wp_os_getpid(), rand32());
		if (wp_os_link(from, t) == 0) {
			tmp = t;
			break;
		}
		int e = errno;
		free(t);
		if (e == EEXIST)
			continue;
		if (link_unsupported(e))
			return copy_into(from, to, err);
		return wp_fs_fail(err, e, "cannot create", to);
	}
	if (!tmp)
		return wp_fail(err, -WPE_IO, "cannot create a temporary link next to '%s'", to);
	if (wp_os_rename(tmp, to) < 0) {
		rc = wp_fs_fail(err, errno, "cannot rename into place", to);
		wp_os_unlink(tmp);
		goto out;
	}
	wp_os_unlink(tmp);
synced:
	if (sync_dir) {
		dir = wp_path_dir(to);
		rc = wp_fs_sync_dir(dir, err);
	}
out:
	free(tmp);
	free(dir);
	return rc;
}

int wp_link_or_copy(const char *from, const char *to, struct wp_err *err)
{
	return link_or_copy(from, to, true, err);
}

int wp_link_or_copy_unsynced(const char *from, const char *to, struct wp_err *err)
{
	return link_or_copy(from, to, false, err);
}

void wp_fs_remove_tree(const char *path)
{
	if (!path)
		return;
	wp_os_remove_tree(path);
}

bool wp_fs_is_tmp_name(const char *name)
{
	/* wp_fs_tmp_create's shape: <final>.tmp.<pid>.<8 hex> */
	const char *t = strstr(name, ".tmp.");
	for (; t; t = strstr(t + 1, ".tmp.")) {
		const char *p = t + 5;
		size_t digits = strspn(p, "0123456789");
		if (!digits || p[digits] != '.')
			continue;
		p += digits + 1;
		if (strspn(p, "0123456789abcdef") == 8 && !p[8])
			return true;
	}
	return false;
}

int wp_fs_mkdtemp(const char *base, const char *name, char **out, struct wp_err *err)
{
	int rc = wp_mkdir_p(base, 0755, err);
	*out = NULL;
	if (rc)
		return rc;
	*out = wp_xasprintf("%s/%s.XXXXXX", base, name);
	if (!wp_os_mkdtemp(*out)) {
		rc = wp_fs_fail(err, errno, "cannot create", *out);
		free(*out);
		*out = NULL;
	}
	return rc;
}
