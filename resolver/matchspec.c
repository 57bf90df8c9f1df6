/* resolver/matchspec.c: conda's MatchSpec and VersionSpec (conda/models/match_spec.py, version.py)
 * in C. */
#include "resolver/matchspec.h"

#include <ctype.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/url.h"
#include "base/vec.h"
#include "resolver/condaver.h"

#define VSPEC_MAX_DEPTH 32   /* parentheses nested deeper are refused */
#define LIST_MAX_ENTRIES 4096

enum vop {
	V_ANY = 0,
	V_EQ,
	V_NE,
	V_LT,
	V_LE,
	V_GT,
	V_GE,
	V_STARTS,      /* 1.8.* and =1.8: the version's components begin with the operand's */
	V_NOT_STARTS,  /* !=1.8.* */
	V_COMPAT,      /* ~=1.4.5: >=1.4.5 and starts with 1.4 */
	V_GLOB,        /* 1.*.3: a glob over the version text */
	V_REGEX,       /* ^...$ over the version text */
	V_EXACT,       /* has '@': the text itself */
	V_AND,
	V_OR,
};

WP_VEC_OF(vspecs, struct wp_vspec);

struct wp_vspec {
	enum vop op;
	struct wp_condaver v;   /* operand for comparisons */
	struct wp_condaver pre; /* V_COMPAT: the operand without its last component */
	char *text;             /* V_GLOB / V_REGEX / V_EXACT pattern */
	regex_t *re;
	struct vspecs kids;     /* V_AND / V_OR */
};

static void vspec_release(struct wp_vspec *s)
{
	for (size_t i = 0; i < s->kids.n; i++)
		vspec_release(&s->kids.v[i]);
	wp_vec_free(&s->kids);
	wp_condaver_release(&s->v);
	wp_condaver_release(&s->pre);
	free(s->text);
	if (s->re) {
		regfree(s->re);
		free(s->re);
	}
	memset(s, 0, sizeof(*s));
}

/* ---- globs ---- */

/* '*' matches any run (also empty); everything else is literal. Iterative, so a hostile pattern
 * costs O(n*m) at worst and never recursion. */
static bool glob_match(const char *pat, const char *s, bool fold)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat &&
			   (fold ? tolower((unsigned char)*pat) == tolower((unsigned char)*s) :
				   *pat == *s)) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

static regex_t *regex_compile(const char *rx)
{
	regex_t *re = wp_xmalloc(sizeof(*re));
	if (regcomp(re, rx, REG_EXTENDED | REG_NOSUB) != 0) {
		free(re);
		return NULL;
	}
	return re;
}

/* ---- VersionOrder.startswith, which condaver.h does not offer ---- */

static const struct wp_condaver_atom zero_atom = { WP_CONDAVER_NUM, "", 0 };

/* The same equality as condaver.c's order (kept in step with it): numbers by value, strings by
 * bytes, "post" equal only to itself. */
static bool atom_eq(const struct wp_condaver_atom *x, const struct wp_condaver_atom *y)
{
	return x->kind == y->kind &&
	       (x->kind == WP_CONDAVER_INF || (x->n == y->n && !memcmp(x->p, y->p, x->n)));
}

static const struct wp_condaver_atom *atom_at(const struct wp_condaver *v, size_t comp, size_t j)
{
	return j < v->comps[comp][1] ? &v->atoms[v->comps[comp][0] + j] : &zero_atom;
}

/* Components [a0, a0+an) of a against [b0, b0+bn) of b, missing ones empty, missing atoms 0;
 * only the first `atoms` atoms of each pair when atoms != SIZE_MAX. */
static bool comps_eq(const struct wp_condaver *a, size_t a0, size_t an, const struct wp_condaver *b,
		     size_t b0, size_t bn, size_t count, size_t atoms)
{
	for (size_t i = 0; i < count; i++) {
		size_t al = i < an ? a->comps[a0 + i][1] : 0, bl = i < bn ? b->comps[b0 + i][1] : 0;
		size_t na = al > bl ? al : bl;
		if (atoms != SIZE_MAX && na > atoms)
			na = atoms;
		for (size_t j = 0; j < na; j++) {
			const struct wp_condaver_atom *x = i < an ? atom_at(a, a0 + i, j) :
								    &zero_atom;
			const struct wp_condaver_atom *y = i < bn ? atom_at(b, b0 + i, j) :
								    &zero_atom;
			if (!atom_eq(x, y))
				return false;
		}
	}
	return true;
}

static bool condaver_startswith(const struct wp_condaver *x, const struct wp_condaver *y)
{
	size_t x0, xn, y0, yn;
	if (y->n_local) {
		size_t nv = x->n_version > y->n_version ? x->n_version : y->n_version;
		if (!comps_eq(x, 0, x->n_version, y, 0, y->n_version, nv, SIZE_MAX))
			return false;
		x0 = x->n_version, xn = x->n_local, y0 = y->n_version, yn = y->n_local;
	} else {
		x0 = 0, xn = x->n_version, y0 = 0, yn = y->n_version;
	}
	if (!yn)
		return true;
	size_t nt = yn - 1;
	if (!comps_eq(x, x0, xn < nt ? xn : nt, y, y0, nt, nt, SIZE_MAX))
		return false;
	/* the last component of y: all its atoms but the last equal, the last a prefix (strings) or
	 * equal */
	size_t ylast = y0 + nt, ylen = y->comps[ylast][1];
	bool have_x = xn > nt;
	size_t xlast = x0 + nt, xlen = have_x ? x->comps[xlast][1] : 0;
	if (!ylen)
		return true;
	for (size_t j = 0; j + 1 < ylen; j++) {
		const struct wp_condaver_atom *a = j < xlen ? atom_at(x, xlast, j) : &zero_atom;
		if (!atom_eq(a, atom_at(y, ylast, j)))
			return false;
	}
	const struct wp_condaver_atom *c1 = ylen - 1 < xlen ? atom_at(x, xlast, ylen - 1) :
							      &zero_atom;
	const struct wp_condaver_atom *c2 = atom_at(y, ylast, ylen - 1);
	if (c2->kind == WP_CONDAVER_STR)
		return c1->kind == WP_CONDAVER_STR && c1->n >= c2->n &&
		       !memcmp(c1->p, c2->p, c2->n);
	return atom_eq(c1, c2);
}

