/* ops/publish/mirror.c: PEP 503/691/658 simple tree from proven files, re-runs merged through a
 * manifest. */
#include "ops/publish/mirror.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/url.h"
#include "base/vec.h"
#include "index/html.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"
#include "verify/hash.h"
#include "verify/archopen.h"
#include "verify/metadata.h"
#include "base/os/os.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MANIFEST_MAX ((size_t)256 << 20) /* our own file; past this something else wrote it */

/* One file of the tree, from the manifest or from this run. */
struct entry {
	char *project;         /* PEP 503 normalised */
	char *filename;
	char sha256[WP_SHA256_HEX_LEN + 1];
	long long size;
	char *requires_python;
	char *meta_sha256;     /* of filename.metadata; NULL when there is none */
	char *upload_time;
	char *variant; /* the build's variant label ("cu118"); "" for a file that has none */
	bool vwheel, vjson; /* PEP 825: a wheel with a variant label; a
			       {name}-{version}-variants.json */
	char *release;         /* for either, the version its name gives ("2.10.0"), else NULL */
	char *file_version;    /* a wheel's or an sdist's version as its name gives it, else NULL */
	struct wp_version fv; /* file_version parsed, when fv_ok (once: each page lists the file) */
	bool fv_ok;
	const struct wp_mirror_file *src; /* this run's file, or NULL */
	struct wp_buf meta;    /* this run's .metadata bytes (empty when none) */
	bool have_old;         /* the manifest listed it */
	char old_sha256[WP_SHA256_HEX_LEN + 1];
	long long old_size;
	char *old_meta_sha256;
	bool in_place;         /* the tree has these bytes under this name already */
	bool conflict; /* the name is in the tree with other bytes: unlisted before replacing */
	bool drop;             /* pruned */
};

WP_VEC_OF(entries, struct entry);

static struct entry *entries_add(struct entries *es)
{
	struct entry *e = wp_vec_add(es);
	e->meta = (struct wp_buf)WP_BUF_INIT;
	e->size = e->old_size = -1;
	return e;
}

static void entry_release(struct entry *e)
{
	free(e->project);
	free(e->filename);
	free(e->requires_python);
	free(e->meta_sha256);
	free(e->upload_time);
	free(e->variant);
	free(e->release);
	free(e->file_version);
	if (e->fv_ok)
		wp_version_release(&e->fv);
	free(e->old_meta_sha256);
	wp_buf_free(&e->meta);
	memset(e, 0, sizeof(*e));
}

static void entries_free(struct entries *es)
{
	for (size_t i = 0; i < es->n; i++)
		entry_release(&es->v[i]);
	free(es->v);
	memset(es, 0, sizeof(*es));
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->project, y->project);
	return c ? c : strcmp(x->filename, y->filename);
}

/* In the first n entries, which are sorted. */
static struct entry *entries_find_n(struct entries *es, size_t n, const char *project,
				    const char *filename)
{
	struct entry key = { .project = (char *)project, .filename = (char *)filename };
	return n ? bsearch(&key, es->v, n, sizeof(*es->v), entry_cmp) : NULL;
}

static struct entry *entries_find(struct entries *es, const char *project, const char *filename)
{
	return entries_find_n(es, es->n, project, filename);
}

static char *xstrdup_or_null(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* ---- roots and pages ---- */

/* A page set: the "simple" root (every file) and one root per variant (its builds and the files
 * that have no variant), as download.pytorch.org lays out /whl/cu118/ beside /whl/. */
WP_VEC_OF(strs, char *);

static bool strs_has(const struct strs *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static void strs_add(struct strs *l, const char *s)
{
	if (!strs_has(l, s))
		wp_vec_push(l, wp_xstrdup(s));
}

static void strs_free(struct strs *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	wp_vec_free(l);
}

/* Does root list this entry? */
static bool in_root(const char *root, const struct entry *e)
{
	return !strcmp(root, "simple") || !e->variant || !e->variant[0] ||
	       !strcmp(e->variant, root);
}

/* The version a file name carries, newly allocated; NULL when it carries none we can read. */
static char *filename_version(const char *filename)
{
	char *x = NULL;
	wp_distname_split(filename, NULL, &x);
	return x;
}

/* PEP 825 names: set vwheel, vjson and release from the file name, and the version it gives
 * (file_version, fv): from the plan's parse for this run's wheels, else parsed here, once. */
static void note_release(struct entry *e)
{
	struct wp_wheelname w;
	const struct wp_wheelname *wn = e->src ? e->src->wheel : NULL;
	bool parsed = false;
	free(e->release);
	free(e->file_version);
	if (e->fv_ok)
		wp_version_release(&e->fv);
	e->release = e->file_version = NULL;
	e->vwheel = e->vjson = e->fv_ok = false;
	if (wp_index_file_kind(e->filename) == WP_KIND_VARIANTS) {
		/* {name}-{version}-variants.json: the name holds no '-' (wp_variants_json_name) */
		const char *dash = strchr(e->filename, '-');
		e->vjson = true;
		e->release = wp_xstrndup(dash + 1, strlen(dash + 1) - strlen("-variants.json"));
		return;
	}
	if (!wn && wp_wheelname_parse(e->filename, &w, NULL) == 0)
		wn = &w, parsed = true;
	if (wn) {
		if (wn->variant_label) {
			e->vwheel = true;
			e->release = wp_xstrdup(wn->version);
		}
		e->file_version = wp_xstrdup(wn->version);
	} else {
		e->file_version = filename_version(e->filename); /* an sdist */
	}
	if (parsed)
		wp_wheelname_release(&w);
	if (e->src && e->src->wheel && e->src->version) {
		wp_version_copy(&e->fv, e->src->version);
		e->fv_ok = true;
	} else if (e->file_version) {
		e->fv_ok = wp_version_parse(&e->fv, e->file_version, strlen(e->file_version),
					    NULL) == 0;
	}
}

/* Does root's page for a project (its entries grp[0..ng), e among them) list e? A variants.json
 * goes wherever a variant wheel of its release is listed (PEP 825: in every response that includes
 * them), and on simple/ always, which lists every file. */
static bool shown_in(const char *root, const struct entry *grp, size_t ng, const struct entry *e,
		     bool (*listed)(const struct entry *))
{
	if (!listed(e))
		return false;
	if (!e->vjson || !strcmp(root, "simple"))
		return in_root(root, e);
	for (size_t i = 0; i < ng; i++)
		if (grp[i].vwheel && listed(&grp[i]) && in_root(root, &grp[i]) &&
		    wp_version_same(grp[i].release, e->release))
			return true;
	return false;
}

/* A variant label that may name a root folder: what PyTorch's index uses ("cu118", "rocm6.4",
 * "cpu-cxx11-abi" normalised), and never a name the tree uses itself. */
static bool root_name_ok(const char *v)
{
	if (!v || !*v || !strcmp(v, "simple") || !strcmp(v, "files") || v[0] == '.' ||
	    strlen(v) > 48)
		return false;
	for (const char *p = v; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' ||
		      *p == '-' || *p == '_'))
			return false;
	return true;
}

/* ---- names ---- */

/* filename as one percent-encoded URL path segment ('+' becomes %2B), appended to out. */
static void href_encode(const char *filename, struct wp_buf *out)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)filename; *p; p++) {
		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~') {
			wp_buf_addch(out, (char)*p);
		} else {
			char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			wp_buf_add(out, esc, 3);
		}
	}
}

