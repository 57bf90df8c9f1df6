/* ops/core/crawl.c: sources -> readers -> catalog; one transaction per source, parallel fetches. */
#include "ops/core/crawl.h"
#include "ops/core/pagefile.h"
#include "cache/provstore.h"
#include "base/envp.h"
#include "base/buf.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/vec.h"
#include "index/html.h"
#include "index/localsrc.h"
#include "index/pep691.h"
#include "index/repodata.h"
#include "net/http.h"
#include "resolver/fileinfo.h"
#include "resolver/wheelname.h"
#include "verify/hash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <errno.h>
#include "base/url.h"
#include "base/os/os.h"

/* PEP 691 content negotiation: JSON preferred, HTML accepted (find-links pages are HTML only). */
#define ACCEPT_SIMPLE "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"

static const char *const default_projects[] = { "torch", "torchvision", "torchaudio" };

bool wp_crawl_is_repodata(const char *url)
{
	const char *q = strpbrk(url, "?#");
	size_t n = q ? (size_t)(q - url) : strlen(url);
	static const char *const ends[] = { "repodata.json", "repodata.json.bz2",
					    "repodata.json.zst" };
	for (size_t i = 0; i < WP_ARRAY_LEN(ends); i++) {
		size_t e = strlen(ends[i]);
		if (n >= e && !memcmp(url + n - e, ends[i], e))
			return true;
	}
	return false;
}

struct sink_ctx {
	struct wp_catalog *cat;
	int64_t source_id;
	struct wp_crawl_source *src;
};

bool wp_crawl_conda_row(const struct wp_file_record *rec, int64_t source_id, char variant[48],
			struct wp_file_row *row)
{
	if (!rec->project || !rec->version)
		return false;
	wp_conda_variant(rec->build, variant);
	*row = (struct wp_file_row){
		.source_id = source_id,
		.size = rec->size,
		.build_number = rec->build_number,
		.timestamp = rec->timestamp,
		.project = rec->project,
		.version = rec->version,
		.variant = variant,
		.kind = "conda",
		.build = rec->build,
		.subdir = rec->subdir,
		.depends = rec->depends,
		.constrains = rec->constrains,
		.track_features = rec->track_features,
		.filename = rec->filename,
		.url = rec->url,
		.sha256 = rec->sha256,
		.md5 = rec->md5,
	};
	return true;
}

static int catalog_sink(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct sink_ctx *s = ctx;
	struct wp_file_row row = {
		.source_id = s->source_id, .size = rec->size, .build_number = -1, .timestamp = -1
	};
	struct wp_fileinfo fi = { 0 };
	struct wp_err e = WP_ERR_INIT;
	char variant[48];
	int rc;

	if (rec->kind == WP_KIND_CONDA) {
		if (!wp_crawl_conda_row(rec, s->source_id, variant, &row)) {
			s->src->skipped++;
			s->src->malformed++;
			return 0;
		}
	} else {
		if (wp_fileinfo_from_name(rec->filename, rec->dir, &fi, &e) < 0) {
			/* a link the index lists but no tool could install: count it, go on */
			s->src->skipped++;
			s->src->malformed++;
			return 0;
		}
		/* a name no requirement can spell (y`id`-1.0.tar.gz) or a version PEP 440 does not
		 * know: nothing pip would install, and text that must never reach a requirements
		 * file */
		if (!wp_index_project_name_ok(fi.project, strlen(fi.project)) ||
		    !wp_pep440_valid(fi.version, strlen(fi.version))) {
			wp_fileinfo_release(&fi);
			s->src->skipped++;
			s->src->malformed++;
			return 0;
		}
		row.project = fi.project;
		row.version = fi.version;
		row.variant = fi.variant;
		row.kind = fi.kind;
		row.tags = fi.tags;
		row.build = fi.build;
		row.requires_python = rec->requires_python;
		row.yanked = rec->yanked;
		row.core_metadata = rec->core_metadata;
	}
	row.filename = rec->filename;
	row.url = rec->url;
	row.sha256 = rec->sha256;
	row.md5 = rec->md5;
	rc = wp_catalog_add_file(s->cat, &row, err);
	if (!rc && rec->provenance)
		rc = wp_catalog_provenance_put(s->cat, rec->url, rec->provenance, err);
	if (!rc)
		s->src->files++;
	wp_fileinfo_release(&fi);
	return rc;
}

struct prior {
	bool found;
	bool root;                   /* stored as an index root: its validators, no files */
	char *etag, *last_modified, *content_sha256;
	int64_t fetched_at;
};

static int prior_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	struct prior *p = ctx;
	p->etag = r->etag ? wp_xstrdup(r->etag) : NULL;
	p->last_modified = r->last_modified ? wp_xstrdup(r->last_modified) : NULL;
	p->content_sha256 = r->content_sha256 ? wp_xstrdup(r->content_sha256) : NULL;
	p->fetched_at = r->fetched_at;
	p->root = r->type == WP_SOURCE_ROOT;
	return 0;
}

static bool prior_fresh(const struct prior *p, long max_age_s, time_t now)
{
	return max_age_s > 0 && p->found && p->fetched_at > 0 && now - p->fetched_at < max_age_s;
}

