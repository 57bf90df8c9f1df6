/* ops/verify/wheelhouse.c: a wheelhouse re-checked: every wheel, requirements file, pylock and pick
 * record. */
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "index/html.h"
#include "ops/verify/common.h"
#include "resolver/wheelname.h"
#include "base/os/os.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	for (char *tok = strtok_r(line, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		const char *h = NULL;
		if (want_hash)
			h = tok;
		else if (!strncmp(tok, "--hash=", 7))
			h = tok + 7;
		want_hash = !strcmp(tok, "--hash");
		if (h || want_hash) {
			if (h) {
				wp_vec_push_fields(r->hashes, r->n_hashes, r->cap_hashes,
						   wp_xstrdup(h));
			}
			continue;
		}
		if (text.len)
			wp_buf_addch(&text, ' ');
		wp_buf_addstr(&text, tok);
	}
	r->text = wp_buf_detach(&text, NULL);
	size_t n = strspn(r->text,
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
	r->name = wp_xstrndup(r->text, n);
}

/* The PEP 503 project a file name says it belongs to, newly allocated, or NULL. */
static char *file_project(const char *filename)
{
	char *x = NULL;
	wp_distname_split(filename, &x, NULL);
	return x;
}

struct house_file {
	char *name;
	struct vo_hashed *h;
	bool listed;  /* some requirements line's --hash names it */
};

/* Option lines pip may meet in a wheelhouse's requirements without fetching from anywhere else or
 * reading another file; anything else (-i, --extra-index-url, -f, -e, -r, -c, --trusted-host, ...)
 * sends pip past the wheelhouse, which is what a tampered file would add. */
static bool option_is_local(const char *text)
{
	static const char *const ok[] = { "--no-index",    "--require-hashes",
					  "--only-binary", "--prefer-binary",
					  "--pre",         "--no-binary" };
	size_t n = strcspn(text, " =");
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strlen(ok[i]) == n && !strncmp(text, ok[i], n))
			return true;
	return false;
}

/* A list the wheelhouse holds (requirements, pylock.toml) into b, counted as a page; false, the
 * problem said, when it cannot be read. */
static bool read_list(struct vo_ctx *c, const char *path, struct wp_buf *b)
{
	struct wp_err e = WP_ERR_INIT;
	if (wp_file_read_capped(path, VO_REQS_MAX, b, &e) < 0) {
		wp_vo_problem_add(c, true, path, "%s", e.msg);
		wp_buf_free(b);
		return false;
	}
	c->rep->pages++;
	return true;
}