static void html_escape(struct wp_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': wp_buf_addstr(b, "&amp;"); break;
		case '<': wp_buf_addstr(b, "&lt;"); break;
		case '>': wp_buf_addstr(b, "&gt;"); break;
		case '"': wp_buf_addstr(b, "&quot;"); break;
		case '\'': wp_buf_addstr(b, "&#39;"); break;
		default: wp_buf_addch(b, *s);
		}
	}
}

/* ---- the tree on disk ---- */

#define MIRROR_LOCK_WAIT_MS (10 * 60 * 1000)

/* Remove what crashed writers left: only while we hold the lock, so no live writer owns them. */
static void clean_tmp_in(const char *dir)
{
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	if (!d)
		return;
	while ((de = wp_os_readdir(d))) {
		if (wp_fs_is_tmp_name(de->d_name)) {
			char *p = wp_xasprintf("%s/%s", dir, de->d_name);
			wp_os_unlink(p);
			free(p);
		}
	}
	wp_os_closedir(d);
}

/* The root, files/<project>/, simple/<project>/ and each variant root's <project>/: every folder
 * a run writes into, at most three levels down; links are not followed out of the tree. */
static void clean_tmp_tree_at(const char *dir, int depth)
{
	clean_tmp_in(dir);
	struct wp_os_dir *d = depth < 3 ? wp_os_opendir(dir) : NULL;
	const struct wp_os_dirent *de;
	while (d && (de = wp_os_readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = wp_xasprintf("%s/%s", dir, de->d_name);
		struct wp_os_stat sb;
		if (wp_os_lstat(p, &sb) == 0 && WP_S_ISDIR(sb.st_mode))
			clean_tmp_tree_at(p, depth + 1);
		free(p);
	}
	if (d)
		wp_os_closedir(d);
}

static void clean_tmp_tree(const char *dir)
{
	clean_tmp_tree_at(dir, 0);
}

static char *file_path(const char *dir, const char *project, const char *filename,
		       const char *suffix)
{
	return wp_xasprintf("%s/files/%s/%s%s", dir, project, filename, suffix);
}

static bool exists(const char *path, long long *size)
{
	struct wp_os_stat sb;
	if (wp_os_stat(path, &sb) < 0 || !WP_S_ISREG(sb.st_mode))
		return false;
	if (size)
		*size = (long long)sb.st_size;
	return true;
}

/* Write path unless it already holds exactly these bytes (keeps mtimes, and nginx's caches). */
static int write_if_changed(const char *path, const struct wp_buf *b, struct wp_err *err)
{
	struct wp_os_stat sb;
	if (wp_os_stat(path, &sb) == 0 && WP_S_ISREG(sb.st_mode) && (size_t)sb.st_size == b->len) {
		int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
		if (fd >= 0) {
			char *old = wp_xmalloc(b->len + 1);
			ssize_t got = wp_os_read(fd, old, b->len + 1);
			wp_os_close(fd);
			bool same = got == (ssize_t)b->len && !memcmp(old, b->data, b->len);
			free(old);
			if (same)
				return 0;
		}
	}
	return wp_atomic_write(path, b->data ? b->data : "", b->len, err);
}

int wp_mirror_wheel_metadata(const char *path, const char *filename, struct wp_buf *out,
			     struct wp_err *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	int rc = 0, r;
	archive_read_support_format_zip_seekable(a);
	if (wp_archive_read_open_paths(a, &path, 1) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_INTEGRITY, "cannot read wheel '%s': %s", filename,
			     archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(ae);
		const char *slash = name ? strchr(name, '/') : NULL;
		if (!slash || strcmp(slash, "/METADATA") || slash - name < 10 ||
		    strncmp(slash - 10, ".dist-info", 10))
			continue;
		if (archive_entry_size(ae) > WP_METADATA_MAX_LEN) {
			rc = wp_fail(err, -WPE_TOO_BIG, "METADATA of '%s' is larger than %d bytes",
				     filename, WP_METADATA_MAX_LEN);
			goto out;
		}
		char chunk[16384];
		la_ssize_t got;
		while ((got = archive_read_data(a, chunk, sizeof(chunk))) > 0) {
			if (wp_buf_add(out, chunk, (size_t)got) < 0) {
				rc = wp_fail(err, -WPE_TOO_BIG,
					     "METADATA of '%s' is larger than %d bytes", filename,
					     WP_METADATA_MAX_LEN);
				goto out;
			}
		}
		if (got < 0)
			rc = wp_fail(err, -WPE_INTEGRITY, "cannot read METADATA of '%s': %s",
				     filename, archive_error_string(a));
		goto out;
	}
	if (r != ARCHIVE_EOF)
		rc = wp_fail(err, -WPE_INTEGRITY, "cannot read wheel '%s': %s", filename,
			     archive_error_string(a));
out:
	archive_read_free(a);
	return rc;
}

/* ---- JSON writing ---- */

/* The document into out, or -WPE_PARSE (text that is not UTF-8) naming what. */
static int json_finish(struct wp_json *w, struct wp_buf *out, const char *what, struct wp_err *err)
{
	if (wp_json_finish_buf(w, out) < 0)
		return wp_fail(err, -WPE_PARSE,
			       "cannot write '%s': a name or attribute is not UTF-8", what);
	return 0;
}

static void json_meta_version(struct wp_json *w, const char *version);

static void json_meta(struct wp_json *w)
{
	json_meta_version(w, "1.1");
}

static void json_meta_version(struct wp_json *w, const char *version)
{
	wp_json_key(w, "meta");
	wp_json_obj(w);
	wp_json_kstr(w, "api-version", version);
	wp_json_obj_end(w);
}

/* ---- pages ---- */

struct version_key {
	const char *text;           /* borrowed from the entry */
	const struct wp_version *v; /* likewise; NULL when text is not PEP 440 */
	bool ok;
};

static int version_key_cmp(const void *a, const void *b)
{
	const struct version_key *x = a, *y = b;
	if (x->ok && y->ok) {
		int c = wp_version_cmp(x->v, y->v);
		if (c)
			return c;
	} else if (x->ok != y->ok) {
		return x->ok ? 1 : -1;
	}
	return strcmp(x->text, y->text);
}

/* Whether e belongs on the page in this phase. */
typedef bool listed_fn(const struct entry *e);

static bool listed_final(const struct entry *e)
{
	return !e->drop;
}

/* Before conflicting files are replaced: what is on disk now and stays the same meanwhile. */
static bool listed_interim(const struct entry *e)
{
	return e->have_old && !e->conflict;
}

static int write_project(const char *dir, const char *root, const char *project,
			 const struct entry *v, size_t n, listed_fn *listed, struct wp_err *err)
{
	struct wp_buf html = WP_BUF_INIT, json = WP_BUF_INIT, href = WP_BUF_INIT;
	struct version_key *vers = wp_xcalloc(n ? n : 1, sizeof(*vers));
	size_t nvers = 0;
	char *pdir = wp_xasprintf("%s/%s/%s", dir, root, project);
	char *path = NULL;
	struct wp_json w;
	int rc;

	/* PEP 740's keys come with API version 1.3: a page that carries one says so */
	const char *version = "1.1";
	for (size_t i = 0; i < n; i++) {
		char *pv = file_path(dir, project, v[i].filename, ".provenance");
		if (shown_in(root, v, n, &v[i], listed) && wp_os_access(pv, WP_F_OK) == 0)
			version = "1.3";
		free(pv);
	}
	wp_buf_printf(&html,
		      "<!DOCTYPE html>\n<html>\n  <head>\n"
		      "    <meta name=\"pypi:repository-version\" content=\"%s\">\n    <title>Links for ",
		      version);
	html_escape(&html, project);
	wp_buf_addstr(&html, "</title>\n  </head>\n  <body>\n    <h1>Links for ");
	html_escape(&html, project);
	wp_buf_addstr(&html, "</h1>\n");

	wp_json_init_indent(&w, NULL);
	wp_json_obj(&w);
	json_meta_version(&w, version);
	wp_json_kstr(&w, "name", project);
	wp_json_key(&w, "files");
	wp_json_arr(&w);
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &v[i];
		const char *sha = e->sha256, *meta = e->meta_sha256, *rp = e->requires_python;
		if (!shown_in(root, v, n, e, listed))
			continue;
		if (listed == listed_interim) {
			sha = e->old_sha256;
			meta = e->old_meta_sha256;
		}
		/* PEP 825 (Provisional, revised 2026-08-19): an index does not publish the optional
		 * attributes (core-metadata, requires-python, yanked) for a variants.json */
		if (e->vjson)
			meta = rp = NULL;
		wp_buf_reset(&href);
		wp_buf_printf(&href, "../../files/%s/", project);
		href_encode(e->filename, &href);

		wp_buf_addstr(&html, "    <a href=\"");
		html_escape(&html, href.data);
		wp_buf_printf(&html, "#sha256=%s\"", sha);
		if (rp) {
			wp_buf_addstr(&html, " data-requires-python=\"");
			html_escape(&html, rp);
			wp_buf_addch(&html, '"');
		}
		if (meta)
			wp_buf_printf(&html, " data-dist-info-metadata=\"sha256=%s\""
				      " data-core-metadata=\"sha256=%s\"", meta, meta);
		/* PEP 740: the provenance carried beside the file, re-published under the same keys
		 * so that clients see it; relative, as the href is, so the tree serves from any
		 * host */
		char *pv = file_path(dir, project, e->filename, ".provenance");
		bool has_prov = wp_os_access(pv, WP_F_OK) == 0;
		free(pv);
		if (has_prov) {
			wp_buf_addstr(&html, " data-provenance=\"");
			html_escape(&html, href.data);
			wp_buf_addstr(&html, ".provenance\"");
		}
		wp_buf_addch(&html, '>');
		html_escape(&html, e->filename);
		wp_buf_addstr(&html, "</a><br>\n");

		wp_json_obj(&w);
		wp_json_kstr(&w, "filename", e->filename);
		wp_json_kstr(&w, "url", href.data);
		wp_json_key(&w, "hashes");
		wp_json_obj(&w);
		wp_json_kstr(&w, "sha256", sha);
		wp_json_obj_end(&w);
		if (rp)
			wp_json_kstr(&w, "requires-python", rp);
		if (meta) {
			/* PEP 714's key only: pip 22.3 to 23.1 (Debian 12's 23.0.1 among them) fail
			 * hard on PEP 658's "dist-info-metadata" in JSON, which is why PEP 714
			 * renamed it; the HTML page keeps both attributes, which every pip reads
			 * without harm */
			wp_json_key(&w, "core-metadata");
			wp_json_obj(&w);
			wp_json_kstr(&w, "sha256", meta);
			wp_json_obj_end(&w);
		}
		if (has_prov) {
			char *pu = wp_xasprintf("%s.provenance", href.data);
			wp_json_kstr(&w, "provenance", pu);
			free(pu);
		}
		if (e->size >= 0)
			wp_json_kint(&w, "size", e->size);
		if (e->upload_time)
			wp_json_kstr(&w, "upload-time", e->upload_time);
		if (!e->vjson)
			wp_json_kbool(&w, "yanked", false);
		wp_json_obj_end(&w);

		if (e->file_version) {
			vers[nvers].text = e->file_version;
			vers[nvers].v = e->fv_ok ? &e->fv : NULL;
			vers[nvers].ok = e->fv_ok;
			nvers++;
		}
	}
	wp_json_arr_end(&w);
	qsort(vers, nvers, sizeof(*vers), version_key_cmp);
	wp_json_key(&w, "versions");
	wp_json_arr(&w);
	for (size_t i = 0; i < nvers; i++)
		if (!i || strcmp(vers[i].text, vers[i - 1].text))
			wp_json_str(&w, vers[i].text);
	wp_json_arr_end(&w);
	wp_json_obj_end(&w);
	wp_buf_addstr(&html, "  </body>\n</html>\n");

	rc = json_finish(&w, &json, project, err);
	if (!rc)
		rc = wp_mkdir_p(pdir, 0755, err);
	/* HTML first: pip reads it unless it asks for JSON, and verify compares the two */
	path = wp_xasprintf("%s/index.html", pdir);
	if (!rc)
		rc = write_if_changed(path, &html, err);
	free(path);
	path = wp_xasprintf("%s/index.json", pdir);
	if (!rc)
		rc = write_if_changed(path, &json, err);
	free(vers);
	free(path);
	free(pdir);
	wp_buf_free(&html);
	wp_buf_free(&json);
	wp_buf_free(&href);
	return rc;
}

