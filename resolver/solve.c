/* resolver/solve.c: requirements -> files per target: pick each project, follow Requires-Dist
 * evaluated for the target, keep one variant across the set. Depth-first with backtracking over
 * versions, and restarts: when a project cannot take the set's variant, that variant is avoided
 * and the whole set is resolved again. Reads projects only through the provider.
 *
 * The search is a loop over an explicit stack of levels (level k picks the k-th project found)
 * and one state changed in place: each pick records what it adds on an undo trail, and giving a
 * pick up replays the trail back. Memory grows with the problem (projects, requirements, levels),
 * never with the C stack, and names are found by hash: a web of 10,000 projects resolves in time
 * linear in its size when nothing conflicts. */
#include "resolver/solve.h"
#include "base/buf.h"
#include "base/mem.h"
#include "base/nameindex.h"
#include "base/vec.h"
#include "resolver/marker.h"
#include "resolver/pickmemo.h"
#include "resolver/requirement.h"
#include "resolver/specifier.h"
#include "resolver/tags.h"
#include "resolver/torchbuilds.h"
#include "resolver/variant.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A project's files by public version, newest first, each version's files together: a pick past
 * many versions given up looks only at a window of it after them (pick_want), so that each of
 * 20,000 versions needing a missing project costs its own metadata, not a look at all the others.
 * Built once per project when first needed; dropped when its files change. */
struct view {
	struct wp_candidate *c;    /* shallow copies of files.c, in order */
	size_t *ix;                /* c[i] is files.c[ix[i]] */
	char **pub;                /* c[i]'s public version (owned), as public_of spells it */
	bool *starts;              /* c[i] starts a public version (it differs from c[i-1]'s) */
	struct wp_version *ver; /* c[i]'s version parsed (owned), when ver_ok[i]: the plan's writers
				   and the why-lines take it from here, not from the text */
	bool *ver_ok;
	size_t n;
	bool built;
	unsigned gen;              /* counts the builds: a skip made on an older one starts again */
};

/* How far into a view a list of given-up versions reaches: c[0, at) are whole versions all given
 * up, so they are left out of the pick, and so are the "!=V" of the versions they cover. Kept
 * across picks as the list grows (an exclusion is looked at once). */
struct skip {
	struct wp_name_index ix; /* the list's versions seen so far (keys borrowed from the list) */
	bool *covered;             /* per version of the list: all its files lie in c[0, at) */
	size_t nseen, cap, at;
	unsigned gen;              /* the view's build it counts in */
};

/* A project's files as the provider gave them, read once per resolution. */
struct proj {
	char *name;
	struct wp_solve_files files;
	struct wp_candidate *own; /* a copy of the files once a variant was learned from metadata */
	char **labels;             /* the labels learned (owned), one per file of own */
	bool has_variants;
	bool read;                 /* files() answered (found or not) */
	bool hash_listed;          /* the user gave --hash values for it: files holds only those */
	size_t hash_dropped;       /* its files left out for a sha256 not among them */
	/* Versions found unable to be had whatever else is picked (in this attempt of this target):
	 * each was given up for a reason that blamed no other pick. Public versions, and why. */
	char **dead, **dead_why, **dead_cause;
	size_t ndead, cap_dead, cap_dead_why, cap_dead_cause;
	/* Versions found to conflict with another project's pick (this attempt): while that project
	 * holds that version, this version is given up again without asking its metadata. */
	struct clash *clash;
	size_t nclash, cap_clash;
	/* No version of it can be had for the target at all (this attempt): whatever needs it is
	 * given up at once. Why, as the message said when it ran out. */
	bool impossible;
	char *impossible_why;
	struct wp_name_index dead_ix; /* dead's versions, for dead_at */
	struct view view;          /* the files by version, for picks past many versions given up */
	struct wp_pick_memo memo;  /* each file's parse, kept for every target's pick */
	struct skip dead_skip;     /* where dead's versions end in view (project_impossible) */
};

struct clash {
	char *pub;               /* this project's version */
	char *other, *other_ver; /* the project whose pick it cannot stand, and that pick's version
				  */
	char *cause;
};

WP_VEC_OF(proj_vec, struct proj *);

#define NONE WP_NAME_NONE

struct ctx {
	const struct wp_solve_provider *p;
	const struct wp_solve_opts *o;
	const struct wp_req **cons; /* the constraints, parsed where they were read */
	size_t ncons;
	bool *cons_on; /* which of them apply to the target being solved (their markers) */
	struct proj_vec projs;     /* each allocated alone: pointers stay valid as the list grows */
	struct wp_name_index proj_ix; /* their names */
	struct wp_plan *plan;
	unsigned max_steps;
	size_t max_projects;
};

static struct proj *find_proj(struct ctx *x, const char *name)
{
	size_t i = wp_name_index_find(&x->proj_ix, name);
	return i == NONE ? NULL : x->projs.v[i];
}

static bool hash_in(const struct wp_solve_hashes *h, const char *sha256)
{
	for (size_t i = 0; sha256 && i < h->n; i++)
		if (!strcasecmp(h->sha256[i], sha256))
			return true;
	return false;
}

/* pip's --hash: a project the user gave hashes for keeps only the files with one of them (in
 * the solver's own copy, which also holds the variants learned from metadata). */
static void keep_hashed(struct ctx *x, struct proj *p)
{
	const struct wp_solve_hashes *h = NULL;
	for (size_t i = 0; i < x->o->n_hashes && !h; i++)
		if (!strcmp(x->o->hashes[i].project, p->name))
			h = &x->o->hashes[i];
	if (!h)
		return;
	p->hash_listed = true;
	p->own = wp_xcalloc(p->files.n ? p->files.n : 1, sizeof(*p->own));
	p->labels = wp_xcalloc(p->files.n ? p->files.n : 1, sizeof(*p->labels));
	size_t kept = 0;
	for (size_t i = 0; i < p->files.n; i++)
		if (hash_in(h, p->files.c[i].sha256))
			p->own[kept++] = p->files.c[i];
	p->hash_dropped = p->files.n - kept;
	p->files.c = p->own;
	p->files.n = kept;
}

static void skip_free(struct skip *k)
{
	wp_name_index_free(&k->ix);
	free(k->covered);
	memset(k, 0, sizeof(*k));
}

static void view_free(struct view *v)
{
	for (size_t i = 0; v->pub && i < v->n; i++)
		free(v->pub[i]);
	for (size_t i = 0; v->ver && i < v->n; i++)
		if (v->ver_ok[i])
			wp_version_release(&v->ver[i]);
	free(v->c), free(v->ix), free(v->pub), free(v->starts), free(v->ver), free(v->ver_ok);
	unsigned gen = v->gen;
	memset(v, 0, sizeof(*v));
	v->gen = gen;
}

static void public_of(const char *version, char *out, size_t n);

struct vkey {
	struct wp_version v;
	bool ok;
	size_t i;
};

static int vkey_cmp(const void *a, const void *b)
{
	const struct vkey *x = a, *y = b;
	if (x->ok != y->ok)
		return x->ok ? -1 : 1; /* a version that is not PEP 440 last: it is never picked */
	int c = x->ok ? wp_version_cmp_public(&y->v, &x->v) : 0; /* newest first */
	return c ? c : (x->i > y->i) - (x->i < y->i);  /* the provider's order within a version */
}

static void view_build(struct proj *p)
{
	struct view *v = &p->view;
	size_t n = p->files.n;
	struct vkey *k = wp_xcalloc(n ? n : 1, sizeof(*k));
	for (size_t i = 0; i < n; i++) {
		struct wp_err e = WP_ERR_INIT;
		const char *ver = p->files.c[i].version;
		k[i].ok = ver && wp_version_parse(&k[i].v, ver, strlen(ver), &e) == 0;
		k[i].i = i;
	}
	qsort(k, n, sizeof(*k), vkey_cmp);
	v->c = wp_xcalloc(n ? n : 1, sizeof(*v->c));
	v->ix = wp_xcalloc(n ? n : 1, sizeof(*v->ix));
	v->pub = wp_xcalloc(n ? n : 1, sizeof(*v->pub));
	v->starts = wp_xcalloc(n ? n : 1, sizeof(*v->starts));
	v->ver = wp_xcalloc(n ? n : 1, sizeof(*v->ver));
	v->ver_ok = wp_xcalloc(n ? n : 1, sizeof(*v->ver_ok));
	for (size_t i = 0; i < n; i++) {
		char pub[128];
		const char *ver = p->files.c[k[i].i].version;
		public_of(ver ? ver : "", pub, sizeof(pub));
		v->c[i] = p->files.c[k[i].i];
		v->ix[i] = k[i].i;
		v->pub[i] = wp_xstrdup(pub);
		v->starts[i] = i == 0 || !k[i].ok || !k[i - 1].ok ||
			       wp_version_cmp_public(&k[i].v, &k[i - 1].v) != 0;
	}
	for (size_t i = 0; i < n; i++) { /* the parsed versions move into the view */
		v->ver[i] = k[i].v;
		v->ver_ok[i] = k[i].ok;
	}
	free(k);
	v->n = n;
	v->built = true;
	v->gen++;
}

/* The provider's next files of a project it gave partially, appended to the solver's own copy
 * when there is one (the earlier files keep their places: picks are kept as indexes). */
static int more_files(struct ctx *x, struct proj *p, struct wp_err *err)
{
	struct wp_solve_files f = { 0 };
	size_t had = p->files.n;
	int rc = x->p->files_more ? x->p->files_more(x->p->ctx, p->name, &f, err) : 0;
	if (!x->p->files_more) {
		p->files.partial = false;
		return 0;
	}
	if (rc < 0) {
		if (!err->code)
			wp_fail(err, rc, "reading the files of '%s' failed", p->name);
		return rc;
	}
	view_free(&p->view);
	for (size_t i = had; i < f.n; i++)
		p->has_variants |= f.c[i].variant && *f.c[i].variant;
	if (!p->own) {
		p->files = f;
		return 0;
	}
	p->own = wp_xrealloc(p->own, (f.n ? f.n : 1) * sizeof(*p->own));
	p->labels = wp_xrealloc(p->labels, (f.n ? f.n : 1) * sizeof(*p->labels));
	for (size_t i = had; i < f.n; i++) {
		p->own[i] = f.c[i];
		p->labels[i] = NULL;
	}
	p->files.c = p->own;
	p->files.n = f.n;
	p->files.partial = f.partial;
	return 0;
}

