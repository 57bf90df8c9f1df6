/* tests/unit/test_wheel.c: wheel, metadata and conda verification against generated fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "verify/conda.h"
#include "verify/metadata.h"
#include "verify/recordcsv.h"
#include "verify/wheel.h"

struct fx {
	char dir[64];
};

static int fx_setup(void **state)
{
	struct fx *fx = wp_xcalloc(1, sizeof(*fx));
	if (test_tmpdir_make(fx->dir, sizeof(fx->dir), "wheel") < 0)
		return -1;
	char *cmd = wp_xasprintf("python3 tests/fixtures/mkwheels.py '%s'", fx->dir);
	int rc = system(cmd);
	free(cmd);
	*state = fx;
	return rc == 0 ? 0 : -1;
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;
	int rc = test_tmpdir_remove(fx->dir);
	free(fx);
	return rc;
}

static char *fx_path(void **state, const char *file)
{
	struct fx *fx = *state;
	return wp_xasprintf("%s/%s", fx->dir, file);
}

static char *case_path(void **state, const char *name)
{
	char *file = wp_xasprintf("%s-1.0-py3-none-any.whl", name);
	char *p = fx_path(state, file);
	free(file);
	return p;
}

static void test_good_wheel(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_wheel_info info;
	char *path = case_path(state, "demo_pkg");
	int rc = wp_wheel_verify(path, NULL, &info, &err);
	if (rc)
		print_message("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_string_equal(info.name, "demo-pkg");
	assert_string_equal(info.version, "1.0");
	assert_string_equal(info.requires_python, ">=3.8");
	assert_int_equal(info.n_requires_dist, 3);
	assert_string_equal(info.requires_dist[0], "numpy>=1.20");
	assert_string_equal(info.requires_dist[1], "requests[socks]<3,>=2.0; extra == \"http\"");
	assert_int_equal(info.n_provides_extra, 1);
	assert_string_equal(info.provides_extra[0], "http");
	assert_int_equal(info.n_tags, 1);
	assert_string_equal(info.tags[0], "py3-none-any");
	assert_true(info.root_is_purelib);
	assert_string_equal(info.wheel_version, "1.0");
	assert_string_equal(info.dist_info, "demo_pkg-1.0.dist-info");
	assert_int_equal(info.n_members, 5);
	wp_wheel_info_release(&info);

	/* The module really imports from the wheel (zipimport), so the fixture is a real wheel. */
	char *cmd = wp_xasprintf("python3 -c 'import sys; sys.path.insert(0, \"%s\"); import demo_pkg; "
				 "assert demo_pkg.VALUE == 42'",
				 path);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
}

static void test_good_wheel_dirs_and_quoting(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	char *path = case_path(state, "demo_dirs");
	int rc = wp_wheel_verify(path, NULL, NULL, &err);
	if (rc)
		print_message("%s\n", err.msg);
	assert_int_equal(rc, 0);
	free(path);
}

/* A zip64 wheel: the end record points through the zip64 locator, every entry's sizes are in its
 * zip64 extra (verify/zipcd.c reads both for the verifier and the METADATA reader). */
static void test_zip64_wheel(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_wheel_info info;
	char *path = case_path(state, "demo_zip64");
	int rc = wp_wheel_verify(path, NULL, &info, &err);
	if (rc)
		print_message("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_string_equal(info.name, "demo_zip64");
	assert_int_equal(info.n_members, 4);
	wp_wheel_info_release(&info);
	free(path);
}

static void test_verify_named(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	char *path = case_path(state, "demo_pkg");
	/* A store object has no wheel name of its own. */
	assert_int_equal(wp_wheel_verify_named(path, "demo_pkg-1.0-py3-none-any.whl", NULL, NULL,
					       &err),
			 0);
	assert_int_equal(wp_wheel_verify_named(path, "demo_pkg-2.0-py3-none-any.whl", NULL, NULL,
					       &err),
			 -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "does not match"));
	wp_err_clear(&err);
	assert_int_equal(wp_wheel_verify_named(path, "demo_pkg.zip", NULL, NULL, &err),
			 -WPE_INTEGRITY);
	free(path);
}

