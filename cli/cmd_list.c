/* cli/cmd_list.c: `wheelpick list PKG`: what the catalog has, newest first: a row per build when
 * a grid of versions by builds would not fit the terminal (--all shows the grid anyway), or JSON;
 * with the files pick would not use (another source lists the project first) set apart. */
#include "base/envp.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/mem.h"
#include "cli/cli.h"
#include "cli/pick_opts.h"
#include "cli/print.h"
#include "ops/core/sources.h"
#include "ops/core/suggest.h"
#include "ops/core/targets.h"
#include "ops/wheel/list.h"
#include "resolver/gpucode.h"
#include "resolver/pick.h"
#include "resolver/requirement.h"
#include "resolver/variant.h"
#include "resolver/wheelname.h"
#include "base/os/os.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct list_opts {
	bool json, conda, all, installed;
	const char *cuda, *driver, *python, *platform, *index_strategy, *rocm, *x86_64_level;
	struct wp_strlist gpu, index, intel_ip;
};

#define O(f) offsetof(struct list_opts, f)
const struct wp_opt wp_list_table[] = {
	{ "all", 0, NULL, WP_OPT_FLAG, O(all), NULL,
	  "the full grid of versions by builds, however wide" },
	{ "installed", 0, NULL, WP_OPT_FLAG, O(installed), NULL,
	  "what is installed in the environment of --python PY (default: the active virtual environment's, else python3)" },
	{ "json", 0, NULL, WP_OPT_FLAG, O(json), NULL, "every file as a JSON object, in an array" },
	{ "conda", 0, NULL, WP_OPT_FLAG, O(conda), NULL, "conda packages instead of wheels" },
	{ "cuda", 0, NULL, WP_OPT_STR, O(cuda), "X.Y|cpu",
	  "mark ('*') what a machine whose driver runs CUDA X.Y can take" },
	{ "driver", 0, NULL, WP_OPT_STR, O(driver), "VERSION",
	  "mark what a machine with this NVIDIA driver can take" },
	{ "python", 0, "python-version", WP_OPT_STR, O(python), "X.Y",
	  "mark what this Python can take" },
	{ "platform", 0, NULL, WP_OPT_STR, O(platform), "TAG",
	  "mark what this platform can take (manylinux_2_28_x86_64, ...)" },
	{ "gpu", 0, NULL, WP_OPT_LIST, O(gpu), "sm_86|NAME|gfxN",
	  "mark what has code for this GPU" },
	{ "rocm", 0, NULL, WP_OPT_STR, O(rocm), "X.Y",
	  "mark what a machine with AMD ROCm X.Y can take" },
	{ "intel-device-ip", 0, NULL, WP_OPT_LIST, O(intel_ip), "IP|NAME",
	  "mark what this Intel GPU can take (a device IP such as 20.1.0, or bmg-g21)" },
	{ "x86-64-level", 0, NULL, WP_OPT_STR, O(x86_64_level), "v1|v2|v3|v4",
	  "mark what a CPU of this x86-64 level can take" },
	{ "index", 'i', "index-url|extra-index-url|find-links", WP_OPT_LIST, O(index), "URL",
	  "the indexes pick would be given, best first (decides which index's files count)" },
	{ "index-strategy", 0, NULL, WP_OPT_STR, O(index_strategy), "first-index|unsafe-best-match",
	  "first-index (default): a project's files come from the first index that lists it; unsafe-best-match: all" },
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

/* The terminal's width for stdout, else $COLUMNS, else 80. */
static int width_of_output(void)
{
	int w = wp_os_term_width(WP_OS_STDOUT);
	if (w >= 20)
		return w;
	const char *c = wp_envp_get(wp_os_environ(), "COLUMNS");
	long v = c ? strtol(c, NULL, 10) : 0;
	return v >= 20 && v < 100000 ? (int)v : 80;
}

/* The builds present among the files pick would use, ordered as the picking rule ranks them,
 * and the versions, newest first (the list's order). */
struct shape {
	const char **cols;   /* build labels ("" for files with none) */
	size_t nc;
	char (*vers)[128];
	size_t nv;
	int *count;          /* [version][build]: files */
	bool *fit;           /* [version][build]: the target can take one */
	size_t used;
};

static size_t col_of(const struct shape *sh, const char *v)
{
	for (size_t k = 0; k < sh->nc; k++)
		if (!strcmp(sh->cols[k], v))
			return k;
	return sh->nc;
}

static void shape_build(const struct wp_list *l, struct shape *sh)
{
	size_t cols_cap = 0, vers_cap = 0; /* sh->cols' and sh->vers' room */
	memset(sh, 0, sizeof(*sh));
	for (size_t i = 0; i < l->n; i++) {
		const char *v = l->v[i].variant ? l->v[i].variant : "";
		if (l->v[i].shadowed_by)
			continue;
		sh->used++;
		if (col_of(sh, v) == sh->nc) {
			wp_vec_push_fields(sh->cols, sh->nc, cols_cap, v);
		}
	}
	qsort(sh->cols, sh->nc, sizeof(*sh->cols), variant_order);
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].shadowed_by)
			continue;
		char ver[128];
		wp_list_public_version(&l->v[i], l->conda, ver, sizeof(ver));
		if (!sh->nv || strcmp(sh->vers[sh->nv - 1], ver)) {
			wp_vec_reserve_((void **)&sh->vers, &vers_cap, sh->nv + 1,
					sizeof(*sh->vers));
			snprintf(sh->vers[sh->nv++], sizeof(sh->vers[0]), "%s", ver);
		}
	}
	sh->count = wp_xcalloc(sh->nv * sh->nc + 1, sizeof(*sh->count));
	sh->fit = wp_xcalloc(sh->nv * sh->nc + 1, sizeof(*sh->fit));
	size_t row = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].shadowed_by)
			continue;
		char ver[128];
		wp_list_public_version(&l->v[i], l->conda, ver, sizeof(ver));
		while (row < sh->nv && strcmp(sh->vers[row], ver))
			row++;
		if (row == sh->nv)
			break;
		size_t k = col_of(sh, l->v[i].variant ? l->v[i].variant : "");
		sh->count[row * sh->nc + k]++;
		sh->fit[row * sh->nc + k] |= l->v[i].fits;
	}
}