static void prior_release(struct prior *p)
{
	free(p->etag);
	free(p->last_modified);
	free(p->content_sha256);
	memset(p, 0, sizeof(*p));
}

static bool is_json(const struct wp_http_res *res)
{
	const char *ct = res->content_type;
	return ct && (strstr(ct, "json") != NULL);
}

/* A root page (PEP 503 /simple/ or PyTorch's /whl/): the projects asked for, as URLs. */
WP_VEC_OF(urls, char *); /* each owned */

struct follow_ctx {
	const struct wp_crawl_opts *opts;
	struct wp_buf norm;
	struct urls urls;
	struct urls listed; /* this root's every project (up to WP_CRAWL_ROOT_ALL_MAX + 1), for
			       defaults mode */
	bool default_found;   /* this root lists one of the default projects */
};

/* A root read without --project that lists none of the default projects (a company index of
 * dependencies only): its projects are followed, as many as this, else none. */
#define WP_CRAWL_ROOT_ALL_MAX 1000

static int follow_fn(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	struct follow_ctx *f = ctx;
	if (!f->opts->projects && f->listed.n <= WP_CRAWL_ROOT_ALL_MAX)
		wp_vec_push(&f->listed, wp_xstrdup(url));
	const char *const *want = f->opts->projects ? f->opts->projects : default_projects;
	size_t nwant = f->opts->projects ? f->opts->n_projects : WP_ARRAY_LEN(default_projects);
	struct wp_buf w = WP_BUF_INIT;
	wp_project_name_normalize(name, strlen(name), &f->norm);
	for (size_t i = 0; i < nwant; i++) {
		wp_project_name_normalize(want[i], strlen(want[i]), &w);
		if (!strcmp(w.data, f->norm.data)) {
			wp_vec_push(&f->urls, wp_xstrdup(url));
			f->default_found = true;
			break;
		}
	}
	wp_buf_free(&w);
	return 0;
}

/* After a root's list was read in defaults mode: none of the defaults there, so what it has. */
static void follow_listed(struct follow_ctx *f)
{
	if (!f->default_found && f->listed.n <= WP_CRAWL_ROOT_ALL_MAX)
		for (size_t i = 0; i < f->listed.n; i++) {
			wp_vec_push(&f->urls, f->listed.v[i]);
			f->listed.v[i] = NULL;
		}
	for (size_t i = 0; i < f->listed.n; i++)
		free(f->listed.v[i]);
	f->listed.n = 0;
	f->default_found = false;
}

struct known_under {
	struct follow_ctx *f;
	size_t prefix_len;
};

/* A project page read under the root before: ROOT/<name>/, a page of links (a local folder's
 * page reads as one), not another root or a repodata that happens to lie below it. */
/* After the pages read under an unchanged root were listed in defaults mode: the default
 * projects' pages when there are any (what a first read of a root with torch follows), else all. */
static void follow_known_listed(struct follow_ctx *f)
{
	for (size_t i = 0; i < f->listed.n; i++) {
		bool take = !f->default_found;
		if (f->default_found) {
			const char *u = f->listed.v[i];
			size_t n = strlen(u), b = n - 1;
			while (b > 0 && u[b - 1] != '/')
				b--;
			wp_project_name_normalize(u + b, n - 1 - b, &f->norm);
			for (size_t d = 0; d < WP_ARRAY_LEN(default_projects) && !take; d++)
				take = !strcmp(f->norm.data, default_projects[d]);
		}
		if (take && f->listed.n <= WP_CRAWL_ROOT_ALL_MAX) {
			wp_vec_push(&f->urls, f->listed.v[i]);
			f->listed.v[i] = NULL;
		}
		free(f->listed.v[i]);
	}
	f->listed.n = 0;
	f->default_found = false;
}

static int follow_known_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	struct known_under *k = ctx;
	const char *rest = r->url ? r->url + k->prefix_len : NULL;
	size_t n = rest ? strlen(rest) : 0;
	if (!rest || n < 2 || rest[n - 1] != '/' || memchr(rest, '/', n - 1) ||
	    !wp_source_kind_is_page(r->type))
		return 0;
	/* as a first read does: the default projects when the root had any, else all it had */
	struct follow_ctx *f = k->f;
	wp_project_name_normalize(rest, n - 1, &f->norm);
	for (size_t i = 0; i < WP_ARRAY_LEN(default_projects) && !f->default_found; i++)
		f->default_found = !strcmp(f->norm.data, default_projects[i]);
	if (f->listed.n <= WP_CRAWL_ROOT_ALL_MAX)
		wp_vec_push(&f->listed, wp_xstrdup(r->url));
	return 0;
}

/* A root known unchanged (304, the same bytes, or fresh): the projects asked for at
 * ROOT/<name>/ (PEP 503's place for them), without reading its list again. Without --project,
 * the project pages read under it before (those it listed): the defaults are never guessed at, as
 * a root of dependencies only has no torch/ and that is no failure. */
