/* tests/unit/test_bundle_conda.c: conda bundles: explicit lock lines read as install.sh reads them,
 * the members and install.sh of a conda bundle, and what the writer refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "ops/publish/bundle.h"

#define SHA "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
#define MD5 "098f6bcd4621d373cade4e832627b4f6"

static void test_explicit_lines(void **state)
{
	static const struct {
		const char *line;
		int rc;
		const char *subdir, *filename, *sha256, *md5;
	} cases[] = {
		/* what condalocks.c writes, and what CEP 23 allows besides */
		{ "https://conda.anaconda.org/conda-forge/linux-64/pytorch-2.5.1-cuda126_py312_h1.conda#sha256:" SHA,
		  1, "linux-64", "pytorch-2.5.1-cuda126_py312_h1.conda", SHA, NULL },
		{ "https://x/noarch/pip-24.0-pyhd8ed1ab_0.tar.bz2#" SHA, 1, "noarch",
		  "pip-24.0-pyhd8ed1ab_0.tar.bz2", SHA, NULL },
		{ "https://x/noarch/pip-24.0-pyhd8ed1ab_0.tar.bz2#" MD5, 1, "noarch",
		  "pip-24.0-pyhd8ed1ab_0.tar.bz2", NULL, MD5 },
		{ "  file:///c/linux-64/a-1-0.conda  \r", 1, "linux-64", "a-1-0.conda", NULL,
		  NULL },
		/* percent-decoded, as conda's url_to_path reads a file:// URL */
		{ "https://x/linux-64/a-1%2Bb-0.conda", 1, "linux-64", "a-1+b-0.conda", NULL,
		  NULL },
		/* lines conda skips */
		{ "", 0, NULL, NULL, NULL, NULL },
		{ "   ", 0, NULL, NULL, NULL, NULL },
		{ "# platform: linux-64", 0, NULL, NULL, NULL, NULL },
		{ "  # a comment", 0, NULL, NULL, NULL, NULL },
		{ "@EXPLICIT", 0, NULL, NULL, NULL, NULL },
		{ "  @EXPLICIT \r", 0, NULL, NULL, NULL, NULL },
		/* no package the channel could hold */
		{ "numpy", -1, NULL, NULL, NULL, NULL },
		{ "linux-64/a-1-0.conda", -1, NULL, NULL, NULL, NULL },
		{ "https://x/../a-1-0.conda", -1, NULL, NULL, NULL, NULL },
		{ "https://x/./a-1-0.conda", -1, NULL, NULL, NULL, NULL },
		{ "https://x/%2e%2e/a-1-0.conda", -1, NULL, NULL, NULL, NULL },
		{ "https://x//a-1-0.conda", -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/a%2Fb-1-0.conda", -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/a%00-1-0.conda", -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/a-1-0.whl", -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/a-1-0.conda?x=1", -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/", -1, NULL, NULL, NULL, NULL },
		/* hashes that are not a sha256 or an md5 in lower-case hex */
		{ "https://x/linux-64/a-1-0.conda#sha256:" MD5, -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/a-1-0.conda#", -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/a-1-0.conda#sha256:9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08",
		  -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/a-1-0.conda#sha256:" SHA "0", -1, NULL, NULL, NULL, NULL },
		{ "https://x/linux-64/a-1-0.conda#sha256:" MD5, -1, NULL, NULL, NULL, NULL },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		struct wp_explicit_entry e;
		const char *why = NULL;
		int rc = wp_explicit_entry_parse(cases[i].line, &e, &why);
		if (rc != cases[i].rc)
			fail_msg("'%s': %d, wanted %d", cases[i].line, rc, cases[i].rc);
		if (rc < 0) {
			assert_non_null(why);
			assert_null(e.subdir);
		}
		if (rc == 1) {
			assert_string_equal(e.subdir, cases[i].subdir);
			assert_string_equal(e.filename, cases[i].filename);
			if (cases[i].sha256)
				assert_string_equal(e.sha256, cases[i].sha256);
			else
				assert_null(e.sha256);
			if (cases[i].md5)
				assert_string_equal(e.md5, cases[i].md5);
			else
				assert_null(e.md5);
		}
		wp_explicit_entry_release(&e);
	}
}

