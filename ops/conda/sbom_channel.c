/* ops/conda/sbom_channel.c: a local channel's SBOM, from what its repodata lists and what this run
 * picked. */
#include "ops/conda/sbom_channel.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "ops/conda/picks.h"
#include "ops/wheel/sbom.h"
#include "resolver/pick.h"
#include "base/os/os.h"

#include <stdlib.h>
#include <string.h>

#define REPODATA_MAX ((size_t)1 << 30)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subdirs of the channel: folders with a repodata.json, sorted. */
static char **subdirs(const char *dir, size_t *n)
{
	char **v = NULL;
	*n = 0;
	struct wp_os_dir *d = wp_os_opendir(dir);
	if (!d)
		return NULL;
	for (const struct wp_os_dirent *de; (de = wp_os_readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char *rd = wp_xasprintf("%s/%s/repodata.json", dir, de->d_name);
		struct wp_os_stat sb;
		if (wp_os_stat(rd, &sb) == 0 && WP_S_ISREG(sb.st_mode)) {
			v = wp_xrealloc(v, (*n + 1) * sizeof(*v));
			v[(*n)++] = wp_xstrdup(de->d_name);
		}
		free(rd);
	}
	wp_os_closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

static void add_packages(struct wp_sbom *b, const char *sub, const struct wp_json_val *pkgs)
{
	for (size_t i = 0; i < wp_json_len(pkgs); i++) {
		const char *fn = wp_json_key_at(pkgs, i);
		const struct wp_json_val *r = wp_json_at(pkgs, i);
		const char *name = wp_json_get_str(r, "name"), *ver = wp_json_get_str(r, "version");
		if (!fn || !name || !ver)
			continue;
		struct wp_sbom_comp *c = wp_sbom_add(b);
		c->path = wp_xasprintf("%s/%s", sub, fn);
		c->ecosystem = wp_xstrdup("conda");
		c->name = wp_xstrdup(name);
		c->version = wp_xstrdup(ver);
		c->filename = wp_xstrdup(fn);
		c->subdir = wp_xstrdup(sub);
		const char *build = wp_json_get_str(r, "build"),
			   *sha = wp_json_get_str(r, "sha256");
		c->build = build ? wp_xstrdup(build) : NULL;
		c->sha256 = sha ? wp_xstrdup(sha) : NULL;
		long long size;
		c->size = wp_json_as_int(wp_json_get(r, "size"), &size) ? size : -1;
	}
}

int wp_conda_write_sbom(const struct wp_session *s, const char *dir,
			const struct wp_conda_pick *picks, size_t npicks,
			const struct wp_target *targets, struct wp_err *err)
{
	struct wp_sbom b = { .kind = "conda channel" };
	size_t ns = 0;
	char **subs = subdirs(dir, &ns);
	int rc = 0;
	for (size_t i = 0; i < ns && !rc; i++) {
		char *path = wp_xasprintf("%s/%s/repodata.json", dir, subs[i]);
		struct wp_buf text = WP_BUF_INIT;
		struct wp_json_val *doc = NULL;
		const struct wp_json_opts o = { .what = path,
						.noun = "repodata",
						.max_bytes = REPODATA_MAX };
		if (!(rc = wp_file_read_capped(path, REPODATA_MAX, &text, err)) &&
		    !(rc = wp_json_load(text.data, text.len, &o, &doc, err))) {
			add_packages(&b, subs[i], wp_json_get_obj(doc, "packages"));
			add_packages(&b, subs[i], wp_json_get_obj(doc, "packages.conda"));
		}
		wp_json_tree_free(doc);
		wp_buf_free(&text);
		free(path);
	}
	/* this run's picks: where they came from, the targets they serve, who needs them */
	long *comp = wp_xcalloc(npicks ? npicks : 1, sizeof(*comp));
	for (size_t i = 0; i < npicks; i++) {
		const struct wp_conda_pick *p = &picks[i];
		comp[i] = -1;
		for (size_t k = 0; k < b.n && comp[i] < 0; k++)
			if (!strcmp(b.c[k].filename, p->c->filename) && p->c->subdir &&
			    !strcmp(b.c[k].subdir, p->c->subdir))
				comp[i] = (long)k;
		if (comp[i] < 0)
			continue;
		struct wp_sbom_comp *c = &b.c[comp[i]];
		if (!c->url && p->c->url)
			c->url = wp_xstrdup(p->c->url);
		if (!c->channel && p->channel)
			c->channel = wp_xstrdup(p->channel);
		if (!c->variant && p->variant && *p->variant)
			c->variant = wp_xstrdup(p->variant);
		struct wp_buf words = WP_BUF_INIT;
		wp_target_describe(&targets[p->target], &words);
		wp_sbom_comp_target(c, words.data);
		wp_buf_free(&words);
	}
	for (size_t i = 0; i < npicks; i++) {
		const char *by = picks[i].required_by;
		if (comp[i] < 0 || !by)
			continue;
		/* "pytorch 1.8.0 py3.8_cuda11.1_cudnn8.0.5_0": that pick, in the same target */
		for (size_t j = 0; j < npicks; j++) {
			const struct wp_conda_candidate *cj = picks[j].c;
			char *me = wp_xasprintf("%s %s %s", cj->name, cj->version,
						cj->build ? cj->build : "");
			if (j != i && comp[j] >= 0 && picks[j].target == picks[i].target &&
			    !strcmp(me, by)) {
				struct wp_sbom_comp *c = &b.c[comp[j]];
				bool dup = false;
				for (size_t k = 0; k < c->n_deps && !dup; k++)
					dup = c->deps[k] == (size_t)comp[i];
				if (!dup) {
					c->deps = wp_xrealloc(c->deps,
							      (c->n_deps + 1) * sizeof(*c->deps));
					c->deps[c->n_deps++] = (size_t)comp[i];
				}
			}
			free(me);
		}
	}
	free(comp);
	if (!rc)
		rc = wp_sbom_write(s, dir, &b, WP_SBOM_CDX | (s->sbom_spdx ? WP_SBOM_SPDX : 0),
				   err);
	wp_sbom_release(&b);
	for (size_t i = 0; i < ns; i++)
		free(subs[i]);
	free(subs);
	return rc;
}
