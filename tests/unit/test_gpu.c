/* tests/unit/test_gpu.c: GPUs, arch lists and drivers, against the NVIDIA tables vendored in
 * tests/fixtures/real/nvidia/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "resolver/data/tables.h"
#include "resolver/gpu.h"
#include "tests/unit/fixtures.h"


static size_t split_tab(char *line, char **cols, size_t max)
{
	static char empty[1];
	size_t n = 0;
	for (size_t i = 0; i < max; i++)
		cols[i] = empty; /* missing trailing columns read as "" */
	line[strcspn(line, "\r\n")] = 0;
	while (n < max) {
		cols[n++] = line;
		char *t = strchr(line, '\t');
		if (!t)
			break;
		*t = 0;
		line = t + 1;
	}
	return n;
}

/* "11.8" -> 118; -1 when not N.N */
static int cuda10(const char *s)
{
	int M, m, k = 0;
	if (sscanf(s, "%d.%d%n", &M, &m, &k) != 2 || m > 9)
		return -1;
	return M * 10 + m;
}

static void test_sm_parse(void **state)
{
	static const struct { const char *in; int sm; } ok[] = {
		{ "sm_86", 86 },      { "sm86", 86 },   { "8.6", 86 },   { "86", 86 },
		{ "compute_86", 86 }, { "sm_90a", 90 }, { "9.0a", 90 },  { "12.0", 120 },
		{ "sm_120", 120 },    { "10.0", 100 },  { " 7.5 ", 75 }, { "3.7", 37 },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(ok); i++) {
		int sm = -1;
		assert_int_equal(wp_gpu_sm_parse(ok[i].in, &sm), 0);
		assert_int_equal(sm, ok[i].sm);
	}
	static const char *const bad[] = { "",
					   "sm",
					   "sm_",
					   "8",
					   "8.",
					   ".6",
					   "8.66",
					   "0.5",
					   "1000",
					   "sm_8x6",
					   "abc",
					   "8.6.1",
					   "99999999999999999999",
					   "-86",
					   NULL };
	for (size_t i = 0; bad[i]; i++) {
		int sm = -1;
		if (wp_gpu_sm_parse(bad[i], &sm) != -WPE_PARSE) {
			print_error("'%s' was accepted as %d\n", bad[i], sm);
			fail();
		}
	}
	int sm;
	assert_int_equal(wp_gpu_sm_parse(NULL, &sm), -WPE_PARSE);
}

static void test_design_facts(void **state)
{
	static const struct { int sm, M, m; } min[] = {
		{ 86, 11, 1 },  { 89, 11, 8 }, { 90, 11, 8 }, { 100, 12, 8 },
		{ 120, 12, 8 }, { 80, 11, 0 }, { 61, 8, 0 },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(min); i++) {
		int M = -1, m = -1;
		assert_int_equal(wp_gpu_min_cuda(min[i].sm, &M, &m), 0);
		assert_int_equal(M, min[i].M);
		assert_int_equal(m, min[i].m);
	}
	int M = -1, m = -1;
	assert_int_equal(wp_gpu_max_cuda(37, &M, &m), 0);
	assert_true(M == 11 && m == 8);
	assert_int_equal(wp_gpu_max_cuda(61, &M, &m), 0);
	assert_true(M == 12 && m == 9);
	M = m = -1;
	assert_int_equal(wp_gpu_max_cuda(86, &M, &m), 1);
	assert_true(M == -1 && m == -1);
	assert_int_equal(wp_gpu_min_cuda(0, &M, &m), -WPE_NOMATCH);
	assert_int_equal(wp_gpu_min_cuda(99, &M, &m), -WPE_NOMATCH);
	assert_int_equal(wp_gpu_max_cuda(-5, &M, &m), -WPE_NOMATCH);
}

/* nixpkgs: every capability is known; min never later than nixpkgs' (which floors at its own
 * oldest CUDA), and equal where nixpkgs starts later than 11.2 (those are the real starts). */
static void test_nixpkgs_table(void **state)
{
	FILE *f = fixture_open("nvidia/gpu_compute_capabilities_nixpkgs.tsv");
	char line[2048], *c[8];
	int rows = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_true(split_tab(line, c, 8) >= 6);
		int sm, M, m;
		assert_int_equal(wp_gpu_sm_parse(c[1], &sm), 0);
		assert_int_equal(wp_gpu_min_cuda(sm, &M, &m), 0);
		int nix_min = cuda10(c[3]);
		assert_true(nix_min > 0);
		if (M * 10 + m > nix_min) {
			print_error("sm %d: min %d.%d, nixpkgs says %s\n", sm, M, m, c[3]);
			fail();
		}
		/* "9.0a" rows name arch-specific code (CUDA 12.0+), not a different GPU */
		if (nix_min > 112 && c[1][strlen(c[1]) - 1] != 'a')
			assert_int_equal(M * 10 + m, nix_min);
		/* nixpkgs' Kepler maximum is where it stops offering Kepler; CUDA 11.8 still builds
		 * it */
		int nix_max = cuda10(c[5]);
		if (nix_max > 0) {
			assert_int_equal(wp_gpu_max_cuda(sm, &M, &m), 0);
			assert_int_equal(M * 10 + m, nix_max);
		}
		rows++;
	}
	fclose(f);
	assert_true(rows >= 20);
}

