/* ops/core/shardread.c: CEP 16 sharded repodata read: the index, then the shards of a closure of
 * names. */
#include "ops/core/shardread.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/vec.h"
#include "index/localsrc.h"
#include "index/repodata.h"
#include "net/http.h"
#include "ops/core/crawl.h"
#include "resolver/fileinfo.h"
#include "base/os/os.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the crawl ---- */

void wp_shard_crawl_add(struct wp_shard_crawl *c, const char *url)
{
	char *u = wp_xstrdup(url);
	size_t n = strlen(u);
	const char *tail = "/repodata.json";
	if (n > strlen(tail) && !strcmp(u + n - strlen(tail), tail))
		u[n - strlen(tail)] = 0;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].url, u)) {
			free(u);
			return;
		}
	wp_vec_push(c, (struct wp_shard_subdir){
			       .url = u, .index_url = wp_xasprintf("%s/" WP_SHARD_INDEX_FILE, u) });
}

void wp_shard_crawl_release(struct wp_shard_crawl *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].url);
		free(c->v[i].index_url);
		free(c->v[i].error);
		wp_shard_index_release(&c->v[i].ix);
	}
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

static void sub_fail(struct wp_shard_subdir *s, const struct wp_err *e)
{
	if (s->rc)
		return;
	s->rc = e->code ? e->code : -WPE_SOURCE;
	s->error = wp_xstrdup(e->msg[0] ? e->msg : "failed");
}

struct prior {
	bool found;
	int64_t fetched_at, n_files;
	char *sha;
};

static int prior_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	struct prior *p = ctx;
	p->fetched_at = r->fetched_at;
	p->n_files = r->n_files;
	p->sha = r->content_sha256 ? wp_xstrdup(r->content_sha256) : NULL;
	return 0;
}

static void prior_get(struct wp_catalog *cat, const char *url, struct prior *p)
{
	struct wp_err e = WP_ERR_INIT;
	memset(p, 0, sizeof(*p));
	if (wp_catalog_source_get(cat, url, prior_fn, p, &p->found, &e) < 0)
		p->found = false;
}

static bool fresh(const struct wp_shard_crawl *c, const struct prior *p)
{
	return !c->force && p->found && c->max_age_s > 0 && p->fetched_at > 0 &&
	       time(NULL) - p->fetched_at < c->max_age_s;
}

/* A source with no files: the index read (its hash kept), or a name this subdir does not have. */
static int empty_source(struct wp_catalog *cat, const char *url, enum wp_source_kind kind,
			const char *sha, struct wp_err *err)
{
	int64_t sid;
	int rc = wp_catalog_refresh_begin(cat, url, kind, &sid, err);
	if (!rc)
		rc = wp_catalog_refresh_commit(cat, sid, NULL, NULL, sha, 0, err);
	return rc;
}

static bool not_found(const char *url, const struct wp_http_res *res)
{
	if (res->status == 404 || res->status == 410)
		return true;
	char *path = NULL;
	struct wp_os_stat st;
	struct wp_err e = WP_ERR_INIT;
	bool gone = wp_local_is_file_url(url) && wp_local_path(url, &path, &e) == 0 &&
		    wp_os_stat(path, &st) < 0 && errno == ENOENT;
	free(path);
	return gone;
}

