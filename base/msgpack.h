/* base/msgpack.h: JSON values written as MessagePack (msgpack-c), for CEP 16's sharded repodata:
 * objects become maps, arrays arrays, integers integers, and a "sha256" or "md5" member holding
 * hex becomes bytes (bin), as the CEP asks; and MessagePack read back as JSON text.
 * A wp_msgpack owns its buffer (wp_msgpack_free); the reader borrows its input and appends to
 * the caller's buffer. */
#ifndef WP_BASE_MSGPACK_H
#define WP_BASE_MSGPACK_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"

struct wp_msgpack;

struct wp_msgpack *wp_msgpack_new(void);
void wp_msgpack_free(struct wp_msgpack *m);

void wp_msgpack_map(struct wp_msgpack *m, size_t n);    /* then n keys, each with its value */
void wp_msgpack_array(struct wp_msgpack *m, size_t n);  /* then n values */
void wp_msgpack_str(struct wp_msgpack *m, const char *s);
void wp_msgpack_int(struct wp_msgpack *m, long long v);
void wp_msgpack_bin(struct wp_msgpack *m, const void *p, size_t n);
/* A JSON value below the map key it goes under (NULL at the top): hex under "sha256"/"md5" as
 * bytes. */
void wp_msgpack_json(struct wp_msgpack *m, const struct wp_json_val *v, const char *key);

/* The bytes written so far (owned by m). */
const void *wp_msgpack_data(const struct wp_msgpack *m, size_t *len);

/* ---- reading ---- */

/* Nesting deeper than this is refused (CEP 16 needs 4: shard, section, record, depends). */
#define WP_MSGPACK_MAX_DEPTH 16

/* One MessagePack document (len bytes, nothing after it) appended to out as compact JSON: maps
 * become objects (keys must be strings), arrays arrays, bin lower-case hex strings (how CEP 16's
 * hashes read in repodata.json), integers, floats (NaN and infinities as null), booleans and nil
 * as such. The input is checked whole before msgpack-c's unpacker sees it, so a count it claims
 * can never exceed the bytes that follow (no allocation larger than the input warrants).
 * -WPE_PARSE naming what: truncated or trailing bytes, a reserved byte, an ext value, a key
 * that is no string, a string that is not UTF-8, nesting past WP_MSGPACK_MAX_DEPTH;
 * -WPE_TOO_BIG past out's ceiling (out then holds part of the text). */
int wp_msgpack_to_json(const void *data, size_t len, const char *what, struct wp_buf *out,
		       struct wp_err *err);

#endif
