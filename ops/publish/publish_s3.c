/* ops/publish/publish_s3.c: mirrors and channels published to S3 (staged on disk, the difference
 * uploaded in a reader-safe order), and read back for `verify s3://`. */
#include "ops/publish/publish_s3.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "net/s3.h"
#include "net/xfer.h"
#include "index/html.h"
#include "index/s3xml.h"
#include "ops/publish/bundle.h"
#include "ops/publish/publish.h"
#include "verify/hash.h"
#include "verify/metadata.h"
#include "base/os/os.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MANIFEST_MAX (256 << 20)
/* Beside the manifest, the page objects a run is about to create, put before them: a run killed
 * after some pages went up and before its manifest leaves pages no manifest names, which the
 * next run removes when its own tree has them not (as the local writer removes stray pages). */
#define WP_S3_PAGES_PENDING ".wheelpick-mirror.pages-pending"

/* ---- the staging folder ---- */


/* ---- what the tree holds ---- */

enum rank { R_FILE, R_PAGE, R_ROOT, R_MANIFEST };

struct obj {
	char *rel;             /* path under the staging folder and the prefix */
	char *key;             /* prefix + rel */
	enum rank rank;
	long long size;
	char sha256[65];
	char md5[33];          /* "" unless hashed here */
	bool upload;
	bool sent;             /* put while the tree was staged (not counted as unchanged) */
	bool placeholder;      /* a stand-in: must never go up */
	const char *ctype;
	const char *body; /* the bytes when they are in memory (a .metadata), not a staged file */
};

struct objs {
	struct obj *v;
	size_t n, cap;
};

static struct obj *objs_add(struct objs *o)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = wp_xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	struct obj *x = &o->v[o->n++];
	memset(x, 0, sizeof(*x));
	return x;
}

static void objs_free(struct objs *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].rel);
		free(o->v[i].key);
	}
	free(o->v);
	memset(o, 0, sizeof(*o));
}

static int obj_rel_cmp(const void *a, const void *b)
{
	return strcmp(((const struct obj *)a)->rel, ((const struct obj *)b)->rel);
}

static const char *base_name(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? s + 1 : rel;
}

/* The content types pip, uv and conda expect. */
static const char *content_type(const char *rel)
{
	const char *b = base_name(rel);
	if (!strcmp(b, "index.html"))
		return "text/html; charset=utf-8";
	if (!strcmp(b, "index.json"))
		return "application/vnd.pypi.simple.v1+json";
	if (wp_cstr_endswith(b, ".metadata"))
		return "text/plain; charset=utf-8";
	if (wp_cstr_endswith(b, ".whl") || wp_cstr_endswith(b, ".zip"))
		return "application/zip";
	if (wp_cstr_endswith(b, ".tar.gz") || wp_cstr_endswith(b, ".tgz"))
		return "application/gzip";
	if (wp_cstr_endswith(b, ".tar.bz2"))
		return "application/x-bzip2";
	if (wp_cstr_endswith(b, ".zst"))
		return "application/zstd";
	if (wp_cstr_endswith(b, ".json"))
		return "application/json";
	if (wp_cstr_endswith(b, ".html"))
		return "text/html; charset=utf-8";
	return "application/octet-stream";
}

/* Pages after the files they link, roots after the pages, the manifest last. Conda: a subdir's
 * repodata (and the shard index) after the packages and shards it names. */
static enum rank rank_of(const char *rel)
{
	const char *b = base_name(rel);
	int depth = 0;
	for (const char *p = rel; *p; p++)
		depth += *p == '/';
	if (!strcmp(rel, WP_MIRROR_MANIFEST))
		return R_MANIFEST;
	if (!strcmp(b, "index.html") || !strcmp(b, "index.json"))
		return depth >= 2 ? R_PAGE : R_ROOT;
	if (!strncmp(b, "repodata", 8) || !strncmp(b, "current_repodata", 16) ||
	    !strcmp(b, "channeldata.json"))
		return R_ROOT;
	return R_FILE;
}

/* The manifest's word on each file: "files/P/F" and "files/P/F.metadata" with their sha256,
 * sorted by rel once read (known_sort), looked up by halves: a mirror of 20,000 objects asks for
 * each of them. */
struct known_entry {
	char *rel;
	char sha[65];
	long long size;
};

struct known {
	struct known_entry *v;
	size_t n, cap;
	struct wp_json_val *root;
};

static void known_add(struct known *k, char *rel, const char *sha, long long size)
{
	struct known_entry *e = wp_vec_add(k);
	e->rel = rel;
	snprintf(e->sha, sizeof(e->sha), "%s", sha);
	for (char *p = e->sha; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	e->size = size;
}

static int known_cmp(const void *a, const void *b)
{
	return strcmp(((const struct known_entry *)a)->rel, ((const struct known_entry *)b)->rel);
}

static void known_sort(struct known *k)
{
	if (k->n > 1)
		qsort(k->v, k->n, sizeof(*k->v), known_cmp);
}

static const char *known_sha(const struct known *k, const char *rel, long long *size)
{
	struct known_entry key = { .rel = (char *)rel };
	const struct known_entry *e = k->n ? bsearch(&key, k->v, k->n, sizeof(*k->v), known_cmp) :
					     NULL;
	if (e && size)
		*size = e->size;
	return e ? e->sha : NULL;
}

static void known_free(struct known *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].rel);
	wp_vec_free(k);
	wp_json_tree_free(k->root);
	memset(k, 0, sizeof(*k));
}

static bool seg_ok(const char *s)
{
	return s && *s && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/') && !strchr(s, '\\');
}

/* Read a manifest (a path in the staging folder) into k; the roots and pages it lists into
 * old_pages as rels of their index files. Missing: nothing known. */
static int known_read(const char *path, struct known *k, struct objs *old_pages, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	bool found = false;
	int rc = wp_file_read_if_exists(path, MANIFEST_MAX, &b, &found, err);
	if (rc || !found)
		goto out;
	const struct wp_json_opts o = { .what = path,
					.noun = "mirror manifest",
					.max_bytes = MANIFEST_MAX };
	if ((rc = wp_json_load(b.data, b.len, &o, &k->root, err)))
		goto out;
	const struct wp_json_val *files = wp_json_get_arr(k->root, "files");
	for (size_t i = 0; i < wp_json_len(files); i++) {
		const struct wp_json_val *f = wp_json_at(files, i);
		const char *p = wp_json_get_str(f, "project"), *fn = wp_json_get_str(f, "filename");
		const char *sha = wp_json_get_str(f, "sha256"),
			   *meta = wp_json_get_str(f, "metadata_sha256");
		long long size = -1;
		if (!seg_ok(p) || !seg_ok(fn) || !sha || !wp_sha256_hex_valid(sha))
			continue;
		wp_json_as_int(wp_json_get(f, "size"), &size);
		known_add(k, wp_xasprintf("files/%s/%s", p, fn), sha, size);
		if (meta && wp_sha256_hex_valid(meta))
			known_add(k, wp_xasprintf("files/%s/%s.metadata", p, fn), meta, -1);
	}
	const char *lists[] = { "roots", "pages" };
	for (size_t l = 0; old_pages && l < 2; l++) {
		const struct wp_json_val *a = wp_json_get_arr(k->root, lists[l]);
		for (size_t i = 0; i < wp_json_len(a); i++) {
			const char *pg = wp_json_as_str(wp_json_at(a, i));
			if (!pg || !*pg || strstr(pg, "..") || pg[0] == '/' || strchr(pg, '\\'))
				continue;
			for (int h = 0; h < 2; h++)
				objs_add(old_pages)->rel = wp_xasprintf("%s/index.%s", pg,
									h ? "json" : "html");
		}
	}
out:
	known_sort(k);
	wp_buf_free(&b);
	return rc;
}

