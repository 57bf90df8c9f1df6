/* tests/unit/test_catalog.c: trust on first use keyed by file, not URL (schema 5), and the
 * metadata the catalog keeps with its checked mark. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "cache/catalog.h"
#include "resolver/ask.h"

struct fx {
	char dir[64];
	char path[96];
	struct wp_catalog cat;
};

static int fx_setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	struct wp_err err = WP_ERR_INIT;
	if (test_tmpdir_make(x->dir, sizeof(x->dir), "catalog") < 0)
		return -1;
	snprintf(x->path, sizeof(x->path), "%s/c.sqlite3", x->dir);
	*state = x;
	return wp_catalog_open(&x->cat, x->path, &err);
}

static int fx_teardown(void **state)
{
	struct fx *x = *state;
	wp_catalog_close(&x->cat);
	int rc = test_tmpdir_remove(x->dir);
	free(x);
	return rc;
}

#define H1 "1111111111111111111111111111111111111111111111111111111111111111"
#define H2 "2222222222222222222222222222222222222222222222222222222222222222"

/* One wheel row on the page `page`: how many conflicts its refresh found. */
static uint64_t listed(struct fx *x, const char *page, const char *project, const char *version,
		       const char *variant, const char *filename, const char *url, const char *sha)
{
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	assert_int_equal(wp_catalog_refresh_begin(&x->cat, page, WP_SOURCE_FINDLINKS, &sid, &err),
			 0);
	struct wp_file_row f = { .source_id = sid,
				 .project = project,
				 .version = version,
				 .variant = variant,
				 .kind = "wheel",
				 .filename = filename,
				 .url = url,
				 .sha256 = sha,
				 .tags = "py3-none-any",
				 .size = -1,
				 .build_number = -1,
				 .timestamp = -1 };
	assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
	assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, 1, &err), 0);
	return x->cat.refresh_conflicts;
}

static void test_first_seen_by_file(void **state)
{
	struct fx *x = *state;
	const char *fn = "demo_pkg-1.0-py3-none-any.whl";
	assert_int_equal(listed(x, "https://a.example/p.html", "demo-pkg", "1.0", "", fn,
				"https://a.example/demo_pkg-1.0-py3-none-any.whl", H1), 0);
	/* another folder, a query, another host, another spelling: one file, other bytes */
	assert_int_equal(listed(x, "https://a.example/q.html", "demo-pkg", "1.0", "", fn,
				"https://a.example/v2/demo_pkg-1.0-py3-none-any.whl", H2), 1);
	assert_int_equal(listed(x, "https://a.example/q.html", "demo-pkg", "1.0", "", fn,
				"https://a.example/demo_pkg-1.0-py3-none-any.whl?v=2", H2), 1);
	assert_int_equal(listed(x, "https://a.example/q.html", "demo-pkg", "1.0", "", fn,
				"https://mirror.example/demo_pkg-1.0-py3-none-any.whl", H2), 1);
	assert_int_equal(listed(x, "https://a.example/q.html", "demo-pkg", "1.0.0", "",
				"Demo_Pkg-1.0.0-PY3-none-any.whl",
				"https://a.example/Demo_Pkg-1.0.0-PY3-none-any.whl", H2),
			 1);
	/* the same bytes anywhere are no conflict; nor another version or variant folder */
	assert_int_equal(listed(x, "https://a.example/q.html", "demo-pkg", "1.0", "", fn,
				"https://mirror.example/demo_pkg-1.0-py3-none-any.whl", H1), 0);
	assert_int_equal(listed(x, "https://a.example/q.html", "demo-pkg", "1.1", "",
				"demo_pkg-1.1-py3-none-any.whl",
				"https://a.example/demo_pkg-1.1-py3-none-any.whl", H2),
			 0);
	assert_int_equal(listed(x, "https://a.example/t1.html", "torch", "1.4.0", "cu101",
				"torch-1.4.0-py3-none-any.whl",
				"https://a.example/cu101/torch-1.4.0-py3-none-any.whl", H1),
			 0);
	assert_int_equal(listed(x, "https://a.example/t2.html", "torch", "1.4.0", "cu92",
				"torch-1.4.0-py3-none-any.whl",
				"https://a.example/cu92/torch-1.4.0-py3-none-any.whl", H2),
			 0);
}

