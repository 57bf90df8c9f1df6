/* cli/pickflow.h: what pick, mirror and bundle share: their options, targets from flags, sources,
 * the plan, and fetching the plan's files into the store. */
#ifndef WP_PICKFLOW_H
#define WP_PICKFLOW_H

#include "cache/store.h"
#include "cli/common.h"
#include "cli/plan.h"

struct wp_pick_opts {
	struct wp_strlist cuda, python, platform, gpu, target, index, channel, index_for;
	const char *rocm, *dest;
	bool conda, dry_run, no_deps, json, explain, pre, offline, refresh, prune;
};

extern const struct wp_opt wp_pick_table[];

/* Everything a flow opened; wp_pick_flow_release closes it. */
struct wp_pick_flow {
	struct wp_catalog cat;
	struct wp_store store;
	struct wp_plan plan;
	struct wp_target *targets;
	size_t n_targets;
	char *cache_dir, *files_root;
};

/* Targets (the product of --cuda, --python, --platform values, times --target profiles),
 * sources crawled as needed, then the plan for reqs. */
int wp_pick_flow_plan(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
		      struct wp_pick_flow *fl, struct wp_err *err);
/* Fetch every planned file into the store and prove it; f->path becomes the store path. Files
 * that failed keep path NULL; the first failure (integrity first) is returned. */
int wp_pick_flow_fetch(struct wp_cli *cli, struct wp_pick_opts *o, struct wp_pick_flow *fl, struct wp_err *err);
void wp_pick_flow_release(struct wp_pick_flow *fl, struct wp_pick_opts *o);
/* Writes requirements.txt and wheelpick.json into dir after linking each fetched file in. */
int wp_pick_flow_wheelhouse(struct wp_cli *cli, struct wp_pick_flow *fl, const char *dir, struct wp_err *err);
void wp_pick_flow_print(const struct wp_plan *plan, bool json, bool explain);

#endif
