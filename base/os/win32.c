/* base/os/win32.c: the OS seam (base/os/os.h) on Windows: UTF-8 paths in, UTF-16 at the API.
 *
 * File descriptors are the C runtime's (_open_osfhandle over a CreateFileW handle), so stdio and
 * the libraries that take an fd keep working; a small table remembers the UTF-8 path each fd was
 * opened by, for the *at() calls (Windows has no handle-relative open in its documented API, so
 * wp_os_openat joins the folder's path and the name: each component is still opened with
 * FILE_FLAG_OPEN_REPARSE_POINT under WP_O_NOFOLLOW and refused when it is a link, as on Linux). */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <winioctl.h>
#include <shellapi.h>
#include <bcrypt.h>
#include <io.h>
#include <fcntl.h>

#include "base/os/os.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ENOTSUP
#define ENOTSUP 129
#endif
#ifndef EOPNOTSUPP
#define EOPNOTSUPP 130
#endif
#ifndef ELOOP
#define ELOOP 114
#endif
#ifndef EWOULDBLOCK
#define EWOULDBLOCK 140
#endif
#ifndef ENOTEMPTY
#define ENOTEMPTY 41
#endif
#ifndef SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE
#define SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE 0x2
#endif
#ifndef ENABLE_VIRTUAL_TERMINAL_PROCESSING
#define ENABLE_VIRTUAL_TERMINAL_PROCESSING 0x0004
#endif

const char wp_os_path_list_sep = ';';
const char wp_os_exe_suffix[] = ".exe";
const char wp_os_devnull[] = "NUL";
const bool wp_os_keeps_modes = false;
const enum wp_os_layout wp_os_layout = WP_OS_LAYOUT_WINDOWS;

/* ---- errors ---- */

static int map_err(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_DRIVE:
	case ERROR_BAD_NETPATH:
	case ERROR_BAD_NET_NAME:
	case ERROR_MOD_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_PRIVILEGE_NOT_HELD:
		return EACCES;
	case ERROR_SHARING_VIOLATION:
		return EBUSY;
	case ERROR_LOCK_VIOLATION:
		return EWOULDBLOCK;
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		return EEXIST;
	case ERROR_NOT_SAME_DEVICE:
		return EXDEV;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_DIR_NOT_EMPTY:
		return ENOTEMPTY;
	case ERROR_DIRECTORY:
		return ENOTDIR;
	case ERROR_FILENAME_EXCED_RANGE:
		return ENAMETOOLONG;
	case ERROR_WRITE_PROTECT:
		return EROFS;
	case ERROR_NOT_SUPPORTED:
	case ERROR_INVALID_FUNCTION:
		return EOPNOTSUPP;
	case ERROR_BROKEN_PIPE:
	case ERROR_NO_DATA:
		return EPIPE;
	case ERROR_INVALID_HANDLE:
		return EBADF;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_INVALID_NAME:
	case ERROR_INVALID_PARAMETER:
		return EINVAL;
	case ERROR_TOO_MANY_LINKS:
		return EMLINK;
	case ERROR_CANT_RESOLVE_FILENAME:
		return ELOOP;
	default:
		return EIO;
	}
}

static int fail_last(void)
{
	errno = map_err(GetLastError());
	return -1;
}

static int fail(int e)
{
	errno = e;
	return -1;
}

/* ---- paths: UTF-8 in, UTF-16 out ---- */

bool wp_os_is_sep(char c)
{
	return c == '/' || c == '\\';
}

