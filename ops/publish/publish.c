/* ops/publish/publish.c: a run's files as a mirror or a bundle. */
#include "ops/publish/publish.h"
#include "base/fs.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "ops/publish/bundle.h"
#include "ops/publish/mirror_variants.h"
#include "ops/publish/sbom_tree.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int wp_publish_mirror(const struct wp_session *s, const struct wp_pick_run *run, const char *dir,
		      bool prune, struct wp_mirror_report *rep, struct wp_err *err)
{
	const struct wp_mirror_opts mo = { .prune = prune };
	return wp_publish_mirror_opts(s, run, dir, &mo, rep, err);
}

struct mirror_sbom {
	const struct wp_session *s;
	const struct wp_plan *plan;
};

static int mirror_sbom(void *ctx, const char *dir, struct wp_err *err)
{
	const struct mirror_sbom *ms = ctx;
	return wp_publish_mirror_sbom(ms->s, ms->plan, dir, err);
}

int wp_publish_mirror_opts(const struct wp_session *s, const struct wp_pick_run *run,
			   const char *dir, const struct wp_mirror_opts *mo,
			   struct wp_mirror_report *rep, struct wp_err *err)
{
	const struct wp_plan *plan = &run->plan;
	struct wp_mirror_file *mf = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*mf));
	size_t n = 0;
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(mf[k].filename, f->filename);
		if (dup || !f->path)
			continue;
		mf[n++] = (struct wp_mirror_file){
			.project = f->project,
			.filename = f->filename,
			.store_path = f->path,
			.sha256 = f->sha256,
			.size = f->size,
			.requires_python = f->requires_python,
			.upload_time = f->upload_time,
			.variant = f->variant,
			/* parsed when the plan took the file: the mirror reads them, not the
			 * name */
			.wheel = f->wheel.name ? &f->wheel : NULL,
			.version = f->wheel.name && f->version_ok &&
						   !strcmp(f->wheel.version, f->version) ?
					   &f->version_parsed :
					   NULL,
		};
	}
	struct wp_mirror_vjson vj = { 0 };
	/* pages carry hashes; PEP 658 files come out of the wheels */
	int rc = wp_lazy_require(WP_LIB_CRYPTO | WP_LIB_ARCHIVE, err);
	/* PEP 825: each release with variant wheels carries its variants.json */
	if (!rc && !(rc = wp_mirror_vjson_collect(run, &vj, err)) && vj.n) {
		mf = wp_xrealloc(mf, (n + vj.n) * sizeof(*mf));
		memcpy(mf + n, vj.files, vj.n * sizeof(*mf));
		n += vj.n;
	}
	/* the SBOM, written under the tree's lock (in S3's staging too: it goes up with the files;
	 * it is made from the manifest's hashes, so the staging's stand-ins of earlier files
	 * serve) */
	struct mirror_sbom ms = { s, plan };
	struct wp_mirror_opts with = *mo;
	if (!mo->after)
		with.after = mirror_sbom, with.after_ctx = &ms;
	if (!rc)
		rc = wp_mirror_write(dir, mf, n, &with, rep, err);
	if (!rc)
		wp_say(s, WP_SAY_INFO,
		       "mirror %s: %zu files in %zu projects, %zu page roots (%zu added, %zu unchanged, "
		       "%zu removed, %zu pinned)",
		       dir, rep->files, rep->projects, rep->roots, rep->added, rep->unchanged,
		       rep->removed, rep->pinned);
	if (!rc && rep->foreign)
		wp_say(s, WP_SAY_NOTE,
		       "mirror %s: %zu file(s) under files/ were not written by wheelpick; left alone",
		       dir, rep->foreign);
	free(mf);
	wp_mirror_vjson_free(&vj);
	return rc;
}

/* Every member's mtime: SOURCE_DATE_EPOCH when given, else the fixed WP_BUNDLE_MTIME. (Not the
 * newest file's own: on disk that is when the store fetched it, which differs between machines.) */
static long long bundle_mtime(const struct wp_session *s)
{
	return s->source_date_set ? s->source_date : WP_BUNDLE_MTIME;
}

/* A fresh folder under the cache's tmp/ (same file system as the store: links, not copies).
 * mkdtemp, not the PID: a container's PID 1 is the same on every run, and a killed run's leftovers
 * must never be taken for this run's. */
