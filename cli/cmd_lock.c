/* cli/cmd_lock.c: `wheelpick lock PKG... [targets] [-o pylock.toml]`: resolve for every target and
 * write PEP 751 lock files, downloading nothing. */
#include "cli/cli.h"
#include "cli/pick_opts.h"
#include "cli/print.h"
#include "ops/wheel/locks.h"

#include <stdio.h>
#include <stdlib.h>

int wp_cmd_lock(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_pick_opts o = { 0 };
	struct wp_strlist reqs = { 0 };
	struct wp_pick_job job;
	struct wp_pick_run run = { 0 };
	struct wp_lock_report rep = { 0 };
	int rc;
	if ((rc = wp_opts_parse(wp_lock_table, &o, argc, argv, &reqs, err)))
		goto out;
	if ((rc = wp_pick_opts_job(cli, &o, &reqs, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err)))
		goto out;
	const char *path = o.output ? o.output : "pylock.toml";
	if (o.fetch_hashes)
		wp_cli_progress(cli, o.json);
	if ((rc = wp_pick_lock(&cli->session, &job, &run, path, &rep, err))) {
		wp_pick_opts_hint_project(cli, &job, &run, rc, err);
		goto out;
	}
	wp_pick_opts_sources_used(&o, &run);
	if (o.json) {
		wp_pick_opts_print_plan(&o, &run.plan, true, o.explain);
	} else if (cli->verbosity >= 0) {
		wp_pick_opts_print_index(&o); /* where the lock's URLs came from, as pick's plan
						 says it */
		for (size_t i = 0; i < rep.n; i++)
			printf("wrote %s: for %s\n", rep.v[i].name, rep.v[i].for_whom);
	}
out:
	if (rc && o.json)
		wp_print_json_error(rc, err, &run.plan);
	wp_lock_report_release(&rep);
	wp_pick_run_release(&run);
	wp_pick_opts_release(&o);
	wp_strlist_release(&reqs);
	return rc;
}