/* ---- VersionSpec ---- */

struct vparse {
	const char *spec;    /* the whole MatchSpec, for messages */
	const char *text;    /* its version part */
	struct wp_err *err;
};

static int vfail(struct vparse *vp, const char *why, struct wp_str leaf)
{
	return wp_fail(vp->err, -WPE_PARSE, "conda spec '%s': %s '%.*s'", vp->spec, why,
		       WP_STR_FMT(leaf));
}

static int parse_operand(struct vparse *vp, struct wp_str leaf, const char *p, size_t n,
			 struct wp_condaver *out)
{
	char *t = wp_xstrndup(p, n);
	struct wp_err e = WP_ERR_INIT;
	int rc = wp_condaver_parse(t, out, &e);
	free(t);
	if (rc < 0)
		return vfail(vp, "invalid version in", leaf);
	return 0;
}

static int parse_leaf(struct vparse *vp, struct wp_str leaf, struct wp_vspec *s)
{
	const char *p = leaf.p;
	size_t n = leaf.n;
	if (!n)
		return vfail(vp, "empty version in", WP_STR(vp->text));
	if (p[0] == '^' || p[n - 1] == '$') {
		if (p[0] != '^' || p[n - 1] != '$' || n < 2)
			return vfail(vp,
				     "a version regex must start with '^' and end with '$':", leaf);
		s->op = V_REGEX;
		s->text = wp_xstrndup(p, n);
		if (!(s->re = regex_compile(s->text)))
			return vfail(vp, "version regex does not compile:", leaf);
		return 0;
	}
	if (strchr("=<>!~", p[0])) {
		static const struct {
			const char *s;
			enum vop op;
		} ops[] = { { "==", V_EQ },     { "!=", V_NE },    { "<=", V_LE }, { ">=", V_GE },
			    { "~=", V_COMPAT }, { "=", V_STARTS }, { "<", V_LT },  { ">", V_GT } };
		size_t k, on = 0;
		for (k = 0; k < WP_ARRAY_LEN(ops); k++) {
			on = strlen(ops[k].s);
			if (n >= on && !memcmp(p, ops[k].s, on))
				break;
		}
		if (k == WP_ARRAY_LEN(ops) || on == n || strchr("=<>!~", p[on]))
			return vfail(vp, "invalid operator in", leaf);
		for (size_t i = on; i < n; i++)
			if (isspace((unsigned char)p[i]))
				return vfail(vp, "space after the operator in", leaf);
		enum vop op = ops[k].op;
		const char *vo = p + on;
		size_t vn = n - on;
		if (vn >= 2 && vo[vn - 2] == '.' && vo[vn - 1] == '*') {
			/* conda: =1.8.* and >=1.8.* drop it, !=1.8.* excludes the series, ~=
			 * refuses it, and
			 * <, <=, >, == drop it with a deprecation warning */
			if (op == V_COMPAT)
				return vfail(vp, "'~=' cannot take '.*' in", leaf);
			if (op == V_NE)
				op = V_NOT_STARTS;
			vn -= 2;
		}
		if (!vn)
			return vfail(vp, "operator without a version in", leaf);
		s->op = op;
		if (parse_operand(vp, leaf, vo, vn, &s->v) < 0)
			return -WPE_PARSE;
		if (op == V_COMPAT) {
			const char *dot = memrchr(vo, '.', vn);
			/* ~=N with one part: conda's parser takes it and then fails on every match
			 * (it cuts the last part and reads what is left, "", as a version);
			 * rattler, pixi's library, reads it as >=N, and so does wheelpick (README:
			 * conda) */
			if (!dot) {
				s->op = V_GE;
				return 0;
			}
			if (dot == vo)
				return vfail(vp, "'~=' needs a version before its last '.' in",
					     leaf);
			if (parse_operand(vp, leaf, vo, (size_t)(dot - vo), &s->pre) < 0)
				return -WPE_PARSE;
		}
		return 0;
	}
	if (n == 1 && p[0] == '*') {
		s->op = V_ANY;
		return 0;
	}
	size_t body = n;
	while (body && p[body - 1] == '*')
		body--;
	if (memchr(p, '*', body)) {
		s->op = V_GLOB;
		s->text = wp_xstrndup(p, n);
		return 0;
	}
	if (body < n) {
		/* 1.8* and 1.8.* are the same prefix match */
		while (body && p[body - 1] == '.')
			body--;
		if (!body)
			return vfail(vp, "pattern with no version in", leaf);
		s->op = V_STARTS;
		return parse_operand(vp, leaf, p, body, &s->v);
	}
	if (memchr(p, '@', n)) {
		s->op = V_EXACT;
		s->text = wp_xstrndup(p, n);
		return 0;
	}
	s->op = V_EQ;
	return parse_operand(vp, leaf, p, n, &s->v);
}

