/* cache/catalogdb.h: what cache/catalog.c shares with its helper cache/condastore.c: the catalog
 * connection, its row types and its error helper. Apart from catalog.h so that condastore.h need
 * not include catalog.h, which catalog.c (condastore's only caller) includes beside it: no circle.
 * Ownership: as cache/catalog.h says. */
#ifndef WP_CATALOGDB_H
#define WP_CATALOGDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "cache/sourcekind.h"

#define WP_CATALOG_SCHEMA_VERSION 7

struct sqlite3;
struct sqlite3_stmt;
struct wp_condastore;
struct wp_asks;

struct wp_catalog {
	struct sqlite3 *db;
	char *path;
	struct sqlite3_stmt *st_insert_file;
	struct sqlite3_stmt *st_seen_get;
	struct sqlite3_stmt *st_seen_put;
	struct wp_condastore *conda; /* conda rows staged and their statements (cache/condastore.c)
				      */
	size_t conda_batch_bytes; /* 0: WP_CONDASTORE_BATCH_BYTES; tests set it small to cross
				     batches */
	bool in_refresh;
	bool read_only; /* this process may not write it: opened read-only, writes fail */
	/* files of the current (or last) refresh whose sha256 differs from the one first seen;
	 * conda files are checked when their batch is written, so the count is final after the
	 * commit */
	uint64_t refresh_conflicts;
	/* how the user names another catalog in the advice of a message ("--catalog";
	 * resolver/ask.h), from wp_catalog_open_as; NULL: plain words */
	const struct wp_asks *asks;
	/* a read scope (wp_catalog_read_begin): its depth, and whether its transaction is open now.
	 * A write ends the transaction first (wp_catalog_before_write); the next read opens
	 * another. */
	unsigned read_depth;
	bool read_open;
	/* statements the reads run over and over (a resolution reads each project's sources, rows
	 * and metadata: 60,000 preparations for 10,000 projects), prepared once (cache/catalog.c
	 * prep) */
	struct wp_catalog_stmt *stmts;
	size_t n_stmts;
	/* wp_catalog_count_transactions: transactions begun since it was turned on (tests) */
	bool counting;
	uint64_t transactions;
};

struct wp_source_row {
	int64_t id;
	const char *url, *kind, *etag, *last_modified, *content_sha256;
	enum wp_source_kind type;   /* kind, decoded (cache/sourcekind.h) */
	int64_t fetched_at;
	int64_t n_files;
};

/* A file row, as stored and as returned. Strings may be NULL; numbers -1 when unknown. */
struct wp_file_row {
	int64_t id, source_id;
	const char *project, *version, *variant, *kind, *filename, *url;
	const char *sha256, *md5, *requires_python, *yanked, *core_metadata, *tags;
	const char *build, *subdir, *depends, *constrains, *track_features;
	const char *hash_conflict;
	const char *source_url;  /* the page that lists it (returned rows only) */
	long long size, build_number, timestamp;
	const void *vkey; /* its version's sort key (wp_catalog_files_by_version only; NULL: none)
			   */
	size_t vkey_len;
};

typedef int wp_file_row_fn(void *ctx, const struct wp_file_row *row, struct wp_err *err);
typedef int wp_source_row_fn(void *ctx, const struct wp_source_row *row, struct wp_err *err);

/* -WPE_CATALOG, "catalog 'PATH': WHAT: <SQLite's message>" (for cache/, which shares the
 * connection). */
int wp_catalog_fail(struct wp_catalog *cat, struct wp_err *err, const char *what);

/* Whether sqlite_master has an object of TYPE ('table', 'index') named NAME (false when it cannot
 * be read: what reads it next says what is wrong). For the tables made on first write
 * (cache/announced.c). */
bool wp_catalog_has_object(struct wp_catalog *cat, const char *type, const char *name);

/* Every function that writes calls wp_catalog_before_write first: inside a read scope it ends the
 * scope's read transaction, so that the write takes the lock as it would alone (BEGIN IMMEDIATE,
 * the busy handler) and holds it only for itself, never until the scope ends. Every read a
 * resolution makes calls wp_catalog_before_read, which opens the scope's transaction when none is
 * open (deferred: the first SELECT takes the WAL snapshot). Outside a scope both do nothing. */
void wp_catalog_before_write(struct wp_catalog *cat);
void wp_catalog_before_read(struct wp_catalog *cat);

#endif
