/* env/detect_toolkit.c: CUDA toolkits for detection (nvcc, CUDA_HOME, CUDA_PATH, the default
 * places), and the warnings about them and about the CUDA runtimes on LD_LIBRARY_PATH. */
#include "env/detect_internal.h"
#include "base/envp.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "env/detect_hw.h"
#include "env/run.h"
#include "resolver/gpu.h"
#include "base/os/os.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Minor version compatibility: from CUDA 11 on, a toolkit X.Y runs on any driver of the X.x
 * range at or above this floor, without the features that need the newer driver
 * (../shared/data/nvidia/cuda_minor_version_compat_min_driver.tsv). */
static const struct compat_row {
	int major, min_minor;
	const char *driver, *windows; /* Linux's floor, Windows' (NULL: none listed) */
} compat_rows[] = {
	{ 13, 0, "580", NULL },
	{ 12, 0, "525.60.13", "528.33" },
	{ 11, 1, "450.80.02", "452.39" },
};

static int cmp3(const int *a, const int *b)
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static void driver_parts(const char *text, int *v)
{
	if (!wp_dx_parse_version(WP_STR(text), v, 3))
		v[0] = v[1] = v[2] = 0;
}

/* The floor of minor version compatibility for CUDA major.minor on this system; NULL: none. */
static const char *compat_floor(bool windows, int major, int minor)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(compat_rows); i++)
		if (compat_rows[i].major == major && minor >= compat_rows[i].min_minor)
			return windows ? compat_rows[i].windows : compat_rows[i].driver;
	return NULL;
}

/* nvcc --version: "Cuda compilation tools, release 11.2, V11.2.152" */
static bool parse_nvcc(const struct wp_run *j, int *v)
{
	struct wp_str out = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	struct wp_str s = wp_dx_find(out, "release ");
	if (!s.n)
		return false;
	s.p += 8;
	s.n -= 8;
	if (wp_dx_parse_version(wp_dx_version_prefix(s), v, 3) < 2)
		return false;
	struct wp_str full = wp_dx_find(s, ", V");
	int w[3];
	if (full.n > 3 &&
	    wp_dx_parse_version(wp_dx_version_prefix(WP_STRN(full.p + 3, full.n - 3)), w, 3) == 3 &&
	    w[0] == v[0] && w[1] == v[1])
		v[2] = w[2];
	else
		v[2] = -1;
	return true;
}

/* version.json ({"cuda": {"version": "12.2.0"}}), else version.txt ("CUDA Version 10.2.89"). */
const char *wp_dx_read_toolkit_version(const char *dir, int *v)
{
	struct wp_buf b = WP_BUF_INIT;
	const char *source = NULL;
	char *p = wp_xasprintf("%s/version.json", dir);
	if (wp_env_read_small(p, WP_DX_SMALL_FILE_MAX, &b) == 0) {
		const struct wp_json_opts o = { .what = p, .max_bytes = WP_DX_SMALL_FILE_MAX };
		struct wp_json_val *root = NULL;
		/* a broken version.json is passed over for version.txt: no message */
		wp_json_load(b.data, b.len, &o, &root, NULL);
		const char *text = wp_json_get_str(root, "cuda", "version");
		if (text && wp_dx_parse_version(WP_STR(text), v, 3) >= 2)
			source = "version.json";
		wp_json_tree_free(root);
	}
	free(p);
	if (source)
		goto out;
	p = wp_xasprintf("%s/version.txt", dir);
	if (wp_env_read_small(p, WP_DX_SMALL_FILE_MAX, &b) == 0) {
		struct wp_str s = wp_dx_find(WP_STRN(wp_buf_cstr(&b), b.len), "CUDA Version");
		if (s.n && wp_dx_parse_version(wp_dx_version_prefix(WP_STRN(s.p + 12, s.n - 12)),
					       v, 3) >= 2)
			source = "version.txt";
	}
	free(p);
out:
	wp_buf_free(&b);
	return source;
}

