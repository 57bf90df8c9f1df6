/* ops/shardread.c: CEP 16 sharded repodata read: the index, then the shards of a closure of names. */
#include "ops/shardread.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/msgpack.h"
#include "base/url.h"
#include "base/vec.h"
#include "index/localsrc.h"
#include "index/repodata.h"
#include "net/http.h"
#include "ops/shards.h"
#include "resolver/fileinfo.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- the index ---- */

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wp_shard_entry *)a)->name, ((const struct wp_shard_entry *)b)->name);
}

/* A name a conda package could have, that is safe after '#' in a source URL and in messages. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 256)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(isalnum(c) || c == '-' || c == '_' || c == '.' || c == '+'))
			return false;
	}
	return true;
}

/* ref resolved against the index's URL, ending in '/', and allowed from there. */
static int base_of(const char *url, const char *ref, const char *what, char **out, struct wp_err *err)
{
	char *r = NULL;
	const char *why;
	if (wp_url_resolve(url, ref, &r, NULL) < 0 || !wp_url_scheme_ok(r))
		why = "is no URL";
	else
		why = wp_url_link_refused(url, r);
	if (why) {
		free(r);
		return wp_fail(err, -WPE_SOURCE, "shard index '%s': its %s '%s' %s; refused", url, what, ref, why);
	}
	size_t n = strlen(r);
	if (!n || r[n - 1] != '/') {
		char *s = wp_xasprintf("%s/", r);
		free(r);
		r = s;
	}
	*out = r;
	return 0;
}

int wp_shard_index_decode(const void *data, size_t len, const char *url, struct wp_shard_index *ix,
			  struct wp_err *err)
{
	struct wp_buf raw = WP_BUF_INIT, json = WP_BUF_INIT_MAX(WP_SHARD_INDEX_MAX * 3);
	struct wp_json_val *root = NULL;
	long long version;
	int rc;
	memset(ix, 0, sizeof(*ix));
	ix->url = wp_xstrdup(url);
	if ((rc = wp_zstd_decompress(data, len, WP_SHARD_INDEX_MAX, url, &raw, err)) ||
	    (rc = wp_msgpack_to_json(raw.data, raw.len, url, &json, err)))
		goto out;
	const struct wp_json_opts jo = { .what = url, .noun = "shard index", .kind = "a CEP 16 shard index",
					 .code = -WPE_SOURCE, .max_bytes = json.len + 1 };
	if ((rc = wp_json_load(json.data, json.len, &jo, &root, err)))
		goto out;
	const struct wp_json_val *shards = wp_json_get_obj(root, "shards");
	if (!shards) {
		rc = wp_fail(err, -WPE_SOURCE, "shard index '%s' has no \"shards\" map: it is not a CEP 16 index", url);
		goto out;
	}
	if (wp_json_get(root, "version") && (!wp_json_as_int(wp_json_get(root, "version"), &version) || version != 1)) {
		rc = wp_fail(err, -WPE_SOURCE, "shard index '%s' is not version 1 of CEP 16, the one this wheelpick reads", url);
		goto out;
	}
	const char *b = wp_json_get_str(root, "info", "base_url"), *sb = wp_json_get_str(root, "info", "shards_base_url");
	const char *sd = wp_json_get_str(root, "info", "subdir");
	/* the CEP's defaults: packages beside the index, shards in shards/ under it */
	if ((rc = base_of(url, b && *b ? b : "./", "base_url", &ix->base_url, err)) ||
	    (rc = base_of(url, sb && *sb ? sb : "./shards/", "shards_base_url", &ix->shards_base_url, err)))
		goto out;
	ix->subdir = sd && name_ok(sd) ? wp_xstrdup(sd) : NULL;
	size_t n = wp_json_len(shards);
	ix->v = wp_xcalloc(n ? n : 1, sizeof(*ix->v));
	for (size_t i = 0; i < n; i++) {
		const char *name = wp_json_key_at(shards, i), *hex = wp_json_as_str(wp_json_at(shards, i));
		struct wp_shard_entry *e = &ix->v[ix->n];
		/* bin of 32 bytes reads as 64 hex digits; anything else names no shard */
		if (!name || !name_ok(name) || !hex || !wp_url_hex_lower(hex, strlen(hex), WP_SHA256_HEX_LEN, e->sha256)) {
			ix->malformed++;
			continue;
		}
		e->name = wp_xstrdup(name);
		ix->n++;
	}
	if (ix->n > 1)
		qsort(ix->v, ix->n, sizeof(*ix->v), entry_cmp);
	/* a name twice: the first (in sorted order) stands, as a map with one key per name would */
	size_t out = 0;
	for (size_t i = 0; i < ix->n; i++) {
		if (out && !strcmp(ix->v[out - 1].name, ix->v[i].name)) {
			free(ix->v[i].name);
			ix->malformed++;
			continue;
		}
		ix->v[out++] = ix->v[i];
	}
	ix->n = out;
out:
	if (rc) {
		wp_shard_index_release(ix);
		ix->url = NULL;
	}
	wp_json_tree_free(root);
	wp_buf_free(&raw);
	wp_buf_free(&json);
	return rc;
}

