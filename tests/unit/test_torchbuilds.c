/* tests/unit/test_torchbuilds.c: what PyTorch built (arch lists, PyPI defaults, Requires-Dist
 * pins), against the vendored tables. */
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
#include "resolver/gpu.h"
#include "tests/unit/fixtures.h"
#include "resolver/torchbuilds.h"
#include "resolver/variant.h"


static size_t split_tab(char *line, char **cols, size_t max)
{
	static char empty[1];
	size_t n = 0;
	for (size_t i = 0; i < max; i++)
		cols[i] = empty;
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

static struct wp_arch_list lookup(const char *version, int M, int m, const char *family)
{
	struct wp_arch_list l;
	int rc = wp_torch_arch_list(version, M, m, family, &l);
	if (rc) {
		print_error("no arch list for torch %s CUDA %d.%d %s (%d)\n", version, M, m, family,
			    rc);
		fail();
	}
	return l;
}

static char *formatted(const struct wp_arch_list *l)
{
	struct wp_buf b = WP_BUF_INIT;
	wp_arch_list_format(l, &b);
	return b.data ? wp_buf_detach(&b, NULL) : wp_xstrdup("");
}

/* The same archs in any order (formatting sorts). */
static void assert_same_archs(const struct wp_arch_list *got, const char *want_text,
			      const char *what)
{
	struct wp_arch_list want;
	struct wp_err err = WP_ERR_INIT;
	if (wp_arch_list_parse(want_text, &want, &err)) {
		print_error("%s: %s\n", what, err.msg);
		fail();
	}
	char *a = formatted(got), *b = formatted(&want);
	if (strcmp(a, b)) {
		print_error("%s: compiled [%s], source [%s]\n", what, a, b);
		fail();
	}
	free(a);
	free(b);
}

/* ---- the issue's facts ---- */

static void test_issue_arch_facts(void **state)
{
	struct wp_buf why = WP_BUF_INIT;
	/* 2.7's cu128 has no sm_50/60/70: a GTX 1080 (sm_61) gets nothing from it */
	struct wp_arch_list l = lookup("2.7.1", 12, 8, "linux-x86_64");
	assert_string_equal(l.borrowed_from, "");
	assert_false(wp_arch_list_serves(&l, 61, true, &why));
	assert_string_equal(why.data,
			    "no kernels for sm_61 (built for 7.5, 8.0, 8.6, 9.0, 10.0, 12.0+PTX)");
	assert_false(wp_arch_list_serves(&l, 70, true, NULL));
	assert_true(wp_arch_list_serves(&l, 86, false, NULL));
	/* ... and its 12.0 PTX serves a GPU newer than 12.0 only when the driver can JIT it */
	assert_true(wp_arch_list_serves(&l, 121, false, NULL)); /* 12.0 SASS runs on 12.1 */
	/* 2.8-2.10 cu128 put sm_70 back; 2.11 drops it again */
	l = lookup("2.9.0", 12, 8, "linux-x86_64");
	assert_true(wp_arch_list_serves(&l, 70, false, NULL));
	assert_false(wp_arch_list_serves(&l, 61, true, NULL));
	l = lookup("2.8.0", 12, 8, "linux-x86_64");
	assert_true(wp_arch_list_serves(&l, 70, false, NULL));
	l = lookup("2.10.0", 12, 8, "linux-x86_64");
	assert_true(wp_arch_list_serves(&l, 70, false, NULL));
	l = lookup("2.11.0", 12, 8, "linux-x86_64");
	wp_buf_reset(&why);
	assert_false(wp_arch_list_serves(&l, 70, true, &why));
	assert_string_equal(why.data,
			    "no kernels for sm_70 (built for 7.5, 8.0, 8.6, 9.0, 10.0, 12.0)");
	/* sm_70 users of 2.11 have cu126 */
	l = lookup("2.11.0", 12, 6, "linux-x86_64");
	assert_true(wp_arch_list_serves(&l, 70, false, NULL));
	/* sm_86 runs the sm_80 code of an aarch64 build that has no 8.6 */
	l = lookup("2.10.0", 12, 6, "linux-aarch64");
	assert_true(wp_arch_list_serves(&l, 86, false, NULL));
	assert_false(wp_arch_list_serves(&l, 75, true, NULL));
	/* Jetson Thor (11.0) is in the aarch64 cu130 lists only */
	l = lookup("2.9.0", 13, 0, "linux-aarch64");
	assert_true(wp_arch_list_serves(&l, 110, false, NULL));
	l = lookup("2.9.0", 13, 0, "linux-x86_64");
	assert_false(wp_arch_list_serves(&l, 110, false, NULL));
	assert_false(wp_arch_list_serves(&l, 110, true, NULL)); /* its 12.0 PTX is above 11.0: no
								   JIT either */
	/* the 2021 seed case: 1.8.0+cu111 has 8.6 (an RTX 3090), cu102 does not */
	l = lookup("1.8.0", 11, 1, "linux-x86_64");
	assert_true(wp_arch_list_serves(&l, 86, false, NULL));
	assert_true(wp_arch_list_serves(&l, 37, false, NULL));
	l = lookup("1.8.0", 10, 2, "linux-x86_64");
	assert_false(wp_arch_list_serves(&l, 86, true, NULL));
	assert_true(wp_arch_list_serves(&l, 75, false, NULL)); /* 7.0 SASS runs on 7.5 */
	/* 2.0 was the first with Hopper (cu118), and Kepler 3.7 last shipped in cu118 */
	l = lookup("2.0.1", 11, 8, "linux-x86_64");
	assert_true(wp_arch_list_serves(&l, 90, false, NULL));
	assert_true(wp_arch_list_serves(&l, 37, false, NULL));
	l = lookup("2.1.0", 12, 1, "linux-x86_64");
	assert_false(wp_arch_list_serves(&l, 37, true, NULL));
	wp_buf_free(&why);
}

static void test_borrowing(void **state)
{
	/* a release the table does not know borrows the nearest release's list, and says which */
	struct wp_arch_list l = lookup("2.15.0", 13, 0, "linux-x86_64");
	assert_string_equal(l.release, "2.15");
	assert_string_equal(l.borrowed_from, "2.14");
	assert_string_equal(l.platform, "linux-x86_64");
	assert_false(l.other_platform);
	assert_int_equal(l.cuda_major, 13);
	assert_int_equal(l.cuda_minor, 0);
	l = lookup("1.7.1", 11, 0, "linux-x86_64");
	assert_string_equal(l.borrowed_from, "1.8");
	l = lookup("1.7.1", 9, 2, "linux-x86_64");
	assert_string_equal(l.borrowed_from, "1.8");
	/* 2.6 cu126 aarch64 is "unknown" in the source: the nearest known release is 2.9 */
	l = lookup("2.6.0", 12, 6, "linux-aarch64");
	assert_string_equal(l.borrowed_from, "2.9");
	assert_same_archs(&l, "8.0;9.0", "2.6 cu126 aarch64");
	/* 2.8's Windows cu128 was not verified: 2.7's (one release away) rather than 2.11's */
	l = lookup("2.8.0", 12, 8, "windows");
	assert_string_equal(l.borrowed_from, "2.7");
	assert_string_equal(l.platform, "windows");
	/* a Windows CUDA with no Windows list anywhere takes Linux x86_64's, and says so */
	l = lookup("2.1.2", 12, 1, "windows");
	assert_string_equal(l.borrowed_from, "");
	assert_true(l.other_platform);
	assert_string_equal(l.platform, "linux-x86_64");
	/* ties go to the older release; the same major before another */
	l = lookup("2.0.0", 12, 1, "linux-x86_64");
	assert_string_equal(l.borrowed_from, "2.1");
	l = lookup("3.0", 13, 2, "linux-x86_64");
	assert_string_equal(l.borrowed_from, "2.14");
	l = lookup("2.7+cu128", 12, 8, "linux-x86_64");
	assert_string_equal(l.borrowed_from, "");
	/* no list at all for that CUDA version: a code of its own */
	assert_int_equal(wp_torch_arch_list("2.7.1", 12, 7, "linux-x86_64", &l), -WPE_NOMATCH);
	assert_string_equal(l.release, "2.7");
	assert_int_equal(wp_torch_arch_list("2.7.1", 12, 9, "linux-aarch64", &l), 0); /* 2.8's */
	assert_int_equal(wp_torch_arch_list("2.7.1", 8, 0, "linux-x86_64", &l), -WPE_NOMATCH);
	assert_int_equal(wp_torch_arch_list("2.7.1", 12, 10, "linux-x86_64", &l), -WPE_NOMATCH);
	assert_int_equal(wp_torch_arch_list("2.7.1", 11, 8, "linux-aarch64", &l), -WPE_NOMATCH);
	assert_int_equal(wp_torch_arch_list("2.7.1", 12, 8, "macos", &l), -WPE_PARSE);
	assert_int_equal(wp_torch_arch_list("2.7.1", 12, 8, "linux-ppc64le", &l), -WPE_PARSE);
	assert_int_equal(wp_torch_arch_list("2", 12, 8, "linux-x86_64", &l), -WPE_PARSE);
	assert_int_equal(wp_torch_arch_list("torch", 12, 8, "linux-x86_64", &l), -WPE_PARSE);
	assert_int_equal(wp_torch_arch_list(NULL, 12, 8, "linux-x86_64", &l), -WPE_PARSE);
	assert_int_equal(wp_torch_arch_list("2.7", 12, 8, NULL, &l), -WPE_PARSE);
}

/* ---- the compiled table against its sources ---- */

/* "2.12-2.14" -> 12..14 of major 2; "2.8" -> 8..8 */
static bool release_range(const char *s, int *major, int *lo, int *hi)
{
	int M2, n = 0;
	if (sscanf(s, "%d.%d-%d.%d%n", major, lo, &M2, hi, &n) == 4 && !s[n] && M2 == *major)
		return true;
	if (sscanf(s, "%d.%d%n", major, lo, &n) == 2 && !s[n]) {
		*hi = *lo;
		return true;
	}
	return false;
}

/* Every row of pytorch_release_arch_lists_2.6plus.tsv that states a list is what the lookup
 * returns, exactly (no borrowing), for every release, variant and platform the row covers. */
static void test_against_2_6plus(void **state)
{
	FILE *f = fixture_open("nvidia/pytorch_release_arch_lists_2.6plus.tsv");
	char line[8192], *c[9];
	int checked = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_true(split_tab(line, c, 9) >= 5);
		int major, lo, hi;
		if (!release_range(c[0], &major, &lo, &hi)) {
			print_error("unexpected release '%s'\n", c[0]);
			fail();
		}
		/* rows without a list (left out of the table on purpose; the lookup borrows) */
		if (!strcmp(c[3], "unknown") || !strcmp(c[3], "not verified"))
			continue;
		char *alt = strstr(c[3], " (or "); /* 2.8 cu129 aarch64: the first list is the one
						      taken */
		if (alt)
			*alt = 0;
		char *paren = strstr(c[1], " (");
		if (paren)
			*paren = 0;
		/* variants "cu124,cu126" or "cu126/cu128/cu130" (with lists "A / B / C" then) */
		char variants[8][16], lists[8][256];
		int nv = 0, nl = 0;
		for (char *save = NULL, *v = strtok_r(c[1], ",/", &save); v && nv < 8;
		     v = strtok_r(NULL, ",/", &save))
			snprintf(variants[nv++], sizeof(variants[0]), "%s", v);
		for (char *p = c[3]; p && nl < 8;) {
			char *sep = strstr(p, " / ");
			if (sep)
				*sep = 0;
			snprintf(lists[nl++], sizeof(lists[0]), "%s", p);
			p = sep ? sep + 3 : NULL;
		}
		assert_true(nl == 1 || nl == nv);
		const char *plats[2];
		int np = 0;
		if (strstr(c[2], "linux-x86_64"))
			plats[np++] = "linux-x86_64";
		if (strstr(c[2], "linux-aarch64"))
			plats[np++] = "linux-aarch64";
		if (strstr(c[2], "windows"))
			plats[np++] = "windows";
		assert_true(np > 0);
		for (int r = lo; r <= hi; r++) {
			for (int v = 0; v < nv; v++) {
				int cuda = (int)strtol(variants[v] + 2, NULL, 10);
				char ver[16], what[128];
				snprintf(ver, sizeof(ver), "%d.%d.0", major, r);
				for (int p = 0; p < np; p++) {
					struct wp_arch_list l = lookup(ver, cuda / 10, cuda % 10,
								       plats[p]);
					snprintf(what, sizeof(what), "%s %s %s", ver, variants[v],
						 plats[p]);
					if (l.borrowed_from[0] || l.other_platform) {
						print_error("%s: borrowed from %s %s\n", what,
							    l.borrowed_from, l.platform);
						fail();
					}
					assert_same_archs(&l, lists[nl == 1 ? 0 : v], what);
					checked++;
				}
			}
		}
	}
	fclose(f);
	print_message("2.6plus rows checked: %d\n", checked);
	assert_true(checked >= 45);
}

