/* verify/wheelstream.c: a wheel's members hashed as its bytes stream past (local headers, in file
 * order), so that the RECORD check after a download needs no second pass over the data. */
#include "verify/wheel.h"
#include "verify/wheelstream.h"

#include "base/buf.h"
#include "base/bytes.h"
#include "base/mem.h"
#include "verify/hash.h"
#include "verify/metadata.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SIG_LOCAL   0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define LOCAL_LEN   30u
#define OUT_BLOCK   (256u << 10) /* inflated bytes per hash update */

/* What the stream is doing. Anything it does not follow (a data descriptor, an unknown method,
 * bytes between members) makes it LOST: the verifier then takes the full second pass, which
 * reports whatever is wrong in its own words. */
enum state { S_HEAD, S_NAME, S_DATA, S_DONE, S_LOST };

struct wp_wheel_stream {
	enum state state;
	struct wp_wheel_limits lim;
	uint64_t pos;                    /* bytes fed so far (the file offset of the next byte) */
	unsigned char head[LOCAL_LEN];
	size_t head_have;
	struct wp_buf namex;             /* the name and extra field of the header being read */
	size_t namex_want;
	uint16_t nlen;
	/* the member whose data is streaming */
	struct wp_wheel_smember *cur;
	uint64_t left;                   /* compressed bytes still to come */
	bool inflating, z_ended, crc_on;
	uint32_t crc;
	z_stream z;
	bool z_ready;
	struct wp_hasher h;
	bool h_ready;
	unsigned char *out;              /* OUT_BLOCK bytes for inflate */
	uint64_t total;                  /* uncompressed bytes of all members */
	struct wp_wheel_smember *m;      /* in file order */
	size_t n, cap;
};

struct wp_wheel_stream *wp_wheel_stream_new(const struct wp_wheel_limits *lim)
{
	struct wp_wheel_stream *s = wp_xcalloc(1, sizeof(*s));
	wp_wheel_limits_fill(&s->lim, lim);
	s->namex = (struct wp_buf)WP_BUF_INIT_MAX(2u * 65535u);
	return s;
}

static void drop_members(struct wp_wheel_stream *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->m[i].name);
		wp_buf_free(&s->m[i].capture);
	}
	s->n = 0;
}

void wp_wheel_stream_reset(struct wp_wheel_stream *s)
{
	drop_members(s);
	s->state = S_HEAD;
	s->pos = 0;
	s->head_have = 0;
	wp_buf_reset(&s->namex);
	s->cur = NULL;
	s->left = 0;
	s->total = 0;
}

void wp_wheel_stream_free(struct wp_wheel_stream *s)
{
	if (!s)
		return;
	drop_members(s);
	free(s->m);
	wp_buf_free(&s->namex);
	if (s->z_ready)
		inflateEnd(&s->z);
	if (s->h_ready)
		wp_hasher_release(&s->h);
	free(s->out);
	free(s);
}

bool wp_wheel_stream_complete(const struct wp_wheel_stream *s)
{
	return s && s->state == S_DONE;
}

const struct wp_wheel_smember *wp_wheel_stream_members(const struct wp_wheel_stream *s, size_t *n)
{
	*n = s->n;
	return s->m;
}

struct wp_wheel_smember *wp_wheel_stream_take(struct wp_wheel_stream *s, size_t i)
{
	return i < s->n ? &s->m[i] : NULL;
}

static void lose(struct wp_wheel_stream *s)
{
	s->state = S_LOST;
	s->cur = NULL;
}

/* The three dist-info files the verifier parses, and the ones RECORD cannot hash (their CRC is
 * then the only check of their bytes): a top-level "*.dist-info/NAME". */
static const char *dist_info_file(const char *name)
{
	const char *slash = strchr(name, '/');
	if (!slash || strchr(slash + 1, '/') || slash - name < 10 || memcmp(slash - 10, ".dist-info", 10) != 0)
		return NULL;
	return slash + 1;
}

static size_t capture_max(const struct wp_wheel_stream *s, const char *file)
{
	if (!strcmp(file, "RECORD"))
		return (size_t)s->lim.max_record;
	if (!strcmp(file, "WHEEL") || !strcmp(file, "METADATA"))
		return WP_METADATA_MAX_LEN;
	return 0;
}

