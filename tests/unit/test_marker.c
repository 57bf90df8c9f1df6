/* tests/unit/test_marker.c: resolver/marker against packaging 24.2's own test vectors. */

/* The reference is packaging 24.2 (tests/fixtures/real/packaging_vectors/packaging-24.2), the
 * packaging pip 23/24 vendors. Every row of every file below must pass; none is skipped. Where
 * packaging 24.2 raises (InvalidVersion, KeyError) this code answers or reports an error on
 * purpose; those cases are tested at the end with the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "tests/unit/vectors.h"
#include "resolver/marker.h"
#include "resolver/target.h"


static struct wp_target target(const char *platform, int major, int minor, int micro)
{
	struct wp_target t;
	memset(&t, 0, sizeof(t));
	snprintf(t.impl, sizeof(t.impl), "cp");
	t.py_major = major;
	t.py_minor = minor;
	t.py_micro = micro;
	snprintf(t.platform, sizeof(t.platform), "%s", platform);
	return t;
}

/* packaging's default_environment() on the posix machine the vectors were made on */
static void default_env(struct wp_marker_env *env)
{
	struct wp_target t = target("manylinux_2_28_x86_64", 3, 11, 7);
	wp_marker_env_from_target(env, &t);
}

static void marker_ok(struct wp_marker *m, const char *s, size_t n)
{
	struct wp_err err = WP_ERR_INIT;
	if (wp_marker_parse(m, s, n, &err)) {
		print_error("cannot parse marker '%.*s': %s\n", (int)n, s, err.msg);
		fail();
	}
}

static char *marker_str(const struct wp_marker *m)
{
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_marker_format(m, &b), 0);
	return wp_buf_detach(&b, NULL);
}

/* Environment JSON from the vectors, over the default environment. */
static void env_from_json(struct wp_marker_env *env, const char *json)
{
	default_env(env);
	if (!strcmp(json, "<None>"))
		return;
	char ebuf[128];
	yajl_val root = yajl_tree_parse(json, ebuf, sizeof(ebuf));
	assert_non_null(root);
	assert_true(YAJL_IS_OBJECT(root));
	for (size_t i = 0; i < root->u.object.len; i++) {
		struct wp_err err = WP_ERR_INIT;
		const char *v = YAJL_GET_STRING(root->u.object.values[i]);
		assert_non_null(v);
		assert_int_equal(wp_marker_env_set(env, root->u.object.keys[i], v, &err), 0);
	}
	yajl_tree_free(root);
}

static bool eval_text(const char *marker, const struct wp_marker_env *env)
{
	struct wp_marker m;
	struct wp_err err = WP_ERR_INIT;
	bool result = false;
	marker_ok(&m, marker, strlen(marker));
	if (wp_marker_evaluate(&m, env, &result, &err)) {
		print_error("evaluating '%s': %s\n", marker, err.msg);
		fail();
	}
	wp_marker_release(&m);
	return result;
}

static void check_evaluate(const char *file)
{
	FILE *f = open_vectors(file);
	char line[1024];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	assert_string_equal(r.col[1], "environment");
	while (next_row(f, line, sizeof(line), &r)) {
		struct wp_marker_env env;
		env_from_json(&env, r.col[1]);
		if (eval_text(r.col[0], &env) != is_true(r.col[2])) {
			print_error("%s: '%s' in %s: want %s\n", file, r.col[0], r.col[1],
				    r.col[2]);
			fail();
		}
		rows++;
	}
	fclose(f);
	print_message("%s: %zu/%zu rows pass\n", file, rows, rows);
}

static void test_evaluate(void **state)
{
	check_evaluate("markers_evaluate.tsv");
}

static void test_evaluate_pep345(void **state)
{
	check_evaluate("markers_evaluate_pep345.tsv");
}

