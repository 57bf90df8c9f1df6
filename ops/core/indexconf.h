/* ops/core/indexconf.h: where the indexes of a wheel job come from, merged as pip and uv merge
 * them, from values the caller hands in (the command line's, and the process environment as a
 * NAME=VALUE array: nothing here reads the environment itself).
 *
 * pip's way (the default tool): the files pip reads, in pip's order — global
 * ($XDG_CONFIG_DIRS/pip/pip.conf, /etc/pip.conf), user (~/.pip/pip.conf, then
 * $XDG_CONFIG_HOME/pip/pip.conf; skipped when $PIP_CONFIG_FILE names a file that exists), site
 * ($VIRTUAL_ENV/pip.conf), then $PIP_CONFIG_FILE ("/dev/null": no file at all) — a later file's
 * "section.key" replacing an earlier one's; then [global] < the command's section ([download] for
 * a pick, [install] for install) < $PIP_<KEY> variables, KEY BY KEY; then the command line
 * (-i/--index/--index-url replaces index-url; --extra-index-url, -f and --trusted-host add to the
 * configured lists, as pip's append options do). An empty value is no value (pip ignores it).
 * With no index-url anywhere, extra indexes and find-links add to wheelpick's default (PyTorch's
 * pages), as pip's add to PyPI.
 *
 * uv's way, when any UV_* index variable or a uv.toml index setting is present: the command line
 * over $UV_* (one replaces the other, as clap's env fallback does), over uv.toml (user
 * $XDG_CONFIG_HOME/uv/uv.toml or ~/.config/uv/uv.toml, then the first system file of
 * $XDG_CONFIG_DIRS/uv/uv.toml and /etc/uv/uv.toml; $UV_CONFIG_FILE replaces both; $UV_NO_CONFIG
 * reads none); lists concatenated, the higher layer first. Order: --index/UV_INDEX entries, extra
 * indexes, uv.toml's [[index]] and extra-index-url, then the default index (-i, UV_DEFAULT_INDEX,
 * UV_INDEX_URL, index-url, [[index]] default = true) last. A company's uv index replaces the
 * public default: PyTorch's pages are in play only when asked for.
 *
 * $WHEELPICK_INDEX, when the command line names no index, is the job's default (read by the job).
 * --isolated skips pip's and uv's variables and files. TLS settings and the timeout follow pip's
 * merge key by key (cert, client-cert, trusted-host, timeout/default-timeout), $UV_HTTP_TIMEOUT
 * after pip's. Credentials: a URL's userinfo, and for a named index $UV_INDEX_<NAME>_USERNAME and
 * _PASSWORD, go to given->creds (net/auth.h); what is kept and said holds URLs without.
 * Ownership: the config owns every string in it (wp_index_config_release); given is borrowed. */
#ifndef WP_OPS_CORE_INDEXCONF_H
#define WP_OPS_CORE_INDEXCONF_H

#include <stdbool.h>

#include "base/err.h"
#include "base/vec.h"

struct wp_net_creds;

struct wp_index_given {
	struct wp_strlist index_url, index, extra, find_links, trusted_host;
	const char *cert, *client_cert;
	bool no_index, isolated;
	const char *const *envp; /* the process environment, NAME=VALUE, NULL-terminated; NULL:
				    empty */
	const char *pip_command; /* pip's section read after [global]: "download" (NULL) or
				    "install" */
	struct wp_net_creds *creds; /* where the indexes' credentials go (the run's, net/auth.h);
				       NULL: they are dropped */
};

/* One setting as configured somewhere, for `config list`/`config debug` and the plan's header. */
struct wp_config_value {
	char *name; /* pip's "section.key" (":env:.key" for a variable), uv's "uv.KEY", or "KEY" */
	char *value; /* as written, credentials included: mask (base/urlmask.h) before saying it */
	char *origin;    /* "FILE:LINE", "PIP_INDEX_URL", "--index-url", "UV_INDEX" */
	char *file;      /* the file it was read from, NULL for a variable or the command line */
	bool in_effect;  /* false: a higher layer replaced it (or its section is not read) */
};

/* A configuration file looked for, for `config debug`. variant: pip's "global", "user", "site",
 * "env" ($PIP_CONFIG_FILE); uv's "uv-system", "uv-user", "uv-env". */
struct wp_config_file {
	const char *variant;
	char *path;
	bool exists, read; /* read: false when skipped whether it exists or not (pip's user files
			      under an existing PIP_CONFIG_FILE) */
};

struct wp_index_config {
	struct wp_strlist index;       /* roots and pages, best first (URLs without userinfo) */
	struct wp_strlist find_links;  /* pages and folders */
	struct wp_strlist trusted_host;
	const char *cert, *client_cert, *timeout;
	const char *cert_origin;       /* "--cert", "PIP_CERT", "pip.conf FILE" */
	long timeout_s;                /* the configured timeout in whole seconds, 0 when none */
	const char *index_strategy;    /* UV_INDEX_STRATEGY or uv.toml's (NULL: none) */
	const char *tool;              /* "pip", "uv", "wheelpick" or NULL (nothing configured) */
	char *origin; /* where the indexes came from, in words: "the command line",
			 "WHEELPICK_INDEX", "PIP_INDEX_URL", "pip.conf /etc/pip.conf", "the
			 default"; several joined with ", " when they came from several places */
	struct wp_strlist shown;       /* the indexes in use as they may be said (no credentials) */
	struct wp_strlist shown_from;  /* shown[i]'s origin, in the same words */
	struct wp_strlist looking; /* pip's "Looking in indexes" order, credentials as pip redacts
				      them */
	struct wp_strlist looking_links; /* pip's "Looking in links", the same way */
	struct wp_strlist warnings;    /* lines to say (a file that could not be read) */
	WP_VEC_OF(, struct wp_config_value) values;
	WP_VEC_OF(, struct wp_config_file) files;
	WP_VEC_OF(, char *) owned;
};

/* The indexes and TLS settings in force for a wheel job. Also adds the indexes' credentials to
 * given->creds. The TLS settings (cert, client_cert, trusted_host) and the timeout are returned,
 * not applied: cli/ puts them into the run's struct wp_net_conf. -WPE_USAGE for a configuration
 * that cannot be read as one (a timeout that is no number). */
int wp_index_config_resolve(const struct wp_index_given *given, struct wp_index_config *out,
			    struct wp_err *err);
void wp_index_config_release(struct wp_index_config *c);
/* pip's configuration format, as configparser reads it: "[section]", "key = value" or
 * "key: value", indented lines continuing the value, "#" and ";" comment lines. fn is called for
 * each key in order, with the section as written (configparser's are case-sensitive), the key
 * lower case and '_' read as '-' (as pip does), the value trimmed (each continuation line after a
 * '\n', an empty first line kept, as configparser keeps it), and the line the key is on (1-based).
 * Never fails: a line it cannot read is skipped; a NUL byte ends the text. */
typedef void wp_pipconf_fn(void *ctx, const char *section, const char *key, const char *value,
			   unsigned line);
void wp_pipconf_parse(const char *text, size_t n, wp_pipconf_fn *fn, void *ctx);

#endif
