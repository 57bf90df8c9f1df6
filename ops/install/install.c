/* ops/install/install.c: `wheelpick install`: sources to wheels (a wheelhouse's requirement file
 * for this interpreter, -r with --find-links, a bundle), every refusal before anything is written,
 * then the wheels staged in parallel (one inflate, hash and write per byte), checked, and committed
 * through the journal (ops/install/journal.c). */
#include "ops/install/install.h"
#include "base/envp.h"
#include "base/fs.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/parallel.h"
#include "base/str.h"
#include "index/localsrc.h"
#include "index/pylock.h"
#include "ops/core/unpack.h"
#include "ops/core/untar.h"
#include "ops/install/internal.h"
#include "resolver/gpucode.h"
#include "resolver/marker.h"
#include "resolver/reqfile.h"
#include "resolver/requirement.h"
#include "resolver/tags.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"
#include "verify/fatbin.h"
#include "verify/archopen.h"
#include "verify/gpufile.h"
#include "verify/hash.h"
#include "base/os/os.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One wheel to install and why. */
struct want {
	char *path, *filename;
	char *sha256; /* hex, when it was hashed against a requirement */
	const char *target; /* what its requirement file was written for (the job's), or NULL */
	bool requested;
};

WP_VEC_OF(wants, struct want);

/* A .whl found in a --find-links folder. */
struct cand {
	char *path;
	struct wp_wheelname wn;
	struct wp_version v; /* wn.version parsed once, when v_ok: every requirement line asks it */
	bool v_ok;
	int prio;
	bool want_hash;              /* the best fit of a requirement: hashed ahead, in parallel */
	char hex[WP_SHA256_HEX_LEN + 1]; /* its sha256 once hashed, "" before */
};

WP_VEC_OF(cands, struct cand);

struct job {
	const struct wp_session *s;
	const struct wp_install_job *in;
	struct wp_ienv env;
	struct wp_tagset tags;
	struct wants wants;
	struct cands cands;
	struct wp_strlist scanned; /* folders already read into cands (owned) */
	struct wp_strlist tmpdirs; /* bundles unpacked (owned) */
	struct wp_strlist targets; /* requirement files' "written by wheelpick for" lines, joined
				      (owned) */
	const char *cur_target;    /* the one of the file being read */
	struct wp_iwheel *w;
	size_t nw;
	struct wp_version py_version; /* env.py.version parsed once (open_wheels), when
					 py_version_ok */
	bool py_version_ok;
	struct wp_ijournal j;
	struct wp_install_report *rep;
};

static bool is_dir(const char *p)
{
	struct wp_os_stat sb;
	return wp_os_stat(p, &sb) == 0 && WP_S_ISDIR(sb.st_mode);
}

static bool is_file(const char *p)
{
	struct wp_os_stat sb;
	return wp_os_stat(p, &sb) == 0 && WP_S_ISREG(sb.st_mode);
}

static void scan_dir(struct job *jb, const char *dir)
{
	for (size_t i = 0; i < jb->scanned.n; i++)
		if (!strcmp(jb->scanned.v[i], dir))
			return;
	wp_strlist_push(&jb->scanned, wp_xstrdup(dir));
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	while (d && (de = wp_os_readdir(d))) {
		if (!wp_cstr_endswith(de->d_name, ".whl"))
			continue;
		struct wp_err e = WP_ERR_INIT;
		struct cand c = { 0 };
		if (wp_wheelname_parse(de->d_name, &c.wn, &e))
			continue;
		c.v_ok = wp_version_parse(&c.v, c.wn.version, strlen(c.wn.version), NULL) == 0;
		c.prio = -1;
		for (size_t t = 0; t < c.wn.n_tags; t++) {
			int p = wp_tagset_priority(&jb->tags, c.wn.tags[t]);
			if (p >= 0 && (c.prio < 0 || p < c.prio))
				c.prio = p;
		}
		c.path = wp_xasprintf("%s/%s", dir, de->d_name);
		wp_vec_push(&jb->cands, c);
	}
	if (d)
		wp_os_closedir(d);
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = *(struct cand *const *)a, *y = *(struct cand *const *)b;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	/* a variant wheel before the plain-name copy pick -d writes beside it for pip */
	if (!x->wn.variant_label != !y->wn.variant_label)
		return x->wn.variant_label ? -1 : 1;
	return strcmp(x->path, y->path);
}

static struct want *add_want(struct job *jb, const char *path, bool requested)
{
	struct want *w = wp_vec_add(&jb->wants);
	w->path = wp_xstrdup(path);
	w->filename = wp_xstrdup(wp_path_base(path));
	w->requested = requested;
	w->target = jb->cur_target;
	return w;
}

/* One requirement line: the best wheel in the folders for this interpreter whose sha256 the line
 * pins. A file that fits but has another hash is tampered with (or the wrong file): exit 4. */
static int resolve_req(struct job *jb, const struct wp_reqfile_req *rq, bool mark_only,
		       struct wp_err *err)
{
	const struct wp_requirement *r = &rq->req.r; /* parsed when the file was read */
	struct wp_err sub = WP_ERR_INIT;
	struct cand **fit = NULL;
	size_t nfit = 0, nany = 0;
	int rc = 0;
	if (!rq->req.ok)
		return wp_fail(err, -WPE_USAGE, "%s: %s", rq->where,
			       rq->req.why ? rq->req.why : "not a requirement");
	if (r->has_marker) {
		bool yes = true;
		if (wp_marker_evaluate(&r->marker, &jb->env.py.markers, &yes, &sub)) {
			rc = wp_fail(err, -WPE_USAGE, "%s: %s", rq->where, sub.msg);
			goto out;
		}
		if (!yes)
			goto out; /* for another machine */
	}
	fit = wp_xmalloc((jb->cands.n ? jb->cands.n : 1) * sizeof(*fit));
	for (size_t i = 0; i < jb->cands.n; i++) {
		struct cand *c = &jb->cands.v[i];
		if (strcmp(c->wn.project, rq->project))
			continue;
		if (!c->v_ok || !wp_specset_contains(&r->spec, &c->v, WP_PRERELEASES_YES))
			continue;
		nany++;
		if (c->prio >= 0)
			fit[nfit++] = c;
	}
	if (!nfit && mark_only)
		goto out; /* said on the real pass */
	if (!nfit) {
		rc = nany ? wp_fail(err, -WPE_NOMATCH,
				    "%s: '%s' has %zu wheel%s here, none for this interpreter "
				    "(%s, %s): nothing was installed",
				    rq->where, rq->text, nany, nany == 1 ? "" : "s",
				    jb->env.py.version, jb->env.py.tag_platform) :
			    wp_fail(err, -WPE_NOMATCH,
				    "%s: no wheel of '%s' in the folders given (%s...): nothing "
				    "was installed",
				    rq->where, rq->text, jb->scanned.n ? jb->scanned.v[0] : "none");
		goto out;
	}
	if (nfit) /* qsort's array may not be NULL, even for none */
		qsort(fit, nfit, sizeof(*fit), cmp_cand);
	if (mark_only) {
		fit[0]->want_hash = rq->nhashes > 0;
		goto out;
	}
	if (!rq->nhashes) {
		add_want(jb, fit[0]->path, true);
		goto out;
	}
	char first_bad[WP_SHA256_HEX_LEN + 1] = "";
	const char *bad_path = NULL;
	for (size_t i = 0; i < nfit; i++) {
		char hex[WP_SHA256_HEX_LEN + 1];
		if (fit[i]->hex[0])
			memcpy(hex, fit[i]->hex, sizeof(hex));
		else if ((rc = wp_hash_file(fit[i]->path, hex, NULL, err)))
			goto out;
		else
			memcpy(fit[i]->hex, hex, sizeof(hex));
		for (size_t h = 0; h < rq->nhashes; h++) {
			if (!strcmp(hex, rq->hashes[h])) {
				add_want(jb, fit[i]->path, true)->sha256 = wp_xstrdup(hex);
				goto out;
			}
		}
		if (!bad_path) {
			bad_path = fit[i]->path;
			memcpy(first_bad, hex, sizeof(hex));
		}
	}
	rc = wp_fail(err, -WPE_INTEGRITY,
		     "'%s' has sha256 %s, which %s does not pin (%s%s): it changed since the "
		     "wheelhouse was written; nothing was installed",
		     bad_path, first_bad, rq->where, rq->hashes[0], rq->nhashes > 1 ? ", ..." : "");
out:
	free(fit);
	return rc;
}

static int hash_one(void *ctx, size_t i, struct wp_err *err)
{
	struct cand **c = ctx;
	int rc = wp_hash_file(c[i]->path, c[i]->hex, NULL, err);
	if (rc)
		c[i]->hex[0] = 0;
	return rc;
}