static void test_invalid(void **state)
{
	FILE *f = open_vectors("markers_invalid.tsv");
	char line[1024];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	while (next_row(f, line, sizeof(line), &r)) {
		struct wp_marker m;
		struct wp_err err = WP_ERR_INIT;
		if (wp_marker_parse(&m, r.col[0], r.len[0], &err) != -WPE_PARSE) {
			print_error("'%s' should be invalid\n", r.col[0]);
			fail();
		}
		assert_non_null(strstr(err.msg, "invalid marker '"));
		assert_null(m.root);
		rows++;
	}
	fclose(f);
	print_message("markers_invalid.tsv: %zu/%zu rows pass\n", rows, rows);
}

/* Must parse; str() must parse again and print the same. Evaluation either answers or reports
 * an error (~= and === on strings) — it never crashes. */
static void check_valid_marker(const char *text, size_t *evaluated, size_t *undefined)
{
	struct wp_marker m, again;
	struct wp_marker_env env;
	struct wp_err err = WP_ERR_INIT;
	bool result;
	marker_ok(&m, text, strlen(text));
	char *s = marker_str(&m);
	marker_ok(&again, s, strlen(s));
	char *s2 = marker_str(&again);
	assert_string_equal(s, s2);
	default_env(&env);
	int rc = wp_marker_evaluate(&m, &env, &result, &err);
	if (rc == 0) {
		(*evaluated)++;
	} else {
		assert_int_equal(rc, -WPE_PARSE);
		assert_true(strstr(text, "~=") || strstr(text, "==="));
		(*undefined)++;
	}
	free(s);
	free(s2);
	wp_marker_release(&m);
	wp_marker_release(&again);
}

static void test_valid_generated(void **state)
{
	FILE *f = open_vectors("markers_valid_generated.txt");
	char line[1024];
	size_t rows = 0, evaluated = 0, undefined = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		check_valid_marker(line, &evaluated, &undefined);
		rows++;
	}
	fclose(f);
	assert_true(rows > 1000);
	print_message("markers_valid_generated.txt: %zu/%zu parse and print back (%zu evaluate, %zu are ~=/=== on strings)\n",
		      rows, rows, evaluated, undefined);
}

/* The PEP 345 and setuptools spellings, from packaging_vectors.json. */
static void test_legacy_generated(void **state)
{
	FILE *f = open_vectors("packaging_vectors.json");
	struct wp_buf text = WP_BUF_INIT;
	char chunk[4096];
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		assert_int_equal(wp_buf_add(&text, chunk, got), 0);
	fclose(f);
	char ebuf[128];
	yajl_val root = yajl_tree_parse(wp_buf_cstr(&text), ebuf, sizeof(ebuf));
	assert_non_null(root);
	static const char *const keys[] = { "markers_pep345_valid_generated",
					    "markers_setuptools_legacy_valid_generated" };
	for (size_t k = 0; k < 2; k++) {
		const char *path[] = { keys[k], NULL };
		yajl_val list = yajl_tree_get(root, path, yajl_t_array);
		size_t evaluated = 0, undefined = 0;
		assert_non_null(list);
		for (size_t i = 0; i < list->u.array.len; i++)
			check_valid_marker(YAJL_GET_STRING(list->u.array.values[i]), &evaluated,
					   &undefined);
		print_message("%s: %zu/%zu rows pass\n", keys[k], list->u.array.len,
			      list->u.array.len);
	}
	yajl_tree_free(root);
	wp_buf_free(&text);
}

static void str_rows(const char *rel)
{
	FILE *f = fixture_open(rel);
	char line[1024];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	while (next_row(f, line, sizeof(line), &r)) {
		struct wp_marker m;
		marker_ok(&m, r.col[0], r.len[0]);
		char *s = marker_str(&m);
		if (strcmp(s, r.col[1])) {
			print_error("str('%s'): want '%s', got '%s'\n", r.col[0], r.col[1], s);
			fail();
		}
		free(s);
		wp_marker_release(&m);
		rows++;
	}
	fclose(f);
	print_message("%s: %zu/%zu rows pass\n", rel, rows, rows);
}

