/* cli/plan.h: the set of files a request needs on each target: the picks, their dependencies
 * (PEP 508, evaluated for the target), one variant across the set. Reads the catalog and, for
 * dependency metadata, the network or the store. A wp_plan owns everything in it. */
#ifndef WP_PLAN_H
#define WP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "cache/catalog.h"
#include "cache/store.h"
#include "resolver/target.h"

struct wp_plan_reject {
	char *where;   /* "cu113/torch-1.9.0+cu113-cp38-cp38-linux_x86_64.whl" */
	char *why;
};

struct wp_plan_file {
	char *project, *version, *variant, *filename, *url, *sha256, *tags, *requires_python, *core_metadata;
	char *where;        /* the file as the index lays it out: "cu111/torch-1.8.0+cu111-...whl" */
	char *reason;       /* why this file */
	char *required_by;  /* NULL for what the user asked for, else "torchvision 0.9.0" */
	long long size;
	size_t target;      /* index into plan->targets */
	char *path;         /* the proven file in the store, once fetched */
	struct wp_plan_reject *rejects; /* with explain */
	size_t n_rejects;
};

struct wp_plan {
	struct wp_target *targets;
	size_t n_targets;
	struct wp_plan_file *files;
	size_t n;
	char **notes;       /* said to the user: variant fallbacks, metadata sources */
	size_t n_notes;
};

struct wp_plan_opts {
	bool no_deps, pre, explain, offline;
	struct wp_store *store;  /* where wheels fetched for their metadata go */
	/* The indexes in play, best first. Each project is taken from the first of them that lists
	 * it and from no other (the dependency-confusion guard, as uv does by default); NULL: every
	 * catalog source, the earliest crawled first. */
	const char *const *indexes;
	size_t n_indexes;
	/* Per-project overrides, "PROJECT=URL": that project only from that index. */
	const char *const *index_for;
	size_t n_index_for;
	int verbosity;
	/* Called once for projects the catalog has no file of (dependencies nobody crawled), many
	 * at a time where it can: it may crawl their pages from the index roots in play. 0 when it
	 * tried; the plan then reads the catalog again. */
	int (*fetch_projects)(void *ctx, const char *const *projects, size_t n, struct wp_err *err);
	void *fetch_ctx;
};

/* Resolve reqs (PEP 508 strings) for every target. -WPE_NOMATCH with a message saying what
 * exists when something cannot be satisfied; -WPE_USAGE for a malformed requirement. */
int wp_plan_build(struct wp_catalog *cat, const char *const *reqs, size_t nreq, const struct wp_target *targets,
		  size_t n_targets, const struct wp_plan_opts *o, struct wp_plan *plan, struct wp_err *err);
void wp_plan_release(struct wp_plan *plan);

#endif
