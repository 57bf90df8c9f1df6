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

struct wp_catalog;

struct wp_store {
	char *root;             /* e.g. ~/.cache/wheelpick/files */
	bool reverify; /* _lookup re-hashes an object whose size, mtime or inode moved since it
			  was proven (on by default: a wheelhouse file is a hard link to its
			  object, so an edit there changes the object). Proof stamps are
			  each object's user.wheelpick.proven attribute, else files in
			  ROOT/proven/; an unchanged object costs a stat, not a hash */
	bool stamp_files;       /* stamps as files only, never attributes (tests: a file system
	                           without user attributes) */
	long long max_size;     /* ceiling for an object whose size nobody announced */
	struct wp_catalog *catalog; /* borrowed, optional: the catalog fetched files are held to
				   (their first-seen hashes, and what its metadata says a wheel
				   needs; see ops/core/fetch.h). NULL: no such check */
	char (*proven)[WP_SHA256_HEX_LEN + 1]; /* objects re-hashed or written by this process: */
	size_t n_proven, cap_proven;            /* not re-hashed again (main thread only) */
	bool dirty[256], dirty_tmp; /* directories a commit renamed in, not yet synced */
	bool dirty_objects; /* ROOT/sha256 gained a fan-out folder, not yet synced */
	long long resume_min; /* a file announced smaller starts over, never resumes,
				 and keeps no validator (WP_STORE_RESUME_MIN) */
	bool partial_made; /* ROOT/partial made (or found) once: not per file */
	bool fanout_read, fanout[256];          /* ROOT/sha256 listed once: its fan-out folders
	                                           found or made since (main thread only) */
	/* What the store asked of the file system, for tests that hold a batch to its cost per file
	 * (counted with atomics: file syncs may run on several threads) */
	struct wp_store_counts {
		unsigned long file_syncs, dir_syncs, dirs_made;
	} counts;
};

#define WP_STORE_RESUME_MIN (1LL << 20) /* a re-download costs less than a validator file's */
#define WP_STORE_DEFAULT_MAX_SIZE (32LL << 30) /* the largest torch wheels are ~3 GiB */

/* Creates ROOT/sha256 and ROOT/tmp when missing. reverify is on. */
int wp_store_init(struct wp_store *st, const char *root, struct wp_err *err);
void wp_store_release(struct wp_store *st);

/* Where the object for sha256 (64 hex digits, any case) lives, newly allocated; NULL when
 * sha256 is not a sha256. */
char *wp_store_path(const struct wp_store *st, const char *sha256);

/* 1 when the object is in the store (path_out, optional, gets its path), 0 when it is not.
 * With st->reverify (the default) an object changed since it was proven (its stamp does not
 * match; no stamp counts as changed) is re-hashed, and one whose bytes changed is removed and
 * -WPE_INTEGRITY returned: the next fetch brings it anew. */
int wp_store_lookup(struct wp_store *st, const char *sha256, char **path_out,
		    struct wp_err *err);

/* Remove what crashed downloads left under ROOT/tmp: a temp file whose writer is gone (each
 * writer holds a lock on its file while it lives; a killed process holds none) at once; where
 * locks cannot tell (a file system without them), one older than max_age seconds. A download
 * running now in another process keeps its file, however long it stalls. Jobs sweep before they
 * fetch; temp names are unique (never a PID alone), so nothing a dead process left is ever taken
 * up by a later one. */
#define WP_STORE_TMP_MAX_AGE_S 3600
int wp_store_clean_tmp(const struct wp_store *st, long long max_age, struct wp_err *err);

/* Partial downloads kept across runs: ROOT/partial/<sha256>, the first bytes of the file whose
 * sha256 the index gives (that hash is their validator: a file that changed has another, and a
 * resume that ends with other bytes fails the check and starts over). A writer for a known sha256
 * writes there, so what an interrupted or failed run received stays for the next. Those nobody
 * touched for a week go (wp_store_clean_tmp sweeps them too, unless a live writer holds one).
 * Beside each, ROOT/partial/<name>.v holds the validator its bytes came under (a strong ETag or a
 * Last-Modified date, one line), written before any of those bytes (so a kill leaves it right),
 * for the next run's If-Range. A file the index gives no sha256 for is kept as
 * ROOT/partial/<sha256 of "url:" and its URL>, and resumed only under a strong ETag: without a
 * hash to check, nothing weaker may join two answers' bytes. */
