/* base/str.c: string views. */
#include "base/str.h"

#include <ctype.h>
#include <limits.h>
#include <strings.h>

struct wp_str wp_str_cut(struct wp_str *s, char c)
{
	const char *q = s->n ? memchr(s->p, c, s->n) : NULL;
	struct wp_str head;
	if (!q) {
		head = *s;
		s->p += s->n;
		s->n = 0;
		return head;
	}
	head = WP_STRN(s->p, (size_t)(q - s->p));
	s->n -= head.n + 1;
	s->p = q + 1;
	return head;
}

struct wp_str wp_str_rcut(struct wp_str *s, char c)
{
	size_t i = s->n;
	while (i > 0 && s->p[i - 1] != c)
		i--;
	struct wp_str head;
	if (i == 0) {
		head = *s;
		s->p += s->n;
		s->n = 0;
		return head;
	}
	head = WP_STRN(s->p, i - 1);
	s->p += i;
	s->n -= i;
	return head;
}

bool wp_str_eq(struct wp_str a, const char *b)
{
	size_t n = strlen(b);
	return a.n == n && (n == 0 || memcmp(a.p, b, n) == 0);
}

bool wp_str_ieq(struct wp_str a, const char *b)
{
	size_t n = strlen(b);
	return a.n == n && (n == 0 || strncasecmp(a.p, b, n) == 0);
}

bool wp_str_startswith(struct wp_str s, const char *prefix)
{
	size_t n = strlen(prefix);
	return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

bool wp_str_endswith(struct wp_str s, const char *suffix)
{
	size_t n = strlen(suffix);
	return s.n >= n && memcmp(s.p + s.n - n, suffix, n) == 0;
}

bool wp_cstr_endswith(const char *s, const char *suffix)
{
	return wp_str_endswith((struct wp_str){ s, strlen(s) }, suffix);
}

struct wp_str wp_str_trim(struct wp_str s)
{
	while (s.n && isspace((unsigned char)s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && isspace((unsigned char)s.p[s.n - 1]))
		s.n--;
	return s;
}

bool wp_str_to_ll(struct wp_str s, long long *out)
{
	if (!s.n)
		return false;
	long long v = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
		int d = s.p[i] - '0';
		if (v > (LLONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

int wp_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
