/* resolver/specifier.c: PEP 440 specifiers and sets: parse, match, filter, as packaging 24.2.
 * Pure. */
#include "resolver/specifier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/vec.h"
#include "base/str.h"

#define NO_MATCH ((size_t)-1)

/* In the order packaging's operator pattern tries them: "==" before "===", so "===" wins
 * only where "==" finds no version after it. */
static const struct {
	const char *text;
	enum wp_spec_op op;
} ops[] = {
	{ "~=", WP_OP_COMPATIBLE }, { "==", WP_OP_EQ }, { "!=", WP_OP_NE }, { "<=", WP_OP_LE },
	{ ">=", WP_OP_GE }, { "<", WP_OP_LT }, { ">", WP_OP_GT }, { "===", WP_OP_ARBITRARY },
};

static const char *op_text(enum wp_spec_op op)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(ops); i++)
		if (ops[i].op == op)
			return ops[i].text;
	return "?";
}

/* Python's \s, as in resolver/version.c (packaging strips and matches decoded text). */
static size_t pyspace(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	if (!n)
		return 0;
	if (u[0] == ' ' || (u[0] >= 0x09 && u[0] <= 0x0d) || (u[0] >= 0x1c && u[0] <= 0x1f))
		return 1;
	if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
		return 2;
	if (n >= 3 && u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
		return 3;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 &&
	    ((u[2] >= 0x80 && u[2] <= 0x8a) || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
		return 3;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
		return 3;
	if (n >= 3 && u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
		return 3;
	return 0;
}

static size_t skip_space(const char *s, size_t n, size_t i)
{
	size_t k;
	while (i < n && (k = pyspace(s + i, n - i)) > 0)
		i += k;
	return i;
}

static struct wp_str strip(struct wp_str s)
{
	size_t b = skip_space(s.p, s.n, 0), e = b, i = b, k;
	while (i < s.n) {
		if ((k = pyspace(s.p + i, s.n - i)) > 0) {
			i += k;
		} else {
			i++;
			e = i;
		}
	}
	return WP_STRN(s.p + b, e - b);
}

/* The version part of packaging's specifier pattern after operator op, starting at i (the
 * lookbehinds there depend only on the operator). Returns where it ends, or NO_MATCH. */
static size_t version_part(enum wp_spec_op op, const char *s, size_t n, size_t i, size_t *text_b)
{
	size_t m;
	i = skip_space(s, n, i);
	*text_b = i;
	switch (op) {
	case WP_OP_ARBITRARY:
		/* \s*[^\s;)]*: anything up to whitespace, ';' or ')' */
		while (i < n && s[i] != ';' && s[i] != ')' && !pyspace(s + i, n - i))
			i++;
		return i;
	case WP_OP_EQ:
	case WP_OP_NE:
		m = wp_version_match(s + i, n - i, WP_VMATCH_LOCAL | WP_VMATCH_WILDCARD);
		break;
	case WP_OP_COMPATIBLE:
		m = wp_version_match(s + i, n - i, WP_VMATCH_TWO);
		break;
	default:
		m = wp_version_match(s + i, n - i, 0);
		break;
	}
	return m ? i + m : NO_MATCH;
}

size_t wp_specifier_match(const char *s, size_t n)
{
	for (size_t k = 0; k < WP_ARRAY_LEN(ops); k++) {
		size_t len = strlen(ops[k].text), tb, e;
		if (n < len || memcmp(s, ops[k].text, len))
			continue;
		if ((e = version_part(ops[k].op, s, n, len, &tb)) != NO_MATCH)
			return e;
	}
	return 0;
}

static void shown(char *dst, size_t cap, const char *s, size_t n)
{
	snprintf(dst, cap, "%.*s%s", (int)(n < 64 ? n : 64), s, n > 64 ? "..." : "");
}

int wp_specifier_parse(struct wp_specifier *sp, const char *s, size_t n, struct wp_err *err)
{
	char name[80];
	size_t b, tb = 0, e = NO_MATCH, k;
	int rc;

	memset(sp, 0, sizeof(*sp));
	shown(name, sizeof(name), s, n);
	if (n > WP_SPECSET_MAX_LEN)
		return wp_fail(err, -WPE_TOO_BIG, "specifier '%s' is longer than %d bytes", name,
			       WP_SPECSET_MAX_LEN);
	if (memchr(s, 0, n))
		return wp_fail(err, -WPE_PARSE, "specifier '%s' contains a NUL byte", name);
	b = skip_space(s, n, 0);
	for (k = 0; k < WP_ARRAY_LEN(ops); k++) {
		size_t len = strlen(ops[k].text);
		if (n - b < len || memcmp(s + b, ops[k].text, len))
			continue;
		e = version_part(ops[k].op, s, n, b + len, &tb);
		if (e != NO_MATCH && skip_space(s, n, e) == n)
			break;
		e = NO_MATCH;
	}
	if (e == NO_MATCH)
		return wp_fail(err, -WPE_PARSE,
			       "invalid specifier '%s'; write an operator (==, !=, <, <=, >, >=, ~=, ===) and a PEP 440 version, like '>=1.8'",
			       name);
	sp->op = ops[k].op;
	sp->text = wp_xstrndup(s + tb, e - tb);
	sp->wildcard = (sp->op == WP_OP_EQ || sp->op == WP_OP_NE) && e - tb >= 2 && s[e - 1] == '*';
	if (sp->op == WP_OP_ARBITRARY) {
		struct wp_err ignored = WP_ERR_INIT;
		sp->has_version = wp_version_parse(&sp->version, sp->text, e - tb, &ignored) == 0;
		return 0;
	}
	rc = wp_version_parse(&sp->version, sp->text, e - tb - (sp->wildcard ? 2 : 0), err);
	if (rc < 0) {
		wp_err_prefix(err, "specifier '%s'", name);
		free(sp->text);
		memset(sp, 0, sizeof(*sp));
		return rc;
	}
	sp->has_version = true;
	return 0;
}

void wp_specifier_release(struct wp_specifier *sp)
{
	free(sp->text);
	wp_version_release(&sp->version);
	memset(sp, 0, sizeof(*sp));
}

void wp_specifier_copy(struct wp_specifier *dst, const struct wp_specifier *src)
{
	*dst = *src;
	dst->text = wp_xstrdup(src->text);
	if (src->has_version)
		wp_version_copy(&dst->version, &src->version);
}

int wp_specifier_format(const struct wp_specifier *sp, struct wp_buf *out)
{
	if (wp_buf_printf(out, "%s%s", op_text(sp->op), sp->text) < 0)
		return wp_fail(NULL, -WPE_TOO_BIG, "specifier text over the buffer's ceiling");
	return 0;
}

/* canonicalize_version(text, strip_trailing_zero=strip): the normal form, or the text as it is
 * when it is no version ("1.0.*"). */
static void canonical(const char *text, bool strip_zero, struct wp_buf *out)
{
	struct wp_version v;
	if (wp_version_parse(&v, text, strlen(text), NULL) == 0) {
		if (strip_zero)
			wp_version_format_canonical(&v, out);
		else
			wp_version_format(&v, out);
		wp_version_release(&v);
		return;
	}
	wp_buf_addstr(out, text);
}

bool wp_specifier_eq(const struct wp_specifier *a, const struct wp_specifier *b)
{
	struct wp_buf ca = WP_BUF_INIT, cb = WP_BUF_INIT;
	bool eq;
	if (a->op != b->op)
		return false;
	/* packaging HEAD: === and wildcards compare as written, so ===1.0,===1.0.0 are two */
	if (a->op == WP_OP_ARBITRARY || a->wildcard || b->wildcard)
		return strcmp(a->text, b->text) == 0;
	canonical(a->text, a->op != WP_OP_COMPATIBLE, &ca);
	canonical(b->text, b->op != WP_OP_COMPATIBLE, &cb);
	eq = ca.len == cb.len && memcmp(wp_buf_cstr(&ca), wp_buf_cstr(&cb), ca.len) == 0;
	wp_buf_free(&ca);
	wp_buf_free(&cb);
	return eq;
}

bool wp_specifier_prereleases(const struct wp_specifier *sp)
{
	/* packaging 24.2 raises InvalidVersion here for "===" with a non-version; that is false
	 * here */
	if (sp->op == WP_OP_NE || !sp->has_version)
		return false;
	return wp_version_is_prerelease(&sp->version);
}

/* packaging's _version_split: the epoch ("0" when absent), then the dot-separated parts, a
 * part like "0rc1" cut in two. Tokens point into text. */
struct tokens {
	struct wp_str *t;
	size_t n;
};

static bool is_digits(struct wp_str s)
{
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
	return true;
}

static void split(const char *text, struct tokens *tk)
{
	size_t n = strlen(text), bang = n, i;
	struct wp_str rest, item;

	tk->t = wp_xcalloc(2 * n + 4, sizeof(*tk->t));
	tk->n = 0;
	for (i = n; i > 0; i--)
		if (text[i - 1] == '!') {
			bang = i - 1;
			break;
		}
	if (bang == n || bang == 0) {
		tk->t[tk->n++] = WP_STR("0");
		rest = bang == n ? WP_STRN(text, n) : WP_STRN(text + 1, n - 1);
	} else {
		tk->t[tk->n++] = WP_STRN(text, bang);
		rest = WP_STRN(text + bang + 1, n - bang - 1);
	}
	for (;;) {
		bool last = memchr(rest.p, '.', rest.n) == NULL;
		item = wp_str_cut(&rest, '.');
		/* ^([0-9]+)((?:a|b|c|rc)[0-9]+)$ */
		size_t d = 0;
		while (d < item.n && item.p[d] >= '0' && item.p[d] <= '9')
			d++;
		size_t l = d;
		if (l < item.n && (item.p[l] == 'a' || item.p[l] == 'b' || item.p[l] == 'c'))
			l++;
		else if (l + 1 < item.n && item.p[l] == 'r' && item.p[l + 1] == 'c')
			l += 2;
		if (d > 0 && l > d && l < item.n && is_digits(WP_STRN(item.p + l, item.n - l))) {
			tk->t[tk->n++] = WP_STRN(item.p, d);
			tk->t[tk->n++] = WP_STRN(item.p + d, item.n - d);
		} else {
			tk->t[tk->n++] = item;
		}
		if (last)
			break;
	}
}

static bool tok_eq(struct wp_str a, struct wp_str b)
{
	return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

/* packaging's _compare_equal for "spec.*": pad the prospective release with zeros to the
 * spec's release length, cut it to the spec's length, compare part by part as text. */
static bool prefix_match(const struct wp_version *v, const char *spec_text)
{
	struct wp_buf pv = WP_BUF_INIT, ps = WP_BUF_INIT;
	struct tokens l, r;
	size_t lrel = 0, rrel = 0, pad, i;
	bool eq = true;

	wp_version_format_public(v, &pv);
	canonical(spec_text, false, &ps);
	split(wp_buf_cstr(&pv), &l);
	split(wp_buf_cstr(&ps), &r);
	while (lrel < l.n && is_digits(l.t[lrel]))
		lrel++;
	while (rrel < r.n && is_digits(r.t[rrel]))
		rrel++;
	pad = rrel > lrel ? rrel - lrel : 0;
	if (l.n + pad < r.n)
		eq = false;
	for (i = 0; eq && i < r.n; i++) {
		struct wp_str t;
		if (i < lrel)
			t = l.t[i];
		else if (i < lrel + pad)
			t = WP_STR("0");
		else
			t = l.t[i - pad];
		eq = tok_eq(t, r.t[i]);
	}
	free(l.t);
	free(r.t);
	wp_buf_free(&pv);
	wp_buf_free(&ps);
	return eq;
}

static bool starts(struct wp_str s, const char *p)
{
	return wp_str_startswith(s, p);
}

/* ~=X is >=X together with ==P.* where P is X's release without its last part. packaging
 * builds P from the text as written, so odd spellings ("~=1.0.C1", "~=v1.0") behave as there. */
static bool compatible(const struct wp_specifier *sp, const struct wp_version *v)
{
	struct tokens tk;
	struct wp_buf prefix = WP_BUF_INIT;
	size_t keep = 0;
	bool ok;

	if (wp_version_cmp_public(v, &sp->version) < 0)
		return false;
	split(sp->text, &tk);
	while (keep < tk.n &&
	       !(starts(tk.t[keep], "dev") || starts(tk.t[keep], "a") || starts(tk.t[keep], "b") ||
		 starts(tk.t[keep], "rc") || starts(tk.t[keep], "post")))
		keep++;
	if (keep > 0)
		keep--;
	if (keep == 0) {
		free(tk.t);
		return false; /* cannot happen: ~= needs two release parts */
	}
	wp_buf_printf(&prefix, "%.*s!", WP_STR_FMT(tk.t[0]));
	for (size_t i = 1; i < keep; i++)
		wp_buf_printf(&prefix, "%s%.*s", i > 1 ? "." : "", WP_STR_FMT(tk.t[i]));
	ok = prefix_match(v, wp_buf_cstr(&prefix));
	free(tk.t);
	wp_buf_free(&prefix);
	return ok;
}

static bool equal(const struct wp_specifier *sp, const struct wp_version *v)
{
	if (sp->wildcard) {
		char *t = wp_xstrndup(sp->text, strlen(sp->text) - 2);
		bool ok = prefix_match(v, t);
		free(t);
		return ok;
	}
	if (!wp_version_has_local(&sp->version))
		return wp_version_cmp_public(v, &sp->version) == 0;
	return wp_version_cmp(v, &sp->version) == 0;
}

/* ===: the candidate's text as written (packaging HEAD compares str(item).lower() for a string
 * item), so ===1.1 does not take 1.01; a version built without text compares its normal form. */
static bool arbitrary(const struct wp_specifier *sp, const struct wp_version *v)
{
	struct wp_buf b = WP_BUF_INIT;
	const char *t = v->text;
	size_t n;
	bool ok;
	if (!t) {
		wp_version_format(v, &b);
		t = wp_buf_cstr(&b);
	}
	n = strlen(t);
	ok = strlen(sp->text) == n && strncasecmp(sp->text, t, n) == 0;
	wp_buf_free(&b);
	return ok;
}

bool wp_specifier_contains(const struct wp_specifier *sp, const struct wp_version *v,
			   enum wp_prereleases pre)
{
	const struct wp_version *s = &sp->version;

	if (pre == WP_PRERELEASES_DEFAULT)
		pre = wp_specifier_prereleases(sp) ? WP_PRERELEASES_YES : WP_PRERELEASES_NO;
	if (pre != WP_PRERELEASES_YES && wp_version_is_prerelease(v))
		return false;
	switch (sp->op) {
	case WP_OP_COMPATIBLE:
		return compatible(sp, v);
	case WP_OP_EQ:
		return equal(sp, v);
	case WP_OP_NE:
		return !equal(sp, v);
	case WP_OP_LE:
		return wp_version_cmp_public(v, s) <= 0;
	case WP_OP_GE:
		return wp_version_cmp_public(v, s) >= 0;
	case WP_OP_LT: {
		/* packaging 26: <V is below V when V is a pre- or dev-release, else below V.dev0
		 * (no pre-release of V itself unless V names one, yet <1.0.post1 takes 1.0a1
		 * and 1.0.dev0) */
		struct wp_version bound = *s; /* borrows s's arrays; never released */
		if (!wp_version_is_prerelease(s)) {
			bound.has_dev = true;
			bound.dev = 0;
			bound.local = NULL;
		}
		return wp_version_cmp(v, &bound) < 0;
	}
	case WP_OP_GT:
		/* packaging 26 ("releases of the given version"): >V.devN starts at V.dev(N+1),
		 * >V.postN at V.post(N+1).dev0, and any other >V leaves out V's post family: V
		 * itself, V+local, V.postN (and V.postN.devM) of the same release and pre-release.
		 * So >1.0.dev1 takes 1.0.post0 and >1.0a1 takes 1.0.post1. Local builds of another
		 * release count (21.3-25.x refused 2.0.0+cu118 for >2.0.0rc1) */
		if (wp_version_cmp(v, s) <= 0 || wp_version_cmp_public(v, s) == 0)
			return false;
		if (s->has_dev || s->has_post)
			return true;
		return !(wp_version_cmp_base(v, s) == 0 && v->pre_kind == s->pre_kind &&
			 (s->pre_kind == WP_PRE_NONE || v->pre == s->pre));
	case WP_OP_ARBITRARY:
		return arbitrary(sp, v);
	}
	return false;
}

size_t wp_specifier_filter(const struct wp_specifier *sp, const struct wp_version *const *vs,
			   size_t n, enum wp_prereleases pre, bool *keep)
{
	size_t yielded = 0, stashed = 0;
	bool allow = pre == WP_PRERELEASES_YES ||
		     (pre == WP_PRERELEASES_DEFAULT && wp_specifier_prereleases(sp));

	for (size_t i = 0; i < n; i++) {
		keep[i] = false;
		if (!wp_specifier_contains(sp, vs[i],
					   pre == WP_PRERELEASES_DEFAULT ? WP_PRERELEASES_YES :
									   pre))
			continue;
		if (wp_version_is_prerelease(vs[i]) && !allow) {
			stashed++;
			continue;
		}
		keep[i] = true;
		yielded++;
	}
	if (yielded || !stashed)
		return yielded;
	/* nothing else matched: the pre-releases set aside are yielded after all */
	for (size_t i = 0; i < n; i++)
		keep[i] = wp_specifier_contains(sp, vs[i], WP_PRERELEASES_YES);
	return stashed;
}

int wp_specset_parse(struct wp_specset *set, const char *s, size_t n, struct wp_err *err)
{
	struct wp_str rest = WP_STRN(s, n);
	char name[80];
	size_t cap = 0;
	int rc = 0;

	memset(set, 0, sizeof(*set));
	set->prereleases = WP_PRERELEASES_DEFAULT;
	shown(name, sizeof(name), s, n);
	if (n > WP_SPECSET_MAX_LEN)
		return wp_fail(err, -WPE_TOO_BIG, "specifier set '%s' is longer than %d bytes",
			       name, WP_SPECSET_MAX_LEN);
	while (rest.n) {
		struct wp_str item = strip(wp_str_cut(&rest, ','));
		struct wp_specifier sp;
		bool dup = false;
		if (!item.n)
			continue;
		if ((rc = wp_specifier_parse(&sp, item.p, item.n, err)) < 0)
			goto out;
		for (size_t i = 0; i < set->n && !dup; i++)
			dup = wp_specifier_eq(&set->specs[i], &sp);
		if (dup) {
			wp_specifier_release(&sp);
			continue;
		}
		wp_vec_push_fields(set->specs, set->n, cap, sp);
	}
out:
	if (rc < 0)
		wp_specset_release(set);
	return rc;
}

void wp_specset_release(struct wp_specset *set)
{
	for (size_t i = 0; i < set->n; i++)
		wp_specifier_release(&set->specs[i]);
	free(set->specs);
	set->specs = NULL;
	set->n = 0;
	set->prereleases = WP_PRERELEASES_DEFAULT;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int wp_specset_format(const struct wp_specset *set, struct wp_buf *out)
{
	char **texts = wp_xcalloc(set->n + 1, sizeof(*texts));
	int bad = 0;
	for (size_t i = 0; i < set->n; i++)
		texts[i] = wp_xasprintf("%s%s", op_text(set->specs[i].op), set->specs[i].text);
	qsort(texts, set->n, sizeof(*texts), cmp_str);
	for (size_t i = 0; i < set->n; i++) {
		bad |= wp_buf_printf(out, "%s%s", i ? "," : "", texts[i]);
		free(texts[i]);
	}
	free(texts);
	return bad ? wp_fail(NULL, -WPE_TOO_BIG, "specifier set text over the buffer's ceiling") :
		     0;
}

enum wp_prereleases wp_specset_prereleases(const struct wp_specset *set)
{
	if (set->prereleases != WP_PRERELEASES_DEFAULT)
		return set->prereleases;
	if (!set->n)
		return WP_PRERELEASES_DEFAULT;
	for (size_t i = 0; i < set->n; i++)
		if (wp_specifier_prereleases(&set->specs[i]))
			return WP_PRERELEASES_YES;
	return WP_PRERELEASES_NO;
}

bool wp_specset_contains(const struct wp_specset *set, const struct wp_version *v,
			 enum wp_prereleases pre)
{
	if (pre == WP_PRERELEASES_DEFAULT)
		pre = wp_specset_prereleases(set);
	if (pre != WP_PRERELEASES_YES && wp_version_is_prerelease(v))
		return false;
	for (size_t i = 0; i < set->n; i++)
		if (!wp_specifier_contains(&set->specs[i], v, pre))
			return false;
	return true;
}

size_t wp_specset_filter(const struct wp_specset *set, const struct wp_version *const *vs, size_t n,
			 enum wp_prereleases pre, bool *keep)
{
	size_t kept = 0, finals = 0;

	/* packaging HEAD (26): the call's answer, else the set's own, else YES when a specifier
	 * names a pre-release, else PEP 440's rule: "accept pre-releases when no final release
	 * satisfies the specifiers" (SpecifierSet(">=1.2.3").filter(["1.2", "1.5a1"]) is ["1.5a1"];
	 * 24.2 gave []) */
	if (pre == WP_PRERELEASES_DEFAULT)
		pre = set->prereleases;
	if (pre == WP_PRERELEASES_DEFAULT)
		for (size_t j = 0; j < set->n && pre == WP_PRERELEASES_DEFAULT; j++)
			if (wp_specifier_prereleases(&set->specs[j]))
				pre = WP_PRERELEASES_YES;
	for (size_t i = 0; i < n; i++) {
		keep[i] = pre != WP_PRERELEASES_NO || !wp_version_is_prerelease(vs[i]);
		for (size_t j = 0; j < set->n && keep[i]; j++)
			keep[i] = wp_specifier_contains(&set->specs[j], vs[i], WP_PRERELEASES_YES);
		finals += keep[i] && !wp_version_is_prerelease(vs[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (keep[i] && pre == WP_PRERELEASES_DEFAULT && finals &&
		    wp_version_is_prerelease(vs[i]))
			keep[i] = false; /* a final release matched: pre-releases are not needed */
		kept += keep[i];
	}
	return kept;
}
