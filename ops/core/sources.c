/* ops/core/sources.c: source lists (indexes, channels, defaults) and crawling them with a
 * report. */
#include "ops/core/sources.h"
#include "base/envp.h"
#include "base/fs.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/str.h"
#include "index/localsrc.h"
#include "net/auth.h"
#include "ops/core/crawl.h"
#include "ops/core/shardread.h"
#include "resolver/requirement.h"
#include "resolver/wheelname.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push(struct wp_sources *s, char *url)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->urls[i], url)) {
			free(url);
			return;
		}
	wp_vec_push_fields(s->urls, s->n, s->cap, url);
}

static bool has_scheme(const char *u)
{
	return !strncmp(u, "http://", 7) || !strncmp(u, "https://", 8) || !strncmp(u, "file://", 7);
}

/* A local path (pip's --find-links DIR habit) becomes an absolute file:// URL; a URL's userinfo
 * goes to creds (net/auth.h; NULL: nowhere) and never further. */
static char *as_url(struct wp_net_creds *creds, const char *u)
{
	if (has_scheme(u) || strstr(u, "://"))
		return wp_net_url_take_credentials(creds, u);
	char cwd[4096];
	char *abs = wp_os_path_is_abs(u) || !wp_os_getcwd(cwd, sizeof(cwd)) ?
			    wp_xstrdup(u) :
			    wp_xasprintf("%s/%s", cwd, u);
	/* a Windows path (C:\x, \\server\share) as a URL's: '/' between its parts; wp_local_url
	 * puts one more '/' before a drive (file:///C:/x), which wp_local_path takes off again */
	for (char *c = abs; *c; c++)
		if (*c == '\\' && wp_os_is_sep(*c))
			*c = '/';
	char *url = wp_local_url(abs);
	free(abs);
	return url;
}

static bool is_file(const char *dir, const char *name)
{
	struct wp_os_stat st;
	char *p = wp_xasprintf("%s/%s", dir, name);
	bool ok = wp_os_stat(p, &st) == 0 && WP_S_ISREG(st.st_mode);
	free(p);
	return ok;
}

/* A folder holding a PEP 503 tree: a project folder with its index.html (as `wheelpick mirror`
 * writes, and pip reads a file:// index). A folder of wheels is not one. */
static bool local_tree(const char *dir)
{
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *e;
	bool tree = false;
	size_t seen = 0;
	if (!d)
		return false;
	while (!tree && (e = wp_os_readdir(d)) && seen++ < 100000) {
		if (e->d_name[0] == '.')
			continue;
		char *sub = wp_xasprintf("%s/%s", dir, e->d_name);
		struct wp_os_stat st;
		tree = wp_os_stat(sub, &st) == 0 && WP_S_ISDIR(st.st_mode) &&
		       is_file(sub, "index.html");
		free(sub);
	}
	wp_os_closedir(d);
	return tree;
}

/* The folder a file:// URL names, or NULL. */
static char *local_dir(const char *url)
{
	struct wp_err e = WP_ERR_INIT;
	char *path = NULL;
	struct wp_os_stat st;
	if (!wp_local_is_file_url(url) || wp_local_path(url, &path, &e) < 0)
		return NULL;
	if (wp_os_stat(path, &st) == 0 && WP_S_ISDIR(st.st_mode))
		return path;
	free(path);
	return NULL;
}

/* An index root written the way pip takes it: with its trailing slash ("https://host/simple" is
 * "https://host/simple/"; a last segment with a dot, such as torch_stable.html, is a page), and a
 * local folder holding a PEP 503 tree (or a mirror whose simple/ is one) as that tree's root. */
