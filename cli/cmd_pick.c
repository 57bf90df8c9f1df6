/* cli/cmd_pick.c: `wheelpick pick`: the build that fits each target, its dependencies, and (unless
 * --dry-run) a verified wheelhouse that pip installs offline; with --conda, a local channel.
 * What was picked, why and how big is printed before anything downloads, so that a wrong pick
 * can be stopped before its gigabytes. */
#include "base/envp.h"
#include "base/mem.h"
#include "cli/cli.h"
#include "cli/pick_opts.h"
#include "cli/print.h"
#include "base/urlmask.h"
#include "base/os/os.h"
#include "ops/wheel/pylock_fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dest_or(const struct wp_pick_opts *o, const char *fallback)
{
	const char *e = wp_envp_get(wp_os_environ(), "WHEELPICK_DEST");
	return o->dest ? o->dest : e && *e ? e : fallback;
}

static int pick_conda(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
		      const char *dest, struct wp_err *err)
{
	struct wp_conda_job job;
	struct wp_conda_result res = { 0 };
	int rc;
	if ((rc = wp_pick_opts_conda_job(cli, o, reqs, o->dry_run ? NULL : dest, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err))) {
		if (o->json)
			wp_print_json_error(rc, err, NULL);
		return rc;
	}
	wp_cli_progress(cli, o->json);
	cli->info_as_debug = true; /* the channels it reads are said with -v */
	rc = wp_conda_run(&cli->session, &job, &res, err);
	/* an incomplete closure still shows what was picked, and what is missing */
	/* -q: only errors (as pip and uv, a dry run too: the exit code says it), unless --json */
	bool quiet = cli->verbosity < 0 && !o->json && !res.nmissing;
	if (!quiet && (!rc || res.wrote || (!o->dry_run && res.n) || res.nmissing))
		wp_print_conda(&res, o->json);
	else if (o->json)
		wp_print_json_error(rc, err, NULL);
	if (!rc && res.wrote && !o->json && cli->verbosity >= 0) {
		/* --override-channels: the user's configured channels (defaults, conda-forge) would
		 * otherwise be asked too, and offline they fail or pick another build */
		printf("wrote the channel %s: install offline with\n  conda install --offline --override-channels -c file://%s%s",
		       dest, dest[0] == '/' ? "" : "$PWD/", dest);
		for (size_t r = 0; r < reqs->n; r++)
			printf(" '%s'", reqs->v[r]);
		putchar('\n');
		for (size_t i = 0; i < res.locks.n; i++)
			printf("  %s: for %s\n", res.locks.v[i].name, res.locks.v[i].for_whom);
	}
	wp_conda_result_release(&res);
	return rc;
}

/* The pip command that installs the wheelhouse dest offline, on Windows (py, backslashes, cmd's
 * quotes) or elsewhere (the folder quoted as one shell word, whatever its name holds). */
static void print_pip_hint(const struct wp_plan *plan, const char *dest, bool windows,
			   bool say_where)
{
	/* variant markers in a variant wheel's METADATA stop pip's parser; the requirements already
	 * pin what they chose */
	const char *no_deps = wp_plan_has_variant_wheels(plan) ? "--no-deps " : "";
	if (!windows) {
		char *req_file = wp_xasprintf("%s/requirements.txt", dest);
		printf("  %spython3 -m pip install %s--no-index --find-links ",
		       say_where ? "(Linux, macOS) " : "", no_deps);
		wp_print_shell_word(dest, stdout);
		fputs(" --require-hashes -r ", stdout);
		wp_print_shell_word(req_file, stdout);
		putchar('\n');
		free(req_file);
		return;
	}
	char *d = wp_xstrdup(dest);
	for (char *p = d; *p; p++)
		if (*p == '/')
			*p = '\\';
	bool q = strpbrk(d, " &()^%!") != NULL;
	printf("  %spy -m pip install %s--no-index --find-links %s", say_where ? "(Windows) " : "",
	       no_deps, q ? "\"" : "");
	wp_fputs_shown(d, stdout);
	printf("%s --require-hashes -r %s", q ? "\"" : "", q ? "\"" : "");
	wp_fputs_shown(d, stdout);
	printf("\\requirements.txt%s\n", q ? "\"" : "");
	free(d);
}

/* The command that fetches what --dry-run showed: the command line as given without --dry-run,
 * every word shell-quoted, a URL's credentials shown as ***. */
static void print_next(const struct wp_cli *cli)
{
	fputs("next: wheelpick", stdout);
	bool words = false; /* after "--": package words only */
	for (int i = 1; i < cli->argc; i++) {
		words = words || !strcmp(cli->argv[i], "--");
		if (!words && (!strcmp(cli->argv[i], "--dry-run") || !strcmp(cli->argv[i], "-n")))
			continue;
		char *w = wp_url_text_mask(cli->argv[i]);
		putchar(' ');
		/* a requirement ('torch>=2', 'torch==2.1') is quoted even where a shell would not
		 * need it */
		if (strpbrk(w, "=<>!~") && !strpbrk(w, "'\\") &&
		    strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			      "0123456789/._-+:=@,%<>!~*[]; ") == strlen(w))
			printf("'%s'", w);
		else
			wp_print_shell_word(w, stdout);
		free(w);
	}
	putchar('\n');
}

