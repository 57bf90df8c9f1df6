/* ops/shardread.h: reading CEP 16 sharded repodata: a channel subdir's shard index, then only the
 * shards a closure of package names needs (the names asked for and, transitively, the names in
 * their records' depends), each checked against the index's sha256 and handed to the repodata
 * reader as the repodata.json text its records came from, so the catalog gets them exactly as
 * the repodata.json route puts them. Decoding is ops/shardindex.c (pure), the crawl ops/shardread.c.
 *
 * In the catalog, each shard read is a source of its own, "<subdir>/repodata_shards.msgpack.zst#NAME"
 * (kind "shard"; its content hash is the shard's sha256 from the index, so a shard the index
 * still names is never fetched twice), and the index itself a source with no files (kind
 * "shard-index"), whose age says whether the index must be fetched again.
 * Ownership: a wp_shard_index and a wp_shard_crawl own every string in them (_release); the
 * catalog and the name lists are borrowed for the call. */
#ifndef WP_OPS_SHARDREAD_H
#define WP_OPS_SHARDREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "cache/catalog.h"
#include "verify/hash.h"

#define WP_SHARD_INDEX_FILE   "repodata_shards.msgpack.zst"
#define WP_SHARD_INDEX_MAX    ((size_t)64 << 20)  /* the index: compressed, and decompressed */
#define WP_SHARD_MAX          ((size_t)64 << 20)  /* one shard: compressed */
#define WP_SHARD_MAX_OUT      ((size_t)256 << 20) /* one shard: decompressed */
#define WP_SHARD_CLOSURE_MAX  20000               /* names in one closure */

struct wp_shard_entry {
	char *name;
	char sha256[WP_SHA256_HEX_LEN + 1];  /* lower-case hex of the index's bytes */
};

struct wp_shard_index {
	char *url;              /* where the index was read */
	char *base_url;         /* where packages are: info.base_url resolved (ends in '/') */
	char *shards_base_url;  /* where shards are: info.shards_base_url resolved (ends in '/') */
	char *subdir;           /* info.subdir, or NULL */
	struct wp_shard_entry *v;  /* sorted by name */
	size_t n;
	unsigned long long malformed;  /* entries skipped: a name no package has, a hash not 32 bytes */
};

/* The index's bytes (zstd-compressed MessagePack) read at url. Package and shard base URLs
 * resolve against url; one a page at url may not send us to (a local file from the network,
 * plain http from https) is refused. -WPE_SOURCE (naming url) when it is not an index,
 * -WPE_TOO_BIG past WP_SHARD_INDEX_MAX. */
int wp_shard_index_decode(const void *data, size_t len, const char *url, struct wp_shard_index *ix,
			  struct wp_err *err);
/* The entry for name, or NULL. */
const struct wp_shard_entry *wp_shard_index_find(const struct wp_shard_index *ix, const char *name);
void wp_shard_index_release(struct wp_shard_index *ix);

/* A name a conda package could have, safe after '#' in a source URL and in messages. */
bool wp_shard_name_ok(const char *name);
/* The sha256 of bytes in memory as hex ("" if libcrypto fails). */
void wp_shard_sha256(const void *data, size_t len, char hex[WP_SHA256_HEX_LEN + 1]);

/* The URL of a shard: shards_base_url + hex + ".msgpack.zst" (a new string). */
char *wp_shard_url(const struct wp_shard_index *ix, const struct wp_shard_entry *e);

/* One shard's bytes, checked against e's sha256 (of the bytes as served, or decompressed: servers
 * differ), as the repodata.json text that holds its records, into json (reset first): its info
 * (subdir; base_url when packages are elsewhere than beside the index), then the shard's own
 * "packages" and "packages.conda". -WPE_INTEGRITY naming the shard and both hashes when neither
 * matches; -WPE_SOURCE, -WPE_PARSE or -WPE_TOO_BIG when it is not a shard. */
int wp_shard_to_repodata(const void *data, size_t len, const struct wp_shard_index *ix,
			 const struct wp_shard_entry *e, const char *what, struct wp_buf *json, struct wp_err *err);

/* One channel subdir in a sharded crawl. */
struct wp_shard_subdir {
	char *url;                /* CHANNEL/SUBDIR, no trailing '/' */
	char *index_url;          /* url + "/" WP_SHARD_INDEX_FILE */
	bool sharded;             /* it has an index (the probe says) */
	bool lost;                /* it had one when last read, and now answers 404: read repodata.json */
	bool loaded;              /* ix holds it */
	struct wp_shard_index ix;
	int rc;                   /* 0, or this subdir's first failure */
	char *error;
	unsigned long long fetched, unchanged, records, malformed, conflicts;
};

struct wp_shard_crawl {
	struct wp_shard_subdir *v;
	size_t n, cap;
	const char *const *channels;  /* base URLs whose records' depends grow the closure (borrowed) */
	size_t nch;
	bool force;                   /* read every shard again, whatever its hash */
	long max_age_s;               /* > 0: an index or shard read within this many seconds stands */
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
int wp_shard_crawl_run(struct wp_catalog *cat, struct wp_shard_crawl *c, const char *const *names, size_t n,
		       struct wp_err *err);
void wp_shard_crawl_release(struct wp_shard_crawl *c);

#endif