/* ---- walking the staging tree ---- */

/* the walk's state, its callback's ctx (no file-scope variable: two publishes may walk at once) */
struct walk_ctx {
	struct objs *out;
	size_t skip; /* the stage's path and its '/' */
};

static int walk_one(void *ctx, const char *path, const struct wp_os_stat *sb)
{
	struct walk_ctx *w = ctx;
	if (!WP_S_ISREG(sb->st_mode))
		return 0;
	const char *rel = path + w->skip;
	const char *b = base_name(rel);
	/* the writer's own working files never go up; its manifest does */
	if ((!strncmp(b, ".wheelpick-", 11) && strcmp(rel, WP_MIRROR_MANIFEST)) ||
	    wp_fs_is_tmp_name(b) || wp_cstr_endswith(b, ".part"))
		return 0;
	struct obj *o = objs_add(w->out);
	o->rel = wp_xstrdup(rel);
	o->size = (long long)sb->st_size;
	return 0;
}

static int walk(const char *stage, struct objs *out, struct wp_err *err)
{
	struct walk_ctx w = { .out = out, .skip = strlen(stage) + 1 };
	if (wp_os_walk(stage, walk_one, &w) < 0)
		return wp_fs_fail(err, errno, "cannot read", stage);
	return 0;
}

/* ---- the pending list: what a run places or removes, "project/filename" a line ---- */

struct lines {
	char **v;
	size_t n, cap;
};

static bool lines_has(const struct lines *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static void lines_add(struct lines *l, const char *s)
{
	if (lines_has(l, s))
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = wp_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = wp_xstrdup(s);
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* "files/P/F" or "files/P/F.metadata" as the pending list names it ("P/F"); else nothing. */
static void lines_add_dist(struct lines *l, const char *rel)
{
	if (strncmp(rel, "files/", 6) || !strchr(rel + 6, '/'))
		return;
	size_t n = strlen(rel + 6);
	char *d = wp_xstrndup(rel + 6, wp_cstr_endswith(rel, ".metadata") ? n - 9 : n);
	lines_add(l, d);
	free(d);
}

/* ---- the .metadata files, kept in memory while the tree is staged ---- */

struct meta {
	char *rel;             /* files/PROJECT/FILENAME.metadata */
	const char *body;      /* its bytes: own, or the early upload's (which outlives the tree) */
	char *own;
	size_t len;
	char sha256[65];
};

WP_VEC_OF(metas, struct meta);

struct early; /* below: the files put while the tree is staged */
static const char *early_sha(const struct early *e, const char *key);
static const char *early_meta_body(const struct early *e, const char *key, const char *sha256,
				   size_t len);
struct pub;
static char *key_of(const struct pub *p, const char *rel);

static void metas_free(struct metas *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].rel);
		free(m->v[i].own);
	}
	wp_vec_free(m);
}

/* ---- publishing ---- */

struct pub {
	const struct wp_session *s;
	struct wp_s3 s3;
	const struct wp_s3_dest *d;
	char *stage;
	struct wp_s3_listing list;
	struct known old;          /* the bucket's manifest before this run */
	struct objs old_pages;     /* the pages and roots it lists (rels) */
	struct objs holders;       /* placeholders made (rel) */
	struct lines old_pending; /* the bucket's pending list ("project/filename") before this run
				   */
	bool had_pending;
	struct lines old_ppend; /* pages and roots a run put that no manifest may know yet (rels) */
	bool had_ppend;
	bool prune;
	struct wp_s3_report *rep;
	const struct early *early; /* the files put while the tree is staged, or NULL */
	struct metas metas; /* the mirror's .metadata (its writer hands them over, writing none) */
};

static void pub_release(struct pub *p)
{
	wp_fs_remove_tree(p->stage);
	free(p->stage);
	wp_s3_release(&p->s3);
	wp_s3_listing_free(&p->list);
	known_free(&p->old);
	objs_free(&p->old_pages);
	objs_free(&p->holders);
	lines_free(&p->old_pending);
	lines_free(&p->old_ppend);
	metas_free(&p->metas);
}

static char *key_of(const struct pub *p, const char *rel)
{
	return wp_xasprintf("%s%s", p->s3.prefix, rel);
}

/* wp_mirror_meta_fn (ctx: the pub): the writer's .metadata, kept for the upload (the staging
 * writes none); the same bytes put early are not copied again */
static int meta_keep(void *ctx, const char *rel, const char *bytes, size_t len, const char *sha256,
		     struct wp_err *err)
{
	struct pub *p = ctx;
	if (!sha256 || !wp_sha256_hex_valid(sha256))
		return wp_fail(err, -WPE_INTEGRITY, "'%s' came without its sha256", rel);
	char *key = key_of(p, rel);
	struct meta *x = wp_vec_add(&p->metas);
	x->rel = wp_xstrdup(rel);
	x->body = early_meta_body(p->early, key, sha256, len);
	if (!x->body) {
		x->own = wp_xmalloc(len ? len : 1);
		memcpy(x->own, bytes, len);
		x->body = x->own;
	}
	x->len = len;
	memcpy(x->sha256, sha256, 65);
	free(key);
	return 0;
}

int wp_s3_dest_check(const struct wp_s3_dest *d, struct wp_err *err)
{
	struct wp_s3 s3;
	int rc = wp_s3_open(&s3, d->url, d->endpoint, d->acl, d->conf, err);
	s3.xml = &wp_s3xml_reader; /* S3's XML answers read in index/, with libxml2 */
	if (!rc && s3.anonymous)
		rc = wp_fail(err, -WPE_USAGE,
			     "publishing to '%s' needs credentials: set AWS_ACCESS_KEY_ID and "
			     "AWS_SECRET_ACCESS_KEY",
			     d->url);
	if (!rc)
		rc = wp_lazy_require(WP_LIB_CURL | WP_LIB_XML, err);
	if (!rc)
		rc = wp_s3_reach(&s3, err);
	wp_s3_release(&s3);
	return rc;
}

/* net/s3.c's part_hash: the sha256 and/or md5 of a file's [off, off + len): a part's sha256 is
 * signed as it goes up; the md5 is how an unfinished multipart upload's parts (their ETags are
 * MD5s) are known to hold our bytes. */