static char *as_index_url(struct wp_net_creds *creds, const char *given)
{
	char *u = as_url(creds, given);
	size_t n = strlen(u);
	if (!strncmp(u, "http://", 7) || !strncmp(u, "https://", 8)) {
		const char *path = strchr(strstr(u, "://") + 3, '/');
		if (!path && !strpbrk(u, "?#")) {
			char *r = wp_xasprintf("%s/", u);
			free(u);
			return r;
		}
		if (!path || strpbrk(path, "?#") || u[n - 1] == '/')
			return u;
		const char *last = strrchr(path, '/') + 1;
		if (!strchr(last, '.')) {
			char *r = wp_xasprintf("%s/", u);
			free(u);
			return r;
		}
		return u;
	}
	char *dir = local_dir(u);
	if (!dir)
		return u;
	char *simple = wp_xasprintf("%s/simple", dir);
	char *r = NULL;
	if (is_file(simple, "index.html") && local_tree(simple))
		r = wp_xasprintf("%s%ssimple/", u, u[n - 1] == '/' ? "" : "/");
	else if (u[n - 1] != '/' && local_tree(dir))
		r = wp_xasprintf("%s/", u);
	free(simple);
	free(dir);
	if (!r)
		return u;
	free(u);
	return r;
}

bool wp_sources_is_root(const char *url)
{
	size_t n = strlen(url);
	if (!n || url[n - 1] != '/')
		return false;
	if (!wp_local_is_file_url(url))
		return true;
	char *dir = local_dir(url);
	bool tree = dir && local_tree(dir);
	free(dir);
	return tree;
}

void wp_sources_add_index(struct wp_sources *s, const char *url)
{
	push(s, as_index_url(s->creds, url));
}

void wp_sources_add_findlinks(struct wp_sources *s, const char *url)
{
	push(s, as_url(s->creds, url));
}

void wp_sources_add_channel(struct wp_sources *s, const char *channel, const char *const *subdirs,
			    size_t n)
{
	char *base;
	if (wp_crawl_is_repodata(channel)) {
		push(s, as_url(s->creds, channel));
		return;
	}
	if (has_scheme(channel) || channel[0] == '/' || channel[0] == '.')
		base = as_url(s->creds, channel);
	else /* a channel name, as conda's -c takes it */
		base = wp_xasprintf("https://conda.anaconda.org/%s", channel);
	size_t bl = strlen(base);
	while (bl > 0 && base[bl - 1] == '/')
		base[--bl] = 0;
	for (size_t i = 0; i < n; i++)
		push(s, wp_xasprintf("%s/%s/repodata.json", base, subdirs[i]));
	free(base);
}

void wp_sources_release(struct wp_sources *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->urls[i]);
	free(s->urls);
	s->urls = NULL;
	s->n = s->cap = 0;
}

char *wp_default_indexes(const char *const *envp, struct wp_strlist *out, bool conda)
{
	const char *e = wp_envp_get(envp, conda ? "WHEELPICK_CHANNEL" : "WHEELPICK_INDEX");
	if (e && *e) {
		/* split a private copy; the pushed strings point into it */
		char *copy = wp_xstrdup(e), *save = NULL;
		for (char *t = strtok_r(copy, " \t\n,", &save); t;
		     t = strtok_r(NULL, " \t\n,", &save))
			wp_strlist_push(out, t);
		if (out->n)
			return copy;
		free(copy);
	}
	wp_strlist_push(out, conda ? WP_CONDA_DEFAULT_CHANNEL : WP_PYTORCH_FINDLINKS);
	return NULL;
}

static void add_roots(const struct wp_strlist *indexes, struct wp_sources *roots)
{
	for (size_t i = 0; i < indexes->n; i++) {
		char *u = as_index_url(roots->creds, indexes->v[i]);
		if (wp_sources_is_root(u))
			push(roots, u);
		else
			free(u);
	}
}

