/* cli/plan.c: requirements -> files per target: pick each project, follow Requires-Dist evaluated
 * for the target, keep one variant across the set. Greedy with restarts: when a project cannot
 * take the set's variant, the variant is avoided and the whole set is resolved again. */
#include "cli/plan.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/mem.h"
#include "ops/metadata.h"
#include "resolver/marker.h"
#include "resolver/pick.h"
#include "resolver/requirement.h"
#include "resolver/specifier.h"
#include "resolver/tags.h"
#include "resolver/variant.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_RESTARTS 12
#define MAX_SET 512 /* projects in one resolution: a runaway dependency graph stops here */

/* The catalog's files of one project, owned, loaded once per plan. */
/* What the plan needs of a candidate beyond what the picking rule reads. */
struct cand_more {
	const char *core_metadata; /* PEP 658/714, or NULL */
	const char *tags;          /* "pyt-abit-platt", or NULL */
	long long rank;            /* which index it came from (lower is preferred; -1 none in play) */
};

struct proj_files {
	char *project;
	struct wp_candidate *c;
	struct cand_more *more;    /* parallel to c */
	struct wp_arena strings; /* every string the candidates point to */
	size_t n, cap;           /* rows in c and more; room in both */
	bool has_variants;
	bool crawled;            /* its pages were crawled for (once per plan, found or not) */
	const struct wp_plan_opts *o;
};

struct ctx {
	struct wp_catalog *cat;
	const struct wp_plan_opts *o;
	struct wp_depmeta_opts dm;
	struct proj_files **pf; /* each allocated alone: pointers stay valid as the list grows */
	size_t npf;
	struct wp_plan *plan;
};

/* NULL stays NULL; "" stays "" (a yanked file with no reason). */
static const char *keep(struct proj_files *p, const char *s)
{
	return wp_arena_strdup(&p->strings, s);
}

/* Which of the indexes in play lists a row: its position, or -1 when none does. With no list,
 * the source's id (the earliest crawled source first). */
static long long index_rank(const struct wp_plan_opts *o, const struct wp_file_row *r)
{
	struct wp_buf want = WP_BUF_INIT;
	for (size_t i = 0; o && i < o->n_index_for; i++) {
		const char *eq = strchr(o->index_for[i], '=');
		if (!eq)
			continue;
		wp_project_name_normalize(o->index_for[i], (size_t)(eq - o->index_for[i]), &want);
		if (!strcmp(want.data, r->project)) {
			wp_buf_free(&want);
			/* this project is pinned to one index: rows from anywhere else do not exist for it */
			return r->source_url && !strncmp(r->source_url, eq + 1, strlen(eq + 1)) ? 0 : -1;
		}
	}
	wp_buf_free(&want);
	if (!o || !o->n_indexes)
		return r->source_id;
	for (size_t i = 0; i < o->n_indexes; i++) {
		size_t n = strlen(o->indexes[i]);
		/* a root URL covers the project pages under it */
		if (r->source_url && !strncmp(r->source_url, o->indexes[i], n))
			return (long long)i;
	}
	return -1;
}

static int load_row(void *vctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct proj_files *p = vctx;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->c = wp_xrealloc(p->c, p->cap * sizeof(*p->c));
		p->more = wp_xrealloc(p->more, p->cap * sizeof(*p->more));
	}
	struct wp_candidate *c = &p->c[p->n++];
	c->project = keep(p, r->project);
	c->version = keep(p, r->version);
	c->variant = r->variant && *r->variant ? keep(p, r->variant) : "";
	c->kind = keep(p, r->kind);
	c->filename = keep(p, r->filename);
	c->url = keep(p, r->url);
	c->sha256 = keep(p, r->sha256);
	c->requires_python = keep(p, r->requires_python);
	c->yanked = keep(p, r->yanked);
	c->hash_conflict = keep(p, r->hash_conflict);
	c->size = r->size;
	p->more[p->n - 1] = (struct cand_more){
		.core_metadata = keep(p, r->core_metadata), .tags = keep(p, r->tags), .rank = index_rank(p->o, r),
	};
	if (r->variant && *r->variant)
		p->has_variants = true;
	return 0;
}

static void proj_files_free(struct proj_files *p)
{
	wp_arena_free(&p->strings);
	free(p->c);
	free(p->more);
	free(p->project);
	free(p);
}

