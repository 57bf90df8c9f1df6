/* verify/wheel.c: wheel verification: our own central-directory walk for structure, libarchive
 * for the data, RECORD/WHEEL/METADATA for the meaning. */
#include "verify/wheel.h"
#include "base/buf.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/str.h"
#include "verify/hash.h"
#include "verify/metadata.h"
#include "verify/recordcsv.h"
#include "verify/wheelstream.h"
#include "verify/zipcd.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "resolver/gpucode.h"
#include "verify/fatbin.h"
#include "base/os/os.h"

#include <archive.h>
#include <archive_entry.h>

#define MAX_CD_SIZE (64LL << 20) /* central directory bytes: 200,000 members fit in ~30 MiB */
#define NAME_SHOW 160
/* how far back from the end a zip64 end record may lie (past it only a damaged or hostile zip) */
#define MAX_EOCD_REACH (1LL << 20)

struct member {
	char *name;           /* NUL-free (checked), NUL-terminated */
	uint64_t csize, usize, offset;
	uint32_t crc, ext_attr;
	uint16_t made_by, flags, method;
	bool is_dir, seen, in_record;
	uint64_t actual;      /* bytes libarchive produced */
	unsigned char sha256[WP_SHA256_LEN];
};

struct wheel {
	const char *path;
	char file[256];       /* the wheel's file name, for messages */
	struct wp_wheel_limits lim;
	int fd;
	uint64_t fsize;
	unsigned char *mem;   /* a small wheel's bytes, read once: every record read from here */
	struct member *m;     /* sorted by name once the central directory is read */
	size_t n;             /* members read so far */
	size_t cap;           /* members allocated (zeroed), all freed at the end */
	uint64_t cd_offset;
	char *dist_info;      /* "x-1.0.dist-info" */
	struct wp_buf record, wheelfile, metadata;
	struct wp_buf gpu_code;  /* its shared objects' GPU code, merged (resolver/gpucode.h) */
	bool any_so;             /* it has a shared object */
	char *gpu_problem;       /* the first complaint of the fatbinary reader, with its member */
};

static char *show(const char *name, char *buf)
{
	return wp_member_name_show(name, strlen(name), buf, NAME_SHOW);
}

/* A shared object's GPU code (code NULL: it was not read), folded into the wheel's. */
static void gpu_add(struct wheel *w, const char *member, const char *code, const char *problem)
{
	w->any_so = true;
	if (problem && !w->gpu_problem) {
		char nb[NAME_SHOW];
		w->gpu_problem = wp_xasprintf("member '%s': %s", show(member, nb), problem);
	}
	if (!code || !*code)
		return;
	struct wp_buf merged = WP_BUF_INIT;
	wp_gpucode_merge(wp_buf_cstr(&w->gpu_code), code, &merged);
	wp_buf_free(&w->gpu_code);
	w->gpu_code = merged;
}

/* Length of the valid UTF-8 sequence at p (2-4), or 1 for ASCII and for anything invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 1;
	if (p[0] < 0xc2 || len > n)
		return 1;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 1;
	/* Overlong three-byte forms and surrogates are not names anyone wrote. */
	if (len == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)))
		return 1;
	if (len == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
		return 1;
	return len;
}

char *wp_member_name_show(const char *name, size_t n, char *out, size_t outsz)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		size_t seq = utf8_len((const unsigned char *)name + i, n - i);
		if (o + 8 + seq >= outsz) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (seq > 1) {
			/* Valid UTF-8 passes as is; stray high bytes would garble a terminal. */
			memcpy(out + o, name + i, seq);
			o += seq;
			i += seq - 1;
		} else if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\') {
			o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = 0;
	return out;
}

const char *wp_member_name_problem(const char *name, size_t len)
{
	if (!len)
		return "has an empty name";
	if (memchr(name, 0, len))
		return "has a NUL byte in its name";
	if (memchr(name, '\\', len))
		return "has a backslash in its name (a Windows path separator)";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return "has a control character in its name";
	if (name[0] == '/')
		return "is an absolute path";
	if (len >= 2 && isalpha((unsigned char)name[0]) && name[1] == ':')
		return "names a drive";
	struct wp_str s = WP_STRN(name, len);
	while (s.n) {
		struct wp_str seg = wp_str_cut(&s, '/');
		if (wp_str_eq(seg, ".."))
			return "has a '..' segment";
		if (wp_str_eq(seg, "."))
			return "has a '.' segment";
		/* Only a directory's trailing slash may leave an empty segment. */
		if (!seg.n && s.n)
			return "has an empty segment";
	}
	return NULL;
}

#define WHOLE_MAX (1LL << 20) /* a wheel this small is read into memory whole, once */
static int read_at(struct wheel *w, void *buf, size_t n, uint64_t off, struct wp_err *err)
{
	size_t got = 0;
	if (off > w->fsize || n > w->fsize - off)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' is truncated: a record at byte %llu runs "
			       "past the end of the file", w->file, (unsigned long long)off);
	if (w->mem) {
		memcpy(buf, w->mem + off, n);
		return 0;
	}
	while (got < n) {
		ssize_t k = wp_os_pread(w->fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return wp_fs_fail(err, errno, "cannot read", w->path);
		if (k == 0)
			return wp_fail(err, -WPE_INTEGRITY, "'%s' shrank while being read",
				       w->file);
		got += (size_t)k;
	}
	return 0;
}

/* A small wheel read whole, once: every later read_at is a copy (one read instead of one per
 * header, name and member: a 200 KB wheel of 10 members took 33, and as many again for its SBOM).
 * What is read is then what is checked, even if the file changes meanwhile. */
static int read_whole(struct wheel *w, struct wp_err *err)
{
	unsigned char *mem = wp_xmalloc(w->fsize ? (size_t)w->fsize : 1);
	int rc = read_at(w, mem, (size_t)w->fsize, 0, err);
	if (rc)
		free(mem);
	else
		w->mem = mem;
	return rc;
}

/* What should have been a zip, said by its kind: HTML error pages and Git LFS pointers saved as
 * .whl are the usual suspects. Its bytes are never quoted: a lock or an index may name any file
 * (file:///etc/passwd with its true sha256), and a message must not show what is in it. */
static int not_zip(struct wheel *w, struct wp_err *err)
{
	unsigned char head[64];
	size_t n = w->fsize < sizeof(head) ? (size_t)w->fsize : sizeof(head), k = 0;
	if (!n)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' is not a zip archive (it is empty)",
			       w->file);
	int rc = read_at(w, head, n, 0, err);
	if (rc)
		return rc;
	while (k < n && isspace(head[k]))
		k++;
	const char *p = (const char *)head + k;
	size_t left = n - k;
	bool text = true;
	for (size_t i = 0; i < n && text; i++)
		text = head[i] >= 0x20 || head[i] == '\n' || head[i] == '\r' || head[i] == '\t';
	const char *kind = "binary data of another kind";
	if (left >= 5 && (!strncasecmp(p, "<!doc", 5) || !strncasecmp(p, "<html", 5) ||
			  !strncasecmp(p, "<?xml", 5)))
		kind = "an HTML or XML page: an error page saved as the file?";
	else if (left >= 24 && !memcmp(p, "version https://git-lfs", 23))
		kind = "a Git LFS pointer, not the file it points to";
	else if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		kind = "gzip data";
	else if (text)
		kind = "text";
	return wp_fail(err, -WPE_INTEGRITY, "'%s' is not a zip archive (it is %s)", w->file, kind);
}