/* arrayfire: a toolkit whose maximum capability is X builds every capability <= X we know
 * of, unless that capability was already dropped. */
static void test_arrayfire_table(void **state)
{
	FILE *f = fixture_open("nvidia/cuda_toolkit_max_compute_capability_arrayfire.tsv");
	static const int sms[] = { 35, 37, 50, 52, 60, 61, 70, 75, 80, 86, 89, 90 };
	char line[2048], *c[6];
	int rows = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_true(split_tab(line, c, 6) >= 4);
		int cuda = cuda10(c[0]);
		int max_sm = (int)strtol(c[2], NULL, 10) * 10 + (int)strtol(c[3], NULL, 10);
		for (size_t i = 0; i < WP_ARRAY_LEN(sms); i++) {
			int M, m;
			if (sms[i] > max_sm)
				continue;
			assert_int_equal(wp_gpu_min_cuda(sms[i], &M, &m), 0);
			if (M * 10 + m > cuda) {
				print_error("arrayfire: CUDA %s builds sm %d, table says from %d.%d\n",
					    c[0], sms[i], M, m);
				fail();
			}
		}
		rows++;
	}
	fclose(f);
	assert_true(rows >= 25);
}

/* PyTorch's own TORCH_CUDA_ARCH_LIST per CUDA: every listed arch is inside [min, max]. */
static void test_pytorch_arch_lists(void **state)
{
	FILE *f = fixture_open("nvidia/pytorch_official_build_cuda_arch_lists.tsv");
	char line[4096], *c[5];
	int checked = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_true(split_tab(line, c, 5) >= 3);
		/* notes after " (" list removed arches; "Maxwell(5.0)" keeps its number */
		char *note = strstr(c[2], " (");
		if (note)
			*note = 0;
		int cudas[8], nc = 0;
		for (char *p = c[1]; *p && nc < 8; p++) {
			if (isdigit((unsigned char)*p) &&
			    (p == c[1] || !isdigit((unsigned char)p[-1]))) {
				int v = cuda10(p);
				if (v > 0)
					cudas[nc++] = v;
				while (isdigit((unsigned char)*p) || *p == '.')
					p++;
				p--;
			}
		}
		for (char *p = c[2]; *p; p++) {
			if (!isdigit((unsigned char)*p) ||
			    (p > c[2] && (isdigit((unsigned char)p[-1]) || p[-1] == '.')))
				continue;
			int arch = cuda10(p);
			if (arch < 0)
				continue;
			for (int k = 0; k < nc; k++) {
				int M = 0, m = 0, rc;
				assert_int_equal(wp_gpu_min_cuda(arch, &M, &m), 0);
				assert_true(M * 10 + m <= cudas[k]);
				rc = wp_gpu_max_cuda(arch, &M, &m);
				assert_true(rc == 1 || (rc == 0 && M * 10 + m >= cudas[k]));
				checked++;
			}
		}
	}
	fclose(f);
	assert_true(checked > 200);
}

/* Expected answers computed here from the TSV rows themselves. */
struct drow {
	int cuda;
	int v[4];
};

static int dcmp(const int a[4], const int b[4])
{
	for (int i = 0; i < 4; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static void test_driver_table(void **state)
{
	FILE *f = fixture_open("nvidia/cuda_toolkit_driver_versions.tsv");
	struct drow rows[128];
	char names[128][32];
	int n = 0;
	char line[4096], *c[7];
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f) && n < 128) {
		assert_true(split_tab(line, c, 7) >= 3);
		rows[n].cuda = cuda10(c[1]);
		memset(rows[n].v, 0, sizeof(rows[n].v));
		assert_true(sscanf(c[2], "%d.%d.%d", &rows[n].v[0], &rows[n].v[1], &rows[n].v[2]) >=
			    2);
		snprintf(names[n], sizeof(names[n]), "%s", c[2]);
		n++;
	}
	fclose(f);
	assert_true(n >= 55);
	for (int i = 0; i < n; i++) {
		int want = -1, floor_i = -1;
		for (int j = 0; j < n; j++) {
			if (dcmp(rows[j].v, rows[i].v) <= 0 && rows[j].cuda > want)
				want = rows[j].cuda;
			if (rows[j].cuda == rows[i].cuda &&
			    (floor_i < 0 || dcmp(rows[j].v, rows[floor_i].v) < 0))
				floor_i = j;
		}
		int M = -1, m = -1;
		assert_int_equal(wp_driver_max_cuda(names[i], &M, &m), 0);
		if (M * 10 + m != want) {
			print_error("driver %s: got %d.%d, want %d\n", names[i], M, m, want);
			fail();
		}
		const char *drv = NULL;
		assert_int_equal(wp_cuda_min_driver(rows[i].cuda / 10, rows[i].cuda % 10, &drv), 0);
		assert_string_equal(drv, names[floor_i]);
	}
}

