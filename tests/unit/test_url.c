/* tests/unit/test_url.c: reference resolution, hash fragments and file names of index links. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/url.h"

static void expect_resolve(const char *base, const char *ref, const char *want)
{
	struct wp_err err = WP_ERR_INIT;
	char *got = NULL;
	int rc = wp_url_resolve(base, ref, &got, &err);
	if (rc)
		fail_msg("resolve '%s' against '%s': %s", ref, base, err.msg);
	assert_string_equal(got, want);
	free(got);
}

static void test_rfc3986_examples(void **state)
{
	/* RFC 3986 section 5.4 normal and abnormal examples */
	static const char *const cases[][2] = {
		{ "g:h", "g:h" },
		{ "g", "http://a/b/c/g" },
		{ "./g", "http://a/b/c/g" },
		{ "g/", "http://a/b/c/g/" },
		{ "/g", "http://a/g" },
		{ "//g", "http://g" },
		{ "?y", "http://a/b/c/d;p?y" },
		{ "g?y", "http://a/b/c/g?y" },
		{ "#s", "http://a/b/c/d;p?q#s" },
		{ "g#s", "http://a/b/c/g#s" },
		{ "g?y#s", "http://a/b/c/g?y#s" },
		{ ";x", "http://a/b/c/;x" },
		{ "g;x", "http://a/b/c/g;x" },
		{ "", "http://a/b/c/d;p?q" },
		{ ".", "http://a/b/c/" },
		{ "./", "http://a/b/c/" },
		{ "..", "http://a/b/" },
		{ "../", "http://a/b/" },
		{ "../g", "http://a/b/g" },
		{ "../..", "http://a/" },
		{ "../../", "http://a/" },
		{ "../../g", "http://a/g" },
		{ "../../../g", "http://a/g" },
		{ "../../../../g", "http://a/g" },
		{ "/./g", "http://a/g" },
		{ "/../g", "http://a/g" },
		{ "g.", "http://a/b/c/g." },
		{ ".g", "http://a/b/c/.g" },
		{ "g..", "http://a/b/c/g.." },
		{ "..g", "http://a/b/c/..g" },
		{ "./../g", "http://a/b/g" },
		{ "./g/.", "http://a/b/c/g/" },
		{ "g/./h", "http://a/b/c/g/h" },
		{ "g/../h", "http://a/b/c/h" },
		{ "g;x=1/./y", "http://a/b/c/g;x=1/y" },
		{ "g;x=1/../y", "http://a/b/c/y" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_resolve("http://a/b/c/d;p?q", cases[i][0], cases[i][1]);
}

static void test_pytorch_hrefs(void **state)
{
	expect_resolve("https://download.pytorch.org/whl/torch_stable.html",
		       "cu111/torch-1.8.0%2Bcu111-cp39-cp39-linux_x86_64.whl",
		       "https://download.pytorch.org/whl/cu111/torch-1.8.0%2Bcu111-cp39-cp39-linux_x86_64.whl");
	expect_resolve("https://download.pytorch.org/whl/torch/", "/whl/cu117/x.whl",
		       "https://download.pytorch.org/whl/cu117/x.whl");
	expect_resolve("https://download.pytorch.org/whl/cu102/torch_stable.html", "../x.whl",
		       "https://download.pytorch.org/whl/x.whl");
	expect_resolve("https://download.pytorch.org/whl/torch/", "https://example.org/a/b.whl",
		       "https://example.org/a/b.whl");
	expect_resolve("file:///srv/mirror/torch_stable.html", "cu102/x.whl",
		       "file:///srv/mirror/cu102/x.whl");
	expect_resolve("file:///srv/mirror/", "/other/x.whl", "file:///other/x.whl");
	expect_resolve("HTTPS://h/p/", "x.whl", "https://h/p/x.whl");
	/* browsers' repairs: trim, drop newlines, encode what a URL cannot hold */
	expect_resolve("https://h/p/", "  a b.whl\n", "https://h/p/a%20b.whl");
	expect_resolve("https://h/p/", "caf\xc3\xa9.whl", "https://h/p/caf%C3%A9.whl");
	expect_resolve("https://h/p/", "100%.whl", "https://h/p/100%25.whl");
}

/* Found by fuzzing: resolving a result again against the same base must give it back. */
static void test_fixed_point(void **state)
{
	static const char *const cases[][3] = {
		{ "p:%", "", "p:%25" },
		{ "A:..", "", "a:" },
		{ "K:\xd6/", "", "k:%D6/" },
		{ "K:x/", "k:%D6/", "k:%D6/" },
		{ "https://h/a/./b/../c", "", "https://h/a/c" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wp_err err = WP_ERR_INIT;
		char *out = NULL, *again = NULL;
		assert_int_equal(wp_url_resolve(cases[i][0], cases[i][1], &out, &err), 0);
		assert_string_equal(out, cases[i][2]);
		assert_int_equal(wp_url_resolve(cases[i][0], out, &again, &err), 0);
		assert_string_equal(again, out);
		free(out);
		free(again);
	}
}

static void test_resolve_refuses(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	char *got = NULL;
	assert_int_equal(wp_url_resolve("relative/page.html", "x.whl", &got, &err), -WPE_PARSE);
	assert_null(got);
	wp_err_clear(&err);
	assert_int_equal(wp_url_resolve("https://h/", "x\x01y.whl", &got, &err), -WPE_PARSE);
	assert_non_null(strstr(err.msg, "control character"));
	wp_err_clear(&err);
	assert_int_equal(wp_url_resolve("https://h/", "1bad:x", &got, &err), -WPE_PARSE);
}

static void test_hashes(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_url_hashes h;
	const char *sha = "sha256=6088930BFE239F0E6710546AB9C19C9EF35E29792895FED6E6E31A023A182A61";
	assert_int_equal(wp_url_fragment_hashes(sha, strlen(sha), &h, &err), 0);
	assert_string_equal(h.sha256,
			    "6088930bfe239f0e6710546ab9c19c9ef35e29792895fed6e6e31a023a182a61");
	assert_string_equal(h.md5, "");
	const char *both = "egg=x&md5=0123456789abcdef0123456789abcdef&sha1=zz";
	assert_int_equal(wp_url_fragment_hashes(both, strlen(both), &h, &err), 0);
	assert_string_equal(h.md5, "0123456789abcdef0123456789abcdef");
	const char
		*enc = "sha256%3D4095ada29e51070f7d199a0a5bdf5c8d8e238e03f0bf4dcc02571e78c9ae800d";
	assert_int_equal(wp_url_fragment_hashes(enc, strlen(enc), &h, &err), 0);
	assert_string_equal(h.sha256,
			    "4095ada29e51070f7d199a0a5bdf5c8d8e238e03f0bf4dcc02571e78c9ae800d");
	assert_int_equal(wp_url_fragment_hashes("main", 4, &h, &err), 0);
	assert_string_equal(h.sha256, "");
	assert_int_equal(wp_url_fragment_hashes("sha256=abc", 10, &h, &err), -WPE_PARSE);
	wp_err_clear(&err);
	const char
		*md5_long = "md5=6088930bfe239f0e6710546ab9c19c9ef35e29792895fed6e6e31a023a182a61";
	assert_int_equal(wp_url_fragment_hashes(md5_long, strlen(md5_long), &h, &err), -WPE_PARSE);
	assert_string_equal(h.md5, "");
}

static void test_link_parts(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_url_link l;
	assert_int_equal(wp_url_link_parse("https://download.pytorch.org/whl/torch_stable.html",
					   "cu111/torch-1.8.0%2Bcu111-cp39-cp39-linux_x86_64.whl#sha256="
					   "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
					   &l, &err),
			 0);
	assert_string_equal(l.url,
			    "https://download.pytorch.org/whl/cu111/torch-1.8.0%2Bcu111-cp39-cp39-linux_x86_64.whl");
	assert_string_equal(l.filename, "torch-1.8.0+cu111-cp39-cp39-linux_x86_64.whl");
	assert_string_equal(l.dir, "cu111");
	assert_string_equal(l.hashes.sha256,
			    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	wp_url_link_release(&l);

	assert_int_equal(wp_url_link_parse("https://h/whl/torch/", "/x.whl?project=legacy", &l,
					   &err),
			 0);
	assert_string_equal(l.url, "https://h/x.whl?project=legacy");
	assert_string_equal(l.filename, "x.whl");
	assert_null(l.dir);
	wp_url_link_release(&l);

	assert_int_equal(wp_url_link_parse("file:///srv/m/index.html", "cu102/x.whl", &l, &err), 0);
	assert_string_equal(l.url, "file:///srv/m/cu102/x.whl");
	assert_string_equal(l.dir, "cu102");
	wp_url_link_release(&l);

	/* a stray '%' is written as %25, as browsers do, and decodes back to itself */
	assert_int_equal(wp_url_link_parse("https://h/p/", "x%zz.whl", &l, &err), 0);
	assert_string_equal(l.url, "https://h/p/x%25zz.whl");
	assert_string_equal(l.filename, "x%zz.whl");
	wp_url_link_release(&l);

	static const char *const junk[] = {
		"javascript:alert(1)",
		"mailto:a@b",
		"ftp://h/x.whl",
		"",
		"   ",
		"dir/",
		"x%2Fy.whl",
		"x%00.whl",
		"x%0a.whl",
		"..",
		"a/%2E%2E",
		"x.whl#sha256=nothex",
		"data:text/html,x.whl",
	};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		wp_err_clear(&err);
		if (wp_url_link_parse("https://h/p/", junk[i], &l, &err) != -WPE_PARSE)
			fail_msg("'%s' was accepted as a file link", junk[i]);
		assert_null(l.url);
		assert_true(err.msg[0] != 0);
	}

	char *big = malloc(WP_HREF_MAX + 10);
	memset(big, 'a', WP_HREF_MAX + 9);
	big[WP_HREF_MAX + 9] = 0;
	wp_err_clear(&err);
	assert_int_equal(wp_url_link_parse("https://h/p/", big, &l, &err), -WPE_PARSE);
	free(big);
}

static void test_join_and_names(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	char *u = NULL;
	assert_int_equal(wp_url_join_segment("https://conda.anaconda.org/pytorch/linux-64/",
					     "pytorch-2.1.0-py3.9_cuda12.1_cudnn8.9.2_0.tar.bz2",
					     &u, &err),
			 0);
	assert_string_equal(u,
			    "https://conda.anaconda.org/pytorch/linux-64/pytorch-2.1.0-py3.9_cuda12.1_cudnn8.9.2_0.tar.bz2");
	free(u);
	assert_int_equal(wp_url_join_segment("https://c/x", "a b#?/c", &u, &err), 0);
	assert_string_equal(u, "https://c/x/a%20b%23%3F%2Fc");
	free(u);
	assert_true(wp_url_filename_ok("torch-1.8.0+cu111.whl"));
	assert_false(wp_url_filename_ok("a\\b"));
	assert_false(wp_url_filename_ok(".."));
	assert_false(wp_url_filename_ok(""));
	assert_true(wp_url_scheme_ok("FILE:///x"));
	assert_false(wp_url_scheme_ok("javascript:x"));
}

/* A destination written as a URL is told from a path by "scheme://". */
static void test_scheme_len(void **state)
{
	(void)state;
	assert_int_equal(wp_url_scheme_len("s3://bucket/prefix"), 2);
	assert_int_equal(wp_url_scheme_len("GS://b"), 2);
	assert_int_equal(wp_url_scheme_len("git+ssh://h/r"), 7);
	assert_int_equal(wp_url_scheme_len("mirror"), 0);
	assert_int_equal(wp_url_scheme_len("./s3://b"), 0);
	assert_int_equal(wp_url_scheme_len("s3:b"), 0);
	assert_int_equal(wp_url_scheme_len("s3:/b"), 2);
	assert_int_equal(wp_url_scheme_len("3s://b"), 0);
	assert_int_equal(wp_url_scheme_len("C:/x"), 0);
	assert_int_equal(wp_url_scheme_len(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc3986_examples),
		cmocka_unit_test(test_pytorch_hrefs),
		cmocka_unit_test(test_fixed_point),
		cmocka_unit_test(test_resolve_refuses),
		cmocka_unit_test(test_hashes),
		cmocka_unit_test(test_link_parts),
		cmocka_unit_test(test_join_and_names),
		cmocka_unit_test(test_scheme_len),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