/* Each project page of root with at least one listed file; projects is set to how many, and
 * pages (unless NULL) gets "root/project" for each page written. */
static int write_projects(const char *dir, const char *root, struct entries *es, listed_fn *listed,
			  bool only_conflicts, size_t *projects, struct strs *pages,
			  struct wp_err *err)
{
	bool write = dir != NULL; /* without dir: only count them and name them in pages */
	size_t count = 0;
	for (size_t i = 0; i < es->n;) {
		size_t j = i, shown = 0;
		bool conflict = false;
		while (j < es->n && !strcmp(es->v[j].project, es->v[i].project))
			j++;
		for (size_t k = i; k < j; k++) {
			shown += shown_in(root, &es->v[i], j - i, &es->v[k], listed);
			conflict |= es->v[k].conflict;
		}
		/* a conflicting project's interim page is written even when it lists nothing, where
		 * a page stands: that page names the bytes about to be replaced */
		bool stands = false;
		if (write && only_conflicts && conflict && !shown) {
			char *pg = wp_xasprintf("%s/%s/%s/index.html", dir, root, es->v[i].project);
			stands = exists(pg, NULL);
			free(pg);
		}
		if (write && (shown || stands) && (!only_conflicts || conflict)) {
			int rc = write_project(dir, root, es->v[i].project, &es->v[i], j - i,
					       listed, err);
			if (rc)
				return rc;
		}
		if (shown && pages) {
			char *pg = wp_xasprintf("%s/%s", root, es->v[i].project);
			strs_add(pages, pg);
			free(pg);
		}
		count += shown > 0;
		i = j;
	}
	if (projects)
		*projects = count;
	return 0;
}

