/* ops/verify_outputs.c: re-check wheels, wheelhouses, mirrors, conda channels and bundles; every problem named. */
#include "ops/verify_outputs.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/vec.h"
#include "index/html.h"
#include "index/pep691.h"
#include "index/repodata.h"
#include "base/url.h"
#include "resolver/variant.h"
#include "resolver/wheelname.h"
#include "verify/conda.h"
#include "verify/hash.h"
#include "verify/wheel.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE_MAX  ((size_t)256 << 20)
#define REQS_MAX  ((size_t)16 << 20)  /* a requirements.txt past this is not ours */
#define JSON_MAX  ((size_t)64 << 20)  /* wheelpick.json */

/* Where problems go, and how a path on disk is shown (a bundle's temp dir as BUNDLE:). */
struct vctx {
	struct wp_verify_report *rep;
	const char *real;   /* prefix on disk, or NULL */
	const char *shown;  /* what replaces it in messages */
	size_t fatal_before;
};

static char *show(const struct vctx *c, const char *path)
{
	size_t n = c->real ? strlen(c->real) : 0;
	if (n && !strncmp(path, c->real, n) && (path[n] == '/' || !path[n]))
		return wp_xasprintf("%s%s", c->shown, path[n] ? path + n + 1 : "");
	return wp_xstrdup(path);
}

static void problem_add(struct vctx *c, bool fatal, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem_add(struct vctx *c, bool fatal, const char *path, const char *fmt, ...)
{
	struct wp_verify_report *rep = c->rep;
	va_list ap;
	va_start(ap, fmt);
	char *what = NULL;
	if (vasprintf(&what, fmt, ap) < 0)
		abort();
	va_end(ap);
	struct wp_verify_problem p = { .path = show(c, path), .what = what, .fatal = fatal };
	wp_vec_push_fields(rep->problems, rep->n_problems, rep->cap_problems, p);
	rep->n_fatal += fatal;
}

void wp_verify_report_release(struct wp_verify_report *rep)
{
	for (size_t i = 0; i < rep->n_problems; i++) {
		free(rep->problems[i].path);
		free(rep->problems[i].what);
	}
	free(rep->problems);
	memset(rep, 0, sizeof(*rep));
}

const char *wp_verify_kind_name(enum wp_verify_kind kind)
{
	static const char *const names[] = {
		[WP_VERIFY_NONE] = "nothing", [WP_VERIFY_WHEEL] = "wheel",
		[WP_VERIFY_CONDA_PKG] = "conda package", [WP_VERIFY_WHEELHOUSE] = "wheelhouse",
		[WP_VERIFY_MIRROR] = "mirror", [WP_VERIFY_CHANNEL] = "conda channel",
		[WP_VERIFY_BUNDLE] = "bundle",
	};
	return (unsigned)kind < WP_ARRAY_LEN(names) ? names[kind] : "nothing";
}

/* ---- small helpers ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static bool is_file(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Sorted names in dir (no dot files); the caller frees each and the array. */
static char **list_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		wp_vec_push_fields(v, *n, cap, wp_xstrdup(de->d_name));
	}
	if (d)
		closedir(d);
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			char *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A file's sha256 once per run: mirrors name one file from two pages. */
struct hashed {
	char *path;
	char sha256[WP_SHA256_HEX_LEN + 1]; /* "" when it could not be read */
	long long size;
	bool wheel_checked;
};

/* Each entry allocated alone: callers keep pointers to entries while the cache grows. */
WP_VEC_OF(hcache, struct hashed *);

static struct hashed *hash_of(struct vctx *c, struct hcache *hc, const char *path)
{
	for (size_t i = 0; i < hc->n; i++)
		if (!strcmp(hc->v[i]->path, path))
			return hc->v[i];
	struct hashed *h = wp_xcalloc(1, sizeof(*h));
	wp_vec_push(hc, h);
	h->path = wp_xstrdup(path);
	struct wp_err e = WP_ERR_INIT;
	if (wp_hash_file(path, h->sha256, &h->size, &e) < 0)
		h->sha256[0] = 0;
	else
		c->rep->files++;
	return h;
}

static void hcache_free(struct hcache *hc)
{
	for (size_t i = 0; i < hc->n; i++) {
		free(hc->v[i]->path);
		free(hc->v[i]);
	}
	free(hc->v);
}

static void check_wheel(struct vctx *c, const char *path, const char *filename)
{
	struct wp_err e = WP_ERR_INIT;
	struct wp_wheel_info info = { 0 };
	int rc = filename ? wp_wheel_verify_named(path, filename, NULL, &info, &e)
			  : wp_wheel_verify(path, NULL, &info, &e);
	if (rc < 0)
		problem_add(c, true, path, "%s", e.msg);
	else
		c->rep->wheels++;
	wp_wheel_info_release(&info);
}

