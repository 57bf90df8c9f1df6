/* ops/resolve.c: a solver provider over the catalog: rows per project (kept to the index it may
 * come from), pages crawled on demand from the dependency roots, metadata through ops/metadata. */
#include "ops/resolve.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "index/variants.h"
#include "net/http.h"
#include "ops/metadata.h"
#include "ops/sources.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"
#include "verify/hash.h"

#include <stdlib.h>
#include <string.h>

/* One project's rows, owned: candidates point into the arena. */
struct proj {
	char *name;
	WP_VEC_OF(, struct wp_candidate) c;
	WP_VEC_OF(, struct wp_variants *) variants; /* PEP 825 metadata the candidates point to (owned) */
	struct wp_arena strings;
	bool loaded;            /* c holds the catalog's rows as last read */
	bool crawled;           /* its pages were asked of the dependency roots (found or not) */
};

WP_VEC_OF(proj_vec, struct proj *);
WP_VEC_OF(meta_vec, struct wp_depmeta *);

struct provider {
	const struct wp_session *s;
	struct wp_catalog *cat;
	const struct wp_resolve_opts *o;
	struct wp_depmeta_opts dm;
	struct wp_sources roots;     /* where a missing project's page may be */
	struct proj_vec projs;
	struct meta_vec metas;       /* every metadata handed out, kept until the solve ends */
};