static const struct {
	const char *name;
	const char *expect; /* a part of the message */
} bad[] = {
	{ "bad_hash", "member 'bad_hash/__init__.py': sha256 mismatch: RECORD says" },
	{ "bad_size",
	  "member 'bad_size/__init__.py': size mismatch: RECORD says 59 bytes, got 58" },
	{ "not_in_record", "member 'not_in_record/extra.py' is not listed in RECORD" },
	{ "record_missing",
	  "RECORD lists 'record_missing/gone.py', which the wheel does not contain" },
	{ "no_hash", "member 'no_hash/__init__.py' has no hash in RECORD" },
	{ "traversal", "member '../../etc/x' has a '..' segment" },
	{ "absolute", "member '/etc/x' is an absolute path" },
	{ "symlink", "member 'symlink/link' is a symlink" },
	{ "duplicate", "member 'duplicate/__init__.py' appears twice" },
	{ "backslash", "has a backslash" },
	{ "nul_name", "member 'nul_name/a\\x00b.py' has a NUL byte" },
	{ "disagree",
	  "member 'disagree/good.py' is called 'disagree/evil.py' in its local header" },
	{ "no_dist_info", "has no .dist-info directory" },
	{ "two_dist_info", "more than one .dist-info directory" },
	{ "wrong_dist_info", "dist-info directory 'other-1.0.dist-info' does not match" },
	{ "no_record", "has no 'no_record-1.0.dist-info/RECORD'" },
	{ "bad_wheel_version", "unsupported Wheel-Version '2.0'" },
	{ "meta_mismatch", "says 'meta_mismatch 2.0', the file name says 'meta_mismatch 1.0'" },
	{ "truncated", "no end of central directory" },
	{ "corrupt", "member 'corrupt/big.py' cannot be read" },
	{ "zip_bomb", "member 'zip_bomb/zeros.bin' claims to expand" },
	{ "bomb_lying",
	  "member 'bomb_lying/zeros.bin' holds more than the 1000 bytes its header says" },
	{ "html_page",
	  "'html_page-1.0-py3-none-any.whl' is not a zip archive (it is an HTML or XML page" },
};

static void test_bad_wheels(void **state)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		struct wp_err err = WP_ERR_INIT;
		struct wp_wheel_info info;
		char *path = case_path(state, bad[i].name);
		int rc = wp_wheel_verify(path, NULL, &info, &err);
		print_message("%-18s %s\n", bad[i].name, err.msg);
		assert_int_equal(rc, -WPE_INTEGRITY);
		assert_int_equal(err.code, -WPE_INTEGRITY);
		assert_non_null(strstr(err.msg, bad[i].expect));
		assert_null(info.name); /* released on failure */
		free(path);
	}
}

static void test_limits(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	char *path = case_path(state, "demo_pkg");
	struct wp_wheel_limits lim = { .max_members = 3 };
	assert_int_equal(wp_wheel_verify(path, &lim, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "over the limit of 3"));
	wp_err_clear(&err);
	lim = (struct wp_wheel_limits){ .max_total_size = 1000 };
	assert_int_equal(wp_wheel_verify(path, &lim, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "unpacks to more than 1000 bytes"));
	wp_err_clear(&err);
	/* A ratio limit of 10:1 from 1 KiB up catches data.txt (3000 'x' bytes). */
	lim = (struct wp_wheel_limits){ .max_ratio = 10, .ratio_min_size = 1024 };
	assert_int_equal(wp_wheel_verify(path, &lim, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "demo_pkg/data.txt"));
	free(path);
}

static void test_missing_file(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_wheel_verify("/nonexistent/x-1.0-py3-none-any.whl", NULL, NULL, &err),
			 -WPE_IO);
	assert_non_null(strstr(err.msg, "'/nonexistent/x-1.0-py3-none-any.whl'"));
}

static void test_name_problem(void **state)
{
	assert_null(wp_member_name_problem("a/b.py", 6));
	assert_null(wp_member_name_problem("a/", 2));
	assert_null(wp_member_name_problem("a..b/c", 6));
	assert_non_null(wp_member_name_problem("", 0));
	assert_non_null(wp_member_name_problem("a/../b", 6));
	assert_non_null(wp_member_name_problem("..", 2));
	assert_non_null(wp_member_name_problem("./a", 3));
	assert_non_null(wp_member_name_problem("a//b", 4));
	assert_non_null(wp_member_name_problem("/a", 2));
	assert_non_null(wp_member_name_problem("C:x", 3));
	assert_non_null(wp_member_name_problem("a\\b", 3));
	assert_non_null(wp_member_name_problem("a\0b", 3));
	assert_non_null(wp_member_name_problem("a\nb", 3));
}

