/* cli/cmd_mirror.c: `wheelpick mirror DIR` (a PEP 503/691 tree for the targets, or with --conda a
 * local channel) and `wheelpick bundle OUT.tar.zst` (a wheelhouse, or with --conda a local channel
 * and its locks, in one archive with an offline install script). */
#include "base/buf.h"
#include "base/mem.h"
#include "base/url.h"
#include "cli/cli.h"
#include "cli/pick_opts.h"
#include "cli/print.h"
#include "ops/publish/bundle.h"
#include "ops/publish/publish.h"
#include "ops/publish/publish_s3.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wp_cli_dest_check(const char *arg, const char *cmd, const char *noun, bool s3_ok,
		      struct wp_err *err)
{
	size_t n = wp_url_scheme_len(arg);
	if (!n || (s3_ok && wp_url_is_s3(arg)))
		return 0;
	return wp_fail(err, -WPE_USAGE,
		       "%s does not know '%.*s:' URLs ('%s'): give a %s%s, or write './%s' for a "
		       "local path of that name",
		       cmd, (int)n, arg, arg, noun, s3_ok ? " or s3://BUCKET/PREFIX" : "", arg);
}

static int mirror_conda(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
			const char *dir, struct wp_err *err)
{
	struct wp_conda_job job;
	struct wp_conda_result res = { 0 };
	bool s3 = wp_url_is_s3(dir);
	int rc;
	if ((rc = wp_pick_opts_conda_job(cli, o, reqs, o->dry_run || s3 ? NULL : dir, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err))) {
		if (o->json)
			wp_print_json_error(rc, err, NULL);
		return rc;
	}
	wp_cli_progress(cli, o->json);
	if (s3 && !o->dry_run) {
		struct wp_s3_dest d = { .url = dir,
					.endpoint = o->s3_endpoint,
					.acl = o->s3_acl,
					.conf = &cli->net.s3 };
		struct wp_s3_report srep;
		cli->info_as_debug = false;
		rc = wp_publish_s3_conda(&cli->session, &job, &d, &res, &srep, err);
	} else {
		rc = wp_conda_run(&cli->session, &job, &res, err);
	}
	if ((!rc || res.wrote) && (o->json || cli->verbosity >= 0 || !o->dry_run))
		wp_print_conda(&res, o->json);
	else if (o->json)
		wp_print_json_error(rc, err, NULL);
	wp_conda_result_release(&res);
	return rc;
}

/* Which root of the mirror serves which target: its variant's root (pip there sees only builds
 * that run on it), else simple/ (every file). */
static void print_roots(const struct wp_pick_run *run, const char *dir)
{
	struct wp_buf d = WP_BUF_INIT;
	fputs("serve ", stdout);
	wp_fputs_shown(dir, stdout);
	fputs(" over HTTP; each target's index URL is its root:\n", stdout);
	for (size_t t = 0; t < run->n_targets; t++) {
		const char *root = "simple";
		bool found = false;
		for (size_t i = 0; i < run->plan.n && !found; i++) {
			const struct wp_plan_file *f = &run->plan.files[i];
			struct wp_os_stat st;
			char *p = f->target == t && f->variant && *f->variant ?
					  wp_xasprintf("%s/%s", dir, f->variant) :
					  NULL;
			if (p && !strchr(f->variant, '/') && wp_os_stat(p, &st) == 0 &&
			    WP_S_ISDIR(st.st_mode)) {
				root = f->variant;
				found = true;
			}
			free(p);
		}
		wp_buf_reset(&d);
		wp_target_describe(&run->targets[t], &d);
		printf("  %s/ for %s\n", root, d.data);
	}
	wp_buf_free(&d);
}