/* The sha256 of every wheel marked as a requirement's best fit, on all CPUs. */
static int hash_marked(struct job *jb, struct wp_err *err)
{
	struct cand **c = wp_xmalloc((jb->cands.n ? jb->cands.n : 1) * sizeof(*c));
	size_t n = 0;
	for (size_t i = 0; i < jb->cands.n; i++)
		if (jb->cands.v[i].want_hash && !jb->cands.v[i].hex[0])
			c[n++] = &jb->cands.v[i];
	int rc = wp_parallel_for(n, 16, hash_one, c, err);
	free(c);
	return rc;
}

static int read_file_cb(void *ctx, const char *path, struct wp_buf *out, struct wp_err *err)
{
	(void)ctx;
	return wp_file_read_capped(path, WP_REQFILE_MAX_BYTES, out, err);
}

/* ${VAR} in a requirement file: from the environment the session carries (cli/ hands it down) */
static const char *getenv_cb(void *ctx, const char *name)
{
	const struct wp_session *s = ctx;
	return wp_envp_get(s->envp, name);
}

/* What a requirement file wheelpick wrote says it is for: the "#   ..." lines under "# written by
 * wheelpick for:", joined with "; "; NULL for any other file. */
static char *written_for(const char *path)
{
	struct wp_buf b = WP_BUF_INIT, out = WP_BUF_INIT;
	if (wp_file_read_capped(path, WP_REQFILE_MAX_BYTES, &b, NULL) ||
	    strncmp(wp_buf_cstr(&b), "# written by wheelpick for:\n", 28)) {
		wp_buf_free(&b);
		return NULL;
	}
	for (const char *l = wp_buf_cstr(&b) + 28; !strncmp(l, "#   ", 4);) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (out.len)
			wp_buf_addstr(&out, "; ");
		wp_buf_add(&out, l + 4, n - 4);
		if (!nl)
			break;
		l = nl + 1;
	}
	wp_buf_free(&b);
	for (size_t i = 0; i < out.len; i++)
		if (out.data[i] == '\t' || out.data[i] == '\r')
			out.data[i] = ' ';
	return out.len ? wp_buf_detach(&out, NULL) : (wp_buf_free(&out), NULL);
}

/* The path a file:// URL names (caller frees), as every reader of one takes it; NULL for another
 * URL, or a file:// URL of no local path (file://host/x), which names no file here. */
static char *url_path(const char *url)
{
	char *path = NULL;
	struct wp_err e = WP_ERR_INIT;
	if (wp_local_is_file_url(url) && wp_local_path(url, &path, &e) < 0)
		path = NULL;
	return path;
}

static int from_reqfile(struct job *jb, const char *path, const char *const *links, size_t nlinks,
			struct wp_err *err)
{
	struct wp_reqfile rf = { 0 };
	struct wp_reqfile_io io = { read_file_cb, getenv_cb, (void *)jb->s, jb->s->asks };
	char *target = written_for(path);
	if (target)
		wp_strlist_push(&jb->targets, target);
	jb->cur_target = target;
	int rc = wp_reqfile_load(&rf, path, false, &io, err);
	if (rc)
		goto out;
	for (size_t i = 0; i < nlinks; i++)
		scan_dir(jb, links[i]);
	for (size_t i = 0; i < rf.sources.n; i++) {
		const char *u = rf.sources.v[i].url;
		if (rf.sources.v[i].kind == WP_REQFILE_FIND_LINKS) {
			/* a folder, or a file:// URL of one (percent-decoded, file://localhost/
			 * and file:///C:/x too); any other URL is for pick, not an offline
			 * install */
			char *dir = url_path(u);
			if (is_dir(dir ? dir : u))
				scan_dir(jb, dir ? dir : u);
			free(dir);
		}
	}
	if (!nlinks && !rf.sources.n) {
		char *dir = wp_path_dir(path);
		scan_dir(jb, dir);
		free(dir);
	}
	/* the wheels' sha256 first, all at once (the reading is what costs), then each line */
	for (size_t i = 0; i < rf.reqs.n && !rc; i++)
		if (!rf.reqs.v[i].constraint)
			rc = resolve_req(jb, &rf.reqs.v[i], true, err);
	if (!rc)
		rc = hash_marked(jb, err);
	for (size_t i = 0; i < rf.reqs.n && !rc; i++)
		if (!rf.reqs.v[i].constraint)
			rc = resolve_req(jb, &rf.reqs.v[i], false, err);
out:
	jb->cur_target = NULL;
	wp_reqfile_release(&rf);
	return rc;
}

/* "requirements-cu124-py3.10-manylinux_2_28_x86_64.txt": for this interpreter when its py part is
 * the interpreter's version and its platform one the interpreter accepts. */
static bool slug_fits(const struct job *jb, const char *name)
{
	const char *slug = name + strlen("requirements-");
	size_t n = strlen(slug) - strlen(".txt");
	char ver[16];
	snprintf(ver, sizeof(ver), "py%d.%d%s", jb->env.py.target.py_major,
		 jb->env.py.target.py_minor,
		 wp_cstr_endswith(jb->env.py.target.abi, "t") ? "t" : "");
	bool py_ok = false, plat_ok = true;
	struct wp_str s = WP_STRN(slug, n);
	while (s.n) {
		struct wp_str part = wp_str_cut(&s, '-');
		if (part.n > 2 && !strncmp(part.p, "py", 2) && part.p[2] >= '0' && part.p[2] <= '9')
			py_ok = wp_str_eq(part, ver);
		else if (memchr(part.p, '_', part.n)) {
			bool found = false;
			for (size_t i = 0; i < jb->tags.n_platforms && !found; i++)
				found = wp_str_eq(part, jb->tags.platforms[i]);
			plat_ok = plat_ok && found;
		}
	}
	return py_ok && plat_ok;
}

/* A wheel of a lock, found offline: its path (relative to the lock's folder), a file:// URL, or by
 * its file name in the --find-links folders or beside the lock. NULL when none is there. */
static char *lock_file_path(const struct job *jb, const char *lockdir,
			    const struct wp_pylock_file *f)
{
	if (f->path)
		return f->path[0] == '/' ? wp_xstrdup(f->path) :
					   wp_xasprintf("%s/%s", lockdir, f->path);
	char *local = f->url ? url_path(f->url) : NULL;
	if (local && is_file(local))
		return local;
	free(local);
	for (size_t i = 0; f->name && i <= jb->in->n_find_links; i++) {
		const char *dir = i < jb->in->n_find_links ? jb->in->find_links[i] : lockdir;
		char *p = wp_xasprintf("%s/%s", dir, f->name);
		if (is_file(p))
			return p;
		free(p);
	}
	return NULL;
}

/* A PEP 751 lock (index/pylock.h, as packaging's Pylock.select): the wheel each package selects for
 * this interpreter, proven by the lock's sha256 (and size). wheelpick builds nothing, so a package
 * whose source is an sdist, archive, directory or vcs is refused, by name. */
static int from_pylock(struct job *jb, const char *path, struct wp_err *err)
{
	struct wp_pylock lk;
	struct wp_pylock_pick *picks = NULL;
	size_t n = 0;
	int rc = wp_pylock_load(&lk, path, err);
	if (rc)
		return rc;
	char *lockdir = wp_path_dir(path);
	struct wp_pylock_want want = { .env = &jb->env.py.markers, .tags = &jb->tags };
	if ((rc = wp_pylock_select(&lk, &want, &picks, &n, err)))
		goto out;
	/* sdists and archives (which pick --lock carries as files): every one named at once */
	struct wp_buf unbuilt = WP_BUF_INIT;
	size_t n_unbuilt = 0;
	for (size_t i = 0; i < n; i++) {
		const struct wp_pylock_pick *pk = &picks[i];
		if (pk->source != WP_PYLOCK_SDIST && pk->source != WP_PYLOCK_ARCHIVE)
			continue;
		const char *fn = pk->file->name ? pk->file->name :
				 pk->file->path ? pk->file->path :
						  pk->file->url;
		wp_buf_printf(&unbuilt, "%s%s%s%s (%s '%s')", n_unbuilt ? ", " : "", pk->pkg->name,
			      pk->pkg->version ? " " : "", pk->pkg->version ? pk->pkg->version : "",
			      wp_pylock_source_name(pk->source), fn ? fn : "?");
		n_unbuilt++;
	}
	if (n_unbuilt) {
		rc = wp_fail(err, -WPE_NOMATCH,
			     "'%s' selects %zu source file(s) for this interpreter, which wheelpick "
			     "cannot install because it builds nothing: %s; build wheels of them (pip wheel) and lock "
			     "those, or install with pip",
			     path, n_unbuilt, wp_buf_cstr(&unbuilt));
		wp_buf_free(&unbuilt);
		goto out;
	}
	wp_buf_free(&unbuilt);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct wp_pylock_pick *pk = &picks[i];
		if (pk->source != WP_PYLOCK_WHEEL) {
			rc = wp_fail(err, -WPE_NOMATCH,
				     "'%s': packages[%zu] '%s' is %s %s, and wheelpick builds nothing: "
				     "install it with pip, or lock a wheel of it",
				     path, pk->pkg->index, pk->pkg->name,
				     pk->source == WP_PYLOCK_ARCHIVE ? "an" : "a",
				     wp_pylock_source_name(pk->source));
			break;
		}
		const char *want_sha = NULL;
		for (size_t h = 0; h < pk->file->nhashes && !want_sha; h++)
			if (!strcasecmp(pk->file->hashes[h].algo, "sha256"))
				want_sha = pk->file->hashes[h].hex;
		char *wheel = lock_file_path(jb, lockdir, pk->file);
		if (!want_sha) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': packages[%zu] '%s' gives no sha256 for '%s'; wheelpick "
				     "proves every wheel by it",
				     path, pk->pkg->index, pk->pkg->name, pk->file->name);
		} else if (!wheel) {
			rc = wp_fail(err, -WPE_NOMATCH,
				     "'%s': packages[%zu] '%s' selects '%s', which is not beside the lock "
				     "or in the --find-links folders (install downloads nothing)",
				     path, pk->pkg->index, pk->pkg->name,
				     pk->file->name ? pk->file->name : "its wheel");
		} else {
			char hex[WP_SHA256_HEX_LEN + 1];
			long long size = 0;
			if (!(rc = wp_hash_file(wheel, hex, &size, err))) {
				if (strcasecmp(hex, want_sha) ||
				    (pk->file->size >= 0 && size != pk->file->size))
					rc = wp_fail(err, -WPE_INTEGRITY,
						     "'%s' has sha256 %s (%lld bytes), which '%s' does not "
						     "pin for '%s' (%s): nothing was installed",
						     wheel, hex, size, path, pk->pkg->name,
						     want_sha);
				else
					add_want(jb, wheel, true)->sha256 = wp_xstrdup(hex);
			}
		}
		free(wheel);
	}
