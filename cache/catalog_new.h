/* cache/catalog_new.h: make a missing catalog file whole (schema at `version`, WAL mode) in two
 * syncs, before SQLite opens it. */
#ifndef WP_CATALOG_NEW_H
#define WP_CATALOG_NEW_H

#include <stdbool.h>

/* true when path now names a catalog file (made here, or by another process at the same moment);
 * false when path already existed or this way is not possible here (the caller then lets SQLite
 * create it). Its folder must exist. Never fails the caller's job. *made_here (may be NULL): this
 * call made it, from schema.sql, so its shape is schema.sql's. */
bool wp_catalog_create_new(const char *path, int version, bool *made_here);

#endif
