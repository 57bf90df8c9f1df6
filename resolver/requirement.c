/* resolver/requirement.c: PEP 508 requirements and PEP 503 names, parsed as packaging 24.2.
 * Pure. */
#include "resolver/requirement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/vec.h"
#include "resolver/wheelname.h"

struct rtok {
	const char *s;
	size_t n, pos;
	struct wp_err *err;
};

static int expected(struct rtok *t, const char *what)
{
	size_t n = t->n < 200 ? t->n : 200;
	return wp_fail(t->err, -WPE_PARSE,
		       "invalid requirement '%.*s%s': expected %s at position %zu", (int)n, t->s,
		       t->n > n ? "..." : "", what, t->pos);
}

static bool word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool boundary(const struct rtok *t, size_t i)
{
	bool before = i > 0 && word_char((unsigned char)t->s[i - 1]);
	bool after = i < t->n && word_char((unsigned char)t->s[i]);
	return before != after;
}

static bool ws(struct rtok *t)
{
	size_t start = t->pos;
	while (t->pos < t->n && (t->s[t->pos] == ' ' || t->s[t->pos] == '\t'))
		t->pos++;
	return t->pos > start;
}

static bool at(const struct rtok *t, char c)
{
	return t->pos < t->n && t->s[t->pos] == c;
}

/* '\Z': the very end. A final newline is not PEP 508 (the dependency-specifiers text's name
 * regex ends in \Z since 2025-08, "incorrectly permitting trailing newlines"; packaging HEAD
 * refuses "foo\n" too) */
static bool at_end(const struct rtok *t)
{
	return t->pos == t->n;
}

/* IDENTIFIER: \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b; its length, or 0 */
static size_t identifier(const struct rtok *t)
{
	size_t e = t->pos;
	if (t->pos >= t->n || !alnum(t->s[t->pos]) || !boundary(t, t->pos))
		return 0;
	while (e < t->n && (alnum(t->s[e]) || t->s[e] == '.' || t->s[e] == '_' || t->s[e] == '-'))
		e++;
	while (e > t->pos && !boundary(t, e))
		e--;
	return e - t->pos;
}

static void add_extra(struct wp_requirement *r, const char *s, size_t n)
{
	for (size_t i = 0; i < r->nextras; i++)
		if (strlen(r->extras[i]) == n && !memcmp(r->extras[i], s, n))
			return;
	wp_vec_push_fields(r->extras, r->nextras, r->cap_extras, wp_xstrndup(s, n));
}

/* extras = '[' WS? (IDENTIFIER (WS? ',' WS? IDENTIFIER)*)? WS? ']' */
static int parse_extras(struct rtok *t, struct wp_requirement *r)
{
	size_t len;
	if (!at(t, '['))
		return 0;
	t->pos++;
	ws(t);
	if ((len = identifier(t)) > 0) {
		add_extra(r, t->s + t->pos, len);
		t->pos += len;
		for (;;) {
			ws(t);
			if (identifier(t))
				return expected(t, "a comma between extra names");
			if (!at(t, ','))
				break;
			t->pos++;
			ws(t);
			if (!(len = identifier(t)))
				return expected(t, "an extra name after the comma");
			add_extra(r, t->s + t->pos, len);
			t->pos += len;
		}
	}
	ws(t);
	if (!at(t, ']'))
		return expected(t, "']' to close the extras");
	t->pos++;
	return 0;
}

/* specifier = '(' WS? version_many WS? ')' | WS? version_many WS?
 * version_many = (SPECIFIER (WS? ',' WS? SPECIFIER)*)? */