static void follow_known_root(struct wp_catalog *cat, struct follow_ctx *f, const char *url,
			      const struct prior *pr, struct wp_crawl_source *s)
{
	if (!f || !pr->root)
		return;
	size_t n = strlen(url);
	s->kind = WP_SOURCE_ROOT;
	if (!f->opts->projects) {
		struct wp_err e = WP_ERR_INIT;
		char *prefix = wp_xasprintf("%s%s", url, n && url[n - 1] == '/' ? "" : "/");
		struct known_under k = { f, strlen(prefix) };
		wp_catalog_sources_under(cat, prefix, follow_known_fn, &k, &e);
		free(prefix);
		follow_known_listed(f);
		return;
	}
	const char *const *want = f->opts->projects;
	size_t nwant = f->opts->n_projects;
	for (size_t i = 0; i < nwant; i++) {
		wp_project_name_normalize(want[i], strlen(want[i]), &f->norm);
		wp_vec_push(&f->urls,
			    wp_xasprintf("%s%s%s/", url, n && url[n - 1] == '/' ? "" : "/",
					 f->norm.data));
	}
}

static int count_projects(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	return 0;
}

static void hash_bytes(const char *data, size_t n, char out[65])
{
	struct wp_hasher h;
	struct wp_err e = WP_ERR_INIT;
	out[0] = 0;
	if (wp_hasher_init(&h, WP_HASH_SHA256, &e) < 0)
		return;
	wp_hasher_update(&h, data, n);
	wp_hasher_final(&h, out, NULL, &e);
	wp_hasher_release(&h);
}

/* "https://a.example:8080/x" -> "a.example:8080" (borrowed span into url). */
static size_t host_of(const char *url, const char **start)
{
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	*start = p;
	return strcspn(p, "/?#");
}

static char *other_host(const char *from, const char *to)
{
	const char *a, *b;
	size_t na = host_of(from, &a), nb = host_of(to, &b);
	if (na == nb && !strncasecmp(a, b, na))
		return NULL;
	return wp_xstrndup(b, nb);
}

static struct wp_crawl_source *report_add(struct wp_crawl_report *rep, const char *url)
{
	struct wp_crawl_source *s = wp_vec_add(rep);
	s->url = wp_xstrdup(url);
	/* what the URL says, before any bytes: conda repodata by its file name (fetched to a file,
	 * parsed where it lies), else a page, which its bytes make precise (kind_of) */
	s->kind = wp_crawl_is_repodata(url) ? WP_SOURCE_REPODATA : WP_SOURCE_FINDLINKS;
	return s;
}

static void source_fail(struct wp_crawl_source *s, const struct wp_err *e, int rc)
{
	s->rc = rc;
	free(s->error);
	s->error = wp_xstrdup(e->msg[0] ? e->msg : "failed");
}

/* The parser's bytes into the repodata's hash (wp_read_repodata_file_tap). */
static void hash_tap(void *ctx, const void *data, size_t n)
{
	wp_hasher_update(ctx, data, n);
}

/* A page asked for and found unchanged counts as fetched now, so that --max-age (and the default
 * freshness of a pick) counts from this answer: before, a page older than that was asked for again
 * on every run once it had been unchanged once. Not being able to write the time loses nothing
 * but that round trip, so it fails nothing. */
static void touch_source(struct wp_catalog *cat, const char *url)
{
	struct wp_err e = WP_ERR_INIT;
	wp_catalog_source_touch(cat, url, &e);
}

/* What a fetched source is, decided here once from what came back: a download to a file that is
 * not a spilled page is conda repodata (the URL named one, wp_crawl_is_repodata); a JSON answer
 * (PEP 691's content type) is a root when it lists projects and no files, else a project page;
 * HTML is a PEP 503 page under a /simple/ path, else a find-links page (an HTML page that turns
 * out to list only projects becomes a root when it is read). A spilled JSON page is tested from
 * its file by json_file_is_root, the same test. */
static enum wp_source_kind kind_of(bool repodata, const struct wp_http_res *res, const char *url,
				   const char *data)
{
	if (repodata)
		return WP_SOURCE_REPODATA;
	if (is_json(res))
		return strstr(data, "\"projects\"") && !strstr(data, "\"files\"") ? WP_SOURCE_ROOT
									   : WP_SOURCE_SIMPLE_JSON;
	return strstr(url, "/simple/") ? WP_SOURCE_SIMPLE : WP_SOURCE_FINDLINKS;
}

static unsigned long long page_max(const struct wp_crawl_opts *opts)
{
	return opts->max_page_bytes ? opts->max_page_bytes : WP_CRAWL_PAGE_MAX_DEFAULT;
}

/* A page or repodata refused for its size says which setting lets it in: one line that names
 * the URL and the ceiling. */
static int too_big(const struct wp_crawl_opts *opts, const char *url, struct wp_err *err)
{
	wp_err_clear(err);
	return wp_fail(err, -WPE_TOO_BIG,
		       "'%s' is larger than the page size limit (%llu bytes); raise it with %s",
		       url, page_max(opts), wp_ask_words(opts->asks, WP_ASK_PAGE_SIZE));
}

