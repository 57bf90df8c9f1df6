/* base/msgpack.h: JSON values written as MessagePack (msgpack-c), for CEP 16's sharded repodata:
 * objects become maps, arrays arrays, integers integers, and a "sha256" or "md5" member holding
 * hex becomes bytes (bin), as the CEP asks. A wp_msgpack owns its buffer (wp_msgpack_free). */
#ifndef WP_BASE_MSGPACK_H
#define WP_BASE_MSGPACK_H

#include <stddef.h>

#include "base/json.h"

struct wp_msgpack;

struct wp_msgpack *wp_msgpack_new(void);
void wp_msgpack_free(struct wp_msgpack *m);

void wp_msgpack_map(struct wp_msgpack *m, size_t n);    /* then n keys, each with its value */
void wp_msgpack_array(struct wp_msgpack *m, size_t n);  /* then n values */
void wp_msgpack_str(struct wp_msgpack *m, const char *s);
void wp_msgpack_int(struct wp_msgpack *m, long long v);
void wp_msgpack_bin(struct wp_msgpack *m, const void *p, size_t n);
/* A JSON value below the map key it goes under (NULL at the top): hex under "sha256"/"md5" as bytes. */
void wp_msgpack_json(struct wp_msgpack *m, const struct wp_json_val *v, const char *key);

/* The bytes written so far (owned by m). */
const void *wp_msgpack_data(const struct wp_msgpack *m, size_t *len);

#endif