/* Every release-branch row of pytorch_official_build_cuda_arch_lists.tsv (1.8 ... 2.5), each CUDA
 * version of its case arm ("10.x" is 10.0, 10.1, 10.2), is what the lookup returns for linux
 * (x86_64 or aarch64). */
static void test_against_official(void **state)
{
	FILE *f = fixture_open("nvidia/pytorch_official_build_cuda_arch_lists.tsv");
	char line[8192], *c[5];
	int checked = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_true(split_tab(line, c, 5) >= 3);
		int major, lo, hi;
		if (!release_range(c[0], &major, &lo, &hi) || lo != hi || (major == 2 && lo >= 6))
			continue; /* main-branch rows and 2.12-2.14 (the 2.6plus table has those) */
		const char *plat = strstr(c[1], "cuda-aarch64") ? "linux-aarch64" : "linux-x86_64";
		char *paren = strstr(c[1], " (");
		if (paren)
			*paren = 0;
		char ver[16];
		snprintf(ver, sizeof(ver), "%d.%d.0", major, lo);
		for (char *save = NULL, *v = strtok_r(c[1], ", ", &save); v;
		     v = strtok_r(NULL, ", ", &save)) {
			int M, m, n = 0;
			int minors[3], nm = 0;
			if (sscanf(v, "%d.x%n", &M, &n) == 1 && !v[n]) {
				for (int k = 0; k < 3; k++)
					minors[nm++] = k;
			} else {
				assert_int_equal(sscanf(v, "%d.%d", &M, &m), 2);
				minors[nm++] = m;
			}
			for (int k = 0; k < nm; k++) {
				char what[96];
				snprintf(what, sizeof(what), "%s CUDA %d.%d %s", ver, M, minors[k],
					 plat);
				struct wp_arch_list l = lookup(ver, M, minors[k], plat);
				assert_string_equal(l.borrowed_from, "");
				assert_same_archs(&l, c[2], what);
				checked++;
			}
		}
	}
	fclose(f);
	print_message("official rows checked: %d\n", checked);
	assert_true(checked >= 75);
}

