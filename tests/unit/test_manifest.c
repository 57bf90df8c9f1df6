/* tests/unit/test_manifest.c: a tree's manifest (ops/publish/manifest.c): the digest is sha256sum's
 * lines in path order, whatever order the files were found in; the JSON form reads back to the
 * same tree; a manifest whose files do not make the tree it names, lists a path twice, or names
 * a path outside its folder is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/fs.h"
#include "ops/publish/manifest.h"
#include "tests/unit/tmpdir.h"
#include "verify/hash.h"

static char root[64];

static int setup(void **state)
{
	(void)state;
	return test_tmpdir_make(root, sizeof(root), "manifest");
}

static int teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(root);
}

#define A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void test_digest_is_sha256sum_lines(void **state)
{
	(void)state;
	struct wp_tree_manifest m = { 0 }, n = { 0 };
	wp_tree_manifest_add(&m, "z.whl", B, 2);
	wp_tree_manifest_add(&m, "a/b.txt", A, 1);
	wp_tree_manifest_seal(&m);
	char want[65];
	const char lines[] = A "  a/b.txt\n" B "  z.whl\n";
	assert_int_equal(wp_sha256_hex_of(lines, strlen(lines), want), 0);
	assert_string_equal(m.tree, want);
	assert_string_equal(m.v[0].path, "a/b.txt");
	assert_non_null(wp_tree_manifest_find(&m, "z.whl"));
	assert_null(wp_tree_manifest_find(&m, "y.whl"));
	/* the other order, the same tree */
	wp_tree_manifest_add(&n, "a/b.txt", A, 1);
	wp_tree_manifest_add(&n, "z.whl", B, 2);
	wp_tree_manifest_seal(&n);
	assert_string_equal(n.tree, m.tree);
	wp_tree_manifest_release(&m);
	wp_tree_manifest_release(&n);
}

static void write_text(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", root, name);
	assert_int_equal(wp_atomic_write(path, text, strlen(text), NULL), 0);
}

static void test_round_trip_and_refusals(void **state)
{
	(void)state;
	struct wp_tree_manifest m = { 0 }, back = { 0 };
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	char path[256];
	wp_tree_manifest_add(&m, "torch-2.5.1-cp311-cp311-linux_x86_64.whl", A, 10);
	wp_tree_manifest_add(&m, "requirements.txt", B, 3);
	wp_tree_manifest_seal(&m);
	assert_int_equal(wp_tree_manifest_format(&m, "wheelhouse", &b, &err), 0);
	write_text("m.json", b.data);
	snprintf(path, sizeof(path), "%s/m.json", root);
	assert_int_equal(wp_tree_manifest_load(path, &back, &err), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.tree, m.tree);
	assert_false(back.is_delta);
	assert_int_equal(strlen(back.source_sha256), 64);
	wp_tree_manifest_release(&back);

	/* a tree digest its files do not make */
	char *bad = strstr(b.data, m.tree);
	assert_non_null(bad);
	bad[0] = bad[0] == '0' ? '1' : '0';
	write_text("m.json", b.data);
	wp_err_clear(&err);
	assert_int_equal(wp_tree_manifest_load(path, &back, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "its files make"));

	/* a path that leaves the folder */
	write_text("m.json",
		   "{\"wheelpick_manifest\": 1, \"files\": [{\"path\": \"../etc/passwd\", \"sha256\": \"" A
		   "\"}]}");
	wp_err_clear(&err);
	assert_int_equal(wp_tree_manifest_load(path, &back, &err), -WPE_PARSE);

	/* a path twice */
	write_text("m.json",
		   "{\"wheelpick_manifest\": 1, \"files\": [{\"path\": \"x\", \"sha256\": \"" A
		   "\"}, "
		   "{\"path\": \"x\", \"sha256\": \"" B "\"}]}");
	wp_err_clear(&err);
	assert_int_equal(wp_tree_manifest_load(path, &back, &err), -WPE_PARSE);
	assert_non_null(strstr(err.msg, "twice"));

	/* not a manifest at all */
	write_text("m.json", "{\"bomFormat\": \"CycloneDX\"}");
	wp_err_clear(&err);
	assert_int_equal(wp_tree_manifest_load(path, &back, &err), -WPE_PARSE);

	/* a delta without the tree it follows */
	write_text("m.json", "{\"wheelpick_delta\": 1, \"files\": []}");
	wp_err_clear(&err);
	assert_int_equal(wp_tree_manifest_load(path, &back, &err), -WPE_PARSE);
	wp_buf_free(&b);
	wp_tree_manifest_release(&m);
}

static void test_of_dir_skips_the_delta_manifest(void **state)
{
	(void)state;
	struct wp_tree_manifest m = { 0 };
	struct wp_err err = WP_ERR_INIT;
	char sub[256];
	snprintf(sub, sizeof(sub), "%s/channel", root);
	assert_int_equal(wp_mkdir_p(sub, 0755, NULL), 0);
	write_text("channel/repodata.json", "{}\n");
	write_text("install.sh", "#!/bin/sh\n");
	write_text(WP_DELTA_NAME, "{}\n");
	assert_int_equal(wp_tree_manifest_of_dir(root, &m, &err), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.v[0].path, "channel/repodata.json");
	assert_string_equal(m.v[1].path, "install.sh");
	assert_null(wp_tree_manifest_find(&m, WP_DELTA_NAME));
	wp_tree_manifest_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digest_is_sha256sum_lines),
		cmocka_unit_test_setup_teardown(test_round_trip_and_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_of_dir_skips_the_delta_manifest, setup,
						teardown),
	};
	return cmocka_run_group_tests_name("manifest", tests, NULL, NULL);
}