static int make_stage(const struct wp_session *s, char **stage, struct wp_err *err)
{
	char *tmp = wp_xasprintf("%s/tmp", s->cache_dir);
	int rc;
	*stage = NULL;
	if ((rc = wp_lazy_require(WP_LIB_ARCHIVE, err)) || (rc = wp_mkdir_p(tmp, 0755, err)))
		goto out;
	*stage = wp_xasprintf("%s/bundle.XXXXXX", tmp);
	if (!wp_os_mkdtemp(*stage)) {
		rc = wp_fs_fail(err, errno, "cannot create", *stage);
		free(*stage);
		*stage = NULL;
	}
out:
	free(tmp);
	return rc;
}

int wp_publish_conda_bundle(const struct wp_session *s, const struct wp_conda_job *job,
			    const char *out_path, unsigned long long split, size_t *nvolumes,
			    struct wp_conda_result *res, struct wp_err *err)
{
	return wp_publish_conda_bundle_since(s, job, out_path, split, NULL, NULL, nvolumes, res,
					     err);
}

int wp_publish_conda_bundle_since(const struct wp_session *s, const struct wp_conda_job *job,
				  const char *out_path, unsigned long long split,
				  const struct wp_tree_manifest *since, size_t *n_carried,
				  size_t *nvolumes, struct wp_conda_result *res, struct wp_err *err)
{
	struct wp_conda_job staged = *job;
	char *stage = NULL, *channel = NULL;
	int rc;
	memset(res, 0, sizeof(*res));
	if ((rc = make_stage(s, &stage, err)))
		return rc;
	channel = wp_xasprintf("%s/" WP_BUNDLE_CHANNEL_DIR, stage);
	staged.dest = channel;
	staged.locks_dir = stage;
	if (!(rc = wp_conda_run(s, &staged, res, err)))
		rc = wp_bundle_write_opts(out_path, stage, WP_BUNDLE_CONDA,
					  &(struct wp_bundle_opts){ .split = split,
								    .mtime = bundle_mtime(s),
								    .since = since,
								    .kind_name = "conda bundle",
								    .n_carried = n_carried },
					  nvolumes, err);
	wp_fs_remove_tree(stage);
	free(channel);
	free(stage);
	return rc;
}

int wp_publish_mirror_delta(const struct wp_session *s, const char *dir, const char *out_path,
			    unsigned long long split, const struct wp_tree_manifest *since,
			    size_t *n_carried, size_t *nvolumes, struct wp_err *err)
{
	return wp_bundle_write_opts(out_path, dir, WP_BUNDLE_MIRROR,
				    &(struct wp_bundle_opts){ .split = split,
							      .mtime = bundle_mtime(s),
							      .since = since,
							      .kind_name = "mirror",
							      .n_carried = n_carried },
				    nvolumes, err);
}

int wp_publish_bundle(const struct wp_session *s, struct wp_pick_run *run, const char *out_path,
		      struct wp_err *err)
{
	return wp_publish_bundle_split(s, run, out_path, 0, NULL, err);
}

int wp_publish_bundle_split(const struct wp_session *s, struct wp_pick_run *run,
			    const char *out_path, unsigned long long split, size_t *nvolumes,
			    struct wp_err *err)
{
	return wp_publish_bundle_since(s, run, out_path, split, NULL, NULL, nvolumes, err);
}

int wp_publish_bundle_since(const struct wp_session *s, struct wp_pick_run *run,
			    const char *out_path, unsigned long long split,
			    const struct wp_tree_manifest *since, size_t *n_carried,
			    size_t *nvolumes, struct wp_err *err)
{
	char *stage = NULL;
	int rc;
	if ((rc = make_stage(s, &stage, err)))
		goto out;
	if ((rc = wp_pick_write_wheelhouse(s, run, stage, err)))
		goto out;
	rc = wp_bundle_write_opts(out_path, stage, WP_BUNDLE_WHEELS,
				  &(struct wp_bundle_opts){ .split = split,
							    .mtime = bundle_mtime(s),
							    .since = since,
							    .kind_name = "wheelhouse",
							    .n_carried = n_carried },
				  nvolumes, err);
out:
	if (stage) {
		wp_fs_remove_tree(stage); /* ours (a fresh mkdtemp); links are removed, never
					     followed */
		/* the staged paths are gone with the folder */
		for (size_t i = 0; i < run->plan.n; i++) {
			free(run->plan.files[i].path);
			run->plan.files[i].path = NULL;
		}
	}
	free(stage);
	return rc;
}