static char *dupn(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static void forget_clashes(struct proj *p)
{
	for (size_t k = 0; k < p->nclash; k++)
		free(p->clash[k].pub), free(p->clash[k].other), free(p->clash[k].other_ver),
			free(p->clash[k].cause);
	free(p->clash);
	p->clash = NULL;
	p->nclash = p->cap_clash = 0;
}

static void forget_dead(struct proj *p)
{
	forget_clashes(p);
	p->impossible = false;
	free(p->impossible_why);
	p->impossible_why = NULL;
	skip_free(&p->dead_skip); /* its keys are dead's */
	wp_name_index_free(&p->dead_ix);
	memset(&p->dead_ix, 0, sizeof(p->dead_ix));
	for (size_t k = 0; k < p->ndead; k++)
		free(p->dead[k]), free(p->dead_why[k]), free(p->dead_cause[k]);
	free(p->dead), free(p->dead_why), free(p->dead_cause);
	p->dead = p->dead_why = p->dead_cause = NULL;
	p->ndead = p->cap_dead = p->cap_dead_why = p->cap_dead_cause = 0;
}

static void mark_dead(struct proj *p, const char *pub, const char *why, const char *cause)
{
	wp_vec_reserve_((void **)&p->dead, &p->cap_dead, p->ndead + 1, sizeof(*p->dead));
	wp_vec_reserve_((void **)&p->dead_why, &p->cap_dead_why, p->ndead + 1,
			sizeof(*p->dead_why));
	wp_vec_reserve_((void **)&p->dead_cause, &p->cap_dead_cause, p->ndead + 1,
			sizeof(*p->dead_cause));
	p->dead[p->ndead] = wp_xstrdup(pub);
	p->dead_why[p->ndead] = wp_xstrdup(why);
	p->dead_cause[p->ndead] = dupn(cause);
	wp_name_index_push(&p->dead_ix, p->dead[p->ndead++]);
}

/* The index of pub among p's dead versions, or NONE. */
static size_t dead_at(const struct proj *p, const char *pub)
{
	return wp_name_index_find(&p->dead_ix, pub);
}

/* A project's files, asked of the provider once. NULL with err set when a source failed. */
static struct proj *files_of(struct ctx *x, const char *name, struct wp_err *err)
{
	struct proj *p = find_proj(x, name);
	if (p && p->read)
		return p;
	if (!p) {
		p = wp_xcalloc(1, sizeof(*p));
		p->name = wp_xstrdup(name);
		wp_vec_push(&x->projs, p);
		wp_name_index_push(&x->proj_ix, p->name);
	}
	struct wp_solve_files f = { 0 };
	int rc = x->p->files(x->p->ctx, name, &f, err);
	if (rc < 0) {
		if (!err->code)
			wp_fail(err, rc, "reading the files of '%s' failed", name);
		return NULL; /* not marked read: the next caller asks again and meets the error */
	}
	p->files = f;
	p->read = true;
	/* --hash keeps a subset: it is taken from all the files */
	for (size_t i = 0; i < x->o->n_hashes && p->files.partial; i++)
		while (!strcmp(x->o->hashes[i].project, p->name) && p->files.partial)
			if (more_files(x, p, err) < 0)
				return NULL;
	keep_hashed(x, p);
	/* torch's unlabeled builds carry a variant too, once their metadata names it */
	p->has_variants = wp_pick_is_torch_family(name) && !strcmp(name, "torch");
	for (size_t i = 0; i < f.n; i++)
		p->has_variants |= f.c[i].variant && *f.c[i].variant;
	return p;
}

/* What an unlabeled torch wheel is, from the nvidia-* pins of its METADATA: recorded on the
 * solver's own copy of the project's files, so the pick can place it. */
static int learn_variant(struct ctx *x, struct proj *pf, size_t i, struct wp_err *err)
{
	struct wp_solve_deps m = { 0 };
	struct wp_variant v;
	int rc = x->p->deps(x->p->ctx, &pf->files.c[i], &m, err);
	if (rc < 0) {
		if (!err->code)
			wp_fail(err, rc, "reading the metadata of '%s' failed",
				pf->files.c[i].filename);
		return rc;
	}
	if (!pf->own) {
		pf->own = wp_xcalloc(pf->files.n, sizeof(*pf->own));
		pf->labels = wp_xcalloc(pf->files.n, sizeof(*pf->labels));
		memcpy(pf->own, pf->files.c, pf->files.n * sizeof(*pf->own));
		pf->files.c = pf->own;
	}
	free(pf->labels[i]);
	pf->labels[i] = wp_xstrdup(wp_variant_from_reqs(m.reqs, m.n, &v) == 1 ? v.label : "");
	view_free(&pf->view);
	pf->own[i].variant = pf->labels[i];
	pf->own[i].variant_from_metadata = true;
	return 0;
}

/* "cu111/torch-1.8.0+cu111-...whl" for a file whose URL sits in a variant folder, else the file
 * name. Allocated. */
static char *plan_where(const struct wp_candidate *c)
{
	const char *end = c->url ? strrchr(c->url, '/') : NULL;
	struct wp_variant v;
	if (end && end > c->url) {
		const char *start = end - 1;
		while (start > c->url && start[-1] != '/')
			start--;
		char dir[64];
		size_t dn = (size_t)(end - start);
		if (dn < sizeof(dir)) {
			memcpy(dir, start, dn);
			dir[dn] = 0;
			if (wp_variant_from_dir(dir, &v))
				return wp_xasprintf("%s/%s", dir, c->filename);
		}
	}
	return wp_xstrdup(c->filename);
}

static void note(struct wp_plan *plan, char *text)
{
	for (size_t i = 0; i < plan->n_notes; i++)
		if (!strcmp(plan->notes[i], text)) {
			free(text);
			return;
		}
	wp_vec_push_fields(plan->notes, plan->n_notes, plan->cap_notes, text);
}

/* --- the state of one resolution, changed in place; the undo trail takes picks back --- */

struct contrib {
	struct wp_specset spec;
	char *text; /* "==1.8.0" */
	char *by;   /* NULL: the user; else "torchvision 0.9.0" */
	bool constraint; /* from the constraints (-c): binds the project, does not ask for it */
	size_t level; /* the level whose pick added it; NONE for the request and the constraints */
};

struct want {
	char *project, *display;
	struct contrib *c;
	size_t nc, cap_c;
	char **extras;
	size_t nextras, cap_extras;
	long picked;              /* candidate index, -1 not yet */
	char *reason;
	struct wp_plan_reject *rejects;
	size_t n_rejects;
};

/* What a want held before a level added to it: its contributions and extras past these counts
 * are that level's. */
struct undo {
	size_t want, nc, nextras;
};

WP_VEC_OF(undo_vec, struct undo);

struct state {
	struct want *w;
	size_t n, cap;
	struct wp_name_index ix;     /* the wants' project names */
	struct undo_vec trail;    /* additions to wants older than the level that made them */
	char *variant;            /* the set's shared variant label, or NULL */
	size_t variant_level;     /* the level whose pick chose it */
};

static void rejects_free(struct wp_plan_reject *r, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(r[k].where), free(r[k].why);
	free(r);
}

static void contribs_truncate(struct want *w, size_t nc, size_t nextras)
{
	for (size_t k = nc; k < w->nc; k++) {
		wp_specset_release(&w->c[k].spec);
		free(w->c[k].text), free(w->c[k].by);
	}
	w->nc = nc;
	for (size_t k = nextras; k < w->nextras; k++)
		free(w->extras[k]);
	w->nextras = nextras;
}

static void want_free(struct want *w)
{
	contribs_truncate(w, 0, 0);
	free(w->project), free(w->display), free(w->reason);
	free(w->c);
	free(w->extras);
	rejects_free(w->rejects, w->n_rejects);
}

static void state_free(struct state *s)
{
	for (size_t i = 0; i < s->n; i++)
		want_free(&s->w[i]);
	free(s->w);
	wp_name_index_free(&s->ix);
	wp_vec_free(&s->trail);
	free(s->variant);
	memset(s, 0, sizeof(*s));
}

static void specset_copy(struct wp_specset *dst, const struct wp_specset *src)
{
	*dst = (struct wp_specset)WP_SPECSET_INIT;
	dst->prereleases = src->prereleases;
	dst->specs = wp_xcalloc(src->n ? src->n : 1, sizeof(*dst->specs));
	for (size_t i = 0; i < src->n; i++)
		wp_specifier_copy(&dst->specs[i], &src->specs[i]);
	dst->n = src->n;
}

static struct wp_plan_reject *rejects_copy(const struct wp_plan_reject *r, size_t n)
{
	struct wp_plan_reject *out = wp_xcalloc(n ? n : 1, sizeof(*out));
	for (size_t k = 0; k < n; k++)
		out[k].where = dupn(r[k].where), out[k].why = dupn(r[k].why);
	return out;
}

static void add_contrib(struct want *w, const struct wp_specset *spec, const char *by,
			bool constraint, size_t level)
{
	struct wp_buf text = WP_BUF_INIT;
	wp_specset_format(spec, &text);
	wp_vec_reserve_((void **)&w->c, &w->cap_c, w->nc + 1, sizeof(*w->c));
	specset_copy(&w->c[w->nc].spec, spec);
	w->c[w->nc].text = wp_buf_detach(&text, NULL);
	w->c[w->nc].by = dupn(by);
	w->c[w->nc].constraint = constraint;
	w->c[w->nc].level = level;
	w->nc++;
}

/* Adds a requirement that level's pick makes (NONE: the request) to the state, merging into an
 * existing want, whose counts go on the trail first; a project new to the state takes the
 * constraints that name it. Returns the want's index. */
static size_t add_want(const struct ctx *x, struct state *s, const struct wp_requirement *req,
		       const char *by, size_t level)
{
	struct wp_buf canon = WP_BUF_INIT;
	wp_project_name_normalize(req->name, strlen(req->name), &canon);
	size_t i = wp_name_index_find(&s->ix, canon.data);
	if (i != NONE) {
		wp_vec_push(&s->trail, (struct undo){ .want = i,
						      .nc = s->w[i].nc,
						      .nextras = s->w[i].nextras });
	} else {
		i = s->n;
		wp_vec_reserve_((void **)&s->w, &s->cap, s->n + 1, sizeof(*s->w));
		memset(&s->w[i], 0, sizeof(s->w[i]));
		s->w[i].project = wp_buf_detach(&canon, NULL);
		s->w[i].display = wp_xstrdup(req->name);
		s->w[i].picked = -1;
		s->n++;
		wp_name_index_push(&s->ix, s->w[i].project);
		for (size_t k = 0; k < x->ncons; k++) {
			if (x->cons_on[k] && !strcmp(x->cons[k]->project, s->w[i].project))
				add_contrib(&s->w[i], &x->cons[k]->r.spec, "a constraint", true,
					    NONE);
		}
	}
	wp_buf_free(&canon);
	struct want *w = &s->w[i];
	add_contrib(w, &req->spec, by, false, level);
	for (size_t e = 0; e < req->nextras; e++) {
		bool have = false;
		for (size_t k = 0; k < w->nextras && !have; k++)
			have = !strcmp(w->extras[k], req->extras[e]);
		if (!have) {
			wp_vec_push_fields(w->extras, w->nextras, w->cap_extras,
					   wp_xstrdup(req->extras[e]));
		}
	}
	return i;
}

/* Every contribution's specifiers in one set, plus "!=V" for versions already tried here. */
static size_t merged_spec(const struct want *w, char *const *excluded, char *const *ex_why,
			  size_t nex, struct wp_specset *out, struct wp_buf *text,
			  const char **why_out)
{
	size_t n = 0;
	for (size_t k = 0; k < w->nc; k++)
		n += w->c[k].spec.n;
	*out = (struct wp_specset)WP_SPECSET_INIT;
	out->specs = wp_xcalloc(n + nex + 1, sizeof(*out->specs));
	for (size_t k = 0; k < w->nc; k++) {
		for (size_t j = 0; j < w->c[k].spec.n; j++)
			wp_specifier_copy(&out->specs[out->n++], &w->c[k].spec.specs[j]);
		if (w->c[k].text && *w->c[k].text)
			wp_buf_printf(text, "%s%s", text->len ? "," : "", w->c[k].text);
	}
	size_t n_own = out->n;
	for (size_t k = 0; k < nex; k++) {
		char ne[160];
		struct wp_err e = WP_ERR_INIT;
		snprintf(ne, sizeof(ne), "!=%s", excluded[k]);
		if (wp_specifier_parse(&out->specs[out->n], ne, strlen(ne), &e) == 0) {
			if (why_out)
				why_out[out->n - n_own] = ex_why ? ex_why[k] : NULL;
			out->n++;
		}
	}
	return out->n - n_own; /* the versions given up: spec's last ones */
}

/* " (torchvision 0.9.0 needs torch==1.8.0)" for messages. */
static void who_wants(const struct want *w, struct wp_buf *out)
{
	bool any = false;
	for (size_t k = 0; k < w->nc; k++) {
		if (!w->c[k].by)
			continue;
		if (w->c[k].constraint)
			wp_buf_printf(out, "%sthe constraints (-c) hold %s to %s",
				      any ? "; " : " (", w->display,
				      w->c[k].text && *w->c[k].text ? w->c[k].text : "any version");
		else
			wp_buf_printf(out, "%s%s needs %s%s", any ? "; " : " (", w->c[k].by,
				      w->display,
				      w->c[k].text && *w->c[k].text ? w->c[k].text : "");
		any = true;
	}
	if (any)
		wp_buf_addch(out, ')');
}

struct solver {
	struct ctx *x;
	const struct wp_target *t;
	const struct wp_tagset *ts;
	const struct wp_marker_env *env;
	const char **avoid;
	size_t navoid;
	bool variant_blame;
	char *last_variant;         /* the set's variant when it was to blame */
	unsigned steps;
	size_t read_ahead; /* wants before this index have had their pages and metadata read ahead
			    */
	struct wp_buf root_cause; /* the first reason anything failed (for the variant restart's
				     note) */
	struct wp_buf last_cause;   /* the reason the newest version given up was given up */
	bool bad_metadata;          /* last_cause is a file's invalid metadata */
	char why[256];              /* add_deps's reason when it names a project */
	char impossible_dep[128]; /* add_deps gave the version up for this project, of which no
				     version can be had */
};

/* Why a level ran out, carried back with the search: the text, and when it was a pick that found
 * nothing, the project and each of its files with why (for --json and --explain). */
struct cause {
	char *text, *project;
	struct wp_plan_reject *rejects;
	size_t n_rejects;
	bool bad_metadata; /* the text speaks of a file's invalid metadata: exit 4, not 1 */
};

static void set_root_cause(struct solver *sv, const char *text)
{
	if (!sv->root_cause.len)
		wp_buf_addstr(&sv->root_cause, text);
	wp_buf_reset(&sv->last_cause);
	wp_buf_addstr(&sv->last_cause, text);
	sv->bad_metadata = false;
}

static void cause_free(struct cause *c)
{
	free(c->text), free(c->project);
	rejects_free(c->rejects, c->n_rejects);
	memset(c, 0, sizeof(*c));
}

/* dst takes src's cause when it has none yet (the first reason a level gave a version up is
 * what started its going back); src is left empty. */
static void cause_move(struct cause *dst, struct cause *src)
{
	if (!dst->text) {
		*dst = *src;
		memset(src, 0, sizeof(*src));
	}
	cause_free(src);
}

static void public_of(const char *version, char *out, size_t n)
{
	struct wp_version v;
	struct wp_err e = WP_ERR_INIT;
	struct wp_buf b = WP_BUF_INIT;
	snprintf(out, n, "%s", version);
	if (wp_version_parse(&v, version, strlen(version), &e) == 0) {
		wp_version_format_public(&v, &b);
		snprintf(out, n, "%s", b.data);
		wp_version_release(&v);
	}
	wp_buf_free(&b);
}

/* Does want w's pick satisfy spec? (Its project's files were read when it was picked.) */
static bool picked_satisfies(struct solver *sv, const struct want *w, const struct wp_specset *spec)
{
	struct proj *pf = find_proj(sv->x, w->project);
	struct wp_version v;
	struct wp_err e = WP_ERR_INIT;
	if (!pf || w->picked < 0)
		return true;
	const char *ver = pf->files.c[w->picked].version;
	if (wp_version_parse(&v, ver, strlen(ver), &e) < 0)
		return false;
	bool ok = wp_specset_contains(spec, &v, WP_PRERELEASES_YES);
	wp_version_release(&v);
	return ok;
}

/* The pick for want w with the versions in excluded ruled out; any_variant drops the set's
 * variant (to learn whether the variant is what stops it). Unlabeled torch wheels that could be
 * the pick have their metadata read first (all that could matter, in one read-ahead), so that
 * their variant is known. < 0 when that metadata cannot be read. */
/* Past this many versions given up, a pick looks at a window of the view after them (pick_fast). */
#define FAST_AFTER 4
#define FAST_WINDOW 16

/* sk follows excluded (which only grows) through pf's view: whole versions at the view's head that
 * excluded names all of are passed over, and their exclusions marked covered. */
static void skip_advance(struct proj *pf, struct skip *sk, char *const *excluded, size_t nex)
{
	const struct view *v = &pf->view;
	if (sk->gen != v->gen) {
		sk->at = 0;
		if (sk->covered)
			memset(sk->covered, 0, sk->cap * sizeof(*sk->covered));
		sk->gen = v->gen;
	}
	if (nex > sk->cap) {
		size_t cap = nex * 2;
		sk->covered = wp_xrealloc(sk->covered, cap * sizeof(*sk->covered));
		memset(sk->covered + sk->cap, 0, (cap - sk->cap) * sizeof(*sk->covered));
		sk->cap = cap;
	}
	for (; sk->nseen < nex; sk->nseen++)
		wp_name_index_push(&sk->ix, excluded[sk->nseen]);
	while (sk->at < v->n) {
		size_t e = sk->at;
		do {
			if (wp_name_index_find(&sk->ix, v->pub[e]) == NONE)
				return;
			e++;
		} while (e < v->n && !v->starts[e]);
		for (size_t i = sk->at; i < e; i++)
			sk->covered[wp_name_index_find(&sk->ix, v->pub[i])] = true;
		sk->at = e;
	}
}

static int pick_want_all(struct solver *sv, const struct state *s, const struct want *w,
			 struct proj *pf, char *const *excluded, char *const *ex_why, size_t nex,
			 bool any_variant, bool reasons, struct wp_pick_result *res,
			 struct wp_err *err);

/* pick_want for a want with many versions given up (nex past FAST_AFTER), without reasons, of a
 * project given whole and with no variants: the same pick, found in a window of its view after the
 * versions given up (wp_pick's partial request: the files left out after the window are each older
 * than those in it, and those before it are all given up), the window grown until the pick stands.
 * 1: res holds the pick (indexes into pf->files); 0: not for this path (res untouched). */
static int pick_fast(struct solver *sv, const struct state *s, const struct want *w,
		     struct proj *pf, char *const *excluded, char *const *ex_why, size_t nex,
		     struct skip *sk, struct wp_pick_result *res, struct wp_err *err)
{
	if (!pf->view.built)
		view_build(pf);
	skip_advance(pf, sk, excluded, nex);
	const struct view *v = &pf->view;
	/* the exclusions the skipped head does not cover stay "!=V" */
	char **ex = wp_xcalloc(nex + 1, sizeof(*ex)), **why = wp_xcalloc(nex + 1, sizeof(*why));
	size_t nx = 0;
	for (size_t k = 0; k < nex; k++)
		if (!sk->covered[k]) {
			ex[nx] = excluded[k];
			why[nx++] = ex_why ? ex_why[k] : NULL;
		}
	struct wp_specset spec;
	struct wp_buf spec_text = WP_BUF_INIT;
	const char **given_why = wp_xcalloc(nx + 1, sizeof(*given_why));
	size_t n_given = merged_spec(w, ex, why, nx, &spec, &spec_text, given_why);
	struct wp_pick_request req = {
		.project = w->project,
		.spec_text = spec_text.len ? spec_text.data : "",
		.spec = &spec,
		.n_given_up = n_given,
		.given_up_why = given_why,
		.pre = sv->x->o->pre,
		.asks = sv->x->o->asks,
	};
	int done = 0;
	size_t start = sk->at;
	for (size_t width = FAST_WINDOW;; width *= 4) {
		size_t end = start + width < v->n ? start + width : v->n;
		while (end < v->n && !v->starts[end])
			end++; /* a version's files all in, or all out */
		req.partial = end < v->n;
		wp_pick(v->c + start, end - start, &req, sv->t, sv->ts, res, err);
		if (res->incomplete && end < v->n) {
			wp_pick_result_release(res);
			continue;
		}
		break;
	}
	if (res->incomplete || res->needs_metadata >= 0 || res->untrusted >= 0 || res->n_pending) {
		wp_pick_result_release(res); /* the whole list decides these */
	} else {
		if (res->chosen >= 0)
			res->chosen = (long)v->ix[start + (size_t)res->chosen];
		done = 1;
	}
	wp_specset_release(&spec);
	wp_buf_free(&spec_text);
	free(given_why);
	free(ex);
	free(why);
	return done;
}

/* The pick for want w among pf's files, the versions in excluded left out (given up, with ex_why).
 * sk (may be NULL) follows excluded across calls, for pick_fast. */
static int pick_want(struct solver *sv, const struct state *s, const struct want *w,
		     struct proj *pf, char *const *excluded, char *const *ex_why, size_t nex,
		     struct skip *sk, bool any_variant, bool reasons, struct wp_pick_result *res,
		     struct wp_err *err)
{
	if (sk && nex > FAST_AFTER && !reasons && !sv->x->o->explain && !pf->has_variants &&
	    !pf->files.partial && pick_fast(sv, s, w, pf, excluded, ex_why, nex, sk, res, err))
		return 0;
	return pick_want_all(sv, s, w, pf, excluded, ex_why, nex, any_variant, reasons, res, err);
}

static int pick_want_all(struct solver *sv, const struct state *s, const struct want *w,
			 struct proj *pf, char *const *excluded, char *const *ex_why, size_t nex,
			 bool any_variant, bool reasons, struct wp_pick_result *res,
			 struct wp_err *err)
{
	struct wp_specset spec;
	struct wp_buf spec_text = WP_BUF_INIT;
	const struct wp_solve_provider *p = sv->x->p;
	int rc = 0;
	bool read_ahead_done = false;
	const char **given_why = wp_xcalloc(nex + 1, sizeof(*given_why));
	size_t n_given = merged_spec(w, excluded, ex_why, nex, &spec, &spec_text, given_why);
	struct wp_pick_request req = {
		.project = w->project,
		.spec_text = spec_text.len ? spec_text.data : "",
		.spec = &spec,
		.n_given_up = n_given,
		.given_up_why = given_why,
		.pre = sv->x->o->pre,
		.require_variant = pf->has_variants && !any_variant ? s->variant : NULL,
		.avoid_variants = pf->has_variants ? sv->avoid : NULL,
		.n_avoid = pf->has_variants ? sv->navoid : 0,
		.reasons = reasons || sv->x->o->explain,
		.asks = sv->x->o->asks,
		/* with one target each file is parsed about once: a memo would cost more than it
		 * saves (the 10,000-project solve) */
		.memo = sv->x->plan->n_targets > 1 ? &pf->memo : NULL,
	};
	for (;;) {
		req.partial = pf->files.partial;
		wp_pick(pf->files.c, pf->files.n, &req, sv->t, sv->ts, res, err);
		if (res->incomplete) {
			/* older files could change this pick: read them, and pick again */
			wp_pick_result_release(res);
			if ((rc = more_files(sv->x, pf, err)) < 0) {
				res->chosen = -1;
				break;
			}
			continue;
		}
		if (res->needs_metadata < 0)
			break;
		if (!read_ahead_done && p->read_deps && res->n_pending > 1) {
			const struct wp_candidate **cands = wp_xcalloc(res->n_pending,
								       sizeof(*cands));
			for (size_t k = 0; k < res->n_pending; k++)
				cands[k] = &pf->files.c[res->pending[k]];
			p->read_deps(p->ctx, cands, res->n_pending);
			free(cands);
			read_ahead_done = true;
		}
		rc = learn_variant(sv->x, pf, (size_t)res->needs_metadata, err);
		wp_pick_result_release(res);
		if (rc < 0) {
			res->chosen = -1;
			break;
		}
	}
	wp_specset_release(&spec);
	wp_buf_free(&spec_text);
	free(given_why);
	return rc;
}

/* Tell the provider what the wants from `from` on will need, before solve decides them one by
 * one: their projects' files (the provider may read every missing page at once), then the
 * metadata of each one's likely pick. A round of new dependencies then costs the provider one
 * round trip, not one per project. A guess that backtracking later overrules costs one read. */
static void read_ahead(struct solver *sv, const struct state *s, size_t from)
{
	struct ctx *x = sv->x;
	const struct wp_solve_provider *p = x->p;
	size_t n = s->n - from;
	sv->read_ahead = s->n;
	if (!n)
		return;
	if (p->read_projects) {
		const char **names = wp_xcalloc(n, sizeof(*names));
		size_t nn = 0;
		for (size_t j = from; j < s->n; j++) {
			const struct proj *pf = find_proj(x, s->w[j].project);
			if (!pf || !pf->read)
				names[nn++] = s->w[j].project;
		}
		if (nn)
			p->read_projects(p->ctx, names, nn);
		free(names);
	}
	if (!p->read_deps || x->o->no_deps)
		return;
	const struct wp_candidate **cands = wp_xcalloc(n, sizeof(*cands));
	size_t nc = 0;
	for (size_t j = from; j < s->n; j++) {
		const struct want *w = &s->w[j];
		struct wp_err e = WP_ERR_INIT;
		struct proj *pf = files_of(x, w->project, &e);
		if (!pf || w->picked >= 0)
			continue;
		struct wp_pick_result res;
		if (pick_want(sv, s, w, pf, NULL, NULL, 0, NULL, false, false, &res, &e) == 0 &&
		    res.chosen >= 0)
			cands[nc++] = &pf->files.c[res.chosen];
		wp_pick_result_release(&res);
	}
	if (nc)
		p->read_deps(p->ctx, cands, nc);
	free(cands);
}

/* Does the Requires-Python of a file's own metadata admit the target? Indexes that publish no
 * data-requires-python (download.pytorch.org) leave this to METADATA; pip then refuses what
 * does not fit, so the solver must too. An unreadable value is ignored, as pip ignores it. */
static bool metadata_python_fits(const char *requires_python, const struct wp_target *t)
{
	struct wp_specset rp;
	struct wp_version pv;
	struct wp_err e = WP_ERR_INIT;
	char py[32];
	bool ok = true;
	if (!requires_python || !*requires_python)
		return true;
	if (wp_specset_parse(&rp, requires_python, strlen(requires_python), &e) < 0)
		return true;
	snprintf(py, sizeof(py), "%d.%d.%d", t->py_major, t->py_minor,
		 t->py_micro < 0 ? 0 : t->py_micro);
	if (wp_version_parse(&pv, py, strlen(py), &e) == 0) {
		ok = wp_specset_contains(&rp, &pv, WP_PRERELEASES_YES);
		wp_version_release(&pv);
	}
	wp_specset_release(&rp);
	return ok;
}

/* What want i's dependencies add to the state (on the trail). 1 with *why when this version cannot
 * stay (one of them rules out an earlier pick, whose level goes to *blame, or names a URL), 0 when
 * they were added, < 0 on an error. */
static int add_deps(struct solver *sv, struct state *s, size_t i, const char *by,
		    const struct wp_candidate *c, const struct wp_solve_deps *m, const char **why,
		    size_t *blame, struct wp_err *err)
{
	struct ctx *x = sv->x;
	/* PEP 825: variant markers speak of the picked wheel's label and the properties the target
	 * supports */
	struct wp_marker_env venv = *sv->env;
	wp_pick_variant_marker_env(&venv, c, sv->t);
	for (size_t k = 0; k < m->n; k++) {
		const struct wp_req *q = &m->reqs[k];
		const struct wp_requirement *dep = &q->r;
		struct wp_err pe = WP_ERR_INIT;
		if (!q->ok) {
			/* pip (24.1 on) refuses such metadata and ignores that version: so do we,
			 * rather than install it without a dependency it declares */
			char *cause =
				wp_xasprintf("%s (%s) has invalid metadata: Requires-Dist '%s' is not PEP 508 (%s; "
					     "from %s); pip refuses such metadata, and so does wheelpick",
					     by, c->filename, q->text, q->why ? q->why : "?",
					     m->source ? m->source : "its METADATA");
			set_root_cause(sv, cause);
			free(cause);
			sv->bad_metadata = true;
			*why = "its metadata has an unreadable Requires-Dist";
			return 1;
		}
		bool applies = !dep->has_marker, undefined = false;
		for (size_t e = 0;
		     dep->has_marker && e <= s->w[i].nextras && !applies && !undefined; e++) {
			struct wp_marker_env env = venv;
			snprintf(env.extra, sizeof(env.extra), "%s",
				 e < s->w[i].nextras ? s->w[i].extras[e] : "");
			bool yes = false;
			if (wp_marker_evaluate(&dep->marker, &env, &yes, &pe) < 0)
				undefined = true;
			else if (yes)
				applies = true;
		}
		if (undefined) {
			/* the dependency-specifiers text: a marker that cannot be evaluated here
			 * (extras outside a lock file, ~= on a String field) "SHOULD render a
			 * package version ineligible", rather than install it with or without that
			 * dependency */
			char *cause = wp_xasprintf("%s (%s) has a Requires-Dist marker wheelpick cannot evaluate: '%s' (%s; "
						   "from %s)",
						   by, c->filename, q->text, pe.msg,
						   m->source ? m->source : "its METADATA");
			set_root_cause(sv, cause);
			free(cause);
			sv->bad_metadata = true;
			*why = "a Requires-Dist marker cannot be evaluated";
			return 1;
		}
		if (!applies)
			continue;
		if (dep->url) {
			/* a direct reference is not an index's to satisfy: taking the index's file
			 * of that name instead would install something else than the metadata asks
			 * for */
			char *cause =
				wp_xasprintf("%s needs '%s' from a URL; wheelpick takes files from indexes only "
					     "(fetch that file yourself, or pin another version of %s)",
					     by, q->text, s->w[i].display);
			set_root_cause(sv, cause);
			free(cause);
			*why = "it needs a file by URL";
			return 1;
		}
		if (s->n >= x->max_projects) {
			return wp_fail(err, -WPE_LIMIT,
				       "more than %zu projects in one resolution; pin versions or use %s",
				       x->max_projects, wp_ask_words(x->o->asks, WP_ASK_NO_DEPS));
		}
		size_t j = add_want(x, s, dep, by, i);
		const struct proj *pj0 = find_proj(x, s->w[j].project);
		if (pj0 && pj0->impossible) {
			/* a project found to have no version the target can take: this version
			 * cannot stay */
			set_root_cause(sv, pj0->impossible_why ? pj0->impossible_why : "");
			snprintf(sv->why, sizeof(sv->why),
				 "it needs %s, of which no version can be had", s->w[j].display);
			snprintf(sv->impossible_dep, sizeof(sv->impossible_dep), "%s",
				 s->w[j].display);
			*why = sv->why;
			return 1;
		}
		/* an earlier pick that this requirement rules out: this version cannot stay */
		if (j <= i && !picked_satisfies(sv, &s->w[j], &dep->spec)) {
			struct wp_buf b = WP_BUF_INIT;
			struct proj *pj = find_proj(x, s->w[j].project);
			wp_buf_printf(&b, "%s needs %s, but %s %s was picked", by, q->text,
				      s->w[j].display,
				      pj && s->w[j].picked >= 0 ?
					      pj->files.c[s->w[j].picked].version :
					      "?");
			set_root_cause(sv, b.data);
			wp_buf_free(&b);
			*why = "it conflicts with an earlier pick";
			*blame = j;
			return 1;
		}
	}
	return 0;
}

/* The newer versions of a want that were tried and given up, for its reason. */
static void say_skipped(struct want *w, char *const *excluded, char *const *why, size_t nex)
{
	if (!nex)
		return;
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, w->reason ? w->reason : "");
	wp_buf_addstr(&b, "; newer versions were given up: ");
	/* the first few: a want past thousands of versions given up says how many, not each */
	const size_t shown = 16;
	for (size_t k = 0; k < nex && k < shown; k++)
		wp_buf_printf(&b, "%s%s (%s)", k ? ", " : "", excluded[k], why[k]);
	if (nex > shown)
		wp_buf_printf(&b, " and %zu more", nex - shown);
	free(w->reason);
	w->reason = wp_buf_detach(&b, NULL);
}