/* --delta OUT [--since OLD] [--split SIZE]: said wrong before anything is fetched. */
static int delta_opts_check(const struct wp_pick_opts *o, const char *dir,
			    unsigned long long *split, struct wp_err *err)
{
	struct wp_os_stat sb;
	if (!o->delta) {
		if (o->since || o->split)
			return wp_fail(err, -WPE_USAGE,
				       "mirror takes --%s with --delta OUT.tar.zst (the delta to write)",
				       o->since ? "since" : "split");
		return 0;
	}
	if (wp_url_is_s3(dir))
		return wp_fail(err, -WPE_USAGE,
			       "--delta writes a delta of a local mirror, not of '%s'", dir);
	if (o->dry_run)
		return wp_fail(err, -WPE_USAGE,
			       "--delta writes what the run changed; --dry-run changes nothing");
	int rc;
	if ((rc = wp_cli_dest_check(o->delta, "mirror --delta", "file name", false, err)) ||
	    (rc = wp_bundle_name_check(o->delta, err)) ||
	    (o->split && (rc = wp_bundle_size_parse(o->split, split, err))))
		return rc;
	if (!o->since && (wp_os_stat(dir, &sb) < 0 || !WP_S_ISDIR(sb.st_mode)))
		return wp_fail(err, -WPE_USAGE,
			       "mirror '%s' does not exist yet: its first copy crosses whole; --delta without "
			       "--since is against what DIR holds before the run",
			       dir);
	return 0;
}

int wp_cmd_mirror(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	unsigned long long split = 0;
	struct wp_tree_manifest since = { 0 };
	struct wp_pick_opts o = { 0 };
	struct wp_strlist pos = { 0 }, reqs = { 0 };
	struct wp_pick_job job;
	struct wp_pick_run run = { 0 };
	bool printed = false; /* the plan went out as JSON: an error object would be a second one */
	int rc;
	if ((rc = wp_opts_parse(wp_mirror_table, &o, argc, argv, &pos, err)))
		goto out;
	wp_pick_opts_split_c(&o);
	if (pos.n < 1 || (pos.n < 2 && !o.requirement.n)) {
		rc = wp_fail(err, -WPE_USAGE,
			     "mirror needs a folder and at least one package: 'wheelpick mirror DIR torch'");
		goto out;
	}
	if ((rc = wp_cli_dest_check(pos.v[0], "mirror", "folder", true, err)))
		goto out;
	if ((o.s3_endpoint || o.s3_acl) && !wp_url_is_s3(pos.v[0])) {
		rc = wp_fail(err, -WPE_USAGE,
			     "--s3-endpoint and --s3-acl are for an s3://BUCKET/PREFIX mirror, not '%s'",
			     pos.v[0]);
		goto out;
	}
	if (wp_url_is_s3(pos.v[0]) && !o.dry_run &&
	    ((rc = wp_pick_opts_tls(cli, &o, err)) ||
	     (rc = wp_s3_dest_check(&(struct wp_s3_dest){ pos.v[0], o.s3_endpoint, o.s3_acl, 0,
							  &cli->net.s3 },
				    err))))
		goto out;
	if ((rc = delta_opts_check(&o, pos.v[0], &split, err)))
		goto out;
	for (size_t i = 1; i < pos.n; i++)
		wp_strlist_push(&reqs, pos.v[i]);
	if (wp_pick_opts_is_conda(&o)) {
		if (o.delta) {
			rc = wp_fail(err, -WPE_USAGE,
				     "--delta is for wheel mirrors; for a conda channel write 'wheelpick bundle "
				     "--conda OUT PKG... --since OLD'");
			goto out;
		}
		if (o.prune) {
			rc = wp_fail(err, -WPE_USAGE,
				     "--prune is for wheel mirrors; a conda channel keeps what its repodata lists");
			goto out;
		}
		rc = mirror_conda(cli, &o, &reqs, pos.v[0], err);
		printed = true; /* mirror_conda says its own */
		goto out;
	}
	if ((rc = wp_pick_opts_job(cli, &o, &reqs, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err)))
		goto out;
	/* the base of the delta: what the far side holds, or this mirror before the run */
	if (o.delta && (rc = o.since ? wp_tree_manifest_of_old(o.since, &since, err)
				     : wp_tree_manifest_of_dir(pos.v[0], &since, err)))
		goto out;
	if ((rc = wp_pick_plan(&cli->session, &job, &run, err))) {
		wp_pick_opts_hint_project(cli, &job, &run, rc, err);
		goto out;
	}
	cli->info_as_debug = false; /* what the mirror wrote is the result */
	wp_pick_opts_sources_used(&o, &run);
	if (o.dry_run) {
		if (o.json || cli->verbosity >= 0) /* -q: nothing on success */
			wp_pick_opts_print_plan(&o, &run.plan, o.json, o.explain);
		if (!o.json && cli->verbosity >= 0) {
			wp_pick_probe_sizes(&cli->session, &job, &run);
			wp_print_plan_total_sized(&run.plan, run.shown_sizes,
						  " to download (nothing was: --dry-run)");
		}
		goto out;
	}
	if (!o.json && cli->verbosity >= 0) {
		wp_pick_probe_sizes(&cli->session, &job, &run);
		wp_print_plan_total_sized(&run.plan, run.shown_sizes, " to download");
		fflush(stdout);
	}
	wp_cli_progress(cli, o.json);
	int frc = wp_pick_fetch(&cli->session, &job, &run, err);
	if (frc && frc != -WPE_INTEGRITY) {
		rc = frc;
		goto out;
	}
	/* what was proven goes in even when something else failed; the exit code still says 4 */
	struct wp_err merr = WP_ERR_INIT;
	struct wp_mirror_report rep = { 0 };
	if (wp_url_is_s3(pos.v[0])) {
		struct wp_s3_dest d = { .url = pos.v[0],
					.endpoint = o.s3_endpoint,
					.acl = o.s3_acl,
					.conf = &cli->net.s3 };
		struct wp_s3_report srep;
		rc = wp_publish_s3_mirror(&cli->session, &run, &d, o.prune, &srep,
					  frc ? &merr : err);
	} else {
		rc = wp_publish_mirror(&cli->session, &run, pos.v[0], o.prune, &rep,
				       frc ? &merr : err);
	}
	if (!rc && !frc && !o.json && cli->verbosity >= 0 && !wp_url_is_s3(pos.v[0]))
		print_roots(&run, pos.v[0]);
	/* the delta only of a mirror that is whole: a failed run's tree is no state to send */
	if (!rc && !frc && o.delta) {
		size_t carried = 0, nvol = 0;
		rc = wp_publish_mirror_delta(&cli->session, pos.v[0], o.delta, split, &since,
					     &carried, &nvol, err);
		if (!rc && !o.json && cli->verbosity >= 0)
			printf("wrote the delta %s%s (%zu file(s) carried, %zu volume(s)); apply it to the far side's copy "
			       "with 'wheelpick apply %s DIR'\n",
			       o.delta, split ? " in volumes" : "", carried, nvol, o.delta);
	}
	if (frc)
		rc = frc;
	if (o.json)
		wp_pick_opts_print_plan(&o, &run.plan, true, o.explain);
	printed = o.json;
out:
	if (rc && o.json && !printed)
		wp_print_json_error(rc, err, &run.plan);
	wp_pick_run_release(&run);
	wp_tree_manifest_release(&since);
	wp_pick_opts_release(&o);
	wp_strlist_release(&pos);
	wp_strlist_release(&reqs);
	return rc;
}