struct vlex {
	struct vparse *vp;
	const char *p, *end;
	int depth;
};

static void vskip(struct vlex *lx)
{
	while (lx->p < lx->end && isspace((unsigned char)*lx->p))
		lx->p++;
}

static int parse_or(struct vlex *lx, struct wp_vspec *out);

static void add_kid(struct wp_vspec *parent, struct wp_vspec *kid)
{
	wp_vec_push(&parent->kids, *kid);
	memset(kid, 0, sizeof(*kid));
}

/* '(' or_expr ')' | leaf; a leaf runs to the next '(', ')', '|' or ','; a regex to its '$'. */
static int parse_primary(struct vlex *lx, struct wp_vspec *out)
{
	vskip(lx);
	if (lx->p < lx->end && *lx->p == '(') {
		if (++lx->depth > VSPEC_MAX_DEPTH)
			return vfail(lx->vp, "parentheses nested too deeply in",
				     WP_STR(lx->vp->text));
		lx->p++;
		int rc = parse_or(lx, out);
		if (rc < 0)
			return rc;
		vskip(lx);
		if (lx->p >= lx->end || *lx->p != ')')
			return vfail(lx->vp, "unclosed '(' in", WP_STR(lx->vp->text));
		lx->p++;
		lx->depth--;
		return 0;
	}
	const char *b = lx->p;
	if (lx->p < lx->end && *lx->p == '^') {
		const char *dollar = memchr(lx->p, '$', (size_t)(lx->end - lx->p));
		lx->p = dollar ? dollar + 1 : lx->end;
	} else {
		while (lx->p < lx->end && !strchr("()|,", *lx->p))
			lx->p++;
	}
	struct wp_str leaf = wp_str_trim(WP_STRN(b, (size_t)(lx->p - b)));
	return parse_leaf(lx->vp, leaf, out);
}

static int parse_list(struct vlex *lx, struct wp_vspec *out, char sep, enum vop op)
{
	struct wp_vspec first = { 0 }, next = { 0 };
	int rc = sep == ',' ? parse_primary(lx, &first) : parse_list(lx, &first, ',', V_AND);
	if (rc < 0)
		goto fail;
	vskip(lx);
	if (lx->p >= lx->end || *lx->p != sep) {
		*out = first;
		return 0;
	}
	out->op = op;
	add_kid(out, &first);
	while (lx->p < lx->end && *lx->p == sep) {
		lx->p++;
		rc = sep == ',' ? parse_primary(lx, &next) : parse_list(lx, &next, ',', V_AND);
		if (rc < 0)
			goto fail;
		add_kid(out, &next);
		vskip(lx);
	}
	return 0;
fail:
	vspec_release(&first);
	vspec_release(&next);
	vspec_release(out);
	return rc;
}

static int parse_or(struct vlex *lx, struct wp_vspec *out)
{
	return parse_list(lx, out, '|', V_OR);
}

static int vspec_parse(const char *spec, const char *text, struct wp_vspec **out,
		       struct wp_err *err)
{
	struct vparse vp = { spec, text, err };
	struct vlex lx = { &vp, text, text + strlen(text), 0 };
	struct wp_vspec *s = wp_xcalloc(1, sizeof(*s));
	int rc = parse_or(&lx, s);
	if (!rc) {
		vskip(&lx);
		if (lx.p < lx.end)
			rc = vfail(&vp, "unexpected character in version", WP_STR(text));
	}
	if (rc < 0) {
		vspec_release(s);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* v: the record's version parsed (v_ok false when conda would refuse it); text: as written */
static bool vspec_match(const struct wp_vspec *s, const struct wp_condaver *v, bool v_ok,
			const char *text)
{
	switch (s->op) {
	case V_ANY:
		return true;
	case V_AND:
		for (size_t i = 0; i < s->kids.n; i++)
			if (!vspec_match(&s->kids.v[i], v, v_ok, text))
				return false;
		return true;
	case V_OR:
		for (size_t i = 0; i < s->kids.n; i++)
			if (vspec_match(&s->kids.v[i], v, v_ok, text))
				return true;
		return false;
	case V_GLOB:
		return glob_match(s->text, text, false);
	case V_REGEX:
		return regexec(s->re, text, 0, NULL, 0) == 0;
	case V_EXACT:
		return !strcmp(s->text, text);
	default:
		break;
	}
	if (!v_ok)
		return false;
	int c = wp_condaver_order(v, &s->v);
	switch (s->op) {
	case V_EQ:
		return c == 0;
	case V_NE:
		return c != 0;
	case V_LT:
		return c < 0;
	case V_LE:
		return c <= 0;
	case V_GT:
		return c > 0;
	case V_GE:
		return c >= 0;
	case V_STARTS:
		return condaver_startswith(v, &s->v);
	case V_NOT_STARTS:
		return !condaver_startswith(v, &s->v);
	case V_COMPAT:
		return c >= 0 && condaver_startswith(v, &s->pre);
	default:
		return false;
	}
}

/* The operand of the lowest bound, or NULL when the expression has none. */
static const struct wp_condaver *vspec_floor(const struct wp_vspec *s)
{
	const struct wp_condaver *best = NULL;
	switch (s->op) {
	case V_EQ:
	case V_GE:
	case V_GT:
	case V_STARTS:
	case V_COMPAT:
		return &s->v;
	case V_AND:
		/* every part must hold: the highest of the floors */
		for (size_t i = 0; i < s->kids.n; i++) {
			const struct wp_condaver *f = vspec_floor(&s->kids.v[i]);
			if (f && (!best || wp_condaver_order(f, best) > 0))
				best = f;
		}
		return best;
	case V_OR:
		/* any part may hold: the lowest, and none when one part is unbounded below */
		for (size_t i = 0; i < s->kids.n; i++) {
			const struct wp_condaver *f = vspec_floor(&s->kids.v[i]);
			if (!f)
				return NULL;
			if (!best || wp_condaver_order(f, best) < 0)
				best = f;
		}
		return best;
	default:
		return NULL;
	}
}

/* ---- MatchSpec ---- */

static const char *const known_subdirs[] = {
	"noarch",        "linux-64",     "linux-32",
	"linux-aarch64", "linux-armv6l", "linux-armv7l",
	"linux-ppc64le", "linux-ppc64",  "linux-s390x",
	"linux-riscv64", "osx-64",       "osx-arm64",
	"win-64",        "win-32",       "win-arm64",
	"zos-z",         "freebsd-64",   "emscripten-wasm32",
	"wasi-wasm32",
};

static bool is_subdir(struct wp_str s)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(known_subdirs); i++)
		if (wp_str_eq(s, known_subdirs[i]))
			return true;
	return false;
}