static void test_driver_edges(void **state)
{
	int M = -1, m = -1;
	assert_int_equal(wp_driver_max_cuda("460.27.03", &M, &m), 0);
	assert_true(M == 11 && m == 2);
	assert_int_equal(wp_driver_max_cuda("460.27.02", &M, &m), 0);
	assert_true(M == 11 && m == 1);
	assert_int_equal(wp_driver_max_cuda("455.23", &M, &m), 0);
	assert_true(M == 11 && m == 1);
	assert_int_equal(wp_driver_max_cuda(" 535.104.05\n", &M, &m), 0);
	assert_true(M == 12 && m == 2);
	assert_int_equal(wp_driver_max_cuda("999", &M, &m), 0);
	assert_true(M == 13 && m == 1);
	assert_int_equal(wp_driver_max_cuda("340.108", &M, &m), -WPE_NOMATCH);
	static const char *const bad[] = { "",        "abc",   "460.",      ".460",
					   "460..27", "460.x", "1.2.3.4.5", "4600000000.1",
					   "460-27",  NULL };
	for (int i = 0; bad[i]; i++)
		assert_int_equal(wp_driver_max_cuda(bad[i], &M, &m), -WPE_PARSE);
	assert_int_equal(wp_driver_max_cuda(NULL, &M, &m), -WPE_PARSE);

	const char *d = NULL;
	assert_int_equal(wp_cuda_min_driver(12, 7, &d), 0);
	assert_string_equal(d, "570.26");
	assert_int_equal(wp_cuda_min_driver(11, 1, &d), 0);
	assert_string_equal(d, "455.23");
	assert_int_equal(wp_cuda_min_driver(13, 5, &d), -WPE_NOMATCH);
	assert_int_equal(wp_cuda_min_driver(6, 5, &d), -WPE_NOMATCH);
	assert_int_equal(wp_cuda_min_driver(11, 10, &d), -WPE_NOMATCH);
}

/* The Windows column: the newest CUDA of each Windows driver in the table, and each minor's
 * floor. */
static void test_driver_table_windows(void **state)
{
	FILE *f = fixture_open("nvidia/cuda_toolkit_driver_versions.tsv");
	struct drow rows[128];
	char names[128][32];
	int n = 0;
	char line[4096], *c[7];
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f) && n < 128) {
		assert_true(split_tab(line, c, 7) >= 4);
		if (!strcmp(c[3], "N/A"))
			continue;
		rows[n].cuda = cuda10(c[1]);
		memset(rows[n].v, 0, sizeof(rows[n].v));
		assert_true(sscanf(c[3], "%d.%d.%d", &rows[n].v[0], &rows[n].v[1], &rows[n].v[2]) >=
			    2);
		snprintf(names[n], sizeof(names[n]), "%s", c[3]);
		n++;
	}
	fclose(f);
	assert_true(n >= 50);
	for (int i = 0; i < n; i++) {
		int want = -1, floor_i = -1;
		for (int j = 0; j < n; j++) {
			if (dcmp(rows[j].v, rows[i].v) <= 0 && rows[j].cuda > want)
				want = rows[j].cuda;
			if (rows[j].cuda == rows[i].cuda &&
			    (floor_i < 0 || dcmp(rows[j].v, rows[floor_i].v) < 0))
				floor_i = j;
		}
		struct wp_driver d;
		int M = -1, m = -1;
		assert_int_equal(wp_driver_parse(names[i], &d, NULL), 0);
		assert_int_equal(wp_driver_newest_cuda(&d, true, &M, &m), 0);
		if (M * 10 + m != want) {
			print_error("windows driver %s: got %d.%d, want %d\n", names[i], M, m,
				    want);
			fail();
		}
		const char *drv = NULL;
		assert_int_equal(wp_cuda_min_driver_os(rows[i].cuda / 10, rows[i].cuda % 10, true,
						       &drv),
				 0);
		assert_string_equal(drv, names[floor_i]);
	}
}

/* The minor-version compatibility floors, from the vendored table's rows for 11.1-11.8, 12.x,
 * 13.x. */
static void test_minor_compat_table(void **state)
{
	FILE *f = fixture_open("nvidia/cuda_minor_version_compat_min_driver.tsv");
	char line[4096], *c[7];
	int checked = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_true(split_tab(line, c, 7) >= 4);
		/* the rows whose range spans minors are the compatibility ones; the others are
		 * toolkit minimums */
		if (!strchr(c[1], '-') && strcmp(c[1], "13.x"))
			continue;
		int major = (int)strtol(c[0], NULL, 10);
		const char *d = NULL;
		assert_int_equal(wp_cuda_compat_min_driver(major, false, &d), 0);
		assert_string_equal(d, c[2]);
		assert_int_equal(wp_cuda_compat_min_driver(major, true, &d), 0);
		if (strcmp(c[3], "N/A"))
			assert_string_equal(d, c[3]);
		else
			assert_string_equal(d, c[2]); /* 13.x: the same r580 floor */
		checked++;
	}
	fclose(f);
	assert_int_equal(checked, 3);
	const char *d;
	assert_int_equal(wp_cuda_compat_min_driver(10, false, &d), -WPE_NOMATCH);
}