/* What was written, and how it reaches the target: one archive, or volumes to join first. */
static void print_bundle_written(const char *out, unsigned long long split, size_t nvol,
				 size_t nfiles, const char *what)
{
	if (!split) {
		printf("wrote %s (%zu files): unpack it on the target and run install.sh%s\n", out,
		       nfiles, what);
		return;
	}
	/* the volumes go on separate media; on the target they are one stream again */
	char *first = wp_bundle_volume_name(out, 1), *last = wp_bundle_volume_name(out, nvol);
	const char *z = strstr(out, ".tar.gz") || strstr(out, ".tgz") ? " -z" :
			strstr(out, ".tar.zst") || strstr(out, ".tzst") ? " --zstd" : "";
	printf("wrote %s%s%s (%zu volume%s of at most %llu bytes, %zu files): copy them all to the target, join\n"
	       "and unpack them with 'cat %s.[0-9][0-9][0-9] | tar%s -xf -', then run install.sh in the folder it\n"
	       "makes%s ('wheelpick verify %s' checks the set first)\n",
	       first, nvol > 1 ? " ... " : "", nvol > 1 ? last : "", nvol, nvol == 1 ? "" : "s",
	       split, nfiles, out, z, what, first);
	free(first);
	free(last);
}

/* A bundle for s3://: made into the staging file wp_publish_s3_bundle names, then put. */
struct s3_conda_bundle {
	struct wp_cli *cli;
	const struct wp_conda_job *job;
	unsigned long long split;
	struct wp_conda_result *res;
	size_t nvol;
};

