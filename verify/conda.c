/* verify/conda.c: conda package checks with libarchive: tar.bz2, and .conda (zip of tar.zst). */
#include "verify/conda.h"
#include "verify/archopen.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "verify/wheel.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#define MAX_ENTRIES 1000000
#define MAX_TOTAL (32LL << 30) /* the largest pytorch conda packages unpack to ~5 GiB */
#define CHUNK (64 << 10)

/* What a member is, as the names seen so far say (an extractor would have made it so). */
enum kind { K_FILE = 1, K_DIR, K_SYMLINK };

/* The members seen so far: name -> kind, open addressing. Both tarballs of a .conda extract into
 * one folder, so one set spans them. */
struct names {
	char **key;
	unsigned char *kind;
	size_t cap, n;
};

struct walk {
	const char *file;       /* for messages */
	const char *tarball;    /* "" for a .tar.bz2, else the inner tarball's name */
	bool dot_conda;         /* info/index.json counts only from the info-*.tar.zst */
	long long entries, total;
	bool found;
	struct wp_buf index;
	unsigned char *buf;
	struct names names;
};

static uint64_t hash_name(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* The slot of name (n bytes), or of the empty one where it would go. */
static size_t names_slot(const struct names *t, const char *s, size_t n)
{
	size_t i = (size_t)hash_name(s, n) & (t->cap - 1);
	while (t->key[i] && (strlen(t->key[i]) != n || memcmp(t->key[i], s, n)))
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int names_get(const struct names *t, const char *s, size_t n)
{
	return t->cap ? t->kind[names_slot(t, s, n)] : 0;
}

static void names_put(struct names *t, const char *s, size_t n, enum kind k)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct names g = { .cap = t->cap ? t->cap * 2 : 256 };
		g.key = wp_xcalloc(g.cap, sizeof(*g.key));
		g.kind = wp_xcalloc(g.cap, 1);
		for (size_t i = 0; i < t->cap; i++)
			if (t->key[i]) {
				size_t j = names_slot(&g, t->key[i], strlen(t->key[i]));
				g.key[j] = t->key[i];
				g.kind[j] = t->kind[i];
			}
		g.n = t->n;
		free(t->key);
		free(t->kind);
		*t = g;
	}
	size_t i = names_slot(t, s, n);
	if (!t->key[i]) {
		t->key[i] = wp_xstrndup(s, n);
		t->n++;
	}
	t->kind[i] = (unsigned char)k;
}

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->key[i]);
	free(t->key);
	free(t->kind);
	memset(t, 0, sizeof(*t));
}

/* Where a link at name pointing to target lands, relative to the package root: false when it
 * leaves the root (an absolute target, or more '..' than there are folders above it). */
static bool link_inside(const char *name, const char *target)
{
	if (!*target || target[0] == '/')
		return false;
	int depth = 0;
	for (const char *p = name; *p; p++)
		depth += *p == '/';
	struct wp_str s = WP_STR(target);
	while (s.n) {
		struct wp_str seg = wp_str_cut(&s, '/');
		if (wp_str_eq(seg, ".."))
			depth--;
		else if (seg.n && !wp_str_eq(seg, "."))
			depth++;
		if (depth < 0)
			return false;
	}
	return true;
}

/* An archive member an extractor could be made to misuse: anything but files, folders and links
 * that stay inside the package; a link then written through; a hard link to what is not an
 * earlier file of the package; a name given twice. */