/* Locate the end-of-central-directory record (and its zip64 form, read again with a window that
 * reaches it) and return where the central directory lies and how many entries it claims. */
static int find_eocd(struct wheel *w, uint64_t *cd_off, uint64_t *cd_size, uint64_t *count,
		     struct wp_err *err)
{
	unsigned char *tail = NULL;
	struct wp_zip_end end;
	int rc = 0;
	if (w->fsize < 22)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s' is truncated: too short for a zip archive", w->file);
	size_t tn = w->fsize < 22 + 65535 ? (size_t)w->fsize : 22 + 65535;
	for (int tries = 0;; tries++) {
		free(tail);
		tail = wp_xmalloc(tn);
		if ((rc = read_at(w, tail, tn, w->fsize - tn, err)) ||
		    (rc = wp_zip_end_read(w->file, tail, tn, w->fsize, UINT64_MAX, &end, err)))
			goto out;
		if (!end.need_more)
			break;
		/* the zip64 records lie before the tail: read back to them, a bounded reach */
		if (tries == 2 || w->fsize - end.need_from > MAX_EOCD_REACH) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': damaged zip64 end of central directory", w->file);
			goto out;
		}
		tn = (size_t)(w->fsize - end.need_from);
	}
	*cd_off = end.cd_offset;
	*cd_size = end.cd_size;
	*count = end.n_entries;
	/* Data before the first member (a self-extractor stub, a prepended page) shifts every
	 * offset; pip's zipfile papers over it, a verifier should not. */
	if (*cd_size != end.end_start - *cd_off)
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s': the central directory (%llu bytes at %llu) "
			     "does not end where its end record starts (%llu)",
			     w->file, (unsigned long long)*cd_size, (unsigned long long)*cd_off,
			     (unsigned long long)end.end_start);
out:
	free(tail);
	return rc;
}

static int cmp_member(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->name, ((const struct member *)b)->name);
}

static int cmp_offset(const void *a, const void *b)
{
	const struct member *x = *(struct member *const *)a, *y = *(struct member *const *)b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static struct member *find(struct wheel *w, const char *name)
{
	struct member key = { .name = (char *)name };
	return bsearch(&key, w->m, w->n, sizeof(*w->m), cmp_member);
}

static int read_central_directory(struct wheel *w, struct wp_err *err)
{
	uint64_t cd_off = 0, cd_size = 0, count = 0;
	unsigned char *cd = NULL;
	char nb[NAME_SHOW];
	int rc = find_eocd(w, &cd_off, &cd_size, &count, err);
	if (rc)
		return rc;
	if (count > (uint64_t)w->lim.max_members) {
		return wp_fail(err, -WPE_INTEGRITY, "'%s' has %llu members, over the limit of %lld",
			       w->file, (unsigned long long)count, w->lim.max_members);
	}
	if (cd_size > MAX_CD_SIZE || cd_size < count * 46)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': a central directory of %llu bytes cannot "
			       "hold %llu members",
			       w->file, (unsigned long long)cd_size, (unsigned long long)count);
	w->cd_offset = cd_off;
	cd = wp_xmalloc(cd_size ? cd_size : 1);
	if ((rc = read_at(w, cd, cd_size, cd_off, err)))
		goto out;
	w->m = wp_xcalloc(count ? count : 1, sizeof(*w->m));
	w->cap = count;
	uint64_t total = 0;
	size_t pos = 0;
	for (w->n = 0; w->n < count; w->n++) {
		struct member *m = &w->m[w->n];
		struct wp_zip_entry e;
		int er = wp_zip_entry_read(cd, (size_t)cd_size, pos, &e);
		if (er) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     er == WP_ZIP_ENTRY_BAD ?
					     "'%s': central directory entry %zu is damaged" :
					     "'%s': central directory entry %zu runs past its end",
				     w->file, w->n + 1);
			goto out;
		}
		const char *name = (const char *)e.name;
		size_t nlen = e.name_len;
		const char *why = wp_member_name_problem(name, nlen);
		if (why) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' %s", w->file,
				     wp_member_name_show(name, nlen, nb, sizeof(nb)), why);
			goto out;
		}
		m->name = wp_xstrndup(name, nlen);
		m->is_dir = name[nlen - 1] == '/';
		if (wp_zip_entry_zip64(&e)) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' lacks its zip64 sizes",
				     w->file, show(m->name, nb));
			goto out;
		}
		m->made_by = e.made_by;
		m->flags = e.flags;
		m->method = e.method;
		m->crc = e.crc32;
		m->csize = e.comp_size;
		m->usize = e.size;
		m->ext_attr = e.ext_attr;
		m->offset = e.local_offset;
		pos = e.next;

		unsigned host = m->made_by >> 8, mode = m->ext_attr >> 16;
		/* Unix (3) and macOS (19) zips keep st_mode in the high half of the attributes. */
		if ((host == 3 || host == 19) && (mode & WP_S_IFMT) && !WP_S_ISREG(mode) &&
		    !WP_S_ISDIR(mode)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' is a %s, not a regular file", w->file,
				     show(m->name, nb),
				     WP_S_ISLNK(mode) ? "symlink" : "special file");
			goto out;
		}
		if (m->flags & 1) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' is encrypted", w->file,
				     show(m->name, nb));
			goto out;
		}
		if (m->usize > (uint64_t)w->lim.ratio_min_size &&
		    m->usize / (m->csize ? m->csize : 1) > (uint64_t)w->lim.max_ratio) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' claims to expand %llu bytes "
				     "into %llu (over %lld:1): a zip bomb",
				     w->file, show(m->name, nb), (unsigned long long)m->csize,
				     (unsigned long long)m->usize, w->lim.max_ratio);
			goto out;
		}
		total += m->usize;
		if (total > (uint64_t)w->lim.max_total_size) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s' unpacks to more than %lld bytes (the "
				     "limit)",
				     w->file, w->lim.max_total_size);
			goto out;
		}
	}
	qsort(w->m, w->n, sizeof(*w->m), cmp_member);
	for (size_t i = 1; i < w->n; i++) {
		if (strcmp(w->m[i - 1].name, w->m[i].name) == 0) {
			/* Two tools can pick different copies: the one verified need not be the one
			 * installed. */
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' appears twice",
				     w->file, show(w->m[i].name, nb));
			goto out;
		}
	}
out:
	free(cd);
	return rc;
}

/* Each local header must name the same member as its central entry, and no member's bytes may
 * overlap another's: this is what a streaming reader sees, so both readings agree, and
 * overlapping members are the "better zip bomb". */
