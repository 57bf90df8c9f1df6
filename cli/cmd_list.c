/* cli/cmd_list.c: `wheelpick list PKG`: what the catalog has, as a versions x variants grid or JSON,
 * with the files pick would not use (another source lists the project first) set apart. */
#include "cli/cli.h"
#include "base/json.h"
#include "base/mem.h"
#include "ops/list.h"
#include "ops/sources.h"
#include "ops/targets.h"
#include "resolver/variant.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct list_opts {
	bool json, conda;
	const char *cuda, *driver, *python, *platform, *index_strategy;
	struct wp_strlist gpu, index;
};

#define O(f) offsetof(struct list_opts, f)
static const struct wp_opt list_table[] = {
	{ "json", 0, NULL, WP_OPT_FLAG, O(json), NULL, "an array of file objects" },
	{ "conda", 0, NULL, WP_OPT_FLAG, O(conda), NULL, "conda packages instead of wheels" },
	{ "cuda", 0, NULL, WP_OPT_STR, O(cuda), "X.Y|cpu", "mark the cells a target with this CUDA can take" },
	{ "driver", 0, NULL, WP_OPT_STR, O(driver), "VERSION", "... with this NVIDIA driver" },
	{ "python", 0, "python-version", WP_OPT_STR, O(python), "X.Y", "... with this Python" },
	{ "platform", 0, NULL, WP_OPT_STR, O(platform), "TAG", "... on this platform" },
	{ "gpu", 0, NULL, WP_OPT_LIST, O(gpu), "sm_86|NAME", "... with this GPU" },
	{ "index", 'i', "index-url|extra-index-url|find-links", WP_OPT_LIST, O(index), "URL",
	  "the indexes pick would be given, best first (decides which source's files count)" },
	{ "index-strategy", 0, NULL, WP_OPT_STR, O(index_strategy), "first-index|unsafe-best-match",
	  "as for pick" },
	WP_OPT_END,
};
#undef O

static int variant_order(const void *pa, const void *pb)
{
	struct wp_variant a, b;
	const char *sa = *(char *const *)pa, *sb = *(char *const *)pb;
	wp_variant_from_label(sa, &a);
	wp_variant_from_label(sb, &b);
	int c = wp_variant_cmp(&a, &b);
	return c ? c : strcmp(sa, sb);
}

static void print_grid(const char *project, const struct wp_list *l, bool marked)
{
	/* columns: the variants present among the files pick would use, ordered as the resolver ranks them */
	const char **cols = NULL;
	size_t nc = 0, used = 0;
	for (size_t i = 0; i < l->n; i++) {
		const char *v = l->v[i].variant ? l->v[i].variant : "";
		if (l->v[i].shadowed_by)
			continue;
		used++;
		bool seen = false;
		for (size_t k = 0; k < nc && !seen; k++)
			seen = !strcmp(cols[k], v);
		if (!seen) {
			cols = wp_xrealloc(cols, (nc + 1) * sizeof(*cols));
			cols[nc++] = v;
		}
	}
	qsort(cols, nc, sizeof(*cols), variant_order);
	printf("%s: %zu files (cells: files per version and variant; '-' none%s)\n", project, used,
	       marked ? "; '*' the target can take one" : "");
	printf("%-24s", "version");
	for (size_t k = 0; k < nc; k++)
		printf(" %10s", *cols[k] ? cols[k] : "(none)");
	putchar('\n');
	for (size_t i = 0; i < l->n;) {
		char ver[128];
		wp_list_public_version(&l->v[i], l->conda, ver, sizeof(ver));
		size_t j = i;
		int *count = wp_xcalloc(nc ? nc : 1, sizeof(*count));
		bool *fit = wp_xcalloc(nc ? nc : 1, sizeof(*fit));
		bool any = false;
		for (; j < l->n; j++) {
			char vj[128];
			wp_list_public_version(&l->v[j], l->conda, vj, sizeof(vj));
			if (strcmp(vj, ver) != 0)
				break;
			if (l->v[j].shadowed_by)
				continue;
			any = true;
			for (size_t k = 0; k < nc; k++)
				if (!strcmp(cols[k], l->v[j].variant ? l->v[j].variant : "")) {
					count[k]++;
					fit[k] |= l->v[j].fits;
				}
		}
		if (any) {
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
		}
		free(count);
		free(fit);
		i = j;
	}
	if (l->n_shadowed) {
		/* name each shadowed source once */
		printf("not counted: %zu file(s) from sources pick does not use for %s (it takes a project from the\n"
		       "first source that lists it; --index-strategy unsafe-best-match takes all):\n", l->n_shadowed, project);
		for (size_t i = 0; i < l->n; i++) {
			if (!l->v[i].shadowed_by)
				continue;
			bool seen = false;
			for (size_t k = 0; k < i && !seen; k++)
				seen = l->v[k].shadowed_by && !strcmp(l->v[k].source_url ? l->v[k].source_url : "",
								      l->v[i].source_url ? l->v[i].source_url : "");
			if (!seen)
				printf("  %s (shadowed by %s)\n", l->v[i].source_url ? l->v[i].source_url : "?", l->v[i].shadowed_by);
		}
	}
	free(cols);
}