const struct wp_shard_entry *wp_shard_index_find(const struct wp_shard_index *ix, const char *name)
{
	struct wp_shard_entry key = { .name = (char *)name };
	if (!ix->n)
		return NULL;
	return bsearch(&key, ix->v, ix->n, sizeof(*ix->v), entry_cmp);
}

void wp_shard_index_release(struct wp_shard_index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->v[i].name);
	free(ix->v);
	free(ix->url);
	free(ix->base_url);
	free(ix->shards_base_url);
	free(ix->subdir);
	memset(ix, 0, sizeof(*ix));
}

char *wp_shard_url(const struct wp_shard_index *ix, const struct wp_shard_entry *e)
{
	return wp_xasprintf("%s%s.msgpack.zst", ix->shards_base_url, e->sha256);
}

static void sha_of(const void *data, size_t len, char hex[WP_SHA256_HEX_LEN + 1])
{
	struct wp_hasher h;
	hex[0] = 0;
	if (wp_hasher_init(&h, WP_HASH_SHA256, NULL) < 0)
		return;
	wp_hasher_update(&h, data, len);
	if (wp_hasher_final(&h, hex, NULL, NULL) < 0)
		hex[0] = 0;
	wp_hasher_release(&h);
}

/* The folder of the index's URL, with its '/'. */
static char *dir_of(const char *url)
{
	const char *slash = strrchr(url, '/');
	return wp_xstrndup(url, slash ? (size_t)(slash - url) + 1 : strlen(url));
}

