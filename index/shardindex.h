/* index/shardindex.h: CEP 16 sharded repodata decoded: a subdir's shard index (zstd-compressed
 * MessagePack mapping each package name to its shard's sha256), and one shard, checked against
 * that sha256, as the repodata.json text its records came from. Pure: no network, no catalog.
 * Ownership: a wp_shard_index owns every string in it (_release); the bytes are borrowed. */
#ifndef WP_INDEX_SHARDINDEX_H
#define WP_INDEX_SHARDINDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
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
	unsigned long long malformed; /* entries skipped: a name no package has, a hash not 32 bytes
				       */
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

/* The URL of a shard: shards_base_url + hex + ".msgpack.zst" (a new string). */
char *wp_shard_url(const struct wp_shard_index *ix, const struct wp_shard_entry *e);

/* One shard's bytes, checked against e's sha256 (of the bytes as served, or decompressed: servers
 * differ), as the repodata.json text that holds its records, into json (reset first): its info
 * (subdir; base_url when packages are elsewhere than beside the index), then the shard's own
 * "packages" and "packages.conda". -WPE_INTEGRITY naming the shard and both hashes when neither
 * matches; -WPE_SOURCE, -WPE_PARSE or -WPE_TOO_BIG when it is not a shard. */
int wp_shard_to_repodata(const void *data, size_t len, const struct wp_shard_index *ix,
			 const struct wp_shard_entry *e, const char *what, struct wp_buf *json,
			 struct wp_err *err);

#endif
