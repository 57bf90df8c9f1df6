/* base/os/win32_internal.h: what the Windows seam's files (base/os/win32_*.c) share: the Windows
 * headers, the errno values mingw lacks, errors, UTF-8/UTF-16 paths and the fd table's lookups.
 * Not a public interface: the seam is base/os/os.h, on Windows UTF-8 paths in, UTF-16 at the API.
 *
 * File descriptors are the C runtime's (_open_osfhandle over a CreateFileW handle), so stdio and
 * the libraries that take an fd keep working; a small table remembers the UTF-8 path each fd was
 * opened by, for the *at() calls (Windows has no handle-relative open in its documented API, so
 * wp_os_openat joins the folder's path and the name: each component is still opened with
 * FILE_FLAG_OPEN_REPARSE_POINT under WP_O_NOFOLLOW and refused when it is a link, as on Linux). */
#ifndef WP_BASE_OS_WIN32_INTERNAL_H
#define WP_BASE_OS_WIN32_INTERNAL_H

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

/* errors (win32_path.c): a Windows error as errno; -1 with errno set from GetLastError(), or e */
int wp_w32_map_err(DWORD e);
int wp_w32_fail_last(void);
int wp_w32_fail(int e);

/* paths (win32_path.c): newly allocated, NULL with errno */
wchar_t *wp_w32_utf16(const char *s);
char *wp_w32_utf8(const wchar_t *w);
wchar_t *wp_w32_wpath(const char *path);
char *wp_w32_from_wpath(const wchar_t *w);
HANDLE wp_w32_fd_handle(int fd);

/* the fd table (win32_fs.c): the path fd was opened by; path resolved against the folder at
 * dirfd. Newly allocated, NULL with errno. */
char *wp_w32_fd_path(int fd);
char *wp_w32_at_path(int dirfd, const char *path);
/* rc, after freeing p with errno kept */
int wp_w32_free_ret(void *p, int rc);

#endif
