/* ops/conda/channel.c: local conda channel: packages linked in, upstream records copied into
 * repodata.json. */
#include "ops/conda/channel.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/url.h"
#include "base/vec.h"
#include "base/zstd.h"
#include "ops/conda/attest.h"
#include "ops/conda/shards.h"
#include "verify/conda.h"
#include "verify/hash.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_MAX ((size_t)4 << 20) /* one upstream record; torch's are ~2 KiB */

struct rec {
	char *filename;
	char *json;          /* the record, byte for byte (outer whitespace trimmed) */
	char *sha256;        /* from the record, for telling a replaced package; may be NULL */
	const char *store;   /* this run's object, or NULL for a record already in the channel */
	const char *attest, *attest_sha256; /* this run's attestations sidecar (CEP 50), or NULL */
	bool was_listed;     /* the channel's repodata names it now */
	bool conflict;       /* ... with other bytes than this run's */
};

WP_VEC_OF(recs, struct rec);

static struct rec *recs_add(struct recs *rs)
{
	return wp_vec_add(rs);
}

static void recs_free(struct recs *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].filename);
		free(rs->v[i].json);
		free(rs->v[i].sha256);
	}
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

static int rec_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rec *)a)->filename, ((const struct rec *)b)->filename);
}

static struct rec *recs_find(struct recs *rs, const char *filename)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].filename, filename))
			return &rs->v[i];
	return NULL;
}

static bool is_conda_name(const char *f)
{
	size_t n = strlen(f);
	return (n > 8 && !strcmp(f + n - 8, ".tar.bz2")) || (n > 6 && !strcmp(f + n - 6, ".conda"));
}

static bool is_dot_conda(const char *f)
{
	size_t n = strlen(f);
	return n > 6 && !strcmp(f + n - 6, ".conda");
}

/* ---- reading an existing repodata.json without re-deriving its records ---- */

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* Index just past the JSON value at i; the text was validated first, so only the shape is
 * followed here. */
static size_t value_end(const char *s, size_t n, size_t i)
{
	int depth = 0;
	do {
		if (i >= n)
			return n;
		char c = s[i];
		if (c == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			i++;
		} else if (c == '{' || c == '[') {
			depth++;
			i++;
		} else if (c == '}' || c == ']') {
			depth--;
			i++;
		} else if (depth == 0) {
			while (i < n && !strchr(",}] \t\r\n", s[i]))
				i++;
		} else {
			i++;
		}
	} while (depth > 0);
	return i;
}

/* Calls fn for each member of the object at *i: key text (raw, without quotes) and value span. */
typedef void member_fn(void *ctx, const char *key, size_t klen, const char *val, size_t vlen);

static void each_member(const char *s, size_t n, size_t i, member_fn *fn, void *ctx)
{
	i = skip_ws(s, n, i);
	if (i >= n || s[i] != '{')
		return;
	for (i = skip_ws(s, n, i + 1); i < n && s[i] == '"';) {
		size_t k = i + 1, kend = value_end(s, n, i) - 1;
		i = skip_ws(s, n, kend + 1);
		if (i >= n || s[i] != ':')
			return;
		i = skip_ws(s, n, i + 1);
		size_t v = i, vend = value_end(s, n, i);
		fn(ctx, s + k, kend - k, s + v, vend - v);
		i = skip_ws(s, n, vend);
		if (i < n && s[i] == ',')
			i = skip_ws(s, n, i + 1);
	}
}

struct existing {
	const char *subdir_path;
	struct recs *recs;
	const char *text;
	size_t len;
};

static void existing_record(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct existing *ex = ctx;
	char *name = wp_xstrndup(key, klen);
	/* conda file names need no escapes; a key with one is not a file we wrote */
	if (!memchr(key, '\\', klen) && wp_url_filename_ok(name) && is_conda_name(name) &&
	    vlen && val[0] == '{' && !recs_find(ex->recs, name)) {
		char *path = wp_xasprintf("%s/%s", ex->subdir_path, name);
		struct wp_os_stat sb;
		/* a package someone deleted by hand leaves the repodata rather than breaking it */
		if (wp_os_stat(path, &sb) == 0 && WP_S_ISREG(sb.st_mode)) {
			struct rec *r = recs_add(ex->recs);
			r->filename = name;
			name = NULL;
			r->json = wp_xstrndup(val, vlen);
			r->sha256 = wp_conda_json_string(val, vlen, "sha256");
		}
		free(path);
	}
	free(name);
}