/* Every file of the project that the request admits, with the reason it was rejected, into out
 * (for --json and --explain): the others are not what went wrong. */
static void failed_rejects(struct solver *sv, const struct state *s, const struct want *w,
			   struct proj *pf, struct cause *out)
{
	struct wp_pick_result why;
	struct wp_err we = WP_ERR_INIT;
	if (pick_want(sv, s, w, pf, NULL, NULL, 0, NULL, false, true, &why, &we) == 0) {
		/* the files the request admits: the others are not what went wrong */
		struct wp_specset spec;
		struct wp_buf st = WP_BUF_INIT;
		merged_spec(w, NULL, NULL, 0, &spec, &st, NULL);
		out->project = wp_xstrdup(w->display);
		out->rejects = wp_xcalloc(why.n_rejects ? why.n_rejects : 1, sizeof(*out->rejects));
		for (size_t k = 0; k < why.n_rejects; k++) {
			const struct wp_candidate *rc_ = &pf->files.c[why.rejects[k].index];
			struct wp_version v;
			struct wp_err ve = WP_ERR_INIT;
			bool in = true;
			if (wp_version_parse(&v, rc_->version, strlen(rc_->version), &ve) == 0) {
				in = wp_specset_contains(&spec, &v, WP_PRERELEASES_YES);
				wp_version_release(&v);
			}
			if (!in)
				continue;
			struct wp_plan_reject *r = &out->rejects[out->n_rejects++];
			r->where = plan_where(rc_);
			r->why = wp_xstrdup(why.rejects[k].why);
		}
		wp_specset_release(&spec);
		wp_buf_free(&st);
	}
	wp_pick_result_release(&why);
}

