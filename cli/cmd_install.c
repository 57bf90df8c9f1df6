/* cli/cmd_install.c: `wheelpick install`, `wheelpick uninstall` and `list --installed`: wheels into
 * a Python environment with no pip and no network (the job is ops/install/install.c). */
#include "base/envp.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/os/os.h"
#include "cli/cli.h"
#include "cli/print.h"
#include "ops/install/install.h"
#include "resolver/gpu.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct install_opts {
	const char *python, *prefix, *target, *link_mode, *cuda;
	struct wp_strlist requirement, find_links, gpu;
	bool compile, no_compile, dry_run, require_hashes, no_index, no_deps, break_system_packages,
		json, force_reinstall;
};

#define O(f) offsetof(struct install_opts, f)
const struct wp_opt wp_install_table[] = {
	{ "python", 0, NULL, WP_OPT_STR, O(python), "PY",
	  "the interpreter whose environment to install into, or a virtual environment's folder (default: the active "
	  "virtual environment's, else python3)" },
	{ "prefix", 0, NULL, WP_OPT_STR, O(prefix), "DIR",
	  "install under DIR as pip's --prefix does" },
	{ "target", 't', NULL, WP_OPT_STR, O(target), "DIR",
	  "install the libraries into DIR, scripts into DIR/bin (pip's --target)" },
	{ "requirement", 'r', NULL, WP_OPT_LIST, O(requirement), "FILE",
	  "a requirement file with --hash lines (pip's -r)" },
	{ "find-links", 'f', NULL, WP_OPT_LIST, O(find_links), "DIR",
	  "a folder of wheels the -r file's lines are found in" },
	{ "compile", 0, NULL, WP_OPT_FLAG, O(compile), NULL,
	  "byte-compile the installed .py files (compileall; off by default)" },
	{ "no-compile", 0, NULL, WP_OPT_FLAG, O(no_compile), NULL,
	  "do not byte-compile (the default)" },
	{ "link-mode", 0, NULL, WP_OPT_STR, O(link_mode), "copy|hardlink|reflink",
	  "copy (default) inflates each wheel into place; hardlink and reflink keep each wheel unpacked once in the cache "
	  "and link its files into the environment (a copy where the file system cannot)" },
	{ "dry-run", 0, NULL, WP_OPT_FLAG, O(dry_run), NULL,
	  "check everything and say what would be installed; write nothing" },
	{ "break-system-packages", 0, NULL, WP_OPT_FLAG, O(break_system_packages), NULL,
	  "install into an interpreter whose distribution manages its packages (PEP 668), as pip's option" },
	{ "require-hashes", 0, NULL, WP_OPT_FLAG, O(require_hashes), NULL,
	  "accepted for pip's habit: hashes are always checked" },
	{ "no-index", 0, NULL, WP_OPT_FLAG, O(no_index), NULL,
	  "accepted for pip's habit: install never uses a network" },
	{ "gpu", 0, NULL, WP_OPT_LIST, O(gpu), "ARCH|NAME",
	  "refuse a wheel whose shared objects carry no kernel image for this GPU (sm_86, 8.6, \"RTX 3090\"); repeatable" },
	{ "cuda", 0, NULL, WP_OPT_STR, O(cuda), "X.Y",
	  "with --gpu: the driver's CUDA, for whether it can JIT-compile PTX" },
	{ "no-deps", 0, NULL, WP_OPT_FLAG, O(no_deps), NULL,
	  "install even when a wheel's Requires-Dist is met neither by the sources nor by the environment" },
	{ "json", 0, NULL, WP_OPT_FLAG, O(json), NULL,
	  "print what was installed as one JSON object on stdout (a failure: {\"error\": ...})" },
	{ "force-reinstall", 0, NULL, WP_OPT_FLAG, O(force_reinstall), NULL,
	  "write a wheel again even when the same version, with the same RECORD hashes, is installed (pip's option)" },
	WP_OPT_END,
};
#undef O

