/* cache/condapack.c: varint and string packing of conda records and first-seen hash lists. */
#include "cache/condapack.h"
#include "base/mem.h"
#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

/* Blob layouts carry a leading version byte so a later layout can be told apart. */
#define ROWS_V1 1
#define SEEN_V1 1

/* Flags of one packed record. */
#define F_URL_FROM_DIR 1u /* url = <folder of the previous stored URL> "/" <filename> */

void wp_pack_put_uint(struct wp_buf *b, unsigned long long v)
{
	unsigned char tmp[10];
	size_t n = 0;
	do {
		unsigned char byte = v & 0x7f;
		v >>= 7;
		tmp[n++] = byte | (v ? 0x80 : 0);
	} while (v);
	wp_buf_add(b, tmp, n);
}

void wp_pack_put_int(struct wp_buf *b, long long v)
{
	unsigned long long u = (unsigned long long)v;
	wp_pack_put_uint(b, (u << 1) ^ (v < 0 ? ~0ull : 0));
}

void wp_pack_put_str(struct wp_buf *b, const char *s)
{
	if (!s) {
		wp_pack_put_uint(b, 0);
		return;
	}
	size_t n = strlen(s);
	wp_pack_put_uint(b, (unsigned long long)n + 1);
	wp_buf_add(b, s, n + 1); /* with its NUL: readers hand out pointers into the blob */
}