static void test_gpu_parse_archs(void **state)
{
	static const struct { const char *in; int sm; } ok[] = {
		{ "sm_86", 86 },      { "8.6", 86 },   { "86", 86 },      { "sm_90a", 90 },
		{ "compute_90", 90 }, { "12.0", 120 }, { "sm_121", 121 }, { "11.0", 110 },
		{ "3.5", 35 },        { " 7.5 ", 75 }, { "sm_87", 87 },   { "10.3", 103 },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(ok); i++) {
		struct wp_err err = WP_ERR_INIT;
		int sm = -1;
		assert_int_equal(wp_gpu_parse(ok[i].in, &sm, &err), 0);
		assert_int_equal(sm, ok[i].sm);
		assert_int_equal(err.code, 0);
	}
	struct wp_err err = WP_ERR_INIT;
	int sm = -1;
	assert_int_equal(wp_gpu_parse("sm_99", &sm, &err), -WPE_USAGE);
	assert_string_equal(err.msg,
			    "unknown GPU architecture 'sm_99'; known near it: sm_90, sm_100, sm_101, sm_103");
	wp_err_clear(&err);
	assert_int_equal(wp_gpu_parse("sm_20", &sm, &err), -WPE_USAGE);
	assert_string_equal(err.msg,
			    "unknown GPU architecture 'sm_20'; known near it: sm_35, sm_37, sm_50, sm_52");
	wp_err_clear(&err);
	assert_int_equal(wp_gpu_parse("3.0", &sm, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "'3.0'; known near it: sm_35"));
	wp_err_clear(&err);
	assert_int_equal(wp_gpu_parse("sm_8x6", &sm, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "invalid GPU architecture 'sm_8x6'"));
	wp_err_clear(&err);
	assert_int_equal(wp_gpu_parse(NULL, &sm, &err), -WPE_USAGE);
	assert_int_equal(sm, -1);
	assert_string_equal(wp_gpu_family(86), "Ampere");
	assert_string_equal(wp_gpu_family(120), "Blackwell");
	assert_null(wp_gpu_family(99));
}

