/* tests/unit/test_tags.c: resolver/tags against packaging HEAD's lists in tests/fixtures/tags
 * (tests/diff/tags_diff.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "resolver/tags.h"

#define FIXTURES "tests/fixtures/tags"

static struct wp_target cp(int major, int minor, const char *platform, bool exact)
{
	struct wp_target t;
	memset(&t, 0, sizeof(t));
	snprintf(t.impl, sizeof(t.impl), "cp");
	t.py_major = major;
	t.py_minor = minor;
	t.py_micro = -1;
	snprintf(t.platform, sizeof(t.platform), "%s", platform);
	t.platform_exact = exact;
	return t;
}

/* "# target py=3.8 abi= platform=P exact=0 glibc=2.31 musl=0.0" */
static void parse_header(const char *line, struct wp_target *t)
{
	char abi[16] = "", plat[64] = "";
	int exact = 0, pyM = 0, pym = 0, gM = 0, gm = 0, mM = 0, mm = 0;
	const char *p = strstr(line, "py=");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "py=%d.%d", &pyM, &pym), 2);
	p = strstr(line, "abi=");
	assert_non_null(p);
	sscanf(p, "abi=%15[^ ]", abi);
	p = strstr(line, "platform=");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "platform=%63[^ ] exact=%d glibc=%d.%d musl=%d.%d", plat, &exact,
				&gM, &gm, &mM, &mm),
			 6);
	*t = cp(pyM, pym, plat, exact);
	snprintf(t->abi, sizeof(t->abi), "%s", abi);
	t->glibc_major = gM;
	t->glibc_minor = gm;
	t->musl_major = mM;
	t->musl_minor = mm;
}

static int check_fixture(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[512];
	struct wp_target t;
	bool have_target = false;
	struct wp_tagset ts = WP_TAGSET_INIT;
	struct wp_err err = WP_ERR_INIT;
	size_t i = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "# target ", 9)) {
			parse_header(line, &t);
			have_target = true;
			assert_int_equal(wp_tagset_build(&ts, &t, &err), 0);
			continue;
		}
		if (line[0] == '#' || !line[0])
			continue;
		assert_true(have_target);
		if (i >= ts.n || strcmp(ts.tags[i], line)) {
			print_error("%s: tag %zu: want '%s', got '%s'\n", path, i, line,
				    i < ts.n ? ts.tags[i] : "(end)");
			fail();
		}
		assert_int_equal(wp_tagset_priority(&ts, line), (int)i);
		i++;
	}
	fclose(f);
	if (i != ts.n) {
		print_error("%s: %zu tags expected, %zu built\n", path, i, ts.n);
		fail();
	}
	wp_tagset_release(&ts);
	return (int)i;
}

static void test_fixtures_match_packaging(void **state)
{
	DIR *d = opendir(FIXTURES);
	assert_non_null(d);
	struct dirent *de;
	int files = 0, tags = 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".txt"))
			continue;
		char *path = wp_xasprintf("%s/%s", FIXTURES, de->d_name);
		tags += check_fixture(path);
		free(path);
		files++;
	}
	closedir(d);
	assert_true(files >= 16);
	assert_true(tags > 5000);
}

static void test_known_order(void **state)
{
	struct wp_target t = cp(3, 8, "manylinux_2_28_x86_64", false);
	struct wp_tagset ts = WP_TAGSET_INIT;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_tagset_build(&ts, &t, &err), 0);
	assert_string_equal(ts.tags[0], "cp38-cp38-manylinux_2_28_x86_64");
	assert_string_equal(ts.platforms[0], "manylinux_2_28_x86_64");
	assert_string_equal(ts.platforms[ts.n_platforms - 1], "linux_x86_64");
	int p217 = wp_tagset_priority(&ts, "cp38-cp38-manylinux_2_17_x86_64");
	int p2014 = wp_tagset_priority(&ts, "cp38-cp38-manylinux2014_x86_64");
	int plinux = wp_tagset_priority(&ts, "cp38-cp38-linux_x86_64");
	int pabi3 = wp_tagset_priority(&ts, "cp38-abi3-manylinux_2_28_x86_64");
	int pany = wp_tagset_priority(&ts, "py3-none-any");
	int pcpany = wp_tagset_priority(&ts, "cp38-none-any");
	assert_true(p217 >= 0 && p2014 == p217 + 1 && plinux > p2014 && pabi3 > plinux);
	assert_true(pcpany >= 0 && pany > pcpany);
	/* case does not matter; wrong python, abi and newer glibc do */
	assert_int_equal(wp_tagset_priority(&ts, "CP38-cp38-Manylinux_2_28_X86_64"), 0);
	assert_int_equal(wp_tagset_priority(&ts, "cp39-cp39-manylinux_2_28_x86_64"), -1);
	assert_int_equal(wp_tagset_priority(&ts, "cp38-cp38m-manylinux_2_28_x86_64"), -1);
	assert_int_equal(wp_tagset_priority(&ts, "cp38-cp38-manylinux_2_29_x86_64"), -1);
	assert_int_equal(wp_tagset_priority(&ts, "cp38-cp38-manylinux_2_28_aarch64"), -1);
	assert_int_equal(wp_tagset_priority(&ts, "cp38-cp38-win_amd64"), -1);
	assert_int_equal(wp_tagset_priority(&ts, "py2.py3-none-any"), -1);
	assert_int_equal(wp_tagset_priority(&ts, ""), -1);
	assert_int_equal(wp_tagset_priority(&ts, NULL), -1);
	assert_int_equal(wp_tagset_priority_n(&ts, "py3-none-anything", 12), pany);
	wp_tagset_release(&ts);
	assert_int_equal(wp_tagset_priority(&ts, "py3-none-any"), -1);
}

