/* env/detect.c: find this machine's NVIDIA driver, CUDA, GPUs, toolkits, Pythons, libc and OS
 * (Linux, and Windows where the seam's uname says so: its own places, names and driver table): the
 * run that plans the programs to start, starts them at once, collects their answers into a struct
 * wp_detect and adds the warnings. Each part lives in its own file (env/detect_internal.h). */
#include "env/detect.h"
#include "base/envp.h"
#include "base/buf.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "env/detect_hw.h"
#include "env/detect_internal.h"
#include "env/run.h"
#include "resolver/gpu.h"
#include "base/os/os.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_MS 5000
#define DEFAULT_OUTPUT_MAX (64 << 10)

/* ---- libc and OS ---- */

static void set_libc(struct wp_dx_ctx *c, struct wp_str ver, bool musl)
{
	int v[3];
	if (wp_dx_parse_version(ver, v, 3) < 2 || (!musl && v[0] != 2))
		return;
	if (musl) {
		c->d->musl_major = v[0];
		c->d->musl_minor = v[1];
	} else {
		c->d->glibc_major = v[0];
		c->d->glibc_minor = v[1];
	}
}

/* glibc: "ldd (Debian GLIBC 2.36-9+deb12u4) 2.36" (version last on the first line).
 * musl: "musl libc (x86_64)\nVersion 1.2.3\n..." on stderr, exit status 1. */
static void parse_ldd(struct wp_dx_ctx *c, const struct wp_run *j)
{
	struct wp_str out = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	if (wp_dx_find(out, "musl libc").n) {
		struct wp_str s = wp_dx_find(out, "Version ");
		if (s.n)
			set_libc(c, wp_dx_version_prefix(WP_STRN(s.p + 8, s.n - 8)), true);
		return;
	}
	struct wp_str line = wp_str_cut(&out, '\n');
	struct wp_str last = WP_STRN("", 0);
	for (struct wp_str w = wp_dx_next_word(&line); w.n; w = wp_dx_next_word(&line))
		last = w;
	set_libc(c, last, false);
}

static void detect_libc(struct wp_dx_ctx *c, struct wp_run *jobs, size_t *nj, int *ldd_job)
{
	*ldd_job = -1;
	if (c->host) {
		const char *v = wp_os_libc_version();
		if (v) {
			set_libc(c, WP_STR(v), false);
			return;
		}
	} else {
		struct wp_buf b = WP_BUF_INIT;
		char *hook = wp_dx_root_path(c, "/etc/wheelpick-glibc");
		bool hooked = wp_env_read_small(hook, 64, &b) == 0;
		if (hooked)
			set_libc(c, wp_str_trim(WP_STRN(wp_buf_cstr(&b), b.len)), false);
		free(hook);
		wp_buf_free(&b);
		if (hooked)
			return;
	}
	char *ldd = wp_dx_find_program(c, "ldd");
	if (ldd && wp_dx_job_add(jobs, nj, ldd, true)) {
		jobs[*nj - 1].argv[1] = "--version";
		*ldd_job = (int)*nj - 1;
	}
}

static void detect_uname(struct wp_detect *d)
{
	char sys[65], rel[65], mach[65]; /* struct utsname's sizes */
	if (wp_os_uname(sys, sizeof(sys), rel, sizeof(rel), mach, sizeof(mach)) < 0)
		return;
	wp_dx_copy_clean(d->os, sizeof(d->os), WP_STR(sys));
	wp_dx_copy_clean(d->os_release, sizeof(d->os_release), WP_STR(rel));
	wp_dx_copy_clean(d->machine, sizeof(d->machine), WP_STR(mach));
}

/* ---- warnings ---- */

/* A GPU the driver is too old for: no CUDA build runs on it (H100 needs CUDA 11.8, R520; Blackwell
 * CUDA 12.8, R570). */
static void warn_gpus_driver(struct wp_dx_ctx *c)
{
	struct wp_detect *d = c->d;
	for (int i = 0; d->cuda_major && i < d->n_gpus; i++) {
		int sm = d->gpus[i].cc_major * 10 + d->gpus[i].cc_minor, M, m;
		const char *need = NULL;
		if (d->gpus[i].cc_major < 0 || wp_gpu_min_cuda(sm, &M, &m) < 0 ||
		    wp_dx_cuda_cmp(M, m, d->cuda_major, d->cuda_minor) <= 0)
			continue;
		wp_cuda_min_driver_os(M, m, c->windows, &need);
		wp_dx_warn(c,
			   "the %s (sm_%d) needs CUDA %d.%d or newer (driver %s or newer); driver %s runs CUDA %d.%d at most, so "
			   "no CUDA build runs on it: upgrade the driver",
			   d->gpus[i].name, sm, M, m, need ? need : "?",
			   d->driver_version[0] ? d->driver_version : "?", d->cuda_major,
			   d->cuda_minor);
	}
}