static bool cep26_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool cep26_sep(char c)
{
	return c == '.' || c == '-' || c == '_';
}

/* CEP 26's tail, ([a-z0-9]+(\.|-|_|$))*$: runs of letters and digits, one separator apiece */
static bool cep26_tail(const char *p)
{
	while (*p) {
		if (!cep26_alnum(*p))
			return false;
		while (cep26_alnum(*p))
			p++;
		if (*p && !cep26_sep(*p++))
			return false;
	}
	return true;
}

/* conda's _validate_package_name (CEP 26) on a lower-cased name; a glob is not checked beyond its
 * characters. ^(([a-z0-9])|([a-z0-9_](?!_)))[._-]?TAIL, or a virtual ^__[a-z0-9][._-]?TAIL */
static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!(cep26_alnum(*p) || strchr("-_.*", *p)))
			return false;
	if (strchr(s, '*'))
		return true;
	const char *p = s;
	if (p[0] == '_' && p[1] == '_') {
		if (!cep26_alnum(p[2]))
			return false;
		p += 3;
	} else {
		if (!cep26_alnum(p[0]) && p[0] != '_')
			return false;
		p++;
	}
	if (cep26_sep(*p))
		p++;
	return cep26_tail(p);
}

static char *lower_dup(struct wp_str s)
{
	char *d = wp_xstrndup(s.p, s.n);
	for (char *p = d; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return d;
}

static void set_str(char **slot, struct wp_str v)
{
	free(*slot);
	*slot = wp_xstrndup(v.p, v.n);
}

static int parse_bnum(const char *spec, struct wp_str v, struct wp_matchspec *m, struct wp_err *err)
{
	static const struct {
		const char *s;
		enum wp_bnum_op op;
	} ops[] = { { "==", WP_BNUM_EQ }, { "!=", WP_BNUM_NE }, { "<=", WP_BNUM_LE },
		    { ">=", WP_BNUM_GE }, { "=", WP_BNUM_EQ },  { "<", WP_BNUM_LT },
		    { ">", WP_BNUM_GT } };
	v = wp_str_trim(v);
	if (wp_str_eq(v, "*")) {
		m->bnum_op = WP_BNUM_ANY;
		return 0;
	}
	enum wp_bnum_op op = WP_BNUM_EQ;
	for (size_t i = 0; i < WP_ARRAY_LEN(ops); i++) {
		if (wp_str_startswith(v, ops[i].s)) {
			op = ops[i].op;
			v.p += strlen(ops[i].s);
			v.n -= strlen(ops[i].s);
			break;
		}
	}
	if (!wp_str_to_ll(v, &m->bnum))
		return wp_fail(err, -WPE_PARSE,
			       "conda spec '%s': build_number '%.*s' is not a number", spec,
			       WP_STR_FMT(v));
	m->bnum_op = op;
	return 0;
}

/* [key=value, key='value', key="v a l"]: the keys wheelpick matches on override the spec's
 * parts. */
static int parse_brackets(const char *spec, struct wp_str in, struct wp_matchspec *m,
			  struct wp_err *err)
{
	const char *p = in.p, *end = in.p + in.n;
	for (;;) {
		while (p < end && (*p == ',' || *p == ' '))
			p++;
		if (p >= end)
			return 0;
		const char *k = p;
		while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
			p++;
		struct wp_str key = WP_STRN(k, (size_t)(p - k));
		if (!key.n || p >= end || *p != '=')
			return wp_fail(err, -WPE_PARSE,
				       "conda spec '%s': brackets need key=value pairs", spec);
		p++;
		struct wp_str val;
		if (p < end && (*p == '\'' || *p == '"')) {
			const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
			if (!q)
				return wp_fail(err, -WPE_PARSE,
					       "conda spec '%s': unclosed quote in brackets", spec);
			val = WP_STRN(p + 1, (size_t)(q - p - 1));
			p = q + 1;
			if (p < end && *p != ',' && *p != ' ')
				return wp_fail(err, -WPE_PARSE,
					       "conda spec '%s': brackets need key=value pairs",
					       spec);
		} else {
			const char *v = p;
			while (p < end && *p != ',' && *p != ' ')
				p++;
			val = WP_STRN(v, (size_t)(p - v));
		}
		if (!val.n)
			return wp_fail(err, -WPE_PARSE,
				       "conda spec '%s': key '%.*s' has no value in brackets", spec,
				       WP_STR_FMT(key));
		if (wp_str_eq(key, "version")) {
			set_str(&m->version_text, val);
		} else if (wp_str_eq(key, "build")) {
			set_str(&m->build, val);
		} else if (wp_str_eq(key, "build_number")) {
			int rc = parse_bnum(spec, val, m, err);
			if (rc < 0)
				return rc;
		} else if (wp_str_eq(key, "subdir")) {
			set_str(&m->subdir, val);
		} else if (wp_str_eq(key, "channel")) {
			/* "pytorch/linux-64" names both */
			struct wp_str sub = val, chan = wp_str_rcut(&sub, '/');
			if (sub.n && is_subdir(sub)) {
				set_str(&m->subdir, sub);
				set_str(&m->channel, chan);
			} else {
				set_str(&m->channel, val);
			}
		}
		else if (wp_str_eq(key, "track_features")) {
			set_str(&m->track_features, val);
		} else {
			/* conda's MatchSpec.FIELD_NAMES: the rest are accepted and not matched
			 * on */
			static const char *const fields[] = {
				"name",           "features", "url",  "md5",    "sha256", "license",
				"license_family", "fn",       "when", "extras", "flags"
			};
			bool known = false;
			for (size_t i = 0; i < WP_ARRAY_LEN(fields) && !known; i++)
				known = wp_str_eq(key, fields[i]);
			if (!known)
				return wp_fail(err, -WPE_PARSE,
					       "conda spec '%s': conda cannot match on the field '%.*s'",
					       spec, WP_STR_FMT(key));
		}
	}
}

/* conda's _parse_version_plus_build: the build is the last run after a space or '=' that is not
 * itself after an operator, and holds none of -=,|<>~. The version keeps no spaces. */
static void split_version_build(struct wp_str s, struct wp_str *ver, struct wp_str *build)
{
	*build = WP_STRN(NULL, 0);
	for (size_t k = 1; k + 1 < s.n; k++) {
		if ((s.p[k] != ' ' && s.p[k] != '=') || strchr("=!|,<>~", s.p[k - 1]))
			continue;
		bool ok = true;
		for (size_t j = k + 1; j < s.n && ok; j++)
			ok = !strchr("-=,|<>~", s.p[j]);
		if (!ok)
			continue;
		struct wp_str b = wp_str_trim(WP_STRN(s.p + k + 1, s.n - k - 1));
		if (!b.n)
			continue;
		*ver = WP_STRN(s.p, k);
		*build = b;
		return;
	}
	*ver = s;
}

static char *without_spaces(struct wp_str s)
{
	char *d = wp_xmalloc(s.n + 1), *o = d;
	for (size_t i = 0; i < s.n; i++)
		if (s.p[i] != ' ' && s.p[i] != '\t')
			*o++ = s.p[i];
	*o = 0;
	return d;
}

static bool ends_with_pkg_ext(struct wp_str s)
{
	return wp_str_endswith(s, ".tar.bz2") || wp_str_endswith(s, ".conda");
}

/* conda's Channel(url).canonical_name for a package URL's directory: the anaconda.org channels
 * by name, the default channels as "defaults", any other as its URL. dir is decoded, without
 * the subdir. */
static char *channel_name(struct wp_str dir)
{
	static const char *const hosts[] = { "https://conda.anaconda.org/",
					     "http://conda.anaconda.org/", "https://anaconda.org/",
					     "http://anaconda.org/" };
	static const char *const defaults[] = { "https://repo.anaconda.com/pkgs/main",
						"https://repo.anaconda.com/pkgs/r",
						"https://repo.anaconda.com/pkgs/msys2" };
	for (size_t i = 0; i < WP_ARRAY_LEN(defaults); i++)
		if (wp_str_eq(dir, defaults[i]))
			return wp_xstrdup("defaults");
	for (size_t i = 0; i < WP_ARRAY_LEN(hosts); i++) {
		size_t hl = strlen(hosts[i]);
		if (dir.n > hl && !strncmp(dir.p, hosts[i], hl) &&
		    !memchr(dir.p + hl, '/', dir.n - hl))
			return wp_xstrndup(dir.p + hl, dir.n - hl);
	}
	return wp_xstrndup(dir.p, dir.n);
}

/* pkgs/numpy-1.8.0-py38_0.tar.bz2 or a URL to one: exactly that record; a URL's channel and
 * subdir kept where its directory is a subdir, as conda's _parse_spec_str does. */
static int parse_pkg_file(const char *spec, struct wp_str s, struct wp_matchspec *m,
			  struct wp_err *err)
{
	char *decoded = NULL;
	int rc = 0;
	if (memmem(s.p, s.n, "://", 3)) {
		/* conda reads a URL's file name percent-decoded: x264-1%21164.3095 is version
		 * 1!164.3095 */
		struct wp_err sub = WP_ERR_INIT;
		if (wp_url_decode(s.p, s.n, &decoded, &sub) < 0)
			return wp_fail(err, -WPE_PARSE, "conda spec '%s': %s", spec, sub.msg);
		s = WP_STR(decoded);
	}
	struct wp_str base = s, dir = wp_str_rcut(&base, '/');
	if (!base.n)
		base = s;
	base.n -= wp_str_endswith(base, ".conda") ? 6 : 8;
	/* rcut returns what comes before the last '-' and leaves what follows in its argument */
	struct wp_str build = base, name_ver = wp_str_rcut(&build, '-');
	struct wp_str ver = name_ver, name = wp_str_rcut(&ver, '-');
	if (!name.n || !ver.n || !build.n) {
		rc = wp_fail(err, -WPE_PARSE,
			     "conda spec '%s': package file is not name-version-build", spec);
		goto out;
	}
	m->name = lower_dup(name);
	m->version_text = wp_xasprintf("==%.*s", WP_STR_FMT(ver));
	m->build = wp_xstrndup(build.p, build.n);
	if (decoded && dir.n) {
		struct wp_str sub = dir, chan = wp_str_rcut(&sub, '/');
		if (chan.n && sub.n && is_subdir(sub)) {
			m->subdir = wp_xstrndup(sub.p, sub.n);
			m->channel = channel_name(chan);
		}
	}
out:
	free(decoded);
	return rc;
}

void wp_matchspec_release(struct wp_matchspec *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->channel);
	free(m->subdir);
	free(m->version_text);
	if (m->version) {
		vspec_release(m->version);
		free(m->version);
	}
	free(m->build);
	free(m->track_features);
	memset(m, 0, sizeof(*m));
}