static struct proj_files *loaded(struct ctx *x, const char *project)
{
	for (size_t i = 0; i < x->npf; i++)
		if (!strcmp(x->pf[i]->project, project))
			return x->pf[i];
	return NULL;
}

/* The catalog's rows for p (which holds none yet), kept to the best index that lists it. */
static int read_rows(struct ctx *x, struct proj_files *p, struct wp_err *err)
{
	if (wp_catalog_files(x->cat, p->project, false, load_row, p, err) < 0)
		return -1;
	/* the dependency-confusion guard: only the best index that lists the project */
	long long best = -1;
	for (size_t i = 0; i < p->n; i++)
		if (p->more[i].rank >= 0 && (best < 0 || p->more[i].rank < best))
			best = p->more[i].rank;
	size_t out = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (best < 0 || p->more[i].rank != best)
			continue;
		p->c[out] = p->c[i];
		p->more[out++] = p->more[i];
	}
	p->n = out;
	p->has_variants = false;
	for (size_t i = 0; i < p->n; i++)
		p->has_variants |= p->c[i].variant && *p->c[i].variant;
	return 0;
}

/* Not kept half-read: the next caller asks the catalog again and meets the error. */
static void forget(struct ctx *x, struct proj_files *p)
{
	for (size_t i = 0; i < x->npf; i++)
		if (x->pf[i] == p) {
			x->pf[i] = x->pf[--x->npf];
			break;
		}
	proj_files_free(p);
}

/* A project's rows, read once. When the catalog has none, its page is crawled first, unless
 * may_fetch is false (the read-ahead, which crawls many at once itself). */
static struct proj_files *files_of_ex(struct ctx *x, const char *project, bool may_fetch, struct wp_err *err)
{
	struct proj_files *p = loaded(x, project);
	if (p)
		return p;
	x->pf = wp_xrealloc(x->pf, (x->npf + 1) * sizeof(*x->pf));
	p = x->pf[x->npf++] = wp_xcalloc(1, sizeof(*p));
	p->project = wp_xstrdup(project);
	p->o = x->o;
	bool failed = read_rows(x, p, err) < 0;
	if (!failed && !p->n && may_fetch && x->o->fetch_projects && !x->o->offline) {
		/* a dependency no source was crawled for: its page under the index roots, then again */
		struct wp_err fe = WP_ERR_INIT;
		p->crawled = true;
		failed = x->o->fetch_projects(x->o->fetch_ctx, &project, 1, &fe) == 0 && read_rows(x, p, err) < 0;
	}
	if (failed) {
		forget(x, p);
		return NULL;
	}
	return p;
}

static struct proj_files *files_of(struct ctx *x, const char *project, struct wp_err *err)
{
	return files_of_ex(x, project, true, err);
}

/* "cu111/torch-1.8.0+cu111-...whl": the file as the index lays it out. */
static char *where_of(const struct wp_candidate *c)
{
	const char *end = strrchr(c->url, '/');
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
	plan->notes = wp_xrealloc(plan->notes, (plan->n_notes + 1) * sizeof(*plan->notes));
	plan->notes[plan->n_notes++] = text;
}

/* --- the state of one resolution, copied at each choice so that backtracking is a free --- */

struct contrib {
	struct wp_specset spec;
	char *text; /* "==1.8.0" */
	char *by;   /* NULL: the user; else "torchvision 0.9.0" */
};

struct want {
	char *project, *display;
	struct contrib *c;
	size_t nc;
	char **extras;
	size_t nextras;
	long picked;              /* candidate index, -1 not yet */
	char *reason;
	struct wp_plan_reject *rejects;
	size_t n_rejects;
};

struct state {
	struct want *w;
	size_t n;
	char *variant;            /* the set's shared variant label, or NULL */
};

static void state_free(struct state *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct want *w = &s->w[i];
		free(w->project), free(w->display), free(w->reason);
		for (size_t k = 0; k < w->nc; k++) {
			wp_specset_release(&w->c[k].spec);
			free(w->c[k].text), free(w->c[k].by);
		}
		free(w->c);
		for (size_t k = 0; k < w->nextras; k++)
			free(w->extras[k]);
		free(w->extras);
		for (size_t k = 0; k < w->n_rejects; k++)
			free(w->rejects[k].where), free(w->rejects[k].why);
		free(w->rejects);
	}
	free(s->w);
	free(s->variant);
	memset(s, 0, sizeof(*s));
}

