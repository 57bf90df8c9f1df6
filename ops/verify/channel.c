/* ops/verify/channel.c: a local conda channel re-checked: each subdir's repodata against its
 * packages, and its CEP 16 shards (when it has them) against its repodata. */
#include "base/fs.h"
#include "base/mem.h"
#include "base/url.h"
#include "base/zstd.h"
#include "index/localsrc.h"
#include "index/repodata.h"
#include "ops/conda/channel.h"
#include "ops/conda/shards.h"
#include "ops/core/shardread.h"
#include "ops/verify/common.h"
#include "verify/conda.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- conda ---- */

/* Messages name the package's path and "repodata.json" (the one beside it), never the repodata's
 * own path: inside a bundle that is a temp folder the reader has never seen. */
struct chan {
	struct vo_ctx *c;
	const char *subdir;
	const char *repodata;
	const char *subname;          /* the subdir's name under the channel, with ... */
	struct wp_strlist *paths, *shas; /* ... each package's SUBDIR/FILE and sha256 collected
					    (NULL: not) */
};

static int check_conda_record(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct chan *ch = ctx;
	struct vo_ctx *c = ch->c;
	char *path = wp_xasprintf("%s/%s", ch->subdir, rec->filename);
	struct wp_hasher h;
	struct wp_os_stat sb;
	c->rep->links++;
	if (!wp_url_filename_ok(rec->filename)) {
		wp_vo_problem_add(c, true, ch->repodata, "'%s' is not a usable file name",
				  rec->filename);
	} else if (wp_os_stat(path, &sb) < 0 || !WP_S_ISREG(sb.st_mode)) {
		wp_vo_problem_add(c, true, path, "is missing; repodata.json beside it lists it");
	} else if (rec->size >= 0 && rec->size != (long long)sb.st_size) {
		wp_vo_problem_add(c, true, path, "is %lld bytes, repodata.json says %lld",
				  (long long)sb.st_size, rec->size);
	} else if (wp_hasher_init(&h, WP_HASH_SHA256 | (rec->md5 ? WP_HASH_MD5 : 0), NULL) == 0) {
		char sha[WP_SHA256_HEX_LEN + 1], md5[WP_MD5_HEX_LEN + 1];
		int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
		char buf[65536];
		ssize_t got = fd < 0 ? -1 : 0;
		while (fd >= 0 && (got = wp_os_read(fd, buf, sizeof(buf))) > 0)
			wp_hasher_update(&h, buf, (size_t)got);
		if (fd >= 0)
			wp_os_close(fd);
		if (got < 0 || wp_hasher_final(&h, sha, rec->md5 ? md5 : NULL, NULL) < 0) {
			wp_vo_problem_add(c, true, path, "cannot be read");
		} else {
			c->rep->files++;
			c->rep->packages++;
			if (ch->paths) {
				/* owned here: a strlist borrows (freed by wp_vo_verify_channel) */
				wp_strlist_push(ch->paths,
						wp_xasprintf("%s/%s", ch->subname, rec->filename));
				wp_strlist_push(ch->shas, wp_xstrdup(sha));
			}
			if (!rec->sha256 && !rec->md5)
				wp_vo_problem_add(c, true, path,
						  "repodata.json gives no sha256 or md5 for it");
			if (rec->sha256 && strcmp(sha, rec->sha256))
				wp_vo_problem_add(c, true, path,
						  "sha256 is %s, repodata.json says %s", sha,
						  rec->sha256);
			else if (rec->md5 && strcmp(md5, rec->md5))
				wp_vo_problem_add(c, true, path, "md5 is %s, repodata.json says %s",
						  md5, rec->md5);
			else {
				struct wp_conda_expect ex = { rec->project, rec->version,
							      rec->build };
				struct wp_err e = WP_ERR_INIT;
				if (wp_conda_verify(path, &ex, NULL, &e) < 0)
					wp_vo_problem_add(c, true, path, "%s", e.msg);
				else
					wp_vo_check_conda_attest(c, path, rec->filename,
								 rec->project, sha,
								 rec->provenance);
			}
		}
		wp_hasher_release(&h);
	}
	free(path);
	return 0;
}

/* ---- CEP 16 shards ---- */

/* A record as the checks compare it: which file, of which package, with which hashes. */
struct srec {
	char *filename, *name, *sha256, *md5;
	bool seen;   /* a shard holds it */
};

WP_VEC_OF(srecs, struct srec);

static int srec_cmp(const void *a, const void *b)
{
	return strcmp(((const struct srec *)a)->filename, ((const struct srec *)b)->filename);
}