static int check_local_headers(struct wheel *w, struct wp_err *err)
{
	struct member **byoff = wp_xmalloc((w->n ? w->n : 1) * sizeof(*byoff));
	char *lname = NULL;
	unsigned char *hn = NULL; /* a local header and the name the central directory expects after
				     it */
	size_t hn_cap = 0;
	char nb[NAME_SHOW], lb[NAME_SHOW];
	int rc = 0;
	for (size_t i = 0; i < w->n; i++)
		byoff[i] = &w->m[i];
	qsort(byoff, w->n, sizeof(*byoff), cmp_offset);
	uint64_t prev_end = 0;
	for (size_t i = 0; i < w->n; i++) {
		struct member *m = byoff[i];
		size_t cn = strlen(m->name);
		if (m->offset < prev_end) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' overlaps the member before "
				     "it",
				     w->file, show(m->name, nb));
			goto out;
		}
		/* the header and the name it should hold in one read (a big wheel's install read
		 * them apart: two preads per member); a name past the end is read apart, as before,
		 * so that a damaged file gets the same words */
		bool both = m->offset <= w->fsize && 30 + cn <= w->fsize - m->offset;
		if (30 + cn > hn_cap) {
			hn_cap = 30 + cn;
			free(hn);
			hn = wp_xmalloc(hn_cap);
		}
		if ((rc = read_at(w, hn, both ? 30 + cn : 30, m->offset, err)))
			goto out;
		const unsigned char *h = hn;
		size_t nlen = wp_le16(h + 26), xlen = wp_le16(h + 28);
		if (wp_le32(h) != 0x04034b50) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' has no local header at "
				     "byte %llu",
				     w->file, show(m->name, nb), (unsigned long long)m->offset);
			goto out;
		}
		free(lname);
		lname = wp_xmalloc(nlen + 1);
		if (both && nlen == cn)
			memcpy(lname, hn + 30, nlen);
		else if ((rc = read_at(w, lname, nlen, m->offset + 30, err)))
			goto out;
		lname[nlen] = 0;
		if (nlen != strlen(m->name) || memcmp(lname, m->name, nlen) != 0) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' is called '%s' in its local "
				     "header: the central directory and the data disagree",
				     w->file, show(m->name, nb),
				     wp_member_name_show(lname, nlen, lb, sizeof(lb)));
			goto out;
		}
		if (wp_le16(h + 8) != m->method ||
		    (!(m->flags & 8) && wp_le32(h + 14) != m->crc)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s': the local header and the "
				     "central directory disagree (method or crc)",
				     w->file, show(m->name, nb));
			goto out;
		}
		prev_end = m->offset + 30 + nlen + xlen + m->csize;
		if (prev_end > w->cd_offset) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' runs into the central "
				     "directory (truncated or damaged)",
				     w->file, show(m->name, nb));
			goto out;
		}
	}
out:
	free(lname);
	free(hn);
	free(byoff);
	return rc;
}

/* Percent-decoding, for file names saved straight from a URL (torch-1.8.0%2Bcu111-...). */
static char *unquote(struct wp_str s)
{
	char *out = wp_xmalloc(s.n + 1);
	size_t o = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == '%' && i + 2 < s.n && isxdigit((unsigned char)s.p[i + 1]) &&
		    isxdigit((unsigned char)s.p[i + 2])) {
			char hex[3] = { s.p[i + 1], s.p[i + 2], 0 };
			out[o++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			out[o++] = s.p[i];
		}
	}
	out[o] = 0;
	return out;
}

/* PEP 503 normalisation, so Foo.Bar, foo_bar and foo-bar all compare equal. */
static char *normalize(struct wp_str s)
{
	char *out = wp_xmalloc(s.n + 1);
	size_t o = 0;
	for (size_t i = 0; i < s.n; i++) {
		char c = s.p[i];
		if (c == '-' || c == '_' || c == '.') {
			if (o && out[o - 1] == '-')
				continue;
			out[o++] = '-';
		} else {
			out[o++] = (char)tolower((unsigned char)c);
		}
	}
	out[o] = 0;
	return out;
}

static bool same_name(struct wp_str a, struct wp_str b)
{
	char *x = normalize(a), *y = normalize(b);
	bool eq = strcmp(x, y) == 0;
	free(x);
	free(y);
	return eq;
}

static bool same_version(struct wp_str a, struct wp_str b)
{
	char *x = unquote(a), *y = unquote(b);
	bool eq = strcasecmp(x, y) == 0;
	free(x);
	free(y);
	return eq;
}

/* The one top-level *.dist-info directory, and that it belongs to this file's name-version. */
static int find_dist_info(struct wheel *w, struct wp_str fname, struct wp_str fversion,
			  struct wp_err *err)
{
	char nb[NAME_SHOW];
	for (size_t i = 0; i < w->n; i++) {
		struct wp_str s = WP_STR(w->m[i].name);
		struct wp_str top = wp_str_cut(&s, '/');
		if (s.p == top.p + top.n || !wp_str_endswith(top, ".dist-info"))
			continue;
		if (w->dist_info && wp_str_eq(top, w->dist_info))
			continue;
		if (w->dist_info)
			return wp_fail(err, -WPE_INTEGRITY, "'%s' has more than one .dist-info "
				       "directory: '%s' and '%.*s'", w->file, w->dist_info,
				       WP_STR_FMT(top));
		w->dist_info = wp_xstrndup(top.p, top.n);
	}
	if (!w->dist_info)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' has no .dist-info directory", w->file);
	struct wp_str di = WP_STR(w->dist_info);
	di.n -= strlen(".dist-info");
	struct wp_str dname = wp_str_cut(&di, '-');
	if (!di.n || !same_name(dname, fname) || !same_version(di, fversion))
		return wp_fail(err, -WPE_INTEGRITY, "'%s': dist-info directory '%s' does not match "
			       "the file name's '%.*s-%.*s'", w->file, show(w->dist_info, nb),
			       WP_STR_FMT(fname), WP_STR_FMT(fversion));
	return 0;
}

static struct wp_buf *capture_for(struct wheel *w, const char *name)
{
	size_t dl = strlen(w->dist_info);
	if (strncmp(name, w->dist_info, dl) != 0 || name[dl] != '/')
		return NULL;
	if (strcmp(name + dl + 1, "RECORD") == 0)
		return &w->record;
	if (strcmp(name + dl + 1, "WHEEL") == 0)
		return &w->wheelfile;
	if (strcmp(name + dl + 1, "METADATA") == 0)
		return &w->metadata;
	return NULL;
}

/* Stream every member through libarchive (seekable: the central directory decides), hashing as
 * it goes and holding the three dist-info files we parse. */