static void add_toolkit(struct wp_dx_ctx *c, const struct wp_dx_toolkit_probe *tp)
{
	struct wp_detect *d = c->d;
	char *key = wp_os_realpath(tp->dir);
	if (!key)
		key = wp_xstrdup(tp->dir);
	for (size_t i = 0; i < c->tk_keys.n; i++) {
		if (!strcmp(c->tk_keys.v[i], key)) {
			free(key);
			return;
		}
	}
	if (d->n_toolkits >= WP_DX_MAX_TOOLKITS) {
		free(key);
		return;
	}
	wp_vec_push(&c->tk_keys, key);
	/* a path inside the sysroot is shown as the target machine sees it */
	size_t rl = strlen(c->root);
	const char *shown = key;
	if (rl && !strncmp(key, c->root, rl) && key[rl] == '/')
		shown = key + rl;
	struct wp_detect_toolkit t = { .major = tp->major, .minor = tp->minor, .patch = tp->patch,
				       .path = wp_xstrdup(shown), .source = tp->source };
	wp_dx_sanitize(t.path);
	for (char *q = t.path; c->windows && *q; q++)
		if (*q == '/') /* the seam's resolved paths use '/'; Windows users read '\' */
			*q = '\\';
	wp_vec_push_fields(d->toolkits, d->n_toolkits, d->cap_toolkits, t);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Plan where toolkits are: nvcc on PATH, $CUDA_HOME, $CUDA_PATH, $SYSROOT/usr/local/cuda*.
 * Version files are read now; a root with none gets its nvcc asked (not inside a sysroot, whose
 * binaries may not even run here). */
size_t wp_dx_plan_toolkits(struct wp_dx_ctx *c, struct wp_dx_toolkit_probe *tp, size_t max,
			   struct wp_run *jobs, size_t *nj)
{
	size_t n = 0;
	char *nvcc = wp_dx_find_program(c, "nvcc");
	if (nvcc) {
		char *real = wp_os_realpath(nvcc);
		struct wp_str top = wp_dx_parent_dir(wp_dx_parent_dir(WP_STR(real ? real : nvcc)));
		tp[n] = (struct wp_dx_toolkit_probe){ .dir = wp_xstrndup(top.p, top.n),
						.source = "nvcc",
						.job = -1 };
		free(real);
		if (wp_dx_job_add(jobs, nj, nvcc, false)) {
			jobs[*nj - 1].argv[1] = "--version";
			tp[n].job = (int)*nj - 1;
		}
		n++;
	}

	struct wp_dx_strs dirs = { 0 };
	const char *envs[] = { "CUDA_HOME", "CUDA_PATH" };
	const char *env_source[WP_DX_MAX_TOOLKITS];
	for (size_t i = 0; i < WP_ARRAY_LEN(envs); i++) {
		const char *e = wp_envp_get(c->envp, envs[i]);
		if (e && *e) {
			env_source[dirs.n] = envs[i];
			wp_vec_push(&dirs, wp_xstrdup(e));
		}
	}
	/* Windows' installer sets CUDA_PATH_V<major>_<minor> for each toolkit (CUDA_PATH for the
	 * last one installed) */
	for (size_t i = 0; c->windows && c->envp && c->envp[i] && dirs.n < max; i++) {
		const char *eq = strchr(c->envp[i], '=');
		if (strncasecmp(c->envp[i], "CUDA_PATH_V", 11) || !eq || !eq[1])
			continue;
		env_source[dirs.n] = "CUDA_PATH_Vx_y";
		wp_vec_push(&dirs, wp_xstrdup(eq + 1));
	}
	size_t n_env = dirs.n;
	/* the default places: /usr/local/cuda*, and on Windows
	 * %ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA\v* */
	char *local = c->windows ? wp_xasprintf("%s\\NVIDIA GPU Computing Toolkit\\CUDA",
						c->program_files) :
				   wp_dx_root_path(c, "/usr/local");
	const char *prefix = c->windows ? "v" : "cuda";
	struct wp_os_dir *dir = wp_os_opendir(local);
	const struct wp_os_dirent *e;
	while (dir && (e = wp_os_readdir(dir)) && dirs.n - n_env < max) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		char *p = wp_xasprintf("%s%s%s", local, c->windows ? "\\" : "/", e->d_name);
		if (wp_dx_is_dir(p))
			wp_vec_push(&dirs, p);
		else
			free(p);
	}
	if (dir)
		wp_os_closedir(dir);
	free(local);
	if (dirs.n > n_env)
		qsort(dirs.v + n_env, dirs.n - n_env, sizeof(*dirs.v), cmp_names);

	for (size_t i = 0; i < dirs.n; i++) {
		const char *source = i < n_env ? env_source[i] : NULL;
		int v[3];
		const char *file_source = n < max ? wp_dx_read_toolkit_version(dirs.v[i], v) : NULL;
		if (file_source) {
			tp[n++] = (struct wp_dx_toolkit_probe){ .dir = dirs.v[i],
							  .source = source ? source : file_source,
							  .major = v[0],
							  .minor = v[1],
							  .patch = v[2],
							  .have = true,
							  .job = -1 };
			continue;
		}
		char *bin = wp_xasprintf("%s/bin/nvcc%s", dirs.v[i], wp_os_exe_suffix);
		if (n < max && (source || c->host) && wp_dx_is_exec(bin) && *nj < WP_DX_MAX_JOBS) {
			wp_dx_job_add(jobs, nj, bin, false);
			jobs[*nj - 1].argv[1] = "--version";
			tp[n++] = (struct wp_dx_toolkit_probe){ .dir = dirs.v[i],
							  .source = source ? source : "nvcc",
							  .job = (int)*nj - 1 };
			continue;
		}
		free(bin);
		free(dirs.v[i]);
	}
	wp_vec_free(&dirs);
	return n;
}

