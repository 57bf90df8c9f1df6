/* cli/cmd_list.c: `wheelpick list PKG`: what the catalog has, as a versions x variants grid or JSON. */
#include "cli/cli.h"
#include "ops/sources.h"
#include "ops/targets.h"
#include "base/json.h"
#include "base/mem.h"
#include "resolver/condaver.h"
#include "resolver/pick.h"
#include "resolver/tags.h"
#include "resolver/variant.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct list_opts {
	bool json, conda;
	const char *cuda, *python, *platform;
};

static const struct wp_opt list_table[] = {
	{ "json", 0, NULL, WP_OPT_FLAG, offsetof(struct list_opts, json), NULL, "an array of file objects" },
	{ "conda", 0, NULL, WP_OPT_FLAG, offsetof(struct list_opts, conda), NULL, "conda packages instead of wheels" },
	{ "cuda", 0, NULL, WP_OPT_STR, offsetof(struct list_opts, cuda), "X.Y|cpu", "mark the cells that fit this target" },
	{ "python", 0, "python-version", WP_OPT_STR, offsetof(struct list_opts, python), "X.Y", "... with this Python" },
	{ "platform", 0, NULL, WP_OPT_STR, offsetof(struct list_opts, platform), "TAG", "... on this platform" },
	WP_OPT_END,
};

struct file {
	char *filename, *version, *variant, *url, *sha256, *kind, *tags, *requires_python, *yanked, *build, *subdir;
	long long size;
	struct wp_version v;
	bool v_ok;
	bool fits;      /* the target given to mark the grid takes this file */
};

struct files {
	struct file *v;
	size_t n;
	bool conda;
};

