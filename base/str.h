/* base/str.h: non-owning string views for parsing; a view borrows and is never freed. */
#ifndef WP_STR_H
#define WP_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct wp_str {
	const char *p;
	size_t n;
};

#define WP_STR(cstr) ((struct wp_str){ (cstr), strlen(cstr) })
#define WP_STRN(ptr, len) ((struct wp_str){ (ptr), (len) })
/* printf("%.*s", WP_STR_FMT(s)) */
#define WP_STR_FMT(s) (int)(s).n, (s).p

/* Return the part before the first c and advance s past c; when c is absent the whole
 * of s is returned and s becomes empty. */
struct wp_str wp_str_cut(struct wp_str *s, char c);
/* Same, cutting at the last c. */
struct wp_str wp_str_rcut(struct wp_str *s, char c);
bool wp_str_eq(struct wp_str a, const char *b);
bool wp_str_ieq(struct wp_str a, const char *b);
bool wp_str_startswith(struct wp_str s, const char *prefix);
bool wp_str_endswith(struct wp_str s, const char *suffix);
/* The same for a C string. */
bool wp_cstr_endswith(const char *s, const char *suffix);
struct wp_str wp_str_trim(struct wp_str s);
/* Parse a non-negative decimal that fits in long long; false on anything else. */
bool wp_str_to_ll(struct wp_str s, long long *out);
/* The value of one hex digit (either case), or -1. */
int wp_hexval(int c);

#endif
