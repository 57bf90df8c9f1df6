/* cli/cli.h: what every command receives, and the command functions the table in main.c lists.
 * The CLI owns the session ops/ runs with: it decides what of ops/'s reports reaches stderr,
 * draws progress, prints results on stdout, and maps errors to exit codes. */
#ifndef WP_CLI_H
#define WP_CLI_H

#include <stdbool.h>

#include "base/err.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "ops/session.h"

#define WP_VERSION "0.1.0"

struct wp_cli {
	struct wp_session session;  /* catalog, cache, verbosity, reporting: what ops/ runs with */
	char *catalog_alloc;        /* the defaults main computed (NULL when given) */
	char *cache_alloc;
	int verbosity;              /* -1 quiet, 0 normal, 1+ verbose */
	bool stdout_tty;
	struct wp_progress progress;
};

/* A command returns 0 or a negative -WPE_* with err filled; main prints and maps to an exit code. */
typedef int wp_cmd_fn(struct wp_cli *cli, int argc, char **argv, struct wp_err *err);

struct wp_cmd {
	const char *name;
	wp_cmd_fn *fn;
	const char *summary;
};

wp_cmd_fn wp_cmd_pick, wp_cmd_update, wp_cmd_list, wp_cmd_detect, wp_cmd_tags, wp_cmd_mirror, wp_cmd_bundle, wp_cmd_verify,
	wp_cmd_trust, wp_cmd_matrix, wp_cmd_lock;

/* Message on stderr unless quiet ("wheelpick: ..."); warnings always. */
void wp_cli_note(const struct wp_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wp_cli_warn(const struct wp_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The session's catalog and cache folder must be known before a job opens them: -WPE_USAGE
 * naming what to set when neither a flag, the environment nor a home folder gives them. */
int wp_cli_need_paths(struct wp_cli *cli, struct wp_err *err);

/* Progress bars for the next job's transfers (on a terminal, unless quiet or JSON). */
void wp_cli_progress(struct wp_cli *cli, bool json);

#endif
