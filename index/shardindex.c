/* index/shardindex.c: CEP 16 sharded repodata decoded: the index, and a shard as repodata.json
 * text. Pure: no network, no catalog (the fuzz target links it alone). */
#include "index/shardindex.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/msgpack.h"
#include "base/url.h"
#include "base/zstd.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- the index ---- */

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wp_shard_entry *)a)->name,
		      ((const struct wp_shard_entry *)b)->name);
}

/* A name a conda package could have, that is safe after '#' in a source URL and in messages. */
bool wp_shard_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 256)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(isalnum(c) || c == '-' || c == '_' || c == '.' || c == '+'))
			return false;
	}
	return true;
}

/* ref resolved against the index's URL, ending in '/', and allowed from there. */
static int base_of(const char *url, const char *ref, const char *what, char **out,
		   struct wp_err *err)
{
	char *r = NULL;
	const char *why;
	if (wp_url_resolve(url, ref, &r, NULL) < 0 || !wp_url_scheme_ok(r))
		why = "is no URL";
	else
		why = wp_url_link_refused(url, r);
	if (why) {
		free(r);
		return wp_fail(err, -WPE_SOURCE, "shard index '%s': its %s '%s' %s; refused", url,
			       what, ref, why);
	}
	size_t n = strlen(r);
	if (!n || r[n - 1] != '/') {
		char *s = wp_xasprintf("%s/", r);
		free(r);
		r = s;
	}
	*out = r;
	return 0;
}

int wp_shard_index_decode(const void *data, size_t len, const char *url, struct wp_shard_index *ix,
			  struct wp_err *err)
{
	struct wp_buf raw = WP_BUF_INIT, json = WP_BUF_INIT_MAX(WP_SHARD_INDEX_MAX * 3);
	struct wp_json_val *root = NULL;
	long long version;
	int rc;
	memset(ix, 0, sizeof(*ix));
	ix->url = wp_xstrdup(url);
	if ((rc = wp_zstd_decompress(data, len, WP_SHARD_INDEX_MAX, url, &raw, err)) ||
	    (rc = wp_msgpack_to_json(raw.data, raw.len, url, &json, err)))
		goto out;
	const struct wp_json_opts jo = { .what = url,
					 .noun = "shard index",
					 .kind = "a CEP 16 shard index",
					 .code = -WPE_SOURCE,
					 .max_bytes = json.len + 1 };
	if ((rc = wp_json_load(json.data, json.len, &jo, &root, err)))
		goto out;
	const struct wp_json_val *shards = wp_json_get_obj(root, "shards");
	if (!shards) {
		rc = wp_fail(err, -WPE_SOURCE,
			     "shard index '%s' has no \"shards\" map: it is not a CEP 16 index",
			     url);
		goto out;
	}
	if (wp_json_get(root, "version") &&
	    (!wp_json_as_int(wp_json_get(root, "version"), &version) || version != 1)) {
		rc = wp_fail(err, -WPE_SOURCE,
			     "shard index '%s' is not version 1 of CEP 16, the one this wheelpick reads",
			     url);
		goto out;
	}
	const char *b = wp_json_get_str(root, "info", "base_url"),
		   *sb = wp_json_get_str(root, "info", "shards_base_url");
	const char *sd = wp_json_get_str(root, "info", "subdir");
	/* the CEP's defaults: packages beside the index, shards in shards/ under it */
	if ((rc = base_of(url, b && *b ? b : "./", "base_url", &ix->base_url, err)) ||
	    (rc = base_of(url, sb && *sb ? sb : "./shards/", "shards_base_url",
			  &ix->shards_base_url, err)))
		goto out;
	ix->subdir = sd && wp_shard_name_ok(sd) ? wp_xstrdup(sd) : NULL;
	size_t n = wp_json_len(shards);
	ix->v = wp_xcalloc(n ? n : 1, sizeof(*ix->v));
	for (size_t i = 0; i < n; i++) {
		const char *name = wp_json_key_at(shards, i),
			   *hex = wp_json_as_str(wp_json_at(shards, i));
		struct wp_shard_entry *e = &ix->v[ix->n];
		/* bin of 32 bytes reads as 64 hex digits; anything else names no shard */
		if (!name || !wp_shard_name_ok(name) || !hex ||
		    !wp_url_hex_lower(hex, strlen(hex), WP_SHA256_HEX_LEN, e->sha256)) {
			ix->malformed++;
			continue;
		}
		e->name = wp_xstrdup(name);
		ix->n++;
	}
	if (ix->n > 1)
		qsort(ix->v, ix->n, sizeof(*ix->v), entry_cmp);
	/* a name twice: the first (in sorted order) stands, as a map with one key per name would */
	size_t out = 0;
	for (size_t i = 0; i < ix->n; i++) {
		if (out && !strcmp(ix->v[out - 1].name, ix->v[i].name)) {
			free(ix->v[i].name);
			ix->malformed++;
			continue;
		}
		ix->v[out++] = ix->v[i];
	}
	ix->n = out;
out:
	if (rc) {
		wp_shard_index_release(ix);
		ix->url = NULL;
	}
	wp_json_tree_free(root);
	wp_buf_free(&raw);
	wp_buf_free(&json);
	return rc;
}

