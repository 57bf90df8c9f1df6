/* ops/verify/mirror.c: a mirror re-checked: root pages, project pages (HTML and JSON), links,
 * hashes, metadata. */
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/url.h"
#include "index/html.h"
#include "index/localsrc.h"
#include "index/pep691.h"
#include "ops/core/crawl.h"
#include "ops/core/pagefile.h"
#include "ops/publish/mirror.h"
#include "ops/verify/common.h"
#include "resolver/variant.h"
#include "resolver/wheelname.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- mirror ---- */

struct link {
	char *filename;
	char *url;
	char *sha256;
	char *requires_python;
	char *core_metadata;
	char *provenance; /* PEP 740: the provenance URL the page gives, or NULL */
};

WP_VEC_OF(links, struct link);

static int collect_link(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct links *ls = ctx;
	struct link *l = wp_vec_add(ls);
	l->filename = wp_xstrdup(rec->filename);
	l->url = wp_xstrdup(rec->url);
	l->sha256 = rec->sha256 ? wp_xstrdup(rec->sha256) : NULL;
	l->requires_python = rec->requires_python ? wp_xstrdup(rec->requires_python) : NULL;
	l->core_metadata = rec->core_metadata ? wp_xstrdup(rec->core_metadata) : NULL;
	l->provenance = rec->provenance ? wp_xstrdup(rec->provenance) : NULL;
	return 0;
}