out:
	free(picks);
	free(lockdir);
	wp_pylock_release(&lk);
	return rc;
}

static bool is_pylock_name(const char *path)
{
	const char *base = wp_path_base(path);
	return !strcmp(base, "pylock.toml") ||
	       (!strncmp(base, "pylock.", 7) && wp_cstr_endswith(base, ".toml"));
}

static int from_wheelhouse(struct job *jb, const char *dir, struct wp_err *err)
{
	struct wp_strlist fits = { 0 };
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	int rc = 0;
	while (d && (de = wp_os_readdir(d)))
		if (!strncmp(de->d_name, "requirements-", 13) &&
		    wp_cstr_endswith(de->d_name, ".txt") && slug_fits(jb, de->d_name))
			wp_strlist_push(&fits, wp_xstrdup(de->d_name));
	if (d)
		wp_os_closedir(d);
	char *req = NULL;
	if (fits.n == 1)
		req = wp_xasprintf("%s/%s", dir, fits.v[0]);
	else if (fits.n > 1)
		rc = wp_fail(err, -WPE_USAGE,
			     "wheelhouse '%s' has %zu requirement files for this interpreter ('%s', '%s'...): "
			     "say which with -r",
			     dir, fits.n, fits.v[0], fits.v[1]);
	else if (is_file((req = wp_xasprintf("%s/requirements.txt", dir))))
		;
	else {
		/* a folder with a lock and no requirement file: the lock */
		char *lock = wp_xasprintf("%s/pylock.toml", dir);
		if (is_file(lock)) {
			free(req);
			free(jb->rep->requirements);
			jb->rep->requirements = lock;
			rc = from_pylock(jb, lock, err);
			goto done;
		}
		free(lock);
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' has no requirements.txt, requirements-<target>.txt for this "
			     "interpreter (Python %s, %s) or pylock.toml: give the file with -r",
			     dir, jb->env.py.version, jb->env.py.tag_platform);
	}
	if (!rc) {
		const char *links[1] = { dir };
		free(jb->rep->requirements);
		jb->rep->requirements = wp_xstrdup(req);
		rc = from_reqfile(jb, req, links, 1, err);
	}
	free(req);
done:
	for (size_t i = 0; i < fits.n; i++)
		free((char *)fits.v[i]);
	wp_strlist_release(&fits);
	return rc;
}

/* ---- bundles: unpacked once into a temp folder, then read as a wheelhouse ---- */

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* OUT.tar.zst.001 (or OUT.tar.zst with .001 beside it): every volume, in order. */
static char **volumes(const char *path, size_t *n)
{
	size_t len = strlen(path);
	char *base = (len > 4 && path[len - 4] == '.' && strspn(path + len - 3, "0123456789") == 3)
			     ? wp_xstrndup(path, len - 4)
			     : wp_xstrdup(path);
	char **v = NULL;
	*n = 0;
	for (int i = 1; i < 1000; i++) {
		char *p = wp_xasprintf("%s.%03d", base, i);
		if (!is_file(p)) {
			free(p);
			break;
		}
		v = wp_xrealloc(v, (*n + 2) * sizeof(*v));
		v[(*n)++] = p;
		v[*n] = NULL;
	}
	if (!*n) {
		v = wp_xmalloc(2 * sizeof(*v));
		v[0] = base;
		v[1] = NULL;
		*n = 1;
	} else {
		free(base);
	}
	return v;
}

static int unpack_bundle(struct job *jb, const char *path, char **top_out, struct wp_err *err)
{
	char tmpl[PATH_MAX];
	const char *td = wp_envp_get(jb->s->envp, "TMPDIR");
	snprintf(tmpl, sizeof(tmpl), "%s/wheelpick-install-XXXXXX", td && *td ? td : "/tmp");
	if (!wp_os_mkdtemp(tmpl))
		return wp_fs_fail(err, errno, "cannot make a folder to unpack into under",
				  td && *td ? td : "/tmp");
	wp_strlist_push(&jb->tmpdirs, wp_xstrdup(tmpl));
	size_t nv;
	char **vols = volumes(path, &nv);
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	struct wp_unpack_out out = { .fd = -1 };
	char *top = NULL, *name = NULL;
	int rc = 0, r;
	archive_read_support_format_tar(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_gzip(a);
	if (wp_archive_read_open_paths(a, (const char *const *)vols, nv) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not a bundle (tar): %s", path,
			     archive_error_string(a));
		goto out;
	}
	long long packed = 0;
	for (size_t i = 0; i < nv; i++) {
		struct wp_os_stat sb;
		if (wp_os_stat(vols[i], &sb) == 0)
			packed += (long long)sb.st_size;
	}
	struct wp_untar_budget budget;
	wp_untar_budget_init(&budget, packed);
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		/* a copy: the entry's own lives until the next header */
		free(name);
		name = archive_entry_pathname(ae) ? wp_xstrdup(archive_entry_pathname(ae)) : NULL;
		mode_t type = archive_entry_filetype(ae);
		char shown[200], why[160];
		const char *bad = !name ? "has no name" :
					  wp_member_name_problem(name, strlen(name));
		if (!bad)
			bad = wp_untar_kind_problem((unsigned)type, archive_entry_hardlink(ae),
						    archive_entry_symlink(ae),
						    archive_entry_sparse_count(ae) > 0);
		if (bad) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' %s; nothing was installed", path,
				     name ? wp_member_name_show(name, strlen(name), shown,
								sizeof(shown)) :
					    "",
				     bad);
			goto out;
		}
		if ((bad = wp_untar_budget_member(&budget, archive_entry_size(ae), why,
						  sizeof(why)))) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s' %s (at member '%s'); nothing was installed", path, bad,
				     wp_member_name_show(name, strlen(name), shown, sizeof(shown)));
			goto out;
		}
		if (!top)
			top = wp_xstrndup(name, strcspn(name, "/"));
		/* through the OS seam, not libarchive's disk writer: names stay UTF-8
		 * (ops/core/unpack.h); links are refused above and tmpl is fresh */
		char *dest = wp_xasprintf("%s/%s", tmpl, name);
		struct wp_err werr = WP_ERR_INIT;
		wp_unpack_begin(&out, dest, type == AE_IFDIR, archive_entry_perm(ae), &werr);
		free(dest);
		if (werr.code) {
			rc = wp_fail(err, werr.code, "'%s': cannot unpack '%s': %s", path,
				     wp_member_name_show(name, strlen(name), shown, sizeof(shown)),
				     werr.msg);
			goto out;
		}
		const void *blk;
		size_t sz;
		la_int64_t off;
		long long seen = 0;
		while ((r = archive_read_data_block(a, &blk, &sz, &off)) == ARCHIVE_OK) {
			if ((bad = wp_untar_budget_extent(&budget, &seen,
							  (long long)off + (long long)sz, why,
							  sizeof(why)))) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s' %s (at member '%s'); nothing was installed",
					     path, bad,
					     wp_member_name_show(name, strlen(name), shown,
								 sizeof(shown)));
				goto out;
			}
			if (wp_unpack_block(&out, blk, sz, off, &werr))
				break;
		}
		if (!werr.code)
			wp_unpack_end(&out, &werr);
		if (werr.code) {
			rc = wp_fail(err, werr.code, "'%s': cannot unpack '%s': %s", path,
				     wp_member_name_show(name, strlen(name), shown, sizeof(shown)),
				     werr.msg);
			goto out;
		}
		if (r != ARCHIVE_EOF) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is damaged or cut short: %s", path,
				     archive_error_string(a));
			goto out;
		}
	}
	if (r != ARCHIVE_EOF) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is damaged or cut short: %s", path,
			     archive_error_string(a));
		goto out;
	}
	if (!top) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is an empty archive", path);
		goto out;
	}
	*top_out = wp_xasprintf("%s/%s", tmpl, top);
