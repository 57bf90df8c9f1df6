/* tests/unit/test_verify_outputs.c: verify on wheels, wheelhouses, conda packages, mirrors
 * mid-update, and nonsense. */
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
#include "ops/publish/mirror.h"
#include "ops/verify/outputs.h"
#include "verify/hash.h"

#define DEMO "demo_pkg-1.0-py3-none-any.whl"
#define DIRS "demo_dirs-1.0-py3-none-any.whl"

static char root[64];
static char demo_sha[WP_SHA256_HEX_LEN + 1], dirs_sha[WP_SHA256_HEX_LEN + 1];

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

/* rc from wp_verify_path; *first gets the first fatal problem's "path: what" (caller frees). */
/* The first note of the last verify() (freed by the next), for a test that expects one. */
static char *first_note;

static int verify(const char *path, char **first, size_t *notes)
{
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_verify_path(path, &rep, &err);
	if (first)
		*first = NULL;
	if (notes)
		*notes = rep.n_problems - rep.n_fatal;
	free(first_note);
	first_note = NULL;
	for (size_t i = 0; i < rep.n_problems && !first_note; i++)
		if (!rep.problems[i].fatal)
			first_note = wp_xasprintf("%s: %s", rep.problems[i].path,
						  rep.problems[i].what);
	for (size_t i = 0; i < rep.n_problems && first && !*first; i++)
		if (rep.problems[i].fatal)
			*first = wp_xasprintf("%s: %s", rep.problems[i].path, rep.problems[i].what);
	if (rc == -WPE_INTEGRITY)
		assert_true(rep.n_fatal > 0);
	wp_verify_report_release(&rep);
	return rc;
}

static char *at(const char *fmt, const char *arg)
{
	char *tail = wp_xasprintf(fmt, arg);
	char *p = wp_xasprintf("%s/%s", root, tail);
	free(tail);
	return p;
}

static void test_single_files(void **state)
{
	char *first;
	char *good = at("w/%s", DEMO), *bad = at("w/%s", "bad_hash-1.0-py3-none-any.whl");
	assert_int_equal(verify(good, NULL, NULL), 0);
	assert_int_equal(verify(bad, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, "bad_hash-1.0-py3-none-any.whl"));
	free(first);
	char *conda = at("w/%s", "demo-conda-1.0-py_0.tar.bz2"),
	     *cut = at("w/%s", "truncated-1.0-0.tar.bz2");
	assert_int_equal(verify(conda, NULL, NULL), 0);
	assert_int_equal(verify(cut, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, "truncated-1.0-0.tar.bz2"));
	free(first);

	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	struct wp_err err = WP_ERR_INIT;
	char *missing = at("%s", "no/such/thing.whl");
	assert_int_equal(wp_verify_path(missing, &rep, &err), -WPE_IO);
	assert_non_null(strstr(err.msg, missing));
	char *empty = at("%s", "empty");
	assert_int_equal(sh("mkdir -p '%s'", empty), 0);
	wp_err_clear(&err);
	assert_int_equal(wp_verify_path(empty, &rep, &err), -WPE_USAGE);
	char *txt = at("%s", "empty/x.txt");
	assert_int_equal(sh("echo hi > '%s'", txt), 0);
	wp_err_clear(&err);
	assert_int_equal(wp_verify_path(txt, &rep, &err), -WPE_USAGE);
	wp_verify_report_release(&rep);
	free(txt); free(empty); free(missing); free(cut); free(conda); free(good); free(bad);
}

