/* tests/unit/test_requirement.c: resolver/requirement (PEP 508 requirements, PEP 503 names). */

/* The reference is packaging 24.2 (tests/fixtures/real/packaging_vectors/packaging-24.2): its
 * vectors cover canonicalize_name; the requirement cases below follow packaging 24.2's grammar
 * (src/packaging/_parser.py) and are written here, as the vectors have none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "tests/unit/vectors.h"
#include "resolver/requirement.h"


static char *canon(const char *s, size_t n)
{
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_name_canonicalize(s, n, &b), 0);
	return wp_buf_detach(&b, NULL);
}

static void test_canonicalize_name(void **state)
{
	FILE *f = open_vectors("canonicalize_name.tsv");
	char line[512];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	while (next_row(f, line, sizeof(line), &r)) {
		char *got = canon(r.col[0], r.len[0]);
		if (strcmp(got, r.col[1])) {
			print_error("canonicalize_name('%s'): want '%s', got '%s'\n", r.col[0],
				    r.col[1], got);
			fail();
		}
		free(got);
		rows++;
	}
	fclose(f);
	print_message("canonicalize_name.tsv: %zu/%zu rows pass\n", rows, rows);

	char *s = canon("Torch_Vision", 12);
	assert_string_equal(s, "torch-vision");
	free(s);
	s = canon("nvidia-cudnn-cu12", 17);
	assert_string_equal(s, "nvidia-cudnn-cu12");
	free(s);
	s = canon("", 0);
	assert_string_equal(s, "");
	free(s);
	/* the ceiling is honoured */
	struct wp_buf small = WP_BUF_INIT_MAX(4);
	assert_int_equal(wp_name_canonicalize("abcdef", 6, &small), -WPE_TOO_BIG);
	wp_buf_free(&small);
}

static void req_ok(struct wp_requirement *r, const char *s)
{
	struct wp_err err = WP_ERR_INIT;
	if (wp_requirement_parse(r, s, strlen(s), &err)) {
		print_error("cannot parse requirement '%s': %s\n", s, err.msg);
		fail();
	}
}

static char *req_str(const struct wp_requirement *r)
{
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_requirement_format(r, &b), 0);
	return wp_buf_detach(&b, NULL);
}

static void test_valid(void **state)
{
	static const struct {
		const char *in, *str, *name, *url; /* url NULL: none */
		size_t nextras;
		size_t nspecs;
		bool marker;
	} cases[] = {
		{ "torch", "torch", "torch", NULL, 0, 0, false },
		{ "  torch  ", "torch", "torch", NULL, 0, 0, false },
		{ "torch==1.8.0", "torch==1.8.0", "torch", NULL, 0, 1, false },
		{ "torch (>=1.8, <2)", "torch<2,>=1.8", "torch", NULL, 0, 2, false },
		{ "torch>=1.8,", "torch>=1.8", "torch", NULL, 0, 1, false },
		{ "torch == 1.8.*", "torch==1.8.*", "torch", NULL, 0, 1, false },
		{ "torch==1.8.0+cu111", "torch==1.8.0+cu111", "torch", NULL, 0, 1, false },
		{ "Foo_Bar[Security, tests ]>=2.8.1,==2.8.*; python_version < \"2.7\"",
		  "Foo_Bar[Security,tests]==2.8.*,>=2.8.1; python_version < \"2.7\"", "Foo_Bar",
		  NULL, 2, 2, true },
		{ "name[]", "name", "name", NULL, 0, 0, false },
		{ "name[b,a,b]", "name[a,b]", "name", NULL, 2, 0, false },
		{ "name;os_name=='a'", "name; os_name == \"a\"", "name", NULL, 0, 0, true },
		{ "name==1.0;os_name=='a'", "name==1.0; os_name == \"a\"", "name", NULL, 0, 1,
		  true },
		{ "name===1.0;os_name=='a'", "name===1.0; os_name == \"a\"", "name", NULL, 0, 1,
		  true },
		{ "nvidia-cudnn-cu12==8.9.2.26; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		  "nvidia-cudnn-cu12==8.9.2.26; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
		  "nvidia-cudnn-cu12", NULL, 0, 1, true },
		{ "triton==2.1.0; extra == \"Dynamo\"", "triton==2.1.0; extra == \"dynamo\"",
		  "triton", NULL, 0, 1, true },
		{ "name @ https://example.com/name-1.0.whl",
		  "name@ https://example.com/name-1.0.whl", "name",
		  "https://example.com/name-1.0.whl", 0, 0, false },
		{ "name[x]@file:///tmp/a.whl ; os_name == 'posix'",
		  "name[x]@ file:///tmp/a.whl ; os_name == \"posix\"", "name", "file:///tmp/a.whl",
		  1, 0, true },
		{ "name @ https://x/a;b", "name@ https://x/a;b", "name", "https://x/a;b", 0, 0,
		  false },
		{ "name @ https://x/a.whl ", "name@ https://x/a.whl", "name", "https://x/a.whl", 0,
		  0, false },
		{ "a.b-c_d", "a.b-c_d", "a.b-c_d", NULL, 0, 0, false },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		struct wp_requirement r;
		req_ok(&r, cases[i].in);
		assert_string_equal(r.name, cases[i].name);
		if (cases[i].url)
			assert_string_equal(r.url, cases[i].url);
		else
			assert_null(r.url);
		assert_int_equal(r.nextras, cases[i].nextras);
		assert_int_equal(r.spec.n, cases[i].nspecs);
		assert_int_equal(r.has_marker, cases[i].marker);
		char *s = req_str(&r);
		if (strcmp(s, cases[i].str)) {
			print_error("str('%s'): want '%s', got '%s'\n", cases[i].in, cases[i].str,
				    s);
			fail();
		}
		/* printing parses back to the same text */
		struct wp_requirement again;
		req_ok(&again, s);
		char *s2 = req_str(&again);
		assert_string_equal(s, s2);
		free(s2);
		wp_requirement_release(&again);
		free(s);
		wp_requirement_release(&r);
	}
}