out:
	wp_unpack_end(&out, NULL);
	archive_read_free(a);
	for (size_t i = 0; i < nv; i++)
		free(vols[i]);
	free(vols);
	free(top);
	free(name);
	return rc;
}

static int gather(struct job *jb, struct wp_err *err)
{
	const struct wp_install_job *in = jb->in;
	int rc = 0;
	for (size_t i = 0; i < in->n_sources && !rc; i++) {
		const char *src = in->sources[i];
		if (is_dir(src)) {
			rc = from_wheelhouse(jb, src, err);
		} else if (wp_cstr_endswith(src, ".whl") && is_file(src)) {
			add_want(jb, src, true);
		} else if (wp_cstr_endswith(src, ".tar.zst") || wp_cstr_endswith(src, ".tar.gz") ||
			   wp_cstr_endswith(src, ".tar") ||
			   (strlen(src) > 4 && strspn(src + strlen(src) - 3, "0123456789") == 3 &&
			    src[strlen(src) - 4] == '.')) {
			char *top = NULL;
			if (!(rc = unpack_bundle(jb, src, &top, err)))
				rc = from_wheelhouse(jb, top, err);
			free(top);
		} else if (wp_cstr_endswith(src, ".txt") && is_file(src)) {
			rc = from_reqfile(jb, src, in->find_links, in->n_find_links, err);
		} else if (is_pylock_name(src) && is_file(src)) {
			rc = from_pylock(jb, src, err);
		} else if (wp_os_access(src, WP_F_OK) != 0 && !strchr(src, '/')) {
			/* pip's and uv's habit: a project by name */
			rc = wp_fail(err, -WPE_USAGE,
				     "'%s' is not a file or folder here; install takes what wheelpick wrote: "
				     "'wheelpick %s -d wh' picks and downloads it where an index is reachable, then "
				     "'wheelpick install wh' installs it (here or across the air gap)",
				     src, src);
		} else {
			rc = wp_fail(err, -WPE_USAGE,
				     "'%s' is not a wheelhouse, a bundle or a wheel (install takes "
				     "what wheelpick wrote, or -r FILE --find-links DIR)",
				     src);
		}
	}
	for (size_t i = 0; i < in->n_requirements && !rc; i++) {
		free(jb->rep->requirements);
		jb->rep->requirements = wp_xstrdup(in->requirements[i]);
		rc = is_pylock_name(in->requirements[i]) ?
			     from_pylock(jb, in->requirements[i], err) :
			     from_reqfile(jb, in->requirements[i], in->find_links, in->n_find_links,
					  err);
	}
	if (!rc && !jb->wants.n)
		rc = wp_fail(err, -WPE_USAGE,
			     "nothing to install: the requirement files name nothing for this interpreter");
	return rc;
}

/* ---- the checks before anything is written ---- */

static int open_wheels(struct job *jb, struct wp_err *err)
{
	jb->nw = jb->wants.n;
	jb->w = wp_xcalloc(jb->nw ? jb->nw : 1, sizeof(*jb->w));
	const char *pyv = jb->env.py.version;
	jb->py_version_ok = pyv && wp_version_parse(&jb->py_version, pyv, strlen(pyv), NULL) == 0;
	for (size_t i = 0; i < jb->nw; i++) {
		struct wp_iwheel *w = &jb->w[i];
		const struct want *wa = &jb->wants.v[i];
		struct wp_wheelname wn;
		struct wp_err sub = WP_ERR_INIT;
		int rc;
		w->path = wp_xstrdup(wa->path);
		w->filename = wp_xstrdup(wa->filename);
		w->requested = wa->requested;
		w->link_mode = (int)jb->in->link_mode;
		w->target = wa->target ? wp_xstrdup(wa->target) : NULL;
		w->sha256 = wa->sha256 ? wp_xstrdup(wa->sha256) : NULL;
		if (wp_wheelname_parse(wa->filename, &wn, &sub))
			return wp_fail(err, -WPE_USAGE, "%s", sub.msg);
		int prio = -1;
		for (size_t t = 0; t < wn.n_tags; t++) {
			int p = wp_tagset_priority(&jb->tags, wn.tags[t]);
			if (p >= 0 && (prio < 0 || p < prio))
				prio = p;
		}
		w->project = wp_xstrdup(wn.project);
		w->variant_label = wn.variant_label ? wp_xstrdup(wn.variant_label) : NULL;
		wp_wheelname_release(&wn);
		if (prio < 0)
			return wp_fail(err, -WPE_NOMATCH,
				       "'%s' is not for this interpreter (Python %s, %s): its tags are "
				       "not among those it accepts ('wheelpick tags --python %d.%d --platform %s' lists them); "
				       "nothing was installed",
				       wa->filename, jb->env.py.version, jb->env.py.tag_platform,
				       jb->env.py.target.py_major, jb->env.py.target.py_minor,
				       jb->env.py.tag_platform);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(jb->w[k].project, w->project))
				return wp_fail(err, -WPE_USAGE,
					       "'%s' and '%s' are the same project; install one",
					       jb->w[k].filename, w->filename);
		if ((rc = wp_wheel_reader_open(w->path, w->filename, NULL, &w->r, &w->info, err)))
			return rc;
		if (w->info.requires_python) {
			struct wp_specset rp;
			if (!wp_specset_parse(&rp, w->info.requires_python,
					      strlen(w->info.requires_python), &sub)) {
				if (jb->py_version_ok) {
					bool ok = wp_specset_contains(&rp, &jb->py_version,
								      WP_PRERELEASES_YES);
					if (!ok) {
						wp_specset_release(&rp);
						return wp_fail(err, -WPE_NOMATCH,
							       "'%s' requires Python %s, and the interpreter is "
							       "%s; nothing was installed",
							       w->filename, w->info.requires_python,
							       jb->env.py.version);
					}
				}
				wp_specset_release(&rp);
			}
			wp_err_clear(&sub);
		}
		if ((rc = wp_old_dist_find(&jb->env, w->project, &w->old, err)))
			return rc;
	}
	return 0;
}

/* Every Requires-Dist (its marker for this interpreter, no extra, the wheel's own variant label)
 * met by a wheel of this run or a project already installed, as pip would insist; before anything
 * is written. A marker this cannot evaluate counts as not applying. */
static int check_deps(struct job *jb, struct wp_err *err)
{
	struct wp_installed_list have = { 0 };
	int rc = 0;
	if (jb->in->no_deps)
		return 0;
	wp_ienv_list(&jb->env, &have);
	for (size_t i = 0; i < jb->nw && !rc; i++) {
		const struct wp_iwheel *w = &jb->w[i];
		struct wp_marker_env menv = jb->env.py.markers;
		struct wp_err sub = WP_ERR_INIT;
		if (w->variant_label) /* its name was parsed once, in open_wheels */
			wp_marker_env_set(&menv, "variant_label", w->variant_label, &sub);
		for (size_t k = 0; k < w->info.n_requires_dist && !rc; k++) {
			const char *text = w->info.requires_dist[k];
			struct wp_requirement r;
			bool applies = true;
			wp_err_clear(&sub);
			if (wp_requirement_parse(&r, text, strlen(text), &sub))
				continue;
			if (r.has_marker && wp_marker_evaluate(&r.marker, &menv, &applies, &sub))
				applies = false;
			if (applies) {
				char *dep = wp_inst_normalize(r.name);
				const char *version = NULL;
				for (size_t m = 0; m < jb->nw && !version; m++)
					if (!strcmp(jb->w[m].project, dep))
						version = jb->w[m].info.version;
				for (size_t m = 0; m < have.n && !version; m++) {
					char *hn = wp_inst_normalize(have.v[m].name);
					if (!strcmp(hn, dep))
						version = have.v[m].version;
					free(hn);
				}
				struct wp_version v;
				bool ok = false;
				if (version &&
				    !wp_version_parse(&v, version, strlen(version), &sub)) {
					ok = wp_specset_contains(&r.spec, &v, WP_PRERELEASES_YES);
					wp_version_release(&v);
				}
				if (!ok)
					rc = wp_fail(err, -WPE_NOMATCH,
						     "'%s' requires '%s', which %s; nothing was installed (add "
						     "it to the sources, or --no-deps to install anyway)",
						     w->filename, text,
						     version ?
							     "the version at hand does not meet" :
							     "is neither among the sources nor installed");
				free(dep);
			}
			wp_requirement_release(&r);
		}
	}
	wp_installed_list_release(&have);
	return rc;
}

