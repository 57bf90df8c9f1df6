/* cache/gpucodedb.c: the gpu_code table (see gpucodedb.h). Made on first write, not by schema.sql:
 * a catalog of schema 7 gains it with no migration and no schema bump (check_shape leaves tables
 * schema.sql does not make alone), and a read before any write finds nothing kept. */
#include "cache/gpucodedb.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

#define CREATE "CREATE TABLE IF NOT EXISTS gpu_code (sha256 TEXT PRIMARY KEY, code TEXT NOT NULL, " \
	       "reader INTEGER NOT NULL)"

int wp_catalog_gpu_code_get(struct wp_catalog *cat, const char *sha256, char **code,
			    struct wp_err *err)
{
	wp_catalog_before_read(cat);
	sqlite3_stmt *st = NULL;
	*code = NULL;
	/* no table yet: nothing kept */
	if (sqlite3_prepare_v2(cat->db,
			       "SELECT code FROM gpu_code WHERE sha256 = ?1 AND reader = ?2", -1,
			       &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_bind_text(st, 1, sha256, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, WP_GPU_CODE_READER);
	int r = sqlite3_step(st);
	if (r == SQLITE_ROW && sqlite3_column_text(st, 0))
		*code = wp_xstrdup((const char *)sqlite3_column_text(st, 0));
	else if (r != SQLITE_DONE && r != SQLITE_ROW) {
		int rc = wp_fail(err, -WPE_CATALOG,
				 "catalog '%s': cannot read the GPU code of %s: %s", cat->path,
				 sha256, sqlite3_errmsg(cat->db));
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	return 0;
}

int wp_catalog_gpu_code_put(struct wp_catalog *cat, const char *sha256, const char *code,
			    struct wp_err *err)
{
	wp_catalog_before_write(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if (cat->read_only)
		return 0;
	if (sqlite3_exec(cat->db, CREATE, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cat->db,
			       "INSERT OR REPLACE INTO gpu_code(sha256, code, reader) VALUES (?1, ?2, ?3)",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, code, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, WP_GPU_CODE_READER);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	rc = wp_fail(err, -WPE_CATALOG, "catalog '%s': cannot keep the GPU code of %s: %s",
		     cat->path, sha256, sqlite3_errmsg(cat->db));
	sqlite3_finalize(st);
	return rc;
}