static void test_gpu_parse_names(void **state)
{
	static const struct { const char *in; int sm; } ok[] = {
		{ "RTX 3090", 86 },
		{ "rtx3090", 86 },
		{ "NVIDIA GeForce RTX 3090", 86 },
		{ "RTX-3090", 86 },
		{ "GeForce RTX 3090 Ti", 86 },
		{ "rtx3090ti", 86 },
		{ "A100", 80 },
		{ "a100", 80 },
		{ "A100-SXM4-80GB", 80 },
		{ "NVIDIA A100-SXM4-40GB", 80 },
		{ "NVIDIA A100 80GB PCIe", 80 },
		{ "NVIDIA A100-PCIE-40GB", 80 },
		{ "H100", 90 },
		{ "NVIDIA H100 80GB HBM3", 90 },
		{ "H100 PCIe", 90 },
		{ "NVIDIA H100 NVL", 90 },
		{ "H200", 90 },
		{ "NVIDIA H800", 90 },
		{ "NVIDIA GH200 480GB", 90 },
		{ "Tesla K40", 35 },
		{ "Tesla K80", 37 },
		{ "K80", 37 },
		{ "Tesla P100-PCIE-16GB", 60 },
		{ "Tesla V100-SXM2-16GB", 70 },
		{ "V100", 70 },
		{ "Tesla T4", 75 },
		{ "T4", 75 },
		{ "NVIDIA T4", 75 },
		{ "A10", 86 },
		{ "NVIDIA A10G", 86 },
		{ "A30", 80 },
		{ "A40", 86 },
		{ "NVIDIA A800-SXM4-80GB", 80 },
		{ "L4", 89 },
		{ "NVIDIA L40", 89 },
		{ "NVIDIA L40S", 89 },
		{ "B100", 100 },
		{ "NVIDIA B200", 100 },
		{ "NVIDIA GB200", 100 },
		{ "B300", 103 },
		{ "GeForce GTX 1080", 61 },
		{ "GTX 1080 Ti", 61 },
		{ "GeForce GTX 1050 Ti", 61 },
		{ "NVIDIA GeForce GTX 1660 SUPER", 75 },
		{ "GTX 1650", 75 },
		{ "GeForce GTX 1660 Ti with Max-Q Design", 75 },
		{ "RTX 2080 Ti", 75 },
		{ "RTX 2070 Super", 75 },
		{ "GeForce RTX 2060 12GB", 75 },
		{ "RTX 3060 Laptop GPU", 86 },
		{ "RTX 4090", 89 },
		{ "RTX 4070 Ti SUPER", 89 },
		{ "RTX 4090 D", 89 },
		{ "RTX 4060", 89 },
		{ "RTX 5090", 120 },
		{ "NVIDIA GeForce RTX 5070 Ti", 120 },
		{ "TITAN V", 70 },
		{ "NVIDIA TITAN RTX", 75 },
		{ "TITAN Xp", 61 },
		{ "NVIDIA TITAN X (Pascal)", 61 },
		{ "GeForce GTX TITAN X", 52 },
		{ "Quadro RTX 6000", 75 },
		{ "Quadro RTX 5000 with Max-Q Design", 75 },
		{ "NVIDIA RTX A6000", 86 },
		{ "RTX A4000", 86 },
		{ "NVIDIA RTX A2000 12GB", 86 },
		{ "NVIDIA RTX 6000 Ada Generation", 89 },
		{ "NVIDIA RTX 4000 SFF Ada Generation", 89 },
		{ "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 120 },
		{ "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 120 },
		{ "NVIDIA RTX PRO 6000 Blackwell Server Edition", 120 },
		{ "Jetson AGX Orin", 87 },
		{ "Orin", 87 },
		{ "jetson orin nano", 87 },
		{ "Jetson AGX Xavier", 72 },
		{ "Jetson Nano", 53 },
		{ "Jetson TX2", 62 },
		{ "NVIDIA A2 Tensor Core GPU", 86 },
		{ "H100 Tensor Core GPU", 90 },
		{ "Jetson AGX Thor", 110 },
		{ "Thor", 110 },
		{ "NVIDIA GB10", 121 },
		{ "DGX Spark", 121 },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(ok); i++) {
		struct wp_err err = WP_ERR_INIT;
		int sm = -1;
		if (wp_gpu_parse(ok[i].in, &sm, &err) != 0 || sm != ok[i].sm) {
			print_error("'%s': got %d (%s), want %d\n", ok[i].in, sm, err.msg,
				    ok[i].sm);
			fail();
		}
	}
	/* not a known product, or ambiguous: each is a usage error naming nearby names */
	static const char *const bad[] = { "RTX 3090x", "rtx3090x", "A1000",      "RTX 6000",
					   "H100X",     "A10 0",    "Radeon VII", "GTX 1080 Rev. A",
					   "NVIDIA",    "Tesla",    "-",          NULL };
	for (size_t i = 0; bad[i]; i++) {
		struct wp_err err = WP_ERR_INIT;
		int sm = -1;
		if (wp_gpu_parse(bad[i], &sm, &err) != -WPE_USAGE) {
			print_error("'%s' was accepted as %d\n", bad[i], sm);
			fail();
		}
		assert_int_equal(sm, -1);
		assert_non_null(strstr(err.msg, bad[i]));
	}
	struct wp_err err = WP_ERR_INIT;
	int sm;
	assert_int_equal(wp_gpu_parse("RTX 3090x", &sm, &err), -WPE_USAGE);
	assert_string_equal(err.msg,
			    "unknown GPU 'RTX 3090x'; known names near it: GeForce RTX 3090, GeForce RTX 3050, "
			    "GeForce RTX 3060, GeForce RTX 3070 (or give its architecture: sm_86, 8.6)");
	/* issue 27: a Ti or SUPER model that does not exist is no form factor of its base */
	wp_err_clear(&err);
	assert_int_equal(wp_gpu_parse("RTX 5090 Ti", &sm, &err), -WPE_USAGE);
	assert_non_null(
		strstr(err.msg,
		       "unknown GPU 'RTX 5090 Ti'; known names near it: GeForce RTX 5090, "));
	wp_err_clear(&err);
	assert_int_equal(wp_gpu_parse("GeForce RTX 4080 Ti", &sm, &err), -WPE_USAGE);
	assert_int_equal(wp_gpu_parse("RTX 4080 SUPER", &sm, NULL), 0);
	assert_int_equal(sm, 89);
	wp_err_clear(&err);
	assert_int_equal(wp_gpu_parse("RTX 6000", &sm, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "Quadro RTX 6000"));
	assert_non_null(strstr(err.msg, "RTX 6000 Ada"));
}

/* nixpkgs' example GPUs that name one product resolve to that row's capability. */
static void test_nixpkgs_names(void **state)
{
	FILE *f = fixture_open("nvidia/gpu_compute_capabilities_nixpkgs.tsv");
	char line[2048], *c[8];
	int checked = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_true(split_tab(line, c, 8) >= 7);
		int want;
		assert_int_equal(wp_gpu_sm_parse(c[1], &want), 0);
		if (c[1][strlen(c[1]) - 1] == 'a')
			continue;
		for (char *save = NULL, *e = strtok_r(c[6], ",", &save); e;
		     e = strtok_r(NULL, ",", &save)) {
			while (*e == ' ')
				e++;
			char *dash = strstr(e, " - "); /* "GA102 - RTX 3090", "GTX/RTX Turing - GTX
							  1660 Ti" */
			if (dash)
				e = dash + 3;
			/* families, boards and chips, not products; and "RTX 6000", which names
			 * three cards */
			if (strpbrk(e, "(/") || strstr(e, "series") || strstr(e, "Drive") ||
			    strstr(e, "DGX") || strstr(e, "Discrete") || strstr(e, "Integrated") ||
			    !strcmp(e, "NVIDIA Blackwell") || !strcmp(e, "RTX 6000") ||
			    !strcmp(e, "Tesla GA10x cards") || !strcmp(e, "GeForce 900") ||
			    !strcmp(e, "Xavier NX") || strstr(e, "Accelerated"))
				continue;
			struct wp_err err = WP_ERR_INIT;
			int sm = -1;
			if (wp_gpu_parse(e, &sm, &err) != 0 || sm != want) {
				print_error("nixpkgs '%s' (%s): got %d (%s)\n", e, c[1], sm,
					    err.msg);
				fail();
			}
			checked++;
		}
	}
	fclose(f);
	print_message("nixpkgs names checked: %d\n", checked);
	assert_true(checked >= 40);
}

static struct wp_arch_list list_of(const char *text)
{
	struct wp_arch_list l;
	struct wp_err err = WP_ERR_INIT;
	if (wp_arch_list_parse(text, &l, &err)) {
		print_error("%s\n", err.msg);
		fail();
	}
	return l;
}

static void test_arch_list_parse(void **state)
{
	struct wp_buf b = WP_BUF_INIT;
	struct wp_arch_list l = list_of("7.5;8.0;8.6;9.0;10.0;12.0+PTX");
	assert_int_equal(l.n, 7);
	wp_arch_list_format(&l, &b);
	assert_string_equal(b.data, "7.5, 8.0, 8.6, 9.0, 10.0, 12.0+PTX");
	/* PEP 825 nvidia sm_arch values, in the order torch-2.8.0-variants.json lists cu129's */
	l = list_of("100_real, 120_real, 120_virtual, 75_real, 80_real, 86_real, 90_real");
	wp_buf_reset(&b);
	wp_arch_list_format(&l, &b);
	assert_string_equal(b.data, "7.5, 8.0, 8.6, 9.0, 10.0, 12.0+PTX");
	l = list_of("sm_80 sm_90a compute_90 9.0a 8.0 120_virtual 3.7;5.0");
	wp_buf_reset(&b);
	wp_arch_list_format(&l, &b);
	assert_string_equal(b.data, "3.7, 5.0, 8.0, 9.0 (PTX only), 9.0a, 12.0 (PTX only)");
	l = list_of("");
	assert_int_equal(l.n, 0);
	static const char *const bad[] = {
		"8.x", "sm_", "+PTX", "80_realx", "abc", "8.6;;9.x", NULL
	};
	for (size_t i = 0; bad[i]; i++) {
		struct wp_err err = WP_ERR_INIT;
		assert_int_equal(wp_arch_list_parse(bad[i], &l, &err), -WPE_PARSE);
		assert_non_null(strstr(err.msg, "invalid arch list entry"));
	}
	struct wp_buf many = WP_BUF_INIT;
	for (int i = 10; i < 10 + WP_ARCH_LIST_MAX + 1; i++)
		wp_buf_printf(&many, "%d;", i);
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_arch_list_parse(many.data, &l, &err), -WPE_TOO_BIG);
	wp_buf_free(&many);
	wp_buf_free(&b);
}

