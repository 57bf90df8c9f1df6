/* cache/provstore.h: where each file's PEP 740 provenance lives, as its index gave it: a table of
 * its own (file_provenance, keyed by the file's URL), apart from files so that a refresh's hot
 * insert is unchanged and a catalog of schema 7 gains it without a migration.
 * Ownership: *out strings are the caller's to free. */
#ifndef WP_PROVSTORE_H
#define WP_PROVSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "cache/catalogdb.h"

/* Record (or replace) the provenance URL of the file at url; inside a refresh, its transaction. */
int wp_catalog_provenance_put(struct wp_catalog *cat, const char *url, const char *provenance_url,
			      struct wp_err *err);
/* The provenance URL of the file at url into *out (NULL when the index gave none). */
int wp_catalog_provenance_get(struct wp_catalog *cat, const char *url, char **out,
			      struct wp_err *err);

/* A refresh starts clean: the provenance URLs of what the source listed before go (the files of a
 * page; with conda, every file beside the repodata at source_url), so an index that stops
 * offering provenance is not taken to offer it still. Inside the refresh's transaction. */
int wp_catalog_provenance_clear_source(struct wp_catalog *cat, int64_t source_id,
				       const char *source_url, bool conda, struct wp_err *err);

#endif