int wp_matchspec_parse(const char *in, struct wp_matchspec *m, struct wp_err *err)
{
	int rc = 0;
	char *buf = NULL;
	memset(m, 0, sizeof(*m));
	if (!in || !*in)
		return wp_fail(err, -WPE_PARSE, "empty conda spec");
	size_t len = strlen(in);
	if (len > WP_MATCHSPEC_MAX)
		return wp_fail(err, -WPE_PARSE, "conda spec '%.40s...' is longer than %d bytes", in,
			       WP_MATCHSPEC_MAX);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)in[i] < 0x20 && in[i] != '\t')
			return wp_fail(err, -WPE_PARSE,
				       "conda spec '%.60s' has a control character", in);
	buf = wp_xstrdup(in);
	struct wp_str s = WP_STR(buf);

	/* conda's "pre-step for ugly backward compat": "mkl@" is *[track_features=mkl] */
	if (len > 1 && in[len - 1] == '@' && !strpbrk(in, " [#")) {
		m->name = wp_xstrdup("*");
		m->track_features = wp_xstrndup(in, len - 1);
		goto out;
	}

	/* step 1: '#' comments and ' if ' conditions go */
	char *hash = strchr(buf, '#');
	if (hash)
		s.n = (size_t)(hash - buf);
	const char *cond = strstr(buf, " if ");
	if (cond && (size_t)(cond - buf) < s.n)
		s.n = (size_t)(cond - buf);
	s = wp_str_trim(s);
	if (!s.n) {
		rc = wp_fail(err, -WPE_PARSE, "conda spec '%s' is empty", in);
		goto out;
	}

	/* step 2: a package file */
	if (ends_with_pkg_ext(s) && !memchr(s.p, ' ', s.n)) {
		rc = parse_pkg_file(in, s, m, err);
		goto compile;
	}

	/* step 3: the last [...] section */
	char *lb = NULL, *rb = NULL;
	for (size_t i = s.n; i-- > 0;) {
		if (!rb && s.p[i] == ']')
			rb = (char *)s.p + i;
		if (rb && s.p[i] == '[') {
			lb = (char *)s.p + i;
			break;
		}
	}
	if (lb) {
		/* parse the section before cutting it out, so bracket keys override (applied
		 * later) */
		struct wp_str inner = WP_STRN(lb + 1, (size_t)(rb - lb - 1));
		struct wp_matchspec br = { 0 };
		if ((rc = parse_brackets(in, inner, &br, err)) < 0) {
			wp_matchspec_release(&br);
			goto out;
		}
		memmove(lb, rb + 1, (size_t)(s.p + s.n - (rb + 1)));
		s.n -= (size_t)(rb + 1 - lb);
		m->channel = br.channel;
		m->subdir = br.subdir;
		m->version_text = br.version_text; /* held until the main part is read, then
						      re-applied */
		m->build = br.build;
		m->bnum_op = br.bnum_op;
		m->bnum = br.bnum;
		m->track_features = br.track_features;
	}
	if (memchr(s.p, '[', s.n) || memchr(s.p, ']', s.n)) {
		rc = wp_fail(err, -WPE_PARSE, "conda spec '%s' has more than one brackets section",
			     in);
		goto out;
	}

	/* step 4: "(optional)" and other parenthesised keys after the name (conda drops them) */
	char *lp = memchr(s.p, '(', s.n);
	if (lp && lp > s.p) {
		char *rp = NULL;
		for (size_t i = s.n; i-- > (size_t)(lp - s.p);)
			if (s.p[i] == ')') {
				rp = (char *)s.p + i;
				break;
			}
		struct wp_str inner = rp ? WP_STRN(lp + 1, (size_t)(rp - lp - 1)) : WP_STRN(lp, 0);
		/* only the (optional) / (key=value) form: a version expression keeps its
		 * parentheses */
		if (rp && (memmem(inner.p, inner.n, "optional", 8) ||
			   memmem(inner.p, inner.n, "target=", 7))) {
			m->optional = memmem(inner.p, inner.n, "optional", 8) != NULL;
			memmove(lp, rp + 1, (size_t)(s.p + s.n - (rp + 1)));
			s.n -= (size_t)(rp + 1 - lp);
			s = wp_str_trim(s);
		}
	}

	/* step 5: channel[/subdir]::name (conda's rsplit(':', 2)) */
	{
		const char *c2 = memrchr(s.p, ':', s.n);
		if (c2) {
			const char *c1 = c2 > s.p ? memrchr(s.p, ':', (size_t)(c2 - s.p)) : NULL;
			struct wp_str chan = c1 ? WP_STRN(s.p, (size_t)(c1 - s.p)) :
						  WP_STRN(NULL, 0);
			s = WP_STRN(c2 + 1, (size_t)(s.p + s.n - c2 - 1));
			if (chan.n) {
				struct wp_str sub = chan, before = wp_str_rcut(&sub, '/');
				if (sub.n && is_subdir(sub)) {
					if (!m->subdir)
						m->subdir = wp_xstrndup(sub.p, sub.n);
					chan = before;
				}
				if (!m->channel)
					m->channel = wp_xstrndup(chan.p, chan.n);
			}
		}
	}

	/* step 6: the name runs to the first of " =<>!~" */
	s = wp_str_trim(s);
	size_t nl = 0;
	while (nl < s.n && !strchr(" =<>!~", s.p[nl]))
		nl++;
	if (!nl) {
		rc = wp_fail(err, -WPE_PARSE, "conda spec '%s' has no package name", in);
		goto out;
	}
	m->name = lower_dup(WP_STRN(s.p, nl));
	if (!name_ok(m->name)) {
		rc = wp_fail(err, -WPE_PARSE, "conda spec '%s': '%s' is not a package name", in,
			     m->name);
		goto out;
	}
	struct wp_str rest = wp_str_trim(WP_STRN(s.p + nl, s.n - nl));
	/* conda: "numpy=" alone is the bare name (its pattern needs a character after the
	 * operator) */
	if (rest.n == 1 && rest.p[0] == '=' && s.n - nl == 1)
		rest.n = 0;

	/* step 7: version and build */
	if (rest.n) {
		struct wp_str ver, build;
		split_version_build(rest, &ver, &build);
		char *v = without_spaces(ver);
		size_t vn = strlen(v);
		if (!vn || !strcmp(v, "=") || !strcmp(v, "==") || !strcmp(v, "<=") ||
		    !strcmp(v, ">=") || !strcmp(v, "!=") || !strcmp(v, "<") || !strcmp(v, ">") ||
		    !strcmp(v, "~=")) {
			free(v);
			rc = wp_fail(err, -WPE_PARSE,
				     "conda spec '%s' has an operator without a version", in);
			goto out;
		}
		if (v[0] == '=') {
			/* "=1.8" means 1.8*, "==1.8" means 1.8, "=1.8=build" keeps 1.8 exact */
			const char *t = v + 1;
			char *nv = NULL;
			if (v[1] == '=' && !build.n)
				nv = wp_xstrdup(v + 2);
			else if (!strpbrk(t, "=,|"))
				nv = !build.n && t[strlen(t) - 1] != '*' ? wp_xasprintf("%s*", t) :
									   wp_xstrdup(t);
			if (nv) {
				free(v);
				v = nv;
			}
		}
		if (m->version_text) /* brackets win */
			free(v);
		else
			m->version_text = v;
		if (build.n && !m->build)
			m->build = wp_xstrndup(build.p, build.n);
	}

