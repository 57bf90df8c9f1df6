/* tests/unit/test_install_journal.c: the install journal: a run killed while staging is undone, one
 * killed after its commit is finished, whatever it had applied; a damaged journal is refused, and
 * so is one that names a path outside the environment or renames from a file that is not our
 * temp; files moved aside while in use are removed by a later run, nothing else the list names;
 * Windows paths ("C:/...") are made lexically plain with their drive kept. */
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
#include <errno.h>
#include <fcntl.h>
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

/* An environment whose only folder is dir (as --target dir has it). */
static struct wp_ienv *env_of(const char *dir)
{
	static struct wp_ienv env;
	memset(&env, 0, sizeof(env));
	env.py.purelib = (char *)dir;
	env.roots[0] = (char *)dir;
	env.real_roots[0] = (char *)dir;
	env.n_roots = 1;
	return &env;
}

static void add(struct wp_ijournal *j, const char *dir, char op, const char *a, const char *b)
{
	char *pa = wp_xasprintf("%s/%s", dir, a), *pb = b ? wp_xasprintf("%s/%s", dir, b) : NULL;
	wp_ijournal_add(j, op, pa, pb);
	free(pa);
	free(pb);
}

/* killed while staging: the temps and the folders made for them go, the old files stay */
static void test_roll_back(void **state)
{
	const char *d = *state;
	struct wp_ijournal j;
	struct wp_err err = WP_ERR_INIT;
	char *what = NULL;
	put(d, "old.py", "old");
	wp_ijournal_init(&j, d);
	add(&j, d, WP_IJ_MKDIR, "pkg", NULL);
	add(&j, d, WP_IJ_RENAME, "pkg/.wp-1-0-1.tmp", "pkg/new.py");
	add(&j, d, WP_IJ_RENAME, ".wp-1-0-2.tmp", "old.py");
	assert_int_equal(wp_ijournal_write_staging(&j, &err), 0);
	char *pkg = wp_xasprintf("%s/pkg", d);
	assert_int_equal(mkdir(pkg, 0777), 0);
	put(d, "pkg/.wp-1-0-1.tmp", "new");
	/* .wp-1-0-2.tmp never written: the kill came first */
	wp_ijournal_release(&j);
	assert_int_equal(wp_ijournal_recover(env_of(d), &what, &err), 0);
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
	assert_int_equal(wp_ijournal_recover(env_of(d), &what, &err), 0);
	assert_null(what);
}

/* killed after the commit, with part of it applied: the next run applies the rest */
static void test_roll_forward(void **state)
{
	const char *d = *state;
	struct wp_ijournal j;
	struct wp_err err = WP_ERR_INIT;
	char *what = NULL;
	put(d, "old.py", "old");
	put(d, "gone.py", "old only");
	put(d, ".wp-1-0-1.tmp", "new one");
	put(d, ".wp-1-0-2.tmp", "old.py, new");
	char *sub = wp_xasprintf("%s/oldpkg", d);
	assert_int_equal(mkdir(sub, 0777), 0);
	put(d, "oldpkg/x.py", "x");
	wp_ijournal_init(&j, d);
	add(&j, d, WP_IJ_RENAME, ".wp-1-0-1.tmp", "one.py");
	add(&j, d, WP_IJ_RENAME, ".wp-1-0-2.tmp", "old.py");
	add(&j, d, WP_IJ_UNLINK, "gone.py", NULL);
	add(&j, d, WP_IJ_UNLINK, "oldpkg/x.py", NULL);
	add(&j, d, WP_IJ_RMDIR, "oldpkg", NULL);
	assert_int_equal(wp_ijournal_write_staging(&j, &err), 0);
	assert_int_equal(wp_ijournal_commit(&j, &err), 0);
	/* the kill: the first rename and the first removal were done */
	char *a = wp_xasprintf("%s/.wp-1-0-1.tmp", d), *b = wp_xasprintf("%s/one.py", d),
	     *g = wp_xasprintf("%s/gone.py", d);
	assert_int_equal(rename(a, b), 0);
	assert_int_equal(unlink(g), 0);
	wp_ijournal_release(&j);
	assert_int_equal(wp_ijournal_recover(env_of(d), &what, &err), 0);
	assert_non_null(strstr(what, "finished"));
	char *one = get(d, "one.py"), *old = get(d, "old.py");
	assert_string_equal(one, "new one");
	assert_string_equal(old, "old.py, new");
	assert_false(exists(d, ".wp-1-0-2.tmp"));
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
	assert_int_equal(wp_ijournal_recover(env_of(d), &what, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "damaged"));
	free(what);
	wp_err_clear(&err);
	put(d, ".wheelpick-commit.journal", "not a journal");
	assert_int_equal(wp_ijournal_recover(env_of(d), &what, &err), -WPE_INTEGRITY);
	free(what);
}

