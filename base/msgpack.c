/* base/msgpack.c: MessagePack through msgpack-c's packer into its growing buffer. */
#include "base/msgpack.h"
#include "base/str.h"
#include "base/mem.h"

#include <math.h>
#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>
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
		if (key && (!strcmp(key, "sha256") || !strcmp(key, "md5")) &&
		    unhex(s, raw, sizeof(raw), &n)) {
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

/* ---- reading ---- */

/* A big-endian unsigned integer of n bytes at p. */
static uint64_t be(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* One value at *pos, checked without allocating: every length and count it claims must fit in
 * the bytes that remain (each element takes at least one), so the unpacker that runs after
 * never sizes an allocation by a number the input made up. NULL, or why not. */
static const char *scan(const unsigned char *p, size_t len, size_t *pos, int depth, bool key)
{
	if (*pos >= len)
		return "ends in the middle of a value";
	unsigned char t = p[(*pos)++];
	size_t left = len - *pos, w = 0; /* width of the length field */
	uint64_t n = 0;
	bool str = false, bin = false;
	int container = 0; /* 1 array, 2 map */
	if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3)
		return key ? "has a map key that is not a string" : NULL;
	if (t >= 0xa0 && t <= 0xbf) {
		n = t & 0x1f;
		str = true;
	} else if (t >= 0x80 && t <= 0x8f) {
		n = t & 0x0f;
		container = 2;
	} else if (t >= 0x90 && t <= 0x9f) {
		n = t & 0x0f;
		container = 1;
	} else {
		switch (t) {
		case 0xc4: case 0xc5: case 0xc6: w = (size_t)1 << (t - 0xc4); bin = true; break;
		case 0xd9: case 0xda: case 0xdb: w = (size_t)1 << (t - 0xd9); str = true; break;
		case 0xdc: case 0xdd: w = t == 0xdc ? 2 : 4; container = 1; break;
		case 0xde: case 0xdf: w = t == 0xde ? 2 : 4; container = 2; break;
		case 0xca: case 0xcb: case 0xcc: case 0xcd: case 0xce: case 0xcf:
		case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
			static const unsigned char size[] = { 4, 8, 1, 2, 4, 8, 1, 2, 4, 8 };
			size_t sz = size[t - 0xca];
			if (key)
				return "has a map key that is not a string";
			if (left < sz)
				return "ends in the middle of a number";
			*pos += sz;
			return NULL;
		}
		case 0xc1:
			return "holds the reserved byte 0xc1";
		default: /* 0xc7-0xc9, 0xd4-0xd8 */
			return "holds an extension value, which CEP 16 does not use";
		}
		if (left < w)
			return "ends in the middle of a length";
		n = be(p + *pos, w);
		*pos += w;
		left -= w;
	}
	if (key && !str)
		return "has a map key that is not a string";
	if (str || bin) {
		if (n > left)
			return str ? "has a string longer than what follows" :
				     "has bytes longer than what follows";
		*pos += (size_t)n;
		return NULL;
	}
	/* a container: n elements (2n for a map), each at least one byte */
	if (depth > WP_MSGPACK_MAX_DEPTH)
		return "nests deeper than 16 levels";
	if (n > left || (container == 2 && n > left / 2))
		return "claims more elements than bytes follow";
	for (uint64_t i = 0; i < n; i++) {
		const char *why;
		if (container == 2 && (why = scan(p, len, pos, depth + 1, true)))
			return why;
		if ((why = scan(p, len, pos, depth + 1, false)))
			return why;
	}
	return NULL;
}

/* Well-formed UTF-8: no overlong forms, surrogates or code points past U+10FFFF. */
static bool utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t k;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			k = 1, cp = c & 0x1f, min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2, cp = c & 0x0f, min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

static int json_str(struct wp_buf *out, const char *s, size_t n)
{
	int bad = wp_buf_addch(out, '"');
	for (size_t i = 0; i < n && !bad; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			bad = wp_buf_addch(out, '\\') || wp_buf_addch(out, (char)c);
		else if (c < 0x20)
			bad = wp_buf_printf(out, "\\u%04x", c) < 0;
		else
			bad = wp_buf_addch(out, (char)c);
	}
	return bad || wp_buf_addch(out, '"') ? -1 : 0;
}

