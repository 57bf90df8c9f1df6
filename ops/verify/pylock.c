/* ops/verify/pylock.c: `wheelpick verify pylock.toml`: the lock as PEP 751 (packaging's
 * Pylock.from_dict) reads it, then every file it names on this disk against its hashes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fs.h"
#include "base/mem.h"
#include "base/str.h"
#include "index/localsrc.h"
#include "index/pylock.h"
#include "ops/verify/common.h"

static void check_file(struct vo_ctx *c, struct vo_hcache *hc, const char *lock, const char *dir,
		       const struct wp_pylock_package *p, const struct wp_pylock_file *f,
		       const char *what)
{
	char *disk = NULL;
	c->rep->links++;
	if (f->path && f->path[0])
		disk = f->path[0] == '/' ? wp_xstrdup(f->path) :
					   wp_xasprintf("%s/%s", dir, f->path);
	else if (!f->url || !wp_local_is_file_url(f->url))
		return; /* named by an http(s) URL: pick --lock fetches and proves it */
	char *where = wp_xasprintf("%s: packages[%zu] %s %s", lock, p->index, p->name, what);
	struct wp_err e = WP_ERR_INIT;
	if (!disk && wp_local_path(f->url, &disk, &e) < 0) {
		/* file://host/x: a file on another machine, which this one cannot check */
		wp_vo_problem_add(c, true, where, "%s", e.msg);
		goto out;
	}
	if (!wp_vo_is_file(disk)) {
		wp_vo_problem_add(c, true, where, "names '%s', which is not there", disk);
		goto out;
	}
	struct vo_hashed *h = wp_vo_hash_of(c, hc, disk);
	if (!h->sha256[0]) {
		wp_vo_problem_add(c, true, where, "cannot read '%s'", disk);
		goto out;
	}
	bool sha_given = false;
	for (size_t i = 0; i < f->nhashes; i++) {
		if (strcasecmp(f->hashes[i].algo, "sha256"))
			continue;
		sha_given = true;
		if (strcasecmp(f->hashes[i].hex, h->sha256))
			wp_vo_problem_add(c, true, where, "'%s' has sha256 %s, the lock says %s",
					  disk, h->sha256, f->hashes[i].hex);
	}
	if (!sha_given)
		wp_vo_problem_add(c, false, where,
				  "the lock gives no sha256 for '%s' (only %s): not checked", disk,
				  f->nhashes ? f->hashes[0].algo : "nothing");
	if (f->size >= 0 && f->size != h->size)
		wp_vo_problem_add(c, true, where, "'%s' is %lld bytes, the lock says %lld", disk,
				  h->size, f->size);
	if (f->name && wp_cstr_endswith(f->name, ".whl") && !h->wheel_checked) {
		h->wheel_checked = true;
		wp_vo_check_wheel(c, disk, f->name);
	}
out:
	free(where);
	free(disk);
}

int wp_vo_verify_pylock(struct vo_ctx *c, const char *path, struct wp_err *err)
{
	struct wp_pylock lk;
	struct vo_hcache hc = { 0 };
	int rc;
	if ((rc = wp_pylock_load(&lk, path, err)) < 0)
		return rc;
	c->rep->pages++;
	if (lk.newer_minor)
		wp_vo_problem_add(c, false, path,
				  "lock-version %s is newer than 1.0, which wheelpick knows",
				  lk.lock_version);
	const char *pbase = wp_path_base(path); /* after a '\\' too on Windows */
	const char *slash = pbase > path ? pbase - 1 : NULL;
	char *dir = slash ? wp_xstrndup(path, (size_t)(slash - path + (slash == path))) :
			    wp_xstrdup(".");
	for (size_t i = 0; i < lk.npackages; i++) {
		const struct wp_pylock_package *p = &lk.packages[i];
		char what[40];
		for (size_t k = 0; k < p->nwheels; k++) {
			snprintf(what, sizeof(what), "wheels[%zu]", k);
			check_file(c, &hc, path, dir, p, &p->wheels[k], what);
		}
		if (p->sdist)
			check_file(c, &hc, path, dir, p, p->sdist, "sdist");
		if (p->archive)
			check_file(c, &hc, path, dir, p, p->archive, "archive");
	}
	free(dir);
	wp_vo_hcache_free(&hc);
	wp_pylock_release(&lk);
	return 0;
}