compile:
	if (rc < 0)
		goto out;
	if (m->version_text && (rc = vspec_parse(in, m->version_text, &m->version, err)) < 0)
		goto out;
	if (m->build && (m->build[0] == '^' || m->build[strlen(m->build) - 1] == '$')) {
		regex_t *re = regex_compile(m->build);
		if (!re || m->build[0] != '^' || m->build[strlen(m->build) - 1] != '$') {
			if (re) {
				regfree(re);
				free(re);
			}
			rc = wp_fail(err, -WPE_PARSE,
				     "conda spec '%s': build '%s' is not a valid ^regex$", in,
				     m->build);
			goto out;
		}
		regfree(re);
		free(re);
	}
out:
	free(buf);
	if (rc < 0)
		wp_matchspec_release(m);
	return rc;
}

static bool build_match(const struct wp_matchspec *m, const char *build)
{
	if (!m->build || !strcmp(m->build, "*"))
		return true;
	if (!build)
		return false;
	if (m->build[0] == '^') {
		/* compiled per call: build regexes are rare, and the spec stays plain data */
		regex_t *re = regex_compile(m->build);
		bool ok = re && regexec(re, build, 0, NULL, 0) == 0;
		if (re) {
			regfree(re);
			free(re);
		}
		return ok;
	}
	/* conda's GlobStrMatch: a glob when it has '*', else the exact text */
	return strchr(m->build, '*') ? glob_match(m->build, build, false) :
				       !strcmp(m->build, build);
}