static bool has_prefix(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

long long wp_resolve_index_rank(const struct wp_resolve_opts *o, const char *project, const char *source_url,
				long long source_id)
{
	struct wp_buf want = WP_BUF_INIT;
	for (size_t i = 0; o && o->index_for && i < o->index_for->n; i++) {
		const char *pin = o->index_for->v[i], *eq = strchr(pin, '=');
		if (!eq)
			continue;
		wp_buf_reset(&want);
		wp_project_name_normalize(pin, (size_t)(eq - pin), &want);
		if (!strcmp(want.data, project)) {
			wp_buf_free(&want);
			/* pinned to one index: rows from anywhere else do not exist for it */
			return has_prefix(source_url, eq + 1) ? 0 : -1;
		}
	}
	wp_buf_free(&want);
	if (!o || !o->indexes || !o->indexes->n)
		return o && o->strategy == WP_INDEX_BEST_MATCH ? 0 : source_id;
	for (size_t i = 0; i < o->indexes->n; i++) {
		/* a root URL covers the project pages under it */
		if (has_prefix(source_url, o->indexes->v[i]))
			return o->strategy == WP_INDEX_BEST_MATCH ? 0 : (long long)i;
	}
	return -1;
}

struct load {
	struct proj *p;
	const struct wp_resolve_opts *o;
	WP_VEC_OF(, long long) rank;
};

static int load_row(void *vctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct load *l = vctx;
	struct proj *p = l->p;
	struct wp_arena *a = &p->strings;
	wp_vec_push(&p->c, (struct wp_candidate){
		.project = wp_arena_strdup(a, r->project), .version = wp_arena_strdup(a, r->version),
		.variant = r->variant && *r->variant ? wp_arena_strdup(a, r->variant) : "",
		.kind = wp_arena_strdup(a, r->kind), .filename = wp_arena_strdup(a, r->filename),
		.url = wp_arena_strdup(a, r->url), .sha256 = wp_arena_strdup(a, r->sha256),
		.requires_python = wp_arena_strdup(a, r->requires_python), .yanked = wp_arena_strdup(a, r->yanked),
		.hash_conflict = wp_arena_strdup(a, r->hash_conflict),
		.core_metadata = wp_arena_strdup(a, r->core_metadata), .tags = wp_arena_strdup(a, r->tags),
		.size = r->size,
	});
	wp_vec_push(&l->rank, wp_resolve_index_rank(l->o, r->project, r->source_url, r->source_id));
	return 0;
}

/* The catalog's rows for p (which holds none yet), kept to the best index that lists it. */
static int read_rows(struct provider *pv, struct proj *p, struct wp_err *err)
{
	struct load l = { .p = p, .o = pv->o };
	int rc = wp_catalog_files(pv->cat, p->name, false, load_row, &l, err);
	if (rc < 0) {
		wp_vec_free(&l.rank);
		return rc;
	}
	long long best = -1;
	for (size_t i = 0; i < p->c.n; i++)
		if (l.rank.v[i] >= 0 && (best < 0 || l.rank.v[i] < best))
			best = l.rank.v[i];
	size_t out = 0;
	for (size_t i = 0; i < p->c.n; i++)
		if (best >= 0 && l.rank.v[i] == best)
			p->c.v[out++] = p->c.v[i];
	p->c.n = out;
	wp_vec_free(&l.rank);
	return 0;
}

static struct proj *find(struct provider *pv, const char *name)
{
	for (size_t i = 0; i < pv->projs.n; i++)
		if (!strcmp(pv->projs.v[i]->name, name))
			return pv->projs.v[i];
	return NULL;
}

static struct proj *get(struct provider *pv, const char *name)
{
	struct proj *p = find(pv, name);
	if (!p) {
		p = wp_xcalloc(1, sizeof(*p));
		p->name = wp_xstrdup(name);
		wp_vec_push(&pv->projs, p);
	}
	return p;
}

static void forget_rows(struct proj *p)
{
	for (size_t i = 0; i < p->variants.n; i++) {
		wp_variants_release(p->variants.v[i]);
		free(p->variants.v[i]);
	}
	wp_vec_free(&p->variants);
	wp_arena_free(&p->strings);
	wp_vec_free(&p->c);
	p->loaded = false;
}

/* PEP 825: the variants.json rows of a project, as the catalog lists them. */
struct vrow {
	char *version, *url, *sha256, *body, *body_sha256;
	long long rank;
};
WP_VEC_OF(vrow_vec, struct vrow);

struct vload {
	const struct wp_resolve_opts *o;
	const char *project;
	struct vrow_vec rows;
};

static int vrow_fn(void *ctx, const struct wp_variants_row *r, struct wp_err *err)
{
	struct vload *l = ctx;
	long long rank = wp_resolve_index_rank(l->o, l->project, r->source_url, r->source_id);
	if (rank < 0 || !r->version || !r->url)
		return 0; /* an index out of play says nothing about these files */
	wp_vec_push(&l->rows, (struct vrow){
		.version = wp_xstrdup(r->version), .url = wp_xstrdup(r->url),
		.sha256 = r->sha256 ? wp_xstrdup(r->sha256) : NULL, .body = r->body ? wp_xstrdup(r->body) : NULL,
		.body_sha256 = r->body_sha256 ? wp_xstrdup(r->body_sha256) : NULL, .rank = rank,
	});
	return 0;
}

/* The bytes of one variants.json: as kept in the catalog when they are what the page lists now,
 * else read (and kept). NULL body when offline and never read. */
static int variants_body(struct provider *pv, struct vrow *r, struct wp_err *err)
{
	if (r->body && (!r->sha256 || (r->body_sha256 && !strcmp(r->sha256, r->body_sha256))))
		return 0;
	free(r->body);
	r->body = NULL;
	if (pv->o->offline)
		return 0;
	int rc;
	if ((rc = wp_lazy_require(WP_LIB_CURL | WP_LIB_CRYPTO, err)))
		return rc;
	struct wp_http_req req = { .url = r->url, .max_bytes = WP_VARIANTS_MAX_BYTES };
	struct wp_http_res res;
	char hex[WP_SHA256_HEX_LEN + 1] = "";
	struct wp_hasher h;
	rc = wp_http_get(&req, &res, err);
	if (!rc && !(rc = wp_hasher_init(&h, WP_HASH_SHA256, err))) {
		wp_hasher_update(&h, res.body.data, res.body.len);
		rc = wp_hasher_final(&h, hex, NULL, err);
		wp_hasher_release(&h);
	}
	if (!rc && r->sha256 && strcasecmp(r->sha256, hex) != 0)
		rc = wp_fail(err, -WPE_INTEGRITY, "variants.json '%s': sha256 %s, but the index lists %s", r->url, hex, r->sha256);
	if (!rc && memchr(res.body.data, 0, res.body.len))
		rc = wp_fail(err, -WPE_SOURCE, "variants.json '%s' holds a NUL byte: not JSON", r->url);
	if (!rc) {
		r->body = wp_xstrdup(wp_buf_cstr(&res.body));
		/* kept for the next pick; a catalog this process may not write only costs a read next time */
		struct wp_err ke = WP_ERR_INIT;
		if (wp_catalog_variants_put(pv->cat, r->url, hex, r->body, &ke) < 0)
			wp_say(pv->s, WP_SAY_DEBUG, "%s", ke.msg);
	}
	wp_http_res_release(&res);
	return rc;
}

/* PEP 825: each variant wheel's metadata, from the {name}-{version}-variants.json its index lists
 * beside it. A wheel whose release lists none keeps variants NULL: the picking rule then says so. */
static int attach_variants(struct provider *pv, struct proj *p, struct wp_err *err)
{
	bool any = false;
	for (size_t i = 0; i < p->c.n && !any; i++)
		any = p->c.v[i].variant && *p->c.v[i].variant && p->c.v[i].filename &&
		      wp_pick_candidate_is_variant_wheel(&p->c.v[i]);
	if (!any)
		return 0;
	struct vload l = { .o = pv->o, .project = p->name };
	int rc = wp_catalog_variants(pv->cat, p->name, vrow_fn, &l, err);
	for (size_t r = 0; !rc && r < l.rows.n; r++) {
		struct vrow *vr = &l.rows.v[r];
		bool wanted = false;
		for (size_t i = 0; i < p->c.n && !wanted; i++)
			wanted = !p->c.v[i].variants && wp_version_same(p->c.v[i].version, vr->version) &&
				 wp_pick_candidate_is_variant_wheel(&p->c.v[i]);
		if (!wanted)
			continue;
		/* the best index's file when two list one */
		bool better = false;
		for (size_t k = 0; k < l.rows.n && !better; k++)
			better = k != r && l.rows.v[k].rank < vr->rank && wp_version_same(l.rows.v[k].version, vr->version);
		if (better)
			continue;
		if ((rc = variants_body(pv, vr, err)) < 0 || !vr->body)
			continue;
		struct wp_variants *v = wp_xcalloc(1, sizeof(*v));
		if ((rc = wp_variants_parse(vr->url, vr->body, strlen(vr->body), v, err)) < 0) {
			free(v);
			break;
		}
		wp_vec_push(&p->variants, v);
		for (size_t i = 0; i < p->c.n; i++)
			if (!p->c.v[i].variants && wp_version_same(p->c.v[i].version, vr->version))
				p->c.v[i].variants = v;
	}
	for (size_t r = 0; r < l.rows.n; r++) {
		free(l.rows.v[r].version);
		free(l.rows.v[r].url);
		free(l.rows.v[r].sha256);
		free(l.rows.v[r].body);
		free(l.rows.v[r].body_sha256);
	}
	wp_vec_free(&l.rows);
	return rc < 0 ? rc : 0;
}

/* p's rows from the catalog, read again. */
static int reload(struct provider *pv, struct proj *p, struct wp_err *err)
{
	forget_rows(p);
	int rc = read_rows(pv, p, err);
	if (!rc)
		rc = attach_variants(pv, p, err);
	p->loaded = rc == 0;
	return rc;
}

static bool may_crawl(const struct provider *pv)
{
	return !pv->o->offline && pv->roots.n;
}

static int files(void *ctx, const char *project, struct wp_solve_files *out, struct wp_err *err)
{
	struct provider *pv = ctx;
	struct proj *p = get(pv, project);
	int rc;
	if (!p->loaded && (rc = reload(pv, p, err)) < 0)
		return rc;
	if (!p->c.n && !p->crawled && may_crawl(pv)) {
		/* a dependency no source was crawled for: its page under the index roots, then again */
		const char *one[] = { project };
		if ((rc = wp_sources_crawl_projects(pv->s, pv->cat, &pv->roots, one, 1, err)) < 0)
			return rc;
		p->crawled = true;
		if ((rc = reload(pv, p, err)) < 0)
			return rc;
	}
	out->c = p->c.v;
	out->n = p->c.n;
	return 0;
}

static void read_projects(void *ctx, const char *const *projects, size_t n)
{
	struct provider *pv = ctx;
	struct wp_err e = WP_ERR_INIT;
	if (!may_crawl(pv))
		return;
	const char **missing = wp_xcalloc(n ? n : 1, sizeof(*missing));
	size_t nm = 0;
	for (size_t i = 0; i < n; i++) {
		struct proj *p = get(pv, projects[i]);
		if (p->crawled || (!p->loaded && reload(pv, p, &e) < 0) || p->c.n)
			continue;
		missing[nm++] = p->name;
	}
	/* every missing page in one crawl; a failure here is met again, and reported, by files() */
	if (nm && wp_sources_crawl_projects(pv->s, pv->cat, &pv->roots, missing, nm, &e) == 0)
		for (size_t i = 0; i < nm; i++) {
			struct proj *p = find(pv, missing[i]);
			p->crawled = true;
			p->loaded = false; /* read again, with what the crawl brought */
		}
	free(missing);
}

static int deps(void *ctx, const struct wp_candidate *c, struct wp_solve_deps *out, struct wp_err *err)
{
	struct provider *pv = ctx;
	struct wp_depmeta *m = wp_xcalloc(1, sizeof(*m));
	int rc = wp_depmeta_get(&pv->dm, c, c->core_metadata, m, err);
	if (rc < 0) {
		wp_depmeta_release(m);
		free(m);
		return rc;
	}
	wp_vec_push(&pv->metas, m);
	wp_say(pv->s, WP_SAY_DEBUG, "%s: dependencies from %s", c->filename, m->source ? m->source : "?");
	*out = (struct wp_solve_deps){
		.requires_dist = (const char *const *)m->reqs, .n = m->n, .requires_python = m->requires_python,
		.source = m->source,
	};
	return 0;
}

static void read_deps(void *ctx, const struct wp_candidate *const *c, size_t n)
{
	struct provider *pv = ctx;
	const char **cms = wp_xcalloc(n ? n : 1, sizeof(*cms));
	for (size_t i = 0; i < n; i++)
		cms[i] = c[i]->core_metadata;
	size_t got = wp_depmeta_prefetch(&pv->dm, c, cms, n);
	if (got)
		wp_say(pv->s, WP_SAY_DEBUG, "read the metadata of %zu file(s) at once", got);
	free(cms);
}

int wp_resolve(const struct wp_session *s, struct wp_catalog *cat, const char *const *reqs, size_t nreq,
	       const struct wp_target *targets, size_t n_targets, const struct wp_resolve_opts *o, struct wp_plan *plan,
	       struct wp_err *err)
{
	struct provider pv = {
		.s = s, .cat = cat, .o = o, .dm = { .cat = cat, .store = o->store, .offline = o->offline },
	};
	wp_sources_dependency_roots(o->indexes, &pv.roots);
	struct wp_solve_provider p = {
		.files = files, .deps = deps, .read_projects = read_projects, .read_deps = read_deps, .ctx = &pv,
	};
	struct wp_solve_opts so = {
		.no_deps = o->no_deps, .pre = o->pre, .explain = o->explain, .hashes = o->hashes, .n_hashes = o->n_hashes,
		.constraints = o->constraints ? o->constraints->v : NULL, .n_constraints = o->constraints ? o->constraints->n : 0,
	};
	int rc = wp_solve(&p, reqs, nreq, targets, n_targets, &so, plan, err);
	for (size_t i = 0; i < pv.projs.n; i++) {
		forget_rows(pv.projs.v[i]);
		free(pv.projs.v[i]->name);
		free(pv.projs.v[i]);
	}
	wp_vec_free(&pv.projs);
	for (size_t i = 0; i < pv.metas.n; i++) {
		wp_depmeta_release(pv.metas.v[i]);
		free(pv.metas.v[i]);
	}
	wp_vec_free(&pv.metas);
	wp_sources_release(&pv.roots);
	return rc;
}