/* Parse what one fetch brought and store it. follow collects project URLs of a root page. */
static int store_parsed(struct wp_catalog *cat, struct wp_crawl_source *s,
			const struct wp_http_res *res, const char *body_path,
			const struct wp_page *pf, const struct prior *pr,
			const struct wp_crawl_opts *opts, struct follow_ctx *follow,
			struct wp_err *err)
{
	struct sink_ctx sc = { .cat = cat, .src = s };
	struct wp_index_stats st = { 0 };
	char sha[65] = "";
	int rc = 0;
	const char *url = s->url;
	/* links on a page that was redirected resolve against where it was found, as in a browser
	 * or pip; the source keeps the URL it was asked under */
	const char *page = res->effective_url ? res->effective_url : url;
	/* a page that outgrew memory is in body_path (pf), read from there in pieces */
	const char *data = wp_buf_cstr(&res->body);
	size_t len = res->body.len;
	bool repodata = body_path && !res->spilled;
	struct wp_hasher tap_h;
	bool tap_hash = false, tapped = false;

	if (body_path && (res->spilled || (!opts->force && pr->found && pr->content_sha256))) {
		long long sz;
		if ((rc = wp_hash_file(body_path, sha, &sz, err)))
			return rc;
	} else if (body_path) {
		/* Nothing to compare the hash with (a first crawl, or --force): it is only stored,
		 * so it is taken from the bytes the parser reads (below), not from a second read of
		 * the file on a thread of its own (that read's copy was a twentieth of a 250 MB
		 * crawl's CPU); a compressed file, which the parser does not hand over, is hashed
		 * after it. */
		tap_hash = wp_hasher_init(&tap_h, WP_HASH_SHA256, err) == 0;
		if (!tap_hash)
			return err->code ? err->code : -WPE_IO;
	} else {
		hash_bytes(data, len, sha);
	}
	/* The same bytes as last time (a server without validators): nothing to write but the time
	 * it was seen so. */
	if (!opts->force && pr->found && pr->content_sha256 && !strcmp(pr->content_sha256, sha)) {
		s->unchanged = true;
		touch_source(cat, url);
		follow_known_root(cat, follow, url, pr, s);
		return 0;
	}

	if (!repodata && is_json(res) && res->spilled) {
		/* a JSON page that outgrew memory: the same test, read from its file in pieces */
		bool root;
		if ((rc = wp_page_json_is_root(pf->fd, &root, url, err)))
			return rc;
		s->kind = root ? WP_SOURCE_ROOT : WP_SOURCE_SIMPLE_JSON;
	} else {
		s->kind = kind_of(repodata, res, url, data);
	}
	if (s->kind != WP_SOURCE_ROOT) {
		if ((rc = wp_catalog_refresh_begin(cat, url, s->kind, &sc.source_id, err))) {
			if (tap_hash)
				wp_hasher_release(&tap_h);
			return rc;
		}
		if (s->kind == WP_SOURCE_REPODATA) {
			/* the channel subdir URL: the repodata URL without its file name */
			char *base = wp_xstrdup(res->effective_url ? res->effective_url : url);
			char *slash = strrchr(base, '/');
			if (slash)
				*slash = 0;
			if (tap_hash)
				rc = wp_read_repodata_file_tap(body_path, base, hash_tap, &tap_h,
							       &tapped, catalog_sink, &sc, &st,
							       err);
			else
				rc = wp_read_repodata_file(body_path, base, catalog_sink, &sc, &st,
							   err);
			free(base);
			if (!rc && tap_hash)
				rc = tapped ? wp_hasher_final(&tap_h, sha, NULL, err) :
					      wp_hash_file(body_path, sha, NULL, err);
			if (tap_hash)
				wp_hasher_release(&tap_h);
		} else if (s->kind == WP_SOURCE_SIMPLE_JSON) {
			rc = wp_read_pep691_fd(page, NULL, pf->fd, page_max(opts), data, len,
					       catalog_sink, &sc, &st, err);
		} else {
			struct wp_err he = WP_ERR_INIT;
			rc = wp_read_html_links_fd(page, NULL, pf->fd, page_max(opts), data, len,
						   catalog_sink, &sc, &st, &he);
			/* no file links but other links, or "not an index": maybe a root page */
			if ((rc == 0 && st.records == 0 && st.links > 0) || rc == -WPE_SOURCE) {
				struct wp_index_stats ps = { 0 };
				struct wp_err pe = WP_ERR_INIT;
				if (wp_read_html_projects_fd(page, pf->fd, page_max(opts), data,
							     len, count_projects, NULL, &ps,
							     &pe) == 0 &&
				    ps.records > 0) {
					wp_catalog_refresh_abort(cat);
					s->kind = WP_SOURCE_ROOT;
					s->files = 0;
					rc = 0;
				}
			}
			if (rc && s->kind != WP_SOURCE_ROOT)
				wp_fail(err, rc, "%s", he.msg);
		}
		if (rc) {
			wp_catalog_refresh_abort(cat);
			return rc;
		}
	}