/* The indexes of subdirs which[0..n) fetched in parallel and decoded. */
static void fetch_indexes(struct wp_catalog *cat, struct wp_shard_crawl *c, const size_t *which,
			  size_t n)
{
	struct wp_http_req *reqs = wp_xcalloc(n ? n : 1, sizeof(*reqs));
	struct wp_http_res *res = wp_xcalloc(n ? n : 1, sizeof(*res));
	struct wp_err *errs = wp_xcalloc(n ? n : 1, sizeof(*errs));
	for (size_t k = 0; k < n; k++)
		reqs[k] = (struct wp_http_req){ .url = c->v[which[k]].index_url,
						.max_bytes = WP_SHARD_INDEX_MAX,
						.policy = { .conf = c->net } };
	if (n)
		wp_http_get_many(reqs, res, n, errs);
	for (size_t k = 0; k < n; k++) {
		struct wp_shard_subdir *s = &c->v[which[k]];
		struct wp_err e = WP_ERR_INIT;
		char sha[WP_SHA256_HEX_LEN + 1];
		if (errs[k].code) {
			/* gone since a read said it was there (the probe took it on its age): the
			 * caller reads repodata.json instead */
			s->lost = s->sharded && not_found(s->index_url, &res[k]);
			s->sharded = false;
			if (!not_found(s->index_url, &res[k]))
				sub_fail(s, &errs[k]);
		} else if (wp_shard_index_decode(res[k].body.data, res[k].body.len, s->index_url,
						 &s->ix, &e) < 0) {
			s->sharded = false;
			sub_fail(s, &e);
		} else {
			s->sharded = s->loaded = true;
			wp_sha256_hex_of(res[k].body.data, res[k].body.len, sha);
			if (empty_source(cat, s->index_url, WP_SOURCE_SHARD_INDEX, sha, &e) < 0)
				sub_fail(s, &e);
		}
		wp_http_res_release(&res[k]);
	}
	free(reqs);
	free(res);
	free(errs);
}

void wp_shard_crawl_probe(struct wp_catalog *cat, struct wp_shard_crawl *c)
{
	size_t *which = wp_xcalloc(c->n ? c->n : 1, sizeof(*which)), n = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct prior p, whole;
		char *rd = wp_xasprintf("%s/repodata.json", c->v[i].url);
		prior_get(cat, c->v[i].index_url, &p);
		prior_get(cat, rd, &whole);
		/* read lately: sharded; the index itself is fetched only if a name needs it. A
		 * subdir whose repodata.json was read lately, and never an index, is left to that
		 * age rule as it was */
		if (fresh(c, &p))
			c->v[i].sharded = true;
		else if (!(!p.found && fresh(c, &whole)))
			which[n++] = i;
		free(p.sha);
		free(whole.sha);
		free(rd);
	}
	fetch_indexes(cat, c, which, n);
	free(which);
}