static int parse_specifiers(struct rtok *t, struct wp_buf *text)
{
	bool paren = at(t, '(');
	size_t len;

	if (paren)
		t->pos++;
	ws(t);
	while ((len = wp_specifier_match(t->s + t->pos, t->n - t->pos)) > 0) {
		wp_buf_add(text, t->s + t->pos, len);
		t->pos += len;
		if (t->n - t->pos >= 2 && t->s[t->pos] == '.' && t->s[t->pos + 1] == '*')
			return expected(t, "no '.*' (prefix matching is only for == and !=)");
		if (t->n - t->pos >= 2 && t->s[t->pos] == '+' &&
		    ((t->s[t->pos + 1] >= 'a' && t->s[t->pos + 1] <= 'z') ||
		     (t->s[t->pos + 1] >= '0' && t->s[t->pos + 1] <= '9')))
			return expected(t, "no local version label (those are only for == and !=)");
		ws(t);
		if (!at(t, ','))
			break;
		wp_buf_addch(text, ',');
		t->pos++;
		ws(t);
	}
	/* "~=2": a compatible release needs a part to drop, which pip's message does not say */
	if (t->n - t->pos >= 3 && t->s[t->pos] == '~' && t->s[t->pos + 1] == '=') {
		size_t v = t->pos + 2;
		while (v < t->n && t->s[v] == ' ')
			v++;
		size_t e = v;
		while (e < t->n && t->s[e] >= '0' && t->s[e] <= '9')
			e++;
		if (e > v && (e == t->n || t->s[e] != '.'))
			return expected(t,
					"a version of at least two release segments after '~=' (~= needs two release "
					"segments: '~=2.0' is >=2.0 and ==2.*)");
	}
	ws(t);
	if (paren) {
		if (!at(t, ')'))
			return expected(t, "')' to close the version specifier");
		t->pos++;
	}
	return 0;
}

static int parse_marker(struct rtok *t, struct wp_requirement *r, const char *after)
{
	char what[96];
	int rc;
	if (!at(t, ';')) {
		snprintf(what, sizeof(what), "the end or ';' (after %s)", after);
		return expected(t, what);
	}
	t->pos++;
	if ((rc = wp_marker_parse_at(&r->marker, t->s, t->n, &t->pos, t->err)) < 0)
		return rc;
	r->has_marker = true;
	ws(t);
	return 0;
}

int wp_requirement_parse(struct wp_requirement *r, const char *s, size_t n, struct wp_err *err)
{
	struct rtok t = { s, n, 0, err };
	struct wp_buf spec = WP_BUF_INIT;
	size_t len;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->spec.prereleases = WP_PRERELEASES_DEFAULT;
	if (n > WP_REQUIREMENT_MAX_LEN)
		return wp_fail(err, -WPE_TOO_BIG, "requirement '%.64s...' is longer than %d bytes",
			       s, WP_REQUIREMENT_MAX_LEN);
	if (memchr(s, 0, n))
		return wp_fail(err, -WPE_PARSE, "requirement '%s' contains a NUL byte", s);
	ws(&t);
	if (!(len = identifier(&t))) {
		rc = expected(&t, "a package name at the start");
		goto out;
	}
	r->name = wp_xstrndup(s + t.pos, len);
	t.pos += len;
	ws(&t);
	if ((rc = parse_extras(&t, r)) < 0)
		goto out;
	ws(&t);
	if (at(&t, '@')) {
		t.pos++;
		ws(&t);
		size_t b = t.pos;
		/* RFC 3986 has no control bytes in a URI: a newline ends it (packaging keeps "\n"
		 * in the URL of "foo @ URL\n"; here that requirement is refused) */
		while (t.pos < n && s[t.pos] != ' ' && s[t.pos] != '\t' && s[t.pos] != '\n' &&
		       s[t.pos] != '\r')
			t.pos++;
		if (t.pos == b) {
			rc = expected(&t, "a URL after '@'");
			goto out;
		}
		r->url = wp_xstrndup(s + b, t.pos - b);
		if (!at_end(&t)) {
			if (!ws(&t)) {
				rc = expected(&t, "whitespace after the URL");
				goto out;
			}
			if (!at_end(&t) && (rc = parse_marker(&t, r, "the URL and whitespace")) < 0)
				goto out;
		}
	} else {
		if ((rc = parse_specifiers(&t, &spec)) < 0)
			goto out;
		ws(&t);
		if (!at_end(&t) &&
		    (rc = parse_marker(&t, r,
				       spec.len ? "the version specifier" :
						  "the name, with no valid version specifier")) < 0)
			goto out;
		if ((rc = wp_specset_parse(&r->spec, wp_buf_cstr(&spec), spec.len, err)) < 0)
			goto out;
	}
	if (!at_end(&t))
		rc = expected(&t, "the end of the requirement");
out:
	wp_buf_free(&spec);
	if (rc < 0)
		wp_requirement_release(r);
	return rc;
}

