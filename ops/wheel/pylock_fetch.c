/* ops/wheel/pylock_fetch.c: a pick plan from a pylock.toml (see pylock_fetch.h). */
#include "ops/wheel/pylock_fetch.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/url.h"
#include "cache/catalog.h"
#include "cache/store.h"
#include "index/localsrc.h"
#include "index/pylock.h"
#include "ops/core/targets.h"
#include "resolver/fileinfo.h"
#include "resolver/marker.h"
#include "resolver/tags.h"
#include "resolver/wheelname.h"

static const char *sha256_of(const struct wp_pylock_file *f)
{
	for (size_t i = 0; i < f->nhashes; i++)
		if (!strcasecmp(f->hashes[i].algo, "sha256"))
			return f->hashes[i].hex;
	return NULL;
}

static int refuse(const char *lock, const struct wp_pylock_pick *pk, struct wp_err *err)
{
	const struct wp_pylock_package *p = pk->pkg;
	const char *what = pk->source == WP_PYLOCK_DIRECTORY ? "a local directory" :
							       "a VCS checkout";
	const char *where = pk->source == WP_PYLOCK_DIRECTORY ?
				    p->directory->path :
				    (p->vcs->url ? p->vcs->url : p->vcs->path);
	return wp_fail(err, -WPE_NOMATCH,
		       "'%s': packages[%zu] '%s' comes from %s (%s) for this target; wheelpick fetches "
		       "files proven by sha256 and builds nothing: build a wheel and lock that, or install this one with pip",
		       lock, p->index, p->name, what, where ? where : "?");
}

/* The file name of an sdist or archive: the lock's name, else the last part of its path or URL
 * (percent-decoded), which must be a plain file name. NULL when there is none. */
static char *source_file_name(const struct wp_pylock_file *f)
{
	if (f->name)
		return wp_url_filename_ok(f->name) ? wp_xstrdup(f->name) : NULL;
	const char *from = f->path && f->path[0] ? f->path : f->url;
	if (!from)
		return NULL;
	size_t n = strcspn(from, "?#");
	const char *slash = memrchr(from, '/', n);
	const char *base = slash ? slash + 1 : from;
	char *name = NULL;
	struct wp_err e = WP_ERR_INIT;
	if (f->path && f->path[0])
		name = wp_xstrndup(base, n - (size_t)(base - from));
	else if (wp_url_decode(base, n - (size_t)(base - from), &name, &e) < 0)
		return NULL;
	if (!wp_url_filename_ok(name)) {
		free(name);
		return NULL;
	}
	return name;
}

/* One plan file for pick pk of target t: a wheel, or an sdist or archive carried as a file
 * (proven by its sha256 like any other; built by nobody here). */
static int add_file(struct wp_plan *plan, size_t *cap, const char *lock, const char *lock_dir,
		    const struct wp_pylock_pick *pk, size_t t, struct wp_err *err)
{
	const struct wp_pylock_file *f = pk->file;
	const char *sha = sha256_of(f);
	const char *what = wp_pylock_source_name(pk->source);
	bool wheel = pk->source == WP_PYLOCK_WHEEL;
	struct wp_wheelname w = { 0 };
	char *fname = wheel ? wp_xstrdup(f->name) : source_file_name(f);
	if (!fname)
		return wp_fail(err, -WPE_PARSE,
			       "'%s': packages[%zu] '%s': its %s has no file name wheelpick can use",
			       lock, pk->pkg->index, pk->pkg->name, what);
	if (!sha) {
		int rc = wp_fail(err, -WPE_PARSE,
				 "'%s': packages[%zu] '%s': %s '%s' has no sha256 among its hashes; "
				 "wheelpick proves every file by sha256",
				 lock, pk->pkg->index, pk->pkg->name, what, fname);
		free(fname);
		return rc;
	}
	if (wheel && wp_wheelname_parse(f->name, &w, err) < 0) {
		free(fname);
		return -WPE_PARSE; /* the reader checked it */
	}
	char *url;
	if (f->path && f->path[0]) {
		char *joined = f->path[0] == '/' ? wp_xstrdup(f->path) :
						   wp_xasprintf("%s/%s", lock_dir, f->path);
		char *abs = wp_os_realpath(joined);
		if (!abs) {
			int rc = wp_fail(err, -WPE_IO, "'%s': packages[%zu] '%s': %s path '%s': %s",
					 lock, pk->pkg->index, pk->pkg->name, what, joined,
					 strerror(errno));
			free(joined);
			free(fname);
			if (wheel)
				wp_wheelname_release(&w);
			return rc;
		}
		url = wp_local_url(abs);
		free(abs);
		free(joined);
	} else {
		url = wp_xstrdup(f->url);
	}
	if (plan->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		plan->files = wp_xrealloc(plan->files, *cap * sizeof(*plan->files));
	}
	struct wp_plan_file *pf = &plan->files[plan->n++];
	memset(pf, 0, sizeof(*pf));
	pf->project = wp_xstrdup(pk->pkg->name);
	pf->version = wp_xstrdup(pk->pkg->version ? pk->pkg->version : wheel ? w.version : "");
	pf->filename = fname;
	pf->url = url;
	pf->where = wp_xstrdup(fname);
	pf->archive = pk->source == WP_PYLOCK_ARCHIVE;
	pf->sha256 = wp_xstrdup(sha);
	pf->size = f->size;
	pf->upload_time = f->upload_time ? wp_xstrdup(f->upload_time) : NULL;
	pf->reason = wheel ? wp_xasprintf("named by %s (packages[%zu])", lock, pk->pkg->index) :
			     wp_xasprintf("named by %s (packages[%zu]) as its %s, carried as a file: wheelpick builds "
					  "nothing",
					  lock, pk->pkg->index, what);
	pf->target = t;
	struct wp_fileinfo fi;
	if (wheel && wp_fileinfo_from_name(f->name, NULL, &fi, NULL) == 0) {
		pf->tags = fi.tags ? wp_xstrdup(fi.tags) : NULL;
		pf->variant = fi.variant[0] ? wp_xstrdup(fi.variant) : NULL;
		wp_fileinfo_release(&fi);
	}
	wp_plan_file_type(pf, wheel ? &w : NULL, NULL); /* the name the reader checked, parsed once
							   above */
	return 0;
}