static char *dupn(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
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

static void state_copy(struct state *d, const struct state *s)
{
	d->n = s->n;
	d->variant = dupn(s->variant);
	d->w = wp_xcalloc(s->n ? s->n : 1, sizeof(*d->w));
	for (size_t i = 0; i < s->n; i++) {
		const struct want *a = &s->w[i];
		struct want *b = &d->w[i];
		b->project = dupn(a->project), b->display = dupn(a->display), b->reason = dupn(a->reason);
		b->picked = a->picked;
		b->nc = a->nc;
		b->c = wp_xcalloc(a->nc ? a->nc : 1, sizeof(*b->c));
		for (size_t k = 0; k < a->nc; k++) {
			specset_copy(&b->c[k].spec, &a->c[k].spec);
			b->c[k].text = dupn(a->c[k].text), b->c[k].by = dupn(a->c[k].by);
		}
		b->nextras = a->nextras;
		b->extras = wp_xcalloc(a->nextras ? a->nextras : 1, sizeof(*b->extras));
		for (size_t k = 0; k < a->nextras; k++)
			b->extras[k] = dupn(a->extras[k]);
		b->n_rejects = a->n_rejects;
		b->rejects = wp_xcalloc(a->n_rejects ? a->n_rejects : 1, sizeof(*b->rejects));
		for (size_t k = 0; k < a->n_rejects; k++)
			b->rejects[k].where = dupn(a->rejects[k].where), b->rejects[k].why = dupn(a->rejects[k].why);
	}
}

/* Adds a requirement to the state (merging into an existing want). Returns the want's index. */
static size_t add_want(struct state *s, const struct wp_requirement *req, const char *by)
{
	struct wp_buf canon = WP_BUF_INIT;
	wp_project_name_normalize(req->name, strlen(req->name), &canon);
	size_t i;
	for (i = 0; i < s->n && strcmp(s->w[i].project, canon.data) != 0; i++)
		;
	if (i == s->n) {
		s->w = wp_xrealloc(s->w, (s->n + 1) * sizeof(*s->w));
		memset(&s->w[i], 0, sizeof(s->w[i]));
		s->w[i].project = wp_buf_detach(&canon, NULL);
		s->w[i].display = wp_xstrdup(req->name);
		s->w[i].picked = -1;
		s->n++;
	}
	wp_buf_free(&canon);
	struct want *w = &s->w[i];
	struct wp_buf text = WP_BUF_INIT;
	wp_specset_format(&req->spec, &text);
	w->c = wp_xrealloc(w->c, (w->nc + 1) * sizeof(*w->c));
	specset_copy(&w->c[w->nc].spec, &req->spec);
	w->c[w->nc].text = wp_buf_detach(&text, NULL);
	w->c[w->nc].by = dupn(by);
	w->nc++;
	for (size_t e = 0; e < req->nextras; e++) {
		bool have = false;
		for (size_t k = 0; k < w->nextras && !have; k++)
			have = !strcmp(w->extras[k], req->extras[e]);
		if (!have) {
			w->extras = wp_xrealloc(w->extras, (w->nextras + 1) * sizeof(*w->extras));
			w->extras[w->nextras++] = wp_xstrdup(req->extras[e]);
		}
	}
	return i;
}

/* Every contribution's specifiers in one set, plus "!=V" for versions already tried here. */
static void merged_spec(const struct want *w, char *const *excluded, size_t nex, struct wp_specset *out,
			struct wp_buf *text)
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
	for (size_t k = 0; k < nex; k++) {
		char ne[160];
		struct wp_err e = WP_ERR_INIT;
		snprintf(ne, sizeof(ne), "!=%s", excluded[k]);
		if (wp_specifier_parse(&out->specs[out->n], ne, strlen(ne), &e) == 0)
			out->n++;
	}
}

