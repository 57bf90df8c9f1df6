/* ops/core/indexconf.c: the indexes and TLS settings of a wheel job, from the command line, the
 * environment (wheelpick's, uv's, pip's) and pip's configuration files. */
#include "ops/core/indexconf.h"

#include "base/fs.h"
#include "base/mem.h"
#include "net/auth.h"
#include "ops/core/sources.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PIPCONF_MAX_BYTES (1 << 20)

static char *keep(struct wp_index_config *c, char *s)
{
	wp_vec_push(&c->owned, s);
	return s;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
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
	n = strnlen(text, n); /* a NUL ends the text: what follows is no configuration */
	const char *p = text, *end = text + n;
	wp_buf_addstr(&section, "");
	while (p <= end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *te;
		bool indented = p < le && (*p == ' ' || *p == '\t');
		const char *t = trim_span(p, le, &te);
		bool blank = t == te, comment = !blank && (*t == '#' || *t == ';');
		if (have_key && indented && !blank && !comment) {
			/* a continuation line: another value of a multi-value key */
			if (value.len)
				wp_buf_addch(&value, '\n');
			wp_buf_add(&value, t, (size_t)(te - t));
		} else if (!blank && !comment) {
			if (have_key)
				fn(ctx, wp_buf_cstr(&section), wp_buf_cstr(&key), wp_buf_cstr(&value));
			have_key = false;
			if (*t == '[') {
				const char *rb = memchr(t, ']', (size_t)(te - t));
				if (rb) {
					const char *se;
					const char *ss = trim_span(t + 1, rb, &se);
					wp_buf_reset(&section);
					for (const char *c = ss; c < se; c++)
						wp_buf_addch(&section, (char)tolower((unsigned char)*c));
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
						wp_buf_addch(&key, *c == '_' ? '-' : (char)tolower((unsigned char)*c));
					wp_buf_reset(&value);
					wp_buf_add(&value, vs, (size_t)(ve - vs));
					have_key = key.len > 0;
				}
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (have_key)
		fn(ctx, wp_buf_cstr(&section), wp_buf_cstr(&key), wp_buf_cstr(&value));
	wp_buf_free(&section);
	wp_buf_free(&key);
	wp_buf_free(&value);
}

/* The keys wheelpick reads, merged over the files: a later one replaces an earlier one. */
enum { K_INDEX_URL, K_EXTRA, K_FIND_LINKS, K_NO_INDEX, K_CERT, K_CLIENT_CERT, K_TRUSTED, K_TIMEOUT, K_N };
static const char *const key_names[K_N] = { "index-url", "extra-index-url", "find-links", "no-index",
					    "cert",      "client-cert",     "trusted-host", "timeout" };

struct pipconf {
	char *v[K_N];
	char *where[K_N];
	int rank[K_N];           /* 0 [global], 1 a command's section, in the file being read */
	const char *file;        /* the file being read */
};

static void conf_key(void *ctx, const char *section, const char *key, const char *value)
{
	struct pipconf *pc = ctx;
	int rank = !strcmp(section, "global") ? 0 : !strcmp(section, "install") || !strcmp(section, "download") ? 1 : -1;
	if (rank < 0)
		return;
	/* pip's --timeout is also --default-timeout: either name, in a file or the environment */
	if (!strcmp(key, "default-timeout"))
		key = "timeout";
	for (int k = 0; k < K_N; k++) {
		if (strcmp(key, key_names[k]) != 0 || rank < pc->rank[k])
			continue;
		free(pc->v[k]);
		free(pc->where[k]);
		pc->v[k] = wp_xstrdup(value);
		pc->where[k] = wp_xasprintf("pip.conf %s", pc->file);
		pc->rank[k] = rank;
	}
}

static void read_conf_file(struct wp_index_config *c, struct pipconf *pc, const char *path)
{
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err e = WP_ERR_INIT;
	if (access(path, F_OK) != 0)
		return;
	if (wp_file_read_capped(path, PIPCONF_MAX_BYTES, &b, &e) < 0) {
		wp_strlist_push(&c->warnings, keep(c, wp_xasprintf("pip's configuration '%s' was not read: %s", path, e.msg)));
		wp_buf_free(&b);
		return;
	}
	pc->file = path;
	for (int k = 0; k < K_N; k++)
		pc->rank[k] = 0; /* a new file's [global] replaces an older file's command section */
	wp_pipconf_parse(b.data ? b.data : "", b.len, conf_key, pc);
	wp_buf_free(&b);
}

/* pip's files in pip's order (pip's configuration docs, "Loading order"). */
static void read_pip_config(struct wp_index_config *c, struct pipconf *pc)
{
	const char *forced = env("PIP_CONFIG_FILE");
	if (forced && (!strcmp(forced, "/dev/null") || !strcmp(forced, "os.devnull")))
		return;
	char *paths[8];
	size_t n = 0;
	const char *xdg_dirs = env("XDG_CONFIG_DIRS");
	char *dirs = wp_xstrdup(xdg_dirs ? xdg_dirs : "/etc/xdg"), *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d && n < 3; d = strtok_r(NULL, ":", &save))
		paths[n++] = wp_xasprintf("%s/pip/pip.conf", d);
	free(dirs);
	paths[n++] = wp_xstrdup("/etc/pip.conf");
	const char *home = env("HOME");
	if (home)
		paths[n++] = wp_xasprintf("%s/.pip/pip.conf", home);
	const char *xdg_home = env("XDG_CONFIG_HOME");
	if (xdg_home)
		paths[n++] = wp_xasprintf("%s/pip/pip.conf", xdg_home);
	else if (home)
		paths[n++] = wp_xasprintf("%s/.config/pip/pip.conf", home);
	const char *venv = env("VIRTUAL_ENV");
	if (venv)
		paths[n++] = wp_xasprintf("%s/pip.conf", venv);
	for (size_t i = 0; i < n; i++) {
		read_conf_file(c, pc, paths[i]);
		free(paths[i]);
	}
	if (forced)
		read_conf_file(c, pc, forced);
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

/* One index as configured: NAME=URL named (its $UV_INDEX_<NAME>_USERNAME/_PASSWORD), the URL's
 * userinfo taken into the run's credentials; the URL kept without it. */
static const char *take_index(struct wp_index_config *c, const char *entry)
{
	const char *url;
	char *name = index_name(entry, &url);
	char *clean = strstr(url, "://") ? wp_net_url_take_credentials(url) : wp_xstrdup(url);
	if (name) {
		char *var = wp_xasprintf("UV_INDEX_%s_USERNAME", name);
		for (char *v = var + 9; *v && v < var + 9 + strlen(name); v++)
			*v = isalnum((unsigned char)*v) ? (char)toupper((unsigned char)*v) : '_';
		const char *user = env(var);
		memcpy(var + strlen(var) - 8, "PASSWORD", 8);
		const char *pass = getenv(var);
		if (user && strstr(clean, "://"))
			wp_net_cred_add(clean, user, pass ? pass : "");
		free(var);
		free(name);
	}
	return keep(c, clean);
}

/* Whitespace (and, for find-links lists, comma) separated entries of text into l. */
static void add_list(struct wp_index_config *c, struct wp_strlist *l, const char *text, bool is_index,
		     const char *seps)
{
	if (!text)
		return;
	char *copy = keep(c, wp_xstrdup(text)), *save = NULL;
	for (char *t = strtok_r(copy, seps, &save); t; t = strtok_r(NULL, seps, &save))
		wp_strlist_push(l, is_index ? take_index(c, t) : strstr(t, "://") ? keep(c, wp_net_url_take_credentials(t)) : t);
}

#define WS " \t\r\n"

static bool truthy(const char *v)
{
	return v && (!strcasecmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"));
}

/* Only extra indexes: they add to the default, which is then named first. */
static void default_first(struct wp_index_config *c)
{
	wp_strlist_push(&c->index, WP_PYTORCH_FINDLINKS);
	wp_strlist_push(&c->index, WP_PYTORCH_ROOT);
}

int wp_index_config_resolve(const struct wp_index_given *g, struct wp_index_config *c, struct wp_err *err)
{
	struct pipconf pc = { 0 };
	memset(c, 0, sizeof(*c));
	if (!g->isolated)
		read_pip_config(c, &pc);
	const char *uv_vars[] = { "UV_INDEX", "UV_DEFAULT_INDEX", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS" };
	const char *pip_vars[] = { "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX" };
	const char *uv = NULL, *pip = NULL;
	for (size_t i = 0; i < sizeof(uv_vars) / sizeof(*uv_vars) && !uv; i++)
		if (env(uv_vars[i]))
			uv = uv_vars[i];
	for (size_t i = 0; i < sizeof(pip_vars) / sizeof(*pip_vars) && !pip; i++)
		if (env(pip_vars[i]))
			pip = pip_vars[i];
	bool conf = pc.v[K_INDEX_URL] || pc.v[K_EXTRA] || pc.v[K_FIND_LINKS] || truthy(pc.v[K_NO_INDEX]);

	if (g->index_url.n || g->index.n || g->extra.n || g->find_links.n || g->no_index) {
		c->origin = keep(c, wp_xstrdup("the command line"));
		if (!g->no_index) {
			for (size_t i = 0; i < g->index_url.n; i++)
				wp_strlist_push(&c->index, take_index(c, g->index_url.v[i]));
			for (size_t i = 0; i < g->index.n; i++)
				wp_strlist_push(&c->index, take_index(c, g->index.v[i]));
			if (!c->index.n && g->extra.n)
				default_first(c);
			for (size_t i = 0; i < g->extra.n; i++)
				wp_strlist_push(&c->index, take_index(c, g->extra.v[i]));
		}
		for (size_t i = 0; i < g->find_links.n; i++)
			wp_strlist_push(&c->find_links, strstr(g->find_links.v[i], "://") ?
				keep(c, wp_net_url_take_credentials(g->find_links.v[i])) : g->find_links.v[i]);
	} else if (env("WHEELPICK_INDEX")) {
		/* the job's default, read where the job reads it (its pages when the catalog lacks a
		 * project); only said here */
		c->origin = keep(c, wp_xstrdup("WHEELPICK_INDEX"));
		char *copy = keep(c, wp_xstrdup(env("WHEELPICK_INDEX"))), *save = NULL;
		for (char *t = strtok_r(copy, WS ",", &save); t; t = strtok_r(NULL, WS ",", &save)) {
			/* its credentials now: a run that finds everything in the catalog reads no page,
			 * but still downloads from that host */
			free(wp_net_url_take_credentials(t));
			wp_strlist_push(&c->shown, keep(c, wp_net_url_mask(t)));
		}
	} else if (!g->isolated && uv) {
		/* uv's priority: --index entries, then extra indexes, then the default index last */
		c->origin = keep(c, wp_xstrdup(uv));
		add_list(c, &c->index, env("UV_INDEX"), true, WS);
		add_list(c, &c->index, env("UV_EXTRA_INDEX_URL"), true, WS);
		const char *dflt = env("UV_DEFAULT_INDEX") ? env("UV_DEFAULT_INDEX") : env("UV_INDEX_URL");
		if (dflt)
			add_list(c, &c->index, dflt, true, WS);
		else if (c->index.n)
			default_first(c);
		add_list(c, &c->find_links, env("UV_FIND_LINKS"), false, WS ",");
	} else if (!g->isolated && pip) {
		c->origin = keep(c, wp_xstrdup(pip));
		if (!truthy(env("PIP_NO_INDEX"))) {
			add_list(c, &c->index, env("PIP_INDEX_URL"), true, WS);
			if (!c->index.n && env("PIP_EXTRA_INDEX_URL"))
				default_first(c);
			add_list(c, &c->index, env("PIP_EXTRA_INDEX_URL"), true, WS);
		}
		add_list(c, &c->find_links, env("PIP_FIND_LINKS"), false, WS);
	} else if (!g->isolated && conf) {
		const char *where = pc.where[K_INDEX_URL] ? pc.where[K_INDEX_URL] : pc.where[K_EXTRA] ? pc.where[K_EXTRA]
										: pc.where[K_FIND_LINKS] ? pc.where[K_FIND_LINKS] : pc.where[K_NO_INDEX];
		c->origin = keep(c, wp_xstrdup(where));
		if (!truthy(pc.v[K_NO_INDEX])) {
			add_list(c, &c->index, pc.v[K_INDEX_URL], true, WS);
			if (!c->index.n && pc.v[K_EXTRA])
				default_first(c);
			add_list(c, &c->index, pc.v[K_EXTRA], true, WS);
		}
		add_list(c, &c->find_links, pc.v[K_FIND_LINKS], false, WS);
	}

	if (c->index.n || c->find_links.n) {
		/* as they will be read: a root with its slash, a path as a file:// URL */
		struct wp_sources as_read = { 0 };
		for (size_t i = 0; i < c->index.n; i++)
			wp_sources_add_index(&as_read, c->index.v[i]);
		for (size_t i = 0; i < c->find_links.n; i++)
			wp_sources_add_findlinks(&as_read, c->find_links.v[i]);
		for (size_t i = 0; i < as_read.n; i++) {
			wp_strlist_push(&c->shown, keep(c, as_read.urls[i]));
			as_read.urls[i] = NULL;
		}
		as_read.n = 0;
		wp_sources_release(&as_read);
	} else if (!c->shown.n) {
		if (!c->origin)
			c->origin = keep(c, wp_xstrdup("the default"));
		wp_strlist_push(&c->shown, WP_PYTORCH_FINDLINKS);
		wp_strlist_push(&c->shown, WP_PYTORCH_ROOT);
	}

	/* TLS, key by key: the command line, then pip's environment, then its files */
	/* WHEELPICK_CA_BUNDLE, wheelpick's own, comes before pip's (net/xfer.c reads it) */
	bool pip_cert = !g->isolated && !env("WHEELPICK_CA_BUNDLE");
	c->cert = g->cert ? g->cert : pip_cert && env("PIP_CERT") ? env("PIP_CERT") :
		  pip_cert && pc.v[K_CERT] ? keep(c, wp_xstrdup(pc.v[K_CERT])) : NULL;
	c->client_cert = g->client_cert ? g->client_cert : !g->isolated && env("PIP_CLIENT_CERT") ? env("PIP_CLIENT_CERT") :
			 !g->isolated && pc.v[K_CLIENT_CERT] ? keep(c, wp_xstrdup(pc.v[K_CLIENT_CERT])) : NULL;
	if (g->trusted_host.n)
		for (size_t i = 0; i < g->trusted_host.n; i++)
			wp_strlist_push(&c->trusted_host, g->trusted_host.v[i]);
	else if (!g->isolated)
		add_list(c, &c->trusted_host, env("PIP_TRUSTED_HOST") ? env("PIP_TRUSTED_HOST") : pc.v[K_TRUSTED], false, WS);
	const char *timeout_env = env("PIP_TIMEOUT") ? "PIP_TIMEOUT" : env("PIP_DEFAULT_TIMEOUT") ? "PIP_DEFAULT_TIMEOUT" : NULL;
	c->timeout = g->isolated ? NULL : timeout_env ? env(timeout_env) :
		     pc.v[K_TIMEOUT] ? keep(c, wp_xstrdup(pc.v[K_TIMEOUT])) : NULL;
	const char *timeout_where = timeout_env ? timeout_env :
				    pc.where[K_TIMEOUT] ? keep(c, wp_xstrdup(pc.where[K_TIMEOUT])) : NULL;
	for (int k = 0; k < K_N; k++) {
		free(pc.v[k]);
		free(pc.where[k]);
	}

	if (c->cert) {
		wp_net_set_ca_bundle(c->cert);
		wp_net_set_ca_bundle_origin(g->cert ? "--cert" : env("PIP_CERT") ? "PIP_CERT" : "pip.conf's cert");
	}
	if (c->client_cert)
		wp_net_set_client_cert(c->client_cert);
	for (size_t i = 0; i < c->trusted_host.n; i++)
		wp_net_trust_host(c->trusted_host.v[i]);
	if (c->timeout && !env("WHEELPICK_TIMEOUT")) {
		char *e = NULL;
		double t = strtod(c->timeout, &e);
		if (e == c->timeout || *e || t < 1 || t > 86400)
			return wp_fail(err, -WPE_USAGE, "pip's timeout '%s' (%s) is not a number of seconds from 1 to 86400",
				       c->timeout, timeout_where ? timeout_where : "?");
		char v[32];
		snprintf(v, sizeof(v), "%ld", (long)(t + 0.5));
		setenv("WHEELPICK_TIMEOUT", v, 0);
	}
	return 0;
}

void wp_index_config_release(struct wp_index_config *c)
{
	wp_strlist_release(&c->index);
	wp_strlist_release(&c->find_links);
	wp_strlist_release(&c->trusted_host);
	wp_strlist_release(&c->shown);
	wp_strlist_release(&c->warnings);
	for (size_t i = 0; i < c->owned.n; i++)
		free(c->owned.v[i]);
	wp_vec_free(&c->owned);
	memset(c, 0, sizeof(*c));
}
