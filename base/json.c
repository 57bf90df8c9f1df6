/* base/json.c: every use of yajl: the streaming reader skeleton (caps, one-line errors), the tree
 * loader for small documents, and the writer (yajl_gen escapes and checks UTF-8 for us). */
#include "base/json.h"

#include "base/mem.h"
#include "base/str.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

/* ---- the reader skeleton ---- */

/* Record a message that opens with the document's name, "[NOUN ]'WHAT' ", once; returns code. */
__attribute__((format(printf, 3, 4)))
static int doc_fail(struct wp_json_reader *r, int code, const char *fmt, ...)
{
	const struct wp_json_opts *o = &r->o;
	char rest[512];
	va_list ap;
	if (r->rc)
		return r->rc;
	va_start(ap, fmt);
	vsnprintf(rest, sizeof(rest), fmt, ap);
	va_end(ap);
	return r->rc = wp_fail(r->err, code, "%s%s'%s' %s", o->noun ? o->noun : "",
			       o->noun ? " " : "", o->what ? o->what : "", rest);
}

static const char *kind(const struct wp_json_reader *r)
{
	return r->o.kind ? r->o.kind : "valid JSON";
}

static int malformed(struct wp_json_reader *r)
{
	return r->o.code ? r->o.code : -WPE_PARSE;
}

/* Where in the piece being fed the token just reported ends (yajl's count while it calls back):
 * the first and the last of a feed bound the stretch of whole tokens the guard may skip. */
static inline void mark(struct wp_json_reader *r)
{
	if (!r->o.max_token)
		return; /* no guard, nothing to skip */
	size_t at = yajl_get_bytes_consumed(r->h);
	if (!r->marked) {
		r->first_end = at;
		r->marked = true;
	}
	r->last_end = at;
}

/* A callback's answer as yajl wants it: nonzero goes on. */
static int go_on(struct wp_json_reader *r, int rc)
{
	if (rc < 0 && !r->rc)
		r->rc = rc;
	return rc >= 0;
}

static int t_null(void *u)
{
	struct wp_json_reader *r = u;
	mark(r);
	return !r->cb->null || go_on(r, r->cb->null(r->ctx));
}

static int t_boolean(void *u, int b)
{
	struct wp_json_reader *r = u;
	mark(r);
	return !r->cb->boolean || go_on(r, r->cb->boolean(r->ctx, b != 0));
}

static int t_number(void *u, const char *s, size_t n)
{
	struct wp_json_reader *r = u;
	mark(r);
	return !r->cb->number || go_on(r, r->cb->number(r->ctx, s, n));
}

static int t_string(void *u, const unsigned char *s, size_t n)
{
	struct wp_json_reader *r = u;
	mark(r);
	return !r->cb->string || go_on(r, r->cb->string(r->ctx, s, n));
}

static int t_key(void *u, const unsigned char *s, size_t n)
{
	struct wp_json_reader *r = u;
	mark(r);
	return !r->cb->key || go_on(r, r->cb->key(r->ctx, s, n));
}

/* The depth cap: yajl's own stack would grow without end, and readers size tables by it. */
static int t_open(struct wp_json_reader *r, int (*fn)(void *))
{
	if (r->depth >= WP_JSON_MAX_DEPTH) {
		doc_fail(r, malformed(r), "is not %s: JSON nested too deep (more than %d levels)",
			 kind(r), WP_JSON_MAX_DEPTH);
		return 0;
	}
	if (fn && !go_on(r, fn(r->ctx)))
		return 0;
	r->depth++;
	return 1;
}

static int t_close(struct wp_json_reader *r, int (*fn)(void *))
{
	if (fn && !go_on(r, fn(r->ctx)))
		return 0;
	r->depth--;
	return 1;
}

static int t_start_map(void *u)
{
	struct wp_json_reader *r = u;
	mark(r);
	return t_open(r, r->cb->start_map);
}