	if (s->kind == WP_SOURCE_ROOT) {
		memset(&st, 0, sizeof(st));
		/* stored like any page, with no files: its validators and time, so that the next
		 * read is conditional (or not made at all inside --max-age), and a pick knows it
		 * for a root */
		int64_t rid;
		if (wp_catalog_refresh_begin(cat, url, WP_SOURCE_ROOT, &rid, err) == 0 &&
		    wp_catalog_refresh_commit(cat, rid, res->etag, res->last_modified, sha, 0,
					      err) != 0)
			wp_catalog_refresh_abort(cat);
		wp_err_clear(err);
		if (!follow)
			return wp_fail(err, -WPE_SOURCE,
				       "'%s' is an index root, not a project page", url);
		rc = is_json(res) ?
			     wp_read_pep691_projects_fd(page, pf->fd, page_max(opts), data, len,
							follow_fn, follow, &st, err) :
			     wp_read_html_projects_fd(page, pf->fd, page_max(opts), data, len,
						      follow_fn, follow, &st, err);
		follow_listed(follow);
		return rc;
	}
	s->skipped += st.skipped;
	s->malformed += st.malformed;
	s->refused += st.refused;
	rc = wp_catalog_refresh_commit(cat, sc.source_id, res->etag, res->last_modified, sha,
				       (int64_t)s->files, err);
	if (!rc)
		s->conflicts = cat->refresh_conflicts;
	return rc;
}

static int store_source(struct wp_catalog *cat, struct wp_crawl_source *s,
			const struct wp_http_res *res, const char *body_path,
			const struct prior *pr, const struct wp_crawl_opts *opts,
			struct follow_ctx *follow, struct wp_err *err)
{
	struct wp_page pf = WP_PAGE_INIT;
	int rc = 0;
	if (res->spilled)
		rc = wp_page_open(&pf, body_path, s->url, page_max(opts), err);
	if (!rc)
		rc = store_parsed(cat, s, res, body_path, &pf, pr, opts, follow, err);
	wp_page_release(&pf);
	return rc;
}

/* Repodata downloads land in the tmp folder under one prefix per crawl,
 * "wheelpick-repodata.<pid>.<random>.", beside a lock file the crawl holds while it lives
 * ("<prefix>lock"). A crawl killed mid-way leaves its files and a lock nobody holds: the next
 * crawl sweeps them. Names are never made of the PID alone, which a container's PID 1 reuses on
 * every run: nothing a dead crawl left is taken up by a later one. */
#define TMP_PREFIX "wheelpick-repodata."
#define TMP_LOCK_MIN_AGE_S 2   /* a lock younger than this may be one its crawl has not locked yet */
#define TMP_STRAY_AGE_S 3600   /* our files with no lock at all (older wheelpicks) */

struct tmp_claim {
	char *dir;
	char *prefix; /* full path up to the file's own part: dir/wheelpick-repodata.<pid>.<rnd>. */
	int lock_fd;
};

static const char *tmp_dir_of(const struct wp_crawl_opts *opts)
{
	const char *t = wp_envp_get(opts->envp, "TMPDIR");
	return opts->tmp_dir ? opts->tmp_dir : t ? t : "/tmp";
}

/* Remove what killed crawls left in dir. */
static void sweep_tmp(const char *dir)
{
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *e;
	struct urls dead = { 0 };
	time_t now = time(NULL);
	if (!d)
		return;
	while ((e = wp_os_readdir(d))) {
		size_t n = strlen(e->d_name);
		struct wp_os_stat sb;
		if (strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) != 0 ||
		    wp_os_fstatat(wp_os_dirfd(d), e->d_name, &sb, WP_AT_SYMLINK_NOFOLLOW) < 0 ||
		    !WP_S_ISREG(sb.st_mode))
			continue;
		if (n > 5 && !strcmp(e->d_name + n - 5, ".lock")) {
			if (now - sb.st_mtime_s < TMP_LOCK_MIN_AGE_S)
				continue;
			int fd = wp_os_openat(wp_os_dirfd(d), e->d_name,
					      WP_O_RDONLY | WP_O_NOFOLLOW | WP_O_CLOEXEC |
						      WP_O_NONBLOCK);
			if (fd < 0)
				continue;
			if (wp_os_flock(fd, WP_LOCK_EX | WP_LOCK_NB) == 0)
				wp_vec_push(&dead, wp_xstrndup(e->d_name, n - 4)); /* "...<rnd>." */
			wp_os_close(fd);
		}
	}
	/* A dead crawl's lock goes last: a sweep killed half-way then leaves the lock beside what
	 * is still there, and the next sweep finishes. Removed first, it left files that no lock
	 * named, which waited an hour (TMP_STRAY_AGE_S); t-crash's kills found two such. */
	wp_os_rewinddir(d);
	while ((e = wp_os_readdir(d))) {
		struct wp_os_stat sb;
		size_t n = strlen(e->d_name);
		if (strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) != 0 ||
		    wp_os_fstatat(wp_os_dirfd(d), e->d_name, &sb, WP_AT_SYMLINK_NOFOLLOW) < 0 ||
		    !WP_S_ISREG(sb.st_mode))
			continue;
		bool gone = now - sb.st_mtime_s > TMP_STRAY_AGE_S,
		     lock = n > 5 && !strcmp(e->d_name + n - 5, ".lock");
		for (size_t i = 0; i < dead.n && !gone; i++)
			gone = !lock && !strncmp(e->d_name, dead.v[i], strlen(dead.v[i]));
		if (gone)
			wp_os_unlinkat(wp_os_dirfd(d), e->d_name, 0);
	}
	for (size_t i = 0; i < dead.n; i++) {
		char *lock = wp_xasprintf("%slock", dead.v[i]);
		wp_os_unlinkat(wp_os_dirfd(d), lock, 0);
		free(lock);
	}
	wp_os_closedir(d);
	for (size_t i = 0; i < dead.n; i++)
		free(dead.v[i]);
	wp_vec_free(&dead);
}