/* Nothing is left for want w at its level, and no version was tried there: say why in out. */
static void explain_nothing_fits(struct solver *sv, const struct state *s, const struct want *w,
				 struct proj *pf, const struct wp_pick_result *res,
				 struct cause *out)
{
	struct wp_buf b = WP_BUF_INIT;
	if (pf->hash_listed && !pf->files.n)
		wp_buf_printf(&b,
			      "no file of %s has a sha256 among the --hash values given for it (%zu "
			      "file(s) of it are listed, with other hashes or none)",
			      w->display, pf->hash_dropped);
	else
		wp_buf_addstr(&b, res->message);
	if (pf->hash_listed && pf->files.n && pf->hash_dropped)
		wp_buf_printf(&b,
			      "; %zu other file(s) of %s were left out: their sha256 is not among its "
			      "--hash values",
			      pf->hash_dropped, w->display);
	who_wants(w, &b);
	failed_rejects(sv, s, w, pf, out);
	set_root_cause(sv, b.data);
	out->text = wp_buf_detach(&b, NULL);
	if (pf->has_variants && s->variant) {
		struct wp_pick_result alt;
		struct wp_err ae = WP_ERR_INIT;
		if (pick_want(sv, s, w, pf, NULL, NULL, 0, NULL, true, false, &alt, &ae) == 0 &&
		    alt.chosen >= 0) {
			/* the set's variant, not the versions, is what stops this project */
			sv->variant_blame = true;
			free(sv->last_variant);
			sv->last_variant = dupn(s->variant);
			free(sv->root_cause.data);
			sv->root_cause = (struct wp_buf)WP_BUF_INIT;
			wp_buf_addstr(&sv->root_cause, res->message);
			who_wants(w, &sv->root_cause);
		}
		wp_pick_result_release(&alt);
	}
}