static int write_root(const char *dir, const char *root, const struct entries *es,
		      struct wp_err *err)
{
	struct wp_buf html = WP_BUF_INIT, json = WP_BUF_INIT;
	char *path = NULL;
	struct wp_json w;
	int rc;

	wp_buf_addstr(&html, "<!DOCTYPE html>\n<html>\n  <head>\n"
		      "    <meta name=\"pypi:repository-version\" content=\"1.1\">\n"
		      "    <title>Simple index</title>\n  </head>\n  <body>\n");
	wp_json_init_indent(&w, NULL);
	wp_json_obj(&w);
	json_meta(&w);
	wp_json_key(&w, "projects");
	wp_json_arr(&w);
	const char *last = NULL;
	for (size_t i = 0; i < es->n; i++) {
		const struct entry *e = &es->v[i];
		/* a variants.json is on a variant root only beside a wheel of its, which names the
		 * project */
		if (e->drop || !in_root(root, e) || (e->vjson && strcmp(root, "simple")) ||
		    (last && !strcmp(last, e->project)))
			continue;
		last = e->project;
		wp_buf_addstr(&html, "    <a href=\"");
		html_escape(&html, e->project);
		wp_buf_addstr(&html, "/\">");
		html_escape(&html, e->project);
		wp_buf_addstr(&html, "</a><br>\n");
		wp_json_obj(&w);
		wp_json_kstr(&w, "name", e->project);
		wp_json_obj_end(&w);
	}
	wp_json_arr_end(&w);
	wp_json_obj_end(&w);
	wp_buf_addstr(&html, "  </body>\n</html>\n");

	char *rdir = wp_xasprintf("%s/%s", dir, root);
	rc = json_finish(&w, &json, root, err);
	if (!rc)
		rc = wp_mkdir_p(rdir, 0755, err);
	free(rdir);
	path = wp_xasprintf("%s/%s/index.html", dir, root);
	if (!rc)
		rc = write_if_changed(path, &html, err);
	free(path);
	path = wp_xasprintf("%s/%s/index.json", dir, root);
	if (!rc)
		rc = write_if_changed(path, &json, err);
	free(path);
	wp_buf_free(&html);
	wp_buf_free(&json);
	return rc;
}

/* ---- the manifest ---- */

static int write_manifest(const char *dir, const struct entries *es, const struct strs *roots,
			  const struct strs *pages, struct wp_err *err)
{
	struct wp_buf out = WP_BUF_INIT;
	struct wp_json w;
	wp_json_init_indent(&w, " ");
	wp_json_obj(&w);
	wp_json_kint(&w, "version", 1);
	/* the pages this tree's writer made: a re-run removes only its own, never another tool's */
	static const char *const keys[] = { "roots", "pages" };
	const struct strs *lists[] = { roots, pages };
	for (size_t k = 0; k < 2; k++) {
		wp_json_key(&w, keys[k]);
		wp_json_arr(&w);
		for (size_t i = 0; i < lists[k]->n; i++)
			wp_json_str(&w, lists[k]->v[i]);
		wp_json_arr_end(&w);
	}
	wp_json_key(&w, "files");
	wp_json_arr(&w);
	for (size_t i = 0; i < es->n; i++) {
		const struct entry *e = &es->v[i];
		if (e->drop)
			continue;
		wp_json_obj(&w);
		wp_json_kstr(&w, "project", e->project);
		wp_json_kstr(&w, "filename", e->filename);
		wp_json_kstr(&w, "sha256", e->sha256);
		wp_json_kint(&w, "size", e->size);
		wp_json_kstr(&w, "requires_python", e->requires_python);
		wp_json_kstr(&w, "metadata_sha256", e->meta_sha256);
		wp_json_kstr(&w, "upload_time", e->upload_time);
		if (e->variant && *e->variant)
			wp_json_kstr(&w, "variant", e->variant);
		wp_json_obj_end(&w);
	}
	wp_json_arr_end(&w);
	wp_json_obj_end(&w);
	char *path = wp_xasprintf("%s/%s", dir, WP_MIRROR_MANIFEST);
	int rc = json_finish(&w, &out, path, err);
	if (!rc)
		rc = write_if_changed(path, &out, err);
	free(path);
	wp_buf_free(&out);
	return rc;
}