static void shape_release(struct shape *sh)
{
	free(sh->cols);
	free(sh->vers);
	free(sh->count);
	free(sh->fit);
}

static const char *label(const char *v)
{
	return *v ? v : "(none)";
}

static void print_legend(const struct shape *sh, const char *project, bool marked, bool grid,
			 int width)
{
	bool cuda = false, rocm = false, cpu = false, xpu = false, none = false, label_cuda = false,
	     null = false;
	struct wp_buf b = WP_BUF_INIT;
	for (size_t k = 0; k < sh->nc; k++) {
		/* PEP 825 labels (cuda12.8, null) beside the local labels (cu128, cpu) */
		label_cuda |= !strncmp(sh->cols[k], "cuda", 4);
		null |= !strcmp(sh->cols[k], "null");
		cuda |= !strncmp(sh->cols[k], "cu", 2) && strncmp(sh->cols[k], "cuda", 4) != 0;
		rocm |= !strncmp(sh->cols[k], "rocm", 4);
		cpu |= !strncmp(sh->cols[k], "cpu", 3);
		xpu |= !strncmp(sh->cols[k], "xpu", 3);
		none |= !*sh->cols[k];
	}
	wp_buf_addstr(&b, "builds:");
	if (cuda)
		wp_buf_addstr(&b, " cuXY for CUDA X.Y (cu118: 11.8, cu128: 12.8);");
	if (label_cuda)
		wp_buf_addstr(&b, " cudaX.Y for CUDA X.Y (PEP 825 labels);");
	if (null)
		wp_buf_addstr(&b, " null for no GPU (PEP 825: the build with no properties);");
	if (rocm)
		wp_buf_addstr(&b, " rocmX.Y for AMD GPUs;");
	if (xpu)
		wp_buf_addstr(&b, " xpu for Intel GPUs;");
	if (cpu)
		wp_buf_addstr(&b, " cpu for no GPU;");
	/* an unlabeled torch at a page's root is not "for every machine": it is a GPU or CPU build
	 * that its METADATA or PyPI's default for the release tells, for the platform its tags
	 * name */
	if (none && wp_pick_is_torch_family(project))
		wp_buf_addstr(&b,
			      " (none): no label and no folder to say which build (a pick reads its METADATA, else "
			      "PyPI's default for that release and platform);");
	else if (none)
		wp_buf_addstr(&b, " (none): one build for every machine its tags name;");
	if (grid)
		wp_buf_addstr(&b, " cells: files per version and build, '-' none;");
	if (marked)
		wp_buf_addstr(&b, " '*': the target given can take it;");
	b.data[--b.len] = 0; /* the last ';' */
	wp_opts_wrap(stdout, b.data, 0, 2, (size_t)width - 1);
	wp_buf_free(&b);
}

