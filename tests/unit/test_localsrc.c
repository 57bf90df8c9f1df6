/* tests/unit/test_localsrc.c: the one file:// URL <-> local path conversion (index/localsrc.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "index/localsrc.h"

static void expect_path(const char *url, const char *want)
{
	struct wp_err err = WP_ERR_INIT;
	char *got = NULL;
	if (wp_local_path(url, &got, &err))
		fail_msg("'%s': %s", url, err.msg);
	assert_string_equal(got, want);
	free(got);
}

static void expect_refused(const char *url)
{
	struct wp_err err = WP_ERR_INIT;
	char *got = NULL;
	assert_int_equal(wp_local_path(url, &got, &err), -WPE_USAGE);
	assert_null(got);
	/* the one-line message names the URL at fault */
	assert_non_null(strstr(err.msg, url));
}

static void test_path(void **state)
{
	expect_path("file:///my%20dir/a.whl", "/my dir/a.whl");
	expect_path("file://localhost/my%20dir/", "/my dir/");
	expect_path("FILE://LOCALHOST/x", "/x");
	expect_path("file:///x/a.whl#sha256=00", "/x/a.whl");
	expect_path("file:///x?q", "/x");
	expect_path("file:///w%231/%25zz", "/w#1/%zz");
	expect_refused("https://h/x");
	expect_refused("file://build-host/x");
	expect_refused("file://x");
	expect_refused("file:///a%00b");
}

static void test_url_round_trip(void **state)
{
	static const char *const paths[] = { "/", "/plain/a-1.0_x~y.whl", "/my dir/x", "/w#1?a",
					     "/50%/zz", "/caf\xc3\xa9", "/a+b/c:d" };
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		char *url = wp_local_url(paths[i]);
		assert_true(!strncmp(url, "file:///", 8));
		assert_null(strpbrk(url, " #?+"));
		expect_path(url, paths[i]);
		free(url);
	}
	char *url = wp_local_url("/my dir/x");
	assert_string_equal(url, "file:///my%20dir/x");
	free(url);
	/* a drive's path gets the third '/' (file:///C:/x) */
	url = wp_local_url("C:/x y");
	assert_string_equal(url, "file:///C:/x%20y");
	free(url);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_url_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