static void test_exact_and_windows(void **state)
{
	struct wp_tagset ts = WP_TAGSET_INIT;
	struct wp_err err = WP_ERR_INIT;
	struct wp_target t = cp(3, 8, "linux_x86_64", true);
	t.glibc_major = 2;
	t.glibc_minor = 28; /* exact wins over a known glibc */
	assert_int_equal(wp_tagset_build(&ts, &t, &err), 0);
	assert_int_equal(ts.n_platforms, 1);
	assert_int_equal(wp_tagset_priority(&ts, "cp38-cp38-manylinux2014_x86_64"), -1);
	assert_int_equal(wp_tagset_priority(&ts, "cp38-cp38-linux_x86_64"), 0);
	wp_tagset_release(&ts);

	t = cp(3, 12, "win_arm64", false);
	assert_int_equal(wp_tagset_build(&ts, &t, &err), 0);
	assert_int_equal(ts.n_platforms, 1);
	assert_string_equal(ts.tags[0], "cp312-cp312-win_arm64");
	wp_tagset_release(&ts);
}

/* A free-threaded CPython (3.13t) loads cp313t extension modules, abi3t ones wherever a GIL
 * build would load abi3 (PEP 803, packaging HEAD's _abi3t_applies), and pure ones; never abi3. */
static void test_free_threaded(void **state)
{
	struct wp_tagset ts = WP_TAGSET_INIT;
	struct wp_err err = WP_ERR_INIT;
	struct wp_target t = cp(3, 13, "manylinux_2_17_x86_64", false);
	assert_int_equal(wp_target_set_python(&t, "3.13t", &err), 0);
	assert_string_equal(t.abi, "cp313t");
	assert_int_equal(wp_tagset_build(&ts, &t, &err), 0);
	assert_string_equal(ts.tags[0], "cp313-cp313t-manylinux_2_17_x86_64");
	for (size_t i = 0; i < ts.n; i++)
		assert_null(strstr(ts.tags[i], "-abi3-"));
	assert_int_equal(wp_tagset_priority(&ts, "cp313-cp313-manylinux_2_17_x86_64"), -1);
	int own = wp_tagset_priority(&ts, "cp313-abi3t-manylinux_2_17_x86_64");
	int none = wp_tagset_priority(&ts, "cp313-none-manylinux_2_17_x86_64");
	int older = wp_tagset_priority(&ts, "cp32-abi3t-linux_x86_64");
	assert_true(own > 0 && none > own && older > none);
	assert_true(wp_tagset_priority(&ts, "py3-none-any") > 0);
	wp_tagset_release(&ts);
	/* the wheel: ft-1.0-cp315-abi3.abi3t-win_amd64.whl fits 3.15t by its abi3t tag */
	t = cp(3, 15, "win_amd64", false);
	assert_int_equal(wp_target_set_python(&t, "3.15t", &err), 0);
	assert_int_equal(wp_tagset_build(&ts, &t, &err), 0);
	assert_int_equal(wp_tagset_priority(&ts, "cp315-abi3-win_amd64"), -1);
	assert_true(wp_tagset_priority(&ts, "cp315-abi3t-win_amd64") > 0);
	wp_tagset_release(&ts);
	/* a GIL 3.15 takes abi3 and not abi3t */
	t = cp(3, 15, "win_amd64", false);
	assert_int_equal(wp_tagset_build(&ts, &t, &err), 0);
	assert_true(wp_tagset_priority(&ts, "cp315-abi3-win_amd64") > 0);
	assert_int_equal(wp_tagset_priority(&ts, "cp315-abi3t-win_amd64"), -1);
	wp_tagset_release(&ts);
	/* and 3.12t is no Python that exists */
	assert_int_equal(wp_target_set_python(&t, "3.12t", &err), -WPE_USAGE);
}