static int read_members(struct wheel *w, struct wp_err *err)
{
	/* a download's check comes here only when the stream could not follow the wheel: libarchive
	 * is loaded then (thread-safe), not for every fetch */
	int lrc = wp_lazy_require(WP_LIB_ARCHIVE, err);
	if (lrc)
		return lrc;
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	enum { BLOCK = 1 << 20 }; /* bytes per read(2) */
	char nb[NAME_SHOW];
	uint64_t total = 0;
	int rc = 0, r;
	archive_read_support_format_zip_seekable(a);
	if (wp_os_lseek(w->fd, 0, SEEK_SET) < 0 ||
	    archive_read_open_fd(a, w->fd, BLOCK) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' cannot be opened as a zip archive: %s",
			     w->file,
			     archive_error_string(a) ? archive_error_string(a) : "unknown");
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname_utf8(e);
		if (!name)
			name = archive_entry_pathname(e);
		struct member *m = name ? find(w, name) : NULL;
		if (!m) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': the archive yields a member '%s' that its "
				     "central directory does not list",
				     w->file, name ? show(name, nb) : "(undecodable name)");
			goto out;
		}
		if (m->seen) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' appears twice",
				     w->file, show(m->name, nb));
			goto out;
		}
		m->seen = true;
		mode_t type = archive_entry_filetype(e);
		if (archive_entry_hardlink(e) || (type != AE_IFREG && type != AE_IFDIR)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' is a %s, not a regular file", w->file,
				     show(m->name, nb),
				     type == AE_IFLNK          ? "symlink" :
				     archive_entry_hardlink(e) ? "hard link" :
								 "special file");
			goto out;
		}
		if (type == AE_IFDIR || m->is_dir)
			continue;
		struct wp_buf *cap = capture_for(w, m->name);
		struct wp_hasher h;
		if ((rc = wp_hasher_init(&h, WP_HASH_SHA256, err)))
			goto out;
		struct wp_fatbin_scan *fbs = wp_fatbin_wanted(m->name) ? wp_fatbin_scan_new() :
									 NULL;
		uint64_t limit = (uint64_t)w->lim.max_ratio * (m->csize ? m->csize : 1);
		if (limit < (uint64_t)w->lim.ratio_min_size)
			limit = (uint64_t)w->lim.ratio_min_size;
		for (;;) {
			/* libarchive's own buffer, not a copy: this loop reads every byte of the
			 * wheel */
			const void *blk;
			size_t k;
			la_int64_t at;
			int d = archive_read_data_block(a, &blk, &k, &at);
			if (d == ARCHIVE_EOF)
				break;
			if (d != ARCHIVE_OK || at != (la_int64_t)m->actual) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' cannot be read: %s", w->file,
					     show(m->name, nb),
					     d != ARCHIVE_OK && archive_error_string(a) ?
						     archive_error_string(a) :
						     "a gap in its data");
				break;
			}
			wp_hasher_update(&h, blk, k);
			if (fbs)
				wp_fatbin_scan_feed(fbs, blk, k);
			m->actual += (uint64_t)k;
			total += (uint64_t)k;
			/* The central directory's sizes are claims; these checks hold the bytes. */
			if (m->actual > m->usize) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' holds more than the "
					     "%llu bytes its header says",
					     w->file, show(m->name, nb),
					     (unsigned long long)m->usize);
				break;
			}
			if (m->actual > limit) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' expands %llu bytes "
					     "past %lld:1: a zip bomb",
					     w->file, show(m->name, nb),
					     (unsigned long long)m->csize, w->lim.max_ratio);
				break;
			}
			if (total > (uint64_t)w->lim.max_total_size) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s' unpacks to more than %lld bytes "
					     "(the limit)",
					     w->file, w->lim.max_total_size);
				break;
			}
			if (cap && wp_buf_add(cap, blk, k) < 0) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' is larger than %zu "
					     "bytes",
					     w->file, show(m->name, nb), cap->max);
				break;
			}
		}
		if (!rc)
			rc = wp_hasher_final_raw(&h, m->sha256, NULL, err);
		wp_hasher_release(&h);
		if (fbs && !rc) {
			struct wp_fatbin fb = { 0 };
			struct wp_buf sum = WP_BUF_INIT;
			struct wp_err fe = WP_ERR_INIT;
			int frc = wp_fatbin_scan_finish(fbs, m->name, &fb, &fe);
			wp_fatbin_summary(&fb, &sum);
			gpu_add(w, m->name, wp_buf_cstr(&sum), frc ? fe.msg : NULL);
			wp_buf_free(&sum);
			wp_fatbin_free(&fb);
		}
		wp_fatbin_scan_free(fbs);
		if (rc)
			goto out;
		if (m->actual != m->usize) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' holds %llu bytes, its header "
				     "says %llu",
				     w->file, show(m->name, nb), (unsigned long long)m->actual,
				     (unsigned long long)m->usize);
			goto out;
		}
	}
	if (r != ARCHIVE_EOF) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' cannot be read as a zip archive: %s",
			     w->file,
			     archive_error_string(a) ? archive_error_string(a) : "unknown error");
		goto out;
	}
	for (size_t i = 0; i < w->n; i++) {
		if (!w->m[i].seen && !w->m[i].is_dir) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' is listed but could not be "
				     "read",
				     w->file, show(w->m[i].name, nb));
			goto out;
		}
	}
out:
	archive_read_free(a);
	return rc;
}

static int cmp_soffset(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, o = ((const struct wp_wheel_smember *)elem)->offset;
	return k < o ? -1 : k > o;
}

static bool may_lack_hash(struct wheel *w, const char *path);

/* The members' hashes and sizes as the download streamed them, instead of a second pass: taken
 * only when every central directory entry has a member the stream followed to its end at its
 * offset, under the same name, method and sizes, within the limits, with nothing else between
 * them. The bytes whose hashes RECORD checks are then exactly the bytes that were hashed, so
 * libarchive's CRC-32 adds nothing; the dist-info files RECORD cannot hash keep their CRC check.
 * false (nothing taken) hands everything to read_members, which says what is wrong. */
static bool take_streamed(struct wheel *w, struct wp_wheel_stream *s)
{
	size_t ns = 0;
	uint64_t total = 0;
	wp_wheel_stream_settle(s);
	if (!wp_wheel_stream_complete(s))
		return false;
	const struct wp_wheel_smember *all = wp_wheel_stream_members(s, &ns);
	if (ns != w->n)
		return false;
	for (size_t i = 0; i < w->n; i++) {
		const struct member *m = &w->m[i];
		const struct wp_wheel_smember *sm = bsearch(&m->offset, all, ns, sizeof(*all),
							    cmp_soffset);
		if (!sm || !sm->done || sm->bad || strcmp(sm->name, m->name) != 0 ||
		    sm->method != m->method || sm->csize != m->csize || sm->actual != m->usize ||
		    sm->is_dir != m->is_dir)
			return false;
		if (capture_for(w, m->name) && !sm->captured)
			return false;
		if (may_lack_hash(w, m->name) && (!sm->crc_checked || sm->crc != m->crc))
			return false;
		if (sm->crc_checked && sm->crc != m->crc)
			return false; /* a stream of the verifier's own checks every CRC, as the
					 full pass */
		total += sm->actual;
	}
	if (total > (uint64_t)w->lim.max_total_size)
		return false;
	for (size_t i = 0; i < w->n; i++) {
		struct member *m = &w->m[i];
		struct wp_wheel_smember
			*sm = wp_wheel_stream_take(s, (size_t)((const struct wp_wheel_smember *)
								       bsearch(&m->offset, all, ns,
									       sizeof(*all),
									       cmp_soffset) -
							       all));
		struct wp_buf *cap = capture_for(w, m->name);
		m->seen = true;
		m->actual = sm->actual;
		memcpy(m->sha256, sm->sha256, sizeof(m->sha256));
		if (sm->shared_object)
			gpu_add(w, m->name, sm->gpu_code, sm->gpu_problem);
		if (cap) {
			/* the same ceilings: the stream's limits are the verifier's */
			wp_buf_free(cap);
			cap->data = sm->capture.data;
			cap->len = sm->capture.len;
			cap->cap = sm->capture.cap;
			sm->capture = (struct wp_buf)WP_BUF_INIT;
		}
	}
	return true;
}