static void test_metadata_parse(void **state)
{
	static const char text[] =
		"Metadata-Version: 2.1\r\n"
		"Name: demo\r\n"
		"Version: 1.0\r\n"
		"Summary: first line\r\n"
		"  second line\r\n"
		"Requires-Dist: a\r\n"
		"Requires-Dist: b ; extra == 'x'\r\n"
		"Provides-Extra: x\r\n"
		"Requires-Python: >=3.8\r\n"
		"\r\n"
		"Body: not a header\n";
	struct wp_metadata md;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_metadata_parse(text, sizeof(text) - 1, &md, &err), 0);
	assert_string_equal(md.name, "demo");
	assert_string_equal(md.version, "1.0");
	assert_string_equal(md.summary, "first line\nsecond line");
	assert_int_equal(md.n_requires_dist, 2);
	assert_string_equal(md.requires_dist[1], "b ; extra == 'x'");
	assert_string_equal(md.requires_python, ">=3.8");
	assert_string_equal(md.description, "Body: not a header\n");
	wp_metadata_release(&md);

	/* PEP 658 .metadata files have no body; the last line may lack a newline. */
	static const char bare[] = "Metadata-Version: 2.1\nName: x\nVersion: 2";
	assert_int_equal(wp_metadata_parse(bare, sizeof(bare) - 1, &md, &err), 0);
	assert_string_equal(md.version, "2");
	assert_null(md.description);
	wp_metadata_release(&md);

	static const char *const broken[] = {
		"Metadata-Version: 2.1\nName: x\n",              /* no Version */
		"Metadata-Version: 2.1\nName x\nVersion: 1\n",   /* no colon */
		"  continued\nName: x\n",                         /* continuation first */
		"Metadata-Version: 2.1\nName: x\nName: y\nVersion: 1\n",
		"",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(broken); i++) {
		wp_err_clear(&err);
		assert_int_equal(wp_metadata_parse(broken[i], strlen(broken[i]), &md, &err),
				 -WPE_PARSE);
		assert_non_null(strstr(err.msg, "'METADATA'"));
	}
	static const char nul[] = "Metadata-Version: 2.1\nName: x\0y\nVersion: 1\n";
	wp_err_clear(&err);
	assert_int_equal(wp_metadata_parse(nul, sizeof(nul) - 1, &md, &err), -WPE_PARSE);
}

static void test_wheelfile_parse(void **state)
{
	static const char
		ok[] = "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp38-cp38-linux_x86_64\n"
		       "Tag: cp38-cp38-manylinux1_x86_64\nBuild: 1\n";
	struct wp_wheelfile wf;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_wheelfile_parse(ok, sizeof(ok) - 1, &wf, &err), 0);
	assert_false(wf.root_is_purelib);
	assert_int_equal(wf.n_tags, 2);
	assert_string_equal(wf.tags[1], "cp38-cp38-manylinux1_x86_64");
	assert_string_equal(wf.build, "1");
	wp_wheelfile_release(&wf);
	static const char *const broken[] = {
		"Wheel-Version: 2.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		"Wheel-Version: 1.0\nTag: py3-none-any\n",
		"Wheel-Version: 1.0\nRoot-Is-Purelib: maybe\nTag: py3-none-any\n",
		"Wheel-Version: 1.0\nRoot-Is-Purelib: true\n",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(broken); i++) {
		wp_err_clear(&err);
		assert_int_equal(wp_wheelfile_parse(broken[i], strlen(broken[i]), &wf, &err),
				 -WPE_PARSE);
	}
}

static void test_conda_tar_bz2(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	char *path = fx_path(state, "demo-conda-1.0-py_0.tar.bz2");
	struct wp_conda_expect want = { "demo-conda", "1.0", "py_0" };
	char *json = NULL;
	int rc = wp_conda_verify(path, &want, &json, &err);
	if (rc)
		print_message("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(json, "\"subdir\": \"noarch\""));
	free(json);

	want.version = "2.0";
	assert_int_equal(wp_conda_verify(path, &want, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "info/index.json says version '1.0', expected '2.0'"));
	free(path);

	path = fx_path(state, "noindex-1.0-0.tar.bz2");
	wp_err_clear(&err);
	assert_int_equal(wp_conda_verify(path, NULL, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "has no info/index.json"));
	free(path);

	path = fx_path(state, "truncated-1.0-0.tar.bz2");
	wp_err_clear(&err);
	assert_int_equal(wp_conda_verify(path, NULL, NULL, &err), -WPE_INTEGRITY);
	print_message("truncated conda: %s\n", err.msg);
	free(path);

	/* A wheel is not a conda package. */
	path = case_path(state, "demo_pkg");
	wp_err_clear(&err);
	assert_int_equal(wp_conda_verify(path, NULL, NULL, &err), -WPE_INTEGRITY);
	free(path);
}

