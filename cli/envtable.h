/* cli/envtable.h: the one table of the variables and files wheelpick reads its configuration
 * from: the man page's ENVIRONMENT and FILES (cli/gen.c) and `wheelpick config --help` are
 * written from it, and the README's table is checked against it (tests/cli/t-config.sh). */
#ifndef WP_CLI_ENVTABLE_H
#define WP_CLI_ENVTABLE_H

#include <stddef.h>

struct wp_env_var {
	const char *name;     /* "WHEELPICK_INDEX", "PIP_INDEX_URL", "~/.config/pip/pip.conf" */
	const char *meaning;  /* plain text, one line */
	const char *dflt;     /* what holds when it is unset ("" when nothing) */
	const char *tool;     /* whose convention: "wheelpick", "pip", "uv", "libcurl", "XDG" */
	int is_file;          /* a file, not a variable */
};

extern const struct wp_env_var wp_env_vars[];
extern const size_t wp_n_env_vars;

#endif