/* The files a previous run left, those still on disk; a missing manifest is an empty tree. */
static int read_manifest(const char *dir, struct entries *es, struct strs *roots,
			 struct strs *pages, struct wp_err *err)
{
	char *path = wp_xasprintf("%s/%s", dir, WP_MIRROR_MANIFEST);
	const struct wp_json_opts o = { .what = path,
					.noun = "mirror manifest",
					.max_bytes = MANIFEST_MAX };
	struct wp_buf b;
	struct wp_json_val *root = NULL;
	bool found;
	int rc = wp_file_read_if_exists(path, MANIFEST_MAX, &b, &found, err);
	if (rc || !found)
		goto out;
	/* whatever is wrong with it, the remedy is the same: the message below says it */
	wp_json_load(b.data, b.len, &o, &root, NULL);
	const struct wp_json_val *files = wp_json_get_arr(root, "files");
	if (!files) {
		rc = wp_fail(err, -WPE_PARSE,
			     "mirror manifest '%s' is not one wheelpick wrote; move it "
			     "away to rebuild the pages from this run's files",
			     path);
		goto out;
	}
	/* the roots and pages it wrote; a manifest from before they were kept had simple/ only */
	const struct wp_json_val *lr = wp_json_get_arr(root, "roots"),
				 *lp = wp_json_get_arr(root, "pages");
	for (size_t i = 0; i < wp_json_len(lr); i++) {
		const char *r = wp_json_as_str(wp_json_at(lr, i));
		if (r && root_name_ok(r))
			strs_add(roots, r);
	}
	for (size_t i = 0; i < wp_json_len(lp); i++) {
		const char *pg = wp_json_as_str(wp_json_at(lp, i)),
			   *slash = pg ? strchr(pg, '/') : NULL;
		if (!slash)
			continue;
		char *r = wp_xstrndup(pg, (size_t)(slash - pg));
		if ((!strcmp(r, "simple") || root_name_ok(r)) &&
		    wp_index_project_name_ok(slash + 1, strlen(slash + 1)))
			strs_add(pages, pg);
		free(r);
	}
	bool old_style = !lp;
	for (size_t i = 0; i < wp_json_len(files); i++) {
		const struct wp_json_val *f = wp_json_at(files, i);
		const char *project = wp_json_get_str(f, "project"),
			   *filename = wp_json_get_str(f, "filename");
		const char *sha = wp_json_get_str(f, "sha256"),
			   *meta = wp_json_get_str(f, "metadata_sha256");
		long long size, on_disk;
		if (!project || !filename || !sha || !wp_sha256_hex_valid(sha) ||
		    !wp_index_project_name_ok(project, strlen(project)) ||
		    !wp_url_filename_ok(filename))
			continue;
		char *fpath = file_path(dir, project, filename, "");
		bool here = exists(fpath, &on_disk);
		free(fpath);
		/* a file someone deleted by hand leaves the pages rather than breaking them, and
		 * its .metadata (ours: the manifest lists the file) goes with it, not left for no
		 * page to link. Only the writer reads the manifest, holding the tree's lock. */
		if (!here) {
			char *mpath = file_path(dir, project, filename, ".metadata");
			wp_os_unlink(mpath);
			free(mpath);
			continue;
		}
		struct entry *e = entries_add(es);
		e->project = wp_xstrdup(project);
		e->filename = wp_xstrdup(filename);
		memcpy(e->sha256, sha, sizeof(e->sha256));
		for (char *p = e->sha256; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		e->size = wp_json_as_int(wp_json_get(f, "size"), &size) ? size : on_disk;
		if (e->size != on_disk)
			e->size = -2; /* bytes changed behind our back: never "unchanged" */
		e->requires_python = xstrdup_or_null(wp_json_get_str(f, "requires_python"));
		e->upload_time = xstrdup_or_null(wp_json_get_str(f, "upload_time"));
		const char *var = wp_json_get_str(f, "variant");
		e->variant = wp_xstrdup(var && root_name_ok(var) ? var : "");
		if (old_style) {
			/* an older manifest: the pages it wrote were simple/<project> for its
			 * files */
			char *pg = wp_xasprintf("simple/%s", project);
			strs_add(pages, pg);
			free(pg);
		}
		if (meta && wp_sha256_hex_valid(meta)) {
			char *mpath = file_path(dir, project, filename, ".metadata");
			if (exists(mpath, NULL))
				e->meta_sha256 = wp_xstrdup(meta);
			free(mpath);
		}
	}
out:
	wp_json_tree_free(root);
	wp_buf_free(&b);
	free(path);
	return rc;
}

/* ---- this run's files ---- */

/* A PEP 825 variants.json given as bytes (the catalog's copy): they must be what the index listed,
 * and the name must be the project's. */
static int add_body(const struct wp_mirror_file *f, struct entries *es, struct wp_err *err)
{
	struct wp_buf project = WP_BUF_INIT, named = WP_BUF_INIT;
	char hex[WP_SHA256_HEX_LEN + 1];
	int rc = 0;
	if (wp_index_file_kind(f->filename) != WP_KIND_VARIANTS)
		return wp_fail(err, -WPE_USAGE,
			       "'%s' is given as bytes, which only a {name}-{version}-variants.json may be",
			       f->filename);
	wp_project_name_normalize(f->project, strlen(f->project), &project);
	wp_project_name_normalize(f->filename, (size_t)(strchr(f->filename, '-') - f->filename),
				  &named);
	if (strcmp(project.data, named.data)) {
		rc = wp_fail(err, -WPE_USAGE, "'%s' is not a file of project '%s'", f->filename,
			     f->project);
		goto out;
	}
	wp_sha256_hex_of(f->body, f->body_len, hex);
	if (strcasecmp(hex, f->sha256)) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "variants.json '%s' kept in the catalog has sha256 %s, not the %s its "
			     "index lists; run `wheelpick update` to read it again",
			     f->filename, hex[0] ? hex : "(none)", f->sha256);
		goto out;
	}
	struct entry *e = entries_add(es);
	e->project = wp_buf_detach(&project, NULL);
	e->filename = wp_xstrdup(f->filename);
	memcpy(e->sha256, hex, sizeof(e->sha256));
	e->size = (long long)f->body_len;
	e->variant = wp_xstrdup("");
	e->src = f;
out:
	wp_buf_free(&project);
	wp_buf_free(&named);
	return rc;
}

static int add_new(const char *dir, const struct wp_mirror_file *f, struct entries *es,
		   const struct wp_mirror_opts *o, struct wp_err *err)
{
	struct wp_buf project = WP_BUF_INIT;
	struct wp_wheelname wn;
	struct wp_os_stat sb;
	int rc = 0;

	if (!f->project || !wp_index_project_name_ok(f->project, strlen(f->project)))
		return wp_fail(err, -WPE_USAGE, "'%s' is not a valid project name",
			       f->project ? f->project : "(null)");
	if (!f->filename || !wp_url_filename_ok(f->filename) || wp_fs_is_tmp_name(f->filename) ||
	    wp_index_file_kind(f->filename) == WP_KIND_UNKNOWN)
		return wp_fail(err, -WPE_USAGE, "'%s' is not a wheel or sdist file name",
			       f->filename ? f->filename : "(null)");
	if (!f->sha256 || !wp_sha256_hex_valid(f->sha256))
		return wp_fail(err, -WPE_USAGE, "'%s' has no valid sha256", f->filename);
	if (f->body)
		return add_body(f, es, err);
	if (wp_index_file_kind(f->filename) == WP_KIND_VARIANTS)
		return wp_fail(err, -WPE_USAGE, "'%s' is a variants.json given without its bytes",
			       f->filename);
	if (!f->store_path || wp_os_stat(f->store_path, &sb) < 0)
		return wp_fs_fail(err, f->store_path ? errno : ENOENT, "cannot read",
				  f->store_path ? f->store_path : f->filename);
	if (f->size >= 0 && f->size != (long long)sb.st_size)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' is %lld bytes in the store, not the %lld "
			       "announced", f->filename, (long long)sb.st_size, f->size);
	wp_project_name_normalize(f->project, strlen(f->project), &project);
	/* a wheel's name as the plan parsed it, else parsed here (a file given without a plan) */
	if (f->wheel || wp_wheelname_parse(f->filename, &wn, NULL) == 0) {
		bool ours = !strcmp((f->wheel ? f->wheel : &wn)->project, project.data);
		if (!f->wheel)
			wp_wheelname_release(&wn);
		if (!ours) {
			rc = wp_fail(err, -WPE_USAGE, "wheel '%s' is not a file of project '%s'",
				     f->filename, f->project);
			goto out;
		}
	}

	struct entry *e = entries_add(es);
	e->project = wp_buf_detach(&project, NULL);
	e->filename = wp_xstrdup(f->filename);
	for (int i = 0; i <= WP_SHA256_HEX_LEN; i++)
		e->sha256[i] = (char)tolower((unsigned char)f->sha256[i]);
	e->size = (long long)sb.st_size;
	e->requires_python = xstrdup_or_null(f->requires_python && *f->requires_python ?
					     f->requires_python : NULL);
	e->upload_time = xstrdup_or_null(f->upload_time);
	e->variant = wp_xstrdup(f->variant && root_name_ok(f->variant) ? f->variant : "");
	e->src = f;
	if (wp_index_file_kind(f->filename) == WP_KIND_WHEEL) {
		e->meta = (struct wp_buf)WP_BUF_INIT_MAX(WP_METADATA_MAX_LEN);
		size_t known_len = 0;
		const char *known = f->metadata     ? f->metadata :
				    o && o->meta_in ? o->meta_in(o->meta_ctx, f->project,
								 f->filename, &known_len) :
						      NULL;
		if (known)
			rc = wp_buf_add(&e->meta, known, f->metadata ? strlen(known) : known_len) <
					     0 ?
				     wp_fail(err, -WPE_TOO_BIG,
					     "METADATA of '%s' is larger than %d bytes",
					     f->filename, WP_METADATA_MAX_LEN) :
				     0;
		else
			rc = wp_mirror_wheel_metadata(f->store_path, f->filename, &e->meta, err);
		if (!rc && e->meta.len) {
			char hex[WP_SHA256_HEX_LEN + 1];
			wp_sha256_hex_of(e->meta.data, e->meta.len, hex);
			e->meta_sha256 = wp_xstrdup(hex);
		}
	}