/* --- the search: one level per want, on an explicit stack, jumping back to what is to blame --- */

/* Levels, ascending, without repeats: those whose picks a failure depends on. */
WP_VEC_OF(level_set, size_t);

static void blame_add(struct level_set *b, size_t level)
{
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (b->v[mid] < level)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < b->n && b->v[lo] == level)
		return;
	wp_vec_reserve_((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v));
	memmove(&b->v[lo + 1], &b->v[lo], (b->n - lo) * sizeof(*b->v));
	b->v[lo] = level;
	b->n++;
}

/* Level k picks want k. While it holds a pick, n_wants and trail mark the state as it was before
 * that pick's dependencies were added: giving the pick up restores exactly that. blame collects
 * the earlier levels whose picks the versions given up here, and the want's requirements, depend
 * on (conflict-directed backjumping: when the level runs out, the search goes back to the
 * newest of them, since no level after it can change what ran out). */
struct level {
	char **excluded, **ex_why; /* versions of the want given up at this level, and why (owned)
				    */
	size_t nex, cap_ex, cap_ex_why;
	char *pub; /* the public version of the current pick (owned), NULL: none */
	size_t n_wants, trail;
	bool set_variant;            /* the current pick chose the set's variant */
	struct skip skip;            /* where excluded reaches in the want's files (pick_want) */
	struct level_set blame;
	struct cause cause; /* why its first version given up was (or why it found nothing) */
};

WP_VEC_OF(level_vec, struct level);

static void level_free(struct level *l)
{
	for (size_t k = 0; k < l->nex; k++)
		free(l->excluded[k]), free(l->ex_why[k]);
	free(l->excluded), free(l->ex_why), free(l->pub);
	wp_vec_free(&l->blame);
	cause_free(&l->cause);
	skip_free(&l->skip);
	memset(l, 0, sizeof(*l));
}

/* Takes level i's current pick back: the state returns to what it was before it. */
static void undo_pick(struct solver *sv, struct state *s, struct level *l, size_t i)
{
	for (size_t t = s->trail.n; t-- > l->trail;) {
		const struct undo *u = &s->trail.v[t];
		if (u->want < l->n_wants) /* wants added at this level are freed whole below */
			contribs_truncate(&s->w[u->want], u->nc, u->nextras);
	}
	s->trail.n = l->trail;
	while (s->n > l->n_wants) {
		wp_name_index_pop(&s->ix);
		want_free(&s->w[--s->n]);
	}
	struct want *w = &s->w[i];
	w->picked = -1;
	free(w->reason);
	w->reason = NULL;
	rejects_free(w->rejects, w->n_rejects);
	w->rejects = NULL;
	w->n_rejects = 0;
	if (l->set_variant) {
		free(s->variant);
		s->variant = NULL;
		s->variant_level = NONE;
		l->set_variant = false;
	}
	/* the wants found again after this are read ahead again */
	if (sv->read_ahead > s->n)
		sv->read_ahead = s->n;
}

