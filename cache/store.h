/* cache/store.h: the content-addressed file store: objects at ROOT/sha256/ab/cdef... by sha256.
 * Ownership: struct wp_store owns its root string (wp_store_release). A struct wp_store_writer
 * owns its temp file, hasher and strings from _begin until _finish or _abort, which release
 * everything; *out_path from _finish or _lookup is the caller's to free. */
#ifndef WP_STORE_H
#define WP_STORE_H

#include <stdbool.h>

#include "base/err.h"
#include "base/fs.h"
#include "verify/hash.h"

struct wp_store {
	char *root;             /* e.g. ~/.cache/wheelpick/files */
	bool reverify;          /* _lookup re-hashes the object before saying it exists */
	long long max_size;     /* ceiling for an object whose size nobody announced */
};

#define WP_STORE_DEFAULT_MAX_SIZE (32LL << 30) /* the largest torch wheels are ~3 GiB */

/* Creates ROOT/sha256 and ROOT/tmp when missing. */
int wp_store_init(struct wp_store *st, const char *root, struct wp_err *err);
void wp_store_release(struct wp_store *st);

/* Where the object for sha256 (64 hex digits, any case) lives, newly allocated; NULL when
 * sha256 is not a sha256. */
char *wp_store_path(const struct wp_store *st, const char *sha256);

/* 1 when the object is in the store (path_out, optional, gets its path), 0 when it is not.
 * With st->reverify a corrupt object is removed and -WPE_INTEGRITY returned. */
int wp_store_lookup(const struct wp_store *st, const char *sha256, char **path_out,
		    struct wp_err *err);

/* Remove temp files under ROOT/tmp older than max_age seconds: what crashed downloads left.
 * Younger ones may belong to a download running now in another process (a transfer writes, so
 * its file's mtime stays fresh; a stalled one is aborted after 30 s). Jobs sweep before they fetch. */
#define WP_STORE_TMP_MAX_AGE_S 3600
int wp_store_clean_tmp(const struct wp_store *st, long long max_age, struct wp_err *err);

/* A download sink: bytes stream into a temp file under ROOT/tmp and through sha256 at once. */
struct wp_store_writer {
	struct wp_store *store;
	char *name;              /* for messages: the file name the user knows */
	char expect[WP_SHA256_HEX_LEN + 1]; /* lowercase; "" when not known */
	long long expect_size;   /* -1 when not known */
	long long size;          /* bytes written so far */
	long long flushed;       /* bytes handed to writeback (sync_file_range) so far */
	struct wp_hasher hasher;
	struct wp_atomic_file file;
	struct wp_err err;       /* the first failure inside _write/_reset, reported by _finish */
};

/* expect_sha256 NULL or 64 hex digits; expect_size -1 when not known. */
int wp_store_writer_begin(struct wp_store_writer *w, struct wp_store *st, const char *expect_sha256,
			  long long expect_size, const char *name, struct wp_err *err);
/* The downloader's write callback (ctx is the writer): 0, or -WPE_* with the detail kept for
 * _finish. More bytes than expected stop the transfer at once. */
int wp_store_writer_write(void *ctx, const void *data, size_t n);
/* The downloader's reset callback: the transfer restarts at offset (0 = from scratch; > 0 = a
 * resume, which keeps the first offset bytes and re-hashes them from the temp file). */
int wp_store_writer_reset(void *ctx, long long offset);
/* Check size and sha256; on success the object is renamed into the store and out_sha256 /
 * out_path (both optional) say what and where. On any failure nothing is left behind. The
 * writer is released either way. */
int wp_store_writer_finish(struct wp_store_writer *w, char out_sha256[WP_SHA256_HEX_LEN + 1],
			   char **out_path, struct wp_err *err);
/* Drop a transfer that failed; the temp file goes. Harmless after _finish. */
void wp_store_writer_abort(struct wp_store_writer *w);

#endif