static void print_json(const struct wp_list *l)
{
	struct wp_json j;
	wp_json_init(&j);
	wp_json_arr(&j);
	for (size_t i = 0; i < l->n; i++) {
		const struct wp_list_file *f = &l->v[i];
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
		wp_json_kstr(&j, "source", f->source_url);
		wp_json_kstr(&j, "shadowed_by", f->shadowed_by);
		if (l->conda) {
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

/* The target to mark the grid for, from the words given (none: NULL). */
static int mark_target(const struct list_opts *o, struct wp_target *t, bool *marked, struct wp_err *err)
{
	int rc = 0;
	*marked = !o->conda && (o->cuda || o->driver || o->python || o->platform || o->gpu.n);
	if (!*marked)
		return 0;
	wp_target_init(t);
	if ((o->python && (rc = wp_target_set_python(t, o->python, err))) ||
	    (o->platform && (rc = wp_target_set_platform(t, o->platform, err))) ||
	    (o->cuda && (rc = wp_target_set_cuda(t, o->cuda, err))) ||
	    (o->driver && (rc = wp_target_set_driver(t, o->driver, err))))
		return rc;
	for (size_t i = 0; i < o->gpu.n; i++)
		if ((rc = wp_target_add_gpu(t, o->gpu.v[i], err)))
			return rc;
	return wp_target_finish(t, err);
}

int wp_cmd_list(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct list_opts o = { 0 };
	struct wp_strlist pos = { 0 }, indexes = { 0 };
	struct wp_sources given = { 0 };
	struct wp_catalog cat = { 0 };
	struct wp_list l = { 0 };
	struct wp_target t;
	bool marked = false;
	int rc;
	if (wp_opts_wants_help(argc, argv)) {
		wp_opts_help(stdout, "wheelpick list PKG [--json] [--conda] [--cuda X.Y|--driver V] [--python X.Y] [--platform TAG] [--gpu G]",
			     "Show what the catalog has for a project: a grid of versions by variants ('*' where the\n"
			     "target given can take a build), or with --json an array of file objects (filename,\n"
			     "version, variant, url, sha256, size, source, shadowed_by, ...). Files from a source pick\n"
			     "would not use for this project (another source lists it first) are set apart.",
			     list_table);
		return 0;
	}
	if ((rc = wp_opts_parse(list_table, &o, argc, argv, &pos, err)))
		goto out;
	if (pos.n != 1) {
		rc = wp_fail(err, -WPE_USAGE, "list takes one project name; see 'wheelpick list --help'");
		goto out;
	}
	if ((rc = mark_target(&o, &t, &marked, err)))
		goto out;
	if ((rc = wp_cli_need_paths(cli, err)) || (rc = wp_catalog_open(&cat, cli->session.catalog_path, err)))
		goto out;
	for (size_t i = 0; i < o.index.n; i++)
		wp_sources_add_index(&given, o.index.v[i]);
	for (size_t i = 0; i < given.n; i++)
		wp_strlist_push(&indexes, given.urls[i]);
	struct wp_resolve_opts policy = { .indexes = &indexes };
	if (o.index_strategy && !strcmp(o.index_strategy, "unsafe-best-match"))
		policy.strategy = WP_INDEX_BEST_MATCH;
	else if (o.index_strategy && strcmp(o.index_strategy, "first-index")) {
		rc = wp_fail(err, -WPE_USAGE, "--index-strategy '%s' is not one of first-index, unsafe-best-match",
			     o.index_strategy);
		goto out;
	}
	struct wp_list_opts lo = { .conda = o.conda, .mark = marked ? &t : NULL, .policy = &policy };
	if ((rc = wp_list_project(&cat, pos.v[0], &lo, &l, err)))
		goto out;
	if (o.json)
		print_json(&l);
	else if (!l.n)
		rc = wp_fail(err, -WPE_NOMATCH, "the catalog has no %s for '%s'; run 'wheelpick update%s' or add --index URL",
			     o.conda ? "conda packages" : "files", pos.v[0], o.conda ? " --conda" : "");
	else
		print_grid(pos.v[0], &l, marked);
out:
	wp_list_release(&l);
	wp_catalog_close(&cat);
	wp_sources_release(&given);
	wp_strlist_release(&indexes);
	wp_strlist_release(&pos);
	wp_strlist_release(&o.gpu);
	wp_strlist_release(&o.index);
	return rc;
}