static void check_requirements(struct vo_ctx *c, const char *path, struct house_file *files,
			       size_t nf)
{
	struct wp_buf b;
	if (!read_list(c, path, &b))
		return;
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
		if (!r.text[0]) {
			/* blank or comment */
		} else if (r.text[0] == '-') {
			if (!option_is_local(r.text))
				wp_vo_problem_add(c, true, at,
						  "option line '%s' makes pip look beyond this wheelhouse; "
						  "wheelpick never writes it",
						  r.text);
		} else if (!r.n_hashes) {
			wp_vo_problem_add(c, true, at,
					  "'%s' has no --hash; pip --require-hashes refuses it",
					  r.text);
		} else {
			struct wp_buf want = WP_BUF_INIT;
			wp_project_name_normalize(r.name, strlen(r.name), &want);
			c->rep->links++;
			for (size_t i = 0; i < r.n_hashes; i++) {
				const char *h = r.hashes[i];
				if (strncmp(h, "sha256:", 7) || !wp_sha256_hex_valid(h + 7)) {
					wp_vo_problem_add(c, true, at,
							  "'%s' has a --hash that is not sha256:<64 hex>: '%s'",
							  r.text, h);
					continue;
				}
				size_t f = 0;
				for (; f < nf; f++)
					if (files[f].h->sha256[0] &&
					    !strcasecmp(files[f].h->sha256, h + 7))
						break;
				if (f == nf) {
					wp_vo_problem_add(c, true, at,
							  "no file here has the sha256 %s that '%s' asks for",
							  h + 7, r.text);
					continue;
				}
				for (size_t g = f; g < nf; g++) /* a variant wheel's plain-name copy
								   shares it */
					files[g].listed |= !strcasecmp(files[g].h->sha256, h + 7);
				char *proj = file_project(files[f].name);
				size_t pl = strcspn(r.text, " ;");
				if (!strncmp(r.text, "./", 2)) {
					/* a file of this folder by its path (a pylock.toml archive
					 * with no version) */
					if (strlen(files[f].name) != pl - 2 ||
					    strncmp(files[f].name, r.text + 2, pl - 2))
						wp_vo_problem_add(c, true, at,
								  "the file with sha256 %s is '%s', not '%.*s'",
								  h + 7, files[f].name, (int)pl,
								  r.text);
				} else if (proj && strcmp(proj, want.data ? want.data : ""))
					wp_vo_problem_add(c, true, at,
							  "the file with sha256 %s is '%s', not a file of '%s'",
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
static void check_pick_json_val(struct vo_ctx *c, const char *dir, const char *path,
				const struct wp_json_val *v, struct house_file *files, size_t nf,
				int depth)
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
			wp_vo_problem_add(c, true, path, "'%s' is listed but missing from '%s'",
					  name, dir);
		else if (!wp_sha256_hex_valid(want) || strcasecmp(files[f].h->sha256, want))
			wp_vo_problem_add(c, true, path,
					  "'%s' has sha256 %s here, the pick record says %s", name,
					  files[f].h->sha256, want);
	}
	for (size_t i = 0; i < wp_json_len(v); i++)
		check_pick_json_val(c, dir, path, wp_json_at(v, i), files, nf, depth + 1);
}

static void check_pick_json(struct vo_ctx *c, const char *dir, const char *path,
			    struct house_file *files, size_t nf)
{
	const struct wp_json_opts o = { .what = path, .max_bytes = VO_JSON_MAX };
	struct wp_buf b;
	struct wp_json_val *root = NULL;
	struct wp_err e = WP_ERR_INIT;
	if (wp_file_read_capped(path, VO_JSON_MAX, &b, &e) < 0 ||
	    wp_json_load(b.data, b.len, &o, &root, &e) < 0)
		wp_vo_problem_add(c, true, path, "%s", e.msg);
	else
		c->rep->pages++;
	check_pick_json_val(c, dir, path, root, files, nf, 0);
	wp_json_tree_free(root);
	wp_buf_free(&b);
}

/* A pylock.toml wheelpick wrote into a wheelhouse: every wheel it names by path is here, with the
 * sha256 it says. (Locks with URLs name files elsewhere: their hashes are checked by installers.)
 * A path must be a name in this folder: a lock may not point out of the wheelhouse. */
static void check_pylock(struct vo_ctx *c, const char *dir, const char *path,
			 struct house_file *files, size_t nf)
{
	struct wp_buf b;
	if (!read_list(c, path, &b))
		return;
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
		if (!pe || pe == p || memchr(p, '/', (size_t)(pe - p)) ||
		    memchr(p, '\\', (size_t)(pe - p)) || (pe - p <= 2 && p[0] == '.')) {
			wp_vo_problem_add(c, true, at,
					  "a wheel's path is not a file name in this folder");
			free(at);
			continue;
		}
		*pe = 0;
		c->rep->links++;
		size_t f = 0;
		while (f < nf && strcmp(files[f].name, p))
			f++;
		if (f == nf)
			wp_vo_problem_add(c, true, at, "names '%s', which is not here", p);
		else if (!h || strncasecmp(h + 10, files[f].h->sha256, 64) || h[74] != '"')
			wp_vo_problem_add(c, true, at,
					  "the sha256 it gives for '%s' is not the file's (%s)", p,
					  files[f].h->sha256);
		free(at);
		(void)dir;
	}
	wp_buf_free(&b);
}

void wp_vo_verify_wheelhouse(struct vo_ctx *c, const char *dir)
{
	struct vo_hcache hc = { 0 };
	size_t n;
	char **names = wp_vo_list_dir(dir, &n);
	struct house_file *files = wp_xcalloc(n ? n : 1, sizeof(*files));
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = wp_xasprintf("%s/%s", dir, names[i]);
		struct wp_os_stat sb;
		/* lstat: a FIFO is never opened (it would block), a link is never followed out */
		if (wp_os_lstat(path, &sb) == 0 && !WP_S_ISREG(sb.st_mode) &&
		    !WP_S_ISDIR(sb.st_mode)) {
			wp_vo_problem_add(c, true, path,
					  "is a %s, not a file; a wheelhouse carries plain files (remove it)",
					  WP_S_ISLNK(sb.st_mode)  ? "symbolic link" :
					  WP_S_ISFIFO(sb.st_mode) ? "FIFO" :
					  WP_S_ISSOCK(sb.st_mode) ? "socket" :
								    "device");
		} else if (WP_S_ISREG(sb.st_mode) &&
			   (wp_cstr_endswith(names[i], ".whl") ||
			    wp_index_file_kind(names[i]) == WP_KIND_SDIST)) {
			files[nf].name = names[i];
			files[nf].h = wp_vo_hash_of(c, &hc, path);
			if (!files[nf].h->sha256[0])
				wp_vo_problem_add(c, true, path, "cannot be read");
			else if (wp_cstr_endswith(names[i], ".whl"))
				wp_vo_check_wheel(c, path, NULL);
			if (files[nf].h->sha256[0])
				wp_vo_check_provenance(c, path, names[i], files[nf].h->sha256);
			nf++;
		}
		free(path);
	}
	/* PEP 825: a variant wheel's variant.json, and a variants.json when one is here (pick -d
	 * writes none) */
	wp_vo_check_variants(c, dir, NULL, 0);
	/* requirements.txt, and one per target that markers cannot tell apart; pylock locks */
	bool any_reqs = false;
	for (size_t i = 0; i < n; i++) {
		const char *nm = names[i];
		bool req = !strcmp(nm, "requirements.txt") ||
			   (!strncmp(nm, "requirements-", 13) && wp_cstr_endswith(nm, ".txt") &&
			    strlen(nm) > 17);
		bool lock = !strcmp(nm, "pylock.toml") ||
			    (!strncmp(nm, "pylock.", 7) && wp_cstr_endswith(nm, ".toml") &&
			     strlen(nm) > 12);
		if (!req && !lock)
			continue;
		char *path = wp_xasprintf("%s/%s", dir, nm);
		if (wp_vo_is_file(path)) {
			if (req)
				check_requirements(c, path, files, nf);
			else
				check_pylock(c, dir, path, files, nf);
			any_reqs |= req;
		}
		free(path);
	}
	if (!any_reqs) {
		/* without it nothing says which files belong here, or pins their hashes for pip */
		char *reqs = wp_xasprintf("%s/requirements.txt", dir);
		wp_vo_problem_add(c, true, reqs,
				  "is missing (and no requirements-<target>.txt is here): nothing pins "
				  "these files' hashes; write the wheelhouse again with 'wheelpick pick -d'");
		free(reqs);
	} else {
		for (size_t f = 0; f < nf; f++)
			if (!files[f].listed && files[f].h->sha256[0]) {
				char *path = wp_xasprintf("%s/%s", dir, files[f].name);
				wp_vo_problem_add(c, true, path,
						  "is here but no requirements file names its sha256; "
						  "pip would ignore it, or someone added it (remove it)");
				free(path);
			}
	}
	char *pick = wp_xasprintf("%s/wheelpick.json", dir);
	if (wp_vo_is_file(pick))
		check_pick_json(c, dir, pick, files, nf);
	free(pick);
	const char **paths = wp_xcalloc(nf ? nf : 1, sizeof(*paths)),
		   **shas = wp_xcalloc(nf ? nf : 1, sizeof(*shas));
	size_t ns = 0;
	for (size_t f = 0; f < nf; f++)
		if (files[f].h->sha256[0])
			paths[ns] = files[f].name, shas[ns++] = files[f].h->sha256;
	wp_vo_check_sbom(c, dir, paths, shas, ns, true);
	free(paths);
	free(shas);
	free(files);
	wp_vo_free_list(names, n);
	wp_vo_hcache_free(&hc);
}