/* a journal planted by a wheel or a person: paths outside the environment, a climbing path, a
 * rename from a file that is not a staging temp, or onto the journal itself; refused, nothing
 * done */
static void test_foreign(void **state)
{
	const char *d = *state;
	struct wp_err err = WP_ERR_INIT;
	char *what = NULL;
	char *sub = wp_xasprintf("%s/env", d);
	assert_int_equal(mkdir(sub, 0777), 0);
	put(d, "victim", "precious");
	put(sub, "shipped.py", "shipped");
	put(sub, ".wp-9-0-0.tmp", "staged");
	struct wp_buf bad[7] = { WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT,
				 WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT };
	wp_buf_printf(&bad[0], "U%s/victim", d);
	wp_buf_printf(&bad[1], "U%s/../victim", sub);
	wp_buf_printf(&bad[2], "R%s/shipped.py%c%s/moved.py", sub, 0, sub);
	wp_buf_printf(&bad[3], "R%s/.wp-9-0-0.tmp%c%s/victim", sub, 0, d);
	wp_buf_printf(&bad[4], "D%s", d);
	wp_buf_printf(&bad[5], "R%s/.wp-9-0-0.tmp%c%s/.wheelpick-commit.journal", sub, 0, sub);
	wp_buf_printf(&bad[6], "U%s//victim", d);
	for (int kind = 0; kind < 2; kind++) {
		for (size_t i = 0; i < 7; i++) {
			struct wp_buf j = WP_BUF_INIT;
			wp_buf_addstr(&j, "wheelpick journal 1\n");
			wp_buf_add(&j, bad[i].data, bad[i].len + 1);
			char *p = wp_xasprintf("%s/%s", sub,
					       kind ? ".wheelpick-staging.journal" :
						      ".wheelpick-commit.journal");
			assert_int_equal(wp_atomic_write(p, j.data, j.len, &err), 0);
			assert_int_equal(wp_ijournal_recover(env_of(sub), &what, &err),
					 -WPE_INTEGRITY);
			assert_non_null(strstr(err.msg, "not written by wheelpick"));
			wp_err_clear(&err);
			free(what);
			what = NULL;
			char *v = get(d, "victim"), *sh = get(sub, "shipped.py");
			assert_string_equal(v, "precious");
			assert_string_equal(sh, "shipped");
			assert_true(exists(sub, ".wp-9-0-0.tmp"));
			assert_true(access(p, F_OK) == 0); /* left for a person to read */
			unlink(p);
			free(v);
			free(sh);
			free(p);
			wp_buf_free(&j);
		}
	}
	for (size_t i = 0; i < 7; i++)
		wp_buf_free(&bad[i]);
	free(sub);
}

/* --link-mode hardlink's staged temp: linked from the store beneath the environment's open handle,
 * so a folder of the environment that is a symlink out of it never receives the link */