bool wp_matchspec_build_match(const struct wp_matchspec *m, const char *build)
{
	return build_match(m, build);
}

bool wp_matchspec_version_match(const struct wp_matchspec *m, const char *version)
{
	if (!m->version)
		return true;
	if (!version)
		return false;
	struct wp_condaver v;
	bool v_ok = wp_condaver_parse(version, &v, NULL) == 0;
	bool ok = vspec_match(m->version, &v, v_ok, version);
	if (v_ok)
		wp_condaver_release(&v);
	return ok;
}

bool wp_matchspec_name_match(const struct wp_matchspec *m, const char *name)
{
	return name && glob_match(m->name, name, true);
}

bool wp_matchspec_match(const struct wp_matchspec *m, const char *name, const char *version,
			const char *build, long long build_number)
{
	if (!name || !glob_match(m->name, name, true))
		return false;
	if (m->track_features)
		return false; /* a constraint on a part the caller does not give */
	if (m->bnum_op != WP_BNUM_ANY) {
		long long b = build_number, x = m->bnum;
		if (b < 0)
			return false;
		bool ok = m->bnum_op == WP_BNUM_EQ ? b == x : m->bnum_op == WP_BNUM_NE ? b != x :
			  m->bnum_op == WP_BNUM_LT ? b < x : m->bnum_op == WP_BNUM_LE ? b <= x :
			  m->bnum_op == WP_BNUM_GT ? b > x : b >= x;
		if (!ok)
			return false;
	}
	return build_match(m, build) && wp_matchspec_version_match(m, version);
}

