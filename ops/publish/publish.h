/* ops/publish/publish.h: a wheel run's proven files written out as a mirror (ops/publish/mirror.h)
 * or a bundle (ops/publish/bundle.h). Everything is borrowed for the call. */
#ifndef WP_OPS_PUBLISH_PUBLISH_H
#define WP_OPS_PUBLISH_PUBLISH_H

#include <stdbool.h>

#include "base/err.h"
#include "ops/conda/conda.h"
#include "ops/core/session.h"
#include "ops/publish/manifest.h"
#include "ops/publish/mirror.h"
#include "ops/wheel/pick.h"

/* The run's fetched files (each once) into the mirror at dir; rep gets the counts. */
int wp_publish_mirror(const struct wp_session *s, const struct wp_pick_run *run, const char *dir,
		      bool prune, struct wp_mirror_report *rep, struct wp_err *err);
/* The same with the writer's options (mo->prune, mo->meta_out: ops/publish/mirror.h). */
int wp_publish_mirror_opts(const struct wp_session *s, const struct wp_pick_run *run,
			   const char *dir, const struct wp_mirror_opts *mo,
			   struct wp_mirror_report *rep, struct wp_err *err);

/* The run's wheelhouse staged in a folder of its own under the cache's tmp/ (same file system as
 * the store: links, not copies; a unique name, never reused by a later process), packed into
 * out_path, and the staging removed. The run's paths point into the staging afterwards only
 * while it exists: they are cleared. */
int wp_publish_bundle(const struct wp_session *s, struct wp_pick_run *run, const char *out_path,
		      struct wp_err *err);
/* The same, cut into volumes of at most split bytes when split > 0 (ops/publish/bundle.h);
 * *nvolumes gets how many were written. */
int wp_publish_bundle_split(const struct wp_session *s, struct wp_pick_run *run,
			    const char *out_path, unsigned long long split, size_t *nvolumes,
			    struct wp_err *err);

/* The conda job run into a staging folder under the cache's tmp/ (links into the store, as above):
 * its channel at channel/, its locks beside it, then packed into out_path (volumes when
 * split > 0) with the conda install.sh (ops/publish/bundle.h), and the staging removed. job->dest
 * and job->locks_dir are ignored (the staging is used); res is filled as wp_conda_run fills it and
 * must be released. An incomplete closure fails as wp_conda_run does, writing nothing, unless
 * job->allow_missing. */
int wp_publish_conda_bundle(const struct wp_session *s, const struct wp_conda_job *job,
			    const char *out_path, unsigned long long split, size_t *nvolumes,
			    struct wp_conda_result *res, struct wp_err *err);

/* The same as deltas (ops/publish/bundle.h wp_bundle_opts.since): only what the tree since lacks,
 * with the new tree's manifest chained to it; *n_carried (may be NULL) gets how many files it
 * carries. */
int wp_publish_bundle_since(const struct wp_session *s, struct wp_pick_run *run,
			    const char *out_path, unsigned long long split,
			    const struct wp_tree_manifest *since, size_t *n_carried,
			    size_t *nvolumes, struct wp_err *err);
/* A mirror's delta (`mirror DIR --delta OUT`): the tree dir holds now, against since (what the far
 * side's mirror holds), with only the files since lacks at their path; no install.sh. */
int wp_publish_mirror_delta(const struct wp_session *s, const char *dir, const char *out_path,
			    unsigned long long split, const struct wp_tree_manifest *since,
			    size_t *n_carried, size_t *nvolumes, struct wp_err *err);
int wp_publish_conda_bundle_since(const struct wp_session *s, const struct wp_conda_job *job,
				  const char *out_path, unsigned long long split,
				  const struct wp_tree_manifest *since, size_t *n_carried,
				  size_t *nvolumes, struct wp_conda_result *res,
				  struct wp_err *err);

#endif