void wp_sources_dependency_roots(const char *const *envp, const struct wp_strlist *indexes,
				 struct wp_sources *roots)
{
	if (indexes && indexes->n) {
		add_roots(indexes, roots);
		return;
	}
	/* no --index: the roots among $WHEELPICK_INDEX serve dependencies exactly as --index
	 * does */
	struct wp_strlist env = { 0 };
	char *block = wp_default_indexes(envp, &env, false);
	if (block)
		add_roots(&env, roots);
	else
		wp_sources_add_index(roots, WP_PYTORCH_ROOT);
	wp_strlist_release(&env);
	free(block);
}

static bool is_remote(const char *url)
{
	return !strncmp(url, "http://", 7) || !strncmp(url, "https://", 8);
}

/* The libraries a crawl of these URLs uses: libcurl for the network, libarchive for compressed
 * repodata, libcrypto for content hashes. libxml2 is not among them: index/html.c reads a
 * well-formed anchor list itself and asks for libxml2 (wp_lazy_require, an error and never an
 * abort when it is missing) only for a page it leaves to it; loading libxml2 and ICU for every
 * crawl cost about 8 ms of CPU, a fifth of crawling the 2021 page. */
static int require_for(const char *const *urls, size_t n, struct wp_err *err)
{
	unsigned need = WP_LIB_CRYPTO;
	for (size_t i = 0; i < n; i++) {
		if (is_remote(urls[i]))
			need |= WP_LIB_CURL;
		if (wp_crawl_is_repodata(urls[i]))
			need |= WP_LIB_ARCHIVE;
	}
	return wp_lazy_require(need, err);
}

/* Repodata downloads go next to the cache, not to a small /tmp. NULL when it cannot be made. */
static char *crawl_tmp_dir(const struct wp_session *s)
{
	struct wp_err e = WP_ERR_INIT;
	if (!s->cache_dir)
		return NULL;
	char *dir = wp_xasprintf("%s/tmp", s->cache_dir);
	if (wp_mkdir_p(dir, 0755, &e) == 0)
		return dir;
	free(dir);
	return NULL;
}

/* What a crawl did to each source, said through the session: one line per source at
 * WP_SAY_INFO; failures after the first at WP_SAY_ERROR (the first is returned, for the caller
 * to report). quiet: only debug lines, and a page that is not there (404) is an answer, not a
 * failure. */
static int say_report(const struct wp_session *s, const struct wp_crawl_report *rep, bool quiet,
		      struct wp_err *err)
{
	bool first_failure = true;
	int rc = 0;
	for (size_t i = 0; i < rep->n; i++) {
		const struct wp_crawl_source *c = &rep->v[i];
		if (c->rc && quiet && c->not_found) {
			wp_say(s, WP_SAY_DEBUG, "no such page: %s", c->url);
			continue;
		}
		if (c->rc) {
			/* the first failure is the job's error, which the caller reports */
			if (!first_failure)
				wp_say(s, WP_SAY_ERROR, "%s", c->error);
			else
				rc = wp_fail(err, c->rc, "%s", c->error);
			first_failure = false;
			continue;
		}
		if (c->redirected_to)
			wp_say(s, WP_SAY_NOTE,
			       "'%s' redirected to another host, '%s'; its links were read from there",
			       c->url, c->redirected_to);
		if (c->conflicts)
			wp_say(s, WP_SAY_WARN,
			       "'%s': %llu file(s) now have a different sha256 than first seen; a pick that "
			       "needs one stops until you check the source and run 'wheelpick trust'",
			       c->url, c->conflicts);
		/* refused links are a page trying to send us somewhere it may not: said apart from
		 * plain broken links, in words that say what and why */
		if (c->refused)
			wp_say(s, WP_SAY_WARN,
			       "'%s': refused %llu link%s that point%s where a page %s may not send "
			       "wheelpick (%s); never followed",
			       c->url, c->refused, c->refused == 1 ? "" : "s",
			       c->refused == 1 ? "s" : "",
			       !strncmp(c->url, "https:", 6) ? "served over https" :
							       "from the network",
			       !strncmp(c->url, "https:", 6) ?
				       "files on this machine (file:), or plain http:" :
				       "files on this machine (file:)");
		if (c->malformed > c->refused)
			wp_say(s, WP_SAY_WARN, "'%s': skipped %llu malformed link(s)", c->url,
			       c->malformed - c->refused);
		wp_say(s, c->unchanged || quiet ? WP_SAY_DEBUG : WP_SAY_INFO, "%s %s",
		       c->unchanged ? "unchanged" : "updated", c->url);
		if (!c->unchanged)
			wp_say(s, WP_SAY_DEBUG, "%s: %s: %llu files, %llu other links skipped",
			       c->url, wp_source_kind_name(c->kind), c->files, c->skipped);
	}
	return rc;
}