static int range_hash(const char *path, long long off, long long len, char *sha256_hex,
		      char *md5_hex, struct wp_err *err)
{
	struct wp_hasher h;
	int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (fd < 0)
		return wp_fs_fail(err, errno, "cannot read", path);
	int rc = wp_hasher_init(&h, (sha256_hex ? WP_HASH_SHA256 : 0) | (md5_hex ? WP_HASH_MD5 : 0),
				err);
	bool inited = !rc;
	char *buf = wp_xmalloc(1 << 20);
	while (!rc && len > 0) {
		ssize_t got = wp_os_pread(fd, buf, (size_t)(len < (1 << 20) ? len : (1 << 20)),
					  (off_t)off);
		if (got <= 0) {
			rc = got < 0 ? wp_fs_fail(err, errno, "cannot read", path) :
				       wp_fail(err, -WPE_IO, "'%s' ended before byte %lld", path,
					       off + len);
			break;
		}
		wp_hasher_update(&h, buf, (size_t)got);
		off += got;
		len -= got;
	}
	if (!rc)
		rc = wp_hasher_final(&h, sha256_hex, md5_hex, err);
	if (inited)
		wp_hasher_release(&h);
	free(buf);
	wp_os_close(fd);
	return rc;
}

/* Open the store, list the prefix, make the staging folder. */
static int pub_open(struct pub *p, const struct wp_session *s, const struct wp_s3_dest *d,
		    struct wp_s3_report *rep, struct wp_err *err)
{
	int rc;
	memset(p, 0, sizeof(*p));
	memset(rep, 0, sizeof(*rep));
	p->s = s;
	p->d = d;
	p->rep = rep;
	if ((rc = wp_s3_open(&p->s3, d->url, d->endpoint, d->acl, d->conf, err)))
		return rc;
	p->s3.xml = &wp_s3xml_reader;
	if ((rc = wp_lazy_require(WP_LIB_CURL | WP_LIB_CRYPTO | WP_LIB_XML, err)))
		return rc;
	p->s3.part_hash = range_hash;
	if (p->s3.anonymous)
		return wp_fail(err, -WPE_USAGE,
			       "publishing to '%s' needs credentials: set AWS_ACCESS_KEY_ID and "
			       "AWS_SECRET_ACCESS_KEY",
			       p->s3.display);
	char *tmp = wp_xasprintf("%s/tmp", s->cache_dir);
	rc = wp_fs_mkscratch(tmp, &p->stage, err);
	free(tmp);
	if (rc)
		return rc;
	if ((rc = wp_s3_list(&p->s3, p->s3.prefix, &p->list, err)))
		return rc;
	wp_say(s, WP_SAY_DEBUG, "%s: %zu objects under the prefix", p->s3.display, p->list.n);
	return 0;
}

/* A list object of the bucket (a pending list) into l: files' "project/filename" lines, or
 * (pages) the rels of page and root objects. */
static int get_list(struct pub *p, const char *name, bool pages, struct lines *l, bool *there,
		    struct wp_err *err)
{
	char *key = key_of(p, name);
	int rc = 0;
	*there = false;
	if (wp_s3_listing_find(&p->list, key)) {
		struct wp_buf b = WP_BUF_INIT_MAX(MANIFEST_MAX);
		struct wp_s3_op op = { .verb = WP_S3_GET,
				       .key = key,
				       .out = &b,
				       .size = MANIFEST_MAX,
				       .may_miss = true };
		rc = wp_s3_run(&p->s3, &op, 1, 1, NULL, NULL, err);
		*there = !rc && !op.missing;
		for (char *ln = b.data, *nl; !rc && ln && *ln; ln = nl ? nl + 1 : NULL) {
			nl = strchr(ln, '\n');
			if (nl)
				*nl = 0;
			const char *slash = strchr(ln, '/');
			if (!slash || strstr(ln, "..") || strchr(ln, '\\') || ln[0] == '/' ||
			    strstr(ln, "//"))
				continue;
			if (pages ? rank_of(ln) == R_PAGE || rank_of(ln) == R_ROOT :
				    !strchr(slash + 1, '/') && seg_ok(slash + 1))
				lines_add(l, ln);
		}
		wp_buf_free(&b);
	}
	free(key);
	return rc;
}

/* The bucket's manifest into the staging folder, and a sparse stand-in for each file it lists that
 * the bucket has at that size. */
/* A sparse file of the object's size at path (in folder dir, made here): it stands in for a file
 * the bucket already has, so the staged tree is whole without downloading it; never uploaded. */
static int stand_in(const char *dir, const char *path, long long size, struct wp_err *err)
{
	int rc = wp_mkdir_p(dir, 0755, err);
	if (rc)
		return rc;
	int fd = wp_os_open(path, WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL | WP_O_CLOEXEC, 0644);
	if (fd < 0 || wp_os_ftruncate(fd, (off_t)size) < 0)
		rc = wp_fs_fail(err, errno, "cannot create", path);
	if (fd >= 0)
		wp_os_close(fd);
	return rc;
}

static int pub_seed(struct pub *p, struct wp_err *err)
{
	char *key = key_of(p, WP_MIRROR_MANIFEST);
	char *path = wp_xasprintf("%s/%s", p->stage, WP_MIRROR_MANIFEST);
	int rc = 0;
	if (wp_s3_listing_find(&p->list, key)) {
		struct wp_s3_op op = { .verb = WP_S3_GET,
				       .key = key,
				       .path = path,
				       .size = MANIFEST_MAX,
				       .may_miss = true };
		rc = wp_s3_run(&p->s3, &op, 1, 1, NULL, NULL, err);
	}
	if (!rc)
		rc = known_read(path, &p->old, &p->old_pages, err);
	if (!rc)
		rc = get_list(p, WP_MIRROR_PENDING, false, &p->old_pending, &p->had_pending, err);
	if (!rc)
		rc = get_list(p, WP_S3_PAGES_PENDING, true, &p->old_ppend, &p->had_ppend, err);
	for (size_t i = 0; !rc && i < p->old.n; i++) {
		char *k = key_of(p, p->old.v[i].rel);
		const struct wp_s3_object *o = wp_s3_listing_find(&p->list, k);
		free(k);
		/* at the listing's size: an object replaced behind our back by other bytes stays
		 * (as on disk, the writer keeps it on the pages, and verify tells) and is never
		 * deleted */
		if (!o)
			continue;
		char *fp = wp_xasprintf("%s/%s", p->stage, p->old.v[i].rel);
		char *dir = wp_xstrndup(fp, (size_t)(strrchr(fp, '/') - fp));
		if (!(rc = stand_in(dir, fp, o->size, err)))
			objs_add(&p->holders)->rel = wp_xstrdup(p->old.v[i].rel);
		free(dir);
		free(fp);
	}
	if (p->holders.n > 1)
		qsort(p->holders.v, p->holders.n, sizeof(*p->holders.v), obj_rel_cmp);
	free(key);
	free(path);
	return rc;
}

