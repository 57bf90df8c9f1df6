/* cli/cmd_mirror.c: `wheelpick mirror DIR` (a PEP 503/691 tree for the targets) and `wheelpick bundle
 * OUT.tar.zst` (a wheelhouse in one archive, with an offline install script). */
#include "cli/condaflow.h"
#include "cli/pickflow.h"
#include "base/mem.h"
#include "ops/bundle.h"
#include "base/fs.h"
#include "ops/mirror.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int mirror_files(struct wp_cli *cli, const char *dir, struct wp_pick_opts *o, struct wp_pick_flow *fl,
			struct wp_err *err)
{
	struct wp_plan *plan = &fl->plan;
	struct wp_mirror_file *mf = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*mf));
	size_t n = 0;
	struct wp_mirror_report rep = { 0 };
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(mf[k].filename, f->filename);
		if (dup || !f->path)
			continue;
		mf[n++] = (struct wp_mirror_file){
			.project = f->project, .filename = f->filename, .store_path = f->path, .sha256 = f->sha256,
			.size = f->size, .requires_python = f->requires_python,
		};
	}
	struct wp_mirror_opts mo = { .prune = o->prune };
	int rc = wp_mirror_write(dir, mf, n, &mo, &rep, err);
	if (!rc && cli->verbosity >= 0)
		fprintf(stderr, "wheelpick: mirror %s: %zu files in %zu projects (%zu added, %zu unchanged, %zu removed, %zu pinned)\n",
			dir, rep.files, rep.projects, rep.added, rep.unchanged, rep.removed, rep.pinned);
	free(mf);
	return rc;
}

int wp_cmd_mirror(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_pick_opts o = { 0 };
	struct wp_strlist pos = { 0 }, reqs = { 0 };
	struct wp_pick_flow fl = { 0 };
	int rc;
	if (wp_opts_wants_help(argc, argv)) {
		wp_opts_help(stdout, "wheelpick mirror DIR PKG[SPEC]... [--cuda X.Y]... [--python X.Y]... [--platform TAG]... [--prune]",
			     "Write a PEP 503 (HTML) and PEP 691 (JSON) index under DIR/simple/ with the files under\n"
			     "DIR/files/, holding exactly what the targets need (the product of the --cuda, --python and\n"
			     "--platform values, or --target profiles). Re-running adds; --prune removes what is no longer\n"
			     "needed. Pages are replaced atomically. Serve DIR/simple/ and point pip at it with --index-url.",
			     wp_pick_table);
		return 0;
	}
	if ((rc = wp_opts_parse(wp_pick_table, &o, argc, argv, &pos, err)))
		goto out;
	if (pos.n < 2) {
		rc = wp_fail(err, -WPE_USAGE, "mirror needs a folder and at least one package: 'wheelpick mirror DIR torch'");
		goto out;
	}
	for (size_t i = 1; i < pos.n; i++)
		wp_strlist_push(&reqs, pos.v[i]);
	if (o.conda || o.channel.n) {
		/* a local conda channel: DIR/<subdir>/repodata.json beside the packages */
		rc = wp_conda_flow(cli, &o, &reqs, o.dry_run ? NULL : pos.v[0], err);
		goto out;
	}
	if ((rc = wp_pick_flow_plan(cli, &o, &reqs, &fl, err)))
		goto out;
	if (o.dry_run) {
		wp_pick_flow_print(&fl.plan, o.json, o.explain);
		goto out;
	}
	int frc = wp_pick_flow_fetch(cli, &o, &fl, err);
	if (frc && frc != -WPE_INTEGRITY) {
		rc = frc;
		goto out;
	}
	/* what was proven goes in even when something else failed; the exit code still says 4 */
	struct wp_err merr = WP_ERR_INIT;
	rc = mirror_files(cli, pos.v[0], &o, &fl, frc ? &merr : err);
	if (frc)
		rc = frc;
	if (o.json)
		wp_pick_flow_print(&fl.plan, true, o.explain);
out:
	wp_pick_flow_release(&fl, &o);
	wp_strlist_release(&pos);
	wp_strlist_release(&reqs);
	return rc;
}

int wp_cmd_bundle(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_pick_opts o = { 0 };
	struct wp_strlist pos = { 0 }, reqs = { 0 };
	struct wp_pick_flow fl = { 0 };
	char *stage = NULL;
	int rc;
	if (wp_opts_wants_help(argc, argv)) {
		wp_opts_help(stdout, "wheelpick bundle OUT.tar.zst PKG[SPEC]... [pick options]",
			     "Write one archive to carry across an air gap: the wheels for the targets, requirements.txt\n"
			     "with hashes, the pick record, and install.sh, which runs pip offline from the unpacked\n"
			     "folder. '.tar.gz' and '.tar' work too. 'wheelpick verify OUT.tar.zst' re-checks it.",
			     wp_pick_table);
		return 0;
	}
	if ((rc = wp_opts_parse(wp_pick_table, &o, argc, argv, &pos, err)))
		goto out;
	if (pos.n < 2) {
		rc = wp_fail(err, -WPE_USAGE, "bundle needs an output file and at least one package: "
					     "'wheelpick bundle torch.tar.zst torch'");
		goto out;
	}
	for (size_t i = 1; i < pos.n; i++)
		wp_strlist_push(&reqs, pos.v[i]);
	if ((rc = wp_pick_flow_plan(cli, &o, &reqs, &fl, err)))
		goto out;
	if ((rc = wp_pick_flow_fetch(cli, &o, &fl, err)))
		goto out;
	/* the wheelhouse is staged beside the store (same file system: links, not copies) */
	stage = wp_xasprintf("%s/tmp/bundle.%ld", fl.cache_dir, (long)getpid());
	if ((rc = wp_pick_flow_wheelhouse(cli, &fl, stage, err)))
		goto out;
	if ((rc = wp_bundle_write(pos.v[0], stage, err)))
		goto out;
	if (o.json)
		wp_pick_flow_print(&fl.plan, true, false);
	else if (cli->verbosity >= 0)
		printf("wrote %s (%zu files): unpack it on the target and run install.sh\n", pos.v[0], fl.plan.n);
out:
	if (stage) {
		char *cmd = NULL;
		/* remove the staging folder: only links and small files we wrote */
		for (size_t i = 0; i < fl.plan.n; i++)
			if (fl.plan.files[i].path && !strncmp(fl.plan.files[i].path, stage, strlen(stage)))
				unlink(fl.plan.files[i].path);
		const char *extra[] = { "requirements.txt", "wheelpick.json", "install.sh" };
		for (size_t i = 0; i < WP_ARRAY_LEN(extra); i++) {
			cmd = wp_xasprintf("%s/%s", stage, extra[i]);
			unlink(cmd);
			free(cmd);
		}
		rmdir(stage);
		free(stage);
	}
	wp_pick_flow_release(&fl, &o);
	wp_strlist_release(&pos);
	wp_strlist_release(&reqs);
	return rc;
}