int wp_sources_crawl(const struct wp_session *s, struct wp_catalog *cat,
		     const struct wp_sources *src, const char *const *projects, size_t n_projects,
		     bool force, long max_age_s, struct wp_err *err)
{
	struct wp_crawl_report rep;
	char *tmpdir = crawl_tmp_dir(s);
	struct wp_crawl_opts o = {
		.projects = projects,
		.n_projects = n_projects,
		.force = force,
		.max_age_s = max_age_s,
		.tmp_dir = tmpdir,
		.envp = s->envp,
		.net = s->net,
		.max_page_bytes = s->max_page_bytes,
		.asks = s->asks,
	};
	struct wp_err ce = WP_ERR_INIT;
	/* a source read recently enough is not read now: nothing to load for it */
	const char **stale = wp_xcalloc(src->n ? src->n : 1, sizeof(*stale));
	size_t ns = 0;
	for (size_t i = 0; i < src->n; i++)
		if (force || !wp_crawl_is_fresh(cat, src->urls[i], max_age_s))
			stale[ns++] = src->urls[i];
	int rc = ns ? require_for(stale, ns, err) : 0;
	free(stale);
	if (rc) {
		free(tmpdir);
		return rc;
	}
	wp_crawl(cat, (const char *const *)src->urls, src->n, &o, &rep, &ce);
	rc = say_report(s, &rep, false, err);
	wp_crawl_report_release(&rep);
	free(tmpdir);
	return rc;
}

static int kind_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	*(enum wp_source_kind *)ctx = r->type;
	return 0;
}

/* The kind the catalog knows url as (WP_SOURCE_UNKNOWN when it does not). */
static enum wp_source_kind known_kind(struct wp_catalog *cat, const char *url)
{
	struct wp_err e = WP_ERR_INIT;
	enum wp_source_kind kind = WP_SOURCE_UNKNOWN;
	bool found = false;
	if (wp_catalog_source_get(cat, url, kind_fn, &kind, &found, &e) < 0 || !found)
		return WP_SOURCE_UNKNOWN;
	return kind;
}

/* The projects reqs name, PEP 503 normalised (owned). */
static void req_names(const struct wp_reqs *reqs, struct wp_sources *names)
{
	for (size_t i = 0; reqs && i < reqs->n; i++)
		if (reqs->v[i].ok) /* else the solver says what is wrong with it */
			push(names, wp_xstrdup(reqs->v[i].project));
}

/* Does url end in "/<name>/" for one of names (a project's page, not a root)? */
static bool names_page(const char *url, const struct wp_sources *names)
{
	size_t n = strlen(url);
	if (n < 2 || url[n - 1] != '/')
		return false;
	const char *start = url + n - 1;
	while (start > url && start[-1] != '/')
		start--;
	struct wp_buf b = WP_BUF_INIT;
	wp_project_name_normalize(start, (size_t)(url + n - 1 - start), &b);
	bool found = false;
	for (size_t i = 0; i < names->n && !found; i++)
		found = !strcmp(b.data ? b.data : "", names->urls[i]);
	wp_buf_free(&b);
	return found;
}

