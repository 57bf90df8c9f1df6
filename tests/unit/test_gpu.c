/* tests/unit/test_gpu.c: compute capability and driver tables against ../shared/data/nvidia/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "resolver/gpu.h"

static FILE *open_data(const char *rel)
{
	const char *d = getenv("WP_SHARED_DATA");
	char *path = wp_xasprintf("%s/%s", d && *d ? d : "../shared/data", rel);
	FILE *f = fopen(path, "r");
	free(path);
	return f;
}

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
		{ "sm_86", 86 }, { "sm86", 86 }, { "8.6", 86 }, { "86", 86 }, { "compute_86", 86 },
		{ "sm_90a", 90 }, { "9.0a", 90 }, { "12.0", 120 }, { "sm_120", 120 }, { "10.0", 100 },
		{ " 7.5 ", 75 }, { "3.7", 37 },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(ok); i++) {
		int sm = -1;
		assert_int_equal(wp_gpu_sm_parse(ok[i].in, &sm), 0);
		assert_int_equal(sm, ok[i].sm);
	}
	static const char *const bad[] = { "", "sm", "sm_", "8", "8.", ".6", "8.66", "0.5", "1000", "sm_8x6",
					   "abc", "8.6.1", "99999999999999999999", "-86", NULL };
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
		{ 86, 11, 1 }, { 89, 11, 8 }, { 90, 11, 8 }, { 100, 12, 8 }, { 120, 12, 8 }, { 80, 11, 0 }, { 61, 8, 0 },
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
	FILE *f = open_data("nvidia/gpu_compute_capabilities_nixpkgs.tsv");
	if (!f)
		skip();
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
		/* nixpkgs' Kepler maximum is where it stops offering Kepler; CUDA 11.8 still builds it */
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
	FILE *f = open_data("nvidia/cuda_toolkit_max_compute_capability_arrayfire.tsv");
	if (!f)
		skip();
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
				print_error("arrayfire: CUDA %s builds sm %d, table says from %d.%d\n", c[0], sms[i], M, m);
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
	FILE *f = open_data("nvidia/pytorch_official_build_cuda_arch_lists.tsv");
	if (!f)
		skip();
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
			if (isdigit((unsigned char)*p) && (p == c[1] || !isdigit((unsigned char)p[-1]))) {
				int v = cuda10(p);
				if (v > 0)
					cudas[nc++] = v;
				while (isdigit((unsigned char)*p) || *p == '.')
					p++;
				p--;
			}
		}
		for (char *p = c[2]; *p; p++) {
			if (!isdigit((unsigned char)*p) || (p > c[2] && (isdigit((unsigned char)p[-1]) || p[-1] == '.')))
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
	FILE *f = open_data("nvidia/cuda_toolkit_driver_versions.tsv");
	if (!f)
		skip();
	struct drow rows[128];
	char names[128][32];
	int n = 0;
	char line[4096], *c[7];
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f) && n < 128) {
		assert_true(split_tab(line, c, 7) >= 3);
		rows[n].cuda = cuda10(c[1]);
		memset(rows[n].v, 0, sizeof(rows[n].v));
		assert_true(sscanf(c[2], "%d.%d.%d", &rows[n].v[0], &rows[n].v[1], &rows[n].v[2]) >= 2);
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
			if (rows[j].cuda == rows[i].cuda && (floor_i < 0 || dcmp(rows[j].v, rows[floor_i].v) < 0))
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
	static const char *const bad[] = { "", "abc", "460.", ".460", "460..27", "460.x", "1.2.3.4.5",
					   "4600000000.1", "460-27", NULL };
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
