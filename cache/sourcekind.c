/* cache/sourcekind.c: source kinds to and from the names the catalog stores. */
#include "cache/sourcekind.h"

#include <stddef.h>
#include <string.h>

static const char *const names[] = {
	[WP_SOURCE_UNKNOWN] = "",
	[WP_SOURCE_FINDLINKS] = "findlinks",
	[WP_SOURCE_SIMPLE] = "simple",
	[WP_SOURCE_SIMPLE_JSON] = "simple-json",
	[WP_SOURCE_ROOT] = "root",
	[WP_SOURCE_REPODATA] = "repodata",
	[WP_SOURCE_SHARD_INDEX] = "shard-index",
	[WP_SOURCE_SHARD] = "shard",
};

const char *wp_source_kind_name(enum wp_source_kind k)
{
	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "";
}

enum wp_source_kind wp_source_kind_of(const char *name)
{
	for (size_t k = 1; name && k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(name, names[k]))
			return (enum wp_source_kind)k;
	return WP_SOURCE_UNKNOWN;
}
