/* tests/unit/fixtures.h: where unit tests find the real files they read. Test-only, header-only.
 *
 * The files are vendored under tests/fixtures/real/ (PROVENANCE.md there says where each came
 * from), so a clean clone runs every check and nothing outside the repository is read.
 * $WP_TEST_REAL_DATA, when set, names another tree of the same layout to read instead (a test
 * variable of its own: the benchmarks' data-folder variable never reaches the tests).
 * Paths are relative to the repository root, where make runs the tests.
 *
 * A missing input fails the test and names the file: it never skips and never passes empty.
 * fixture_path, fixture_need and fixture_read return strings the caller frees; fixture_open's
 * FILE is the caller's to close. Include after <cmocka.h>. */
#ifndef WP_TEST_FIXTURES_H
#define WP_TEST_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"

#define WP_FIXTURE_ROOT "tests/fixtures/real"

static inline const char *fixture_root(void)
{
	const char *d = getenv("WP_TEST_REAL_DATA");
	return d && *d ? d : WP_FIXTURE_ROOT;
}

static inline char *fixture_path(const char *rel)
{
	return wp_xasprintf("%s/%s", fixture_root(), rel);
}

#define fixture_missing(path) \
	fail_msg("missing test input '%s' (vendored under " WP_FIXTURE_ROOT "/, or the tree " \
		 "$WP_TEST_REAL_DATA names; run from the repository root)", (path))

/* The path of an input that the code under test opens itself; it must be there. */
static inline char *fixture_need(const char *rel)
{
	char *path = fixture_path(rel);
	if (access(path, R_OK) != 0)
		fixture_missing(path);
	return path;
}

static inline FILE *fixture_open(const char *rel)
{
	char *path = fixture_path(rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		fixture_missing(path);
	free(path);
	return f;
}

/* The whole file, NUL-terminated; len (optional) gets its length. */
static inline char *fixture_read(const char *rel, size_t *len)
{
	FILE *f = fixture_open(rel);
	struct wp_buf b = WP_BUF_INIT;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		wp_buf_add(&b, chunk, n);
	fclose(f);
	if (len)
		*len = b.len;
	return b.data ? wp_buf_detach(&b, NULL) : wp_xstrdup("");
}

#endif
