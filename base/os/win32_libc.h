/* base/os/win32_libc.h: the POSIX and GNU C library calls the code uses that mingw-w64's C
 * runtime lacks (memrchr, memmem, gmtime_r, qsort_r, strndup, open_memstream, NAME_MAX,
 * EDQUOT) or has only for the ANSI code page (fopen), for the Windows
 * build only: the Makefile force-includes it there (-include), so no caller needs an #ifdef and
 * the Linux build keeps glibc's own. These are C library gaps, not OS calls: the OS is
 * base/os/os.h. */
#ifndef WP_BASE_OS_WIN32_LIBC_H
#define WP_BASE_OS_WIN32_LIBC_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef NAME_MAX
#define NAME_MAX 255 /* NTFS: 255 UTF-16 units a name */
#endif
#ifndef EDQUOT
#define EDQUOT 1000 /* never produced here; a case for it is dead */
#endif

static inline void *wp_libc_memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = (const unsigned char *)s + n;
	while (n--)
		if (*--p == (unsigned char)c)
			return (void *)p;
	return NULL;
}
#define memrchr wp_libc_memrchr

static inline void *wp_libc_memmem(const void *h, size_t hn, const void *n, size_t nn)
{
	const char *p = h, *end = p + hn;
	if (!nn)
		return (void *)p;
	for (; (size_t)(end - p) >= nn; p++) {
		p = memchr(p, *(const unsigned char *)n, (size_t)(end - p) - nn + 1);
		if (!p)
			return NULL;
		if (!memcmp(p, n, nn))
			return (void *)p;
	}
	return NULL;
}
#define memmem wp_libc_memmem

/* open_memstream: a temp file (deleted when closed) read back into *ptr by fclose, which is ours
 * for this build (base/os/win32_libc.c): the callers write, fclose, then read *ptr and *len. */
FILE *wp_libc_open_memstream(char **ptr, size_t *len);
int wp_libc_fclose(FILE *f);
#define open_memstream wp_libc_open_memstream
#define fclose wp_libc_fclose

/* fopen in UTF-8, as everywhere else in the program (the runtime's own takes the ANSI code
 * page): _wfopen. cli/ reads variables from wp_os_environ (base/os/win32_proc.c), in UTF-8. */
FILE *wp_libc_fopen(const char *path, const char *mode);
#define fopen wp_libc_fopen

static inline struct tm *wp_libc_gmtime_r(const time_t *t, struct tm *out)
{
	return gmtime_s(out, t) == 0 ? out : NULL;
}
#define gmtime_r wp_libc_gmtime_r

static inline struct tm *wp_libc_localtime_r(const time_t *t, struct tm *out)
{
	return localtime_s(out, t) == 0 ? out : NULL;
}
#define localtime_r wp_libc_localtime_r

static inline char *wp_libc_strndup(const char *s, size_t n)
{
	size_t k = strnlen(s, n);
	char *d = malloc(k + 1);
	if (d) {
		memcpy(d, s, k);
		d[k] = 0;
	}
	return d;
}
#define strndup wp_libc_strndup

/* glibc's qsort_r (the context last, passed last to the comparison) over the C runtime's qsort_s
 * (the context first in both). */
struct wp_libc_qsort_ctx {
	int (*cmp)(const void *, const void *, void *);
	void *ctx;
};

static inline int wp_libc_qsort_cmp(void *c, const void *a, const void *b)
{
	struct wp_libc_qsort_ctx *q = (struct wp_libc_qsort_ctx *)c;
	return q->cmp(a, b, q->ctx);
}

static inline void wp_libc_qsort_r(void *base, size_t n, size_t size,
				   int (*cmp)(const void *, const void *, void *), void *ctx)
{
	struct wp_libc_qsort_ctx q = { cmp, ctx };
	qsort_s(base, n, size, wp_libc_qsort_cmp, &q);
}
#define qsort_r wp_libc_qsort_r

#endif