static int make_conda_bundle(void *ctx, const char *local, size_t *nvol, struct wp_err *err)
{
	struct s3_conda_bundle *b = ctx;
	int rc = wp_publish_conda_bundle(&b->cli->session, b->job, local, b->split, nvol, b->res,
					 err);
	b->nvol = *nvol;
	return rc;
}

struct s3_bundle {
	struct wp_cli *cli;
	struct wp_pick_run *run;
	unsigned long long split;
	size_t nvol;
};

static int make_bundle(void *ctx, const char *local, size_t *nvol, struct wp_err *err)
{
	struct s3_bundle *b = ctx;
	int rc = wp_publish_bundle_split(&b->cli->session, b->run, local, b->split, nvol, err);
	b->nvol = *nvol;
	return rc;
}

/* bundle --conda: the closure as a local channel with its locks, packed with a conda install.sh. */
static int bundle_conda(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
			const char *out, unsigned long long split, struct wp_err *err)
{
	struct wp_conda_job job;
	struct wp_conda_result res = { 0 };
	size_t nvol = 0;
	int rc;
	if ((rc = wp_pick_opts_conda_job(cli, o, reqs, out, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err))) {
		if (o->json)
			wp_print_json_error(rc, err, NULL);
		return rc;
	}
	wp_cli_progress(cli, o->json);
	cli->info_as_debug = true; /* the channels it reads are said with -v */
	if (wp_url_is_s3(out)) {
		struct s3_conda_bundle b = { cli, &job, split, &res, 0 };
		struct wp_s3_dest d = { .url = out,
					.endpoint = o->s3_endpoint,
					.acl = o->s3_acl,
					.conf = &cli->net.s3 };
		rc = wp_publish_s3_bundle(&cli->session, &d, make_conda_bundle, &b, NULL, err);
		nvol = b.nvol;
	} else {
		struct wp_tree_manifest since = { 0 };
		size_t carried = 0;
		if (!o->since || !(rc = wp_tree_manifest_of_old(o->since, &since, err)))
			rc = wp_publish_conda_bundle_since(&cli->session, &job, out, split,
							   o->since ? &since : NULL, &carried,
							   &nvol, &res, err);
		if (!rc && o->since && cli->verbosity >= 0 && !o->json)
			printf("a delta against %s: %zu file(s) carried; apply it there with 'wheelpick apply %s DIR'\n",
			       o->since, carried, out);
		wp_tree_manifest_release(&since);
	}
	/* an incomplete closure still shows what was picked, and what is missing */
	if (!rc || res.n || res.nmissing)
		wp_print_conda(&res, o->json);
	else if (o->json)
		wp_print_json_error(rc, err, NULL);
	if (!rc && !o->json && cli->verbosity >= 0) {
		/* targets share packages: count each file once, as the channel holds it */
		size_t nfiles = 0;
		for (size_t i = 0; i < res.n; i++) {
			bool seen = false;
			for (size_t k = 0; k < i && !seen; k++)
				seen = !strcmp(res.picks[k].c->url, res.picks[i].c->url);
			nfiles += !seen;
		}
		print_bundle_written(out, split, nvol, nfiles,
				     " (conda create --offline from the explicit lock; -n NAME, or -p PREFIX)");
		for (size_t i = 0; i < res.locks.n; i++)
			printf("  %s: for %s\n", res.locks.v[i].name, res.locks.v[i].for_whom);
	}
	wp_conda_result_release(&res);
	return rc;
}

