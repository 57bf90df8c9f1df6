/* cache/condastore.h: conda records in the catalog, packed per package (cache/condapack.h).
 *
 * A refresh stages the records it is given in memory, grouped by package, and writes them a batch
 * at a time: one chunk row per package per batch, and one first-seen check per package (its list
 * of first-seen hashes read, merged and written back) instead of one per file. Only cache/catalog.c
 * calls these; they run inside its transactions.
 * Ownership: struct wp_condastore belongs to its catalog (wp_condastore_free). */
#ifndef WP_CONDASTORE_H
#define WP_CONDASTORE_H

#include <stdint.h>

#include "cache/catalogdb.h"

/* Staged bytes that start a batch write. Real channels are sorted by file name, so most packages
 * land in one chunk whatever this is; it bounds memory for unsorted ones. */
#define WP_CONDASTORE_BATCH_BYTES ((size_t)16 << 20)

struct wp_condastore;

/* Stage one conda row of the refresh of source_id (a batch is written when it is full). A row
 * that arrives with hash_conflict set keeps it, and that hash counts as first seen. */
int wp_condastore_add(struct wp_catalog *cat, int64_t source_id, const struct wp_file_row *f,
		      struct wp_err *err);
/* Write what is staged (before the refresh commits). */
int wp_condastore_flush(struct wp_catalog *cat, struct wp_err *err);
/* Wait until no batch is being written (by the writer thread, which shares the connection), and
 * report the error it met, if any. Needed before anything else uses the connection mid-refresh. */
int wp_condastore_idle(struct wp_catalog *cat, struct wp_err *err);
/* Forget what is staged (the refresh is rolled back). */
void wp_condastore_discard(struct wp_catalog *cat);
/* Remove source_id's chunks (a refresh starts). */
int wp_condastore_clear_source(struct wp_catalog *cat, int64_t source_id, struct wp_err *err);
/* Every record of package name, as wp_catalog_files hands them out. */
int wp_condastore_files(struct wp_catalog *cat, const char *name, wp_file_row_fn *fn, void *ctx,
			struct wp_err *err);
/* `trust`: accept current hashes of files whose URL matches the LIKE pattern (all when NULL); *n is
 * how many conflicts were cleared. Runs inside the caller's transaction. */
int wp_condastore_accept(struct wp_catalog *cat, const char *url_like, int64_t *n,
			 struct wp_err *err);
/* Schema 2 -> 3: move conda rows out of files (and their first-seen hashes out of seen_hashes,
 * which it must still hold). */
int wp_condastore_migrate(struct wp_catalog *cat, struct wp_err *err);
/* Schema 4 -> 5: first-seen lists keyed by the folder's URL (conda_seen) become lists keyed by its
 * subdir (conda_seen_files), entries by file name; of one name seen in two folders the earlier
 * sighting wins. Drops conda_seen. */
int wp_condastore_migrate_seen(struct wp_catalog *cat, struct wp_err *err);
void wp_condastore_free(struct wp_catalog *cat);

#endif