/* Rows of versions by builds: fits only a wide terminal when there are many builds. */
static void print_grid(const struct shape *sh, bool marked)
{
	int vw = 7, cw[256];
	for (size_t v = 0; v < sh->nv; v++)
		if ((int)strlen(sh->vers[v]) > vw)
			vw = (int)strlen(sh->vers[v]);
	printf("%-*s", vw, "version");
	for (size_t k = 0; k < sh->nc && k < 256; k++) {
		cw[k] = (int)strlen(label(sh->cols[k]));
		if (cw[k] < 4)
			cw[k] = 4;
		printf(" %*s", cw[k], label(sh->cols[k]));
	}
	putchar('\n');
	for (size_t v = 0; v < sh->nv; v++) {
		printf("%-*s", vw, sh->vers[v]);
		for (size_t k = 0; k < sh->nc && k < 256; k++) {
			char cell[16];
			int c = sh->count[v * sh->nc + k];
			if (c)
				snprintf(cell, sizeof(cell), "%d%s", c,
					 sh->fit[v * sh->nc + k] ? "*" : "");
			else
				snprintf(cell, sizeof(cell), "-");
			printf(" %*s", cw[k], cell);
		}
		putchar('\n');
	}
}

/* A row per build, its versions newest first, wrapped to the width. */
static void print_rows(const struct shape *sh, int width)
{
	int lw = 6;
	for (size_t k = 0; k < sh->nc; k++)
		if ((int)strlen(label(sh->cols[k])) > lw)
			lw = (int)strlen(label(sh->cols[k]));
	printf("%-*s  %s\n", lw, "build", "versions (newest first)");
	/* CUDA first, newest first (the rule's order), then ROCm, XPU, CPU, the others */
	static const enum wp_variant_kind kinds[] = { WP_VARIANT_CUDA,  WP_VARIANT_ROCM,
						      WP_VARIANT_XPU,   WP_VARIANT_CPU,
						      WP_VARIANT_OTHER, WP_VARIANT_NONE };
	size_t *order = wp_xcalloc(sh->nc + 1, sizeof(*order)), no = 0;
	for (size_t g = 0; g < WP_ARRAY_LEN(kinds); g++)
		for (size_t n = sh->nc; n-- > 0;) {
			struct wp_variant var;
			wp_variant_from_label(sh->cols[n], &var);
			if (var.kind == kinds[g])
				order[no++] = n;
		}
	for (size_t r = 0; r < no; r++) {
		size_t k = order[r];
		int col = printf("%-*s ", lw, label(sh->cols[k]));
		bool first = true;
		for (size_t v = 0; v < sh->nv; v++) {
			if (!sh->count[v * sh->nc + k])
				continue;
			char item[160];
			int len = snprintf(item, sizeof(item), "%s%s", sh->vers[v],
					   sh->fit[v * sh->nc + k] ? "*" : "");
			if (!first && col + 2 + len > width) {
				printf(",\n%*s", lw + 1, "");
				col = lw + 1;
				first = true;
			}
			col += printf("%s%s", first ? " " : ", ", item);
			first = false;
		}
		putchar('\n');
	}
	free(order);
}

/* The GPU code the store read from the files it holds (pick and verify read it; kept by sha256). */
static void print_gpu_code(const struct wp_list *l)
{
	bool any = false;
	for (size_t i = 0; i < l->n; i++) {
		const struct wp_list_file *f = &l->v[i];
		if (!f->gpu_code)
			continue;
		if (!any)
			printf("GPU code of the files the store holds:\n");
		any = true;
		struct wp_buf a = WP_BUF_INIT;
		wp_gpucode_archs(f->gpu_code, &a);
		printf("  %s: %s", f->filename,
		       !strcmp(f->gpu_code, "-") ? "no shared object" :
		       a.len                     ? wp_buf_cstr(&a) :
						   "no GPU code");
		if (f->gpu_verdict >= 0)
			printf(" -> %s on sm_%d", wp_gpu_verdict_name(f->gpu_verdict), f->gpu_sm);
		putchar('\n');
		wp_buf_free(&a);
	}
}