unsigned long long wp_pack_get_uint(struct wp_pack_in *in)
{
	unsigned long long v = 0;
	for (unsigned shift = 0; !in->bad; shift += 7) {
		if (in->p >= in->end || shift > 63) {
			in->bad = true;
			break;
		}
		unsigned char byte = *in->p++;
		v |= (unsigned long long)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	return 0;
}

long long wp_pack_get_int(struct wp_pack_in *in)
{
	unsigned long long u = wp_pack_get_uint(in);
	return (long long)(u >> 1) ^ -(long long)(u & 1);
}

const char *wp_pack_get_str(struct wp_pack_in *in, size_t *len)
{
	unsigned long long n;
	if (!in->bad && in->p < in->end && *in->p < 0x80)
		n = *in->p++; /* a length under 128: nearly every field */
	else
		n = wp_pack_get_uint(in);
	if (len)
		*len = 0;
	if (in->bad || n == 0)
		return NULL;
	/* n - 1 bytes and a NUL must fit in what is left */
	if (n > (unsigned long long)(in->end - in->p) || in->p[n - 1] != 0) {
		in->bad = true;
		return NULL;
	}
	const char *s = (const char *)in->p;
	in->p += n;
	if (len)
		*len = (size_t)n - 1;
	return s;
}

size_t wp_condapack_folder_len(const char *url)
{
	const char *slash = strrchr(url, '/');
	return slash ? (size_t)(slash - url) : 0;
}

void wp_condapack_begin(struct wp_buf *out)
{
	wp_buf_addch(out, ROWS_V1);
}

void wp_condapack_writer_init(struct wp_condapack_writer *w, struct wp_buf *out)
{
	w->out = out;
	w->dir = (struct wp_buf)WP_BUF_INIT;
	w->keep_urls = false;
}

void wp_condapack_writer_release(struct wp_condapack_writer *w)
{
	wp_buf_free(&w->dir);
}

static unsigned char *put_uint_at(unsigned char *p, unsigned long long v)
{
	do {
		unsigned char byte = v & 0x7f;
		v >>= 7;
		*p++ = byte | (v ? 0x80 : 0);
	} while (v);
	return p;
}

/* Capacity in b for n more bytes and the NUL, so that a row is written in place with one check
 * instead of two appends per field (a row is 20 fields, a refresh 300,000 rows). false when b's
 * ceiling is in the way. */
static bool reserve(struct wp_buf *b, size_t n)
{
	static const char zeros[4096];
	size_t len = b->len;
	bool ok = true;
	while (ok && b->cap <= len + n)
		ok = wp_buf_add(b, zeros, sizeof(zeros)) == 0;
	b->len = len;
	if (b->data)
		b->data[len] = 0;
	return ok;
}

void wp_condapack_put_row(struct wp_condapack_writer *w, const struct wp_file_row *f)
{
	struct wp_buf *b = w->out;
	unsigned flags = 0;
	if (f->url && f->filename && !w->keep_urls) {
		size_t d = wp_condapack_folder_len(f->url);
		if (w->dir.len && d == w->dir.len && f->url[d] == '/' &&
		    !memcmp(f->url, w->dir.data, d) && !strcmp(f->url + d + 1, f->filename))
			flags |= F_URL_FROM_DIR;
	}
	const char *strs[] = {
		f->filename,      f->url,        f->version,         f->variant,
		f->sha256,        f->md5,        f->requires_python, f->yanked,
		f->core_metadata, f->tags,       f->build,           f->subdir,
		f->depends,       f->constrains, f->track_features,  f->hash_conflict
	};
	const long long ints[] = { f->size, f->build_number, f->timestamp };
	size_t lens[WP_ARRAY_LEN(strs)], need = 10 + WP_ARRAY_LEN(ints) * 10;
	for (size_t i = 0; i < WP_ARRAY_LEN(strs); i++) {
		lens[i] = strs[i] ? strlen(strs[i]) : 0;
		need += lens[i] + 11;
	}
	if (reserve(b, need)) {
		unsigned char *p = (unsigned char *)b->data + b->len;
		p = put_uint_at(p, flags);
		for (size_t i = 0; i < WP_ARRAY_LEN(strs); i++) {
			if (i == 1 && (flags & F_URL_FROM_DIR))
				continue;
			if (!strs[i]) {
				*p++ = 0;
				continue;
			}
			p = put_uint_at(p, (unsigned long long)lens[i] + 1);
			memcpy(p, strs[i], lens[i] + 1); /* with its NUL: readers hand out pointers
							    into the blob */
			p += lens[i] + 1;
		}
		for (size_t i = 0; i < WP_ARRAY_LEN(ints); i++) {
			unsigned long long u = (unsigned long long)ints[i];
			p = put_uint_at(p, (u << 1) ^ (ints[i] < 0 ? ~0ull : 0));
		}
		b->len = (size_t)(p - (unsigned char *)b->data);
		b->data[b->len] = 0;
	} else {
		/* at b's ceiling: field by field, as far as it goes */
		wp_pack_put_uint(b, flags);
		for (size_t i = 0; i < WP_ARRAY_LEN(strs); i++)
			if (i != 1 || !(flags & F_URL_FROM_DIR))
				wp_pack_put_str(b, strs[i]);
		for (size_t i = 0; i < WP_ARRAY_LEN(ints); i++)
			wp_pack_put_int(b, ints[i]);
	}
	if (!(flags & F_URL_FROM_DIR)) {
		wp_buf_reset(&w->dir);
		/* a writer that keeps URLs whole needs no folder (and, made per row, must not
		 * allocate) */
		if (!w->keep_urls && f->url && f->url[wp_condapack_folder_len(f->url)] == '/')
			wp_buf_add(&w->dir, f->url, wp_condapack_folder_len(f->url));
	}
}

void wp_condapack_reader_init(struct wp_condapack_reader *r, const void *blob, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->in.p = blob;
	r->in.end = r->in.p + len;
	if (!len || *r->in.p != ROWS_V1)
		r->in.bad = true;
	else
		r->in.p++;
}

void wp_condapack_reader_at(struct wp_condapack_reader *r, const void *p, const void *end)
{
	/* keeps r->url's buffer: a reader is moved from row to row of a staging buffer */
	r->dir = NULL;
	r->dir_len = 0;
	r->in.bad = false;
	r->in.p = p;
	r->in.end = end;
}

void wp_condapack_reader_release(struct wp_condapack_reader *r)
{
	wp_buf_free(&r->url);
}

int wp_condapack_get_row(struct wp_condapack_reader *r, struct wp_file_row *f)
{
	struct wp_pack_in *in = &r->in;
	if (in->bad)
		return -1;
	if (in->p == in->end)
		return 0;
	unsigned long long flags = wp_pack_get_uint(in);
	f->filename = wp_pack_get_str(in, NULL);
	if (flags & ~(unsigned long long)F_URL_FROM_DIR)
		in->bad = true;
	if (flags & F_URL_FROM_DIR) {
		if (!r->dir || !f->filename)
			return in->bad = true, -1;
		wp_buf_reset(&r->url);
		wp_buf_add(&r->url, r->dir, r->dir_len);
		wp_buf_addch(&r->url, '/');
		wp_buf_addstr(&r->url, f->filename);
		f->url = wp_buf_cstr(&r->url);
	} else {
		f->url = wp_pack_get_str(in, NULL);
		r->dir = NULL;
		if (f->url && f->url[wp_condapack_folder_len(f->url)] == '/') {
			r->dir = f->url;
			r->dir_len = wp_condapack_folder_len(f->url);
		}
	}
	f->version = wp_pack_get_str(in, NULL);
	f->variant = wp_pack_get_str(in, NULL);
	f->sha256 = wp_pack_get_str(in, NULL);
	f->md5 = wp_pack_get_str(in, NULL);
	f->requires_python = wp_pack_get_str(in, NULL);
	f->yanked = wp_pack_get_str(in, NULL);
	f->core_metadata = wp_pack_get_str(in, NULL);
	f->tags = wp_pack_get_str(in, NULL);
	f->build = wp_pack_get_str(in, NULL);
	f->subdir = wp_pack_get_str(in, NULL);
	f->depends = wp_pack_get_str(in, NULL);
	f->constrains = wp_pack_get_str(in, NULL);
	f->track_features = wp_pack_get_str(in, NULL);
	f->hash_conflict = wp_pack_get_str(in, NULL);
	f->size = wp_pack_get_int(in);
	f->build_number = wp_pack_get_int(in);
	f->timestamp = wp_pack_get_int(in);
	/* every row has a file name, a URL and a version: the catalog never stores one without */
	if (!f->filename || !f->url || !f->version)
		in->bad = true;
	return in->bad ? -1 : 1;
}

static int leaf_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);
	return c ? c : (na > nb) - (na < nb);
}

