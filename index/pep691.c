/* index/pep691.c: PEP 691 JSON pages through the base/json reader: one pass to check, one to
 * emit. */
#include "index/pep691.h"

#include "base/buf.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "index/html.h"
#include "base/url.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/os/os.h"

#define KEY_LEVELS 5   /* keys remembered for depths 1..4; deeper ones never matter here */
#define KEY_MAX    40
#define FIELD_MAX  1024
#define FD_BLOCK   ((size_t)1 << 20) /* a page from a file is fed in pieces of this */
#define FD_TOKEN   ((size_t)16 << 20) /* ... and one string in it may be no longer (yajl holds one
                                       * token whole: this bounds what a page makes it hold) */

enum meta_kind { META_ABSENT = 0, META_NONE, META_TRUE, META_HASH };

struct meta {
	enum meta_kind kind;
	char sha256[65];
};

struct file {
	struct wp_buf filename, url, rp, yanked, prov;
	bool has_rp, is_yanked, bad;
	char sha256[65], md5[33];
	struct meta core, dist;
	long long size;
};

struct jp {
	const char *page_url;
	int fd;                   /* >= 0: the page is this file, read in pieces each pass */
	unsigned long long max_bytes; /* with fd: the ceiling (instead of WP_PEP691_MAX_BYTES) */
	const char *project;
	bool emit;                /* second pass: records go to the sink */
	bool roots;
	wp_record_fn *sink;
	wp_project_fn *name_sink;
	void *ctx;
	struct wp_index_stats *stats;
	struct wp_err *err;
	int rc;

	int depth;                /* as the reader skeleton's, which caps it */
	bool is_map[WP_JSON_MAX_DEPTH + 2];
	char key[KEY_LEVELS][KEY_MAX];

	bool has_api, top_seen;
	char api[32];
	char name[256];
	unsigned long long files;
	struct file f;
};

static int fail(struct jp *j, int code, const char *what)
{
	if (!j->rc)
		j->rc = wp_fail(j->err, code, "'%s' is not a PEP 691 page: %s", j->page_url, what);
	return j->rc;
}

static bool key_is(const struct jp *j, int d, const char *k)
{
	return d >= 1 && d < KEY_LEVELS && d <= j->depth && j->is_map[d] && !strcmp(j->key[d], k);
}

/* The innermost container is a file object: {"files": [ {HERE} ]}. */
static bool in_file(const struct jp *j, int d)
{
	return !j->roots && j->depth == d && d >= 3 && key_is(j, 1, "files") && !j->is_map[2] &&
	       j->is_map[3];
}

static bool in_project(const struct jp *j)
{
	return j->roots && j->depth == 3 && key_is(j, 1, "projects") && !j->is_map[2] &&
	       j->is_map[3];
}

static bool is_core_key(const char *k)
{
	return !strcmp(k, "core-metadata") || !strcmp(k, "dist-info-metadata") ||
	       !strcmp(k, "data-dist-info-metadata");
}

static struct meta *meta_slot(struct jp *j, const char *k)
{
	return !strcmp(k, "core-metadata") ? &j->f.core : &j->f.dist;
}

static void file_reset(struct file *f)
{
	wp_buf_reset(&f->filename);
	wp_buf_reset(&f->url);
	wp_buf_reset(&f->rp);
	wp_buf_reset(&f->yanked);
	wp_buf_reset(&f->prov);
	f->has_rp = f->is_yanked = f->bad = false;
	f->sha256[0] = f->md5[0] = 0;
	memset(&f->core, 0, sizeof(f->core));
	memset(&f->dist, 0, sizeof(f->dist));
	f->size = -1;
}

static void skip(struct jp *j, bool malformed)
{
	j->stats->skipped++;
	if (malformed)
		j->stats->malformed++;
}