/* A GPU on the PCI bus and no driver: what to install, per GPU, and what the target is. */
static void warn_none_yet(struct wp_dx_ctx *c)
{
	struct wp_detect *d = c->d;
	bool known = false;
	for (int i = 0; i < d->n_gpus; i++) {
		const struct wp_detect_gpu *g = &d->gpus[i];
		int sm = g->cc_major * 10 + g->cc_minor, M, m;
		const char *need = NULL;
		if (g->cc_major < 0) {
			wp_dx_warn(c,
				   "%s is on the PCI bus but its compute capability is not in NVIDIA's list of PCI ids (Turing "
				   "and later) that wheelpick carries; give it with %s",
				   g->name, wp_ask_words(c->asks, WP_ASK_GPU));
			continue;
		}
		known = true;
		if (wp_gpu_min_cuda(sm, &M, &m) == 0 && wp_cuda_min_driver(M, m, &need) == 0)
			wp_dx_warn(c,
				   "no NVIDIA driver is installed yet for the %s (sm_%d) on the PCI bus: it needs driver %s or "
				   "newer (CUDA %d.%d); the CUDA builds picked for it say which driver they need",
				   g->name, sm, need, M, m);
	}
	if (known)
		wp_dx_warn(c,
			   "the target is CUDA builds for these GPUs with the driver still to be installed (driver: none yet)");
	else
		wp_dx_warn(c,
			   "no NVIDIA driver found; the target is CPU builds (give %s to pick CUDA builds anyway)",
			   wp_ask_words(c->asks, WP_ASK_CUDA));
}

