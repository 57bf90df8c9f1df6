/* verify/conda.c: conda package checks with libarchive: tar.bz2, and .conda (zip of tar.zst). */
#include "verify/conda.h"
#include "base/buf.h"
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

struct walk {
	const char *file;       /* for messages */
	const char *tarball;    /* "" for a .tar.bz2, else the inner tarball's name */
	long long entries, total;
	bool found;
	struct wp_buf index;
	unsigned char *buf;
};

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
				  archive_error_string(n->outer) ? archive_error_string(n->outer) : "?");
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
			return wp_fail(err, -WPE_INTEGRITY, "'%s'%s%s: a member's name cannot be decoded",
				       w->file, *w->tarball ? " in " : "", w->tarball);
		const char *why = wp_member_name_problem(name, strlen(name));
		if (why)
			return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' %s", w->file,
				       wp_member_name_show(name, strlen(name), nb, sizeof(nb)), why);
		if (++w->entries > MAX_ENTRIES)
			return wp_fail(err, -WPE_INTEGRITY, "'%s' has more than %d members", w->file,
				       MAX_ENTRIES);
		bool is_index = strcmp(name, "info/index.json") == 0;
		if (is_index && w->found)
			return wp_fail(err, -WPE_INTEGRITY, "'%s' has two 'info/index.json'", w->file);
		if (archive_entry_filetype(e) != AE_IFREG)
			continue;
		for (;;) {
			la_ssize_t k = archive_read_data(a, w->buf, CHUNK);
			if (k == 0)
				break;
			if (k < 0)
				return wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' cannot be read: %s",
					       w->file, wp_member_name_show(name, strlen(name), nb,
					       sizeof(nb)), aerr(a));
			w->total += k;
			if (w->total > MAX_TOTAL)
				return wp_fail(err, -WPE_INTEGRITY, "'%s' unpacks to more than %lld bytes",
					       w->file, MAX_TOTAL);
			if (is_index && wp_buf_add(&w->index, w->buf, (size_t)k) < 0)
				return wp_fail(err, -WPE_INTEGRITY, "'%s': info/index.json is larger than "
					       "%d bytes", w->file, WP_CONDA_INDEX_MAX);
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
	if (archive_read_open_filename(a, path, CHUNK) != ARCHIVE_OK)
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not a tar.bz2 archive: %s", w->file, aerr(a));
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
	if (archive_read_open_filename(a, path, CHUNK) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is not a .conda (zip) archive: %s", w->file,
			     aerr(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		struct wp_str s = WP_STR(name ? name : "");
		if (!name || strchr(name, '/') || wp_member_name_problem(name, strlen(name))) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': unexpected member '%s' in a .conda",
				     w->file, wp_member_name_show(s.p, s.n, nb, sizeof(nb)));
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
				rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' cannot be read: %s",
					     w->file, wp_member_name_show(s.p, s.n, nb, sizeof(nb)),
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
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' holds %d info-*.tar.zst and %d pkg-*.tar.zst "
			     "tarballs, not one of each", w->file, infos, pkgs);
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
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': info/index.json says %s '%s', expected '%s'",
			     w->file, key, got ? got : "(none)", want);
	free(got);
	return rc;
}

int wp_conda_verify(const char *path, const struct wp_conda_expect *expect, char **index_json,
		    struct wp_err *err)
{
	const char *slash = strrchr(path, '/');
	struct walk w = { .file = slash ? slash + 1 : path, .tarball = "",
			  .index = WP_BUF_INIT_MAX(WP_CONDA_INDEX_MAX) };
	int rc;
	w.buf = wp_xmalloc(CHUNK);
	if (wp_str_endswith(WP_STR(path), ".conda"))
		rc = verify_dot_conda(path, &w, err);
	else
		rc = verify_tar_bz2(path, &w, err);
	if (rc)
		goto out;
	if (!w.found) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' has no info/index.json", w.file);
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
	free(w.buf);
	return rc;
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
	const struct wp_json_opts o = { .what = "index.json", .max_bytes = len, .max_token = WP_CONDA_INDEX_MAX };
	struct member m = { .key = key };
	if (!json)
		return NULL;
	if (wp_json_read(json, len, &cb, &m, &o, NULL) < 0) {
		free(m.found);
		return NULL;
	}
	return m.found;
}