/* A value (or the start of a container) at the current depth. */
static int value(void *ctx, enum wp_json_type t, const unsigned char *s, size_t n, bool b)
{
	struct jp *j = ctx;
	struct file *f = &j->f;

	if (j->depth == 0) {
		j->top_seen = true;
		return t == WP_JSON_OBJECT ?
			       0 :
			       fail(j, -WPE_SOURCE, "the document is not a JSON object");
	}
	if (j->depth == 1 && j->is_map[1] && !strcmp(j->key[1], "name") && t == WP_JSON_STRING) {
		if (n < sizeof(j->name) && !memchr(s, 0, n)) {
			memcpy(j->name, s, n);
			j->name[n] = 0;
		}
		return 0;
	}
	if (j->depth == 2 && key_is(j, 1, "meta") && key_is(j, 2, "api-version")) {
		if (t != WP_JSON_STRING || n >= sizeof(j->api) || memchr(s, 0, n))
			return fail(j, -WPE_SOURCE, "meta.api-version is not a version string");
		memcpy(j->api, s, n);
		j->api[n] = 0;
		j->has_api = true;
		return 0;
	}
	if (!j->emit)
		return 0;
	if (j->depth == 2 && !j->is_map[2] && t != WP_JSON_OBJECT &&
	    key_is(j, 1, j->roots ? "projects" : "files")) {
		/* an entry that is not an object */
		j->stats->links++;
		skip(j, true);
		return 0;
	}
	if (in_project(j) && !strcmp(j->key[3], "name")) {
		if (t != WP_JSON_STRING || !wp_json_take(&f->filename, s, n))
			wp_buf_reset(&f->filename);
		return 0;
	}
	if (in_file(j, 3)) {
		const char *k = j->key[3];
		if (!strcmp(k, "filename")) {
			f->bad |= t != WP_JSON_STRING || !wp_json_take(&f->filename, s, n);
		} else if (!strcmp(k, "url")) {
			f->bad |= t != WP_JSON_STRING || !wp_json_take(&f->url, s, n);
		} else if (!strcmp(k, "requires-python")) {
			if (t == WP_JSON_STRING) {
				f->has_rp = n > 0;
				f->bad |= !wp_json_take(&f->rp, s, n);
			} else {
				f->bad |= t != WP_JSON_NULL;
			}
		} else if (!strcmp(k, "yanked")) {
			/* true, or a reason; false and null mean not yanked */
			if (t == WP_JSON_STRING) {
				f->is_yanked = true;
				f->bad |= !wp_json_take(&f->yanked, s, n);
			} else if (t == WP_JSON_BOOL) {
				f->is_yanked = b;
			} else {
				f->bad |= t != WP_JSON_NULL;
			}
		} else if (is_core_key(k)) {
			struct meta *m = meta_slot(j, k);
			if (t == WP_JSON_BOOL)
				m->kind = b ? META_TRUE : META_NONE;
			else if (t == WP_JSON_OBJECT)
				m->kind = META_TRUE; /* a hash inside may make it META_HASH */
			else
				m->kind = META_NONE;
		} else if (!strcmp(k, "provenance")) {
			/* PEP 740: a URL or null; anything else is ignored, not the file dropped */
			if (t != WP_JSON_STRING || !wp_json_take(&f->prov, s, n))
				wp_buf_reset(&f->prov);
		} else if (!strcmp(k, "size")) {
			long long v;
			if (t == WP_JSON_NUMBER && wp_str_to_ll(WP_STRN((const char *)s, n), &v))
				f->size = v;
			else
				f->bad |= t != WP_JSON_NULL && t != WP_JSON_NUMBER;
		} else if (!strcmp(k, "hashes")) {
			f->bad |= t != WP_JSON_OBJECT;
		}
		return 0;
	}
	if (in_file(j, 4) && j->is_map[4]) {
		const char *k3 = j->key[3], *k4 = j->key[4];
		if (!strcmp(k3, "hashes")) {
			if (!strcmp(k4, "sha256"))
				f->bad |= t != WP_JSON_STRING ||
					  !wp_url_hex_lower((const char *)s, n, 64, f->sha256);
			else if (!strcmp(k4, "md5"))
				f->bad |= t != WP_JSON_STRING ||
					  !wp_url_hex_lower((const char *)s, n, 32, f->md5);
		} else if (is_core_key(k3) && !strcmp(k4, "sha256")) {
			struct meta *m = meta_slot(j, k3);
			if (t == WP_JSON_STRING &&
			    wp_url_hex_lower((const char *)s, n, 64, m->sha256))
				m->kind = META_HASH;
			else
				m->kind = META_NONE; /* a hash we cannot check is worse than none */
		}
	}
	return 0;
}