#define WP_STORE_PARTIAL_MAX_AGE_S (7LL * 24 * 3600)
/* The folder of partial downloads, newly allocated. */
char *wp_store_partial_dir(const struct wp_store *st);

/* A download sink: bytes stream into a temp file under ROOT/tmp and through sha256 at once. */
struct wp_store_writer {
	struct wp_store *store;
	char *name;              /* for messages: the file name the user knows */
	char expect[WP_SHA256_HEX_LEN + 1]; /* lowercase; "" when not known */
	long long expect_size;   /* -1 when not known */
	long long size;          /* bytes written so far */
	long long flushed;       /* bytes handed to writeback (sync_file_range) so far */
	long long written;       /* bytes in the file (the rest of size waits in block) */
	struct wp_hasher hasher;
	struct wp_atomic_file file;
	struct wp_err err;       /* the first failure inside _write/_reset, reported by _finish */
	/* Bytes gather here and go to the file, the hash and the tap WP_STORE_BLOCK at a time:
	 * libcurl hands them over 16 KiB at a time, and 3,000 write()s per 50 MB cost more than
	 * the copy. Allocated on the first small write; owned by the writer. */
	unsigned char *block;
	size_t block_len;
	/* Optional, set by the caller after _begin: every byte of the file, in order, as it goes
	 * to the file (a wheel's members hashed while they arrive); tap_reset when the file starts
	 * over at byte 0 (what is kept is then tapped again). The caller owns tap_ctx. */
	bool sealed;             /* _seal proved it: got is its sha256 */
	bool synced;             /* _sync made its data durable: _commit need not */
	bool stamped;            /* _seal set its proof stamp (an attribute): _commit need not */
	bool one_name; /* _seal saw the file with one link: _commit's rename leaves no other */
	bool validator_lazy; /* validator not written beside the partial yet (a small file): _keep
				writes it, _commit and _abort have none to remove */
	char got[WP_SHA256_HEX_LEN + 1];
	void (*tap)(void *tap_ctx, const void *p, size_t n);
	void (*tap_reset)(void *tap_ctx);
	void *tap_ctx;
	/* The caller may also set tap_thread: past the first 8 MiB the tap then runs on a thread of
	 * its own, a few blocks behind the writer (tap and tap_reset must then be safe to call from
	 * another thread than _write's, one call at a time). _seal and _abort end it; _reset waits
	 * for it. The writer owns the thread (tq). */
	bool tap_thread;
	struct wp_store_tapq *tq;
	/* The caller may also set tap_defer: the tap then starts only once the file reaches that
	 * many bytes (what came before read back from the file), and a file that ends smaller is
	 * tapped whole by _seal, on the thread that seals it: a small file's second hash then runs
	 * beside the transfers, not in their thread. 0: the tap takes every byte as it comes. */
	long long tap_defer;
	bool tap_live;           /* the tap has taken every byte written so far */
	/* The caller may also set tap_sha256: the tap takes the file's sha256 itself, from the
	 * bytes it is given (every byte from 0, in order: the tap's contract), and the writer
	 * hashes none of them: a wheel's stored members then cost one pass for both digests
	 * (verify/wheelstream.c). _seal asks it once every byte was tapped; a digest it cannot
	 * give, or one that covers another number of bytes than the file holds, is not used: _seal
	 * then hashes the file from disk. */
	int (*tap_sha256)(void *tap_ctx, unsigned char out[32], long long *len);
	long long kept; /* bytes an earlier run left in this download's partial file: the
			   caller re-reads them (wp_store_writer_reset(w, kept), once its tap
			   is set) and asks the server for the rest */
	bool partial; /* the file is ROOT/partial/<sha256>: _keep leaves it for a later run */
	bool by_url; /* that partial is keyed by URL (no sha256 known): strong ETags only */
	char *vpath;             /* with partial: its validator's file, ROOT/partial/<name>.v */
	char *validator; /* what the kept bytes came under (read at _begin; NULL: none), then
			    what _set_validator said; send it as If-Range when resuming */
};