int wp_cmd_bundle(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_pick_opts o = { 0 };
	struct wp_strlist pos = { 0 }, reqs = { 0 };
	struct wp_pick_job job;
	struct wp_pick_run run = { 0 };
	bool printed = false; /* the plan went out as JSON: an error object would be a second one */
	unsigned long long split = 0;
	size_t nvol = 0;
	int rc;
	if ((rc = wp_opts_parse(wp_bundle_table, &o, argc, argv, &pos, err)))
		goto out;
	wp_pick_opts_split_c(&o); /* -c FILE.txt is a constraints file, as with pip; -c NAME a
				     channel */
	if (pos.n < 1 || (pos.n < 2 && !o.requirement.n)) {
		rc = wp_fail(err, -WPE_USAGE,
			     "bundle needs an output file and at least one package: "
			     "'wheelpick bundle torch.tar.zst torch'");
		goto out;
	}
	/* a bad name or size is said before anything is resolved or downloaded */
	if ((rc = wp_cli_dest_check(pos.v[0], "bundle", "file name", true, err)) ||
	    (rc = wp_bundle_name_check(pos.v[0], err)) ||
	    (wp_url_is_s3(pos.v[0]) &&
	     ((rc = wp_pick_opts_tls(cli, &o, err)) ||
	      (rc = wp_s3_dest_check(&(struct wp_s3_dest){ pos.v[0], o.s3_endpoint, o.s3_acl, 0,
							   &cli->net.s3 },
				     err)))) ||
	    (o.split && (rc = wp_bundle_size_parse(o.split, &split, err))))
		goto out;
	if (o.since && wp_url_is_s3(pos.v[0])) {
		rc = wp_fail(err, -WPE_USAGE,
			     "--since writes a delta to carry by hand: give a local OUT, not s3://");
		goto out;
	}
	for (size_t i = 1; i < pos.n; i++)
		wp_strlist_push(&reqs, pos.v[i]);
	if (wp_pick_opts_is_conda(&o)) {
		rc = bundle_conda(cli, &o, &reqs, pos.v[0], split, err);
		printed = true; /* bundle_conda says its own */
		goto out;
	}
	if ((rc = wp_pick_opts_job(cli, &o, &reqs, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err)))
		goto out;
	if ((rc = wp_pick_plan(&cli->session, &job, &run, err))) {
		wp_pick_opts_hint_project(cli, &job, &run, rc, err);
		goto out;
	}
	wp_pick_opts_sources_used(&o, &run);
	if (!o.json && cli->verbosity >= 0) {
		wp_pick_probe_sizes(&cli->session, &job, &run);
		wp_print_plan_total_sized(&run.plan, run.shown_sizes, " to download");
		fflush(stdout);
	}
	wp_cli_progress(cli, o.json);
	if ((rc = wp_pick_fetch(&cli->session, &job, &run, err)))
		goto out;
	if (wp_url_is_s3(pos.v[0])) {
		struct s3_bundle b = { cli, &run, split, 0 };
		struct wp_s3_dest d = { .url = pos.v[0],
					.endpoint = o.s3_endpoint,
					.acl = o.s3_acl,
					.conf = &cli->net.s3 };
		rc = wp_publish_s3_bundle(&cli->session, &d, make_bundle, &b, NULL, err);
		nvol = b.nvol;
	} else {
		struct wp_tree_manifest since = { 0 };
		size_t carried = 0;
		if (!o.since || !(rc = wp_tree_manifest_of_old(o.since, &since, err)))
			rc = wp_publish_bundle_since(&cli->session, &run, pos.v[0], split,
						     o.since ? &since : NULL, &carried, &nvol, err);
		if (!rc && o.since && cli->verbosity >= 0 && !o.json)
			printf("a delta against %s: %zu file(s) carried; apply it there with 'wheelpick apply %s DIR'\n",
			       o.since, carried, pos.v[0]);
		wp_tree_manifest_release(&since);
	}
	if (rc)
		goto out;
	if (o.json)
		wp_pick_opts_print_plan(&o, &run.plan, true, false);
	printed = o.json;
	if (!o.json && cli->verbosity >= 0)
		print_bundle_written(pos.v[0], split, nvol, run.plan.n, "");
out:
	if (rc && o.json && !printed)
		wp_print_json_error(rc, err, &run.plan);
	wp_pick_run_release(&run);
	wp_pick_opts_release(&o);
	wp_strlist_release(&pos);
	wp_strlist_release(&reqs);
	return rc;
}
