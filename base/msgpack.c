/* base/msgpack.c: MessagePack through msgpack-c's packer into its growing buffer. */
#include "base/msgpack.h"
#include "base/str.h"
#include "base/mem.h"

#include <msgpack.h>
#include <stdbool.h>
#include <string.h>

struct wp_msgpack {
	msgpack_sbuffer buf;
	msgpack_packer pk;
};

struct wp_msgpack *wp_msgpack_new(void)
{
	struct wp_msgpack *m = wp_xcalloc(1, sizeof(*m));
	msgpack_sbuffer_init(&m->buf);
	msgpack_packer_init(&m->pk, &m->buf, msgpack_sbuffer_write);
	return m;
}

void wp_msgpack_free(struct wp_msgpack *m)
{
	if (!m)
		return;
	msgpack_sbuffer_destroy(&m->buf);
	free(m);
}

void wp_msgpack_map(struct wp_msgpack *m, size_t n)
{
	msgpack_pack_map(&m->pk, n);
}

void wp_msgpack_array(struct wp_msgpack *m, size_t n)
{
	msgpack_pack_array(&m->pk, n);
}

void wp_msgpack_str(struct wp_msgpack *m, const char *s)
{
	size_t n = strlen(s);
	msgpack_pack_str(&m->pk, n);
	msgpack_pack_str_body(&m->pk, s, n);
}

void wp_msgpack_int(struct wp_msgpack *m, long long v)
{
	msgpack_pack_int64(&m->pk, v);
}

void wp_msgpack_bin(struct wp_msgpack *m, const void *p, size_t n)
{
	msgpack_pack_bin(&m->pk, n);
	msgpack_pack_bin_body(&m->pk, p, n);
}

/* Hex of an even length, lower or upper case, decoded into out (n/2 bytes); false otherwise. */
static bool unhex(const char *s, unsigned char *out, size_t cap, size_t *n)
{
	size_t len = strlen(s);
	if (!len || len % 2 || len / 2 > cap)
		return false;
	for (size_t i = 0; i < len; i += 2) {
		int hi = wp_hexval(s[i]), lo = wp_hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	*n = len / 2;
	return true;
}

void wp_msgpack_json(struct wp_msgpack *m, const struct wp_json_val *v, const char *key)
{
	long long iv;
	double dv;
	bool bv;
	switch (wp_json_type(v)) {
	case WP_JSON_OBJECT: {
		size_t n = wp_json_len(v);
		msgpack_pack_map(&m->pk, n);
		for (size_t i = 0; i < n; i++) {
			const char *k = wp_json_key_at(v, i);
			wp_msgpack_str(m, k);
			wp_msgpack_json(m, wp_json_at(v, i), k);
		}
		break;
	}
	case WP_JSON_ARRAY: {
		size_t n = wp_json_len(v);
		msgpack_pack_array(&m->pk, n);
		for (size_t i = 0; i < n; i++)
			wp_msgpack_json(m, wp_json_at(v, i), NULL);
		break;
	}
	case WP_JSON_STRING: {
		const char *s = wp_json_as_str(v);
		unsigned char raw[64];
		size_t n;
		if (key && (!strcmp(key, "sha256") || !strcmp(key, "md5")) && unhex(s, raw, sizeof(raw), &n)) {
			msgpack_pack_bin(&m->pk, n);
			msgpack_pack_bin_body(&m->pk, raw, n);
		} else {
			wp_msgpack_str(m, s);
		}
		break;
	}
	case WP_JSON_NUMBER:
		if (wp_json_as_int(v, &iv))
			msgpack_pack_int64(&m->pk, iv);
		else if (wp_json_as_double(v, &dv))
			msgpack_pack_double(&m->pk, dv);
		else
			msgpack_pack_nil(&m->pk);
		break;
	case WP_JSON_BOOL:
		wp_json_as_bool(v, &bv);
		if (bv)
			msgpack_pack_true(&m->pk);
		else
			msgpack_pack_false(&m->pk);
		break;
	default:
		msgpack_pack_nil(&m->pk);
		break;
	}
}

const void *wp_msgpack_data(const struct wp_msgpack *m, size_t *len)
{
	*len = m->buf.size;
	return m->buf.data;
}
