/* ops/publish/manifest.c: a tree's files and digest, from a folder or a manifest file, and its JSON
 * form. */
#include "ops/publish/manifest.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "verify/hash.h"
#include "verify/wheel.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MANIFEST_MAX_FILES 1000000

void wp_tree_manifest_add(struct wp_tree_manifest *m, const char *path, const char *sha256,
			  long long size)
{
	m->v = wp_xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
	struct wp_tree_file *f = &m->v[m->n++];
	memset(f, 0, sizeof(*f));
	f->path = wp_xstrdup(path);
	snprintf(f->sha256, sizeof(f->sha256), "%s", sha256);
	f->size = size;
}

void wp_tree_manifest_release(struct wp_tree_manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct wp_tree_file *)a)->path,
		      ((const struct wp_tree_file *)b)->path);
}

void wp_tree_manifest_seal(struct wp_tree_manifest *m)
{
	struct wp_buf lines = WP_BUF_INIT;
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), by_path);
	for (size_t i = 0; i < m->n; i++)
		wp_buf_printf(&lines, "%s  %s\n", m->v[i].sha256, m->v[i].path);
	if (wp_sha256_hex_of(lines.data ? lines.data : "", lines.len, m->tree) < 0)
		m->tree[0] = 0;
	wp_buf_free(&lines);
}

const struct wp_tree_file *wp_tree_manifest_find(const struct wp_tree_manifest *m, const char *path)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(m->v[mid].path, path);
		if (!c)
			return &m->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* --- a folder --- */

