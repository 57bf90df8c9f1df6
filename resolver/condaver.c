/* resolver/condaver.c: conda's VersionOrder (conda/models/version.py) in C: parse once, compare by
 * components. */
#include "resolver/condaver.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* conda upper-cases "dev" so it sorts below '_' and every lower-case letter */
static const char DEV[] = "DEV";

struct builder {
	struct wp_condaver *v;
	size_t cap_atoms, cap_comps;
};

static void push_atom(struct builder *b, enum wp_condaver_atom_kind kind, const char *p, size_t n)
{
	struct wp_condaver *v = b->v;
	if (v->n_atoms == b->cap_atoms) {
		b->cap_atoms = b->cap_atoms ? b->cap_atoms * 2 : 16;
		v->atoms = wp_xrealloc(v->atoms, b->cap_atoms * sizeof(*v->atoms));
	}
	v->atoms[v->n_atoms++] = (struct wp_condaver_atom){ kind, p, n };
}

static bool is_sep(char c)
{
	return c == '.' || c == '_';
}

/* One component, s[0..n): digit runs, '*' runs, other runs. false when empty. */
static bool push_comp(struct builder *b, const char *s, size_t n)
{
	struct wp_condaver *v = b->v;
	if (!n)
		return false;
	if (v->n_version + v->n_local == b->cap_comps) {
		b->cap_comps = b->cap_comps ? b->cap_comps * 2 : 8;
		v->comps = wp_xrealloc(v->comps, b->cap_comps * sizeof(*v->comps));
	}
	size_t first = v->n_atoms;
	/* the 0 that keeps numbers and strings in phase, before any component that does not start
	 * with a digit (conda's v[k][0].isdigit()): letters, and also the "_" left when a version's
	 * last part is all '_' or '-' (1.0__ is 1.0.0_ there) and a '*' */
	if (!isdigit((unsigned char)s[0]))
		push_atom(b, WP_CONDAVER_NUM, s, 0);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		if (isdigit((unsigned char)s[i])) {
			while (j < n && isdigit((unsigned char)s[j]))
				j++;
			size_t z = i;
			while (z < j && s[z] == '0')
				z++;
			push_atom(b, WP_CONDAVER_NUM, s + z, j - z);
		} else if (s[i] == '*') {
			while (j < n && s[j] == '*')
				j++;
			push_atom(b, WP_CONDAVER_STR, s + i, j - i);
		} else {
			while (j < n && !isdigit((unsigned char)s[j]) && s[j] != '*')
				j++;
			if (j - i == 4 && !memcmp(s + i, "post", 4))
				push_atom(b, WP_CONDAVER_INF, s + i, 4);
			else if (j - i == 3 && !memcmp(s + i, "dev", 3))
				push_atom(b, WP_CONDAVER_STR, DEV, 3);
			else
				push_atom(b, WP_CONDAVER_STR, s + i, j - i);
		}
		i = j;
	}
	v->comps[v->n_version + v->n_local][0] = first;
	v->comps[v->n_version + v->n_local][1] = v->n_atoms - first;
	return true;
}

/* Components of s[0..n) split at '.' and '_'; keep_trailing_underscore: conda's openssl rule. */
static bool push_comps(struct builder *b, const char *s, size_t n, bool keep_trailing_underscore,
		       size_t *count)
{
	size_t end = n;
	if (keep_trailing_underscore && n && s[n - 1] == '_')
		end = n - 1;
	size_t start = 0;
	for (size_t i = 0; i <= end; i++) {
		if (i < end && !is_sep(s[i]))
			continue;
		size_t len = i - start;
		if (i == end && end != n)
			len++; /* the last component takes the trailing '_' back */
		if (!push_comp(b, s + start, len))
			return false;
		(*count)++;
		start = i + 1;
	}
	return true;
}

static bool valid_chars(const char *s)
{
	for (; *s; s++)
		if (!(isdigit((unsigned char)*s) || (*s >= 'a' && *s <= 'z') ||
		      strchr("*.+!_", *s)))
			return false;
	return true;
}

