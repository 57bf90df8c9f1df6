/* index/toml.c: a bounded TOML 1.0 reader (see toml.h). One pass over the bytes, recursion only
 * for arrays and inline tables (at most WP_TOML_MAX_DEPTH deep), tables searched linearly (at
 * most WP_TOML_MAX_KEYS keys each, so a hostile file costs at most keys^2/2 comparisons a
 * table). */
#include "index/toml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"

#define WP_TOML_MAX_KEYS 4096

enum {
	F_EXPLICIT = 1, /* defined by a [header] */
	F_IMPLICIT = 2, /* made on the way to a [header]'s last key */
	F_DOTTED = 4,   /* made by a dotted key */
	F_INLINE = 8,   /* an inline table, or inside one: never extended again */
	F_AOT = 16,     /* an array made by [[header]] */
};

struct p {
	const char *s;
	size_t n, pos;
	unsigned line;
	size_t nodes;
	const char *what;
	struct wp_err *err;
};

static int fail(struct p *p, const char *fmt, const char *arg)
{
	char msg[200];
	snprintf(msg, sizeof(msg), fmt, arg ? arg : "");
	return wp_fail(p->err, -WPE_PARSE, "'%s' is not valid TOML: line %u: %s", p->what, p->line,
		       msg);
}

static struct wp_toml *node(struct p *p, enum wp_toml_type type)
{
	if (++p->nodes > WP_TOML_MAX_NODES)
		return NULL;
	struct wp_toml *t = wp_xcalloc(1, sizeof(*t));
	t->type = type;
	t->line = p->line;
	return t;
}

static int too_many(struct p *p)
{
	return wp_fail(p->err, -WPE_TOO_BIG,
		       "'%s' holds more than %d TOML values; it is no lock file wheelpick reads",
		       p->what, WP_TOML_MAX_NODES);
}

void wp_toml_free(struct wp_toml *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		wp_toml_free(t->items[i]);
		if (t->keys)
			free(t->keys[i]);
	}
	free(t->items);
	free(t->keys);
	free(t->str);
	free(t);
}

const char *wp_toml_type_name(enum wp_toml_type type)
{
	switch (type) {
	case WP_TOML_STRING: return "string";
	case WP_TOML_INTEGER: return "integer";
	case WP_TOML_FLOAT: return "float";
	case WP_TOML_BOOL: return "boolean";
	case WP_TOML_DATETIME: return "date-time";
	case WP_TOML_ARRAY: return "array";
	case WP_TOML_TABLE: return "table";
	}
	return "value";
}

static struct wp_toml *find(const struct wp_toml *t, const char *key, size_t len)
{
	if (!t || t->type != WP_TOML_TABLE)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (strlen(t->keys[i]) == len && !memcmp(t->keys[i], key, len))
			return t->items[i];
	return NULL;
}

const struct wp_toml *wp_toml_get(const struct wp_toml *t, const char *key)
{
	return find(t, key, strlen(key));
}

static int push(struct p *p, struct wp_toml *t, const char *key, size_t len, struct wp_toml *v)
{
	if (t->type == WP_TOML_TABLE && t->n >= WP_TOML_MAX_KEYS) {
		wp_toml_free(v);
		return wp_fail(p->err, -WPE_TOO_BIG,
			       "'%s': line %u: a TOML table with more than %d keys", p->what,
			       p->line, WP_TOML_MAX_KEYS);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 4;
		t->items = wp_xrealloc(t->items, t->cap * sizeof(*t->items));
		if (t->type == WP_TOML_TABLE)
			t->keys = wp_xrealloc(t->keys, t->cap * sizeof(*t->keys));
	}
	if (t->type == WP_TOML_TABLE)
		t->keys[t->n] = wp_xstrndup(key, len);
	t->items[t->n++] = v;
	return 0;
}

/* ---- bytes ---- */

static bool eof(const struct p *p)
{
	return p->pos >= p->n;
}

static int peek(const struct p *p, size_t k)
{
	return p->pos + k < p->n ? (unsigned char)p->s[p->pos + k] : -1;
}