static char *dup_or_null(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static int collect_fn(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct srecs *v = ctx;
	if (rec->filename && rec->project)
		wp_vec_push(v, ((struct srec){ wp_xstrdup(rec->filename), wp_xstrdup(rec->project),
					       dup_or_null(rec->sha256), dup_or_null(rec->md5),
					       false }));
	return 0;
}

static void srecs_free(struct srecs *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].filename), free(v->v[i].name), free(v->v[i].sha256), free(v->v[i].md5);
	wp_vec_free(v);
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* One shard the index names: there, with the hash the index gives, holding records of its own name
 * only, each one repodata.json has with the same hashes. */
static void check_shard(struct vo_ctx *c, const char *subdir, const struct wp_shard_index *ix,
			const struct wp_shard_entry *e, struct srecs *want)
{
	char *url = wp_shard_url(ix, e), *path = NULL,
	     *shown = wp_xasprintf("%s/shards/%s.msgpack.zst", subdir, e->sha256);
	struct wp_buf body, json = WP_BUF_INIT;
	struct wp_err le = WP_ERR_INIT, re = WP_ERR_INIT;
	struct srecs got = { 0 };
	struct wp_index_stats st = { 0 };
	size_t dl = strlen(subdir);
	memset(&body, 0, sizeof(body));
	if (wp_local_path(url, &path, &le) < 0 || strncmp(path, subdir, dl) || path[dl] != '/') {
		wp_vo_problem_add(c, true, shown,
				  "is not in the channel: the index puts '%s''s shard at '%s'",
				  e->name, url);
		goto out;
	}
	free(shown);
	shown = wp_xstrdup(path);
	if (wp_file_read_capped(path, WP_SHARD_MAX, &body, &le) < 0) {
		wp_vo_problem_add(c, true, shown,
				  "is missing or unreadable; the index names it for '%s'", e->name);
		goto out;
	}
	c->rep->pages++;
	c->rep->files++;
	if (wp_shard_to_repodata(body.data, body.len, ix, e, path, &json, &re) < 0) {
		wp_vo_problem_add(c, true, shown, "%s", re.msg);
		goto out;
	}
	if (wp_read_repodata_mem(json.data, json.len, "file:///shard", collect_fn, &got, &st, &re) <
	    0) {
		wp_vo_problem_add(c, true, shown, "%s", re.msg);
		goto out;
	}
	if (st.malformed)
		wp_vo_problem_add(c, true, shown, "holds %llu broken record(s)", st.malformed);
	for (size_t i = 0; i < got.n; i++) {
		const struct srec *r = &got.v[i];
		struct srec key = { .filename = r->filename },
			    *w = bsearch(&key, want->v, want->n, sizeof(*want->v), srec_cmp);
		c->rep->links++;
		if (strcmp(r->name, e->name))
			wp_vo_problem_add(c, true, shown,
					  "holds '%s', a record of '%s', under the name '%s'",
					  r->filename, r->name, e->name);
		else if (!w)
			wp_vo_problem_add(c, true, shown,
					  "holds '%s', which repodata.json does not list",
					  r->filename);
		else if (!same(w->sha256, r->sha256) || !same(w->md5, r->md5))
			wp_vo_problem_add(c, true, shown, "gives '%s' sha256 %s, repodata.json %s",
					  r->filename, r->sha256 ? r->sha256 : "(none)",
					  w->sha256 ? w->sha256 : "(none)");
		else
			w->seen = true;
	}
out:
	srecs_free(&got);
	wp_buf_free(&body);
	wp_buf_free(&json);
	free(url);
	free(path);
	free(shown);
}

static void verify_shards(struct vo_ctx *c, const char *subdir, const char *repodata)
{
	char *index = wp_xasprintf("%s/" WP_SHARD_INDEX_FILE, subdir);
	char *url = wp_vo_file_url(subdir, "/" WP_SHARD_INDEX_FILE);
	struct wp_buf body;
	struct wp_err e = WP_ERR_INIT;
	struct wp_shard_index ix = { 0 };
	struct srecs want = { 0 };
	struct wp_index_stats st = { 0 };
	memset(&body, 0, sizeof(body));
	if (!wp_vo_is_file(index))
		goto out;
	if (wp_file_read_capped(index, WP_SHARD_INDEX_MAX, &body, &e) < 0 ||
	    wp_shard_index_decode(body.data, body.len, url, &ix, &e) < 0) {
		wp_vo_problem_add(c, true, index, "%s", e.msg);
		goto out;
	}
	c->rep->pages++;
	if (ix.malformed)
		wp_vo_problem_add(c, true, index,
				  "has %llu entries that name no shard (a bad name or a hash not 32 bytes)",
				  ix.malformed);
	if (wp_read_repodata_file(repodata, "file:///repodata", collect_fn, &want, &st, &e) < 0)
		goto out; /* said by the repodata check */
	if (want.n > 1)
		qsort(want.v, want.n, sizeof(*want.v), srec_cmp);
	for (size_t i = 0; i < ix.n; i++)
		check_shard(c, subdir, &ix, &ix.v[i], &want);
	/* what repodata.json lists must be in a shard, under its own name */
	for (size_t i = 0; i < want.n; i++) {
		const struct srec *w = &want.v[i];
		if (w->seen)
			continue;
		if (!wp_shard_index_find(&ix, w->name))
			wp_vo_problem_add(c, true, index,
					  "names no shard for '%s', which repodata.json lists ('%s')",
					  w->name, w->filename);
		else
			wp_vo_problem_add(c, true, index,
					  "'%s''s shard lacks '%s', which repodata.json lists",
					  w->name, w->filename);
	}
out:
	srecs_free(&want);
	wp_shard_index_release(&ix);
	wp_buf_free(&body);
	free(index);
	free(url);
}

