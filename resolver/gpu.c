/* resolver/gpu.c: compute-capability and driver tables, transcribed from ../shared/data/nvidia/ (see PROVENANCE). */
#include "resolver/gpu.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/str.h"

/* CUDA versions as major * 10 + minor (every CUDA minor so far is one digit). */
#define CU(M, m) ((M) * 10 + (m))

struct sm_row {
	int sm;
	int min_cuda;  /* first toolkit that builds for it */
	int max_cuda;  /* last toolkit that builds for it; 0 = still supported */
};

/* Capabilities from gpu_compute_capabilities_nixpkgs.tsv. nixpkgs floors every old
 * architecture at its own oldest CUDA (10.0) and Ampere at 11.2, which would wrongly rule
 * out cu92 builds on a GTX 1080 or cu111 on an A100; the minimums here are the releases
 * that introduced each architecture (NVIDIA release notes; consistent with arrayfire's
 * Toolkit2MaxCompute table and PyTorch's own TORCH_CUDA_ARCH_LIST per CUDA, both in the
 * shared data), with 7.0 standing for "as old as any table here". DESIGN.md: sm_86 >= 11.1,
 * sm_89/sm_90 >= 11.8, sm_100/sm_120 >= 12.8. Maximums: CUDA 12.0 dropped Kepler (3.5, 3.7;
 * PyTorch built sm_37 up to cu118); CUDA 13.0 dropped Maxwell, Pascal and Volta (5.x, 6.x,
 * 7.0, 7.2) and renamed Thor's sm_101 to sm_110. sm_103 and sm_121 arrived in CUDA 12.9. */
static const struct sm_row sm_table[] = {
	{ 35, CU(7, 0), CU(11, 8) },
	{ 37, CU(7, 0), CU(11, 8) },
	{ 50, CU(7, 0), CU(12, 9) },
	{ 52, CU(7, 0), CU(12, 9) },
	{ 53, CU(7, 0), CU(12, 9) },
	{ 60, CU(8, 0), CU(12, 9) },
	{ 61, CU(8, 0), CU(12, 9) },
	{ 62, CU(8, 0), CU(12, 9) },
	{ 70, CU(9, 0), CU(12, 9) },
	{ 72, CU(10, 0), CU(12, 9) },
	{ 75, CU(10, 0), 0 },
	{ 80, CU(11, 0), 0 },
	{ 86, CU(11, 1), 0 },
	{ 87, CU(11, 5), 0 },
	{ 89, CU(11, 8), 0 },
	{ 90, CU(11, 8), 0 },
	{ 100, CU(12, 8), 0 },
	{ 101, CU(12, 8), CU(12, 9) },
	{ 103, CU(12, 9), 0 },
	{ 110, CU(13, 0), 0 },
	{ 120, CU(12, 8), 0 },
	{ 121, CU(12, 9), 0 },
};

struct driver_row {
	int cuda;
	const char *linux_min; /* the GA row of cuda_toolkit_driver_versions.tsv, Linux x86_64 */
};

/* Newest first; updates (12.8 Update 1 ...) need more, but the GA floor is what runs. */
static const struct driver_row driver_table[] = {
	{ CU(13, 1), "590.44.01" }, { CU(13, 0), "580.65.06" }, { CU(12, 9), "575.51.03" },
	{ CU(12, 8), "570.26" },    { CU(12, 6), "560.28.03" }, { CU(12, 5), "555.42.02" },
	{ CU(12, 4), "550.54.14" }, { CU(12, 3), "545.23.06" }, { CU(12, 2), "535.54.03" },
	{ CU(12, 1), "530.30.02" }, { CU(12, 0), "525.60.13" }, { CU(11, 8), "520.61.05" },
	{ CU(11, 7), "515.43.04" }, { CU(11, 6), "510.39.01" }, { CU(11, 5), "495.29.05" },
	{ CU(11, 4), "470.42.01" }, { CU(11, 3), "465.19.01" }, { CU(11, 2), "460.27.03" },
	{ CU(11, 1), "455.23" },    { CU(11, 0), "450.36.06" }, { CU(10, 2), "440.33" },
	{ CU(10, 1), "418.39" },    { CU(10, 0), "410.48" },    { CU(9, 2), "396.26" },
	{ CU(9, 1), "390.46" },     { CU(9, 0), "384.81" },     { CU(8, 0), "367.48" },
	{ CU(7, 5), "352.31" },     { CU(7, 0), "346.46" },
};

static bool digits_only(struct wp_str s, size_t max)
{
	if (!s.n || s.n > max)
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (!isdigit((unsigned char)s.p[i]))
			return false;
	return true;
}

