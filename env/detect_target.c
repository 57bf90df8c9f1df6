/* env/detect_target.c: a detected machine turned into the target wheels are picked for: the
 * default interpreter's tags, the accelerator and the platform tag. */
#include "env/detect.h"
#include "env/detect_internal.h"
#include "base/mem.h"
#include "base/str.h"
#include "resolver/gpu.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *impl_tag(const char *name)
{
	static const char *const map[][2] = {
		{ "cpython", "cp" }, { "pypy", "pp" }, { "ironpython", "ip" }, { "jython", "jy" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(map); i++)
		if (!strcmp(name, map[i][0]))
			return map[i][1];
	return name;
}

/* The ABI tag when it is not the interpreter's default: "cpython-313t-..." -> "cp313t" (free
 * threading), "pypy39-pp73" -> "pypy39_pp73"; "" for plain cp38, or cp37m on 3.7 and older. */
static void abi_from_soabi(const struct wp_detect_python *py, char *abi, size_t size)
{
	abi[0] = 0;
	struct wp_str s = WP_STR(py->soabi);
	if (!s.n)
		return;
	if (strcmp(py->impl, "cpython")) {
		struct wp_str head = wp_str_cut(&s, '-');
		struct wp_str tail = wp_str_cut(&s, '-');
		if (tail.n)
			snprintf(abi, size, "%.*s_%.*s", WP_STR_FMT(head), WP_STR_FMT(tail));
		return;
	}
	struct wp_str head = wp_str_cut(&s, '-');
	/* "cpython-313t-..." on POSIX, "cp313t-win_amd64" on Windows */
	struct wp_str ver = wp_str_startswith(head, "cp") && head.n > 2 && head.p[2] >= '0' &&
					    head.p[2] <= '9' ?
				    WP_STRN(head.p + 2, head.n - 2) :
				    wp_str_cut(&s, '-');
	char plain[16];
	snprintf(plain, sizeof(plain), "%d%d%s", py->major, py->minor,
		 py->major == 3 && py->minor <= 7 ? "m" : "");
	if (ver.n && !wp_str_eq(ver, plain))
		snprintf(abi, size, "cp%.*s", WP_STR_FMT(ver));
}

static void platform_tag(const struct wp_detect *d, char *out, size_t size)
{
	char arch[32];
	snprintf(arch, sizeof(arch), "%s", d->machine);
	for (char *p = arch; *p; p++)
		if (*p == '-' || *p == '.' || *p == ' ')
			*p = '_';
	out[0] = 0;
	if (!strcmp(d->os, "Linux")) {
		if (d->glibc_major)
			snprintf(out, size, "manylinux_%d_%d_%s", d->glibc_major, d->glibc_minor,
				 arch);
		else if (d->musl_major)
			snprintf(out, size, "musllinux_%d_%d_%s", d->musl_major, d->musl_minor,
				 arch);
		else
			snprintf(out, size, "linux_%s", arch);
	} else if (!strcmp(d->os, "Windows")) {
		/* the default interpreter's machine when it says (an x64 Python on an ARM64 machine
		 * runs emulated and takes win_amd64 wheels, as its pip does), else the system's */
		const char *m = d->machine;
		if (d->default_python >= 0 && (size_t)d->default_python < d->n_pythons &&
		    d->pythons[d->default_python].machine[0])
			m = d->pythons[d->default_python].machine;
		if (!strcasecmp(m, "AMD64") || !strcasecmp(m, "x86_64"))
			snprintf(out, size, "win_amd64");
		else if (!strcasecmp(m, "ARM64") || !strcasecmp(m, "aarch64"))
			snprintf(out, size, "win_arm64");
		else if (!strcasecmp(m, "x86") || !strcasecmp(m, "i386") || !strcasecmp(m, "i686"))
			snprintf(out, size, "win32");
	} else if (!strcmp(d->os, "Darwin")) {
		/* Darwin 20..24 is macOS 11..15, and Darwin 25 is macOS 26; before 20, 10.(N-4) */
		int v[3];
		if (wp_dx_parse_version(wp_dx_version_prefix(WP_STR(d->os_release)), v, 3) < 1)
			return;
		int major = v[0] >= 25 ? v[0] + 1 : v[0] >= 20 ? v[0] - 9 : 10;
		int minor = v[0] >= 20 ? 0 : v[0] - 4;
		if (minor < 0)
			return;
		snprintf(out, size, "macosx_%d_%d_%s", major, minor,
			 !strcmp(arch, "arm64") || !strcmp(arch, "aarch64") ? "arm64" : arch);
	}
}

int wp_detect_profile_target(const struct wp_detect *d, struct wp_target *t)
{
	int rc = wp_detect_to_target(d, t);
	/* a profile describes the machine to pick for elsewhere: its accelerator is ROCm when that
	 * is all it has (no NVIDIA driver runs anything), as `--rocm X.Y --gfx G` would say */
	if (t->accel == WP_ACCEL_CPU && d->rocm_major && d->n_gfx)
		t->accel = WP_ACCEL_ROCM;
	return rc;
}

int wp_detect_to_target(const struct wp_detect *d, struct wp_target *t)
{
	memset(t, 0, sizeof(*t));
	t->py_micro = -1;
	if (d->default_python >= 0 && (size_t)d->default_python < d->n_pythons) {
		const struct wp_detect_python *py = &d->pythons[d->default_python];
		snprintf(t->impl, sizeof(t->impl), "%.7s", impl_tag(py->impl));
		t->py_major = py->major;
		t->py_minor = py->minor;
		t->py_micro = py->micro;
		abi_from_soabi(py, t->abi, sizeof(t->abi));
	}
	bool none_yet = false;
	for (int i = 0; d->driver_state == WP_DRIVER_NONE_YET && i < d->n_gpus; i++)
		none_yet |= d->gpus[i].cc_major >= 0;
	if (none_yet) {
		/* a GPU and no driver: builds for the GPU, as the newest driver would run them; the
		 * pick says which driver they need */
		t->accel = WP_ACCEL_CUDA;
		t->driver_none_yet = true;
		wp_cuda_newest_known(&t->cuda_major, &t->cuda_minor);
	} else if (d->cuda_major) {
		t->accel = WP_ACCEL_CUDA;
		t->cuda_major = d->cuda_major;
		t->cuda_minor = d->cuda_minor;
		/* the driver itself decides what runs (minor-version compatibility needs its
		 * number) */
		struct wp_err e = WP_ERR_INIT;
		if (d->driver_version[0] && wp_driver_parse(d->driver_version, &t->driver, &e) == 0)
			t->driver_given = true;
	} else {
		/* ROCm builds are taken only when asked for (--rocm, or a profile:
		 * wp_detect_profile_target) */
		t->accel = WP_ACCEL_CPU;
	}
	if (d->rocm_major && d->n_gfx) {
		t->rocm_major = d->rocm_major;
		t->rocm_minor = d->rocm_minor;
	}
	for (int i = 0; i < d->n_gfx && t->n_gfx < WP_TARGET_MAX_GPUS; i++)
		snprintf(t->gfx[t->n_gfx++], sizeof(t->gfx[0]), "%s", d->gfx[i]);
	t->x86_64_level = d->x86_64_level;
	for (int i = 0; i < d->n_gpus && t->n_gpus < WP_TARGET_MAX_GPUS; i++)
		if (d->gpus[i].cc_major >= 0 && d->gpus[i].cc_minor >= 0 &&
		    d->gpus[i].cc_minor < 10)
			t->gpu_sm[t->n_gpus++] = d->gpus[i].cc_major * 10 + d->gpus[i].cc_minor;
	if (!strcmp(d->os, "Linux")) {
		t->glibc_major = d->glibc_major;
		t->glibc_minor = d->glibc_minor;
		t->musl_major = d->glibc_major ? 0 : d->musl_major;
		t->musl_minor = d->glibc_major ? 0 : d->musl_minor;
	}
	platform_tag(d, t->platform, sizeof(t->platform));
	return t->platform[0] ? 0 : -WPE_ENV;
}