void wp_requirement_release(struct wp_requirement *r)
{
	free(r->name);
	for (size_t i = 0; i < r->nextras; i++)
		free(r->extras[i]);
	free(r->extras);
	wp_specset_release(&r->spec);
	free(r->url);
	if (r->has_marker)
		wp_marker_release(&r->marker);
	memset(r, 0, sizeof(*r));
	r->spec.prereleases = WP_PRERELEASES_DEFAULT;
}

int wp_req_parse(struct wp_req *q, const char *text, size_t n, struct wp_err *err)
{
	struct wp_err pe = WP_ERR_INIT;
	memset(q, 0, sizeof(*q));
	q->text = wp_xstrndup(text, n);
	int rc = wp_requirement_parse(&q->r, text, n, &pe);
	if (rc < 0) {
		q->why = wp_xstrdup(pe.msg);
		return wp_fail(err, rc, "%s", pe.msg);
	}
	struct wp_buf name = WP_BUF_INIT;
	wp_project_name_normalize(q->r.name, strlen(q->r.name), &name);
	q->project = wp_buf_detach(&name, NULL);
	q->ok = true;
	return 0;
}

void wp_req_release(struct wp_req *q)
{
	free(q->text);
	free(q->project);
	free(q->why);
	if (q->ok)
		wp_requirement_release(&q->r);
	memset(q, 0, sizeof(*q));
}

int wp_reqs_add(struct wp_reqs *l, const char *text, struct wp_err *err)
{
	struct wp_req q;
	int rc = wp_req_parse(&q, text, strlen(text), err);
	if (rc < 0) {
		wp_req_release(&q);
		return rc;
	}
	wp_vec_push(l, q);
	return 0;
}

void wp_reqs_release(struct wp_reqs *l)
{
	for (size_t i = 0; i < l->n; i++)
		wp_req_release(&l->v[i]);
	wp_vec_free(l);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int wp_requirement_format(const struct wp_requirement *r, struct wp_buf *out)
{
	struct wp_buf tmp = WP_BUF_INIT;
	int rc = 0;

	wp_buf_addstr(&tmp, r->name ? r->name : "");
	if (r->nextras) {
		char **sorted = wp_xmalloc(r->nextras * sizeof(*sorted));
		memcpy(sorted, r->extras, r->nextras * sizeof(*sorted));
		qsort(sorted, r->nextras, sizeof(*sorted), cmp_str);
		wp_buf_addch(&tmp, '[');
		for (size_t i = 0; i < r->nextras; i++)
			wp_buf_printf(&tmp, "%s%s", i ? "," : "", sorted[i]);
		wp_buf_addch(&tmp, ']');
		free(sorted);
	}
	wp_specset_format(&r->spec, &tmp);
	if (r->url) {
		wp_buf_printf(&tmp, "@ %s", r->url);
		if (r->has_marker)
			wp_buf_addch(&tmp, ' ');
	}
	if (r->has_marker) {
		wp_buf_addstr(&tmp, "; ");
		wp_marker_format(&r->marker, &tmp);
	}
	if (wp_buf_add(out, tmp.data ? tmp.data : "", tmp.len) < 0)
		rc = wp_fail(NULL, -WPE_TOO_BIG, "requirement text over the buffer's ceiling");
	wp_buf_free(&tmp);
	return rc;
}