/* A version the level will not pick again (pub is taken over), and why. */
static void exclude(struct level *l, char *pub, const char *why)
{
	wp_vec_reserve_((void **)&l->excluded, &l->cap_ex, l->nex + 1, sizeof(*l->excluded));
	wp_vec_reserve_((void **)&l->ex_why, &l->cap_ex_why, l->nex + 1, sizeof(*l->ex_why));
	l->excluded[l->nex] = pub;
	l->ex_why[l->nex++] = wp_xstrdup(why);
}

/* Gives up level i's current pick: taken back, and its version joins the level's excluded ones
 * with why. */
static void give_up_pick(struct solver *sv, struct state *s, struct level *l, size_t i,
			 const char *why)
{
	undo_pick(sv, s, l, i);
	exclude(l, l->pub, why);
	l->pub = NULL;
}

/* Level i is entered: the wants found so far are read ahead, and its project's files read. */
static int enter_level(struct solver *sv, const struct state *s, size_t i, struct wp_err *err)
{
	if (i >= sv->read_ahead)
		read_ahead(sv, s, i);
	if (!files_of(sv->x, s->w[i].project, err))
		return err->code ? err->code : -WPE_SOURCE;
	return 0;
}

/* Level i ran out: what it had to choose from was set by the requirements on its want (the levels
 * that made them) and by the set's variant (the level that chose it). */
static void blame_requirements(const struct state *s, struct level *l, size_t i,
			       const struct proj *pf)
{
	const struct want *w = &s->w[i];
	for (size_t k = 0; k < w->nc; k++)
		if (w->c[k].level != NONE && w->c[k].level < i)
			blame_add(&l->blame, w->c[k].level);
	if (pf->has_variants && s->variant && s->variant_level != NONE && s->variant_level < i)
		blame_add(&l->blame, s->variant_level);
}

/* Want j (picked) was what version pub of pf conflicted with: remembered with j's version. */
static void remember_clash(struct solver *sv, const struct state *s, struct proj *pf,
			   const char *pub, size_t j)
{
	const struct proj *pj = find_proj(sv->x, s->w[j].project);
	if (!pj || s->w[j].picked < 0)
		return;
	wp_vec_push_fields(pf->clash, pf->nclash, pf->cap_clash,
			   (struct clash){
				   .pub = wp_xstrdup(pub),
				   .other = wp_xstrdup(s->w[j].project),
				   .other_ver = wp_xstrdup(pj->files.c[s->w[j].picked].version),
				   .cause = dupn(sv->last_cause.data),
			   });
}

/* The clash of version pub of pf with a pick that stands now, or NULL; *j gets that pick's want. */
static const struct clash *clash_at(struct solver *sv, const struct state *s, const struct proj *pf,
				    const char *pub, size_t *j)
{
	for (size_t k = 0; k < pf->nclash; k++) {
		const struct clash *c = &pf->clash[k];
		if (strcmp(c->pub, pub) != 0)
			continue;
		*j = wp_name_index_find(&s->ix, c->other);
		const struct proj *pj = *j == NONE ? NULL : find_proj(sv->x, c->other);
		if (pj && s->w[*j].picked >= 0 &&
		    !strcmp(pj->files.c[s->w[*j].picked].version, c->other_ver))
			return c;
	}
	return NULL;
}

/* Does no version of pf fit the target, whatever is asked of it, once the versions that cannot be
 * had are left out? (A project with variants is left alone: the set's variant decides there.) */
static bool project_impossible(struct solver *sv, const struct state *s, const struct want *w,
			       struct proj *pf)
{
	if (pf->has_variants)
		return false;
	struct want bare = { .project = w->project, .display = w->display, .picked = -1 };
	struct wp_pick_result r;
	struct wp_err e = WP_ERR_INIT;
	bool none = pick_want(sv, s, &bare, pf, pf->dead, pf->dead_why, pf->ndead, &pf->dead_skip,
			      false, false, &r, &e) == 0 &&
		    r.chosen < 0;
	wp_pick_result_release(&r);
	return none;
}

/* Each version given up and each level run out is a step back; a first pick is free, and so is
 * picking a level again after a jump (at most one pick per want per step back). */
static int count_step(struct solver *sv, struct wp_err *err)
{
	if (++sv->steps > sv->x->max_steps)
		return wp_fail(err, -WPE_LIMIT,
			       "the dependency graph needs more than %u choices; pin versions to help",
			       sv->x->max_steps);
	return 0;
}

/* Level i's next pick: its want's best version not yet given up there, with its dependencies
 * added. 1: picked; 0: that version was given up at once (the level tries again); -WPE_NOMATCH:
 * nothing is left at this level; other < 0: an error no other version cures. */
static int next_pick(struct solver *sv, struct state *s, struct level *l, size_t i,
		     struct wp_err *err)
{
	struct ctx *x = sv->x;
	struct proj *pf = files_of(x, s->w[i].project, err);
	if (!pf)
		return err->code ? err->code : -WPE_SOURCE;
	struct wp_pick_result res;
	int rc = pick_want(sv, s, &s->w[i], pf, l->excluded, l->ex_why, l->nex, &l->skip, false,
			   false, &res, err);
	if (rc < 0) {
		wp_pick_result_release(&res);
		return rc;
	}
	if (res.untrusted >= 0) {
		/* no other version or build is tried in its place: that would substitute it
		 * silently */
		const struct wp_candidate *u = &pf->files.c[res.untrusted];
		if (!x->plan->untrusted_url) {
			x->plan->untrusted_url = wp_xstrdup(u->url);
			x->plan->untrusted_why = dupn(res.message);
		}
		rc = wp_fail(err, -WPE_UNTRUSTED, "%s; check the source, then %s", res.message,
			     wp_ask_words(x->o->asks, WP_ASK_TRUST));
		wp_pick_result_release(&res);
		return rc;
	}
	if (res.chosen < 0) {
		if (!l->nex)
			explain_nothing_fits(sv, s, &s->w[i], pf, &res, &l->cause);
		wp_pick_result_release(&res);
		blame_requirements(s, l, i, pf);
		if (!pf->impossible && project_impossible(sv, s, &s->w[i], pf)) {
			pf->impossible = true;
			pf->impossible_why = dupn(l->cause.text);
		}
		return (rc = count_step(sv, err)) < 0 ? rc : -WPE_NOMATCH;
	}
	const struct wp_candidate *c = &pf->files.c[res.chosen];
	char pub[128];
	public_of(c->version, pub, sizeof(pub));
	size_t dead = dead_at(pf, pub);
	if (dead != NONE) {
		/* given up before for a reason no other pick could change: no need to find it
		 * again */
		exclude(l, wp_xstrdup(pub), pf->dead_why[dead]);
		if (!l->cause.text)
			l->cause.text = dupn(pf->dead_cause[dead]);
		wp_pick_result_release(&res);
		return 0;
	}
	size_t j;
	const struct clash *cl = clash_at(sv, s, pf, pub, &j);
	if (cl) {
		/* it conflicted with this very pick of want j before */
		exclude(l, wp_xstrdup(pub), "it conflicts with an earlier pick");
		blame_add(&l->blame, j);
		if (!l->cause.text)
			l->cause.text = dupn(cl->cause);
		wp_pick_result_release(&res);
		return 0;
	}
	l->pub = wp_xstrdup(pub);
	l->n_wants = s->n;
	l->trail = s->trail.n;
	struct want *w = &s->w[i];
	w->picked = res.chosen;
	w->reason = wp_xstrdup(res.reason ? res.reason : "");
	if (x->o->explain) {
		w->rejects = wp_xcalloc(res.n_rejects ? res.n_rejects : 1, sizeof(*w->rejects));
		for (size_t k = 0; k < res.n_rejects; k++) {
			w->rejects[k].where = plan_where(&pf->files.c[res.rejects[k].index]);
			w->rejects[k].why = wp_xstrdup(res.rejects[k].why);
		}
		w->n_rejects = res.n_rejects;
	}
	say_skipped(w, l->excluded, l->ex_why, l->nex);
	if (!s->variant && res.variant.kind != WP_VARIANT_NONE && pf->has_variants) {
		s->variant = wp_xstrdup(res.variant.label);
		s->variant_level = i;
		l->set_variant = true;
	}
	wp_pick_result_release(&res);
	if (x->o->no_deps)
		return 1;

	/* its dependencies, for the target and the extras asked of it */
	struct wp_solve_deps m = { 0 };
	if ((rc = x->p->deps(x->p->ctx, c, &m, err)) < 0) {
		if (!err->code)
			wp_fail(err, rc, "reading the metadata of '%s' failed", c->filename);
		return rc;
	}
	const char *gave_up = NULL;
	char *gave_up_owned = NULL;
	size_t blame = NONE;
	char *by = wp_xasprintf("%s %s", s->w[i].display, pub);
	sv->impossible_dep[0] = 0;
	if (!metadata_python_fits(m.requires_python, sv->t)) {
		gave_up = gave_up_owned =
			wp_xasprintf("its metadata requires Python %s; the target has %d.%d",
				     m.requires_python, sv->t->py_major, sv->t->py_minor);
		char *cause = wp_xasprintf("%s: %s", by, gave_up);
		set_root_cause(sv, cause);
		free(cause);
	} else if ((rc = add_deps(sv, s, i, by, c, &m, &gave_up, &blame, err)) > 0) {
		rc = 0;
	}
	free(by);
	if (rc < 0)
		return rc;
	if (!gave_up)
		return 1;
	if (blame != NONE && blame < i) {
		blame_add(&l->blame, blame);
		remember_clash(sv, s, pf, pub, blame);
	} else
		mark_dead(pf, pub, gave_up, sv->last_cause.data);
	if (!l->cause.text) {
		l->cause.text = dupn(sv->last_cause.data);
		l->cause.bad_metadata = sv->bad_metadata;
	}
	give_up_pick(sv, s, l, i, gave_up);
	free(gave_up_owned);
	/* That a project cannot be had is learnt once (impossible); each version that needs it is
	 * then given up for the cost of its metadata, and is no choice of the search: it takes no
	 * step, so a want whose 20,000 newest versions all need a missing project still reaches the
	 * first one that does not (as pip would), with no cut-off after a run of them. */
	if (!sv->impossible_dep[0] && (rc = count_step(sv, err)) < 0)
		return rc;
	return 0;
}

