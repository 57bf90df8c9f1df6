/* tests/unit/tmpdir.h: the one temp-folder helper of the unit tests: a fresh folder made, and
 * removed with everything under it. Test-only, header-only.
 *
 * The folder is /tmp/wp_<tag>_XXXXXX whatever the environment says (a developer's TMPDIR does not
 * change what a test sees), written into the caller's buffer, so that a setup that returns int
 * can use it as it is:
 *     static char root[64];
 *     static int setup(void **state) { return test_tmpdir_make(root, sizeof(root), "bundle"); }
 *     static int teardown(void **state) { return test_tmpdir_remove(root); } */
#ifndef WP_TEST_TMPDIR_H
#define WP_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/fs.h"

/* The same under base ("/tmp", "/dev/shm"): 0, or -1 when the name does not fit buf or the folder
 * cannot be made. */
static inline int test_tmpdir_make_in(char *buf, size_t size, const char *base, const char *tag)
{
	int n = snprintf(buf, size, "%s/wp_%s_XXXXXX", base, tag);
	if (n < 0 || (size_t)n >= size)
		return -1;
	return mkdtemp(buf) ? 0 : -1;
}

/* 0, or -1 when the name does not fit buf or the folder cannot be made. */
static inline int test_tmpdir_make(char *buf, size_t size, const char *tag)
{
	return test_tmpdir_make_in(buf, size, "/tmp", tag);
}

/* A folder on a tmpfs (/dev/shm) where there is one, else under /tmp: for a test that writes
 * through code that fsyncs (the store, the catalog, wheelhouses, mirrors), where a sync costs
 * nothing on a tmpfs and up to a tenth of a second each on a busy disk. */
static inline int test_tmpdir_make_fast(char *buf, size_t size, const char *tag)
{
	if (access("/dev/shm", W_OK | X_OK) == 0 &&
	    test_tmpdir_make_in(buf, size, "/dev/shm", tag) == 0)
		return 0;
	return test_tmpdir_make(buf, size, tag);
}

/* Removes dir and everything under it (links are removed, never followed); 0 always, so that a
 * teardown can return it. An empty or NULL dir is nothing to remove. */
static inline int test_tmpdir_remove(const char *dir)
{
	if (dir && *dir)
		wp_fs_remove_tree(dir);
	return 0;
}

#endif