static void test_record_hash_and_trust(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	int64_t n = 0;
	assert_int_equal(listed(x, "https://a.example/p.html", "demo-pkg", "1.0", "",
				"demo_pkg-1.0-py3-none-any.whl",
				"https://a.example/demo_pkg-1.0-py3-none-any.whl", H1),
			 0);
	/* an index without hashes: the first fetch of the name elsewhere is held to H1 */
	assert_int_equal(wp_catalog_record_hash(&x->cat,
						"https://b.example/x/demo_pkg-1.0-py3-none-any.whl",
						H2, &err),
			 -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "was seen first"));
	wp_err_clear(&err);
	assert_int_equal(wp_catalog_record_hash(&x->cat,
						"https://b.example/x/demo_pkg-1.0-py3-none-any.whl",
						H1, &err),
			 0);
	/* trust by a pattern accepts the file it names, and its bytes become the name's */
	assert_int_equal(listed(x, "https://a.example/q.html", "demo-pkg", "1.0", "",
				"demo_pkg-1.0-py3-none-any.whl",
				"https://a.example/v2/demo_pkg-1.0-py3-none-any.whl", H2),
			 1);
	assert_int_equal(wp_catalog_accept_hashes(&x->cat, "%/nothing/%", &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(wp_catalog_accept_hashes(&x->cat, "%/v2/%", &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(listed(x, "https://a.example/q.html", "demo-pkg", "1.0", "",
				"demo_pkg-1.0-py3-none-any.whl",
				"https://a.example/v2/demo_pkg-1.0-py3-none-any.whl", H2),
			 0);
}

static void test_metadata_checked(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	struct wp_catalog_meta m;
	assert_int_equal(wp_catalog_metadata_lookup(&x->cat, "https://a.example/m.whl", &m, &err),
			 0);
	assert_false(m.found);
	assert_int_equal(wp_catalog_metadata_put(&x->cat, "https://a.example/m.whl", ">=3.8",
						 "a\nb\n", false, &err),
			 0);
	assert_int_equal(wp_catalog_metadata_lookup(&x->cat, "https://a.example/m.whl", &m, &err),
			 0);
	assert_true(m.found);
	assert_false(m.checked);
	assert_string_equal(m.requires_python, ">=3.8");
	assert_string_equal(m.requires_dist, "a\nb\n");
	wp_catalog_meta_release(&m);
	assert_int_equal(wp_catalog_metadata_put(&x->cat, "https://a.example/m.whl", NULL, "", true,
						 &err),
			 0);
	assert_int_equal(wp_catalog_metadata_lookup(&x->cat, "https://a.example/m.whl", &m, &err),
			 0);
	assert_true(m.checked);
	assert_null(m.requires_python);
	wp_catalog_meta_release(&m);
}

struct rows {
	int n;
	char sha[2][65], conflict[2][65];
};

static int row_fn(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct rows *rs = ctx;
	(void)err;
	if (rs->n < 2) {
		snprintf(rs->sha[rs->n], sizeof(rs->sha[0]), "%s", r->sha256 ? r->sha256 : "");
		snprintf(rs->conflict[rs->n], sizeof(rs->conflict[0]), "%s",
			 r->hash_conflict ? r->hash_conflict : "");
	}
	rs->n++;
	return 0;
}

/* A page that lists one URL twice keeps its last row, and the refresh goes on and commits. */
static void test_url_listed_twice(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	const char *fn = "demo_pkg-1.0-py3-none-any.whl",
		   *url = "https://a.example/demo_pkg-1.0-py3-none-any.whl";
	for (int round = 0; round < 2; round++) {
		assert_int_equal(wp_catalog_refresh_begin(&x->cat, "https://a.example/p.html",
							  WP_SOURCE_FINDLINKS, &sid, &err),
				 0);
		struct wp_file_row f = { .source_id = sid,
					 .project = "demo-pkg",
					 .version = "1.0",
					 .kind = "wheel",
					 .filename = fn,
					 .url = url,
					 .sha256 = H1,
					 .tags = "py3-none-any",
					 .size = -1,
					 .build_number = -1,
					 .timestamp = -1 };
		assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
		f.sha256 = H2;
		assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
		f.version = "1.1";
		f.filename = "demo_pkg-1.1-py3-none-any.whl";
		f.url = "https://a.example/demo_pkg-1.1-py3-none-any.whl";
		assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
		assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, 3, &err),
				 0);
		struct rows rs = { 0 };
		assert_int_equal(wp_catalog_files(&x->cat, "demo-pkg", false, row_fn, &rs, &err),
				 0);
		assert_int_equal(rs.n, 2);
		int i = strcmp(rs.sha[0], H2) ? 1 : 0; /* the 1.0 row: the last one listed, held to
							  H1 */
		assert_string_equal(rs.sha[i], H2);
		assert_string_equal(rs.conflict[i], H1);
	}
}

/* The sources a picked file came from: its URL on two pages, found through its release's rows
 * (files_by_version) when the version is given; a version it was not stored with finds none,
 * which is how the lookup is known to read that release only. No version: every row. Inside a
 * read scope the lookups share one transaction. */
struct srcs {
	int n;
	char url[2][64];
};
static int src_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	(void)err;
	struct srcs *s = ctx;
	if (s->n < 2)
		snprintf(s->url[s->n], sizeof(s->url[0]), "%s", r->url);
	s->n++;
	return 0;
}

