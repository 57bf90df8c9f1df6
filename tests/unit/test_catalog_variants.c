/* tests/unit/test_catalog_variants.c: PEP 825 in the catalog (schema 6): a variants.json link is a
 * row replaced with its page, never a candidate, outside trust on first use; its bytes are kept by
 * URL across refreshes; a schema 5 catalog is brought forward with its pages' validators
 * dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "cache/catalog.h"

struct fx {
	char dir[64];
	char path[96];
	struct wp_catalog cat;
};

static int fx_setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	struct wp_err err = WP_ERR_INIT;
	if (test_tmpdir_make(x->dir, sizeof(x->dir), "catvar") < 0)
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
#define PAGE "https://download.pytorch.org/whl/variant/torch/"
#define VURL "https://download.pytorch.org/whl/variant/torch-2.10.0-variants.json"

/* The page lists one variant wheel and the release's variants.json (with sha). */
static uint64_t refresh(struct fx *x, const char *sha)
{
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	assert_int_equal(wp_catalog_refresh_begin(&x->cat, PAGE, WP_SOURCE_SIMPLE, &sid, &err), 0);
	struct wp_file_row w = {
		.source_id = sid,
		.project = "torch",
		.version = "2.10.0",
		.variant = "cuda12.8",
		.kind = "wheel",
		.filename = "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl",
		.url = PAGE "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl",
		.sha256 = H1,
		.tags = "cp313-cp313-manylinux_2_28_x86_64",
		.size = -1,
		.build_number = -1,
		.timestamp = -1
	};
	struct wp_file_row v = { .source_id = sid,
				 .project = "torch",
				 .version = "2.10.0",
				 .variant = "",
				 .kind = "variants",
				 .filename = "torch-2.10.0-variants.json",
				 .url = VURL,
				 .sha256 = sha,
				 .size = -1,
				 .build_number = -1,
				 .timestamp = -1 };
	assert_int_equal(wp_catalog_add_file(&x->cat, &w, &err), 0);
	assert_int_equal(wp_catalog_add_file(&x->cat, &v, &err), 0);
	assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, 2, &err), 0);
	return x->cat.refresh_conflicts;
}

struct seen {
	int n;
	char version[16], sha[80], body[64], body_sha[80];
};

static int row_fn(void *ctx, const struct wp_variants_row *r, struct wp_err *err)
{
	struct seen *s = ctx;
	s->n++;
	snprintf(s->version, sizeof(s->version), "%s", r->version);
	snprintf(s->sha, sizeof(s->sha), "%s", r->sha256 ? r->sha256 : "");
	snprintf(s->body, sizeof(s->body), "%s", r->body ? r->body : "(none)");
	snprintf(s->body_sha, sizeof(s->body_sha), "%s", r->body_sha256 ? r->body_sha256 : "");
	assert_string_equal(r->source_url, PAGE);
	return 0;
}

static int count_fn(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	(*(int *)ctx)++;
	assert_string_equal(r->kind, "wheel"); /* never a candidate */
	return 0;
}

static void test_links_and_bodies(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	struct seen s = { 0 };
	int n = 0;
	assert_int_equal(refresh(x, H1), 0);
	assert_int_equal(wp_catalog_files(&x->cat, "torch", false, count_fn, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(wp_catalog_variants(&x->cat, "torch", row_fn, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.version, "2.10.0");
	assert_string_equal(s.sha, H1);
	assert_string_equal(s.body, "(none)");

	assert_int_equal(wp_catalog_variants_put(&x->cat, VURL, H1, "{\"x\": 1}", &err), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(wp_catalog_variants(&x->cat, "torch", row_fn, &s, &err), 0);
	assert_string_equal(s.body, "{\"x\": 1}");
	assert_string_equal(s.body_sha, H1);

	/* PEP 825: the file may grow; a new sha256 is no trust-on-first-use conflict, and the kept
	 * bytes stay until read again (ops/wheel/resolve.c compares the two hashes) */
	assert_int_equal(refresh(x, H2), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(wp_catalog_variants(&x->cat, "torch", row_fn, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.sha, H2);
	assert_string_equal(s.body_sha, H1);
	memset(&s, 0, sizeof(s));
	assert_int_equal(wp_catalog_variants(&x->cat, "numpy", row_fn, &s, &err), 0);
	assert_int_equal(s.n, 0);
}

/* A schema 5 catalog: opened, it gains the table and its pages lose their validators, so the next
 * update reads the variant wheels and links the old reader skipped. */
static void test_migration(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	wp_catalog_close(&x->cat);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(x->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "DROP TABLE variants_json;"
				      "INSERT INTO sources (url, kind, etag, last_modified, content_sha256) VALUES"
				      " ('" PAGE "', 'simple', 'W/\"1\"', 'yesterday', '" H1 "'),"
				      " ('https://conda.anaconda.org/pytorch/linux-64/repodata.json', 'repodata', 'W/\"2\"', NULL, NULL);"
				      "PRAGMA user_version = 5;",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(wp_catalog_open(&x->cat, x->path, &err), 0);
	assert_int_equal(sqlite3_open(x->path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT (SELECT user_version FROM pragma_user_version),"
					    " (SELECT count(*) FROM sources WHERE etag IS NOT NULL AND kind = 'simple'),"
					    " (SELECT count(*) FROM sources WHERE etag IS NOT NULL AND kind = 'repodata'),"
					    " (SELECT count(*) FROM variants_json)",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), WP_CATALOG_SCHEMA_VERSION);
	assert_int_equal(sqlite3_column_int(st, 1), 0); /* the page is read whole next time */
	assert_int_equal(sqlite3_column_int(st, 2), 1); /* repodata never held variant wheels */
	assert_int_equal(sqlite3_column_int(st, 3), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_links_and_bodies, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_migration, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
