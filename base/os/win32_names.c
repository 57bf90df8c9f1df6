/* base/os/win32_names.c: the Windows seam's names and folders: mkdir, rename, links, readdir,
 * and the fast paths it does not have yet (callers fall back). */

#include "base/os/win32_internal.h"

/* ---- names ---- */

/* Run one wide call on a path given relative to a folder fd. */
#define WITH_AT(dirfd, path, w, body)                   \
	do {                                            \
		char *p_ = wp_w32_at_path(dirfd, path); \
		if (!p_)                                \
			return -1;                      \
		wchar_t *w = wp_w32_wpath(p_);          \
		free(p_);                               \
		if (!w)                                 \
			return -1;                      \
		body;                                   \
	} while (0)

int wp_os_mkdir(const char *path, unsigned mode)
{
	return wp_os_mkdirat(WP_AT_FDCWD, path, mode);
}

int wp_os_mkdirat(int dirfd, const char *path, unsigned mode)
{
	(void)mode;
	WITH_AT(dirfd, path, w, {
		BOOL ok = CreateDirectoryW(w, NULL);
		free(w);
		return ok ? 0 : wp_w32_fail_last();
	});
}

int wp_os_rmdir(const char *path)
{
	return wp_os_unlinkat(WP_AT_FDCWD, path, WP_AT_REMOVEDIR);
}

int wp_os_unlink(const char *path)
{
	return wp_os_unlinkat(WP_AT_FDCWD, path, 0);
}

int wp_os_unlinkat(int dirfd, const char *path, int flags)
{
	WITH_AT(dirfd, path, w, {
		BOOL ok;
		DWORD a = GetFileAttributesW(w);
		if (flags & WP_AT_REMOVEDIR) {
			ok = RemoveDirectoryW(w);
		} else if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) &&
			   (a & FILE_ATTRIBUTE_REPARSE_POINT)) {
			ok = RemoveDirectoryW(w); /* a link to a folder is removed as a folder */
		} else if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY)) {
			free(w);
			return wp_w32_fail(EISDIR);
		} else {
			ok = DeleteFileW(w);
			if (!ok && GetLastError() == ERROR_ACCESS_DENIED &&
			    a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_READONLY)) {
				/* POSIX removes a read-only file from a writable folder */
				SetFileAttributesW(w, a & ~(DWORD)FILE_ATTRIBUTE_READONLY);
				ok = DeleteFileW(w);
			}
		}
		DWORD e = GetLastError();
		free(w);
		if (!ok) {
			errno = wp_w32_map_err(e);
			return -1;
		}
		return 0;
	});
}

static int move_w(const wchar_t *from, const wchar_t *to)
{
	/* the atomic replace: one step, written through before it returns */
	return MoveFileExW(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ?
		       0 :
		       wp_w32_fail_last();
}

/* The two names of a renameat or linkat, each resolved against its folder and made wide. */
struct name_pair {
	char *a, *b;
	wchar_t *wa, *wb;
};

/* true when both wide names were made; false with errno (name_pair_free still frees what was). */
static bool name_pair_make(struct name_pair *n, int fromfd, const char *from, int tofd,
			   const char *to)
{
	n->a = wp_w32_at_path(fromfd, from);
	n->b = wp_w32_at_path(tofd, to);
	n->wa = n->a ? wp_w32_wpath(n->a) : NULL;
	n->wb = n->b ? wp_w32_wpath(n->b) : NULL;
	return n->wa && n->wb;
}

/* rc, after freeing the pair with errno kept. */
static int name_pair_free(struct name_pair *n, int rc)
{
	int e = errno;
	free(n->a);
	free(n->b);
	free(n->wa);
	free(n->wb);
	errno = e;
	return rc;
}

int wp_os_rename(const char *from, const char *to)
{
	return wp_os_renameat(WP_AT_FDCWD, from, WP_AT_FDCWD, to);
}

int wp_os_renameat(int fromfd, const char *from, int tofd, const char *to)
{
	struct name_pair n;
	int rc = name_pair_make(&n, fromfd, from, tofd, to) ? move_w(n.wa, n.wb) : -1;
	return name_pair_free(&n, rc);
}

int wp_os_rename_exchange(const char *a, const char *b)
{
	(void)a;
	(void)b;
	return wp_w32_fail(ENOSYS);
}

int wp_os_link(const char *from, const char *to)
{
	return wp_os_linkat(WP_AT_FDCWD, from, WP_AT_FDCWD, to, 0);
}

int wp_os_linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	(void)flags;
	struct name_pair n;
	int rc = -1;
	if (name_pair_make(&n, fromfd, from, tofd, to))
		rc = CreateHardLinkW(n.wb, n.wa, NULL) ? 0 : wp_w32_fail_last();
	return name_pair_free(&n, rc);
}