/* 24.2's rows, and HEAD's, which add a value holding a double quote: printed in single quotes */
static void test_str(void **state)
{
	str_rows("packaging_vectors/packaging-24.2/markers_str.tsv");
	str_rows("packaging_vectors/packaging-26.4.dev0_HEAD/markers_str.tsv");
}

/* ---- wheelpick's own cases ---- */

static void expect_env(const char *platform, const char *subdir, const char *sys,
		       const char *system, const char *os, const char *machine)
{
	struct wp_target t = target(platform, 3, 8, -1);
	struct wp_marker_env env;
	snprintf(t.conda_subdir, sizeof(t.conda_subdir), "%s", subdir);
	wp_marker_env_from_target(&env, &t);
	assert_string_equal(env.sys_platform, sys);
	assert_string_equal(env.platform_system, system);
	assert_string_equal(env.os_name, os);
	assert_string_equal(env.platform_machine, machine);
	assert_string_equal(env.python_version, "3.8");
	assert_string_equal(env.python_full_version, "3.8.0");
	assert_string_equal(env.implementation_name, "cpython");
	assert_string_equal(env.platform_python_implementation, "CPython");
	assert_string_equal(env.extra, "");
}

static void test_env_from_target(void **state)
{
	expect_env("manylinux_2_28_x86_64", "", "linux", "Linux", "posix", "x86_64");
	expect_env("manylinux2014_aarch64", "", "linux", "Linux", "posix", "aarch64");
	expect_env("manylinux1_i686", "", "linux", "Linux", "posix", "i686");
	expect_env("musllinux_1_2_x86_64", "", "linux", "Linux", "posix", "x86_64");
	expect_env("linux_x86_64", "", "linux", "Linux", "posix", "x86_64");
	expect_env("linux_armv7l", "", "linux", "Linux", "posix", "armv7l");
	expect_env("manylinux_2_17_ppc64le", "", "linux", "Linux", "posix", "ppc64le");
	expect_env("win_amd64", "", "win32", "Windows", "nt", "AMD64");
	expect_env("win32", "", "win32", "Windows", "nt", "x86");
	expect_env("win_arm64", "", "win32", "Windows", "nt", "ARM64");
	expect_env("macosx_11_0_arm64", "", "darwin", "Darwin", "posix", "arm64");
	expect_env("macosx_10_9_x86_64", "", "darwin", "Darwin", "posix", "x86_64");
	expect_env("macosx_10_9_universal2", "", "darwin", "Darwin", "posix", "arm64");
	expect_env("", "win-64", "win32", "Windows", "nt", "AMD64");
	expect_env("", "osx-arm64", "darwin", "Darwin", "posix", "arm64");

	struct wp_target t = target("win_amd64", 3, 12, 4);
	struct wp_marker_env env;
	wp_marker_env_from_target(&env, &t);
	assert_string_equal(env.python_full_version, "3.12.4");
	assert_string_equal(env.implementation_version, "3.12.4");
	/* what PyTorch's own requirements ask */
	assert_true(eval_text("platform_system == 'Windows' and python_version >= '3.8'", &env));
	assert_false(eval_text("sys_platform == 'linux' and platform_machine == 'x86_64'", &env));
	assert_true(eval_text("python_version < '3.13'", &env));
	assert_false(eval_text("python_version < '3.12'", &env));
	t = target("manylinux_2_28_x86_64", 3, 10, -1);
	wp_marker_env_from_target(&env, &t);
	assert_true(
		eval_text("platform_system == \"Linux\" and platform_machine == \"x86_64\"", &env));
	assert_true(eval_text("python_full_version >= '3.10.0' and python_full_version < '3.10.1'",
			      &env));

	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_marker_env_set(&env, "pythonversion", "3", &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "'pythonversion'"));
	assert_null(wp_marker_env_get(&env, "nope"));
	assert_string_equal(wp_marker_env_get(&env, "python_version"), "3.10");
}

