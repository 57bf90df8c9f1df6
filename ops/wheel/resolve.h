/* ops/wheel/resolve.h: the solver (resolver/solve.h) over the catalog: which source a project comes
 * from, pages of dependencies no source was crawled for, and each file's metadata through the
 * cheapest way that works (ops/core/metadata.h). Everything is borrowed for the call; the plan is
 * the caller's (wp_plan_release). */
#ifndef WP_OPS_WHEEL_RESOLVE_H
#define WP_OPS_WHEEL_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/vec.h"
#include "cache/catalog.h"
#include "cache/store.h"
#include "ops/core/session.h"
#include "resolver/solve.h"

enum wp_index_strategy {
	/* a project comes from the first index that lists it, and from no other: the
	 * dependency-confusion guard, as uv does by default */
	WP_INDEX_FIRST = 0,
	/* every index's files of a project compete (uv's unsafe-best-match) */
	WP_INDEX_BEST_MATCH,
};

/* --index-for: a project taken from one index only. */
struct wp_index_pin {
	const char *project;  /* PEP 503 name */
	const char *url;      /* the index, spelled as it is crawled (a path as its file:// URL) */
};

struct wp_resolve_opts {
	const struct wp_strlist *indexes; /* the indexes in play, best first (as crawled: file://
					     for paths); NULL or empty: every catalog source, the
					     earliest crawled first */
	const struct wp_index_pin *index_for; /* each project only from its index (borrowed) */
	size_t n_index_for;
	enum wp_index_strategy strategy;
	struct wp_store *store; /* where a wheel fetched for its metadata goes; NULL: never */
	bool offline, no_deps, pre, explain;
	bool refresh; /* every page the resolution reads is asked for again (the
			 requested projects' pages were, by the job's crawl) */
	const struct wp_reqs *constraints; /* pip's -c, parsed where read, for the solver (NULL:
					      none) */
	const struct wp_solve_hashes *hashes;  /* pip's --hash, for the solver */
	size_t n_hashes;
	const struct wp_strlist *refused; /* URLs never to pick (pick: no kernel image for the
					     target's GPU) */
	const char *testcase; /* where to write the resolution as a tests/solve case
				 (resolver/solvecase.h), or NULL */
};

/* Resolve reqs (parsed where they were read; borrowed) for every target into plan. A source that
 * fails while the resolution needs it stops the job with its error (exit 3), never a smaller set
 * picked silently. */
int wp_resolve(const struct wp_session *s, struct wp_catalog *cat, const struct wp_req *reqs,
	       size_t nreq, const struct wp_target *targets, size_t n_targets,
	       const struct wp_resolve_opts *o, struct wp_plan *plan, struct wp_err *err);

/* Which of the indexes in play lists a file of the given source: its rank (lower is preferred),
 * or -1 when the file is out of play (another index, or a pin elsewhere). Used by `list` too,
 * so that it shows what pick would use. */
long long wp_resolve_index_rank(const struct wp_resolve_opts *o, const char *project,
				const char *source_url, long long source_id);

#endif