static bool may_lack_hash(struct wheel *w, const char *path)
{
	size_t dl = strlen(w->dist_info);
	if (strncmp(path, w->dist_info, dl) != 0 || path[dl] != '/')
		return false;
	path += dl + 1;
	return !strcmp(path, "RECORD") || !strcmp(path, "RECORD.jws") ||
	       !strcmp(path, "RECORD.p7s");
}

static bool is_signature(struct wheel *w, const char *path)
{
	size_t dl = strlen(w->dist_info);
	return !strncmp(path, w->dist_info, dl) && path[dl] == '/' &&
	       (!strcmp(path + dl + 1, "RECORD.jws") || !strcmp(path + dl + 1, "RECORD.p7s"));
}

static int check_row(struct wheel *w, int line, struct wp_buf f[3], struct wp_err *err)
{
	char nb[NAME_SHOW];
	char got[(WP_SHA256_LEN + 2) / 3 * 4 + 1];
	const char *path = wp_buf_cstr(&f[0]);
	struct member *m = strlen(path) == f[0].len ? find(w, path) : NULL;
	if (!m || m->is_dir)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': RECORD lists '%s', which the wheel does "
			       "not contain", w->file, wp_member_name_show(f[0].data, f[0].len, nb,
			       sizeof(nb)));
	if (m->in_record)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': RECORD lists '%s' twice", w->file,
			       show(m->name, nb));
	m->in_record = true;
	struct wp_str hash = WP_STRN(wp_buf_cstr(&f[1]), f[1].len);
	if (!hash.n) {
		if (may_lack_hash(w, m->name))
			goto size;
		return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' has no hash in RECORD",
			       w->file, show(m->name, nb));
	}
	struct wp_str alg = wp_str_cut(&hash, '=');
	if (!wp_str_eq(alg, "sha256"))
		return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s': RECORD uses hash '%.*s', "
			       "which wheelpick does not check (sha256 only)", w->file,
			       show(m->name, nb), alg.n > 20 ? 20 : (int)alg.n, alg.p);
	while (hash.n && hash.p[hash.n - 1] == '=')
		hash.n--;
	wp_b64url_encode(m->sha256, sizeof(m->sha256), got);
	if (!wp_str_eq(hash, got))
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': member '%s': sha256 mismatch: RECORD says "
			       "%.*s, got %s",
			       w->file, show(m->name, nb), hash.n > 64 ? 64 : (int)hash.n, hash.p,
			       got);
size:;
	long long size;
	struct wp_str sz = wp_str_trim(WP_STRN(wp_buf_cstr(&f[2]), f[2].len));
	if (!sz.n)
		return 0;
	if (!wp_str_to_ll(sz, &size))
		return wp_fail(err, -WPE_INTEGRITY, "'%s': RECORD line %d: bad size '%.*s'",
			       w->file, line, sz.n > 30 ? 30 : (int)sz.n, sz.p);
	if ((unsigned long long)size != m->actual)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': member '%s': size mismatch: RECORD says %lld "
			       "bytes, got %llu",
			       w->file, show(m->name, nb), size, (unsigned long long)m->actual);
	return 0;
}

static int check_record(struct wheel *w, struct wp_err *err)
{
	struct wp_buf f[3] = { WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT }, extra = WP_BUF_INIT;
	struct wp_str s = WP_STRN(wp_buf_cstr(&w->record), w->record.len);
	char nb[NAME_SHOW];
	char *rec = wp_xasprintf("%s/RECORD", w->dist_info);
	int rc = 0, line = 0;
	struct member *rm = find(w, rec);
	if (!rm || !rm->seen) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' has no '%s'", w->file, show(rec, nb));
		goto out;
	}
	if (memchr(s.p, 0, s.n)) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': RECORD contains a NUL byte", w->file);
		goto out;
	}
	while (s.n) {
		line++;
		int nf = wp_record_row(&s, f, &extra);
		if (nf < 0) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': RECORD line %d has a broken quote",
				     w->file, line);
			goto out;
		}
		if (nf == 1 && !f[0].len)
			continue;
		if (nf != 3) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': RECORD line %d has %d fields, not 3 "
				     "(path,hash,size)",
				     w->file, line, nf);
			goto out;
		}
		if ((rc = check_row(w, line, f, err)))
			goto out;
	}
	for (size_t i = 0; i < w->n; i++) {
		/* the wheel spec: RECORD.jws and RECORD.p7s sign RECORD, so RECORD cannot list
		 * them */
		if (!w->m[i].is_dir && !w->m[i].in_record && !is_signature(w, w->m[i].name)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' is not listed in RECORD", w->file,
				     show(w->m[i].name, nb));
			goto out;
		}
	}
out:
	for (int i = 0; i < 3; i++)
		wp_buf_free(&f[i]);
	wp_buf_free(&extra);
	free(rec);
	return rc;
}

static int check_meta(struct wheel *w, struct wp_str fname, struct wp_str fversion,
		      struct wp_wheel_info *info, struct wp_err *err)
{
	struct wp_metadata md;
	struct wp_wheelfile wf;
	struct wp_err sub = WP_ERR_INIT;
	bool have_md = false, have_wf = false;
	int rc = 0;
	char *wpath = wp_xasprintf("%s/WHEEL", w->dist_info);
	char *mpath = wp_xasprintf("%s/METADATA", w->dist_info);
	if (!find(w, wpath) || !find(w, mpath)) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' has no '%s'", w->file,
			     find(w, wpath) ? mpath : wpath);
		goto out;
	}
	if (wp_wheelfile_parse(wp_buf_cstr(&w->wheelfile), w->wheelfile.len, &wf, &sub)) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s': %s", w->file, wpath, sub.msg);
		goto out;
	}
	have_wf = true;
	if (wp_metadata_parse(wp_buf_cstr(&w->metadata), w->metadata.len, &md, &sub)) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s': %s", w->file, mpath, sub.msg);
		goto out;
	}
	have_md = true;
	if (!same_name(WP_STR(md.name), fname) || !same_version(WP_STR(md.version), fversion)) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s': member '%s' says '%s %s', the file name says "
			     "'%.*s %.*s'",
			     w->file, mpath, md.name, md.version, WP_STR_FMT(fname),
			     WP_STR_FMT(fversion));
		goto out;
	}
	if (info) {
		info->name = md.name;
		info->version = md.version;
		info->requires_python = md.requires_python;
		info->requires_dist = md.requires_dist;
		info->n_requires_dist = md.n_requires_dist;
		info->provides_extra = md.provides_extra;
		info->n_provides_extra = md.n_provides_extra;
		md.name = md.version = md.requires_python = NULL;
		md.requires_dist = md.provides_extra = NULL;
		md.n_requires_dist = md.n_provides_extra = 0;
		info->tags = wf.tags;
		info->n_tags = wf.n_tags;
		info->root_is_purelib = wf.root_is_purelib;
		info->wheel_version = wf.wheel_version;
		wf.tags = NULL;
		wf.n_tags = 0;
		wf.wheel_version = NULL;
	}
out:
	if (have_md)
		wp_metadata_release(&md);
	if (have_wf)
		wp_wheelfile_release(&wf);
	free(wpath);
	free(mpath);
	return rc;
}

/* A wheel checked with no stream from its download, big enough to pay for threads: its bytes up to
 * the central directory fed to a stream of its own whose pool inflates and hashes the deflated
 * members on every core, reading them back through the verifier's own descriptor. NULL when it is
 * small, or cannot be read here (the full pass then reads it, and says what is wrong). */