/* p->holders is sorted (pub_seed). */
static bool is_holder(const struct pub *p, const char *rel, const char *stage_path)
{
	struct obj k = { .rel = (char *)rel };
	if (!p->holders.n || !bsearch(&k, p->holders.v, p->holders.n, sizeof(k), obj_rel_cmp))
		return false;
	/* still the stand-in when the writer did not replace it: its blocks are a hole */
	struct wp_os_stat sb;
	return wp_os_stat(stage_path, &sb) == 0 && (sb.st_size == 0 || sb.st_blocks == 0);
}

struct done_ctx {
	const struct wp_session *s;
	size_t n, total;
};

static void on_done(void *ctx, const struct wp_s3_op *op)
{
	struct done_ctx *c = ctx;
	c->n++;
	if (!op->result && op->parts_kept)
		wp_say(c->s, WP_SAY_DEBUG,
		       "put %s (%zu/%zu): went on with an unfinished upload, %d of %d parts "
		       "already there",
		       op->key, c->n, c->total, op->parts_kept, op->parts);
	else if (!op->result)
		wp_say(c->s, WP_SAY_DEBUG, "put %s (%zu/%zu)", op->key, c->n, c->total);
}

/* Decide what must go up, then put it rank by rank: a rank starts only when the one before it is
 * all in place. */
static int pub_upload(struct pub *p, struct objs *tree, struct wp_err *err)
{
	struct known now = { 0 };
	char *mpath = wp_xasprintf("%s/%s", p->stage, WP_MIRROR_MANIFEST);
	struct wp_s3_op *heads = NULL;
	size_t nh = 0;
	int rc = known_read(mpath, &now, NULL, err);
	free(mpath);
	if (rc)
		goto out;
	heads = wp_xcalloc(tree->n ? tree->n : 1, sizeof(*heads));
	size_t *head_of = wp_xcalloc(tree->n ? tree->n : 1, sizeof(*head_of));
	for (size_t i = 0; i < tree->n && !rc; i++) {
		struct obj *o = &tree->v[i];
		char *fp = wp_xasprintf("%s/%s", p->stage, o->rel);
		o->key = key_of(p, o->rel);
		o->rank = rank_of(o->rel);
		o->ctype = content_type(o->rel);
		o->placeholder = !o->body && is_holder(p, o->rel, fp);
		long long msize = -1;
		const char *sha = known_sha(&now, o->rel, &msize);
		if (o->body)
			; /* in memory: its sha256 came with it */
		else if (sha && (msize < 0 || msize == o->size))
			memcpy(o->sha256, sha, 65);
		else if (!o->placeholder)
			rc = wp_hash_file_md5(fp, o->sha256, o->md5, NULL, err);
		free(fp);
		if (rc)
			break;
		const struct wp_s3_object *have = wp_s3_listing_find(&p->list, o->key);
		const char *was = known_sha(&p->old, o->rel, NULL);
		const char *esha = early_sha(p->early, o->key);
		if (esha && !o->placeholder && !strcmp(esha, o->sha256))
			o->sent = true; /* put while the tree was staged, these very bytes */
		else if (o->placeholder && have && have->size == o->size)
			o->upload = false; /* made from the listing and left alone by the writer:
					      the object stays */
		else if (!have || have->size != o->size)
			o->upload = true;
		else if (was && !strcmp(was, o->sha256))
			o->upload = false;
		else if (o->md5[0] && !strcmp(have->etag, o->md5))
			o->upload = false;
		else {
			head_of[nh] = i;
			heads[nh++] = (struct wp_s3_op){ .verb = WP_S3_HEAD,
							 .key = o->key,
							 .may_miss = true };
		}
	}
	if (!rc && nh) {
		rc = wp_s3_run(&p->s3, heads, nh, p->d->parallel, NULL, NULL, err);
		p->rep->looked_up += nh;
		for (size_t k = 0; k < nh && !rc; k++) {
			struct obj *o = &tree->v[head_of[k]];
			o->upload = heads[k].missing || strcmp(heads[k].meta_sha256, o->sha256);
		}
	}
	free(head_of);
	for (size_t i = 0; i < tree->n && !rc; i++) {
		if (tree->v[i].upload && tree->v[i].placeholder)
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s' would go up as its stand-in; nothing was published past the "
				     "files",
				     tree->v[i].rel);
		if (!tree->v[i].upload && !tree->v[i].sent)
			p->rep->unchanged++;
	}
	p->rep->objects = tree->n;
out:
	free(heads);
	known_free(&now);
	return rc;
}

/* A canned ACL asked for (--s3-acl) holds for the whole tree: the objects a run leaves as they were
 * (unchanged, or kept from the last run) get it too, with PutObjectAcl: a re-run with public-read
 * makes the objects an earlier run put private readable, without sending their bytes again (a
 * re-PUT would cost the whole mirror's bytes; the ACL is one small request each). */
static int pub_acl_kept(struct pub *p, const struct objs *tree, struct wp_err *err)
{
	struct wp_s3_op *ops = wp_xcalloc(tree->n ? tree->n : 1, sizeof(*ops));
	size_t n = 0;
	for (size_t i = 0; i < tree->n; i++)
		if (!tree->v[i].upload && !tree->v[i].sent)
			ops[n++] = (struct wp_s3_op){ .verb = WP_S3_PUT_ACL,
						      .key = tree->v[i].key };
	int rc = n ? wp_s3_run(&p->s3, ops, n, p->d->parallel, NULL, NULL, err) : 0;
	if (!rc)
		p->rep->acl_set += n;
	free(ops);
	return rc;
}

/* Put one rank's objects, in parallel. */
static int pub_put_rank(struct pub *p, struct objs *tree, int r, struct wp_err *err)
{
	struct wp_s3_op *ops = wp_xcalloc(tree->n ? tree->n : 1, sizeof(*ops));
	char **paths = wp_xcalloc(tree->n ? tree->n : 1, sizeof(*paths));
	size_t n = 0;
	int rc = 0;
	for (size_t i = 0; i < tree->n; i++) {
		struct obj *o = &tree->v[i];
		if ((int)o->rank != r || !o->upload)
			continue;
		paths[n] = o->body ? NULL : wp_xasprintf("%s/%s", p->stage, o->rel);
		ops[n] = (struct wp_s3_op){ .verb = WP_S3_PUT,
					    .key = o->key,
					    .path = paths[n],
					    .body = o->body,
					    .size = o->size,
					    .content_type = o->ctype,
					    .sha256 = o->sha256 };
		n++;
	}
	struct done_ctx dc = { p->s, 0, n };
	if (n)
		rc = wp_s3_run(&p->s3, ops, n, p->d->parallel, on_done, &dc, err);
	for (size_t i = 0; i < n; i++) {
		if (!ops[i].result) {
			p->rep->uploaded++;
			p->rep->uploaded_bytes += ops[i].size - ops[i].kept_bytes; /* what went over
										      the wire */
		}
		free(paths[i]);
	}
	free(paths);
	free(ops);
	return rc;
}


/* The .metadata the writer handed over, into the sorted tree: each in place of a stand-in of its
 * name (the bucket's, made by pub_seed), else added. */