static int check_member(struct walk *w, struct archive_entry *e, const char *name,
			struct wp_err *err)
{
	char nb[200], tb[200];
	size_t n = strlen(name);
	while (n > 1 && name[n - 1] == '/')
		n--; /* "lib/" is the folder lib */
	const char *show = wp_member_name_show(name, n, nb, sizeof(nb));
	/* no folder on the way may be a link: writing through it writes wherever it points */
	for (size_t i = 0; i < n; i++)
		if (name[i] == '/' && names_get(&w->names, name, i) == K_SYMLINK)
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s': member '%s' is written through the link '%.*s'",
				       w->file, show, (int)i, name);
	const char *hard = archive_entry_hardlink(e);
	int ft = archive_entry_filetype(e);
	enum kind k;
	if (hard) {
		size_t hn = strlen(hard);
		const char *hs = wp_member_name_show(hard, hn, tb, sizeof(tb));
		if (wp_member_name_problem(hard, hn) || names_get(&w->names, hard, hn) != K_FILE)
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s': member '%s' is a hard link to '%s', which is not a "
				       "file of the package before it",
				       w->file, show, hs);
		k = K_FILE;
	} else if (ft == AE_IFLNK) {
		const char *target = archive_entry_symlink(e);
		if (!target || !link_inside(name, target))
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s': member '%s' is a link to '%s', outside the package",
				       w->file, show,
				       target ? wp_member_name_show(target, strlen(target), tb,
								    sizeof(tb)) :
						"");
		k = K_SYMLINK;
	} else if (ft == AE_IFDIR) {
		k = K_DIR;
	} else if (ft == AE_IFREG) {
		k = K_FILE;
	} else {
		return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' is a %s, not a regular file",
			       w->file, show,
			       ft == AE_IFCHR || ft == AE_IFBLK ? "device" :
			       ft == AE_IFIFO                   ? "FIFO" :
			       ft == AE_IFSOCK                  ? "socket" :
								  "special file");
	}
	int had = names_get(&w->names, name, n);
	if (had && !(had == K_DIR && k == K_DIR))
		return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' is in the package twice",
			       w->file, show);
	names_put(&w->names, name, n, k);
	return 0;
}

/* Feed an inner tarball to a second archive reader straight from the outer zip, so a 1 GiB
 * pkg-*.tar.zst never needs to sit in memory. */
struct nested {
	struct archive *outer;
	unsigned char buf[CHUNK];
};

static la_ssize_t nested_read(struct archive *a, void *ctx, const void **out)
{
	struct nested *n = ctx;
	la_ssize_t k = archive_read_data(n->outer, n->buf, sizeof(n->buf));
	if (k < 0)
		archive_set_error(a, EIO, "outer archive: %s",
				  archive_error_string(n->outer) ? archive_error_string(n->outer) :
								   "?");
	*out = n->buf;
	return k;
}

static const char *aerr(struct archive *a)
{
	return archive_error_string(a) ? archive_error_string(a) : "unknown error";
}

/* Read every entry of an opened tar reader; keep info/index.json. */
static int walk_tar(struct archive *a, struct walk *w, struct wp_err *err)
{
	struct archive_entry *e;
	char nb[200];
	int r;
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		if (!name)
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s'%s%s: a member's name cannot be decoded", w->file,
				       *w->tarball ? " in " : "", w->tarball);
		const char *why = wp_member_name_problem(name, strlen(name));
		if (why)
			return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' %s", w->file,
				       wp_member_name_show(name, strlen(name), nb, sizeof(nb)),
				       why);
		if (++w->entries > MAX_ENTRIES)
			return wp_fail(err, -WPE_INTEGRITY, "'%s' has more than %d members",
				       w->file, MAX_ENTRIES);
		int rc = check_member(w, e, name, err);
		if (rc)
			return rc;
		bool is_index = strcmp(name, "info/index.json") == 0 &&
				(!w->dot_conda || !strncmp(w->tarball, "info-", 5));
		if (is_index && w->found)
			return wp_fail(err, -WPE_INTEGRITY, "'%s' has two 'info/index.json'",
				       w->file);
		if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e))
			continue;
		for (;;) {
			la_ssize_t k = archive_read_data(a, w->buf, CHUNK);
			if (k == 0)
				break;
			if (k < 0)
				return wp_fail(err, -WPE_INTEGRITY,
					       "'%s': member '%s' cannot be read: %s", w->file,
					       wp_member_name_show(name, strlen(name), nb,
								   sizeof(nb)),
					       aerr(a));
			w->total += k;
			if (w->total > MAX_TOTAL)
				return wp_fail(err, -WPE_INTEGRITY,
					       "'%s' unpacks to more than %lld bytes", w->file,
					       MAX_TOTAL);
			if (is_index && wp_buf_add(&w->index, w->buf, (size_t)k) < 0)
				return wp_fail(err, -WPE_INTEGRITY,
					       "'%s': info/index.json is larger than "
					       "%d bytes",
					       w->file, WP_CONDA_INDEX_MAX);
		}
		if (is_index)
			w->found = true;
	}
	if (r != ARCHIVE_EOF)
		return wp_fail(err, -WPE_INTEGRITY, "'%s'%s%s cannot be read: %s", w->file,
			       *w->tarball ? ": " : "", w->tarball, aerr(a));
	return 0;
}