/* Sweep, then take a prefix of our own with its lock. Without a lock (no such folder, no locks
 * there) the files still get a unique prefix; they are removed after parsing either way. */
static void claim_tmp(const struct wp_crawl_opts *opts, struct tmp_claim *c)
{
	unsigned int rnd = 0;
	c->dir = wp_xstrdup(tmp_dir_of(opts));
	c->lock_fd = -1;
	sweep_tmp(c->dir);
	for (int tries = 0; tries < 16; tries++) {
		if (wp_os_random(&rnd, sizeof(rnd)) != 0)
			rnd ^= (unsigned int)time(NULL) * 2654435761u + (unsigned int)tries;
		free(c->prefix);
		c->prefix = wp_xasprintf("%s/" TMP_PREFIX "%ld.%08x.", c->dir, wp_os_getpid(), rnd);
		char *lock = wp_xasprintf("%slock", c->prefix);
		c->lock_fd = wp_os_open(lock, WP_O_RDWR | WP_O_CREAT | WP_O_EXCL | WP_O_CLOEXEC,
					0600);
		free(lock);
		if (c->lock_fd >= 0) {
			(void)wp_os_flock(c->lock_fd, WP_LOCK_EX | WP_LOCK_NB);
			return;
		}
		if (errno != EEXIST)
			return;
	}
}

static void release_tmp(struct tmp_claim *c)
{
	if (c->lock_fd >= 0) {
		char *lock = wp_xasprintf("%slock", c->prefix);
		wp_os_unlink(lock);
		free(lock);
		wp_os_close(c->lock_fd);
	}
	free(c->dir);
	free(c->prefix);
	memset(c, 0, sizeof(*c));
}

static char *tmp_path(const struct tmp_claim *c, size_t i)
{
	return wp_xasprintf("%s%zu.repodata", c->prefix, i);
}

/* Where a page goes if it outgrows memory (most never do, so nothing is made or swept for it
 * here): a name of this crawl's own, without a lock; a killed crawl's file is swept as a stray. */
static char *spill_path(const struct wp_crawl_opts *opts, struct tmp_claim *c, size_t i)
{
	if (!c->prefix) {
		unsigned int rnd = 0;
		if (wp_os_random(&rnd, sizeof(rnd)) != 0)
			rnd = (unsigned int)time(NULL) * 2654435761u;
		c->prefix = wp_xasprintf("%s/" TMP_PREFIX "%ld.%08x.", tmp_dir_of(opts),
					 wp_os_getpid(), rnd);
	}
	return wp_xasprintf("%s%zu.page", c->prefix, i);
}

/* A file:// repodata: no transfer, the reader opens the file itself. */
static void local_repodata(struct wp_catalog *cat, struct wp_crawl_source *s,
			   const struct prior *pr, const struct wp_crawl_opts *opts)
{
	struct wp_http_res res;
	struct wp_err e = WP_ERR_INIT;
	char *path = NULL;
	struct wp_os_stat st;
	memset(&res, 0, sizeof(res));
	if (wp_local_path(s->url, &path, &e) < 0) {
		source_fail(s, &e, e.code);
		goto out;
	}
	if (wp_os_stat(path, &st) < 0 || !WP_S_ISREG(st.st_mode)) {
		wp_fail(&e, -WPE_NET, "cannot read '%s': %s", s->url,
			strerror(errno ? errno : ENOENT));
		source_fail(s, &e, e.code);
		goto out;
	}
	int rc = store_source(cat, s, &res, path, pr, opts, NULL, &e);
	if (rc) {
		wp_err_prefix(&e, "reading '%s'", s->url);
		source_fail(s, &e, rc);
	}
out:
	free(path);
}