bool wp_os_path_is_abs(const char *p)
{
	if (!p || !*p)
		return false;
	if (((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) && p[1] == ':' &&
	    wp_os_is_sep(p[2]))
		return true;
	/* "\\server\share", "\\?\C:\x", and a path rooted on the current drive */
	return wp_os_is_sep(p[0]);
}

static wchar_t *utf16(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0) {
		errno = EINVAL; /* not UTF-8 */
		return NULL;
	}
	wchar_t *w = malloc((size_t)n * sizeof(wchar_t));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

static char *utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	char *s = malloc((size_t)n);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

/* A path for the wide API: absolute, '\' separated, with the \\?\ (or \\?\UNC\) prefix when it is
 * long, so MAX_PATH does not apply. NULL with errno. */
static wchar_t *wpath(const char *path)
{
	if (!path || !*path) {
		errno = ENOENT;
		return NULL;
	}
	wchar_t *w = utf16(path);
	if (!w)
		return NULL;
	for (wchar_t *p = w; *p; p++)
		if (*p == L'/')
			*p = L'\\';
	if (!wcsncmp(w, L"\\\\?\\", 4) || !wcscmp(w, L"NUL") || !wcsncmp(w, L"\\\\.\\", 4))
		return w;
	DWORD n = GetFullPathNameW(w, 0, NULL, NULL);
	if (!n) {
		free(w);
		fail_last();
		return NULL;
	}
	wchar_t *full = malloc(((size_t)n + 8) * sizeof(wchar_t));
	if (!full) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	DWORD got = GetFullPathNameW(w, n, full + 8, NULL);
	free(w);
	if (!got || got >= n) {
		free(full);
		fail_last();
		return NULL;
	}
	wchar_t *body = full + 8;
	if (got < MAX_PATH - 12) {
		memmove(full, body, ((size_t)got + 1) * sizeof(wchar_t));
		return full;
	}
	if (body[0] == L'\\' && body[1] == L'\\') { /* UNC: \\server\share -> \\?\UNC\server\share
						     */
		body += 2 - 8;
		memcpy(body, L"\\\\?\\UNC\\", 8 * sizeof(wchar_t));
		memmove(full, body, (wcslen(body) + 1) * sizeof(wchar_t));
		return full;
	}
	body -= 4;
	memcpy(body, L"\\\\?\\", 4 * sizeof(wchar_t));
	memmove(full, body, (wcslen(body) + 1) * sizeof(wchar_t));
	return full;
}

/* A wide path back to the seam's UTF-8 form: the \\?\ prefix dropped, '/' separated. */
static char *from_wpath(const wchar_t *w)
{
	if (!wcsncmp(w, L"\\\\?\\UNC\\", 8)) {
		char *s = utf8(w + 6);
		if (s)
			s[0] = s[1] = '\\';
		w = NULL;
		if (!s)
			return NULL;
		for (char *p = s; *p; p++)
			if (*p == '\\')
				*p = '/';
		return s;
	}
	if (!wcsncmp(w, L"\\\\?\\", 4))
		w += 4;
	char *s = utf8(w);
	if (s)
		for (char *p = s; *p; p++)
			if (*p == '\\')
				*p = '/';
	return s;
}

/* ---- the fd table: the path each fd was opened by, and a folder's lock ---- */

#define MAX_FDS 8192
static struct fdinfo {
	char *path;
	HANDLE lock; /* a folder's flock: a named mutex */
	bool dir;
} fds[MAX_FDS];
static SRWLOCK fds_lock = SRWLOCK_INIT;

static void fd_set_path(int fd, const char *path, bool dir)
{
	if (fd < 0 || fd >= MAX_FDS)
		return;
	AcquireSRWLockExclusive(&fds_lock);
	free(fds[fd].path);
	fds[fd].path = path ? _strdup(path) : NULL;
	fds[fd].dir = dir;
	ReleaseSRWLockExclusive(&fds_lock);
}

/* The path fd was opened by, newly allocated; NULL with errno EBADF. */
static char *fd_path(int fd)
{
	char *p = NULL;
	if (fd >= 0 && fd < MAX_FDS) {
		AcquireSRWLockShared(&fds_lock);
		p = fds[fd].path ? _strdup(fds[fd].path) : NULL;
		ReleaseSRWLockShared(&fds_lock);
	}
	if (!p)
		errno = EBADF;
	return p;
}

/* path resolved against the folder open at dirfd (UTF-8, newly allocated). */
static char *at_path(int dirfd, const char *path)
{
	if (dirfd == WP_AT_FDCWD || wp_os_path_is_abs(path))
		return _strdup(path);
	char *dir = fd_path(dirfd);
	if (!dir)
		return NULL;
	size_t n = strlen(dir) + strlen(path) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s", dir, path);
	free(dir);
	return s;
}

static HANDLE fd_handle(int fd)
{
	return (HANDLE)_get_osfhandle(fd);
}

/* ---- files ---- */

static int open_w(const char *path, int flags, unsigned mode)
{
	wchar_t *w = wpath(path);
	if (!w)
		return -1;
	DWORD access = 0, disp, attrs = FILE_ATTRIBUTE_NORMAL | FILE_FLAG_BACKUP_SEMANTICS;
	switch (flags & WP_O_ACCMODE) {
	case WP_O_WRONLY: access = GENERIC_WRITE; break;
	case WP_O_RDWR: access = GENERIC_READ | GENERIC_WRITE; break;
	default: access = GENERIC_READ; break;
	}
	if (flags & WP_O_APPEND)
		access = (access & ~GENERIC_WRITE) | FILE_APPEND_DATA | (access & GENERIC_READ);
	if ((flags & WP_O_CREAT) && (flags & WP_O_EXCL))
		disp = CREATE_NEW;
	else if ((flags & WP_O_CREAT) && (flags & WP_O_TRUNC))
		disp = CREATE_ALWAYS;
	else if (flags & WP_O_CREAT)
		disp = OPEN_ALWAYS;
	else if (flags & WP_O_TRUNC)
		disp = TRUNCATE_EXISTING;
	else
		disp = OPEN_EXISTING;
	if (flags & (WP_O_NOFOLLOW | WP_O_EXCL))
		attrs |= FILE_FLAG_OPEN_REPARSE_POINT;
	if ((flags & WP_O_CREAT) && !(mode & 0200))
		attrs |= FILE_ATTRIBUTE_READONLY;
	/* sharing everything, delete included: a file open here can be renamed over, as on Linux */
	HANDLE h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			       NULL, disp, attrs, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_last();
	BY_HANDLE_FILE_INFORMATION info;
	bool dir = false;
	if (GetFileInformationByHandle(h, &info)) {
		dir = info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY;
		if ((flags & WP_O_NOFOLLOW) &&
		    (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
			CloseHandle(h);
			return fail(ELOOP);
		}
	}
	if ((flags & WP_O_DIRECTORY) && !dir) {
		CloseHandle(h);
		return fail(ENOTDIR);
	}
	int acc = flags & WP_O_ACCMODE;
	int crt = _O_BINARY |
		  (acc == WP_O_WRONLY ? _O_WRONLY :
		   acc == WP_O_RDWR   ? _O_RDWR :
					_O_RDONLY) |
		  (flags & WP_O_APPEND ? _O_APPEND : 0);
	int fd = _open_osfhandle((intptr_t)h, crt);
	if (fd < 0) {
		CloseHandle(h);
		return fail(EMFILE);
	}
	fd_set_path(fd, path, dir);
	return fd;
}

#define MODE_ARG(flags, mode)                        \
	do {                                         \
		va_list ap;                          \
		va_start(ap, flags);                 \
		if ((flags) & WP_O_CREAT)            \
			mode = va_arg(ap, unsigned); \
		va_end(ap);                          \
	} while (0)

int wp_os_open(const char *path, int flags, ...)
{
	unsigned mode = 0;
	MODE_ARG(flags, mode);
	return open_w(path, flags, mode);
}

int wp_os_openat(int dirfd, const char *path, int flags, ...)
{
	unsigned mode = 0;
	MODE_ARG(flags, mode);
	char *p = at_path(dirfd, path);
	if (!p)
		return -1;
	int fd = open_w(p, flags, mode);
	int e = errno;
	free(p);
	errno = e;
	return fd;
}

int wp_os_close(int fd)
{
	if (fd >= 0 && fd < MAX_FDS) {
		AcquireSRWLockExclusive(&fds_lock);
		free(fds[fd].path);
		fds[fd].path = NULL;
		if (fds[fd].lock) {
			ReleaseMutex(fds[fd].lock);
			CloseHandle(fds[fd].lock);
			fds[fd].lock = NULL;
		}
		ReleaseSRWLockExclusive(&fds_lock);
	}
	return _close(fd);
}

int wp_os_dup(int fd)
{
	int n = _dup(fd);
	if (n >= 0) {
		char *p = fd_path(fd);
		bool dir = fd < MAX_FDS && fds[fd].dir;
		fd_set_path(n, p, dir);
		free(p);
	}
	return n;
}

ssize_t wp_os_read(int fd, void *buf, size_t n)
{
	return _read(fd, buf, n > INT_MAX ? INT_MAX : (unsigned)n);
}

ssize_t wp_os_write(int fd, const void *buf, size_t n)
{
	return _write(fd, buf, n > INT_MAX ? INT_MAX : (unsigned)n);
}

/* ReadFile and WriteFile at an offset move the handle's position too, which pread(2) does not:
 * it is put back, so a reader that reads on from where it was (libarchive over the same fd) is
 * not moved under its feet. The data of concurrent calls is right whatever the order (each names
 * its offset); only the position is shared. */
static LARGE_INTEGER position(HANDLE h)
{
	LARGE_INTEGER zero = { 0 }, at = { 0 };
	SetFilePointerEx(h, zero, &at, FILE_CURRENT);
	return at;
}

ssize_t wp_os_pread(int fd, void *buf, size_t n, int64_t off)
{
	HANDLE h = fd_handle(fd);
	LARGE_INTEGER at = position(h);
	OVERLAPPED ov = { 0 };
	DWORD got = 0;
	ov.Offset = (DWORD)((uint64_t)off & 0xffffffffu);
	ov.OffsetHigh = (DWORD)((uint64_t)off >> 32);
	BOOL ok = ReadFile(h, buf, n > 0x7fffffff ? 0x7fffffff : (DWORD)n, &got, &ov);
	DWORD e = GetLastError();
	SetFilePointerEx(h, at, NULL, FILE_BEGIN);
	if (!ok) {
		if (e == ERROR_HANDLE_EOF)
			return 0;
		errno = map_err(e);
		return -1;
	}
	return (ssize_t)got;
}

ssize_t wp_os_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
	HANDLE h = fd_handle(fd);
	LARGE_INTEGER at = position(h);
	OVERLAPPED ov = { 0 };
	DWORD put = 0;
	ov.Offset = (DWORD)((uint64_t)off & 0xffffffffu);
	ov.OffsetHigh = (DWORD)((uint64_t)off >> 32);
	BOOL ok = WriteFile(h, buf, n > 0x7fffffff ? 0x7fffffff : (DWORD)n, &put, &ov);
	DWORD e = GetLastError();
	SetFilePointerEx(h, at, NULL, FILE_BEGIN);
	if (!ok) {
		errno = map_err(e);
		return -1;
	}
	return (ssize_t)put;
}

int64_t wp_os_lseek(int fd, int64_t off, int whence)
{
	return _lseeki64(fd, off, whence);
}

int wp_os_fsync(int fd)
{
	if (fd >= 0 && fd < MAX_FDS && fds[fd].dir)
		return 0; /* NTFS journals names; a folder handle cannot be flushed */
	return FlushFileBuffers(fd_handle(fd)) ? 0 : fail_last();
}

int wp_os_fdatasync(int fd)
{
	return wp_os_fsync(fd);
}

int wp_os_syncfs(int fd)
{
	(void)fd;
	return 0;
}

int wp_os_ftruncate(int fd, int64_t len)
{
	FILE_END_OF_FILE_INFO eof;
	eof.EndOfFile.QuadPart = len;
	return SetFileInformationByHandle(fd_handle(fd), FileEndOfFileInfo, &eof, sizeof(eof)) ?
		       0 :
		       fail_last();
}

void wp_os_start_writeback(int fd, int64_t off, int64_t len)
{
	(void)fd;
	(void)off;
	(void)len;
}

int wp_os_set_nonblock(int fd, bool on)
{
	HANDLE h = fd_handle(fd);
	if (GetFileType(h) == FILE_TYPE_PIPE) {
		DWORD m = on ? PIPE_NOWAIT : PIPE_WAIT;
		SetNamedPipeHandleState(h, &m, NULL, NULL);
	}
	return 0;
}

static int64_t filetime_ns(FILETIME ft, long *ns)
{
	/* 100 ns ticks since 1601 */
	uint64_t t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
	t -= 116444736000000000ull;
	*ns = (long)(t % 10000000ull) * 100;
	return (int64_t)(t / 10000000ull);
}

static bool is_exe_name(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	return dot && (!_stricmp(dot, ".exe") || !_stricmp(dot, ".com") || !_stricmp(dot, ".bat") ||
		       !_stricmp(dot, ".cmd"));
}

static int stat_handle(HANDLE h, const char *path, bool nofollow, struct wp_os_stat *st)
{
	memset(st, 0, sizeof(*st));
	DWORD type = GetFileType(h);
	if (type == FILE_TYPE_PIPE) {
		st->st_mode = WP_S_IFIFO | 0600;
		return 0;
	}
	if (type == FILE_TYPE_CHAR) {
		st->st_mode = WP_S_IFCHR | 0600;
		return 0;
	}
	BY_HANDLE_FILE_INFORMATION info;
	if (!GetFileInformationByHandle(h, &info))
		return fail_last();
	st->st_dev = info.dwVolumeSerialNumber;
	st->st_ino = ((uint64_t)info.nFileIndexHigh << 32) | info.nFileIndexLow;
	st->st_nlink = info.nNumberOfLinks;
	st->st_size = (int64_t)(((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow);
	st->st_blocks = (st->st_size + 511) / 512;
	st->st_mtime_s = filetime_ns(info.ftLastWriteTime, &st->st_mtime_ns);
	unsigned perm = info.dwFileAttributes & FILE_ATTRIBUTE_READONLY ? 0444 : 0644;
	if (nofollow && (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
		st->st_mode = WP_S_IFLNK | 0777;
	else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		st->st_mode = WP_S_IFDIR | perm | 0111;
	else
		st->st_mode = WP_S_IFREG | perm | (is_exe_name(path) ? 0111 : 0);
	return 0;
}

static int stat_path(const char *path, struct wp_os_stat *st, bool nofollow)
{
	wchar_t *w = wpath(path);
	if (!w)
		return -1;
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS |
				       (nofollow ? FILE_FLAG_OPEN_REPARSE_POINT : 0),
			       NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_last();
	int rc = stat_handle(h, path, nofollow, st);
	int e = errno;
	CloseHandle(h);
	errno = e;
	return rc;
}

int wp_os_stat(const char *path, struct wp_os_stat *st)
{
	return stat_path(path, st, false);
}

int wp_os_lstat(const char *path, struct wp_os_stat *st)
{
	return stat_path(path, st, true);
}

int wp_os_fstat(int fd, struct wp_os_stat *st)
{
	char *p = fd_path(fd);
	int rc = stat_handle(fd_handle(fd), p, false, st);
	free(p);
	return rc;
}

int wp_os_fstatat(int dirfd, const char *path, struct wp_os_stat *st, int flags)
{
	char *p = at_path(dirfd, path);
	if (!p)
		return -1;
	int rc = stat_path(p, st, flags & WP_AT_SYMLINK_NOFOLLOW);
	int e = errno;
	free(p);
	errno = e;
	return rc;
}

int wp_os_access(const char *path, int how)
{
	wchar_t *w = wpath(path);
	if (!w)
		return -1;
	DWORD a = GetFileAttributesW(w);
	free(w);
	if (a == INVALID_FILE_ATTRIBUTES)
		return fail_last();
	if ((how & WP_W_OK) && (a & FILE_ATTRIBUTE_READONLY) && !(a & FILE_ATTRIBUTE_DIRECTORY))
		return fail(EACCES);
	if ((how & WP_X_OK) && !(a & FILE_ATTRIBUTE_DIRECTORY) && !is_exe_name(path))
		return fail(EACCES);
	return 0;
}

int wp_os_faccessat(int dirfd, const char *path, int how, int flags)
{
	(void)flags;
	char *p = at_path(dirfd, path);
	if (!p)
		return -1;
	int rc = wp_os_access(p, how);
	int e = errno;
	free(p);
	errno = e;
	return rc;
}

int wp_os_chmod(const char *path, unsigned mode)
{
	wchar_t *w = wpath(path);
	if (!w)
		return -1;
	DWORD a = GetFileAttributesW(w);
	int rc = 0;
	if (a == INVALID_FILE_ATTRIBUTES)
		rc = fail_last();
	else {
		a = mode & 0200 ? a & ~(DWORD)FILE_ATTRIBUTE_READONLY : a | FILE_ATTRIBUTE_READONLY;
		if (!SetFileAttributesW(w, a ? a : FILE_ATTRIBUTE_NORMAL))
			rc = fail_last();
	}
	free(w);
	return rc;
}

unsigned wp_os_umask(unsigned mask)
{
	(void)mask;
	return 0;
}

int wp_os_fchmod(int fd, unsigned mode)
{
	char *p = fd_path(fd);
	if (!p)
		return -1;
	int rc = wp_os_chmod(p, mode);
	free(p);
	return rc;
}

int wp_os_set_mtime(const char *path, int64_t sec, long nsec)
{
	wchar_t *w = wpath(path);
	if (!w)
		return -1;
	HANDLE h = CreateFileW(w, FILE_WRITE_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_last();
	uint64_t t = (uint64_t)sec * 10000000ull + (uint64_t)nsec / 100 + 116444736000000000ull;
	FILETIME ft = { (DWORD)(t & 0xffffffffu), (DWORD)(t >> 32) };
	int rc = SetFileTime(h, NULL, &ft, &ft) ? 0 : fail_last();
	CloseHandle(h);
	return rc;
}

/* ---- names ---- */

/* Run one wide call on a path given relative to a folder fd. */
#define WITH_AT(dirfd, path, w, body)            \
	do {                                     \
		char *p_ = at_path(dirfd, path); \
		if (!p_)                         \
			return -1;               \
		wchar_t *w = wpath(p_);          \
		free(p_);                        \
		if (!w)                          \
			return -1;               \
		body;                            \
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
		return ok ? 0 : fail_last();
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
			return fail(EISDIR);
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
			errno = map_err(e);
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
		       fail_last();
}

int wp_os_rename(const char *from, const char *to)
{
	return wp_os_renameat(WP_AT_FDCWD, from, WP_AT_FDCWD, to);
}

int wp_os_renameat(int fromfd, const char *from, int tofd, const char *to)
{
	char *a = at_path(fromfd, from), *b = at_path(tofd, to);
	wchar_t *wa = a ? wpath(a) : NULL, *wb = b ? wpath(b) : NULL;
	int rc = wa && wb ? move_w(wa, wb) : -1;
	int e = errno;
	free(a);
	free(b);
	free(wa);
	free(wb);
	errno = e;
	return rc;
}

int wp_os_rename_exchange(const char *a, const char *b)
{
	(void)a;
	(void)b;
	return fail(ENOSYS);
}

int wp_os_link(const char *from, const char *to)
{
	return wp_os_linkat(WP_AT_FDCWD, from, WP_AT_FDCWD, to, 0);
}

int wp_os_linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	(void)flags;
	char *a = at_path(fromfd, from), *b = at_path(tofd, to);
	wchar_t *wa = a ? wpath(a) : NULL, *wb = b ? wpath(b) : NULL;
	int rc = -1;
	if (wa && wb)
		rc = CreateHardLinkW(wb, wa, NULL) ? 0 : fail_last();
	int e = errno;
	free(a);
	free(b);
	free(wa);
	free(wb);
	errno = e;
	return rc;
}

int wp_os_symlink(const char *target, const char *path)
{
	return wp_os_symlinkat(target, WP_AT_FDCWD, path);
}

int wp_os_symlinkat(const char *target, int dirfd, const char *path)
{
	wchar_t *wt = utf16(target);
	if (!wt)
		return -1;
	for (wchar_t *p = wt; *p; p++)
		if (*p == L'/')
			*p = L'\\';
	char *p = at_path(dirfd, path);
	wchar_t *w = p ? wpath(p) : NULL;
	int rc = -1;
	if (w) {
		/* a folder's link must say so; the target is looked up beside the link */
		struct wp_os_stat st;
		DWORD fl = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
		if (wp_os_fstatat(dirfd, target, &st, 0) == 0 && WP_S_ISDIR(st.st_mode))
			fl |= SYMBOLIC_LINK_FLAG_DIRECTORY;
		rc = CreateSymbolicLinkW(w, wt, fl) ? 0 : fail_last();
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
	char *p = at_path(dirfd, path);
	wchar_t *w = p ? wpath(p) : NULL;
	free(p);
	if (!w)
		return -1;
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_last();
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
		errno = GetLastError() == ERROR_NOT_A_REPARSE_POINT ? EINVAL :
								      map_err(GetLastError());
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
			char *s = from_wpath(t);
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
	wchar_t *w = wpath(path);
	if (!w)
		return NULL;
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		fail_last();
		return NULL;
	}
	char *s = NULL;
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	wchar_t *full = n ? malloc(((size_t)n + 1) * sizeof(wchar_t)) : NULL;
	if (full &&
	    GetFinalPathNameByHandleW(h, full, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS))
		s = from_wpath(full);
	else
		fail_last();
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
	wchar_t *w = wpath(pat);
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
		errno = e == ERROR_DIRECTORY ? ENOTDIR : map_err(e);
		return NULL;
	}
	d->first = true;
	d->fd = -1;
	d->path = _strdup(path);
	return d;
}

struct wp_os_dir *wp_os_fdopendir(int fd)
{
	char *p = fd_path(fd);
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
	d->name = from_wpath(d->data.cFileName);
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

/* ---- locks ---- */

/* A folder cannot be locked with LockFileEx: its lock is a named mutex for its path, held until
 * the fd is closed (or the process ends: the next holder sees it abandoned, which is fine). */
static int lock_dir(int fd, int how)
{
	char *p = fd_path(fd);
	if (!p)
		return -1;
	wchar_t name[64];
	uint64_t hash = 1469598103934665603ull; /* FNV-1a of the lowered path */
	for (const char *c = p; *c; c++)
		hash = (hash ^ (unsigned char)(*c >= 'A' && *c <= 'Z' ? *c + 32 :
					       *c == '\\'             ? '/' :
									*c)) *
		       1099511628211ull;
	free(p);
	swprintf(name, 64, L"Local\\wheelpick-lock-%016llx", (unsigned long long)hash);
	AcquireSRWLockExclusive(&fds_lock);
	HANDLE m = fds[fd].lock;
	ReleaseSRWLockExclusive(&fds_lock);
	if (how & WP_LOCK_UN) {
		if (m) {
			ReleaseMutex(m);
			CloseHandle(m);
			AcquireSRWLockExclusive(&fds_lock);
			fds[fd].lock = NULL;
			ReleaseSRWLockExclusive(&fds_lock);
		}
		return 0;
	}
	if (m)
		return 0;
	m = CreateMutexW(NULL, FALSE, name);
	if (!m)
		return fail_last();
	DWORD r = WaitForSingleObject(m, how & WP_LOCK_NB ? 0 : INFINITE);
	if (r != WAIT_OBJECT_0 && r != WAIT_ABANDONED) {
		CloseHandle(m);
		return fail(EWOULDBLOCK);
	}
	AcquireSRWLockExclusive(&fds_lock);
	fds[fd].lock = m;
	ReleaseSRWLockExclusive(&fds_lock);
	return 0;
}

int wp_os_flock(int fd, int how)
{
	if (fd >= 0 && fd < MAX_FDS && fds[fd].dir)
		return lock_dir(fd, how);
	HANDLE h = fd_handle(fd);
	/* LockFileEx locks are mandatory: a locked range cannot be read through another handle.
	 * flock is advisory, and what we lock is read by others (a store's partial file, a
	 * catalog), so the lock is one byte far past any end of file, which only other locks ever
	 * meet. */
	OVERLAPPED ov = { 0 };
	ov.OffsetHigh = 0x7fffffff;
	if (how & WP_LOCK_UN)
		return UnlockFileEx(h, 0, 1, 0, &ov) ? 0 : fail_last();
	DWORD fl = (how & WP_LOCK_EX ? LOCKFILE_EXCLUSIVE_LOCK : 0) |
		   (how & WP_LOCK_NB ? LOCKFILE_FAIL_IMMEDIATELY : 0);
	if (LockFileEx(h, fl, 0, 1, 0, &ov))
		return 0;
	return GetLastError() == ERROR_LOCK_VIOLATION || GetLastError() == ERROR_IO_PENDING ?
		       fail(EWOULDBLOCK) :
		       fail_last();
}

/* ---- fast paths: none here yet; callers fall back ---- */

int wp_os_clone(int in_fd, int out_fd)
{
	(void)in_fd;
	(void)out_fd;
	return fail(EOPNOTSUPP);
}

ssize_t wp_os_copy_range(int in_fd, int64_t *in_off, int out_fd, size_t len)
{
	(void)in_fd;
	(void)in_off;
	(void)out_fd;
	(void)len;
	return fail(ENOSYS);
}

int wp_os_open_tmpfile(const char *dir, int flags, unsigned mode)
{
	(void)dir;
	(void)flags;
	(void)mode;
	return fail(EOPNOTSUPP);
}

int wp_os_link_tmpfile(int fd, const char *path)
{
	(void)fd;
	(void)path;
	return fail(EOPNOTSUPP);
}

ssize_t wp_os_getxattr(const char *path, const char *name, void *buf, size_t n)
{
	(void)path;
	(void)name;
	(void)buf;
	(void)n;
	return fail(ENOTSUP);
}

int wp_os_setxattr(const char *path, const char *name, const void *val, size_t n)
{
	(void)path;
	(void)name;
	(void)val;
	(void)n;
	return fail(ENOTSUP);
}

int wp_os_fsetxattr(int fd, const char *name, const void *val, size_t n)
{
	(void)fd;
	(void)name;
	(void)val;
	(void)n;
	return fail(ENOTSUP);
}

char *wp_os_getcwd(char *buf, size_t n)
{
	DWORD k = GetCurrentDirectoryW(0, NULL);
	wchar_t *w = k ? malloc((size_t)k * sizeof(wchar_t)) : NULL;
	char *s = w && GetCurrentDirectoryW(k, w) ? from_wpath(w) : NULL;
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
			rc = fail(ENOMEM);
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

/* ---- pipes, polling ---- */

int wp_os_pipe(int fds2[2])
{
	HANDLE r, w;
	if (!CreatePipe(&r, &w, NULL, 1 << 16))
		return fail_last();
	fds2[0] = _open_osfhandle((intptr_t)r, _O_RDONLY | _O_BINARY);
	fds2[1] = _open_osfhandle((intptr_t)w, _O_BINARY);
	if (fds2[0] < 0 || fds2[1] < 0) {
		if (fds2[0] >= 0)
			_close(fds2[0]);
		else
			CloseHandle(r);
		if (fds2[1] >= 0)
			_close(fds2[1]);
		else
			CloseHandle(w);
		return fail(EMFILE);
	}
	return 0;
}

/* Windows cannot wait on an anonymous pipe: ask each fd, sleeping a little between rounds. */
int wp_os_poll(struct wp_os_pollfd *p, size_t n, int timeout_ms)
{
	int64_t end = timeout_ms < 0 ? INT64_MAX : wp_os_monotonic_ns() / 1000000 + timeout_ms;
	for (unsigned nap = 1;; nap = nap < 16 ? nap * 2 : 16) {
		int ready = 0;
		for (size_t i = 0; i < n; i++) {
			HANDLE h = fd_handle(p[i].fd);
			p[i].revents = 0;
			if (h == INVALID_HANDLE_VALUE) {
				p[i].revents = WP_POLLERR;
			} else if (GetFileType(h) == FILE_TYPE_PIPE) {
				DWORD avail = 0;
				if (!PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL))
					p[i].revents = (short)(p[i].events & WP_POLLIN ?
								       WP_POLLHUP | WP_POLLIN :
								       WP_POLLERR);
				else if ((p[i].events & WP_POLLIN) && avail)
					p[i].revents = WP_POLLIN;
				else if (p[i].events & WP_POLLOUT)
					p[i].revents = WP_POLLOUT; /* a non-blocking pipe write
								      takes what fits */
			} else {
				p[i].revents = (short)(p[i].events & (WP_POLLIN | WP_POLLOUT));
			}
			ready += p[i].revents != 0;
		}
		if (ready)
			return ready;
		int64_t left = end - wp_os_monotonic_ns() / 1000000;
		if (left <= 0)
			return 0;
		Sleep(left < nap ? (DWORD)left : nap);
	}
}

/* ---- processes ---- */

/* argv as one command line, quoted as the MSVCRT (and CommandLineToArgvW) parse it back: an
 * argument with a space, tab or quote is put in quotes; backslashes are literal except before a
 * quote, where each is doubled and the quote escaped. */
static wchar_t *command_line(const char *const *argv)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
#define PUT(c)                                          \
	do {                                            \
		if (len + 2 > cap) {                    \
			char *t_ = realloc(s, cap *= 2); \
			if (!t_) {                      \
				free(s);                \
				return NULL;            \
			}                               \
			s = t_;                         \
		}                                       \
		s[len++] = (c);                         \
	} while (0)
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];
		if (i)
			PUT(' ');
		if (*a && !strpbrk(a, " \t\n\v\"")) {
			for (; *a; a++)
				PUT(*a);
			continue;
		}
		PUT('"');
		for (;; a++) {
			size_t bs = 0;
			while (*a == '\\') {
				a++;
				bs++;
			}
			if (!*a) {
				for (size_t k = 0; k < 2 * bs; k++)
					PUT('\\');
				break;
			}
			if (*a == '"') {
				for (size_t k = 0; k < 2 * bs + 1; k++)
					PUT('\\');
			} else {
				for (size_t k = 0; k < bs; k++)
					PUT('\\');
			}
			PUT(*a);
		}
		PUT('"');
	}
#undef PUT
	s[len] = 0;
	wchar_t *w = utf16(s);
	free(s);
	return w;
}

/* envp as CreateProcessW's UTF-16 block: each "NAME=value" and its NUL, then one more NUL (an
 * empty block is two). NULL when out of memory or a string is not UTF-8. */
static wchar_t *environment_block(const char *const *envp)
{
	size_t cap = 2, len = 0;
	wchar_t *b = malloc(cap * sizeof(*b));
	for (size_t i = 0; b && envp && envp[i]; i++) {
		wchar_t *w = utf16(envp[i]);
		if (!w) {
			free(b);
			return NULL;
		}
		size_t n = wcslen(w) + 1;
		if (len + n + 1 > cap) {
			while (len + n + 1 > cap)
				cap *= 2;
			wchar_t *t = realloc(b, cap * sizeof(*b));
			if (!t) {
				free(w);
				free(b);
				return NULL;
			}
			b = t;
		}
		memcpy(b + len, w, n * sizeof(*b));
		len += n;
		free(w);
	}
	if (b) {
		b[len++] = 0;
		if (len == 1)
			b[len++] = 0;
	}
	return b;
}

static HANDLE inheritable(int fd, DWORD std)
{
	HANDLE h = fd >= 0 ? fd_handle(fd) : GetStdHandle(std), d = NULL;
	if (h == INVALID_HANDLE_VALUE || !h)
		return NULL;
	if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &d, 0, TRUE,
			     DUPLICATE_SAME_ACCESS))
		return NULL;
	return d;
}