/* ---- wheelhouse ---- */

struct reqline {
	int lineno;
	char *name;   /* as written, up to the first character that cannot be in a name */
	char *text;   /* the requirement, without options */
	char **hashes;
	size_t n_hashes, cap_hashes;
};

static void reqline_free(struct reqline *r)
{
	free(r->name);
	free(r->text);
	for (size_t i = 0; i < r->n_hashes; i++)
		free(r->hashes[i]);
	free(r->hashes);
	memset(r, 0, sizeof(*r));
}

/* One logical line (continuations joined, comment cut): name, text and --hash values. */
static void parse_reqline(char *line, struct reqline *r)
{
	char *save = NULL;
	for (char *p = line; *p; p++)
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = 0;
			break;
		}
	bool want_hash = false;
	struct wp_buf text = WP_BUF_INIT;
	for (char *tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		const char *h = NULL;
		if (want_hash)
			h = tok;
		else if (!strncmp(tok, "--hash=", 7))
			h = tok + 7;
		want_hash = !strcmp(tok, "--hash");
		if (h || want_hash) {
			if (h) {
				wp_vec_push_fields(r->hashes, r->n_hashes, r->cap_hashes, wp_xstrdup(h));
			}
			continue;
		}
		if (text.len)
			wp_buf_addch(&text, ' ');
		wp_buf_addstr(&text, tok);
	}
	r->text = wp_buf_detach(&text, NULL);
	size_t n = strspn(r->text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
	r->name = wp_xstrndup(r->text, n);
}

/* The PEP 503 project a file name says it belongs to, newly allocated, or NULL. */
static char *file_project(const char *filename)
{
	struct wp_wheelname w;
	struct wp_sdistname s;
	char *p = NULL;
	if (wp_wheelname_parse(filename, &w, NULL) == 0) {
		p = wp_xstrdup(w.project);
		wp_wheelname_release(&w);
	} else if (wp_sdistname_parse(filename, &s, NULL) == 0) {
		p = wp_xstrdup(s.project);
		wp_sdistname_release(&s);
	}
	return p;
}

struct house_file {
	char *name;
	struct hashed *h;
};

static void check_requirements(struct vctx *c, const char *path, struct house_file *files, size_t nf)
{
	struct wp_buf b;
	struct wp_err e = WP_ERR_INIT;
	if (wp_file_read_capped(path, REQS_MAX, &b, &e) < 0) {
		problem_add(c, true, path, "%s", e.msg);
		wp_buf_free(&b);
		return;
	}
	c->rep->pages++;
	struct wp_buf logical = WP_BUF_INIT;
	char *s = b.data ? b.data : "";
	int lineno = 0, start = 0;
	while (*s) {
		char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		lineno++;
		if (!logical.len)
			start = lineno;
		size_t k = len;
		while (k && (s[k - 1] == '\r' || s[k - 1] == ' ' || s[k - 1] == '\t'))
			k--;
		bool cont = k && s[k - 1] == '\\';
		wp_buf_add(&logical, s, cont ? k - 1 : len);
		wp_buf_addch(&logical, ' ');
		s = nl ? nl + 1 : s + len;
		if (cont && *s)
			continue;

		struct reqline r = { .lineno = start };
		char *line = wp_buf_detach(&logical, NULL);
		parse_reqline(line, &r);
		free(line);
		char where[32];
		snprintf(where, sizeof(where), ":%d", r.lineno);
		char *at = wp_xasprintf("%s%s", path, where);
		if (!r.text[0] || r.text[0] == '-') {
			/* blank, comment, or an option line (-i, --find-links): nothing to check */
		} else if (!r.n_hashes) {
			problem_add(c, true, at, "'%s' has no --hash; pip --require-hashes refuses it", r.text);
		} else {
			struct wp_buf want = WP_BUF_INIT;
			wp_project_name_normalize(r.name, strlen(r.name), &want);
			c->rep->links++;
			for (size_t i = 0; i < r.n_hashes; i++) {
				const char *h = r.hashes[i];
				if (strncmp(h, "sha256:", 7) || !wp_sha256_hex_valid(h + 7)) {
					problem_add(c, true, at, "'%s' has a --hash that is not sha256:<64 hex>: '%s'",
						    r.text, h);
					continue;
				}
				size_t f = 0;
				for (; f < nf; f++)
					if (files[f].h->sha256[0] && !strcasecmp(files[f].h->sha256, h + 7))
						break;
				if (f == nf) {
					problem_add(c, true, at, "no file here has the sha256 %s that '%s' asks for",
						    h + 7, r.text);
					continue;
				}
				char *proj = file_project(files[f].name);
				if (proj && strcmp(proj, want.data ? want.data : ""))
					problem_add(c, true, at, "the file with sha256 %s is '%s', not a file of '%s'",
						    h + 7, files[f].name, r.name);
				free(proj);
			}
			wp_buf_free(&want);
		}
		free(at);
		reqline_free(&r);
	}
	wp_buf_free(&logical);
	wp_buf_free(&b);
}