/* The unpacked value as JSON into out: -1 past out's ceiling, -2 for a string that is not UTF-8. */
static int emit(const msgpack_object *o, struct wp_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		return wp_buf_addstr(out, "null");
	case MSGPACK_OBJECT_BOOLEAN:
		return wp_buf_addstr(out, o->via.boolean ? "true" : "false");
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		return wp_buf_printf(out, "%llu", (unsigned long long)o->via.u64) < 0 ? -1 : 0;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return wp_buf_printf(out, "%lld", (long long)o->via.i64) < 0 ? -1 : 0;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		if (!isfinite(o->via.f64))
			return wp_buf_addstr(out, "null");
		return wp_buf_printf(out, "%.17g", o->via.f64) < 0 ? -1 : 0;
	case MSGPACK_OBJECT_STR:
		if (!utf8_ok((const unsigned char *)o->via.str.ptr, o->via.str.size))
			return -2;
		return json_str(out, o->via.str.ptr, o->via.str.size);
	case MSGPACK_OBJECT_BIN: {
		int bad = wp_buf_addch(out, '"');
		for (uint32_t i = 0; i < o->via.bin.size && !bad; i++) {
			unsigned char c = (unsigned char)o->via.bin.ptr[i];
			char two[2] = { hex[c >> 4], hex[c & 15] };
			bad = wp_buf_add(out, two, 2);
		}
		return bad || wp_buf_addch(out, '"') ? -1 : 0;
	}
	case MSGPACK_OBJECT_ARRAY: {
		int rc = wp_buf_addch(out, '[');
		for (uint32_t i = 0; i < o->via.array.size && !rc; i++) {
			if (i)
				rc = wp_buf_addch(out, ',');
			if (!rc)
				rc = emit(&o->via.array.ptr[i], out);
		}
		return rc ? rc : wp_buf_addch(out, ']');
	}
	case MSGPACK_OBJECT_MAP: {
		int rc = wp_buf_addch(out, '{');
		for (uint32_t i = 0; i < o->via.map.size && !rc; i++) {
			if (i)
				rc = wp_buf_addch(out, ',');
			if (!rc)
				rc = emit(&o->via.map.ptr[i].key, out);
			if (!rc)
				rc = wp_buf_addch(out, ':');
			if (!rc)
				rc = emit(&o->via.map.ptr[i].val, out);
		}
		return rc ? rc : wp_buf_addch(out, '}');
	}
	default: /* ext: the scan refused it already */
		return -2;
	}
}

int wp_msgpack_to_json(const void *data, size_t len, const char *what, struct wp_buf *out,
		       struct wp_err *err)
{
	const unsigned char *p = data;
	size_t pos = 0;
	const char *why = len ? scan(p, len, &pos, 1, false) : "is empty";
	if (!why && pos != len)
		why = "has bytes after its value";
	if (why)
		return wp_fail(err, -WPE_PARSE, "'%s' is not MessagePack: it %s", what, why);
	msgpack_unpacked u;
	size_t off = 0;
	int rc = 0;
	msgpack_unpacked_init(&u);
	if (msgpack_unpack_next(&u, data, len, &off) != MSGPACK_UNPACK_SUCCESS || off != len) {
		rc = wp_fail(err, -WPE_PARSE, "'%s' is not MessagePack: msgpack-c cannot read it",
			     what);
	} else {
		int e = emit(&u.data, out);
		if (e == -2)
			rc = wp_fail(err, -WPE_PARSE,
				     "'%s' is not MessagePack as CEP 16 writes it: a string is not UTF-8",
				     what);
		else if (e)
			rc = wp_fail(err, -WPE_TOO_BIG, "'%s' is larger than %zu bytes as JSON",
				     what, out->max);
	}
	msgpack_unpacked_destroy(&u);
	return rc;
}