static char root[64];

static int sh(const char *cmd)
{
	int rc = system(cmd);
	if (rc)
		print_error("command failed (%d): %s\n", rc, cmd);
	return rc;
}

static void test_members(void **state)
{
	char cmd[512];
	struct wp_err err = WP_ERR_INIT;
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir -p s/channel/linux-64 s/channel/noarch && echo '{}' >s/channel/linux-64/repodata.json && "
		 "echo '{}' >s/channel/noarch/repodata.json && echo x >s/channel/linux-64/a-1-0.conda && "
		 "printf '@EXPLICIT\\n' >s/explicit-linux-64.txt && echo 'name: a' >s/environment.yml && "
		 "echo 'not ours' >s/install.sh",
		 root);
	assert_int_equal(sh(cmd), 0);
	char *src = wp_xasprintf("%s/s", root), *out = wp_xasprintf("%s/c.tar.zst", root);
	assert_int_equal(wp_bundle_write_as(out, src, WP_BUNDLE_CONDA, 0, NULL, &err), 0);
	static const char *const want[] = {
		"c/",
		"c/channel/",
		"c/channel/linux-64/",
		"c/channel/linux-64/a-1-0.conda",
		"c/channel/linux-64/repodata.json",
		"c/channel/noarch/",
		"c/channel/noarch/repodata.json",
		"c/environment.yml",
		"c/explicit-linux-64.txt",
		"c/install.sh",
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
		if (!strcmp(want[i], "c/install.sh")) {
			/* the conda script replaces the folder's own */
			char buf[8192] = { 0 };
			assert_int_equal(archive_entry_perm(ae), 0755);
			assert_true(archive_read_data(a, buf, sizeof(buf) - 1) > 0);
			assert_string_equal(buf, wp_bundle_install_sh_for(WP_BUNDLE_CONDA));
			assert_non_null(strstr(buf, "create --offline --file"));
		}
		i++;
	}
	assert_int_equal(i, WP_ARRAY_LEN(want));
	archive_read_free(a);
	assert_string_not_equal(wp_bundle_install_sh_for(WP_BUNDLE_CONDA),
				wp_bundle_install_sh_for(WP_BUNDLE_WHEELS));
	assert_ptr_equal(wp_bundle_install_sh_for(WP_BUNDLE_WHEELS), wp_bundle_install_sh());

	/* no explicit lock: nothing for install.sh to install; no channel: nothing it points
	 * into */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && rm -f c.tar.zst && mv s/explicit-linux-64.txt s/explicit-linux-64.keep",
		 root);
	assert_int_equal(sh(cmd), 0);
	assert_int_equal(wp_bundle_write_as(out, src, WP_BUNDLE_CONDA, 0, NULL, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "no explicit-<subdir>.txt"));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mv s/explicit-linux-64.keep s/explicit-linux-64.txt && mv s/channel s/chan",
		 root);
	assert_int_equal(sh(cmd), 0);
	err = (struct wp_err)WP_ERR_INIT;
	assert_int_equal(wp_bundle_write_as(out, src, WP_BUNDLE_CONDA, 0, NULL, &err), -WPE_USAGE);
	snprintf(cmd, sizeof(cmd), "test ! -e %s/c.tar.zst", root);
	assert_int_equal(sh(cmd), 0);
	/* and a wheel bundle of a conda folder has no requirement file */
	assert_int_equal(wp_bundle_write_as(out, src, WP_BUNDLE_WHEELS, 0, NULL, &err), -WPE_USAGE);
	free(src);
	free(out);
}

static void test_name_check(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_bundle_name_check("out/t.tar.zst", &err), 0);
	assert_int_equal(wp_bundle_name_check("t.tgz", &err), 0);
	assert_int_equal(wp_bundle_name_check("t.zip", &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "'t.zip'"));
	assert_int_equal(wp_bundle_name_check("dir/.tar.zst", &err), -WPE_USAGE);
	assert_int_equal(wp_bundle_name_check(".tar.gz", &err), -WPE_USAGE);
}

static int setup(void **state)
{
	return test_tmpdir_make(root, sizeof(root), "bundle_conda");
}

static int teardown(void **state)
{
	return test_tmpdir_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explicit_lines),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_name_check),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