#define OWN_STREAM_MIN (4LL << 20)
static struct wp_wheel_stream *own_stream(struct wheel *w)
{
	enum { BLOCK = 1 << 20 };
	if (w->fsize < (uint64_t)OWN_STREAM_MIN)
		return NULL;
	struct wp_wheel_stream *s = wp_wheel_stream_new(&w->lim);
	if (wp_wheel_stream_use_fd(s, w->fd, 0)) {
		wp_wheel_stream_free(s);
		return NULL;
	}
	unsigned char *buf = wp_xmalloc(BLOCK);
	uint64_t end = w->cd_offset + 4 < w->fsize ? w->cd_offset + 4 : w->fsize;
	for (uint64_t off = 0; off < end;) {
		size_t want = end - off < BLOCK ? (size_t)(end - off) : BLOCK;
		ssize_t k = wp_os_pread(w->fd, buf, want, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* the stream stays incomplete: the full pass */
		wp_wheel_stream_feed(s, buf, (size_t)k);
		off += (uint64_t)k;
	}
	free(buf);
	return s;
}

static int verify(const char *path, const char *filename, struct wp_wheel_stream *stream,
		  const struct wp_wheel_limits *lim, struct wp_wheel_info *info, struct wp_err *err)
{
	struct wp_wheel_stream *own = NULL;
	struct wheel w = { .path = path, .fd = -1 };
	struct wp_os_stat sb;
	unsigned char magic[4];
	int rc = 0;
	if (info)
		memset(info, 0, sizeof(*info));
	wp_wheel_limits_fill(&w.lim, lim);
	/* the name after the last separator: a Windows path has '\\' too */
	const char *base_name = wp_path_base(filename);
	wp_member_name_show(base_name, strlen(base_name), w.file, sizeof(w.file));
	w.record = (struct wp_buf)WP_BUF_INIT_MAX((size_t)w.lim.max_record);
	w.wheelfile = (struct wp_buf)WP_BUF_INIT_MAX(WP_METADATA_MAX_LEN);
	w.metadata = (struct wp_buf)WP_BUF_INIT_MAX(WP_METADATA_MAX_LEN);

	w.fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (w.fd < 0 || wp_os_fstat(w.fd, &sb) < 0) {
		rc = wp_fs_fail(err, errno, "cannot open", path);
		goto out;
	}
	if (!WP_S_ISREG(sb.st_mode)) {
		rc = wp_fail(err, -WPE_IO, "'%s' is not a regular file", path);
		goto out;
	}
	w.fsize = (uint64_t)sb.st_size;
	if (w.fsize <= WHOLE_MAX && (rc = read_whole(&w, err)))
		goto out;
	if (w.fsize >= 4 && (rc = read_at(&w, magic, 4, 0, err)))
		goto out;
	if (w.fsize < 4 || (memcmp(magic, "PK\3\4", 4) != 0 && memcmp(magic, "PK\5\6", 4) != 0)) {
		rc = not_zip(&w, err);
		goto out;
	}

	/* name-version(-build)?-python-abi-platform.whl */
	struct wp_str base = WP_STR(base_name), parts[7];
	int np = 0;
	if (!wp_str_endswith(base, ".whl")) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not named like a wheel (*.whl)", w.file);
		goto out;
	}
	base.n -= 4;
	while (base.n && np < 7)
		parts[np++] = wp_str_cut(&base, '-');
	if (np < 5 || np > 6 || base.n || !parts[0].n || !parts[1].n) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not a wheel file name "
			     "(name-version-python-abi-platform.whl)", w.file);
		goto out;
	}

	if ((rc = read_central_directory(&w, err)) || (rc = check_local_headers(&w, err)) ||
	    (rc = find_dist_info(&w, parts[0], parts[1], err)))
		goto out;
	if (!stream)
		stream = own = own_stream(&w);
	if ((rc = stream && take_streamed(&w, stream) ? 0 : read_members(&w, err)) ||
	    (rc = check_record(&w, err)) || (rc = check_meta(&w, parts[0], parts[1], info, err)))
		goto out;
	if (info) {
		info->dist_info = w.dist_info;
		w.dist_info = NULL;
		info->n_members = (long long)w.n;
		if (w.any_so)
			info->gpu_code = wp_xstrdup(wp_buf_cstr(&w.gpu_code));
		info->gpu_problem = w.gpu_problem;
		w.gpu_problem = NULL;
		for (size_t i = 0; i < w.n; i++)
			info->unpacked_size += (long long)w.m[i].actual;
	}
out:
	wp_wheel_stream_free(own);
	if (rc && info)
		wp_wheel_info_release(info);
	if (w.fd >= 0)
		wp_os_close(w.fd);
	free(w.mem);
	for (size_t i = 0; i < w.cap; i++)
		free(w.m[i].name);
	free(w.m);
	free(w.dist_info);
	wp_buf_free(&w.record);
	wp_buf_free(&w.wheelfile);
	wp_buf_free(&w.metadata);
	wp_buf_free(&w.gpu_code);
	free(w.gpu_problem);
	return rc;
}

int wp_wheel_verify_named(const char *path, const char *filename, const struct wp_wheel_limits *lim,
			  struct wp_wheel_info *info, struct wp_err *err)
{
	return verify(path, filename, NULL, lim, info, err);
}

int wp_wheel_verify_streamed(const char *path, const char *filename, struct wp_wheel_stream *s,
			     const struct wp_wheel_limits *lim, struct wp_wheel_info *info,
			     struct wp_err *err)
{
	return verify(path, filename, s, lim, info, err);
}

int wp_wheel_verify(const char *path, const struct wp_wheel_limits *lim, struct wp_wheel_info *info,
		    struct wp_err *err)
{
	return wp_wheel_verify_named(path, path, lim, info, err);
}

static void free_list(char **a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(a[i]);
	free(a);
}

void wp_wheel_info_release(struct wp_wheel_info *info)
{
	free(info->name);
	free(info->version);
	free(info->requires_python);
	free_list(info->requires_dist, info->n_requires_dist);
	free_list(info->provides_extra, info->n_provides_extra);
	free_list(info->tags, info->n_tags);
	free(info->wheel_version);
	free(info->dist_info);
	free(info->gpu_code);
	free(info->gpu_problem);
	memset(info, 0, sizeof(*info));
}

/* ---- a wheel opened for installing: one inflate per byte, hashed on the way out ---- */

#include <zlib.h>

struct wp_wheel_reader {
	struct wheel w;
	char *filename;
};

size_t wp_wheel_reader_count(const struct wp_wheel_reader *r)
{
	return r->w.n;
}

void wp_wheel_reader_entry(const struct wp_wheel_reader *r, size_t i, struct wp_wheel_entry *e)
{
	const struct member *m = &r->w.m[i];
	unsigned host = m->made_by >> 8;
	e->name = m->name;
	e->size = m->usize;
	e->mode = host == 3 || host == 19 ? (m->ext_attr >> 16) & 0xffff : 0;
	e->is_dir = m->is_dir;
}

#ifndef WP_ISAL
#define WP_ISAL 0 /* the Makefile says (ISAL=1 by default) */
#endif
#if WP_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