static char *make_house(const char *name, const char *reqs)
{
	char *dir = at("%s", name);
	assert_int_equal(sh("rm -rf '%s' && mkdir -p '%s' && cp '%s/w/%s' '%s/w/%s' '%s/'", dir,
			    dir, root, DEMO, root, DIRS, dir),
			 0);
	char *path = wp_xasprintf("%s/requirements.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(reqs, f);
	fclose(f);
	free(path);
	return dir;
}

static void test_wheelhouse(void **state)
{
	char *first;
	char *reqs = wp_xasprintf("# a comment\n--no-index\ndemo-pkg==1.0 \\\n    --hash=sha256:%s\n"
				  "demo_dirs==1.0 --hash sha256:%s  # trailing comment\n",
				  demo_sha, dirs_sha);
	char *house = make_house("house", reqs);
	assert_int_equal(verify(house, NULL, NULL), 0);
	free(house);

	/* a hash that matches no file here */
	free(reqs);
	reqs = wp_xasprintf("demo-pkg==1.0 \\\n    --hash=sha256:%s \\\n    --hash=sha256:%064d\n",
			    demo_sha, 7);
	house = make_house("house2", reqs);
	assert_int_equal(verify(house, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, "requirements.txt:1"));
	assert_non_null(strstr(first, "0000007"));
	free(first);
	free(house);

	/* no hash at all; and a hash of another project's file */
	free(reqs);
	reqs = wp_xasprintf("demo-pkg==1.0\n");
	house = make_house("house3", reqs);
	assert_int_equal(verify(house, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, "has no --hash"));
	free(first);
	free(house);
	free(reqs);
	reqs = wp_xasprintf("demo-pkg==1.0 --hash=sha256:%s\n", dirs_sha);
	house = make_house("house4", reqs);
	assert_int_equal(verify(house, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, DIRS));
	free(first);

	/* a damaged wheel, named */
	assert_int_equal(sh("cp '%s/w/bad_size-1.0-py3-none-any.whl' '%s/'", root, house), 0);
	assert_int_equal(verify(house, &first, NULL), -WPE_INTEGRITY);
	free(first);
	free(house);

	/* the pick record names a file that is not here */
	free(reqs);
	reqs = wp_xasprintf("demo-pkg==1.0 --hash=sha256:%s\n", demo_sha);
	house = make_house("house6", reqs);
	/* a wheel no requirement names: added behind the requirements' back */
	assert_int_equal(verify(house, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, DIRS));
	assert_non_null(strstr(first, "no requirements file names"));
	free(first);
	free(house);
	free(reqs);
	reqs = wp_xasprintf("demo-pkg==1.0 --hash=sha256:%s\ndemo_dirs==1.0 --hash=sha256:%s\n",
			    demo_sha, dirs_sha);
	house = make_house("house5", reqs);
	assert_int_equal(sh("printf '{\"files\":[{\"filename\":\"gone-1.0-py3-none-any.whl\",\"sha256\":\"%s\"}]}' "
			    "> '%s/wheelpick.json'",
			    demo_sha, house),
			 0);
	assert_int_equal(verify(house, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, "gone-1.0-py3-none-any.whl"));
	free(first);
	free(house);
	free(reqs);
}

static void mirror_demo(const char *dir, bool both)
{
	char *a = at("w/%s", DEMO), *b = at("w/%s", DIRS);
	struct wp_mirror_file f[2] = {
		{ .project = "demo-pkg",
		  .filename = DEMO,
		  .store_path = a,
		  .sha256 = demo_sha,
		  .size = -1 },
		{ .project = "demo-dirs",
		  .filename = DIRS,
		  .store_path = b,
		  .sha256 = dirs_sha,
		  .size = -1 },
	};
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_mirror_write(dir, f, both ? 2 : 1, NULL, NULL, &err), 0);
	free(a);
	free(b);
}

static void test_mirror_pages(void **state)
{
	char *first;
	size_t notes;
	char *m = at("%s", "m1");
	mirror_demo(m, true);
	assert_int_equal(verify(m, NULL, &notes), 0);
	/* the one note: wp_mirror_write alone writes no SBOM (the mirror job adds sbom.cdx.json) */
	assert_int_equal(notes, 1);
	assert_non_null(first_note);
	assert_non_null(strstr(first_note, "SBOM"));

	/* JSON says other bytes than HTML and the file */
	assert_int_equal(sh("sed -i 's/%s/%064d/' '%s/simple/demo-pkg/index.json'", demo_sha, 0, m),
			 0);
	assert_int_equal(verify(m, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, DEMO));
	free(first);

	/* a page the root names is gone */
	char *m2 = at("%s", "m2");
	mirror_demo(m2, true);
	assert_int_equal(sh("rm '%s/simple/demo-dirs/index.html'", m2), 0);
	assert_int_equal(verify(m2, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, "demo-dirs/index.html"));
	free(first);

	/* a link that leaves the tree */
	char *m3 = at("%s", "m3");
	mirror_demo(m3, false);
	assert_int_equal(sh("sed -i 's|../../files/demo-pkg/|../../../w/|' '%s/simple/demo-pkg/index.html'",
			    m3),
			 0);
	assert_int_equal(verify(m3, &first, NULL), -WPE_INTEGRITY);
	assert_non_null(strstr(first, "leaves the mirror"));
	free(first);

	/* a page written while its JSON twin was not yet: a note, not a failure */
	char *m4 = at("%s", "m4"), *m5 = at("%s", "m5");
	mirror_demo(m4, false);
	mirror_demo(m5, true);
	assert_int_equal(sh("cp '%s/simple/index.json' '%s/simple/index.json'", m4, m5), 0);
	assert_int_equal(verify(m5, NULL, &notes), 0);
	assert_int_equal(notes, 2);   /* that one, and no SBOM (as above) */
	free(first_note);
	first_note = NULL;
	free(m5); free(m4); free(m3); free(m2); free(m);
}

static int group_setup(void **state)
{
	if (test_tmpdir_make(root, sizeof(root), "tree") < 0)
		return -1;
	char *cmd = wp_xasprintf("python3 tests/fixtures/mkwheels.py '%s/w' >/dev/null", root);
	int rc = system(cmd);
	free(cmd);
	char *a = wp_xasprintf("%s/w/%s", root, DEMO), *b = wp_xasprintf("%s/w/%s", root, DIRS);
	if (!rc)
		rc = wp_hash_file(a, demo_sha, NULL, NULL) || wp_hash_file(b, dirs_sha, NULL, NULL);
	free(a);
	free(b);
	return rc == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
	return test_tmpdir_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_files),
		cmocka_unit_test(test_wheelhouse),
		cmocka_unit_test(test_mirror_pages),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