out:
	wp_buf_free(&project);
	return rc;
}

static bool pinned(const struct wp_mirror_opts *o, const char *filename)
{
	for (size_t i = 0; o && i < o->n_keep; i++)
		if (o->keep[i] && !strcmp(o->keep[i], filename))
			return true;
	return false;
}

/* Fold the manifest's entries (old) into this run's (es, sorted and unique): conflicts, kept,
 * pinned and pruned files. Pruned ones stay in es with drop set, so removals know them. */
static void merge(struct entries *es, struct entries *old, const struct wp_mirror_opts *o,
		  struct wp_mirror_report *rep)
{
	size_t n_new = es->n;
	for (size_t i = 0; i < old->n; i++) {
		struct entry *oe = &old->v[i];
		/* only this run's part is sorted; the manifest's entries are appended unsorted */
		struct entry *ne = entries_find_n(es, n_new, oe->project, oe->filename);
		if (ne) {
			ne->have_old = true;
			memcpy(ne->old_sha256, oe->sha256, sizeof(ne->old_sha256));
			ne->old_size = oe->size;
			ne->old_meta_sha256 = xstrdup_or_null(oe->meta_sha256);
			if (!ne->meta_sha256 && oe->meta_sha256 && !strcmp(oe->sha256, ne->sha256))
				ne->meta_sha256 = xstrdup_or_null(oe->meta_sha256);
			continue;
		}
		struct entry *e = entries_add(es);
		*e = *oe; /* moves the strings */
		memset(oe, 0, sizeof(*oe));
		e->have_old = true;
		memcpy(e->old_sha256, e->sha256, sizeof(e->old_sha256));
		e->old_size = e->size;
		e->old_meta_sha256 = xstrdup_or_null(e->meta_sha256);
		if (o && o->prune) {
			if (pinned(o, e->filename))
				rep->pinned++;
			else
				e->drop = true;
		}
	}
	qsort(es->v, es->n, sizeof(*es->v), entry_cmp);
}

/* Decide, for each of this run's files, whether its bytes are already in place. */
static void classify(const char *dir, struct entries *es, struct wp_mirror_report *rep)
{
	for (size_t i = 0; i < es->n; i++) {
		struct entry *e = &es->v[i];
		if (!e->src)
			continue;
		char *path = file_path(dir, e->project, e->filename, "");
		struct wp_os_stat a, b;
		bool on_disk = wp_os_stat(path, &a) == 0;
		bool same_inode = on_disk && !e->src->body &&
				  wp_os_stat(e->src->store_path, &b) == 0 && a.st_dev == b.st_dev &&
				  a.st_ino == b.st_ino;
		bool listed_same = e->have_old && !strcmp(e->old_sha256, e->sha256) &&
				   e->old_size == e->size &&
				   (!e->old_meta_sha256 ||
				    same_str(e->old_meta_sha256, e->meta_sha256));
		free(path);
		if (!on_disk) {
			rep->added++;
		} else if (listed_same) {
			/* the manifest vouches for the bytes; `verify` is the deep check */
			e->in_place = true;
			rep->unchanged++;
		} else {
			/* a page may name other bytes under this name: unlist it before
			 * replacing */
			e->conflict = true;
			if (same_inode && !e->have_old)
				rep->added++;
			else
				rep->replaced++;
		}
	}
}

/* PEP 740: the provenance a pick carried beside the store object (OBJECT.provenance) goes beside
 * the file, where the pages link it. */
static int place_provenance(const char *object, const char *path, struct wp_err *err)
{
	char *from = wp_xasprintf("%s.provenance", object),
	     *to = wp_xasprintf("%s.provenance", path);
	int rc = wp_os_access(from, WP_F_OK) == 0 ? wp_link_or_copy(from, to, err) : 0;
	free(from);
	free(to);
	return rc;
}

static int place(const char *dir, struct entries *es, const struct wp_mirror_opts *o,
		 struct wp_err *err)
{
	for (size_t i = 0; i < es->n; i++) {
		struct entry *e = &es->v[i];
		if (!e->src)
			continue;
		char *pdir = wp_xasprintf("%s/files/%s", dir, e->project);
		char *path = file_path(dir, e->project, e->filename, "");
		char *mpath = file_path(dir, e->project, e->filename, ".metadata");
		int rc = wp_mkdir_p(pdir, 0755, err);
		if (!rc && !e->in_place && e->src->body) {
			struct wp_buf b = { .data = (char *)e->src->body, .len = e->src->body_len };
			rc = write_if_changed(path, &b, err); /* borrowed: never freed here */
		} else if (!rc && !e->in_place) {
			rc = wp_link_or_copy(e->src->store_path, path, err);
		}
		if (!rc && e->src->store_path)
			rc = place_provenance(e->src->store_path, path, err);
		if (!rc && e->meta.len && o && o->meta_out)
			rc = o->meta_out(o->meta_ctx, mpath + strlen(dir) + 1, e->meta.data,
					 e->meta.len, e->meta_sha256, err);
		else if (!rc && e->meta.len)
			rc = write_if_changed(mpath, &e->meta, err);
		free(pdir);
		free(path);
		free(mpath);
		if (rc)
			return rc;
	}
	return 0;
}

/* Remove one page (JSON first: a page left alone is then the HTML one pip reads by default) and
 * its folder when that is empty. */
static void remove_page(const char *dir, const char *page_dir)
{
	static const char *const pages[] = { "index.json", "index.html" };
	char *pd = wp_xasprintf("%s/%s", dir, page_dir);
	for (size_t k = 0; k < WP_ARRAY_LEN(pages); k++) {
		char *p = wp_xasprintf("%s/%s", pd, pages[k]);
		wp_os_unlink(p);
		free(p);
	}
	wp_os_rmdir(pd);
	free(pd);
}

/* Removal comes last, in the reverse of the writing order, so that a kill between any two steps
 * leaves nothing linked that is gone: the roots it no longer has (their root pages, before the
 * project pages they link), then the pages this tree's writer made before (the old manifest says
 * which) that this run did not make again, then the files it pruned. Pages and files it never
 * wrote are left alone: another tool's, or the user's. */
static void remove_dropped(const char *dir, struct entries *es, const struct strs *old_pages,
			   const struct strs *new_pages, const struct strs *old_roots,
			   const struct strs *new_roots, struct wp_mirror_report *rep)
{
	for (size_t i = 0; i < old_roots->n; i++)
		if (!strs_has(new_roots, old_roots->v[i]))
			remove_page(dir, old_roots->v[i]);
	for (size_t i = 0; i < old_pages->n; i++)
		if (!strs_has(new_pages, old_pages->v[i]))
			remove_page(dir, old_pages->v[i]);
	for (size_t i = 0; i < old_roots->n; i++)
		if (!strs_has(new_roots, old_roots->v[i])) {
			char *rd = wp_xasprintf("%s/%s", dir, old_roots->v[i]);
			wp_os_rmdir(rd); /* only when its pages are gone */
			free(rd);
		}
	for (size_t i = 0; i < es->n; i++) {
		struct entry *e = &es->v[i];
		if (!e->drop)
			continue;
		char *p = file_path(dir, e->project, e->filename, "");
		char *m = file_path(dir, e->project, e->filename, ".metadata");
		if (wp_os_unlink(p) == 0 || errno == ENOENT)
			rep->removed++;
		wp_os_unlink(m);
		char *pv = file_path(dir, e->project, e->filename, ".provenance");
		wp_os_unlink(pv);
		free(pv);
		free(p);
		free(m);
		p = wp_xasprintf("%s/files/%s", dir, e->project);
		wp_os_rmdir(p); /* only when empty */
		free(p);
	}
}

