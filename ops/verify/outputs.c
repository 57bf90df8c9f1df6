/* ops/verify/outputs.c: verify's entry point: tell what a path is and run the checks for that
 * kind. */
#include "ops/verify/outputs.h"
#include "base/mem.h"
#include "base/str.h"
#include "ops/verify/common.h"
#include "verify/conda.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the entry point ---- */

static bool is_bundle_name(const char *p)
{
	return wp_cstr_endswith(p, ".tar.zst") || wp_cstr_endswith(p, ".tzst") ||
	       wp_cstr_endswith(p, ".tar.gz") || wp_cstr_endswith(p, ".tgz") ||
	       wp_cstr_endswith(p, ".tar");
}

/* A volume of a bundle written with --split: "OUT.tar.zst.001". */
static bool is_volume_name(const char *p)
{
	size_t n = strlen(p);
	if (n < 5 || p[n - 4] != '.')
		return false;
	for (size_t i = n - 3; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	char *base = wp_xstrndup(p, n - 4);
	bool yes = is_bundle_name(base);
	free(base);
	return yes;
}

/* A bundle's base name whose volumes are there though it is not: "OUT.tar.zst" with
 * OUT.tar.zst.001. */
static bool is_split_base(const char *p)
{
	if (!is_bundle_name(p))
		return false;
	char *first = wp_xasprintf("%s.001", p);
	bool yes = wp_vo_is_file(first);
	free(first);
	return yes;
}

static bool is_wheelhouse(const char *dir)
{
	size_t n;
	char **names = wp_vo_list_dir(dir, &n);
	bool yes = false;
	for (size_t i = 0; i < n && !yes; i++)
		yes = wp_cstr_endswith(names[i], ".whl") || !strcmp(names[i], "requirements.txt") ||
		      (!strncmp(names[i], "requirements-", 13) &&
		       wp_cstr_endswith(names[i], ".txt"));
	wp_vo_free_list(names, n);
	return yes;
}

int wp_verify_path(const char *path, struct wp_verify_report *rep, struct wp_err *err)
{
	return wp_verify_path_opts(path, NULL, rep, err);
}

int wp_verify_path_opts(const char *path, const struct wp_verify_opts *o,
			struct wp_verify_report *rep, struct wp_err *err)
{
	struct vo_ctx c = { .rep = rep, .fatal_before = rep->n_fatal, .opts = o };
	struct wp_os_stat sb;
	char *abs = NULL, *site = NULL;
	int rc = 0;

	if (wp_os_stat(path, &sb) < 0 && is_split_base(path)) {
		/* the volumes of a split bundle, named by the archive they make together */
		rep->kind = WP_VERIFY_BUNDLE;
		wp_vo_verify_bundle(&c, path, err);
		goto report;
	}
	if (wp_os_stat(path, &sb) < 0)
		return wp_fail(err, -WPE_IO, "cannot verify '%s': %s", path, strerror(errno));
	if (WP_S_ISREG(sb.st_mode) && is_volume_name(path)) {
		rep->kind = WP_VERIFY_BUNDLE;
		wp_vo_verify_bundle(&c, path, err);
	} else if (WP_S_ISREG(sb.st_mode)) {
		if (wp_cstr_endswith(path, ".whl")) {
			rep->kind = WP_VERIFY_WHEEL;
			rep->files++;
			wp_vo_check_wheel(&c, path, NULL);
			wp_vo_check_provenance(&c, path, NULL, NULL);
		} else if (wp_cstr_endswith(path, ".conda") || wp_cstr_endswith(path, ".tar.bz2")) {
			struct wp_err e = WP_ERR_INIT;
			rep->kind = WP_VERIFY_CONDA_PKG;
			rep->files++;
			rep->packages++;
			if (wp_conda_verify(path, NULL, NULL, &e) < 0)
				wp_vo_problem_add(&c, true, path, "%s", e.msg);
		} else if (is_bundle_name(path)) {
			rep->kind = WP_VERIFY_BUNDLE;
			wp_vo_verify_bundle(&c, path, err);
		} else if (wp_cstr_endswith(path, ".toml")) {
			rep->kind = WP_VERIFY_LOCK;
			if ((rc = wp_vo_verify_pylock(&c, path, err)) < 0)
				goto out;
		} else {
			return wp_fail(err, -WPE_USAGE,
				       "cannot verify '%s': not a .whl, .conda, .tar.bz2, "
				       "bundle (.tar.zst, .tar.gz), bundle volume (.tar.zst.001) or pylock.toml",
				       path);
		}
	} else if (WP_S_ISDIR(sb.st_mode)) {
		abs = wp_os_realpath(path);
		if (!abs)
			return wp_fail(err, -WPE_IO, "cannot verify '%s': %s", path,
				       strerror(errno));
		char *simple = wp_xasprintf("%s/simple", abs);
		bool mirror = wp_vo_is_dir(simple);
		free(simple);
		if (mirror) {
			rep->kind = WP_VERIFY_MIRROR;
			wp_vo_verify_mirror(&c, abs);
		} else if (wp_vo_is_conda_bundle_dir(abs)) {
			/* an unpacked bundle --conda: its channel is checked as part of the
			 * whole */
			rep->kind = WP_VERIFY_BUNDLE;
			wp_vo_verify_bundle_dir(&c, abs);
		} else if (wp_vo_is_channel(abs)) {
			rep->kind = WP_VERIFY_CHANNEL;
			wp_vo_verify_channel(&c, abs);
		} else if (rep->gpus && (site = wp_vo_site_packages(abs))) {
			rep->kind = WP_VERIFY_ENV;
			wp_vo_verify_installed(&c, site);
			free(site);
		} else if (is_wheelhouse(abs)) {
			rep->kind = WP_VERIFY_WHEELHOUSE;
			/* an unpacked wheel bundle is a wheelhouse with its install.sh: never
			 * setuid, setgid, sticky or world-writable, whoever wrote it */
			char *inst = wp_xasprintf("%s/install.sh", abs);
			struct wp_os_stat isb;
			if (wp_os_lstat(inst, &isb) == 0 &&
			    (isb.st_mode & (WP_S_ISUID | WP_S_ISGID | WP_S_ISVTX | WP_S_IWOTH)))
				wp_vo_problem_add(&c, true, inst,
						  "has mode %04o: setuid, setgid, sticky or world-writable, "
						  "which the install.sh wheelpick writes (0755) never has",
						  (unsigned)isb.st_mode & 07777);
			free(inst);
			wp_vo_verify_wheelhouse(&c, abs);
		} else {
			site = wp_vo_site_packages(abs);
			rc = wp_fail(err, -WPE_USAGE,
				     "cannot verify '%s': it holds no wheels, requirements.txt, "
				     "simple/ pages or repodata.json%s",
				     path,
				     site ? " (an installed environment is checked for its GPU code only: give --gpu or --target)" :
					    "");
			free(site);
			goto out;
		}
	} else {
		return wp_fail(err, -WPE_USAGE, "cannot verify '%s': not a file or a directory",
			       path);
	}
report:;
	size_t found = rep->n_fatal - c.fatal_before;
	if (found) {
		/* the first fatal problem of this call */
		const struct wp_verify_problem *first = NULL;
		size_t seen = 0;
		for (size_t i = 0; i < rep->n_problems; i++) {
			if (!rep->problems[i].fatal)
				continue;
			if (seen++ == c.fatal_before) {
				first = &rep->problems[i];
				break;
			}
		}
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "%s '%s' failed verification: %zu problem%s; first: "
			     "'%s' %s",
			     wp_verify_kind_name(rep->kind), path, found, found == 1 ? "" : "s",
			     first->path, first->what);
	}
out:
	free(abs);
	return rc;
}