/* -v: each decision, and how long the resolution took. */
static void say_decisions(struct wp_cli *cli, const struct wp_plan *plan, double t0)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		wp_cli_debug(cli, "picked %s for target %zu%s%s%s: %s", f->where, f->target,
			     f->required_by ? " (needed by " : "",
			     f->required_by ? f->required_by : "", f->required_by ? ")" : "",
			     f->reason ? f->reason : "");
	}
	wp_cli_debug(cli, "picked %zu file(s) in %.2f s", plan->n, wp_cli_elapsed(cli) - t0);
}

int wp_cmd_pick(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_pick_opts o = { 0 };
	struct wp_strlist reqs = { 0 };
	struct wp_pick_job job;
	struct wp_pick_run run = { 0 };
	bool printed = false; /* the plan went out as JSON: an error object would be a second one */
	int rc;

	if ((rc = wp_opts_parse(wp_pick_table, &o, argc, argv, &reqs, err)))
		goto out;
	wp_pick_opts_split_c(&o);
	if (wp_pick_opts_is_conda(&o)) {
		rc = pick_conda(cli, &o, &reqs, dest_or(&o, "conda-channel"), err);
		printed = true; /* pick_conda says its own */
		goto out;
	}
	if ((rc = wp_pick_opts_job(cli, &o, &reqs, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err)))
		goto out;
	job.gpu_check = true; /* a wheel with no kernel image for the target's GPU is refused */
	double t0 = wp_cli_elapsed(cli);
	if (o.lock && o.write_testcase) {
		rc = wp_fail(err, -WPE_USAGE,
			     "--write-testcase writes a resolution, and --lock '%s' resolves nothing: "
			     "drop one",
			     o.lock);
		goto out;
	}
	if (o.lock) {
		if ((rc = wp_pylock_plan(&cli->session, &job, o.lock,
					 (const char *const *)o.lock_extra.v, o.lock_extra.n,
					 o.lock_group.n ? (const char *const *)o.lock_group.v :
							  NULL,
					 o.lock_group.n, &run, err)))
			goto out;
	} else if ((rc = wp_pick_plan(&cli->session, &job, &run, err))) {
		wp_pick_opts_hint_project(cli, &job, &run, rc, err);
		goto out;
	}
	say_decisions(cli, &run.plan, t0);
	wp_pick_opts_sources_used(&o, &run); /* the header names what the picks came from */
	if (o.dry_run) {
		/* -q: nothing on success, as pip's and uv's -q; the exit code says it (--json still
		 * prints) */
		if (o.json || cli->verbosity >= 0)
			wp_pick_opts_print_plan(&o, &run.plan, o.json, o.explain);
		if (!o.json && cli->verbosity >= 0) {
			wp_pick_probe_sizes(&cli->session, &job, &run);
			wp_print_plan_total_sized(&run.plan, run.shown_sizes,
						  " to download (nothing was: --dry-run)");
			print_next(cli);
		}
		goto out;
	}
	const char *dest = dest_or(&o, "wheelhouse");
	if (!o.json && cli->verbosity >= 0) {
		/* what and why first: a wrong pick can be stopped before it downloads (-q: only
		 * errors) */
		wp_pick_opts_print_plan(&o, &run.plan, false, o.explain);
		if (cli->verbosity >= 0) {
			wp_pick_probe_sizes(&cli->session, &job, &run);
			wp_print_plan_total_sized(&run.plan, run.shown_sizes, " to download");
		}
		fflush(stdout);
	}
	/* -d naming a file or a read-only folder fails now, not after the download */
	if ((rc = wp_pick_dest_ready(dest, err)))
		goto out;
	wp_cli_progress(cli, o.json);
	int frc = wp_pick_fetch(&cli->session, &job, &run, err);
	if (frc && frc != -WPE_INTEGRITY) {
		rc = frc;
		goto out;
	}
	/* what was proven goes in even when something else failed its checks; the exit code says
	 * 4 */
	struct wp_err werr = WP_ERR_INIT;
	if ((rc = wp_pick_write_wheelhouse(&cli->session, &run, dest, frc ? &werr : err)) && !frc)
		goto out;
	rc = frc;
	if (o.json)
		wp_pick_opts_print_plan(&o, &run.plan, true, o.explain);
	printed = o.json;
	if (!rc && !o.json && cli->verbosity >= 0) {
		size_t win = 0;
		for (size_t t = 0; t < run.n_targets; t++)
			win += wp_target_is_windows(&run.targets[t]);
		fputs("wrote ", stdout);
		wp_fputs_shown(dest, stdout);
		fputs(": install offline with\n", stdout);
		/* the command for the machines it is for: Windows has py and backslashes */
		if (win < run.n_targets)
			print_pip_hint(&run.plan, dest, false, win > 0);
		if (win)
			print_pip_hint(&run.plan, dest, true, win < run.n_targets);
	}
out:
	if (rc && err->code) {
		/* whatever quoted a line or an argument, a URL's user:password is not repeated */
		char *m = wp_url_text_mask(err->msg);
		snprintf(err->msg, sizeof(err->msg), "%s", m);
		free(m);
	}
	if (rc && o.json && !printed)
		wp_print_json_error(rc, err, &run.plan);
	wp_pick_run_release(&run);
	wp_pick_opts_release(&o);
	wp_strlist_release(&reqs);
	return rc;
}