static int verify_tar_bz2(const char *path, struct walk *w, struct wp_err *err)
{
	struct archive *a = archive_read_new();
	int rc = 0;
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_tar(a);
	if (wp_archive_read_open_paths(a, &path, 1) != ARCHIVE_OK)
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not a tar.bz2 archive: %s", w->file,
			     aerr(a));
	else
		rc = walk_tar(a, w, err);
	archive_read_free(a);
	return rc;
}

static int walk_nested(struct archive *outer, const char *inner, struct walk *w,
		       struct wp_err *err)
{
	struct nested *n = wp_xmalloc(sizeof(*n));
	struct archive *a = archive_read_new();
	int rc = 0;
	n->outer = outer;
	w->tarball = inner;
	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	if (archive_read_open(a, n, NULL, nested_read, NULL) != ARCHIVE_OK)
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' is not a zstd tarball: %s", w->file,
			     inner, aerr(a));
	else
		rc = walk_tar(a, w, err);
	archive_read_free(a);
	free(n);
	w->tarball = "";
	return rc;
}

static int verify_dot_conda(const char *path, struct walk *w, struct wp_err *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char nb[200];
	int rc = 0, r, infos = 0, pkgs = 0;
	archive_read_support_format_zip_seekable(a);
	if (wp_archive_read_open_paths(a, &path, 1) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not a .conda (zip) archive: %s", w->file,
			     aerr(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		struct wp_str s = WP_STR(name ? name : "");
		if (!name || strchr(name, '/') || wp_member_name_problem(name, strlen(name))) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': unexpected member '%s' in a .conda", w->file,
				     wp_member_name_show(s.p, s.n, nb, sizeof(nb)));
			goto out;
		}
		bool zst = wp_str_endswith(s, ".tar.zst");
		if (zst && wp_str_startswith(s, "info-")) {
			infos++;
			rc = walk_nested(a, name, w, err);
		} else if (zst && wp_str_startswith(s, "pkg-")) {
			pkgs++;
			rc = walk_nested(a, name, w, err);
		} else {
			/* metadata.json and anything newer: read through so damage still shows. */
			la_ssize_t k;
			while ((k = archive_read_data(a, w->buf, CHUNK)) > 0)
				;
			if (k < 0)
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' cannot be read: %s", w->file,
					     wp_member_name_show(s.p, s.n, nb, sizeof(nb)),
					     aerr(a));
		}
		if (rc)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' cannot be read: %s", w->file, aerr(a));
		goto out;
	}
	if (infos != 1 || pkgs != 1)
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s' holds %d info-*.tar.zst and %d pkg-*.tar.zst "
			     "tarballs, not one of each",
			     w->file, infos, pkgs);
out:
	archive_read_free(a);
	return rc;
}