static int t_start_array(void *u)
{
	struct wp_json_reader *r = u;
	mark(r);
	return t_open(r, r->cb->start_array);
}

static int t_end_map(void *u)
{
	struct wp_json_reader *r = u;
	mark(r);
	return t_close(r, r->cb->end_map);
}

static int t_end_array(void *u)
{
	struct wp_json_reader *r = u;
	mark(r);
	return t_close(r, r->cb->end_array);
}

static const yajl_callbacks trampolines = {
	.yajl_null = t_null,
	.yajl_boolean = t_boolean,
	.yajl_number = t_number,
	.yajl_string = t_string,
	.yajl_start_map = t_start_map,
	.yajl_map_key = t_key,
	.yajl_end_map = t_end_map,
	.yajl_start_array = t_start_array,
	.yajl_end_array = t_end_array,
};

/* The same for readers with one value callback: no test per event of which member is set. */
static int v_null(void *u)
{
	struct wp_json_reader *r = u;
	mark(r);
	return go_on(r, r->cb->value(r->ctx, WP_JSON_NULL, NULL, 0, false));
}

static int v_boolean(void *u, int b)
{
	struct wp_json_reader *r = u;
	mark(r);
	return go_on(r, r->cb->value(r->ctx, WP_JSON_BOOL, NULL, 0, b != 0));
}

static int v_number(void *u, const char *s, size_t n)
{
	struct wp_json_reader *r = u;
	mark(r);
	return go_on(r, r->cb->value(r->ctx, WP_JSON_NUMBER, (const unsigned char *)s, n, false));
}

static int v_string(void *u, const unsigned char *s, size_t n)
{
	struct wp_json_reader *r = u;
	mark(r);
	return go_on(r, r->cb->value(r->ctx, WP_JSON_STRING, s, n, false));
}

static const yajl_callbacks value_trampolines = {
	.yajl_null = v_null,
	.yajl_boolean = v_boolean,
	.yajl_number = v_number,
	.yajl_string = v_string,
	.yajl_start_map = t_start_map,
	.yajl_map_key = t_key,
	.yajl_end_map = t_end_map,
	.yajl_start_array = t_start_array,
	.yajl_end_array = t_end_array,
};

static const struct wp_json_callbacks no_callbacks;

void wp_json_reader_init(struct wp_json_reader *r, const struct wp_json_callbacks *cb, void *ctx,
			 const struct wp_json_opts *o, struct wp_err *err)
{
	memset(r, 0, sizeof(*r));
	r->cb = cb ? cb : &no_callbacks;
	r->ctx = ctx;
	r->o = *o;
	r->err = err;
	yajl_handle h = yajl_alloc(r->cb->value ? &value_trampolines : &trampolines, NULL, r);
	if (!h)
		abort(); /* out of memory, as wp_xmalloc would */
	yajl_config(h, yajl_allow_comments, 0);
	yajl_config(h, yajl_dont_validate_strings, 0);
	yajl_config(h, yajl_allow_trailing_garbage, 0);
	yajl_config(h, yajl_allow_multiple_values, 0);
	yajl_config(h, yajl_allow_partial_values, 0);
	r->h = h;
}

void wp_json_reader_release(struct wp_json_reader *r)
{
	if (r->h)
		yajl_free(r->h);
	r->h = NULL;
}

/* Bytes that end a token outside strings, and bytes that stop a scan inside one. Tables: the
 * guard sees every byte of a 300 MB repodata, and was a fifth of its parsing time. */
static const bool token_end[256] = {
	['{'] = true, ['}'] = true, ['['] = true, [']'] = true, [','] = true, [':'] = true,
	[' '] = true, ['\t'] = true, ['\r'] = true, ['\n'] = true,
};
static const bool string_stop[256] = { ['"'] = true, ['\\'] = true };

/* The first quote or backslash in s[i..n), or n. Eight bytes at a time where it can: strings are
 * most of a repodata's bytes, and a byte-wise scan of them was half of the guard's time. */
