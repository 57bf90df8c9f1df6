/* index/repodata.c: conda repodata streamed: libarchive decompresses, base/json parses, one record
 * at a time. */
#include "index/repodata.h"

#include "base/buf.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/url.h"
#include "base/os/os.h"

#include <archive.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CHUNK       65536
#define KEY_MAX     40
#define NAME_MAX_   1024        /* file name, name, version, build, license ... */
#define LIST_MAX    (256 << 10) /* depends / constrains as JSON text */
#define LIST_COUNT  4096        /* entries in one depends list */

enum section { S_OTHER = 0, S_INFO, S_PACKAGES };
enum list { L_NONE = 0, L_DEPENDS, L_CONSTRAINS, L_FEATURES };
/* The package fields read, by key: found once per key (cb_key), not by a string compare per
 * value against every name. */
enum fkey {
	F_OTHER = 0,
	F_NAME,
	F_VERSION,
	F_BUILD,
	F_SUBDIR,
	F_LICENSE,
	F_MD5,
	F_SHA256,
	F_ATTEST,
	F_BUILD_NUMBER,
	F_SIZE,
	F_TIMESTAMP,
	F_DEPENDS,
	F_CONSTRAINS,
	F_TRACK_FEATURES,
	F_NOARCH,
};

struct pkg {
	struct wp_buf filename, name, version, build, subdir, md5, sha256, license, noarch,
		features;
	struct wp_buf attest; /* CEP 50 attestations_sha256: the sidecar's sha256 (lowercase hex) */
	struct wp_buf depends, constrains;
	bool has_depends, has_constrains, has_features, bad;
	long long build_number, size, timestamp;
	size_t list_count;
};

struct rd {
	const char *what;          /* path or URL, for messages */
	const char *base_url;
	wp_record_fn *sink;
	void *ctx;
	struct wp_index_stats *stats;
	struct wp_err *err;
	int rc;
	wp_repodata_tap_fn *tap;   /* optional: every byte of a plain file, as read */
	void *tap_ctx;
	bool tapped;               /* the tap had the whole file */

	int depth;                 /* as the reader skeleton's, which caps it */
	bool is_map[WP_JSON_MAX_DEPTH + 2];
	char key1[KEY_MAX], key3[KEY_MAX];
	enum fkey fkey;            /* key3 as a package field */
	enum section section;
	enum list list;
	bool saw_packages;
	struct wp_buf info_subdir, info_base;
	char *from;                /* the URL file names hang off, settled at the first record */
	struct wp_buf url;         /* reused for every record: no allocation per record */
	struct pkg p;
};

static int fail(struct rd *r, int code, const char *what)
{
	if (!r->rc)
		r->rc = wp_fail(r->err, code, "'%s' is not conda repodata: %s", r->what, what);
	return r->rc;
}

static void pkg_reset(struct pkg *p)
{
	struct wp_buf *bufs[] = { &p->filename, &p->name,     &p->version, &p->build,
				  &p->subdir,   &p->md5,      &p->sha256,  &p->license,
				  &p->noarch,   &p->features, &p->depends, &p->constrains,
				  &p->attest };
	for (size_t i = 0; i < WP_ARRAY_LEN(bufs); i++)
		wp_buf_reset(bufs[i]);
	p->has_depends = p->has_constrains = p->has_features = p->bad = false;
	p->build_number = p->size = p->timestamp = -1;
	p->list_count = 0;
}

static void pkg_free(struct pkg *p)
{
	struct wp_buf *bufs[] = { &p->filename, &p->name,     &p->version, &p->build,
				  &p->subdir,   &p->md5,      &p->sha256,  &p->license,
				  &p->noarch,   &p->features, &p->depends, &p->constrains,
				  &p->attest };
	for (size_t i = 0; i < WP_ARRAY_LEN(bufs); i++)
		wp_buf_free(bufs[i]);
}