/* Any object in wheelpick.json with "filename" and "sha256" names a file that must be here. */
static void check_pick_json_val(struct vctx *c, const char *dir, const char *path,
				const struct wp_json_val *v, struct house_file *files, size_t nf, int depth)
{
	if (!v || depth > 32)
		return;
	if (wp_json_type(v) == WP_JSON_ARRAY) {
		for (size_t i = 0; i < wp_json_len(v); i++)
			check_pick_json_val(c, dir, path, wp_json_at(v, i), files, nf, depth + 1);
		return;
	}
	if (wp_json_type(v) != WP_JSON_OBJECT)
		return;
	const char *name = wp_json_get_str(v, "filename"), *want = wp_json_get_str(v, "sha256");
	if (name && want) {
		size_t f = 0;
		while (f < nf && strcmp(files[f].name, name))
			f++;
		c->rep->links++;
		if (f == nf)
			problem_add(c, true, path, "'%s' is listed but missing from '%s'", name, dir);
		else if (!wp_sha256_hex_valid(want) || strcasecmp(files[f].h->sha256, want))
			problem_add(c, true, path, "'%s' has sha256 %s here, the pick record says %s", name,
				    files[f].h->sha256, want);
	}
	for (size_t i = 0; i < wp_json_len(v); i++)
		check_pick_json_val(c, dir, path, wp_json_at(v, i), files, nf, depth + 1);
}

static void check_pick_json(struct vctx *c, const char *dir, const char *path, struct house_file *files,
			    size_t nf)
{
	const struct wp_json_opts o = { .what = path, .max_bytes = JSON_MAX };
	struct wp_buf b;
	struct wp_json_val *root = NULL;
	struct wp_err e = WP_ERR_INIT;
	if (wp_file_read_capped(path, JSON_MAX, &b, &e) < 0 || wp_json_load(b.data, b.len, &o, &root, &e) < 0)
		problem_add(c, true, path, "%s", e.msg);
	else
		c->rep->pages++;
	check_pick_json_val(c, dir, path, root, files, nf, 0);
	wp_json_tree_free(root);
	wp_buf_free(&b);
}

/* A pylock.toml wheelpick wrote into a wheelhouse: every wheel it names by path is here, with the
 * sha256 it says. (Locks with URLs name files elsewhere: their hashes are checked by installers.)
 * A path must be a name in this folder: a lock may not point out of the wheelhouse. */
static void check_pylock(struct vctx *c, const char *dir, const char *path, struct house_file *files, size_t nf)
{
	struct wp_buf b;
	struct wp_err e = WP_ERR_INIT;
	if (wp_file_read_capped(path, REQS_MAX, &b, &e) < 0) {
		problem_add(c, true, path, "%s", e.msg);
		wp_buf_free(&b);
		return;
	}
	c->rep->pages++;
	int lineno = 0;
	for (char *s = b.data ? b.data : "", *nl; *s; s = nl ? nl + 1 : s + strlen(s)) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = 0;
		lineno++;
		char *p = strstr(s, "path = \""), *h = strstr(s, "sha256 = \"");
		if (!p)
			continue;
		char *at = wp_xasprintf("%s:%d", path, lineno);
		p += 8;
		char *pe = strchr(p, '"');
		if (!pe || pe == p || memchr(p, '/', (size_t)(pe - p)) || memchr(p, '\\', (size_t)(pe - p)) ||
		    (pe - p <= 2 && p[0] == '.')) {
			problem_add(c, true, at, "a wheel's path is not a file name in this folder");
			free(at);
			continue;
		}
		*pe = 0;
		c->rep->links++;
		size_t f = 0;
		while (f < nf && strcmp(files[f].name, p))
			f++;
		if (f == nf)
			problem_add(c, true, at, "names '%s', which is not here", p);
		else if (!h || strncasecmp(h + 10, files[f].h->sha256, 64) || h[74] != '"')
			problem_add(c, true, at, "the sha256 it gives for '%s' is not the file's (%s)", p, files[f].h->sha256);
		free(at);
		(void)dir;
	}
	wp_buf_free(&b);
}