static int walk(const char *root, const char *rel, struct wp_tree_manifest *m, int depth,
		struct wp_err *err)
{
	char *dir = *rel ? wp_xasprintf("%s/%s", root, rel) : wp_xstrdup(root);
	struct wp_os_dir *d = wp_os_opendir(dir);
	int rc = 0;
	if (!d) {
		rc = wp_fs_fail(err, errno, "cannot read", dir);
		free(dir);
		return rc;
	}
	if (depth > 64) {
		wp_os_closedir(d);
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' is nested too deep for an output of wheelpick's", dir);
		free(dir);
		return rc;
	}
	for (const struct wp_os_dirent *de; !rc && (de = wp_os_readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sub = *rel ? wp_xasprintf("%s/%s", rel, de->d_name) : wp_xstrdup(de->d_name);
		char *path = wp_xasprintf("%s/%s", root, sub);
		struct wp_os_stat sb;
		if (wp_os_lstat(path, &sb) < 0) {
			rc = wp_fs_fail(err, errno, "cannot read", path);
		} else if (WP_S_ISDIR(sb.st_mode)) {
			rc = walk(root, sub, m, depth + 1, err);
		} else if (!WP_S_ISREG(sb.st_mode)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s' is not a plain file; an output holds plain files", path);
		} else if (strcmp(sub, WP_DELTA_NAME) != 0) {
			char hex[WP_SHA256_HEX_LEN + 1];
			long long size = 0;
			if (m->n >= MANIFEST_MAX_FILES)
				rc = wp_fail(err, -WPE_TOO_BIG, "'%s' holds more than %d files",
					     root, MANIFEST_MAX_FILES);
			else if (!(rc = wp_hash_file(path, hex, &size, err)))
				wp_tree_manifest_add(m, sub, hex, size);
		}
		free(path);
		free(sub);
	}
	wp_os_closedir(d);
	free(dir);
	return rc;
}

int wp_tree_manifest_of_dir(const char *dir, struct wp_tree_manifest *m, struct wp_err *err)
{
	memset(m, 0, sizeof(*m));
	int rc = walk(dir, "", m, 0, err);
	if (!rc)
		wp_tree_manifest_seal(m);
	return rc;
}

/* --- the JSON form --- */

int wp_tree_manifest_format(const struct wp_tree_manifest *m, const char *kind, struct wp_buf *out,
			    struct wp_err *err)
{
	struct wp_json j;
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_kint(&j, m->is_delta ? "wheelpick_delta" : "wheelpick_manifest", 1);
	wp_json_kstr(&j, "kind", kind);
	wp_json_kstr(&j, "tree", m->tree);
	if (m->is_delta) {
		wp_json_key(&j, "previous");
		wp_json_obj(&j);
		wp_json_kstr(&j, "tree", m->prev_tree);
		wp_json_kstr(&j, "manifest_sha256", m->prev_manifest[0] ? m->prev_manifest : NULL);
		wp_json_obj_end(&j);
	}
	wp_json_key(&j, "files");
	wp_json_arr(&j);
	for (size_t i = 0; i < m->n; i++) {
		wp_json_obj(&j);
		wp_json_kstr(&j, "path", m->v[i].path);
		wp_json_kstr(&j, "sha256", m->v[i].sha256);
		wp_json_kint(&j, "size", m->v[i].size);
		if (m->is_delta)
			wp_json_kbool(&j, "carried", m->v[i].carried);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	int rc = wp_json_finish_buf(&j, out);
	if (rc)
		wp_fail(err, rc, "cannot write a manifest: a path is not UTF-8");
	return rc;
}

static bool is_hex64(const char *s)
{
	if (!s || strlen(s) != 64)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

int wp_tree_manifest_load(const char *path, struct wp_tree_manifest *m, struct wp_err *err)
{
	struct wp_buf text = WP_BUF_INIT;
	memset(m, 0, sizeof(*m));
	int rc = wp_file_read_capped(path, WP_TREE_MANIFEST_MAX, &text, err);
	if (!rc)
		rc = wp_tree_manifest_parse(text.data ? text.data : "", text.len, path, m, err);
	wp_buf_free(&text);
	return rc;
}

int wp_tree_manifest_parse(const char *data, size_t len, const char *path,
			   struct wp_tree_manifest *m, struct wp_err *err)
{
	struct wp_json_val *doc = NULL;
	const struct wp_json_opts o = { .what = path,
					.noun = "manifest",
					.max_bytes = WP_TREE_MANIFEST_MAX };
	int rc;
	memset(m, 0, sizeof(*m));
	if ((rc = wp_json_load(data, len, &o, &doc, err)))
		goto out;
	long long one;
	m->is_delta = wp_json_as_int(wp_json_get(doc, "wheelpick_delta"), &one) && one == 1;
	if (!m->is_delta &&
	    !(wp_json_as_int(wp_json_get(doc, "wheelpick_manifest"), &one) && one == 1)) {
		rc = wp_fail(err, -WPE_PARSE,
			     "'%s' is no manifest of wheelpick's (from 'wheelpick verify --manifest' or a "
			     "delta bundle)",
			     path);
		goto out;
	}
	const struct wp_json_val *files = wp_json_get_arr(doc, "files");
	for (size_t i = 0; i < wp_json_len(files) && !rc; i++) {
		const struct wp_json_val *f = wp_json_at(files, i);
		const char *p = wp_json_get_str(f, "path"), *sha = wp_json_get_str(f, "sha256");
		long long size = -1;
		bool carried = false;
		wp_json_as_int(wp_json_get(f, "size"), &size);
		wp_json_as_bool(wp_json_get(f, "carried"), &carried);
		if (!p || !*p || wp_member_name_problem(p, strlen(p)) || !is_hex64(sha)) {
			rc = wp_fail(err, -WPE_PARSE, "'%s': file %zu has no usable path or sha256",
				     path, i + 1);
			break;
		}
		wp_tree_manifest_add(m, p, sha, size);
		m->v[m->n - 1].carried = carried;
	}
	if (rc)
		goto out;
	wp_tree_manifest_seal(m);
	for (size_t i = 1; i < m->n && !rc; i++)
		if (!strcmp(m->v[i - 1].path, m->v[i].path))
			rc = wp_fail(err, -WPE_PARSE, "'%s' lists '%s' twice", path, m->v[i].path);
	const char *tree = wp_json_get_str(doc, "tree");
	if (!rc && tree && strcmp(tree, m->tree))
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' says its tree is %s, but its files make %s",
			     path, tree, m->tree);
	if (!rc && m->is_delta) {
		const char *pt = wp_json_get_str(doc, "previous", "tree"),
			   *pm = wp_json_get_str(doc, "previous", "manifest_sha256");
		if (!is_hex64(pt))
			rc = wp_fail(err, -WPE_PARSE, "'%s' names no previous tree", path);
		else {
			snprintf(m->prev_tree, sizeof(m->prev_tree), "%s", pt);
			if (is_hex64(pm))
				snprintf(m->prev_manifest, sizeof(m->prev_manifest), "%s", pm);
		}
	}
	if (!rc)
		wp_sha256_hex_of(data, len, m->source_sha256);
out:
	if (rc)
		wp_tree_manifest_release(m);
	wp_json_tree_free(doc);
	return rc;
}

