/* cache/catalog.c: the SQLite catalog: open and migrate, atomic per-source refresh, queries. */
#include "cache/catalog.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/url.h"
#include "base/vec.h"
#include "cache/announced.h"
#include "cache/catalog_new.h"
#include "cache/condastore.h"
#include "cache/provstore.h"
#include "resolver/ask.h"
#include "resolver/fileinfo.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"
#include "base/os/os.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>

extern const char wp_schema_sql[];

#define BUSY_TIMEOUT_MS 30000

/* How the user names another catalog, for the advice ("--catalog"), or plain words. */
static const char *other_catalog(const struct wp_catalog *cat)
{
	return cat->asks && cat->asks->words[WP_ASK_CATALOG] ? cat->asks->words[WP_ASK_CATALOG] :
							       "another catalog";
}

int wp_catalog_fail(struct wp_catalog *cat, struct wp_err *err, const char *what)
{
	return wp_fail(err, -WPE_CATALOG, "catalog '%s': %s: %s%s%s%s", cat->path ? cat->path : "?",
		       what, cat->db ? sqlite3_errmsg(cat->db) : "no connection",
		       cat->read_only ?
			       " (this process may not write it: run as its owner, or use " :
			       "",
		       cat->read_only ? other_catalog(cat) : "",
		       cat->read_only ? " with a writable path)" : "");
}