int wp_seen_decode(struct wp_seen_list *l, const void *blob, size_t len)
{
	struct wp_pack_in in = { blob, (const unsigned char *)blob + len, false };
	l->n = 0;
	if (!len || *in.p++ != SEEN_V1)
		return -1;
	while (in.p < in.end && !in.bad) {
		struct wp_seen_entry e;
		e.leaf = wp_pack_get_str(&in, &e.leaf_len);
		e.sha256 = wp_pack_get_str(&in, NULL);
		e.first_seen = wp_pack_get_int(&in);
		if (in.bad || !e.leaf || !e.sha256)
			return -1;
		/* sorted and unique, or wp_seen_find would miss entries */
		if (l->n &&
		    leaf_cmp(l->v[l->n - 1].leaf, l->v[l->n - 1].leaf_len, e.leaf, e.leaf_len) >= 0)
			return -1;
		wp_vec_push(l, e);
	}
	return in.bad ? -1 : 0;
}

const struct wp_seen_entry *wp_seen_find(const struct wp_seen_list *l, const char *leaf,
					 size_t leaf_len)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = leaf_cmp(l->v[mid].leaf, l->v[mid].leaf_len, leaf, leaf_len);
		if (c == 0)
			return &l->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void wp_seen_merge(struct wp_seen_list *l, struct wp_seen_entry *added, size_t n_added)
{
	if (!n_added)
		return;
	size_t n = l->n + n_added, i = l->n, j = n_added, k = n;
	if (n > l->cap) {
		l->cap = n;
		l->v = wp_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	/* merge from the back, in place */
	while (j > 0) {
		if (i > 0 && leaf_cmp(l->v[i - 1].leaf, l->v[i - 1].leaf_len, added[j - 1].leaf,
				      added[j - 1].leaf_len) > 0)
			l->v[--k] = l->v[--i];
		else
			l->v[--k] = added[--j];
	}
	l->n = n;
}

void wp_seen_encode(const struct wp_seen_list *l, struct wp_buf *out)
{
	wp_buf_addch(out, SEEN_V1);
	for (size_t i = 0; i < l->n; i++) {
		/* leaf_len bytes, which are not NUL-terminated when borrowed from a URL */
		wp_pack_put_uint(out, (unsigned long long)l->v[i].leaf_len + 1);
		wp_buf_add(out, l->v[i].leaf, l->v[i].leaf_len);
		wp_buf_addch(out, 0);
		wp_pack_put_str(out, l->v[i].sha256);
		wp_pack_put_int(out, l->v[i].first_seen);
	}
}

void wp_seen_release(struct wp_seen_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
