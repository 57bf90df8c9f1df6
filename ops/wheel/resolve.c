/* ops/wheel/resolve.c: a solver provider over the catalog: rows per project (kept to the index it
 * may come from), pages crawled on demand from the dependency roots, metadata through
 * ops/metadata. */
#include "ops/wheel/resolve.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/nameindex.h"
#include "index/variants.h"
#include "net/http.h"
#include "ops/core/metadata.h"
#include "ops/core/sources.h"
#include "resolver/requirement.h"
#include "resolver/solvecase.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"
#include "verify/hash.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One project's rows, owned: candidates point into the arena. They are read newest first, a
 * window at a time (schema 7's version key): the picking rule says when a window cannot decide
 * (resolver/pick.h partial), and only then are older rows read. A catalog with 100 copies of the
 * 2021 page lists 77,700 torch files; a pick needs the newest few hundred. */
struct proj {
	char *name;
	WP_VEC_OF(, struct wp_candidate) c;
	WP_VEC_OF(, struct wp_variants *)
	variants; /* PEP 825 metadata the candidates point to (owned) */
	struct wp_arena strings;
	bool loaded;            /* c holds the catalog's rows as last read */
	bool crawled;           /* its pages were asked of the dependency roots (found or not) */
	bool partial;           /* rows not read yet exist (older than c's, or outside pin) */
	bool keys_done;         /* every row with a version key was read; the keyless ones remain */
	bool ranked;            /* sources holds the sources it may come from */
	bool pin_done;          /* the pin's range was read */
	size_t n_listing;       /* the sources that list it, allowed (sources) or not */
	WP_VEC_OF(, int64_t) sources;
	WP_VEC_OF(, char *)
	source_index; /* sources[i]'s index as configured (else its page), owned */
	struct wp_buf below;    /* the next window reads keys below this (empty: from the top) */
	size_t window;          /* rows the next window reads at least */
	struct wp_buf pin_lo, pin_hi; /* a root requirement's == pin: the first window is this range
				       */
};

#define FIRST_WINDOW 256

WP_VEC_OF(proj_vec, struct proj *);
/* A file's metadata as the solver gets it: read once, its Requires-Dist parsed once. */
struct meta {
	char *url;            /* its key in meta_ix */
	struct wp_depmeta m;
	struct wp_reqs reqs; /* m's Requires-Dist, parsed; one that does not parse is kept (!ok):
				the solver refuses the file when it tries it */
};
WP_VEC_OF(meta_vec, struct meta *);

struct provider {
	const struct wp_session *s;
	struct wp_catalog *cat;
	const struct wp_resolve_opts *o;
	bool whole; /* read every row at once (--explain lists them all; --hash filters) */
	const struct wp_req *roots_req; /* the requirements asked for (borrowed; !ok: unreadable) */
	size_t n_roots_req;
	struct wp_depmeta_opts dm;
	struct wp_sources roots;     /* where a missing project's page may be */
	struct proj_vec projs;
	struct wp_name_index proj_ix; /* their names */
	struct meta_vec metas;       /* every metadata handed out, kept until the solve ends */
	struct wp_name_index meta_ix; /* their URLs: a file asked for again gets what was parsed */
};

static bool has_prefix(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/* A pick stopped at a file whose bytes are not those first trusted for its name: the message
 * names both sources (where the trusted bytes were first seen, and when) and the command that
 * accepts the new ones. */
static void say_untrusted(struct wp_catalog *cat, const struct wp_plan *plan, struct wp_err *err)
{
	struct wp_err e = WP_ERR_INIT;
	char *sha = NULL, *first_url = NULL, when[32] = "?";
	int64_t t = 0;
	bool found = false;
	if (wp_catalog_first_seen(cat, plan->untrusted_url, &found, &sha, &first_url, &t, &e) ==
		    0 &&
	    found) {
		time_t tt = (time_t)t;
		struct tm tm;
		if (t > 0 && gmtime_r(&tt, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d", &tm);
		int code = err->code;
		wp_err_clear(err);
		wp_fail(err, code,
			"%s; the trusted bytes were first seen at '%s' (%s); check both sources, then accept "
			"the new bytes with: wheelpick trust '%s'",
			plan->untrusted_why, first_url, when, plan->untrusted_url);
	}
	free(sha);
	free(first_url);
}

long long wp_resolve_index_rank(const struct wp_resolve_opts *o, const char *project,
				const char *source_url, long long source_id)
{
	for (size_t i = 0; o && i < o->n_index_for; i++)
		if (!strcmp(o->index_for[i].project, project))
			/* pinned to one index: rows from anywhere else do not exist for it */
			return has_prefix(source_url, o->index_for[i].url) ? 0 : -1;
	if (!o || !o->indexes || !o->indexes->n)
		return o && o->strategy == WP_INDEX_BEST_MATCH ? 0 : source_id;
	for (size_t i = 0; i < o->indexes->n; i++) {
		/* a root URL covers the project pages under it */
		if (has_prefix(source_url, o->indexes->v[i]))
			return o->strategy == WP_INDEX_BEST_MATCH ? 0 : (long long)i;
	}
	return -1;
}

struct chunk_row {
	int64_t id;
	struct wp_candidate c;
};

struct load {
	struct proj *p;
	const struct wp_resolve_opts *o;
	WP_VEC_OF(, struct chunk_row)
	rows; /* this read's rows, put in catalog order before they join c */
	size_t want;                 /* stop at the first new public version after this many rows */
	struct wp_buf last_pub;      /* the public key of the last row taken */
	const struct wp_buf *skip_lo, *skip_hi; /* rows in [lo, hi) were read before (the pin's
						   range) */
	bool stopped;
};

static bool source_allowed(const struct proj *p, int64_t id)
{
	for (size_t i = 0; i < p->sources.n; i++)
		if (p->sources.v[i] == id)
			return true;
	return false;
}

static const char *source_index(const struct proj *p, int64_t id)
{
	for (size_t i = 0; i < p->sources.n && i < p->source_index.n; i++)
		if (p->sources.v[i] == id)
			return p->source_index.v[i];
	return NULL;
}

static int key_cmp(const void *a, size_t an, const struct wp_buf *b)
{
	size_t n = an < b->len ? an : b->len;
	int c = n ? memcmp(a, b->data, n) : 0;
	return c ? c : (an > b->len) - (an < b->len);
}

static int load_row(void *vctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct load *l = vctx;
	struct proj *p = l->p;
	struct wp_arena *a = &p->strings;
	if (r->vkey && l->want) {
		size_t pl = wp_version_key_public_len(r->vkey, r->vkey_len);
		/* a window ends between two public versions (1.8.0+cu111 and 1.8.0+cpu go
		 * together) */
		if (l->rows.n >= l->want && pl &&
		    (pl != l->last_pub.len || memcmp(r->vkey, l->last_pub.data, pl))) {
			l->stopped = true;
			return 1;
		}
		wp_buf_reset(&l->last_pub);
		wp_buf_add(&l->last_pub, r->vkey, pl);
	}
	if (l->skip_lo && r->vkey && key_cmp(r->vkey, r->vkey_len, l->skip_lo) >= 0 &&
	    key_cmp(r->vkey, r->vkey_len, l->skip_hi) < 0)
		return 0;
	if (!source_allowed(p, r->source_id))
		return 0; /* kept to the best index that lists it */
	for (size_t i = 0; l->o->refused && r->url && i < l->o->refused->n; i++)
		if (!strcmp(l->o->refused->v[i], r->url))
			return 0; /* its binary has no code for the target's GPU */
	wp_vec_push(&l->rows,
		    (struct chunk_row){
			    .id = r->id,
			    .c = {
				    .project = wp_arena_strdup(a, r->project),
				    .version = wp_arena_strdup(a, r->version),
				    .variant = r->variant && *r->variant ?
						       wp_arena_strdup(a, r->variant) :
						       "",
				    .kind = wp_arena_strdup(a, r->kind),
				    .filename = wp_arena_strdup(a, r->filename),
				    .url = wp_arena_strdup(a, r->url),
				    .sha256 = wp_arena_strdup(a, r->sha256),
				    .requires_python = wp_arena_strdup(a, r->requires_python),
				    .yanked = wp_arena_strdup(a, r->yanked),
				    .hash_conflict = wp_arena_strdup(a, r->hash_conflict),
				    .core_metadata = wp_arena_strdup(a, r->core_metadata),
				    .tags = wp_arena_strdup(a, r->tags),
				    .size = r->size,
				    .seq = r->id,
				    .source = wp_arena_strdup(a, source_index(p, r->source_id)),
			    } });
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct chunk_row *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

struct rank {
	const struct wp_resolve_opts *o;
	struct proj *p;
	WP_VEC_OF(, int64_t) ids;
	WP_VEC_OF(, long long) ranks;
	WP_VEC_OF(, char *) urls;
};

static int rank_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	struct rank *k = ctx;
	wp_vec_push(&k->ids, r->id);
	wp_vec_push(&k->urls, wp_xstrdup(r->url ? r->url : ""));
	wp_vec_push(&k->ranks, wp_resolve_index_rank(k->o, k->p->name, r->url, r->id));
	k->p->n_listing++;
	return 0;
}

/* The sources p may come from: of those that list it, the ones of the best index. */
static int rank_sources(struct provider *pv, struct proj *p, struct wp_err *err)
{
	struct rank k = { .o = pv->o, .p = p };
	p->n_listing = 0;
	int rc = wp_catalog_file_sources(pv->cat, p->name, rank_fn, &k, err);
	long long best = -1;
	for (size_t i = 0; !rc && i < k.ids.n; i++)
		if (k.ranks.v[i] >= 0 && (best < 0 || k.ranks.v[i] < best))
			best = k.ranks.v[i];
	for (size_t i = 0; !rc && i < k.ids.n; i++)
		if (best >= 0 && k.ranks.v[i] == best) {
			wp_vec_push(&p->sources, k.ids.v[i]);
			/* said per pick: the index as the user configured it, when one covers the
			 * page */
			const char *idx = k.urls.v[i];
			for (size_t x = 0; pv->o->indexes && x < pv->o->indexes->n; x++)
				if (has_prefix(k.urls.v[i], pv->o->indexes->v[x])) {
					idx = pv->o->indexes->v[x];
					break;
				}
			wp_vec_push(&p->source_index, wp_xstrdup(idx));
		}
	for (size_t i = 0; i < k.urls.n; i++)
		free(k.urls.v[i]);
	wp_vec_free(&k.urls);
	wp_vec_free(&k.ids);
	wp_vec_free(&k.ranks);
	p->ranked = rc == 0;
	return rc;
}

/* The next rows of p from the catalog, appended to c (the earlier ones keep their places): the
 * pin's range first when there is one, then windows of older versions, each at least twice the
 * last, then the rows without a version key. Each read's rows go in catalog order, as one read of
 * them all would give them: the picking rule's ties go to the first. */
static int read_rows(struct provider *pv, struct proj *p, struct wp_err *err)
{
	struct load l = { .p = p, .o = pv->o, .last_pub = WP_BUF_INIT };
	struct wp_catalog_key_range r = { 0 };
	int rc = 0;
	if (!p->ranked && (rc = rank_sources(pv, p, err)) < 0)
		return rc;
	if (!p->sources.n) {
		p->partial = false;
		return 0;
	}
	/* only the rows of the sources it may come from are read (the source index); when every
	 * source that lists it may, one read over them all needs no merge */
	const int64_t *only = p->sources.n < p->n_listing ? p->sources.v : NULL;
	r.sources = only;
	r.n_sources = only ? p->sources.n : 0;
	if (!p->pin_done && p->pin_lo.len && !pv->whole) {
		/* ==X: the rows of X; any other row only speaks in a message, and is read if one is
		 * needed */
		r = (struct wp_catalog_key_range){ .lo = p->pin_lo.data, .lo_len = p->pin_lo.len,
						   .hi = p->pin_hi.data, .hi_len = p->pin_hi.len,
						   .sources = only, .n_sources = r.n_sources };
		rc = wp_catalog_files_by_version(pv->cat, p->name, &r, load_row, &l, err);
		p->partial = true;
		p->pin_done = true; /* next: all the rest */
	} else if (!p->keys_done) {
		l.want = pv->whole || p->pin_done ? 0 : (p->window ? p->window : FIRST_WINDOW);
		if (p->pin_done) {
			l.skip_lo = &p->pin_lo;
			l.skip_hi = &p->pin_hi;
		}
		if (p->below.len) {
			r.hi = p->below.data;
			r.hi_len = p->below.len;
		}
		rc = wp_catalog_files_by_version(pv->cat, p->name, &r, load_row, &l, err);
		if (rc > 0 && l.stopped) {
			rc = 0;
			wp_buf_reset(&p->below);
			wp_buf_add(&p->below, l.last_pub.data, l.last_pub.len);
			p->window = 2 * (p->window ? p->window : FIRST_WINDOW);
			p->partial = true;
		} else if (!rc) {
			p->keys_done = true;
		}
	}
	if (!rc && p->keys_done) {
		/* versions no PEP 440 reading takes: never picked, but counted in messages */
		struct wp_catalog_key_range nk = { .null_keys = true };
		l.want = 0;
		rc = wp_catalog_files_by_version(pv->cat, p->name, &nk, load_row, &l, err);
		p->partial = false;
	}
	if (rc < 0) {
		wp_vec_free(&l.rows);
		wp_buf_free(&l.last_pub);
		return rc;
	}
	if (l.rows.n)
		qsort(l.rows.v, l.rows.n, sizeof(*l.rows.v), by_id);
	for (size_t i = 0; i < l.rows.n; i++)
		wp_vec_push(&p->c, l.rows.v[i].c);
	wp_vec_free(&l.rows);
	wp_buf_free(&l.last_pub);
	return 0;
}

static struct proj *find(struct provider *pv, const char *name)
{
	size_t i = wp_name_index_find(&pv->proj_ix, name);
	return i == WP_NAME_NONE ? NULL : pv->projs.v[i];
}

/* A requirement asked for without a marker binds every pick of its project in this resolution:
 * its first == pin (not a wildcard, not ===) is the key range of that public version. */
static void find_pin(struct provider *pv, struct proj *p)
{
	for (size_t i = 0; i < pv->n_roots_req && !p->pin_lo.len; i++) {
		const struct wp_requirement *r = &pv->roots_req[i].r;
		if (!pv->roots_req[i].ok || r->has_marker || r->url)
			continue;
		if (strcmp(pv->roots_req[i].project, p->name) != 0)
			continue;
		for (size_t k = 0; k < r->spec.n; k++) {
			const struct wp_specifier *sp = &r->spec.specs[k];
			if (sp->op != WP_OP_EQ || sp->wildcard || !sp->has_version)
				continue;
			wp_version_key_public(&sp->version, &p->pin_lo);
			wp_version_key_public_next((const unsigned char *)p->pin_lo.data,
						   p->pin_lo.len, &p->pin_hi);
			break;
		}
	}
}

static struct proj *get(struct provider *pv, const char *name)
{
	struct proj *p = find(pv, name);
	if (!p) {
		p = wp_xcalloc(1, sizeof(*p));
		p->name = wp_xstrdup(name);
		p->below = p->pin_lo = p->pin_hi = (struct wp_buf)WP_BUF_INIT;
		find_pin(pv, p);
		wp_vec_push(&pv->projs, p);
		wp_name_index_push(&pv->proj_ix, p->name);
	}
	return p;
}

static void forget_rows(struct proj *p)
{
	p->partial = p->keys_done = p->pin_done = p->ranked = false;
	p->window = 0;
	p->sources.n = 0;
	for (size_t i = 0; i < p->source_index.n; i++)
		free(p->source_index.v[i]);
	p->source_index.n = 0;
	wp_buf_reset(&p->below);
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
	wp_vec_push(&l->rows,
		    (struct vrow){
			    .version = wp_xstrdup(r->version),
			    .url = wp_xstrdup(r->url),
			    .sha256 = r->sha256 ? wp_xstrdup(r->sha256) : NULL,
			    .body = r->body ? wp_xstrdup(r->body) : NULL,
			    .body_sha256 = r->body_sha256 ? wp_xstrdup(r->body_sha256) : NULL,
			    .rank = rank,
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
	struct wp_http_req req = { .url = r->url,
				   .max_bytes = WP_VARIANTS_MAX_BYTES,
				   .policy = wp_session_net_policy(pv->s) };
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
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "variants.json '%s': sha256 %s, but the index lists %s", r->url, hex,
			     r->sha256);
	if (!rc && memchr(res.body.data, 0, res.body.len))
		rc = wp_fail(err, -WPE_SOURCE, "variants.json '%s' holds a NUL byte: not JSON",
			     r->url);
	if (!rc) {
		r->body = wp_xstrdup(wp_buf_cstr(&res.body));
		/* kept for the next pick; a catalog this process may not write only costs a read
		 * next time */
		struct wp_err ke = WP_ERR_INIT;
		if (wp_catalog_variants_put(pv->cat, r->url, hex, r->body, &ke) < 0)
			wp_say(pv->s, WP_SAY_DEBUG, "%s", ke.msg);
	}
	wp_http_res_release(&res);
	return rc;
}

/* PEP 825: each variant wheel's metadata, from the {name}-{version}-variants.json its index lists
 * beside it. A wheel whose release lists none keeps variants NULL: the picking rule then says
 * so. */
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
			wanted = !p->c.v[i].variants &&
				 wp_version_same(p->c.v[i].version, vr->version) &&
				 wp_pick_candidate_is_variant_wheel(&p->c.v[i]);
		if (!wanted)
			continue;
		/* the best index's file when two list one */
		bool better = false;
		for (size_t k = 0; k < l.rows.n && !better; k++)
			better = k != r && l.rows.v[k].rank < vr->rank &&
				 wp_version_same(l.rows.v[k].version, vr->version);
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

static bool any_variant(const struct proj *p)
{
	for (size_t i = 0; i < p->c.n; i++)
		if (p->c.v[i].variant && *p->c.v[i].variant)
			return true;
	return false;
}

/* More of p's rows (all of them when whole). The first read stands for the project only when
 * something is in it, and when it says what the solver learns from all the rows: whether the
 * project has variants (resolver/solve.c has_variants; torch always has). */
static int read_more(struct provider *pv, struct proj *p, bool whole, struct wp_err *err)
{
	int rc;
	do {
		if ((rc = read_rows(pv, p, err)) < 0)
			return rc;
	} while (p->partial &&
		 (whole || !p->c.n || (strcmp(p->name, "torch") != 0 && !any_variant(p))));
	return attach_variants(pv, p, err);
}

/* p's rows from the catalog, read again. */
static int reload(struct provider *pv, struct proj *p, struct wp_err *err)
{
	forget_rows(p);
	int rc = read_more(pv, p, pv->whole, err);
	p->loaded = rc == 0;
	return rc;
}

static bool may_crawl(const struct provider *pv)
{
	return !pv->o->offline && pv->roots.n;
}

static int fetched_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	*(int64_t *)ctx = r->fetched_at;
	return 0;
}

static long max_age(const struct provider *pv)
{
	return pv->o->refresh ? 0 : pv->s->max_age_s;
}

/* Is p one of the projects asked for? The job's crawl read their pages already. */
static bool asked_for(const struct provider *pv, const struct proj *p)
{
	for (size_t i = 0; i < pv->n_roots_req; i++)
		if (pv->roots_req[i].ok && !strcmp(pv->roots_req[i].project, p->name))
			return true;
	return false;
}

/* Was p's page under a root read before, longer ago than the session's freshness? Then it is
 * asked for again (conditionally) before it is used, as a named project's page is. With no
 * freshness at all (--refresh, WHEELPICK_MAX_AGE=0) every page read before is, but for those of
 * the projects asked for, which the job's crawl has just read. */
static bool stale_page(struct provider *pv, const struct proj *p)
{
	long age = max_age(pv);
	if (age <= 0 && asked_for(pv, p))
		return false;
	time_t now = time(NULL);
	for (size_t i = 0; i < pv->roots.n; i++) {
		struct wp_err e = WP_ERR_INIT;
		bool found = false;
		int64_t at = 0;
		char *url = wp_xasprintf("%s%s/", pv->roots.urls[i], p->name);
		if (wp_catalog_source_get(pv->cat, url, fetched_fn, &at, &found, &e) < 0)
			found = false;
		free(url);
		if (found && (age <= 0 || now - at >= age))
			return true;
	}
	return false;
}

static int files(void *ctx, const char *project, struct wp_solve_files *out, struct wp_err *err)
{
	struct provider *pv = ctx;
	struct proj *p = get(pv, project);
	int rc;
	if (!p->loaded && (rc = reload(pv, p, err)) < 0)
		return rc;
	if (!p->crawled && may_crawl(pv) && (!p->c.n || stale_page(pv, p))) {
		/* a dependency no source was crawled for: its page under the index roots, then
		 * again */
		const char *one[] = { project };
		if ((rc = wp_sources_crawl_projects(pv->s, pv->cat, &pv->roots, one, 1,
						    pv->o->strategy == WP_INDEX_FIRST, max_age(pv),
						    err)) < 0)
			return rc;
		p->crawled = true;
		if ((rc = reload(pv, p, err)) < 0)
			return rc;
	}
	out->c = p->c.v;
	out->n = p->c.n;
	out->partial = p->partial;
	return 0;
}

/* The solver found the rows it was given unable to decide a pick: the next window (the rest, for
 * a pin's range), appended. */
static int files_more(void *ctx, const char *project, struct wp_solve_files *out,
		      struct wp_err *err)
{
	struct provider *pv = ctx;
	struct proj *p = get(pv, project);
	int rc;
	if (p->loaded && p->partial && (rc = read_more(pv, p, false, err)) < 0)
		return rc;
	out->c = p->c.v;
	out->n = p->c.n;
	out->partial = p->partial;
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
		if (p->crawled || (!p->loaded && reload(pv, p, &e) < 0) ||
		    (p->c.n && !stale_page(pv, p)))
			continue;
		missing[nm++] = p->name;
	}
	/* every missing page in one crawl; a failure here is met again, and reported, by files() */
	if (nm &&
	    wp_sources_crawl_projects(pv->s, pv->cat, &pv->roots, missing, nm,
				      pv->o->strategy == WP_INDEX_FIRST, max_age(pv), &e) == 0)
		for (size_t i = 0; i < nm; i++) {
			struct proj *p = find(pv, missing[i]);
			p->crawled = true;
			p->loaded = false; /* read again, with what the crawl brought */
		}
	free(missing);
}

static int deps(void *ctx, const struct wp_candidate *c, struct wp_solve_deps *out,
		struct wp_err *err)
{
	struct provider *pv = ctx;
	size_t k = c->url ? wp_name_index_find(&pv->meta_ix, c->url) : WP_NAME_NONE;
	struct meta *mt;
	if (k != WP_NAME_NONE) {
		mt = pv->metas.v[k];
	} else {
		mt = wp_xcalloc(1, sizeof(*mt));
		int rc = wp_depmeta_get(&pv->dm, c, c->core_metadata, &mt->m, err);
		if (rc < 0) {
			wp_depmeta_release(&mt->m);
			free(mt);
			return rc;
		}
		/* the metadata's Requires-Dist enter the resolution here, and are parsed here
		 * once */
		for (size_t i = 0; i < mt->m.n; i++)
			wp_req_parse(wp_vec_add(&mt->reqs), mt->m.reqs[i], strlen(mt->m.reqs[i]),
				     NULL);
		/* item i of meta_ix is metas.v[i]; a file with no URL is kept under "", which no
		 * lookup asks for */
		mt->url = wp_xstrdup(c->url ? c->url : "");
		wp_vec_push(&pv->metas, mt);
		wp_name_index_push(&pv->meta_ix, mt->url);
	}
	wp_say(pv->s, WP_SAY_DEBUG, "%s: dependencies from %s", c->filename,
	       mt->m.source ? mt->m.source : "?");
	*out = (struct wp_solve_deps){
		.reqs = mt->reqs.v,
		.n = mt->reqs.n,
		.requires_python = mt->m.requires_python,
		.source = mt->m.source,
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

int wp_resolve(const struct wp_session *s, struct wp_catalog *cat, const struct wp_req *reqs,
	       size_t nreq, const struct wp_target *targets, size_t n_targets,
	       const struct wp_resolve_opts *o, struct wp_plan *plan, struct wp_err *err)
{
	struct provider pv = {
		.s = s,
		.cat = cat,
		.o = o,
		.dm = { .cat = cat, .store = o->store, .offline = o->offline, .net = s->net },
		.whole = o->explain || o->n_hashes,
		.roots = { .creds = s->creds },
	};
	pv.roots_req = reqs; /* an unreadable one: the solver says what is wrong */
	pv.n_roots_req = nreq;
	wp_sources_dependency_roots(s->envp, o->indexes, &pv.roots);
	struct wp_solve_provider p = {
		.files = files,
		.files_more = files_more,
		.deps = deps,
		.read_projects = read_projects,
		.read_deps = read_deps,
		.ctx = &pv,
	};
	struct wp_solve_opts so = {
		.no_deps = o->no_deps,
		.pre = o->pre,
		.explain = o->explain,
		.hashes = o->hashes,
		.n_hashes = o->n_hashes,
		.constraints = o->constraints ? o->constraints->v : NULL,
		.n_constraints = o->constraints ? o->constraints->n : 0,
		.asks = s->asks,
	};
	/* one read transaction for the whole resolution (cache/catalog.h wp_catalog_read_begin): a
	 * warm 10,000-project solve made about 36,000, each with its locks and checks. A page
	 * crawled on demand or metadata kept ends it for its write; the next read begins
	 * another. */
	wp_catalog_read_begin(cat);
	/* --write-testcase: the solver reads through a recorder, so the case holds what it saw */
	struct wp_solve_rec rec;
	struct wp_solve_provider outer;
	if (o->testcase)
		wp_solve_rec_wrap(&rec, &p, &outer);
	int rc = wp_solve(o->testcase ? &outer : &p, reqs, nreq, targets, n_targets, &so, plan,
			  err);
	if (o->testcase) {
		struct wp_buf text = WP_BUF_INIT;
		struct wp_err we = WP_ERR_INIT;
		wp_solve_rec_case(&rec, reqs, nreq, targets, n_targets, &so, plan, rc,
				  err ? err->msg : NULL, &text);
		/* a case that cannot be written fails the run only when the resolution itself
		 * succeeded */
		if (wp_atomic_write(o->testcase, text.data, text.len, &we) < 0 && rc == 0) {
			wp_plan_release(plan);
			rc = wp_fail(err, we.code, "%s", we.msg);
		}
		wp_buf_free(&text);
		wp_solve_rec_release(&rec);
	}
	if (rc == -WPE_UNTRUSTED && plan->untrusted_url)
		say_untrusted(cat, plan, err);
	wp_catalog_read_end(cat);
	for (size_t i = 0; i < pv.projs.n; i++) {
		struct proj *pj = pv.projs.v[i];
		forget_rows(pj);
		wp_vec_free(&pj->sources);
		wp_vec_free(&pj->source_index);
		wp_buf_free(&pj->below);
		wp_buf_free(&pj->pin_lo);
		wp_buf_free(&pj->pin_hi);
		free(pj->name);
		free(pj);
	}
	wp_vec_free(&pv.projs);
	wp_name_index_free(&pv.proj_ix);
	for (size_t i = 0; i < pv.metas.n; i++) {
		wp_depmeta_release(&pv.metas.v[i]->m);
		wp_reqs_release(&pv.metas.v[i]->reqs);
		free(pv.metas.v[i]->url);
		free(pv.metas.v[i]);
	}
	wp_vec_free(&pv.metas);
	wp_name_index_free(&pv.meta_ix);
	wp_sources_release(&pv.roots);
	return rc;
}