/* CRC-32 of n bytes after crc (zlib's crc32; ISA-L's is the same function, 4x faster here). */
static uint32_t crc_more(uint32_t crc, const unsigned char *p, size_t n)
{
#if WP_ISAL
	return crc32_gzip_refl(crc, p, (uint64_t)n);
#else
	return (uint32_t)crc32(crc, p, (uInt)n);
#endif
}

/* Whether an installed member's CRC-32 is checked as it inflates: only the .dist-info folder's.
 * Every other member must have a sha256 in RECORD (check_row refuses one without, and one RECORD
 * does not list), and wp_wheel_reader_check compares it with the sha256 of the very bytes
 * extract_member produced, before anything is committed: its CRC-32 could only refuse bytes that
 * RECORD's hash already refuses (a CRC made to match changed bytes passes it, never the hash).
 * What it alone refused: a CRC field that is wrong over bytes that are exactly RECORD's, which
 * the download's check (verify/wheelstream.c) never refused either. The .dist-info files keep it:
 * RECORD and its signatures cannot hash themselves, and WHEEL, METADATA and entry_points.txt are
 * read and acted on while the wheel is planned, before the RECORD check. */
static bool wants_crc(const struct wheel *w, const char *name)
{
	size_t dl = w->dist_info ? strlen(w->dist_info) : 0;
	return !dl || (!strncmp(name, w->dist_info, dl) && name[dl] == '/');
}

/* Uncompressed bytes of an extracted member: counted against its header and the ratio limit,
 * hashed, CRC'd when wanted, handed to the sink. */
static int extracted(struct wheel *w, struct member *m, const unsigned char *p, size_t n,
		     uint64_t limit, struct wp_hasher *hs, bool crc_on, uint32_t *crc,
		     uint64_t *actual, wp_wheel_sink_fn *sink, void *ctx, struct wp_err *err)
{
	char nb[NAME_SHOW];
	*actual += n;
	if (m->method == 0 && *actual > m->usize)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': member '%s' holds more than the %llu bytes its header says",
			       w->file, show(m->name, nb), (unsigned long long)m->usize);
	if (*actual > m->usize || *actual > limit)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' inflates past %s", w->file,
			       show(m->name, nb),
			       *actual > m->usize ? "the size its header says" :
						    "the ratio limit: a zip bomb");
	wp_hasher_update(hs, p, n);
	if (crc_on)
		*crc = crc_more(*crc, p, n);
	return sink ? sink(ctx, p, n, err) : 0;
}

static int extract_member(struct wheel *w, struct member *m, wp_wheel_sink_fn *sink, void *ctx,
			  struct wp_err *err)
{
	enum { CHUNK = 256 << 10 };
	unsigned char h[30];
	char nb[NAME_SHOW];
	unsigned char *in = NULL, *outb = NULL;
	struct wp_hasher hs;
#if WP_ISAL
	struct inflate_state *zs = NULL; /* ISA-L's inflate: 1.7x zlib's here */
#else
	z_stream zs;
	bool z_on = false;
#endif
	uint64_t actual = 0;
	uint32_t crc = 0;
	bool crc_on = wants_crc(w, m->name);
	int rc = read_at(w, h, sizeof(h), m->offset, err);
	if (rc)
		return rc;
	uint64_t pos = m->offset + 30 + wp_le16(h + 26) + wp_le16(h + 28);
	if (pos > w->cd_offset || m->csize > w->cd_offset - pos)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': member '%s' runs into the central directory", w->file,
			       show(m->name, nb));
	if (m->method != 0 && m->method != 8)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': member '%s' uses compression method %u (only stored "
			       "and deflated are wheels')",
			       w->file, show(m->name, nb), m->method);
	if ((rc = wp_hasher_init(&hs, WP_HASH_SHA256, err)))
		return rc;
	uint64_t limit = (uint64_t)w->lim.max_ratio * (m->csize ? m->csize : 1);
	if (limit < (uint64_t)w->lim.ratio_min_size)
		limit = (uint64_t)w->lim.ratio_min_size;
	in = wp_xmalloc(CHUNK);
	if (m->method == 8) {
		outb = wp_xmalloc(CHUNK);
#if WP_ISAL
		zs = wp_xmalloc(sizeof(*zs));
		isal_inflate_init(zs);
		zs->crc_flag = ISAL_DEFLATE;
#else
		memset(&zs, 0, sizeof(zs));
		if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': cannot start inflating '%s'",
				     w->file, show(m->name, nb));
			goto out;
		}
		z_on = true;
#endif
	}
	uint64_t left = m->csize;
	bool ended = m->method == 0;
	for (;;) {
		size_t k = left < CHUNK ? (size_t)left : CHUNK;
		if (k && (rc = read_at(w, in, k, pos, err)))
			goto out;
		pos += k;
		left -= k;
		if (m->method == 0) {
			if (!k)
				break;
			if ((rc = extracted(w, m, in, k, UINT64_MAX, &hs, crc_on, &crc, &actual,
					    sink, ctx, err)))
				goto out;
			continue;
		}
#if WP_ISAL
		zs->next_in = in;
		zs->avail_in = (uint32_t)k;
		for (;;) {
			uint32_t had = zs->avail_in;
			zs->next_out = outb;
			zs->avail_out = CHUNK;
			int zr = isal_inflate(zs);
			if (zr < 0 || zr == ISAL_NEED_DICT) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' does not inflate: damaged data",
					     w->file, show(m->name, nb));
				goto out;
			}
			size_t got = CHUNK - zs->avail_out;
			if (got && (rc = extracted(w, m, outb, got, limit, &hs, crc_on, &crc,
						   &actual, sink, ctx, err)))
				goto out;
			if (zs->block_state == ISAL_BLOCK_FINISH) {
				ended = true;
				break;
			}
			/* no progress, or all input taken with room to spare: it wants more
			 * input */
			if ((!got && zs->avail_in == had) || (!zs->avail_in && zs->avail_out))
				break;
		}
#else
		zs.next_in = in;
		zs.avail_in = (uInt)k;
		do {
			zs.next_out = outb;
			zs.avail_out = CHUNK;
			int zr = inflate(&zs, Z_NO_FLUSH);
			if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' does not inflate: %s", w->file,
					     show(m->name, nb), zs.msg ? zs.msg : "damaged data");
				goto out;
			}
			size_t got = CHUNK - zs.avail_out;
			if (got && (rc = extracted(w, m, outb, got, limit, &hs, crc_on, &crc,
						   &actual, sink, ctx, err)))
				goto out;
			if (zr == Z_STREAM_END) {
				ended = true;
				break;
			}
			if (zr == Z_BUF_ERROR)
				break;
		} while (zs.avail_out == 0 || zs.avail_in);
#endif
		if (ended || !k)
			break;
	}
	if (!ended || left) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' is cut short", w->file,
			     show(m->name, nb));
		goto out;
	}
	if (actual != m->usize || (crc_on && crc != m->crc)) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s': %s differs from its header's",
			     w->file, show(m->name, nb),
			     actual != m->usize ? "the size" : "the CRC-32");
		goto out;
	}
	if ((rc = wp_hasher_final_raw(&hs, m->sha256, NULL, err)))
		goto out;
	m->actual = actual;
	m->seen = true;
out:
#if WP_ISAL
	free(zs);
#else
	if (z_on)
		inflateEnd(&zs);
#endif
	wp_hasher_release(&hs);
	free(in);
	free(outb);
	return rc;
}