/* The files a run is about to place, written first, so that a killed run's files are known as
 * ours to the next one (and any other file under files/ is not). So are the roots and pages it is
 * about to write, as lines "@root ROOT" and "@page ROOT/PROJECT" (no project name starts with
 * '@'): the next run removes those it does not write again, root pages first, as it removes the
 * ones an earlier manifest names. */
#define PENDING_NAME WP_MIRROR_PENDING
#define PENDING_ROOT "@root "
#define PENDING_PAGE "@page "

/* Everything a run may leave under files/ unlisted if it is killed: what it places, what it is
 * about to remove (a kill between the new manifest and the removal leaves those), and what an
 * earlier killed run left that is still there. */
static int write_pending(const char *dir, const struct entries *es, const struct strs *earlier,
			 const struct strs *roots, const struct strs *pages, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	struct strs seen = { 0 };
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < (k ? pages : roots)->n; i++) {
			char *key = wp_xasprintf("%s%s", k ? PENDING_PAGE : PENDING_ROOT,
						 (k ? pages : roots)->v[i]);
			strs_add(&seen, key);
			wp_buf_printf(&b, "%s\n", key);
			free(key);
		}
	for (size_t i = 0; i < es->n; i++)
		if ((es->v[i].src && !es->v[i].in_place) || es->v[i].drop) {
			char *key = wp_xasprintf("%s/%s", es->v[i].project, es->v[i].filename);
			if (!strs_has(&seen, key)) {
				strs_add(&seen, key);
				wp_buf_printf(&b, "%s\n", key);
			}
			free(key);
		}
	for (size_t i = 0; i < earlier->n; i++)
		if (!strs_has(&seen, earlier->v[i])) {
			strs_add(&seen, earlier->v[i]);
			wp_buf_printf(&b, "%s\n", earlier->v[i]);
		}
	char *path = wp_xasprintf("%s/%s", dir, PENDING_NAME);
	int rc = b.len ? wp_atomic_write(path, b.data, b.len, err) : 0;
	free(path);
	wp_buf_free(&b);
	strs_free(&seen);
	return rc;
}

/* After a run: the list keeps only what killed runs left that is still there and no page lists
 * (a run without --prune leaves those; verify tells them from files someone slipped in). */
static void settle_pending(const char *dir, struct entries *es, const struct strs *earlier)
{
	struct wp_buf b = WP_BUF_INIT;
	for (size_t i = 0; i < earlier->n; i++) {
		const char *slash = strchr(earlier->v[i], '/');
		if (!slash || earlier->v[i][0] == '@') /* a killed run's pages: this run has settled
							  them */
			continue;
		char *project = wp_xstrndup(earlier->v[i], (size_t)(slash - earlier->v[i]));
		struct entry *e = entries_find(es, project, slash + 1);
		char *path = file_path(dir, project, slash + 1, "");
		if ((!e || e->drop) && exists(path, NULL))
			wp_buf_printf(&b, "%s\n", earlier->v[i]);
		free(path);
		free(project);
	}
	char *pend = wp_xasprintf("%s/%s", dir, PENDING_NAME);
	struct wp_err e = WP_ERR_INIT;
	if (!b.len || wp_atomic_write(pend, b.data, b.len, &e) < 0)
		wp_os_unlink(pend);
	free(pend);
	wp_buf_free(&b);
}

static void read_pending(const char *dir, struct strs *out)
{
	char *path = wp_xasprintf("%s/%s", dir, PENDING_NAME);
	struct wp_buf b;
	bool found;
	struct wp_err e = WP_ERR_INIT;
	if (wp_file_read_if_exists(path, MANIFEST_MAX, &b, &found, &e) == 0 && found)
		for (char *l = b.data, *nl; l && *l; l = nl ? nl + 1 : NULL) {
			nl = strchr(l, '\n');
			if (nl)
				*nl = 0;
			if (*l)
				strs_add(out, l);
		}
	wp_buf_free(&b);
	free(path);
}

/* The pages a killed run wrote for a project whose stray files go now: every ROOT/PROJECT page
 * this run did not write (they would link to files no longer there). */
static void remove_stray_pages(const char *dir, const struct strs *projects,
			       const struct strs *pages)
{
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	while (d && (de = wp_os_readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "files"))
			continue;
		for (size_t i = 0; i < projects->n; i++) {
			char *pg = wp_xasprintf("%s/%s", de->d_name, projects->v[i]);
			char *path = wp_xasprintf("%s/%s", dir, pg);
			struct wp_os_stat sb;
			if (!strs_has(pages, pg) && wp_os_lstat(path, &sb) == 0 &&
			    WP_S_ISDIR(sb.st_mode))
				remove_page(dir, pg);
			free(path);
			free(pg);
		}
	}
	if (d)
		wp_os_closedir(d);
}

/* With prune, files a killed run of ours placed (its pending list names them) but no manifest
 * lists go too, with the pages it wrote for them. Other files nobody listed are another tool's
 * or the user's: they stay, said. */
