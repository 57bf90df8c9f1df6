/* resolver/target.c: a target from the user's words: --python, --cuda, --driver, --rocm, --xpu,
 * --platform, --gpu. */
#include "resolver/target.h"
#include "base/err.h"
#include "resolver/gpu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void wp_target_init(struct wp_target *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->impl, sizeof(t->impl), "cp");
	t->py_major = 3;
	t->py_minor = 12;
	t->py_micro = -1;
	snprintf(t->platform, sizeof(t->platform), "manylinux_2_28_x86_64");
	t->accel = WP_ACCEL_CPU;
}

/* "12", "12.4", "12.4.1": up to three small numbers; false on anything else. */
static bool numbers(const char *s, int *a, int *b, int *c)
{
	int n = 0, v[3] = { -1, -1, -1 };
	const char *p = s;
	while (n < 3) {
		if (!isdigit((unsigned char)*p))
			return false;
		long x = 0;
		for (int d = 0; isdigit((unsigned char)*p); p++, d++) {
			if (d >= 4)
				return false;
			x = x * 10 + (*p - '0');
		}
		v[n++] = (int)x;
		if (*p == 0)
			break;
		if (*p != '.')
			return false;
		p++;
	}
	if (*p)
		return false;
	*a = v[0];
	*b = v[1];
	if (c)
		*c = v[2];
	return true;
}

int wp_target_set_python(struct wp_target *t, const char *s, struct wp_err *err)
{
	int a = -1, b = -1, c = -1;
	char buf[32];
	const char *p = s;
	size_t n;
	bool threaded = false;
	if (!strncasecmp(p, "cp", 2) || !strncasecmp(p, "py", 2))
		p += 2;
	n = strlen(p);
	/* "3.13t": the free-threaded build, whose extension modules are tagged cp313t */
	if (n > 1 && n < sizeof(buf) && (p[n - 1] == 't' || p[n - 1] == 'T')) {
		memcpy(buf, p, n - 1);
		buf[n - 1] = 0;
		p = buf;
		n--;
		threaded = true;
	}
	if (strchr(p, '.')) {
		if (!numbers(p, &a, &b, &c))
			a = -1;
	} else if (n >= 2 && n <= 3 && strspn(p, "0123456789") == n) {
		/* "38" is 3.8 and "311" is 3.11, as in wheel tags */
		a = p[0] - '0';
		b = (int)strtol(p + 1, NULL, 10);
	}
	if (a < 2 || a > 3 || b < 0)
		return wp_fail(err, -WPE_USAGE,
			       "python version '%s' is not like 3.8, 3.10.4 or 3.13t", s);
	if (threaded && (a < 3 || (a == 3 && b < 13)))
		return wp_fail(err, -WPE_USAGE,
			       "python '%s': free-threaded builds exist from 3.13 (3.13t)", s);
	t->py_major = a;
	t->py_minor = b;
	t->py_micro = c;
	if (threaded)
		snprintf(t->abi, sizeof(t->abi), "cp%d%dt", a, b);
	else if (t->abi[0] && t->abi[strlen(t->abi) - 1] == 't')
		t->abi[0] = 0; /* a later --python 3.12 after 3.13t: the default ABI again */
	return 0;
}

int wp_target_set_cuda(struct wp_target *t, const char *s, struct wp_err *err)
{
	int a, b = 0;
	const char *p = s;
	if (!strcasecmp(s, "cpu") || !strcasecmp(s, "none")) {
		t->accel = WP_ACCEL_CPU;
		return 0;
	}
	if (!strncasecmp(p, "cu", 2) && isdigit((unsigned char)p[2]) && !strchr(p, '.')) {
		size_t n = strlen(p + 2); /* cu111 -> 11.1, cu92 -> 9.2 */
		if (n >= 2 && n <= 3 && strspn(p + 2, "0123456789") == n) {
			long x = strtol(p + 2, NULL, 10);
			a = (int)(x / 10);
			b = (int)(x % 10);
			goto ok;
		}
	} else if (numbers(p, &a, &b, NULL) && a >= 1 && a < 100) {
		if (b < 0)
			b = 0;
		goto ok;
	}
	return wp_fail(err, -WPE_USAGE, "CUDA version '%s' is not like 11.2, cu111, cpu or auto",
		       s);
ok:
	t->accel = WP_ACCEL_CUDA;
	t->cuda_major = a;
	t->cuda_minor = b;
	if (!t->driver_given)
		memset(&t->driver, 0, sizeof(t->driver)); /* wp_target_finish derives it */
	return 0;
}

int wp_target_set_driver(struct wp_target *t, const char *s, struct wp_err *err)
{
	int rc = wp_driver_parse(s, &t->driver, err);
	if (rc)
		return rc;
	t->driver_given = true;
	t->accel = WP_ACCEL_CUDA;
	t->cuda_major = t->cuda_minor = 0; /* from the driver, in wp_target_finish */
	return 0;
}