int wp_gpu_sm_parse(const char *text, int *sm)
{
	struct wp_str s = wp_str_trim(WP_STR(text ? text : ""));
	long long v, minor;
	if (wp_str_startswith(s, "sm")) {
		size_t k = s.n > 2 && s.p[2] == '_' ? 3 : 2;
		s.p += k;
		s.n -= k;
	} else if (wp_str_startswith(s, "compute_")) {
		s.p += 8;
		s.n -= 8;
	}
	if (s.n && (s.p[s.n - 1] == 'a' || s.p[s.n - 1] == 'f'))
		s.n--;
	struct wp_str dot = s, major = wp_str_cut(&dot, '.');
	if (major.n != s.n) {
		/* "8.6", "12.0": one-digit minor */
		if (!digits_only(major, 2) || !digits_only(dot, 1) || !wp_str_to_ll(major, &v) ||
		    !wp_str_to_ll(dot, &minor) || v == 0)
			return -WPE_PARSE;
		*sm = (int)(v * 10 + minor);
		return 0;
	}
	/* "86", "120": the last digit is the minor */
	if (!digits_only(s, 3) || s.n < 2 || !wp_str_to_ll(s, &v) || v < 10)
		return -WPE_PARSE;
	*sm = (int)v;
	return 0;
}

static const struct sm_row *find_sm(int sm)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(sm_table); i++)
		if (sm_table[i].sm == sm)
			return &sm_table[i];
	return NULL;
}

int wp_gpu_min_cuda(int sm, int *major, int *minor)
{
	const struct sm_row *r = find_sm(sm);
	if (!r)
		return -WPE_NOMATCH;
	*major = r->min_cuda / 10;
	*minor = r->min_cuda % 10;
	return 0;
}

int wp_gpu_max_cuda(int sm, int *major, int *minor)
{
	const struct sm_row *r = find_sm(sm);
	if (!r)
		return -WPE_NOMATCH;
	if (!r->max_cuda)
		return 1;
	*major = r->max_cuda / 10;
	*minor = r->max_cuda % 10;
	return 0;
}

#define DRIVER_PARTS 4

/* "525.60.13" -> {525, 60, 13, 0}; false on anything but 1-4 dot-separated numbers. */
static bool parse_driver(const char *text, long long v[DRIVER_PARTS])
{
	struct wp_str s = wp_str_trim(WP_STR(text));
	memset(v, 0, sizeof(*v) * DRIVER_PARTS);
	size_t start = 0;
	int part = 0;
	for (size_t i = 0; i <= s.n; i++) {
		if (i < s.n && s.p[i] != '.')
			continue;
		struct wp_str num = WP_STRN(s.p + start, i - start);
		if (part == DRIVER_PARTS || !digits_only(num, 6) || !wp_str_to_ll(num, &v[part]))
			return false;
		part++;
		start = i + 1;
	}
	return true;
}

static int driver_cmp(const long long a[DRIVER_PARTS], const long long b[DRIVER_PARTS])
{
	for (int i = 0; i < DRIVER_PARTS; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

int wp_driver_max_cuda(const char *driver_version, int *major, int *minor)
{
	long long have[DRIVER_PARTS], need[DRIVER_PARTS];
	if (!driver_version || !parse_driver(driver_version, have))
		return -WPE_PARSE;
	for (size_t i = 0; i < WP_ARRAY_LEN(driver_table); i++) {
		parse_driver(driver_table[i].linux_min, need);
		if (driver_cmp(have, need) >= 0) {
			*major = driver_table[i].cuda / 10;
			*minor = driver_table[i].cuda % 10;
			return 0;
		}
	}
	return -WPE_NOMATCH;
}

int wp_cuda_min_driver(int major, int minor, const char **driver)
{
	if (minor < 0 || minor > 9)
		return -WPE_NOMATCH;
	const struct driver_row *best = NULL;
	for (size_t i = 0; i < WP_ARRAY_LEN(driver_table); i++) {
		const struct driver_row *r = &driver_table[i];
		if (r->cuda / 10 == major && r->cuda >= CU(major, minor))
			best = r; /* newest first: the last hit is the smallest that covers it */
	}
	if (!best)
		return -WPE_NOMATCH;
	*driver = best->linux_min;
	return 0;
}

bool wp_gpu_cuda_fits(const struct wp_target *t, int major, int minor, const char *label, struct wp_buf *why)
{
	for (int g = 0; g < t->n_gpus; g++) {
		int lo_maj, lo_min, hi_maj, hi_min, sm = t->gpu_sm[g];
		if (wp_gpu_min_cuda(sm, &lo_maj, &lo_min) == 0 && (major < lo_maj || (major == lo_maj && minor < lo_min))) {
			if (why)
				wp_buf_printf(why, "%s: CUDA %d.%d cannot run on sm_%d, which needs CUDA %d.%d or newer",
					      label, major, minor, sm, lo_maj, lo_min);
			return false;
		}
		if (wp_gpu_max_cuda(sm, &hi_maj, &hi_min) == 0 && (major > hi_maj || (major == hi_maj && minor > hi_min))) {
			if (why)
				wp_buf_printf(why, "%s: CUDA %d.%d no longer builds for sm_%d (last: CUDA %d.%d)", label,
					      major, minor, sm, hi_maj, hi_min);
			return false;
		}
	}
	return true;
}