/* The interpreter to install into: --python, else the active virtual environment ($VIRTUAL_ENV,
 * as pip and uv take it: its folder, whose bin/python or Windows Scripts/python.exe ops/install
 * picks), else NULL (python3 on PATH). *alloc owns what this made. */
static const char *python_of(const char *given, char **alloc)
{
	const char *ve = wp_envp_get(wp_os_environ(), "VIRTUAL_ENV");
	*alloc = NULL;
	if (given || !ve || !*ve)
		return given;
	return *alloc = wp_xstrdup(ve);
}

static int scheme_of(const char *prefix, const char *target, enum wp_python_scheme *s,
		     const char **dir, struct wp_err *err)
{
	if (prefix && target)
		return wp_fail(err, -WPE_USAGE, "--prefix and --target do not go together");
	*s = prefix ? WP_SCHEME_PREFIX : target ? WP_SCHEME_TARGET : WP_SCHEME_DEFAULT;
	*dir = prefix ? prefix : target;
	return 0;
}

static void human(long long n, char *out, size_t sz)
{
	if (n >= 1 << 30)
		snprintf(out, sz, "%.1f GiB", (double)n / (1 << 30));
	else if (n >= 1 << 20)
		snprintf(out, sz, "%.1f MiB", (double)n / (1 << 20));
	else
		snprintf(out, sz, "%.1f KiB", (double)n / 1024);
}

