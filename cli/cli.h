/* cli/cli.h: what every command receives, and the command table (cli/commands.c) that names each
 * command with its options, usage and help; --help, `wheelpick help`, the man page and the shell
 * completions are all written from that table.
 * The CLI owns the session ops/ runs with: it decides what of ops/'s reports reaches stderr,
 * draws progress, prints results on stdout, and maps errors to exit codes. */
#ifndef WP_CLI_H
#define WP_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "cli/netconf.h"
#include "ops/core/session.h"

#define WP_VERSION "0.1.0"

struct wp_cli {
	struct wp_session session;  /* catalog, cache, verbosity, reporting: what ops/ runs with */
	struct wp_cli_net net; /* the run's network settings, which session.net and .s3 point into
				*/
	char *catalog_alloc;        /* the defaults main computed (NULL when given) */
	char *cache_alloc;
	int verbosity;              /* -1 quiet, 0 normal, 1+ verbose */
	bool stdout_tty, stderr_tty;
	bool info_as_debug;         /* what ops/ reports at WP_SAY_INFO is said with -v only */
	double start;               /* when the command started (for -v timings) */
	int argc;                   /* the command line as given (main's), for `next:` to replay */
	char **argv;
	struct wp_progress progress;
};

/* A command returns 0 or a negative -WPE_* with err filled; main prints and maps to an exit
 * code. */
typedef int wp_cmd_fn(struct wp_cli *cli, int argc, char **argv, struct wp_err *err);

/* What a command's positional arguments are, for completion. */
enum wp_cmd_args {
	WP_ARGS_NONE,
	WP_ARGS_PACKAGES,      /* PKG[SPEC]... */
	WP_ARGS_DIR_PACKAGES,  /* DIR PKG[SPEC]... */
	WP_ARGS_FILE_PACKAGES, /* FILE PKG[SPEC]... */
	WP_ARGS_PACKAGE,       /* one PKG */
	WP_ARGS_PATHS,         /* PATH... */
	WP_ARGS_URLS,          /* URL... */
	WP_ARGS_COMMAND,       /* a command name */
	WP_ARGS_PATTERN,       /* a URL pattern */
};

struct wp_cmd {
	const char *name;
	wp_cmd_fn *fn;
	const struct wp_opt *table; /* its options; also its --help, man page section and
				       completions */
	const char *usage;          /* "wheelpick list PKG [--json] ..." */
	const char *summary;        /* one line, for the command list */
	const char *help;           /* what it does, in a few lines (no trailing newline) */
	enum wp_cmd_args args;
};

extern const struct wp_cmd wp_commands[];
extern const size_t wp_n_commands;
/* The exit codes, one table: the man page's EXIT STATUS is written from it, and the README's table
 * is checked against that (tests/cli/t-ux-contract.sh). */
struct wp_exit_code {
	int code;
	const char *meaning;
};
extern const struct wp_exit_code wp_exit_codes[];
extern const size_t wp_n_exit_codes;
/* The options every command takes, anywhere on the line before "--". */
extern const struct wp_opt wp_global_table[];

const struct wp_cmd *wp_cmd_find(const char *name);
/* The command whose option table is table (NULL when none). */
const struct wp_cmd *wp_cmd_of_table(const struct wp_opt *table);
/* A command's --help on f. */
void wp_cmd_print_help(const struct wp_cmd *cmd, FILE *f);
/* The top-level usage: commands, global options, exit codes. */
void wp_cli_usage(FILE *f);

wp_cmd_fn wp_cmd_pick, wp_cmd_update, wp_cmd_list, wp_cmd_detect, wp_cmd_tags, wp_cmd_mirror,
	wp_cmd_bundle, wp_cmd_verify, wp_cmd_trust, wp_cmd_matrix, wp_cmd_lock, wp_cmd_help,
	wp_cmd_config;
wp_cmd_fn wp_cmd_install, wp_cmd_uninstall, wp_cmd_apply;
/* list --installed (cli/cmd_install.c) */
int wp_cmd_list_installed(struct wp_cli *cli, const char *python, bool json, struct wp_err *err);

/* The option tables of the commands (cli/pick_opts.c has pick, mirror, bundle, matrix, lock). */
extern const struct wp_opt wp_update_table[], wp_list_table[], wp_detect_table[], wp_tags_table[],
	wp_trust_table[], wp_verify_table[], wp_help_table[], wp_config_table[];
extern const struct wp_opt wp_install_table[], wp_uninstall_table[], wp_apply_table[];

/* Man page (roff) and shell completions, written from the tables (cli/gen.c). */
int wp_gen_man(FILE *f);
int wp_gen_completion(FILE *f, const char *shell, struct wp_err *err);

/* Message on stderr unless quiet ("wheelpick: ..."). */
void wp_cli_note(const struct wp_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A warning, unless quiet (-q leaves only errors). */
void wp_cli_warn(const struct wp_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* With -v only: "wheelpick: [0.42 s] ..." */
void wp_cli_debug(const struct wp_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Seconds since the command started. */
double wp_cli_elapsed(const struct wp_cli *cli);

/* The session's catalog and cache folder must be known before a job opens them: -WPE_USAGE
 * naming what to set when neither a flag, the environment nor a home folder gives them. */
int wp_cli_need_paths(struct wp_cli *cli, struct wp_err *err);
/* A mirror, bundle or verify destination written as a URL: 0 for s3:// where s3_ok, else -WPE_USAGE
 * naming the scheme (a URL is never taken for a relative path); 0 for a path (cmd_mirror.c). */
int wp_cli_dest_check(const char *arg, const char *cmd, const char *noun, bool s3_ok,
		      struct wp_err *err);

/* Progress for the next job's transfers: a bar on a terminal (stderr), a line per finished file
 * elsewhere; nothing when quiet. json: the bar is left out (the lines stay on stderr). */
void wp_cli_progress(struct wp_cli *cli, bool json);

/* How a user of the command line asks for what a message advises (resolver/ask.h): the flags'
 * words, which only cli/ spells. */
extern const struct wp_asks wp_cli_asks;

#endif