/* The ones that change what gets picked come first; notes about programs come last. */
static void add_warnings(struct wp_dx_ctx *c, bool have_python3, int launcher_default)
{
	struct wp_detect *d = c->d;
	if (d->driver_state == WP_DRIVER_NOT_LOADED && c->windows) {
		struct wp_buf parts = WP_BUF_INIT;
		if (c->nvml.loaded)
			wp_buf_printf(&parts, "nvml.dll");
		if (c->cuda.loaded)
			wp_buf_printf(&parts, "%snvcuda.dll", parts.len ? ", " : "");
		if (d->userspace_cuda_major)
			wp_buf_printf(&parts, " (CUDA %d.%d)", d->userspace_cuda_major,
				      d->userspace_cuda_minor);
		if (c->smi_found)
			wp_buf_printf(&parts, "%snvidia-smi.exe", parts.len ? ", " : "");
		wp_dx_warn(c,
			   "NVIDIA's driver is installed (%s) but did not answer: no CUDA program "
			   "runs here until it does (Device Manager shows whether the display "
			   "adapter's driver started; reinstall the driver or restart)%s%s",
			   wp_buf_cstr(&parts), d->driver_failure[0] ? "; the driver said: " : "",
			   d->driver_failure);
		wp_buf_free(&parts);
		wp_dx_warn(c,
			   "no CUDA is claimed; the target is CPU builds (give %s to pick CUDA "
			   "builds anyway)",
			   wp_ask_words(c->asks, WP_ASK_CUDA));
	} else if (d->driver_state == WP_DRIVER_NOT_LOADED) {
		struct wp_buf parts = WP_BUF_INIT;
		if (c->nvml.loaded)
			wp_buf_printf(&parts, "libnvidia-ml.so.1");
		if (c->cuda.loaded)
			wp_buf_printf(&parts, "%slibcuda.so.1", parts.len ? ", " : "");
		if (d->userspace_cuda_major)
			wp_buf_printf(&parts, " (CUDA %d.%d)", d->userspace_cuda_major,
				      d->userspace_cuda_minor);
		if (c->smi_found)
			wp_buf_printf(&parts, "%snvidia-smi", parts.len ? ", " : "");
		wp_dx_warn(c,
			   "NVIDIA's user-space driver is installed (%s) but its kernel module 'nvidia' is not loaded (no "
			   "/proc/driver/nvidia/version or /sys/module/nvidia): no CUDA program runs here until it is "
			   "(modprobe nvidia, or reboot after installing the driver; in a container, start it with the GPUs)%s%s",
			   wp_buf_cstr(&parts), d->driver_failure[0] ? "; the driver said: " : "",
			   d->driver_failure);
		wp_buf_free(&parts);
		if (d->userspace_cuda_major)
			wp_dx_warn(c,
				   "no CUDA is claimed; the target is CPU builds (%s %d.%d to pick for this driver once "
				   "its module is loaded)",
				   wp_ask_words(c->asks, WP_ASK_CUDA_AS), d->userspace_cuda_major,
				   d->userspace_cuda_minor);
		else
			wp_dx_warn(c,
				   "no CUDA is claimed; the target is CPU builds (give %s to pick CUDA builds for this driver "
				   "once its module is loaded)",
				   wp_ask_words(c->asks, WP_ASK_CUDA));
	} else if (d->driver_state == WP_DRIVER_NONE_YET) {
		warn_none_yet(c);
	} else if (!d->cuda_major) {
		if (d->gpu_hardware && !d->driver_version[0])
			wp_dx_warn(c,
				   "NVIDIA GPU hardware is present but no driver version could be read (no "
				   "/proc/driver/nvidia/version, /sys/module/nvidia/version or working nvidia-smi); "
				   "is the driver installed and loaded?");
		if (d->rocm_major && d->n_gfx)
			/* ROCm builds are taken only when asked for: say how, and what a profile
			 * records */
			wp_dx_note(c,
				   "ROCm %d.%d (/opt/rocm/.info/version) and %s%s are here: %s %d.%d to pick ROCm builds "
				   "(a %s profile records them)",
				   d->rocm_major, d->rocm_minor, d->gfx[0],
				   d->n_gfx > 1 ? " and other AMD GPUs" : "",
				   wp_ask_words(c->asks, WP_ASK_ROCM_AS), d->rocm_major,
				   d->rocm_minor, wp_ask_words(c->asks, WP_ASK_PROFILE));
		if (d->driver_version[0])
			wp_dx_warn(c,
				   "driver %s is older than any CUDA release wheelpick knows; the target is CPU builds",
				   d->driver_version);
		else
			wp_dx_warn(c,
				   "no NVIDIA driver found; the target is CPU builds (give %s to pick CUDA builds anyway)",
				   wp_ask_words(c->asks, WP_ASK_CUDA));
	}
	warn_gpus_driver(c);
	wp_dx_warn_toolkits(c);
	if (c->windows)
		wp_dx_warn_cuda_path(c);
	else
		wp_dx_warn_ld_library_path(c);
	wp_dx_pick_default_python(c, have_python3, launcher_default);
	if (!d->n_pythons)
		wp_dx_warn(c, "no Python 3 interpreter found on PATH; give %s",
			   wp_ask_words(c->asks, WP_ASK_PYTHON));
	if (!d->glibc_major && !d->musl_major && !strcmp(d->os, "Linux"))
		wp_dx_warn(c,
			   "could not tell the C library (glibc or musl); the platform is plain "
			   "linux_%s",
			   d->machine);
	for (size_t i = 0; i < c->notes.n; i++)
		wp_vec_push_fields(d->warnings, d->n_warnings, d->cap_warnings, c->notes.v[i]);
	c->notes.n = 0;
}

/* ---- the whole run ---- */

static void hw_note(void *ctx, const char *msg)
{
	wp_dx_note(ctx, "%s", msg);
}

