/* cache/provstore.h: where each file's PEP 740 provenance lives, as its index gave it: a table of
 * its own (file_provenance, keyed by the file's URL), apart from files so that a refresh's hot
 * insert is unchanged and a catalog of schema 7 gains it without a migration.
 * Ownership: *out strings are the caller's to free. */
#ifndef WP_PROVSTORE_H
#define WP_PROVSTORE_H

#include "base/err.h"
#include "cache/catalogdb.h"

/* Record (or replace) the provenance URL of the file at url; inside a refresh, its transaction. */
int wp_catalog_provenance_put(struct wp_catalog *cat, const char *url, const char *provenance_url,
			      struct wp_err *err);
/* The provenance URL of the file at url into *out (NULL when the index gave none). */
int wp_catalog_provenance_get(struct wp_catalog *cat, const char *url, char **out, struct wp_err *err);

#endif
