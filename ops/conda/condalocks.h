/* ops/conda/condalocks.h: the locks written beside a conda closure: explicit-<subdir>.txt (CEP 23
 * @EXPLICIT: each package's URL with #sha256:, dependencies before what needs them, for
 * `conda create --file`) and environment.yml (the closure pinned name=version=build, with the
 * channels in priority order, for `conda env create -f`). Targets of one subdir that picked the
 * same closure share a file; otherwise each gets its own, named by its slug. Everything is
 * borrowed for the call; the report owns its strings. */
#ifndef WP_OPS_CONDA_CONDALOCKS_H
#define WP_OPS_CONDA_CONDALOCKS_H

#include <stddef.h>

#include "base/err.h"
#include "ops/conda/picks.h"
#include "ops/wheel/locks.h"

struct wp_conda_lock_input {
	const struct wp_target *targets;
	size_t n_targets;
	const struct wp_conda_pick *picks;  /* each with its target index */
	size_t n;
	const char *const *channels;        /* as -c takes them ("conda-forge"), priority order */
	size_t nch;
	char *const *missing; /* names left out (--allow-missing): said in each file */
	size_t nmissing;
	const char *env_name; /* the first request ("pytorch==2.5.1"): the env's name */
};

/* Writes the files into dir (atomically; files an earlier run wrote for targets no longer asked
 * for go) and adds each to rep. -WPE_USAGE when a record's URL or hash would break a line;
 * -WPE_IO for the file system. */
int wp_write_conda_locks(const struct wp_conda_lock_input *in, const char *dir,
			 struct wp_lock_report *rep, struct wp_err *err);

#endif