static int buf_sink(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	struct wp_buf *b = ctx;
	if (wp_buf_add(b, p, n) < 0)
		return wp_fail(err, -WPE_INTEGRITY, "a .dist-info file is larger than %zu bytes",
			       b->max);
	return 0;
}

int wp_wheel_reader_open(const char *path, const char *filename, const struct wp_wheel_limits *lim,
			 struct wp_wheel_reader **out, struct wp_wheel_info *info,
			 struct wp_err *err)
{
	struct wp_wheel_reader *r = wp_xcalloc(1, sizeof(*r));
	struct wheel *w = &r->w;
	struct wp_os_stat sb;
	int rc = 0;
	*out = NULL;
	memset(info, 0, sizeof(*info));
	w->path = path;
	w->fd = -1;
	r->filename = wp_xstrdup(filename);
	wp_wheel_limits_fill(&w->lim, lim);
	const char *base_name = wp_path_base(filename); /* '\\' too on Windows */
	wp_member_name_show(base_name, strlen(base_name), w->file, sizeof(w->file));
	w->record = (struct wp_buf)WP_BUF_INIT_MAX((size_t)w->lim.max_record);
	w->wheelfile = (struct wp_buf)WP_BUF_INIT_MAX(WP_METADATA_MAX_LEN);
	w->metadata = (struct wp_buf)WP_BUF_INIT_MAX(WP_METADATA_MAX_LEN);
	w->fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (w->fd < 0 || wp_os_fstat(w->fd, &sb) < 0) {
		rc = wp_fs_fail(err, errno, "cannot open", path);
		goto out;
	}
	w->fsize = (uint64_t)sb.st_size;
	if (w->fsize <= WHOLE_MAX && (rc = read_whole(w, err)))
		goto out;
	struct wp_str base = WP_STR(base_name), parts[7];
	int np = 0;
	if (!wp_str_endswith(base, ".whl")) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not named like a wheel (*.whl)",
			     w->file);
		goto out;
	}
	base.n -= 4;
	while (base.n && np < 7)
		parts[np++] = wp_str_cut(&base, '-');
	if (np < 5 || np > 7 || base.n || !parts[0].n || !parts[1].n) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not a wheel file name", w->file);
		goto out;
	}
	if ((rc = read_central_directory(w, err)) || (rc = check_local_headers(w, err)) ||
	    (rc = find_dist_info(w, parts[0], parts[1], err)))
		goto out;
	static const char *const caps[] = { "RECORD", "WHEEL", "METADATA" };
	for (size_t i = 0; i < 3; i++) {
		char *mp = wp_xasprintf("%s/%s", w->dist_info, caps[i]);
		struct member *m = find(w, mp);
		free(mp);
		if (!m)
			continue;
		struct wp_buf *cap = capture_for(w, m->name);
		if ((rc = extract_member(w, m, buf_sink, cap, err)))
			goto out;
	}
	if ((rc = check_meta(w, parts[0], parts[1], info, err)))
		goto out;
	char *rec = wp_xasprintf("%s/RECORD", w->dist_info);
	bool has_record = find(w, rec) != NULL;
	free(rec);
	if (!has_record) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' has no RECORD", w->file);
		goto out;
	}
	info->dist_info = wp_xstrdup(w->dist_info);
	info->n_members = (long long)w->n;
	for (size_t i = 0; i < w->n; i++)
		info->unpacked_size += (long long)w->m[i].usize;
	*out = r;
out:
	if (rc) {
		wp_wheel_info_release(info);
		wp_wheel_reader_close(r);
	}
	return rc;
}

int wp_wheel_reader_extract(struct wp_wheel_reader *r, size_t i, wp_wheel_sink_fn *sink, void *ctx,
			    struct wp_err *err)
{
	struct member *m = &r->w.m[i];
	if (m->is_dir)
		return 0;
	return extract_member(&r->w, m, sink, ctx, err);
}

int wp_wheel_reader_check(struct wp_wheel_reader *r, struct wp_err *err)
{
	char nb[NAME_SHOW];
	for (size_t i = 0; i < r->w.n; i++)
		if (!r->w.m[i].is_dir && !r->w.m[i].seen)
			return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' was not read",
				       r->w.file, show(r->w.m[i].name, nb));
	for (size_t i = 0; i < r->w.n; i++)
		r->w.m[i].in_record = false;
	return check_record(&r->w, err);
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '-' ? 62 : c == '_' ? 63 : -1;
}

/* RECORD's urlsafe base64 sha256 (43 characters, padding optional) into out. */
static bool b64_sha256(struct wp_str s, unsigned char out[WP_SHA256_LEN])
{
	while (s.n && s.p[s.n - 1] == '=')
		s.n--;
	if (s.n != 43)
		return false;
	unsigned acc = 0, bits = 0;
	size_t o = 0;
	for (size_t i = 0; i < s.n; i++) {
		int v = b64val(s.p[i]);
		if (v < 0)
			return false;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o < WP_SHA256_LEN)
				out[o++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return o == WP_SHA256_LEN;
}

int wp_wheel_reader_trust_record(struct wp_wheel_reader *r, struct wp_err *err)
{
	struct wheel *w = &r->w;
	struct wp_buf f[3] = { WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT }, extra = WP_BUF_INIT;
	struct wp_str s = WP_STRN(wp_buf_cstr(&w->record), w->record.len);
	char nb[NAME_SHOW];
	int rc = 0;
	while (s.n && !rc) {
		if (wp_record_row(&s, f, &extra) != 3)
			continue;
		struct member *m = find(w, wp_buf_cstr(&f[0]));
		struct wp_str h = WP_STRN(wp_buf_cstr(&f[1]), f[1].len);
		struct wp_str alg = wp_str_cut(&h, '=');
		long long size;
		if (!m || m->is_dir || !wp_str_eq(alg, "sha256") || !b64_sha256(h, m->sha256) ||
		    !wp_str_to_ll(wp_str_trim(WP_STRN(wp_buf_cstr(&f[2]), f[2].len)), &size) ||
		    (unsigned long long)size != m->usize)
			continue;
		m->actual = m->usize;
		m->seen = true;
	}
	for (size_t i = 0; i < w->n && !rc; i++)
		if (!w->m[i].is_dir && !w->m[i].seen && !may_lack_hash(w, w->m[i].name))
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' has no usable sha256 and size in RECORD",
				     w->file, show(w->m[i].name, nb));
	for (int i = 0; i < 3; i++)
		wp_buf_free(&f[i]);
	wp_buf_free(&extra);
	return rc;
}

void wp_wheel_reader_sha256(const struct wp_wheel_reader *r, size_t i, unsigned char out[32])
{
	memcpy(out, r->w.m[i].sha256, WP_SHA256_LEN);
}

void wp_wheel_reader_close(struct wp_wheel_reader *r)
{
	if (!r)
		return;
	struct wheel *w = &r->w;
	if (w->fd >= 0)
		wp_os_close(w->fd);
	free(w->mem);
	for (size_t i = 0; i < w->cap; i++)
		free(w->m[i].name);
	free(w->m);
	free(w->dist_info);
	wp_buf_free(&w->record);
	wp_buf_free(&w->wheelfile);
	wp_buf_free(&w->metadata);
	free(r->filename);
	free(r);
}