int wp_os_spawn(const struct wp_os_spawn *s, struct wp_os_proc *p)
{
	memset(p, 0, sizeof(*p));
	wchar_t *cmd = command_line(s->argv);
	wchar_t *app = NULL;
	wchar_t *env = environment_block(s->envp);
	if (!cmd || !env) {
		free(cmd);
		free(env);
		return ENOMEM;
	}
	if (!s->search) {
		app = wpath(s->argv[0]);
		if (!app) {
			free(cmd);
			free(env);
			return errno;
		}
	}
	HANDLE hs[3] = { inheritable(s->stdin_fd, STD_INPUT_HANDLE),
			 inheritable(s->stdout_fd, STD_OUTPUT_HANDLE),
			 inheritable(s->stderr_fd, STD_ERROR_HANDLE) };
	HANDLE list[3];
	DWORD nlist = 0;
	for (int i = 0; i < 3; i++)
		if (hs[i])
			list[nlist++] = hs[i];
	/* only these three handles reach the child, not every inheritable handle we hold */
	SIZE_T asz = 0;
	InitializeProcThreadAttributeList(NULL, 1, 0, &asz);
	LPPROC_THREAD_ATTRIBUTE_LIST attrs = malloc(asz);
	STARTUPINFOEXW si;
	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = hs[0];
	si.StartupInfo.hStdOutput = hs[1];
	si.StartupInfo.hStdError = hs[2];
	DWORD flags = CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
	if (attrs && InitializeProcThreadAttributeList(attrs, 1, 0, &asz) && nlist &&
	    UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list,
				      nlist * sizeof(HANDLE), NULL, NULL)) {
		si.lpAttributeList = attrs;
		flags |= EXTENDED_STARTUPINFO_PRESENT;
	}
	if (s->own_group)
		flags |= CREATE_NEW_PROCESS_GROUP;
	PROCESS_INFORMATION pi;
	BOOL ok = CreateProcessW(app, cmd, NULL, NULL, nlist > 0, flags, env, NULL, &si.StartupInfo,
				 &pi);
	DWORD err = GetLastError();
	if (si.lpAttributeList)
		DeleteProcThreadAttributeList(attrs);
	free(attrs);
	for (int i = 0; i < 3; i++)
		if (hs[i])
			CloseHandle(hs[i]);
	free(cmd);
	free(env);
	free(app);
	if (!ok)
		return map_err(err);
	if (s->own_group) {
		/* a job holds what it starts too, so a kill reaches a wrapper's children */
		p->job = CreateJobObjectW(NULL, NULL);
		if (p->job && !AssignProcessToJobObject(p->job, pi.hProcess)) {
			CloseHandle(p->job);
			p->job = NULL;
		}
	}
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	p->pid = (long)pi.dwProcessId;
	p->handle = pi.hProcess;
	return 0;
}