static int exec(struct wp_catalog *cat, const char *sql, struct wp_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(cat->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = wp_fail(err, -WPE_CATALOG, "catalog '%s': %s", cat->path,
				 msg ? msg : "error");
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

static int user_version(struct wp_catalog *cat, int *v, struct wp_err *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(cat->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot read schema version");
	*v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return 0;
}

/* Trust on first use is keyed by what a file is, not by where it was found: its project, canonical
 * version (1.0 and 1.0.0 are one; the local label is kept), build tag, tags (any case), kind and
 * archive type, and its variant, which for an unlabeled build is the folder it sits in (PyTorch
 * publishes cu92/torch-1.4.0-cp38-cp38-linux_x86_64.whl and cu101/torch-1.4.0-... with one name
 * and other bytes). The same name re-published in another folder (v2/), under a query string, in
 * another spelling or on another host maps to one key and is held to the first bytes seen. */
static void tofu_key(const char *project, const char *version, const char *variant,
		     const char *kind, const char *tags, const char *build, const char *filename,
		     struct wp_buf *out)
{
	struct wp_buf part = WP_BUF_INIT;
	struct wp_version v;
	project = project ? project : "";
	version = version ? version : "";
	wp_project_name_normalize(project, strlen(project), &part);
	wp_buf_reset(out);
	wp_buf_printf(out, "%s|", wp_buf_cstr(&part));
	wp_buf_reset(&part);
	if (wp_version_parse(&v, version, strlen(version), NULL) == 0) {
		wp_version_format_canonical(&v, &part);
		wp_version_release(&v);
		wp_buf_addstr(out, wp_buf_cstr(&part));
	} else {
		for (const char *p = version; *p; p++)
			wp_buf_addch(out, (char)tolower((unsigned char)*p));
	}
	wp_buf_printf(out, "|%s|%s|%s|", variant ? variant : "", kind ? kind : "",
		      build ? build : "");
	for (const char *p = tags ? tags : ""; *p; p++)
		wp_buf_addch(out, (char)tolower((unsigned char)*p));
	/* an sdist as .zip and as .tar.gz are two files */
	const char *ext = "";
	if (filename && kind && !strcmp(kind, "sdist")) {
		const char *tar = strstr(filename, ".tar.");
		ext = tar ? tar : strrchr(filename, '.') ? strrchr(filename, '.') : "";
	}
	wp_buf_addch(out, '|');
	for (const char *p = ext; *p; p++)
		wp_buf_addch(out, (char)tolower((unsigned char)*p));
	wp_buf_free(&part);
}

/* The key of the file at url, from its name and folder as the crawler reads them (so the same
 * key as tofu_key over the row it stored); a URL that names no wheel or sdist keys by itself. */
static void tofu_key_of_url(const char *url, struct wp_buf *out)
{
	char *name = NULL, *dir = NULL;
	struct wp_fileinfo fi;
	memset(&fi, 0, sizeof(fi));
	if (wp_url_name_parts(url, &name, &dir, NULL) == 0 &&
	    wp_fileinfo_from_name(name, dir, &fi, NULL) == 0) {
		tofu_key(fi.project, fi.version, fi.variant, fi.kind, fi.tags, fi.build, name, out);
		wp_fileinfo_release(&fi);
	} else {
		wp_buf_reset(out);
		wp_buf_printf(out, "url %s", url);
	}
	free(name);
	free(dir);
}

/* SQL: wp_tofu_key(url), for the migration and `trust`, which select files by URL. */
static void sql_tofu_key(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *url = (const char *)sqlite3_value_text(argv[0]);
	struct wp_buf key = WP_BUF_INIT;
	if (!url) {
		sqlite3_result_null(ctx);
		return;
	}
	tofu_key_of_url(url, &key);
	sqlite3_result_text(ctx, wp_buf_cstr(&key), (int)key.len, SQLITE_TRANSIENT);
	wp_buf_free(&key);
}

/* The sort key of a version text (resolver/version.h wp_version_key); NULL when it is no PEP 440
 * version. For a row written now and for schema 7's migration of the rows already there. */
static bool version_key(const char *version, struct wp_buf *key)
{
	struct wp_version v;
	struct wp_err e = WP_ERR_INIT;
	if (!version || wp_version_parse(&v, version, strlen(version), &e) < 0)
		return false;
	wp_version_key(&v, key);
	wp_version_release(&v);
	return true;
}

/* SQL: wp_version_key(version). */
static void sql_version_key(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct wp_buf key = WP_BUF_INIT;
	if (version_key((const char *)sqlite3_value_text(argv[0]), &key))
		sqlite3_result_blob(ctx, key.data, (int)key.len, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
	wp_buf_free(&key);
}

/* Schema 5 keys first-seen hashes by file instead of by URL: every URL seen before is keyed, the
 * earliest seen wins a key, and files listed now with other bytes than their key's first are
 * marked, as a refresh would have marked them. */
static int migrate_seen_hashes(struct wp_catalog *cat, struct wp_err *err)
{
	return exec(cat,
		    "INSERT OR IGNORE INTO seen_files (key, sha256, url, first_seen)"
		    " SELECT wp_tofu_key(url), sha256, url, first_seen FROM seen_hashes ORDER BY first_seen, rowid;"
		    "UPDATE files SET hash_conflict = (SELECT k.sha256 FROM seen_files k WHERE k.key = wp_tofu_key(files.url))"
		    " WHERE sha256 IS NOT NULL AND hash_conflict IS NULL AND kind IN ('wheel', 'sdist')"
		    " AND (SELECT k.sha256 FROM seen_files k WHERE k.key = wp_tofu_key(files.url)) != sha256;"
		    "DROP TABLE seen_hashes;",
		    err);
}

static bool has_column(struct wp_catalog *cat, const char *table, const char *column)
{
	sqlite3_stmt *st = NULL;
	bool yes = false;
	if (sqlite3_prepare_v2(cat->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
		yes = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return yes;
}

bool wp_catalog_has_object(struct wp_catalog *cat, const char *type, const char *name)
{
	sqlite3_stmt *st = NULL;
	bool yes = false;
	if (sqlite3_prepare_v2(cat->db, "SELECT 1 FROM sqlite_master WHERE type = ?1 AND name = ?2",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		yes = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return yes;
}

/* The catalog's shape, once migrated, is schema.sql's: every table it makes, with every column
 * of the same type, key and NOT NULL, and no trigger or view (SQL that would run, or answer, in
 * place of the tables wheelpick reads and writes). A file with another shape is not ours to write
 * into: updates would say success into tables that do not keep what they are given. Extra tables
 * and columns are left alone (a later wheelpick's additions). */
static int check_shape(struct wp_catalog *cat, struct wp_err *err)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *rt = NULL, *ct = NULL, *st = NULL;
	int rc = 0;
	/* one read transaction for its 60-odd queries, not one each (a lock, an unlock and a
	 * stat) */
	bool txn = sqlite3_get_autocommit(cat->db) &&
		   sqlite3_exec(cat->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
	if (sqlite3_prepare_v2(cat->db,
			       "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') LIMIT 1",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		rc = wp_fail(err, -WPE_CORRUPT,
			     "catalog '%s' holds a %s ('%s') that wheelpick never makes: it is not a "
			     "wheelpick catalog as written (remove it or use %s)",
			     cat->path, (const char *)sqlite3_column_text(st, 0),
			     (const char *)sqlite3_column_text(st, 1), other_catalog(cat));
		goto out;
	}
	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(ref, wp_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref,
			       "SELECT m.name, c.name, upper(c.type), c.\"notnull\", c.pk FROM sqlite_master AS m, "
			       "pragma_table_info(m.name) AS c WHERE m.type = 'table' ORDER BY m.name, c.cid",
			       -1, &rt, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cat->db,
			       "SELECT upper(type), \"notnull\", pk FROM pragma_table_info(?1) WHERE name = ?2",
			       -1, &ct, NULL) != SQLITE_OK) {
		rc = wp_fail(err, -WPE_CATALOG, "catalog '%s': cannot check its tables: %s",
			     cat->path, ref ? sqlite3_errmsg(ref) : "out of memory");
		goto out;
	}
	while (!rc && sqlite3_step(rt) == SQLITE_ROW) {
		const char *table = (const char *)sqlite3_column_text(rt, 0),
			   *col = (const char *)sqlite3_column_text(rt, 1);
		const char *type = (const char *)sqlite3_column_text(rt, 2);
		sqlite3_reset(ct);
		sqlite3_bind_text(ct, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(ct, 2, col, -1, SQLITE_STATIC);
		if (sqlite3_step(ct) != SQLITE_ROW) {
			rc = wp_fail(err, -WPE_CORRUPT,
				     "catalog '%s' has no column '%s' in table '%s': it is not a wheelpick "
				     "catalog as written (remove it or use %s)",
				     cat->path, col, table, other_catalog(cat));
		} else if (strcmp((const char *)sqlite3_column_text(ct, 0), type) ||
			   sqlite3_column_int(ct, 1) != sqlite3_column_int(rt, 3) ||
			   sqlite3_column_int(ct, 2) != sqlite3_column_int(rt, 4)) {
			rc = wp_fail(err, -WPE_CORRUPT,
				     "catalog '%s': column '%s' of table '%s' is not the one wheelpick "
				     "makes (type %s%s%s, wanted %s%s%s): it is not a wheelpick catalog as written (remove it "
				     "or use %s)",
				     cat->path, col, table,
				     (const char *)sqlite3_column_text(ct, 0),
				     sqlite3_column_int(ct, 1) ? " NOT NULL" : "",
				     sqlite3_column_int(ct, 2) ? " key" : "", type,
				     sqlite3_column_int(rt, 3) ? " NOT NULL" : "",
				     sqlite3_column_int(rt, 4) ? " key" : "", other_catalog(cat));
		}
	}
out:
	sqlite3_finalize(st);
	sqlite3_finalize(rt);
	sqlite3_finalize(ct);
	if (txn)
		sqlite3_exec(cat->db, "COMMIT", NULL, NULL, NULL);
	if (ref)
		sqlite3_close(ref);
	return rc;
}

/* Old catalogs are brought forward in one transaction; schema.sql is idempotent
 * (IF NOT EXISTS), so version 0 (new file) and future additive migrations share a path. */
static int migrate(struct wp_catalog *cat, struct wp_err *err)
{
	int v = 0, rc;
	/* The common case, a current catalog, is decided without a write lock: a pick must not
	 * wait behind an update's transaction just to learn that nothing needs migrating. */
	if ((rc = user_version(cat, &v, err)))
		return rc;
	/* a schema 7 catalog made before files_by_source_version gets it (schema.sql again, below);
	 * one this process may not write is read without it */
	if (v == WP_CATALOG_SCHEMA_VERSION &&
	    (cat->read_only || wp_catalog_has_object(cat, "index", "files_by_source_version")))
		return 0;
	if (cat->read_only)
		return wp_fail(err, -WPE_CATALOG,
			       v > WP_CATALOG_SCHEMA_VERSION ?
				       "catalog '%s' was written by a newer wheelpick (schema %d > %d); upgrade wheelpick or use %s" :
				       "catalog '%s' is read-only here and needs its schema brought forward (%d -> %d): open it once "
				       "as its owner, or use %s",
			       cat->path, v, WP_CATALOG_SCHEMA_VERSION, other_catalog(cat));
	if ((rc = exec(cat, "BEGIN IMMEDIATE", err)))
		return rc;
	/* read again under the lock: another process may have migrated meanwhile */
	if ((rc = user_version(cat, &v, err)))
		goto out;
	if (v > WP_CATALOG_SCHEMA_VERSION) {
		rc = wp_fail(err, -WPE_CATALOG,
			     "catalog '%s' was written by a newer wheelpick (schema %d > %d); upgrade wheelpick or use %s",
			     cat->path, v, WP_CATALOG_SCHEMA_VERSION, other_catalog(cat));
		goto out;
	}
	if (v == WP_CATALOG_SCHEMA_VERSION && (rc = exec(cat, wp_schema_sql, err)))
		goto out; /* an index added within schema 7 (CREATE INDEX IF NOT EXISTS) */
	if (v < WP_CATALOG_SCHEMA_VERSION) {
		/* schema 7 keeps each row's version sort key; schema.sql indexes it, so it comes
		 * first */
		if (v > 0 && v < 7 && !has_column(cat, "files", "vkey") &&
		    (rc = exec(cat, "ALTER TABLE files ADD COLUMN vkey BLOB", err)))
			goto out;
		if ((rc = exec(cat, wp_schema_sql, err)))
			goto out;
		/* schema 3 keeps conda records packed per package: move a schema 1 or 2 catalog's
		 * rows */
		if (v > 0 && v < 3 && (rc = wp_condastore_migrate(cat, err)))
			goto out;
		/* schema 4 keeps Requires-Python with each file's metadata, which the solver now
		 * honours; rows cached before it have none, so they are read again when next
		 * needed */
		if (v > 0 && v < 4 &&
		    (rc = exec(cat, "DELETE FROM metadata WHERE requires_python IS NULL", err)))
			goto out;
		/* schema 5 marks metadata that was compared with the wheel itself (none yet) */
		if (!has_column(cat, "metadata", "checked") &&
		    (rc = exec(cat,
			       "ALTER TABLE metadata ADD COLUMN checked INTEGER NOT NULL DEFAULT 0",
			       err)))
			goto out;
		/* schema 5 keys trust on first use by file, not by URL (seen_files,
		 * conda_seen_files) */
		if (wp_catalog_has_object(cat, "table", "seen_hashes") &&
		    (rc = migrate_seen_hashes(cat, err)))
			goto out;
		if (wp_catalog_has_object(cat, "table", "conda_seen") &&
		    (rc = wp_condastore_migrate_seen(cat, err)))
			goto out;
		/* schema 6 reads PEP 825 variant wheels and variants.json links, which older
		 * readers skipped as malformed: drop the pages' validators so that the next update
		 * reads them whole again */
		if (v > 0 && v < 6 &&
		    (rc = exec(cat,
			       "UPDATE sources SET etag = NULL, last_modified = NULL, content_sha256 = NULL"
			       " WHERE kind IN ('findlinks', 'simple', 'simple-json')",
			       err)))
			goto out;
		/* schema 7: the rows already there get their keys (1,500 rows: a millisecond) */
		if (v > 0 && v < 7 &&
		    (rc = exec(cat,
			       "UPDATE files SET vkey = wp_version_key(version) WHERE kind IN ('wheel', 'sdist', 'variants')",
			       err)))
			goto out;
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", WP_CATALOG_SCHEMA_VERSION);
		if ((rc = exec(cat, sql, err)))
			goto out;
	}
	rc = exec(cat, "COMMIT", err);
out:
	if (rc)
		sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Switching a new catalog to WAL needs it alone for a moment, and SQLite answers "database is
 * locked" at once, without its busy handler, when another process is creating it at the same
 * time (two first updates at once). So: wait and try again, as long as the busy timeout. A
 * catalog already in WAL answers at once. */
static int use_wal(struct wp_catalog *cat, struct wp_err *err)
{
	for (int waited = 0;; waited += 10) {
		char *msg = NULL;
		int rc = sqlite3_exec(cat->db, "PRAGMA journal_mode=WAL", NULL, NULL, &msg);
		if (rc == SQLITE_OK)
			return 0;
		if ((rc & 0xff) != SQLITE_BUSY || waited >= BUSY_TIMEOUT_MS) {
			int code = wp_fail(err, -WPE_CATALOG, "catalog '%s': %s", cat->path,
					   msg ? msg : "error");
			sqlite3_free(msg);
			return code;
		}
		sqlite3_free(msg);
		wp_os_sleep_ms(10);
	}
}

/* The catalog's folder and those above it (wp_mkdir_p: '\\' and drive letters on Windows too). */
static int mkdir_parent(const char *path, struct wp_err *err)
{
	const char *base = wp_path_base(path);
	if (base == path || base - path < 2)
		return 0; /* "catalog.sqlite3", "/catalog.sqlite3" */
	char *dir = wp_xstrndup(path, (size_t)(base - path - 1));
	struct wp_err e = WP_ERR_INIT;
	int rc = 0;
	if (wp_mkdir_p(dir, 0755, &e) < 0)
		rc = wp_fail(err, -WPE_IO, "cannot create folder '%s' for the catalog: %s", dir,
			     e.msg);
	free(dir);
	return rc;
}

/* Settings every connection takes. */
static int setup_connection(struct wp_catalog *cat, struct wp_err *err)
{
	sqlite3_busy_timeout(cat->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(cat->db, 1);
	if (sqlite3_create_function(cat->db, "wp_tofu_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    NULL, sql_tofu_key, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(cat->db, "wp_version_key", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_version_key, NULL,
				    NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot register a function");
	return 0;
}

/* A catalog this process may not write (a shared one, or a read-only file system): opened
 * read-only, so that `list` and a pick from what it holds still work; whatever would write says
 * why it cannot (wp_catalog_fail). A WAL catalog whose -shm cannot be made is read as immutable. */
static int open_read_only(struct wp_catalog *cat, const char *path, struct wp_err *err)
{
	struct wp_buf uri = WP_BUF_INIT;
	int rc = 0;
	if (cat->db)
		sqlite3_close(cat->db);
	cat->db = NULL;
	wp_buf_addstr(&uri, "file:");
	for (const char *p = path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			wp_buf_printf(&uri, "%%%02X", (unsigned char)*p);
		else
			wp_buf_addch(&uri, *p);
	}
	/* immutable=1 reads the file as it lies, past a hot journal: the catalog a write killed
	 * half-way (a channel's first refresh runs under a rollback journal) would be read half
	 * written. Only its owner can roll that back. */
	char *journal = wp_xasprintf("%s-journal", path);
	struct wp_os_stat jsb;
	bool hot = wp_os_stat(journal, &jsb) == 0 && jsb.st_size > 0;
	free(journal);
	for (int immutable = 0; immutable < 2 - hot && !cat->db; immutable++) {
		char *u = wp_xasprintf("%s?mode=ro%s", wp_buf_cstr(&uri),
				       immutable ? "&immutable=1" : "");
		if (sqlite3_open_v2(u, &cat->db,
				    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
				    NULL) != SQLITE_OK ||
		    sqlite3_exec(cat->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) !=
			    SQLITE_OK) {
			if (hot)
				rc = wp_fail(err, -WPE_CATALOG,
					     "catalog '%s' (read-only here) holds a write that was "
					     "stopped half-way: run any wheelpick command on it once as its owner, which "
					     "rolls it back, or use %s",
					     path, other_catalog(cat));
			else if (immutable)
				rc = wp_fail(err, -WPE_CATALOG,
					     "cannot open catalog '%s' (read-only here): %s; check the "
					     "path or use %s",
					     path,
					     cat->db ? sqlite3_errmsg(cat->db) : "out of memory",
					     other_catalog(cat));
			sqlite3_close(cat->db);
			cat->db = NULL;
		}
		free(u);
	}
	wp_buf_free(&uri);
	if (rc)
		return rc;
	cat->read_only = true;
	return setup_connection(cat, err);
}

/* What a path that must be a catalog file is instead, or NULL when it is one or missing. SQLite
 * takes a file shorter than its header for an empty database and writes over it: a small file of
 * the user's given by mistake would be lost. */
static const char *not_a_file(const char *path)
{
	struct wp_os_stat sb;
	if (wp_os_stat(path, &sb) < 0)
		return NULL;
	if (WP_S_ISREG(sb.st_mode)) {
		char head[16] = "";
		int fd = sb.st_size > 0 ? wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC) : -1;
		ssize_t n = fd >= 0 ? wp_os_read(fd, head, sizeof(head)) : 0;
		if (fd >= 0)
			wp_os_close(fd);
		return sb.st_size > 0 && fd >= 0 &&
				       (n != 16 || memcmp(head, "SQLite format 3", 16) != 0) ?
			       "a file that is no SQLite database" :
			       NULL;
	}
	return WP_S_ISDIR(sb.st_mode)  ? "a directory" :
	       WP_S_ISFIFO(sb.st_mode) ? "a FIFO" :
	       WP_S_ISCHR(sb.st_mode)  ? "a device" :
	       WP_S_ISBLK(sb.st_mode)  ? "a block device" :
	       WP_S_ISSOCK(sb.st_mode) ? "a socket" :
					 "not a regular file";
}

int wp_catalog_open(struct wp_catalog *cat, const char *path, struct wp_err *err)
{
	return wp_catalog_open_as(cat, path, NULL, err);
}

int wp_catalog_open_as(struct wp_catalog *cat, const char *path, const struct wp_asks *asks,
		       struct wp_err *err)
{
	int rc = 0;
	const char *what;
	memset(cat, 0, sizeof(*cat));
	cat->asks = asks;
	cat->path = wp_xstrdup(path);
	/* SQLite would block on a FIFO, or report "disk I/O error" for a device */
	if ((what = not_a_file(path))) {
		rc = wp_fail(err, -WPE_IO,
			     "catalog '%s' is %s%s; use %s (or WHEELPICK_CATALOG) with the path of a "
			     "catalog (made when missing)",
			     path, what, strstr(what, "SQLite") ? "" : ", not a file",
			     other_catalog(cat));
		goto out;
	}
	if ((rc = mkdir_parent(path, err)))
		goto out;
	/* a missing catalog is made whole, schema and WAL mode, in two syncs
	 * (cache/catalog_new.c) */
	bool fresh = false;
	wp_catalog_create_new(path, WP_CATALOG_SCHEMA_VERSION, &fresh);
	if (sqlite3_open_v2(path, &cat->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		int code = cat->db ? sqlite3_errcode(cat->db) & 0xff : SQLITE_NOMEM;
		if ((code == SQLITE_CANTOPEN || code == SQLITE_READONLY || code == SQLITE_PERM) &&
		    wp_os_access(path, WP_R_OK) == 0) {
			rc = open_read_only(cat, path, err);
		} else {
			rc = wp_fail(err, -WPE_CATALOG,
				     "cannot open catalog '%s': %s; check the path or use %s", path,
				     cat->db ? sqlite3_errmsg(cat->db) : "out of memory",
				     other_catalog(cat));
			goto out;
		}
	} else if (sqlite3_db_readonly(cat->db, "main") == 1) {
		rc = open_read_only(cat, path, err);
	} else {
		rc = setup_connection(cat, err);
	}
	if (rc)
		goto out;
	/* WAL lets a pick read while an update writes; NORMAL sync is durable at checkpoints
	 * and never corrupts, which is what a cache needs. A 64 MiB page cache keeps a large
	 * refresh (one transaction) from spilling page by page: 200,000 links went from 13 s to
	 * a fraction of that. */
	if (!cat->read_only && (rc = use_wal(cat, err))) {
		/* a file we may write in a folder we may not: its -wal and -shm cannot be made */
		int code = sqlite3_errcode(cat->db) & 0xff;
		if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN) {
			wp_err_clear(err);
			rc = open_read_only(cat, path, err);
		}
	}
	if (rc ||
	    (rc = exec(cat,
		       "PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY",
		       err)) ||
	    (!cat->read_only && (rc = exec(cat, "PRAGMA synchronous=NORMAL", err)))) {
		/* SQLite's code, not its message, says whether the file is no database or a damaged
		 * one */
		int code = cat->db ? sqlite3_errcode(cat->db) & 0xff : 0;
		if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
			wp_err_prefix(err, "'%s' is not a wheelpick catalog (remove it or use %s)",
				      path, other_catalog(cat));
			err->code = rc = -WPE_CORRUPT;
		}
		goto out;
	}
	/* a catalog this process just made from schema.sql has its shape (0.4 ms of a first crawl's
	 * CPU to check it against a second copy of schema.sql) */
	if (!(rc = migrate(cat, err)) && !fresh)
		rc = check_shape(cat, err);
out:
	if (rc)
		wp_catalog_close(cat);
	return rc;
}

/* The reads' statements, kept prepared for the connection's life. */
struct wp_catalog_stmt {
	char *sql;
	sqlite3_stmt *st;
	bool busy; /* handed out and not given back (a merge, or a read inside a row callback) */
};
#define MAX_STMTS 64

/* A statement for sql: the kept one when it is free, else a new one (kept when there is room).
 * Give it back with done(). SQLite's result code. */
static int prep(struct wp_catalog *cat, const char *sql, sqlite3_stmt **st)
{
	*st = NULL;
	for (size_t i = 0; i < cat->n_stmts; i++) {
		struct wp_catalog_stmt *k = &cat->stmts[i];
		if (!k->busy && !strcmp(k->sql, sql)) {
			k->busy = true;
			*st = k->st;
			return SQLITE_OK;
		}
	}
	int rc = sqlite3_prepare_v3(cat->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
	if (rc == SQLITE_OK && cat->n_stmts < MAX_STMTS) {
		if (!cat->stmts)
			cat->stmts = wp_xcalloc(MAX_STMTS, sizeof(*cat->stmts));
		cat->stmts[cat->n_stmts++] = (struct wp_catalog_stmt){ .sql = wp_xstrdup(sql),
								       .st = *st,
								       .busy = true };
	}
	return rc;
}

/* Give back a statement from prep(): a kept one is reset (its read ends) for the next use. */
static void done(struct wp_catalog *cat, sqlite3_stmt *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < cat->n_stmts; i++) {
		if (cat->stmts[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			cat->stmts[i].busy = false;
			return;
		}
	}
	sqlite3_finalize(st);
}

static void free_stmts(struct wp_catalog *cat)
{
	for (size_t i = 0; i < cat->n_stmts; i++) {
		sqlite3_finalize(cat->stmts[i].st);
		free(cat->stmts[i].sql);
	}
	free(cat->stmts);
	cat->stmts = NULL;
	cat->n_stmts = 0;
}

void wp_catalog_close(struct wp_catalog *cat)
{
	wp_catalog_before_write(cat);
	if (cat->in_refresh)
		wp_catalog_refresh_abort(cat);
	wp_condastore_free(cat);
	free_stmts(cat);
	sqlite3_finalize(cat->st_insert_file);
	sqlite3_finalize(cat->st_seen_get);
	sqlite3_finalize(cat->st_seen_put);
	if (cat->db)
		sqlite3_close(cat->db);
	free(cat->path);
	memset(cat, 0, sizeof(*cat));
}

void wp_catalog_before_write(struct wp_catalog *cat)
{
	if (!cat->read_open)
		return;
	cat->read_open = false;
	/* autocommit already: an error inside rolled the transaction back */
	if (cat->db && !sqlite3_get_autocommit(cat->db))
		sqlite3_exec(cat->db, "COMMIT", NULL, NULL, NULL);
}

void wp_catalog_before_read(struct wp_catalog *cat)
{
	if (!cat->read_depth || cat->read_open || cat->in_refresh || !cat->db ||
	    !sqlite3_get_autocommit(cat->db))
		return;
	/* deferred: the first SELECT takes the snapshot; a failure only leaves each read its own */
	cat->read_open = sqlite3_exec(cat->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
}

void wp_catalog_read_begin(struct wp_catalog *cat)
{
	cat->read_depth++;
}

void wp_catalog_read_end(struct wp_catalog *cat)
{
	if (cat->read_depth && --cat->read_depth == 0)
		wp_catalog_before_write(cat);
}

/* A statement starting with no transaction open, and no other statement of the connection
 * running (which would hold one), begins one: BEGIN, or the statement alone. */
static int count_txn(unsigned type, void *ctx, void *p, void *x)
{
	struct wp_catalog *cat = ctx;
	const char *sql = x;
	if (type != SQLITE_TRACE_STMT || (sql && sql[0] == '-' && sql[1] == '-') ||
	    !sqlite3_get_autocommit(cat->db))
		return 0;
	for (sqlite3_stmt *o = sqlite3_next_stmt(cat->db, NULL); o;
	     o = sqlite3_next_stmt(cat->db, o))
		if (o != p && sqlite3_stmt_busy(o))
			return 0;
	cat->transactions++;
	return 0;
}

void wp_catalog_count_transactions(struct wp_catalog *cat, bool on)
{
	cat->counting = on;
	cat->transactions = 0;
	sqlite3_trace_v2(cat->db, on ? SQLITE_TRACE_STMT : 0, on ? count_txn : NULL, cat);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static long long col_ll(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

int wp_catalog_source_get(struct wp_catalog *cat, const char *url, wp_source_row_fn *fn, void *ctx,
			  bool *found, struct wp_err *err)
{
	wp_catalog_before_read(cat);
	sqlite3_stmt *st = NULL;
	static const char sql[] =
		"SELECT id, url, kind, etag, last_modified, content_sha256, fetched_at, n_files FROM sources WHERE url = ?1";
	int rc = 0, s;
	if (prep(cat, sql, &st) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot query sources");
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	if (found)
		*found = false;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct wp_source_row r = {
			.id = sqlite3_column_int64(st, 0),
			.url = col_text(st, 1),
			.kind = col_text(st, 2),
			.type = wp_source_kind_of(col_text(st, 2)),
			.etag = col_text(st, 3),
			.last_modified = col_text(st, 4),
			.content_sha256 = col_text(st, 5),
			.fetched_at = col_ll(st, 6),
			.n_files = col_ll(st, 7),
		};
		if (found)
			*found = true;
		if (fn && (rc = fn(ctx, &r, err)))
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read sources");
out:
	done(cat, st);
	return rc;
}

int wp_catalog_file_url_sources(struct wp_catalog *cat, const char *project,
				const char *version, const char *url, wp_source_row_fn *fn,
				void *ctx, struct wp_err *err)
{
	sqlite3_stmt *st = NULL;
	/* With the version's key the lookup is files_by_version's (project, vkey): the rows of one
	 * release. Without it (a conda record: no vkey) every row of the project is read; at 100
	 * copies of the 2021 page that was 77,700 rows, 6,000 page reads, 80% of a warm pick.
	 * Kept prepared (prep): a plan of 10,000 files asks 10,000 times. */
	static const char by_key[] =
		"SELECT DISTINCT s.id, s.url, s.kind FROM files f "
		"JOIN sources s ON s.id = f.source_id "
		"WHERE f.project = ?1 AND f.url = ?2 AND f.vkey = ?3 ORDER BY s.id";
	static const char by_project[] =
		"SELECT DISTINCT s.id, s.url, s.kind FROM files f "
		"JOIN sources s ON s.id = f.source_id "
		"WHERE f.project = ?1 AND f.url = ?2 ORDER BY s.id";
	struct wp_buf vkey = WP_BUF_INIT;
	bool keyed = version_key(version, &vkey);
	int rc = 0, s;
	wp_catalog_before_read(cat);
	if (prep(cat, keyed ? by_key : by_project, &st) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot query files");
		goto out;
	}
	sqlite3_bind_text(st, 1, project, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, url, -1, SQLITE_STATIC);
	if (keyed)
		sqlite3_bind_blob(st, 3, vkey.data, (int)vkey.len, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct wp_source_row r = {
			.id = sqlite3_column_int64(st, 0),
			.url = col_text(st, 1),
			.kind = col_text(st, 2),
			.type = wp_source_kind_of(col_text(st, 2)),
		};
		if ((rc = fn(ctx, &r, err)))
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read files");
out:
	done(cat, st);
	wp_buf_free(&vkey);
	return rc;
}

int wp_catalog_sources_under(struct wp_catalog *cat, const char *prefix, wp_source_row_fn *fn,
			     void *ctx, struct wp_err *err)
{
	sqlite3_stmt *st = NULL;
	static const char sql[] =
		"SELECT id, url, kind, etag, last_modified, content_sha256, fetched_at, n_files FROM sources "
		"WHERE substr(url, 1, length(?1)) = ?1 AND url <> ?1 ORDER BY url";
	int rc = 0, s;
	if (sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot query sources");
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct wp_source_row r = {
			.id = sqlite3_column_int64(st, 0),
			.url = col_text(st, 1),
			.kind = col_text(st, 2),
			.type = wp_source_kind_of(col_text(st, 2)),
			.etag = col_text(st, 3),
			.last_modified = col_text(st, 4),
			.content_sha256 = col_text(st, 5),
			.fetched_at = col_ll(st, 6),
			.n_files = col_ll(st, 7),
		};
		if ((rc = fn(ctx, &r, err)))
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read sources");
out:
	sqlite3_finalize(st);
	return rc;
}

int wp_catalog_source_touch(struct wp_catalog *cat, const char *url, struct wp_err *err)
{
	wp_catalog_before_write(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if (cat->read_only)
		return 0; /* a catalog this process may not write: the next run asks again, as
			     before */
	if (sqlite3_prepare_v2(cat->db, "UPDATE sources SET fetched_at = ?2 WHERE url = ?1", -1,
			       &st, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot update source");
		goto out;
	}
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot update source");
out:
	sqlite3_finalize(st);
	return rc;
}

/* A refresh fills SQLite's page cache, one malloc'd page at a time, from heap the process has
 * never touched, and the kernel maps each fresh page on the fault its first write takes: 16-22 us
 * a page on the VMs we measure, against 1.3 us a page mapped in bulk (crawling the 2021 page took
 * 165 such faults in its inserts, 609 in all). So the first refresh of a process maps WARM_HEAP
 * bytes in bulk and hands them back to malloc, which keeps them: a block that large, malloc'd and
 * freed, raises glibc's mmap and trim thresholds past it (as any large block freed does), so the
 * next one comes from the heap and stays there when freed. Elsewhere this is one malloc and free,
 * and an madvise the kernel may refuse. */
#define WARM_HEAP (1u << 20)
static void warm_heap(void)
{
	static atomic_flag done = ATOMIC_FLAG_INIT;
	if (atomic_flag_test_and_set(&done))
		return;
	void *volatile big = malloc(WARM_HEAP + 4096); /* volatile: the compiler may not drop the
							  pair */
	free(big);
	char *p = malloc(WARM_HEAP);
	if (!p)
		return;
	wp_os_populate(p, WARM_HEAP);
	free(p);
}

/* The statements a refresh runs for every row, prepared once per connection on its first refresh
 * (commands that only read never pay for them). */
static int prepare_writes(struct wp_catalog *cat, struct wp_err *err)
{
	static const char insert_sql[] =
		"INSERT INTO files (source_id, project, version, variant, kind, filename, url, sha256, md5, size,"
		" requires_python, yanked, core_metadata, tags, build, build_number, subdir, depends, constrains,"
		" track_features, timestamp, hash_conflict, vkey)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)";
	if (cat->st_insert_file)
		return 0;
	warm_heap();
	if (sqlite3_prepare_v3(cat->db, insert_sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &cat->st_insert_file, NULL) ||
	    sqlite3_prepare_v3(cat->db, "SELECT sha256 FROM seen_files WHERE key = ?1", -1,
			       SQLITE_PREPARE_PERSISTENT, &cat->st_seen_get, NULL) ||
	    sqlite3_prepare_v3(cat->db,
			       "INSERT OR IGNORE INTO seen_files (key, sha256, url, first_seen) VALUES (?1, ?2, ?3, ?4)",
			       -1, SQLITE_PREPARE_PERSISTENT, &cat->st_seen_put, NULL)) {
		int rc = wp_catalog_fail(cat, err, "cannot prepare statements");
		sqlite3_finalize(cat->st_insert_file);
		sqlite3_finalize(cat->st_seen_get);
		cat->st_insert_file = cat->st_seen_get = NULL;
		return rc;
	}
	return 0;
}

/* A channel's first refresh is most of what the catalog will hold (190 MB for 300,000 records),
 * and WAL writes it twice: into the WAL, then again at the checkpoint. Alone on the catalog, it
 * is written once, under a rollback journal, which keeps only the pages that were there before
 * (pages past the old end are not journaled); a kill leaves a hot journal that the next open
 * rolls back, and FULL sync keeps that so through a power cut. Not alone (another connection
 * holds the catalog open, which WAL marks with a shared lock), the switch fails at once and the
 * refresh runs in WAL, as always. The commit goes back to WAL, as does the next open should this
 * process die first. Measured on 300,000 records: 3.1 s of CPU -> 2.3 s. */
static void write_once(struct wp_catalog *cat, const char *url)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(cat->db,
			       "SELECT 1 FROM conda_chunks c JOIN sources s ON s.id = c.source_id"
			       " WHERE s.url = ?1 LIMIT 1",
			       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, url, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_DONE) {
			sqlite3_finalize(q);
			q = NULL;
			sqlite3_busy_timeout(cat->db, 0);
			if (sqlite3_prepare_v2(cat->db, "PRAGMA journal_mode=DELETE", -1, &q,
					       NULL) == SQLITE_OK &&
			    sqlite3_step(q) == SQLITE_ROW && col_text(q, 0) &&
			    !strcmp(col_text(q, 0), "delete"))
				sqlite3_exec(cat->db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
			sqlite3_busy_timeout(cat->db, BUSY_TIMEOUT_MS);
		}
	}
	sqlite3_finalize(q);
}

/* Back to WAL after write_once (nothing to do when the refresh ran in WAL). */
static void back_to_wal(struct wp_catalog *cat)
{
	sqlite3_stmt *q = NULL;
	bool wal = true;
	if (sqlite3_prepare_v2(cat->db, "PRAGMA journal_mode", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		wal = !col_text(q, 0) || !strcmp(col_text(q, 0), "wal");
	sqlite3_finalize(q); /* first: the mode changes only outside a statement */
	if (!wal)
		sqlite3_exec(cat->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", NULL,
			     NULL, NULL);
}

int wp_catalog_refresh_begin(struct wp_catalog *cat, const char *url, enum wp_source_kind type,
			     int64_t *source_id, struct wp_err *err)
{
	const char *kind = wp_source_kind_name(type);
	wp_catalog_before_write(cat);
	int rc;
	sqlite3_stmt *st = NULL;
	if ((rc = prepare_writes(cat, err)))
		return rc;
	/* A page's many small rows go into B-trees at random places, which a 64 MiB cache keeps
	 * from spilling; conda chunks are written once, in order, and 16 MiB does as well for them
	 * while keeping a 300,000-record refresh well under 100 MB. */
	if ((rc = exec(cat,
		       type != WP_SOURCE_REPODATA ? "PRAGMA cache_size=-65536" :
						    "PRAGMA cache_size=-16384",
		       err)))
		return rc;
	if (type == WP_SOURCE_REPODATA)
		write_once(cat, url);
	if ((rc = exec(cat, "BEGIN IMMEDIATE", err)))
		return rc;
	cat->in_refresh = true;
	cat->refresh_conflicts = 0;
	if (sqlite3_prepare_v2(cat->db,
			       "INSERT INTO sources (url, kind) VALUES (?1, ?2)"
			       " ON CONFLICT(url) DO UPDATE SET kind = excluded.kind RETURNING id",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot record source");
		goto out;
	}
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = wp_catalog_fail(cat, err, "cannot record source");
		goto out;
	}
	*source_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = wp_catalog_provenance_clear_source(cat, *source_id, url,
						     type == WP_SOURCE_REPODATA, err)))
		goto out;
	/* repodata gives every size: nothing of a channel's is ever asked of its server */
	if (type != WP_SOURCE_REPODATA &&
	    (rc = wp_catalog_announced_clear_source(cat, *source_id, err)))
		goto out;
	if (sqlite3_prepare_v2(cat->db, "DELETE FROM files WHERE source_id = ?1", -1, &st, NULL) !=
	    SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot clear source");
		goto out;
	}
	sqlite3_bind_int64(st, 1, *source_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot clear source");
	if (!rc)
		rc = wp_condastore_clear_source(cat, *source_id, err);
out:
	sqlite3_finalize(st);
	if (rc)
		wp_catalog_refresh_abort(cat);
	return rc;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_ll(sqlite3_stmt *st, int i, long long v)
{
	if (v >= 0)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Trust on first use: returns the first-seen hash for key when it differs from sha256 (owned by
 * the caller), else NULL after recording sha256 (found at url) as seen. Needs prepare_writes. */
/* at_fetch: the hash is the bytes' own, computed at their first fetch because the index gave none;
 * its first_seen is stored negated, so that a later fetch of other bytes can tell a re-published
 * file (which 'wheelpick trust' may accept) from a server that contradicts its index. */
static char *tofu_check(struct wp_catalog *cat, const char *key, const char *url,
			const char *sha256, bool at_fetch)
{
	char *first = NULL;
	sqlite3_stmt *st = cat->st_seen_get;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *seen = col_text(st, 0);
		if (seen && strcmp(seen, sha256) != 0)
			first = wp_xstrdup(seen);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (!first) {
		st = cat->st_seen_put;
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, sha256, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, url, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL) * (at_fetch ? -1 : 1));
		sqlite3_step(st);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	return first;
}

/* A page that lists one URL twice keeps its last row, as INSERT OR REPLACE would: the earlier
 * row goes before the insert is tried again. (A plain INSERT is what a refresh runs for each row:
 * OR REPLACE may delete, so SQLite wraps every such statement in a statement journal, copying
 * each page it touches and freeing the copies at its end -- 40% of a crawl's CPU.) */
static int replace_file(struct wp_catalog *cat, int64_t source_id, const char *url)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(cat->db, "DELETE FROM files WHERE source_id = ?1 AND url = ?2", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_text(st, 2, url, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(cat->db) == 1 ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int wp_catalog_add_file(struct wp_catalog *cat, const struct wp_file_row *f, struct wp_err *err)
{
	if (!cat->in_refresh || !cat->st_insert_file)
		return wp_fail(err, -WPE_CATALOG,
			       "catalog '%s': a file was added outside a refresh", cat->path);
	if (f->kind && !strcmp(f->kind, "conda"))
		return wp_condastore_add(cat, f->source_id, f, err);
	int rc = wp_condastore_idle(cat, err); /* the connection is ours only while no batch is
						  written */
	if (rc)
		return rc;
	char *first = NULL;
	/* a variants.json may change in place (PEP 825: a variant is added), so trust on first use,
	 * which holds a file to its first bytes, does not apply to it */
	bool variants = f->kind && !strcmp(f->kind, "variants");
	if (f->sha256 && !variants) {
		struct wp_buf key = WP_BUF_INIT;
		tofu_key(f->project, f->version, f->variant, f->kind, f->tags, f->build,
			 f->filename, &key);
		first = tofu_check(cat, wp_buf_cstr(&key), f->url, f->sha256, false);
		wp_buf_free(&key);
	}
	sqlite3_stmt *st = cat->st_insert_file;
	cat->refresh_conflicts += first != NULL;
	sqlite3_bind_int64(st, 1, f->source_id);
	bind_text(st, 2, f->project);
	bind_text(st, 3, f->version);
	bind_text(st, 4, f->variant ? f->variant : "");
	bind_text(st, 5, f->kind);
	bind_text(st, 6, f->filename);
	bind_text(st, 7, f->url);
	bind_text(st, 8, f->sha256);
	bind_text(st, 9, f->md5);
	bind_ll(st, 10, f->size);
	bind_text(st, 11, f->requires_python);
	bind_text(st, 12, f->yanked);
	bind_text(st, 13, f->core_metadata);
	bind_text(st, 14, f->tags);
	bind_text(st, 15, f->build);
	bind_ll(st, 16, f->build_number);
	bind_text(st, 17, f->subdir);
	bind_text(st, 18, f->depends);
	bind_text(st, 19, f->constrains);
	bind_text(st, 20, f->track_features);
	bind_ll(st, 21, f->timestamp);
	bind_text(st, 22, first);
	struct wp_buf vkey = WP_BUF_INIT;
	if (version_key(f->version, &vkey))
		sqlite3_bind_blob(st, 23, vkey.data, (int)vkey.len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 23);
	if (sqlite3_step(st) != SQLITE_DONE &&
	    (sqlite3_reset(st) != SQLITE_CONSTRAINT_UNIQUE ||
	     replace_file(cat, f->source_id, f->url) || sqlite3_step(st) != SQLITE_DONE))
		rc = wp_catalog_fail(cat, err, "cannot store file");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	wp_buf_free(&vkey);
	free(first);
	return rc;
}

int wp_catalog_refresh_commit(struct wp_catalog *cat, int64_t source_id, const char *etag,
			      const char *last_modified, const char *content_sha256,
			      int64_t n_files, struct wp_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if ((rc = wp_condastore_flush(cat, err)))
		goto out;
	if (sqlite3_prepare_v2(cat->db,
			       "UPDATE sources SET etag = ?2, last_modified = ?3, content_sha256 = ?4, n_files = ?5,"
			       " fetched_at = ?6 WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot update source");
		goto out;
	}
	sqlite3_bind_int64(st, 1, source_id);
	bind_text(st, 2, etag);
	bind_text(st, 3, last_modified);
	bind_text(st, 4, content_sha256);
	sqlite3_bind_int64(st, 5, n_files);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE) {
		rc = wp_catalog_fail(cat, err, "cannot update source");
		goto out;
	}
	rc = exec(cat, "COMMIT", err);
	if (!rc) {
		cat->in_refresh = false;
		back_to_wal(cat);
	}
out:
	sqlite3_finalize(st);
	if (rc)
		wp_catalog_refresh_abort(cat);
	return rc;
}

void wp_catalog_refresh_abort(struct wp_catalog *cat)
{
	wp_condastore_discard(cat);
	if (cat->db)
		sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
	cat->in_refresh = false;
}

/* The columns every file query selects, in file_row's order. */
#define FILE_COLS                                                                                       \
	"f.id, f.source_id, f.project, f.version, f.variant, f.kind, f.filename, f.url, f.sha256, f.md5,"     \
	" f.requires_python, f.yanked, f.core_metadata, f.tags, f.build, f.subdir, f.depends, f.constrains," \
	" f.track_features, f.hash_conflict, f.size, f.build_number, f.timestamp, s.url, f.vkey"

/* The row st stands on (selected with FILE_COLS), borrowing SQLite's memory until the next step. */
static struct wp_file_row file_row(sqlite3_stmt *st)
{
	return (struct wp_file_row){
		.id = sqlite3_column_int64(st, 0),
		.source_id = sqlite3_column_int64(st, 1),
		.project = col_text(st, 2),
		.version = col_text(st, 3),
		.variant = col_text(st, 4),
		.kind = col_text(st, 5),
		.filename = col_text(st, 6),
		.url = col_text(st, 7),
		.sha256 = col_text(st, 8),
		.md5 = col_text(st, 9),
		.requires_python = col_text(st, 10),
		.yanked = col_text(st, 11),
		.core_metadata = col_text(st, 12),
		.tags = col_text(st, 13),
		.build = col_text(st, 14),
		.subdir = col_text(st, 15),
		.depends = col_text(st, 16),
		.constrains = col_text(st, 17),
		.track_features = col_text(st, 18),
		.hash_conflict = col_text(st, 19),
		.size = col_ll(st, 20),
		.build_number = col_ll(st, 21),
		.timestamp = col_ll(st, 22),
		.source_url = col_text(st, 23),
		.vkey = sqlite3_column_blob(st, 24),
		.vkey_len = (size_t)sqlite3_column_bytes(st, 24),
	};
}

/* Each row of st (prepared and bound) to fn, which may stop the walk with a non-zero return;
 * st is finalized. fn's return, or 0, or the read's error. */
static int each_file_row(struct wp_catalog *cat, sqlite3_stmt *st, wp_file_row_fn *fn, void *ctx,
			 struct wp_err *err)
{
	int rc = 0, s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct wp_file_row r = file_row(st);
		if ((rc = fn(ctx, &r, err)))
			break;
	}
	if (!rc && s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read files");
	done(cat, st);
	return rc;
}

int wp_catalog_files(struct wp_catalog *cat, const char *project, bool conda, wp_file_row_fn *fn,
		     void *ctx, struct wp_err *err)
{
	wp_catalog_before_read(cat);
	static const char sql_py[] = "SELECT " FILE_COLS
				     " FROM files f JOIN sources s ON s.id = f.source_id"
				     " WHERE f.project = ?1 AND f.kind IN ('wheel', 'sdist')";
	sqlite3_stmt *st = NULL;
	if (conda)
		return wp_condastore_files(cat, project, fn, ctx, err);
	if (prep(cat, sql_py, &st) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot query files");
	sqlite3_bind_text(st, 1, project, -1, SQLITE_STATIC);
	return each_file_row(cat, st, fn, ctx, err);
}

/* Past this many sources a merge costs more than reading the rows of all and skipping some. */
#define MERGE_MAX_SOURCES 16

/* memcmp order of two version keys (a shorter key that is a prefix sorts first). */
static int vkey_cmp(sqlite3_stmt *a, sqlite3_stmt *b)
{
	const void *x = sqlite3_column_blob(a, 24), *y = sqlite3_column_blob(b, 24);
	size_t xn = (size_t)sqlite3_column_bytes(a, 24), yn = (size_t)sqlite3_column_bytes(b, 24);
	int c = xn && yn ? memcmp(x, y, xn < yn ? xn : yn) : 0;
	return c ? c : (xn > yn) - (xn < yn);
}

/* The rows of n statements, each ordered by key descending, merged into one walk newest first;
 * every statement is finalized. fn's return, or 0, or the read's error. */
static int merge_file_rows(struct wp_catalog *cat, sqlite3_stmt **st, size_t n, wp_file_row_fn *fn,
			   void *ctx, struct wp_err *err)
{
	bool *live = wp_xcalloc(n, sizeof(*live));
	int rc = 0, s;
	for (size_t i = 0; i < n && !rc; i++) {
		if ((s = sqlite3_step(st[i])) == SQLITE_ROW)
			live[i] = true;
		else if (s != SQLITE_DONE)
			rc = wp_catalog_fail(cat, err, "cannot read files");
	}
	while (!rc) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (live[i] && (best == n || vkey_cmp(st[i], st[best]) > 0))
				best = i;
		if (best == n)
			break;
		struct wp_file_row r = file_row(st[best]);
		if ((rc = fn(ctx, &r, err)))
			break;
		if ((s = sqlite3_step(st[best])) != SQLITE_ROW) {
			live[best] = false;
			if (s != SQLITE_DONE)
				rc = wp_catalog_fail(cat, err, "cannot read files");
		}
	}
	for (size_t i = 0; i < n; i++)
		done(cat, st[i]);
	free(live);
	return rc;
}

int wp_catalog_files_by_version(struct wp_catalog *cat, const char *project,
				const struct wp_catalog_key_range *r, wp_file_row_fn *fn, void *ctx,
				struct wp_err *err)
{
	wp_catalog_before_read(cat);
	/* +f.kind: the kind index would be chosen for its two equalities, and then every row
	 * sorted */
	static const char head[] = "SELECT " FILE_COLS
				   " FROM files f JOIN sources s ON s.id = f.source_id"
				   " WHERE f.project = ?1 AND +f.kind IN ('wheel', 'sdist')";
	struct wp_buf sql = WP_BUF_INIT;
	/* one statement per source through files_by_source_version, or one over every source */
	size_t ns = r && !r->null_keys && r->sources && r->n_sources <= MERGE_MAX_SOURCES ?
			    r->n_sources :
			    0;
	size_t nst = ns ? ns : 1;
	sqlite3_stmt **st = wp_xcalloc(nst, sizeof(*st));
	int rc = 0;
	wp_buf_addstr(&sql, head);
	if (r && r->null_keys) {
		wp_buf_addstr(&sql, " AND f.vkey IS NULL ORDER BY f.id");
	} else {
		wp_buf_addstr(&sql, ns ? " AND f.source_id = ?4 AND f.vkey IS NOT NULL" :
					 " AND f.vkey IS NOT NULL");
		if (r && r->lo)
			wp_buf_addstr(&sql, " AND f.vkey >= ?2");
		if (r && r->hi)
			wp_buf_addstr(&sql, " AND f.vkey < ?3");
		wp_buf_addstr(&sql, " ORDER BY f.vkey DESC");
	}
	for (size_t i = 0; i < nst; i++) {
		if (prep(cat, sql.data, &st[i]) != SQLITE_OK) {
			rc = wp_catalog_fail(cat, err, "cannot query files");
			for (size_t k = 0; k <= i; k++)
				done(cat, st[k]);
			goto out;
		}
		sqlite3_bind_text(st[i], 1, project, -1, SQLITE_STATIC);
		if (r && r->lo)
			sqlite3_bind_blob(st[i], 2, r->lo, (int)r->lo_len, SQLITE_STATIC);
		if (r && r->hi)
			sqlite3_bind_blob(st[i], 3, r->hi, (int)r->hi_len, SQLITE_STATIC);
		if (ns)
			sqlite3_bind_int64(st[i], 4, r->sources[i]);
	}
	rc = nst == 1 ? each_file_row(cat, st[0], fn, ctx, err) :
			merge_file_rows(cat, st, nst, fn, ctx, err);
out:
	wp_buf_free(&sql);
	free(st);
	return rc;
}

int wp_catalog_file_sources(struct wp_catalog *cat, const char *project, wp_source_row_fn *fn,
			    void *ctx, struct wp_err *err)
{
	wp_catalog_before_read(cat);
	static const char *const kinds[] = { "wheel", "sdist" };
	sqlite3_stmt *next = NULL, *src = NULL;
	WP_VEC_OF(, int64_t) seen = { 0 };
	int rc = 0;
	/* a seek per source, not a walk over the project's rows */
	if (prep(cat,
		 "SELECT source_id FROM files WHERE project = ?1 AND kind = ?2 AND source_id > ?3"
		 " ORDER BY source_id LIMIT 1",
		 &next) != SQLITE_OK ||
	    prep(cat, "SELECT url, kind FROM sources WHERE id = ?1", &src) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot query sources");
		goto out;
	}
	for (size_t k = 0; k < WP_ARRAY_LEN(kinds) && !rc; k++) {
		int64_t after = -1;
		for (;;) {
			sqlite3_reset(next);
			sqlite3_bind_text(next, 1, project, -1, SQLITE_STATIC);
			sqlite3_bind_text(next, 2, kinds[k], -1, SQLITE_STATIC);
			sqlite3_bind_int64(next, 3, after);
			int s = sqlite3_step(next);
			if (s == SQLITE_DONE)
				break;
			if (s != SQLITE_ROW) {
				rc = wp_catalog_fail(cat, err, "cannot query sources");
				break;
			}
			after = sqlite3_column_int64(next, 0);
			bool dup = false;
			for (size_t i = 0; i < seen.n && !dup; i++)
				dup = seen.v[i] == after;
			if (dup)
				continue;
			wp_vec_push(&seen, after);
			sqlite3_reset(src);
			sqlite3_bind_int64(src, 1, after);
			if (sqlite3_step(src) != SQLITE_ROW)
				continue;
			struct wp_source_row row = {
				.id = after, .url = col_text(src, 0), .kind = col_text(src, 1),
				.type = wp_source_kind_of(col_text(src, 1)),
			};
			if ((rc = fn(ctx, &row, err)))
				break;
		}
	}
out:
	done(cat, next);
	done(cat, src);
	wp_vec_free(&seen);
	return rc;
}

int wp_catalog_variants(struct wp_catalog *cat, const char *project, wp_variants_row_fn *fn,
			void *ctx, struct wp_err *err)
{
	wp_catalog_before_read(cat);
	static const char sql[] =
		"SELECT f.source_id, f.version, f.filename, f.url, f.sha256, s.url, v.body, v.sha256"
		" FROM files f JOIN sources s ON s.id = f.source_id LEFT JOIN variants_json v ON v.url = f.url"
		" WHERE f.project = ?1 AND f.kind = 'variants'";
	sqlite3_stmt *st = NULL;
	int rc = 0, s;
	if (sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot query variants.json files");
	sqlite3_bind_text(st, 1, project, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct wp_variants_row r = {
			.source_id = sqlite3_column_int64(st, 0),
			.version = col_text(st, 1),
			.filename = col_text(st, 2),
			.url = col_text(st, 3),
			.sha256 = col_text(st, 4),
			.source_url = col_text(st, 5),
			.body = col_text(st, 6),
			.body_sha256 = col_text(st, 7),
		};
		if ((rc = fn(ctx, &r, err)))
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read variants.json files");
out:
	sqlite3_finalize(st);
	return rc;
}

int wp_catalog_variants_put(struct wp_catalog *cat, const char *url, const char *sha256,
			    const char *body, struct wp_err *err)
{
	wp_catalog_before_write(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(cat->db,
			       "INSERT OR REPLACE INTO variants_json (url, sha256, body, fetched_at) VALUES (?1, ?2, ?3, ?4)",
			       -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot store a variants.json");
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, body, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot store a variants.json");
	sqlite3_finalize(st);
	return rc;
}

int wp_catalog_fetch_conflict(struct wp_catalog *cat, const char *url, const char *expected_sha256,
			      const char *got_sha256, bool *found, char **first_url,
			      int64_t *first_seen, struct wp_err *err)
{
	wp_catalog_before_write(cat);
	sqlite3_stmt *q = NULL;
	struct wp_buf key = WP_BUF_INIT;
	int rc = 0;
	*found = false;
	*first_url = NULL;
	*first_seen = 0;
	tofu_key_of_url(url, &key);
	if (sqlite3_prepare_v2(cat->db,
			       "SELECT sha256, url, first_seen FROM seen_files WHERE key = ?1", -1,
			       &q, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot read first-seen hashes");
		goto out;
	}
	sqlite3_bind_text(q, 1, wp_buf_cstr(&key), -1, SQLITE_STATIC);
	/* only a hash computed at a first fetch (first_seen < 0): one the index gave, contradicted
	 * by the server, stays the plain mismatch it is */
	if (sqlite3_step(q) == SQLITE_ROW && col_text(q, 0) &&
	    !strcmp(col_text(q, 0), expected_sha256) && strcmp(expected_sha256, got_sha256) != 0 &&
	    sqlite3_column_int64(q, 2) < 0) {
		*found = true;
		*first_url = wp_xstrdup(col_text(q, 1) ? col_text(q, 1) : url);
		*first_seen = -(int64_t)sqlite3_column_int64(q, 2);
	}
	sqlite3_finalize(q);
	q = NULL;
	if (!*found || cat->read_only)
		goto out;
	if (sqlite3_prepare_v2(cat->db,
			       "UPDATE files SET hash_conflict = ?2, sha256 = ?3 WHERE url = ?1",
			       -1, &q, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot record a hash conflict");
		goto out;
	}
	sqlite3_bind_text(q, 1, url, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, expected_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, got_sha256, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot record a hash conflict");
out:
	sqlite3_finalize(q);
	wp_buf_free(&key);
	return rc;
}

int wp_catalog_first_seen(struct wp_catalog *cat, const char *url, bool *found, char **sha256,
			  char **first_url, int64_t *first_seen, struct wp_err *err)
{
	wp_catalog_before_read(cat);
	sqlite3_stmt *q = NULL;
	struct wp_buf key = WP_BUF_INIT;
	int rc = 0;
	*found = false;
	*sha256 = *first_url = NULL;
	*first_seen = 0;
	tofu_key_of_url(url, &key);
	if (sqlite3_prepare_v2(cat->db,
			       "SELECT sha256, url, first_seen FROM seen_files WHERE key = ?1", -1,
			       &q, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot read first-seen hashes");
		goto out;
	}
	sqlite3_bind_text(q, 1, wp_buf_cstr(&key), -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW && col_text(q, 0)) {
		*found = true;
		*sha256 = wp_xstrdup(col_text(q, 0));
		*first_url = wp_xstrdup(col_text(q, 1) ? col_text(q, 1) : "");
		int64_t t = sqlite3_column_int64(q, 2);
		*first_seen = t < 0 ? -t : t; /* negated: hashed at its first fetch */
	}
out:
	sqlite3_finalize(q);
	wp_buf_free(&key);
	return rc;
}

int wp_catalog_accept_hashes(struct wp_catalog *cat, const char *url_like, int64_t *n,
			     struct wp_err *err)
{
	wp_catalog_before_write(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if ((rc = exec(cat, "BEGIN IMMEDIATE", err)))
		return rc;
	/* forget the keys of the files the pattern names (and those first seen at such a URL),
	 * clear their conflicts, then record what is listed now as first seen: the accepted files
	 * first, so that their bytes are the ones a key now holds */
	const char *sqls[5][2] = {
		/* what was read of an accepted file's old bytes (its Requires-Dist) is not the new
		 * file's: read again, or the new wheel would be held to the old one's metadata */
		{ "DELETE FROM metadata WHERE url IN (SELECT url FROM files WHERE hash_conflict IS NOT NULL)",
		  "DELETE FROM metadata WHERE url IN (SELECT url FROM files WHERE hash_conflict IS NOT NULL AND url LIKE ?1)" },
		{ "DELETE FROM seen_files",
		  "DELETE FROM seen_files WHERE url LIKE ?1 OR key IN (SELECT wp_tofu_key(url) FROM files WHERE url LIKE ?1)" },
		{ "UPDATE files SET hash_conflict = NULL WHERE hash_conflict IS NOT NULL",
		  "UPDATE files SET hash_conflict = NULL WHERE hash_conflict IS NOT NULL AND url LIKE ?1" },
		{ "SELECT 1",
		  "INSERT OR IGNORE INTO seen_files (key, sha256, url, first_seen) SELECT wp_tofu_key(url), sha256, url,"
		  " strftime('%s','now') FROM files WHERE sha256 IS NOT NULL AND url LIKE ?1" },
		{ "INSERT OR IGNORE INTO seen_files (key, sha256, url, first_seen) SELECT wp_tofu_key(url), sha256, url,"
		  " strftime('%s','now') FROM files WHERE sha256 IS NOT NULL",
		  "INSERT OR IGNORE INTO seen_files (key, sha256, url, first_seen) SELECT wp_tofu_key(url), sha256, url,"
		  " strftime('%s','now') FROM files WHERE sha256 IS NOT NULL" },
	};
	*n = 0;
	for (int i = 0; i < 5; i++) {
		if (sqlite3_prepare_v2(cat->db, sqls[i][url_like != NULL], -1, &st, NULL) !=
		    SQLITE_OK) {
			rc = wp_catalog_fail(cat, err, "cannot accept hashes");
			goto out;
		}
		if (url_like && sqlite3_bind_parameter_count(st) > 0)
			sqlite3_bind_text(st, 1, url_like, -1, SQLITE_STATIC);
		int s;
		while ((s = sqlite3_step(st)) == SQLITE_ROW)
			;
		if (s != SQLITE_DONE) {
			rc = wp_catalog_fail(cat, err, "cannot accept hashes");
			goto out;
		}
		if (i == 2)
			*n = sqlite3_changes(cat->db);
		sqlite3_finalize(st);
		st = NULL;
	}
	if ((rc = wp_condastore_accept(cat, url_like, n, err)))
		goto out;
	rc = exec(cat, "COMMIT", err);
out:
	sqlite3_finalize(st);
	if (rc)
		sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int wp_catalog_metadata_get(struct wp_catalog *cat, const char *url, wp_metadata_fn *fn, void *ctx,
			    bool *found, struct wp_err *err)
{
	wp_catalog_before_read(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0, s;
	*found = false;
	if (prep(cat, "SELECT requires_python, requires_dist FROM metadata WHERE url = ?1", &st) !=
	    SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot query metadata");
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*found = true;
		rc = fn(ctx, col_text(st, 0), col_text(st, 1));
	} else if (s != SQLITE_DONE) {
		rc = wp_catalog_fail(cat, err, "cannot read metadata");
	}
	done(cat, st);
	return rc;
}

int wp_catalog_metadata_put(struct wp_catalog *cat, const char *url, const char *requires_python,
			    const char *requires_dist, bool checked, struct wp_err *err)
{
	wp_catalog_before_write(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(cat->db,
			       "INSERT OR REPLACE INTO metadata (url, requires_python, requires_dist, checked) VALUES (?1, ?2, ?3, ?4)",
			       -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot store metadata");
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	bind_text(st, 2, requires_python);
	sqlite3_bind_text(st, 3, requires_dist ? requires_dist : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, checked);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot store metadata");
	sqlite3_finalize(st);
	return rc;
}

int wp_catalog_metadata_lookup(struct wp_catalog *cat, const char *url, struct wp_catalog_meta *m,
			       struct wp_err *err)
{
	wp_catalog_before_read(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0, s;
	memset(m, 0, sizeof(*m));
	if (prep(cat, "SELECT requires_python, requires_dist, checked FROM metadata WHERE url = ?1",
		 &st) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot query metadata");
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		m->found = true;
		m->requires_python = col_text(st, 0) ? wp_xstrdup(col_text(st, 0)) : NULL;
		m->requires_dist = wp_xstrdup(col_text(st, 1) ? col_text(st, 1) : "");
		m->checked = sqlite3_column_int(st, 2) != 0;
	} else if (s != SQLITE_DONE) {
		rc = wp_catalog_fail(cat, err, "cannot read metadata");
	}
	done(cat, st);
	return rc;
}

void wp_catalog_meta_release(struct wp_catalog_meta *m)
{
	free(m->requires_python);
	free(m->requires_dist);
	memset(m, 0, sizeof(*m));
}

int wp_catalog_record_hash(struct wp_catalog *cat, const char *url, const char *sha256,
			   struct wp_err *err)
{
	wp_catalog_before_write(cat);
	sqlite3_stmt *st = NULL;
	int rc = 0;
	struct wp_buf key = WP_BUF_INIT;
	if (cat->read_only) {
		/* nothing can be recorded, but a name seen first with other bytes is still
		 * refused */
		sqlite3_stmt *q = NULL;
		tofu_key_of_url(url, &key);
		if (sqlite3_prepare_v2(cat->db, "SELECT sha256 FROM seen_files WHERE key = ?1", -1,
				       &q, NULL) == SQLITE_OK) {
			sqlite3_bind_text(q, 1, wp_buf_cstr(&key), -1, SQLITE_STATIC);
			if (sqlite3_step(q) == SQLITE_ROW && col_text(q, 0) &&
			    strcmp(col_text(q, 0), sha256) != 0)
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s' now hashes to %s, but %s was seen first for a file of "
					     "that name; check the source, then %s",
					     url, sha256, col_text(q, 0),
					     wp_ask_words(cat->asks, WP_ASK_TRUST));
		}
		sqlite3_finalize(q);
		wp_buf_free(&key);
		return rc;
	}
	if ((rc = prepare_writes(cat, err)) || (rc = exec(cat, "BEGIN IMMEDIATE", err)))
		return rc;
	tofu_key_of_url(url, &key);
	char *first = tofu_check(cat, wp_buf_cstr(&key), url, sha256, true);
	wp_buf_free(&key);
	if (first) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s' now hashes to %s, but %s was seen first for a file of that name; "
			     "check the source, then %s",
			     url, sha256, first, wp_ask_words(cat->asks, WP_ASK_TRUST));
		free(first);
		goto out;
	}
	if (sqlite3_prepare_v2(cat->db,
			       "UPDATE files SET sha256 = ?2 WHERE url = ?1 AND sha256 IS NULL", -1,
			       &st, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot record a hash");
		goto out;
	}
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, sha256, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		rc = wp_catalog_fail(cat, err, "cannot record a hash");
		goto out;
	}
	rc = exec(cat, "COMMIT", err);
out:
	sqlite3_finalize(st);
	if (rc)
		sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}
