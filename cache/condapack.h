/* cache/condapack.h: the catalog's packed form of conda records and of their first-seen hashes.
 *
 * A conda channel lists hundreds of thousands of files; one SQLite row (and three B-tree keys)
 * per file made a 300,000-record repodata take 9 s to store. The catalog instead keeps one blob
 * per run of records of one package (a "chunk"), and one blob per package of the sha256 first seen
 * for each of its files. This file is the encoding only: varints and length-prefixed strings,
 * every read bounds-checked, so a damaged blob is reported and never read past.
 *
 * Ownership: writers append to a wp_buf the caller owns. Readers hand out pointers into the blob
 * they were given (strings are stored NUL-terminated for that), plus, for a record's URL, into the
 * reader's own scratch buffer: valid until the next read or wp_condapack_reader_release. */
#ifndef WP_CONDAPACK_H
#define WP_CONDAPACK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "cache/catalogdb.h"

/* Low-level fields. A string is (length + 1) as a varint, its bytes and a NUL; 0 stands for NULL.
 * Integers are zigzag varints, so -1 ("unknown") takes one byte. */
void wp_pack_put_uint(struct wp_buf *b, unsigned long long v);
void wp_pack_put_int(struct wp_buf *b, long long v);
void wp_pack_put_str(struct wp_buf *b, const char *s);

struct wp_pack_in {
	const unsigned char *p, *end;
	bool bad; /* set by the first read that would pass end or finds a malformed field */
};

unsigned long long wp_pack_get_uint(struct wp_pack_in *in);
long long wp_pack_get_int(struct wp_pack_in *in);
/* A pointer into the blob (NUL-terminated, len bytes), or NULL for a stored NULL or on error. */
const char *wp_pack_get_str(struct wp_pack_in *in, size_t *len);

/* The length of url's folder: everything before its last '/' (0 when it has none). Chunks
 * elide URLs and first-seen lists are keyed by this folder. */
size_t wp_condapack_folder_len(const char *url);

/* Conda records of one chunk. Every wp_file_row field is kept except id, source_id, project, kind
 * and source_url, which the chunk's row holds. A URL of the form <previous record's folder>/<file
 * name> is not stored again (nearly all are). The writer carries that folder between records. */
struct wp_condapack_writer {
	struct wp_buf *out;
	struct wp_buf dir; /* folder of the last stored URL */
	bool keep_urls;    /* store every URL whole, so that every field decodes in place */
};

/* A blob is a version byte (wp_condapack_begin) and rows. Staging buffers, which are never stored,
 * hold rows alone. */
void wp_condapack_begin(struct wp_buf *out);
void wp_condapack_writer_init(struct wp_condapack_writer *w, struct wp_buf *out);
void wp_condapack_put_row(struct wp_condapack_writer *w, const struct wp_file_row *f);
void wp_condapack_writer_release(struct wp_condapack_writer *w);

struct wp_condapack_reader {
	struct wp_pack_in in;
	const char *dir;   /* folder of the last stored URL (into the blob) */
	size_t dir_len;
	struct wp_buf url; /* scratch: the URL handed out for the current row */
};

/* Over a whole blob (version byte first), or over rows from p, as a staging buffer holds them
 * (r zeroed, or initialised before: its scratch buffer is kept). */
void wp_condapack_reader_init(struct wp_condapack_reader *r, const void *blob, size_t len);
void wp_condapack_reader_at(struct wp_condapack_reader *r, const void *p, const void *end);
/* 1 and *f filled (project, kind, ids and source_url left as they were), 0 at the end, -1 when
 * the blob is damaged. f->url points into the blob, or into r->url when it was rebuilt. */
int wp_condapack_get_row(struct wp_condapack_reader *r, struct wp_file_row *f);
void wp_condapack_reader_release(struct wp_condapack_reader *r);

/* First-seen hashes of one package's files under one folder: entries sorted by file name (the
 * URL's last segment), each with its sha256 and the unix time it was first seen. */
struct wp_seen_entry {
	const char *leaf; /* borrowed: from the decoded blob or from the caller */
	size_t leaf_len;
	const char *sha256;
	long long first_seen;
};

struct wp_seen_list {
	struct wp_seen_entry *v;
	size_t n, cap;
};

/* Decode (replacing what l held); entries borrow from blob. 0, or -1 when the blob is damaged or
 * not sorted. */
int wp_seen_decode(struct wp_seen_list *l, const void *blob, size_t len);
/* The entry for leaf, or NULL. */
const struct wp_seen_entry *wp_seen_find(const struct wp_seen_list *l, const char *leaf,
					 size_t leaf_len);
/* Merge added (borrowed; sorted by name, none equal to each other or to an entry of l) into l. */
void wp_seen_merge(struct wp_seen_list *l, struct wp_seen_entry *added, size_t n_added);
void wp_seen_encode(const struct wp_seen_list *l, struct wp_buf *out);
void wp_seen_release(struct wp_seen_list *l);

#endif