int wp_os_proc_exited(const struct wp_os_proc *p)
{
	DWORD r = WaitForSingleObject(p->handle, 0);
	if (r == WAIT_FAILED)
		return fail_last();
	return r == WAIT_OBJECT_0;
}

void wp_os_proc_kill(const struct wp_os_proc *p)
{
	if (p->job)
		TerminateJobObject(p->job, 1);
	else if (p->handle && WaitForSingleObject(p->handle, 0) != WAIT_OBJECT_0)
		TerminateProcess(p->handle, 1);
}

int wp_os_proc_wait(struct wp_os_proc *p, int *status, int *sig)
{
	DWORD code = 0;
	*status = -1;
	*sig = 0;
	if (!p->handle || WaitForSingleObject(p->handle, INFINITE) != WAIT_OBJECT_0 ||
	    !GetExitCodeProcess(p->handle, &code))
		return fail_last();
	if (code >= 0xC0000000u)
		*sig = 11; /* an NTSTATUS crash (access violation...): reported as a crash, as
			      SIGSEGV is */
	else
		*status = (int)code;
	CloseHandle(p->handle);
	if (p->job)
		CloseHandle(p->job);
	p->handle = p->job = NULL;
	return 0;
}

long wp_os_getpid(void)
{
	return (long)GetCurrentProcessId();
}