int wp_shard_to_repodata(const void *data, size_t len, const struct wp_shard_index *ix,
			 const struct wp_shard_entry *e, const char *what, struct wp_buf *json, struct wp_err *err)
{
	struct wp_buf raw = WP_BUF_INIT, body = WP_BUF_INIT_MAX(WP_SHARD_MAX_OUT * 3);
	struct wp_err de = WP_ERR_INIT;
	char got[WP_SHA256_HEX_LEN + 1], got_raw[WP_SHA256_HEX_LEN + 1] = "";
	int rc = 0;
	wp_buf_reset(json);
	sha_of(data, len, got);
	bool ok = !strcmp(got, e->sha256);
	int drc = wp_zstd_decompress(data, len, WP_SHARD_MAX_OUT, what, &raw, &de);
	if (!ok && !drc) {
		/* some servers hash the msgpack before compressing it */
		sha_of(raw.data, raw.len, got_raw);
		ok = !strcmp(got_raw, e->sha256);
	}
	if (!ok) {
		rc = wp_fail(err, -WPE_INTEGRITY, "shard '%s' of '%s' is not the one the index '%s' names: its sha256 is %s%s%s%s, "
						  "the index says %s", what, e->name, ix->url, got, *got_raw ? " (" : "",
			     got_raw, *got_raw ? " decompressed)" : "", e->sha256);
		goto out;
	}
	if (drc) {
		rc = wp_fail(err, drc, "%s", de.msg);
		goto out;
	}
	if ((rc = wp_msgpack_to_json(raw.data, raw.len, what, &body, err)))
		goto out;
	if (body.len < 2 || body.data[0] != '{') {
		rc = wp_fail(err, -WPE_SOURCE, "shard '%s' of '%s' is not a map of packages", what, e->name);
		goto out;
	}
	/* info first, where the repodata reader settles where packages are; then the shard's members */
	struct wp_json w;
	char *dir = dir_of(ix->url);
	wp_json_init_indent(&w, NULL);
	wp_json_obj(&w);
	wp_json_key(&w, "info");
	wp_json_obj(&w);
	if (ix->subdir)
		wp_json_kstr(&w, "subdir", ix->subdir);
	if (strcmp(ix->base_url, dir))
		wp_json_kstr(&w, "base_url", ix->base_url);
	wp_json_obj_end(&w);
	wp_json_obj_end(&w);
	free(dir);
	if ((rc = wp_json_finish_buf(&w, json))) {
		rc = wp_fail(err, -WPE_SOURCE, "shard index '%s' has an info that is not UTF-8", ix->url);
		goto out;
	}
	/* {"info":{...}}\n  ->  {"info":{...}, + the shard's members */
	while (json->len && (json->data[json->len - 1] == '\n' || json->data[json->len - 1] == '}'))
		json->len--;
	json->len++; /* the info object's own '}' */
	json->data[json->len] = 0;
	if (strcmp(body.data, "{}"))
		wp_buf_addch(json, ',');
	wp_buf_add(json, body.data + 1, body.len - 1);
out:
	wp_buf_free(&raw);
	wp_buf_free(&body);
	return rc;
}

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
	c->v = wp_xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->v[c->n] = (struct wp_shard_subdir){ .url = u, .index_url = wp_xasprintf("%s/" WP_SHARD_INDEX_FILE, u) };
	c->n++;
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
	c->n = 0;
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
	return !c->force && p->found && c->max_age_s > 0 && p->fetched_at > 0 && time(NULL) - p->fetched_at < c->max_age_s;
}

/* A source with no files: the index read (its hash kept), or a name this subdir does not have. */
static int empty_source(struct wp_catalog *cat, const char *url, const char *kind, const char *sha, struct wp_err *err)
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
	struct stat st;
	struct wp_err e = WP_ERR_INIT;
	bool gone = wp_local_is_file_url(url) && wp_local_path(url, &path, &e) == 0 && stat(path, &st) < 0 && errno == ENOENT;
	free(path);
	return gone;
}