static void links_free(struct links *ls)
{
	for (size_t i = 0; i < ls->n; i++) {
		free(ls->v[i].filename);
		free(ls->v[i].url);
		free(ls->v[i].sha256);
		free(ls->v[i].requires_python);
		free(ls->v[i].core_metadata);
		free(ls->v[i].provenance);
	}
	free(ls->v);
	memset(ls, 0, sizeof(*ls));
}
static bool same_opt(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Check one page's links against the disk: file there, sha256 right, metadata right, wheel
 * sound. */
static void check_links(struct vo_ctx *c, struct vo_hcache *hc, const char *root, const char *page,
			struct links *ls)
{
	size_t rlen = strlen(root);
	for (size_t i = 0; i < ls->n; i++) {
		struct link *l = &ls->v[i];
		char *path = NULL;
		struct wp_err e = WP_ERR_INIT;
		c->rep->links++;
		if (!wp_local_is_file_url(l->url) || wp_local_path(l->url, &path, &e) < 0) {
			wp_vo_problem_add(c, true, page,
					  "the link to '%s' does not stay in the mirror: %s",
					  l->filename, l->url);
			continue;
		}
		if (strncmp(path, root, rlen) || path[rlen] != '/' || strstr(path, "/../")) {
			wp_vo_problem_add(c, true, page, "the link to '%s' leaves the mirror: %s",
					  l->filename, path);
			free(path);
			continue;
		}
		if (!l->sha256) {
			wp_vo_problem_add(c, true, page,
					  "the link to '%s' has no #sha256=", l->filename);
		} else if (!wp_vo_is_file(path)) {
			wp_vo_problem_add(c, true, path, "is missing; '%s' links to it", page);
		} else {
			struct vo_hashed *h = wp_vo_hash_of(c, hc, path);
			if (strcmp(h->sha256, l->sha256))
				wp_vo_problem_add(c, true, path, "sha256 is %s, '%s' says %s",
						  h->sha256[0] ? h->sha256 : "(unreadable)", page,
						  l->sha256);
			else if (wp_cstr_endswith(l->filename, ".whl") && !h->wheel_checked) {
				h->wheel_checked = true;
				wp_vo_check_wheel(c, path, l->filename);
				wp_vo_check_provenance(c, path, l->filename, h->sha256);
			}
		}
		if (l->provenance) {
			/* a mirror keeps a file's provenance beside it, FILE.provenance, and links
			 * that */
			char *want = wp_xasprintf("%s.provenance", l->url);
			char *ppath = wp_xasprintf("%s.provenance", path);
			if (strcmp(l->provenance, want))
				wp_vo_problem_add(c, true, page,
						  "the provenance of '%s' is not the file beside it: %s",
						  l->filename, l->provenance);
			else if (!wp_vo_is_file(ppath))
				wp_vo_problem_add(c, true, ppath, "is missing; '%s' announces it",
						  page);
			free(want);
			free(ppath);
		}
		if (l->core_metadata) {
			char *mpath = wp_xasprintf("%s.metadata", path);
			if (!wp_vo_is_file(mpath)) {
				wp_vo_problem_add(c, true, mpath, "is missing; '%s' announces it",
						  page);
			} else if (!strncmp(l->core_metadata, "sha256=", 7)) {
				struct vo_hashed *h = wp_vo_hash_of(c, hc, mpath);
				if (strcmp(h->sha256, l->core_metadata + 7))
					wp_vo_problem_add(c, true, mpath,
							  "sha256 is %s, '%s' says %s", h->sha256,
							  page, l->core_metadata + 7);
			}
			free(mpath);
		}
		free(path);
	}
}

/* Every entry of a page the mirror wrote is one of its files: an entry a reader skips (malformed,
 * a filename that is not its URL's last segment, a link that is no wheel or sdist, such as
 * ../../../../etc/passwd) is a problem, not a skip; a client may read it differently. */
static void all_accounted(struct vo_ctx *c, const char *path, const struct wp_index_stats *st,
			  const char *noun)
{
	if (st->skipped)
		wp_vo_problem_add(c, true, path,
				  "%llu of its %llu %s %s malformed, or not one of the mirror's files "
				  "(a filename that is not its URL's last segment, a link to something else)",
				  st->skipped, st->links, noun, st->skipped == 1 ? "is" : "are");
}

WP_VEC_OF(names, char *); /* each owned */

static int collect_name(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	struct names *ns = ctx;
	struct wp_buf norm = WP_BUF_INIT;
	wp_project_name_normalize(name, strlen(name), &norm);
	wp_vec_push(ns, wp_buf_detach(&norm, NULL));
	return 0;
}

/* A page of the mirror from its file: in memory while small, else read in pieces (a big
 * project's page, a root of many projects), so memory stays bounded whatever its size. */
static int read_page(struct vo_ctx *c, const char *path, const char *url, bool json,
		     struct links *ls)
{
	struct wp_page pg = WP_PAGE_INIT;
	struct wp_err e = WP_ERR_INIT;
	struct wp_index_stats st = { 0 };
	int rc = wp_page_load(&pg, path, path, VO_PAGE_MAX, WP_CRAWL_PAGE_IN_MEMORY, &e);
	if (!rc)
		rc = wp_page_read_links(&pg, json, url, NULL, collect_link, ls, &st, &e);
	if (rc) {
		wp_vo_problem_add(c, true, path, "%s", e.msg);
	} else {
		c->rep->pages++;
		all_accounted(c, path, &st, json ? "entries" : "links");
	}
	wp_page_release(&pg);
	return rc;
}

/* A root page's project names, read as read_page reads a project's. */
static int read_root(const char *path, const char *url, bool json, struct names *ns,
		     struct wp_index_stats *st, struct wp_err *e)
{
	struct wp_page pg = WP_PAGE_INIT;
	int rc = wp_page_load(&pg, path, path, VO_PAGE_MAX, WP_CRAWL_PAGE_IN_MEMORY, e);
	if (!rc)
		rc = wp_page_read_projects(&pg, json, url, collect_name, ns, st, e);
	wp_page_release(&pg);
	return rc;
}

static bool pending_has(const struct wp_buf *pend, const char *project, const char *filename);

/* index.html and index.json of one project: the same entries. One in one page only is a note when
 * a mirror run that was cut short was placing or removing that file (the pending list names it:
 * the HTML page is written first), else a problem: a client that reads the other page gets
 * another answer. */
static void compare_pages(struct vo_ctx *c, const char *html_path, const char *project,
			  const struct wp_buf *pend, struct links *h, struct links *j)
{
	for (size_t i = 0; i < h->n; i++) {
		struct link *a = &h->v[i], *b = NULL;
		for (size_t k = 0; k < j->n && !b; k++)
			if (!strcmp(j->v[k].filename, a->filename))
				b = &j->v[k];
		if (!b) {
			if (pending_has(pend, project, a->filename))
				wp_vo_problem_add(c, false, html_path,
						  "'%s' is not in index.json beside it (a write in "
						  "progress, or one that was cut short)",
						  a->filename);
			else
				wp_vo_problem_add(c, true, html_path,
						  "'%s' is not in index.json beside it, and no mirror "
						  "run was placing it (mirror again to rewrite the pages)",
						  a->filename);
			continue;
		}
		const char *what = !same_opt(a->url, b->url)       ? "url" :
				   !same_opt(a->sha256, b->sha256) ? "sha256" :
				   !same_opt(a->requires_python, b->requires_python) ?
								     "requires-python" :
				   !same_opt(a->core_metadata, b->core_metadata) ? "core metadata" :
				   !same_opt(a->provenance, b->provenance)       ? "provenance" :
										   NULL;
		if (what)
			wp_vo_problem_add(c, true, html_path,
					  "index.html and index.json disagree on the %s of '%s'",
					  what, a->filename);
	}
	for (size_t k = 0; k < j->n; k++) {
		bool found = false;
		for (size_t i = 0; i < h->n && !found; i++)
			found = !strcmp(h->v[i].filename, j->v[k].filename);
		if (found)
			continue;
		if (pending_has(pend, project, j->v[k].filename))
			wp_vo_problem_add(c, false, html_path,
					  "'%s' is in index.json but not in index.html",
					  j->v[k].filename);
		else
			wp_vo_problem_add(c, true, html_path,
					  "'%s' is in index.json but not in index.html, and no "
					  "mirror run was placing it (mirror again to rewrite the pages)",
					  j->v[k].filename);
	}
}

static void check_root(struct vo_ctx *c, const char *root, const char *simple)
{
	struct names hn = { 0 }, jn = { 0 };
	struct wp_index_stats hst = { 0 }, jst = { 0 };
	char *html = wp_xasprintf("%s/index.html", simple),
	     *json = wp_xasprintf("%s/index.json", simple);
	char *url = wp_vo_file_url(simple, "/");
	struct wp_err e = WP_ERR_INIT;
	if (!wp_vo_is_file(html)) {
		wp_vo_problem_add(c, true, html,
				  "is missing: pip cannot list the mirror's projects");
	} else if (read_root(html, url, false, &hn, &hst, &e) < 0) {
		wp_vo_problem_add(c, true, html, "%s", e.msg);
	} else {
		c->rep->pages++;
		all_accounted(c, html, &hst, "links");
		for (size_t i = 0; i < hn.n; i++) {
			char *page = wp_xasprintf("%s/%s/index.html", simple, hn.v[i]);
			c->rep->links++;
			if (!wp_vo_is_file(page))
				wp_vo_problem_add(c, true, page,
						  "is missing; the root page links to '%s'",
						  hn.v[i]);
			free(page);
		}
	}
	if (wp_vo_is_file(json)) {
		wp_err_clear(&e);
		if (read_root(json, url, true, &jn, &jst, &e) < 0) {
			wp_vo_problem_add(c, true, json, "%s", e.msg);
		} else {
			c->rep->pages++;
			all_accounted(c, json, &jst, "entries");
			for (size_t i = 0; i < jn.n; i++) {
				char *page = wp_xasprintf("%s/%s/index.json", simple, jn.v[i]);
				bool in_html = false;
				for (size_t k = 0; k < hn.n && !in_html; k++)
					in_html = !strcmp(hn.v[k], jn.v[i]);
				if (!wp_vo_is_file(page))
					wp_vo_problem_add(c, true, page,
							  "is missing; the root index.json names '%s'",
							  jn.v[i]);
				else if (!in_html)
					wp_vo_problem_add(c, false, json,
							  "'%s' is not in index.html beside it",
							  jn.v[i]);
				free(page);
			}
			for (size_t i = 0; i < hn.n; i++) {
				bool in_json = false;
				for (size_t k = 0; k < jn.n && !in_json; k++)
					in_json = !strcmp(hn.v[i], jn.v[k]);
				if (!in_json)
					wp_vo_problem_add(c, false, json,
							  "'%s' is in index.html but not here",
							  hn.v[i]);
			}
		}
	}
	for (size_t i = 0; i < hn.n; i++)
		free(hn.v[i]);
	for (size_t i = 0; i < jn.n; i++)
		free(jn.v[i]);
	free(hn.v);
	free(jn.v);
	free(url);
	free(html);
	free(json);
}

/* One page root of a mirror (simple/, or a variant's such as cu118/): its root page and every
 * project page under it, each link and hash. */
static void verify_root(struct vo_ctx *c, struct vo_hcache *hc, const char *root,
			const char *simple, const struct wp_buf *pend)
{
	size_t n;
	char **projects = wp_vo_list_dir(simple, &n);
	check_root(c, root, simple);
	for (size_t i = 0; i < n; i++) {
		char *pdir = wp_xasprintf("%s/%s", simple, projects[i]);
		char *html = wp_xasprintf("%s/index.html", pdir),
		     *json = wp_xasprintf("%s/index.json", pdir);
		char *url = wp_vo_file_url(pdir, "/");
		struct links hl = { 0 }, jl = { 0 };
		bool have_html = wp_vo_is_file(html), have_json = wp_vo_is_file(json);
		if (wp_vo_is_dir(pdir)) {
			if (have_html && !read_page(c, html, url, false, &hl))
				check_links(c, hc, root, html, &hl);
			if (have_json && !read_page(c, json, url, true, &jl))
				check_links(c, hc, root, json, &jl);
			if (have_html && have_json)
				compare_pages(c, html, projects[i], pend, &hl, &jl);
		}
		links_free(&hl);
		links_free(&jl);
		free(url);
		free(html);
		free(json);
		free(pdir);
	}
	wp_vo_free_list(projects, n);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool linked(char **sorted, size_t n, const char *path)
{
	return n && bsearch(&path, sorted, n, sizeof(*sorted), cmp_str);
}

/* Is "project/filename" a whole line of the pending list? */
static bool pending_has(const struct wp_buf *pend, const char *project, const char *filename)
{
	size_t pl = strlen(project), fl = strlen(filename);
	for (const char *l = pend->data; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (len == pl + 1 + fl && !strncmp(l, project, pl) && l[pl] == '/' &&
		    !strncmp(l + pl + 1, filename, fl))
			return true;
		l = nl ? nl + 1 : l + len;
	}
	return false;
}

/* Every distribution under files/ must be one a page links (hc holds each linked file that was
 * there): a file nobody lists was added behind the pages' back, or is left from a cut-short
 * write. A .metadata file goes with its wheel. Other files (a README someone keeps there) are
 * not the mirror's, and neither checked nor flagged; a FIFO or link where files live is. */
static void check_unlisted(struct vo_ctx *c, const struct vo_hcache *hc, const char *root,
			   const struct wp_buf *pend)
{
	char **sorted = wp_xcalloc(hc->n ? hc->n : 1, sizeof(*sorted));
	for (size_t i = 0; i < hc->n; i++)
		sorted[i] = hc->v[i]->path;
	qsort(sorted, hc->n, sizeof(*sorted), cmp_str);
	char *files = wp_xasprintf("%s/files", root);
	size_t np;
	char **projects = wp_vo_list_dir(files, &np);
	for (size_t i = 0; i < np; i++) {
		char *pdir = wp_xasprintf("%s/%s", files, projects[i]);
		size_t nf;
		char **names = wp_vo_is_dir(pdir) ? wp_vo_list_dir(pdir, &nf) : (nf = 0, NULL);
		for (size_t k = 0; k < nf; k++) {
			char *path = wp_xasprintf("%s/%s", pdir, names[k]);
			size_t len = strlen(names[k]);
			bool meta = wp_cstr_endswith(names[k], ".metadata");
			char *dist = wp_xstrndup(names[k], meta ? len - 9 : len);
			struct wp_os_stat sb;
			if (wp_index_file_kind(dist) != WP_KIND_UNKNOWN &&
			    wp_os_lstat(path, &sb) == 0) {
				char *dpath = wp_xasprintf("%s/%s", pdir, dist);
				if (!WP_S_ISREG(sb.st_mode))
					wp_vo_problem_add(c, true, path,
							  "is not a plain file; a mirror serves files (remove it)");
				else if (!linked(sorted, hc->n, dpath) &&
					 pending_has(pend, projects[i], dist))
					wp_vo_problem_add(c, false, path,
							  "was placed by a mirror run that was cut short and "
							  "no page links it yet; the next run links it, or --prune removes it");
				else if (!linked(sorted, hc->n, dpath))
					wp_vo_problem_add(c, true, path,
							  meta ? "belongs to no file a page links (remove it)" :
								 "is in the mirror but no page links it: added behind the pages' "
								 "back, or left by a cut-short run (remove it, or mirror again)");
				free(dpath);
			}
			free(dist);
			free(path);
		}
		wp_vo_free_list(names, nf);
		free(pdir);
	}
	wp_vo_free_list(projects, np);
	free(files);
	free(sorted);
}

/* Is sub a page root the mirror's manifest names (PEP 825 labels such as "cuda12.8" or "null" make
 * roots that no local-label folder rule knows)? A manifest that cannot be read names none. */
static bool manifest_root(const char *root, const char *sub)
{
	char *path = wp_xasprintf("%s/%s", root, WP_MIRROR_MANIFEST);
	const struct wp_json_opts o = { .what = path,
					.noun = "mirror manifest",
					.max_bytes = VO_JSON_MAX };
	struct wp_buf b = WP_BUF_INIT;
	struct wp_json_val *tree = NULL;
	bool found = false, named = false;
	if (wp_file_read_if_exists(path, VO_JSON_MAX, &b, &found, NULL) == 0 && found) {
		wp_json_load(b.data, b.len, &o, &tree, NULL);
		const struct wp_json_val *roots = wp_json_get_arr(tree, "roots");
		for (size_t i = 0; i < wp_json_len(roots) && !named; i++) {
			const char *r = wp_json_as_str(wp_json_at(roots, i));
			named = r && !strcmp(r, sub);
		}
		wp_json_tree_free(tree);
	}
	wp_buf_free(&b);
	free(path);
	return named;
}

void wp_vo_verify_mirror(struct vo_ctx *c, const char *root)
{
	struct vo_hcache hc = { 0 };
	char *simple = wp_xasprintf("%s/simple", root);
	size_t n;
	char **subs = wp_vo_list_dir(root, &n);
	char *pend_path = wp_xasprintf("%s/%s", root, WP_MIRROR_PENDING);
	struct wp_buf pend = WP_BUF_INIT;
	/* what a mirror run that was killed was placing or removing: no integrity failure, the next
	 * run's to link or (--prune) remove */
	bool found = false;
	struct wp_err e = WP_ERR_INIT;
	if (wp_file_read_if_exists(pend_path, VO_REQS_MAX, &pend, &found, &e) < 0) {
		wp_vo_problem_add(c, false, pend_path, "%s", e.msg);
		wp_buf_reset(&pend);
	}
	free(pend_path);
	verify_root(c, &hc, root, simple, &pend);
	/* the per-variant roots beside simple/, as PyTorch's /whl/cu118/ */
	for (size_t i = 0; i < n; i++) {
		struct wp_variant v;
		if (!strcmp(subs[i], "simple") || !strcmp(subs[i], "files") ||
		    (!wp_variant_from_dir(subs[i], &v) && !manifest_root(root, subs[i])))
			continue;
		char *vr = wp_xasprintf("%s/%s", root, subs[i]),
		     *idx = wp_xasprintf("%s/%s/index.html", root, subs[i]);
		if (wp_vo_is_dir(vr) && wp_vo_is_file(idx))
			verify_root(c, &hc, root, vr, &pend);
		free(vr);
		free(idx);
	}
	check_unlisted(c, &hc, root, &pend);
	/* the SBOM lists the files the pages link, under files/ */
	const char **paths = wp_xcalloc(hc.n ? hc.n : 1, sizeof(*paths)),
		   **shas = wp_xcalloc(hc.n ? hc.n : 1, sizeof(*shas));
	size_t ns = 0, rl = strlen(root);
	for (size_t i = 0; i < hc.n; i++) {
		const char *p = hc.v[i]->path;
		if (!strncmp(p, root, rl) && p[rl] == '/' && !strncmp(p + rl + 1, "files/", 6) &&
		    !wp_cstr_endswith(p, ".metadata") && hc.v[i]->sha256[0])
			paths[ns] = p + rl + 1, shas[ns++] = hc.v[i]->sha256;
	}
	/* a run cut short (its pending list is there) wrote the SBOM last: it may lag, said as a
	 * note */
	wp_vo_check_sbom(c, root, paths, shas, ns, pend.len == 0);
	free(paths);
	free(shas);
	/* PEP 825: each project's variant wheels against the variants.json beside them */
	char **linked = wp_xcalloc(hc.n ? hc.n : 1, sizeof(*linked));
	for (size_t i = 0; i < hc.n; i++)
		linked[i] = hc.v[i]->path;
	qsort(linked, hc.n, sizeof(*linked), cmp_str);
	char *files = wp_xasprintf("%s/files", root);
	size_t np;
	char **projects = wp_vo_list_dir(files, &np);
	for (size_t i = 0; i < np; i++) {
		char *pdir = wp_xasprintf("%s/%s", files, projects[i]);
		if (wp_vo_is_dir(pdir))
			wp_vo_check_variants(c, pdir, linked, hc.n);
		free(pdir);
	}
	wp_vo_free_list(projects, np);
	free(files);
	free(linked);
	wp_vo_free_list(subs, n);
	free(simple);
	wp_buf_free(&pend);
	wp_vo_hcache_free(&hc);
}