static void print_list(const char *project, const struct wp_list *l, bool marked, bool all)
{
	struct shape sh;
	shape_build(l, &sh);
	int width = width_of_output();
	int grid_width = 7;
	for (size_t v = 0; v < sh.nv; v++)
		if ((int)strlen(sh.vers[v]) > grid_width)
			grid_width = (int)strlen(sh.vers[v]);
	for (size_t k = 0; k < sh.nc; k++) {
		int w = (int)strlen(label(sh.cols[k]));
		grid_width += 1 + (w < 4 ? 4 : w);
	}
	bool grid = all || grid_width <= width;
	printf("%s: %zu file%s, %zu version%s, %zu build%s\n", project, sh.used,
	       sh.used == 1 ? "" : "s", sh.nv, sh.nv == 1 ? "" : "s", sh.nc, sh.nc == 1 ? "" : "s");
	if (grid)
		print_grid(&sh, marked);
	else
		print_rows(&sh, width);
	print_legend(&sh, project, marked, grid, width);
	if (!grid) {
		char hint[128];
		snprintf(hint, sizeof(hint),
			 "(the grid of versions by builds is %d columns wide: see it with --all)",
			 grid_width);
		wp_opts_wrap(stdout, hint, 0, 1, (size_t)width - 1);
	}
	if (l->n_shadowed) {
		/* name each shadowed source once */
		char *text =
			wp_xasprintf("not counted: %zu file(s) from sources pick does not use for %s (it takes a project "
				     "from the first source that lists it; --index-strategy unsafe-best-match takes all):",
				     l->n_shadowed, project);
		wp_opts_wrap(stdout, text, 0, 2, (size_t)width - 1);
		free(text);
		for (size_t i = 0; i < l->n; i++) {
			if (!l->v[i].shadowed_by)
				continue;
			bool seen = false;
			for (size_t k = 0; k < i && !seen; k++)
				seen = l->v[k].shadowed_by &&
				       !strcmp(l->v[k].source_url ? l->v[k].source_url : "",
					       l->v[i].source_url ? l->v[i].source_url : "");
			if (!seen)
				printf("  %s (shadowed by %s)\n",
				       l->v[i].source_url ? l->v[i].source_url : "?",
				       l->v[i].shadowed_by);
		}
	}
	shape_release(&sh);
	print_gpu_code(l);
}

static void print_json(const struct wp_list *l, bool marked)
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
		if (!l->conda) {
			/* what the store read of it: null when it holds no such file (or never read
			 * it) */
			struct wp_buf a = WP_BUF_INIT;
			if (f->gpu_code && strcmp(f->gpu_code, "-"))
				wp_gpucode_archs(f->gpu_code, &a);
			wp_json_kstr(&j, "gpu_code",
				     f->gpu_code && strcmp(f->gpu_code, "-") ? wp_buf_cstr(&a) :
									       NULL);
			wp_json_kstr(&j, "gpu_verdict",
				     f->gpu_verdict >= 0 ? wp_gpu_verdict_name(f->gpu_verdict) :
							   NULL);
			wp_buf_free(&a);
		}
		if (marked)
			wp_json_kbool(&j, "fits", f->fits); /* the target given can take it */
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
	wp_print_json_out(&j);
}

/* The target to mark the grid for, from the words given (none: NULL). */
static int mark_target(const struct list_opts *o, struct wp_target *t, bool *marked,
		       struct wp_err *err)
{
	int rc = 0;
	*marked = !o->conda && (o->cuda || o->driver || o->python || o->platform || o->gpu.n ||
				o->rocm || o->intel_ip.n || o->x86_64_level);
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
	if ((o->rocm && (rc = wp_target_set_rocm(t, o->rocm, err))) ||
	    (o->x86_64_level && (rc = wp_target_set_x86_64_level(t, o->x86_64_level, err))))
		return rc;
	for (size_t i = 0; i < o->intel_ip.n; i++)
		if ((rc = wp_target_add_intel_ip(t, o->intel_ip.v[i], err)))
			return rc;
	return wp_target_finish(t, err);
}

/* A project name as PEP 508 has it, or a usage error: a name that is not one is refused, not
 * normalised into another ("_torch_"), and a requirement is not a name. */
static int check_name(const char *name, struct wp_err *err)
{
	struct wp_requirement r;
	struct wp_err e = WP_ERR_INIT;
	size_t n = strlen(name);
	if (wp_requirement_parse(&r, name, n, &e) < 0)
		return wp_fail(err, -WPE_USAGE,
			       "'%s' is not a project name: ASCII letters and digits, with '.', '_' or '-' "
			       "only between them (PEP 508)",
			       name);
	bool bare = !strcmp(r.name, name);
	struct wp_buf canon = WP_BUF_INIT;
	wp_name_canonicalize(r.name, strlen(r.name), &canon);
	int rc = bare ? 0 :
			wp_fail(err, -WPE_USAGE,
				"list takes a project name, not a requirement: 'wheelpick list %s' shows "
				"every version (pick '%s' with --dry-run to see what it selects)",
				canon.data, name);
	wp_buf_free(&canon);
	wp_requirement_release(&r);
	return rc;
}

