/* cli/pick_opts.h: the options pick, mirror, bundle, matrix and lock take (one table per command,
 * so that each --help lists only what that command accepts), requirements and constraints files,
 * and turning them into an ops/ job.
 * Parsed strings borrow argv; the lists own their arrays, and the requirement files read, with
 * everything made of them, belong to the options (wp_pick_opts_release). */
#ifndef WP_PICK_OPTS_H
#define WP_PICK_OPTS_H

#include <stdbool.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "ops/conda/conda.h"
#include "ops/core/indexconf.h"
#include "ops/wheel/pick.h"
#include "resolver/reqfile.h"

struct wp_pick_opts {
	struct wp_strlist cuda, driver, python, platform, gpu, target, index, channel, index_for;
	struct wp_strlist gfx, intel_ip; /* --gfx (AMD GPUs), --intel-device-ip (PEP 825 intel ::
					    device_ip) */
	struct wp_strlist requirement, constraint;     /* -r FILE, -c FILE / --constraint FILE */
	/* pip's index options: -i/--index-url, --extra-index-url, -f/--find-links, --trusted-host,
	 * --cert, --client-cert, --no-index, --isolated (ops/core/indexconf.h) */
	struct wp_strlist index_url, extra_index, find_links, trusted_host;
	const char *cert, *client_cert;
	bool no_index, isolated;
	struct wp_index_config icfg;     /* made by wp_pick_opts_job: where the indexes came from */
	const char *rocm, *dest, *index_strategy, *cuda_compat, *output;
	const char *split;                 /* bundle --split SIZE */
	const char *sbom;                  /* --sbom cyclonedx|spdx|both */
	const char *since; /* bundle --since OLD: a delta against an earlier bundle or manifest */
	const char *delta; /* mirror --delta OUT: the run's delta of the mirror, written to OUT */
	const char *x86_64_level;         /* --x86-64-level v1..v4 (PEP 825 x86_64 :: level) */
	const char *write_testcase; /* pick, lock --write-testcase FILE: the resolution as a
				       tests/solve case */
	const char *lock; /* pick --lock pylock.toml: fetch what a PEP 751 lock names */
	const char *s3_endpoint, *s3_acl;  /* mirror s3://...: --s3-endpoint URL, --s3-acl ACL */
	struct wp_strlist lock_extra, lock_group; /* --lock-extra, --lock-group */
	bool fetch_hashes; /* lock: download what the index gives no sha256 for, to hash it */
	bool xpu, conda, dry_run, no_deps, json, explain, pre, offline, refresh, prune,
		allow_full_downloads, require_hashes, allow_missing;
	/* made by wp_pick_opts_job */
	struct wp_reqfile rf;            /* what the files said */
	struct wp_reqs all_reqs;         /* the command line's, then the files' (parsed as read) */
	struct wp_reqs cons;             /* the constraints, parsed where read */
	struct wp_strlist sources;       /* --index, then the files' sources */
	struct wp_strlist find_links_all; /* -f (or the configuration's), then the files' */
	struct wp_solve_hashes *hashes;  /* per project */
	size_t n_hashes;
	/* made by wp_pick_opts_sources_used: the sources the plan came from when they are not the
	 * indexes in force (owned strings), and where those came from in words (owned) */
	struct wp_strlist used;
	char *used_from;
};

extern const struct wp_opt wp_pick_table[], wp_mirror_table[], wp_bundle_table[], wp_matrix_table[],
	wp_lock_table[];

/* The wheel job the options describe, with the requirement files read (reqs borrowed; what the
 * files say is kept in o). Notes the files give are said through cli. -WPE_USAGE naming what is
 * wrong: a --platform no one could mean (with the tags it could), a requirement in another
 * tool's spelling, an option of the conda route, a file pip would refuse. */
int wp_pick_opts_job(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
		     struct wp_pick_job *job, struct wp_err *err);
/* The TLS settings (CA bundle, client certificate, trusted hosts) and timeout a job will run with,
 * put in the run's network settings before it starts: for a step that goes first (an S3
 * destination reached before anything is resolved). The job resolves them again, with its words. */
int wp_pick_opts_tls(struct wp_cli *cli, struct wp_pick_opts *o, struct wp_err *err);
/* The indexes in force (ops/core/indexconf.h) into o->icfg, TLS settings applied, said with -v; a
 * --trusted-host warned about on every run. Called by wp_pick_opts_job. */
int wp_pick_opts_indexes(struct wp_cli *cli, struct wp_pick_opts *o, struct wp_err *err);
/* After the plan is made: the sources its files came from, when the indexes in force do not cover
 * them (what the catalog read before, a requirement file's --index-url, a lock's own URLs), so
 * that the header names what was used. Nothing is changed when they do. */
struct wp_pick_run;
void wp_pick_opts_sources_used(struct wp_pick_opts *o, struct wp_pick_run *run);
/* "index: URL, ... (from WHERE)": the indexes in use, credentials masked (nothing without one). */
void wp_pick_opts_print_index(const struct wp_pick_opts *o);
/* The plan as wp_print_plan prints it, headed by the indexes in use and where they came from
 * ("index: URL (from PIP_INDEX_URL)"; in JSON "index": {"from", "urls"}), never a credential. */
void wp_pick_opts_print_plan(const struct wp_pick_opts *o, const struct wp_plan *plan, bool json,
			     bool explain);
/* The conda job: -WPE_USAGE for options that have no meaning there (--index-for, --pre,
 * --explain, --index-strategy, -r, constraints), naming them. */
int wp_pick_opts_conda_job(struct wp_cli *cli, struct wp_pick_opts *o,
			   const struct wp_strlist *reqs, const char *dest,
			   struct wp_conda_job *job, struct wp_err *err);
/* -c names a conda channel, or (pip's habit) a constraints file: a file that exists or a name
 * ending in .txt. Sorts the values given; call before wp_pick_opts_is_conda. */
void wp_pick_opts_split_c(struct wp_pick_opts *o);
bool wp_pick_opts_is_conda(const struct wp_pick_opts *o);
/* Each --platform value (or $WHEELPICK_PLATFORM) checked: -WPE_USAGE with what it could mean. */
int wp_pick_opts_check_platforms(const struct wp_strlist *platforms, bool conda,
				 struct wp_err *err);
/* When a pick failed on a project no source lists (rc, plan), err gains "did you mean ..."
 * from the catalog's projects and the index roots in play. */
void wp_pick_opts_hint_project(struct wp_cli *cli, const struct wp_pick_job *job,
			       struct wp_pick_run *run, int rc, struct wp_err *err);
/* A matrix row's failure (plan, rc) under --offline on a project the catalog has nothing for: err
 * says so, and that --offline forbids fetching its pages, as pick's own message does. */
void wp_pick_opts_hint_offline(const struct wp_pick_job *job, struct wp_catalog *cat,
			       const struct wp_plan *plan, int rc, struct wp_err *err);
void wp_pick_opts_release(struct wp_pick_opts *o);

#endif