int wp_target_set_cuda_compat(struct wp_target *t, const char *s, struct wp_err *err)
{
	if (!strcasecmp(s, "strict"))
		t->cuda_strict = true;
	else if (!strcasecmp(s, "minor") || !strcasecmp(s, "minor-version"))
		t->cuda_strict = false;
	else
		return wp_fail(err, -WPE_USAGE,
			       "CUDA compatibility '%s' is not 'minor' (the default: NVIDIA's minor-version "
			       "compatibility) or 'strict' (no build newer than the driver's CUDA)",
			       s);
	return 0;
}

void wp_target_set_xpu(struct wp_target *t)
{
	t->accel = WP_ACCEL_XPU;
}

int wp_target_set_x86_64_level(struct wp_target *t, const char *s, struct wp_err *err)
{
	const char *p = s;
	if (!strncasecmp(p, "x86-64-", 7) || !strncasecmp(p, "x86_64_", 7))
		p += 7;
	if (*p == 'v' || *p == 'V')
		p++;
	if (p[0] < '1' || p[0] > '4' || p[1])
		return wp_fail(err, -WPE_USAGE, "x86-64 level '%s' is not one of v1, v2, v3, v4",
			       s);
	t->x86_64_level = p[0] - '0';
	return 0;
}

int wp_target_add_intel_ip(struct wp_target *t, const char *s, struct wp_err *err)
{
	char ip[16], compat[16];
	if (!wp_intel_device_ip(s, ip, compat))
		return wp_fail(err, -WPE_USAGE,
			       "Intel GPU '%s' is neither a device IP (20.1.0) nor a name intel-variant-provider "
			       "knows (bmg-g21, bmg-g31, lnl-m, dg2-g10, dg2-g11, dg2-g12, pvc, mtl-h, arl-h ...)",
			       s);
	for (int i = 0; i < t->n_intel_ips; i++)
		if (!strcmp(t->intel_ip[i], ip))
			return 0;
	if (t->n_intel_ips >= WP_TARGET_MAX_GPUS)
		return wp_fail(err, -WPE_USAGE, "more than %d Intel GPUs given",
			       WP_TARGET_MAX_GPUS);
	snprintf(t->intel_ip[t->n_intel_ips++], sizeof(t->intel_ip[0]), "%s", ip);
	t->accel = WP_ACCEL_XPU;
	return 0;
}

const char *wp_target_py_suffix(const struct wp_target *t)
{
	size_t n = strlen(t->abi);
	return n && t->abi[n - 1] == 't' ? "t" : "";
}

bool wp_target_is_windows(const struct wp_target *t)
{
	return !strncmp(t->platform, "win", 3);
}

int wp_target_finish(struct wp_target *t, struct wp_err *err)
{
	if (t->accel != WP_ACCEL_CUDA)
		return 0;
	bool win = wp_target_is_windows(t);
	if (t->driver_given && t->driver.nparts) {
		int M, m;
		if (wp_driver_newest_cuda(&t->driver, win, &M, &m) < 0)
			return wp_fail(err, -WPE_USAGE,
				       "driver %s is older than any CUDA wheelpick knows (7.0 needs 346.46)",
				       t->driver.text);
		/* --cuda with --driver: the driver decides, and a CUDA it cannot run is a
		 * contradiction */
		if (t->cuda_major &&
		    (t->cuda_major > M || (t->cuda_major == M && t->cuda_minor > m)))
			return wp_fail(err, -WPE_USAGE,
				       "driver %s runs CUDA %d.%d at most, not the CUDA %d.%d also given; "
				       "give one of them",
				       t->driver.text, M, m, t->cuda_major, t->cuda_minor);
		t->cuda_major = M;
		t->cuda_minor = m;
		return 0;
	}
	if (!t->driver.nparts &&
	    wp_driver_for_cuda(t->cuda_major, t->cuda_minor, win, &t->driver) < 0)
		memset(&t->driver, 0, sizeof(t->driver)); /* a CUDA version NVIDIA's table does not
							     have */
	return 0;
}

int wp_target_set_rocm(struct wp_target *t, const char *s, struct wp_err *err)
{
	int a, b;
	const char *p = !strncasecmp(s, "rocm", 4) ? s + 4 : s;
	if (!numbers(p, &a, &b, NULL) || b < 0)
		return wp_fail(err, -WPE_USAGE, "ROCm version '%s' is not like 5.7", s);
	t->accel = WP_ACCEL_ROCM;
	t->rocm_major = a;
	t->rocm_minor = b;
	return 0;
}

static bool tag_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof(((struct wp_target *)0)->platform))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-')
			return false;
	return true;
}

static const struct {
	const char *subdir, *platform;
} conda_subdirs[] = {
	{ "linux-64", "manylinux_2_17_x86_64" },   { "linux-aarch64", "manylinux_2_17_aarch64" },
	{ "linux-ppc64le", "manylinux_2_17_ppc64le" }, { "osx-64", "macosx_10_15_x86_64" },
	{ "osx-arm64", "macosx_11_0_arm64" },       { "win-64", "win_amd64" },
	{ "win-32", "win32" },                      { "noarch", "any" },
};