static void verify_wheelhouse(struct vctx *c, const char *dir, bool need_reqs)
{
	struct hcache hc = { 0 };
	size_t n;
	char **names = list_dir(dir, &n);
	struct house_file *files = wp_xcalloc(n ? n : 1, sizeof(*files));
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = wp_xasprintf("%s/%s", dir, names[i]);
		if (is_file(path) && (ends_with(names[i], ".whl") || wp_index_file_kind(names[i]) == WP_KIND_SDIST)) {
			files[nf].name = names[i];
			files[nf].h = hash_of(c, &hc, path);
			if (!files[nf].h->sha256[0])
				problem_add(c, true, path, "cannot be read");
			else if (ends_with(names[i], ".whl"))
				check_wheel(c, path, NULL);
			nf++;
		}
		free(path);
	}
	/* requirements.txt, and one per target that markers cannot tell apart; pylock locks */
	bool any_reqs = false;
	for (size_t i = 0; i < n; i++) {
		const char *nm = names[i];
		bool req = !strcmp(nm, "requirements.txt") ||
			   (!strncmp(nm, "requirements-", 13) && ends_with(nm, ".txt") && strlen(nm) > 17);
		bool lock = !strcmp(nm, "pylock.toml") || (!strncmp(nm, "pylock.", 7) && ends_with(nm, ".toml") && strlen(nm) > 12);
		if (!req && !lock)
			continue;
		char *path = wp_xasprintf("%s/%s", dir, nm);
		if (is_file(path)) {
			if (req)
				check_requirements(c, path, files, nf);
			else
				check_pylock(c, dir, path, files, nf);
			any_reqs |= req;
		}
		free(path);
	}
	if (!any_reqs && need_reqs) {
		char *reqs = wp_xasprintf("%s/requirements.txt", dir);
		problem_add(c, true, reqs, "is missing (and no requirements-<target>.txt is here)");
		free(reqs);
	}
	char *pick = wp_xasprintf("%s/wheelpick.json", dir);
	if (is_file(pick))
		check_pick_json(c, dir, pick, files, nf);
	free(pick);
	free(files);
	free_list(names, n);
	hcache_free(&hc);
}

/* ---- mirror ---- */

struct link {
	char *filename;
	char *url;
	char *sha256;
	char *requires_python;
	char *core_metadata;
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
	}
	free(ls->v);
	memset(ls, 0, sizeof(*ls));
}

/* file:// URL of an absolute path, each byte outside the unreserved set percent-encoded. */
static char *file_url(const char *abs, const char *tail)
{
	static const char hex[] = "0123456789ABCDEF";
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, "file://");
	for (const unsigned char *p = (const unsigned char *)abs; *p; p++) {
		if (isalnum(*p) || strchr("/-._~", *p)) {
			wp_buf_addch(&b, (char)*p);
		} else {
			char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			wp_buf_add(&b, esc, 3);
		}
	}
	wp_buf_addstr(&b, tail);
	return wp_buf_detach(&b, NULL);
}