/* ---- staging, in parallel ---- */

struct task {
	struct wp_iwheel *w;
	struct wp_iwheel_file *f; /* a file to stage; NULL: member i into the store (or read and
				     dropped: drain) */
	size_t i;
	unsigned long long size;
	bool drain;
};

struct pool {
	struct job *jb;
	struct task *t;
};

static int stage_one(void *ctx, size_t i, struct wp_err *err)
{
	struct pool *p = ctx;
	if (p->t[i].drain)
		return wp_iwheel_drain_member(p->t[i].w, p->t[i].i, err);
	return p->t[i].f ? wp_iwheel_stage_file(p->t[i].w, &p->jb->env, p->t[i].f, err)
			 : wp_istore_fill_member(p->t[i].w, p->t[i].i, p->jb->env.umask, err);
}

static int cmp_task(const void *a, const void *b)
{
	const struct task *x = a, *y = b;
	return x->size > y->size ? -1 : x->size < y->size; /* the largest first: no one file
							      finishes last alone */
}

static unsigned long long member_size(const struct wp_iwheel *w, size_t i)
{
	struct wp_wheel_entry e;
	wp_wheel_reader_entry(w->r, i, &e);
	return e.size;
}

/* store: fill the unpacked store of the wheels that have none yet; else stage every file. */
static int run_pool(struct job *jb, bool store, struct wp_err *err)
{
	struct pool p = { .jb = jb };
	size_t total = 0, n = 0;
	for (size_t i = 0; i < jb->nw; i++)
		total += store ? wp_wheel_reader_count(jb->w[i].r) :
				 jb->w[i].files.n + jb->w[i].drained.n;
	p.t = wp_xmalloc((total ? total : 1) * sizeof(*p.t));
	for (size_t i = 0; i < jb->nw; i++) {
		struct wp_iwheel *w = &jb->w[i];
		if (store) {
			for (size_t k = 0; w->store_tmp && k < wp_wheel_reader_count(w->r); k++)
				p.t[n++] = (struct task){ w, NULL, k, member_size(w, k), false };
			continue;
		}
		for (size_t k = 0; k < w->files.n; k++)
			if (w->files.v[k].member != (size_t)-1)
				p.t[n++] = (struct task){
					w, &w->files.v[k], 0,
					w->store ? 1 : member_size(w, w->files.v[k].member), false
				};
		for (size_t k = 0; k < w->drained.n; k++)
			p.t[n++] = (struct task){ w, NULL, w->drained.v[k],
						  member_size(w, w->drained.v[k]), true };
	}
	if (n) /* qsort's array may not be NULL, even for none */
		qsort(p.t, n, sizeof(*p.t), cmp_task);
	int rc = wp_parallel_for(n, jb->in->threads > 0 ? (size_t)jb->in->threads : 0, stage_one,
				 &p, err);
	free(p.t);
	return rc;
}

/* --link-mode hardlink|reflink: every wheel's unpacked store folder, filled (and checked against
 * RECORD) where it is missing, before anything in the environment is touched. */
static int fill_store(struct job *jb, struct wp_err *err)
{
	int rc = 0;
	if (jb->in->link_mode == WP_LINK_COPY)
		return 0;
	if (!jb->in->store_root)
		return wp_fail(err, -WPE_USAGE,
			       "--link-mode needs a cache folder (set WHEELPICK_CACHE_DIR)");
	for (size_t i = 0; i < jb->nw && !rc; i++) {
		struct wp_iwheel *w = &jb->w[i];
		if (!w->sha256) {
			char hex[WP_SHA256_HEX_LEN + 1];
			if ((rc = wp_hash_file(w->path, hex, NULL, err)))
				break;
			w->sha256 = wp_xstrdup(hex);
		}
		rc = wp_istore_open(w, jb->in->store_root, err);
	}
	if (!rc)
		rc = run_pool(jb, true, err);
	for (size_t i = 0; i < jb->nw && !rc; i++)
		if (jb->w[i].store_tmp)
			rc = wp_istore_finish(&jb->w[i], err);
	return rc;
}

/* A wheel whose .dist-info folder is new stages it apart: its files' temps and final names go
 * into "<lib>/.wp-<pid>-<seq>-di.tmp/", renamed to the .dist-info name once they are in (pip and
 * importlib look for "*.dist-info" only: a killed run leaves nothing they list). */
static void stage_dist_info_apart(struct job *jb)
{
	for (size_t i = 0; i < jb->nw; i++) {
		struct wp_iwheel *w = &jb->w[i];
		struct wp_os_stat sb;
		if (wp_os_lstat(w->dist_info_dest, &sb) == 0)
			continue;
		w->dist_info_stage = wp_xasprintf("%s/.wp-%ld-%zu-di.tmp", w->lib, wp_os_getpid(),
						  i);
		size_t dl = strlen(w->dist_info_dest);
		for (size_t k = 0; k < w->files.n; k++) {
			struct wp_iwheel_file *f = &w->files.v[k];
			if (strncmp(f->dest, w->dist_info_dest, dl) || f->dest[dl] != '/')
				continue;
			const char *rest = f->dest + dl; /* "/RECORD", "/licenses/LICENSE" */
			const char *tbase = strrchr(f->tmp, '/');
			const char *dslash = strrchr(f->dest, '/');
			f->stage_dest = wp_xasprintf("%s%s", w->dist_info_stage, rest);
			char *tmp = wp_xasprintf("%s%.*s%s", w->dist_info_stage,
						 (int)(dslash - f->dest - dl), rest, tbase);
			free(f->tmp);
			f->tmp = tmp;
		}
	}
}

/* Paths ordered with '/' below every other byte, so that a path's descendants follow it at once. */
static int cmp_tree(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a,
			    *y = *(const unsigned char *const *)b;
	for (;; x++, y++) {
		unsigned cx = *x == '/' ? 1 : *x, cy = *y == '/' ? 1 : *y;
		if (cx != cy || !cx)
			return (int)cx - (int)cy;
	}
}

/* A file of one wheel where another file (of it or of another wheel of this run) needs a folder
 * ("zz/b" and "zz/b/c"): refused before anything is written, since the commit could not finish. */
static int check_collisions(struct job *jb, struct wp_err *err)
{
	size_t n = 0, total = 0;
	for (size_t i = 0; i < jb->nw; i++)
		total += jb->w[i].files.n;
	const char **v = wp_xmalloc((total ? total : 1) * sizeof(*v));
	for (size_t i = 0; i < jb->nw; i++)
		for (size_t k = 0; k < jb->w[i].files.n; k++)
			v[n++] = jb->w[i].files.v[k].dest;
	if (n)
		qsort(v, n, sizeof(*v), cmp_tree);
	int rc = 0;
	for (size_t i = 0; i + 1 < n && !rc; i++) {
		size_t l = strlen(v[i]);
		if (strncmp(v[i + 1], v[i], l) || v[i + 1][l] != '/')
			continue;
		const char *wa = "", *wb = "";
		for (size_t w = 0; w < jb->nw; w++)
			for (size_t k = 0; k < jb->w[w].files.n; k++) {
				if (jb->w[w].files.v[k].dest == v[i])
					wa = jb->w[w].filename;
				if (jb->w[w].files.v[k].dest == v[i + 1])
					wb = jb->w[w].filename;
			}
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s' puts a file at '%s' and '%s' puts '%s' inside it as a folder: "
			     "the two cannot both be installed; nothing was installed",
			     wa, v[i], wb, v[i + 1]);
	}
	free(v);
	return rc;
}

/* Folders the staged files need that do not exist yet, parents first. A file where a folder is
 * needed, or a folder on disk reached through a symlink, is refused: the commit makes its changes
 * beneath the environment's roots with no link followed (wp_ijournal_apply), and nothing is
 * written through a link out of it. */