static void test_arch_list_serves(void **state)
{
	struct wp_buf why = WP_BUF_INIT;
	/* sm_86 runs sm_80 SASS; sm_80 does not run sm_86 SASS; another major never */
	struct wp_arch_list l = list_of("8.0");
	assert_true(wp_arch_list_serves(&l, 86, false, NULL));
	assert_true(wp_arch_list_serves(&l, 89, false, NULL));
	assert_false(wp_arch_list_serves(&l, 75, true, NULL));
	assert_false(wp_arch_list_serves(&l, 90, false, NULL));
	l = list_of("8.6");
	assert_false(wp_arch_list_serves(&l, 80, true, NULL));
	/* arch-specific code serves only that arch */
	l = list_of("9.0a;10.0a");
	assert_true(wp_arch_list_serves(&l, 90, false, NULL));
	assert_false(wp_arch_list_serves(&l, 89, true, NULL));
	assert_false(wp_arch_list_serves(&l, 100 + 3, true, NULL));
	assert_false(wp_arch_list_serves(&l, 120, true, NULL));
	assert_true(wp_arch_list_serves(&l, 100, false, NULL));
	/* PTX serves newer GPUs only when the driver can JIT it */
	l = list_of("7.5;8.0;9.0+PTX");
	l.cuda_major = 12;
	l.cuda_minor = 8;
	assert_true(wp_arch_list_serves(&l, 120, true, NULL));
	assert_false(wp_arch_list_serves(&l, 120, false, &why));
	assert_string_equal(why.data,
			    "no kernels for sm_120 (built for 7.5, 8.0, 9.0+PTX); its PTX for 9.0 needs a "
			    "driver for CUDA 12.8 or newer to be JIT-compiled");
	assert_false(wp_arch_list_serves(&l, 70, true, NULL)); /* PTX never runs on an older GPU */
	/* the example message */
	l = list_of("7.0;7.5;8.0;8.6;9.0;10.0;12.0");
	wp_buf_reset(&why);
	assert_false(wp_arch_list_serves(&l, 61, true, &why));
	assert_string_equal(why.data,
			    "no kernels for sm_61 (built for 7.0, 7.5, 8.0, 8.6, 9.0, 10.0, 12.0)");
	l = list_of("");
	wp_buf_reset(&why);
	assert_false(wp_arch_list_serves(&l, 86, true, &why));
	assert_string_equal(why.data, "no kernels for sm_86 (the build lists no architectures)");
	wp_buf_free(&why);
}

static struct wp_driver drv(const char *text)
{
	struct wp_driver d;
	struct wp_err err = WP_ERR_INIT;
	if (wp_driver_parse(text, &d, &err)) {
		print_error("%s\n", err.msg);
		fail();
	}
	return d;
}

