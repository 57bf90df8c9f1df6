/* cache/catalog.h: the SQLite catalog of sources and the files they list.
 * struct wp_catalog owns its connection and prepared statements (wp_catalog_close frees them).
 * Rows handed to callbacks borrow SQLite's memory: valid only during the callback. */
#ifndef WP_CATALOG_H
#define WP_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "cache/catalogdb.h"

/* Opens (creating if needed, with its folder) and migrates. A catalog from a newer
 * wheelpick is refused, and so is a path that is a directory, FIFO or device. One this process
 * may not write is opened read-only (read_only): reading works, writing fails and says why. */
int wp_catalog_open(struct wp_catalog *cat, const char *path, struct wp_err *err);
/* The same, with the words for the advice to use another catalog ("--catalog"; resolver/ask.h). */
int wp_catalog_open_as(struct wp_catalog *cat, const char *path, const struct wp_asks *asks,
		       struct wp_err *err);
void wp_catalog_close(struct wp_catalog *cat);

/* A read scope: the reads between begin and end share one read transaction (one WAL snapshot,
 * one lock taken), instead of one transaction per statement; a warm 10,000-project solve made
 * about 36,000. A write inside the scope (a page crawled on demand, metadata kept) ends the
 * transaction before it and a later read begins another: a write never waits behind, nor is held
 * by, the scope. Scopes nest; the outermost end commits. Writers in other processes are not
 * blocked (WAL); they only keep the checkpoint from passing this reader's snapshot until it
 * ends. */
void wp_catalog_read_begin(struct wp_catalog *cat);
void wp_catalog_read_end(struct wp_catalog *cat);
/* Tests: count the transactions this connection begins from now on (an explicit BEGIN, or a
 * statement run outside any transaction, which is its own), in cat->transactions. */
void wp_catalog_count_transactions(struct wp_catalog *cat, bool on);

/* found=false when the catalog has no such source. */
int wp_catalog_source_get(struct wp_catalog *cat, const char *url, wp_source_row_fn *fn, void *ctx,
			  bool *found, struct wp_err *err);

/* Each source that lists the file url of project (id, url and kind set), oldest source first:
 * where a pick came from. version (the file's, as the catalog holds it; NULL: unknown) narrows
 * the read to that release's rows; a file's version must be the one it was stored with. */
int wp_catalog_file_url_sources(struct wp_catalog *cat, const char *project,
				const char *version, const char *url, wp_source_row_fn *fn,
				void *ctx, struct wp_err *err);

/* Every source whose URL starts with prefix (not prefix itself), in URL order: the project pages
 * read under a root. fn's non-zero return stops the walk and is returned. */
int wp_catalog_sources_under(struct wp_catalog *cat, const char *prefix, wp_source_row_fn *fn,
			     void *ctx, struct wp_err *err);

/* Mark a source as fetched now without changing its files: its page was asked for and found
 * unchanged (304, or the same bytes), so --max-age counts from now. A read-only catalog is left
 * as it is. */
int wp_catalog_source_touch(struct wp_catalog *cat, const char *url, struct wp_err *err);

/* A refresh replaces every file of one source atomically: begin (BEGIN IMMEDIATE, upsert
 * the source, drop its old rows), add files, then commit or abort. Readers see the old rows
 * or the new, never a mix; a crash before commit leaves the old rows. */
int wp_catalog_refresh_begin(struct wp_catalog *cat, const char *url, enum wp_source_kind kind,
			     int64_t *source_id, struct wp_err *err);
/* Adds a row. Applies trust on first use: when a file of that name (project, canonical version,
 * build, tags, kind, variant; wherever it was listed: another folder, query, spelling or host) was
 * seen before with another sha256, the row is stored with hash_conflict set to the first hash (and
 * counted in refresh_conflicts), and the resolvers refuse it until the change is accepted. Conda
 * rows (kind "conda") are staged and written in batches, packed per package
 * (cache/condastore.h). */
int wp_catalog_add_file(struct wp_catalog *cat, const struct wp_file_row *f, struct wp_err *err);
int wp_catalog_refresh_commit(struct wp_catalog *cat, int64_t source_id, const char *etag,
			      const char *last_modified, const char *content_sha256,
			      int64_t n_files, struct wp_err *err);
void wp_catalog_refresh_abort(struct wp_catalog *cat);

/* Every file of a project (normalised name), wheels and sdists, or conda records when
 * conda is true. Order: unspecified; the resolver sorts. */
int wp_catalog_files(struct wp_catalog *cat, const char *project, bool conda,
		     wp_file_row_fn *fn, void *ctx, struct wp_err *err);

