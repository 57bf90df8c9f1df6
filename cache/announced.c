/* cache/announced.c: the announced_sizes table: a file URL -> the size its server announced. */
#include "cache/announced.h"

#include <sqlite3.h>

static const char create_sql[] =
	"CREATE TABLE IF NOT EXISTS announced_sizes "
	"(url TEXT PRIMARY KEY, size INTEGER NOT NULL) WITHOUT ROWID";

int wp_catalog_announced_get(struct wp_catalog *cat, const char *const *urls, size_t n,
			     long long *sizes, struct wp_err *err)
{
	wp_catalog_before_read(cat);
	int rc = 0;
	/* a catalog that never kept a size has no table: that is "nothing kept" */
	if (!n || !cat->db || !wp_catalog_has_object(cat, "table", "announced_sizes"))
		return 0;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(cat->db, "SELECT size FROM announced_sizes WHERE url = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot read the sizes servers announced");
	for (size_t k = 0; k < n && !rc; k++) {
		sqlite3_bind_text(st, 1, urls[k], -1, SQLITE_STATIC);
		int s = sqlite3_step(st);
		if (s == SQLITE_ROW)
			sizes[k] = (long long)sqlite3_column_int64(st, 0);
		else if (s != SQLITE_DONE)
			rc = wp_catalog_fail(cat, err, "cannot read the sizes servers announced");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

int wp_catalog_announced_put(struct wp_catalog *cat, const char *const *urls,
			     const long long *sizes, size_t n, struct wp_err *err)
{
	size_t keep = 0;
	for (size_t k = 0; k < n; k++)
		keep += sizes[k] >= 0;
	if (!keep || !cat->db || cat->read_only)
		return 0; /* a catalog this process may not write asks again next time */
	wp_catalog_before_write(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0;
	/* inside a transaction another caller opened (a refresh), its own otherwise */
	bool own = sqlite3_get_autocommit(cat->db) != 0;
	if (own && sqlite3_exec(cat->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot keep the sizes servers announced");
	static const char sql[] = "INSERT OR REPLACE INTO announced_sizes (url, size) "
				  "VALUES (?1, ?2)";
	if (sqlite3_exec(cat->db, create_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot keep the sizes servers announced");
		goto out;
	}
	for (size_t k = 0; k < n && !rc; k++) {
		if (sizes[k] < 0)
			continue;
		sqlite3_bind_text(st, 1, urls[k], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)sizes[k]);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = wp_catalog_fail(cat, err, "cannot keep the sizes servers announced");
		sqlite3_reset(st);
	}
out:
	sqlite3_finalize(st);
	if (own)
		sqlite3_exec(cat->db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	return rc;
}

int wp_catalog_announced_clear_source(struct wp_catalog *cat, int64_t source_id,
				      struct wp_err *err)
{
	int rc = 0;
	if (!wp_catalog_has_object(cat, "table", "announced_sizes"))
		return 0;
	sqlite3_stmt *st = NULL;
	static const char sql[] = "DELETE FROM announced_sizes "
				  "WHERE url IN (SELECT url FROM files WHERE source_id = ?1)";
	static const char what[] = "cannot forget the sizes a source's servers announced";
	if (sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, what);
	sqlite3_bind_int64(st, 1, source_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, what);
	sqlite3_finalize(st);
	return rc;
}
