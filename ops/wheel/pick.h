/* ops/wheel/pick.h: the wheel job that pick, mirror and bundle share: targets, sources crawled as
 * needed, the plan, fetching the plan's files into the store, and writing a wheelhouse.
 * Ownership: a wp_pick_job borrows its strings (argv, the environment); a wp_pick_run owns what
 * it opened (wp_pick_run_release). */
#ifndef WP_OPS_WHEEL_PICK_H
#define WP_OPS_WHEEL_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "base/vec.h"
#include "cache/catalog.h"
#include "cache/store.h"
#include "ops/core/session.h"
#include "ops/core/targets.h"
#include "ops/wheel/resolve.h"
#include "resolver/solve.h"

struct wp_pick_job {
	struct wp_reqs reqs; /* the requirements, parsed where they were read (the command
				line, -r files): borrowed, never parsed again below */
	struct wp_target_spec targets;
	struct wp_strlist index;         /* --index URLs or paths, best first */
	struct wp_strlist find_links;    /* -f pages and folders (after index; never roots) */
	struct wp_strlist index_for;     /* PROJECT=URL */
	enum wp_index_strategy strategy;
	bool no_deps, pre, explain, offline, refresh;
	bool dry_run; /* nothing is to be downloaded: a wheel is fetched whole for
			 its metadata only with allow_full_downloads */
	bool allow_full_downloads;
	bool fetch_hashes; /* lock: fetch (and prove) the files the index gives no sha256
			      for, so that the lock can name their hashes */
	struct wp_reqs constraints;      /* pip's -c (parsed, borrowed): bind a project only once
	                                    something pulls it in */
	const struct wp_solve_hashes *hashes; /* pip's --hash, per project (borrowed) */
	size_t n_hashes;
	const char *testcase; /* write the resolution as a tests/solve case there (NULL: not) */
	bool gpu_check; /* pick, install: a fetched wheel whose GPU code has no kernel image
			   for its target's GPU is refused, and the next candidate picked */
};

struct wp_pick_run {
	struct wp_catalog cat;
	struct wp_store store;
	struct wp_plan plan;
	struct wp_target *targets;
	size_t n_targets;
	char *files_root;                /* the store's root: CACHE/files */
	size_t unhashed;                 /* files the index gave no sha256 for (hashed on fetch) */
	size_t refused, failed; /* wp_pick_fetch: files that failed their checks (integrity), or
				   could not be fetched */
	struct wp_strlist gpu_refused; /* URLs refused for their GPU code (job->gpu_check): not
					  picked again */
	long long *shown_sizes; /* wp_pick_probe_sizes: per plan file, the size to show (the
				   index's, else what its server announced; -1 unknown), or NULL.
				   Display only: a download is held to the index's size alone */
};

/* Targets, sources (crawled when missing or stale), then the plan. Notes the plan carries
 * (variant fallbacks) are said through s. */
int wp_pick_plan(const struct wp_session *s, const struct wp_pick_job *job, struct wp_pick_run *run,
		 struct wp_err *err);

/* The steps of wp_pick_plan, for jobs that resolve targets one at a time (matrix): targets,
 * catalog, sources and store into run; then a plan for the given targets (run->targets or a
 * part of them). */
int wp_pick_prepare(const struct wp_session *s, const struct wp_pick_job *job,
		    struct wp_pick_run *run, struct wp_err *err);
int wp_pick_resolve(const struct wp_session *s, const struct wp_pick_job *job,
		    struct wp_pick_run *run, const struct wp_target *targets, size_t n_targets,
		    struct wp_plan *plan, struct wp_err *err);

/* Fetch every planned file into the store and prove it; each file's path becomes its store
 * path. Files that failed keep path NULL and are said at WP_SAY_ERROR; the first failure
 * (integrity first) is returned. */
/* Before a plan's total is shown: the sizes the index did not give, asked of their servers (a HEAD
 * each, in parallel; file:// from the disk) into run->shown_sizes. Nothing is asked when every
 * size is known, or with --offline. Never fails: a size nobody tells stays unknown. */
void wp_pick_probe_sizes(const struct wp_session *s, const struct wp_pick_job *job,
			 struct wp_pick_run *run);

int wp_pick_fetch(const struct wp_session *s, const struct wp_pick_job *job,
		  struct wp_pick_run *run, struct wp_err *err);

/* Link each fetched file into dir, then write requirements.txt and wheelpick.json (only when
 * every file is there: requirements.txt promises them all). */
/* Make dir (mkdir -p) and check it can be written, before anything is downloaded for it: -d
 * naming a file or a read-only folder fails here (-WPE_IO) and not after the fetch. Sweeps the
 * temp names killed runs left in it. */
int wp_pick_dest_ready(const char *dir, struct wp_err *err);

/* Does the plan pick a PEP 825 variant wheel? Its METADATA may hold variant markers that pip's
 * packaging cannot parse, so the install command adds --no-deps (the requirement files already pin
 * the whole closure the markers chose). Each such wheel is also written under its plain name. */
bool wp_plan_has_variant_wheels(const struct wp_plan *plan);

int wp_pick_write_wheelhouse(const struct wp_session *s, struct wp_pick_run *run, const char *dir,
			     struct wp_err *err);

void wp_pick_run_release(struct wp_pick_run *run);

/* The sources the plan's files came from, as the catalog has them (each once, in the order the
 * plan first uses them): what the plan's header names when
 * the indexes in force were not what was read (the catalog's earlier reads, a requirement file's
 * --index-url). The caller frees the strings and out->v. Files the catalog lists nowhere (a lock's
 * own URLs) add nothing. A file several sources list is said to come from one under prefer (URL
 * prefixes: the indexes in force) when there is one. */
int wp_pick_sources_used(struct wp_pick_run *run, const struct wp_strlist *prefer,
			 struct wp_strlist *out, struct wp_err *err);

/* `lock`: the plan, with nothing downloaded, as PEP 751 lock files naming each wheel by URL: the
 * shared one at path (its folder gets the per-target ones). rep gets what was written. */
struct wp_lock_report;
int wp_pick_lock(const struct wp_session *s, const struct wp_pick_job *job, struct wp_pick_run *run,
		 const char *path, struct wp_lock_report *rep, struct wp_err *err);

/* The plan as JSON (the --json output and the wheelhouse's wheelpick.json), to f. */
void wp_plan_write_json(const struct wp_plan *plan, bool explain, FILE *f);
/* The members of that object ("targets", "picks", "notes") into an open object of j: matrix's
 * rows are pick's object. fallback: the target listed when the plan has none (a failed row). */
struct wp_json;
void wp_plan_json_members(struct wp_json *j, const struct wp_plan *plan,
			  const struct wp_target *fallback, bool explain);

#endif