static void ws(struct p *p)
{
	while (!eof(p) && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
		p->pos++;
}

static bool at_newline(const struct p *p)
{
	return peek(p, 0) == '\n' || (peek(p, 0) == '\r' && peek(p, 1) == '\n');
}

static void newline(struct p *p)
{
	p->pos += p->s[p->pos] == '\r' ? 2 : 1;
	p->line++;
}

/* A comment runs to the end of the line; control bytes other than tab are refused in it. */
static int comment(struct p *p)
{
	if (peek(p, 0) != '#')
		return 0;
	while (!eof(p) && !at_newline(p)) {
		unsigned char c = (unsigned char)p->s[p->pos];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(p, "a control byte in a comment", NULL);
		p->pos++;
	}
	return 0;
}

/* Whitespace, newlines and comments, inside arrays. */
static int blank(struct p *p)
{
	int rc;
	for (;;) {
		ws(p);
		if ((rc = comment(p)) < 0)
			return rc;
		if (eof(p) || !at_newline(p))
			return 0;
		newline(p);
	}
}

/* The end of a line: optional whitespace and comment, then a newline or the end. */
static int line_end(struct p *p)
{
	int rc;
	ws(p);
	if ((rc = comment(p)) < 0)
		return rc;
	if (eof(p))
		return 0;
	if (!at_newline(p))
		return fail(p, "text after a value or header; one key = value a line", NULL);
	newline(p);
	return 0;
}

/* The whole document must be UTF-8 without NUL bytes (TOML 1.0). */
static int check_utf8(struct p *p)
{
	const unsigned char *s = (const unsigned char *)p->s;
	size_t i = 0;
	while (i < p->n) {
		unsigned c = s[i];
		size_t k;
		unsigned cp;
		if (c == '\n')
			p->line++;
		if (c < 0x80) {
			if (!c)
				return fail(p, "a NUL byte", NULL);
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			k = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3;
			cp = c & 0x07;
		} else {
			return fail(p, "bytes that are not UTF-8", NULL);
		}
		for (size_t j = 1; j <= k; j++) {
			if (i + j >= p->n || (s[i + j] & 0xc0) != 0x80)
				return fail(p, "bytes that are not UTF-8", NULL);
			cp = (cp << 6) | (s[i + j] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return fail(p, "bytes that are not UTF-8", NULL);
		i += k + 1;
	}
	p->line = 1;
	return 0;
}

/* ---- strings ---- */

static void put_utf8(struct wp_buf *b, unsigned long cp)
{
	if (cp < 0x80) {
		wp_buf_addch(b, (char)cp);
	} else if (cp < 0x800) {
		wp_buf_addch(b, (char)(0xc0 | (cp >> 6)));
		wp_buf_addch(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		wp_buf_addch(b, (char)(0xe0 | (cp >> 12)));
		wp_buf_addch(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		wp_buf_addch(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		wp_buf_addch(b, (char)(0xf0 | (cp >> 18)));
		wp_buf_addch(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		wp_buf_addch(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		wp_buf_addch(b, (char)(0x80 | (cp & 0x3f)));
	}
}

static bool is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static int escape(struct p *p, struct wp_buf *b)
{
	int c = peek(p, 0);
	unsigned long cp = 0;
	size_t k;
	p->pos++;
	switch (c) {
	case 'b': wp_buf_addch(b, '\b'); return 0;
	case 't': wp_buf_addch(b, '\t'); return 0;
	case 'n': wp_buf_addch(b, '\n'); return 0;
	case 'f': wp_buf_addch(b, '\f'); return 0;
	case 'r': wp_buf_addch(b, '\r'); return 0;
	case '"': wp_buf_addch(b, '"'); return 0;
	case '\\': wp_buf_addch(b, '\\'); return 0;
	case 'u': k = 4; break;
	case 'U': k = 8; break;
	default: return fail(p, "an unknown escape in a string", NULL);
	}
	for (size_t i = 0; i < k; i++) {
		int h = peek(p, 0);
		int v = h >= '0' && h <= '9'               ? h - '0' :
			(h | 32) >= 'a' && (h | 32) <= 'f' ? (h | 32) - 'a' + 10 :
							     -1;
		if (v < 0)
			return fail(p, "a \\u or \\U escape without its hex digits", NULL);
		cp = cp * 16 + (unsigned long)v;
		p->pos++;
	}
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(p, "an escape that is no Unicode scalar value", NULL);
	put_utf8(b, cp);
	return 0;
}

/* A string of any of the four forms at p->pos (its opening quote); key: single-line forms only. */
static int string(struct p *p, struct wp_buf *b, bool key)
{
	char q = p->s[p->pos];
	bool multi = !key && peek(p, 1) == q && peek(p, 2) == q;
	int rc;
	wp_buf_reset(b);
	p->pos += multi ? 3 : 1;
	if (multi && !eof(p) && at_newline(p))
		newline(p);
	for (;;) {
		if (eof(p))
			return fail(p, "a string that is never closed", NULL);
		unsigned char c = (unsigned char)p->s[p->pos];
		if (c == (unsigned char)q) {
			if (!multi) {
				p->pos++;
				break;
			}
			if (peek(p, 1) == q && peek(p, 2) == q) {
				/* up to two quotes more belong to the string */
				size_t extra = 0;
				while (extra < 2 && peek(p, 3 + extra) == q)
					extra++;
				for (size_t i = 0; i < extra; i++)
					wp_buf_addch(b, q);
				p->pos += 3 + extra;
				break;
			}
			wp_buf_addch(b, (char)c);
			p->pos++;
			continue;
		}
		if (at_newline(p)) {
			if (!multi)
				return fail(p, "a newline inside a one-line string", NULL);
			wp_buf_addch(b, '\n');
			newline(p);
			continue;
		}
		if (is_control(c))
			return fail(p, "a control byte inside a string; escape it", NULL);
		if (q == '"' && c == '\\') {
			if (multi) {
				/* a line-ending backslash trims the newline and the whitespace
				 * after it */
				size_t save = p->pos, k = p->pos + 1;
				while (k < p->n && (p->s[k] == ' ' || p->s[k] == '\t'))
					k++;
				p->pos = k;
				if (!eof(p) && at_newline(p)) {
					while (!eof(p) && (p->s[p->pos] == ' ' ||
							   p->s[p->pos] == '\t' || at_newline(p))) {
						if (at_newline(p))
							newline(p);
						else
							p->pos++;
					}
					continue;
				}
				p->pos = save;
			}
			p->pos++;
			if ((rc = escape(p, b)) < 0)
				return rc;
			continue;
		}
		wp_buf_addch(b, (char)c);
		p->pos++;
	}
	if (b->len > WP_TOML_MAX_BYTES)
		return fail(p, "a string too long", NULL);
	wp_buf_addstr(b, "");
	return 0;
}

/* ---- keys ---- */

#define MAX_KEY_PARTS WP_TOML_MAX_DEPTH

struct key {
	char *part[MAX_KEY_PARTS];
	size_t len[MAX_KEY_PARTS];
	size_t n;
};

static void key_free(struct key *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->part[i]);
	k->n = 0;
}

static bool bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int key(struct p *p, struct key *k)
{
	struct wp_buf b = WP_BUF_INIT;
	int rc = 0;
	k->n = 0;
	for (;;) {
		ws(p);
		int c = peek(p, 0);
		if (k->n == MAX_KEY_PARTS) {
			rc = wp_fail(p->err, -WPE_TOO_BIG,
				     "'%s': line %u: a TOML key of more than %d parts", p->what,
				     p->line, MAX_KEY_PARTS);
			break;
		}
		if (c == '"' || c == '\'') {
			if ((rc = string(p, &b, true)) < 0)
				break;
			k->len[k->n] = b.len;
			k->part[k->n++] = wp_xstrndup(b.data ? b.data : "", b.len);
		} else if (bare(c)) {
			size_t start = p->pos;
			while (bare(peek(p, 0)))
				p->pos++;
			k->len[k->n] = p->pos - start;
			k->part[k->n++] = wp_xstrndup(p->s + start, p->pos - start);
		} else {
			rc = fail(p, "a key expected (letters, digits, '-', '_', or quoted)", NULL);
			break;
		}
		ws(p);
		if (peek(p, 0) != '.')
			break;
		p->pos++;
	}
	wp_buf_free(&b);
	if (rc < 0)
		key_free(k);
	return rc;
}

/* ---- values ---- */

static int value(struct p *p, int depth, struct wp_toml **out);

static bool digit(int c)
{
	return c >= '0' && c <= '9';
}

/* digits with single underscores between them, in base; returns the count of digits or -1 */
static int digits(const char *s, size_t n, size_t *i, int base, int64_t *acc, bool *overflow)
{
	int count = 0;
	bool prev_digit = false;
	while (*i < n) {
		int c = (unsigned char)s[*i], v;
		if (c == '_') {
			if (!prev_digit || *i + 1 >= n)
				return -1;
			prev_digit = false;
			(*i)++;
			continue;
		}
		if (digit(c))
			v = c - '0';
		else if (base == 16 && (c | 32) >= 'a' && (c | 32) <= 'f')
			v = (c | 32) - 'a' + 10;
		else
			break;
		if (v >= base)
			return -1;
		if (acc) {
			if (*acc > (INT64_MAX - v) / base)
				*overflow = true;
			else
				*acc = *acc * base + v;
		}
		prev_digit = true;
		count++;
		(*i)++;
	}
	if (count && !prev_digit)
		return -1;
	return count;
}

static bool two(const char *s, size_t i, int lo, int hi)
{
	if (!digit(s[i]) || !digit(s[i + 1]))
		return false;
	int v = (s[i] - '0') * 10 + (s[i + 1] - '0');
	return v >= lo && v <= hi;
}

/* time: HH:MM:SS(.frac)? at s[i..n); returns its length or 0 */
static size_t time_len(const char *s, size_t n, size_t i)
{
	if (n - i < 8 || !two(s, i, 0, 23) || s[i + 2] != ':' || !two(s, i + 3, 0, 59) ||
	    s[i + 5] != ':' || !two(s, i + 6, 0, 60))
		return 0;
	size_t k = i + 8;
	if (k < n && s[k] == '.') {
		size_t f = ++k;
		while (k < n && digit(s[k]))
			k++;
		if (k == f)
			return 0;
	}
	return k - i;
}

static bool valid_day(const char *s)
{
	int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	int m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return d <= days[m - 1] + (m == 2 && leap);
}

/* A date-time token: date, date-time (offset or local), or time alone. */
static bool datetime(const char *s, size_t n)
{
	size_t k;
	if (n >= 10 && digit(s[0]) && digit(s[1]) && digit(s[2]) && digit(s[3]) && s[4] == '-' &&
	    two(s, 5, 1, 12) && s[7] == '-' && two(s, 8, 1, 31) && valid_day(s)) {
		if (n == 10)
			return true;
		if (s[10] != 'T' && s[10] != 't' && s[10] != ' ')
			return false;
		if (!(k = time_len(s, n, 11)))
			return false;
		k += 11;
		if (k == n)
			return true;
		if ((s[k] == 'Z' || s[k] == 'z') && k + 1 == n)
			return true;
		return (s[k] == '+' || s[k] == '-') && n - k == 6 && two(s, k + 1, 0, 23) &&
		       s[k + 3] == ':' && two(s, k + 4, 0, 59);
	}
	return (k = time_len(s, n, 0)) && k == n;
}

static int scalar(struct p *p, struct wp_toml **out)
{
	size_t start = p->pos, e = p->pos;
	while (e < p->n && (bare(p->s[e]) || p->s[e] == '+' || p->s[e] == '.' || p->s[e] == ':'))
		e++;
	/* a date and a time may be separated by one space */
	if (e - start == 10 && e + 2 < p->n && p->s[e] == ' ' && digit(p->s[e + 1]) &&
	    digit(p->s[e + 2]) && datetime(p->s + start, 10)) {
		e++;
		while (e < p->n &&
		       (bare(p->s[e]) || p->s[e] == '+' || p->s[e] == '.' || p->s[e] == ':'))
			e++;
	}
	const char *s = p->s + start;
	size_t n = e - start;
	struct wp_toml *t;
	if (!n)
		return fail(p,
			    "a value expected (a string, number, boolean, date, array or inline table)",
			    NULL);
	if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5))) {
		if (!(t = node(p, WP_TOML_BOOL)))
			return too_many(p);
		t->b = n == 4;
		goto done;
	}
	if (datetime(s, n)) {
		if (!(t = node(p, WP_TOML_DATETIME)))
			return too_many(p);
		t->str = wp_xstrndup(s, n);
		t->len = n;
		goto done;
	}
	{
		size_t i = 0;
		bool neg = false, overflow = false;
		int64_t acc = 0;
		if (s[0] == '+' || s[0] == '-') {
			neg = s[0] == '-';
			i++;
		}
		if (n - i == 3 && (!memcmp(s + i, "inf", 3) || !memcmp(s + i, "nan", 3)))
			goto flt;
		if (i == 0 && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
			int base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
			i = 2;
			if (digits(s, n, &i, base, &acc, &overflow) <= 0 || i != n || s[2] == '_')
				return fail(p, "an invalid integer", NULL);
			if (overflow)
				return fail(p, "an integer out of range", NULL);
			if (!(t = node(p, WP_TOML_INTEGER)))
				return too_many(p);
			t->i = acc;
			goto done;
		}
		size_t int_b = i;
		int nd = digits(s, n, &i, 10, &acc, &overflow);
		if (nd <= 0)
			return fail(p, "an invalid value", NULL);
		if (s[int_b] == '0' && nd > 1)
			return fail(p, "a number with a leading zero", NULL);
		if (i == n) {
			if (overflow)
				return fail(p, "an integer out of range", NULL);
			if (!(t = node(p, WP_TOML_INTEGER)))
				return too_many(p);
			t->i = neg ? -acc : acc;
			goto done;
		}
		if (s[i] == '.') {
			i++;
			if (digits(s, n, &i, 10, NULL, NULL) <= 0)
				return fail(p, "a float without digits after its point", NULL);
		}
		if (i < n && (s[i] == 'e' || s[i] == 'E')) {
			i++;
			if (i < n && (s[i] == '+' || s[i] == '-'))
				i++;
			if (digits(s, n, &i, 10, NULL, NULL) <= 0)
				return fail(p, "a float without digits in its exponent", NULL);
		}
		if (i != n)
			return fail(p, "an invalid value", NULL);
	}
flt:
	if (!(t = node(p, WP_TOML_FLOAT)))
		return too_many(p);
	t->str = wp_xstrndup(s, n);
	t->len = n;
done:
	p->pos = e;
	*out = t;
	return 0;
}

static void freeze(struct wp_toml *t)
{
	if (t->type == WP_TOML_TABLE)
		t->flags |= F_INLINE;
	if (t->type == WP_TOML_TABLE || t->type == WP_TOML_ARRAY)
		for (size_t i = 0; i < t->n; i++)
			freeze(t->items[i]);
}

static int keyval(struct p *p, struct wp_toml *t, int depth);

static int array(struct p *p, int depth, struct wp_toml **out)
{
	struct wp_toml *a = node(p, WP_TOML_ARRAY), *v;
	int rc;
	if (!a)
		return too_many(p);
	p->pos++;
	for (;;) {
		if ((rc = blank(p)) < 0)
			goto bad;
		if (peek(p, 0) == ']') {
			p->pos++;
			break;
		}
		if ((rc = value(p, depth + 1, &v)) < 0)
			goto bad;
		if ((rc = push(p, a, NULL, 0, v)) < 0)
			goto bad;
		if ((rc = blank(p)) < 0)
			goto bad;
		if (peek(p, 0) == ',') {
			p->pos++;
			continue;
		}
		if (peek(p, 0) == ']') {
			p->pos++;
			break;
		}
		rc = fail(p, "',' or ']' expected in an array", NULL);
		goto bad;
	}
	*out = a;
	return 0;
bad:
	wp_toml_free(a);
	return rc;
}

static int inline_table(struct p *p, int depth, struct wp_toml **out)
{
	struct wp_toml *t = node(p, WP_TOML_TABLE);
	int rc;
	if (!t)
		return too_many(p);
	p->pos++;
	ws(p);
	if (peek(p, 0) == '}') {
		p->pos++;
		goto ok;
	}
	for (;;) {
		if ((rc = keyval(p, t, depth + 1)) < 0)
			goto bad;
		ws(p);
		if (peek(p, 0) == ',') {
			p->pos++;
			continue;
		}
		if (peek(p, 0) == '}') {
			p->pos++;
			break;
		}
		rc = fail(p,
			  "',' or '}' expected in an inline table (TOML 1.0 keeps one on one line)",
			  NULL);
		goto bad;
	}
ok:
	freeze(t);
	*out = t;
	return 0;
bad:
	wp_toml_free(t);
	return rc;
}

static int value(struct p *p, int depth, struct wp_toml **out)
{
	int c = peek(p, 0), rc;
	if (depth > WP_TOML_MAX_DEPTH)
		return wp_fail(p->err, -WPE_TOO_BIG,
			       "'%s': line %u: TOML arrays or tables nested deeper than %d",
			       p->what, p->line, WP_TOML_MAX_DEPTH);
	if (c == '"' || c == '\'') {
		struct wp_buf b = WP_BUF_INIT;
		unsigned line = p->line;
		if ((rc = string(p, &b, false)) < 0) {
			wp_buf_free(&b);
			return rc;
		}
		struct wp_toml *t = node(p, WP_TOML_STRING);
		if (!t) {
			wp_buf_free(&b);
			return too_many(p);
		}
		t->line = line;
		t->len = b.len;
		t->str = wp_xstrndup(b.data ? b.data : "", b.len);
		wp_buf_free(&b);
		*out = t;
		return 0;
	}
	if (c == '[')
		return array(p, depth, out);
	if (c == '{')
		return inline_table(p, depth, out);
	return scalar(p, out);
}

static char *dotted(const struct key *k, size_t upto)
{
	struct wp_buf b = WP_BUF_INIT;
	for (size_t i = 0; i < upto; i++)
		wp_buf_printf(&b, "%s%s", i ? "." : "", k->part[i]);
	char *s = wp_xstrdup(wp_buf_cstr(&b));
	wp_buf_free(&b);
	return s;
}

static int key_error(struct p *p, const char *fmt, const struct key *k, size_t upto)
{
	char *name = dotted(k, upto);
	int rc = fail(p, fmt, name);
	free(name);
	return rc;
}

/* key = value into t: dotted keys make (or extend) tables made by dotted keys only. */
static int keyval(struct p *p, struct wp_toml *t, int depth)
{
	struct key k;
	struct wp_toml *v = NULL;
	int rc;
	if ((rc = key(p, &k)) < 0)
		return rc;
	ws(p);
	if (peek(p, 0) != '=') {
		rc = fail(p, "'=' expected after a key", NULL);
		goto out;
	}
	p->pos++;
	ws(p);
	for (size_t i = 0; i + 1 < k.n; i++) {
		struct wp_toml *c = find(t, k.part[i], k.len[i]);
		if (!c) {
			if (!(c = node(p, WP_TOML_TABLE))) {
				rc = too_many(p);
				goto out;
			}
			c->flags = F_DOTTED;
			if ((rc = push(p, t, k.part[i], k.len[i], c)) < 0)
				goto out;
		} else if (c->type != WP_TOML_TABLE || !(c->flags & (F_DOTTED | F_IMPLICIT)) ||
			   (c->flags & F_INLINE)) {
			rc = key_error(p,
				       "key '%s' is already defined; a dotted key cannot extend it",
				       &k, i + 1);
			goto out;
		}
		c->flags |= F_DOTTED;
		t = c;
	}
	if (find(t, k.part[k.n - 1], k.len[k.n - 1])) {
		rc = key_error(p, "key '%s' is defined twice", &k, k.n);
		goto out;
	}
	if ((rc = value(p, depth, &v)) < 0)
		goto out;
	rc = push(p, t, k.part[k.n - 1], k.len[k.n - 1], v);
out:
	key_free(&k);
	return rc;
}

/* [a.b] or [[a.b]] at p->pos: the table that the key = value lines after it fill. */
static int header(struct p *p, struct wp_toml *root, struct wp_toml **cur)
{
	bool aot = peek(p, 1) == '[';
	struct key k;
	struct wp_toml *t = root, *c;
	int rc;
	p->pos += aot ? 2 : 1;
	if ((rc = key(p, &k)) < 0)
		return rc;
	ws(p);
	if (peek(p, 0) != ']' || (aot && peek(p, 1) != ']')) {
		rc = fail(p,
			  aot ? "']]' expected after an array-of-tables header" :
				"']' expected after a table header",
			  NULL);
		goto out;
	}
	p->pos += aot ? 2 : 1;
	for (size_t i = 0; i + 1 < k.n; i++) {
		c = find(t, k.part[i], k.len[i]);
		if (!c) {
			if (!(c = node(p, WP_TOML_TABLE))) {
				rc = too_many(p);
				goto out;
			}
			c->flags = F_IMPLICIT;
			if ((rc = push(p, t, k.part[i], k.len[i], c)) < 0)
				goto out;
		} else if (c->type == WP_TOML_ARRAY && (c->flags & F_AOT) && c->n) {
			c = c->items[c->n - 1];
		} else if (c->type != WP_TOML_TABLE || (c->flags & F_INLINE)) {
			rc = key_error(p, "key '%s' is already a value, not a table", &k, i + 1);
			goto out;
		}
		t = c;
	}
	c = find(t, k.part[k.n - 1], k.len[k.n - 1]);
	if (aot) {
		if (!c) {
			if (!(c = node(p, WP_TOML_ARRAY))) {
				rc = too_many(p);
				goto out;
			}
			c->flags = F_AOT;
			if ((rc = push(p, t, k.part[k.n - 1], k.len[k.n - 1], c)) < 0)
				goto out;
		} else if (c->type != WP_TOML_ARRAY || !(c->flags & F_AOT)) {
			rc = key_error(p, "[[%s]] names a value that is no array of tables", &k,
				       k.n);
			goto out;
		}
		struct wp_toml *e = node(p, WP_TOML_TABLE);
		if (!e) {
			rc = too_many(p);
			goto out;
		}
		e->flags = F_EXPLICIT;
		if ((rc = push(p, c, NULL, 0, e)) < 0)
			goto out;
		*cur = e;
	} else {
		if (!c) {
			if (!(c = node(p, WP_TOML_TABLE))) {
				rc = too_many(p);
				goto out;
			}
			if ((rc = push(p, t, k.part[k.n - 1], k.len[k.n - 1], c)) < 0)
				goto out;
		} else if (c->type != WP_TOML_TABLE ||
			   (c->flags & (F_EXPLICIT | F_DOTTED | F_INLINE))) {
			rc = key_error(p, "table [%s] is defined twice", &k, k.n);
			goto out;
		}
		c->flags = (c->flags & ~(unsigned)F_IMPLICIT) | F_EXPLICIT;
		*cur = c;
	}
out:
	key_free(&k);
	return rc;
}

int wp_toml_parse(const char *s, size_t n, const char *what, struct wp_toml **out,
		  struct wp_err *err)
{
	struct p p = { s, n, 0, 1, 0, what ? what : "TOML", err };
	struct wp_toml *root, *cur;
	int rc;
	*out = NULL;
	if (n > WP_TOML_MAX_BYTES)
		return wp_fail(err, -WPE_TOO_BIG,
			       "'%s' is larger than %u bytes; it is no lock file wheelpick reads",
			       p.what, WP_TOML_MAX_BYTES);
	if ((rc = check_utf8(&p)) < 0)
		return rc;
	root = cur = node(&p, WP_TOML_TABLE);
	root->flags = F_EXPLICIT;
	for (;;) {
		if ((rc = blank(&p)) < 0)
			goto bad;
		if (eof(&p))
			break;
		if (peek(&p, 0) == '[')
			rc = header(&p, root, &cur);
		else
			rc = keyval(&p, cur, 0);
		if (rc < 0 || (rc = line_end(&p)) < 0)
			goto bad;
	}
	*out = root;
	return 0;
bad:
	wp_toml_free(root);
	return rc;
}