static void tree_add_metas(struct objs *tree, const struct metas *m)
{
	size_t n0 = tree->n;
	for (size_t i = 0; i < m->n; i++) {
		struct obj k = { .rel = m->v[i].rel };
		struct obj *o = n0 ? bsearch(&k, tree->v, n0, sizeof(*tree->v), obj_rel_cmp) : NULL;
		if (!o) {
			o = objs_add(tree);
			o->rel = wp_xstrdup(m->v[i].rel);
		}
		o->body = m->v[i].body;
		o->size = (long long)m->v[i].len;
		memcpy(o->sha256, m->v[i].sha256, sizeof(o->sha256));
	}
	if (tree->n > n0)
		qsort(tree->v, tree->n, sizeof(*tree->v), obj_rel_cmp);
}

static bool tree_has(const struct objs *tree, const char *rel)
{
	struct obj k = { .rel = (char *)rel };
	return tree->n && bsearch(&k, tree->v, tree->n, sizeof(*tree->v), obj_rel_cmp);
}

/* What goes: the last manifest's files and pages this tree has not (and, with prune, what killed
 * runs left on the pending list), where the bucket still holds them. */
static void plan_removals(struct pub *p, const struct objs *tree, struct lines *dels)
{
	for (size_t pass = 0; pass < 4; pass++) {
		size_t m = pass == 0 ? p->old.n :
			   pass == 1 ? p->old_pages.n :
			   pass == 2 ? p->old_ppend.n :
			   p->prune  ? p->old_pending.n * 2 :
				       0;
		for (size_t i = 0; i < m; i++) {
			char *rel = pass == 0 ? wp_xstrdup(p->old.v[i].rel) :
				    pass == 1 ? wp_xstrdup(p->old_pages.v[i].rel) :
				    pass == 2 ? wp_xstrdup(p->old_ppend.v[i]) :
						wp_xasprintf("files/%s%s", p->old_pending.v[i / 2],
							     i % 2 ? ".metadata" : "");
			char *key = key_of(p, rel);
			if (!tree_has(tree, rel) && wp_s3_listing_find(&p->list, key))
				lines_add(dels, rel);
			free(key);
			free(rel);
		}
	}
}

/* Removals, roots first, then pages (their listings go), then the files they linked. */
static int pub_remove(struct pub *p, const struct lines *dels, struct wp_err *err)
{
	struct wp_s3_op *batch = wp_xcalloc(dels->n ? dels->n : 1, sizeof(*batch));
	char **keys = wp_xcalloc(dels->n ? dels->n : 1, sizeof(*keys));
	int rc = 0;
	for (int r = R_ROOT; r >= R_FILE && !rc; r--) {
		size_t k = 0;
		for (size_t i = 0; i < dels->n; i++)
			if ((int)rank_of(dels->v[i]) == r) {
				keys[k] = key_of(p, dels->v[i]);
				batch[k] = (struct wp_s3_op){ .verb = WP_S3_DELETE,
							      .key = keys[k],
							      .may_miss = true };
				k++;
			}
		if (k && !(rc = wp_s3_run(&p->s3, batch, k, p->d->parallel, NULL, NULL, err)))
			p->rep->deleted += k;
		for (size_t i = 0; i < k; i++)
			free(keys[i]);
	}
	free(keys);
	free(batch);
	return rc;
}

/* --prune: every unfinished multipart upload under the prefix goes. This run's own are finished by
 * now; what is left is a killed or failed run's whose key this run did not put again (a key it
 * did put went on with its upload or aborted it), and would hold its parts in the bucket for ever.
 * A store that cannot list them (no multipart support) has none to abort. */
static int pub_abort_uploads(struct pub *p, struct wp_err *err)
{
	struct wp_s3_uploads ups;
	struct wp_err e = WP_ERR_INIT;
	int rc = 0;
	if (wp_s3_list_uploads(&p->s3, p->s3.prefix, &ups, &e)) {
		wp_say(p->s, WP_SAY_DEBUG, "%s: unfinished uploads not listed: %s", p->s3.display,
		       e.msg);
		return 0;
	}
	for (size_t i = 0; i < ups.n && !rc; i++)
		if (!(rc = wp_s3_abort_upload(&p->s3, ups.v[i].key, ups.v[i].id, err)))
			p->rep->aborted++;
	wp_s3_uploads_free(&ups);
	return rc;
}

/* The pending list as one object: put when it names something, else deleted when it was there. */
static int put_list(struct pub *p, const char *name, const struct lines *l, bool *there,
		    struct wp_err *err)
{
	char *key = key_of(p, name);
	struct wp_buf b = WP_BUF_INIT;
	int rc = 0;
	char sha[WP_SHA256_HEX_LEN + 1];
	for (size_t i = 0; i < l->n; i++)
		wp_buf_printf(&b, "%s\n", l->v[i]);
	if (l->n && !(rc = wp_sha256_hex_of(b.data, b.len, sha))) {
		/* signed with its sha256 as every PUT is: a store that changes a byte refuses it */
		struct wp_s3_op op = { .verb = WP_S3_PUT,
				       .key = key,
				       .body = b.data,
				       .size = (long long)b.len,
				       .content_type = "text/plain; charset=utf-8",
				       .sha256 = sha };
		rc = wp_s3_run(&p->s3, &op, 1, 1, NULL, NULL, err);
		*there = !rc;
	} else if (*there) {
		struct wp_s3_op op = { .verb = WP_S3_DELETE, .key = key, .may_miss = true };
		if (!(rc = wp_s3_run(&p->s3, &op, 1, 1, NULL, NULL, err)))
			*there = false;
	}
	wp_buf_free(&b);
	free(key);
	return rc;
}

/* The run, as on disk: the pending list names what is about to be placed or removed (verify takes
 * those for a cut-short run's, not for tampering), then the files, the project pages, the roots,
 * the manifest, the removals, and the list is settled to what is still there unlinked. */
