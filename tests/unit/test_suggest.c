/* tests/unit/test_suggest.c: ops/suggest ("did you mean"): the distance, the closest words, the
 * platform tags a loose word could mean, requirements in other tools' spellings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/vec.h"
#include "ops/core/suggest.h"

static void test_distance(void **state)
{
	assert_int_equal(wp_suggest_distance("torch", "torch", 3), 0);
	assert_int_equal(wp_suggest_distance("torhc", "torch", 3), 1); /* a swap counts once */
	assert_int_equal(wp_suggest_distance("Torch", "torch", 3), 0);
	assert_int_equal(wp_suggest_distance("pytorch", "torch", 3), 2);
	assert_int_equal(wp_suggest_distance("", "abc", 3), 3);
	assert_int_equal(wp_suggest_distance("numpy", "tensorflow", 3), 4); /* past the cap: cap + 1
									     */
}

static void test_closest(void **state)
{
	const char *names[] = { "torch",  "torchvision", "torchaudio", "triton",
				"pillow", "list",        "lock" };
	struct wp_strlist out = { 0 };
	wp_suggest_closest("torchvison", names, 7, 3, &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0], "torchvision");
	wp_strlist_release(&out);
	wp_suggest_closest("lsit", names, 7, 3, &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0], "list");
	wp_strlist_release(&out);
	wp_suggest_closest("lokc", names, 7, 1, &out); /* max 1: the best only */
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0], "lock");
	wp_strlist_release(&out);
	wp_suggest_closest("zzzzzz", names, 7, 3, &out);
	assert_int_equal(out.n, 0);
	wp_strlist_release(&out);
	wp_suggest_closest("torch", names, 7, 3, &out); /* the word itself is no suggestion */
	for (size_t i = 0; i < out.n; i++)
		assert_string_not_equal(out.v[i], "torch");
	wp_strlist_release(&out);

	struct wp_strlist w = { 0 };
	struct wp_buf b = WP_BUF_INIT;
	wp_strlist_push(&w, "a");
	wp_strlist_push(&w, "b");
	wp_strlist_push(&w, "c");
	wp_suggest_join(&w, &b);
	assert_string_equal(b.data, "'a', 'b' or 'c'");
	wp_buf_free(&b);
	wp_strlist_release(&w);
}

static void platform(const char *word, bool conda, bool ok, const char *first)
{
	struct wp_names out = { 0 };
	bool got = wp_suggest_platform(word, conda, &out);
	if (got != ok)
		fail_msg("'%s': %s, wanted %s", word, got ? "accepted" : "refused",
			 ok ? "accepted" : "refused");
	if (first) {
		if (!out.n || strcmp(out.v[0], first))
			fail_msg("'%s': first suggestion '%s', wanted '%s'", word,
				 out.n ? out.v[0] : "(none)", first);
	} else if (!ok && !out.n) {
		fail_msg("'%s': refused with nothing suggested", word);
	}
	wp_names_release(&out);
}