/* The nvidia sm_arch values of the wheelnext variant files (vendored in
 * tests/fixtures/real/variants/; verbatim, in their order): wheelnext/variant-repack @e75a16d9
 * configs/torch-2.{8,9,10}/torch-*-variants.json. The PEP 825 notation parses, and the compiled
 * table agrees. */
static void test_variant_json_sm_arch(void **state)
{
	static const struct {
		const char *release;
		int M, m;
		const char *sm_arch;
	} rows[] = {
		{ "2.8.0", 12, 6, "50_real 60_real 70_real 75_real 80_real 86_real 90_real" },
		{ "2.8.0", 12, 8, "100_real 120_real 70_real 75_real 80_real 86_real 90_real" },
		{ "2.8.0", 12, 9,
		  "100_real 120_real 120_virtual 70_real 75_real 80_real 86_real 90_real" },
		{ "2.9.0", 12, 6, "50_real 60_real 70_real 75_real 80_real 86_real 90_real" },
		{ "2.9.0", 12, 8, "70_real 75_real 80_real 86_real 90_real 100_real 120_real" },
		{ "2.9.0", 13, 0, "75_real 80_real 86_real 90_real 100_real 120_real 120_virtual" },
		{ "2.10.0", 12, 6, "50_real 60_real 70_real 75_real 80_real 86_real 90_real" },
		{ "2.10.0", 12, 8, "70_real 75_real 80_real 86_real 90_real 100_real 120_real" },
		{ "2.10.0", 13, 0,
		  "75_real 80_real 86_real 90_real 100_real 120_real 120_virtual" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(rows); i++) {
		char what[64];
		snprintf(what, sizeof(what), "variants.json %s CUDA %d.%d", rows[i].release,
			 rows[i].M, rows[i].m);
		struct wp_arch_list l = lookup(rows[i].release, rows[i].M, rows[i].m,
					       "linux-x86_64");
		assert_same_archs(&l, rows[i].sm_arch, what);
	}
}

/* ---- PyPI's unlabeled torch ---- */

static void expect_default(const char *version, const char *family, const char *label)
{
	struct wp_variant v;
	int rc = wp_pypi_default_variant("torch", version, family, &v);
	if (!label) {
		if (rc != 0 || v.kind != WP_VARIANT_NONE) {
			print_error("torch %s %s: got '%s', want unknown\n", version, family,
				    v.label);
			fail();
		}
		return;
	}
	if (rc != 1 || strcmp(v.label, label)) {
		print_error("torch %s %s: got %d '%s', want '%s'\n", version, family, rc, v.label,
			    label);
		fail();
	}
}

static void test_pypi_defaults(void **state)
{
	expect_default("1.8.0", "linux-x86_64", "cu102");
	expect_default("1.0.0", "linux-x86_64", "cu90");
	expect_default("1.2.0", "linux-x86_64", "cu100");
	expect_default("1.13.1", "linux-x86_64", "cu117");
	expect_default("2.9.0", "linux-x86_64", "cu128");
	expect_default("2.9.0+cu128", "linux-x86_64", "cu128");
	expect_default("2.11.0", "linux-aarch64", "cu130");
	expect_default("2.10.0", "linux-aarch64", "cpu");
	expect_default("1.8", "linux-x86_64", "cu102");
	/* a patch release the table does not list takes its release line's value */
	expect_default("2.13.1", "linux-x86_64", "cu130");
	expect_default("1.8.2", "linux-x86_64", "cu102");
	/* Windows and macOS: PyPI ships CPU builds only, for every 2.x (and any release) */
	for (int m = 0; m <= 15; m++) {
		char v[16];
		snprintf(v, sizeof(v), "2.%d.0", m);
		expect_default(v, "windows", "cpu");
		expect_default(v, "macos", "cpu");
	}
	expect_default("1.0.0", "windows", "cpu");
	expect_default("0.4.1", "linux-aarch64", "cpu");
	/* unknown: a Linux x86_64 release past the table, aarch64 from 2.11 on past it,
	 * pre/dev/post releases */
	expect_default("2.14.0", "linux-x86_64", NULL);
	expect_default("0.4.1", "linux-x86_64", NULL);
	expect_default("2.14.0", "linux-aarch64", NULL);
	expect_default("2.9.0rc1", "linux-x86_64", NULL);
	expect_default("2.9.0.dev20250801", "linux-x86_64", NULL);
	expect_default("2.9.0.post1", "linux-x86_64", NULL);
	expect_default("", "linux-x86_64", NULL);
	expect_default("2.9.0", "linux-ppc64le", NULL);
	expect_default("2.9.0", NULL, NULL);
	expect_default("2..9", "windows", NULL);
	struct wp_variant v;
	assert_int_equal(wp_pypi_default_variant("torchvision", "0.24.0", "windows", &v), 0);
	assert_int_equal(wp_pypi_default_variant(NULL, "2.9.0", "windows", &v), 0);
	assert_int_equal(wp_pypi_default_variant("Torch", "2.9.0", "linux-x86_64", &v), 1);
	assert_int_equal(v.kind, WP_VARIANT_CUDA);
	assert_true(v.major == 12 && v.minor == 8);
}

/* Every row of pypi_default_torch_builds.tsv: the compiled value per platform, and the runtime pin
 * the row saw in METADATA gives the same CUDA as the row's Linux x86_64 variant. */
static void test_against_pypi_table(void **state)
{
	FILE *f = fixture_open("nvidia/pypi_default_torch_builds.tsv");
	char line[8192], *c[10];
	int rows = 0, pins = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_true(split_tab(line, c, 10) >= 6);
		char want[16];
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(c[1], " "), c[1]);
		expect_default(c[0], "linux-x86_64", want);
		if (!strncmp(c[2], "cu", 2)) {
			snprintf(want, sizeof(want), "%.*s", (int)strcspn(c[2], " "), c[2]);
			expect_default(c[0], "linux-aarch64", want);
		} else {
			expect_default(c[0], "linux-aarch64", "cpu"); /* "CPU ..." or "none" (no
									 wheels) */
		}
		expect_default(c[0], "windows", "cpu"); /* "CPU ..." or "not verified" */
		expect_default(c[0], "macos", "cpu");
		if (!strncmp(c[5], "nvidia-cuda-runtime", 19)) {
			const char *req[] = { "filelock", c[5] };
			struct wp_variant v;
			/* the cell may carry a note after the pin: "... (CUDA 13 packages have no
			 * -cu13 suffix ...)" */
			char *note = strstr(c[5], " (");
			if (note)
				*note = 0;
			assert_int_equal(wp_variant_from_requires(req, 2, &v), 1);
			snprintf(want, sizeof(want), "%.*s", (int)strcspn(c[1], " "), c[1]);
			if (strcmp(v.label, want)) {
				print_error("torch %s: pin '%s' gives %s, row says %s\n", c[0],
					    c[5], v.label, want);
				fail();
			}
			pins++;
		}
		rows++;
	}
	fclose(f);
	assert_true(rows >= 49);
	assert_true(pins >= 25);
}

