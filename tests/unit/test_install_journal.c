/* tests/unit/test_install_journal.c: the install journal: a run killed while staging is undone, one
 * killed after its commit is finished, whatever it had applied; a damaged journal is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "base/mem.h"
#include "ops/install/internal.h"

static int fx_setup(void **state)
{
	char *dir = wp_xcalloc(1, 64);
	if (test_tmpdir_make(dir, 64, "journal") < 0)
		return -1;
	*state = dir;
	return 0;
}

static int fx_teardown(void **state)
{
	int rc = test_tmpdir_remove(*state);
	free(*state);
	return rc;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = wp_xasprintf("%s/%s", dir, name);
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_atomic_write(p, text, strlen(text), &err), 0);
	free(p);
}

static char *get(const char *dir, const char *name)
{
	char *p = wp_xasprintf("%s/%s", dir, name);
	struct wp_buf b = WP_BUF_INIT;
	char *out = wp_file_read_capped(p, 1 << 20, &b, NULL) ? NULL : wp_xstrdup(wp_buf_cstr(&b));
	wp_buf_free(&b);
	free(p);
	return out;
}

static bool exists(const char *dir, const char *name)
{
	char *p = wp_xasprintf("%s/%s", dir, name);
	bool yes = access(p, F_OK) == 0;
	free(p);
	return yes;
}

static void add(struct ij_journal *j, const char *dir, char op, const char *a, const char *b)
{
	char *pa = wp_xasprintf("%s/%s", dir, a), *pb = b ? wp_xasprintf("%s/%s", dir, b) : NULL;
	ij_add(j, op, pa, pb);
	free(pa);
	free(pb);
}

/* killed while staging: the temps and the folders made for them go, the old files stay */
static void test_roll_back(void **state)
{
	const char *d = *state;
	struct ij_journal j;
	struct wp_err err = WP_ERR_INIT;
	char *what = NULL;
	put(d, "old.py", "old");
	ij_init(&j, d);
	add(&j, d, IJ_MKDIR, "pkg", NULL);
	add(&j, d, IJ_RENAME, "pkg/.t1", "pkg/new.py");
	add(&j, d, IJ_RENAME, ".t2", "old.py");
	assert_int_equal(ij_write_staging(&j, &err), 0);
	char *pkg = wp_xasprintf("%s/pkg", d);
	assert_int_equal(mkdir(pkg, 0777), 0);
	put(d, "pkg/.t1", "new");
	/* .t2 never written: the kill came first */
	ij_release(&j);
	assert_int_equal(ij_recover(d, &what, &err), 0);
	assert_non_null(what);
	assert_non_null(strstr(what, "as it was"));
	assert_false(exists(d, "pkg"));
	assert_false(exists(d, ".wheelpick-staging.journal"));
	char *old = get(d, "old.py");
	assert_string_equal(old, "old");
	free(old);
	free(what);
	free(pkg);
	/* nothing left: a second recovery has nothing to say */
	assert_int_equal(ij_recover(d, &what, &err), 0);
	assert_null(what);
}

/* killed after the commit, with part of it applied: the next run applies the rest */
static void test_roll_forward(void **state)
{
	const char *d = *state;
	struct ij_journal j;
	struct wp_err err = WP_ERR_INIT;
	char *what = NULL;
	put(d, "old.py", "old");
	put(d, "gone.py", "old only");
	put(d, ".t1", "new one");
	put(d, ".t2", "old.py, new");
	char *sub = wp_xasprintf("%s/oldpkg", d);
	assert_int_equal(mkdir(sub, 0777), 0);
	put(d, "oldpkg/x.py", "x");
	ij_init(&j, d);
	add(&j, d, IJ_RENAME, ".t1", "one.py");
	add(&j, d, IJ_RENAME, ".t2", "old.py");
	add(&j, d, IJ_UNLINK, "gone.py", NULL);
	add(&j, d, IJ_UNLINK, "oldpkg/x.py", NULL);
	add(&j, d, IJ_RMDIR, "oldpkg", NULL);
	assert_int_equal(ij_write_staging(&j, &err), 0);
	assert_int_equal(ij_commit(&j, &err), 0);
	/* the kill: the first rename and the first removal were done */
	char *a = wp_xasprintf("%s/.t1", d), *b = wp_xasprintf("%s/one.py", d), *g = wp_xasprintf("%s/gone.py", d);
	assert_int_equal(rename(a, b), 0);
	assert_int_equal(unlink(g), 0);
	ij_release(&j);
	assert_int_equal(ij_recover(d, &what, &err), 0);
	assert_non_null(strstr(what, "finished"));
	char *one = get(d, "one.py"), *old = get(d, "old.py");
	assert_string_equal(one, "new one");
	assert_string_equal(old, "old.py, new");
	assert_false(exists(d, ".t2"));
	assert_false(exists(d, "gone.py"));
	assert_false(exists(d, "oldpkg"));
	assert_false(exists(d, ".wheelpick-commit.journal"));
	assert_false(exists(d, ".wheelpick-staging.journal"));
	free(one);
	free(old);
	free(a);
	free(b);
	free(g);
	free(sub);
	free(what);
}

/* a journal that is not one, or names a relative path, is refused rather than guessed at */
static void test_damaged(void **state)
{
	const char *d = *state;
	struct wp_err err = WP_ERR_INIT;
	char *what = NULL;
	put(d, ".wheelpick-commit.journal", "wheelpick journal 1\nRrelative\0/abs\0");
	assert_int_equal(ij_recover(d, &what, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "damaged"));
	free(what);
	wp_err_clear(&err);
	put(d, ".wheelpick-commit.journal", "not a journal");
	assert_int_equal(ij_recover(d, &what, &err), -WPE_INTEGRITY);
	free(what);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roll_back, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_roll_forward, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_damaged, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