static void test_platforms(void **state)
{
	platform("manylinux_2_28_x86_64", false, true, NULL);
	platform("manylinux2014_aarch64", false, true, NULL);
	platform("MANYLINUX_2_17_X86_64", false, true, NULL);
	platform("musllinux_1_2_x86_64", false, true, NULL);
	platform("linux_x86_64", false, true, NULL);
	platform("macosx_11_0_arm64", false, true, NULL);
	platform("macosx_10_9_universal2", false, true, NULL);
	platform("win_amd64", false, true, NULL);
	platform("win32", false, true, NULL);
	platform("linux-64", false, true, NULL);
	platform("auto", false, true, NULL);
	platform("linux", false, false, "manylinux_2_28_x86_64");
	platform("linux_aarch64x", false, false, NULL);
	platform("manylinux2014", false, false, "manylinux2014_x86_64");
	platform("manylinux_2_28", false, false, "manylinux_2_28_x86_64");
	platform("manylinux-2-28-x86_64", false, false, "manylinux_2_28_x86_64");
	platform("ubuntu arm64", false, false, "manylinux_2_28_aarch64");
	platform("macos", false, false, "macosx_11_0_arm64");
	platform("darwin-x86_64", false, false, "macosx_10_15_x86_64");
	platform("windows", false, false, "win_amd64");
	platform("alpine", false, false, "musllinux_1_2_x86_64");
	platform("linux", true, false, "linux-64");
	platform("osx", true, false, "osx-arm64");
	platform("linux-aarch64", true, true, NULL);
	platform("qwerty", false, false, NULL);
	/* issue 36: the one that completes what was typed comes before the guesses (i686 for
	 * "x86") */
	platform("manylinux_2_28_x86", false, false, "manylinux_2_28_x86_64");
	platform("manylinux2014_x86", false, false, "manylinux2014_x86_64");
	platform("musllinux_1_2_x86", false, false, "musllinux_1_2_x86_64");
	platform("linux_x86", false, false, "linux_x86_64");
	platform("linux_x86_6", false, false, "linux_x86_64");
	platform("manylinux_2_28_aarch", false, false, "manylinux_2_28_aarch64");
	platform("macosx_11_0_arm", false, false, "macosx_11_0_arm64");
	platform("manylinux_2_28_i386", false, false, "manylinux_2_28_i686");
	platform("manylinux_2_28_x68_64", false, false, "manylinux_2_28_x86_64");
}

/* The suggestions for word, nearest first: i686 still offered for a bare "x86", after x86_64. */
static void test_platform_order(void **state)
{
	struct wp_names out = { 0 };
	wp_suggest_platform("manylinux_2_28_x86", false, &out);
	size_t at64 = out.n, at686 = out.n;
	for (size_t i = 0; i < out.n; i++) {
		if (!strcmp(out.v[i], "manylinux_2_28_x86_64"))
			at64 = i;
		if (!strcmp(out.v[i], "manylinux_2_28_i686"))
			at686 = i;
	}
	assert_true(at64 == 0);
	assert_true(at686 < out.n && at686 > at64);
	wp_names_release(&out);
}

static void test_requirements(void **state)
{
	struct wp_strlist r = { 0 };
	struct wp_err e = WP_ERR_INIT;
	wp_strlist_push(&r, "torch=2.9");
	assert_int_equal(wp_suggest_check_reqs(&r, false, NULL, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "did you mean 'torch==2.9'?"));
	wp_err_clear(&e);
	assert_int_equal(wp_suggest_check_reqs(&r, true, NULL, &e), 0); /* conda's '=' */
	wp_strlist_release(&r);
	wp_strlist_push(&r, "pytorch");
	wp_strlist_push(&r, "1.8.*");
	assert_int_equal(wp_suggest_check_reqs(&r, true, NULL, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "quote the whole spec, 'pytorch 1.8.*'"));
	wp_err_clear(&e);
	assert_int_equal(wp_suggest_check_reqs(&r, false, NULL, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "'pytorch==1.8.*'"));
	wp_strlist_release(&r);
	wp_err_clear(&e);
	wp_strlist_push(&r, "torch");
	wp_strlist_push(&r, ">=2");
	assert_int_equal(wp_suggest_check_reqs(&r, false, NULL, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "'torch>=2'"));
	wp_strlist_release(&r);
	wp_err_clear(&e);
	wp_strlist_push(&r, "torch>=2");
	wp_strlist_push(&r, "torchvision");
	wp_strlist_push(&r, "numpy<2; python_version < '3.9'");
	assert_int_equal(wp_suggest_check_reqs(&r, false, NULL, &e), 0);
	wp_strlist_release(&r);
	wp_strlist_push(&r, "torch==>1");
	assert_int_equal(wp_suggest_check_reqs(&r, false, NULL, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "is not PEP 508"));
	wp_strlist_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_platforms),
		cmocka_unit_test(test_platform_order),
		cmocka_unit_test(test_requirements),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