void wp_dx_warn_toolkits(struct wp_dx_ctx *c)
{
	struct wp_detect *d = c->d;
	int drv[3], need[3], floor[3];
	bool have_drv = d->driver_version[0] != 0;
	if (have_drv)
		driver_parts(d->driver_version, drv);
	for (size_t i = 0; i < d->n_toolkits; i++) {
		const struct wp_detect_toolkit *t = &d->toolkits[i];
		const char *row_driver = NULL; /* the lowest driver of that CUDA release */
		bool known =
			wp_cuda_min_driver_os(t->major, t->minor, c->windows, &row_driver) == 0;
		const char *compat = compat_floor(c->windows, t->major, t->minor);
		bool newer = d->cuda_major &&
			     wp_dx_cuda_cmp(t->major, t->minor, d->cuda_major, d->cuda_minor) > 0;
		if (have_drv && known) {
			driver_parts(row_driver, need);
			if (cmp3(drv, need) >= 0)
				continue;
			if (compat)
				driver_parts(compat, floor);
			if (compat && cmp3(drv, floor) >= 0) {
				wp_dx_warn(c,
					   "driver %s is older than the CUDA %d.%d toolkit at '%s' needs (>= %s); "
					   "its programs run only through minor version compatibility (CUDA %d.x on >= %s), "
					   "without features that need the newer driver and without JIT-compiling its PTX",
					   d->driver_version, t->major, t->minor, t->path,
					   row_driver, t->major, compat);
				continue;
			}
			char drv_cuda[64] = "";
			if (d->cuda_major)
				snprintf(drv_cuda, sizeof(drv_cuda),
					 "; the driver runs CUDA %d.%d at most", d->cuda_major,
					 d->cuda_minor);
			if (compat)
				wp_dx_warn(c,
					   "driver %s is too old for the CUDA %d.%d toolkit at '%s' (it needs >= %s, or >= %s "
					   "with minor version compatibility)%s; programs it builds fail with "
					   "'CUDA driver version is insufficient'",
					   d->driver_version, t->major, t->minor, t->path,
					   row_driver, compat, drv_cuda);
			else
				wp_dx_warn(c,
					   "driver %s is too old for the CUDA %d.%d toolkit at '%s' (it needs >= %s)%s; "
					   "programs it builds fail with 'CUDA driver version is insufficient'",
					   d->driver_version, t->major, t->minor, t->path,
					   row_driver, drv_cuda);
			continue;
		}
		if (newer)
			wp_dx_warn(c,
				   "the CUDA %d.%d toolkit at '%s' is newer than the CUDA %d.%d the driver supports",
				   t->major, t->minor, t->path, d->cuda_major, d->cuda_minor);
	}
}

bool wp_dx_dir_has_prefix(const char *dir, const char *prefix)
{
	struct wp_os_dir *dd = wp_os_opendir(dir);
	if (!dd)
		return false;
	size_t n = strlen(prefix);
	bool found = false;
	const struct wp_os_dirent *e;
	while (!found && (e = wp_os_readdir(dd)))
		found = !strncmp(e->d_name, prefix, n);
	wp_os_closedir(dd);
	return found;
}

/* The CUDA runtime in dir, from its file names: libcudart.so.12.4.127 is 12.4 (*minor -1 when
 * only the soname's major is there: libcudart.so.12, libcudart.so.11.0). False when none. */
static bool dir_runtime_version(const char *dir, int *major, int *minor)
{
	struct wp_os_dir *dd = wp_os_opendir(dir);
	const struct wp_os_dirent *e;
	bool found = false;
	*major = 0;
	*minor = -1;
	while (dd && (e = wp_os_readdir(dd))) {
		int a = 0, b = 0, c = 0, n = 0;
		if (strncmp(e->d_name, "libcudart.so.", 13))
			continue;
		n = sscanf(e->d_name + 13, "%d.%d.%d", &a, &b, &c);
		if (n < 1 || a <= 0)
			continue;
		found = true;
		if (a > *major) {
			*major = a;
			*minor = n == 3 ? b : -1;
		} else if (a == *major && n == 3 && b > *minor) {
			*minor = b;
		}
	}
	if (dd)
		wp_os_closedir(dd);
	return found;
}

/* What one CUDA runtime directory on LD_LIBRARY_PATH does to PyTorch's wheels: newer than the
 * driver runs, it fails to start; with the libraries the nvidia-* wheels ship (cuBLAS, cuDNN,
 * NCCL), it is searched before theirs, and a mismatch fails with 'undefined symbol'. */
