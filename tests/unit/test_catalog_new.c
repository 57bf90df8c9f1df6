/* tests/unit/test_catalog_new.c: a missing catalog is made whole (schema, WAL mode) before SQLite
 * opens it (cache/catalog_new.c), a present one is never touched, and two first opens at once
 * both get a working catalog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "cache/catalog.h"
#include "cache/catalog_new.h"

struct fx {
	char dir[64];
	char path[96];
};

static int fx_setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	if (test_tmpdir_make(x->dir, sizeof(x->dir), "catalog_new") < 0)
		return -1;
	snprintf(x->path, sizeof(x->path), "%s/c.sqlite3", x->dir);
	*state = x;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *x = *state;
	int rc = test_tmpdir_remove(x->dir);
	free(x);
	return rc;
}

static void read_head(const char *path, unsigned char head[100])
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, head, 100), 100);
	close(fd);
}

static int pragma_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* The new file is a WAL database at the current schema, with every table, and no temp file
 * stays. */
static void test_made_whole(void **state)
{
	struct fx *x = *state;
	unsigned char head[100];
	bool here = false;
	assert_true(wp_catalog_create_new(x->path, WP_CATALOG_SCHEMA_VERSION, &here));
	assert_true(here); /* wp_catalog_open need not check its shape */
	/* nothing but the catalog in its folder: the unnamed file became it */
	char *cmd = wp_xasprintf("test \"$(ls -A '%s')\" = c.sqlite3", x->dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	read_head(x->path, head);
	assert_memory_equal(head, "SQLite format 3", 16);
	assert_int_equal(head[18], 2);
	assert_int_equal(head[19], 2);
	assert_int_equal(pragma_int(x->path, "PRAGMA user_version"), WP_CATALOG_SCHEMA_VERSION);
	assert_int_equal(pragma_int(x->path, "SELECT count(*) FROM sqlite_master WHERE name IN"
					     " ('sources', 'files', 'seen_files', 'metadata')"), 4);
	assert_int_equal(pragma_int(x->path,
				    "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"),
			 1);

	/* and the catalog opens it as it is: a refresh and a query work */
	struct wp_catalog cat;
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	assert_int_equal(wp_catalog_open(&cat, x->path, &err), 0);
	assert_int_equal(wp_catalog_refresh_begin(&cat, "file:///p.html", WP_SOURCE_FINDLINKS, &sid,
						  &err),
			 0);
	struct wp_file_row f = { .source_id = sid,
				 .project = "p",
				 .version = "1.0",
				 .kind = "wheel",
				 .filename = "p-1.0-py3-none-any.whl",
				 .url = "file:///p-1.0-py3-none-any.whl",
				 .tags = "py3-none-any",
				 .size = -1,
				 .build_number = -1,
				 .timestamp = -1 };
	assert_int_equal(wp_catalog_add_file(&cat, &f, &err), 0);
	assert_int_equal(wp_catalog_refresh_commit(&cat, sid, NULL, NULL, NULL, 1, &err), 0);
	wp_catalog_close(&cat);
	assert_int_equal(pragma_int(x->path, "SELECT count(*) FROM files"), 1);
}

/* A file already there, even one that is no database, is left byte for byte as it was. */
static void test_present_untouched(void **state)
{
	struct fx *x = *state;
	FILE *f = fopen(x->path, "w");
	assert_non_null(f);
	fputs("mine", f);
	fclose(f);
	bool here = true;
	assert_false(wp_catalog_create_new(x->path, WP_CATALOG_SCHEMA_VERSION, &here));
	assert_false(here); /* a file that was there is checked */
	struct stat sb;
	assert_int_equal(stat(x->path, &sb), 0);
	assert_int_equal(sb.st_size, 4);
	/* a dangling symbolic link is not followed into a new file either */
	char *link = wp_xasprintf("%s/l.sqlite3", x->dir);
	assert_int_equal(symlink("/nonexistent/wp-target", link), 0);
	assert_false(wp_catalog_create_new(link, WP_CATALOG_SCHEMA_VERSION, NULL));
	assert_int_equal(access("/nonexistent/wp-target", F_OK), -1);
	free(link);
	/* no folder: nothing made, the caller's own open reports it */
	char *deep = wp_xasprintf("%s/no/such/c.sqlite3", x->dir);
	assert_false(wp_catalog_create_new(deep, WP_CATALOG_SCHEMA_VERSION, NULL));
	free(deep);
}

/* Eight processes open the same missing catalog at once: each gets it, and it is one catalog. */
static void test_first_opens_race(void **state)
{
	struct fx *x = *state;
	enum { N = 8 };
	pid_t kids[N];
	for (int i = 0; i < N; i++) {
		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0) {
			struct wp_catalog cat;
			struct wp_err err = WP_ERR_INIT;
			int64_t sid;
			char page[64];
			snprintf(page, sizeof(page), "file:///page%d.html", i);
			int rc = wp_catalog_open(&cat, x->path, &err) ||
				 wp_catalog_refresh_begin(&cat, page, WP_SOURCE_FINDLINKS, &sid,
							  &err) ||
				 wp_catalog_refresh_commit(&cat, sid, NULL, NULL, NULL, 0, &err);
			if (rc)
				fprintf(stderr, "child %d: %s\n", i, err.msg);
			wp_catalog_close(&cat);
			_exit(rc ? 1 : 0);
		}
	}
	for (int i = 0; i < N; i++) {
		int st = 0;
		assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	assert_int_equal(pragma_int(x->path, "SELECT count(*) FROM sources"), N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_made_whole, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_present_untouched, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_first_opens_race, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