#define WP_STORE_BLOCK (1u << 20)

/* expect_sha256 NULL or 64 hex digits; expect_size -1 when not known. */
int wp_store_writer_begin(struct wp_store_writer *w, struct wp_store *st, const char *expect_sha256,
			  long long expect_size, const char *name, struct wp_err *err);
/* As _begin; with no expect_sha256, a url (http:// or https://) gives the download a partial file
 * keyed by it, resumed by a later run only under the strong ETag its bytes came under. */
int wp_store_writer_begin_url(struct wp_store_writer *w, struct wp_store *st,
			      const char *expect_sha256, long long expect_size, const char *name,
			      const char *url, struct wp_err *err);
/* The downloader's validator callback (ctx is the writer): the bytes from offset 0 on come under
 * validator (NULL: none) from now. Written beside a partial file at once, before those bytes;
 * without a partial file it is only remembered. A file whose announced total is under
 * st->resume_min keeps none (it is not resumed). */
void wp_store_writer_set_validator(void *ctx, const char *validator, long long total);
/* The downloader's write callback (ctx is the writer): 0, or -WPE_* with the detail kept for
 * _finish. More bytes than expected stop the transfer at once. */
int wp_store_writer_write(void *ctx, const void *data, size_t n);
/* The downloader's reset callback: the transfer restarts at offset (0 = from scratch; > 0 = a
 * resume, which keeps the first offset bytes and re-hashes them from the temp file). */
int wp_store_writer_reset(void *ctx, long long offset);
/* Check size and sha256; on success the object is made read-only (0444) and renamed into the
 * store, and out_sha256 / out_path (both optional) say what and where. On any failure nothing is
 * left behind. The writer is released either way. */
int wp_store_writer_finish(struct wp_store_writer *w, char out_sha256[WP_SHA256_HEX_LEN + 1],
			   char **out_path, struct wp_err *err);
/* _finish in steps, so that a batch of downloads costs one sync, not three per file:
 * _seal checks size and sha256 and makes the temp file (still at w->file.tmp, nothing in the
 * store yet) read-only, and may run on any thread; on failure the caller aborts the writer.
 * _sync makes the sealed data durable now (on the thread that sealed it, so that a batch's syncs
 * overlap each other and the transfers still running); _start_sync only starts writing it
 * back. _commit syncs the data unless _sync did, renames it into the
 * store (its directory is left to sync) and releases the writer either way; *out_path (optional)
 * is the object's path. _sync_dirs syncs every directory a commit renamed into; nothing
 * committed is durable before it. _commit and _sync_dirs run on the thread that owns st. */
int wp_store_writer_seal(struct wp_store_writer *w, char out_sha256[WP_SHA256_HEX_LEN + 1],
			 struct wp_err *err);
int wp_store_writer_sync(struct wp_store_writer *w, struct wp_err *err);
void wp_store_writer_start_sync(struct wp_store_writer *w);
int wp_store_writer_commit(struct wp_store_writer *w, char **out_path, struct wp_err *err);
int wp_store_sync_dirs(struct wp_store *st, struct wp_err *err);

/* This process proved the object with that sha256 (wrote it, or re-hashed it): _lookup takes it
 * without re-hashing it again. Main thread only. */
void wp_store_mark_proven(struct wp_store *st, const char *sha256);

/* Drop a transfer that failed; the temp file goes. Harmless after _finish. */
void wp_store_writer_abort(struct wp_store_writer *w);
/* Drop a transfer that failed for a reason that is not its bytes (the network, an interrupt):
 * a partial file stays for the next run to resume (returns the bytes kept); any other is
 * aborted (0). */
long long wp_store_writer_keep(struct wp_store_writer *w);

#endif