static void warn_runtime_dir(struct wp_dx_ctx *c, const char *dir)
{
	struct wp_detect *d = c->d;
	int M, m;
	if (!dir_runtime_version(dir, &M, &m))
		return;
	char shown[PATH_MAX];
	snprintf(shown, sizeof(shown), "%s", dir);
	wp_dx_sanitize(shown);
	if (d->cuda_major && (M > d->cuda_major || (M == d->cuda_major && m > d->cuda_minor))) {
		char v[16];
		snprintf(v, sizeof(v), m >= 0 ? "%d.%d" : "%d", M, m);
		wp_dx_warn(c,
			   "LD_LIBRARY_PATH names a CUDA %s runtime ('%s'), newer than driver %s runs (CUDA %d.%d)%s",
			   v, shown, d->driver_version[0] ? d->driver_version : "?", d->cuda_major,
			   d->cuda_minor,
			   M > d->cuda_major ?
				   ": programs that load it fail ('CUDA driver version is insufficient')" :
				   ": it runs only through minor version compatibility, without JIT-compiling PTX");
	}
	static const char *const wheel_libs[] = { "libcublas.so", "libcudnn.so", "libnccl.so",
						  "libcusparse.so" };
	for (size_t i = 0; i < sizeof(wheel_libs) / sizeof(wheel_libs[0]); i++)
		if (wp_dx_dir_has_prefix(dir, wheel_libs[i])) {
			wp_dx_warn(c,
				   "LD_LIBRARY_PATH names '%s', which holds %s*: it is searched before the libraries of the "
				   "nvidia-* wheels that PyTorch's CUDA wheels load, so its copies load instead (a version "
				   "mismatch fails with 'undefined symbol'); unset LD_LIBRARY_PATH to run PyTorch from pip",
				   shown, wheel_libs[i]);
			break;
		}
}

/* Several CUDA runtimes on LD_LIBRARY_PATH: the first one wins, often not the one meant. A
 * driver stub directory there shadows the real libcuda. */
void wp_dx_warn_ld_library_path(struct wp_dx_ctx *c)
{
	const char *env = wp_envp_get(c->envp, "LD_LIBRARY_PATH");
	if (!env)
		return;
	struct wp_dx_strs seen = { 0 };
	struct wp_buf list = WP_BUF_INIT;
	struct wp_str rest = WP_STR(env);
	while (rest.n) {
		struct wp_str part = wp_str_cut(&rest, ':');
		if (!part.n)
			continue;
		char *dir = wp_xstrndup(part.p, part.n);
		char *real = wp_os_realpath(dir);
		bool dup = false;
		for (size_t i = 0; real && i < seen.n; i++)
			dup |= !strcmp(seen.v[i], real);
		if (real && !dup) {
			if (wp_dx_dir_has_prefix(real, "libcudart.so")) {
				warn_runtime_dir(c, dir);
				wp_buf_printf(&list, "%s'%s'", seen.n ? ", " : "", dir);
				wp_vec_push(&seen, real);
				real = NULL;
			}
			struct wp_str ds = WP_STR(dir);
			while (ds.n > 1 && ds.p[ds.n - 1] == '/')
				ds.n--;
			if (wp_str_endswith(ds, "stubs") && wp_dx_dir_has_prefix(dir, "libcuda.so"))
				wp_dx_warn(c,
					   "LD_LIBRARY_PATH names the CUDA driver stub directory '%s'; programs that load "
					   "its libcuda instead of the driver's fail ('CUDA driver is a stub library')",
					   dir);
		}
		free(real);
		free(dir);
	}
	if (seen.n > 1) {
		wp_dx_sanitize(list.data);
		wp_dx_warn(c,
			   "LD_LIBRARY_PATH names %zu CUDA runtime directories (%s); the first one wins, which may "
			   "not be the CUDA you expect",
			   seen.n, wp_buf_cstr(&list));
	}
	for (size_t i = 0; i < seen.n; i++)
		free(seen.v[i]);
	wp_vec_free(&seen);
	wp_buf_free(&list);
}

void wp_dx_collect_toolkits(struct wp_dx_ctx *c, struct wp_dx_plan *pl)
{
	for (size_t i = 0; i < pl->ntp; i++) {
		struct wp_dx_toolkit_probe *tp = &pl->tp[i];
		int v[3];
		if (tp->job >= 0 && parse_nvcc(&pl->jobs[tp->job], v)) {
			tp->major = v[0];
			tp->minor = v[1];
			tp->patch = v[2];
			tp->have = true;
		} else if (tp->job >= 0) {
			wp_dx_job_note(c, &pl->jobs[tp->job]);
		}
		if (tp->have)
			add_toolkit(c, tp);
	}
}
