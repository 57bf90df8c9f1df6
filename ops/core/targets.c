/* ops/core/targets.c: targets from flags, profiles and detection. */
#include "ops/core/targets.h"
#include "base/mem.h"
#include "env/detect.h"
#include "env/profile.h"
#include "resolver/gpu.h"
#include "resolver/marker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_auto(const char *w)
{
	return !w || !strcmp(w, "auto");
}

/* Whether --platform names another kind of machine than this one (another OS or architecture):
 * its GPU is not this machine's. A tag of this machine's kind (manylinux2014_x86_64 on any
 * x86-64 Linux host) is this machine. */
static bool foreign_platform(const struct wp_target *host, const char *platform)
{
	struct wp_target want;
	struct wp_err e = WP_ERR_INIT;
	struct wp_marker_env a, b;
	if (is_auto(platform) || !host->platform[0])
		return false;
	wp_target_init(&want);
	if (wp_target_set_platform(&want, platform, &e) < 0)
		return false; /* refused with its own message after detection */
	wp_marker_env_from_target(&a, host);
	wp_marker_env_from_target(&b, &want);
	if (!a.sys_platform[0] || !b.sys_platform[0])
		return false;
	return strcmp(a.sys_platform, b.sys_platform) ||
	       strcmp(a.platform_machine, b.platform_machine);
}

/* Fill what the words leave to detection from this machine. */
static int detect_into(const struct wp_session *s, const struct wp_target_words *w,
		       const char *python, const char *cuda, const char *platform,
		       struct wp_target *t, struct wp_err *err)
{
	struct wp_detect d;
	struct wp_detect_opts o = { .asks = s->asks,
				    .lib_dir = s->nvidia_lib_dir,
				    .envp = s->envp };
	struct wp_target dt;
	int rc;
	if ((rc = wp_detect_run(&d, &o, err))) {
		wp_detect_release(&d);
		return rc;
	}
	if (wp_detect_to_target(&d, &dt) < 0 && is_auto(platform))
		wp_say(s, WP_SAY_WARN,
		       "this machine's platform has no wheel tag wheelpick knows; give --platform");
	if (is_auto(python)) {
		if (d.default_python < 0) {
			wp_say(s, WP_SAY_NOTE,
			       "no python3 found on PATH; assuming Python %d.%d (give --python)",
			       t->py_major, t->py_minor);
		} else {
			snprintf(t->impl, sizeof(t->impl), "%s", dt.impl);
			snprintf(t->abi, sizeof(t->abi), "%s", dt.abi);
			t->py_major = dt.py_major;
			t->py_minor = dt.py_minor;
			t->py_micro = dt.py_micro;
		}
	}
	if (is_auto(platform)) {
		snprintf(t->platform, sizeof(t->platform), "%s", dt.platform);
		t->glibc_major = dt.glibc_major;
		t->glibc_minor = dt.glibc_minor;
		t->musl_major = dt.musl_major;
		t->musl_minor = dt.musl_minor;
	}
	bool foreign = foreign_platform(&dt, platform);
	bool gpus_given = w->gpus && w->gpus->n;
	if (is_auto(cuda) && !w->rocm && !(w->intel_ips && w->intel_ips->n) && foreign &&
	    !gpus_given) {
		/* another machine: this one's driver and GPUs say nothing of it */
		t->accel = WP_ACCEL_CPU;
		t->accel_foreign = true;
		wp_say(s, WP_SAY_NOTE,
		       "'%s' is another machine than this one: picking CPU builds, not this machine's GPU "
		       "(give --cuda X.Y, --driver or --gpu for its GPU)",
		       platform);
	} else if (is_auto(cuda) && !w->rocm && !(w->intel_ips && w->intel_ips->n)) {
		t->accel = dt.accel;
		t->cuda_major = dt.cuda_major;
		t->cuda_minor = dt.cuda_minor;
		t->driver = dt.driver;
		t->driver_given = dt.driver_given;
		t->driver_none_yet = dt.driver_none_yet;
		if (foreign) {
			/* --gpu for another machine: the CUDA this one runs, the driver that OS
			 * numbers for it */
			memset(&t->driver, 0, sizeof(t->driver));
			t->driver_given = false;
		}
		if (dt.accel == WP_ACCEL_CPU && d.driver_state == WP_DRIVER_NOT_LOADED)
			wp_say(s, WP_SAY_NOTE,
			       "NVIDIA's driver is installed but its kernel module is not loaded (%s): picking CPU "
			       "builds (give --cuda X.Y for the CUDA it runs once loaded)",
			       d.driver_failure[0] ? d.driver_failure :
						     "no /proc/driver/nvidia/version");
		else if (dt.accel == WP_ACCEL_CPU)
			wp_say(s, WP_SAY_NOTE,
			       "no NVIDIA driver found: picking CPU builds (give --cuda X.Y for another machine)");
		else if (dt.driver_none_yet)
			wp_say(s, WP_SAY_NOTE,
			       "no NVIDIA driver is installed yet (the GPUs are from the PCI bus): picking CUDA "
			       "builds for them as a new driver (CUDA %d.%d) runs them; the plan says which driver they need",
			       dt.cuda_major, dt.cuda_minor);
		else if (foreign)
			wp_say(s, WP_SAY_NOTE,
			       "'%s' is another machine: its GPU's CUDA is taken to be this machine's, "
			       "%d.%d; give --cuda or --driver for its own",
			       platform, dt.cuda_major, dt.cuda_minor);
		else
			wp_say(s, WP_SAY_NOTE, "the NVIDIA driver %s runs CUDA %d.%d (from %s)",
			       d.driver_version, dt.cuda_major, dt.cuda_minor,
			       wp_cuda_source_name(d.cuda_source));
	}
	if (!gpus_given && !foreign) {
		t->n_gpus = dt.n_gpus;
		memcpy(t->gpu_sm, dt.gpu_sm, sizeof(t->gpu_sm));
	}
	/* what PEP 825's amd and x86_64 providers read: this machine's, unless a flag says
	 * otherwise
	 * (--gfx, --x86-64-level and WHEELPICK_X86_64_LEVEL are applied after this) */
	if ((!w->gfx || !w->gfx->n) && !foreign) {
		t->n_gfx = dt.n_gfx;
		memcpy(t->gfx, dt.gfx, sizeof(t->gfx));
	}
	if (dt.x86_64_level && !foreign)
		t->x86_64_level = dt.x86_64_level;
	wp_detect_release(&d);
	return 0;
}