int wp_cmd_install(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	char *py_alloc = NULL;
	struct install_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_install_report rep = { 0 };
	int rc;
	if ((rc = wp_opts_parse(wp_install_table, &o, argc, argv, &pos, err)))
		goto out;
	struct wp_install_job job = { .python = python_of(o.python, &py_alloc),
				      .compile = o.compile && !o.no_compile,
				      .dry_run = o.dry_run,
				      .no_deps = o.no_deps,
				      .break_system_packages = o.break_system_packages,
				      .force_reinstall = o.force_reinstall };
	if ((rc = scheme_of(o.prefix, o.target, &job.scheme, &job.dir, err)))
		goto out;
	if (o.link_mode && !strcmp(o.link_mode, "hardlink"))
		job.link_mode = WP_LINK_HARDLINK;
	else if (o.link_mode && !strcmp(o.link_mode, "reflink"))
		job.link_mode = WP_LINK_REFLINK;
	else if (o.link_mode && strcmp(o.link_mode, "copy")) {
		rc = wp_fail(err, -WPE_USAGE,
			     "--link-mode '%s' is not one of copy, hardlink, reflink", o.link_mode);
		goto out;
	}
	if (job.link_mode != WP_LINK_COPY) {
		if ((rc = wp_cli_need_paths(cli, err)))
			goto out;
		job.store_root = cli->session.cache_dir;
	}
	if (!pos.n && !o.requirement.n) {
		rc = wp_fail(err, -WPE_USAGE,
			     "install needs a source: a wheelhouse or bundle wheelpick wrote, a wheel, or "
			     "-r FILE --find-links DIR (wheelpick installs no package by name from an index: pick it first)");
		goto out;
	}
	int gpu_sm[16];
	if (o.cuda && !o.gpu.n) {
		rc = wp_fail(err, -WPE_USAGE,
			     "install --cuda needs --gpu: the GPU whose driver it is");
		goto out;
	}
	if (o.gpu.n > 16) {
		rc = wp_fail(err, -WPE_USAGE, "more than 16 GPUs for install");
		goto out;
	}
	for (size_t i = 0; i < o.gpu.n; i++)
		if ((rc = wp_gpu_parse(o.gpu.v[i], &gpu_sm[i], err)))
			goto out;
	if (o.cuda) {
		unsigned a, b;
		char tail;
		if (sscanf(o.cuda, "%u.%u%c", &a, &b, &tail) != 2 || a > 99 || b > 9) {
			rc = wp_fail(err, -WPE_USAGE, "invalid --cuda '%s'; expected X.Y like 12.8",
				     o.cuda);
			goto out;
		}
		job.driver_cuda = (int)(a * 10 + b);
	}
	job.gpu_sm = gpu_sm;
	job.n_gpus = (int)o.gpu.n;
	job.sources = pos.v;
	job.n_sources = pos.n;
	job.requirements = o.requirement.v;
	job.n_requirements = o.requirement.n;
	job.find_links = o.find_links.v;
	job.n_find_links = o.find_links.n;
	rc = wp_install_run(&cli->session, &job, &rep, err);
	if (rep.recovered)
		wp_cli_note(cli, "%s", rep.recovered);
	if (rc)
		goto out;
	if (rep.link_fell_back)
		wp_cli_note(cli,
			    "the file system could not %s some files from the cache; they were copied",
			    job.link_mode == WP_LINK_HARDLINK ? "hard-link" : "reflink");
	if (o.json) {
		struct wp_json j;
		wp_json_init(&j);
		wp_json_obj(&j);
		wp_json_kbool(&j, "dry_run", o.dry_run);
		wp_json_kstr(&j, "python", rep.executable);
		wp_json_key(&j, o.dry_run ? "would_install" : "installed");
		wp_json_arr(&j);
		for (size_t i = 0; i < rep.n; i++) {
			wp_json_obj(&j);
			wp_json_kstr(&j, "name", rep.v[i].name);
			wp_json_kstr(&j, "version", rep.v[i].version);
			wp_json_kstr(&j, "replaced", rep.v[i].old_version);
			wp_json_obj_end(&j);
		}
		wp_json_arr_end(&j);
		wp_json_kint(&j, "files", rep.files);
		wp_json_kint(&j, "bytes", rep.bytes);
		wp_json_obj_end(&j);
		wp_print_json_out(&j);
	} else if (cli->verbosity >= 0) {
		for (size_t i = 0; i < rep.n; i++) {
			const char *verb = o.dry_run ? "would install" : "installed";
			if (rep.v[i].satisfied)
				printf("already satisfied: %s %s is installed with the same files (--force-reinstall to "
				       "write it again)\n",
				       rep.v[i].name, rep.v[i].version);
			else if (rep.v[i].old_version)
				printf("%s %s %s (replacing %s)\n", verb, rep.v[i].name,
				       rep.v[i].version, rep.v[i].old_version);
			else
				printf("%s %s %s\n", verb, rep.v[i].name, rep.v[i].version);
		}
		char size[32];
		human(rep.bytes, size, sizeof(size));
		if (o.dry_run)
			printf("dry run: hashes, tags and wheels checked, nothing written (%s)\n",
			       rep.executable);
		else
			printf("%zu project%s, %lld files, %s into the environment of %s in %.2f s\n",
			       rep.n - rep.n_satisfied, rep.n - rep.n_satisfied == 1 ? "" : "s",
			       rep.files, size, rep.executable, wp_cli_elapsed(cli));
	}
out:
	free(py_alloc);
	wp_install_report_release(&rep);
	wp_strlist_release(&pos);
	wp_strlist_release(&o.requirement);
	wp_strlist_release(&o.find_links);
	wp_strlist_release(&o.gpu);
	return rc;
}

struct uninstall_opts {
	const char *python, *prefix, *target;
	bool yes, json, break_system_packages;
};

#define O(f) offsetof(struct uninstall_opts, f)
const struct wp_opt wp_uninstall_table[] = {
	{ "python", 0, NULL, WP_OPT_STR, O(python), "PY",
	  "the interpreter whose environment to change (default: the active virtual environment's, else python3)" },
	{ "prefix", 0, NULL, WP_OPT_STR, O(prefix), "DIR",
	  "the environment installed with --prefix DIR" },
	{ "target", 't', NULL, WP_OPT_STR, O(target), "DIR",
	  "the folder installed with --target DIR" },
	{ "yes", 'y', NULL, WP_OPT_FLAG, O(yes), NULL,
	  "accepted for pip's habit: uninstall never asks" },
	{ "json", 0, NULL, WP_OPT_FLAG, O(json), NULL,
	  "print what was removed as one JSON object on stdout (a failure: {\"error\": ...})" },
	{ "break-system-packages", 0, NULL, WP_OPT_FLAG, O(break_system_packages), NULL,
	  "uninstall from an environment PEP 668 marks as externally managed (its distribution's), as pip allows" },
	WP_OPT_END,
};
#undef O

