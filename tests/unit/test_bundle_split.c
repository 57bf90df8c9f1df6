/* tests/unit/test_bundle_split.c: bundle volumes: the sizes people type, volumes that joined are
 * the unsplit bundle byte for byte, a failure that leaves no volume behind, stale volumes
 * removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/mem.h"
#include "ops/publish/bundle.h"
#include "ops/verify/outputs.h"

static char root[64];

static void test_sizes(void **state)
{
	static const struct {
		const char *s;
		unsigned long long want; /* 0: refused */
	} cases[] = {
		{ "700M", 700ull << 20 },
		{ "4G", 4ull << 30 },
		{ "4g", 4ull << 30 },
		{ "4000000000", 4000000000ull },
		{ "4GB", 4000000000ull },
		{ "4 GiB", 4ull << 30 },
		{ "1.5G", 3ull << 29 },
		{ "1K", 1024 },
		{ "2T", 2ull << 40 },
		{ "0", 0 },
		{ "1023", 0 },
		{ "", 0 },
		{ "G", 0 },
		{ "-1G", 0 },
		{ "4X", 0 },
		{ "4GG", 0 },
		{ "1e30", 0 },
		{ "nan", 0 },
		{ "4 G B", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long long got = 0;
		struct wp_err err = WP_ERR_INIT;
		int rc = wp_bundle_size_parse(cases[i].s, &got, &err);
		if (cases[i].want) {
			if (rc || got != cases[i].want)
				print_error("'%s': rc %d, %llu\n", cases[i].s, rc, got);
			assert_int_equal(rc, 0);
			assert_true(got == cases[i].want);
		} else {
			if (rc != -WPE_USAGE)
				print_error("'%s' was taken: %llu\n", cases[i].s, got);
			assert_int_equal(rc, -WPE_USAGE);
			assert_non_null(strstr(err.msg, "--split"));
		}
	}
}

static char *slurp(const char *path, size_t *n)
{
	struct wp_buf b;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_file_read_capped(path, 1 << 26, &b, &err), 0);
	*n = b.len;
	return wp_buf_detach(&b, n);
}

/* A wheelhouse with a file of random bytes (zstd cannot shrink it): size bytes of bundle at
 * least. */
static char *make_house(size_t size)
{
	char *dir = wp_xasprintf("%s/house", root);
	char *cmd = wp_xasprintf("rm -rf '%s' && mkdir -p '%s' && head -c %zu /dev/urandom > '%s/x-1.0-py3-none-any.whl' && "
				 "printf 'x==1.0\\n' > '%s/requirements.txt'",
				 dir, dir, size, dir, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return dir;
}

static void test_volumes(void **state)
{
	char *house = make_house(100000);
	char *one = wp_xasprintf("%s/one.tar.zst", root),
	     *vol = wp_xasprintf("%s/v/one.tar.zst", root);
	char *vdir = wp_xasprintf("%s/v", root);
	struct wp_err err = WP_ERR_INIT;
	size_t nv = 0;
	assert_int_equal(mkdir(vdir, 0755), 0);
	assert_int_equal(wp_bundle_write(one, house, &err), 0);
	assert_int_equal(wp_bundle_write_split(vol, house, 30000, &nv, &err), 0);
	assert_int_equal(nv, 4);
	/* joined, the volumes are the unsplit bundle (the top folder is named after the file: the
	 * same) */
	size_t n1, total = 0;
	char *whole = slurp(one, &n1);
	for (size_t i = 1; i <= nv; i++) {
		char *name = wp_bundle_volume_name(vol, i);
		size_t n;
		char *part = slurp(name, &n);
		assert_true(n <= 30000);
		if (i < nv)
			assert_int_equal(n, 30000);
		assert_true(total + n <= n1);
		assert_memory_equal(part, whole + total, n);
		total += n;
		free(part);
		free(name);
	}
	assert_int_equal(total, n1);
	/* verify reads them as the bundle they make (the random "wheel" is no wheel: that is its
	 * one problem, and no volume is) */
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	assert_int_equal(wp_verify_path(vol, &rep, &err), -WPE_INTEGRITY);
	for (size_t i = 0; i < rep.n_problems; i++)
		assert_null(strstr(rep.problems[i].path, ".tar.zst.0"));
	assert_true(rep.n_problems > 0);
	wp_verify_report_release(&rep);

	/* larger volumes: the old .003 and .004 go */
	assert_int_equal(wp_bundle_write_split(vol, house, 60000, &nv, &err), 0);
	assert_int_equal(nv, 2);
	char *third = wp_bundle_volume_name(vol, 3);
	assert_int_equal(access(third, F_OK), -1);

	/* more than 999 volumes needed: refused, and nothing is left where volumes go */
	char *fail = wp_xasprintf("%s/f/x.tar.zst", root), *fdir = wp_xasprintf("%s/f", root);
	assert_int_equal(mkdir(fdir, 0755), 0);
	wp_err_clear(&err);
	free(house);
	house = make_house(1100000);
	assert_int_equal(wp_bundle_write_split(fail, house, 1024, &nv, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "999"));
	char *cmd = wp_xasprintf("test -z \"$(ls -A '%s')\"", fdir);
	assert_int_equal(system(cmd), 0);

	free(cmd);
	free(fail);
	free(fdir);
	free(third);
	free(whole);
	free(one);
	free(vol);
	free(vdir);
	free(house);
}

static int setup(void **state)
{
	return test_tmpdir_make(root, sizeof(root), "bsplit");
}

static int teardown(void **state)
{
	return test_tmpdir_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_volumes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
