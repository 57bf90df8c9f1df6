/* cli/print.h: what pick, mirror and bundle print on stdout: the plan per target (text or JSON)
 * and the conda picks. Everything is borrowed. */
#ifndef WP_PRINT_H
#define WP_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "ops/conda/conda.h"
#include "resolver/solve.h"

void wp_print_plan(const struct wp_plan *plan, bool json, bool explain);
/* The plan's size, one line: "total: 5 files, 2.4 GB" then what follows (" to download"). Each
 * file counts once, however many targets share it. */
void wp_print_plan_total(const struct wp_plan *plan, const char *what);
/* The same with the sizes to show per plan file (ops' wp_pick_probe_sizes: the index's, else what
 * the server announced; NULL: the index's alone); files still of unknown size are counted. */
void wp_print_plan_total_sized(const struct wp_plan *plan, const long long *shown,
			       const char *what);
/* With --json, a failure is still one JSON object on stdout:
 * {"error": {"exit": N, "message": "...", "project": "...", "rejected": [{"filename", "where",
 * "reason"}]}} (project and rejected when the plan says which project could not be picked; plan may
 * be NULL). */
void wp_print_json_error(int rc, const struct wp_err *err, const struct wp_plan *plan);
/* The inner object of that ({"exit": ..., "message": ..., "rejected": [...]}) into j. */
struct wp_json;
void wp_print_json_error_obj(struct wp_json *j, int rc, const struct wp_err *err,
			     const struct wp_plan *plan);
/* j finished onto stdout; every --json document goes out through here (or wp_print_plan), so
 * main knows whether one did: a failure after it prints no second object. */
void wp_print_json_out(struct wp_json *j);
bool wp_print_json_printed(void);
void wp_print_conda(const struct wp_conda_result *res, bool json);

/* s to f with each control byte shown as \xNN: a name or value from an index, a file or the
 * environment can never move the cursor, clear the screen or retitle the terminal. */
void wp_fputs_shown(const char *s, FILE *f);

/* s as one shell word a user can paste: bare when it is plain, else in single quotes, else (it
 * has control bytes) in bash's $'...' with those bytes as \xNN. */
void wp_print_shell_word(const char *s, FILE *f);

#endif