/* Names seen in a closure: a small open-addressing set, so 20,000 names cost no quadratic scan. */
struct nameset {
	char **slot;
	size_t cap, n;
	char **order;  /* in the order added (the rounds walk it) */
};

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool nameset_add(struct nameset *ns, const char *s, size_t n)
{
	if ((ns->n + 1) * 2 > ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 256;
		char **slot = wp_xcalloc(cap, sizeof(*slot));
		for (size_t i = 0; i < ns->cap; i++)
			if (ns->slot[i]) {
				size_t h = name_hash(ns->slot[i]) & (cap - 1);
				while (slot[h])
					h = (h + 1) & (cap - 1);
				slot[h] = ns->slot[i];
			}
		free(ns->slot);
		ns->slot = slot;
		ns->cap = cap;
		ns->order = wp_xrealloc(ns->order, cap / 2 * sizeof(*ns->order));
	}
	char *name = wp_xstrndup(s, n);
	for (char *p = name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	size_t h = name_hash(name) & (ns->cap - 1);
	while (ns->slot[h]) {
		if (!strcmp(ns->slot[h], name)) {
			free(name);
			return false;
		}
		h = (h + 1) & (ns->cap - 1);
	}
	ns->slot[h] = name;
	ns->order[ns->n++] = name;
	return true;
}

static void nameset_free(struct nameset *ns)
{
	for (size_t i = 0; i < ns->cap; i++)
		free(ns->slot[i]);
	free(ns->slot);
	free(ns->order);
}

/* The package a MatchSpec names: "python >=3.8", "numpy>=1.2", "conda-forge::libgcc 12",
 * "pkg[version='>=1']": its first word, without a channel. */
static void add_spec_name(struct nameset *ns, const char *spec)
{
	while (*spec == ' ')
		spec++;
	const char *colons = strstr(spec, "::");
	if (colons && colons < spec + strcspn(spec, " "))
		spec = colons + 2;
	size_t n = strcspn(spec, " =<>!~[(,|;*");
	if (!n || spec[n] == '*' || !strncmp(spec, "__", 2)) /* a glob or a virtual package: no
								shard */
		return;
	char *name = wp_xstrndup(spec, n);
	if (wp_shard_name_ok(name) && ns->n < WP_SHARD_CLOSURE_MAX)
		nameset_add(ns, name, n);
	free(name);
}

struct deps_ctx {
	const struct wp_shard_crawl *c;
	struct nameset *ns;
};

static int deps_fn(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct deps_ctx *d = ctx;
	bool ours = d->c->nch == 0;
	const char *from = r->source_url && *r->source_url ? r->source_url : r->url;
	for (size_t i = 0; i < d->c->nch && !ours && from; i++) {
		size_t n = strlen(d->c->channels[i]);
		ours = !strncmp(from, d->c->channels[i], n) && from[n] == '/';
	}
	if (!ours || !r->depends || !*r->depends)
		return 0;
	struct wp_json_val *arr = NULL;
	const struct wp_json_opts jo = { .what = "depends", .max_bytes = strlen(r->depends) + 1 };
	if (wp_json_load(r->depends, strlen(r->depends), &jo, &arr, NULL) == 0)
		for (size_t i = 0; i < wp_json_len(arr); i++) {
			const char *s = wp_json_as_str(wp_json_at(arr, i));
			if (s)
				add_spec_name(d->ns, s);
		}
	wp_json_tree_free(arr);
	return 0;
}

/* The sink: conda records into the catalog, as the repodata.json crawl stores them. */
struct sink {
	struct wp_catalog *cat;
	int64_t sid;
	struct wp_shard_subdir *s;
	const char *name, *url; /* the shard's package name (the index's key), and where it was read
				 */
	unsigned long long files;
};

static int sink_fn(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct sink *k = ctx;
	char variant[48];
	struct wp_file_row row;
	if (rec->kind != WP_KIND_CONDA)
		return 0;
	/* CEP 16: a shard holds one name's records. Another's would be stored under this name's
	 * hash and freshness, and shadow (or add to) what that name's own shard says. */
	if (!rec->project || strcmp(rec->project, k->name))
		return wp_fail(err, -WPE_SOURCE,
			       "shard '%s' for '%s' holds a record of '%s' (%s); a shard holds one "
			       "package name's records",
			       k->url, k->name, rec->project ? rec->project : "(no name)",
			       rec->filename ? rec->filename : "?");
	if (!wp_crawl_conda_row(rec, k->sid, variant, &row)) {
		k->s->malformed++;
		return 0;
	}
	int rc = wp_catalog_add_file(k->cat, &row, err);
	if (!rc)
		k->files++;
	return rc;
}

/* One shard's bytes into the catalog as the source src (one transaction). */
static int store_shard(struct wp_catalog *cat, struct wp_shard_subdir *s,
		       const struct wp_shard_entry *e, const char *src, const char *url,
		       const struct wp_buf *body, struct wp_err *err)
{
	struct wp_buf json = WP_BUF_INIT;
	struct sink k = { .cat = cat, .s = s, .name = e->name, .url = url };
	struct wp_index_stats st = { 0 };
	int rc = wp_shard_to_repodata(body->data, body->len, &s->ix, e, url, &json, err);
	if (rc == -WPE_PARSE) /* bytes from a server that are no shard: the source's fault (exit 3)
			       */
		rc = err->code = -WPE_SOURCE;
	if (!rc)
		rc = wp_catalog_refresh_begin(cat, src, WP_SOURCE_SHARD, &k.sid, err);
	if (!rc) {
		rc = wp_read_repodata_mem(json.data, json.len, s->url, sink_fn, &k, &st, err);
		/* a shard whose every record is malformed gives its name nothing: a failure of the
		 * source, named, not a name the channel lacks */
		if (!rc && !k.files && st.malformed)
			rc = wp_fail(err, -WPE_SOURCE,
				     "shard '%s' for '%s' holds %llu record(s), none well-formed",
				     url, e->name, st.malformed);
		if (!rc)
			rc = wp_catalog_refresh_commit(cat, k.sid, NULL, NULL, e->sha256,
						       (int64_t)k.files, err);
		else
			wp_catalog_refresh_abort(cat);
		if (!rc) {
			s->fetched++;
			s->records += k.files;
			s->malformed += st.malformed;
			s->conflicts += cat->refresh_conflicts;
		}
	}
	wp_buf_free(&json);
	return rc;
}

struct job {
	size_t sub;
	const struct wp_shard_entry *e;
	char *src, *url;
};

/* One round: the shards of names[from..to) that are not fresh, from every sharded subdir. */
static void round_fetch(struct wp_catalog *cat, struct wp_shard_crawl *c, char **names,
			size_t nnames)
{
	struct job *jobs = NULL;
	size_t nj = 0, capj = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct wp_shard_subdir *s = &c->v[i];
		for (size_t k = 0; k < nnames && s->sharded && !s->rc; k++) {
			char *src = wp_xasprintf("%s#%s", s->index_url, names[k]);
			struct prior p;
			struct wp_err e = WP_ERR_INIT;
			prior_get(cat, src, &p);
			const struct wp_shard_entry *ent = NULL;
			if (fresh(c, &p)) {
				s->unchanged++;
			} else {
				if (!s->loaded) {
					size_t one = i;
					fetch_indexes(cat, c, &one, 1);
				}
				if (s->loaded && !(ent = wp_shard_index_find(&s->ix, names[k]))) {
					/* not in this subdir: said once, so a fresh read needs no
					 * index */
					if ((!p.found || p.n_files) &&
					    empty_source(cat, src, WP_SOURCE_SHARD, NULL, &e) < 0)
						sub_fail(s, &e);
				} else if (ent && !c->force && p.found && p.sha &&
					   !strcmp(p.sha, ent->sha256)) {
					s->unchanged++;
					ent = NULL;
				}
			}
			if (ent) {
				wp_vec_push_fields(jobs, nj, capj,
						   ((struct job){ i, ent, src,
								  wp_shard_url(&s->ix, ent) }));
				src = NULL;
			}
			free(src);
			free(p.sha);
		}
	}
	struct wp_http_req *reqs = wp_xcalloc(nj ? nj : 1, sizeof(*reqs));
	struct wp_http_res *res = wp_xcalloc(nj ? nj : 1, sizeof(*res));
	struct wp_err *errs = wp_xcalloc(nj ? nj : 1, sizeof(*errs));
	for (size_t k = 0; k < nj; k++)
		reqs[k] = (struct wp_http_req){ .url = jobs[k].url,
						.max_bytes = WP_SHARD_MAX,
						.policy = { .conf = c->net } };
	if (nj)
		wp_http_get_many(reqs, res, nj, errs);
	for (size_t k = 0; k < nj; k++) {
		struct wp_shard_subdir *s = &c->v[jobs[k].sub];
		struct wp_err e = WP_ERR_INIT;
		if (errs[k].code)
			sub_fail(s, &errs[k]);
		else if (store_shard(cat, s, jobs[k].e, jobs[k].src, jobs[k].url, &res[k].body,
				     &e) < 0)
			sub_fail(s, &e);
		wp_http_res_release(&res[k]);
		free(jobs[k].src);
		free(jobs[k].url);
	}
	free(jobs);
	free(reqs);
	free(res);
	free(errs);
}

int wp_shard_crawl_run(struct wp_catalog *cat, struct wp_shard_crawl *c, const char *const *names,
		       size_t n, struct wp_err *err)
{
	struct nameset ns = { 0 };
	struct deps_ctx d = { c, &ns };
	for (size_t i = 0; i < n; i++)
		add_spec_name(&ns, names[i]);
	for (size_t from = 0; from < ns.n;) {
		size_t to = ns.n;
		round_fetch(cat, c, ns.order + from, to - from);
		/* the next round: what the records of this one depend on (every channel in play) */
		for (size_t i = from; i < to; i++) {
			struct wp_err e = WP_ERR_INIT;
			wp_catalog_files(cat, ns.order[i], true, deps_fn, &d, &e);
		}
		from = to;
	}
	c->names = ns.n;
	nameset_free(&ns);
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].rc)
			return wp_fail(err, c->v[i].rc, "%s", c->v[i].error);
	return 0;
}