static size_t string_end(const unsigned char *s, size_t i, size_t n)
{
#if defined(__SSE2__)
	/* sixteen at a time where SSE2 is (every x86-64): the guard was a tenth of a conda crawl's
	 * CPU, most of it here */
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	for (; n - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)));
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	for (; n - i >= 8; i += 8) {
		uint64_t v, q, b;
		memcpy(&v, s + i, 8);
		q = v ^ (ones * '"');
		b = v ^ (ones * '\\');
		/* a zero byte of q or b is a quote or a backslash; the lowest flag is exact */
		uint64_t hit = (((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
		if (hit)
			return i + (size_t)(__builtin_ctzll(hit) >> 3);
	}
#endif
	while (i < n && !string_stop[s[i]])
		i++;
	return i;
}

/* Past a run of bytes that end tokens (white space and punctuation) from s[i]: indentation eight
 * spaces at a time. */
static size_t separators_end(const unsigned char *s, size_t i, size_t n)
{
	static const uint64_t spaces = 0x2020202020202020u;
	for (;;) {
		uint64_t v;
		while (n - i >= 8 && (memcpy(&v, s + i, 8), v == spaces))
			i += 8;
		if (i == n || !token_end[s[i]])
			return i;
		i++;
	}
}

/* Refuse a token (string or literal) longer than max_token before yajl buffers it (it keeps a
 * token split across feeds whole): r->run counts the bytes of the token being read. */
static int guard(struct wp_json_reader *r, const unsigned char *s, size_t n)
{
	size_t i = 0, max = r->o.max_token;
	while (i < n) {
		if (r->in_str && !r->esc) {
			/* inside a string: on to the next quote or backslash in one go */
			size_t j = string_end(s, i, n);
			r->run += j - i;
			if (j < n) {
				r->run++;
				if (s[j] == '"')
					r->in_str = false;
				else
					r->esc = true;
				j++;
			}
			i = j;
		} else if (r->in_str) {
			r->esc = false; /* the escaped byte */
			r->run++;
			i++;
		} else if (s[i] == '"') {
			r->in_str = true;
			r->run = 1;
			i++;
		} else if (token_end[s[i]]) {
			/* white space and punctuation in one go: pretty-printed repodata is mostly
			 * indentation, and each byte of it ends whatever token was open */
			i = separators_end(s, i + 1, n);
			r->run = 1;
		} else {
			/* a literal (number, true, false, null) up to what ends it */
			size_t j = i;
			while (++j < n && !token_end[s[j]] && s[j] != '"')
				;
			r->run += j - i;
			i = j;
		}
		if (r->run > max)
			return doc_fail(r, -WPE_TOO_BIG, "holds a JSON value longer than %zu bytes",
					max);
	}
	return 0;
}

/* yajl's message, first line only (the verbose form adds the text and an arrow). */
static int syntax_error(struct wp_json_reader *r, const unsigned char *s, size_t n)
{
	if (r->rc)
		return r->rc;
	unsigned char *msg = yajl_get_error(r->h, 0, s, n);
	struct wp_str m = wp_str_trim(WP_STR((const char *)msg));
	m.n = strcspn(m.p, "\n") < m.n ? strcspn(m.p, "\n") : m.n;
	if (m.n > 200)
		m.n = 200;
	doc_fail(r, malformed(r), "is not %s: %.*s", kind(r), WP_STR_FMT(m));
	yajl_free_error(r->h, msg);
	return r->rc;
}

int wp_json_reader_feed(struct wp_json_reader *r, const void *data, size_t n)
{
	if (r->rc)
		return r->rc;
	if (n > r->o.max_bytes - r->fed)
		return doc_fail(r, -WPE_TOO_BIG, "is larger than %zu bytes", r->o.max_bytes);
	r->fed += n;
	if (r->o.max_token && n > r->o.max_token) {
		/* a piece larger than the cap may hold a whole token past it: every byte is seen */
		if (guard(r, data, n))
			return r->rc;
		if (yajl_parse(r->h, data, n) != yajl_status_ok)
			return syntax_error(r, data, n);
		return 0;
	}
	/* A piece no larger than the cap: a token that begins and ends inside it is within the cap,
	 * so only the first token (which may go on from the last piece) and what follows the last
	 * one yajl reported (which may go on into the next) are counted. The bytes between are
	 * skipped: the guard saw each byte of a 250 MB repodata, a twentieth of its crawl's CPU. */
	r->marked = false;
	yajl_status st = yajl_parse(r->h, data, n);
	if (st != yajl_status_ok) {
		/* as before: a token past the cap is said before the malformed JSON after it */
		if (!r->rc && r->o.max_token && guard(r, data, n))
			return r->rc;
		return syntax_error(r, data, n);
	}
	if (!r->o.max_token)
		return 0;
	if (!r->marked)
		return guard(r, data, n);
	if (guard(r, data, r->first_end))
		return r->rc;
	r->in_str = r->esc = false; /* just past a token yajl reported: between tokens */
	r->run = 0;
	return guard(r, (const unsigned char *)data + r->last_end, n - r->last_end);
}

int wp_json_reader_finish(struct wp_json_reader *r)
{
	if (r->rc)
		return r->rc;
	if (yajl_complete_parse(r->h) != yajl_status_ok)
		return syntax_error(r, NULL, 0);
	return 0;
}

int wp_json_read(const void *data, size_t n, const struct wp_json_callbacks *cb, void *ctx,
		 const struct wp_json_opts *o, struct wp_err *err)
{
	struct wp_json_reader r;
	wp_json_reader_init(&r, cb, ctx, o, err);
	int rc = wp_json_reader_feed(&r, data ? data : "", n);
	if (!rc)
		rc = wp_json_reader_finish(&r);
	wp_json_reader_release(&r);
	return rc;
}

/* ---- the tree loader ---- */

/* struct wp_json_val is yajl's struct yajl_val_s, never defined: the pointers are cast. */
static yajl_val V(const struct wp_json_val *v)
{
	return (yajl_val)v;
}

int wp_json_load(const char *text, size_t len, const struct wp_json_opts *o,
		 struct wp_json_val **root, struct wp_err *err)
{
	*root = NULL;
	/* The skeleton first: its caps and config (yajl_tree allows comments), and nothing deeper
	 * than WP_JSON_MAX_DEPTH reaches yajl_tree_free, which recurses once per level. */
	int rc = wp_json_read(text, len, NULL, NULL, o, err);
	if (rc)
		return rc;
	char *copy = wp_xstrndup(text ? text : "", len); /* yajl_tree wants a NUL at the end */
	char ebuf[256] = "";
	yajl_val v = yajl_tree_parse(copy, ebuf, sizeof(ebuf));
	free(copy);
	if (!v) {
		/* the skeleton accepted the same text, so this should not happen; say what yajl
		 * says */
		ebuf[strcspn(ebuf, "\n")] = 0;
		return wp_fail(err, o->code ? o->code : -WPE_PARSE, "%s%s'%s' is not %s: %s",
			       o->noun ? o->noun : "", o->noun ? " " : "", o->what ? o->what : "",
			       o->kind ? o->kind : "valid JSON", ebuf);
	}
	*root = (struct wp_json_val *)v;
	return 0;
}

void wp_json_tree_free(struct wp_json_val *root)
{
	if (root)
		yajl_tree_free(V(root));
}

enum wp_json_type wp_json_type(const struct wp_json_val *jv)
{
	yajl_val v = V(jv);
	if (!v)
		return WP_JSON_ABSENT;
	switch (v->type) {
	case yajl_t_string: return WP_JSON_STRING;
	case yajl_t_number: return WP_JSON_NUMBER;
	case yajl_t_object: return WP_JSON_OBJECT;
	case yajl_t_array:  return WP_JSON_ARRAY;
	case yajl_t_true:
	case yajl_t_false:  return WP_JSON_BOOL;
	default:            return WP_JSON_NULL;
	}
}

const struct wp_json_val *wp_json_typed(const struct wp_json_val *v, enum wp_json_type t)
{
	return v && wp_json_type(v) == t ? v : NULL;
}

const struct wp_json_val *wp_json_get_path(const struct wp_json_val *v, const char *const *path)
{
	/* yajl_tree_get takes a char ** it does not write through */
	return v ? (const struct wp_json_val *)yajl_tree_get(V(v), (const char **)path,
							     yajl_t_any) :
		   NULL;
}

const char *wp_json_as_str(const struct wp_json_val *v)
{
	return v && YAJL_IS_STRING(V(v)) ? YAJL_GET_STRING(V(v)) : NULL;
}

bool wp_json_as_int(const struct wp_json_val *v, long long *out)
{
	if (!v || !YAJL_IS_INTEGER(V(v)))
		return false;
	*out = YAJL_GET_INTEGER(V(v));
	return true;
}

bool wp_json_as_bool(const struct wp_json_val *v, bool *out)
{
	if (!v || !(YAJL_IS_TRUE(V(v)) || YAJL_IS_FALSE(V(v))))
		return false;
	*out = YAJL_IS_TRUE(V(v));
	return true;
}

size_t wp_json_len(const struct wp_json_val *v)
{
	if (v && YAJL_IS_ARRAY(V(v)))
		return V(v)->u.array.len;
	if (v && YAJL_IS_OBJECT(V(v)))
		return V(v)->u.object.len;
	return 0;
}

const struct wp_json_val *wp_json_at(const struct wp_json_val *v, size_t i)
{
	if (i >= wp_json_len(v))
		return NULL;
	yajl_val y = V(v);
	return (const struct wp_json_val *)(YAJL_IS_ARRAY(y) ? y->u.array.values[i] :
							       y->u.object.values[i]);
}

const char *wp_json_key_at(const struct wp_json_val *v, size_t i)
{
	if (!v || !YAJL_IS_OBJECT(V(v)) || i >= V(v)->u.object.len)
		return NULL;
	return V(v)->u.object.keys[i];
}

bool wp_json_as_double(const struct wp_json_val *v, double *out)
{
	if (!v || !YAJL_IS_NUMBER(V(v)))
		return false;
	*out = YAJL_IS_INTEGER(V(v)) ? (double)YAJL_GET_INTEGER(V(v)) : YAJL_GET_DOUBLE(V(v));
	return true;
}

/* ---- the writer ---- */

void wp_json_init_indent(struct wp_json *j, const char *indent)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g)
		abort();
	if (indent) {
		yajl_gen_config(g, yajl_gen_beautify, 1);
		yajl_gen_config(g, yajl_gen_indent_string, indent);
	}
	/* Strings from indexes may carry invalid UTF-8: never emit it. */
	yajl_gen_config(g, yajl_gen_validate_utf8, 1);
	j->gen = g;
	j->bad = false;
}

