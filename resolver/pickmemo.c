/* resolver/pickmemo.c: a pick's per-file parse, kept for the next target's pick. */
#include "resolver/pickmemo.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

struct wp_pick_memo_entry {
	bool set;
	/* the keys: what the parse was made from (copies; the variants metadata by address, which
	 * the provider keeps for the whole resolution) */
	char *version, *filename, *variant, *kind, *project;
	bool variant_from_metadata;
	const struct wp_variants *variants;
	/* the parse */
	bool v_ok;
	struct wp_version v;
	struct wp_variant var;
	bool var_pending;
	const char *var_src; /* a string literal */
};

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static char *dup_or_null(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static void entry_clear(struct wp_pick_memo_entry *x)
{
	if (!x->set)
		return;
	free(x->version);
	free(x->filename);
	free(x->variant);
	free(x->kind);
	free(x->project);
	if (x->v_ok)
		wp_version_release(&x->v);
	memset(x, 0, sizeof(*x));
}

static bool entry_is_for(const struct wp_pick_memo_entry *x, const struct wp_candidate *k)
{
	return x->set && same(x->version, k->version) && same(x->filename, k->filename) &&
	       same(x->variant, k->variant) && same(x->kind, k->kind) &&
	       same(x->project, k->project) &&
	       x->variant_from_metadata == k->variant_from_metadata && x->variants == k->variants;
}

void wp_pick_memo_get(struct wp_pick_memo *m, size_t i, const struct wp_candidate *k,
		      wp_pick_variant_fn *variant_of, struct wp_pick_parsed *out)
{
	if (i >= m->n) {
		size_t n = i + 1 > 2 * m->n ? i + 1 : 2 * m->n;
		m->e = wp_xrealloc(m->e, n * sizeof(*m->e));
		memset(m->e + m->n, 0, (n - m->n) * sizeof(*m->e));
		m->n = n;
	}
	struct wp_pick_memo_entry *x = &m->e[i];
	if (!entry_is_for(x, k)) {
		struct wp_err e = WP_ERR_INIT;
		entry_clear(x);
		x->set = true;
		x->version = dup_or_null(k->version);
		x->filename = dup_or_null(k->filename);
		x->variant = dup_or_null(k->variant);
		x->kind = dup_or_null(k->kind);
		x->project = dup_or_null(k->project);
		x->variant_from_metadata = k->variant_from_metadata;
		x->variants = k->variants;
		x->v_ok = k->version &&
			  wp_version_parse(&x->v, k->version, strlen(k->version), &e) == 0;
		variant_of(k, &x->var, &x->var_pending, &x->var_src);
	}
	out->v_ok = x->v_ok;
	out->v = x->v_ok ? &x->v : NULL;
	out->var = x->var;
	out->var_pending = x->var_pending;
	out->var_src = x->var_src;
}

void wp_pick_memo_release(struct wp_pick_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		entry_clear(&m->e[i]);
	free(m->e);
	m->e = NULL;
	m->n = 0;
}