/* A project's wheels and sdists newest first, by the version sort key (resolver/version.h
 * wp_version_key, kept since schema 7), so that a reader can stop when it has enough: fn returning
 * > 0 ends the call, which returns that value. r (may be NULL: every row with a key) bounds the
 * key, lo <= key < hi (either NULL: no bound); null_keys instead gives the rows whose version is no
 * PEP 440 version (no key), in the order they were written. Row order among equal keys:
 * unspecified. sources (n_sources of them; NULL or 0: any) keeps the keyed rows to those sources,
 * read each through the source index and merged newest first, so that the rows of an index out of
 * play are never read (a pick over 10 copies of a page read 44,100 such rows to skip them). */
struct wp_catalog_key_range {
	const void *lo, *hi;
	size_t lo_len, hi_len;
	bool null_keys;
	const int64_t *sources;
	size_t n_sources;
};
int wp_catalog_files_by_version(struct wp_catalog *cat, const char *project,
				const struct wp_catalog_key_range *r, wp_file_row_fn *fn, void *ctx,
				struct wp_err *err);
/* Each source that lists wheels or sdists of a project, once (id, url and kind set). */
int wp_catalog_file_sources(struct wp_catalog *cat, const char *project, wp_source_row_fn *fn,
			    void *ctx, struct wp_err *err);

/* Forget first-seen hashes (of the files listed at URLs matching the LIKE pattern, and those first
 * seen at such a URL; all when NULL) and clear those files' conflicts: the user accepted an index
 * rewrite. The accepted files' hashes become the first seen for their names. Returns the number of
 * rows changed in *n. */
int wp_catalog_accept_hashes(struct wp_catalog *cat, const char *url_like, int64_t *n,
			     struct wp_err *err);
/* A download of url hashed to got_sha256 where expected_sha256 was wanted. When expected is the
 * hash first seen for the file's name and was computed at its first fetch (the index gave none:
 * trust on first use refused the new bytes), *found is set, with where
 * and when it was first seen (*first_url is the caller's to free), and the conflict is recorded
 * as a crawl records one (the row's sha256 the new one, hash_conflict the first), so that
 * 'wheelpick trust' can accept it. A read-only catalog records nothing. */
int wp_catalog_fetch_conflict(struct wp_catalog *cat, const char *url, const char *expected_sha256,
			      const char *got_sha256, bool *found, char **first_url,
			      int64_t *first_seen, struct wp_err *err);

/* The sha256 first trusted for the file at url's name (what trust on first use holds it to),
 * where and when it was first seen: *found false when none was. Strings are the caller's. */
int wp_catalog_first_seen(struct wp_catalog *cat, const char *url, bool *found, char **sha256,
			  char **first_url, int64_t *first_seen, struct wp_err *err);

/* Cached dependency metadata for a file URL. *found false when absent. requires_dist is
 * one requirement per line; the callback's strings are borrowed. */
typedef int wp_metadata_fn(void *ctx, const char *requires_python, const char *requires_dist);
int wp_catalog_metadata_get(struct wp_catalog *cat, const char *url, wp_metadata_fn *fn, void *ctx,
			    bool *found, struct wp_err *err);
/* checked: the text is the proven wheel's own METADATA (read from it, or compared with it), not
 * what a PEP 658 file or a Range read claimed. */
int wp_catalog_metadata_put(struct wp_catalog *cat, const char *url, const char *requires_python,
			    const char *requires_dist, bool checked, struct wp_err *err);

/* The cached metadata for url with its checked mark, copied (wp_catalog_meta_release). */
struct wp_catalog_meta {
	bool found, checked;
	char *requires_python;   /* NULL when none */
	char *requires_dist;     /* one requirement per line; "" when none */
};
int wp_catalog_metadata_lookup(struct wp_catalog *cat, const char *url, struct wp_catalog_meta *m,
			       struct wp_err *err);
void wp_catalog_meta_release(struct wp_catalog_meta *m);



/* PEP 825 variants.json files listed for a project (files rows of kind "variants"), each with the
 * body read before when there is one. Strings borrowed for the callback. */
struct wp_variants_row {
	int64_t source_id;
	const char *version, *filename, *url, *sha256; /* as the page lists it; sha256 may be NULL
							*/
	const char *source_url;
	const char *body, *body_sha256;                /* NULL when never read */
};
typedef int wp_variants_row_fn(void *ctx, const struct wp_variants_row *row, struct wp_err *err);
int wp_catalog_variants(struct wp_catalog *cat, const char *project, wp_variants_row_fn *fn,
			void *ctx, struct wp_err *err);
/* Keep the bytes read from url (sha256 their hash), replacing what was kept before. */
int wp_catalog_variants_put(struct wp_catalog *cat, const char *url, const char *sha256,
			    const char *body, struct wp_err *err);

/* A file the index listed without a sha256 was fetched and hashed: remember the hash for the
 * file's name (trust on first use) and on the file rows that lack one. -WPE_INTEGRITY when a file
 * of that name was seen with another hash first. */
int wp_catalog_record_hash(struct wp_catalog *cat, const char *url, const char *sha256,
			   struct wp_err *err);
#endif