/* ---- Requires-Dist ---- */

static void expect_requires(const char *const *lines, size_t n, const char *label)
{
	struct wp_variant v;
	int rc = wp_variant_from_requires(lines, n, &v);
	if (!label) {
		if (rc != 0 || v.kind != WP_VARIANT_NONE) {
			print_error("got '%s', want none\n", v.label);
			fail();
		}
		return;
	}
	if (rc != 1 || v.kind != WP_VARIANT_CUDA || strcmp(v.label, label)) {
		print_error("got %d '%s', want '%s'\n", rc, v.label, label);
		fail();
	}
}

static void test_requires(void **state)
{
	/* the Requires-Dist lines of two real nightly wheels, verbatim and quoted here (no file is
	 * read): torch-2.7.0.dev20250116+cu126's METADATA as printed in astral-sh/uv#10693 */
	static const char *const x86_64[] = {
		"filelock",
		"typing-extensions>=4.10.0",
		"setuptools; python_version >= \"3.12\"",
		"sympy==1.13.1; python_version >= \"3.9\"",
		"networkx",
		"jinja2",
		"fsspec",
		"nvidia-cuda-nvrtc-cu12==12.6.77; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-cuda-runtime-cu12==12.6.77; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-cuda-cupti-cu12==12.6.80; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-cudnn-cu12==9.5.1.17; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-cublas-cu12==12.6.4.1; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-cufft-cu12==11.3.0.4; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-curand-cu12==10.3.7.77; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-cusolver-cu12==11.7.1.2; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-cusparse-cu12==12.5.4.2; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-cusparselt-cu12==0.6.3; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-nccl-cu12==2.21.5; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-nvtx-cu12==12.6.77; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"nvidia-nvjitlink-cu12==12.6.85; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"pytorch-triton==3.2.0+git0d4682f0; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		"optree>=0.13.0; extra == \"optree\"",
		"opt-einsum>=3.3; extra == \"opt-einsum\"",
	};
	static const char *const aarch64[] = {
		"filelock", "typing-extensions>=4.10.0", "setuptools; python_version >= \"3.12\"",
		"sympy==1.13.1; python_version >= \"3.9\"", "networkx", "jinja2", "fsspec",
		"optree>=0.13.0; extra == \"optree\"", "opt-einsum>=3.3; extra == \"opt-einsum\"",
	};
	expect_requires(x86_64, WP_ARRAY_LEN(x86_64), "cu126");
	expect_requires(aarch64, WP_ARRAY_LEN(aarch64), NULL);

	/* the issue's pins, and the CUDA 13 packages without a suffix */
	const char *a[] = { "nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\"" };
	expect_requires(a, 1, "cu128");
	const char *b[] = { "nvidia-cuda-runtime==13.0.96; platform_system == \"Linux\"" };
	expect_requires(b, 1, "cu130");
	const char *c[] = {
		"Requires-Dist: nvidia-cuda-runtime-cu11==11.7.99; platform_system == \"Linux\""
	};
	expect_requires(c, 1, "cu117");
	const char *d[] = { "nvidia-cuda-runtime-cu12==12.8.*", "nvidia-cudnn-cu12" };
	expect_requires(d, 2, "cu128");
	const char *e[] = { "NVIDIA_CUDA_Runtime_CU12 (==12.1.105)" };
	expect_requires(e, 1, "cu121");
	const char *f[] = { "nvidia-cuda-runtime-cu12~=12.4.127" };
	expect_requires(f, 1, "cu124");
	/* runtime beats nvrtc beats cublas, whatever the order */
	const char *g[] = { "nvidia-cublas-cu12==12.4.5.8", "nvidia-cuda-nvrtc-cu12==12.6.77",
			    "nvidia-cuda-runtime-cu12==12.8.90" };
	expect_requires(g, 3, "cu128");
	const char *h[] = { "nvidia-cublas-cu12==12.4.5.8", "nvidia-cuda-nvrtc-cu12==12.6.77" };
	expect_requires(h, 2, "cu126");
	const char *i[] = { "nvidia-cublas-cu12==12.8.4.1; platform_system == \"Linux\"" };
	expect_requires(i, 1, "cu128");
	/* cuBLAS 11.x numbered itself apart (11.10.3.66 came with CUDA 11.7): not a witness */
	const char *j[] = { "nvidia-cublas-cu11==11.10.3.66" };
	expect_requires(j, 1, NULL);
	const char *k[] = { "nvidia-cublas-cu11==11.10.3.66", "nvidia-cuda-nvrtc-cu11==11.7.99" };
	expect_requires(k, 2, "cu117");
	/* not pins: ranges, no version, a suffix that disagrees, an extra's dependency, other
	 * packages */
	const char *no[] = {
		"nvidia-cuda-runtime-cu12>=12.1",
		"nvidia-cuda-runtime-cu12",
		"nvidia-cuda-runtime-cu12==11.8.89",
		"nvidia-cuda-runtime-cu12==12.8.90; extra == \"cuda\"",
		"nvidia-cuda-runtime-cu12x==12.8.90",
		"nvidia-cudnn-cu12==9.10.2.21",
		"nvidia-cuda-cupti-cu12==12.6.80",
		"nvidia-cuda-runtime-cu12==garbage",
		"nvidia-cuda-runtime-cu12==12",
		"nvidia-cuda-runtime-cu12===",
		"this is not a requirement ==",
		"",
		NULL,
	};
	expect_requires(no, WP_ARRAY_LEN(no), NULL);
	expect_requires(NULL, 3, NULL);
}