/* A file:// page is read from disk (index/localsrc.c); a folder reads as a find-links page. */
static void local_page(struct wp_catalog *cat, struct wp_crawl_source *s, const struct prior *pr,
		       const struct wp_crawl_opts *opts, struct follow_ctx *follow)
{
	struct wp_http_res res;
	struct wp_err e = WP_ERR_INIT;
	bool folder = false;
	char *file = NULL;
	unsigned long long size = 0;
	memset(&res, 0, sizeof(res));
	/* a page past memory's share is read where it lies, in pieces, as a fetched one that
	 * outgrew memory is (never mapped: a file of someone else's cut short under a mapping would
	 * be a crash); a smaller one, and a folder's listing, in memory */
	int rc = wp_local_page_file(s->url, &file, &folder, &size, &e);
	if (!rc && !folder) {
		struct wp_page pg = WP_PAGE_INIT;
		rc = wp_page_load(&pg, file, s->url, page_max(opts), WP_CRAWL_PAGE_IN_MEMORY, &e);
		if (rc == -WPE_TOO_BIG) {
			too_big(opts, s->url, &e);
		} else if (!rc) {
			res.spilled = pg.fd >= 0;
			res.body = pg.body;
			pg.body = (struct wp_buf)WP_BUF_INIT;
			rc = store_parsed(cat, s, &res, res.spilled ? file : NULL, &pg, pr, opts,
					  follow, &e);
			if (rc)
				wp_err_prefix(&e, "reading '%s'", s->url);
		}
		wp_page_release(&pg);
	} else if (!rc) {
		/* a folder's listing */
		res.body = (struct wp_buf)WP_BUF_INIT_MAX(
			page_max(opts) > SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)page_max(opts));
		rc = wp_local_read_page(s->url, &res.body, &folder, &e);
		if (rc == -WPE_TOO_BIG) {
			too_big(opts, s->url, &e);
		} else if (!rc) {
			rc = store_source(cat, s, &res, NULL, pr, opts, follow, &e);
			if (rc)
				wp_err_prefix(&e, "reading '%s'", s->url);
		}
	}
	free(file);
	if (rc) {
		char *path = NULL;
		struct wp_os_stat st;
		struct wp_err pe = WP_ERR_INIT;
		s->not_found = wp_local_path(s->url, &path, &pe) == 0 &&
			       wp_os_stat(path, &st) < 0 && errno == ENOENT;
		free(path);
		source_fail(s, &e, rc);
	}
	wp_http_res_release(&res);
}

/* One round: fetch urls in parallel, then store each. Root pages add to follow. */
static void crawl_round(struct wp_catalog *cat, const char *const *urls, size_t n,
			const struct wp_crawl_opts *opts, struct wp_crawl_report *rep,
			struct follow_ctx *follow)
{
	struct wp_http_req *reqs = wp_xcalloc(n ? n : 1, sizeof(*reqs));
	struct wp_http_res *res = wp_xcalloc(n ? n : 1, sizeof(*res));
	struct wp_err *errs = wp_xcalloc(n ? n : 1, sizeof(*errs));
	struct prior *pr = wp_xcalloc(n ? n : 1, sizeof(*pr));
	size_t base = rep->n; /* this round's sources are rep->v[base + i]; the array may move */
	char **paths = wp_xcalloc(n ? n : 1, sizeof(*paths));
	size_t *todo = wp_xcalloc(n ? n : 1, sizeof(*todo)), ntodo = 0;
	struct wp_err e = WP_ERR_INIT;
	time_t now = time(NULL);
	struct tmp_claim claim = { .lock_fd = -1 }, spill = { .lock_fd = -1 };
	size_t max = page_max(opts) > SIZE_MAX ? SIZE_MAX : (size_t)page_max(opts);