static void test_bad_targets(void **state)
{
	static const char *const bad[] = {
		"",
		"manylinux_2_x86_64",
		"manylinux_2_999999999_x86_64",
		"manylinux_99999999999999999999_1_x86_64",
		"musllinux_1_",
		"macosx_10_x86_64",
		"macosx_9_0_x86_64",
		"macosx_10_3_ppc64",
		"manylinux2014_",
		"linux x86_64",
		"win/../amd64",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wp_tagset ts = WP_TAGSET_INIT;
		struct wp_err err = WP_ERR_INIT;
		struct wp_target t = cp(3, 8, bad[i], false);
		int rc = wp_tagset_build(&ts, &t, &err);
		if (rc != -WPE_USAGE) {
			print_error("'%s' gave %d\n", bad[i], rc);
			fail();
		}
		assert_int_equal(err.code, -WPE_USAGE);
		assert_null(ts.tags);
		wp_tagset_release(&ts);
	}
	struct wp_tagset ts = WP_TAGSET_INIT;
	struct wp_err err = WP_ERR_INIT;
	struct wp_target t = cp(3, 1000, "win_amd64", false);
	assert_int_equal(wp_tagset_build(&ts, &t, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "'3.1000'"));
	/* a platform field without a terminating NUL is read to its size, no further */
	t = cp(3, 8, "", false);
	memset(t.platform, 'a', sizeof(t.platform));
	wp_err_clear(&err);
	assert_int_equal(wp_tagset_build(&ts, &t, &err), 0);
	assert_int_equal(strlen(ts.platforms[0]), sizeof(t.platform));
	wp_tagset_release(&ts);
}

static void test_ladder_edges(void **state)
{
	char **l;
	size_t n;
	struct wp_err err = WP_ERR_INIT;
	/* PEP 600's tag for any arch: riscv64 from glibc 2.31 down to 2.17 (manylinux2014 its
	 * alias) */
	struct wp_target t = cp(3, 11, "manylinux_2_31_riscv64", false);
	assert_int_equal(wp_platform_ladder(&t, &l, &n, &err), 0);
	assert_int_equal(n, 31 - 17 + 1 + 1 + 1);
	assert_string_equal(l[0], "manylinux_2_31_riscv64");
	assert_string_equal(l[n - 3], "manylinux_2_17_riscv64");
	assert_string_equal(l[n - 2], "manylinux2014_riscv64");
	assert_string_equal(l[n - 1], "linux_riscv64");
	wp_platform_ladder_free(l, n);
	/* an arch packaging has no list entry for still gets PEP 600's text */
	t = cp(3, 11, "manylinux_2_28_sparc64", false);
	assert_int_equal(wp_platform_ladder(&t, &l, &n, &err), 0);
	assert_string_equal(l[0], "manylinux_2_28_sparc64");
	assert_string_equal(l[n - 1], "linux_sparc64");
	wp_platform_ladder_free(l, n);
	/* a detected linux_loongarch64 with its glibc */
	t = cp(3, 11, "linux_loongarch64", false);
	t.glibc_major = 2;
	t.glibc_minor = 36;
	assert_int_equal(wp_platform_ladder(&t, &l, &n, &err), 0);
	assert_string_equal(l[0], "manylinux_2_36_loongarch64");
	assert_string_equal(l[n - 1], "linux_loongarch64");
	wp_platform_ladder_free(l, n);
	/* a glibc 3 machine takes every 2.x down to 2.5 */
	t = cp(3, 11, "manylinux_3_1_x86_64", false);
	assert_int_equal(wp_platform_ladder(&t, &l, &n, &err), 0);
	assert_string_equal(l[0], "manylinux_3_1_x86_64");
	assert_string_equal(l[2], "manylinux_2_50_x86_64");
	assert_string_equal(l[n - 2], "manylinux1_x86_64");
	wp_platform_ladder_free(l, n);
	/* macOS 12.3 is offered as 12_0 (packaging 21.3 drops the minor on 11+) */
	t = cp(3, 11, "macosx_12_3_arm64", false);
	assert_int_equal(wp_platform_ladder(&t, &l, &n, &err), 0);
	assert_string_equal(l[0], "macosx_12_0_arm64");
	assert_string_equal(l[1], "macosx_12_0_universal2");
	assert_string_equal(l[4], "macosx_10_16_universal2");
	assert_string_equal(l[n - 1], "macosx_10_4_universal2");
	wp_platform_ladder_free(l, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_match_packaging),
		cmocka_unit_test(test_known_order),
		cmocka_unit_test(test_exact_and_windows),
		cmocka_unit_test(test_free_threaded),
		cmocka_unit_test(test_bad_targets),
		cmocka_unit_test(test_ladder_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
