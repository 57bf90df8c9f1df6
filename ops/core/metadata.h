/* ops/core/metadata.h: what a picked wheel depends on (Requires-Dist, Requires-Python), from
 * wherever is cheapest: the catalog's cache, the index's PEP 658 file, the wheel's METADATA member
 * read by HTTP range, or the wheel itself (fetched into the store, where a later download finds
 * it). What is read from the network is kept in the catalog. A wp_depmeta owns its strings. */
#ifndef WP_OPS_CORE_METADATA_H
#define WP_OPS_CORE_METADATA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "net/transfer.h"
#include "cache/catalog.h"
#include "cache/store.h"
#include "resolver/pick.h"

struct wp_depmeta {
	char **reqs;      /* PEP 508 strings as written */
	size_t n, cap;
	char *requires_python; /* from METADATA; NULL when it has none */
	char *source;     /* "catalog", "PEP 658 metadata", ... */
};

struct wp_depmeta_opts {
	struct wp_catalog *cat;
	struct wp_store *store; /* where a wheel fetched for its metadata goes; NULL: never fetch
				   one. Its catalog is set to cat when it has none: wheels fetched
				   into it later are held to the metadata this resolution used */
	bool offline;
	const struct wp_net_conf *net; /* the run's network settings (the session's); NULL: defaults
					*/
};

/* Metadata reads wp_depmeta_prefetch makes at once (threads, each with its own transfers). */
#define WP_DEPMETA_PARALLEL 8

/* c's dependencies; core_metadata is the index's PEP 658 value for it (NULL: none). */
int wp_depmeta_get(const struct wp_depmeta_opts *o, const struct wp_candidate *c,
		   const char *core_metadata, struct wp_depmeta *m, struct wp_err *err);
void wp_depmeta_release(struct wp_depmeta *m);

/* Read, all at once, the PEP 658 or range metadata of those candidates the catalog has none for,
 * and keep what arrives in the catalog, so that the wp_depmeta_get calls that follow find it
 * there instead of making one round trip each. Best effort: a read that fails here is tried
 * again, and reported, by wp_depmeta_get. Returns how many were read. */
size_t wp_depmeta_prefetch(const struct wp_depmeta_opts *o, const struct wp_candidate *const *c,
			   const char *const *core_metadata, size_t n);

#endif