const struct wp_shard_entry *wp_shard_index_find(const struct wp_shard_index *ix, const char *name)
{
	struct wp_shard_entry key = { .name = (char *)name };
	if (!ix->n)
		return NULL;
	return bsearch(&key, ix->v, ix->n, sizeof(*ix->v), entry_cmp);
}

void wp_shard_index_release(struct wp_shard_index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->v[i].name);
	free(ix->v);
	free(ix->url);
	free(ix->base_url);
	free(ix->shards_base_url);
	free(ix->subdir);
	memset(ix, 0, sizeof(*ix));
}

char *wp_shard_url(const struct wp_shard_index *ix, const struct wp_shard_entry *e)
{
	return wp_xasprintf("%s%s.msgpack.zst", ix->shards_base_url, e->sha256);
}

/* The folder of the index's URL, with its '/'. */
static char *dir_of(const char *url)
{
	const char *slash = strrchr(url, '/');
	return wp_xstrndup(url, slash ? (size_t)(slash - url) + 1 : strlen(url));
}

int wp_shard_to_repodata(const void *data, size_t len, const struct wp_shard_index *ix,
			 const struct wp_shard_entry *e, const char *what, struct wp_buf *json,
			 struct wp_err *err)
{
	struct wp_buf raw = WP_BUF_INIT, body = WP_BUF_INIT_MAX(WP_SHARD_MAX_OUT * 3);
	struct wp_err de = WP_ERR_INIT;
	char got[WP_SHA256_HEX_LEN + 1], got_raw[WP_SHA256_HEX_LEN + 1] = "";
	int rc = 0;
	wp_buf_reset(json);
	wp_sha256_hex_of(data, len, got);
	bool ok = !strcmp(got, e->sha256);
	int drc = wp_zstd_decompress(data, len, WP_SHARD_MAX_OUT, what, &raw, &de);
	if (!ok && !drc) {
		/* some servers hash the msgpack before compressing it */
		wp_sha256_hex_of(raw.data, raw.len, got_raw);
		ok = !strcmp(got_raw, e->sha256);
	}
	if (!ok) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "shard '%s' of '%s' is not the one the index '%s' names: its sha256 is %s%s%s%s, "
			     "the index says %s",
			     what, e->name, ix->url, got, *got_raw ? " (" : "", got_raw,
			     *got_raw ? " decompressed)" : "", e->sha256);
		goto out;
	}
	if (drc) {
		rc = wp_fail(err, drc, "%s", de.msg);
		goto out;
	}
	if ((rc = wp_msgpack_to_json(raw.data, raw.len, what, &body, err)))
		goto out;
	if (body.len < 2 || body.data[0] != '{') {
		rc = wp_fail(err, -WPE_SOURCE, "shard '%s' of '%s' is not a map of packages", what,
			     e->name);
		goto out;
	}
	/* info first, where the repodata reader settles where packages are; then the shard's
	 * members */
	struct wp_json w;
	char *dir = dir_of(ix->url);
	wp_json_init_indent(&w, NULL);
	wp_json_obj(&w);
	wp_json_key(&w, "info");
	wp_json_obj(&w);
	if (ix->subdir)
		wp_json_kstr(&w, "subdir", ix->subdir);
	if (strcmp(ix->base_url, dir))
		wp_json_kstr(&w, "base_url", ix->base_url);
	wp_json_obj_end(&w);
	wp_json_obj_end(&w);
	free(dir);
	if ((rc = wp_json_finish_buf(&w, json))) {
		rc = wp_fail(err, -WPE_SOURCE, "shard index '%s' has an info that is not UTF-8",
			     ix->url);
		goto out;
	}
	/* {"info":{...}}\n  ->  {"info":{...}, + the shard's members */
	while (json->len && (json->data[json->len - 1] == '\n' || json->data[json->len - 1] == '}'))
		json->len--;
	json->len++; /* the info object's own '}' */
	json->data[json->len] = 0;
	if (strcmp(body.data, "{}"))
		wp_buf_addch(json, ',');
	wp_buf_add(json, body.data + 1, body.len - 1);
out:
	wp_buf_free(&raw);
	wp_buf_free(&body);
	return rc;
}