/* A value from the environment that is refused names its variable: the user typed no flag. */
static int from_env(struct wp_err *err, int rc, bool env, const char *var)
{
	if (env)
		wp_err_prefix(err, "the environment variable %s", var);
	return rc;
}

int wp_target_from_words(const struct wp_session *s, const struct wp_target_words *w,
			 struct wp_target *t, struct wp_err *err)
{
	int rc = 0;
	const char *python = w->python ? w->python : wp_session_env(s, "WHEELPICK_PYTHON");
	const char *cuda = w->cuda ? w->cuda : wp_session_env(s, "WHEELPICK_CUDA");
	const char *platform = w->platform ? w->platform : wp_session_env(s, "WHEELPICK_PLATFORM");

	wp_target_init(t);
	if (w->target_file) {
		if ((rc = wp_target_load_profile_as(w->target_file, s->asks,
						    s->net ? s->net->timeout_s : 0, t, err)))
			return rc;
	} else if (is_auto(python) || is_auto(platform) ||
		   (is_auto(cuda) && !w->rocm && !(w->intel_ips && w->intel_ips->n))) {
		if ((rc = detect_into(s, w, python, cuda, platform, t, err)))
			return rc;
	}
	if (!is_auto(python) && (rc = wp_target_set_python(t, python, err)))
		return from_env(err, rc, !w->python, "WHEELPICK_PYTHON");
	if (!is_auto(platform) && (rc = wp_target_set_platform(t, platform, err)))
		return from_env(err, rc, !w->platform, "WHEELPICK_PLATFORM");
	if (!is_auto(cuda)) {
		t->driver_none_yet = false; /* the user describes the driver */
		if (!strncmp(cuda, "driver=", 7))
			rc = wp_target_set_driver(t, cuda + 7, err);
		else if (!strcmp(cuda, "xpu"))
			wp_target_set_xpu(t);
		else
			rc = wp_target_set_cuda(t, cuda, err);
		if (rc)
			return from_env(err, rc, !w->cuda, "WHEELPICK_CUDA");
	}
	if (w->rocm && (rc = wp_target_set_rocm(t, w->rocm, err)))
		return rc;
	const char *compat = w->cuda_compat ? w->cuda_compat :
					      wp_session_env(s, "WHEELPICK_CUDA_COMPAT");
	if (compat && *compat && (rc = wp_target_set_cuda_compat(t, compat, err)))
		return from_env(err, rc, !w->cuda_compat, "WHEELPICK_CUDA_COMPAT");
	for (size_t i = 0; w->gpus && i < w->gpus->n; i++)
		if ((rc = wp_target_add_gpu(t, w->gpus->v[i], err)))
			return rc;
	for (size_t i = 0; w->gfx && i < w->gfx->n; i++) {
		if (strncmp(w->gfx->v[i], "gfx", 3) != 0)
			return wp_fail(err, -WPE_USAGE,
				       "--gfx '%s' is not an AMD architecture such as gfx942 or gfx1100",
				       w->gfx->v[i]);
		if ((rc = wp_target_add_gpu(t, w->gfx->v[i], err)))
			return rc;
	}
	/* PEP 825: Intel GPUs by device IP make an XPU target; the x86-64 level of the CPU */
	for (size_t i = 0; w->intel_ips && i < w->intel_ips->n; i++)
		if ((rc = wp_target_add_intel_ip(t, w->intel_ips->v[i], err)))
			return rc;
	const char *level = w->x86_64_level ? w->x86_64_level :
					      wp_session_env(s, "WHEELPICK_X86_64_LEVEL");
	if (level && *level && (rc = wp_target_set_x86_64_level(t, level, err)))
		return from_env(err, rc, !w->x86_64_level, "WHEELPICK_X86_64_LEVEL");
	/* eight A100s are one constraint, not eight */
	int n = 0;
	for (int i = 0; i < t->n_gpus; i++) {
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = t->gpu_sm[k] == t->gpu_sm[i];
		if (!seen)
			t->gpu_sm[n++] = t->gpu_sm[i];
	}
	t->n_gpus = n;
	if ((rc = wp_target_finish(t, err)))
		return rc;
	/* a GPU that the described driver cannot run at all (no driver before the first CUDA for
	 * its architecture knows the GPU: R570 for Blackwell): nothing CUDA runs there, whatever is
	 * picked, minor-version compatibility included */
	for (int i = 0; t->accel == WP_ACCEL_CUDA && i < t->n_gpus; i++) {
		int M, m;
		const char *need = NULL, *fam = wp_gpu_family(t->gpu_sm[i]);
		if (wp_gpu_min_cuda(t->gpu_sm[i], &M, &m) < 0 ||
		    (M < t->cuda_major || (M == t->cuda_major && m <= t->cuda_minor)))
			continue;
		wp_cuda_min_driver_os(M, m, wp_target_is_windows(t), &need);
		char given[64], gpu[160];
		snprintf(gpu, sizeof(gpu), "sm_%d%s%s%s", t->gpu_sm[i], fam ? " (" : "",
			 fam ? fam : "", fam ? ")" : "");
		for (size_t k = 0; w->gpus && k < w->gpus->n; k++) {
			int sm;
			struct wp_err ge = WP_ERR_INIT;
			if (wp_gpu_parse(w->gpus->v[k], &sm, &ge) == 0 && sm == t->gpu_sm[i] &&
			    strncmp(w->gpus->v[k], "sm", 2) &&
			    !(w->gpus->v[k][0] >= '0' && w->gpus->v[k][0] <= '9')) {
				snprintf(gpu, sizeof(gpu), "'%s' (sm_%d%s%s)", w->gpus->v[k],
					 t->gpu_sm[i], fam ? ", " : "", fam ? fam : "");
				break;
			}
		}
		if (t->driver_given)
			snprintf(given, sizeof(given), "driver %s", t->driver.text);
		else
			snprintf(given, sizeof(given), "CUDA %d.%d", t->cuda_major, t->cuda_minor);
		return wp_fail(err, -WPE_NOMATCH,
			       "the GPU %s cannot run on the target's %s (CUDA %d.%d at most): it needs "
			       "driver %s or newer (CUDA %d.%d); no CUDA build runs there, so none is picked (describe a newer "
			       "driver, or give %s)",
			       gpu, given, t->cuda_major, t->cuda_minor, need ? need : "?", M, m,
			       wp_ask_words(s->asks, WP_ASK_CPU));
	}
	return 0;
}