static void test_semantics(void **state)
{
	struct wp_marker_env env;
	default_env(&env);
	/* version comparison when both sides are versions, strings otherwise */
	assert_true(eval_text("python_version > '3.9'", &env));      /* 3.11 > 3.9 as versions */
	assert_true(eval_text("'3.9' < python_version", &env));
	assert_true(eval_text("python_version == '3.11.*'", &env));
	assert_true(eval_text("python_version ~= '3.10'", &env));
	assert_false(eval_text("python_full_version < '3.11.7'", &env));
	/* String fields (dependency-specifiers, revised 2026-01-10): "treat >= and <= as
	 * equivalent to ==", "treat > and < as always being False" */
	assert_false(eval_text("implementation_name > 'abc'", &env));
	assert_false(eval_text("os_name > 'a'", &env));
	assert_false(eval_text("os_name < 'zzz'", &env));
	assert_true(eval_text("os_name >= 'posix'", &env));
	assert_false(eval_text("os_name <= 'zzz'", &env));
	/* String fields never compare as versions: "1.0" is not "1" for platform_machine */
	assert_int_equal(wp_marker_env_set(&env, "platform_machine", "1", NULL), 0);
	assert_false(eval_text("platform_machine == '1.0'", &env));
	assert_int_equal(wp_marker_env_set(&env, "platform_machine", "x86_64", NULL), 0);
	assert_true(eval_text("'linu' in sys_platform", &env));
	assert_true(eval_text("'' in sys_platform", &env));
	assert_false(eval_text("'x86' not in platform_machine", &env));
	/* pre-releases always count in markers */
	assert_true(eval_text("python_full_version >= '3.11.0rc1'", &env));
	/* and binds tighter than or; parentheses group */
	assert_true(eval_text("os_name == 'nt' and os_name == 'x' or os_name == 'posix'", &env));
	assert_false(eval_text("os_name == 'nt' and (os_name == 'x' or os_name == 'posix')", &env));
	assert_true(eval_text("((os_name == 'posix'))", &env));
	/* extras compare in PEP 503 form */
	assert_int_equal(wp_marker_env_set(&env, "extra", "Torch_Vision", NULL), 0);
	assert_true(eval_text("extra == 'torch.vision'", &env));
	/* spelling: tabs, no space around operators, and/or glued to quotes */
	assert_true(eval_text("os_name=='posix'and\tpython_version>='3'", &env));
	/* Python string escapes, as ast.literal_eval reads them */
	assert_int_equal(wp_marker_env_set(&env, "platform_version", "#1 SMP\tx\xc3\xa9", NULL), 0);
	assert_true(eval_text("platform_version == '#1 SMP\\tx\\xe9'", &env));
	assert_true(eval_text("platform_version == \"#1 SMP\\tx\\u00e9\"", &env));
	assert_true(eval_text("'\\x23' in platform_version", &env));
	assert_true(eval_text("'\\d' not in platform_version", &env)); /* unknown escape kept */
	/* python_full_version "3.11.0+" (CPython from git) is read as 3.11.0+local */
	assert_int_equal(wp_marker_env_set(&env, "python_full_version", "3.11.0+", NULL), 0);
	assert_true(eval_text("python_full_version >= '3.11'", &env));
	assert_true(eval_text("python_full_version == '3.11.0'", &env));
}

