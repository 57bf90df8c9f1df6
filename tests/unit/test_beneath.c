/* tests/unit/test_beneath.c: base/beneath.c: paths changed beneath an open folder never leave it:
 * a symlink anywhere on the way (or at the end, for open), "..", "." or an absolute path stops the
 * walk, and the files it would have reached are untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/beneath.h"
#include "base/mem.h"

struct fx {
	char dir[128];
	char *root, *outside;
	int fd;
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static bool there(const char *dir, const char *name)
{
	char *p = wp_xasprintf("%s/%s", dir, name);
	struct stat sb;
	bool yes = lstat(p, &sb) == 0;
	free(p);
	return yes;
}

/* root/{a/b/f, a/file}, root/link -> outside, root/a/deep -> outside, root/a/flink ->
 * outside/victim, outside/{victim, sub/x} */
static int fx_setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	if (test_tmpdir_make(x->dir, sizeof(x->dir), "beneath") < 0)
		return -1;
	x->root = wp_xasprintf("%s/root", x->dir);
	x->outside = wp_xasprintf("%s/outside", x->dir);
	char *p;
	mkdir(x->root, 0777);
	mkdir(x->outside, 0777);
	p = wp_xasprintf("%s/sub", x->outside), mkdir(p, 0777), free(p);
	p = wp_xasprintf("%s/sub/x", x->outside), put(p, "x"), free(p);
	p = wp_xasprintf("%s/victim", x->outside), put(p, "precious"), free(p);
	p = wp_xasprintf("%s/a", x->root), mkdir(p, 0777), free(p);
	p = wp_xasprintf("%s/a/b", x->root), mkdir(p, 0777), free(p);
	p = wp_xasprintf("%s/a/b/f", x->root), put(p, "f"), free(p);
	p = wp_xasprintf("%s/a/file", x->root), put(p, "file"), free(p);
	p = wp_xasprintf("%s/link", x->root), assert_int_equal(symlink(x->outside, p), 0), free(p);
	p = wp_xasprintf("%s/a/deep", x->root), assert_int_equal(symlink(x->outside, p), 0),
	free(p);
	char *v = wp_xasprintf("%s/victim", x->outside);
	p = wp_xasprintf("%s/a/flink", x->root), assert_int_equal(symlink(v, p), 0), free(p);
	free(v);
	x->fd = open(x->root, O_RDONLY | O_DIRECTORY);
	assert_true(x->fd >= 0);
	*state = x;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *x = *state;
	close(x->fd);
	int rc = test_tmpdir_remove(x->dir);
	free(x->root);
	free(x->outside);
	free(x);
	return rc;
}

static void test_inside(void **state)
{
	struct fx *x = *state;
	assert_int_equal(wp_beneath_mkdir(x->fd, "a/b/c", 0777), 0);
	int fd = wp_beneath_open(x->fd, "a/b/c/new", WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL, 0666);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(wp_beneath_rename(x->fd, "a/b/c/new", "a/moved"), 0);
	assert_true(there(x->root, "a/moved"));
	assert_int_equal(wp_beneath_unlink(x->fd, "a/moved"), 0);
	assert_int_equal(wp_beneath_rmdir(x->fd, "a/b/c"), 0);
	assert_false(there(x->root, "a/b/c"));
	/* a symlink as the last component is removed itself, never followed */
	assert_int_equal(wp_beneath_unlink(x->fd, "a/flink"), 0);
	assert_true(there(x->outside, "victim"));
	assert_false(there(x->root, "a/flink"));
}

static void test_links_stop(void **state)
{
	struct fx *x = *state;
	const char *through[] = { "link/victim", "a/deep/victim", "link/sub/x", "a/deep/sub/x" };
	for (size_t i = 0; i < 4; i++) {
		errno = 0;
		assert_int_equal(wp_beneath_unlink(x->fd, through[i]), -1);
		assert_true(errno == ELOOP || errno == ENOTDIR);
		assert_int_equal(wp_beneath_rename(x->fd, "a/file", through[i]), -1);
		assert_int_equal(wp_beneath_rename(x->fd, through[i], "a/stolen"), -1);
		assert_int_equal(wp_beneath_open(x->fd, through[i], WP_O_WRONLY | WP_O_TRUNC, 0),
				 -1);
		assert_int_equal(wp_beneath_mkdir(x->fd, through[i], 0777), -1);
	}
	assert_int_equal(wp_beneath_rmdir(x->fd, "link/sub"), -1);
	/* open does not follow a symlink at the end either */
	assert_int_equal(wp_beneath_open(x->fd, "a/flink", WP_O_WRONLY | WP_O_TRUNC, 0), -1);
	assert_true(there(x->outside, "victim"));
	assert_true(there(x->outside, "sub/x"));
	assert_true(there(x->root, "a/file"));
	assert_false(there(x->root, "a/stolen"));
}

/* a hard link from a file outside root (the unpacked store) lands beneath root, never behind a
 * symlinked folder */
static void test_link(void **state)
{
	struct fx *x = *state;
	char *src = wp_xasprintf("%s/a/b/f", x->root);
	assert_int_equal(wp_beneath_link(AT_FDCWD, src, x->fd, "a/linked"), 0);
	assert_true(there(x->root, "a/linked"));
	const char *through[] = { "link/planted", "a/deep/planted", "link/sub/planted",
				  "a/deep/sub/planted" };
	for (size_t i = 0; i < 4; i++) {
		errno = 0;
		assert_int_equal(wp_beneath_link(AT_FDCWD, src, x->fd, through[i]), -1);
		assert_true(errno == ELOOP || errno == ENOTDIR);
	}
	assert_false(there(x->outside, "planted"));
	assert_false(there(x->outside, "sub/planted"));
	errno = 0;
	assert_int_equal(wp_beneath_link(AT_FDCWD, src, x->fd, "../outside/planted"), -1);
	assert_int_equal(errno, EXDEV);
	free(src);
}

static void test_dots_and_absolute(void **state)
{
	struct fx *x = *state;
	char *abs = wp_xasprintf("%s/victim", x->outside);
	const char *bad[] = { "../outside/victim",
			      "a/../../outside/victim",
			      "./a/file",
			      "a//file",
			      "",
			      "a/b/..",
			      abs };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		errno = 0;
		assert_int_equal(wp_beneath_unlink(x->fd, bad[i]), -1);
		assert_int_equal(errno, EXDEV);
	}
	assert_true(there(x->outside, "victim"));
	assert_true(there(x->root, "a/file"));
	free(abs);
}

static void test_rel(void **state)
{
	(void)state;
	assert_string_equal(wp_beneath_rel("/v/lib/x", "/v"), "lib/x");
	assert_string_equal(wp_beneath_rel("/v/lib/x", "/v/"), "lib/x");
	assert_null(wp_beneath_rel("/vv/lib", "/v"));
	assert_null(wp_beneath_rel("/v", "/v"));
	assert_null(wp_beneath_rel("/v/", "/v"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_inside, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_links_stop, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_link, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_dots_and_absolute, fx_setup, fx_teardown),
		cmocka_unit_test(test_rel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
