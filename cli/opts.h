/* cli/opts.h: one option table per command: it parses argv and also generates --help.
 * Parsed strings borrow argv; lists own their arrays (wp_strlist_release), not the strings. */
#ifndef WP_OPTS_H
#define WP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "base/vec.h"

enum wp_opt_type {
	WP_OPT_FLAG, /* bool */
	WP_OPT_STR,  /* const char * (last one wins) */
	WP_OPT_LIST, /* struct wp_strlist (repeatable) */
};

struct wp_opt {
	const char *name;    /* long name without dashes: "cuda" */
	char short_name;     /* 'd', or 0 */
	const char *aliases; /* other long names, '|' separated: "index-url|extra-index-url" */
	enum wp_opt_type type;
	size_t offset;       /* where the value goes in the command's options struct */
	const char *metavar; /* "X.Y|auto|cpu" */
	const char *help;
};

#define WP_OPT_END { NULL, 0, NULL, 0, 0, NULL, NULL }

/* Parses argv[0..argc) (argv[0] is the first argument after the command name). Positional
 * arguments are appended to *pos. "--" ends options. Unknown options fail with -WPE_USAGE, saying
 * which option was meant, or which other command takes it. */
int wp_opts_parse(const struct wp_opt *table, void *out, int argc, char **argv,
		  struct wp_strlist *pos, struct wp_err *err);
void wp_opts_help(FILE *f, const char *usage, const char *summary, const struct wp_opt *table);
/* text on f from column col, wrapped at width with later lines indented by indent; a newline ends
 * it. */
void wp_opts_wrap(FILE *f, const char *text, size_t col, size_t indent, size_t width);
/* The entry of a long name ("platform", or an alias; n bytes of name) or a short letter; NULL. */
const struct wp_opt *wp_opts_find_long(const struct wp_opt *table, const char *name, size_t n);
const struct wp_opt *wp_opts_find_short(const struct wp_opt *table, char c);
/* true when argv holds -h or --help before any "--". */
bool wp_opts_wants_help(int argc, char **argv);

#endif