/* Level i (the top) ran out. The search goes back to the newest level its blame names, taking
 * back the picks in between without trying their other versions: none of them made what ran out.
 * 1: it went back; 0: no level is to blame, so no other choice can help and nothing fits; < 0:
 * the step limit. */
static int jump_back(struct solver *sv, struct state *s, struct level_vec *lv, struct cause *why,
		     struct wp_err *err)
{
	struct level_set blame = lv->v[lv->n - 1].blame;
	lv->v[lv->n - 1].blame = (struct level_set){ 0 };
	cause_free(why);
	*why = lv->v[lv->n - 1].cause;
	memset(&lv->v[lv->n - 1].cause, 0, sizeof(*why));
	level_free(&lv->v[--lv->n]);
	if (!blame.n) {
		wp_vec_free(&blame);
		return 0;
	}
	size_t to = blame.v[blame.n - 1];
	/* what ran out was needed by level to's pick (its dependencies), or asked for by another
	 * and clashed with that pick (the rest of the set) */
	bool own = false;
	for (size_t k = 0; lv->n < s->n && k < s->w[lv->n].nc && !own; k++)
		own = s->w[lv->n].c[k].level == to;
	while (lv->n - 1 > to) {
		undo_pick(sv, s, &lv->v[lv->n - 1], lv->n - 1);
		level_free(&lv->v[--lv->n]);
	}
	struct level *l = &lv->v[to];
	for (size_t k = 0; k + 1 < blame.n; k++)
		blame_add(&l->blame, blame.v[k]);
	if (blame.n == 1) /* only its own pick was to blame: that version cannot be had at all */
		mark_dead(find_proj(sv->x, s->w[to].project), l->pub,
			  own ? "its dependencies cannot be met" :
				"what the rest of the set needs rules it out",
			  why->text);
	cause_move(&l->cause, why);
	wp_vec_free(&blame);
	give_up_pick(sv, s, l, to,
		     own ? "its dependencies cannot be met" :
			   "what the rest of the set needs rules it out");
	int rc = count_step(sv, err);
	return rc < 0 ? rc : 1;
}

/* Depth-first over the wants in the order they were found. 0: every want holds a pick that fits
 * every requirement in s; -WPE_NOMATCH with why. */
static int search(struct solver *sv, struct state *s, struct cause *why, struct wp_err *err)
{
	struct level_vec lv = { 0 };
	int rc = 0;
	if (!s->n)
		return 0;
	if ((rc = enter_level(sv, s, 0, err)) < 0)
		return rc;
	wp_vec_add(&lv);
	for (;;) {
		size_t i = lv.n - 1;
		rc = next_pick(sv, s, &lv.v[i], i, err);
		if (rc == 0)
			continue;
		if (rc == 1) {
			rc = 0;
			if (i + 1 == s->n)
				break; /* every want is picked */
			if ((rc = enter_level(sv, s, i + 1, err)) < 0)
				break;
			wp_vec_add(&lv);
			continue;
		}
		if (rc != -WPE_NOMATCH)
			break; /* an error that other versions will not cure */
		int jumped = jump_back(sv, s, &lv, why, err);
		if (jumped <= 0) {
			rc = jumped < 0 ? jumped : -WPE_NOMATCH;
			break;
		}
	}
	for (size_t k = 0; k < lv.n; k++)
		level_free(&lv.v[k]);
	wp_vec_free(&lv);
	return rc;
}

/* pf->files.c[picked]'s version as its view parsed it, or NULL (not PEP 440, or a view that does
 * not hold every file: more were added since it was built). */
static const struct wp_version *view_version(const struct proj *pf, size_t picked)
{
	const struct view *v = &pf->view;
	if (!v->built || v->n != pf->files.n)
		return NULL;
	for (size_t j = 0; j < v->n; j++)
		if (v->ix[j] == picked)
			return v->ver_ok[j] ? &v->ver[j] : NULL;
	return NULL;
}

/* Which requirements of other packages (or -c) rule out a newer version of w's project than its
 * pick (pv): "; torchvision 0.8.2 requires torch==1.7.1, which rules out newer versions" appended
 * to reason, so the why-line does not read as if the target alone chose the version. The
 * project's versions are the view's, parsed when it was built; parsed here only without one. */
static void say_held_back(const struct ctx *x, const struct want *w, const struct proj *pf,
			  const struct wp_version *pv, struct wp_buf *reason)
{
	const struct view *v = &pf->view;
	bool viewed = v->built && v->n == pf->files.n;
	bool *holds = wp_xcalloc(w->nc + 1, sizeof(*holds));
	for (size_t i = 0; i < pf->files.n; i++) {
		const char *ver = pf->files.c[i].version;
		struct wp_version own;
		/* with a view, i walks the view (its order does not matter here): every file
		 * once */
		const struct wp_version *fv = viewed && v->ver_ok[i] ? &v->ver[i] : NULL;
		if (!viewed) {
			struct wp_err e = WP_ERR_INIT;
			if (!ver || wp_version_parse(&own, ver, strlen(ver), &e) < 0)
				continue;
			fv = &own;
		}
		if (!fv)
			continue;
		if (wp_version_cmp_public(fv, pv) > 0 &&
		    (x->o->pre || !wp_version_is_prerelease(fv)))
			for (size_t k = 0; k < w->nc; k++)
				if (!holds[k] && w->c[k].by && w->c[k].text && *w->c[k].text &&
				    !wp_specset_contains(&w->c[k].spec, fv, WP_PRERELEASES_YES))
					holds[k] = true;
		if (!viewed)
			wp_version_release(&own);
	}
	for (size_t k = 0; k < w->nc; k++) {
		if (!holds[k])
			continue;
		if (w->c[k].constraint)
			wp_buf_printf(reason,
				      "; the constraints (-c) hold %s to %s, which rules out newer versions",
				      w->display, w->c[k].text);
		else
			wp_buf_printf(reason, "; %s requires %s%s, which rules out newer versions",
				      w->c[k].by, w->display, w->c[k].text);
	}
	free(holds);
}

static void record(struct ctx *x, const struct state *s, size_t ti)
{
	struct wp_plan *plan = x->plan;
	size_t cap = plan->n; /* what plan->files holds at least */
	for (size_t i = 0; i < s->n; i++) {
		const struct want *w = &s->w[i];
		struct proj *pf = find_proj(x, w->project);
		if (!pf || w->picked < 0)
			continue;
		const struct wp_candidate *c = &pf->files.c[w->picked];
		size_t at = wp_vec_push_fields(plan->files, plan->n, cap,
					       (struct wp_plan_file){ 0 });
		struct wp_plan_file *f = &plan->files[at];
		f->project = wp_xstrdup(c->project);
		f->version = wp_xstrdup(c->version);
		/* what the pick knew it to be: a label, a folder, its metadata, or PyPI's known
		 * build */
		struct wp_variant v;
		bool pending;
		wp_pick_candidate_variant(c, &v, &pending, NULL);
		f->variant = wp_xstrdup(v.kind != WP_VARIANT_NONE && v.kind != WP_VARIANT_OTHER ?
						v.label :
					c->variant ? c->variant :
						     "");
		f->filename = wp_xstrdup(c->filename);
		f->url = wp_xstrdup(c->url);
		f->sha256 = dupn(c->sha256);
		f->requires_python = dupn(c->requires_python);
		f->core_metadata = dupn(c->core_metadata);
		f->tags = dupn(c->tags);
		f->upload_time = dupn(c->upload_time);
		f->index = dupn(c->source);
		f->where = plan_where(c);
		const struct wp_version *pv = view_version(pf, (size_t)w->picked);
		wp_plan_file_type(f, NULL, pv); /* the version as the view parsed it */
		struct wp_buf why = WP_BUF_INIT;
		wp_buf_addstr(&why, w->reason ? w->reason : "");
		if (f->version_ok)
			say_held_back(x, w, pf, &f->version_parsed, &why);
		f->reason = wp_buf_detach(&why, NULL);
		if (c->variants && wp_pick_candidate_is_variant_wheel(c))
			f->variants = wp_variants_copy(c->variants); /* ops/wheel/locks.c writes it
									into pylock.toml */
		/* what the user named is theirs, whoever else needs it */
		bool asked = false;
		for (size_t k = 0; k < w->nc; k++)
			asked |= !w->c[k].by;
		for (size_t k = 0; k < w->nc && !asked && !f->required_by; k++)
			if (!w->c[k].constraint)
				f->required_by = dupn(w->c[k].by);
		/* every pick that needs it, for the dependency graph an SBOM records */
		struct wp_buf all = WP_BUF_INIT;
		for (size_t k = 0; k < w->nc; k++) {
			const char *by = w->c[k].by;
			if (w->c[k].constraint || !by)
				continue;
			bool dup = false;
			for (size_t q = 0; q < k && !dup; q++)
				dup = !w->c[q].constraint && w->c[q].by && !strcmp(w->c[q].by, by);
			if (!dup)
				wp_buf_printf(&all, "%s\n", by);
		}
		f->needed_by = all.len ? wp_buf_detach(&all, NULL) : NULL;
		wp_buf_free(&all);
		f->size = c->size;
		f->target = ti;
		f->n_rejects = w->n_rejects;
		f->rejects = rejects_copy(w->rejects, w->n_rejects);
	}
}