static int check_field(struct walk *w, const char *key, const char *want, struct wp_err *err)
{
	if (!want)
		return 0;
	char *got = wp_conda_json_string(w->index.data, w->index.len, key);
	int rc = 0;
	if (!got || strcmp(got, want) != 0)
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s': info/index.json says %s '%s', expected '%s'", w->file, key,
			     got ? got : "(none)", want);
	free(got);
	return rc;
}

int wp_conda_verify_named(const char *path, const char *filename,
			  const struct wp_conda_expect *expect, char **index_json,
			  struct wp_err *err)
{
	struct walk w = { .file = wp_path_base(filename), .tarball = "",
			  .index = WP_BUF_INIT_MAX(WP_CONDA_INDEX_MAX) };
	int rc;
	w.buf = wp_xmalloc(CHUNK);
	/* the format comes from the name the package is known by: a store object's path says
	 * nothing */
	w.dot_conda = wp_str_endswith(WP_STR(filename), ".conda");
	if (w.dot_conda)
		rc = verify_dot_conda(path, &w, err);
	else
		rc = verify_tar_bz2(path, &w, err);
	if (rc)
		goto out;
	if (!w.found) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' has no info/index.json%s", w.file,
			     w.dot_conda ? " in its info-*.tar.zst" : "");
		goto out;
	}
	char *name = wp_conda_json_string(w.index.data, w.index.len, "name");
	free(name);
	if (!name) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': info/index.json is not an object with a "
			     "\"name\"", w.file);
		goto out;
	}
	if (expect && ((rc = check_field(&w, "name", expect->name, err)) ||
		       (rc = check_field(&w, "version", expect->version, err)) ||
		       (rc = check_field(&w, "build", expect->build, err))))
		goto out;
	if (index_json)
		*index_json = wp_buf_detach(&w.index, NULL);
out:
	wp_buf_free(&w.index);
	names_free(&w.names);
	free(w.buf);
	return rc;
}

int wp_conda_verify(const char *path, const struct wp_conda_expect *expect, char **index_json,
		    struct wp_err *err)
{
	return wp_conda_verify_named(path, path, expect, index_json, err);
}

/* One top-level member, found by the streaming reader: nesting past its cap is refused, and
 * nothing is kept but the one string. */
struct member {
	const char *key;
	int depth;
	bool want;   /* the value that comes next is the key's */
	char *found;
};

static int m_key(void *ctx, const unsigned char *s, size_t n)
{
	struct member *m = ctx;
	m->want = m->depth == 1 && !m->found && n == strlen(m->key) && !memcmp(s, m->key, n);
	return 0;
}

static int m_value(void *ctx, enum wp_json_type t, const unsigned char *s, size_t n, bool b)
{
	struct member *m = ctx;
	if (m->want && t == WP_JSON_STRING)
		m->found = wp_xstrndup((const char *)s, n);
	m->want = false;
	return m->depth ? 0 : -WPE_PARSE;
}

static int m_open_map(void *ctx)
{
	struct member *m = ctx;
	m->want = false;
	m->depth++;
	return 0;
}

static int m_open_array(void *ctx)
{
	struct member *m = ctx;
	m->want = false;
	return m->depth++ ? 0 : -WPE_PARSE;
}

static int m_close(void *ctx)
{
	((struct member *)ctx)->depth--;
	return 0;
}

char *wp_conda_json_string(const char *json, size_t len, const char *key)
{
	static const struct wp_json_callbacks cb = {
		.value = m_value, .start_map = m_open_map, .key = m_key, .end_map = m_close,
		.start_array = m_open_array, .end_array = m_close,
	};
	const struct wp_json_opts o = { .what = "index.json",
					.max_bytes = len,
					.max_token = WP_CONDA_INDEX_MAX };
	struct member m = { .key = key };
	if (!json)
		return NULL;
	if (wp_json_read(json, len, &cb, &m, &o, NULL) < 0) {
		free(m.found);
		return NULL;
	}
	return m.found;
}