static int pub_finish(struct pub *p, bool remove, struct wp_err *err)
{
	struct objs tree = { 0 };
	struct lines dels = { 0 }, pend = { 0 }, left = { 0 }, ppend = { 0 }, pleft = { 0 };
	bool there = p->had_pending, pthere = p->had_ppend;
	int rc = walk(p->stage, &tree, err);
	if (!rc && tree.n)
		qsort(tree.v, tree.n, sizeof(*tree.v), obj_rel_cmp);
	if (!rc)
		tree_add_metas(&tree, &p->metas);
	if (!rc)
		rc = pub_upload(p, &tree, err);
	if (rc)
		goto out;
	wp_say(p->s, WP_SAY_DEBUG, "%s: %zu objects to put, %zu looked up", p->s3.display,
	       tree.n - p->rep->unchanged, p->rep->looked_up);
	if (remove)
		plan_removals(p, &tree, &dels);
	for (size_t i = 0; i < p->old_pending.n; i++)
		lines_add(&pend, p->old_pending.v[i]);
	for (size_t i = 0; i < tree.n; i++)
		if (tree.v[i].upload && tree.v[i].rank == R_FILE)
			lines_add_dist(&pend, tree.v[i].rel);
	for (size_t i = 0; i < dels.n; i++)
		lines_add_dist(&pend, dels.v[i]);
	for (size_t i = 0; i < p->old_ppend.n; i++)
		lines_add(&ppend, p->old_ppend.v[i]);
	for (size_t i = 0; i < tree.n; i++) {
		struct obj *o = &tree.v[i];
		if (o->upload && (o->rank == R_PAGE || o->rank == R_ROOT) &&
		    !wp_s3_listing_find(&p->list, o->key))
			lines_add(&ppend, o->rel);
	}
	/* the pages about to go, too: the new manifest goes up before the removals, so a run killed
	 * between the two would leave pages that no manifest names and no later --prune would
	 * find */
	for (size_t i = 0; i < dels.n; i++)
		if (rank_of(dels.v[i]) == R_PAGE || rank_of(dels.v[i]) == R_ROOT)
			lines_add(&ppend, dels.v[i]);
	if (pend.n > p->old_pending.n && (rc = put_list(p, WP_MIRROR_PENDING, &pend, &there, err)))
		goto out;
	if (ppend.n > p->old_ppend.n &&
	    (rc = put_list(p, WP_S3_PAGES_PENDING, &ppend, &pthere, err)))
		goto out;
	for (int r = R_FILE; r <= R_MANIFEST && !rc; r++)
		rc = pub_put_rank(p, &tree, r, err);
	if (!rc && p->d->acl)
		rc = pub_acl_kept(p, &tree, err);
	if (!rc && dels.n)
		rc = pub_remove(p, &dels, err);
	if (!rc && p->prune)
		rc = pub_abort_uploads(p, err);
	if (rc)
		goto out;
	/* what is still in the bucket and no page links: a killed run's, kept by a run without
	 * --prune */
	for (size_t i = 0; i < pend.n; i++) {
		char *rel = wp_xasprintf("files/%s", pend.v[i]), *key = key_of(p, rel);
		/* (a file put early that the tree did not take stays listed too, for a --prune to
		 * remove) */
		if (!tree_has(&tree, rel) && !lines_has(&dels, rel) &&
		    (wp_s3_listing_find(&p->list, key) || early_sha(p->early, key)))
			lines_add(&left, pend.v[i]);
		free(rel);
		free(key);
	}
	for (size_t i = 0; i < ppend.n; i++) {
		char *key = key_of(p, ppend.v[i]);
		if (!tree_has(&tree, ppend.v[i]) && !lines_has(&dels, ppend.v[i]) &&
		    wp_s3_listing_find(&p->list, key))
			lines_add(&pleft, ppend.v[i]);
		free(key);
	}
	if (left.n != pend.n || !there)
		rc = put_list(p, WP_MIRROR_PENDING, &left, &there, err);
	if (!rc && (pleft.n != ppend.n || !pthere))
		rc = put_list(p, WP_S3_PAGES_PENDING, &pleft, &pthere, err);
	if (!rc)
		wp_say(p->s, WP_SAY_INFO,
		       "%s at %s: %zu objects (%zu uploaded, %lld bytes; %zu unchanged%s%s%s; %zu removed%s)",
		       p->s3.display, p->s3.endpoint, p->rep->objects, p->rep->uploaded,
		       p->rep->uploaded_bytes, p->rep->unchanged,
		       p->rep->acl_set ? ", given the ACL '" : "", p->rep->acl_set ? p->d->acl : "",
		       p->rep->acl_set ? "'" : "", p->rep->deleted,
		       p->rep->aborted ? "; unfinished uploads aborted" : "");
	if (!rc && p->rep->aborted)
		wp_say(p->s, WP_SAY_DEBUG, "%s: %zu unfinished multipart upload(s) aborted",
		       p->s3.display, p->rep->aborted);
out:
	objs_free(&tree);
	lines_free(&dels);
	lines_free(&pend);
	lines_free(&left);
	lines_free(&ppend);
	lines_free(&pleft);
	return rc;
}

/* ---- the wheels go up while the tree is staged ---- */

/* A fresh file of the run's plan (its key not in the bucket) is known before the tree is staged:
 * its key (files/PROJECT/FILENAME, as the writer places it), its bytes (the store's, which the
 * staged tree links) and its sha256, and a wheel's .metadata beside it. Staging and uploading
 * them then overlap, and the small .metadata PUTs go between the wheels' instead of after them
 * all (a thousand of them were 3.7 s of tail behind a relay adding 25 ms to each answer).
 * The pending list names them before the first goes up, as it names every file before it goes
 * up. */
struct early {
	struct pub *p;
	struct wp_s3_op *ops; /* sorted by key once they all ended, for early_sha */
	char **keys;          /* the ops' keys (owned) */
	size_t n;
	struct wp_buf *metas; /* a wheel's .metadata, the body of the op after its wheel's */
	char (*meta_sha)[65];
	size_t nm;
	const struct wp_s3_op **meta_ops; /* their ops, sorted by key before the thread starts */
	int rc;
	struct wp_err err;
	pthread_t thread;
	bool threaded;
	struct done_ctx dc;  /* its "put" lines (-v): the staging says nothing meanwhile */
};

static void *early_main(void *arg)
{
	struct early *e = arg;
	e->dc = (struct done_ctx){ e->p->s, 0, e->n };
	e->rc = wp_s3_run(&e->p->s3, e->ops, e->n, e->p->d->parallel, on_done, &e->dc, &e->err);
	return NULL;
}

static int op_key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wp_s3_op *)a)->key, ((const struct wp_s3_op *)b)->key);
}

static int op_ptr_key_cmp(const void *a, const void *b)
{
	return op_key_cmp(*(const struct wp_s3_op *const *)a, *(const struct wp_s3_op *const *)b);
}

/* The early .metadata op of that key, or NULL. While the early run goes on: what is read of an op
 * (key, size, sha256, body) the run never writes. */
static const struct wp_s3_op *early_meta_op(const struct early *e, const char *key)
{
	struct wp_s3_op k = { .key = key };
	const struct wp_s3_op *kp = &k, *const *hit = e && e->meta_ops ?
							      bsearch(&kp, e->meta_ops, e->nm,
								      sizeof(*e->meta_ops),
								      op_ptr_key_cmp) :
							      NULL;
	return hit ? *hit : NULL;
}

/* The bytes put early (or going up now) as the .metadata of that key when they are these (their
 * sha256 and length), else NULL. */
static const char *early_meta_body(const struct early *e, const char *key, const char *sha256,
				   size_t len)
{
	const struct wp_s3_op *op = early_meta_op(e, key);
	return op && op->size == (long long)len && !strcmp(op->sha256, sha256) ? op->body : NULL;
}

/* wp_mirror_meta_in_fn (ctx: the pub): the .metadata an early upload made from that wheel, so the
 * writer does not read the wheel again. */
static const char *early_meta_of(void *ctx, const char *project, const char *filename, size_t *len)
{
	const struct pub *p = ctx;
	char *rel = wp_xasprintf("files/%s/%s.metadata", project, filename), *key = key_of(p, rel);
	const struct wp_s3_op *op = early_meta_op(p->early, key);
	free(key);
	free(rel);
	if (!op)
		return NULL;
	*len = (size_t)op->size;
	return op->body;
}