void wp_plan_file_type(struct wp_plan_file *f, struct wp_wheelname *wheel,
		       const struct wp_version *version)
{
	wp_wheelname_release(&f->wheel);
	wp_specset_release(&f->requires_python_set);
	if (f->version_ok)
		wp_version_release(&f->version_parsed);
	f->requires_python_ok = f->version_ok = false;
	if (wheel) {
		f->wheel = *wheel;
		memset(wheel, 0, sizeof(*wheel));
		wheel->build_num = -1;
	} else if (f->filename && wp_wheelname_parse(f->filename, &f->wheel, NULL) < 0) {
		wp_wheelname_release(&f->wheel);
	}
	if (version) {
		wp_version_copy(&f->version_parsed, version);
		f->version_ok = true;
	} else if (f->version && *f->version) {
		f->version_ok = wp_version_parse(&f->version_parsed, f->version, strlen(f->version),
						 NULL) == 0;
	}
	const char *rp = f->requires_python;
	if (rp && *rp)
		f->requires_python_ok = wp_specset_parse(&f->requires_python_set, rp, strlen(rp),
							 NULL) == 0;
	if (!f->requires_python_ok)
		wp_specset_release(&f->requires_python_set);
}

static void free_file(struct wp_plan_file *f)
{
	wp_wheelname_release(&f->wheel);
	wp_specset_release(&f->requires_python_set);
	if (f->version_ok)
		wp_version_release(&f->version_parsed);
	free(f->project), free(f->version), free(f->variant), free(f->filename), free(f->url),
		free(f->sha256);
	free(f->tags), free(f->requires_python), free(f->core_metadata), free(f->where),
		free(f->reason);
	free(f->required_by), free(f->needed_by), free(f->upload_time), free(f->path),
		free(f->index);
	wp_variants_release(f->variants);
	free(f->variants);
	rejects_free(f->rejects, f->n_rejects);
}

/* One target: resolve, and when the set's variant is what stops a project, avoid that variant
 * and resolve the whole set again. */
static int solve_target(struct ctx *x, const struct wp_requirement *const *parsed, size_t nparsed,
			size_t ti, struct wp_err *err)
{
	const struct wp_target *t = &x->plan->targets[ti];
	struct wp_tagset ts = WP_TAGSET_INIT;
	struct wp_marker_env env;
	struct solver sv = { .x = x,
			     .t = t,
			     .ts = &ts,
			     .env = &env,
			     .root_cause = WP_BUF_INIT,
			     .last_cause = WP_BUF_INIT };
	size_t avoid_cap = 0; /* sv.avoid's room */
	struct cause why = { 0 };
	int rc;
	if ((rc = wp_tagset_build(&ts, t, err)))
		return rc;
	wp_marker_env_from_target(&env, t);
	for (size_t k = 0; k < x->ncons; k++) {
		struct wp_err me = WP_ERR_INIT;
		bool on = true;
		if (x->cons[k]->r.has_marker &&
		    wp_marker_evaluate(&x->cons[k]->r.marker, &env, &on, &me) < 0)
			on = false;
		x->cons_on[k] = on;
	}
	for (int attempt = 0; attempt <= WP_SOLVE_MAX_RESTARTS; attempt++) {
		struct state s = { .variant_level = NONE };
		struct wp_err e = WP_ERR_INIT;
		for (size_t i = 0; i < nparsed; i++) {
			bool applies = true;
			if (parsed[i]->has_marker)
				wp_marker_evaluate(&parsed[i]->marker, &env, &applies, &e);
			if (applies)
				add_want(x, &s, parsed[i], NULL, NONE);
		}
		sv.variant_blame = false;
		sv.steps = 0;
		for (size_t k = 0; k < x->projs.n; k++)
			forget_dead(x->projs.v[k]);
		sv.read_ahead = 0;
		wp_buf_reset(&sv.root_cause);
		cause_free(&why);
		rc = search(&sv, &s, &why, &e);
		if (!rc)
			record(x, &s, ti);
		state_free(&s);
		if (!rc)
			break;
		if (rc == -WPE_NOMATCH && sv.variant_blame && sv.last_variant) {
			note(x->plan,
			     wp_xasprintf("%s cannot complete the set (%s); trying the next build",
					  sv.last_variant, sv.root_cause.data));
			wp_vec_push_fields(sv.avoid, sv.navoid, avoid_cap, sv.last_variant);
			sv.last_variant = NULL;
			rc = 0;
			if (attempt == WP_SOLVE_MAX_RESTARTS)
				rc = wp_fail(err, -WPE_LIMIT,
					     "no build (CUDA, ROCm or CPU) completes the set after %d tries; pin versions to help",
					     WP_SOLVE_MAX_RESTARTS);
			continue;
		}
		/* a plain "nothing fits" speaks of what started the backtracking; an error (a
		 * source, a limit, a direct reference) speaks for itself */
		if (rc == -WPE_NOMATCH && why.project) {
			x->plan->failed_project = why.project;
			x->plan->failed_rejects = why.rejects;
			x->plan->n_failed_rejects = why.n_rejects;
			why.project = NULL;
			why.rejects = NULL;
			why.n_rejects = 0;
		}
		if (rc == -WPE_NOMATCH && why.text)
			rc = wp_fail(err, why.bad_metadata ? -WPE_INTEGRITY : rc, "%s", why.text);
		else if (rc == -WPE_NOMATCH && e.code == -WPE_NOMATCH && !sv.root_cause.len)
			wp_fail(err, rc, "%s", e.msg);
		else if (rc == -WPE_NOMATCH && sv.root_cause.len)
			wp_fail(err, rc, "%s", sv.root_cause.data);
		else
			wp_fail(err, rc, "%s", e.code ? e.msg : "the resolution failed");
		break;
	}
	for (size_t i = 0; i < sv.navoid; i++)
		free((char *)sv.avoid[i]);
	free(sv.avoid);
	free(sv.last_variant);
	cause_free(&why);
	wp_buf_free(&sv.root_cause);
	wp_buf_free(&sv.last_cause);
	wp_tagset_release(&ts);
	return rc;
}

int wp_solve(const struct wp_solve_provider *p, const struct wp_req *reqs, size_t nreq,
	     const struct wp_target *targets, size_t n_targets, const struct wp_solve_opts *o,
	     struct wp_plan *plan, struct wp_err *err)
{
	struct ctx x = {
		.p = p,
		.o = o,
		.plan = plan,
		.max_steps = o->max_steps ? o->max_steps : WP_SOLVE_MAX_STEPS,
		.max_projects = o->max_projects ? o->max_projects : WP_SOLVE_MAX_PROJECTS,
	};
	/* parsed where they were read: the solver takes them as they are */
	const struct wp_requirement **parsed = wp_xcalloc(nreq ? nreq : 1, sizeof(*parsed));
	size_t nparsed = 0;
	int rc = 0;

	memset(plan, 0, sizeof(*plan));
	plan->targets = wp_xcalloc(n_targets ? n_targets : 1, sizeof(*plan->targets));
	memcpy(plan->targets, targets, n_targets * sizeof(*targets));
	plan->n_targets = n_targets;

	for (size_t i = 0; i < nreq; i++) {
		if (!reqs[i].ok) {
			rc = wp_fail(err, -WPE_USAGE, "requirement '%s' is not PEP 508: %s",
				     reqs[i].text, reqs[i].why ? reqs[i].why : "?");
			goto out;
		}
		parsed[nparsed++] = &reqs[i].r;
		if (reqs[i].r.url) {
			rc = wp_fail(err, -WPE_USAGE,
				     "requirement '%s' names a URL; wheelpick picks from indexes",
				     reqs[i].text);
			goto out;
		}
	}
	x.cons = wp_xcalloc(o->n_constraints ? o->n_constraints : 1, sizeof(*x.cons));
	x.cons_on = wp_xcalloc(o->n_constraints ? o->n_constraints : 1, sizeof(*x.cons_on));
	for (size_t i = 0; i < o->n_constraints; i++) {
		const struct wp_req *c = &o->constraints[i];
		if (!c->ok) {
			rc = wp_fail(err, -WPE_USAGE, "constraint '%s' is not PEP 508: %s", c->text,
				     c->why ? c->why : "?");
			goto out;
		}
		x.cons[x.ncons++] = c;
		if (c->r.url) {
			rc = wp_fail(err, -WPE_USAGE,
				     "constraint '%s' names a URL; a constraint gives versions",
				     c->text);
			goto out;
		}
	}
	for (size_t ti = 0; ti < n_targets && !rc; ti++)
		rc = solve_target(&x, parsed, nparsed, ti, err);
out:
	free(parsed);
	free(x.cons);
	free(x.cons_on);
	for (size_t i = 0; i < x.projs.n; i++) {
		struct proj *pj = x.projs.v[i];
		for (size_t k = 0; pj->labels && k < pj->files.n; k++)
			free(pj->labels[k]);
		free(pj->labels);
		free(pj->own);
		forget_dead(pj);
		view_free(&pj->view);
		wp_pick_memo_release(&pj->memo);
		free(pj->name);
		free(pj);
	}
	wp_vec_free(&x.projs);
	wp_name_index_free(&x.proj_ix);
	return rc;
}

void wp_plan_release(struct wp_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++)
		free_file(&plan->files[i]);
	free(plan->files);
	free(plan->targets);
	for (size_t i = 0; i < plan->n_notes; i++)
		free(plan->notes[i]);
	free(plan->notes);
	free(plan->failed_project);
	rejects_free(plan->failed_rejects, plan->n_failed_rejects);
	free(plan->untrusted_url), free(plan->untrusted_why);
	memset(plan, 0, sizeof(*plan));
}

bool *wp_plan_first_of_url(const struct wp_plan *plan, size_t *distinct)
{
	bool *first = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*first));
	struct wp_name_index seen = { 0 };
	*distinct = 0;
	for (size_t i = 0; i < plan->n; i++) {
		if (wp_name_index_find(&seen, plan->files[i].url) != WP_NAME_NONE)
			continue;
		wp_name_index_push(&seen, plan->files[i].url);
		first[i] = true;
		(*distinct)++;
	}
	wp_name_index_free(&seen);
	return first;
}