int wp_sources_crawl_given(const struct wp_session *s, struct wp_catalog *cat,
			   const struct wp_sources *src, const struct wp_reqs *reqs, bool force,
			   long max_age_s, bool first_index, struct wp_err *err)
{
	struct wp_sources names = { 0 }, pages = { 0 }, projects = { 0 };
	struct wp_sources roots = { 0 };
	int rc = 0;
	req_names(reqs, &names);
	for (size_t i = 0; i < src->n; i++) {
		const char *u = src->urls[i];
		enum wp_source_kind kind = known_kind(cat, u);
		/* a URL read before as a page (a project page given as --index) stays one */
		if (!wp_sources_is_root(u) ||
		    (kind != WP_SOURCE_UNKNOWN && kind != WP_SOURCE_ROOT) || !names.n) {
			push(&pages, wp_xstrdup(u));
			continue;
		}
		push(&roots, wp_xstrdup(u));
		for (size_t k = 0; k < names.n; k++)
			push(&projects, wp_xasprintf("%s%s/", u, names.urls[k]));
	}
	if (projects.n) {
		/* pip's way: ROOT/<name>/ for each project asked for, never the root page itself;
		 * with uv's first-index, root by root, each asked only for what the ones before it
		 * lack */
		char *tmpdir = crawl_tmp_dir(s);
		struct wp_crawl_opts o = { .force = force,
					   .max_age_s = max_age_s,
					   .tmp_dir = tmpdir,
					   .envp = s->envp,
					   .net = s->net,
					   .max_page_bytes = s->max_page_bytes,
					   .asks = s->asks };
		bool *found = wp_xcalloc(names.n ? names.n : 1, sizeof(*found));
		bool *asked = wp_xcalloc(roots.n ? roots.n : 1, sizeof(*asked));
		bool *has = wp_xcalloc(roots.n ? roots.n : 1, sizeof(*has));
		size_t rounds = first_index ? roots.n : 1;
		for (size_t round = 0; round < rounds && !rc; round++) {
			size_t r0 = first_index ? round : 0, r1 = first_index ? round + 1 : roots.n;
			struct wp_sources batch = { 0 };
			for (size_t r = r0; r < r1; r++)
				for (size_t k = 0; k < names.n; k++)
					if (!found[k]) {
						push(&batch, wp_xasprintf("%s%s/", roots.urls[r],
									  names.urls[k]));
						asked[r] = true;
					}
			if (!batch.n)
				break;
			struct wp_crawl_report rep;
			struct wp_err ce = WP_ERR_INIT;
			if (!(rc = require_for((const char *const *)batch.urls, batch.n, err))) {
				wp_crawl(cat, (const char *const *)batch.urls, batch.n, &o, &rep,
					 &ce);
				rc = say_report(s, &rep, true, err);
				for (size_t i = 0; i < rep.n; i++)
					for (size_t r = r0; r < r1; r++) {
						size_t rl = strlen(roots.urls[r]);
						if (strncmp(rep.v[i].url, roots.urls[r], rl) != 0 ||
						    rep.v[i].not_found)
							continue;
						has[r] = true;
						for (size_t k = 0;
						     first_index && !rep.v[i].rc && k < names.n;
						     k++)
							if (!strcmp(rep.v[i].url + rl,
								    names.urls[k]) ||
							    (!strncmp(rep.v[i].url + rl,
								      names.urls[k],
								      strlen(names.urls[k])) &&
							     !strcmp(rep.v[i].url + rl +
									     strlen(names.urls[k]),
								     "/")))
								found[k] = true;
					}
				wp_crawl_report_release(&rep);
			}
			wp_sources_release(&batch);
		}
		/* a root that has none of them and was never read as a root may be a project page
		 * given as --index (https://host/simple/torch/, for torch): read it as one. Any
		 * other root without them has not got them: its own page is never read for that */
		for (size_t r = 0; r < roots.n; r++) {
			bool none = asked[r] && !has[r] && names_page(roots.urls[r], &names);
			if (none && known_kind(cat, roots.urls[r]) != WP_SOURCE_ROOT)
				push(&pages, wp_xstrdup(roots.urls[r]));
		}
		free(found);
		free(asked);
		free(has);
		free(tmpdir);
	}
	if (pages.n) {
		/* the pages are read even when a root failed: the first failure is the answer */
		struct wp_err pe = WP_ERR_INIT;
		int prc = wp_sources_crawl(s, cat, &pages, (const char *const *)names.urls, names.n,
					   force, max_age_s, rc ? &pe : err);
		if (!rc)
			rc = prc;
		else if (prc)
			wp_say(s, WP_SAY_ERROR, "%s", pe.msg);
	}
	wp_sources_release(&names);
	wp_sources_release(&pages);
	wp_sources_release(&projects);
	wp_sources_release(&roots);
	return rc;
}