static const char *meta_text(const struct meta *m, char *out)
{
	switch (m->kind) {
	case META_TRUE:
		return "true";
	case META_HASH:
		memcpy(out, "sha256=", 7);
		memcpy(out + 7, m->sha256, 65);
		return out;
	default:
		return NULL;
	}
}


static void emit_file(struct jp *j)
{
	struct file *f = &j->f;
	struct wp_url_link link;
	char cm[80];

	j->stats->links++;
	if (f->bad || !f->filename.len || !f->url.len ||
	    !wp_url_filename_ok(wp_buf_cstr(&f->filename))) {
		skip(j, true);
		return;
	}
	if (wp_url_link_parse(j->page_url, wp_buf_cstr(&f->url), &link, NULL) < 0) {
		skip(j, true);
		return;
	}
	const char *filename = wp_buf_cstr(&f->filename);
	if (wp_url_link_refused(j->page_url, link.url)) {
		skip(j, true);
		j->stats->refused++;
		goto out;
	}
	/* the file is stored and written under filename, but fetched from url: a name the URL does
	 * not end in (another file, or the same under a name that climbs) is not taken on trust */
	if (strcmp(filename, link.filename) != 0) {
		skip(j, true);
		goto out;
	}
	enum wp_file_kind kind = wp_index_file_kind(filename);
	if (kind == WP_KIND_UNKNOWN) {
		skip(j, false);
		goto out;
	}
	const char *sha = f->sha256[0]          ? f->sha256 :
			  link.hashes.sha256[0] ? link.hashes.sha256 :
						  NULL;
	const char *md5 = f->md5[0] ? f->md5 : link.hashes.md5[0] ? link.hashes.md5 : NULL;
	const struct meta *m = f->core.kind != META_ABSENT ? &f->core : &f->dist;
	char *prov = NULL;
	if (f->prov.len && (wp_url_resolve(j->page_url, wp_buf_cstr(&f->prov), &prov, NULL) < 0 ||
			    wp_url_link_refused(j->page_url, prov))) {
		free(prov);
		prov = NULL; /* a provenance URL the page may not send us to is not followed */
	}
	struct wp_file_record rec = {
		.kind = kind,
		.filename = filename,
		.url = link.url,
		.dir = link.dir,
		.project = j->name[0] ? j->name : j->project,
		.sha256 = sha,
		.md5 = md5,
		.requires_python = f->has_rp ? wp_buf_cstr(&f->rp) : NULL,
		.yanked = f->is_yanked ? wp_buf_cstr(&f->yanked) : NULL,
		.core_metadata = meta_text(m, cm),
		.size = f->size,
		.provenance = prov,
		.build_number = -1,
		.timestamp = -1,
	};
	if (kind == WP_KIND_VARIANTS) {
		/* PEP 825 (Provisional, as revised 2026-08-19): core-metadata, requires-python and
		 * yanked mean nothing for a variants.json, and tools ignore them */
		rec.requires_python = rec.yanked = rec.core_metadata = NULL;
	}
	int rc = j->sink(j->ctx, &rec, j->err);
	if (rc < 0)
		j->rc = rc;
	else
		j->stats->records++;
	free(prov);
out:
	wp_url_link_release(&link);
}

/* PEP 503 normalised name: lower case, runs of -_. become one '-'. */
static void normalise(const char *s, char *out)
{
	size_t k = 0;
	for (; *s; s++) {
		if (*s == '-' || *s == '_' || *s == '.') {
			if (k == 0 || out[k - 1] != '-')
				out[k++] = '-';
		} else {
			out[k++] = (*s >= 'A' && *s <= 'Z') ? (char)(*s - 'A' + 'a') : *s;
		}
	}
	out[k] = 0;
}