/* The sha256 of what was put early under key, or NULL. */
static const char *early_sha(const struct early *e, const char *key)
{
	struct wp_s3_op k = { .key = key };
	const struct wp_s3_op *op = e && e->n ?
					    bsearch(&k, e->ops, e->n, sizeof(*e->ops), op_key_cmp) :
					    NULL;
	return op ? op->sha256 : NULL;
}

static void early_free(struct early *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->keys[i]);
	for (size_t i = 0; i < e->nm; i++)
		wp_buf_free(&e->metas[i]);
	free(e->metas);
	free(e->meta_sha);
	free(e->meta_ops);
	free(e->keys);
	free(e->ops);
	memset(e, 0, sizeof(*e));
}

/* A fresh wheel's .metadata goes up beside it, made here as the writer makes it (the same bytes:
 * pub_upload counts it put when the writer's sha256 is this one). A wheel it cannot be read from
 * gets none here: the writer says what is wrong with it. */
static void early_add_meta(struct early *e, const struct wp_plan_file *f, const char *wheel_key)
{
	struct wp_buf *b = &e->metas[e->nm];
	struct wp_err ignored = WP_ERR_INIT;
	*b = (struct wp_buf)WP_BUF_INIT_MAX(WP_METADATA_MAX_LEN);
	if (wp_mirror_wheel_metadata(f->path, f->filename, b, &ignored) || !b->len ||
	    wp_sha256_hex_of(b->data, b->len, e->meta_sha[e->nm])) {
		wp_buf_free(b);
		return;
	}
	e->keys[e->n] = wp_xasprintf("%s.metadata", wheel_key);
	e->ops[e->n] = (struct wp_s3_op){ .verb = WP_S3_PUT,
					  .key = e->keys[e->n],
					  .body = b->data,
					  .size = (long long)b->len,
					  .content_type = content_type(e->keys[e->n]),
					  .sha256 = e->meta_sha[e->nm] };
	e->n++;
	e->nm++;
}

static int early_start(struct pub *p, const struct wp_pick_run *run, struct early *e,
		       struct wp_err *err)
{
	const struct wp_plan *plan = &run->plan;
	memset(e, 0, sizeof(*e));
	e->p = p;
	e->ops = wp_xcalloc(plan->n ? 2 * plan->n : 1, sizeof(*e->ops));
	e->keys = wp_xcalloc(plan->n ? 2 * plan->n : 1, sizeof(*e->keys));
	e->metas = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*e->metas));
	e->meta_sha = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*e->meta_sha));
	struct wp_err lib_err = WP_ERR_INIT;
	bool archive = wp_lazy_require(WP_LIB_ARCHIVE, &lib_err) == 0;
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		struct wp_os_stat sb;
		if (!f->path || !seg_ok(f->project) || !seg_ok(f->filename) || !f->sha256 ||
		    !wp_sha256_hex_valid(f->sha256) || wp_os_stat(f->path, &sb) < 0 ||
		    !WP_S_ISREG(sb.st_mode))
			continue;
		char *rel = wp_xasprintf("files/%s/%s", f->project, f->filename),
		     *key = key_of(p, rel);
		bool skip = wp_s3_listing_find(&p->list, key) != NULL; /* there already: the usual
									  rules decide */
		for (size_t k = 0; k < e->n && !skip; k++)
			skip = !strcmp(e->keys[k], key); /* one file, several targets */
		if (skip) {
			free(rel);
			free(key);
			continue;
		}
		lines_add_dist(&p->old_pending, rel);
		free(rel);
		e->keys[e->n] = key;
		e->ops[e->n] = (struct wp_s3_op){ .verb = WP_S3_PUT,
						  .key = key,
						  .path = f->path,
						  .size = (long long)sb.st_size,
						  .content_type = content_type(f->filename),
						  .sha256 = f->sha256 };
		e->n++;
		if (archive && wp_index_file_kind(f->filename) == WP_KIND_WHEEL)
			early_add_meta(e, f, key);
	}
	if (!e->n)
		return 0;
	e->meta_ops = wp_xcalloc(e->nm ? e->nm : 1, sizeof(*e->meta_ops));
	for (size_t i = 0, k = 0; i < e->n; i++)
		if (e->ops[i].body)
			e->meta_ops[k++] = &e->ops[i];
	qsort(e->meta_ops, e->nm, sizeof(*e->meta_ops), op_ptr_key_cmp);
	/* the pending list before the first file, as pub_finish puts it; pub_finish then settles
	 * it */
	int rc = put_list(p, WP_MIRROR_PENDING, &p->old_pending, &p->had_pending, err);
	if (rc) {
		early_free(e); /* nothing went up: nothing to wait for (n is 0) */
		return rc;
	}
	if (wp_xfer_curl_start() == 0 && pthread_create(&e->thread, NULL, early_main, e) == 0)
		e->threaded = true;
	return 0;
}

/* Wait for the early uploads (run them here when no thread could start); sort them by key. */
static int early_finish(struct early *e, struct wp_err *err)
{
	if (!e->n)
		return 0;
	if (e->threaded)
		pthread_join(e->thread, NULL);
	else
		early_main(e);
	e->threaded = false;
	if (e->rc)
		return wp_fail(err, e->rc, "%s", e->err.msg);
	for (size_t i = 0; i < e->n; i++) {
		e->p->rep->uploaded++;
		e->p->rep->uploaded_bytes += e->ops[i].size - e->ops[i].kept_bytes;
	}
	/* sorted for early_sha; meta_ops pointed into the array as it was, and were for the
	 * staging */
	qsort(e->ops, e->n, sizeof(*e->ops), op_key_cmp);
	free(e->meta_ops);
	e->meta_ops = NULL;
	return 0;
}

int wp_publish_s3_mirror(const struct wp_session *s, const struct wp_pick_run *run,
			 const struct wp_s3_dest *d, bool prune, struct wp_s3_report *rep,
			 struct wp_err *err)
{
	struct pub p;
	int rc = pub_open(&p, s, d, rep, err);
	struct early e = { 0 };
	if (!rc)
		rc = pub_seed(&p, err);
	if (!rc)
		rc = early_start(&p, run, &e, err);
	if (!rc) {
		/* the staging's own summary would name the staging folder: ours names the bucket */
		struct wp_session quiet = *s;
		quiet.say = NULL;
		p.prune = prune;
		const struct wp_mirror_opts mo = { .prune = prune,
						   .meta_out = meta_keep,
						   .meta_in = early_meta_of,
						   .meta_ctx = &p };
		p.early = &e;
		rc = wp_publish_mirror_opts(&quiet, run, p.stage, &mo, &rep->mirror, err);
	}
	/* whatever staging gave: the early uploads end before anything else is said or done */
	struct wp_err e_err = WP_ERR_INIT;
	int erc = early_finish(&e, &e_err);
	if (!rc && erc)
		rc = wp_fail(err, erc, "%s", e_err.msg);
	if (!rc) {
		wp_say(s, WP_SAY_DEBUG, "%s: the tree staged in %s; %zu files put meanwhile",
		       p.s3.display, p.stage, e.n);
		rc = pub_finish(&p, true, err);
	}
	early_free(&e);
	pub_release(&p);
	wp_say(s, WP_SAY_DEBUG, "%s: the staging folder removed", d->url);
	return rc;
}