int wp_pylock_plan(const struct wp_session *s, const struct wp_pick_job *job, const char *lock_path,
		   const char *const *extras, size_t nextras, const char *const *groups,
		   size_t ngroups, struct wp_pick_run *run, struct wp_err *err)
{
	struct wp_pylock lk;
	int rc;

	if (job->reqs.n)
		return wp_fail(err, -WPE_USAGE,
			       "--lock picks what '%s' names; give no packages or -r files with it",
			       lock_path);
	if ((rc = wp_pylock_load(&lk, lock_path, err)) < 0)
		return rc;
	for (size_t i = 0; i < nextras; i++) {
		bool known = false;
		for (size_t k = 0; k < lk.nextras && !known; k++)
			known = !strcmp(lk.extras[k], extras[i]);
		if (!known)
			wp_say(s, WP_SAY_WARN,
			       "%s lists no extra '%s' (it lists %zu); its markers decide what it adds",
			       lock_path, extras[i], lk.nextras);
	}
	if (lk.newer_minor)
		wp_say(s, WP_SAY_WARN,
		       "%s: lock-version %s is newer than 1.0, which wheelpick knows; read as 1.0",
		       lock_path, lk.lock_version);
	char *slash = strrchr(lock_path, '/');
	char *lock_dir = slash ? wp_xstrndup(lock_path,
					     (size_t)(slash - lock_path + (slash == lock_path))) :
				 wp_xstrdup(".");

	if ((rc = wp_targets_build(s, &job->targets, &run->targets, &run->n_targets, err)))
		goto out;
	if ((rc = wp_catalog_open_as(&run->cat, s->catalog_path, s->asks, err)))
		goto out;
	run->files_root = wp_xasprintf("%s/files", s->cache_dir);
	if (!job->dry_run) {
		if ((rc = wp_store_init(&run->store, run->files_root, err)))
			goto out;
		run->store.catalog = &run->cat;
	}
	struct wp_plan *plan = &run->plan;
	size_t cap = 0;
	plan->targets = wp_xcalloc(run->n_targets, sizeof(*plan->targets));
	plan->n_targets = run->n_targets;
	memcpy(plan->targets, run->targets, run->n_targets * sizeof(*plan->targets));
	for (size_t t = 0; t < run->n_targets && !rc; t++) {
		struct wp_pylock_pick *picks = NULL;
		size_t n = 0;
		if ((rc = wp_pylock_select_target(&lk, &run->targets[t], extras, nextras, groups,
						  ngroups, &picks, &n, err)) < 0) {
			/* which target, in words: its Python and platform are what a lock's
			 * environments test */
			struct wp_buf tgt = WP_BUF_INIT;
			wp_target_describe(&run->targets[t], &tgt);
			wp_err_prefix(err, "'%s' for target %zu (%s)", lock_path, t + 1,
				      wp_buf_cstr(&tgt));
			wp_buf_free(&tgt);
		}
		for (size_t i = 0; i < n && !rc; i++)
			rc = picks[i].source == WP_PYLOCK_WHEEL ||
					     picks[i].source == WP_PYLOCK_SDIST ||
					     picks[i].source == WP_PYLOCK_ARCHIVE ?
				     add_file(plan, &cap, lock_path, lock_dir, &picks[i], t, err) :
				     refuse(lock_path, &picks[i], err);
		free(picks);
	}
out:
	free(lock_dir);
	wp_pylock_release(&lk);
	return rc;
}