static void test_platform_family(void **state)
{
	static const struct { const char *tag, *family; } cases[] = {
		{ "manylinux_2_28_x86_64", "linux-x86_64" },
		{ "manylinux2014_x86_64", "linux-x86_64" },
		{ "linux_x86_64", "linux-x86_64" },
		{ "manylinux_2_28_aarch64", "linux-aarch64" },
		{ "manylinux2014_aarch64", "linux-aarch64" },
		{ "linux_aarch64", "linux-aarch64" },
		{ "win_amd64", "windows" },
		{ "macosx_11_0_arm64", "macos" },
		{ "macosx_10_9_x86_64", "macos" },
		{ "linux-64", "linux-x86_64" },
		{ "linux-aarch64", "linux-aarch64" },
		{ "win-64", "windows" },
		{ "osx-arm64", "macos" },
		{ "any", NULL },
		{ "win32", NULL },
		{ "manylinux2014_ppc64le", NULL },
		{ "win_arm64", NULL },
		{ "", NULL },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		const char *got = wp_torch_platform_family(cases[i].tag);
		if (cases[i].family ? !got || strcmp(got, cases[i].family) : got != NULL) {
			print_error("'%s': got %s\n", cases[i].tag, got ? got : "NULL");
			fail();
		}
	}
	assert_null(wp_torch_platform_family(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_arch_facts),
		cmocka_unit_test(test_borrowing),
		cmocka_unit_test(test_against_2_6plus),
		cmocka_unit_test(test_against_official),
		cmocka_unit_test(test_variant_json_sm_arch),
		cmocka_unit_test(test_pypi_defaults),
		cmocka_unit_test(test_against_pypi_table),
		cmocka_unit_test(test_requires),
		cmocka_unit_test(test_platform_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