static void remove_strays(const char *dir, struct entries *es, const struct strs *pending,
			  const struct strs *pages, size_t *foreign)
{
	struct strs stray_projects = { 0 };
	char *files = wp_xasprintf("%s/files", dir);
	struct wp_os_dir *d = wp_os_opendir(files);
	const struct wp_os_dirent *de;
	while (d && (de = wp_os_readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *pdir = wp_xasprintf("%s/%s", files, de->d_name);
		struct wp_os_dir *pd = wp_os_opendir(pdir);
		const struct wp_os_dirent *fe;
		while (pd && (fe = wp_os_readdir(pd))) {
			if (fe->d_name[0] == '.')
				continue;
			size_t len = strlen(fe->d_name);
			char *base = wp_xstrdup(fe->d_name);
			if (len > 9 && !strcmp(base + len - 9, ".metadata"))
				base[len - 9] = 0;
			struct entry *e = entries_find(es, de->d_name, base);
			char *key = wp_xasprintf("%s/%s", de->d_name, base);
			if ((!e || e->drop) && strs_has(pending, key)) {
				/* its pages first, as everywhere: a page never links to a file that
				 * is gone */
				if (!strs_has(&stray_projects, de->d_name)) {
					strs_add(&stray_projects, de->d_name);
					struct strs one = { 0 };
					strs_add(&one, de->d_name);
					remove_stray_pages(dir, &one, pages);
					strs_free(&one);
				}
				char *p = wp_xasprintf("%s/%s", pdir, fe->d_name);
				wp_os_unlink(p);
				free(p);
			} else if (!e) {
				(*foreign)++;
			}
			free(key);
			free(base);
		}
		if (pd)
			wp_os_closedir(pd);
		wp_os_rmdir(pdir); /* only when empty */
		free(pdir);
	}
	if (d)
		wp_os_closedir(d);
	free(files);
	strs_free(&stray_projects);
}

int wp_mirror_write(const char *dir, const struct wp_mirror_file *files, size_t n,
		    const struct wp_mirror_opts *opts, struct wp_mirror_report *rep_out,
		    struct wp_err *err)
{
	struct wp_mirror_report rep = { 0 };
	struct entries es = { 0 }, old = { 0 };
	struct strs roots = { 0 }, pages = { 0 }, old_roots = { 0 }, old_pages = { 0 },
		    pending = { 0 };
	char *sub = NULL;
	int lock = -1, rc;

	if ((rc = wp_dir_make_open(dir, &lock, err)))
		goto out;
	/* Another run writing the same tree: wait for it (its files stay; ours are added after),
	 * but not forever: a hung writer holds the lock as long as it lives. */
	if (wp_flock_wait(lock, MIRROR_LOCK_WAIT_MS) < 0) {
		rc = wp_fail(err, -WPE_IO,
			     "mirror '%s' is still being written by another wheelpick after %d "
			     "minutes; run again when it has finished",
			     dir, MIRROR_LOCK_WAIT_MS / 60000);
		goto out;
	}
	static const char *const subs[] = { "files", "simple" };
	for (size_t i = 0; i < WP_ARRAY_LEN(subs) && !rc; i++) {
		free(sub);
		sub = wp_xasprintf("%s/%s", dir, subs[i]);
		rc = wp_mkdir_p(sub, 0755, err);
	}
	if (rc)
		goto out;
	clean_tmp_tree(dir);
	/* a new tree gets an empty root page first: whenever this run is killed, the tree is one a
	 * client can list (and verify passes), and pages are linked only once they exist */
	free(sub);
	sub = wp_xasprintf("%s/simple/index.html", dir);
	if (!exists(sub, NULL)) {
		struct entries none = { 0 };
		rc = write_root(dir, "simple", &none, err);
		if (rc)
			goto out;
	}

	for (size_t i = 0; i < n; i++) {
		rc = add_new(dir, &files[i], &es, opts, err);
		if (rc)
			goto out;
	}
	qsort(es.v, es.n, sizeof(*es.v), entry_cmp);
	/* the same file twice is fine; the same name with other bytes is a caller's mistake */
	size_t kept = 0;
	for (size_t i = 0; i < es.n; i++) {
		struct entry *e = &es.v[i];
		if (kept && !entry_cmp(&es.v[kept - 1], e)) {
			if (strcmp(es.v[kept - 1].sha256, e->sha256)) {
				rc = wp_fail(err, -WPE_USAGE,
					     "'%s' was given twice with different sha256",
					     e->filename);
				es.n = kept + (es.n - i); /* what is not yet moved is still owned */
				memmove(&es.v[kept], e, (es.n - kept) * sizeof(*e));
				goto out;
			}
			entry_release(e);
			continue;
		}
		if (kept != i)
			es.v[kept] = *e;
		kept++;
	}
	es.n = kept;

	rc = read_manifest(dir, &old, &old_roots, &old_pages, err);
	if (rc)
		goto out;
	read_pending(dir, &pending);
	/* the roots and pages a killed run was writing are ours as much as the manifest's */
	for (size_t i = 0; i < pending.n; i++) {
		const char *l = pending.v[i];
		if (!strncmp(l, PENDING_ROOT, strlen(PENDING_ROOT)) &&
		    root_name_ok(l + strlen(PENDING_ROOT)) &&
		    !strs_has(&old_roots, l + strlen(PENDING_ROOT))) {
			strs_add(&old_roots, l + strlen(PENDING_ROOT));
		} else if (!strncmp(l, PENDING_PAGE, strlen(PENDING_PAGE)) &&
			   !strs_has(&old_pages, l + strlen(PENDING_PAGE))) {
			const char *pg = l + strlen(PENDING_PAGE), *slash = strchr(pg, '/');
			char *r = slash ? wp_xstrndup(pg, (size_t)(slash - pg)) : NULL;
			if (r && (!strcmp(r, "simple") || root_name_ok(r)) &&
			    wp_index_project_name_ok(slash + 1, strlen(slash + 1)))
				strs_add(&old_pages, pg);
			free(r);
		}
	}
	merge(&es, &old, opts, &rep);
	for (size_t i = 0; i < es.n; i++)
		note_release(&es.v[i]);
	classify(dir, &es, &rep);

	/* the roots: simple/ for every file, and one per variant its files have */
	strs_add(&roots, "simple");
	for (size_t i = 0; i < es.n; i++)
		if (!es.v[i].drop && es.v[i].variant && es.v[i].variant[0])
			strs_add(&roots, es.v[i].variant);

	/* the pending list first: from here on, whatever a kill leaves (a conflicting file unlisted
	 * by its interim page, one page of a pair written) is known as this run's */
	struct strs planned = { 0 };
	for (size_t r = 0; r < roots.n && !rc; r++)
		rc = write_projects(NULL, roots.v[r], &es, listed_final, false, NULL, &planned,
				    err);
	if (!rc)
		rc = write_pending(dir, &es, &pending, &roots, &planned, err);
	strs_free(&planned);
	bool any_conflict = false;
	for (size_t i = 0; i < es.n; i++)
		any_conflict |= es.v[i].conflict;
	for (size_t r = 0; any_conflict && r < roots.n + old_roots.n && !rc; r++) {
		const char *root = r < roots.n ? roots.v[r] : old_roots.v[r - roots.n];
		if (r >= roots.n && strs_has(&roots, root))
			continue;
		rc = write_projects(dir, root, &es, listed_interim, true, NULL, NULL, err);
	}
	if (!rc)
		rc = place(dir, &es, opts, err);
	for (size_t r = 0; r < roots.n && !rc; r++) {
		size_t count = 0;
		rc = write_projects(dir, roots.v[r], &es, listed_final, false, &count, &pages, err);
		if (!rc)
			rc = write_root(dir, roots.v[r], &es, err);
		if (!strcmp(roots.v[r], "simple"))
			rep.projects = count;
	}
	if (!rc)
		rc = write_manifest(dir, &es, &roots, &pages, err);
	if (rc)
		goto out;
	remove_dropped(dir, &es, &old_pages, &pages, &old_roots, &roots, &rep);
	if (opts && opts->prune)
		remove_strays(dir, &es, &pending, &pages, &rep.foreign);
	/* what the caller writes beside the manifest (an SBOM), while the tree is still ours
	 * (another run sweeps the temp names of a writer that holds no lock) and before the pending
	 * list is settled: until then, a kill leaves a tree whose SBOM verify knows may lag */
	if (opts && opts->after && (rc = opts->after(opts->after_ctx, dir, err)))
		goto out;
	settle_pending(dir, &es, &pending); /* the manifest lists what this run named */
	for (size_t i = 0; i < es.n; i++) {
		rep.files += !es.v[i].drop;
		rep.metadata += !es.v[i].drop && es.v[i].meta_sha256;
	}
	rep.roots = roots.n;
out:
	if (lock >= 0)
		wp_os_close(lock);
	entries_free(&es);
	entries_free(&old);
	strs_free(&roots), strs_free(&pages), strs_free(&old_roots), strs_free(&old_pages),
		strs_free(&pending);
	free(sub);
	if (rep_out)
		*rep_out = rep;
	return rc;
}