static int plan_dirs(struct job *jb, struct wp_err *err)
{
	struct wp_strlist made = { 0 };
	char *checked = NULL; /* the last existing folder found in the environment */
	int rc = 0;
	for (size_t i = 0; i < jb->nw && !rc; i++) {
		for (size_t k = 0; k < jb->w[i].files.n && !rc; k++) {
			char *d = wp_xstrdup(jb->w[i].files.v[k].tmp); /* its folder is the one its
									  dest needs */
			struct wp_strlist chain = { 0 };
			for (char *slash = strrchr(d, '/'); slash && slash != d;
			     slash = strrchr(d, '/')) {
				*slash = 0;
				bool known = false;
				for (size_t m = made.n; m-- > 0 && !known;)
					known = !strcmp(made.v[m], d);
				if (known)
					break;
				struct wp_os_stat sb;
				if (wp_os_lstat(d, &sb) == 0) {
					if (!WP_S_ISDIR(sb.st_mode) &&
					    !(WP_S_ISLNK(sb.st_mode) && is_dir(d))) {
						rc = wp_fail(err, -WPE_USAGE,
							     "'%s' is a file, and '%s' needs a folder there; "
							     "nothing was installed (remove it first)",
							     d, jb->w[i].filename);
					} else if (!checked || strcmp(checked, d)) {
						if (!wp_ijournal_reachable(&jb->env, d))
							rc = wp_fail(err, -WPE_USAGE,
								     "'%s' is or passes through a symlink, and "
								     "'%s' would write through it (wheelpick writes nothing "
								     "through a link in an environment); nothing was installed",
								     d, jb->w[i].filename);
						free(checked);
						checked = wp_xstrdup(d);
					}
					break;
				}
				wp_strlist_push(&chain, wp_xstrdup(d));
			}
			for (size_t c = chain.n; c-- > 0;) {
				if (!rc) {
					wp_strlist_push(&made, chain.v[c]);
					wp_ijournal_add(&jb->j, WP_IJ_MKDIR, chain.v[c], NULL);
				} else {
					free((char *)chain.v[c]);
				}
			}
			wp_strlist_release(&chain);
			free(d);
		}
	}
	free(checked);
	for (size_t m = 0; m < made.n; m++)
		free((char *)made.v[m]);
	wp_strlist_release(&made);
	return rc;
}

static int make_dirs(struct job *jb, struct wp_err *err)
{
	for (size_t i = 0; i < jb->j.e.n; i++)
		if (jb->j.e.v[i].op == WP_IJ_MKDIR &&
		    wp_ienv_mkdir(&jb->env, jb->j.e.v[i].a, 0777) < 0 && errno != EEXIST)
			return wp_fs_fail(err, errno, "cannot create", jb->j.e.v[i].a);
	return 0;
}

/* RECORD's rows sorted again, as pip sorts them, once the .pyc rows are in. */
static void sort_lines(struct wp_buf *b)
{
	struct wp_strlist lines = { 0 };
	char *text = wp_buf_detach(b, NULL), *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		wp_strlist_push(&lines, l);
	if (lines.n) /* qsort's array may not be NULL, even for none */
		qsort(lines.v, lines.n, sizeof(*lines.v), cmp_strp);
	*b = (struct wp_buf)WP_BUF_INIT;
	for (size_t i = 0; i < lines.n; i++)
		wp_buf_printf(b, "%s\n", lines.v[i]);
	wp_strlist_release(&lines);
	free(text);
}

/* --compile: the interpreter's compileall on exactly the .py files installed, and their .pyc
 * in RECORD (as pip lists them). */
static int compile_installed(struct job *jb, struct wp_err *err)
{
	struct wp_buf list = WP_BUF_INIT, out = WP_BUF_INIT_MAX(64 << 10);
	int status = 0, rc = 0;
	for (size_t i = 0; i < jb->nw; i++)
		for (size_t k = 0; k < jb->w[i].files.n; k++)
			if (wp_cstr_endswith(jb->w[i].files.v[k].dest, ".py") &&
			    jb->w[i].files.v[k].member != (size_t)-1)
				wp_buf_printf(&list, "%s\n", jb->w[i].files.v[k].dest);
	if (!list.len)
		goto out;
	const char *argv[] = { jb->env.py.executable, "-m", "compileall", "-q", "-i", "-", NULL };
	if ((rc = wp_env_run(argv, jb->s->envp, list.data, list.len, true, 600000, &out, &status,
			     err)))
		goto out;
	if (status != 0) {
		rc = wp_fail(err, -WPE_ENV, "compileall failed (exit %d): %.300s", status,
			     wp_buf_cstr(&out));
		goto out;
	}
	for (size_t i = 0; i < jb->nw && !rc; i++) {
		struct wp_iwheel *w = &jb->w[i];
		struct wp_iwheel_file *rec = &w->files.v[w->files.n - 1];
		struct wp_buf b = WP_BUF_INIT;
		wp_buf_add(&b, rec->content.data, rec->content.len);
		for (size_t k = 0; k < w->files.n; k++) {
			struct wp_iwheel_file *f = &w->files.v[k];
			if (!wp_cstr_endswith(f->dest, ".py") || f->member == (size_t)-1)
				continue;
			const char *slash = strrchr(f->dest, '/');
			char *pyc = wp_xasprintf("%.*s/__pycache__/%.*s.%s.pyc",
						 (int)(slash - f->dest), f->dest,
						 (int)(strlen(slash + 1) - 3), slash + 1,
						 jb->env.py.cache_tag);
			const char *rs = strrchr(f->record_path, '/');
			char *rp = wp_xasprintf("%.*s%s__pycache__/%.*s.%s.pyc",
						rs ? (int)(rs - f->record_path) : 0, f->record_path,
						rs ? "/" : "",
						(int)(strlen(rs ? rs + 1 : f->record_path) - 3),
						rs ? rs + 1 : f->record_path, jb->env.py.cache_tag);
			if (is_file(pyc)) /* pip lists a .pyc with no hash or size */
				wp_buf_printf(&b, "%s,,\r\n", rp);
			free(pyc);
			free(rp);
		}
		sort_lines(&b);
		rc = wp_atomic_write(rec->dest, b.data, b.len, err);
		wp_buf_free(&b);
	}
out:
	wp_buf_free(&list);
	wp_buf_free(&out);
	return rc;
}


/* ---- "Requirement already satisfied" ---- */

struct row {
	const char *path, *hash;
};

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->path, ((const struct row *)b)->path);
}

/* RECORD text as rows sorted by path (borrowing paths and hashes from the lists). */
static struct row *rows_of(const char *text, size_t len, struct wp_strlist *paths,
			   struct wp_strlist *hashes, size_t *n)
{
	wp_inst_record_rows(text, len, paths, hashes);
	struct row *v = wp_xmalloc((paths->n ? paths->n : 1) * sizeof(*v));
	for (size_t i = 0; i < paths->n; i++)
		v[i] = (struct row){ paths->v[i], hashes->v[i] };
	if (paths->n)
		qsort(v, paths->n, sizeof(*v), cmp_row);
	*n = paths->n;
	return v;
}

static const char *row_hash(const struct row *v, size_t n, const char *path)
{
	struct row key = { path, NULL };
	const struct row *r = n ? bsearch(&key, v, n, sizeof(*v), cmp_row) : NULL;
	return r ? r->hash : NULL;
}

static int buf_sink(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	struct wp_buf *b = ctx;
	if (wp_buf_add(b, p, n) < 0)
		return wp_fail(err, -WPE_INTEGRITY, "RECORD is larger than %zu bytes", b->max);
	return 0;
}

/* pip's "Requirement already satisfied", made exact: the same project and version is installed,
 * its RECORD gives every member this wheel would write the hash the wheel's own RECORD gives it
 * (a script whose "#!python" is rewritten: listed), and each of those files is there. */
static bool already_installed(struct wp_iwheel *w)
{
	if (!w->old.dist_info || !w->old.version || strcmp(w->old.version, w->info.version))
		return false;
	struct wp_buf inst = WP_BUF_INIT, mine = WP_BUF_INIT_MAX(64 << 20);
	struct wp_strlist ip = { 0 }, ih = { 0 }, mp = { 0 }, mh = { 0 };
	struct row *iv = NULL, *mv = NULL;
	size_t in_n = 0, mn = 0;
	bool found = false, same = false;
	struct wp_err sub = WP_ERR_INIT;
	char *rp = wp_xasprintf("%s/RECORD", w->old.dist_info);
	char *wr = wp_xasprintf("%s/RECORD", w->info.dist_info);
	size_t ri = (size_t)-1;
	for (size_t i = 0; i < wp_wheel_reader_count(w->r) && ri == (size_t)-1; i++) {
		struct wp_wheel_entry e;
		wp_wheel_reader_entry(w->r, i, &e);
		if (!strcmp(e.name, wr))
			ri = i;
	}
	if (ri == (size_t)-1 || wp_file_read_if_exists(rp, 256 << 20, &inst, &found, &sub) ||
	    !found || wp_wheel_reader_extract(w->r, ri, buf_sink, &mine, &sub))
		goto out;
	iv = rows_of(wp_buf_cstr(&inst), inst.len, &ip, &ih, &in_n);
	mv = rows_of(wp_buf_cstr(&mine), mine.len, &mp, &mh, &mn);
	same = true;
	for (size_t k = 0; k < w->files.n && same; k++) {
		const struct wp_iwheel_file *f = &w->files.v[k];
		if (f->member == (size_t)-1)
			continue;
		struct wp_wheel_entry e;
		wp_wheel_reader_entry(w->r, f->member, &e);
		const char *want = row_hash(mv, mn, e.name),
			   *have = row_hash(iv, in_n, f->record_path);
		struct wp_os_stat sb;
		same = want && have && want[0] && (f->fix_shebang || !strcmp(want, have)) &&
		       wp_os_lstat(f->dest, &sb) == 0;
	}
out:
	for (size_t i = 0; i < ip.n; i++)
		free((char *)ip.v[i]), free((char *)ih.v[i]);
	for (size_t i = 0; i < mp.n; i++)
		free((char *)mp.v[i]), free((char *)mh.v[i]);
	wp_strlist_release(&ip);
	wp_strlist_release(&ih);
	wp_strlist_release(&mp);
	wp_strlist_release(&mh);
	free(iv);
	free(mv);
	free(rp);
	free(wr);
	wp_buf_free(&inst);
	wp_buf_free(&mine);
	wp_err_clear(&sub);
	return same;
}

