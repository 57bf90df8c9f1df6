/* cli/cmd_pick.c: `wheelpick pick`: the build that fits each target, its dependencies, and (unless
 * --dry-run) a verified wheelhouse that pip installs offline. */
#include "cli/condaflow.h"
#include "cli/pickflow.h"

#include <stdio.h>
#include <stdlib.h>

int wp_cmd_pick(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_pick_opts o = { 0 };
	struct wp_strlist reqs = { 0 };
	struct wp_pick_flow fl = { 0 };
	int rc;

	if (wp_opts_wants_help(argc, argv)) {
		wp_opts_help(stdout, "wheelpick [pick] PKG[SPEC]... [--cuda X.Y|auto|cpu] [--python X.Y] [--platform TAG]... [-d DIR]",
			     "Pick the build of each package that fits the target: the newest version with a build\n"
			     "that runs there, then the newest CUDA not newer than the target's (PyTorch never shipped\n"
			     "cu112, so CUDA 11.2 gets cu111), then the best wheel tag; with the dependencies, evaluated\n"
			     "for the target. Then fetch, verify (sha256 and each wheel's RECORD) and write a wheelhouse\n"
			     "that 'pip install --no-index --find-links DIR --require-hashes -r DIR/requirements.txt'\n"
			     "installs with no network. Several --cuda/--python/--platform values make one target each.",
			     wp_pick_table);
		return 0;
	}
	if ((rc = wp_opts_parse(wp_pick_table, &o, argc, argv, &reqs, err)))
		goto out;
	if (o.conda || o.channel.n) {
		const char *dest = o.dest ? o.dest : getenv("WHEELPICK_DEST") ? getenv("WHEELPICK_DEST") : "conda-channel";
		rc = wp_conda_flow(cli, &o, &reqs, o.dry_run ? NULL : dest, err);
		goto out;
	}
	if ((rc = wp_pick_flow_plan(cli, &o, &reqs, &fl, err)))
		goto out;
	if (o.dry_run) {
		wp_pick_flow_print(&fl.plan, o.json, o.explain);
		if (!o.json && cli->verbosity >= 0) {
			const struct wp_target *t = &fl.plan.targets[0];
			printf("next: wheelpick");
			for (size_t i = 0; i < reqs.n; i++)
				printf(" '%s'", reqs.v[i]);
			for (size_t i = 0; i < o.index.n; i++)
				printf(" --index %s", o.index.v[i]);
			if (t->accel == WP_ACCEL_CUDA)
				printf(" --cuda %d.%d", t->cuda_major, t->cuda_minor);
			else if (t->accel == WP_ACCEL_CPU)
				printf(" --cuda cpu");
			printf(" --python %d.%d", t->py_major, t->py_minor);
			for (size_t i = 0; i < fl.plan.n_targets; i++)
				printf(" --platform %s", fl.plan.targets[i].platform);
			printf(" -d wheelhouse\n");
		}
		goto out;
	}
	const char *dest = o.dest ? o.dest : getenv("WHEELPICK_DEST") ? getenv("WHEELPICK_DEST") : "wheelhouse";
	int frc = wp_pick_flow_fetch(cli, &o, &fl, err);
	if (frc && frc != -WPE_INTEGRITY) {
		rc = frc;
		goto out;
	}
	struct wp_err werr = WP_ERR_INIT;
	if ((rc = wp_pick_flow_wheelhouse(cli, &fl, dest, frc ? &werr : err)) && !frc)
		goto out;
	rc = frc;
	wp_pick_flow_print(&fl.plan, o.json, o.explain);
	if (!rc && !o.json && cli->verbosity >= 0)
		printf("wrote %s: install offline with\n  python3 -m pip install --no-index --find-links %s "
		       "--require-hashes -r %s/requirements.txt\n", dest, dest, dest);
out:
	wp_pick_flow_release(&fl, &o);
	wp_strlist_release(&reqs);
	return rc;
}
