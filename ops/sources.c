/* ops/sources.c: source lists (indexes, channels, defaults) and crawling them with a report. */
#include "ops/sources.h"
#include "base/fs.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "ops/crawl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void push(struct wp_sources *s, char *url)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->urls[i], url)) {
			free(url);
			return;
		}
	s->urls = wp_xrealloc(s->urls, (s->n + 1) * sizeof(*s->urls));
	s->urls[s->n++] = url;
}

static bool has_scheme(const char *u)
{
	return !strncmp(u, "http://", 7) || !strncmp(u, "https://", 8) || !strncmp(u, "file://", 7);
}

/* A local path (pip's --find-links DIR habit) becomes an absolute file:// URL. */
static char *as_url(const char *u)
{
	if (has_scheme(u) || strstr(u, "://"))
		return wp_xstrdup(u);
	if (u[0] == '/')
		return wp_xasprintf("file://%s", u);
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return wp_xasprintf("file://%s", u);
	return wp_xasprintf("file://%s/%s", cwd, u);
}

void wp_sources_add_index(struct wp_sources *s, const char *url)
{
	push(s, as_url(url));
}

void wp_sources_add_channel(struct wp_sources *s, const char *channel, const char *const *subdirs, size_t n)
{
	char *base;
	if (wp_crawl_is_repodata(channel)) {
		push(s, as_url(channel));
		return;
	}
	if (has_scheme(channel) || channel[0] == '/' || channel[0] == '.')
		base = as_url(channel);
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
	s->n = 0;
}

char *wp_default_indexes(struct wp_strlist *out, bool conda)
{
	const char *e = getenv(conda ? "WHEELPICK_CHANNEL" : "WHEELPICK_INDEX");
	if (e && *e) {
		/* split a private copy; the pushed strings point into it */
		char *copy = wp_xstrdup(e), *save = NULL;
		for (char *t = strtok_r(copy, " \t\n,", &save); t; t = strtok_r(NULL, " \t\n,", &save))
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
		size_t n = strlen(indexes->v[i]);
		if (n && indexes->v[i][n - 1] == '/')
			wp_sources_add_index(roots, indexes->v[i]);
	}
}

void wp_sources_dependency_roots(const struct wp_strlist *indexes, struct wp_sources *roots)
{
	if (indexes && indexes->n) {
		add_roots(indexes, roots);
		return;
	}
	/* no --index: the roots among $WHEELPICK_INDEX serve dependencies exactly as --index does */
	struct wp_strlist env = { 0 };
	char *block = wp_default_indexes(&env, false);
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

/* The libraries a crawl of these URLs uses: libcurl for the network, libxml2 for pages,
 * libarchive for compressed repodata, libcrypto for content hashes. */
static int require_for(const char *const *urls, size_t n, struct wp_err *err)
{
	unsigned need = WP_LIB_CRYPTO;
	for (size_t i = 0; i < n; i++) {
		if (is_remote(urls[i]))
			need |= WP_LIB_CURL;
		need |= wp_crawl_is_repodata(urls[i]) ? WP_LIB_ARCHIVE : WP_LIB_XML;
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

int wp_sources_crawl(const struct wp_session *s, struct wp_catalog *cat, const struct wp_sources *src,
		     const char *const *projects, size_t n_projects, bool force, long max_age_s, struct wp_err *err)
{
	struct wp_crawl_report rep;
	char *tmpdir = crawl_tmp_dir(s);
	struct wp_crawl_opts o = {
		.projects = projects, .n_projects = n_projects, .force = force, .max_age_s = max_age_s, .tmp_dir = tmpdir,
	};
	int rc = require_for((const char *const *)src->urls, src->n, err);
	if (rc) {
		free(tmpdir);
		return rc;
	}
	rc = wp_crawl(cat, (const char *const *)src->urls, src->n, &o, &rep, err);
	bool first_failure = true;
	for (size_t i = 0; i < rep.n; i++) {
		const struct wp_crawl_source *c = &rep.v[i];
		if (c->rc) {
			/* the first failure is the job's error, which the caller reports */
			if (!first_failure)
				wp_say(s, WP_SAY_ERROR, "%s", c->error);
			first_failure = false;
			continue;
		}
		if (c->redirected_to)
			wp_say(s, WP_SAY_NOTE, "'%s' redirected to another host, '%s'; its links were read from there", c->url,
			       c->redirected_to);
		if (c->conflicts)
			wp_say(s, WP_SAY_WARN, "'%s': %llu file(s) now have a different sha256 than first seen; they will not be "
					       "picked until you check the source and run 'wheelpick trust'", c->url, c->conflicts);
		if (c->malformed)
			wp_say(s, WP_SAY_WARN, "'%s': skipped %llu malformed link(s)", c->url, c->malformed);
		wp_say(s, c->unchanged ? WP_SAY_DEBUG : WP_SAY_INFO, "%s %s", c->unchanged ? "unchanged" : "updated", c->url);
		if (!c->unchanged)
			wp_say(s, WP_SAY_DEBUG, "%s: %s: %llu files, %llu other links skipped", c->url, c->kind, c->files,
			       c->skipped);
	}
	wp_crawl_report_release(&rep);
	free(tmpdir);
	return rc;
}

int wp_sources_crawl_projects(const struct wp_session *s, struct wp_catalog *cat, const struct wp_sources *roots,
			      const char *const *projects, size_t n, struct wp_err *err)
{
	struct wp_sources src = { 0 };
	struct wp_crawl_report rep;
	struct wp_crawl_opts o = { .max_age_s = s->max_age_s };
	struct wp_err ce = WP_ERR_INIT;
	int rc = 0;
	/* every page of every project in one crawl: its fetches run in parallel */
	for (size_t p = 0; p < n; p++)
		for (size_t i = 0; i < roots->n; i++) {
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
			wp_say(s, WP_SAY_DEBUG, "%s %s", c->unchanged ? "unchanged" : "read", c->url);
			continue;
		}
		if (c->not_found) {
			wp_say(s, WP_SAY_DEBUG, "no such page: %s", c->url);
			continue;
		}
		if (!rc)
			rc = wp_fail(err, c->rc, "%s; the resolution needs it (retry, or pass --offline to use only what the "
						 "catalog has)", c->error);
		else
			wp_say(s, WP_SAY_ERROR, "%s", c->error);
	}
	wp_crawl_report_release(&rep);
	wp_sources_release(&src);
	return rc;
}

int wp_update(const struct wp_session *s, const struct wp_update_job *job, struct wp_err *err)
{
	static const char *const default_subdirs[] = { "linux-64", "noarch" };
	struct wp_sources src = { 0 };
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
		const char *env = getenv("WHEELPICK_INDEX");
		bool env_set = env && *env;
		if (!conda) {
			def_block = wp_default_indexes(&def, false);
			for (size_t i = 0; i < def.n; i++)
				wp_sources_add_index(&src, def.v[i]);
			if (!env_set)
				wp_sources_add_index(&src, WP_PYTORCH_ROOT);
		} else {
			chan_block = wp_default_indexes(&chans, true);
			for (size_t i = 0; i < chans.n; i++)
				wp_sources_add_channel(&src, chans.v[i], subdirs, nsub);
		}
		wp_strlist_release(&def);
		wp_strlist_release(&chans);
		free(def_block);
		free(chan_block);
	}
	if (!(rc = wp_catalog_open(&cat, s->catalog_path, err)))
		rc = wp_sources_crawl(s, &cat, &src, job->project.n ? job->project.v : NULL, job->project.n, job->force, 0, err);
	wp_catalog_close(&cat);
	wp_sources_release(&src);
	return rc;
}
