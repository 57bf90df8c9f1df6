/* ops/core/indexconf.h: where the indexes of a wheel job come from, as pip and uv users have them
 * configured, first that speaks:
 *   1. the command line: -i/--index-url and --index (roots or pages), --extra-index-url, -f,
 *      --no-index (then only -f);
 *   2. $WHEELPICK_INDEX (read where the job reads its default; --isolated keeps it: it is
 *      wheelpick's own);
 *   3. uv: $UV_DEFAULT_INDEX, $UV_INDEX_URL, $UV_INDEX (NAME=URL entries too), $UV_EXTRA_INDEX_URL,
 *      $UV_FIND_LINKS;
 *   4. pip: $PIP_INDEX_URL, $PIP_EXTRA_INDEX_URL, $PIP_FIND_LINKS, $PIP_NO_INDEX;
 *   5. pip's configuration files as pip merges them (a later file's key replaces an earlier's):
 *      global ($XDG_CONFIG_DIRS/pip/pip.conf, /etc/pip.conf), user (~/.pip/pip.conf,
 *      $XDG_CONFIG_HOME/pip/pip.conf), site ($VIRTUAL_ENV/pip.conf), then $PIP_CONFIG_FILE
 *      (os.devnull, /dev/null, turns them all off); sections [global], then [install] and
 *      [download], whose keys replace [global]'s; keys index-url, extra-index-url, find-links,
 *      no-index, cert, client-cert, trusted-host, timeout;
 *   6. nothing: the built-in default (PyTorch's pages; the job's own).
 * --isolated skips 2 to 5 (as pip's --isolated skips its environment and files).
 * TLS settings follow the same rule key by key: --cert, $WHEELPICK_CA_BUNDLE (read by net/), then
 * $PIP_CERT, the files' cert (and so on for client-cert, trusted-host, timeout). Credentials: a URL's userinfo (wherever it was written),
 * and for a named index (uv's NAME=URL) $UV_INDEX_<NAME>_USERNAME and _PASSWORD, go to the run's
 * credentials (net/auth.h); what is kept and said holds the URLs without them.
 * Ownership: the config owns every string in it (wp_index_config_release). */
#ifndef WP_OPS_CORE_INDEXCONF_H
#define WP_OPS_CORE_INDEXCONF_H

#include <stdbool.h>

#include "base/err.h"
#include "base/vec.h"

struct wp_index_given {
	struct wp_strlist index_url, index, extra, find_links, trusted_host;
	const char *cert, *client_cert;
	bool no_index, isolated;
};

struct wp_index_config {
	struct wp_strlist index;       /* roots and pages, best first (URLs without userinfo) */
	struct wp_strlist find_links;  /* pages and folders */
	struct wp_strlist trusted_host;
	const char *cert, *client_cert, *timeout;
	char *origin;                  /* where the indexes came from, in words: "the command line",
					  "WHEELPICK_INDEX", "PIP_INDEX_URL", "pip.conf /etc/pip.conf", "the default" */
	struct wp_strlist shown;       /* the indexes in use as they may be said (no credentials) */
	struct wp_strlist warnings;    /* lines to say (a file that could not be read) */
	WP_VEC_OF(, char *) owned;
};

/* The indexes and TLS settings in force for a wheel job. Also applies them: credentials and TLS
 * settings to net/ for this run, and pip's timeout as $WHEELPICK_TIMEOUT when that is unset.
 * -WPE_USAGE for a configuration that cannot be read as one (a timeout that is no number). */
int wp_index_config_resolve(const struct wp_index_given *given, struct wp_index_config *out, struct wp_err *err);
void wp_index_config_release(struct wp_index_config *c);

/* pip's configuration format, as configparser reads it: "[section]", "key = value" or
 * "key: value", indented lines continuing the value, "#" and ";" comment lines. fn is called for
 * each key in order, with the key lower case and '_' read as '-' (as pip does), and the value
 * trimmed (continuation lines joined by '\n'). Never fails: a line it cannot read is skipped; a
 * NUL byte ends the text. */
typedef void wp_pipconf_fn(void *ctx, const char *section, const char *key, const char *value);
void wp_pipconf_parse(const char *text, size_t n, wp_pipconf_fn *fn, void *ctx);

#endif