static void test_driver_parse_cmp(void **state)
{
	struct wp_driver a = drv("535.104.05"), b = drv(" 535.104.5\n"), c = drv("580"),
			 d = drv("580.0");
	assert_int_equal(a.nparts, 3);
	assert_int_equal(a.part[1], 104);
	assert_string_equal(a.text, "535.104.05");
	assert_string_equal(b.text, "535.104.5");
	assert_int_equal(wp_driver_cmp(&a, &b), 0);
	assert_int_equal(wp_driver_cmp(&c, &d), 0);
	assert_true(wp_driver_cmp(&a, &c) < 0);
	assert_true(wp_driver_cmp(&c, &a) > 0);
	static const char *const bad[] = { "",          "abc",        "535.",    ".535", "535..1",
					   "1.2.3.4.5", "5350000000", "535-104", NULL };
	for (size_t i = 0; bad[i]; i++) {
		struct wp_err err = WP_ERR_INIT;
		struct wp_driver x;
		assert_int_equal(wp_driver_parse(bad[i], &x, &err), -WPE_USAGE);
		assert_non_null(strstr(err.msg, "invalid driver version"));
	}
	struct wp_driver x;
	assert_int_equal(wp_driver_parse(NULL, &x, NULL), -WPE_USAGE);
	/* --cuda X.Y is the oldest driver of X.Y */
	assert_int_equal(wp_driver_for_cuda(11, 0, false, &x), 0);
	assert_string_equal(x.text, "450.36.06");
	assert_int_equal(wp_driver_for_cuda(12, 4, false, &x), 0);
	assert_string_equal(x.text, "550.54.14");
	assert_int_equal(wp_driver_for_cuda(12, 8, true, &x), 0);
	assert_string_equal(x.text, "570.65");
	assert_int_equal(wp_driver_for_cuda(14, 0, false, &x), -WPE_NOMATCH);
}

static void test_windows_minimums(void **state)
{
	const char *d = NULL;
	assert_int_equal(wp_cuda_min_driver_os(12, 8, true, &d), 0);
	assert_string_equal(d, "570.65");
	assert_int_equal(wp_cuda_min_driver_os(11, 1, true, &d), 0);
	assert_string_equal(d, "456.38");
	assert_int_equal(wp_cuda_min_driver_os(12, 0, true, &d), 0);
	assert_string_equal(d, "527.41");
	assert_int_equal(wp_cuda_min_driver_os(13, 0, true, &d), 0);
	assert_string_equal(d, "580");
	assert_int_equal(wp_cuda_min_driver_os(13, 1, true, &d), -WPE_NOMATCH); /* N/A in NVIDIA's
										   table */
	assert_int_equal(wp_cuda_min_driver_os(13, 1, false, &d), 0);
	assert_string_equal(d, "590.44.01");
	assert_int_equal(wp_cuda_compat_min_driver(11, true, &d), 0);
	assert_string_equal(d, "452.39");
	assert_int_equal(wp_cuda_compat_min_driver(12, true, &d), 0);
	assert_string_equal(d, "528.33");
	struct wp_driver w = drv("551.61");
	int M, m;
	assert_int_equal(wp_driver_newest_cuda(&w, true, &M, &m), 0);
	assert_true(M == 12 && m == 4);
	w = drv("551.60");
	assert_int_equal(wp_driver_newest_cuda(&w, true, &M, &m), 0);
	assert_true(M == 12 && m == 3);
	w = drv("581.15");
	assert_int_equal(wp_driver_newest_cuda(&w, true, &M, &m), 0);
	assert_true(M == 13 && m == 0);
	/* a Windows 12.8 driver runs cu128; the Linux floor number would not be enough on
	 * Windows */
	w = drv("570.26");
	assert_false(wp_cuda_runs_on_driver(12, 8, &w, true, true, NULL, NULL));
	assert_true(wp_cuda_runs_on_driver(12, 8, &w, false, true, NULL, NULL));
	/* Windows 11.x minor-version compatibility starts at 452.39 */
	w = drv("451.82");
	assert_false(wp_cuda_runs_on_driver(11, 1, &w, true, false, NULL, NULL));
	w = drv("452.39");
	assert_true(wp_cuda_runs_on_driver(11, 1, &w, true, false, NULL, NULL));
}