static void emit_project(struct jp *j)
{
	const char *name = wp_buf_cstr(&j->f.filename);
	char norm[256], *url = NULL;
	struct wp_buf page = WP_BUF_INIT_MAX(WP_URL_MAX);

	j->stats->links++;
	if (!wp_index_project_name_ok(name, j->f.filename.len)) {
		skip(j, true);
		return;
	}
	normalise(name, norm);
	/* the page URL without query or fragment is the root the names hang off */
	wp_buf_add(&page, j->page_url, strcspn(j->page_url, "?#"));
	if (wp_url_join_segment(wp_buf_cstr(&page), norm, &url, NULL) < 0) {
		skip(j, true);
		goto out;
	}
	char *slashed = wp_xasprintf("%s/", url);
	int rc = j->name_sink(j->ctx, name, slashed, j->err);
	free(slashed);
	if (rc < 0)
		j->rc = rc;
	else
		j->stats->records++;
out:
	free(url);
	wp_buf_free(&page);
}

static int open_container(struct jp *j, bool map)
{
	if (value(j, map ? WP_JSON_OBJECT : WP_JSON_ARRAY, NULL, 0, false) || j->rc)
		return j->rc;
	j->depth++;
	j->is_map[j->depth] = map;
	if (j->depth < KEY_LEVELS)
		j->key[j->depth][0] = 0;
	if (j->emit && (in_file(j, 3) || in_project(j))) {
		if (++j->files > WP_PEP691_MAX_FILES)
			return j->rc = wp_fail(j->err, -WPE_TOO_BIG,
					       "index '%s' lists more than %d files", j->page_url,
					       WP_PEP691_MAX_FILES);
		file_reset(&j->f);
	}
	return 0;
}

static int close_container(struct jp *j)
{
	if (j->emit && in_file(j, 3))
		emit_file(j);
	else if (j->emit && in_project(j))
		emit_project(j);
	j->depth--;
	return j->rc;
}

static int cb_start_map(void *ud)
{
	return open_container(ud, true);
}

static int cb_start_array(void *ud)
{
	return open_container(ud, false);
}

static int cb_end(void *ud)
{
	return close_container(ud);
}

static int cb_key(void *ud, const unsigned char *s, size_t n)
{
	struct jp *j = ud;
	if (j->depth < KEY_LEVELS)
		wp_json_key_copy(j->key[j->depth], KEY_MAX, s, n);
	return 0;
}

static const struct wp_json_callbacks callbacks = {
	.value = value,
	.start_map = cb_start_map,
	.key = cb_key,
	.end_map = cb_end,
	.start_array = cb_start_array,
	.end_array = cb_end,
};

/* One pass over the file from its start: a page past memory's share is never held whole. */
static int pass_fd(struct jp *j, const struct wp_json_opts *o)
{
	struct wp_json_reader r;
	char *buf = wp_xmalloc(FD_BLOCK);
	int64_t at = 0;
	int rc = 0;
	wp_json_reader_init(&r, &callbacks, j, o, j->err);
	for (;;) {
		ssize_t n = wp_os_pread(j->fd, buf, FD_BLOCK, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = wp_fail(j->err, -WPE_IO, "cannot read the copy of '%s': %s",
				     j->page_url, strerror(errno));
			break;
		}
		if (n == 0) {
			rc = wp_json_reader_finish(&r);
			break;
		}
		at += n;
		if ((rc = wp_json_reader_feed(&r, buf, (size_t)n)))
			break;
	}
	wp_json_reader_release(&r);
	free(buf);
	return rc;
}

static int pass(struct jp *j, const char *data, size_t len)
{
	struct wp_json_opts o = { .what = j->page_url, .kind = "a PEP 691 page",
				  .code = -WPE_SOURCE, .max_bytes = WP_PEP691_MAX_BYTES };
	if (j->fd < 0)
		return wp_json_read(data, len, &callbacks, j, &o, j->err);
	o.max_bytes = j->max_bytes > SIZE_MAX ? SIZE_MAX : (size_t)j->max_bytes;
	o.max_token = FD_TOKEN;
	return pass_fd(j, &o);
}

