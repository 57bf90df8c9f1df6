/* base/os/win32_path.c: the Windows seam's shared core: errno from Windows' errors, and UTF-8
 * paths turned into the wide, long-path-safe form the API takes (and back). */

#include "base/os/win32_internal.h"

const char wp_os_path_list_sep = ';';
const char wp_os_exe_suffix[] = ".exe";
const char wp_os_devnull[] = "NUL";
const bool wp_os_keeps_modes = false;
const enum wp_os_layout wp_os_layout = WP_OS_LAYOUT_WINDOWS;

/* ---- errors ---- */

int wp_w32_map_err(DWORD e)
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

int wp_w32_fail_last(void)
{
	errno = wp_w32_map_err(GetLastError());
	return -1;
}

int wp_w32_fail(int e)
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

wchar_t *wp_w32_utf16(const char *s)
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

char *wp_w32_utf8(const wchar_t *w)
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
wchar_t *wp_w32_wpath(const char *path)
{
	if (!path || !*path) {
		errno = ENOENT;
		return NULL;
	}
	wchar_t *w = wp_w32_utf16(path);
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
		wp_w32_fail_last();
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
		wp_w32_fail_last();
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
char *wp_w32_from_wpath(const wchar_t *w)
{
	if (!wcsncmp(w, L"\\\\?\\UNC\\", 8)) {
		char *s = wp_w32_utf8(w + 6);
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
	char *s = wp_w32_utf8(w);
	if (s)
		for (char *p = s; *p; p++)
			if (*p == '\\')
				*p = '/';
	return s;
}

/* The Windows handle under a C runtime fd. */
HANDLE wp_w32_fd_handle(int fd)
{
	return (HANDLE)_get_osfhandle(fd);
}
