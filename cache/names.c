/* cache/names.c: the catalog's distinct project names, read with one query. */
#include "cache/names.h"
#include "base/mem.h"
#include "base/vec.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static const char *names_sql(bool conda)
{
	/* files_by_project and conda_chunks_by_project make both a walk of an index */
	return conda ? "SELECT DISTINCT project FROM conda_chunks ORDER BY project"
		     : "SELECT DISTINCT project FROM files WHERE kind != 'conda' ORDER BY project";
}

int wp_catalog_project_names(struct wp_catalog *cat, bool conda, size_t max, struct wp_names *out,
			     struct wp_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, step;
	memset(out, 0, sizeof(*out));
	if (sqlite3_prepare_v2(cat->db, names_sql(conda), -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot list project names");
	while ((step = sqlite3_step(st)) == SQLITE_ROW && (!max || out->n < max)) {
		const char *p = (const char *)sqlite3_column_text(st, 0);
		if (p && *p)
			wp_vec_push(out, wp_xstrdup(p));
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot list project names");
	sqlite3_finalize(st);
	if (rc)
		wp_names_release(out);
	return rc;
}

int wp_catalog_has_project(struct wp_catalog *cat, const char *project, bool conda, bool *has,
			   struct wp_err *err)
{
	sqlite3_stmt *st = NULL;
	const char
		*sql = conda ? "SELECT 1 FROM conda_chunks WHERE project = ?1 LIMIT 1" :
			       "SELECT 1 FROM files WHERE project = ?1 AND kind != 'conda' LIMIT 1";
	*has = false;
	if (sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot look a project up");
	sqlite3_bind_text(st, 1, project, -1, SQLITE_TRANSIENT);
	int step = sqlite3_step(st);
	*has = step == SQLITE_ROW;
	sqlite3_finalize(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return wp_catalog_fail(cat, err, "cannot look a project up");
	return 0;
}

void wp_names_release(struct wp_names *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i]);
	wp_vec_free(n);
}
