/* cache/names.h: the distinct project names the catalog holds, for "did you mean" and shell
 * completion. Reads through the catalog's open connection (cache/catalog.h).
 * Ownership: a wp_names owns its strings (wp_names_release). */
#ifndef WP_NAMES_H
#define WP_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "cache/catalog.h"

struct wp_names {
	char **v;      /* PEP 503 names (conda: package names), sorted, each once */
	size_t n, cap;
};

/* Every project with a wheel or sdist row (conda: a conda record), at most max names (0: no
 * limit). -WPE_CATALOG when the catalog cannot be read. */
int wp_catalog_project_names(struct wp_catalog *cat, bool conda, size_t max, struct wp_names *out,
			     struct wp_err *err);
/* Whether the catalog holds a project of that (normalised) name. */
int wp_catalog_has_project(struct wp_catalog *cat, const char *project, bool conda, bool *has,
			   struct wp_err *err);
void wp_names_release(struct wp_names *n);

#endif