/* What the sharded read of one subdir did, in a line a user reads. */
static void say_shards(const struct wp_session *s, const struct wp_shard_subdir *d)
{
	if (d->conflicts)
		wp_say(s, WP_SAY_WARN,
		       "'%s': %llu file(s) now have a different sha256 than first seen; they will not be "
		       "picked until you check the source and run 'wheelpick trust'",
		       d->url, d->conflicts);
	if (d->malformed || d->ix.malformed)
		wp_say(s, WP_SAY_WARN,
		       "'%s': skipped %llu malformed record(s) or shard index entries", d->url,
		       d->malformed + d->ix.malformed);
	if (d->fetched)
		wp_say(s, WP_SAY_INFO,
		       "updated %s (sharded: %llu shard%s read, %llu records; %llu unchanged)",
		       d->url, d->fetched, d->fetched == 1 ? "" : "s", d->records, d->unchanged);
	else
		wp_say(s, WP_SAY_DEBUG, "unchanged %s (sharded: %llu shards as last read)", d->url,
		       d->unchanged);
}

int wp_sources_crawl_conda(const struct wp_session *s, struct wp_catalog *cat,
			   const struct wp_sources *src, const char *const *names, size_t n,
			   const char *const *channels, size_t nch, bool force, long max_age_s,
			   struct wp_err *err)
{
	struct wp_shard_crawl sc = { .channels = channels,
				     .nch = nch,
				     .force = force,
				     .max_age_s = max_age_s,
				     .net = s->net };
	struct wp_sources whole = { 0 };
	struct wp_err we = WP_ERR_INIT;
	int rc = 0, wrc = 0;
	if (!n || !src->n)
		return wp_sources_crawl(s, cat, src, NULL, 0, force, max_age_s, err);
	if ((rc = require_for((const char *const *)src->urls, src->n, err)))
		return rc;
	for (size_t i = 0; i < src->n; i++) {
		/* a repodata file given by name (.zst, .bz2) is read as it is */
		if (wp_cstr_endswith(src->urls[i], "/repodata.json"))
			wp_shard_crawl_add(&sc, src->urls[i]);
		else
			wp_sources_add_index(&whole, src->urls[i]);
	}
	wp_shard_crawl_probe(cat, &sc);
	bool any = false;
	for (size_t i = 0; i < sc.n; i++) {
		struct wp_shard_subdir *d = &sc.v[i];
		if (d->rc) {
			wp_say(s, WP_SAY_WARN, "%s; reading its repodata.json instead", d->error);
			free(d->error);
			d->error = NULL;
			d->rc = 0;
		}
		if (d->sharded) {
			any = true;
			continue;
		}
		char *u = wp_xasprintf("%s/repodata.json", d->url);
		wp_sources_add_index(&whole, u);
		free(u);
	}
	/* the whole ones first: their records' depends join the closure the shards are read for */
	if (whole.n)
		wrc = wp_sources_crawl(s, cat, &whole, NULL, 0, force, max_age_s, &we);
	if (any) {
		rc = wp_shard_crawl_run(cat, &sc, names, n, err);
		bool first = true;
		for (size_t i = 0; i < sc.n; i++) {
			const struct wp_shard_subdir *d = &sc.v[i];
			if (!d->sharded)
				continue;
			if (d->rc) {
				/* the first failure is the job's error, which the caller reports */
				if (!first)
					wp_say(s, WP_SAY_ERROR, "%s", d->error);
				first = false;
				continue;
			}
			say_shards(s, d);
		}
		wp_say(s, WP_SAY_DEBUG, "sharded channels: a closure of %zu package names",
		       sc.names);
		/* a subdir whose index went away since it was read: its repodata.json, whole */
		struct wp_sources lost = { 0 };
		for (size_t i = 0; i < sc.n; i++)
			if (sc.v[i].lost) {
				char *u = wp_xasprintf("%s/repodata.json", sc.v[i].url);
				wp_say(s, WP_SAY_NOTE,
				       "'%s' has no shard index any more; reading its repodata.json",
				       sc.v[i].url);
				wp_sources_add_index(&lost, u);
				free(u);
			}
		if (lost.n && !wrc)
			wrc = wp_sources_crawl(s, cat, &lost, NULL, 0, force, 0, &we);
		wp_sources_release(&lost);
	}
	if (wrc) {
		if (rc)
			wp_say(s, WP_SAY_ERROR, "%s", we.msg);
		else
			rc = wp_fail(err, wrc, "%s", we.msg);
	}
	wp_shard_crawl_release(&sc);
	wp_sources_release(&whole);
	return rc;
}