/* The project is not in the catalog: what to run, and the names it could have meant. */
static int no_such_project(struct wp_cli *cli, struct wp_catalog *cat, const char *name, bool conda,
			   struct wp_err *err)
{
	struct wp_names close = { 0 };
	struct wp_buf canon = WP_BUF_INIT, b = WP_BUF_INIT;
	struct wp_err e = WP_ERR_INIT;
	if (conda)
		wp_buf_addstr(&canon, name);
	else
		wp_project_name_normalize(name, strlen(name), &canon);
	if (wp_suggest_projects(&cli->session, cat, NULL, true, conda, canon.data, &close, &e) ==
		    0 &&
	    close.n) {
		struct wp_strlist l = { 0 };
		for (size_t i = 0; i < close.n; i++)
			wp_strlist_push(&l, close.v[i]);
		wp_buf_addstr(&b, "; did you mean ");
		wp_suggest_join(&l, &b);
		wp_buf_addch(&b, '?');
		wp_strlist_release(&l);
	}
	int rc = wp_fail(err, -WPE_NOMATCH,
			 "the catalog has no %s for '%s'%s (to read an index: 'wheelpick update%s' or "
			 "'wheelpick update --index URL')",
			 conda ? "conda packages" : "files", name, b.len ? b.data : "",
			 conda ? " --conda" : "");
	wp_names_release(&close);
	wp_buf_free(&canon);
	wp_buf_free(&b);
	return rc;
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
	if ((rc = wp_opts_parse(wp_list_table, &o, argc, argv, &pos, err)))
		goto out;
	if (o.installed) {
		rc = pos.n ? wp_fail(err, -WPE_USAGE, "list --installed takes no project name")
			   : wp_cmd_list_installed(cli, o.python, o.json, err);
		goto out;
	}
	if (pos.n != 1) {
		rc = wp_fail(err, -WPE_USAGE,
			     "list takes one project name; see 'wheelpick list --help'");
		goto out;
	}
	if (!o.conda && (rc = check_name(pos.v[0], err)))
		goto out;
	if (o.platform) {
		struct wp_strlist one = { 0 };
		wp_strlist_push(&one, o.platform);
		rc = wp_pick_opts_check_platforms(&one, o.conda, err);
		wp_strlist_release(&one);
		if (rc)
			goto out;
	}
	if ((rc = mark_target(&o, &t, &marked, err)))
		goto out;
	if ((rc = wp_cli_need_paths(cli, err)) ||
	    (rc = wp_catalog_open_as(&cat, cli->session.catalog_path, &wp_cli_asks, err)))
		goto out;
	for (size_t i = 0; i < o.index.n; i++)
		wp_sources_add_index(&given, o.index.v[i]);
	for (size_t i = 0; i < given.n; i++)
		wp_strlist_push(&indexes, given.urls[i]);
	struct wp_resolve_opts policy = { .indexes = &indexes };
	if (o.index_strategy && !strcmp(o.index_strategy, "unsafe-best-match"))
		policy.strategy = WP_INDEX_BEST_MATCH;
	else if (o.index_strategy && strcmp(o.index_strategy, "first-index")) {
		rc = wp_fail(err, -WPE_USAGE,
			     "--index-strategy '%s' is not one of first-index, unsafe-best-match",
			     o.index_strategy);
		goto out;
	}
	struct wp_list_job lo = { .conda = o.conda, .mark = marked ? &t : NULL, .policy = &policy };
	if ((rc = wp_list_project(&cat, pos.v[0], &lo, &l, err)))
		goto out;
	if (!l.n)
		rc = no_such_project(cli, &cat, pos.v[0], o.conda, err); /* with --json too: main
									    prints the error */
	else if (o.json)
		print_json(&l, marked);
	else
		print_list(pos.v[0], &l, marked, o.all);
out:
	wp_list_release(&l);
	wp_catalog_close(&cat);
	wp_sources_release(&given);
	wp_strlist_release(&indexes);
	wp_strlist_release(&pos);
	wp_strlist_release(&o.gpu);
	wp_strlist_release(&o.index);
	wp_strlist_release(&o.intel_ip);
	return rc;
}
