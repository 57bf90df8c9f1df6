/* tests/unit/test_bundle.c: wheelhouse bundles: members, reproducible bytes, install.sh, verify. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include "tests/unit/readfile.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "ops/publish/bundle.h"
#include "ops/verify/outputs.h"
#include "verify/hash.h"

#define DEMO "demo_pkg-1.0-py3-none-any.whl"

static char root[64];
static char demo_sha[WP_SHA256_HEX_LEN + 1];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd = NULL;
	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	int rc = system(cmd);
	if (rc)
		print_error("command failed (%d): %s\n", rc, cmd);
	free(cmd);
	return rc;
}

/* A wheelhouse as `wheelpick pick -d` writes one; req_sha is the hash requirements.txt names. */
static char *make_house(const char *name, const char *req_sha)
{
	char *dir = wp_xasprintf("%s/%s", root, name);
	assert_int_equal(sh("rm -rf '%s' && mkdir -p '%s' && cp '%s/w/%s' '%s/'", dir, dir, root,
			    DEMO, dir),
			 0);
	char *path = wp_xasprintf("%s/requirements.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "# written by wheelpick\ndemo-pkg==1.0 \\\n    --hash=sha256:%s\n", req_sha);
	fclose(f);
	free(path);
	path = wp_xasprintf("%s/wheelpick.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f,
		"{\"picks\":[{\"project\":\"demo-pkg\",\"filename\":\"%s\",\"sha256\":\"%s\"}]}\n",
		DEMO, demo_sha);
	fclose(f);
	free(path);
	return dir;
}

static void test_members(void **state)
{
	char *house = make_house("house", demo_sha);
	char *out = wp_xasprintf("%s/out/torch-bundle.tar.zst", root);
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(sh("mkdir -p '%s/out'", root), 0);
	assert_int_equal(wp_bundle_write(out, house, &err), 0);

	static const char *const want[] = {
		"torch-bundle/", "torch-bundle/" DEMO, "torch-bundle/install.sh",
		"torch-bundle/requirements.txt", "torch-bundle/wheelpick.json",
	};
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	archive_read_support_format_tar(a);
	archive_read_support_filter_zstd(a);
	assert_int_equal(archive_read_open_filename(a, out, 16384), ARCHIVE_OK);
	size_t i = 0;
	while (archive_read_next_header(a, &ae) == ARCHIVE_OK) {
		assert_true(i < WP_ARRAY_LEN(want));
		assert_string_equal(archive_entry_pathname(ae), want[i]);
		assert_int_equal(archive_entry_mtime(ae), WP_BUNDLE_MTIME);
		assert_int_equal(archive_entry_uid(ae), 0);
		if (!strcmp(want[i], "torch-bundle/install.sh")) {
			assert_int_equal(archive_entry_perm(ae), 0755);
			char buf[4096] = { 0 }; /* install.sh is past 1 KiB since it also runs
						   wheelpick install */
			assert_true(archive_read_data(a, buf, sizeof(buf) - 1) > 0);
			assert_string_equal(buf, wp_bundle_install_sh());
			assert_non_null(
				strstr(buf, "--no-index --find-links \"$here\" --require-hashes"));
		}
		i++;
	}
	assert_int_equal(i, WP_ARRAY_LEN(want));
	assert_int_equal(archive_filter_code(a, 0), ARCHIVE_FILTER_ZSTD);
	archive_read_free(a);

	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	int rc = wp_verify_path(out, &rep, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(rep.kind, WP_VERIFY_BUNDLE);
	assert_int_equal(rep.wheels, 1);
	assert_true(rep.links >= 2); /* the requirement and the pick record */
	wp_verify_report_release(&rep);

	/* no temp file is left beside it */
	assert_int_equal(sh("test $(ls '%s/out' | wc -l) -eq 1", root), 0);
	free(out);
	free(house);
}

static void test_reproducible(void **state)
{
	char *house = make_house("house2", demo_sha);
	struct wp_err err = WP_ERR_INIT;
	static const char *const exts[] = { "tar.zst", "tar.gz" };
	for (size_t k = 0; k < WP_ARRAY_LEN(exts); k++) {
		char *a = wp_xasprintf("%s/r1/b.%s", root, exts[k]);
		char *b = wp_xasprintf("%s/r2/b.%s", root, exts[k]);
		assert_int_equal(sh("mkdir -p '%s/r1' '%s/r2'", root, root), 0);
		assert_int_equal(wp_bundle_write(a, house, &err), 0);
		sleep(1); /* a timestamp in the gzip header would show */
		assert_int_equal(sh("touch '%s/%s'", house, DEMO), 0);
		assert_int_equal(wp_bundle_write(b, house, &err), 0);
		size_t na, nb;
		char *da = test_read_file(a, &na), *db = test_read_file(b, &nb);
		assert_int_equal(na, nb);
		assert_memory_equal(da, db, na);
		struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
		assert_int_equal(wp_verify_path(b, &rep, &err), 0);
		wp_verify_report_release(&rep);
		free(da);
		free(db);
		free(a);
		free(b);
	}
	free(house);
}

static void test_bad_bundles(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	char *house = make_house("house3", demo_sha);
	char *out = wp_xasprintf("%s/bad/x.zip", root);
	assert_int_equal(sh("mkdir -p '%s/bad'", root), 0);
	assert_int_equal(wp_bundle_write(out, house, &err), -WPE_USAGE);
	free(out);

	/* install.sh needs requirements.txt */
	assert_int_equal(sh("rm '%s/requirements.txt'", house), 0);
	out = wp_xasprintf("%s/bad/x.tar.zst", root);
	wp_err_clear(&err);
	assert_int_equal(wp_bundle_write(out, house, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "requirements.txt"));
	free(house);

	/* a requirement whose hash matches no file: named with its line */
	char zeros[WP_SHA256_HEX_LEN + 1];
	memset(zeros, '0', WP_SHA256_HEX_LEN);
	zeros[WP_SHA256_HEX_LEN] = 0;
	house = make_house("house4", zeros);
	wp_err_clear(&err);
	assert_int_equal(wp_bundle_write(out, house, &err), 0);
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	assert_int_equal(wp_verify_path(out, &rep, &err), -WPE_INTEGRITY);
	assert_true(rep.n_fatal >= 1);
	char *want = wp_xasprintf("%s:x/requirements.txt:2", out);
	assert_string_equal(rep.problems[0].path, want);
	assert_non_null(strstr(rep.problems[0].what, zeros));
	wp_verify_report_release(&rep);
	free(want);

	/* a truncated bundle */
	char *cut = wp_xasprintf("%s/bad/cut.tar.zst", root);
	assert_int_equal(sh("head -c 300 '%s' > '%s'", out, cut), 0);
	wp_err_clear(&err);
	assert_int_equal(wp_verify_path(cut, &rep, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, cut));
	wp_verify_report_release(&rep);
	free(cut);
	free(out);
	free(house);
}

static void test_install_sh(void **state)
{
	if (system("python3 -m pip --version >/dev/null 2>&1") != 0 ||
	    system("tar --zstd --version >/dev/null 2>&1") != 0)
		skip();
	char *house = make_house("house5", demo_sha);
	char *out = wp_xasprintf("%s/inst/demo.tar.zst", root);
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(sh("mkdir -p '%s/inst/x'", root), 0);
	assert_int_equal(wp_bundle_write(out, house, &err), 0);
	assert_int_equal(sh("tar --zstd -xf '%s' -C '%s/inst/x'", out, root), 0);
	assert_int_equal(sh("cd / && PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null "
			    "'%s/inst/x/demo/install.sh' -q --no-cache-dir --no-deps --target '%s/inst/t' "
			    ">'%s/inst/log' 2>&1 || { cat '%s/inst/log'; exit 1; }",
			    root, root, root, root),
			 0);
	assert_int_equal(sh("PYTHONPATH='%s/inst/t' python3 -c 'import demo_pkg; assert demo_pkg.VALUE == 42'",
			    root),
			 0);
	free(out);
	free(house);
}

static int group_setup(void **state)
{
	if (test_tmpdir_make(root, sizeof(root), "bundle") < 0)
		return -1;
	char *cmd = wp_xasprintf("python3 tests/fixtures/mkwheels.py '%s/w' >/dev/null", root);
	int rc = system(cmd);
	free(cmd);
	char *demo = wp_xasprintf("%s/w/%s", root, DEMO);
	if (!rc)
		rc = wp_hash_file(demo, demo_sha, NULL, NULL);
	free(demo);
	return rc == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
	return test_tmpdir_remove(root);
}

/* verify/lazy_archive.c stands in for archive_set_error: it formats the message itself and must
 * keep libarchive's meaning of a NULL format (clear the error), which libarchive uses itself. */
static void test_set_error_forwarder(void **state)
{
	(void)state;
	struct archive *a = archive_read_new();
	char big[2000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	archive_set_error(a, 5, "member '%s' of %d", "m", 3);
	assert_string_equal(archive_error_string(a), "member 'm' of 3");
	assert_int_equal(archive_errno(a), 5);
	archive_set_error(a, 7, "%s", big);
	assert_int_equal(strlen(archive_error_string(a)), sizeof(big) - 1); /* not cut short */
	archive_set_error(a, 0, NULL);
	assert_null(archive_error_string(a));
	archive_read_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_reproducible),
		cmocka_unit_test(test_bad_bundles),
		cmocka_unit_test(test_install_sh),
		cmocka_unit_test(test_set_error_forwarder),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