static int drain_cb(void *ctx, size_t i, struct wp_err *err)
{
	struct wp_iwheel *w = ctx;
	struct wp_wheel_entry e;
	wp_wheel_reader_entry(w->r, i, &e);
	size_t dl = strlen(w->info.dist_info);
	if (e.is_dir ||
	    (!strncmp(e.name, w->info.dist_info, dl) && !strcmp(e.name + dl, "/RECORD")))
		return 0; /* RECORD was read by already_installed */
	return wp_iwheel_drain_member(w, i, err);
}

/* The wheels already installed as they are leave the run (reported as satisfied), unless
 * --force-reinstall; each is still read whole and checked against its RECORD, so that a wheel
 * tampered with since is refused (exit 4) rather than called the same. */
static int drop_satisfied(struct job *jb, struct wp_err *err)
{
	size_t o = 0;
	int rc = 0;
	for (size_t i = 0; i < jb->nw; i++) {
		struct wp_iwheel *w = &jb->w[i];
		size_t threads = jb->in->threads > 0 ? (size_t)jb->in->threads : 0;
		if (!rc && !jb->in->force_reinstall && already_installed(w) &&
		    !(rc = wp_parallel_for(wp_wheel_reader_count(w->r), threads, drain_cb, w,
					   err)) &&
		    !(rc = wp_wheel_reader_check(w->r, err))) {
			struct wp_install_item *it = wp_vec_add(jb->rep);
			it->name = wp_xstrdup(w->info.name);
			it->version = wp_xstrdup(w->info.version);
			it->wheel = wp_xstrdup(w->filename);
			it->satisfied = true;
			jb->rep->n_satisfied++;
			wp_iwheel_release(w);
			continue;
		}
		if (o != i)
			jb->w[o] = *w;
		o++;
	}
	jb->nw = o;
	return rc;
}

/* ---- Ctrl-C while staging ---- */

/* What an interrupt may remove: the run's staged temps and the folders made for them, from the
 * moment they are listed until its commit begins (from then on the next run finishes the change;
 * removing temps then could leave a mix). Built before it is published, so the handler reads only
 * memory nobody changes. */
struct abortable {
	const char **unlink;
	size_t nu;
	const char **rmdir;
	size_t nr;
};

static struct abortable *abortable_now;

static struct abortable *abortable_make(const struct wp_ijournal *j)
{
	struct abortable *a = wp_xcalloc(1, sizeof(*a));
	a->unlink = wp_xcalloc(j->e.n + 1, sizeof(*a->unlink));
	a->rmdir = wp_xcalloc(j->e.n + 1, sizeof(*a->rmdir));
	for (size_t i = 0; i < j->e.n; i++)
		if (j->e.v[i].op == WP_IJ_RENAME)
			a->unlink[a->nu++] = j->e.v[i].a;
	for (size_t i = j->e.n; i-- > 0;)
		if (j->e.v[i].op == WP_IJ_MKDIR)
			a->rmdir[a->nr++] = j->e.v[i].a;
	return a;
}

/* The handler claims the staging by swapping this in for it; the run takes it back (before its
 * commit, or when it stops) by a compare-and-swap, so exactly one of them has it. On Windows the
 * console handler runs on a thread of its own while the run goes on (and on Linux a signal may
 * land on a writing thread): without this, temps could be removed under a commit already begun
 * (a mixed environment, a journal naming files that are gone) or the list freed while read. */
static const struct abortable abortable_claimed_mark;
#define ABORTABLE_CLAIMED ((struct abortable *)&abortable_claimed_mark) /* never written through */

static void abortable_set(struct abortable *a)
{
	__atomic_store_n(&abortable_now, a, __ATOMIC_SEQ_CST);
}

/* Takes a back from the handler's reach; if the handler has claimed it, it is removing the temps
 * and ending the process: this thread waits for that rather than commit or free under it. */
static void abortable_take(struct abortable *a)
{
	struct abortable *cur = a;
	if (!a || __atomic_compare_exchange_n(&abortable_now, &cur, NULL, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST))
		return;
	if (cur == ABORTABLE_CLAIMED)
		for (;;)
			wp_os_sleep_ms(1000);
}

static void abortable_free(struct abortable *a)
{
	if (!a)
		return;
	free(a->unlink);
	free(a->rmdir);
	free(a);
}

void wp_install_on_interrupt(void)
{
	struct abortable *a = __atomic_load_n(&abortable_now, __ATOMIC_SEQ_CST);
	if (!a || a == ABORTABLE_CLAIMED ||
	    !__atomic_compare_exchange_n(&abortable_now, &a, ABORTABLE_CLAIMED, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return; /* none, a second interrupt, or the commit took it first */
	for (size_t i = 0; i < a->nu; i++)
		wp_os_unlink(a->unlink[i]);
	for (size_t i = 0; i < a->nr; i++)
		wp_os_rmdir(a->rmdir[i]);
	/* the staging journal stays: a temp a writing thread creates after this is still undone by
	 * the next run */
}

void wp_install_report_release(struct wp_install_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->v[i].name);
		free(rep->v[i].version);
		free(rep->v[i].old_version);
		free(rep->v[i].wheel);
	}
	free(rep->v);
	free(rep->executable);
	free(rep->requirements);
	free(rep->recovered);
	memset(rep, 0, sizeof(*rep));
}

/* What one wheel did (or, with --dry-run, would do), in the report: bytes as counted. */
static void report_wheel(struct wp_install_report *rep, const struct wp_iwheel *w, long long bytes)
{
	struct wp_install_item *it = wp_vec_add(rep);
	it->name = wp_xstrdup(w->info.name);
	it->version = wp_xstrdup(w->info.version);
	it->old_version = w->old.version ? wp_xstrdup(w->old.version) : NULL;
	it->wheel = wp_xstrdup(w->filename);
	it->files = (long long)w->files.n;
	it->bytes = bytes;
	rep->files += it->files;
	rep->bytes += it->bytes;
}

/* The GPUs given (install --gpu): a wheel whose shared objects, as they were staged, carry no
 * kernel image for one of them is refused before the commit (the staged files go, nothing is
 * installed); one that runs only by JIT-compiling its PTX is a warning. */
static int check_gpu_code(struct job *jb, struct wp_iwheel *w, struct wp_err *err)
{
	struct wp_buf code = WP_BUF_INIT, merged = WP_BUF_INIT, why = WP_BUF_INIT;
	int rc = 0;
	if (!jb->in->n_gpus)
		return 0;
	for (size_t k = 0; k < w->files.n; k++) {
		struct wp_iwheel_file *f = &w->files.v[k];
		if (!f->gpu_code && w->store && f->member != (size_t)-1 && f->record_path &&
		    wp_fatbin_wanted(f->record_path)) {
			/* linked from the unpacked store, not inflated here: the staged file is
			 * read (its bytes are the ones RECORD checked) */
			struct wp_err e = WP_ERR_INIT;
			if (wp_gpu_code_of_file(f->tmp, &f->gpu_code, &e) < 0)
				wp_say(jb->s, WP_SAY_DEBUG, "%s", e.msg);
		}
		if (!f->gpu_code)
			continue;
		wp_gpucode_merge(wp_buf_cstr(&code), f->gpu_code, &merged);
		struct wp_buf t = code;
		code = merged;
		merged = t;
	}
	for (int g = 0; g < jb->in->n_gpus && !rc && code.len; g++) {
		enum wp_gpu_verdict v;
		struct wp_err e = WP_ERR_INIT;
		if (wp_gpucode_verdict(wp_buf_cstr(&code), jb->in->gpu_sm[g], jb->in->driver_cuda,
				       &v, &why, &e) < 0)
			continue;
		if (v == WP_GPU_NONE)
			rc = wp_fail(err, -WPE_NOMATCH,
				     "'%s' has no kernel image for sm_%d (%s): its import would fail at "
				     "the first kernel; nothing was installed",
				     w->filename, jb->in->gpu_sm[g], wp_buf_cstr(&why));
		else if (v == WP_GPU_PTX_JIT)
			wp_say(jb->s, WP_SAY_WARN,
			       "%s runs on sm_%d only by JIT-compiling its PTX (a slow first run, maybe "
			       "slower kernels): %s",
			       w->filename, jb->in->gpu_sm[g], wp_buf_cstr(&why));
	}
	wp_buf_free(&code);
	wp_buf_free(&merged);
	wp_buf_free(&why);
	return rc;
}