/* One round of project pages: each root given (all of them, or the one asked now) for each name
 * not yet found. found[k] is set when a root answered with name k's page. */
static int crawl_round(const struct wp_session *s, struct wp_catalog *cat,
		       const struct wp_sources *roots, size_t r0, size_t r1,
		       const char *const *projects, size_t n, bool *found, long max_age_s,
		       struct wp_err *err)
{
	struct wp_sources src = { 0 };
	struct wp_crawl_report rep;
	struct wp_crawl_opts o = { .max_age_s = max_age_s,
				   .envp = s->envp,
				   .net = s->net,
				   .max_page_bytes = s->max_page_bytes,
				   .asks = s->asks };
	struct wp_err ce = WP_ERR_INIT;
	int rc = 0;
	/* every page of every project in one crawl: its fetches run in parallel */
	for (size_t p = 0; p < n; p++)
		for (size_t i = r0; i < r1 && !found[p]; i++) {
			char *url = wp_xasprintf("%s%s/", roots->urls[i], projects[p]);
			wp_sources_add_index(&src, url);
			free(url);
		}
	if (!src.n)
		return 0;
	if ((rc = require_for((const char *const *)src.urls, src.n, err))) {
		wp_sources_release(&src);
		return rc;
	}
	wp_crawl(cat, (const char *const *)src.urls, src.n, &o, &rep, &ce);
	for (size_t i = 0; i < rep.n; i++) {
		const struct wp_crawl_source *c = &rep.v[i];
		if (!c->rc) {
			wp_say(s, WP_SAY_DEBUG, "%s %s", c->unchanged ? "unchanged" : "read",
			       c->url);
			for (size_t p = 0; p < n; p++) {
				size_t pl = strlen(projects[p]), ul = strlen(c->url);
				if (ul > pl + 2 && c->url[ul - 1] == '/' &&
				    c->url[ul - pl - 2] == '/' &&
				    !strncmp(c->url + ul - pl - 1, projects[p], pl))
					found[p] = true;
			}
			continue;
		}
		if (c->not_found) {
			wp_say(s, WP_SAY_DEBUG, "no such page: %s", c->url);
			continue;
		}
		if (!rc)
			rc = wp_fail(err, c->rc,
				     "%s; the resolution needs it (retry, or pass --offline to use only what the "
				     "catalog has)",
				     c->error);
		else
			wp_say(s, WP_SAY_ERROR, "%s", c->error);
	}
	wp_crawl_report_release(&rep);
	wp_sources_release(&src);
	return rc;
}