static void existing_section(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct existing *ex = ctx;
	if ((klen == 8 && !memcmp(key, "packages", 8)) ||
	    (klen == 14 && !memcmp(key, "packages.conda", 14)))
		each_member(val, vlen, 0, existing_record, ex);
}

static int read_existing(const char *subdir_path, struct recs *rs, struct wp_err *err)
{
	char *path = wp_xasprintf("%s/repodata.json", subdir_path);
	/* syntax only, streamed without building a tree: a 300 MB repodata stays cheap */
	const struct wp_json_opts o = { .what = path, .max_bytes = WP_CHANNEL_REPODATA_MAX };
	struct wp_buf b;
	bool found;
	int rc = wp_file_read_if_exists(path, WP_CHANNEL_REPODATA_MAX, &b, &found, err);
	if (rc || !found)
		goto out;
	if (wp_json_read(b.data, b.len, NULL, NULL, &o, NULL) < 0) {
		rc = wp_fail(err, -WPE_PARSE, "'%s' is not valid JSON; move it away to write the "
			     "channel's repodata afresh", path);
		goto out;
	}
	struct existing ex = { subdir_path, rs, b.data, b.len };
	each_member(wp_buf_cstr(&b), b.len, 0, existing_section, &ex);
out:
	wp_buf_free(&b);
	free(path);
	return rc;
}

/* ---- writing ---- */

static void json_string(struct wp_buf *b, const char *s)
{
	wp_buf_addch(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			wp_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			wp_buf_printf(b, "\\u%04x", c);
		else
			wp_buf_addch(b, (char)c);
	}
	wp_buf_addch(b, '"');
}

static void section(struct wp_buf *b, const char *name, const struct recs *rs, bool conda,
		    bool interim)
{
	bool first = true;
	wp_buf_printf(b, "  \"%s\": {", name);
	for (size_t i = 0; i < rs->n; i++) {
		const struct rec *r = &rs->v[i];
		if (is_dot_conda(r->filename) != conda ||
		    (interim && (!r->was_listed || r->conflict)))
			continue;
		wp_buf_addstr(b, first ? "\n    " : ",\n    ");
		first = false;
		json_string(b, r->filename);
		wp_buf_addstr(b, ": ");
		wp_buf_addstr(b, r->json);
	}
	wp_buf_addstr(b, first ? "}" : "\n  }");
}

/* repodata.json, and from the same bytes repodata.json.zst (which conda and mamba fetch first:
 * conda-forge's is a fifth of the JSON's size) and CEP 16's shards (ops/conda/shards.h). The others
 * go first: a reader that sees the new JSON finds them at least as new. */
static int write_repodata_files(const char *subdir_path, const char *subdir, const struct wp_buf *b,
				const long long *source_date, struct wp_err *err)
{
	char *zst = wp_xasprintf("%s/repodata.json.zst", subdir_path);
	char *path = wp_xasprintf("%s/repodata.json", subdir_path);
	struct wp_buf z = WP_BUF_INIT;
	int rc = wp_shards_write(subdir_path, subdir, b->data, b->len, source_date, err);
	if (!rc && !(rc = wp_zstd_compress(b->data, b->len, &z, err)))
		rc = wp_atomic_write(zst, z.data, z.len, err);
	if (!rc)
		rc = wp_atomic_write(path, b->data, b->len, err);
	wp_buf_free(&z);
	free(path);
	free(zst);
	return rc;
}

/* interim: only what is on disk now and stays so while packages are replaced. */
static int write_repodata(const char *subdir_path, const char *subdir, const struct recs *rs,
			  bool interim, const long long *source_date, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, "{\n  \"info\": {\"subdir\": ");
	json_string(&b, subdir);
	wp_buf_addstr(&b, "},\n");
	section(&b, "packages", rs, false, interim);
	wp_buf_addstr(&b, ",\n");
	section(&b, "packages.conda", rs, true, interim);
	wp_buf_addstr(&b, ",\n  \"repodata_version\": 1\n}\n");
	int rc = write_repodata_files(subdir_path, subdir, &b, source_date, err);
	wp_buf_free(&b);
	return rc;
}

