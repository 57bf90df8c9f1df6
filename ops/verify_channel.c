/* ops/verify_channel.c: a local conda channel re-checked: each subdir's repodata against its packages. */
#include "ops/verify_common.h"
#include "base/mem.h"
#include "base/url.h"
#include "index/repodata.h"
#include "verify/conda.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- conda ---- */

struct chan {
	struct vo_ctx *c;
	const char *subdir;
	const char *repodata;
};

static int check_conda_record(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct chan *ch = ctx;
	struct vo_ctx *c = ch->c;
	char *path = wp_xasprintf("%s/%s", ch->subdir, rec->filename);
	struct wp_hasher h;
	struct stat sb;
	c->rep->links++;
	if (!wp_url_filename_ok(rec->filename)) {
		vo_problem_add(c, true, ch->repodata, "'%s' is not a usable file name", rec->filename);
	} else if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		vo_problem_add(c, true, path, "is missing; '%s' lists it", ch->repodata);
	} else if (rec->size >= 0 && rec->size != (long long)sb.st_size) {
		vo_problem_add(c, true, path, "is %lld bytes, '%s' says %lld", (long long)sb.st_size,
			    ch->repodata, rec->size);
	} else if (wp_hasher_init(&h, WP_HASH_SHA256 | (rec->md5 ? WP_HASH_MD5 : 0), NULL) == 0) {
		char sha[WP_SHA256_HEX_LEN + 1], md5[WP_MD5_HEX_LEN + 1];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		char buf[65536];
		ssize_t got = fd < 0 ? -1 : 0;
		while (fd >= 0 && (got = read(fd, buf, sizeof(buf))) > 0)
			wp_hasher_update(&h, buf, (size_t)got);
		if (fd >= 0)
			close(fd);
		if (got < 0 || wp_hasher_final(&h, sha, rec->md5 ? md5 : NULL, NULL) < 0) {
			vo_problem_add(c, true, path, "cannot be read");
		} else {
			c->rep->files++;
			if (!rec->sha256 && !rec->md5)
				vo_problem_add(c, true, path, "'%s' gives no sha256 or md5 for it", ch->repodata);
			if (rec->sha256 && strcmp(sha, rec->sha256))
				vo_problem_add(c, true, path, "sha256 is %s, '%s' says %s", sha, ch->repodata,
					    rec->sha256);
			else if (rec->md5 && strcmp(md5, rec->md5))
				vo_problem_add(c, true, path, "md5 is %s, '%s' says %s", md5, ch->repodata, rec->md5);
			else {
				struct wp_conda_expect ex = { rec->project, rec->version, rec->build };
				struct wp_err e = WP_ERR_INIT;
				if (wp_conda_verify(path, &ex, NULL, &e) < 0)
					vo_problem_add(c, true, path, "%s", e.msg);
			}
		}
		wp_hasher_release(&h);
	}
	free(path);
	return 0;
}

static void verify_subdir(struct vo_ctx *c, const char *subdir)
{
	char *repodata = wp_xasprintf("%s/repodata.json", subdir);
	char *url = vo_file_url(subdir, "");
	struct chan ch = { c, subdir, repodata };
	struct wp_index_stats st = { 0 };
	struct wp_err e = WP_ERR_INIT;
	if (wp_read_repodata_file(repodata, url, check_conda_record, &ch, &st, &e) < 0)
		vo_problem_add(c, true, repodata, "%s", e.msg);
	else
		c->rep->pages++;
	if (st.malformed)
		vo_problem_add(c, true, repodata, "%llu records are broken (no name, a bad hash, wrong types)",
			    st.malformed);
	free(url);
	free(repodata);
}

static bool has_repodata(const char *dir)
{
	char *p = wp_xasprintf("%s/repodata.json", dir);
	bool yes = vo_is_file(p);
	free(p);
	return yes;
}

void vo_verify_channel(struct vo_ctx *c, const char *dir)
{
	if (has_repodata(dir)) {
		verify_subdir(c, dir);
		return;
	}
	size_t n;
	char **subs = vo_list_dir(dir, &n);
	for (size_t i = 0; i < n; i++) {
		char *sd = wp_xasprintf("%s/%s", dir, subs[i]);
		if (vo_is_dir(sd) && has_repodata(sd))
			verify_subdir(c, sd);
		free(sd);
	}
	vo_free_list(subs, n);
}

bool vo_is_channel(const char *dir)
{
	if (has_repodata(dir))
		return true;
	size_t n;
	char **subs = vo_list_dir(dir, &n);
	bool yes = false;
	for (size_t i = 0; i < n && !yes; i++) {
		char *sd = wp_xasprintf("%s/%s", dir, subs[i]);
		yes = vo_is_dir(sd) && has_repodata(sd);
		free(sd);
	}
	vo_free_list(subs, n);
	return yes;
}
