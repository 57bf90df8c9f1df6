/* base/mem.c: out-of-memory aborts (a packaging tool cannot do anything useful without memory). */
#include "base/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
	fprintf(stderr, "wheelpick: out of memory (asked for %zu bytes)\n", n);
	abort();
}

void *wp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *wp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *wp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *wp_xstrndup(const char *s, size_t n)
{
	char *p = wp_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *wp_xstrdup(const char *s)
{
	return wp_xstrndup(s, strlen(s));
}

char *wp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	char *p = wp_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