int wp_sources_crawl_projects(const struct wp_session *s, struct wp_catalog *cat,
			      const struct wp_sources *roots, const char *const *projects, size_t n,
			      bool first_index, long max_age_s, struct wp_err *err)
{
	bool *found = wp_xcalloc(n ? n : 1, sizeof(*found));
	int rc = 0;
	if (!first_index) {
		rc = crawl_round(s, cat, roots, 0, roots->n, projects, n, found, max_age_s, err);
	} else {
		/* uv's first-index: the roots in order, each asked only for what the ones before it
		 * lack; a root that is never needed is never asked, and so cannot fail the run */
		for (size_t r = 0; r < roots->n && !rc; r++)
			rc = crawl_round(s, cat, roots, r, r + 1, projects, n, found, max_age_s,
					 err);
	}
	free(found);
	return rc;
}

int wp_update(const struct wp_session *s, const struct wp_update_job *job, struct wp_err *err)
{
	static const char *const default_subdirs[] = { "linux-64", "noarch" };
	struct wp_sources src = { .creds = s->creds };
	struct wp_catalog cat = { 0 };
	bool conda = job->conda || job->channel.n;
	const char *const *subdirs = job->subdir.n ? job->subdir.v : default_subdirs;
	size_t nsub = job->subdir.n ? job->subdir.n : 2;
	int rc;
	for (size_t i = 0; i < job->index.n; i++) {
		if (conda)
			wp_sources_add_channel(&src, job->index.v[i], subdirs, nsub);
		else
			wp_sources_add_index(&src, job->index.v[i]);
	}
	for (size_t i = 0; i < job->channel.n; i++)
		wp_sources_add_channel(&src, job->channel.v[i], subdirs, nsub);
	if (!src.n) {
		struct wp_strlist def = { 0 }, chans = { 0 };
		char *def_block = NULL, *chan_block = NULL;
		const char *env = wp_session_env(s, "WHEELPICK_INDEX");
		bool env_set = env && *env;
		if (!conda) {
			def_block = wp_default_indexes(s->envp, &def, false);
			for (size_t i = 0; i < def.n; i++)
				wp_sources_add_index(&src, def.v[i]);
			if (!env_set)
				wp_sources_add_index(&src, WP_PYTORCH_ROOT);
		} else {
			chan_block = wp_default_indexes(s->envp, &chans, true);
			for (size_t i = 0; i < chans.n; i++)
				wp_sources_add_channel(&src, chans.v[i], subdirs, nsub);
		}
		wp_strlist_release(&def);
		wp_strlist_release(&chans);
		free(def_block);
		free(chan_block);
	}
	if ((rc = wp_catalog_open_as(&cat, s->catalog_path, s->asks, err)))
		goto out;
	if (conda && job->project.n) {
		/* the channels' base URLs: whose records' depends make the closure */
		char **bases = wp_xcalloc(src.n ? src.n : 1, sizeof(*bases));
		for (size_t i = 0; i < src.n; i++) {
			bases[i] = wp_xstrdup(src.urls[i]);
			for (int cut = 0; cut < 2; cut++) {
				char *slash = strrchr(bases[i], '/');
				if (slash)
					*slash = 0;
			}
		}
		rc = wp_sources_crawl_conda(s, &cat, &src, job->project.v, job->project.n,
					    (const char *const *)bases, src.n, job->force, 0, err);
		for (size_t i = 0; i < src.n; i++)
			free(bases[i]);
		free(bases);
	} else {
		rc = wp_sources_crawl(s, &cat, &src, job->project.n ? job->project.v : NULL,
				      job->project.n, job->force, 0, err);
	}
out:
	wp_catalog_close(&cat);
	wp_sources_release(&src);
	return rc;
}