static void test_link_beneath(void **state)
{
	const char *d = *state;
	char *sub = wp_xasprintf("%s/env", d), *out = wp_xasprintf("%s/outside", d);
	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(mkdir(out, 0777), 0);
	put(d, "store-file", "from the store");
	char *src = wp_xasprintf("%s/store-file", d), *lnk = wp_xasprintf("%s/pkg", sub);
	assert_int_equal(symlink(out, lnk), 0);
	struct wp_ienv *env = env_of(sub);
	env->root_fd[0] = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(env->root_fd[0] >= 0);
	env->fds_open = true;
	char *ok = wp_xasprintf("%s/.wp-1-0-0.tmp", sub),
	     *bad = wp_xasprintf("%s/pkg/.wp-1-0-1.tmp", sub);
	assert_int_equal(wp_ienv_link(env, src, ok), 0);
	char *got = get(sub, ".wp-1-0-0.tmp");
	assert_string_equal(got, "from the store");
	errno = 0;
	assert_int_equal(wp_ienv_link(env, src, bad), -1);
	assert_true(errno == ELOOP || errno == ENOTDIR);
	assert_false(exists(out, ".wp-1-0-1.tmp"));
	/* the same for a reflink's or a copy's temp: opened beneath the handle */
	errno = 0;
	assert_int_equal(wp_ienv_open_file(env, bad, WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL, 0666),
			 -1);
	assert_false(exists(out, ".wp-1-0-1.tmp"));
	close(env->root_fd[0]);
	free(got);
	free(ok);
	free(bad);
	free(src);
	free(lnk);
	free(out);
	free(sub);
}

/* a file in use moved aside (Windows) and listed: the next run's recovery removes it and the
 * list; a listed name that is not such a file of this environment is left alone */
static void test_aside_sweep(void **state)
{
	const char *d = *state;
	struct wp_err err = WP_ERR_INIT;
	char *what = NULL;
	put(d, "~tool.exe.wp-old-12-1", "old launcher");
	put(d, "keep.py", "not ours to remove");
	put(d, "~keep.py", "no .wp-old- in the name");
	char *list = wp_xasprintf("%s/~tool.exe.wp-old-12-1\n%s/keep.py\n%s/~keep.py\n"
				  "/elsewhere/~x.wp-old-1-1\n%s/sub/../~tool.exe.wp-old-12-1\n",
				  d, d, d, d);
	put(d, ".wheelpick-aside", list);
	free(list);
	assert_int_equal(wp_ijournal_recover(env_of(d), &what, &err), 0);
	assert_null(what);
	assert_false(exists(d, "~tool.exe.wp-old-12-1"));
	assert_true(exists(d, "keep.py"));
	assert_true(exists(d, "~keep.py"));
	assert_false(exists(d, ".wheelpick-aside"));
}

/* the names the installer keeps: a file moved aside is one, a plain '~' name is not */
static void test_reserved_aside(void **state)
{
	(void)state;
	const char *yes[] = { "~a.exe.wp-old-1-2", "Scripts/~tool.exe.wp-old-99-7",
			      ".wheelpick-aside" };
	const char *no[] = { "~a.exe", "Scripts/~tool.py", "a.wp-old-1", "~.wp-old" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		assert_true(wp_inst_reserved_name(yes[i], strlen(yes[i])));
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		assert_false(wp_inst_reserved_name(no[i], strlen(no[i])));
}

/* a Windows path as the seam gives it keeps its drive; ".." stops there */
static void test_lexical_drive(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{ "C:/venv/Lib/site-packages/../../Scripts/a.exe", "C:/venv/Scripts/a.exe" },
		{ "C:/a/./b//c", "C:/a/b/c" },
		{ "C:/../..", "C:/" },
		{ "c:/x/..", "c:/" },
		{ "/usr/lib/../bin", "/usr/bin" },
		{ "/..", "/" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = wp_inst_lexical(cases[i][0]);
		assert_string_equal(got, cases[i][1]);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roll_back, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_roll_forward, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_damaged, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_foreign, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_link_beneath, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_aside_sweep, fx_setup, fx_teardown),
		cmocka_unit_test(test_reserved_aside),
		cmocka_unit_test(test_lexical_drive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
