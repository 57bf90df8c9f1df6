/* base/os/win32_fs.c: the Windows seam's files: the fd table, open/read/write/stat, and locks. */

#include "base/os/win32_internal.h"

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
char *wp_w32_fd_path(int fd)
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
char *wp_w32_at_path(int dirfd, const char *path)
{
	if (dirfd == WP_AT_FDCWD || wp_os_path_is_abs(path))
		return _strdup(path);
	char *dir = wp_w32_fd_path(dirfd);
	if (!dir)
		return NULL;
	size_t n = strlen(dir) + strlen(path) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s", dir, path);
	free(dir);
	return s;
}

/* The end of a call made on a path it built: free() may set errno, and the caller reads the
 * call's own. */
int wp_w32_free_ret(void *p, int rc)
{
	int e = errno;
	free(p);
	errno = e;
	return rc;
}

/* ---- files ---- */

static int open_w(const char *path, int flags, unsigned mode)
{
	wchar_t *w = wp_w32_wpath(path);
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
		return wp_w32_fail_last();
	BY_HANDLE_FILE_INFORMATION info;
	bool dir = false;
	if (GetFileInformationByHandle(h, &info)) {
		dir = info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY;
		if ((flags & WP_O_NOFOLLOW) &&
		    (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
			CloseHandle(h);
			return wp_w32_fail(ELOOP);
		}
	}
	if ((flags & WP_O_DIRECTORY) && !dir) {
		CloseHandle(h);
		return wp_w32_fail(ENOTDIR);
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
		return wp_w32_fail(EMFILE);
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
	char *p = wp_w32_at_path(dirfd, path);
	if (!p)
		return -1;
	return wp_w32_free_ret(p, open_w(p, flags, mode));
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
		char *p = wp_w32_fd_path(fd);
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
	HANDLE h = wp_w32_fd_handle(fd);
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
		errno = wp_w32_map_err(e);
		return -1;
	}
	return (ssize_t)got;
}

ssize_t wp_os_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
	HANDLE h = wp_w32_fd_handle(fd);
	LARGE_INTEGER at = position(h);
	OVERLAPPED ov = { 0 };
	DWORD put = 0;
	ov.Offset = (DWORD)((uint64_t)off & 0xffffffffu);
	ov.OffsetHigh = (DWORD)((uint64_t)off >> 32);
	BOOL ok = WriteFile(h, buf, n > 0x7fffffff ? 0x7fffffff : (DWORD)n, &put, &ov);
	DWORD e = GetLastError();
	SetFilePointerEx(h, at, NULL, FILE_BEGIN);
	if (!ok) {
		errno = wp_w32_map_err(e);
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
	return FlushFileBuffers(wp_w32_fd_handle(fd)) ? 0 : wp_w32_fail_last();
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
	return SetFileInformationByHandle(wp_w32_fd_handle(fd), FileEndOfFileInfo, &eof,
					  sizeof(eof)) ?
		       0 :
		       wp_w32_fail_last();
}

void wp_os_start_writeback(int fd, int64_t off, int64_t len)
{
	(void)fd;
	(void)off;
	(void)len;
}

int wp_os_set_nonblock(int fd, bool on)
{
	HANDLE h = wp_w32_fd_handle(fd);
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
		return wp_w32_fail_last();
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
	wchar_t *w = wp_w32_wpath(path);
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
		return wp_w32_fail_last();
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
	char *p = wp_w32_fd_path(fd);
	int rc = stat_handle(wp_w32_fd_handle(fd), p, false, st);
	free(p);
	return rc;
}

int wp_os_fstatat(int dirfd, const char *path, struct wp_os_stat *st, int flags)
{
	char *p = wp_w32_at_path(dirfd, path);
	if (!p)
		return -1;
	return wp_w32_free_ret(p, stat_path(p, st, flags & WP_AT_SYMLINK_NOFOLLOW));
}

int wp_os_access(const char *path, int how)
{
	wchar_t *w = wp_w32_wpath(path);
	if (!w)
		return -1;
	DWORD a = GetFileAttributesW(w);
	free(w);
	if (a == INVALID_FILE_ATTRIBUTES)
		return wp_w32_fail_last();
	if ((how & WP_W_OK) && (a & FILE_ATTRIBUTE_READONLY) && !(a & FILE_ATTRIBUTE_DIRECTORY))
		return wp_w32_fail(EACCES);
	if ((how & WP_X_OK) && !(a & FILE_ATTRIBUTE_DIRECTORY) && !is_exe_name(path))
		return wp_w32_fail(EACCES);
	return 0;
}

int wp_os_faccessat(int dirfd, const char *path, int how, int flags)
{
	(void)flags;
	char *p = wp_w32_at_path(dirfd, path);
	if (!p)
		return -1;
	return wp_w32_free_ret(p, wp_os_access(p, how));
}

int wp_os_chmod(const char *path, unsigned mode)
{
	wchar_t *w = wp_w32_wpath(path);
	if (!w)
		return -1;
	DWORD a = GetFileAttributesW(w);
	int rc = 0;
	if (a == INVALID_FILE_ATTRIBUTES)
		rc = wp_w32_fail_last();
	else {
		a = mode & 0200 ? a & ~(DWORD)FILE_ATTRIBUTE_READONLY : a | FILE_ATTRIBUTE_READONLY;
		if (!SetFileAttributesW(w, a ? a : FILE_ATTRIBUTE_NORMAL))
			rc = wp_w32_fail_last();
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
	char *p = wp_w32_fd_path(fd);
	if (!p)
		return -1;
	int rc = wp_os_chmod(p, mode);
	free(p);
	return rc;
}

int wp_os_set_mtime(const char *path, int64_t sec, long nsec)
{
	wchar_t *w = wp_w32_wpath(path);
	if (!w)
		return -1;
	HANDLE h = CreateFileW(w, FILE_WRITE_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return wp_w32_fail_last();
	uint64_t t = (uint64_t)sec * 10000000ull + (uint64_t)nsec / 100 + 116444736000000000ull;
	FILETIME ft = { (DWORD)(t & 0xffffffffu), (DWORD)(t >> 32) };
	int rc = SetFileTime(h, NULL, &ft, &ft) ? 0 : wp_w32_fail_last();
	CloseHandle(h);
	return rc;
}

/* ---- locks ---- */

/* A folder cannot be locked with LockFileEx: its lock is a named mutex for its path, held until
 * the fd is closed (or the process ends: the next holder sees it abandoned, which is fine). */
static int lock_dir(int fd, int how)
{
	char *p = wp_w32_fd_path(fd);
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
		return wp_w32_fail_last();
	DWORD r = WaitForSingleObject(m, how & WP_LOCK_NB ? 0 : INFINITE);
	if (r != WAIT_OBJECT_0 && r != WAIT_ABANDONED) {
		CloseHandle(m);
		return wp_w32_fail(EWOULDBLOCK);
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
	HANDLE h = wp_w32_fd_handle(fd);
	/* LockFileEx locks are mandatory: a locked range cannot be read through another handle.
	 * flock is advisory, and what we lock is read by others (a store's partial file, a
	 * catalog), so the lock is one byte far past any end of file, which only other locks ever
	 * meet. */
	OVERLAPPED ov = { 0 };
	ov.OffsetHigh = 0x7fffffff;
	if (how & WP_LOCK_UN)
		return UnlockFileEx(h, 0, 1, 0, &ov) ? 0 : wp_w32_fail_last();
	DWORD fl = (how & WP_LOCK_EX ? LOCKFILE_EXCLUSIVE_LOCK : 0) |
		   (how & WP_LOCK_NB ? LOCKFILE_FAIL_IMMEDIATELY : 0);
	if (LockFileEx(h, fl, 0, 1, 0, &ov))
		return 0;
	return GetLastError() == ERROR_LOCK_VIOLATION || GetLastError() == ERROR_IO_PENDING ?
		       wp_w32_fail(EWOULDBLOCK) :
		       wp_w32_fail_last();
}