static bool same_opt(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Check one page's links against the disk: file there, sha256 right, metadata right, wheel sound. */
static void check_links(struct vctx *c, struct hcache *hc, const char *root, const char *page,
			struct links *ls)
{
	size_t rlen = strlen(root);
	for (size_t i = 0; i < ls->n; i++) {
		struct link *l = &ls->v[i];
		char *path = NULL;
		struct wp_err e = WP_ERR_INIT;
		c->rep->links++;
		if (strncmp(l->url, "file://", 7) || wp_url_decode(l->url + 7, strlen(l->url + 7), &path, &e) < 0) {
			problem_add(c, true, page, "the link to '%s' does not stay in the mirror: %s",
				    l->filename, l->url);
			continue;
		}
		if (strncmp(path, root, rlen) || path[rlen] != '/' || strstr(path, "/../")) {
			problem_add(c, true, page, "the link to '%s' leaves the mirror: %s", l->filename, path);
			free(path);
			continue;
		}
		if (!l->sha256) {
			problem_add(c, true, page, "the link to '%s' has no #sha256=", l->filename);
		} else if (!is_file(path)) {
			problem_add(c, true, path, "is missing; '%s' links to it", page);
		} else {
			struct hashed *h = hash_of(c, hc, path);
			if (strcmp(h->sha256, l->sha256))
				problem_add(c, true, path, "sha256 is %s, '%s' says %s", h->sha256[0] ?
					    h->sha256 : "(unreadable)", page, l->sha256);
			else if (ends_with(l->filename, ".whl") && !h->wheel_checked) {
				h->wheel_checked = true;
				check_wheel(c, path, l->filename);
			}
		}
		if (l->core_metadata) {
			char *mpath = wp_xasprintf("%s.metadata", path);
			if (!is_file(mpath)) {
				problem_add(c, true, mpath, "is missing; '%s' announces it", page);
			} else if (!strncmp(l->core_metadata, "sha256=", 7)) {
				struct hashed *h = hash_of(c, hc, mpath);
				if (strcmp(h->sha256, l->core_metadata + 7))
					problem_add(c, true, mpath, "sha256 is %s, '%s' says %s", h->sha256,
						    page, l->core_metadata + 7);
			}
			free(mpath);
		}
		free(path);
	}
}

static int read_page(struct vctx *c, const char *path, const char *url, bool json, struct links *ls)
{
	struct wp_buf b;
	struct wp_err e = WP_ERR_INIT;
	int rc = wp_file_read_capped(path, PAGE_MAX, &b, &e);
	if (!rc)
		rc = json ? wp_read_pep691(url, NULL, wp_buf_cstr(&b), b.len, collect_link, ls, NULL, &e)
			  : wp_read_html_links(url, NULL, wp_buf_cstr(&b), b.len, collect_link, ls, NULL, &e);
	if (rc)
		problem_add(c, true, path, "%s", e.msg);
	else
		c->rep->pages++;
	wp_buf_free(&b);
	return rc;
}

static void compare_pages(struct vctx *c, const char *html_path, struct links *h, struct links *j)
{
	for (size_t i = 0; i < h->n; i++) {
		struct link *a = &h->v[i], *b = NULL;
		for (size_t k = 0; k < j->n && !b; k++)
			if (!strcmp(j->v[k].filename, a->filename))
				b = &j->v[k];
		if (!b) {
			problem_add(c, false, html_path, "'%s' is not in index.json beside it (a write in "
				    "progress, or one that was cut short)", a->filename);
			continue;
		}
		const char *what = !same_opt(a->url, b->url) ? "url" :
				   !same_opt(a->sha256, b->sha256) ? "sha256" :
				   !same_opt(a->requires_python, b->requires_python) ? "requires-python" :
				   !same_opt(a->core_metadata, b->core_metadata) ? "core metadata" : NULL;
		if (what)
			problem_add(c, true, html_path, "index.html and index.json disagree on the %s of '%s'",
				    what, a->filename);
	}
	for (size_t k = 0; k < j->n; k++) {
		bool found = false;
		for (size_t i = 0; i < h->n && !found; i++)
			found = !strcmp(h->v[i].filename, j->v[k].filename);
		if (!found)
			problem_add(c, false, html_path, "'%s' is in index.json but not in index.html",
				    j->v[k].filename);
	}
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

static void check_root(struct vctx *c, const char *root, const char *simple)
{
	struct names hn = { 0 }, jn = { 0 };
	char *html = wp_xasprintf("%s/index.html", simple), *json = wp_xasprintf("%s/index.json", simple);
	char *url = file_url(simple, "/");
	struct wp_err e = WP_ERR_INIT;
	struct wp_buf b;
	if (!is_file(html)) {
		problem_add(c, true, html, "is missing: pip cannot list the mirror's projects");
	} else if (wp_file_read_capped(html, PAGE_MAX, &b, &e) < 0 ||
		   wp_read_html_projects(url, wp_buf_cstr(&b), b.len, collect_name, &hn, NULL, &e) < 0) {
		problem_add(c, true, html, "%s", e.msg);
		wp_buf_free(&b);
	} else {
		wp_buf_free(&b);
		c->rep->pages++;
		for (size_t i = 0; i < hn.n; i++) {
			char *page = wp_xasprintf("%s/%s/index.html", simple, hn.v[i]);
			c->rep->links++;
			if (!is_file(page))
				problem_add(c, true, page, "is missing; the root page links to '%s'", hn.v[i]);
			free(page);
		}
	}
	if (is_file(json)) {
		wp_err_clear(&e);
		if (wp_file_read_capped(json, PAGE_MAX, &b, &e) < 0 ||
		    wp_read_pep691_projects(url, wp_buf_cstr(&b), b.len, collect_name, &jn, NULL, &e) < 0) {
			problem_add(c, true, json, "%s", e.msg);
		} else {
			c->rep->pages++;
			for (size_t i = 0; i < jn.n; i++) {
				char *page = wp_xasprintf("%s/%s/index.json", simple, jn.v[i]);
				bool in_html = false;
				for (size_t k = 0; k < hn.n && !in_html; k++)
					in_html = !strcmp(hn.v[k], jn.v[i]);
				if (!is_file(page))
					problem_add(c, true, page, "is missing; the root index.json names '%s'",
						    jn.v[i]);
				else if (!in_html)
					problem_add(c, false, json, "'%s' is not in index.html beside it", jn.v[i]);
				free(page);
			}
			for (size_t i = 0; i < hn.n; i++) {
				bool in_json = false;
				for (size_t k = 0; k < jn.n && !in_json; k++)
					in_json = !strcmp(hn.v[i], jn.v[k]);
				if (!in_json)
					problem_add(c, false, json, "'%s' is in index.html but not here", hn.v[i]);
			}
		}
		wp_buf_free(&b);
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
static void verify_root(struct vctx *c, struct hcache *hc, const char *root, const char *simple)
{
	size_t n;
	char **projects = list_dir(simple, &n);
	check_root(c, root, simple);
	for (size_t i = 0; i < n; i++) {
		char *pdir = wp_xasprintf("%s/%s", simple, projects[i]);
		char *html = wp_xasprintf("%s/index.html", pdir), *json = wp_xasprintf("%s/index.json", pdir);
		char *url = file_url(pdir, "/");
		struct links hl = { 0 }, jl = { 0 };
		bool have_html = is_file(html), have_json = is_file(json);
		if (is_dir(pdir)) {
			if (have_html && !read_page(c, html, url, false, &hl))
				check_links(c, hc, root, html, &hl);
			if (have_json && !read_page(c, json, url, true, &jl))
				check_links(c, hc, root, json, &jl);
			if (have_html && have_json)
				compare_pages(c, html, &hl, &jl);
		}
		links_free(&hl);
		links_free(&jl);
		free(url);
		free(html);
		free(json);
		free(pdir);
	}
	free_list(projects, n);
}

static void verify_mirror(struct vctx *c, const char *root)
{
	struct hcache hc = { 0 };
	char *simple = wp_xasprintf("%s/simple", root);
	size_t n;
	char **subs = list_dir(root, &n);
	verify_root(c, &hc, root, simple);
	/* the per-variant roots beside simple/, as PyTorch's /whl/cu118/ */
	for (size_t i = 0; i < n; i++) {
		struct wp_variant v;
		if (!strcmp(subs[i], "simple") || !strcmp(subs[i], "files") || !wp_variant_from_dir(subs[i], &v))
			continue;
		char *vr = wp_xasprintf("%s/%s", root, subs[i]), *idx = wp_xasprintf("%s/%s/index.html", root, subs[i]);
		if (is_dir(vr) && is_file(idx))
			verify_root(c, &hc, root, vr);
		free(vr);
		free(idx);
	}
	free_list(subs, n);
	free(simple);
	hcache_free(&hc);
}

/* ---- conda ---- */

struct chan {
	struct vctx *c;
	const char *subdir;
	const char *repodata;
};

static int check_conda_record(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct chan *ch = ctx;
	struct vctx *c = ch->c;
	char *path = wp_xasprintf("%s/%s", ch->subdir, rec->filename);
	struct wp_hasher h;
	struct stat sb;
	c->rep->links++;
	if (!wp_url_filename_ok(rec->filename)) {
		problem_add(c, true, ch->repodata, "'%s' is not a usable file name", rec->filename);
	} else if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		problem_add(c, true, path, "is missing; '%s' lists it", ch->repodata);
	} else if (rec->size >= 0 && rec->size != (long long)sb.st_size) {
		problem_add(c, true, path, "is %lld bytes, '%s' says %lld", (long long)sb.st_size,
			    ch->repodata, rec->size);
	} else if (wp_hasher_init(&h, WP_HASH_SHA256 | (rec->md5 ? WP_HASH_MD5 : 0), NULL) == 0) {
		char sha[WP_SHA256_HEX_LEN + 1], md5[WP_MD5_HEX_LEN + 1];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		char buf[65536];
		ssize_t got = fd < 0 ? -1 : 0;
		while (fd >= 0 && (got = read(fd, buf, sizeof(buf))) > 0)
			wp_hasher_update(&h, buf, (size_t)got);
		if (fd >= 0)
			close(fd);
		if (got < 0 || wp_hasher_final(&h, sha, rec->md5 ? md5 : NULL, NULL) < 0) {
			problem_add(c, true, path, "cannot be read");
		} else {
			c->rep->files++;
			if (!rec->sha256 && !rec->md5)
				problem_add(c, true, path, "'%s' gives no sha256 or md5 for it", ch->repodata);
			if (rec->sha256 && strcmp(sha, rec->sha256))
				problem_add(c, true, path, "sha256 is %s, '%s' says %s", sha, ch->repodata,
					    rec->sha256);
			else if (rec->md5 && strcmp(md5, rec->md5))
				problem_add(c, true, path, "md5 is %s, '%s' says %s", md5, ch->repodata, rec->md5);
			else {
				struct wp_conda_expect ex = { rec->project, rec->version, rec->build };
				struct wp_err e = WP_ERR_INIT;
				if (wp_conda_verify(path, &ex, NULL, &e) < 0)
					problem_add(c, true, path, "%s", e.msg);
			}
		}
		wp_hasher_release(&h);
	}
	free(path);
	return 0;
}

static void verify_subdir(struct vctx *c, const char *subdir)
{
	char *repodata = wp_xasprintf("%s/repodata.json", subdir);
	char *url = file_url(subdir, "");
	struct chan ch = { c, subdir, repodata };
	struct wp_index_stats st = { 0 };
	struct wp_err e = WP_ERR_INIT;
	if (wp_read_repodata_file(repodata, url, check_conda_record, &ch, &st, &e) < 0)
		problem_add(c, true, repodata, "%s", e.msg);
	else
		c->rep->pages++;
	if (st.malformed)
		problem_add(c, true, repodata, "%llu records are broken (no name, a bad hash, wrong types)",
			    st.malformed);
	free(url);
	free(repodata);
}

static bool has_repodata(const char *dir)
{
	char *p = wp_xasprintf("%s/repodata.json", dir);
	bool yes = is_file(p);
	free(p);
	return yes;
}

static void verify_channel(struct vctx *c, const char *dir)
{
	if (has_repodata(dir)) {
		verify_subdir(c, dir);
		return;
	}
	size_t n;
	char **subs = list_dir(dir, &n);
	for (size_t i = 0; i < n; i++) {
		char *sd = wp_xasprintf("%s/%s", dir, subs[i]);
		if (is_dir(sd) && has_repodata(sd))
			verify_subdir(c, sd);
		free(sd);
	}
	free_list(subs, n);
}

static bool is_channel(const char *dir)
{
	if (has_repodata(dir))
		return true;
	size_t n;
	char **subs = list_dir(dir, &n);
	bool yes = false;
	for (size_t i = 0; i < n && !yes; i++) {
		char *sd = wp_xasprintf("%s/%s", dir, subs[i]);
		yes = is_dir(sd) && has_repodata(sd);
		free(sd);
	}
	free_list(subs, n);
	return yes;
}

/* ---- bundle ---- */

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void verify_bundle(struct vctx *c, const char *path, struct wp_err *err)
{
	char tmpl[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR");
	snprintf(tmpl, sizeof(tmpl), "%s/wheelpick-verify-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	struct archive *a = archive_read_new(), *disk = archive_write_disk_new();
	struct archive_entry *ae;
	char *top = NULL, *shown = NULL, *name = NULL;
	int r;
	char *real = NULL;
	bool made = mkdtemp(tmpl) != NULL;
	if (!made || !(real = realpath(tmpl, NULL))) {
		problem_add(c, true, path, "cannot make a directory to unpack it in: %s", strerror(errno));
		goto out;
	}
	snprintf(tmpl, sizeof(tmpl), "%s", real);
	free(real);
	archive_read_support_format_tar(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_gzip(a);
	/* Members land under an absolute temp path, which SECURE_NOABSOLUTEPATHS would refuse: each
	 * name is checked by wp_member_name_problem (absolute, '..', NUL, ...) before the prefix goes
	 * on, and the other two guards see the whole path (the temp dir is resolved, so no link in
	 * it trips SECURE_SYMLINKS). */
	archive_write_disk_set_options(disk, ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
				       ARCHIVE_EXTRACT_PERM);
	if (archive_read_open_filename(a, path, 64 << 10) != ARCHIVE_OK) {
		problem_add(c, true, path, "is not a tar archive: %s", archive_error_string(a));
		goto out;
	}
	c->real = tmpl;
	shown = wp_xasprintf("%s:", path);
	c->shown = shown;
	size_t tops = 0;
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		free(name);
		name = archive_entry_pathname(ae) ? wp_xstrdup(archive_entry_pathname(ae)) : NULL;
		char buf[256];
		const char *bad = name ? wp_member_name_problem(name, strlen(name)) : "has no name";
		mode_t type = archive_entry_filetype(ae);
		if (bad || (type != AE_IFREG && type != AE_IFDIR)) {
			problem_add(c, true, path, "member '%s' %s", wp_member_name_show(name ? name : "",
				    name ? strlen(name) : 0, buf, sizeof(buf)),
				    bad ? bad : "is not a file or a directory");
			continue;
		}
		const char *slash = strchr(name, '/');
		size_t tlen = slash ? (size_t)(slash - name) : strlen(name);
		if (!top) {
			top = wp_xstrndup(name, tlen);
			tops = 1;
		} else if (strlen(top) != tlen || strncmp(top, name, tlen)) {
			tops++;
		}
		if (!slash && type == AE_IFREG) {
			tops++; /* a file beside the top folder */
			continue;
		}
		char *dest = wp_xasprintf("%s/%s", tmpl, name);
		archive_entry_set_pathname(ae, dest);
		free(dest);
		if (archive_write_header(disk, ae) != ARCHIVE_OK) {
			problem_add(c, true, path, "cannot unpack member '%s': %s", name, archive_error_string(disk));
			continue;
		}
		const void *blk;
		size_t sz;
		la_int64_t off;
		while ((r = archive_read_data_block(a, &blk, &sz, &off)) == ARCHIVE_OK)
			if (archive_write_data_block(disk, blk, sz, off) != ARCHIVE_OK)
				break;
		archive_write_finish_entry(disk);
		if (r != ARCHIVE_EOF) {
			problem_add(c, true, path, "member '%s' cannot be read: %s", name, archive_error_string(a));
			goto out;
		}
	}
	if (r != ARCHIVE_EOF) {
		problem_add(c, true, path, "is damaged: %s", archive_error_string(a));
		goto out;
	}
	if (!top || tops != 1) {
		problem_add(c, true, path, "has %s top-level folder", !top ? "no" : "more than one");
		goto out;
	}
	char *house = wp_xasprintf("%s/%s", tmpl, top);
	char *inst = wp_xasprintf("%s/install.sh", house);
	struct stat sb;
	if (stat(inst, &sb) < 0 || !S_ISREG(sb.st_mode))
		problem_add(c, true, inst, "is missing");
	else if (!(sb.st_mode & 0100))
		problem_add(c, true, inst, "is not executable");
	verify_wheelhouse(c, house, true);
	free(inst);
	free(house);
out:
	c->real = NULL;
	archive_read_free(a);
	archive_write_free(disk);
	if (made)
		nftw(tmpl, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(name);
	free(top);
	free(shown);
}

/* ---- the entry point ---- */

static bool is_bundle_name(const char *p)
{
	return ends_with(p, ".tar.zst") || ends_with(p, ".tzst") || ends_with(p, ".tar.gz") ||
	       ends_with(p, ".tgz") || ends_with(p, ".tar");
}

static bool is_wheelhouse(const char *dir)
{
	size_t n;
	char **names = list_dir(dir, &n);
	bool yes = false;
	for (size_t i = 0; i < n && !yes; i++)
		yes = ends_with(names[i], ".whl") || !strcmp(names[i], "requirements.txt") ||
		      (!strncmp(names[i], "requirements-", 13) && ends_with(names[i], ".txt"));
	free_list(names, n);
	return yes;
}

int wp_verify_path(const char *path, struct wp_verify_report *rep, struct wp_err *err)
{
	struct vctx c = { .rep = rep, .fatal_before = rep->n_fatal };
	struct stat sb;
	char *abs = NULL;
	int rc = 0;

	if (stat(path, &sb) < 0)
		return wp_fail(err, -WPE_IO, "cannot verify '%s': %s", path, strerror(errno));
	if (S_ISREG(sb.st_mode)) {
		if (ends_with(path, ".whl")) {
			rep->kind = WP_VERIFY_WHEEL;
			rep->files++;
			check_wheel(&c, path, NULL);
		} else if (ends_with(path, ".conda") || ends_with(path, ".tar.bz2")) {
			struct wp_err e = WP_ERR_INIT;
			rep->kind = WP_VERIFY_CONDA_PKG;
			rep->files++;
			if (wp_conda_verify(path, NULL, NULL, &e) < 0)
				problem_add(&c, true, path, "%s", e.msg);
		} else if (is_bundle_name(path)) {
			rep->kind = WP_VERIFY_BUNDLE;
			verify_bundle(&c, path, err);
		} else {
			return wp_fail(err, -WPE_USAGE, "cannot verify '%s': not a .whl, .conda, .tar.bz2 or "
				       "bundle (.tar.zst, .tar.gz)", path);
		}
	} else if (S_ISDIR(sb.st_mode)) {
		abs = realpath(path, NULL);
		if (!abs)
			return wp_fail(err, -WPE_IO, "cannot verify '%s': %s", path, strerror(errno));
		char *simple = wp_xasprintf("%s/simple", abs);
		bool mirror = is_dir(simple);
		free(simple);
		if (mirror) {
			rep->kind = WP_VERIFY_MIRROR;
			verify_mirror(&c, abs);
		} else if (is_channel(abs)) {
			rep->kind = WP_VERIFY_CHANNEL;
			verify_channel(&c, abs);
		} else if (is_wheelhouse(abs)) {
			rep->kind = WP_VERIFY_WHEELHOUSE;
			verify_wheelhouse(&c, abs, false);
		} else {
			rc = wp_fail(err, -WPE_USAGE, "cannot verify '%s': it holds no wheels, requirements.txt, "
				     "simple/ pages or repodata.json", path);
			goto out;
		}
	} else {
		return wp_fail(err, -WPE_USAGE, "cannot verify '%s': not a file or a directory", path);
	}
	size_t found = rep->n_fatal - c.fatal_before;
	if (found) {
		/* the first fatal problem of this call */
		const struct wp_verify_problem *first = NULL;
		size_t seen = 0;
		for (size_t i = 0; i < rep->n_problems; i++) {
			if (!rep->problems[i].fatal)
				continue;
			if (seen++ == c.fatal_before) {
				first = &rep->problems[i];
				break;
			}
		}
		rc = wp_fail(err, -WPE_INTEGRITY, "%s '%s' failed verification: %zu problem%s; first: "
			     "'%s' %s", wp_verify_kind_name(rep->kind), path, found, found == 1 ? "" : "s",
			     first->path, first->what);
	}
out:
	free(abs);
	return rc;
}