int wp_os_symlink(const char *target, const char *path)
{
	return wp_os_symlinkat(target, WP_AT_FDCWD, path);
}

int wp_os_symlinkat(const char *target, int dirfd, const char *path)
{
	wchar_t *wt = wp_w32_utf16(target);
	if (!wt)
		return -1;
	for (wchar_t *p = wt; *p; p++)
		if (*p == L'/')
			*p = L'\\';
	char *p = wp_w32_at_path(dirfd, path);
	wchar_t *w = p ? wp_w32_wpath(p) : NULL;
	int rc = -1;
	if (w) {
		/* a folder's link must say so; the target is looked up beside the link */
		struct wp_os_stat st;
		DWORD fl = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
		if (wp_os_fstatat(dirfd, target, &st, 0) == 0 && WP_S_ISDIR(st.st_mode))
			fl |= SYMBOLIC_LINK_FLAG_DIRECTORY;
		rc = CreateSymbolicLinkW(w, wt, fl) ? 0 : wp_w32_fail_last();
	}
	int e = errno;
	free(p);
	free(w);
	free(wt);
	errno = e;
	return rc;
}

/* REPARSE_DATA_BUFFER's symbolic-link form (ntifs.h, which mingw's headers do not all carry). */
struct reparse_symlink {
	ULONG tag;
	USHORT len, reserved;
	USHORT sub_off, sub_len, print_off, print_len;
	ULONG flags; /* absent for a mount point (junction) */
	WCHAR buf[1];
};

ssize_t wp_os_readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	char *p = wp_w32_at_path(dirfd, path);
	wchar_t *w = p ? wp_w32_wpath(p) : NULL;
	free(p);
	if (!w)
		return -1;
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return wp_w32_fail_last();
	union {
		struct reparse_symlink r;
		BYTE raw[MAXIMUM_REPARSE_DATA_BUFFER_SIZE];
	} *u = malloc(sizeof(*u));
	DWORD got = 0;
	ssize_t rc = -1;
	if (!u) {
		errno = ENOMEM;
	} else if (!DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, u, sizeof(*u), &got,
				    NULL)) {
		errno = GetLastError() == ERROR_NOT_A_REPARSE_POINT ?
				EINVAL :
				wp_w32_map_err(GetLastError());
	} else if (u->r.tag != IO_REPARSE_TAG_SYMLINK && u->r.tag != IO_REPARSE_TAG_MOUNT_POINT) {
		errno = EINVAL;
	} else {
		const WCHAR *base = u->r.tag == IO_REPARSE_TAG_SYMLINK ? u->r.buf :
									 (const WCHAR *)&u->r.flags;
		size_t len = u->r.print_len / sizeof(WCHAR);
		wchar_t *t = malloc((len + 1) * sizeof(wchar_t));
		if (t) {
			memcpy(t, base + u->r.print_off / sizeof(WCHAR), len * sizeof(wchar_t));
			t[len] = 0;
			char *s = wp_w32_from_wpath(t);
			if (s) {
				size_t sl = strlen(s);
				rc = (ssize_t)(sl < n ? sl : n);
				memcpy(buf, s, (size_t)rc); /* as readlink: not terminated */
				free(s);
			}
			free(t);
		}
	}
	free(u);
	CloseHandle(h);
	return rc;
}

ssize_t wp_os_readlink(const char *path, char *buf, size_t n)
{
	return wp_os_readlinkat(WP_AT_FDCWD, path, buf, n);
}

