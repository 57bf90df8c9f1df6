/* tests/unit/test_catalog_read.c: the catalog's read scope (one read transaction for many reads,
 * ended by a write), the source-filtered read newest first, and the source index added to a schema
 * 7 catalog. */
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
#include "base/buf.h"
#include "cache/catalog.h"
#include "resolver/version.h"

struct fx {
	char dir[64];
	char path[96];
	struct wp_catalog cat;
};

static int fx_setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	struct wp_err err = WP_ERR_INIT;
	if (test_tmpdir_make(x->dir, sizeof(x->dir), "catread") < 0)
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

/* A page listing proj at the given versions (one wheel each), written through cat; its source
 * id. */
static int64_t page(struct wp_catalog *cat, const char *url, const char *const *versions, size_t n)
{
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	assert_int_equal(wp_catalog_refresh_begin(cat, url, WP_SOURCE_FINDLINKS, &sid, &err), 0);
	for (size_t i = 0; i < n; i++) {
		char fn[128], u[256];
		snprintf(fn, sizeof(fn), "proj-%s-py3-none-any.whl", versions[i]);
		snprintf(u, sizeof(u), "%s/%s", url, fn);
		struct wp_file_row f = { .source_id = sid,
					 .project = "proj",
					 .version = versions[i],
					 .kind = "wheel",
					 .filename = fn,
					 .url = u,
					 .tags = "py3-none-any",
					 .size = -1,
					 .build_number = -1,
					 .timestamp = -1 };
		assert_int_equal(wp_catalog_add_file(cat, &f, &err), 0);
	}
	assert_int_equal(wp_catalog_refresh_commit(cat, sid, NULL, NULL, NULL, (int64_t)n, &err),
			 0);
	return sid;
}

static int count_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	(*(int *)ctx)++;
	return 0;
}

static int sources_now(struct wp_catalog *cat)
{
	struct wp_err err = WP_ERR_INIT;
	int n = 0;
	assert_int_equal(wp_catalog_file_sources(cat, "proj", count_fn, &n, &err), 0);
	return n;
}

/* Reads inside a scope share one transaction; another connection writes meanwhile without
 * waiting (WAL) and the scope keeps its snapshot; a write through the scope's own connection ends
 * the transaction, and the next read begins one that sees everything committed. */
static void test_scope_and_writers(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	page(&x->cat, "file:///a", (const char *[]){ "1.0" }, 1);
	wp_catalog_count_transactions(&x->cat, true);
	wp_catalog_read_begin(&x->cat);
	for (int i = 0; i < 20; i++)
		assert_int_equal(sources_now(&x->cat), 1);
	bool found = false;
	assert_int_equal(wp_catalog_source_get(&x->cat, "file:///a", NULL, NULL, &found, &err), 0);
	assert_true(found);
	assert_int_equal(x->cat.transactions, 1);

	/* an `update` in another process, while the scope reads: it does not wait for the scope */
	struct wp_catalog other;
	assert_int_equal(wp_catalog_open(&other, x->path, &err), 0);
	sqlite3_busy_timeout(other.db, 0); /* a wait would be a failure here, not a delay */
	page(&other, "file:///b", (const char *[]){ "2.0" }, 1);
	/* the scope's snapshot: b is not there yet */
	assert_int_equal(sources_now(&x->cat), 1);
	assert_int_equal(x->cat.transactions, 1);

	/* a write through the scope's connection (metadata kept, a page crawled on demand) */
	assert_int_equal(wp_catalog_metadata_put(&x->cat, "file:///a/proj-1.0-py3-none-any.whl",
						 NULL, "", false, &err),
			 0);
	assert_false(x->cat.read_open);
	page(&x->cat, "file:///c", (const char *[]){ "3.0" }, 1);
	/* the next read begins a new transaction, which sees b and c */
	uint64_t before = x->cat.transactions;
	assert_int_equal(sources_now(&x->cat), 3);
	assert_int_equal(sources_now(&x->cat), 3);
	assert_int_equal(x->cat.transactions, before + 1);
	wp_catalog_read_end(&x->cat);
	assert_false(x->cat.read_open);

	/* out of the scope, each read is its own transaction again */
	before = x->cat.transactions;
	assert_int_equal(sources_now(&x->cat), 3);
	assert_int_equal(sources_now(&x->cat), 3);
	assert_true(x->cat.transactions >= before + 2);
	wp_catalog_count_transactions(&x->cat, false);

	/* and the other connection writes again at once: nothing is left open */
	page(&other, "file:///d", (const char *[]){ "4.0" }, 1);
	wp_catalog_close(&other);
}