int wp_cmd_uninstall(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct uninstall_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_installed_list removed = { 0 };
	enum wp_python_scheme scheme = WP_SCHEME_DEFAULT;
	const char *dir = NULL;
	int rc;
	if ((rc = wp_opts_parse(wp_uninstall_table, &o, argc, argv, &pos, err)) ||
	    (rc = scheme_of(o.prefix, o.target, &scheme, &dir, err)))
		goto out;
	if (!pos.n) {
		rc = wp_fail(err, -WPE_USAGE, "uninstall needs the name of an installed project");
		goto out;
	}
	char *py_alloc = NULL;
	rc = wp_uninstall_run(&cli->session, python_of(o.python, &py_alloc), scheme, dir,
			      o.break_system_packages, pos.v, pos.n, &removed, err);
	free(py_alloc);
	if (removed.recovered)
		wp_cli_note(cli, "%s", removed.recovered);
	if (!rc && o.json) {
		struct wp_json j;
		wp_json_init(&j);
		wp_json_obj(&j);
		wp_json_key(&j, "uninstalled");
		wp_json_arr(&j);
		for (size_t i = 0; i < removed.n; i++) {
			wp_json_obj(&j);
			wp_json_kstr(&j, "name", removed.v[i].name);
			wp_json_kstr(&j, "version", removed.v[i].version);
			wp_json_obj_end(&j);
		}
		wp_json_arr_end(&j);
		wp_json_obj_end(&j);
		wp_print_json_out(&j);
	} else if (!rc && cli->verbosity >= 0)
		for (size_t i = 0; i < removed.n; i++)
			printf("uninstalled %s %s\n", removed.v[i].name, removed.v[i].version);
out:
	wp_installed_list_release(&removed);
	wp_strlist_release(&pos);
	return rc;
}

int wp_cmd_list_installed(struct wp_cli *cli, const char *python, bool json, struct wp_err *err)
{
	struct wp_installed_list l = { 0 };
	char *py_alloc = NULL;
	int rc = wp_installed_list(python_of(python, &py_alloc), WP_SCHEME_DEFAULT, NULL,
				   &wp_cli_asks, cli->session.envp, &l, err);
	free(py_alloc);
	if (l.recovered)
		wp_cli_note(cli, "%s", l.recovered);
	if (rc)
		goto out;
	if (json) {
		struct wp_json j;
		wp_json_init(&j);
		wp_json_arr(&j);
		for (size_t i = 0; i < l.n; i++) {
			wp_json_obj(&j);
			wp_json_kstr(&j, "name", l.v[i].name);
			wp_json_kstr(&j, "version", l.v[i].version);
			wp_json_kstr(&j, "installer", l.v[i].installer);
			wp_json_kbool(&j, "requested", l.v[i].requested);
			wp_json_kstr(&j, "variant", l.v[i].variant);
			wp_json_kstr(&j, "picked_for", l.v[i].target);
			wp_json_obj_end(&j);
		}
		wp_json_arr_end(&j);
		wp_json_finish(&j, stdout);
		goto out;
	}
	size_t w = 7;
	for (size_t i = 0; i < l.n; i++)
		if (strlen(l.v[i].name) > w)
			w = strlen(l.v[i].name);
	printf("%-*s %-14s %-10s %-10s %s\n", (int)w, "Package", "Version", "Installer", "Variant",
	       "Picked for");
	for (size_t i = 0; i < l.n; i++)
		printf("%-*s %-14s %-10s %-10s %s\n", (int)w, l.v[i].name, l.v[i].version,
		       l.v[i].installer[0] ? l.v[i].installer : "-",
		       l.v[i].variant ? l.v[i].variant : "-", l.v[i].target ? l.v[i].target : "-");
out:
	wp_installed_list_release(&l);
	return rc;
}
