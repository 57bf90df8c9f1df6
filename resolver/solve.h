/* resolver/solve.h: the dependency solver: requirements -> the files each target needs, with
 * backtracking over versions and one variant shared across the set. Pure: it reads projects and
 * metadata only through a provider (ops/ implements one over the catalog and the network; the
 * tests implement one over text cases), so it does no I/O of its own.
 * Ownership: the provider owns every candidate and string it hands out, until wp_solve returns.
 * A wp_plan owns everything in it (wp_plan_release). */
#ifndef WP_SOLVE_H
#define WP_SOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "resolver/pick.h"
#include "resolver/requirement.h"
#include "resolver/specifier.h"
#include "resolver/target.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

/* A project's files as the provider holds them (already limited to the sources the project may
 * come from). n == 0: no source lists the project. */
struct wp_solve_files {
	const struct wp_candidate *c;
	size_t n;
	/* More files exist than c holds, each older than all of them or outside an == pin that a
	 * requirement asked for (with no marker) puts on every pick of the project; files_more
	 * gives them when a pick cannot be decided without (resolver/pick.h
	 * wp_pick_request.partial). */
	bool partial;
};

/* What a file's metadata says it needs: its Requires-Dist, each parsed once where the provider
 * read the metadata (one that did not parse is kept, !ok: the solver refuses the file when it
 * tries it, as pip does), and Requires-Python (NULL when the metadata has none). */
struct wp_solve_deps {
	const struct wp_req *reqs;
	size_t n;
	const char *requires_python;
	const char *source;          /* "catalog", "PEP 658 metadata", ... (for --explain) */
};

struct wp_solve_provider {
	/* The files of a project (normalised name). A source that failed is an error (< 0: the
	 * resolution stops with it, never a silently smaller set); a project no source lists is
	 * 0 with n == 0. The array stays valid until wp_solve returns. */
	int (*files)(void *ctx, const char *project, struct wp_solve_files *out,
		     struct wp_err *err);
	/* For a project files() gave partial: the files again with more appended (the earlier ones
	 * keep their places; out->c may move). Needed only by a provider that gives partial. */
	int (*files_more)(void *ctx, const char *project, struct wp_solve_files *out,
			  struct wp_err *err);
	/* What one file needs (c points into an array files() gave). Valid until wp_solve returns;
	 * a provider that is asked again for the same file hands back what it parsed the first
	 * time. */
	int (*deps)(void *ctx, const struct wp_candidate *c, struct wp_solve_deps *out,
		    struct wp_err *err);
	/* Optional hints, before the solver asks for them one by one: these projects' files, then
	 * these files' metadata. A provider may fetch them all at once; failures here are
	 * reported when files() or deps() is called. */
	void (*read_projects)(void *ctx, const char *const *projects, size_t n);
	void (*read_deps)(void *ctx, const struct wp_candidate *const *c, size_t n);
	void *ctx;
};

/* The sha256 values a project's files may have (pip's --hash options): its other files are out. */
struct wp_solve_hashes {
	const char *project;         /* PEP 503 name */
	const char *const *sha256;   /* 64 hex digits each (either case) */
	size_t n;
};

struct wp_solve_opts {
	bool no_deps;        /* only what was asked for */
	bool pre;            /* pre-releases allowed everywhere */
	bool explain;        /* every rejected file and why, per pick */
	unsigned max_steps; /* steps back per target (a version given up, a project run out; not a
			       version given up for needing a project that cannot be had) before
			       giving up; 0: WP_SOLVE_MAX_STEPS */
	size_t max_projects; /* projects in one resolution; 0: WP_SOLVE_MAX_PROJECTS */
	/* pip's -c: PEP 508 names with specifiers (and markers, evaluated per target) that bind a
	 * project only when the request or a dependency pulls it in; they never pull one in */
	const struct wp_req *constraints; /* parsed where they were read (borrowed) */
	size_t n_constraints;
	/* pip's --hash: a project listed here is satisfied only by a file whose sha256 is listed;
	 * a file whose sha256 the index does not give cannot be */
	const struct wp_solve_hashes *hashes;
	size_t n_hashes;
	const struct wp_asks *asks; /* how the user asks for what a message advises ("--no-deps");
				       NULL: plain words */
};