/* repodata.json.zst, when there, holds exactly repodata.json's bytes: conda and mamba fetch it
 * first, so a changed one is what they would install from, whatever repodata.json says. */
static void verify_zst(struct vo_ctx *c, const char *repodata)
{
	char *zst = wp_xasprintf("%s.zst", repodata);
	struct wp_buf json, z, out;
	struct wp_err e = WP_ERR_INIT;
	memset(&json, 0, sizeof(json));
	memset(&z, 0, sizeof(z));
	memset(&out, 0, sizeof(out));
	if (!wp_vo_is_file(zst))
		goto out;
	if (wp_file_read_capped(repodata, WP_CHANNEL_REPODATA_MAX, &json, &e) < 0)
		goto out; /* said by the repodata check */
	if (wp_file_read_capped(zst, WP_CHANNEL_REPODATA_MAX, &z, &e) < 0 ||
	    wp_zstd_decompress(z.data, z.len, WP_CHANNEL_REPODATA_MAX, zst, &out, &e) < 0)
		wp_vo_problem_add(c, true, zst, "%s", e.msg);
	else if (out.len != json.len || memcmp(out.data, json.data, json.len))
		wp_vo_problem_add(c, true, zst,
				  "does not hold repodata.json's bytes (conda reads the .zst first): it was changed");
	else
		c->rep->pages++;
out:
	wp_buf_free(&json);
	wp_buf_free(&z);
	wp_buf_free(&out);
	free(zst);
}

static void verify_subdir(struct vo_ctx *c, const char *subdir, const char *subname,
			  struct wp_strlist *paths, struct wp_strlist *shas)
{
	char *repodata = wp_xasprintf("%s/repodata.json", subdir);
	char *url = wp_vo_file_url(subdir, "");
	struct chan ch = { c, subdir, repodata, subname, paths, shas };
	struct wp_index_stats st = { 0 };
	struct wp_err e = WP_ERR_INIT;
	if (wp_read_repodata_file(repodata, url, check_conda_record, &ch, &st, &e) < 0)
		wp_vo_problem_add(c, true, repodata, "%s", e.msg);
	else
		c->rep->pages++;
	if (st.malformed)
		wp_vo_problem_add(c, true, repodata,
				  "%llu records are broken (no name, a bad hash, wrong types)",
				  st.malformed);
	verify_zst(c, repodata);
	verify_shards(c, subdir, repodata);
	free(url);
	free(repodata);
}

static bool has_repodata(const char *dir)
{
	char *p = wp_xasprintf("%s/repodata.json", dir);
	bool yes = wp_vo_is_file(p);
	free(p);
	return yes;
}

void wp_vo_verify_channel(struct vo_ctx *c, const char *dir)
{
	if (has_repodata(dir)) {
		verify_subdir(c, dir, NULL, NULL, NULL);
		return;
	}
	size_t n;
	char **subs = wp_vo_list_dir(dir, &n);
	struct wp_strlist paths = { 0 }, shas = { 0 };
	for (size_t i = 0; i < n; i++) {
		char *sd = wp_xasprintf("%s/%s", dir, subs[i]);
		if (wp_vo_is_dir(sd) && has_repodata(sd))
			verify_subdir(c, sd, subs[i], &paths, &shas);
		free(sd);
	}
	/* the channel's SBOM lists every package its repodata lists */
	wp_vo_check_sbom(c, dir, (const char *const *)paths.v, (const char *const *)shas.v, paths.n,
			 true);
	for (size_t i = 0; i < paths.n; i++)
		free((char *)paths.v[i]), free((char *)shas.v[i]);
	wp_strlist_release(&paths);
	wp_strlist_release(&shas);
	wp_vo_free_list(subs, n);
}

bool wp_vo_is_channel(const char *dir)
{
	if (has_repodata(dir))
		return true;
	size_t n;
	char **subs = wp_vo_list_dir(dir, &n);
	bool yes = false;
	for (size_t i = 0; i < n && !yes; i++) {
		char *sd = wp_xasprintf("%s/%s", dir, subs[i]);
		yes = wp_vo_is_dir(sd) && has_repodata(sd);
		free(sd);
	}
	wp_vo_free_list(subs, n);
	return yes;
}