void wp_json_init(struct wp_json *j)
{
	wp_json_init_indent(j, "  ");
}

/* Keeps the first failure, so callers read as a document rather than a ladder of ifs. */
static void keep(struct wp_json *j, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok)
		j->bad = true;
}

void wp_json_obj(struct wp_json *j) { keep(j, yajl_gen_map_open(j->gen)); }
void wp_json_obj_end(struct wp_json *j) { keep(j, yajl_gen_map_close(j->gen)); }
void wp_json_arr(struct wp_json *j) { keep(j, yajl_gen_array_open(j->gen)); }
void wp_json_arr_end(struct wp_json *j) { keep(j, yajl_gen_array_close(j->gen)); }
void wp_json_null(struct wp_json *j) { keep(j, yajl_gen_null(j->gen)); }
void wp_json_int(struct wp_json *j, long long v) { keep(j, yajl_gen_integer(j->gen, v)); }
void wp_json_bool(struct wp_json *j, bool v) { keep(j, yajl_gen_bool(j->gen, v)); }

void wp_json_str(struct wp_json *j, const char *s)
{
	if (!s) {
		wp_json_null(j);
		return;
	}
	if (yajl_gen_string(j->gen, (const unsigned char *)s, strlen(s)) ==
	    yajl_gen_invalid_string) {
		j->bad = true;
		keep(j,
		     yajl_gen_string(j->gen, (const unsigned char *)"\xef\xbf\xbd", 3)); /* U+FFFD
											  */
	}
}