/* "needed by torchvision 0.9.0 (torch==1.8.0)" for messages. */
static void who_wants(const struct want *w, struct wp_buf *out)
{
	bool any = false;
	for (size_t k = 0; k < w->nc; k++) {
		if (!w->c[k].by)
			continue;
		wp_buf_printf(out, "%s%s needs %s%s", any ? "; " : " (", w->c[k].by, w->display,
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
	size_t prefetched;          /* wants before this index have had their pages and metadata read ahead */
	struct wp_buf last_failure; /* the deepest reason nothing fit */
	struct state result;
};

#define MAX_STEPS 2000

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

/* Does the picked candidate of want j satisfy requirement spec? */
static bool picked_satisfies(struct solver *sv, const struct want *w, const struct wp_specset *spec)
{
	struct proj_files *pf = files_of(sv->x, w->project, &(struct wp_err)WP_ERR_INIT);
	struct wp_version v;
	struct wp_err e = WP_ERR_INIT;
	if (!pf || w->picked < 0)
		return true;
	const char *ver = pf->c[w->picked].version;
	if (wp_version_parse(&v, ver, strlen(ver), &e) < 0)
		return false;
	bool ok = wp_specset_contains(spec, &v, WP_PRERELEASES_YES);
	wp_version_release(&v);
	return ok;
}

static int solve(struct solver *sv, struct state *s, size_t i, struct wp_err *err);

/* The pick for want w as solve makes it, with the versions in excluded ruled out; any_variant
 * drops the set's variant (to learn whether the variant is what stops it). */
static void pick_want(struct solver *sv, const struct state *s, const struct want *w, const struct proj_files *pf,
		      char *const *excluded, size_t nex, bool any_variant, struct wp_pick_result *res,
		      struct wp_err *err)
{
	struct wp_specset spec;
	struct wp_buf spec_text = WP_BUF_INIT;
	merged_spec(w, excluded, nex, &spec, &spec_text);
	struct wp_pick_request req = {
		.project = w->project, .spec_text = spec_text.len ? spec_text.data : "", .spec = &spec,
		.pre = sv->x->o->pre, .require_variant = pf->has_variants && !any_variant ? s->variant : NULL,
		.avoid_variants = pf->has_variants ? sv->avoid : NULL, .n_avoid = pf->has_variants ? sv->navoid : 0,
		.reasons = sv->x->o->explain,
	};
	wp_pick(pf->c, pf->n, &req, sv->t, sv->ts, res, err);
	wp_specset_release(&spec);
	wp_buf_free(&spec_text);
}

/* Read ahead for the wants from `from` on, which solve is about to decide one by one: the pages
 * of the projects no source has yet, in one parallel crawl, then the metadata of each want's
 * likely pick, all at once. Each round of new dependencies then costs one round trip, not one
 * per project. A guess that backtracking later overrules costs one read; solve itself still
 * reads, and reports, whatever this did not get. */
static void prefetch(struct solver *sv, const struct state *s, size_t from)
{
	struct ctx *x = sv->x;
	size_t n = s->n - from, nm = 0, nc = 0;
	const char **missing = wp_xcalloc(n ? n : 1, sizeof(*missing));
	const struct wp_candidate **cands = wp_xcalloc(n ? n : 1, sizeof(*cands));
	const char **cms = wp_xcalloc(n ? n : 1, sizeof(*cms));
	sv->prefetched = s->n;
	/* what the catalog has is read; what it lacks is crawled for, all in one go, and read again */
	struct proj_files **empty = wp_xcalloc(n ? n : 1, sizeof(*empty));
	struct wp_err e = WP_ERR_INIT;
	for (size_t j = from; j < s->n; j++) {
		struct proj_files *pf = files_of_ex(x, s->w[j].project, false, &e);
		bool seen = false;
		for (size_t k = 0; k < nm && !seen; k++)
			seen = empty[k] == pf;
		if (pf && !pf->n && !pf->crawled && !seen) {
			pf->crawled = true;
			empty[nm] = pf;
			missing[nm++] = pf->project;
		}
		wp_err_clear(&e);
	}
	if (nm && x->o->fetch_projects && x->o->fetch_projects(x->o->fetch_ctx, missing, nm, &e) == 0)
		for (size_t k = 0; k < nm; k++)
			if (read_rows(x, empty[k], &e) < 0)
				forget(x, empty[k]);
	free(empty);
	for (size_t j = from; j < s->n; j++) {
		const struct want *w = &s->w[j];
		wp_err_clear(&e);
		struct proj_files *pf = files_of_ex(x, w->project, false, &e);
		if (!pf || w->picked >= 0)
			continue;
		struct wp_pick_result res;
		pick_want(sv, s, w, pf, NULL, 0, false, &res, &e);
		if (res.chosen >= 0) {
			cands[nc] = &pf->c[res.chosen];
			cms[nc++] = pf->more[res.chosen].core_metadata;
		}
		wp_pick_result_release(&res);
	}
	wp_depmeta_prefetch(&x->dm, cands, cms, nc);
	free(missing);
	free(cands);
	free(cms);
}

/* Try candidate versions of want i, best first; recurse on success. */
static int solve(struct solver *sv, struct state *s, size_t i, struct wp_err *err)
{
	struct ctx *x = sv->x;
	int rc = 0;
	if (i == s->n) {
		state_free(&sv->result);
		state_copy(&sv->result, s);
		return 0;
	}
	if (i >= sv->prefetched && !x->o->no_deps && !x->o->offline)
		prefetch(sv, s, i);
	struct want *w = &s->w[i];
	struct proj_files *pf = files_of(x, w->project, err);
	if (!pf)
		return err->code ? err->code : -WPE_CATALOG;
	char **excluded = NULL;
	size_t nex = 0;
	for (;;) {
		if (++sv->steps > MAX_STEPS) {
			rc = wp_fail(err, -WPE_NOMATCH, "the dependency graph needs more than %d choices; pin versions to help",
				     MAX_STEPS);
			break;
		}
		struct wp_pick_result res;
		pick_want(sv, s, w, pf, excluded, nex, false, &res, err);
		if (res.chosen < 0) {
			if (!nex) {
				/* the first failure here is the informative one */
				wp_buf_reset(&sv->last_failure);
				wp_buf_addstr(&sv->last_failure, res.message);
				who_wants(w, &sv->last_failure);
				if (pf->has_variants && s->variant) {
					struct wp_pick_result alt;
					pick_want(sv, s, w, pf, excluded, nex, true, &alt, err);
					if (alt.chosen >= 0) {
						/* the set's variant, not the versions, is what stops this project */
						sv->variant_blame = true;
						free(sv->last_variant);
						sv->last_variant = dupn(s->variant);
					}
					wp_pick_result_release(&alt);
				}
			}
			wp_pick_result_release(&res);
			rc = -WPE_NOMATCH;
			break;
		}
		const struct wp_candidate *c = &pf->c[res.chosen];
		char pub[128];
		public_of(c->version, pub, sizeof(pub));

		struct state child;
		state_copy(&child, s);
		struct want *cw = &child.w[i];
		cw->picked = res.chosen;
		free(cw->reason);
		cw->reason = wp_xstrdup(res.reason ? res.reason : "");
		if (x->o->explain) {
			for (size_t k = 0; k < cw->n_rejects; k++)
				free(cw->rejects[k].where), free(cw->rejects[k].why);
			free(cw->rejects);
			cw->rejects = wp_xcalloc(res.n_rejects ? res.n_rejects : 1, sizeof(*cw->rejects));
			for (size_t k = 0; k < res.n_rejects; k++) {
				cw->rejects[k].where = where_of(&pf->c[res.rejects[k].index]);
				cw->rejects[k].why = wp_xstrdup(res.rejects[k].why);
			}
			cw->n_rejects = res.n_rejects;
		}
		if (!child.variant && res.variant.kind != WP_VARIANT_NONE && pf->has_variants)
			child.variant = wp_xstrdup(res.variant.label);
		wp_pick_result_release(&res);

		/* its dependencies, for the target and the extras asked of it */
		bool conflict = false;
		if (!x->o->no_deps) {
			struct wp_depmeta m = { 0 };
			if ((rc = wp_depmeta_get(&x->dm, c, pf->more[cw->picked].core_metadata, &m, err))) {
				state_free(&child);
				break;
			}
			char *by = wp_xasprintf("%s %s", w->display, pub);
			for (size_t k = 0; k < m.n && !conflict; k++) {
				struct wp_requirement dep;
				struct wp_err pe = WP_ERR_INIT;
				if (wp_requirement_parse(&dep, m.reqs[k], strlen(m.reqs[k]), &pe) < 0) {
					note(x->plan, wp_xasprintf("%s: ignoring an unreadable requirement '%s'", by, m.reqs[k]));
					continue;
				}
				bool applies = !dep.has_marker;
				for (size_t e = 0; dep.has_marker && e <= child.w[i].nextras && !applies; e++) {
					struct wp_marker_env env = *sv->env;
					snprintf(env.extra, sizeof(env.extra), "%s", e < child.w[i].nextras ? child.w[i].extras[e] : "");
					bool yes = false;
					if (wp_marker_evaluate(&dep.marker, &env, &yes, &pe) == 0 && yes)
						applies = true;
				}
				if (applies) {
					if (child.n >= MAX_SET) {
						wp_requirement_release(&dep);
						rc = wp_fail(err, -WPE_NOMATCH, "more than %d projects in one resolution", MAX_SET);
						break;
					}
					size_t j = add_want(&child, &dep, by);
					/* an earlier pick that this requirement rules out: this version cannot stay */
					if (j <= i && !picked_satisfies(sv, &child.w[j], &dep.spec)) {
						struct wp_buf b = WP_BUF_INIT;
						struct proj_files *pj = files_of(x, child.w[j].project, err);
						wp_buf_printf(&b, "%s needs %s, but %s %s was picked", by, m.reqs[k], child.w[j].display,
							      pj && child.w[j].picked >= 0 ? pj->c[child.w[j].picked].version : "?");
						wp_buf_reset(&sv->last_failure);
						wp_buf_addstr(&sv->last_failure, b.data);
						wp_buf_free(&b);
						conflict = true;
					}
				}
				wp_requirement_release(&dep);
			}
			free(by);
			wp_depmeta_release(&m);
			if (rc) {
				state_free(&child);
				break;
			}
		}
		if (!conflict) {
			rc = solve(sv, &child, i + 1, err);
			state_free(&child);
			if (rc != -WPE_NOMATCH)
				break; /* done, or a failure that trying other versions will not cure */
			if (err->code == -WPE_NOMATCH && strstr(err->msg, "more than"))
				break;
		} else {
			state_free(&child);
		}
		excluded = wp_xrealloc(excluded, (nex + 1) * sizeof(*excluded));
		excluded[nex++] = wp_xstrdup(pub);
		rc = 0;
	}
	for (size_t k = 0; k < nex; k++)
		free(excluded[k]);
	free(excluded);
	return rc;
}

static void record(struct ctx *x, const struct state *s, size_t ti)
{
	struct wp_plan *plan = x->plan;
	for (size_t i = 0; i < s->n; i++) {
		const struct want *w = &s->w[i];
		struct proj_files *pf = files_of(x, w->project, &(struct wp_err)WP_ERR_INIT);
		if (!pf || w->picked < 0)
			continue;
		const struct wp_candidate *c = &pf->c[w->picked];
		plan->files = wp_xrealloc(plan->files, (plan->n + 1) * sizeof(*plan->files));
		struct wp_plan_file *f = &plan->files[plan->n++];
		memset(f, 0, sizeof(*f));
		f->project = wp_xstrdup(c->project);
		f->version = wp_xstrdup(c->version);
		f->variant = wp_xstrdup(c->variant ? c->variant : "");
		f->filename = wp_xstrdup(c->filename);
		f->url = wp_xstrdup(c->url);
		f->sha256 = dupn(c->sha256);
		f->requires_python = dupn(c->requires_python);
		f->core_metadata = dupn(pf->more[w->picked].core_metadata);
		f->tags = dupn(pf->more[w->picked].tags);
		f->where = where_of(c);
		f->reason = dupn(w->reason);
		/* what the user named is theirs, whoever else needs it */
		bool asked = false;
		for (size_t k = 0; k < w->nc; k++)
			asked |= !w->c[k].by;
		for (size_t k = 0; k < w->nc && !asked && !f->required_by; k++)
			f->required_by = dupn(w->c[k].by);
		f->size = c->size;
		f->target = ti;
		f->n_rejects = w->n_rejects;
		f->rejects = wp_xcalloc(w->n_rejects ? w->n_rejects : 1, sizeof(*f->rejects));
		for (size_t k = 0; k < w->n_rejects; k++)
			f->rejects[k].where = dupn(w->rejects[k].where), f->rejects[k].why = dupn(w->rejects[k].why);
	}
}

static void free_file(struct wp_plan_file *f)
{
	free(f->project), free(f->version), free(f->variant), free(f->filename), free(f->url), free(f->sha256);
	free(f->tags), free(f->requires_python), free(f->core_metadata), free(f->where), free(f->reason);
	free(f->required_by), free(f->path);
	for (size_t k = 0; k < f->n_rejects; k++)
		free(f->rejects[k].where), free(f->rejects[k].why);
	free(f->rejects);
}

int wp_plan_build(struct wp_catalog *cat, const char *const *reqs, size_t nreq, const struct wp_target *targets,
		  size_t n_targets, const struct wp_plan_opts *o, struct wp_plan *plan, struct wp_err *err)
{
	struct ctx x = { .cat = cat, .o = o, .plan = plan, .dm = { .cat = cat, .store = o->store, .offline = o->offline } };
	struct wp_requirement *parsed = wp_xcalloc(nreq ? nreq : 1, sizeof(*parsed));
	size_t nparsed = 0;
	int rc = 0;

	memset(plan, 0, sizeof(*plan));
	plan->targets = wp_xcalloc(n_targets ? n_targets : 1, sizeof(*plan->targets));
	memcpy(plan->targets, targets, n_targets * sizeof(*targets));
	plan->n_targets = n_targets;

	for (size_t i = 0; i < nreq; i++) {
		struct wp_err pe = WP_ERR_INIT;
		if (wp_requirement_parse(&parsed[i], reqs[i], strlen(reqs[i]), &pe) < 0) {
			rc = wp_fail(err, -WPE_USAGE, "requirement '%s' is not PEP 508: %s", reqs[i], pe.msg);
			goto out;
		}
		nparsed++;
		if (parsed[i].url) {
			rc = wp_fail(err, -WPE_USAGE, "requirement '%s' names a URL; wheelpick picks from indexes", reqs[i]);
			goto out;
		}
	}

	for (size_t ti = 0; ti < n_targets && !rc; ti++) {
		const struct wp_target *t = &plan->targets[ti];
		struct wp_tagset ts = WP_TAGSET_INIT;
		struct wp_marker_env env;
		struct solver sv = { .x = &x, .t = t, .ts = &ts, .env = &env, .last_failure = WP_BUF_INIT };
		if ((rc = wp_tagset_build(&ts, t, err)))
			break;
		wp_marker_env_from_target(&env, t);
		for (int attempt = 0; attempt <= MAX_RESTARTS; attempt++) {
			struct state s = { 0 };
			struct wp_err e = WP_ERR_INIT;
			for (size_t i = 0; i < nparsed; i++) {
				bool applies = true;
				if (parsed[i].has_marker)
					wp_marker_evaluate(&parsed[i].marker, &env, &applies, &e);
				if (applies)
					add_want(&s, &parsed[i], NULL);
			}
			sv.variant_blame = false;
			sv.steps = 0;
			sv.prefetched = 0;
			rc = solve(&sv, &s, 0, &e);
			state_free(&s);
			if (!rc) {
				record(&x, &sv.result, ti);
				break;
			}
			if (rc == -WPE_NOMATCH && sv.variant_blame && sv.last_variant) {
				note(plan, wp_xasprintf("%s cannot complete the set (%s); trying the next variant", sv.last_variant,
							sv.last_failure.data));
				sv.avoid = wp_xrealloc(sv.avoid, (sv.navoid + 1) * sizeof(*sv.avoid));
				sv.avoid[sv.navoid++] = sv.last_variant;
				sv.last_variant = NULL;
				rc = 0;
				continue;
			}
			if (rc == -WPE_NOMATCH && sv.last_failure.len && !(e.code && strstr(e.msg, "more than")))
				wp_fail(err, rc, "%s", sv.last_failure.data);
			else
				wp_fail(err, rc, "%s", e.msg);
			break;
		}
		for (size_t i = 0; i < sv.navoid; i++)
			free((char *)sv.avoid[i]);
		free(sv.avoid);
		free(sv.last_variant);
		state_free(&sv.result);
		wp_buf_free(&sv.last_failure);
		wp_tagset_release(&ts);
	}
out:
	for (size_t i = 0; i < nparsed; i++)
		wp_requirement_release(&parsed[i]);
	free(parsed);
	for (size_t i = 0; i < x.npf; i++)
		proj_files_free(x.pf[i]);
	free(x.pf);
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
	memset(plan, 0, sizeof(*plan));
}
