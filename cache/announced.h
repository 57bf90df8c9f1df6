/* cache/announced.h: the sizes servers announced for files their index gives no size for (the
 * Content-Length of a HEAD, ops/wheel/pick.c wp_pick_probe_sizes), kept per file URL so that the
 * next plan of the same files shows its total without asking again: a text --dry-run on a
 * find-links page was a HEAD per file, and libcurl loaded for it, on every run.
 * Display only, as the HEAD's answer was: a download is held to the index's size alone. A table of
 * its own (announced_sizes), made on its first write, so that a catalog that never needed one, and
 * every refresh of it, pays nothing.
 * Ownership: the caller's arrays, filled in place. */
#ifndef WP_ANNOUNCED_H
#define WP_ANNOUNCED_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "cache/catalogdb.h"

/* sizes[k] = the size kept for urls[k], or left as it was when none is kept. */
int wp_catalog_announced_get(struct wp_catalog *cat, const char *const *urls, size_t n,
			     long long *sizes, struct wp_err *err);

/* Keep sizes[k] for urls[k] (those >= 0; the others are skipped), in one transaction. */
int wp_catalog_announced_put(struct wp_catalog *cat, const char *const *urls,
			     const long long *sizes, size_t n, struct wp_err *err);

/* A refresh of the page at source_id forgets what its files' servers announced: the page may now
 * list other bytes under a URL. Inside the refresh's transaction. */
int wp_catalog_announced_clear_source(struct wp_catalog *cat, int64_t source_id,
				      struct wp_err *err);

#endif