int wp_targets_build(const struct wp_session *s, const struct wp_target_spec *spec,
		     struct wp_target **out, size_t *n, struct wp_err *err)
{
	static const char *const none[] = { NULL };
	/* the accelerator words: each --cuda, each --driver, --xpu */
	struct wp_strlist accels = { 0 };
	char **owned = wp_xcalloc(spec->driver.n + 1, sizeof(*owned));
	for (size_t i = 0; i < spec->cuda.n; i++)
		wp_strlist_push(&accels, spec->cuda.v[i]);
	for (size_t i = 0; i < spec->driver.n; i++)
		wp_strlist_push(&accels, owned[i] = wp_xasprintf("driver=%s", spec->driver.v[i]));
	if (spec->xpu)
		wp_strlist_push(&accels, "xpu");
	const struct wp_strlist *lists[] = { &spec->target_files, &accels, &spec->python,
					     &spec->platform };
	const char *const *v[4];
	size_t len[4], total = 1;
	int rc = 0;
	for (size_t i = 0; i < 4; i++) {
		v[i] = lists[i]->n ? lists[i]->v : none;
		len[i] = lists[i]->n ? lists[i]->n : 1;
		total *= len[i];
	}
	*out = wp_xcalloc(total, sizeof(**out));
	*n = 0;
	/* the product, profiles outermost: one target per combination */
	for (size_t f = 0; f < len[0] && !rc; f++)
		for (size_t c = 0; c < len[1] && !rc; c++)
			for (size_t p = 0; p < len[2] && !rc; p++)
				for (size_t q = 0; q < len[3] && !rc; q++) {
					struct wp_target_words w = {
						.target_file = v[0][f],
						.cuda = v[1][c],
						.python = v[2][p],
						.platform = v[3][q],
						.rocm = spec->rocm,
						.gpus = &spec->gpu,
						.conda = spec->conda,
						.cuda_compat = spec->cuda_compat,
						.gfx = &spec->gfx,
						.intel_ips = &spec->intel_ip,
						.x86_64_level = spec->x86_64_level,
					};
					if (!(rc = wp_target_from_words(s, &w, &(*out)[*n], err)))
						(*n)++;
				}
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	for (size_t i = 0; i < spec->driver.n; i++)
		free(owned[i]);
	free(owned);
	wp_strlist_release(&accels);
	return rc;
}