#define WP_SOLVE_MAX_STEPS    2000
#define WP_SOLVE_MAX_PROJECTS 100000
#define WP_SOLVE_MAX_RESTARTS 12   /* variants given up on before the set is declared unsolvable */

struct wp_plan_reject {
	char *where;   /* "cu113/torch-1.9.0+cu113-cp38-cp38-linux_x86_64.whl" */
	char *why;
};

struct wp_plan_file {
	char *project, *version, *variant, *filename, *url, *sha256, *tags, *requires_python,
		*core_metadata;
	char *where; /* the file as the index lays it out: "cu111/torch-1.8.0+cu111-...whl" */
	char *reason;       /* why this file */
	char *required_by;  /* NULL for what the user asked for, else "torchvision 0.9.0" */
	char *needed_by; /* every pick that requires it, one per line ("torchvision 0.9.0\n"), or
			    NULL */
	char *upload_time;  /* ISO 8601 when the index gave it, else NULL */
	long long size;
	size_t target;      /* index into plan->targets */
	char *path; /* where the proven file is, once fetched (set by ops/, not the solver) */
	struct wp_variants *variants; /* PEP 825: for a variant wheel, its release's variant
					 metadata (an owned copy, which ops/wheel/locks.c writes
					 into pylock.toml), else NULL */
	bool archive; /* a pylock.toml's packages.archive (a direct reference, no index name); a
			 file not named .whl that is not one is an sdist */
	struct wp_plan_reject *rejects; /* with explain */
	size_t n_rejects;
	char *index;        /* the index it came from, as configured (NULL: not known) */
	/* Typed once, where the plan takes the file (wp_plan_file_type: the solver's record, a
	 * lock's reader): the writers read these and never parse filename or requires_python
	 * again. */
	struct wp_wheelname wheel; /* filename parsed; zeroed (name NULL) for a file that is no
				      wheel */
	struct wp_version version_parsed; /* version parsed, when version_ok */
	bool version_ok;            /* version is PEP 440 */
	struct wp_specset requires_python_set; /* requires_python parsed, when requires_python_ok */
	bool requires_python_ok; /* requires_python is a PEP 440 specifier set (what a lock may
				    carry) */
};

struct wp_plan {
	struct wp_target *targets;
	size_t n_targets;
	struct wp_plan_file *files;
	size_t n;
	char **notes;       /* said to the user: variant fallbacks, skipped versions */
	size_t n_notes, cap_notes;
	/* When nothing fits: the project whose pick failed first (what started the backtracking),
	 * and every file of it with the reason it was rejected. */
	char *failed_project;
	struct wp_plan_reject *failed_rejects;
	size_t n_failed_rejects;
	/* -WPE_UNTRUSTED: the URL of the file that fits, whose bytes are not those first trusted
	 * for its name, and why in words (both hashes; the caller may add where the first were
	 * seen) */
	char *untrusted_url, *untrusted_why;
};

/* Resolve reqs (parsed where they were read; borrowed) for every target into plan (overwritten).
 * Errors: -WPE_USAGE for a requirement or constraint that did not parse (!ok), or names a URL;
 * -WPE_NOMATCH when something cannot be satisfied (the message names the conflict that started the
 * backtracking); -WPE_LIMIT when the graph outgrows the bounds; whatever the provider returned when
 * a source failed. */
int wp_solve(const struct wp_solve_provider *p, const struct wp_req *reqs, size_t nreq,
	     const struct wp_target *targets, size_t n_targets, const struct wp_solve_opts *o,
	     struct wp_plan *plan, struct wp_err *err);
void wp_plan_release(struct wp_plan *plan);
/* f's typed fields from its filename, version and requires_python: each parsed here, once (a name
 * that is no wheel, a version that is not PEP 440, a requires-python that is no specifier set,
 * leaves its field empty). wheel, when not NULL, is that name already parsed by the caller: it
 * moves into f (and is zeroed); version, when not NULL, is f->version already parsed (copied). */
void wp_plan_file_type(struct wp_plan_file *f, struct wp_wheelname *wheel,
		       const struct wp_version *version);

/* Which files of plan are the first with their URL (a file several targets share counts once):
 * an array of plan->n flags, the caller's to free; *distinct gets how many are set. */
bool *wp_plan_first_of_url(const struct wp_plan *plan, size_t *distinct);

#endif
