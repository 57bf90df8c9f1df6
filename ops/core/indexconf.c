/* ops/core/indexconf.c: the indexes and TLS settings of a wheel job, from the command line, the
 * environment (wheelpick's, uv's, pip's) and pip's configuration files. */
#include "ops/core/indexconf.h"

#include "base/envp.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/urlmask.h"
#include "index/toml.h"
#include "net/auth.h"
#include "ops/core/sources.h"
#include "base/os/os.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PIPCONF_MAX_BYTES (1 << 20)

static char *keep(struct wp_index_config *c, char *s)
{
	wp_vec_push(&c->owned, s);
	return s;
}


/* --- pip's configuration format --- */

static const char *trim_span(const char *s, const char *e, const char **end)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*end = e;
	return s;
}

void wp_pipconf_parse(const char *text, size_t n, wp_pipconf_fn *fn, void *ctx)
{
	struct wp_buf section = WP_BUF_INIT, key = WP_BUF_INIT, value = WP_BUF_INIT;
	bool have_key = false;
	unsigned line = 0, key_line = 0;
	n = strnlen(text, n); /* a NUL ends the text: what follows is no configuration */
	const char *p = text, *end = text + n;
	wp_buf_addstr(&section, "");
	while (p <= end) {
		line++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *te;
		bool indented = p < le && (*p == ' ' || *p == '\t');
		const char *t = trim_span(p, le, &te);
		bool blank = t == te, comment = !blank && (*t == '#' || *t == ';');
		if (have_key && indented && !blank && !comment) {
			/* a continuation line: another value of a multi-value key (configparser
			 * keeps an empty first line: "key =" then indented values reads
			 * "\nA\nB") */
			wp_buf_addch(&value, '\n');
			wp_buf_add(&value, t, (size_t)(te - t));
		} else if (!blank && !comment) {
			if (have_key)
				fn(ctx, wp_buf_cstr(&section), wp_buf_cstr(&key),
				   wp_buf_cstr(&value), key_line);
			have_key = false;
			if (*t == '[') {
				const char *rb = memchr(t, ']', (size_t)(te - t));
				if (rb) {
					const char *se;
					const char *ss = trim_span(t + 1, rb, &se);
					wp_buf_reset(&section);
					/* as written: configparser's section names are
					 * case-sensitive */
					wp_buf_add(&section, ss, (size_t)(se - ss));
				}
			} else {
				size_t k = 0;
				while (t + k < te && t[k] != '=' && t[k] != ':')
					k++;
				if (t + k < te) {
					const char *ke, *ve;
					const char *ks = trim_span(t, t + k, &ke);
					const char *vs = trim_span(t + k + 1, te, &ve);
					wp_buf_reset(&key);
					for (const char *c = ks; c < ke; c++)
						wp_buf_addch(&key,
							     *c == '_' ? '-' :
									 (char)tolower((
										 unsigned char)*c));
					wp_buf_reset(&value);
					wp_buf_add(&value, vs, (size_t)(ve - vs));
					have_key = key.len > 0;
					key_line = line;
				}
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (have_key)
		fn(ctx, wp_buf_cstr(&section), wp_buf_cstr(&key), wp_buf_cstr(&value), key_line);
	wp_buf_free(&section);
	wp_buf_free(&key);
	wp_buf_free(&value);
}

/* --- the values, as configured --- */

struct ctx {
	struct wp_index_config *c;
	const struct wp_index_given *g;
	const char *command;  /* pip's command section */
	const char *file;     /* the file being read */
};

static const char *env(const struct ctx *x, const char *name)
{
	return wp_envp_get(x->g->envp, name);
}

static void add_value(struct wp_index_config *c, const char *name, const char *value,
		      const char *origin, const char *file)
{
	struct wp_config_value v = {
		.name = wp_xstrdup(name), .value = wp_xstrdup(value), .origin = wp_xstrdup(origin),
		.file = file ? wp_xstrdup(file) : NULL,
	};
	wp_vec_push(&c->values, v);
}

static void add_file(struct wp_index_config *c, const char *variant, const char *path, bool exists,
		     bool read)
{
	struct wp_config_file f = {
		.variant = variant, .path = wp_xstrdup(path), .exists = exists, .read = read
	};
	wp_vec_push(&c->files, f);
}

/* --- pip --- */

static void pip_key(void *ctx, const char *section, const char *key, const char *value,
		    unsigned line)
{
	struct ctx *x = ctx;
	char *name = wp_xasprintf("%s.%s", section, key);
	char *origin = wp_xasprintf("%s:%u", x->file, line);
	/* a later file's section.key replaces an earlier file's (pip's dictionary), so only the
	 * last one of each name stays in effect: marked when the merge is done */
	add_value(x->c, name, value, origin, x->file);
	free(name);
	free(origin);
}

static void pip_file(struct ctx *x, const char *variant, const char *path, bool read)
{
	struct wp_index_config *c = x->c;
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err e = WP_ERR_INIT;
	bool exists = wp_os_access(path, WP_F_OK) == 0;
	add_file(c, variant, path, exists, read);
	if (!exists || !read)
		return;
	if (wp_file_read_capped(path, PIPCONF_MAX_BYTES, &b, &e) < 0) {
		wp_strlist_push(&c->warnings,
				keep(c, wp_xasprintf("pip's configuration '%s' was not read: %s",
						     path, e.msg)));
		wp_buf_free(&b);
		return;
	}
	x->file = path;
	wp_pipconf_parse(b.data ? b.data : "", b.len, pip_key, x);
	x->file = NULL;
	wp_buf_free(&b);
}

/* pip's files on Windows (pip.ini): global %ProgramData%\pip\pip.ini (platformdirs'
 * site_config_dir), user %USERPROFILE%\pip\pip.ini (legacy) then %APPDATA%\pip\pip.ini. */
static void pip_files_windows(struct ctx *x, bool user)
{
	const char *pd = env(x, "ProgramData");
	char *global = wp_xasprintf("%s\\pip\\pip.ini", pd && *pd ? pd : "C:\\ProgramData");
	pip_file(x, "global", global, true);
	free(global);
	const char *profile = env(x, "USERPROFILE"), *appdata = env(x, "APPDATA");
	char *legacy = profile && *profile ? wp_xasprintf("%s\\pip\\pip.ini", profile) : NULL;
	char *modern = appdata && *appdata ? wp_xasprintf("%s\\pip\\pip.ini", appdata) : NULL;
	if (legacy)
		pip_file(x, "user", legacy, user);
	if (modern)
		pip_file(x, "user", modern, user);
	free(legacy);
	free(modern);
}

/* pip's files in pip's order (pip's configuration docs, "Loading order"; pip's
 * Configuration.iter_config_files). */
static void pip_files(struct ctx *x)
{
	const char *forced = env(x, "PIP_CONFIG_FILE");
	/* pip: "Skipping loading configuration files"; os.devnull is "nul" on Windows, any case */
	if (forced &&
	    !(wp_os_layout == WP_OS_LAYOUT_WINDOWS ? strcasecmp : strcmp)(forced, wp_os_devnull))
		return;
	/* the user's files are not read when PIP_CONFIG_FILE names a file that exists */
	bool user = !(forced && wp_os_access(forced, WP_F_OK) == 0);
	const char *venv = env(x, "VIRTUAL_ENV");
	if (wp_os_layout == WP_OS_LAYOUT_WINDOWS) {
		pip_files_windows(x, user);
		goto site;
	}
	const char *xdg_dirs = env(x, "XDG_CONFIG_DIRS");
	char *dirs = wp_xstrdup(xdg_dirs ? xdg_dirs : "/etc/xdg"), *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = wp_xasprintf("%s/pip/pip.conf", d);
		pip_file(x, "global", p, true);
		free(p);
	}
	free(dirs);
	pip_file(x, "global", "/etc/pip.conf", true);
	const char *home = env(x, "HOME");
	const char *xdg_home = env(x, "XDG_CONFIG_HOME");
	char *legacy = home ? wp_xasprintf("%s/.pip/pip.conf", home) : NULL;
	char *modern = xdg_home ? wp_xasprintf("%s/pip/pip.conf", xdg_home)
				: home ? wp_xasprintf("%s/.config/pip/pip.conf", home) : NULL;
	if (legacy)
		pip_file(x, "user", legacy, user);
	if (modern)
		pip_file(x, "user", modern, user);
	free(legacy);
	free(modern);
site:
	if (venv) {
		char *p = wp_xasprintf(wp_os_layout == WP_OS_LAYOUT_WINDOWS ? "%s\\pip.ini" :
									      "%s/pip.conf",
				       venv);
		pip_file(x, "site", p, true);
		free(p);
	}
	if (forced)
		pip_file(x, "env", forced, true);
}

/* pip's own variables: PIP_<KEY> is the key, lower case, '_' read as '-' (as pip does). */
static void pip_vars(struct ctx *x)
{
	for (size_t i = 0; x->g->envp && x->g->envp[i]; i++) {
		const char *e = x->g->envp[i], *eq = strchr(e, '=');
		if (strncmp(e, "PIP_", 4) != 0 || !eq || eq - e <= 4)
			continue;
		char *key = wp_xstrndup(e + 4, (size_t)(eq - e - 4));
		for (char *k = key; *k; k++)
			*k = *k == '_' ? '-' : (char)tolower((unsigned char)*k);
		if (strcmp(key, "version") != 0 && strcmp(key, "help") != 0) {
			char *name = wp_xasprintf(":env:.%s", key),
			     *var = wp_xstrndup(e, (size_t)(eq - e));
			add_value(x->c, name, eq + 1, var, NULL);
			free(name);
			free(var);
		}
		free(key);
	}
}

/* key (or its other name) after pip's merge: [global] < the command's section < :env:, in each the
 * last file's value; an empty value is none. The value in effect is marked. */
static const char *pip_get(struct ctx *x, const char *key, const char **origin)
{
	const char *alias = !strcmp(key, "timeout") ? "default-timeout" : NULL;
	const char *sections[] = { ":env:", x->command, "global" };
	struct wp_index_config *c = x->c;
	for (size_t s = 0; s < 3; s++) {
		struct wp_config_value *last = NULL;
		for (size_t i = 0; i < c->values.n; i++) {
			struct wp_config_value *v = &c->values.v[i];
			size_t sl = strlen(sections[s]);
			if (strncmp(v->name, sections[s], sl) != 0 || v->name[sl] != '.')
				continue;
			const char *k = v->name + sl + 1;
			if (!strcmp(k, key) || (alias && !strcmp(k, alias)))
				last = v;
		}
		if (last && *last->value) {
			last->in_effect = true;
			*origin = last->file ? keep(c, wp_xasprintf("pip.conf %s", last->file)) :
					       last->origin;
			return last->value;
		}
	}
	return NULL;
}

/* --- uv --- */

struct uvconf {
	const char *default_index, *default_origin;
	struct wp_strlist index, index_from;       /* [[index]] (not default) and extra-index-url */
	struct wp_strlist find_links, find_from;
	const char *strategy;
	bool no_index, any;
};

static void uv_list(struct wp_index_config *c, struct wp_strlist *to, struct wp_strlist *from,
		    const char *origin, const char *name, const struct wp_toml *v)
{
	if (!v)
		return;
	size_t n = v->type == WP_TOML_ARRAY ? v->n : 1;
	for (size_t i = 0; i < n; i++) {
		const struct wp_toml *it = v->type == WP_TOML_ARRAY ? v->items[i] : v;
		if (it->type != WP_TOML_STRING)
			continue;
		const char *entry = name ? keep(c, wp_xasprintf("%s=%s", name, it->str)) :
					   keep(c, wp_xstrdup(it->str));
		wp_strlist_push(to, entry);
		wp_strlist_push(from, origin);
	}
}

/* One uv.toml: its top level, then its [pip] table (uv pip's), into u; an earlier (higher) file's
 * scalars stay, its lists come first. */
static void uv_file(struct ctx *x, struct uvconf *u, const char *variant, const char *path)
{
	struct wp_index_config *c = x->c;
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err e = WP_ERR_INIT;
	struct wp_toml *root = NULL;
	bool exists = wp_os_access(path, WP_F_OK) == 0;
	add_file(c, variant, path, exists, exists);
	if (!exists)
		return;
	if (wp_file_read_capped(path, PIPCONF_MAX_BYTES, &b, &e) < 0 ||
	    wp_toml_parse(b.data ? b.data : "", b.len, path, &root, &e) < 0) {
		wp_strlist_push(&c->warnings,
				keep(c, wp_xasprintf("uv's configuration '%s' was not read: %s",
						     path, e.msg)));
		wp_buf_free(&b);
		return;
	}
	wp_buf_free(&b);
	const struct wp_toml *tables[2] = { wp_toml_get(root, "pip"), root };
	for (size_t t = 0; t < 2; t++) {
		const struct wp_toml *tb = tables[t];
		if (!tb || tb->type != WP_TOML_TABLE)
			continue;
		const char *prefix = t == 0 ? "uv.pip." : "uv.";
		for (size_t i = 0; i < tb->n; i++) {
			const struct wp_toml *v = tb->items[i];
			const char *k = tb->keys[i];
			char *origin = wp_xasprintf("%s:%u", path, v->line);
			char *name = wp_xasprintf("%s%s", prefix, k);
			const char *o = keep(c, wp_xasprintf("uv.toml %s", path));
			if (!strcmp(k, "index-url") && v->type == WP_TOML_STRING) {
				if (!u->default_index)
					u->default_index = keep(c, wp_xstrdup(v->str)),
					u->default_origin = o;
			} else if (!strcmp(k, "extra-index-url")) {
				uv_list(c, &u->index, &u->index_from, o, NULL, v);
			} else if (!strcmp(k, "find-links")) {
				uv_list(c, &u->find_links, &u->find_from, o, NULL, v);
			} else if (!strcmp(k, "no-index") && v->type == WP_TOML_BOOL) {
				u->no_index = u->no_index || v->b;
			} else if (!strcmp(k, "index-strategy") && v->type == WP_TOML_STRING) {
				if (!u->strategy)
					u->strategy = keep(c, wp_xstrdup(v->str));
			} else if (!strcmp(k, "index") && v->type == WP_TOML_ARRAY) {
				for (size_t j = 0; j < v->n; j++) {
					const struct wp_toml *ix = v->items[j],
							     *url = wp_toml_get(ix, "url");
					const struct wp_toml *nm = wp_toml_get(ix, "name"),
							     *df = wp_toml_get(ix, "default");
					if (!url || url->type != WP_TOML_STRING)
						continue;
					const char *iname = nm && nm->type == WP_TOML_STRING ?
								    nm->str :
								    NULL;
					if (df && df->type == WP_TOML_BOOL && df->b) {
						if (!u->default_index)
							u->default_index =
								iname ? keep(c,
									     wp_xasprintf("%s=%s",
											  iname,
											  url->str)) :
									keep(c,
									     wp_xstrdup(url->str)),
							u->default_origin = o;
					} else {
						uv_list(c, &u->index, &u->index_from, o, iname,
							url);
					}
				}
			} else {
				free(origin);
				free(name);
				continue;
			}
			if (v->type == WP_TOML_STRING || v->type == WP_TOML_BOOL) {
				add_value(c, name,
					  v->type == WP_TOML_STRING ? v->str :
					  v->b                      ? "true" :
								      "false",
					  origin, path);
			} else {
				/* a list: its strings (an [[index]]'s url) one a line, as pip shows
				 * a list */
				struct wp_buf lb = WP_BUF_INIT;
				for (size_t j = 0; j < v->n; j++) {
					const struct wp_toml *it = v->items[j],
							     *url = wp_toml_get(it, "url");
					const char *str = it->type == WP_TOML_STRING ? it->str :
							  url && url->type == WP_TOML_STRING ?
										       url->str :
										       NULL;
					if (!str)
						continue;
					if (lb.len)
						wp_buf_addch(&lb, '\n');
					wp_buf_addstr(&lb, str);
				}
				add_value(c, name, wp_buf_cstr(&lb), origin, path);
				wp_buf_free(&lb);
			}
			c->values.v[c->values.n - 1].in_effect = true;
			u->any = true;
			free(origin);
			free(name);
		}
	}
	wp_toml_free(root);
}

static bool truthy(const char *v)
{
	return v && (!strcasecmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
		     !strcasecmp(v, "on") || !strcasecmp(v, "y") || !strcasecmp(v, "t"));
}

/* uv's files: $UV_CONFIG_FILE alone, else the user's, then the first system file. */
static void uv_files(struct ctx *x, struct uvconf *u)
{
	if (truthy(env(x, "UV_NO_CONFIG")))
		return;
	const char *forced = env(x, "UV_CONFIG_FILE");
	if (forced) {
		uv_file(x, u, "uv-env", forced);
		return;
	}
	if (wp_os_layout == WP_OS_LAYOUT_WINDOWS) {
		/* uv on Windows: %APPDATA%\uv\uv.toml, then %PROGRAMDATA%\uv\uv.toml */
		const char *appdata = env(x, "APPDATA"), *pd = env(x, "ProgramData");
		if (appdata && *appdata) {
			char *p = wp_xasprintf("%s\\uv\\uv.toml", appdata);
			uv_file(x, u, "uv-user", p);
			free(p);
		}
		char *sys = wp_xasprintf("%s\\uv\\uv.toml", pd && *pd ? pd : "C:\\ProgramData");
		uv_file(x, u, "uv-system", sys);
		free(sys);
		return;
	}
	const char *home = env(x, "HOME"), *xdg_home = env(x, "XDG_CONFIG_HOME");
	char *user = xdg_home ? wp_xasprintf("%s/uv/uv.toml", xdg_home) :
		     home     ? wp_xasprintf("%s/.config/uv/uv.toml", home) :
				NULL;
	if (user)
		uv_file(x, u, "uv-user", user);
	free(user);
	const char *xdg_dirs = env(x, "XDG_CONFIG_DIRS");
	char *dirs = wp_xstrdup(xdg_dirs ? xdg_dirs : "/etc/xdg"), *save = NULL;
	bool found = false;
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = wp_xasprintf("%s/uv/uv.toml", d);
		if (wp_os_access(p, WP_F_OK) == 0) {
			uv_file(x, u, "uv-system", p);
			found = true;
		}
		free(p);
	}
	free(dirs);
	if (!found)
		uv_file(x, u, "uv-system", "/etc/uv/uv.toml");
}

/* --- the indexes --- */

/* uv's NAME=URL: the name, when entry is one (the URL after it is absolute or a path). */
static char *index_name(const char *entry, const char **url)
{
	const char *eq = strchr(entry, '=');
	*url = entry;
	if (!eq || eq == entry)
		return NULL;
	for (const char *c = entry; c < eq; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			return NULL;
	const char *rest = eq + 1;
	if (!strstr(rest, "://") && rest[0] != '/' && rest[0] != '.')
		return NULL;
	*url = rest;
	return wp_xstrndup(entry, (size_t)(eq - entry));
}

/* One index as configured, pushed with where it came from: NAME=URL named (its
 * $UV_INDEX_<NAME>_USERNAME/_PASSWORD), the URL's userinfo taken into the run's credentials; the
 * URL kept without it, and as pip says it (redacted) in looking. */
static void take_index(struct ctx *x, struct wp_strlist *to, struct wp_strlist *from,
		       const char *entry, const char *origin)
{
	struct wp_index_config *c = x->c;
	const char *url;
	char *name = index_name(entry, &url);
	char *clean = strstr(url, "://") ? wp_net_url_take_credentials(x->g->creds, url) :
					   wp_xstrdup(url);
	if (to == &c->index || to == &c->find_links)
		wp_strlist_push(to == &c->index ? &c->looking : &c->looking_links,
				keep(c, wp_url_redact(url)));
	if (name) {
		char *var = wp_xasprintf("UV_INDEX_%s_USERNAME", name);
		for (char *v = var + 9; *v && v < var + 9 + strlen(name); v++)
			*v = isalnum((unsigned char)*v) ? (char)toupper((unsigned char)*v) : '_';
		const char *user = env(x, var);
		memcpy(var + strlen(var) - 8, "PASSWORD", 8);
		const char *pass = env(x, var);
		if (user && strstr(clean, "://"))
			wp_net_creds_add(x->g->creds, clean, user, pass ? pass : "");
		free(var);
		free(name);
	}
	wp_strlist_push(to, keep(c, clean));
	wp_strlist_push(from, origin);
}

#define WS " \t\r\n"

/* Separated entries of text, each taken as an index (or a find-links location). */
static void take_list(struct ctx *x, struct wp_strlist *to, struct wp_strlist *from,
		      const char *text, const char *seps, const char *origin)
{
	if (!text)
		return;
	char *copy = wp_xstrdup(text), *save = NULL;
	for (char *t = strtok_r(copy, seps, &save); t; t = strtok_r(NULL, seps, &save))
		take_index(x, to, from, t, origin);
	free(copy);
}

static void take_given(struct ctx *x, struct wp_strlist *to, struct wp_strlist *from,
		       const struct wp_strlist *l, const char *origin)
{
	for (size_t i = 0; i < l->n; i++)
		take_index(x, to, from, l->v[i], origin);
}

/* wheelpick's default pages, said as coming from "the default" */
static void default_first(struct wp_index_config *c, struct wp_strlist *from)
{
	wp_strlist_push(&c->index, WP_PYTORCH_FINDLINKS);
	wp_strlist_push(from, "the default");
	wp_strlist_push(&c->index, WP_PYTORCH_ROOT);
	wp_strlist_push(from, "the default");
}

static bool given_any(const struct wp_index_given *g)
{
	return g->index_url.n || g->index.n || g->extra.n || g->find_links.n || g->no_index;
}

/* pip's way: index-url replaced by -i, lists added to by the command line. */
static void pip_indexes(struct ctx *x, struct wp_strlist *ifrom, struct wp_strlist *ffrom)
{
	const struct wp_index_given *g = x->g;
	struct wp_index_config *c = x->c;
	const char *o_index = NULL, *o_extra = NULL, *o_links = NULL, *o_no = NULL;
	const char *index_url = pip_get(x, "index-url", &o_index);
	const char *extra = pip_get(x, "extra-index-url", &o_extra);
	const char *links = pip_get(x, "find-links", &o_links);
	const char *no = pip_get(x, "no-index", &o_no);
	bool no_index = g->no_index || truthy(no);
	bool cli_index = g->index_url.n || g->index.n;
	if (!no_index) {
		if (cli_index) {
			take_given(x, &c->index, ifrom, &g->index_url, "the command line");
			take_given(x, &c->index, ifrom, &g->index, "the command line");
		} else if (index_url) {
			take_index(x, &c->index, ifrom, index_url, o_index);
		} else if (extra || g->extra.n || links) {
			/* pip's PyPI: extras, and configured links, add to it (-f alone on the
			 * command line keeps only its pages, wheelpick's documented rule) */
			default_first(c, ifrom);
			wp_strlist_push(&c->looking, WP_PYTORCH_FINDLINKS);
			wp_strlist_push(&c->looking, WP_PYTORCH_ROOT);
		}
		take_list(x, &c->index, ifrom, extra, WS, o_extra);
		take_given(x, &c->index, ifrom, &g->extra, "the command line");
	}
	take_list(x, &c->find_links, ffrom, links, WS, o_links);
	take_given(x, &c->find_links, ffrom, &g->find_links, "the command line");
	if (c->index.n + c->find_links.n || no_index)
		c->tool = "pip";
}

static bool uv_configured(const struct ctx *x, const struct uvconf *u)
{
	static const char *const vars[] = { "UV_INDEX",      "UV_DEFAULT_INDEX",
					    "UV_INDEX_URL",  "UV_EXTRA_INDEX_URL",
					    "UV_FIND_LINKS", "UV_NO_INDEX" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		if (env(x, vars[i]))
			return true;
	return u->any && (u->default_index || u->index.n || u->find_links.n || u->no_index);
}

/* uv's way: the command line replaces the variable of the same meaning; uv.toml's lists follow. */
static void uv_indexes(struct ctx *x, const struct uvconf *u, struct wp_strlist *ifrom,
		       struct wp_strlist *ffrom)
{
	const struct wp_index_given *g = x->g;
	struct wp_index_config *c = x->c;
	c->tool = "uv";
	bool no_index = g->no_index || truthy(env(x, "UV_NO_INDEX")) || u->no_index;
	if (!no_index) {
		if (g->index.n)
			take_given(x, &c->index, ifrom, &g->index, "the command line");
		else
			take_list(x, &c->index, ifrom, env(x, "UV_INDEX"), WS, "UV_INDEX");
		if (g->extra.n)
			take_given(x, &c->index, ifrom, &g->extra, "the command line");
		else
			take_list(x, &c->index, ifrom, env(x, "UV_EXTRA_INDEX_URL"), WS,
				  "UV_EXTRA_INDEX_URL");
		for (size_t i = 0; i < u->index.n; i++)
			take_index(x, &c->index, ifrom, u->index.v[i], u->index_from.v[i]);
		if (g->index_url.n)
			take_given(x, &c->index, ifrom, &g->index_url, "the command line");
		else if (env(x, "UV_DEFAULT_INDEX"))
			take_index(x, &c->index, ifrom, env(x, "UV_DEFAULT_INDEX"),
				   "UV_DEFAULT_INDEX");
		else if (env(x, "UV_INDEX_URL"))
			take_index(x, &c->index, ifrom, env(x, "UV_INDEX_URL"), "UV_INDEX_URL");
		else if (u->default_index)
			take_index(x, &c->index, ifrom, u->default_index, u->default_origin);
	}
	if (g->find_links.n)
		take_given(x, &c->find_links, ffrom, &g->find_links, "the command line");
	else
		take_list(x, &c->find_links, ffrom, env(x, "UV_FIND_LINKS"), ",", "UV_FIND_LINKS");
	for (size_t i = 0; i < u->find_links.n; i++)
		take_index(x, &c->find_links, ffrom, u->find_links.v[i], u->find_from.v[i]);
}

/* origin words: the distinct origins of the indexes, in order, joined */
static char *join_origins(const struct wp_strlist *from)
{
	struct wp_buf b = WP_BUF_INIT;
	for (size_t i = 0; i < from->n; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(from->v[k], from->v[i]);
		if (seen)
			continue;
		if (b.len)
			wp_buf_addstr(&b, ", ");
		wp_buf_addstr(&b, from->v[i]);
	}
	return wp_buf_detach(&b, NULL);
}

int wp_index_config_resolve(const struct wp_index_given *g, struct wp_index_config *c,
			    struct wp_err *err)
{
	struct uvconf u = { 0 };
	struct wp_strlist ifrom = { 0 }, ffrom = { 0 };
	struct ctx x = { .c = c, .g = g, .command = g->pip_command ? g->pip_command : "download" };
	int rc = 0;
	memset(c, 0, sizeof(*c));
	if (!g->isolated) {
		pip_files(&x);
		pip_vars(&x);
		uv_files(&x, &u);
	}
	const char *wpi = env(&x, "WHEELPICK_INDEX");
	if (!given_any(g) && wpi) {
		/* the job's default, read where the job reads it (its pages when the catalog lacks
		 * a project); only said here */
		c->origin = keep(c, wp_xstrdup("WHEELPICK_INDEX"));
		c->tool = "wheelpick";
		char *copy = keep(c, wp_xstrdup(wpi)), *save = NULL;
		for (char *t = strtok_r(copy, WS ",", &save); t;
		     t = strtok_r(NULL, WS ",", &save)) {
			/* its credentials now: a run that finds everything in the catalog reads no
			 * page, but still downloads from that host */
			free(wp_net_url_take_credentials(g->creds, t));
			wp_strlist_push(&c->shown, keep(c, wp_url_mask(t)));
			wp_strlist_push(&c->shown_from, "WHEELPICK_INDEX");
			wp_strlist_push(&c->looking, keep(c, wp_url_redact(t)));
		}
		add_value(c, "WHEELPICK_INDEX", wpi, "WHEELPICK_INDEX", NULL);
		c->values.v[c->values.n - 1].in_effect = true;
	} else if (!g->isolated && uv_configured(&x, &u)) {
		uv_indexes(&x, &u, &ifrom, &ffrom);
	} else {
		pip_indexes(&x, &ifrom, &ffrom);
	}
	if (!g->isolated && !c->shown.n) {
		/* uv's variables, said by `config list` */
		static const char *const uvvars[] = { "UV_INDEX",          "UV_DEFAULT_INDEX",
						      "UV_INDEX_URL",      "UV_EXTRA_INDEX_URL",
						      "UV_FIND_LINKS",     "UV_NO_INDEX",
						      "UV_INDEX_STRATEGY", "UV_HTTP_TIMEOUT" };
		for (size_t i = 0; i < sizeof(uvvars) / sizeof(*uvvars); i++)
			if (env(&x, uvvars[i])) {
				add_value(c, uvvars[i], env(&x, uvvars[i]), uvvars[i], NULL);
				c->values.v[c->values.n - 1]
					.in_effect = !strcmp(c->tool ? c->tool : "", "uv") ||
						     !strcmp(uvvars[i], "UV_INDEX_STRATEGY") ||
						     !strcmp(uvvars[i], "UV_HTTP_TIMEOUT");
			}
	}
	c->index_strategy = !g->isolated && env(&x, "UV_INDEX_STRATEGY") ?
				    env(&x, "UV_INDEX_STRATEGY") :
				    u.strategy;

	if (c->index.n || c->find_links.n) {
		/* as they will be read: a root with its slash, a path as a file:// URL */
		struct wp_sources as_read = { .creds = g->creds };
		for (size_t i = 0; i < c->index.n; i++)
			wp_sources_add_index(&as_read, c->index.v[i]);
		for (size_t i = 0; i < c->find_links.n; i++)
			wp_sources_add_findlinks(&as_read, c->find_links.v[i]);
		for (size_t i = 0; i < as_read.n; i++) {
			wp_strlist_push(&c->shown, keep(c, as_read.urls[i]));
			as_read.urls[i] = NULL;
			wp_strlist_push(&c->shown_from, i < ifrom.n ? ifrom.v[i] :
							i - ifrom.n < ffrom.n ?
								      ffrom.v[i - ifrom.n] :
								      "?");
		}
		as_read.n = 0;
		wp_sources_release(&as_read);
		c->origin = keep(c, join_origins(&c->shown_from));
	} else if (!c->shown.n) {
		if (!c->origin)
			c->origin = keep(c,
					 wp_xstrdup(c->tool ? "the command line" : "the default"));
		if (!c->tool) {
			wp_strlist_push(&c->shown, WP_PYTORCH_FINDLINKS);
			wp_strlist_push(&c->shown_from, "the default");
			wp_strlist_push(&c->shown, WP_PYTORCH_ROOT);
			wp_strlist_push(&c->shown_from, "the default");
		}
	}

	/* TLS and the timeout, key by key: the command line, then pip's merge (variables over
	 * files); WHEELPICK_CA_BUNDLE, wheelpick's own, comes before pip's (net/xfer.c reads it) */
	const char *o_cert = NULL, *o_cc = NULL, *o_th = NULL, *o_to = NULL;
	const char *pcert = g->isolated ? NULL : pip_get(&x, "cert", &o_cert);
	const char *pcc = g->isolated ? NULL : pip_get(&x, "client-cert", &o_cc);
	const char *pth = g->isolated ? NULL : pip_get(&x, "trusted-host", &o_th);
	const char *pto = g->isolated ? NULL : pip_get(&x, "timeout", &o_to);
	bool pip_cert = !env(&x, "WHEELPICK_CA_BUNDLE");
	c->cert = g->cert ? g->cert : pip_cert && pcert ? pcert : NULL;
	c->cert_origin = g->cert ? "--cert" : c->cert ? o_cert : NULL;
	c->client_cert = g->client_cert ? g->client_cert : pcc;
	if (pth) {
		char *copy = keep(c, wp_xstrdup(pth)), *save = NULL;
		for (char *t = strtok_r(copy, WS, &save); t; t = strtok_r(NULL, WS, &save))
			wp_strlist_push(&c->trusted_host, t);
	}
	for (size_t i = 0; i < g->trusted_host.n; i++)
		wp_strlist_push(&c->trusted_host, g->trusted_host.v[i]);
	if (!pto && !g->isolated && env(&x, "UV_HTTP_TIMEOUT"))
		pto = env(&x, "UV_HTTP_TIMEOUT"), o_to = "UV_HTTP_TIMEOUT";
	c->timeout = pto;
	if (pto) {
		char *e = NULL;
		double t = strtod(pto, &e);
		if (e == pto || *e || t < 1 || t > 86400) {
			rc = wp_fail(err, -WPE_USAGE,
				     "the timeout '%s' (%s) is not a number of seconds from 1 to 86400",
				     pto, o_to ? o_to : "?");
			goto out;
		}
		c->timeout_s = (long)(t + 0.5);
	}
	if (c->cert && !c->cert_origin)
		c->cert_origin = "pip.conf's cert";
out:
	wp_strlist_release(&ifrom);
	wp_strlist_release(&ffrom);
	wp_strlist_release(&u.index);
	wp_strlist_release(&u.index_from);
	wp_strlist_release(&u.find_links);
	wp_strlist_release(&u.find_from);
	return rc;
}

void wp_index_config_release(struct wp_index_config *c)
{
	wp_strlist_release(&c->index);
	wp_strlist_release(&c->find_links);
	wp_strlist_release(&c->trusted_host);
	wp_strlist_release(&c->shown);
	wp_strlist_release(&c->shown_from);
	wp_strlist_release(&c->looking);
	wp_strlist_release(&c->looking_links);
	wp_strlist_release(&c->warnings);
	for (size_t i = 0; i < c->values.n; i++) {
		free(c->values.v[i].name);
		free(c->values.v[i].value);
		free(c->values.v[i].origin);
		free(c->values.v[i].file);
	}
	wp_vec_free(&c->values);
	for (size_t i = 0; i < c->files.n; i++)
		free(c->files.v[i].path);
	wp_vec_free(&c->files);
	for (size_t i = 0; i < c->owned.n; i++)
		free(c->owned.v[i]);
	wp_vec_free(&c->owned);
	memset(c, 0, sizeof(*c));
}
