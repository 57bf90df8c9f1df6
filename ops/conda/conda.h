/* ops/conda/conda.h: the conda job (`pick --conda`, `mirror --conda`): channels in strict priority,
 * the conda picking rule per package, one variant across the set, the depends closure breadth
 * first, and (unless a dry run) the closure fetched, proven and laid out as a local channel.
 * Ownership: a wp_conda_job borrows its strings; a wp_conda_result owns its picks' strings and
 * the records they point to (wp_conda_result_release). */
#ifndef WP_OPS_CONDA_CONDA_H
#define WP_OPS_CONDA_CONDA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/vec.h"
#include "ops/conda/picks.h"
#include "ops/core/session.h"
#include "ops/core/targets.h"
#include "ops/wheel/locks.h"
#include "resolver/condapick.h"

struct wp_conda_job {
	struct wp_strlist reqs;      /* MatchSpecs: "pytorch==1.8.0", "pytorch 1.8.*" */
	struct wp_target_spec targets;
	struct wp_strlist channels;  /* names or URLs, strict priority */
	struct wp_strlist index;     /* repodata URLs or channel URLs given as --index */
	bool no_deps, offline, refresh;
	bool allow_missing; /* write the channel though dependencies are in no channel given */
	const char *dest;            /* the channel to write; NULL: resolve only (a dry run) */
	const char *locks_dir; /* where its locks go; NULL: in dest, beside the subdirs (a bundle
				* keeps them outside its channel/ folder) */
};

struct wp_conda_result {
	struct wp_target *targets;
	size_t n_targets;
	struct wp_conda_pick *picks;
	size_t n, cap;
	char **missing;              /* dependency names no channel given has */
	size_t nmissing, cap_missing;
	void *records;               /* the loaded records the picks point into (opaque) */
	bool wrote;                  /* the channel was written */
	struct wp_lock_report locks; /* explicit-<subdir>.txt, environment.yml ... written beside it
				      */
};

/* Resolve every target and, with job->dest, write the channel and its locks
 * (ops/conda/condalocks.h). A closure with dependencies that no channel given has fails
 * -WPE_NOMATCH naming each one, who needs it and the channel that has it, unless job->allow_missing
 * (then a warning). res is filled in either case (the picks, for printing) and must be released. */
int wp_conda_run(const struct wp_session *s, const struct wp_conda_job *job,
		 struct wp_conda_result *res, struct wp_err *err);
void wp_conda_result_release(struct wp_conda_result *res);

#endif