	for (size_t i = 0; i < n; i++)
		report_add(rep, urls[i]);
	for (size_t i = 0; i < n; i++) {
		if (wp_catalog_source_get(cat, urls[i], prior_fn, &pr[i], &pr[i].found, &e) < 0) {
			source_fail(&rep->v[base + i], &e, e.code);
			wp_err_clear(&e);
			continue;
		}
		if (prior_fresh(&pr[i], opts->max_age_s, now)) {
			rep->v[base + i].unchanged = true;
			follow_known_root(cat, follow, urls[i], &pr[i], &rep->v[base + i]);
			continue;
		}
		reqs[ntodo] = (struct wp_http_req){
			.policy = { .conf = opts->net },
			.url = urls[i],
			.etag = opts->force ? NULL : pr[i].etag,
			.last_modified = opts->force ? NULL : pr[i].last_modified,
			.accept = rep->v[base + i].kind == WP_SOURCE_REPODATA ? NULL
									       : ACCEPT_SIMPLE,
		};
		if (wp_local_is_file_url(urls[i])) {
			/* its content hash (libcrypto), and a compressed repodata's reader */
			bool conda = rep->v[base + i].kind == WP_SOURCE_REPODATA;
			unsigned need = WP_LIB_CRYPTO | (conda ? WP_LIB_ARCHIVE : 0);
			if (wp_lazy_require(need, &e) < 0) {
				source_fail(&rep->v[base + i], &e, e.code);
				wp_err_clear(&e);
				continue;
			}
			/* a local repodata is parsed where it lies, not copied to a temp file first
			 * (300 MB of disk for conda-forge's linux-64); a local page is read(2) */
			if (rep->v[base + i].kind == WP_SOURCE_REPODATA)
				local_repodata(cat, &rep->v[base + i], &pr[i], opts);
			else
				local_page(cat, &rep->v[base + i], &pr[i], opts, follow);
			continue;
		}
		if (rep->v[base + i].kind == WP_SOURCE_REPODATA) {
			if (!claim.dir)
				claim_tmp(opts, &claim);
			paths[i] = tmp_path(&claim, i);
			reqs[ntodo].to_path = paths[i];
		} else {
			/* a page: in memory while it is small, else in a file read in pieces */
			paths[i] = spill_path(opts, &spill, i);
			reqs[ntodo].to_path = paths[i];
			reqs[ntodo].spill_after = WP_CRAWL_PAGE_IN_MEMORY;
		}
		reqs[ntodo].max_bytes = max; /* compressed or not; decompression has its own caps */
		todo[ntodo++] = i;
	}
	/* the callers load what the sources they see need; a root's project pages are only found
	 * here, so what this round fetches is loaded here too (a no-op when it is loaded) */
	unsigned need = WP_LIB_CURL | WP_LIB_CRYPTO;
	for (size_t k = 0; k < ntodo; k++)
		if (rep->v[base + todo[k]].kind == WP_SOURCE_REPODATA)
			need |= WP_LIB_ARCHIVE;
	if (ntodo && wp_lazy_require(need, &e) < 0) {
		for (size_t k = 0; k < ntodo; k++)
			source_fail(&rep->v[base + todo[k]], &e, e.code);
		wp_err_clear(&e);
		ntodo = 0;
	}
	if (ntodo)
		wp_http_get_many(reqs, res, ntodo, errs);
	for (size_t k = 0; k < ntodo; k++) {
		size_t i = todo[k];
		struct wp_crawl_source *s = &rep->v[base + i];
		if (res[k].effective_url && !errs[k].code)
			s->redirected_to = other_host(s->url, res[k].effective_url);
		if (errs[k].code) {
			s->not_found = res[k].status == 404 || res[k].status == 410;
			if (errs[k].code == -WPE_TOO_BIG)
				too_big(opts, s->url, &errs[k]);
			source_fail(s, &errs[k], errs[k].code);
		} else if (res[k].not_modified) {
			s->unchanged = true;
			touch_source(cat, s->url);
			follow_known_root(cat, follow, s->url, &pr[i], s);
		} else {
			struct wp_err se = WP_ERR_INIT;
			/* a page's file only when it outgrew memory; a repodata's always */
			const char *file = res[k].spilled || !reqs[k].spill_after ? paths[i] : NULL;
			int rc = store_source(cat, s, &res[k], file, &pr[i], opts, follow, &se);
			if (rc) {
				wp_err_prefix(&se, "reading '%s'", s->url);
				source_fail(s, &se, rc);
			}
		}
		if (paths[i] && (res[k].spilled || !reqs[k].spill_after))
			wp_os_unlink(paths[i]);
		wp_http_res_release(&res[k]);
	}
	for (size_t i = 0; i < n; i++) {
		prior_release(&pr[i]);
		if (paths[i] && wp_crawl_is_repodata(urls[i])) {
			char *part = wp_xasprintf("%s.part", paths[i]); /* a transfer that failed
									   may leave it */
			wp_os_unlink(part);
			free(part);
		}
		free(paths[i]);
	}
	if (claim.dir)
		release_tmp(&claim);
	free(spill.prefix);
	free(reqs);
	free(res);
	free(errs);
	free(pr);
	free(paths);
	free(todo);
}

bool wp_crawl_is_fresh(struct wp_catalog *cat, const char *url, long max_age_s)
{
	struct prior p = { 0 };
	struct wp_err e = WP_ERR_INIT;
	if (max_age_s <= 0 || wp_catalog_source_get(cat, url, prior_fn, &p, &p.found, &e) < 0) {
		prior_release(&p);
		return false;
	}
	bool fresh = prior_fresh(&p, max_age_s, time(NULL));
	prior_release(&p);
	return fresh;
}

int wp_crawl(struct wp_catalog *cat, const char *const *urls, size_t n,
	     const struct wp_crawl_opts *opts, struct wp_crawl_report *rep, struct wp_err *err)
{
	struct follow_ctx follow = { .opts = opts, .norm = WP_BUF_INIT };
	memset(rep, 0, sizeof(*rep));
	crawl_round(cat, urls, n, opts, rep, &follow);
	if (follow.urls.n) {
		/* project pages found on root pages: one more parallel round (they are never
		 * roots) */
		crawl_round(cat, (const char *const *)follow.urls.v, follow.urls.n, opts, rep,
			    NULL);
	}
	for (size_t i = 0; i < follow.urls.n; i++)
		free(follow.urls.v[i]);
	wp_vec_free(&follow.urls);
	for (size_t i = 0; i < follow.listed.n; i++)
		free(follow.listed.v[i]);
	wp_vec_free(&follow.listed);
	wp_buf_free(&follow.norm);
	/* root pages are reported as sources that hold no files themselves */
	for (size_t i = 0; i < rep->n; i++)
		if (rep->v[i].rc)
			return wp_fail(err, rep->v[i].rc, "%s", rep->v[i].error);
	return 0;
}

void wp_crawl_report_release(struct wp_crawl_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->v[i].url);
		free(rep->v[i].error);
		free(rep->v[i].redirected_to);
	}
	free(rep->v);
	memset(rep, 0, sizeof(*rep));
}