void wp_json_key(struct wp_json *j, const char *key) { wp_json_str(j, key); }

void wp_json_kstr(struct wp_json *j, const char *key, const char *s)
{
	wp_json_key(j, key);
	wp_json_str(j, s);
}

void wp_json_kint(struct wp_json *j, const char *key, long long v)
{
	wp_json_key(j, key);
	wp_json_int(j, v);
}

void wp_json_kbool(struct wp_json *j, const char *key, bool v)
{
	wp_json_key(j, key);
	wp_json_bool(j, v);
}

/* yajl's beautifier writes an empty array or object over blank lines ("[\n\n  ]"); scripts and
 * people expect [] and {}. Squeezes the white space between an opener and its closer, outside
 * strings, in place; returns the new length. */
static size_t squeeze_empty(unsigned char *b, size_t len)
{
	size_t o = 0;
	bool in_str = false, esc = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = b[i];
		b[o++] = c;
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			size_t k = i + 1;
			while (k < len &&
			       (b[k] == ' ' || b[k] == '\n' || b[k] == '\t' || b[k] == '\r'))
				k++;
			if (k < len && k > i + 1 && b[k] == (c == '[' ? ']' : '}')) {
				b[o++] = b[k];
				i = k;
			}
		}
	}
	return o;
}

void wp_json_finish(struct wp_json *j, FILE *f)
{
	const unsigned char *buf;
	size_t len;
	yajl_gen_get_buf(j->gen, &buf, &len);
	unsigned char *copy = wp_xmalloc(len + 1);
	memcpy(copy, buf, len);
	len = squeeze_empty(copy, len);
	fwrite(copy, 1, len, f);
	if (len && copy[len - 1] != '\n')
		fputc('\n', f);
	free(copy);
	yajl_gen_free(j->gen);
	j->gen = NULL;
}

