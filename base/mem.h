/* base/mem.h: allocation that aborts on out-of-memory, so callers never check for NULL. */
#ifndef WP_MEM_H
#define WP_MEM_H

#include <stddef.h>

void *wp_xmalloc(size_t n);
void *wp_xcalloc(size_t n, size_t size);
void *wp_xrealloc(void *p, size_t n);
char *wp_xstrdup(const char *s);
char *wp_xstrndup(const char *s, size_t n);
/* Newly allocated, printf-formatted string; caller frees. */
char *wp_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define WP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
