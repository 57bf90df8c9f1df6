/* cli/cli.h: what every command receives, and the command functions the table in main.c lists. */
#ifndef WP_CLI_H
#define WP_CLI_H

#include <stdbool.h>

#include "base/err.h"
#include "cli/opts.h"

#define WP_VERSION "0.1.0"

struct wp_cli {
	const char *catalog_path; /* owned by main (may point into argv or the environment) */
	char *catalog_path_alloc;
	int verbosity;            /* -1 quiet, 0 normal, 1+ verbose */
	bool stdout_tty;
};

/* A command returns 0 or a negative -WPE_* with err filled; main prints and maps to an exit code. */
typedef int wp_cmd_fn(struct wp_cli *cli, int argc, char **argv, struct wp_err *err);

struct wp_cmd {
	const char *name;
	wp_cmd_fn *fn;
	const char *summary;
};

wp_cmd_fn wp_cmd_pick, wp_cmd_update, wp_cmd_list, wp_cmd_detect, wp_cmd_tags, wp_cmd_mirror, wp_cmd_bundle, wp_cmd_verify,
	wp_cmd_trust;

/* Message on stderr unless quiet ("wheelpick: ..."). */
void wp_cli_note(const struct wp_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wp_cli_warn(const struct wp_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The default index sources: $WHEELPICK_INDEX (whitespace separated), else PyTorch's. The strings
 * pushed may point into the returned block, which the caller frees after the list (may be NULL). */
char *wp_cli_default_indexes(struct wp_strlist *out, bool conda);
/* Cache folder for downloaded files: $WHEELPICK_CACHE_DIR, $XDG_CACHE_HOME/wheelpick, ~/.cache/wheelpick.
 * Returns an allocated string. */
char *wp_cli_cache_dir(void);

#endif