static void test_divergences(void **state)
{
	struct wp_marker_env env;
	struct wp_marker m;
	struct wp_err err = WP_ERR_INIT;
	bool result = true;
	default_env(&env);
	/* platform_release is "Version | String": a Debian kernel's release is no version, so
	 * "fall back to String field comparison logic" (packaging HEAD answers False to all) */
	assert_int_equal(wp_marker_env_set(&env, "platform_release", "6.1.0-17-amd64", NULL), 0);
	assert_false(eval_text("platform_release >= '6'", &env));
	assert_false(eval_text("platform_release > '6'", &env));
	assert_false(eval_text("platform_release == '6.1'", &env));
	assert_true(eval_text("platform_release != '6.1'", &env));
	assert_false(eval_text("platform_release ~= '6.1'", &env)); /* ~= read as == there, no error
								     */
	/* === is PEP 440's arbitrary equality, a string comparison, whatever the value holds */
	assert_true(eval_text("platform_release === '6.1.0-17-AMD64'", &env));
	assert_false(eval_text("platform_release === '6.1.0'", &env));
	/* and where the value is a version, versions compare */
	assert_int_equal(wp_marker_env_set(&env, "platform_release", "23.1.0", NULL), 0);
	assert_true(eval_text("platform_release >= '22'", &env));
	/* platform_version is "Version | String" too (packaging HEAD: String only) */
	assert_int_equal(wp_marker_env_set(&env, "platform_version", "13", NULL), 0);
	assert_true(eval_text("platform_version >= '12.1'", &env));
	assert_int_equal(wp_marker_env_set(&env, "platform_version", "", NULL), 0);
	/* extra: "Other comparison operations on extra ... SHOULD evaluate them as False" */
	assert_int_equal(wp_marker_env_set(&env, "extra", "test", NULL), 0);
	assert_false(eval_text("extra >= 'test'", &env));
	assert_false(eval_text("'te' in extra", &env));
	assert_true(eval_text("extra == 'test'", &env));
	assert_int_equal(wp_marker_env_set(&env, "extra", "", NULL), 0);
	assert_true(eval_text("extra == '1.0' or os_name == 'posix'", &env)); /* extra is "" */
	/* ~= and === have no string meaning: an error, as packaging's UndefinedComparison */
	marker_ok(&m, "os_name ~= 'posix'", 18);
	assert_int_equal(wp_marker_evaluate(&m, &env, &result, &err), -WPE_PARSE);
	assert_non_null(strstr(err.msg, "'posix'"));
	wp_marker_release(&m);
	wp_err_clear(&err);
	/* every comparison is evaluated, so the error shows even after a true "or" */
	marker_ok(&m, "os_name == 'posix' or os_name ~= 'x'", 36);
	assert_int_equal(wp_marker_evaluate(&m, &env, &result, &err), -WPE_PARSE);
	wp_marker_release(&m);
	wp_err_clear(&err);
	/* packaging parses these and then raises KeyError or compares a variable's name; PEP 508's
	 * grammar allows them, and they compare as any other comparison does */
	assert_true(eval_text("'a' == 'a'", &env));
	assert_false(eval_text("\"2.7.9\" < \"foo\"", &env)); /* foo is no version: String rules, <
								 False */
	assert_true(eval_text("\"2.7.10\" > \"2.7.9\"", &env)); /* two versions: version rules */
	assert_false(eval_text("'2.7.10' < '2.7.9' and os_name == 'posix'", &env));
	assert_false(eval_text("os_name == sys_platform", &env)); /* posix, linux */
	assert_true(eval_text("os_name == os_name", &env));
	/* ~= on two non-versions: the Version | String fallback reads it as == */
	assert_false(eval_text("'a' ~= 'b'", &env));
	assert_true(eval_text("'a' ~= 'a'", &env));
	/* str(): a redundant (( )) keeps the parentheses the meaning needs (packaging HEAD; 24.2
	 * lost them and printed a marker that means something else) */
	marker_ok(&m, "((os_name == 'a' or os_name == 'b')) and os_name == 'c'", 55);
	char *printed = marker_str(&m);
	assert_string_equal(printed, "(os_name == \"a\" or os_name == \"b\") and os_name == \"c\"");
	free(printed);
	wp_marker_release(&m);
	/* extras and dependency_groups outside a lock file: "An error except when defined by the
	 * context", and an error makes the version ineligible (not an empty set) */
	marker_ok(&m, "'test' not in extras", 20);
	assert_int_equal(wp_marker_evaluate(&m, &env, &result, &err), -WPE_PARSE);
	assert_non_null(strstr(err.msg, "'extras'"));
	wp_marker_release(&m);
	wp_err_clear(&err);
	/* PEP 751 lock-file sets: extras and dependency_groups, names in PEP 503 form */
	env.lock_sets = true;
	assert_false(eval_text("'test' in extras", &env));
	assert_int_equal(wp_marker_env_set(&env, "extras", "Test_Extra\nother", NULL), 0);
	assert_int_equal(wp_marker_env_set(&env, "dependency_groups", "dev", NULL), 0);
	assert_true(eval_text("'test.extra' in extras", &env));
	assert_true(eval_text("'Other' in extras and 'dev' in dependency_groups", &env));
	assert_true(eval_text("'docs' not in dependency_groups", &env));
	marker_ok(&m, "extras == 'x'", 13);
	assert_int_equal(wp_marker_evaluate(&m, &env, &result, &err), -WPE_PARSE);
	wp_marker_release(&m);
}