int wp_detect_run(struct wp_detect *d, const struct wp_detect_opts *opts, struct wp_err *err)
{
	static const struct wp_detect_opts no_opts;
	if (!opts)
		opts = &no_opts;
	memset(d, 0, sizeof(*d));
	d->default_python = -1;

	int rc = 0;
	struct wp_dx_ctx c = { .d = d };
	struct wp_dx_plan pl = {
		.nj = 0, .smi_banner = -1, .smi_query = -1, .ldd = -1, .py_launcher = -1
	};
	char *smi = NULL;

	c.envp = opts->envp;
	const char *sysroot = opts->sysroot ? opts->sysroot :
					      wp_envp_get(opts->envp, "WHEELPICK_SYSROOT");
	if (!sysroot || !*sysroot)
		sysroot = "/";
	struct wp_str r = WP_STR(sysroot);
	while (r.n && r.p[r.n - 1] == '/')
		r.n--;
	c.host = !r.n;
	/* resolved, so toolkit paths (also resolved) can be shown relative to it */
	c.root = c.host ? wp_xstrdup("") : wp_os_realpath(sysroot);
	if (!c.root || (!c.host && !wp_dx_is_dir(c.root))) {
		rc = wp_fail(err, -WPE_ENV, "sysroot '%s' is not a directory", sysroot);
		goto out;
	}
	if (!strcmp(c.root, "/"))
		c.root[0] = 0;
	c.path_env = opts->path ? opts->path : wp_envp_get(opts->envp, "PATH");
	if (!c.path_env)
		c.path_env = "/usr/local/bin:/usr/bin:/bin";
	c.lib_dir = opts->lib_dir && *opts->lib_dir ? opts->lib_dir : NULL;
	c.dlopen_ok = !opts->no_dlopen && (c.host || c.lib_dir);
	c.timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
	c.output_max = opts->output_max ? opts->output_max : DEFAULT_OUTPUT_MAX;
	c.asks = opts->asks;

	detect_uname(d);
	c.windows = !strcmp(d->os, "Windows");
	if (c.windows) {
		/* no /proc, /sys or PCI bus files there: the driver answers through NVML,
		 * nvidia-smi and nvcuda.dll */
		wp_dx_windows_dirs(&c);
	} else {
		wp_detect_hw(d, c.root, hw_note, &c);
		wp_dx_detect_driver_files(&c);
		wp_dx_detect_gpu_hardware(&c);
	}
	wp_dx_probe_nvml(&c);

	smi = wp_dx_find_smi(&c);
	c.smi_found = smi != NULL;
	wp_dx_plan_smi(&c, &pl, smi);
	pl.ntp = wp_dx_plan_toolkits(&c, pl.tp, WP_DX_MAX_TOOLKITS, pl.jobs, &pl.nj);
	wp_dx_plan_pythons(&c, &pl);
	if (!c.windows)
		detect_libc(&c, pl.jobs, &pl.nj, &pl.ldd);

	wp_dx_run_jobs(pl.jobs, pl.nj, c.timeout_ms, c.output_max, c.envp);

	bool smi_old = wp_dx_collect_smi(&c, &pl);
	wp_dx_collect_toolkits(&c, &pl);
	bool have_python3 = wp_dx_collect_pythons(&c, &pl);
	int launcher_default = wp_dx_launched_pythons(&c, &pl);
	if (pl.ldd >= 0) {
		parse_ldd(&c, &pl.jobs[pl.ldd]);
		if (!d->glibc_major && !d->musl_major && pl.jobs[pl.ldd].timed_out)
			wp_dx_job_note(&c, &pl.jobs[pl.ldd]);
	}
	if (smi_old)
		wp_dx_smi_old_query(&c, smi);
	wp_dx_probe_libcuda(&c);
	wp_dx_decide_driver_state(&c);
	wp_dx_derive_cuda_from_driver(&c);
	/* a GPU nvidia-smi lists is GPU hardware, whatever the files a container shows say */
	if (d->n_gpus)
		d->gpu_hardware = true;
	add_warnings(&c, have_python3, launcher_default);
out:
	free(smi);
	for (size_t i = 0; i < pl.nj; i++)
		wp_dx_job_release(&pl.jobs[i]);
	for (size_t i = 0; i < pl.ntp; i++)
		free(pl.tp[i].dir);
	for (size_t i = 0; i < c.tk_keys.n; i++)
		free(c.tk_keys.v[i]);
	wp_vec_free(&c.tk_keys);
	for (size_t i = 0; i < c.notes.n; i++)
		free(c.notes.v[i]);
	wp_vec_free(&c.notes);
	free(c.root);
	free(c.system32);
	free(c.nvsmi);
	free(c.program_files);
	return rc;
}

void wp_detect_release(struct wp_detect *d)
{
	for (size_t i = 0; i < d->n_toolkits; i++)
		free(d->toolkits[i].path);
	free(d->toolkits);
	for (size_t i = 0; i < d->n_pythons; i++)
		free(d->pythons[i].path);
	free(d->pythons);
	for (size_t i = 0; i < d->n_warnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	memset(d, 0, sizeof(*d));
	d->default_python = -1;
}

const char *wp_driver_state_name(enum wp_driver_state s)
{
	switch (s) {
	case WP_DRIVER_LOADED:     return "loaded";
	case WP_DRIVER_NOT_LOADED: return "not loaded";
	case WP_DRIVER_NONE_YET:   return "none yet";
	default:                   return "none";
	}
}

const char *wp_cuda_source_name(enum wp_cuda_source s)
{
	switch (s) {
	case WP_CUDA_SRC_NVML:         return "nvml";
	case WP_CUDA_SRC_LIBCUDA:      return "libcuda";
	case WP_CUDA_SRC_NVIDIA_SMI:   return "nvidia-smi";
	case WP_CUDA_SRC_DRIVER_TABLE: return "driver-table";
	default:                       return NULL;
	}
}