static void test_meaning(void **state)
{
	struct wp_requirement r;
	struct wp_version v;
	struct wp_marker_env env;
	bool result = false;

	req_ok(&r, "torch>=1.8,<2.1; python_version >= '3.8' and sys_platform == 'linux'");
	assert_int_equal(wp_version_parse(&v, "2.0.1+cu118", 11, NULL), 0);
	assert_true(wp_specset_contains(&r.spec, &v, WP_PRERELEASES_DEFAULT));
	wp_version_release(&v);
	assert_int_equal(wp_version_parse(&v, "2.1.0", 5, NULL), 0);
	assert_false(wp_specset_contains(&r.spec, &v, WP_PRERELEASES_DEFAULT));
	wp_version_release(&v);
	wp_marker_env_init(&env);
	assert_int_equal(wp_marker_env_set(&env, "python_version", "3.10", NULL), 0);
	assert_int_equal(wp_marker_env_set(&env, "sys_platform", "linux", NULL), 0);
	assert_int_equal(wp_marker_evaluate(&r.marker, &env, &result, NULL), 0);
	assert_true(result);
	assert_int_equal(wp_marker_env_set(&env, "python_version", "3.7", NULL), 0);
	assert_int_equal(wp_marker_evaluate(&r.marker, &env, &result, NULL), 0);
	assert_false(result);
	wp_requirement_release(&r);
	wp_requirement_release(&r); /* harmless twice */
}

static void test_invalid(void **state)
{
	static const struct {
		const char *in, *why;
	} cases[] = {
		{ "", "package name" },
		{ "-name", "package name" },
		{ "name-", "end" },
		{ "name[bar baz]", "comma between extra" },
		{ "name[bar,]", "extra name after the comma" },
		{ "name[bar", "']'" },
		{ "name (>=1.0", "')'" },
		{ "name>=1.0.*", "prefix matching" },
		{ "name>=1.0+cu111", "local version" },
		{ "name=>1.0", "';'" },
		{ "name 1.0", "';'" },
		{ "name>=1.0 os_name=='a'", "';'" },
		{ "name @ https://example.com/; extra == 'x'", "';'" },
		{ "name @ ", "URL" },
		{ "name; os_name ==", "marker variable or quoted string" },
		{ "name; (os_name == 'a'", "')'" },
		{ "name; os_name == 'a' garbage", "end" },
		{ "name==1.9999999999999999999", "18 digits" },
		{ "name\n\n", "end" },
		/* a final newline is not PEP 508 (the spec's \Z; packaging HEAD refuses it too) */
		{ "torch\n", "end" },
		{ "torch>=1\n", "end" },
		{ "torch; os_name == 'a'\n", "end" },
		{ "torch @ https://example.com/t.whl\n", "whitespace" },
		{ "torch~=2", "~= needs two release segments" },
		{ "torch>=1,~= 2", "~= needs two release segments" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		struct wp_requirement r;
		struct wp_err err = WP_ERR_INIT;
		int rc = wp_requirement_parse(&r, cases[i].in, strlen(cases[i].in), &err);
		if (rc >= 0 || !strstr(err.msg, cases[i].why)) {
			print_error("'%s': want an error about %s, got %d '%s'\n", cases[i].in,
				    cases[i].why, rc, err.msg);
			fail();
		}
		assert_null(r.name);
		assert_null(r.spec.specs);
	}
	/* the ceiling */
	char *big = wp_xmalloc(WP_REQUIREMENT_MAX_LEN + 1);
	memset(big, 'a', WP_REQUIREMENT_MAX_LEN + 1);
	struct wp_requirement r;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_requirement_parse(&r, big, WP_REQUIREMENT_MAX_LEN + 1, &err),
			 -WPE_TOO_BIG);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonicalize_name),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_meaning),
		cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
