/* base/buf.h: growable byte buffer with a required ceiling for bytes that come from outside.
 * The buffer owns data; wp_buf_free releases it. data is always NUL-terminated (not counted in
 * len). */
#ifndef WP_BUF_H
#define WP_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct wp_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t max; /* refuse to grow past this many bytes; 0 = no ceiling (internal use only) */
};

#define WP_BUF_INIT_MAX(m) { NULL, 0, 0, (m) }
#define WP_BUF_INIT { NULL, 0, 0, 0 }

/* 0, or -1 when the ceiling would be passed (nothing is added then). */
int wp_buf_add(struct wp_buf *b, const void *p, size_t n);
int wp_buf_addstr(struct wp_buf *b, const char *s);
int wp_buf_addch(struct wp_buf *b, char c);
int wp_buf_printf(struct wp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int wp_buf_vprintf(struct wp_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Append what fd holds, to its end. 0; -1 with errno set when a read fails; -2 when the
 * ceiling would be passed. */
int wp_buf_read_fd(struct wp_buf *b, int fd);
/* "" for an empty buffer; never NULL. */
const char *wp_buf_cstr(const struct wp_buf *b);
void wp_buf_reset(struct wp_buf *b);
void wp_buf_free(struct wp_buf *b);
/* Hand the data to the caller (who frees it) and reset the buffer. */
char *wp_buf_detach(struct wp_buf *b, size_t *len);

#endif
