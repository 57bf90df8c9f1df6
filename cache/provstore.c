/* cache/provstore.c: the file_provenance table: a file URL -> its PEP 740 provenance URL. */
#include "cache/provstore.h"
#include "base/mem.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* schema.sql creates it in a new catalog; a schema 7 catalog made before it gets it here, on the
 * first write (a refresh's transaction, which may create tables). */
static const char create_sql[] =
	"CREATE TABLE IF NOT EXISTS file_provenance (url TEXT PRIMARY KEY, provenance TEXT NOT NULL) WITHOUT ROWID";

int wp_catalog_provenance_put(struct wp_catalog *cat, const char *url, const char *provenance_url,
			      struct wp_err *err)
{
	wp_catalog_before_write(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if (sqlite3_exec(cat->db, create_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cat->db,
			       "INSERT OR REPLACE INTO file_provenance (url, provenance) VALUES (?1, ?2)",
			       -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot store a provenance URL");
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, provenance_url, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot store a provenance URL");
	sqlite3_finalize(st);
	return rc;
}

int wp_catalog_provenance_get(struct wp_catalog *cat, const char *url, char **out,
			      struct wp_err *err)
{
	wp_catalog_before_read(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0, s;
	*out = NULL;
	/* a catalog that never stored one has no table: that is "none", not an error */
	if (sqlite3_prepare_v2(cat->db,
			       "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_provenance'",
			       -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot read the catalog's tables");
	s = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (s != SQLITE_ROW)
		return s == SQLITE_DONE ?
			       0 :
			       wp_catalog_fail(cat, err, "cannot read the catalog's tables");
	if (sqlite3_prepare_v2(cat->db, "SELECT provenance FROM file_provenance WHERE url = ?1", -1,
			       &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot read a provenance URL");
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	s = sqlite3_step(st);
	if (s == SQLITE_ROW && sqlite3_column_text(st, 0))
		*out = wp_xstrdup((const char *)sqlite3_column_text(st, 0));
	else if (s != SQLITE_ROW && s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read a provenance URL");
	sqlite3_finalize(st);
	return rc;
}

int wp_catalog_provenance_clear_source(struct wp_catalog *cat, int64_t source_id,
				       const char *source_url, bool conda, struct wp_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, s;
	if (sqlite3_prepare_v2(cat->db,
			       "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_provenance'",
			       -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot read the catalog's tables");
	s = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (s != SQLITE_ROW)
		return s == SQLITE_DONE ?
			       0 :
			       wp_catalog_fail(cat, err, "cannot read the catalog's tables");
	/* a page's files are rows of files; a repodata's packages sit beside it (its chunks keep no
	 * URL column): every URL one path segment below the repodata's folder */
	const char *slash = conda ? strrchr(source_url, '/') : NULL;
	/* a range of the primary key: the prefix ends in '/', and '0' follows '/' */
	const char *sql =
		slash ? "DELETE FROM file_provenance WHERE url > ?3 AND url < ?4 AND instr(substr(url, ?2 + 1), '/') = 0" :
			"DELETE FROM file_provenance WHERE url IN (SELECT url FROM files WHERE source_id = ?1)";
	if (sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot clear the provenance URLs of a source");
	char *upper = slash ? wp_xasprintf("%.*s0", (int)(slash - source_url), source_url) : NULL;
	if (slash) {
		sqlite3_bind_int64(st, 2, (sqlite3_int64)(slash - source_url + 1));
		sqlite3_bind_text(st, 3, source_url, (int)(slash - source_url + 1), SQLITE_STATIC);
		sqlite3_bind_text(st, 4, upper, -1, SQLITE_STATIC);
	} else {
		sqlite3_bind_int64(st, 1, source_id);
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot clear the provenance URLs of a source");
	sqlite3_finalize(st);
	free(upper);
	return rc;
}