int wp_condaver_parse(const char *in, struct wp_condaver *v, struct wp_err *err)
{
	struct wp_condaver z = WP_CONDAVER_INIT;
	struct builder b = { v, 0, 0 };
	int rc = 0;
	*v = z;
	if (!in)
		return wp_fail(err, -WPE_PARSE, "empty conda version");

	/* strip, lower-case */
	while (*in && isspace((unsigned char)*in))
		in++;
	size_t n = strlen(in);
	while (n && isspace((unsigned char)in[n - 1]))
		n--;
	v->text = wp_xstrndup(in, n);
	for (char *p = v->text; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (!n) {
		rc = wp_fail(err, -WPE_PARSE, "empty conda version");
		goto out;
	}
	if (!valid_chars(v->text) && strchr(v->text, '-') && !strchr(v->text, '_')) {
		for (char *p = v->text; *p; p++)
			if (*p == '-')
				*p = '_';
	}
	if (!valid_chars(v->text)) {
		rc = wp_fail(err, -WPE_PARSE, "conda version '%.*s' has invalid characters", (int)n,
			     in);
		goto out;
	}

	const char *s = v->text, *bang = strchr(s, '!');
	const char *epoch = "0";
	size_t epoch_n = 1;
	if (bang) {
		if (strchr(bang + 1, '!')) {
			rc = wp_fail(err, -WPE_PARSE, "conda version '%s' has more than one '!'",
				     v->text);
			goto out;
		}
		epoch = s;
		epoch_n = (size_t)(bang - s);
		for (size_t i = 0; i < epoch_n; i++)
			if (!isdigit((unsigned char)s[i]))
				epoch_n = 0;
		if (!epoch_n) {
			rc = wp_fail(err, -WPE_PARSE,
				     "conda version '%s' has an epoch that is not a number",
				     v->text);
			goto out;
		}
		s = bang + 1;
	}
	const char *plus = strchr(s, '+');
	if (plus && strchr(plus + 1, '+')) {
		rc = wp_fail(err, -WPE_PARSE, "conda version '%s' has more than one '+'", v->text);
		goto out;
	}
	size_t main_n = plus ? (size_t)(plus - s) : strlen(s);
	if (!main_n) {
		rc = wp_fail(err, -WPE_PARSE,
			     "conda version '%s' has nothing before its local part", v->text);
		goto out;
	}
	/* the epoch is a component of its own ("1!" is rejected above only when not digits) */
	if (!push_comp(&b, epoch, epoch_n)) {
		rc = wp_fail(err, -WPE_PARSE, "conda version '%s' has an empty epoch", v->text);
		goto out;
	}
	v->n_version = 1;
	if (!push_comps(&b, s, main_n, true, &v->n_version) ||
	    (plus && !push_comps(&b, plus + 1, strlen(plus + 1), false, &v->n_local))) {
		rc = wp_fail(err, -WPE_PARSE, "conda version '%s' has an empty component", v->text);
		goto out;
	}
out:
	if (rc)
		wp_condaver_release(v);
	return rc;
}

void wp_condaver_release(struct wp_condaver *v)
{
	free(v->text);
	free(v->atoms);
	free(v->comps);
	struct wp_condaver z = WP_CONDAVER_INIT;
	*v = z;
}

static const struct wp_condaver_atom zero = { WP_CONDAVER_NUM, "", 0 };

static int atom_cmp(const struct wp_condaver_atom *x, const struct wp_condaver_atom *y)
{
	bool xs = x->kind == WP_CONDAVER_STR, ys = y->kind == WP_CONDAVER_STR;
	if (xs != ys)
		return xs ? -1 : 1; /* a string is below any number */
	if (xs) {
		size_t n = x->n < y->n ? x->n : y->n;
		int c = memcmp(x->p, y->p, n);
		if (c)
			return c < 0 ? -1 : 1;
		return (x->n > y->n) - (x->n < y->n);
	}
	if (x->kind != y->kind)
		return x->kind == WP_CONDAVER_INF ? 1 : -1;
	if (x->kind == WP_CONDAVER_INF)
		return 0;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	int c = memcmp(x->p, y->p, x->n);
	return (c > 0) - (c < 0);
}

static int part_cmp(const struct wp_condaver *a, size_t a0, size_t an, const struct wp_condaver *b,
		    size_t b0, size_t bn)
{
	size_t nc = an > bn ? an : bn;
	for (size_t i = 0; i < nc; i++) {
		size_t af = 0, al = 0, bf = 0, bl = 0;
		if (i < an) {
			af = a->comps[a0 + i][0];
			al = a->comps[a0 + i][1];
		}
		if (i < bn) {
			bf = b->comps[b0 + i][0];
			bl = b->comps[b0 + i][1];
		}
		size_t na = al > bl ? al : bl;
		for (size_t j = 0; j < na; j++) {
			const struct wp_condaver_atom *x = j < al ? &a->atoms[af + j] : &zero;
			const struct wp_condaver_atom *y = j < bl ? &b->atoms[bf + j] : &zero;
			int c = atom_cmp(x, y);
			if (c)
				return c;
		}
	}
	return 0;
}

int wp_condaver_order(const struct wp_condaver *a, const struct wp_condaver *b)
{
	int c = part_cmp(a, 0, a->n_version, b, 0, b->n_version);
	if (!c)
		c = part_cmp(a, a->n_version, a->n_local, b, b->n_version, b->n_local);
	return c;
}

int wp_condaver_cmp(const char *a, const char *b)
{
	struct wp_condaver va, vb;
	int ra = wp_condaver_parse(a, &va, NULL);
	int rb = wp_condaver_parse(b, &vb, NULL);
	int c;
	if (ra || rb) {
		if (!ra != !rb) {
			c = ra ? -1 : 1;
		} else {
			c = strcmp(a ? a : "", b ? b : "");
			c = (c > 0) - (c < 0);
		}
	} else {
		c = wp_condaver_order(&va, &vb);
	}
	wp_condaver_release(&va);
	wp_condaver_release(&vb);
	return c;
}

void wp_condaver_format_parsed(const struct wp_condaver *v, struct wp_buf *out)
{
	wp_buf_reset(out);
	wp_buf_addch(out, '[');
	for (size_t i = 0; i < v->n_version; i++) {
		wp_buf_addstr(out, i ? ", [" : "[");
		for (size_t j = 0; j < v->comps[i][1]; j++) {
			const struct wp_condaver_atom *a = &v->atoms[v->comps[i][0] + j];
			if (j)
				wp_buf_addstr(out, ", ");
			if (a->kind == WP_CONDAVER_INF)
				wp_buf_addstr(out, "inf");
			else if (a->kind == WP_CONDAVER_NUM && !a->n)
				wp_buf_addch(out, '0');
			else if (a->kind == WP_CONDAVER_NUM)
				wp_buf_add(out, a->p, a->n);
			else
				wp_buf_printf(out, "'%.*s'", (int)a->n, a->p);
		}
		wp_buf_addch(out, ']');
	}
	wp_buf_addch(out, ']');
}