static char *dup(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static int collect(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct files *fs = ctx;
	struct wp_err e = WP_ERR_INIT;
	fs->v = wp_xrealloc(fs->v, (fs->n + 1) * sizeof(*fs->v));
	struct file *f = &fs->v[fs->n++];
	*f = (struct file){
		.filename = dup(r->filename), .version = dup(r->version), .variant = dup(r->variant), .url = dup(r->url),
		.sha256 = dup(r->sha256), .kind = dup(r->kind), .tags = dup(r->tags), .requires_python = dup(r->requires_python),
		.yanked = dup(r->yanked), .build = dup(r->build), .subdir = dup(r->subdir), .size = r->size,
	};
	if (!fs->conda)
		f->v_ok = wp_version_parse(&f->v, f->version, strlen(f->version), &e) == 0;
	return 0;
}

/* newest first; then variant; then file name. arg: bool *conda */
static int by_version_desc(const void *pa, const void *pb, void *arg)
{
	const struct file *a = pa, *b = pb;
	int c;
	if (*(const bool *)arg)
		c = wp_condaver_cmp(b->version, a->version);
	else if (a->v_ok && b->v_ok)
		c = wp_version_cmp_public(&b->v, &a->v);
	else
		c = (int)b->v_ok - (int)a->v_ok;
	if (c)
		return c;
	if ((c = strcmp(a->variant, b->variant)))
		return c;
	return strcmp(a->filename, b->filename);
}

static void public_version(const struct file *f, char *out, size_t n)
{
	struct wp_buf b = WP_BUF_INIT;
	if (f->v_ok)
		wp_version_format_public(&f->v, &b);
	snprintf(out, n, "%s", b.len ? b.data : f->version);
	wp_buf_free(&b);
}

static int variant_order(const void *pa, const void *pb)
{
	struct wp_variant a, b;
	const char *sa = *(char *const *)pa, *sb = *(char *const *)pb;
	wp_variant_from_label(sa, &a);
	wp_variant_from_label(sb, &b);
	int c = wp_variant_cmp(&a, &b);
	return c ? c : strcmp(sa, sb);
}

/* Which files a target would take, each judged alone by the picking rule. */
static void mark_fits(const char *project, struct files *fs, const struct wp_target *t)
{
	struct wp_tagset ts = WP_TAGSET_INIT;
	struct wp_err e = WP_ERR_INIT;
	if (wp_tagset_build(&ts, t, &e) < 0)
		return;
	for (size_t i = 0; i < fs->n; i++) {
		const struct file *f = &fs->v[i];
		struct wp_candidate c = {
			.project = project, .version = f->version, .variant = f->variant, .kind = f->kind,
			.filename = f->filename, .url = f->url, .sha256 = f->sha256, .requires_python = f->requires_python,
			.yanked = f->yanked, .size = f->size,
		};
		struct wp_pick_request req = { .project = project, .pre = true };
		struct wp_pick_result res;
		if (wp_pick(&c, 1, &req, t, &ts, &res, &e) == 0)
			fs->v[i].fits = res.chosen == 0;
		wp_pick_result_release(&res);
	}
	wp_tagset_release(&ts);
}

static void print_grid(const char *project, struct files *fs, bool marked)
{
	/* columns: the variants present, ordered as the resolver ranks them */
	char **cols = NULL;
	size_t nc = 0;
	for (size_t i = 0; i < fs->n; i++) {
		bool seen = false;
		for (size_t k = 0; k < nc && !seen; k++)
			seen = !strcmp(cols[k], fs->v[i].variant);
		if (!seen) {
			cols = wp_xrealloc(cols, (nc + 1) * sizeof(*cols));
			cols[nc++] = fs->v[i].variant;
		}
	}
	qsort(cols, nc, sizeof(*cols), variant_order);
	printf("%s: %zu files (cells: files per version and variant; '-' none%s)\n", project, fs->n,
	       marked ? "; '*' the target can take one" : "");
	printf("%-24s", "version");
	for (size_t k = 0; k < nc; k++)
		printf(" %10s", *cols[k] ? cols[k] : "(none)");
	putchar('\n');
	for (size_t i = 0; i < fs->n;) {
		char ver[128];
		if (fs->conda)
			snprintf(ver, sizeof(ver), "%s", fs->v[i].version);
		else
			public_version(&fs->v[i], ver, sizeof(ver));
		size_t j = i;
		int *count = wp_xcalloc(nc ? nc : 1, sizeof(*count));
		bool *fit = wp_xcalloc(nc ? nc : 1, sizeof(*fit));
		for (; j < fs->n; j++) {
			char vj[128];
			if (fs->conda)
				snprintf(vj, sizeof(vj), "%s", fs->v[j].version);
			else
				public_version(&fs->v[j], vj, sizeof(vj));
			if (strcmp(vj, ver) != 0)
				break;
			for (size_t k = 0; k < nc; k++)
				if (!strcmp(cols[k], fs->v[j].variant)) {
					count[k]++;
					fit[k] |= fs->v[j].fits;
				}
		}
		printf("%-24s", ver);
		for (size_t k = 0; k < nc; k++) {
			char cell[16];
			if (count[k])
				snprintf(cell, sizeof(cell), "%d%s", count[k], fit[k] ? "*" : "");
			else
				snprintf(cell, sizeof(cell), "-");
			printf(" %10s", cell);
		}
		putchar('\n');
		free(count);
		free(fit);
		i = j;
	}
	free(cols);
}

static void print_json(struct files *fs)
{
	struct wp_json j;
	wp_json_init(&j);
	wp_json_arr(&j);
	for (size_t i = 0; i < fs->n; i++) {
		const struct file *f = &fs->v[i];
		wp_json_obj(&j);
		wp_json_kstr(&j, "filename", f->filename);
		wp_json_kstr(&j, "version", f->version);
		wp_json_kstr(&j, "variant", f->variant);
		wp_json_kstr(&j, "kind", f->kind);
		wp_json_kstr(&j, "url", f->url);
		wp_json_kstr(&j, "sha256", f->sha256);
		wp_json_key(&j, "size");
		if (f->size >= 0)
			wp_json_int(&j, f->size);
		else
			wp_json_null(&j);
		if (fs->conda) {
			wp_json_kstr(&j, "build", f->build);
			wp_json_kstr(&j, "subdir", f->subdir);
		} else {
			wp_json_kstr(&j, "tags", f->tags);
			wp_json_kstr(&j, "requires_python", f->requires_python);
			wp_json_kstr(&j, "yanked", f->yanked);
		}
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_finish(&j, stdout);
}

int wp_cmd_list(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct list_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_catalog cat = { 0 };
	struct files fs = { 0 };
	struct wp_buf proj = WP_BUF_INIT;
	int rc;
	if (wp_opts_wants_help(argc, argv)) {
		wp_opts_help(stdout, "wheelpick list PKG [--json] [--conda]",
			     "Show what the catalog has for a project: a grid of versions by variants, or with --json\n"
			     "an array of file objects (filename, version, variant, url, sha256, size, ...).",
			     list_table);
		return 0;
	}
	if ((rc = wp_opts_parse(list_table, &o, argc, argv, &pos, err)))
		goto out;
	if (pos.n != 1) {
		rc = wp_fail(err, -WPE_USAGE, "list takes one project name; see 'wheelpick list --help'");
		goto out;
	}
	if ((rc = wp_cli_need_paths(cli, err)) || (rc = wp_catalog_open(&cat, cli->session.catalog_path, err)))
		goto out;
	if (o.conda)
		wp_buf_addstr(&proj, pos.v[0]);
	else
		wp_project_name_normalize(pos.v[0], strlen(pos.v[0]), &proj);
	fs.conda = o.conda;
	if ((rc = wp_catalog_files(&cat, proj.data, o.conda, collect, &fs, err)))
		goto out;
	if (fs.n)
		qsort_r(fs.v, fs.n, sizeof(*fs.v), by_version_desc, &o.conda);
	if (o.json) {
		print_json(&fs);
	} else if (!fs.n) {
		rc = wp_fail(err, -WPE_NOMATCH, "the catalog has no %s for '%s'; run 'wheelpick update%s' or add --index URL",
			     o.conda ? "conda packages" : "files", proj.data, o.conda ? " --conda" : "");
	} else {
		bool marked = !o.conda && (o.cuda || o.python || o.platform);
		if (marked) {
			struct wp_target t;
			wp_target_init(&t);
			if ((o.python && (rc = wp_target_set_python(&t, o.python, err))) ||
			    (o.platform && (rc = wp_target_set_platform(&t, o.platform, err))) ||
			    (o.cuda && (rc = wp_target_set_cuda(&t, o.cuda, err))))
				goto out;
			mark_fits(proj.data, &fs, &t);
		}
		print_grid(proj.data, &fs, marked);
	}
out:
	for (size_t i = 0; i < fs.n; i++) {
		struct file *f = &fs.v[i];
		free(f->filename), free(f->version), free(f->variant), free(f->url), free(f->sha256), free(f->kind);
		free(f->tags), free(f->requires_python), free(f->yanked), free(f->build), free(f->subdir);
		if (f->v_ok)
			wp_version_release(&f->v);
	}
	free(fs.v);
	wp_buf_free(&proj);
	wp_catalog_close(&cat);
	wp_strlist_release(&pos);
	return rc;
}
