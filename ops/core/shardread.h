/* ops/core/shardread.h: reading CEP 16 sharded repodata: a channel subdir's shard index, then only
 * the shards a closure of package names needs (the names asked for and, transitively, the names in
 * their records' depends), each checked against the index's sha256 and handed to the repodata
 * reader as the repodata.json text its records came from, so the catalog gets them exactly as
 * the repodata.json route puts them. Decoding is index/shardindex.c (pure), the crawl
 * ops/core/shardread.c.
 *
 * In the catalog, each shard read is a source of its own,
 * "<subdir>/repodata_shards.msgpack.zst#NAME" (kind "shard"; its content hash is the shard's sha256
 * from the index, so a shard the index still names is never fetched twice), and the index itself a
 * source with no files (kind "shard-index"), whose age says whether the index must be fetched
 * again. Ownership: a wp_shard_index and a wp_shard_crawl own every string in them (_release); the
 * catalog and the name lists are borrowed for the call. */
#ifndef WP_OPS_CORE_SHARDREAD_H
#define WP_OPS_CORE_SHARDREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "net/transfer.h"
#include "cache/catalog.h"
#include "index/shardindex.h"

/* One channel subdir in a sharded crawl. */
struct wp_shard_subdir {
	char *url;                /* CHANNEL/SUBDIR, no trailing '/' */
	char *index_url;          /* url + "/" WP_SHARD_INDEX_FILE */
	bool sharded;             /* it has an index (the probe says) */
	bool lost; /* it had one when last read, and now answers 404: read repodata.json */
	bool loaded;              /* ix holds it */
	struct wp_shard_index ix;
	int rc;                   /* 0, or this subdir's first failure */
	char *error;
	unsigned long long fetched, unchanged, records, malformed, conflicts;
};

struct wp_shard_crawl {
	struct wp_shard_subdir *v;
	size_t n, cap;
	const char *const *channels; /* base URLs whose records' depends grow the closure (borrowed)
				      */
	size_t nch;
	bool force;                   /* read every shard again, whatever its hash */
	long max_age_s; /* > 0: an index or shard read within this many seconds stands */
	const struct wp_net_conf *net; /* the run's network settings (borrowed); NULL: defaults */
	size_t names;                 /* names in the closure, when done */
};

/* A subdir to crawl, by its repodata.json URL (CHANNEL/SUBDIR/repodata.json) or CHANNEL/SUBDIR. */
void wp_shard_crawl_add(struct wp_shard_crawl *c, const char *url);
/* Which subdirs have an index: each fetched (in parallel), unless a read within max_age_s says
 * so already. One without (404, or no such file) is not sharded, and no failure: its
 * repodata.json is read instead. Another failure is that subdir's rc (and it is not sharded). */
void wp_shard_crawl_probe(struct wp_catalog *cat, struct wp_shard_crawl *c);
/* The closure of names over the sharded subdirs: each round fetches, in parallel, the shards of
 * the names new in it that are not fresh, stores each as a source (one transaction each), then
 * reads the depends of those names' records in the catalog (from c->channels) for the next round.
 * Returns 0, or the first failure (subdir rc and error are set too): -WPE_INTEGRITY for a shard
 * that fails its hash, -WPE_NET for a transfer. */
int wp_shard_crawl_run(struct wp_catalog *cat, struct wp_shard_crawl *c, const char *const *names,
		       size_t n, struct wp_err *err);
void wp_shard_crawl_release(struct wp_shard_crawl *c);

#endif