char *wp_os_realpath(const char *path)
{
	wchar_t *w = wp_w32_wpath(path);
	if (!w)
		return NULL;
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		wp_w32_fail_last();
		return NULL;
	}
	char *s = NULL;
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	wchar_t *full = n ? malloc(((size_t)n + 1) * sizeof(wchar_t)) : NULL;
	if (full &&
	    GetFinalPathNameByHandleW(h, full, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS))
		s = wp_w32_from_wpath(full);
	else
		wp_w32_fail_last();
	free(full);
	CloseHandle(h);
	return s;
}

char *wp_os_mkdtemp(char *tmpl)
{
	size_t n = strlen(tmpl);
	if (n < 6 || strcmp(tmpl + n - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return NULL;
	}
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		if (wp_os_random(r, sizeof(r)) < 0)
			return NULL;
		for (int i = 0; i < 6; i++)
			tmpl[n - 6 + (size_t)i] = set[r[i] % (sizeof(set) - 1)];
		if (wp_os_mkdir(tmpl, 0700) == 0)
			return tmpl;
		if (errno != EEXIST)
			return NULL;
	}
	errno = EEXIST;
	return NULL;
}

/* ---- folders ---- */

struct wp_os_dir {
	HANDLE find;
	WIN32_FIND_DATAW data;
	bool first, done;
	int fd; /* the folder's fd: given to fdopendir, or opened by wp_os_dirfd; -1 */
	bool own_fd;
	char *path;
	char *name;
	struct wp_os_dirent ent;
};

struct wp_os_dir *wp_os_opendir(const char *path)
{
	size_t n = strlen(path);
	char *pat = malloc(n + 3);
	if (!pat) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(pat, n + 3, "%s%s*", path, n && wp_os_is_sep(path[n - 1]) ? "" : "/");
	wchar_t *w = wp_w32_wpath(pat);
	free(pat);
	if (!w)
		return NULL;
	struct wp_os_dir *d = calloc(1, sizeof(*d));
	if (!d) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	d->find = FindFirstFileExW(w, FindExInfoBasic, &d->data, FindExSearchNameMatch, NULL, 0);
	free(w);
	if (d->find == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		free(d);
		errno = e == ERROR_DIRECTORY ? ENOTDIR : wp_w32_map_err(e);
		return NULL;
	}
	d->first = true;
	d->fd = -1;
	d->path = _strdup(path);
	return d;
}

struct wp_os_dir *wp_os_fdopendir(int fd)
{
	char *p = wp_w32_fd_path(fd);
	if (!p)
		return NULL;
	struct wp_os_dir *d = wp_os_opendir(p);
	free(p);
	if (d) {
		d->fd = fd;
		d->own_fd = true;
	}
	return d;
}

const struct wp_os_dirent *wp_os_readdir(struct wp_os_dir *d)
{
	if (d->done)
		return NULL;
	if (!d->first && !FindNextFileW(d->find, &d->data)) {
		d->done = true;
		return NULL;
	}
	d->first = false;
	free(d->name);
	d->name = wp_w32_from_wpath(d->data.cFileName);
	d->ent.d_name = d->name ? d->name : "";
	return &d->ent;
}

void wp_os_rewinddir(struct wp_os_dir *d)
{
	struct wp_os_dir *again = wp_os_opendir(d->path);
	FindClose(d->find);
	d->done = !again;
	if (again) {
		d->find = again->find;
		d->data = again->data;
		d->first = true;
		free(again->path);
		free(again);
	} else {
		d->find = INVALID_HANDLE_VALUE;
	}
}

int wp_os_dirfd(struct wp_os_dir *d)
{
	if (d->fd < 0) {
		d->fd = wp_os_open(d->path, WP_O_RDONLY | WP_O_DIRECTORY);
		d->own_fd = d->fd >= 0;
	}
	return d->fd;
}

int wp_os_closedir(struct wp_os_dir *d)
{
	if (!d)
		return 0;
	FindClose(d->find);
	if (d->own_fd && d->fd >= 0)
		wp_os_close(d->fd);
	free(d->path);
	free(d->name);
	free(d);
	return 0;
}

/* ---- fast paths: none here yet; callers fall back ---- */

