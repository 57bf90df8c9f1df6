/* resolver/solvecase.h: a provider that records what the solver was given (files, metadata,
 * failures) on its way through to another, and writes that as a tests/solve/NAME.t case which
 * replays the resolution with no network: what a user attaches to a report of a surprising pick.
 * Pure: the text goes into a buffer; the caller writes it (ops/wheel/resolve.c).
 * Ownership: the recorder owns copies of everything it saw (wp_solve_rec_release). */
#ifndef WP_SOLVECASE_H
#define WP_SOLVECASE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/vec.h"
#include "resolver/solve.h"

struct wp_solve_rec_file {
	char *project, *version, *variant, *kind, *filename, *url, *sha256, *requires_python;
	bool yanked;
	bool deps_read, deps_failed;
	char **deps;                 /* Requires-Dist lines as the metadata gave them */
	size_t n_deps;
	char *metapy;                /* Requires-Python of the metadata, or NULL */
	char *href;                  /* its name in the case (set while writing) */
};

WP_VEC_OF(wp_solve_rec_files, struct wp_solve_rec_file *);
WP_VEC_OF(wp_solve_rec_names, char *);

struct wp_solve_rec {
	const struct wp_solve_provider *inner;
	struct wp_solve_rec_files files;
	struct wp_solve_rec_names broken;  /* projects whose files() failed */
};

/* rec passes every call through to inner and keeps a copy of what came back; *outer is the
 * provider to hand the solver. inner must outlive rec's use. */
void wp_solve_rec_wrap(struct wp_solve_rec *rec, const struct wp_solve_provider *inner,
		       struct wp_solve_provider *outer);

/* The case: targets, options, the request, what was recorded, and what the solve gave (rc and
 * msg for a failure, plan for a success) as expect/exit lines. URLs lose their userinfo. */
void wp_solve_rec_case(struct wp_solve_rec *rec, const struct wp_req *reqs, size_t nreq,
		       const struct wp_target *targets, size_t n_targets,
		       const struct wp_solve_opts *so, const struct wp_plan *plan, int rc,
		       const char *msg, struct wp_buf *out);

void wp_solve_rec_release(struct wp_solve_rec *rec);

#endif