static void test_runs_on_driver(void **state)
{
	struct wp_buf why = WP_BUF_INIT;
	enum wp_runs_how how;
	/* 12.4's driver runs a cu128 build by minor-version compatibility, not natively; strict
	 * refuses it */
	struct wp_driver d = drv("550.54.14");
	assert_true(wp_cuda_runs_on_driver(12, 8, &d, false, false, &how, NULL));
	assert_int_equal(how, WP_RUNS_MINOR_COMPAT);
	assert_string_equal(wp_runs_how_name(how), "minor-version compatibility");
	assert_true(wp_cuda_runs_on_driver(12, 4, &d, false, false, &how, NULL));
	assert_int_equal(how, WP_RUNS_NATIVE);
	assert_string_equal(wp_runs_how_name(how), "same or older CUDA");
	assert_true(wp_cuda_runs_on_driver(11, 8, &d, false, true, &how, NULL));
	assert_int_equal(how, WP_RUNS_NATIVE);
	assert_false(wp_cuda_runs_on_driver(12, 8, &d, false, true, &how, &why));
	assert_int_equal(how, WP_RUNS_NO);
	assert_string_equal(why.data,
			    "CUDA 12.8 needs driver 570.26 or newer (strict: no minor-version compatibility); "
			    "driver 550.54.14 supports CUDA 12.4");
	/* --cuda 11.0 (450.36.06) is below 11.x's compatibility floor: no cu111 */
	struct wp_driver cuda110;
	assert_int_equal(wp_driver_for_cuda(11, 0, false, &cuda110), 0);
	wp_buf_reset(&why);
	assert_false(wp_cuda_runs_on_driver(11, 1, &cuda110, false, false, &how, &why));
	assert_string_equal(why.data,
			    "CUDA 11.1 needs driver 455.23 or newer, or 450.80.02 for minor-version "
			    "compatibility; driver 450.36.06 supports CUDA 11.0");
	assert_true(wp_cuda_runs_on_driver(11, 0, &cuda110, false, false, &how, NULL));
	assert_true(wp_cuda_runs_on_driver(10, 2, &cuda110, false, true, &how, NULL));
	d = drv("450.80.02");
	assert_true(wp_cuda_runs_on_driver(11, 8, &d, false, false, &how, NULL));
	assert_int_equal(how, WP_RUNS_MINOR_COMPAT);
	/* a newer major never runs, whatever the compatibility floor says */
	d = drv("575.57.08");
	wp_buf_reset(&why);
	assert_false(wp_cuda_runs_on_driver(13, 0, &d, false, false, &how, &why));
	assert_string_equal(why.data,
			    "CUDA 13.0 needs driver 580.65.06 or newer; driver 575.57.08 supports CUDA 12.9");
	d = drv("580.65.06");
	assert_true(wp_cuda_runs_on_driver(13, 0, &d, false, false, &how, NULL));
	assert_true(wp_cuda_runs_on_driver(13, 1, &d, false, false, &how, NULL));
	assert_int_equal(how, WP_RUNS_MINOR_COMPAT);
	assert_true(wp_cuda_runs_on_driver(12, 9, &d, false, true, &how, NULL));
	/* no minor-version compatibility before CUDA 11 */
	d = drv("418.39");
	assert_false(wp_cuda_runs_on_driver(10, 2, &d, false, false, &how, NULL));
	d = drv("340.108");
	wp_buf_reset(&why);
	assert_false(wp_cuda_runs_on_driver(7, 0, &d, false, false, &how, &why));
	assert_string_equal(why.data, "driver 340.108 is older than any CUDA toolkit's");
	wp_buf_free(&why);
}

/* detection's last rung: NVIDIA's PCI ids (resolver/data/gpu_pci_ids.tsv) */
static void test_pci_ids(void **state)
{
	int sm = 0;
	assert_string_equal(wp_gpu_from_pci_id(0x2b85, &sm), "NVIDIA GeForce RTX 5090");
	assert_int_equal(sm, 120);
	assert_string_equal(wp_gpu_from_pci_id(0x20b2, &sm), "NVIDIA A100-SXM4-80GB");
	assert_int_equal(sm, 80);
	assert_non_null(wp_gpu_from_pci_id(0x2684, &sm)); /* RTX 4090 */
	assert_int_equal(sm, 89);
	assert_non_null(wp_gpu_from_pci_id(0x2330, &sm)); /* H100 80GB HBM3 */
	assert_int_equal(sm, 90);
	assert_non_null(wp_gpu_from_pci_id(0x2182, &sm)); /* GTX 1660 Ti: Turing among the 0x21xx */
	assert_int_equal(sm, 75);
	assert_non_null(wp_gpu_from_pci_id(0x2901, &sm)); /* B200 */
	assert_int_equal(sm, 100);
	assert_null(wp_gpu_from_pci_id(0x1db4, &sm)); /* V100: before Turing, not in NVIDIA's list
						       */
	assert_null(wp_gpu_from_pci_id(0xffff, &sm));
	/* ascending (the lookup bisects), and where gpu_names.tsv knows a name, the capabilities
	 * agree */
	size_t agreed = 0;
	for (size_t i = 0; i < wp_tbl_gpu_pci_len; i++) {
		if (i)
			assert_true(wp_tbl_gpu_pci[i - 1].id < wp_tbl_gpu_pci[i].id);
		struct wp_err e = WP_ERR_INIT;
		if (wp_gpu_parse(wp_tbl_gpu_pci[i].name, &sm, &e) < 0)
			continue;
		if (sm != wp_tbl_gpu_pci[i].sm)
			fail_msg("PCI id 0x%04x '%s': %d by chip range, %d by name",
				 wp_tbl_gpu_pci[i].id, wp_tbl_gpu_pci[i].name, wp_tbl_gpu_pci[i].sm,
				 sm);
		agreed++;
	}
	assert_true(agreed >= 40);
	int M, m;
	wp_cuda_newest_known(&M, &m);
	assert_true(M >= 13);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sm_parse),
		cmocka_unit_test(test_design_facts),
		cmocka_unit_test(test_nixpkgs_table),
		cmocka_unit_test(test_arrayfire_table),
		cmocka_unit_test(test_pytorch_arch_lists),
		cmocka_unit_test(test_driver_table),
		cmocka_unit_test(test_driver_edges),
		cmocka_unit_test(test_driver_table_windows),
		cmocka_unit_test(test_minor_compat_table),
		cmocka_unit_test(test_gpu_parse_archs),
		cmocka_unit_test(test_gpu_parse_names),
		cmocka_unit_test(test_nixpkgs_names),
		cmocka_unit_test(test_arch_list_parse),
		cmocka_unit_test(test_arch_list_serves),
		cmocka_unit_test(test_driver_parse_cmp),
		cmocka_unit_test(test_windows_minimums),
		cmocka_unit_test(test_runs_on_driver),
		cmocka_unit_test(test_pci_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