bool wp_os_pid_alive(long pid)
{
	HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
	if (!h)
		return GetLastError() != ERROR_INVALID_PARAMETER; /* denied: it exists */
	bool alive = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
	CloseHandle(h);
	return alive;
}

/* ---- dynamic loading ---- */

void *wp_os_dlopen(const char *name, char *why, size_t why_len)
{
	wchar_t *w = utf16(name);
	HMODULE h = NULL;
	if (w) {
		for (wchar_t *p = w; *p; p++)
			if (*p == L'/')
				*p = L'\\';
		h = LoadLibraryW(w);
	}
	DWORD e = GetLastError();
	free(w);
	if (!h && why && why_len &&
	    !FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0,
			    why, (DWORD)why_len, NULL))
		snprintf(why, why_len, "error %lu", (unsigned long)e);
	if (!h && why && why_len) {
		size_t n = strlen(why);
		while (n && (why[n - 1] == '\n' || why[n - 1] == '\r' || why[n - 1] == '.'))
			why[--n] = 0;
	}
	return (void *)h;
}

void *wp_os_dlsym(void *h, const char *name)
{
	FARPROC f = GetProcAddress((HMODULE)h, name);
	void *v;
	memcpy(&v, &f, sizeof(v)); /* a function pointer handed out as dlsym's void * */
	return v;
}