int wp_target_set_platform(struct wp_target *t, const char *s, struct wp_err *err)
{
	if (!tag_ok(s))
		return wp_fail(err, -WPE_USAGE,
			       "platform '%s' is not a wheel platform tag (manylinux_2_28_x86_64, win_amd64, macosx_11_0_arm64) "
			       "or a conda subdir (linux-64)",
			       s);
	for (size_t i = 0; i < sizeof(conda_subdirs) / sizeof(conda_subdirs[0]); i++) {
		if (!strcmp(s, conda_subdirs[i].subdir)) {
			snprintf(t->conda_subdir, sizeof(t->conda_subdir), "%s", s);
			snprintf(t->platform, sizeof(t->platform), "%s", conda_subdirs[i].platform);
			t->platform_exact = false;
			return 0;
		}
	}
	snprintf(t->platform, sizeof(t->platform), "%s", s);
	for (char *p = t->platform; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	/* pip's habit: --platform linux_x86_64 means exactly that tag */
	t->platform_exact = !strncmp(t->platform, "linux_", 6);
	t->conda_subdir[0] = 0;
	return 0;
}

int wp_target_add_gpu(struct wp_target *t, const char *s, struct wp_err *err)
{
	int sm, rc;
	if (!strncasecmp(s, "gfx", 3)) {
		/* an AMD architecture: gfx90a, gfx942, gfx1100 */
		size_t n = strlen(s);
		if (n < 5 || n >= sizeof(t->gfx[0]) ||
		    strspn(s + 3, "0123456789abcdefABCDEF") != n - 3)
			return wp_fail(err, -WPE_USAGE,
				       "AMD GPU '%s' is not an architecture like gfx90a, gfx942 or gfx1100",
				       s);
		for (int i = 0; i < t->n_gfx; i++)
			if (!strcasecmp(t->gfx[i], s))
				return 0;
		if (t->n_gfx >= WP_TARGET_MAX_GPUS)
			return wp_fail(err, -WPE_USAGE, "more than %d GPUs", WP_TARGET_MAX_GPUS);
		for (size_t i = 0; i <= n; i++)
			t->gfx[t->n_gfx][i] = (char)tolower((unsigned char)s[i]);
		t->n_gfx++;
		return 0;
	}
	if ((rc = wp_gpu_parse(s, &sm, err)) < 0)
		return rc;
	if (t->n_gpus >= WP_TARGET_MAX_GPUS)
		return wp_fail(err, -WPE_USAGE, "more than %d GPUs", WP_TARGET_MAX_GPUS);
	for (int i = 0; i < t->n_gpus; i++)
		if (t->gpu_sm[i] == sm)
			return 0;
	t->gpu_sm[t->n_gpus++] = sm;
	return 0;
}

bool wp_gpu_cuda_fits(const struct wp_target *t, int major, int minor, const char *label,
		      struct wp_buf *why)
{
	for (int g = 0; g < t->n_gpus; g++) {
		int lo_maj, lo_min, hi_maj, hi_min, sm = t->gpu_sm[g];
		if (wp_gpu_min_cuda(sm, &lo_maj, &lo_min) == 0 &&
		    (major < lo_maj || (major == lo_maj && minor < lo_min))) {
			if (why)
				wp_buf_printf(why,
					      "%s: CUDA %d.%d cannot run on sm_%d, which needs CUDA %d.%d or newer",
					      label, major, minor, sm, lo_maj, lo_min);
			return false;
		}
		if (wp_gpu_max_cuda(sm, &hi_maj, &hi_min) == 0 &&
		    (major > hi_maj || (major == hi_maj && minor > hi_min))) {
			if (why)
				wp_buf_printf(why,
					      "%s: CUDA %d.%d no longer builds for sm_%d (last: CUDA %d.%d)",
					      label, major, minor, sm, hi_maj, hi_min);
			return false;
		}
	}
	return true;
}

bool wp_target_runs_cuda(const struct wp_target *t, int major, int minor, enum wp_runs_how *how,
			 struct wp_buf *why)
{
	struct wp_driver d = t->driver;
	bool win = wp_target_is_windows(t);
	enum wp_runs_how h = WP_RUNS_NO;
	if (!how)
		how = &h;
	if (!d.nparts && wp_driver_for_cuda(t->cuda_major, t->cuda_minor, win, &d) < 0) {
		/* a CUDA version NVIDIA's table does not list: compare versions, without
		 * compatibility */
		bool ok = major < t->cuda_major ||
			  (major == t->cuda_major && minor <= t->cuda_minor);
		*how = ok ? WP_RUNS_NATIVE : WP_RUNS_NO;
		if (!ok && why)
			wp_buf_printf(why, "CUDA %d.%d is newer than the target's %d.%d", major,
				      minor, t->cuda_major, t->cuda_minor);
		return ok;
	}
	return wp_cuda_runs_on_driver(major, minor, &d, win, t->cuda_strict, how, why);
}

const char *wp_accel_word(enum wp_accel a)
{
	switch (a) {
	case WP_ACCEL_CUDA:
		return "cuda";
	case WP_ACCEL_ROCM:
		return "rocm";
	case WP_ACCEL_XPU:
		return "xpu";
	case WP_ACCEL_CPU:
		break;
	}
	return "cpu";
}