/* A complete local header with its name and extra field: start the member. */
static void begin_member(struct wp_wheel_stream *s)
{
	const unsigned char *h = s->head;
	uint16_t flags = wp_le16(h + 6), method = wp_le16(h + 8);
	uint64_t csize = wp_le32(h + 18), usize = wp_le32(h + 22);
	const unsigned char *x = (const unsigned char *)s->namex.data + s->nlen;
	size_t xn = s->namex.len - s->nlen;
	/* encrypted, a data descriptor (sizes unknown here), or a method we do not decode */
	if ((flags & 1) || (flags & 8) || (method != 0 && method != 8) || memchr(s->namex.data, 0, s->nlen)) {
		lose(s);
		return;
	}
	if (csize == 0xffffffffu || usize == 0xffffffffu) {
		/* a local zip64 extra holds both sizes, uncompressed first */
		bool found = false;
		while (xn >= 4) {
			uint16_t id = wp_le16(x), len = wp_le16(x + 2);
			if ((size_t)len + 4 > xn)
				break;
			if (id == 0x0001 && len >= 16) {
				usize = wp_le64(x + 4);
				csize = wp_le64(x + 12);
				found = true;
				break;
			}
			x += 4 + len;
			xn -= 4 + (size_t)len;
		}
		if (!found) {
			lose(s);
			return;
		}
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->m = wp_xrealloc(s->m, s->cap * sizeof(*s->m));
	}
	struct wp_wheel_smember *m = &s->m[s->n++];
	memset(m, 0, sizeof(*m));
	m->offset = s->pos - LOCAL_LEN - s->namex.len;
	m->name = wp_xstrndup(s->namex.data, s->nlen);
	m->method = method;
	m->csize = csize;
	m->usize = usize;
	m->is_dir = s->nlen && m->name[s->nlen - 1] == '/';
	const char *di = dist_info_file(m->name);
	size_t cmax = di ? capture_max(s, di) : 0;
	m->capture = (struct wp_buf)WP_BUF_INIT_MAX(cmax ? cmax : 1);
	m->captured = cmax > 0;
	s->crc_on = di != NULL;
	s->crc = 0;
	s->cur = m;
	s->left = csize;
	s->inflating = method == 8;
	s->z_ended = false;
	if (!s->h_ready) {
		struct wp_err e = WP_ERR_INIT;
		if (wp_hasher_init(&s->h, WP_HASH_SHA256, &e)) {
			lose(s);
			return;
		}
		s->h_ready = true;
	} else {
		struct wp_err e = WP_ERR_INIT;
		if (wp_hasher_reset(&s->h, &e)) {
			lose(s);
			return;
		}
	}
	if (s->inflating) {
		if (!s->z_ready) {
			memset(&s->z, 0, sizeof(s->z));
			if (inflateInit2(&s->z, -MAX_WBITS) != Z_OK) {
				lose(s);
				return;
			}
			s->z_ready = true;
		} else {
			inflateReset(&s->z);
		}
		if (!s->out)
			s->out = wp_xmalloc(OUT_BLOCK);
	}
	s->state = S_DATA;
}

/* Uncompressed bytes of the current member: counted against its claims and the limits, hashed,
 * and kept when it is one the verifier parses. A member past any bound is marked bad and its
 * remaining bytes only skipped: the second pass then says what is wrong. */
static void member_bytes(struct wp_wheel_stream *s, const unsigned char *p, size_t n)
{
	struct wp_wheel_smember *m = s->cur;
	if (m->bad)
		return;
	uint64_t limit = (uint64_t)s->lim.max_ratio * (m->csize ? m->csize : 1);
	if (limit < (uint64_t)s->lim.ratio_min_size)
		limit = (uint64_t)s->lim.ratio_min_size;
	m->actual += n;
	s->total += n;
	if (m->actual > m->usize || m->actual > limit || s->total > (uint64_t)s->lim.max_total_size ||
	    (m->is_dir && n)) {
		m->bad = true;
		return;
	}
	wp_hasher_update(&s->h, p, n);
	if (s->crc_on)
		s->crc = (uint32_t)crc32(s->crc, p, (uInt)n);
	if (m->captured && wp_buf_add(&m->capture, p, n) < 0)
		m->bad = true;
}