/* The indexes of subdirs which[0..n) fetched in parallel and decoded. */
static void fetch_indexes(struct wp_catalog *cat, struct wp_shard_crawl *c, const size_t *which, size_t n)
{
	struct wp_http_req *reqs = wp_xcalloc(n ? n : 1, sizeof(*reqs));
	struct wp_http_res *res = wp_xcalloc(n ? n : 1, sizeof(*res));
	struct wp_err *errs = wp_xcalloc(n ? n : 1, sizeof(*errs));
	for (size_t k = 0; k < n; k++)
		reqs[k] = (struct wp_http_req){ .url = c->v[which[k]].index_url, .max_bytes = WP_SHARD_INDEX_MAX };
	if (n)
		wp_http_get_many(reqs, res, n, errs);
	for (size_t k = 0; k < n; k++) {
		struct wp_shard_subdir *s = &c->v[which[k]];
		struct wp_err e = WP_ERR_INIT;
		char sha[WP_SHA256_HEX_LEN + 1];
		if (errs[k].code) {
			s->sharded = false;
			if (!not_found(s->index_url, &res[k]))
				sub_fail(s, &errs[k]);
		} else if (wp_shard_index_decode(res[k].body.data, res[k].body.len, s->index_url, &s->ix, &e) < 0) {
			s->sharded = false;
			sub_fail(s, &e);
		} else {
			s->sharded = s->loaded = true;
			sha_of(res[k].body.data, res[k].body.len, sha);
			if (empty_source(cat, s->index_url, "shard-index", sha, &e) < 0)
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
		/* read lately: sharded; the index itself is fetched only if a name needs it. A subdir whose
		 * repodata.json was read lately, and never an index, is left to that age rule as it was */
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
	if (!n || spec[n] == '*' || !strncmp(spec, "__", 2)) /* a glob or a virtual package: no shard */
		return;
	char *name = wp_xstrndup(spec, n);
	if (name_ok(name) && ns->n < WP_SHARD_CLOSURE_MAX)
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
	unsigned long long files;
};

static int sink_fn(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct sink *k = ctx;
	char variant[48];
	if (rec->kind != WP_KIND_CONDA)
		return 0;
	if (!rec->project || !rec->version) {
		k->s->malformed++;
		return 0;
	}
	wp_conda_variant(rec->build, variant);
	struct wp_file_row row = {
		.source_id = k->sid, .size = rec->size, .build_number = rec->build_number, .timestamp = rec->timestamp,
		.project = rec->project, .version = rec->version, .variant = variant, .kind = "conda", .build = rec->build,
		.subdir = rec->subdir, .depends = rec->depends, .constrains = rec->constrains,
		.track_features = rec->track_features, .filename = rec->filename, .url = rec->url, .sha256 = rec->sha256,
		.md5 = rec->md5,
	};
	int rc = wp_catalog_add_file(k->cat, &row, err);
	if (!rc)
		k->files++;
	return rc;
}

/* One shard's bytes into the catalog as the source src (one transaction). */
static int store_shard(struct wp_catalog *cat, struct wp_shard_subdir *s, const struct wp_shard_entry *e,
		       const char *src, const char *url, const struct wp_buf *body, struct wp_err *err)
{
	struct wp_buf json = WP_BUF_INIT;
	struct sink k = { .cat = cat, .s = s };
	struct wp_index_stats st = { 0 };
	int rc = wp_shard_to_repodata(body->data, body->len, &s->ix, e, url, &json, err);
	if (!rc)
		rc = wp_catalog_refresh_begin(cat, src, "shard", &k.sid, err);
	if (!rc) {
		rc = wp_read_repodata_mem(json.data, json.len, s->url, sink_fn, &k, &st, err);
		if (!rc)
			rc = wp_catalog_refresh_commit(cat, k.sid, NULL, NULL, e->sha256, (int64_t)k.files, err);
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
static void round_fetch(struct wp_catalog *cat, struct wp_shard_crawl *c, char **names, size_t nnames)
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
					/* not in this subdir: said once, so a fresh read needs no index */
					if ((!p.found || p.n_files) && empty_source(cat, src, "shard", NULL, &e) < 0)
						sub_fail(s, &e);
				} else if (ent && !c->force && p.found && p.sha && !strcmp(p.sha, ent->sha256)) {
					s->unchanged++;
					ent = NULL;
				}
			}
			if (ent) {
				wp_vec_push_fields(jobs, nj, capj, ((struct job){ i, ent, src, wp_shard_url(&s->ix, ent) }));
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
		reqs[k] = (struct wp_http_req){ .url = jobs[k].url, .max_bytes = WP_SHARD_MAX };
	if (nj)
		wp_http_get_many(reqs, res, nj, errs);
	for (size_t k = 0; k < nj; k++) {
		struct wp_shard_subdir *s = &c->v[jobs[k].sub];
		struct wp_err e = WP_ERR_INIT;
		if (errs[k].code)
			sub_fail(s, &errs[k]);
		else if (store_shard(cat, s, jobs[k].e, jobs[k].src, jobs[k].url, &res[k].body, &e) < 0)
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

int wp_shard_crawl_run(struct wp_catalog *cat, struct wp_shard_crawl *c, const char *const *names, size_t n,
		       struct wp_err *err)
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