int wp_os_clone(int in_fd, int out_fd)
{
	(void)in_fd;
	(void)out_fd;
	return wp_w32_fail(EOPNOTSUPP);
}

ssize_t wp_os_copy_range(int in_fd, int64_t *in_off, int out_fd, size_t len)
{
	(void)in_fd;
	(void)in_off;
	(void)out_fd;
	(void)len;
	return wp_w32_fail(ENOSYS);
}

int wp_os_open_tmpfile(const char *dir, int flags, unsigned mode)
{
	(void)dir;
	(void)flags;
	(void)mode;
	return wp_w32_fail(EOPNOTSUPP);
}

int wp_os_link_tmpfile(int fd, const char *path)
{
	(void)fd;
	(void)path;
	return wp_w32_fail(EOPNOTSUPP);
}

ssize_t wp_os_getxattr(const char *path, const char *name, void *buf, size_t n)
{
	(void)path;
	(void)name;
	(void)buf;
	(void)n;
	return wp_w32_fail(ENOTSUP);
}

int wp_os_setxattr(const char *path, const char *name, const void *val, size_t n)
{
	(void)path;
	(void)name;
	(void)val;
	(void)n;
	return wp_w32_fail(ENOTSUP);
}

int wp_os_fsetxattr(int fd, const char *name, const void *val, size_t n)
{
	(void)fd;
	(void)name;
	(void)val;
	(void)n;
	return wp_w32_fail(ENOTSUP);
}

char *wp_os_getcwd(char *buf, size_t n)
{
	DWORD k = GetCurrentDirectoryW(0, NULL);
	wchar_t *w = k ? malloc((size_t)k * sizeof(wchar_t)) : NULL;
	char *s = w && GetCurrentDirectoryW(k, w) ? wp_w32_from_wpath(w) : NULL;
	free(w);
	if (!s)
		return NULL;
	if (strlen(s) >= n) {
		free(s);
		errno = ERANGE;
		return NULL;
	}
	memcpy(buf, s, strlen(s) + 1);
	free(s);
	return buf;
}

static int walk_in(const char *dir,
		   int (*fn)(void *ctx, const char *path, const struct wp_os_stat *st), void *ctx)
{
	struct wp_os_dir *d = wp_os_opendir(dir);
	if (!d)
		return -1;
	const struct wp_os_dirent *e;
	int rc = 0;
	while (!rc && (e = wp_os_readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		size_t n = strlen(dir) + strlen(e->d_name) + 2;
		char *sub = malloc(n);
		struct wp_os_stat st;
		if (!sub) {
			rc = wp_w32_fail(ENOMEM);
			break;
		}
		snprintf(sub, n, "%s/%s", dir, e->d_name);
		if (wp_os_lstat(sub, &st) == 0)
			rc = WP_S_ISDIR(st.st_mode) ? walk_in(sub, fn, ctx) : fn(ctx, sub, &st);
		free(sub);
	}
	wp_os_closedir(d);
	return rc;
}

int wp_os_walk(const char *root,
	       int (*fn)(void *ctx, const char *path, const struct wp_os_stat *st), void *ctx)
{
	struct wp_os_stat st;
	if (wp_os_lstat(root, &st) < 0)
		return -1;
	return WP_S_ISDIR(st.st_mode) ? walk_in(root, fn, ctx) : fn(ctx, root, &st);
}

void wp_os_remove_tree(const char *path)
{
	struct wp_os_stat st;
	if (!path || wp_os_lstat(path, &st) < 0)
		return;
	if (!WP_S_ISDIR(st.st_mode)) {
		wp_os_unlink(path); /* a file, or a link (to a folder too): the link goes, not what
				       it names */
		return;
	}
	struct wp_os_dir *d = wp_os_opendir(path);
	const struct wp_os_dirent *e;
	while (d && (e = wp_os_readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		size_t n = strlen(path) + strlen(e->d_name) + 2;
		char *sub = malloc(n);
		if (!sub)
			break;
		snprintf(sub, n, "%s/%s", path, e->d_name);
		wp_os_remove_tree(sub);
		free(sub);
	}
	wp_os_closedir(d);
	wp_os_rmdir(path);
}