static void end_member(struct wp_wheel_stream *s)
{
	struct wp_wheel_smember *m = s->cur;
	struct wp_err e = WP_ERR_INIT;
	if (s->inflating && !s->z_ended)
		m->bad = true; /* the deflate stream did not end with its compressed size */
	if (!m->bad && wp_hasher_final_raw(&s->h, m->sha256, NULL, &e))
		m->bad = true;
	m->crc = s->crc;
	m->crc_checked = s->crc_on;
	m->done = true;
	s->cur = NULL;
	s->state = S_HEAD;
	s->head_have = 0;
}

/* Compressed bytes of the current member (n <= s->left). */
static void data_bytes(struct wp_wheel_stream *s, const unsigned char *p, size_t n)
{
	struct wp_wheel_smember *m = s->cur;
	s->left -= n;
	if (!s->inflating) {
		member_bytes(s, p, n);
	} else if (!m->bad) {
		if (s->z_ended && n) {
			m->bad = true; /* bytes after the deflate stream's end */
		} else {
			s->z.next_in = (Bytef *)p;
			s->z.avail_in = (uInt)n;
			while (!m->bad && !s->z_ended && (s->z.avail_in || s->left == 0)) {
				s->z.next_out = s->out;
				s->z.avail_out = OUT_BLOCK;
				int zr = inflate(&s->z, Z_NO_FLUSH);
				size_t got = OUT_BLOCK - s->z.avail_out;
				if (got)
					member_bytes(s, s->out, got);
				if (zr == Z_STREAM_END) {
					s->z_ended = true;
					if (s->z.avail_in)
						m->bad = true;
				} else if (zr != Z_OK || (!got && !s->z.avail_in)) {
					/* an error, or a stream that wants input past its compressed size */
					if (zr != Z_OK || s->left == 0)
						m->bad = true;
					break;
				}
			}
		}
	}
	if (s->left == 0)
		end_member(s);
}

void wp_wheel_stream_feed(struct wp_wheel_stream *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	while (n && s->state != S_DONE && s->state != S_LOST) {
		size_t k;
		switch (s->state) {
		case S_HEAD:
			k = LOCAL_LEN - s->head_have < n ? LOCAL_LEN - s->head_have : n;
			memcpy(s->head + s->head_have, p, k);
			s->head_have += k;
			p += k, n -= k, s->pos += k;
			if (s->head_have >= 4 && wp_le32(s->head) == SIG_CENTRAL && s->n) {
				s->state = S_DONE; /* the members are over; the verifier reads the directory itself */
				break;
			}
			if (s->head_have >= 4 && wp_le32(s->head) != SIG_LOCAL) {
				lose(s);
				break;
			}
			if (s->head_have == LOCAL_LEN) {
				s->nlen = wp_le16(s->head + 26);
				s->namex_want = (size_t)s->nlen + wp_le16(s->head + 28);
				wp_buf_reset(&s->namex);
				if (!s->nlen || s->n >= (size_t)s->lim.max_members) {
					lose(s);
					break;
				}
				s->state = S_NAME;
			}
			break;
		case S_NAME:
			k = s->namex_want - s->namex.len < n ? s->namex_want - s->namex.len : n;
			if (wp_buf_add(&s->namex, p, k) < 0) {
				lose(s);
				break;
			}
			p += k, n -= k, s->pos += k;
			if (s->namex.len == s->namex_want) {
				begin_member(s);
				if (s->state == S_DATA && s->left == 0) {
					if (s->inflating)
						data_bytes(s, p, 0); /* an empty deflate stream is still a stream */
					else
						end_member(s);
				}
			}
			break;
		case S_DATA:
			k = s->left < n ? (size_t)s->left : n;
			data_bytes(s, p, k);
			p += k, n -= k, s->pos += k;
			break;
		default:
			break;
		}
	}
	if (s->state == S_DONE || s->state == S_LOST)
		s->pos += n;
}