/* packaging HEAD's own tests/test_markers.py (053c8846), TestOperatorEvaluation and
 * TestMarker.test_evaluates / test_version_like_equality, which the 2026-01-10 text agrees with:
 * wheelpick answers each as packaging HEAD does. */
static int eval_rc(const char *marker, const struct wp_marker_env *env)
{
	struct wp_marker m;
	struct wp_err err = WP_ERR_INIT;
	bool result = false;
	marker_ok(&m, marker, strlen(marker));
	int rc = wp_marker_evaluate(&m, env, &result, &err);
	wp_marker_release(&m);
	return rc < 0 ? rc : result;
}

static void test_head_suite(void **state)
{
	struct wp_marker_env env;
	default_env(&env);
	/* test_prefers_pep440, test_new_string_rules, test_allows_prerelease */
	assert_int_equal(wp_marker_env_set(&env, "python_full_version", "2.7.10", NULL), 0);
	assert_true(eval_text("\"2.7.9\" < python_full_version", &env));
	assert_int_equal(wp_marker_env_set(&env, "python_full_version", "2.7.8", NULL), 0);
	assert_false(eval_text("\"2.7.9\" < python_full_version", &env));
	assert_int_equal(wp_marker_env_set(&env, "python_full_version", "c", NULL), 0);
	assert_false(eval_text("\"b\" < python_full_version", &env));
	assert_int_equal(wp_marker_env_set(&env, "python_full_version", "a", NULL), 0);
	assert_false(eval_text("\"b\" < python_full_version", &env));
	assert_false(eval_text("\"b\" > \"a\"", &env));
	assert_false(eval_text("\"b\" < \"a\"", &env));
	assert_false(eval_text("\"b\" >= \"a\"", &env));
	assert_false(eval_text("\"b\" <= \"a\"", &env));
	assert_true(eval_text("\"a\" <= \"a\"", &env));
	assert_int_equal(wp_marker_env_set(&env, "python_full_version", "3.11.0a5", NULL), 0);
	assert_true(eval_text("python_full_version > \"3.6.2\"", &env));
	/* test_fails_when_undefined, test_arbitrary_equality_on_non_version_key_is_undefined */
	assert_int_equal(eval_rc("'2.7.0' ~= os_name", &env), -WPE_PARSE);
	assert_int_equal(eval_rc("os_name === 'posix'", &env), -WPE_PARSE);
	assert_int_equal(eval_rc("sys_platform === 'linux'", &env), -WPE_PARSE);
	/* test_evaluates */
	assert_int_equal(wp_marker_env_set(&env, "python_version", "2.7.5", NULL), 0);
	assert_true(eval_text("'2.7' in python_version", &env));
	assert_int_equal(wp_marker_env_set(&env, "python_version", "2.7", NULL), 0);
	assert_false(eval_text("'2.7' not in python_version", &env));
	assert_int_equal(wp_marker_env_set(&env, "os_name", "foo", NULL), 0);
	assert_int_equal(wp_marker_env_set(&env, "python_version", "2.7.6", NULL), 0);
	assert_true(eval_text("os_name == 'foo' and python_version ~= '2.7.0'", &env));
	assert_int_equal(wp_marker_env_set(&env, "python_version", "2.7.4", NULL), 0);
	assert_true(
		eval_text("python_version ~= '2.7.0' and (os_name == 'foo' or os_name == 'bar')",
			  &env));
	assert_int_equal(wp_marker_env_set(&env, "os_name", "other", NULL), 0);
	assert_false(
		eval_text("python_version ~= '2.7.0' and (os_name == 'foo' or os_name == 'bar')",
			  &env));
	static const struct {
		const char *marker, *extra;
		bool want;
	} extras[] = {
		{ "extra == 'security'", "quux", false },
		{ "extra == 'security'", "security", true },
		{ "extra == 'SECURITY'", "security", true },
		{ "extra == 'security'", "SECURITY", true },
		{ "extra == 'pep-685-norm'", "PEP_685...norm", true },
		{ "extra == 'Different.punctuation..is...equal'", "different__punctuation_is_EQUAL",
		  true },
		/* test_version_like_equality: extras are names, never versions */
		{ "extra == \"v2\"", "", false },
		{ "extra == \"v2\"", "v2", true },
		{ "extra == \"v2\"", "v2a3", false },
		{ "extra == \"v2a3\"", "v2", false },
		{ "extra == \"v2a3\"", "v2a3", true },
	};
	for (size_t i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
		assert_int_equal(wp_marker_env_set(&env, "extra", extras[i].extra, NULL), 0);
		if (eval_text(extras[i].marker, &env) != extras[i].want)
			fail_msg("'%s' with extra '%s'", extras[i].marker, extras[i].extra);
	}
	/* test_extras_and_dependency_groups: a lock file's sets; outside one, an error */
	assert_int_equal(eval_rc("\"foo\" in extras", &env), -WPE_PARSE);
	env.lock_sets = true;
	assert_int_equal(wp_marker_env_set(&env, "extras", "foo\nbar", NULL), 0);
	assert_true(eval_text("\"Foo\" in extras", &env));
	assert_false(eval_text("\"baz\" in extras and \"foo\" in extras", &env));
	assert_true(eval_text("\"baz\" not in extras", &env));
	/* test_set_valued_marker_on_lhs_raises_undefined_comparison */
	assert_int_equal(eval_rc("extras == 'foo'", &env), -WPE_PARSE);
	assert_int_equal(eval_rc("dependency_groups >= 'foo'", &env), -WPE_PARSE);
}

