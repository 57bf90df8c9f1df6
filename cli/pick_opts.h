/* cli/pick_opts.h: the options pick, mirror and bundle take (one table per command, so that each
 * --help lists only what that command accepts), and turning them into an ops/ job.
 * Parsed strings borrow argv; the lists own their arrays (wp_pick_opts_release). */
#ifndef WP_PICK_OPTS_H
#define WP_PICK_OPTS_H

#include <stdbool.h>

#include "base/err.h"
#include "cli/opts.h"
#include "ops/conda.h"
#include "ops/pick.h"

struct wp_pick_opts {
	struct wp_strlist cuda, driver, python, platform, gpu, target, index, channel, index_for;
	const char *rocm, *dest, *index_strategy, *cuda_compat, *output;
	bool xpu, conda, dry_run, no_deps, json, explain, pre, offline, refresh, prune, allow_missing;
};

extern const struct wp_opt wp_pick_table[], wp_mirror_table[], wp_bundle_table[], wp_matrix_table[], wp_lock_table[];

/* The wheel job the options describe (reqs borrowed). -WPE_USAGE for options of the conda route
 * or an unknown --index-strategy. */
int wp_pick_opts_job(const struct wp_pick_opts *o, const struct wp_strlist *reqs, struct wp_pick_job *job,
		     struct wp_err *err);
/* The conda job: -WPE_USAGE for options that have no meaning there (--index-for, --pre,
 * --explain, --index-strategy), naming them. */
int wp_pick_opts_conda_job(const struct wp_pick_opts *o, const struct wp_strlist *reqs, const char *dest,
			   struct wp_conda_job *job, struct wp_err *err);
bool wp_pick_opts_is_conda(const struct wp_pick_opts *o);
void wp_pick_opts_release(struct wp_pick_opts *o);

#endif