int wp_os_dlclose(void *h)
{
	return FreeLibrary((HMODULE)h) ? 0 : -1;
}

/* ---- memory maps ---- */

void *wp_os_map_read(int fd, size_t len)
{
	HANDLE m = CreateFileMappingW(fd_handle(fd), NULL, PAGE_READONLY, 0, 0, NULL);
	if (!m) {
		fail_last();
		return NULL;
	}
	void *p = MapViewOfFile(m, FILE_MAP_READ, 0, 0, len);
	DWORD e = GetLastError();
	CloseHandle(m); /* the view keeps the mapping */
	if (!p)
		errno = map_err(e);
	return p;
}

void wp_os_unmap(void *p, size_t len)
{
	(void)len;
	if (p)
		UnmapViewOfFile(p);
}

void wp_os_populate(void *p, size_t len)
{
	(void)p;
	(void)len;
}

/* ---- clocks, randomness, machine ---- */

int64_t wp_os_monotonic_ns(void)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER now;
	if (!freq.QuadPart)
		QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&now);
	return (int64_t)(now.QuadPart / freq.QuadPart) * 1000000000 +
	       (int64_t)(now.QuadPart % freq.QuadPart) * 1000000000 / freq.QuadPart;
}

void wp_os_sleep_ms(unsigned ms)
{
	Sleep(ms);
}