struct seen {
	char v[16][16];
	int64_t src[16];
	size_t n;
};

static int seen_fn(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct seen *s = ctx;
	assert_true(s->n < 16);
	snprintf(s->v[s->n], sizeof(s->v[0]), "%s", r->version);
	s->src[s->n++] = r->source_id;
	return 0;
}

/* Rows kept to some sources come newest first, merged across them, and never from the others;
 * a key range holds with the filter. */
static void test_sources_merged_newest_first(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	int64_t a = page(&x->cat, "file:///a", (const char *[]){ "1.0", "3.0", "5.0" }, 3);
	int64_t b = page(&x->cat, "file:///b", (const char *[]){ "2.0", "6.0", "9.0" }, 3);
	int64_t c = page(&x->cat, "file:///c", (const char *[]){ "4.0", "7.0" }, 2);
	struct seen s = { 0 };
	int64_t ac[] = { a, c };
	struct wp_catalog_key_range r = { .sources = ac, .n_sources = 2 };
	assert_int_equal(wp_catalog_files_by_version(&x->cat, "proj", &r, seen_fn, &s, &err), 0);
	const char *want[] = { "7.0", "5.0", "4.0", "3.0", "1.0" };
	assert_int_equal(s.n, 5);
	for (size_t i = 0; i < s.n; i++) {
		assert_string_equal(s.v[i], want[i]);
		assert_true(s.src[i] != b);
	}
	/* one source, below a key */
	struct wp_version v;
	struct wp_buf hi = WP_BUF_INIT;
	assert_int_equal(wp_version_parse(&v, "6.0", 3, &err), 0);
	wp_version_key(&v, &hi);
	wp_version_release(&v);
	memset(&s, 0, sizeof(s));
	r = (struct wp_catalog_key_range){
		.hi = hi.data, .hi_len = hi.len, .sources = &b, .n_sources = 1
	};
	assert_int_equal(wp_catalog_files_by_version(&x->cat, "proj", &r, seen_fn, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.v[0], "2.0");
	wp_buf_free(&hi);
	/* no filter: every source's rows */
	memset(&s, 0, sizeof(s));
	assert_int_equal(wp_catalog_files_by_version(&x->cat, "proj", NULL, seen_fn, &s, &err), 0);
	assert_int_equal(s.n, 8);
	assert_string_equal(s.v[0], "9.0");
}

static bool has_index(const char *path, const char *name)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?1",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	bool yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return yes;
}

/* A schema 7 catalog written before the source index gets it when opened, and keeps its rows; the
 * query plan of a one-source read uses it. */
static void test_source_index_added(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	int64_t a = page(&x->cat, "file:///a", (const char *[]){ "1.0", "2.0" }, 2);
	wp_catalog_close(&x->cat);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(x->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP INDEX files_by_source_version", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_false(has_index(x->path, "files_by_source_version"));
	assert_int_equal(wp_catalog_open(&x->cat, x->path, &err), 0);
	assert_true(has_index(x->path, "files_by_source_version"));
	struct seen s = { 0 };
	struct wp_catalog_key_range r = { .sources = &a, .n_sources = 1 };
	assert_int_equal(wp_catalog_files_by_version(&x->cat, "proj", &r, seen_fn, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0], "2.0");

	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(x->cat.db,
					    "EXPLAIN QUERY PLAN SELECT f.id FROM files f WHERE f.project = 'proj'"
					    " AND +f.kind IN ('wheel', 'sdist') AND f.source_id = 1"
					    " AND f.vkey IS NOT NULL ORDER BY f.vkey DESC",
					    -1, &st, NULL),
			 SQLITE_OK);
	bool uses = false, sorts = false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);
		uses |= strstr(d, "files_by_source_version") != NULL;
		sorts |= strstr(d, "TEMP B-TREE") != NULL;
	}
	sqlite3_finalize(st);
	assert_true(uses);
	assert_false(sorts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scope_and_writers, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sources_merged_newest_first, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_source_index_added, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests_name("catalog_read", tests, NULL, NULL);
}