/* A channel's re-run, as on disk: each subdir's repodata.json from the bucket, and a sparse
 * stand-in for each package the bucket holds there, so the writer keeps their records (it keeps a
 * record whose file is there) without their bytes coming down. */
static int seed_channel(struct pub *p, struct wp_err *err)
{
	size_t pre = strlen(p->s3.prefix);
	int rc = 0;
	for (size_t i = 0; i < p->list.n && !rc; i++) {
		const struct wp_s3_object *o = &p->list.v[i];
		const char *rel = o->key + pre, *slash = strchr(rel, '/');
		if (!slash || strchr(slash + 1, '/') || slash == rel || !seg_ok(slash + 1))
			continue;
		char *sub = wp_xstrndup(rel, (size_t)(slash - rel));
		char *dir = wp_xasprintf("%s/%s", p->stage, sub);
		char *fp = wp_xasprintf("%s/%s", p->stage, rel);
		bool ok_sub = seg_ok(sub) && sub[0] != '.';
		if (ok_sub && !strcmp(slash + 1, "repodata.json")) {
			if (!(rc = wp_mkdir_p(dir, 0755, err))) {
				struct wp_s3_op op = { .verb = WP_S3_GET,
						       .key = o->key,
						       .path = fp,
						       .size = MANIFEST_MAX,
						       .may_miss = true };
				rc = wp_s3_run(&p->s3, &op, 1, 1, NULL, NULL, err);
			}
		} else if (ok_sub &&
			   (wp_cstr_endswith(rel, ".conda") || wp_cstr_endswith(rel, ".tar.bz2"))) {
			if (!(rc = stand_in(dir, fp, o->size, err)))
				objs_add(&p->holders)->rel = wp_xstrdup(rel);
		}
		free(sub);
		free(dir);
		free(fp);
	}
	return rc;
}

int wp_publish_s3_conda(const struct wp_session *s, const struct wp_conda_job *job,
			const struct wp_s3_dest *d, struct wp_conda_result *res,
			struct wp_s3_report *rep, struct wp_err *err)
{
	struct pub p;
	struct wp_conda_job staged = *job;
	memset(res, 0, sizeof(*res));
	int rc = pub_open(&p, s, d, rep, err);
	if (!rc)
		rc = seed_channel(&p, err);
	if (!rc) {
		staged.dest = p.stage;
		rc = wp_conda_run(s, &staged, res, err);
	}
	if (!rc)
		rc = pub_finish(&p, false, err);
	pub_release(&p);
	return rc;
}

/* ---- bundles ---- */

int wp_publish_s3_bundle(const struct wp_session *s, const struct wp_s3_dest *d,
			 wp_s3_make_fn *make, void *ctx, size_t *nfiles, struct wp_err *err)
{
	struct wp_s3 s3;
	char *stage = NULL, *local = NULL, *tmp = NULL;
	struct wp_s3_op *ops = NULL;
	char **paths = NULL, **keys = NULL;
	size_t nvol = 0, n = 0;
	int rc = wp_s3_open(&s3, d->url, d->endpoint, d->acl, d->conf, err);
	s3.part_hash = range_hash;
	s3.xml = &wp_s3xml_reader;
	if (nfiles)
		*nfiles = 0;
	/* the URL's last segment is the bundle's name; the prefix before it is where it goes */
	size_t pl = strlen(s3.prefix ? s3.prefix : "");
	if (!rc && (pl < 2 || !strchr(d->url + 5, '/')))
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' names no object: give s3://BUCKET/[PREFIX/]NAME.tar.zst",
			     d->url);
	if (rc)
		goto out;
	char *name = wp_xstrndup(s3.prefix, pl - 1); /* the prefix always ends in '/' */
	char *slash = strrchr(name, '/');
	char *dir = slash ? wp_xstrndup(name, (size_t)(slash - name) + 1) : wp_xstrdup("");
	const char *base = slash ? slash + 1 : name;
	if (!(rc = wp_lazy_require(WP_LIB_CURL | WP_LIB_CRYPTO | WP_LIB_XML, err)) && s3.anonymous)
		rc = wp_fail(err, -WPE_USAGE,
			     "publishing to '%s' needs credentials: set AWS_ACCESS_KEY_ID and "
			     "AWS_SECRET_ACCESS_KEY",
			     d->url);
	if (!rc) {
		tmp = wp_xasprintf("%s/tmp", s->cache_dir);
		rc = wp_fs_mkscratch(tmp, &stage, err);
	}
	if (!rc) {
		local = wp_xasprintf("%s/%s", stage, base);
		rc = make(ctx, local, &nvol, err);
	}
	if (!rc) {
		struct wp_os_stat one;
		if (wp_os_stat(local, &one) == 0)
			nvol = 0; /* one file, no volumes */
		n = nvol ? nvol : 1;
		ops = wp_xcalloc(n, sizeof(*ops));
		paths = wp_xcalloc(n, sizeof(*paths));
		keys = wp_xcalloc(n, sizeof(*keys));
		for (size_t i = 0; i < n && !rc; i++) {
			char sha[65], md5[33];
			struct wp_os_stat sb;
			paths[i] = nvol ? wp_bundle_volume_name(local, i + 1) : wp_xstrdup(local);
			keys[i] = wp_xasprintf("%s%s", dir, base_name(paths[i]));
			if (wp_os_stat(paths[i], &sb) < 0)
				rc = wp_fs_fail(err, errno, "cannot read", paths[i]);
			else
				rc = wp_hash_file_md5(paths[i], sha, md5, NULL, err);
			if (!rc)
				ops[i] = (struct wp_s3_op){ .verb = WP_S3_PUT,
							    .key = keys[i],
							    .path = paths[i],
							    .size = (long long)sb.st_size,
							    .content_type = content_type(keys[i]),
							    .sha256 = wp_xstrdup(sha) };
		}
		if (!rc)
			rc = wp_s3_run(&s3, ops, n, d->parallel, NULL, NULL, err);
		if (!rc && nfiles)
			*nfiles = n;
		if (!rc)
			wp_say(s, WP_SAY_INFO, "s3://%s/%s%s at %s: %zu object%s", s3.bucket, dir,
			       base, s3.endpoint, n, n == 1 ? "" : "s (the volumes)");
	}
	free(name);
	free(dir);
out:
	wp_fs_remove_tree(stage);
	for (size_t i = 0; i < n; i++) {
		free(paths ? paths[i] : NULL);
		free(keys ? keys[i] : NULL);
		free(ops ? (char *)ops[i].sha256 : NULL);
	}
	free(paths);
	free(keys);
	free(ops);
	free(stage);
	free(local);
	free(tmp);
	wp_s3_release(&s3);
	return rc;
}