int wp_os_random(void *buf, size_t n)
{
	return BCryptGenRandom(NULL, buf, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0 ? 0 : -1;
}

int wp_os_ncpu(void)
{
	DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
	return n ? (int)n : 1;
}

long wp_os_max_open_files(void)
{
	return 0; /* the C runtime's table grows as needed */
}

int wp_os_uname(char *sys, size_t sys_len, char *release, size_t rel_len, char *machine,
		size_t mach_len)
{
	/* RtlGetVersion: GetVersionEx lies to programs without a manifest */
	OSVERSIONINFOW v = { .dwOSVersionInfoSize = sizeof(v) };
	LONG(WINAPI * rtl)(OSVERSIONINFOW *) = (LONG(WINAPI *)(OSVERSIONINFOW *))wp_os_dlsym(
		GetModuleHandleW(L"ntdll.dll"), "RtlGetVersion");
	if (!rtl || rtl(&v) != 0)
		memset(&v, 0, sizeof(v));
	SYSTEM_INFO si;
	GetNativeSystemInfo(&si);
	snprintf(sys, sys_len, "Windows");
	snprintf(release, rel_len, "%lu.%lu.%lu", (unsigned long)v.dwMajorVersion,
		 (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber);
	/* Python's platform.machine() words */
	const char *m = si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "AMD64"
			: si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "ARM64"
			: si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_INTEL ? "x86"
										    : "unknown";
	/* wheelpick.exe is x64: on an ARM64 machine it runs emulated, and GetNativeSystemInfo then
	 * says AMD64; IsWow64Process2 (Windows 10 1709 on) names the machine itself */
	BOOL(WINAPI * wow2)(HANDLE, USHORT *, USHORT *) =
		(BOOL(WINAPI *)(HANDLE, USHORT *, USHORT *))wp_os_dlsym(
			GetModuleHandleW(L"kernel32.dll"), "IsWow64Process2");
	USHORT proc_machine = 0, native = 0;
	if (wow2 && wow2(GetCurrentProcess(), &proc_machine, &native)) {
		if (native == 0xAA64) /* IMAGE_FILE_MACHINE_ARM64 */
			m = "ARM64";
		else if (native == 0x8664) /* IMAGE_FILE_MACHINE_AMD64 */
			m = "AMD64";
	}
	snprintf(machine, mach_len, "%s", m);
	return 0;
}

const char *wp_os_libc_version(void)
{
	return NULL;
}

const char *wp_os_strerror(int errnum, char *buf, size_t n)
{
	if (strerror_s(buf, n, errnum) != 0)
		snprintf(buf, n, "error %d", errnum);
	return buf;
}

/* ---- the process ---- */

/* The environment in UTF-8, made once; setenv adds to it in place (room for ENV_SPARE more), so
 * the array handed out stays valid, as environ does. */
#define ENV_SPARE 64
static char **env;
static size_t env_n, env_cap;
static SRWLOCK env_lock = SRWLOCK_INIT;

const char *const *wp_os_environ(void)
{
	static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
	BOOL pending = FALSE;
	if (InitOnceBeginInitialize(&once, 0, &pending, NULL) && pending) {
		wchar_t *block = GetEnvironmentStringsW();
		size_t n = 0;
		for (const wchar_t *p = block; p && *p; p += wcslen(p) + 1)
			n++;
		env_cap = n + ENV_SPARE;
		env = calloc(env_cap + 1, sizeof(*env));
		size_t k = 0;
		for (const wchar_t *p = block; env && p && *p; p += wcslen(p) + 1)
			if (*p != L'=') /* "=C:=C:\x": cmd.exe's per-drive folders, not variables */
				if ((env[k] = utf8(p)))
					k++;
		env_n = k;
		if (block)
			FreeEnvironmentStringsW(block);
		InitOnceComplete(&once, 0, NULL);
	}
	static const char *const none[] = { NULL };
	return env ? (const char *const *)env : none;
}

void wp_os_utf8_args(int *argc, char ***argv)
{
	int n = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	char **v = w ? calloc((size_t)n + 1, sizeof(*v)) : NULL;
	if (!v) {
		if (w)
			LocalFree(w);
		return;
	}
	for (int i = 0; i < n; i++)
		if (!(v[i] = utf8(w[i]))) {
			LocalFree(w);
			return; /* the runtime's argv, then: kept for the process, as argv is */
		}
	LocalFree(w);
	*argc = n;
	*argv = v;
}

static void (*interrupt_fn)(int sig);

static BOOL WINAPI on_ctrl(DWORD type)
{
	/* called on a thread of its own; the handler ends the process */
	int sig = type == CTRL_C_EVENT ? 2 : type == CTRL_CLOSE_EVENT ? 1 : 15;
	if (interrupt_fn)
		interrupt_fn(sig);
	return FALSE;
}

void wp_os_on_interrupt(void (*fn)(int sig))
{
	interrupt_fn = fn;
	SetConsoleCtrlHandler(on_ctrl, TRUE);
}

void wp_os_exit_now(int code)
{
	_exit(code);
}

void wp_os_raise_open_files(long max)
{
	(void)max; /* the C runtime's table has no soft limit to raise */
}

/* ---- the C library's open_memstream (base/os/win32_libc.h) ---- */

#undef fclose
#define MAX_MEMSTREAMS 64
static struct memstream {
	FILE *f;
	char **ptr;
	size_t *len;
} memstreams[MAX_MEMSTREAMS];
static SRWLOCK memstreams_lock = SRWLOCK_INIT;

FILE *wp_libc_open_memstream(char **ptr, size_t *len)
{
	wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 1];
	*ptr = NULL;
	*len = 0;
	if (!GetTempPathW(MAX_PATH + 1, dir) || !GetTempFileNameW(dir, L"wpm", 0, name))
		return NULL;
	/* T: kept in memory where it can be; D: gone when closed */
	FILE *f = _wfopen(name, L"w+bTD");
	if (!f) {
		DeleteFileW(name);
		return NULL;
	}
	AcquireSRWLockExclusive(&memstreams_lock);
	size_t i = 0;
	while (i < MAX_MEMSTREAMS && memstreams[i].f)
		i++;
	if (i < MAX_MEMSTREAMS)
		memstreams[i] = (struct memstream){ f, ptr, len };
	ReleaseSRWLockExclusive(&memstreams_lock);
	if (i == MAX_MEMSTREAMS) {
		fclose(f);
		errno = EMFILE;
		return NULL;
	}
	return f;
}

int wp_libc_fclose(FILE *f)
{
	struct memstream m = { 0 };
	AcquireSRWLockExclusive(&memstreams_lock);
	for (size_t i = 0; i < MAX_MEMSTREAMS; i++)
		if (memstreams[i].f == f) {
			m = memstreams[i];
			memstreams[i].f = NULL;
		}
	ReleaseSRWLockExclusive(&memstreams_lock);
	if (m.f) {
		fflush(f);
		long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
		char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
		if (buf && fseek(f, 0, SEEK_SET) == 0 && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = 0;
			*m.ptr = buf;
			*m.len = (size_t)n;
		} else {
			free(buf);
		}
	}
	return fclose(f);
}

#undef fopen
#undef getenv

FILE *wp_libc_fopen(const char *path, const char *mode)
{
	wchar_t *w = wpath(path), *m = utf16(mode);
	FILE *f = w && m ? _wfopen(w, m) : NULL;
	free(w);
	free(m);
	return f;
}

int wp_libc_setenv(const char *name, const char *value, int overwrite)
{
	size_t n = strlen(name), len = n + strlen(value) + 2;
	if (!n || strchr(name, '=')) {
		errno = EINVAL;
		return -1;
	}
	wp_os_environ();
	char *entry = malloc(len);
	wchar_t *wn = utf16(name), *wv = utf16(value);
	bool changed = false;
	int rc = 0;
	if (!entry || !wn || !wv || !env) {
		free(entry);
		rc = fail(ENOMEM);
		goto out;
	}
	snprintf(entry, len, "%s=%s", name, value);
	AcquireSRWLockExclusive(&env_lock);
	size_t i = 0;
	while (i < env_n && !(!_strnicmp(env[i], name, n) && env[i][n] == '='))
		i++;
	if (i < env_n && overwrite) {
		env[i] = entry; /* the old string may still be held by a reader: kept */
		changed = true;
	} else if (i == env_n && env_n < env_cap) {
		env[env_n++] = entry;
		changed = true;
	} else {
		free(entry);
		if (i == env_n)
			rc = fail(ENOMEM);
	}
	ReleaseSRWLockExclusive(&env_lock);
	if (changed) /* the programs we start see it too */
		SetEnvironmentVariableW(wn, wv);
out:
	free(wn);
	free(wv);
	return rc;
}

char *wp_libc_getenv(const char *name)
{
	size_t n = strlen(name);
	for (const char *const *e = wp_os_environ(); *e; e++)
		if (!_strnicmp(*e, name, n) && (*e)[n] == '=') /* Windows' names ignore case */
			return (char *)*e + n + 1;
	return NULL;
}

/* ---- terminal ---- */

bool wp_os_isatty(int fd)
{
	DWORD mode;
	return GetConsoleMode(fd_handle(fd), &mode) != 0;
}

int wp_os_term_width(int fd)
{
	CONSOLE_SCREEN_BUFFER_INFO info;
	if (!GetConsoleScreenBufferInfo(fd_handle(fd), &info))
		return 0;
	return info.srWindow.Right - info.srWindow.Left + 1;
}

void wp_os_term_init(void)
{
	SetConsoleOutputCP(CP_UTF8);
	HANDLE hs[2] = { GetStdHandle(STD_OUTPUT_HANDLE), GetStdHandle(STD_ERROR_HANDLE) };
	for (int i = 0; i < 2; i++) {
		DWORD mode;
		if (hs[i] != INVALID_HANDLE_VALUE && GetConsoleMode(hs[i], &mode))
			SetConsoleMode(hs[i], mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
	}
	/* the standard streams in binary mode: our bytes are UTF-8 and LF, as written */
	_setmode(0, _O_BINARY);
	_setmode(1, _O_BINARY);
	_setmode(2, _O_BINARY);
}
