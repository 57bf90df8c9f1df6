/* cache/sourcekind.h: what a source is (an index root, a project page in HTML or JSON, a find-links
 * page, conda repodata, a shard), as one enum: decided once, where the source is read
 * (ops/core/crawl.c, ops/core/shardread.c), stored in the catalog's sources.kind under its name,
 * and read back as the enum (struct wp_source_row.type). Pure; the names are static strings. */
#ifndef WP_SOURCEKIND_H
#define WP_SOURCEKIND_H

#include <stdbool.h>

enum wp_source_kind {
	WP_SOURCE_UNKNOWN = 0,  /* no kind, or one this wheelpick does not know (a newer one's) */
	WP_SOURCE_FINDLINKS,    /* "findlinks": a find-links HTML page, or a local folder */
	WP_SOURCE_SIMPLE,       /* "simple": a PEP 503 project page (HTML) */
	WP_SOURCE_SIMPLE_JSON,  /* "simple-json": a PEP 691 project page */
	WP_SOURCE_ROOT,         /* "root": an index root (kept for its validators; no files) */
	WP_SOURCE_REPODATA,     /* "repodata": a conda subdir's repodata.json (.zst, .bz2) */
	WP_SOURCE_SHARD_INDEX,  /* "shard-index": a CEP 16 sharded repodata index */
	WP_SOURCE_SHARD,        /* "shard": one package name's CEP 16 shard */
};

/* The name the catalog stores ("simple-json"); "" for WP_SOURCE_UNKNOWN. */
const char *wp_source_kind_name(enum wp_source_kind k);
/* The kind a stored name means; WP_SOURCE_UNKNOWN for NULL or a name not listed above. */
enum wp_source_kind wp_source_kind_of(const char *name);
/* A project page with files of its own, which a root's earlier read may have listed: findlinks,
 * simple or simple-json. */
static inline bool wp_source_kind_is_page(enum wp_source_kind k)
{
	return k == WP_SOURCE_FINDLINKS || k == WP_SOURCE_SIMPLE || k == WP_SOURCE_SIMPLE_JSON;
}

#endif
