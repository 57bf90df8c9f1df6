/* base/os/win32_libc.c: the C library calls base/os/win32_libc.h declares that need Windows:
 * open_memstream (with its fclose) and a UTF-8 fopen. */

#include "base/os/win32_internal.h"

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


FILE *wp_libc_fopen(const char *path, const char *mode)
{
	wchar_t *w = wp_w32_wpath(path), *m = wp_w32_utf16(mode);
	FILE *f = w && m ? _wfopen(w, m) : NULL;
	free(w);
	free(m);
	return f;
}
