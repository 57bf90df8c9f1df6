/* cli/condaflow.h: `pick --conda` and `mirror --conda`: channels in strict priority, the conda
 * picking rule per package, the closure of depends, then a local channel on disk. */
#ifndef WP_CONDAFLOW_H
#define WP_CONDAFLOW_H

#include "cli/pickflow.h"

/* reqs are MatchSpecs ("pytorch==1.8.0", "pytorch 1.8.*"). With o->dry_run nothing is fetched;
 * else the closure lands as a conda channel in dir (DIR/<subdir>/repodata.json). */
int wp_conda_flow(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs, const char *dir,
		  struct wp_err *err);

#endif