static void test_conda_dot_conda(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	char *path = fx_path(state, "demo-conda-1.0-py_0.conda");
	if (access(path, R_OK) != 0) {
		free(path);
		skip(); /* no zstd program on this machine */
	}
	struct wp_conda_expect want = { "demo-conda", "1.0", "py_0" };
	char *json = NULL;
	int rc = wp_conda_verify(path, &want, &json, &err);
	if (rc)
		print_message("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(json, "demo-conda"));
	free(json);
	want.build = "py_1";
	assert_int_equal(wp_conda_verify(path, &want, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "build 'py_0', expected 'py_1'"));
	free(path);
}

static void test_json_string(void **state)
{
	static const char
		j[] = "{\"depends\": [\"a\", {\"name\": \"no\"}], \"n\": -1.5e3, \"t\": true,"
		      "\"name\" : \"x\\\"y\\u00e9\", \"version\": 3}";
	char *v = wp_conda_json_string(j, sizeof(j) - 1, "name");
	assert_string_equal(v, "x\"y\xc3\xa9");
	free(v);
	assert_null(wp_conda_json_string(j, sizeof(j) - 1, "version")); /* not a string */
	assert_null(wp_conda_json_string(j, sizeof(j) - 1, "missing"));
	assert_null(wp_conda_json_string("[1]", 3, "name"));
	assert_null(wp_conda_json_string("{\"name\": \"x", 11, "name"));
	assert_null(wp_conda_json_string("{\"a\": [[[[", 10, "name"));
	assert_null(wp_conda_json_string("{\"a\": ]]]}", 10, "name"));
}

/* The one RECORD reader (the verifier's and install's): quoting, CRLF, extra fields, and a broken
 * quote that skips its line so that every reader moves on (one that stopped there looped
 * forever). */
static void test_record_rows(void **state)
{
	(void)state;
	const char *text =
		"a/b.py,sha256=x,12\r\n\"q,\"\"u\"\"\",sha256=y,3\n\n\"broken,h,1\nc,d,e,f\nlast";
	struct wp_str s = WP_STRN(text, strlen(text));
	struct wp_buf f[3] = { WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT }, extra = WP_BUF_INIT;
	assert_int_equal(wp_record_row(&s, f, &extra), 3);
	assert_string_equal(wp_buf_cstr(&f[0]), "a/b.py");
	assert_string_equal(wp_buf_cstr(&f[2]), "12");
	assert_int_equal(wp_record_row(&s, f, &extra), 3);
	assert_string_equal(wp_buf_cstr(&f[0]), "q,\"u\"");
	assert_string_equal(wp_buf_cstr(&f[1]), "sha256=y");
	assert_int_equal(wp_record_row(&s, f, &extra), 1);
	assert_int_equal(f[0].len, 0);
	assert_int_equal(wp_record_row(&s, f, &extra), -1);
	assert_int_equal(wp_record_row(&s, f, &extra), 4);
	assert_string_equal(wp_buf_cstr(&f[0]), "c");
	assert_int_equal(wp_record_row(&s, f, &extra), 1);
	assert_string_equal(wp_buf_cstr(&f[0]), "last");
	assert_int_equal(s.n, 0);
	for (int i = 0; i < 3; i++)
		wp_buf_free(&f[i]);
	wp_buf_free(&extra);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_wheel),
		cmocka_unit_test(test_good_wheel_dirs_and_quoting),
		cmocka_unit_test(test_zip64_wheel),
		cmocka_unit_test(test_verify_named),
		cmocka_unit_test(test_bad_wheels),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_name_problem),
		cmocka_unit_test(test_metadata_parse),
		cmocka_unit_test(test_wheelfile_parse),
		cmocka_unit_test(test_conda_tar_bz2),
		cmocka_unit_test(test_conda_dot_conda),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_record_rows),
	};
	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