static void test_file_url_sources(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	const char *url = "https://files.example/demo_pkg-2.0%2Bcu111-py3-none-any.whl";
	const char *fn = "demo_pkg-2.0+cu111-py3-none-any.whl";
	listed(x, "https://a.example/p.html", "demo-pkg", "2.0+cu111", NULL, fn, url, H1);
	listed(x, "https://b.example/p.html", "demo-pkg", "2.0+cu111", NULL, fn, url, H1);
	listed(x, "https://c.example/p.html", "demo-pkg", "1.0", NULL,
	       "demo_pkg-1.0-py3-none-any.whl",
	       "https://files.example/demo_pkg-1.0-py3-none-any.whl", H2);
	const char *versions[] = { "2.0+cu111", "2.0.0+cu111", NULL, "2.0", "1.0" };
	const int want[] = { 2, 2, 2, 0, 0 };
	/* a plan of many files asks once a file: inside a read scope, all in one transaction */
	wp_catalog_count_transactions(&x->cat, true);
	wp_catalog_read_begin(&x->cat);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct srcs s = { 0 };
		int rc = wp_catalog_file_url_sources(&x->cat, "demo-pkg", versions[i], url, src_fn,
						     &s, &err);
		assert_int_equal(rc, 0);
		assert_int_equal(s.n, want[i]);
		if (want[i]) {
			assert_string_equal(s.url[0], "https://a.example/p.html");
			assert_string_equal(s.url[1], "https://b.example/p.html");
		}
	}
	wp_catalog_read_end(&x->cat);
	assert_int_equal(x->cat.transactions, 1);
}

/* A path that is not a catalog: the advice to use another names it in the caller's words (the
 * CLI's "--catalog"), or in plain ones; the cache layer spells no flag. */
static void test_other_catalog_words(void **state)
{
	struct fx *x = *state;
	static const struct wp_asks asks = { .words = {
						     [WP_ASK_CATALOG] = "OTHER-CATALOG-WORDS" } };
	struct wp_catalog c;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_catalog_open_as(&c, x->dir, &asks, &err), -WPE_IO); /* a directory */
	assert_non_null(strstr(err.msg, "use OTHER-CATALOG-WORDS (or WHEELPICK_CATALOG)"));
	wp_catalog_close(&c);
	wp_err_clear(&err);
	assert_int_equal(wp_catalog_open(&c, x->dir, &err), -WPE_IO);
	assert_non_null(strstr(err.msg, "use another catalog (or WHEELPICK_CATALOG)"));
	assert_null(strstr(err.msg, "--"));
	wp_catalog_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_seen_by_file, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_record_hash_and_trust, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_metadata_checked, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_url_listed_twice, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_file_url_sources, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_other_catalog_words, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