static void test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"",
		"   ",
		"os_name",
		"os_name ==",
		"os_name == 'a",
		"os_name = 'a'",
		"os_name == 'a' and",
		"os_name == 'a' AND os_name == 'b'",
		"(os_name == 'a'",
		"os_name == 'a')",
		"os_name not'a'",
		"os_name notin 'a'",
		"os_names == 'a'",
		"os_name == 'a'\n\n",
		"os_name == 'a\nb'",
		"os_name == 'a'\n",
		"os_name == 'a'\nand os_name == 'b'",
		"os_name ==\n'a'",
		"os_name == 'a'\r",
		"os_name == '\\N{LATIN SMALL LETTER E}'",
		"os_name == '\\x4'",
		"os_name == '\\0'",
		"os_name == \"a'",
		"python_version >= 3.8",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		struct wp_marker m;
		struct wp_err err = WP_ERR_INIT;
		if (wp_marker_parse(&m, bad[i], strlen(bad[i]), &err) != -WPE_PARSE) {
			print_error("'%s' should be invalid\n", bad[i]);
			fail();
		}
		assert_non_null(strstr(err.msg, "expected") ? err.msg : NULL);
	}
	/* nesting has a ceiling; deep input never exhausts the stack */
	struct wp_buf deep = WP_BUF_INIT;
	for (int i = 0; i < 10000; i++)
		wp_buf_addch(&deep, '(');
	struct wp_marker m;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_marker_parse(&m, deep.data, deep.len, &err), -WPE_TOO_BIG);
	wp_buf_free(&deep);
	wp_err_clear(&err);
	assert_int_equal(wp_marker_parse(&m, "os_name == 'a'\0", 15, &err), -WPE_PARSE);
	/* within the ceiling, nesting works */
	struct wp_buf ok = WP_BUF_INIT;
	for (int i = 0; i < WP_MARKER_MAX_DEPTH; i++)
		wp_buf_addch(&ok, '(');
	wp_buf_addstr(&ok, "os_name == 'posix'");
	for (int i = 0; i < WP_MARKER_MAX_DEPTH; i++)
		wp_buf_addch(&ok, ')');
	struct wp_marker_env env;
	default_env(&env);
	assert_true(eval_text(ok.data, &env));
	wp_buf_free(&ok);
}