int wp_install_run(const struct wp_session *s, const struct wp_install_job *in,
		   struct wp_install_report *rep, struct wp_err *err)
{
	struct job jb = { .s = s, .in = in, .rep = rep };
	bool env_open = false, journal = false, staged = false;
	struct abortable *abortable = NULL;
	int rc;
	memset(rep, 0, sizeof(*rep));
	if ((rc = wp_lazy_require(WP_LIB_ARCHIVE | WP_LIB_CRYPTO, err)))
		return rc;
	if ((rc = wp_ienv_open(&jb.env, in->python, in->scheme, s->envp, in->dir, s->asks,
			       &rep->recovered, err)))
		return rc;
	env_open = true;
	rep->executable = wp_xstrdup(jb.env.py.executable);
	if ((rc = wp_ienv_check_managed(&jb.env, in->scheme, in->break_system_packages, "install",
					err)))
		goto out;
	if ((rc = wp_tagset_build(&jb.tags, &jb.env.py.target, err)))
		goto out;
	/* every refusal before anything is written: sources, tags, hashes, structure, metadata */
	if ((rc = gather(&jb, err)))
		goto out;
	wp_say(s, WP_SAY_DEBUG, "%zu wheels chosen and their sha256 checked", jb.wants.n);
	if ((rc = open_wheels(&jb, err)) || (rc = check_deps(&jb, err)) ||
	    (!in->dry_run && (rc = fill_store(&jb, err))))
		goto out;
	wp_say(s, WP_SAY_DEBUG, "wheels opened, tags, Requires-Python and Requires-Dist checked");
	wp_ijournal_init(&jb.j, jb.env.py.purelib);
	journal = true;
	for (size_t i = 0; i < jb.nw && !rc; i++)
		rc = wp_iwheel_plan(&jb.w[i], &jb.env, (unsigned long)i, err);
	if (rc)
		goto out;
	if ((rc = drop_satisfied(&jb, err)))
		goto out;
	if (!jb.nw)
		goto out; /* every wheel is installed as it is: nothing to write */
	if (in->dry_run) {
		if (!(rc = check_collisions(&jb, err)))
			for (size_t i = 0; i < jb.nw; i++)
				report_wheel(rep, &jb.w[i], jb.w[i].info.unpacked_size);
		goto out;
	}
	stage_dist_info_apart(&jb);
	if ((rc = check_collisions(&jb, err)) || (rc = plan_dirs(&jb, err)))
		goto out;
	for (size_t i = 0; i < jb.nw; i++)
		for (size_t k = 0; k < jb.w[i].files.n; k++) {
			const struct wp_iwheel_file *f = &jb.w[i].files.v[k];
			wp_ijournal_add(&jb.j, WP_IJ_RENAME, f->tmp,
					f->stage_dest ? f->stage_dest : f->dest);
		}
	for (size_t i = 0; i < jb.nw; i++) /* after every file is in its staged .dist-info */
		if (jb.w[i].dist_info_stage)
			wp_ijournal_add(&jb.j, WP_IJ_RENAME, jb.w[i].dist_info_stage,
					jb.w[i].dist_info_dest);
	char *tpath = wp_itargets_path(&jb.env),
	     *ttmp = wp_xasprintf("%s.tmp.%ld", tpath, wp_os_getpid()), *tmade = NULL;
	bool targets_gone = false;
	wp_ijournal_add(&jb.j, WP_IJ_RENAME, ttmp, tpath);
	struct wp_strlist drop = { 0 };
	struct wp_buf add = WP_BUF_INIT;
	for (size_t i = 0; i < jb.nw; i++) {
		wp_strlist_push(&drop, jb.w[i].project);
		if (jb.w[i].target)
			wp_buf_printf(&add, "%s\t%s\n", jb.w[i].project, jb.w[i].target);
	}
	if (!(rc = wp_ijournal_write_staging(&jb.j, err))) {
		staged = true;
		abortable = abortable_make(&jb.j);
		abortable_set(abortable);
		rc = wp_itargets_stage(&jb.env, &drop, add.len ? wp_buf_cstr(&add) : NULL, &tmade,
				       err);
		if (!rc && tmade && strcmp(tmade, ttmp))
			rc = wp_fail(err, -WPE_IO, "'%s' was staged as '%s'", tpath, tmade);
		targets_gone = !rc && !tmade; /* nothing left to say: the file goes at the commit */
	}
	free(tpath);
	free(ttmp);
	free(tmade);
	wp_strlist_release(&drop);
	wp_buf_free(&add);
	if (rc)
		goto out;
	if ((rc = make_dirs(&jb, err)) || (rc = run_pool(&jb, false, err)))
		goto out;
	wp_say(s, WP_SAY_DEBUG, "every file staged beside its destination");
	for (size_t i = 0; i < jb.nw && !rc; i++)
		rc = wp_wheel_reader_check(jb.w[i].r, err);
	for (size_t i = 0; i < jb.nw && !rc; i++)
		rc = check_gpu_code(&jb, &jb.w[i], err);
	for (size_t i = 0; i < jb.nw && !rc; i++)
		rc = wp_iwheel_finish(&jb.w[i], &jb.env, (unsigned long)i, err);
	if (rc)
		goto out;
	/* the old files the new ones do not replace go; a path both have is replaced by the
	 * rename */
	struct wp_strlist keep = { 0 };
	for (size_t i = 0; i < jb.nw; i++)
		for (size_t k = 0; k < jb.w[i].files.n; k++)
			wp_strlist_push(&keep, jb.w[i].files.v[k].dest);
	if (keep.n) /* qsort's array may not be NULL, even for none */
		qsort(keep.v, keep.n, sizeof(*keep.v), cmp_strp);
	for (size_t i = 0; i < jb.nw; i++)
		if (jb.w[i].old.dist_info)
			wp_old_dist_plan_removal(&jb.w[i].old, &keep, &jb.j);
	wp_strlist_release(&keep);
	if (targets_gone) {
		char *tp = wp_itargets_path(&jb.env);
		struct wp_os_stat tsb;
		if (wp_os_lstat(tp, &tsb) == 0)
			wp_ijournal_add(&jb.j, WP_IJ_UNLINK, tp, NULL);
		free(tp);
	}
	abortable_take(abortable); /* from here a killed run is finished by the next one, never
				      undone */
	if ((rc = wp_ijournal_commit(&jb.j, err)))
		goto out;
	staged = false;
	wp_say(s, WP_SAY_DEBUG, "RECORDs matched; synced and committed (%zu changes)", jb.j.e.n);
	if ((rc = wp_ijournal_apply(&jb.j, &jb.env, err)))
		goto out;
	wp_say(s, WP_SAY_DEBUG, "applied and synced");
	for (size_t i = 0; i < jb.nw; i++) {
		struct wp_iwheel *w = &jb.w[i];
		long long bytes = 0;
		for (size_t k = 0; k < w->files.n; k++)
			bytes += w->files.v[k].size;
		report_wheel(rep, w, bytes);
		rep->link_fell_back = rep->link_fell_back ||
				      __atomic_load_n(&w->link_fell_back, __ATOMIC_RELAXED);
	}
	if (in->compile)
		rc = compile_installed(&jb, err);
out:
	abortable_take(abortable);
	abortable_free(abortable);
	if (staged)
		wp_ijournal_abort(&jb.j, &jb.env);
	if (journal)
		wp_ijournal_release(&jb.j);
	for (size_t i = 0; i < jb.nw; i++) {
		wp_iwheel_release(&jb.w[i]);
	}
	free(jb.w);
	for (size_t i = 0; i < jb.wants.n; i++) {
		free(jb.wants.v[i].path);
		free(jb.wants.v[i].filename);
		free(jb.wants.v[i].sha256);
	}
	wp_vec_free(&jb.wants);
	for (size_t i = 0; i < jb.cands.n; i++) {
		free(jb.cands.v[i].path);
		wp_wheelname_release(&jb.cands.v[i].wn);
		if (jb.cands.v[i].v_ok)
			wp_version_release(&jb.cands.v[i].v);
	}
	wp_vec_free(&jb.cands);
	if (jb.py_version_ok)
		wp_version_release(&jb.py_version);
	for (size_t i = 0; i < jb.scanned.n; i++)
		free((char *)jb.scanned.v[i]);
	wp_strlist_release(&jb.scanned);
	for (size_t i = 0; i < jb.targets.n; i++)
		free((char *)jb.targets.v[i]);
	wp_strlist_release(&jb.targets);
	for (size_t i = 0; i < jb.tmpdirs.n; i++) {
		wp_fs_remove_tree(jb.tmpdirs.v[i]);
		free((char *)jb.tmpdirs.v[i]);
	}
	wp_strlist_release(&jb.tmpdirs);
	wp_tagset_release(&jb.tags);
	if (env_open)
		wp_ienv_close(&jb.env);
	return rc;
}