static int read_json(struct jp *j, const char *data, size_t len)
{
	struct wp_index_stats local;
	int rc = 0;

	if (!j->stats)
		j->stats = &local;
	memset(j->stats, 0, sizeof(*j->stats));
	if (!j->page_url || !wp_url_scheme_ok(j->page_url))
		return wp_fail(j->err, -WPE_USAGE,
			       "index URL '%s' is not an absolute http, https or file URL",
			       j->page_url ? j->page_url : "");
	j->f.filename = (struct wp_buf)WP_BUF_INIT_MAX(FIELD_MAX);
	j->f.url = (struct wp_buf)WP_BUF_INIT_MAX(WP_HREF_MAX);
	j->f.prov = (struct wp_buf)WP_BUF_INIT_MAX(WP_HREF_MAX);
	j->f.rp = (struct wp_buf)WP_BUF_INIT_MAX(FIELD_MAX);
	j->f.yanked = (struct wp_buf)WP_BUF_INIT_MAX(FIELD_MAX);

	rc = pass(j, data, len);
	if (rc)
		goto out;
	if (!j->has_api) {
		rc = wp_fail(j->err, -WPE_SOURCE,
			     "'%s' is not a PEP 691 page: it has no meta.api-version", j->page_url);
		goto out;
	}
	struct wp_str v = WP_STR(j->api);
	if (!wp_str_eq(wp_str_cut(&v, '.'), "1")) {
		rc = wp_fail(j->err, -WPE_SOURCE,
			     "index '%s' uses API version '%s'; wheelpick reads 1.x", j->page_url,
			     j->api);
		goto out;
	}
	j->emit = true;
	j->depth = 0;
	rc = pass(j, data, len);
out:
	wp_buf_free(&j->f.filename);
	wp_buf_free(&j->f.url);
	wp_buf_free(&j->f.prov);
	wp_buf_free(&j->f.rp);
	wp_buf_free(&j->f.yanked);
	return rc;
}

int wp_read_pep691(const char *page_url, const char *project, const char *data, size_t len,
		   wp_record_fn *sink, void *ctx, struct wp_index_stats *stats, struct wp_err *err)
{
	return wp_read_pep691_fd(page_url, project, -1, 0, data, len, sink, ctx, stats, err);
}

int wp_read_pep691_fd(const char *page_url, const char *project, int fd,
		      unsigned long long max_bytes, const char *data, size_t len,
		      wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
		      struct wp_err *err)
{
	struct jp *j = wp_xcalloc(1, sizeof(*j));
	j->fd = fd;
	j->max_bytes = max_bytes;
	j->page_url = page_url;
	j->project = project;
	j->sink = sink;
	j->ctx = ctx;
	j->stats = stats;
	j->err = err;
	int rc = read_json(j, data, len);
	free(j);
	return rc;
}

int wp_read_pep691_projects(const char *page_url, const char *data, size_t len, wp_project_fn *sink,
			    void *ctx, struct wp_index_stats *stats, struct wp_err *err)
{
	return wp_read_pep691_projects_fd(page_url, -1, 0, data, len, sink, ctx, stats, err);
}

int wp_read_pep691_projects_fd(const char *page_url, int fd, unsigned long long max_bytes,
			       const char *data, size_t len, wp_project_fn *sink, void *ctx,
			       struct wp_index_stats *stats, struct wp_err *err)
{
	struct jp *j = wp_xcalloc(1, sizeof(*j));
	j->fd = fd;
	j->max_bytes = max_bytes;
	j->page_url = page_url;
	j->roots = true;
	j->name_sink = sink;
	j->ctx = ctx;
	j->stats = stats;
	j->err = err;
	int rc = read_json(j, data, len);
	free(j);
	return rc;
}