int wp_json_finish_buf(struct wp_json *j, struct wp_buf *out)
{
	const unsigned char *buf;
	size_t len, start = out->len;
	int rc = 0;
	if (j->bad || yajl_gen_get_buf(j->gen, &buf, &len) != yajl_gen_status_ok)
		rc = -WPE_PARSE;
	else if (wp_buf_add(out, buf, len) < 0 ||
		 ((!len || buf[len - 1] != '\n') && wp_buf_addch(out, '\n') < 0))
		rc = -WPE_TOO_BIG;
	else {
		out->len = start +
			   squeeze_empty((unsigned char *)out->data + start, out->len - start);
		out->data[out->len] = 0;
	}
	yajl_gen_free(j->gen);
	j->gen = NULL;
	return rc;
}

void wp_json_raw_list(struct wp_json *j, const char *json_array)
{
	static const struct wp_json_opts o = { .what = "conda list", .max_bytes = (size_t)1 << 20 };
	struct wp_json_val *v = NULL;
	wp_json_arr(j);
	if (json_array && wp_json_load(json_array, strlen(json_array), &o, &v, NULL) == 0) {
		for (size_t i = 0; i < wp_json_len(wp_json_typed(v, WP_JSON_ARRAY)); i++) {
			const char *s = wp_json_as_str(wp_json_at(v, i));
			if (s)
				wp_json_str(j, s);
		}
	}
	wp_json_arr_end(j);
	wp_json_tree_free(v);
}