/* The caller's record: a JSON object whose size (when given) is the store object's. */
static int check_new(const struct wp_conda_file *f, struct rec *r, struct wp_err *err)
{
	const struct wp_json_opts o = { .what = f->filename, .max_bytes = RECORD_MAX };
	struct wp_json_val *root = NULL;
	struct wp_os_stat sb;
	int rc = 0;
	if (!f->subdir || !wp_url_filename_ok(f->subdir) || f->subdir[0] == '.')
		return wp_fail(err, -WPE_USAGE, "'%s' is not a conda subdir",
			       f->subdir ? f->subdir : "(null)");
	if (!f->filename || !wp_url_filename_ok(f->filename) || !is_conda_name(f->filename) ||
	    wp_fs_is_tmp_name(f->filename))
		return wp_fail(err, -WPE_USAGE, "'%s' is not a conda package file name",
			       f->filename ? f->filename : "(null)");
	if (!f->store_path || wp_os_stat(f->store_path, &sb) < 0)
		return wp_fs_fail(err, f->store_path ? errno : ENOENT, "cannot read",
				  f->store_path ? f->store_path : f->filename);
	size_t len = f->record_json ? strlen(f->record_json) : 0;
	if (wp_json_load(f->record_json, len, &o, &root, NULL) < 0 ||
	    wp_json_type(root) != WP_JSON_OBJECT) {
		rc = wp_fail(err, -WPE_USAGE, "the repodata record for '%s' is not a JSON object",
			     f->filename);
		goto out;
	}
	long long size;
	const char *sha = wp_json_get_str(root, "sha256");
	if (wp_json_as_int(wp_json_get(root, "size"), &size) && size != (long long)sb.st_size) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s' is %lld bytes in the store, but its repodata "
			     "record says %lld",
			     f->filename, (long long)sb.st_size, size);
		goto out;
	}
	/* trim only the outside: the record's own bytes are upstream's */
	const char *s = f->record_json, *e = s + len;
	while (s < e && strchr(" \t\r\n", *s))
		s++;
	while (e > s && strchr(" \t\r\n", e[-1]))
		e--;
	r->filename = wp_xstrdup(f->filename);
	r->json = wp_xstrndup(s, (size_t)(e - s));
	r->sha256 = sha ? wp_xstrdup(sha) : NULL;
	r->store = f->store_path;
	if (f->attest_path && f->attest_sha256 && wp_sha256_hex_valid(f->attest_sha256)) {
		r->attest = f->attest_path;
		r->attest_sha256 = f->attest_sha256;
	}
out:
	wp_json_tree_free(root);
	return rc;
}

