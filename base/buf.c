/* base/buf.c: growable buffer with a ceiling. */
#include "base/buf.h"
#include "base/mem.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct wp_buf *b, size_t extra)
{
	if (b->max && (extra > b->max || b->len > b->max - extra))
		return -1;
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap * 2 < cap ? need : cap * 2;
	b->data = wp_xrealloc(b->data, cap);
	b->cap = cap;
	return 0;
}

int wp_buf_add(struct wp_buf *b, const void *p, size_t n)
{
	/* room already there and no ceiling passed: no call to grow (a conda crawl appends
	 * millions of short strings, and grow was a twentieth of its parse) */
	bool room = n < b->cap - b->len && (!b->max || n <= b->max - b->len);
	if (!room && grow(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int wp_buf_addstr(struct wp_buf *b, const char *s)
{
	return wp_buf_add(b, s, strlen(s));
}

int wp_buf_addch(struct wp_buf *b, char c)
{
	return wp_buf_add(b, &c, 1);
}

int wp_buf_vprintf(struct wp_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0 || grow(b, (size_t)n) < 0) {
		va_end(again);
		return -1;
	}
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
	va_end(again);
	b->len += (size_t)n;
	return 0;
}

int wp_buf_printf(struct wp_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = wp_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

int wp_buf_read_fd(struct wp_buf *b, int fd)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = wp_os_read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (wp_buf_add(b, chunk, (size_t)n) < 0)
			return -2;
	}
}

const char *wp_buf_cstr(const struct wp_buf *b)
{
	return b->data ? b->data : "";
}

void wp_buf_reset(struct wp_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

void wp_buf_free(struct wp_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *wp_buf_detach(struct wp_buf *b, size_t *len)
{
	char *p = b->data ? b->data : wp_xstrdup("");
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}