bool wp_matchspec_version_floor(const struct wp_matchspec *m, struct wp_buf *out)
{
	wp_buf_reset(out);
	const struct wp_condaver *f = m->version ? vspec_floor(m->version) : NULL;
	if (!f)
		return false;
	wp_buf_addstr(out, f->text);
	return true;
}

void wp_matchspec_format(const struct wp_matchspec *m, struct wp_buf *out)
{
	static const char *const bops[] = { "", "", "!=", "<", "<=", ">", ">=" };
	wp_buf_reset(out);
	if (m->channel)
		wp_buf_printf(out, "%s%s%s::", m->channel, m->subdir ? "/" : "",
			      m->subdir ? m->subdir : "");
	wp_buf_addstr(out, m->name ? m->name : "*");
	if (m->version_text || m->build)
		wp_buf_printf(out, " %s", m->version_text ? m->version_text : "*");
	if (m->build)
		wp_buf_printf(out, " %s", m->build);
	if (m->bnum_op != WP_BNUM_ANY)
		wp_buf_printf(out, "[build_number=%s%lld]", bops[m->bnum_op], m->bnum);
	if (!m->channel && m->subdir)
		wp_buf_printf(out, "[subdir=%s]", m->subdir);
	if (m->track_features)
		wp_buf_printf(out, "[track_features=%s]", m->track_features);
}

/* ---- JSON lists ---- */

WP_VEC_OF(matchspecs, struct wp_matchspec);

struct jl {
	int depth;
	struct matchspecs v;
	struct wp_err *err;
	int rc;
	char why[64];
};

/* Why the list is refused, for the message the caller words; stops the parse. */
static int jl_refuse(struct jl *j, const char *why)
{
	snprintf(j->why, sizeof(j->why), "%s", why);
	return -WPE_PARSE;
}

static int jl_nope(void *ctx)
{
	return jl_refuse(ctx, "holds something other than strings");
}

static int jl_value(void *ctx, enum wp_json_type type, const unsigned char *s, size_t n, bool b)
{
	struct jl *j = ctx;
	if (type != WP_JSON_STRING || j->depth != 1)
		return jl_nope(ctx);
	if (j->v.n >= LIST_MAX_ENTRIES) {
		char why[64];
		snprintf(why, sizeof(why), "has more than %d entries", LIST_MAX_ENTRIES);
		return jl_refuse(j, why);
	}
	if (n > WP_MATCHSPEC_MAX || memchr(s, 0, n))
		return jl_refuse(j, "has an entry that is too long or holds NUL");
	char *t = wp_xstrndup((const char *)s, n);
	struct wp_matchspec m;
	j->rc = wp_matchspec_parse(t, &m, j->err);
	free(t);
	if (j->rc < 0)
		return j->rc;
	wp_vec_push(&j->v, m);
	return 0;
}

static int jl_start_array(void *ctx)
{
	struct jl *j = ctx;
	if (j->depth++ != 0)
		return jl_refuse(j, "nests arrays");
	return 0;
}

static int jl_end_array(void *ctx)
{
	((struct jl *)ctx)->depth--;
	return 0;
}

void wp_matchspecs_free(struct wp_matchspec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wp_matchspec_release(&v[i]);
	free(v);
}

int wp_matchspec_parse_json_list(const char *json, struct wp_matchspec **out, size_t *n,
				 struct wp_err *err)
{
	static const struct wp_json_callbacks cb = {
		.value = jl_value,
		.start_map = jl_nope,
		.start_array = jl_start_array,
		.end_array = jl_end_array,
	};
	struct jl j = { .err = err };
	*out = NULL;
	*n = 0;
	if (!json || !*json)
		return 0;
	size_t len = strlen(json);
	/* the reader's own message is not used: the list is named by its text below */
	const struct wp_json_opts o = { .what = "conda spec list", .max_bytes = len };
	struct wp_err scratch = WP_ERR_INIT;
	int rc = wp_json_read(json, len, &cb, &j, &o, &scratch);
	if (!rc && !j.why[0] && j.rc == 0 && j.depth == 0) {
		*out = j.v.v;
		*n = j.v.n;
		return 0;
	}
	wp_matchspecs_free(j.v.v, j.v.n);
	if (j.rc < 0)
		return j.rc;
	return wp_fail(err, -WPE_PARSE, "conda spec list '%.60s%s' %s", json, len > 60 ? "..." : "",
		       j.why[0] ? j.why : "is not a JSON array of strings");
}