static void pkg_init(struct pkg *p)
{
	struct wp_buf small = WP_BUF_INIT_MAX(NAME_MAX_), list = WP_BUF_INIT_MAX(LIST_MAX);
	p->filename = p->name = p->version = p->build = p->subdir = p->md5 = p->sha256 = small;
	p->license = p->noarch = p->features = p->attest = small;
	p->depends = p->constrains = list;
}

/* How many of s[0..n) need no escape in a JSON string (no control byte, quote or backslash),
 * sixteen at a time where SSE2 is: depends lists are half of a repodata's bytes, and a byte-wise
 * scan of them was a twentieth of its parse. */
static size_t plain_run(const unsigned char *s, size_t n)
{
	size_t i = 0;
#if defined(__SSE2__)
	const __m128i sp = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'),
		      bslash = _mm_set1_epi8('\\');
	for (; n - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i ok = _mm_cmpeq_epi8(_mm_max_epu8(v, sp), v); /* v >= 0x20, unsigned */
		__m128i bad = _mm_or_si128(_mm_andnot_si128(ok, _mm_set1_epi8(-1)),
					   _mm_or_si128(_mm_cmpeq_epi8(v, quote),
							_mm_cmpeq_epi8(v, bslash)));
		unsigned m = (unsigned)_mm_movemask_epi8(bad);
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	while (i < n && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
		i++;
	return i;
}

/* Append s as a JSON string to a JSON array text being built in b. Runs of characters that need
 * no escape are copied whole: depends lists are half of a repodata's bytes. */
static bool list_add(struct pkg *p, struct wp_buf *b, const unsigned char *s, size_t n)
{
	if (++p->list_count > LIST_COUNT)
		return false;
	/* the usual item, short and with nothing to escape: one append */
	char one[256];
	size_t plain = plain_run(s, n);
	if (plain == n && n <= sizeof(one) - 4) {
		size_t k = 0;
		if (b->len > 1) {
			one[k++] = ',';
			one[k++] = ' ';
		}
		one[k++] = '"';
		memcpy(one + k, s, n);
		k += n;
		one[k++] = '"';
		return wp_buf_add(b, one, k) == 0;
	}
	int rc = wp_buf_addstr(b, b->len > 1 ? ", \"" : "\"");
	for (size_t i = 0; i < n && !rc;) {
		size_t j = i + plain_run(s + i, n - i);
		rc = wp_buf_add(b, s + i, j - i);
		if (j == n || rc)
			break;
		unsigned char c = s[j];
		if (c == '"' || c == '\\')
			rc = wp_buf_addch(b, '\\') || wp_buf_addch(b, (char)c);
		else
			rc = wp_buf_printf(b, "\\u%04x", c);
		i = j + 1;
	}
	return !rc && wp_buf_addch(b, '"') == 0;
}

static bool number(const unsigned char *s, size_t n, long long *out)
{
	return wp_str_to_ll(WP_STRN((const char *)s, n), out);
}

static bool in_pkg(const struct rd *r)
{
	return r->section == S_PACKAGES && r->depth == 3 && r->is_map[3];
}

static enum fkey fkey_of(const unsigned char *s, size_t n)
{
	/* 400,000 keys per 30,000 records: the length rules out all but one to three names, each
	 * then a compare of a known size (a walk of the fifteen names was 2% of a crawl's
	 * instructions) */
#define IS(lit) (!memcmp(s, lit, sizeof(lit) - 1))
	switch (n) {
	case 3: return IS("md5") ? F_MD5 : F_OTHER;
	case 4: return IS("name") ? F_NAME : IS("size") ? F_SIZE : F_OTHER;
	case 5: return IS("build") ? F_BUILD : F_OTHER;
	case 6:
		return IS("subdir") ? F_SUBDIR :
		       IS("sha256") ? F_SHA256 :
		       IS("noarch") ? F_NOARCH :
				      F_OTHER;
	case 7:
		return IS("version") ? F_VERSION :
		       IS("depends") ? F_DEPENDS :
		       IS("license") ? F_LICENSE :
				       F_OTHER;
	case 9: return IS("timestamp") ? F_TIMESTAMP : F_OTHER;
	case 10: return IS("constrains") ? F_CONSTRAINS : F_OTHER;
	case 12: return IS("build_number") ? F_BUILD_NUMBER : F_OTHER;
	case 14: return IS("track_features") ? F_TRACK_FEATURES : F_OTHER;
	case 19: return IS("attestations_sha256") ? F_ATTEST : F_OTHER;
	default: return F_OTHER;
	}
#undef IS
}

static void field(struct rd *r, enum wp_json_type t, const unsigned char *s, size_t n, bool b)
{
	struct pkg *p = &r->p;
	struct wp_buf *str = NULL;
	long long v, *num = NULL;

	switch (r->fkey) {
	case F_NAME: str = &p->name; break;
	case F_VERSION: str = &p->version; break;
	case F_BUILD: str = &p->build; break;
	case F_SUBDIR: str = &p->subdir; break;
	case F_LICENSE: str = &p->license; break;
	case F_MD5:
	case F_SHA256:
	case F_ATTEST: {
		size_t want = r->fkey == F_MD5 ? 32 : 64;
		char hex[65];
		if (t == WP_JSON_STRING && wp_url_hex_lower((const char *)s, n, want, hex))
			wp_json_take(r->fkey == F_MD5    ? &p->md5 :
				     r->fkey == F_SHA256 ? &p->sha256 :
							   &p->attest,
				     (const unsigned char *)hex, want);
		else
			p->bad |= t != WP_JSON_NULL;
		return;
	}
	case F_BUILD_NUMBER: num = &p->build_number; break;
	case F_SIZE: num = &p->size; break;
	case F_TIMESTAMP: num = &p->timestamp; break;
	case F_DEPENDS:
	case F_CONSTRAINS: {
		bool dep = r->fkey == F_DEPENDS;
		struct wp_buf *lb = dep ? &p->depends : &p->constrains;
		if (t == WP_JSON_ARRAY) {
			*(dep ? &p->has_depends : &p->has_constrains) = true;
			wp_buf_reset(lb);
			p->list_count = 0;
			wp_buf_addch(lb, '[');
			r->list = dep ? L_DEPENDS : L_CONSTRAINS;
		} else {
			p->bad |= t != WP_JSON_NULL;
		}
		return;
	}
	case F_TRACK_FEATURES:
		if (t == WP_JSON_STRING) {
			p->has_features = n > 0;
			p->bad |= !wp_json_take(&p->features, s, n);
		} else if (t == WP_JSON_ARRAY) {
			wp_buf_reset(&p->features);
			r->list = L_FEATURES;
		} else {
			p->bad |= t != WP_JSON_NULL;
		}
		return;
	case F_NOARCH:
		/* old repodata wrote a bare true for what is now "generic" */
		if (t == WP_JSON_STRING)
			p->bad |= !wp_json_take(&p->noarch, s, n);
		else if (t == WP_JSON_BOOL && b)
			wp_json_take(&p->noarch, (const unsigned char *)"generic", 7);
		return;
	case F_OTHER:
		return;
	}
	if (str) {
		if (t == WP_JSON_STRING)
			p->bad |= !wp_json_take(str, s, n);
		else
			p->bad |= t != WP_JSON_NULL;
	} else if (num) {
		if (t == WP_JSON_NUMBER && number(s, n, &v))
			*num = v;
		else
			p->bad |= t != WP_JSON_NULL && t != WP_JSON_NUMBER;
	}
}

static void list_item(struct rd *r, enum wp_json_type t, const unsigned char *s, size_t n)
{
	struct pkg *p = &r->p;
	if (t != WP_JSON_STRING) {
		p->bad = true;
		return;
	}
	if (r->list == L_FEATURES) {
		if (!n)
			return;
		p->has_features = true;
		if (memchr(s, 0, n) || (p->features.len && wp_buf_addch(&p->features, ' ') < 0) ||
		    wp_buf_add(&p->features, s, n) < 0)
			p->bad = true;
		return;
	}
	p->bad |= !list_add(p, r->list == L_DEPENDS ? &p->depends : &p->constrains, s, n);
}

static int value(void *ctx, enum wp_json_type t, const unsigned char *s, size_t n, bool b)
{
	struct rd *r = ctx;
	if (r->depth == 0)
		return t == WP_JSON_OBJECT ?
			       0 :
			       fail(r, -WPE_SOURCE, "the document is not a JSON object");
	if (r->section == S_INFO && r->depth == 2 && t == WP_JSON_STRING) {
		if (!strcmp(r->key3, "subdir"))
			wp_json_take(&r->info_subdir, s, n);
		else if (!strcmp(r->key3, "base_url") && !r->from)
			wp_json_take(&r->info_base, s, n);
	} else if (r->section == S_PACKAGES && r->depth == 2 && t != WP_JSON_OBJECT) {
		r->stats->links++;
		r->stats->skipped++;
		r->stats->malformed++;
	} else if (in_pkg(r)) {
		field(r, t, s, n, b);
	} else if (r->section == S_PACKAGES && r->depth == 4 && r->list != L_NONE) {
		list_item(r, t, s, n);
	}
	return r->rc;
}

static bool conda_name(const char *f, size_t n)
{
	return (n > 8 && !memcmp(f + n - 8, ".tar.bz2", 8)) ||
	       (n > 6 && !memcmp(f + n - 6, ".conda", 6));
}

/* conda's own characters only (a-z A-Z 0-9 . _ + ! -), by a table: strspn built its table of
 * the set anew for every record */
static const bool conda_char[256] = {
	['a'] = true, ['b'] = true, ['c'] = true, ['d'] = true, ['e'] = true, ['f'] = true,
	['g'] = true, ['h'] = true, ['i'] = true, ['j'] = true, ['k'] = true, ['l'] = true,
	['m'] = true, ['n'] = true, ['o'] = true, ['p'] = true, ['q'] = true, ['r'] = true,
	['s'] = true, ['t'] = true, ['u'] = true, ['v'] = true, ['w'] = true, ['x'] = true,
	['y'] = true, ['z'] = true, ['A'] = true, ['B'] = true, ['C'] = true, ['D'] = true,
	['E'] = true, ['F'] = true, ['G'] = true, ['H'] = true, ['I'] = true, ['J'] = true,
	['K'] = true, ['L'] = true, ['M'] = true, ['N'] = true, ['O'] = true, ['P'] = true,
	['Q'] = true, ['R'] = true, ['S'] = true, ['T'] = true, ['U'] = true, ['V'] = true,
	['W'] = true, ['X'] = true, ['Y'] = true, ['Z'] = true, ['0'] = true, ['1'] = true,
	['2'] = true, ['3'] = true, ['4'] = true, ['5'] = true, ['6'] = true, ['7'] = true,
	['8'] = true, ['9'] = true, ['.'] = true, ['_'] = true, ['+'] = true, ['!'] = true,
	['-'] = true
};

static bool conda_chars(const char *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!conda_char[(unsigned char)f[i]])
			return false;
	return true;
}

static const char *opt(const struct wp_buf *b)
{
	return b->len ? b->data : NULL;
}

static void emit(struct rd *r)
{
	struct pkg *p = &r->p;
	const char *filename = wp_buf_cstr(&p->filename);

	r->stats->links++;
	/* the key holds no NUL (wp_json_take refused it: the record is bad), so its length is the
	 * buffer's; a name of conda's characters alone is a file name unless it is "." or "..",
	 * which spares the usual record wp_url_filename_ok's walk */
	size_t fl = p->filename.len;
	bool conda_only = !p->bad && p->name.len && conda_chars(filename, fl);
	if (p->bad || !p->name.len ||
	    !(conda_only ? fl && strcmp(filename, ".") && strcmp(filename, "..") :
			   wp_url_filename_ok(filename))) {
		r->stats->skipped++;
		r->stats->malformed++;
		return;
	}
	if (!conda_name(filename, fl)) {
		r->stats->skipped++;
		return;
	}
	/* conda's own characters only: the name is written into a channel and printed in
	 * commands */
	if (!conda_only) {
		r->stats->skipped++;
		r->stats->malformed++;
		return;
	}
	/* a package's file name is name-version-build (conda writes it so): a key that names
	 * another file than the record describes is not taken, whatever it would make the channel
	 * write */
	size_t ext = fl > 6 && !memcmp(filename + fl - 6, ".conda", 6) ? 6 : 8;
	if (p->version.len && p->build.len &&
	    (fl - ext != p->name.len + 1 + p->version.len + 1 + p->build.len ||
	     memcmp(filename, p->name.data, p->name.len) || filename[p->name.len] != '-' ||
	     memcmp(filename + p->name.len + 1, p->version.data, p->version.len) ||
	     filename[p->name.len + 1 + p->version.len] != '-' ||
	     memcmp(filename + p->name.len + 2 + p->version.len, p->build.data, p->build.len))) {
		r->stats->skipped++;
		r->stats->malformed++;
		return;
	}
	if (p->has_depends && wp_buf_addch(&p->depends, ']') < 0)
		p->bad = true;
	if (p->has_constrains && wp_buf_addch(&p->constrains, ']') < 0)
		p->bad = true;
	if (!r->from) {
		/* settled at the first record: CEP 15 info.base_url, relative to the repodata's
		 * URL */
		char *dir = wp_xasprintf("%s/", r->base_url);
		if (r->info_base.len &&
		    wp_url_resolve(dir, wp_buf_cstr(&r->info_base), &r->from, NULL) == 0 &&
		    !wp_url_scheme_ok(r->from)) {
			free(r->from);
			r->from = NULL;
		}
		if (!r->from)
			r->from = wp_xstrdup(r->base_url);
		free(dir);
	}
	if (p->bad || wp_url_join_segment_buf(r->from, filename, &r->url) < 0) {
		r->stats->skipped++;
		r->stats->malformed++;
		return;
	}
	/* CEP 50: the attestations beside the package, under a name their sha256 fixes */
	char *attest = p->attest.len ? wp_xasprintf("%s" WP_CONDA_ATTEST_INFIX "%s",
						    wp_buf_cstr(&r->url), wp_buf_cstr(&p->attest)) :
				       NULL;
	long long ts = p->timestamp;
	if (ts >= 0 && ts <= 253402300799LL)
		ts *= 1000; /* seconds (older repodata), as conda itself decides */
	struct wp_file_record rec = {
		.kind = WP_KIND_CONDA,
		.filename = filename,
		.url = wp_buf_cstr(&r->url),
		.project = wp_buf_cstr(&p->name),
		.sha256 = opt(&p->sha256),
		.md5 = opt(&p->md5),
		.size = p->size,
		.version = opt(&p->version),
		.build = opt(&p->build),
		.build_number = p->build_number,
		.subdir = p->subdir.len ? p->subdir.data : opt(&r->info_subdir),
		.depends = p->has_depends ? wp_buf_cstr(&p->depends) : NULL,
		.constrains = p->has_constrains ? wp_buf_cstr(&p->constrains) : NULL,
		.track_features = p->has_features ? wp_buf_cstr(&p->features) : NULL,
		.timestamp = ts,
		.noarch = opt(&p->noarch),
		.license = opt(&p->license),
		.provenance = attest,
	};
	int rc = r->sink(r->ctx, &rec, r->err);
	free(attest);
	if (rc < 0)
		r->rc = rc;
	else
		r->stats->records++;
}

static int open_container(struct rd *r, bool map)
{
	if (value(r, map ? WP_JSON_OBJECT : WP_JSON_ARRAY, NULL, 0, false))
		return r->rc;
	r->depth++;
	r->is_map[r->depth] = map;
	if (r->depth == 2 && map) {
		if (!strcmp(r->key1, "info"))
			r->section = S_INFO;
		else if (!strcmp(r->key1, "packages") || !strcmp(r->key1, "packages.conda")) {
			r->section = S_PACKAGES;
			r->saw_packages = true;
		}
	}
	if (r->depth == 3) {
		r->key3[0] = 0;
		r->fkey = F_OTHER;
	}
	return 0;
}

static int close_container(struct rd *r)
{
	if (in_pkg(r))
		emit(r);
	if (r->depth == 4)
		r->list = L_NONE;
	if (r->depth == 2)
		r->section = S_OTHER;
	r->depth--;
	return r->rc;
}

static int cb_start_map(void *ud)
{
	return open_container(ud, true);
}

static int cb_start_array(void *ud)
{
	return open_container(ud, false);
}

static int cb_end(void *ud)
{
	return close_container(ud);
}

static int cb_key(void *ud, const unsigned char *s, size_t n)
{
	struct rd *r = ud;
	if (r->depth == 1) {
		wp_json_key_copy(r->key1, KEY_MAX, s, n);
	} else if (r->depth == 2 && r->section == S_PACKAGES) {
		pkg_reset(&r->p);
		if (!wp_json_take(&r->p.filename, s, n))
			r->p.bad = true;
	} else if (r->depth == 3) {
		/* a package field: its kind is all value() asks */
		r->fkey = n ? fkey_of(s, n) : F_OTHER;
	} else if (r->depth == 2) {
		/* an info key (value() reads them at depth 2, in S_INFO) */
		wp_json_key_copy(r->key3, KEY_MAX, s, n);
		r->fkey = F_OTHER;
	}
	return 0;
}

static const struct wp_json_callbacks callbacks = {
	.value = value,
	.start_map = cb_start_map,
	.key = cb_key,
	.end_map = cb_end,
	.start_array = cb_start_array,
	.end_array = cb_end,
};

/* Only decompressors linked into libarchive: a filter that would run an outside program
 * (libarchive's fallback when a library is missing) is not offered to repodata from the net. */
static void filters(struct archive *a)
{
	int (*const each[])(struct archive *) = {
		archive_read_support_filter_bzip2, archive_read_support_filter_zstd,
		archive_read_support_filter_gzip, archive_read_support_filter_xz,
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(each); i++)
		each[i](a);
}

/* Compressed (zstd, bzip2, gzip, xz) by its first bytes; anything else is read as plain JSON. */
static bool compressed(const unsigned char *p, size_t n)
{
	static const struct {
		unsigned char m[6];
		size_t n;
	} magic[] = {
		{ { 0x28, 0xb5, 0x2f, 0xfd }, 4 }, { { 'B', 'Z', 'h' }, 3 }, { { 0x1f, 0x8b }, 2 },
		{ { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6 },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(magic); i++)
		if (n >= magic[i].n && !memcmp(p, magic[i].m, magic[i].n))
			return true;
	return false;
}

/* Plain JSON straight into the parser: from memory as it is, from a file with read() in 1 MiB
 * blocks. libarchive's raw format copied every byte once more, 64 KiB at a time, for nothing. */
static int read_plain(struct rd *r, int fd, const char *data, size_t len, const unsigned char *head,
		      size_t nhead)
{
	struct wp_json_reader json = { 0 };
	const struct wp_json_opts jo = { .what = r->what,
					 .kind = "conda repodata",
					 .code = -WPE_SOURCE,
					 .max_bytes = WP_REPODATA_MAX_OUT,
					 .max_token = WP_REPODATA_MAX_TOKEN };
	enum { BLOCK = 1 << 20 };
	char *buf = NULL;
	int rc = 0;
	wp_json_reader_init(&json, &callbacks, r, &jo, r->err);
	if (fd < 0) {
		rc = wp_json_reader_feed(&json, data, len);
	} else {
		buf = wp_xmalloc(BLOCK);
		if (nhead && r->tap)
			r->tap(r->tap_ctx, head, nhead);
		if (nhead)
			rc = wp_json_reader_feed(&json, head, nhead);
		while (!rc) {
			ssize_t n = wp_os_read(fd, buf, BLOCK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				rc = wp_fail(r->err, -WPE_IO, "cannot read '%s': %s", r->what,
					     strerror(errno));
				break;
			}
			if (n == 0) {
				r->tapped = r->tap != NULL;
				break;
			}
			if (r->tap)
				r->tap(r->tap_ctx, buf, (size_t)n);
			rc = wp_json_reader_feed(&json, buf, (size_t)n);
		}
	}
	if (!rc)
		rc = wp_json_reader_finish(&json);
	if (!rc && !r->saw_packages) {
		fail(r, -WPE_SOURCE, "it has no \"packages\" or \"packages.conda\"");
		rc = r->rc;
	}
	wp_json_reader_release(&json);
	free(buf);
	return rc;
}

static int read_stream(struct rd *r, const char *path, const char *data, size_t len)
{
	struct archive *a = archive_read_new();
	struct archive_entry *entry;
	struct wp_json_reader json = { 0 };
	/* the decompressed size is capped by the reader: the bytes it is fed */
	const struct wp_json_opts jo = { .what = r->what,
					 .kind = "conda repodata",
					 .code = -WPE_SOURCE,
					 .max_bytes = WP_REPODATA_MAX_OUT,
					 .max_token = WP_REPODATA_MAX_TOKEN };
	unsigned long long out = 0;
	char *buf = wp_xmalloc(CHUNK);
	FILE *file = NULL;
	int rc = 0;

	if (!r->base_url || !wp_url_scheme_ok(r->base_url)) {
		rc = wp_fail(r->err, -WPE_USAGE,
			     "channel URL '%s' is not an absolute http, https or file URL",
			     r->base_url ? r->base_url : "");
		goto out;
	}
	pkg_init(&r->p);
	r->info_subdir = (struct wp_buf)WP_BUF_INIT_MAX(NAME_MAX_);
	r->info_base = (struct wp_buf)WP_BUF_INIT_MAX(WP_URL_MAX);
	r->url = (struct wp_buf)WP_BUF_INIT_MAX(WP_URL_MAX);
	if (path) {
		file = fopen(path, "rb");
		if (!file) {
			rc = wp_fail(r->err, -WPE_IO, "cannot open '%s': %s", path,
				     strerror(errno));
			goto out;
		}
		/* the first bytes say whether libarchive has anything to decompress */
		unsigned char head[8];
		ssize_t nh;
		while ((nh = wp_os_read(fileno(file), head, sizeof(head))) < 0 && errno == EINTR)
			;
		if (nh < 0) {
			rc = wp_fail(r->err, -WPE_IO, "cannot read '%s': %s", path,
				     strerror(errno));
			goto out;
		}
		if (nh > 0 && !compressed(head, (size_t)nh)) {
			rc = read_plain(r, fileno(file), NULL, 0, head, (size_t)nh);
			goto out;
		}
		if (wp_os_lseek(fileno(file), 0, SEEK_SET) < 0) {
			rc = wp_fail(r->err, -WPE_IO, "cannot read '%s': %s", path,
				     strerror(errno));
			goto out;
		}
	} else if (data && len && !compressed((const unsigned char *)data, len)) {
		rc = read_plain(r, -1, data, len, NULL, 0);
		goto out;
	}
	filters(a);
	archive_read_support_format_raw(a);
	if (path) {
		rc = archive_read_open_FILE(a, file);
	} else {
		rc = archive_read_open_memory(a, data ? data : "", len);
	}
	if (rc != ARCHIVE_OK) {
		rc = wp_fail(r->err, -WPE_SOURCE, "'%s' is not conda repodata: %s", r->what,
			     archive_error_string(a) ? archive_error_string(a) : "unreadable");
		goto out;
	}
	rc = archive_read_next_header(a, &entry);
	if (rc != ARCHIVE_OK) {
		rc = wp_fail(r->err, -WPE_SOURCE, "'%s' is not conda repodata: %s", r->what,
			     rc == ARCHIVE_EOF ? "it is empty" : archive_error_string(a));
		goto out;
	}
	rc = 0;
	wp_json_reader_init(&json, &callbacks, r, &jo, r->err);
	for (;;) {
		la_ssize_t n = archive_read_data(a, buf, CHUNK);
		if (n < 0) {
			rc = wp_fail(r->err, -WPE_SOURCE, "'%s' does not decompress: %s", r->what,
				     archive_error_string(a) ? archive_error_string(a) :
							       "unknown error");
			goto out;
		}
		if (n == 0)
			break;
		out += (unsigned long long)n;
		long long in = archive_filter_bytes(a, -1);
		if (out > WP_REPODATA_RATIO_AFTER && in > 0 &&
		    out / (unsigned long long)in > WP_REPODATA_MAX_RATIO) {
			rc = wp_fail(r->err, -WPE_TOO_BIG,
				     "repodata '%s' expands more than %d-fold (%llu bytes from %lld): refusing a compression bomb",
				     r->what, WP_REPODATA_MAX_RATIO, out, in);
			goto out;
		}
		rc = wp_json_reader_feed(&json, buf, (size_t)n);
		if (rc)
			goto out;
	}
	rc = wp_json_reader_finish(&json);
	if (rc)
		goto out;
	if (!r->saw_packages) {
		fail(r, -WPE_SOURCE, "it has no \"packages\" or \"packages.conda\"");
		rc = r->rc;
	}
out:
	wp_json_reader_release(&json);
	archive_read_free(a);
	if (file)
		fclose(file);
	pkg_free(&r->p);
	wp_buf_free(&r->info_subdir);
	wp_buf_free(&r->info_base);
	wp_buf_free(&r->url);
	free(r->from);
	free(buf);
	return rc;
}

static int run(const char *path, const char *data, size_t len, const char *base_url,
	       wp_repodata_tap_fn *tap, void *tap_ctx, bool *tapped, wp_record_fn *sink, void *ctx,
	       struct wp_index_stats *stats, struct wp_err *err)
{
	struct wp_index_stats local;
	struct rd *r = wp_xcalloc(1, sizeof(*r));
	r->tap = tap;
	r->tap_ctx = tap_ctx;
	r->what = path ? path : base_url ? base_url : "";
	r->base_url = base_url;
	r->sink = sink;
	r->ctx = ctx;
	r->stats = stats ? stats : &local;
	r->err = err;
	memset(r->stats, 0, sizeof(*r->stats));
	int rc = read_stream(r, path, data, len);
	if (tapped)
		*tapped = !rc && r->tapped;
	free(r);
	return rc;
}

int wp_read_repodata_file(const char *path, const char *base_url, wp_record_fn *sink, void *ctx,
			  struct wp_index_stats *stats, struct wp_err *err)
{
	return run(path, NULL, 0, base_url, NULL, NULL, NULL, sink, ctx, stats, err);
}

int wp_read_repodata_file_tap(const char *path, const char *base_url, wp_repodata_tap_fn *tap,
			      void *tap_ctx, bool *tapped, wp_record_fn *sink, void *ctx,
			      struct wp_index_stats *stats, struct wp_err *err)
{
	return run(path, NULL, 0, base_url, tap, tap_ctx, tapped, sink, ctx, stats, err);
}

int wp_read_repodata_mem(const char *data, size_t len, const char *base_url, wp_record_fn *sink,
			 void *ctx, struct wp_index_stats *stats, struct wp_err *err)
{
	return run(NULL, data, len, base_url, NULL, NULL, NULL, sink, ctx, stats, err);
}