static void test_format(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "os.name=='a'", "os_name == \"a\"" },
		{ "python_implementation != 'x'", "platform_python_implementation != \"x\"" },
		{ "extra == 'Foo.Bar'", "extra == \"foo-bar\"" }, /* first comparison only, as
								     packaging */
		{ "os_name == 'a' and extra == 'Foo.Bar'",
		  "os_name == \"a\" and extra == \"Foo.Bar\"" },
		{ "'a' not  in\tos_name", "\"a\" not in os_name" },
		{ "(os_name == 'a' or (os_name == 'b')) and os_name == 'c'",
		  "(os_name == \"a\" or os_name == \"b\") and os_name == \"c\"" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		struct wp_marker m;
		marker_ok(&m, cases[i].in, strlen(cases[i].in));
		char *s = marker_str(&m);
		assert_string_equal(s, cases[i].out);
		free(s);
		wp_marker_release(&m);
	}
}

/* Which extra a Requires-Dist belongs to, asked of the parsed marker (pick's "does not provide
 * the extra" warning): extra == 'X' either way round, anywhere in the tree, PEP 685's form. */
static void test_compares_eq(void **state)
{
	static const struct {
		const char *marker, *extra;
		bool yes;
	} cases[] = {
		{ "extra == 'cuda'", "cuda", true },
		{ "'cuda' == extra", "cuda", true },
		{ "python_version >= '3.8' and (extra == \"Foo_Bar\" or extra == 'x')", "foo-bar",
		  true },
		{ "python_version >= '3.8' and (extra == \"Foo_Bar\" or extra == 'x')", "x", true },
		{ "extra != 'cuda'", "cuda", false },
		{ "extra == 'cudax'", "cuda", false },
		{ "sys_platform == 'cuda'", "cuda", false },
		{ "python_version >= '3'", "cuda", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wp_marker m;
		struct wp_err e = WP_ERR_INIT;
		assert_int_equal(wp_marker_parse(&m, cases[i].marker, strlen(cases[i].marker), &e),
				 0);
		if (wp_marker_compares_eq(&m, "extra", cases[i].extra) != cases[i].yes)
			fail_msg("'%s' for extra '%s': want %d", cases[i].marker, cases[i].extra,
				 cases[i].yes);
		wp_marker_release(&m);
	}
	struct wp_marker m;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_marker_parse(&m, "sys_platform == 'linux'", 23, &e), 0);
	assert_true(wp_marker_compares_eq(&m, "sys_platform", "linux"));
	assert_false(wp_marker_compares_eq(&m, "no_such_variable", "linux"));
	wp_marker_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evaluate),
		cmocka_unit_test(test_evaluate_pep345),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_valid_generated),
		cmocka_unit_test(test_legacy_generated),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_env_from_target),
		cmocka_unit_test(test_semantics),
		cmocka_unit_test(test_divergences),
		cmocka_unit_test(test_head_suite),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_compares_eq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