static int write_subdir(const char *dir, const char *subdir, const struct wp_conda_file *files,
			size_t n, const long long *source_date, struct wp_err *err)
{
	struct recs rs = { 0 }, old = { 0 };
	char *spath = wp_xasprintf("%s/%s", dir, subdir);
	int rc = wp_mkdir_p(spath, 0755, err);
	if (rc)
		goto out;
	struct wp_os_dir *d = wp_os_opendir(spath);
	const struct wp_os_dirent *de;
	while (d && (de = wp_os_readdir(d))) {
		if (wp_fs_is_tmp_name(de->d_name)) {
			char *p = wp_xasprintf("%s/%s", spath, de->d_name);
			wp_os_unlink(p);
			free(p);
		}
	}
	if (d)
		wp_os_closedir(d);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(files[i].subdir, subdir))
			continue;
		struct rec tmp = { 0 };
		rc = check_new(&files[i], &tmp, err);
		if (rc)
			goto out;
		struct rec *dup = recs_find(&rs, tmp.filename);
		if (dup) {
			free(tmp.filename);
			free(tmp.json);
			free(tmp.sha256);
			continue;
		}
		*recs_add(&rs) = tmp;
	}
	rc = read_existing(spath, &old, err);
	if (rc)
		goto out;
	bool any_conflict = false;
	for (size_t i = 0; i < old.n; i++) {
		struct rec *mine = recs_find(&rs, old.v[i].filename);
		if (mine) {
			/* same name, other bytes (or bytes we cannot vouch for): unlist, then
			 * replace */
			mine->conflict = !mine->sha256 || !old.v[i].sha256 ||
					 strcasecmp(mine->sha256, old.v[i].sha256);
			any_conflict |= mine->conflict;
			mine->was_listed = true;
			continue;
		}
		old.v[i].was_listed = true;
		*recs_add(&rs) = old.v[i];
		memset(&old.v[i], 0, sizeof(old.v[i]));
	}
	qsort(rs.v, rs.n, sizeof(*rs.v), rec_cmp);
	/* a second defence: every name checked again right before it becomes a path in the channel
	 * or a key of its repodata, whatever checked it on the way in (new records, the old
	 * repodata) */
	for (size_t i = 0; i < rs.n; i++) {
		const char *fn = rs.v[i].filename;
		if (!fn || !wp_url_filename_ok(fn) || !is_conda_name(fn) || wp_fs_is_tmp_name(fn)) {
			rc = wp_fail(err, -WPE_SOURCE,
				     "refusing to write '%s' into channel '%s': it is not a conda file name "
				     "(one path segment ending in .conda or .tar.bz2)",
				     fn ? fn : "(null)", spath);
			goto out;
		}
	}
	if (any_conflict) {
		rc = write_repodata(spath, subdir, &rs, true, source_date, err);
		if (rc)
			goto out;
	}
	for (size_t i = 0; i < rs.n; i++) {
		if (!rs.v[i].store)
			continue;
		char *to = wp_xasprintf("%s/%s", spath, rs.v[i].filename);
		rc = wp_link_or_copy_unsynced(rs.v[i].store, to, err);
		free(to);
		if (!rc && rs.v[i].attest) {
			char *name = wp_conda_attest_name(rs.v[i].filename, rs.v[i].attest_sha256);
			to = wp_xasprintf("%s/%s", spath, name);
			rc = wp_link_or_copy_unsynced(rs.v[i].attest, to, err);
			free(to);
			free(name);
		}
		if (rc)
			goto out;
	}
	/* the links are durable (one sync of the folder for all) before the repodata names them */
	if (!(rc = wp_fs_sync_dir(spath, err)))
		rc = write_repodata(spath, subdir, &rs, false, source_date, err);
out:
	free(spath);
	recs_free(&rs);
	recs_free(&old);
	return rc;
}

int wp_channel_write(const char *dir, const struct wp_conda_file *files, size_t n,
		     const long long *source_date, struct wp_err *err)
{
	int lock = -1, rc;
	char *noarch = NULL;
	const char **subdirs = wp_xcalloc(n + 1, sizeof(*subdirs));
	size_t nsub = 0;

	if ((rc = wp_dir_make_open(dir, &lock, err)))
		goto out;
	if (wp_os_flock(lock, WP_LOCK_EX | WP_LOCK_NB) < 0) {
		rc = wp_fail(err, -WPE_IO,
			     "channel '%s' is being written by another wheelpick; wait "
			     "for it to finish",
			     dir);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!files[i].subdir || !wp_url_filename_ok(files[i].subdir) ||
		    files[i].subdir[0] == '.') {
			rc = wp_fail(err, -WPE_USAGE, "'%s' is not a conda subdir",
				     files[i].subdir ? files[i].subdir : "(null)");
			goto out;
		}
		size_t j = 0;
		while (j < nsub && strcmp(subdirs[j], files[i].subdir))
			j++;
		if (j == nsub)
			subdirs[nsub++] = files[i].subdir;
	}
	for (size_t j = 0; j < nsub; j++) {
		rc = write_subdir(dir, subdirs[j], files, n, source_date, err);
		if (rc) {
			wp_err_prefix(err, "channel '%s'", dir);
			goto out;
		}
	}
	noarch = wp_xasprintf("%s/noarch/repodata.json", dir);
	struct wp_os_stat sb;
	if (wp_os_stat(noarch, &sb) < 0) {
		struct recs none = { 0 };
		char *ndir = wp_xasprintf("%s/noarch", dir);
		rc = wp_mkdir_p(ndir, 0755, err);
		if (!rc)
			rc = write_repodata(ndir, "noarch", &none, false, source_date, err);
		free(ndir);
	}
out:
	if (lock >= 0)
		wp_os_close(lock);
	free(noarch);
	free(subdirs);
	return rc;
}
