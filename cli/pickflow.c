/* cli/pickflow.c: the flow pick, mirror and bundle share: options, targets, sources, plan, fetch,
 * wheelhouse, and printing the plan. */
#include "cli/pickflow.h"
#include "base/json.h"
#include "cli/plan.h"
#include "cli/progress.h"
#include "base/mem.h"
#include "ops/fetch.h"
#include "base/fs.h"
#include "resolver/pick.h"
#include "resolver/wheelname.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define O(f) offsetof(struct wp_pick_opts, f)
const struct wp_opt wp_pick_table[] = {
	{ "cuda", 0, NULL, WP_OPT_LIST, O(cuda), "X.Y|auto|cpu", "the target's CUDA (default auto: this machine's driver)" },
	{ "rocm", 0, NULL, WP_OPT_STR, O(rocm), "X.Y", "pick ROCm builds for ROCm X.Y" },
	{ "python", 0, "python-version", WP_OPT_LIST, O(python), "X.Y|auto", "the target's Python (default auto)" },
	{ "platform", 0, NULL, WP_OPT_LIST, O(platform), "TAG|auto",
	  "the target's most specific platform tag; one target each (default auto)" },
	{ "gpu", 0, NULL, WP_OPT_LIST, O(gpu), "sm_XY", "a GPU the build must support (default: detected)" },
	{ "target", 0, NULL, WP_OPT_LIST, O(target), "FILE", "a saved 'detect --json' profile; one target each" },
	{ "index", 'i', "index-url|extra-index-url", WP_OPT_LIST, O(index), "URL",
	  "a source to pick from (added to the catalog if missing or stale)" },
	{ "find-links", 'f', NULL, WP_OPT_LIST, O(index), "URL", "same as --index" },
	{ "index-for", 0, NULL, WP_OPT_LIST, O(index_for), "PROJECT=URL",
	  "take PROJECT only from the index at URL (by default a project comes from the first index that has it)" },
	{ "channel", 'c', NULL, WP_OPT_LIST, O(channel), "NAME|URL", "a conda channel (implies --conda)" },
	{ "conda", 0, NULL, WP_OPT_FLAG, O(conda), NULL, "pick conda packages" },
	{ "dest", 'd', NULL, WP_OPT_STR, O(dest), "DIR", "the wheelhouse to write (default ./wheelhouse)" },
	{ "dry-run", 'n', NULL, WP_OPT_FLAG, O(dry_run), NULL, "say what would be picked; fetch nothing" },
	{ "no-deps", 0, NULL, WP_OPT_FLAG, O(no_deps), NULL, "only what was named, not its dependencies" },
	{ "json", 0, NULL, WP_OPT_FLAG, O(json), NULL, "the picks as JSON on stdout" },
	{ "explain", 0, NULL, WP_OPT_FLAG, O(explain), NULL, "every rejected file, and why" },
	{ "pre", 0, NULL, WP_OPT_FLAG, O(pre), NULL, "allow pre-releases" },
	{ "offline", 0, NULL, WP_OPT_FLAG, O(offline), NULL, "use the catalog and the file cache only" },
	{ "refresh", 0, NULL, WP_OPT_FLAG, O(refresh), NULL, "re-check --index sources even if fresh" },
	{ "prune", 0, NULL, WP_OPT_FLAG, O(prune), NULL, "mirror: remove files the targets no longer need" },
	WP_OPT_END,
};
#undef O

/* A source refreshed within this many seconds is used as is (override: $WHEELPICK_MAX_AGE). */
#define DEFAULT_MAX_AGE_S 3600

static long max_age(void)
{
	const char *e = getenv("WHEELPICK_MAX_AGE");
	char *end;
	if (!e || !*e)
		return DEFAULT_MAX_AGE_S;
	long v = strtol(e, &end, 10);
	return *end || v < 0 ? DEFAULT_MAX_AGE_S : v;
}

static const char *accel_name(const struct wp_target *t)
{
	return t->accel == WP_ACCEL_CUDA ? "cuda" : t->accel == WP_ACCEL_ROCM ? "rocm" : "cpu";
}

static void json_target(struct wp_json *j, const struct wp_target *t)
{
	char b[32];
	wp_json_obj(j);
	snprintf(b, sizeof(b), "%d.%d", t->py_major, t->py_minor);
	wp_json_kstr(j, "python", b);
	wp_json_kstr(j, "platform", t->platform);
	wp_json_kstr(j, "accelerator", accel_name(t));
	wp_json_key(j, "cuda");
	if (t->accel == WP_ACCEL_CUDA) {
		snprintf(b, sizeof(b), "%d.%d", t->cuda_major, t->cuda_minor);
		wp_json_str(j, b);
	} else {
		wp_json_null(j);
	}
	if (t->accel == WP_ACCEL_ROCM) {
		snprintf(b, sizeof(b), "%d.%d", t->rocm_major, t->rocm_minor);
		wp_json_kstr(j, "rocm", b);
	}
	wp_json_key(j, "gpus");
	wp_json_arr(j);
	for (int g = 0; g < t->n_gpus; g++) {
		snprintf(b, sizeof(b), "sm_%d", t->gpu_sm[g]);
		wp_json_str(j, b);
	}
	wp_json_arr_end(j);
	wp_json_obj_end(j);
}

static void json_plan(const struct wp_plan *plan, FILE *out, bool explain)
{
	struct wp_json j;
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_key(&j, "targets");
	wp_json_arr(&j);
	for (size_t i = 0; i < plan->n_targets; i++)
		json_target(&j, &plan->targets[i]);
	wp_json_arr_end(&j);
	wp_json_key(&j, "picks");
	wp_json_arr(&j);
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		wp_json_obj(&j);
		wp_json_kstr(&j, "project", f->project);
		wp_json_kstr(&j, "version", f->version);
		wp_json_kstr(&j, "variant", f->variant);
		wp_json_kstr(&j, "filename", f->filename);
		wp_json_kstr(&j, "where", f->where);
		wp_json_kstr(&j, "url", f->url);
		wp_json_kstr(&j, "sha256", f->sha256);
		wp_json_key(&j, "size");
		if (f->size >= 0)
			wp_json_int(&j, f->size);
		else
			wp_json_null(&j);
		wp_json_kstr(&j, "tags", f->tags);
		wp_json_kstr(&j, "requires_python", f->requires_python);
		wp_json_kint(&j, "target", (long long)f->target);
		wp_json_kstr(&j, "required_by", f->required_by);
		wp_json_kstr(&j, "reason", f->reason);
		if (f->path)
			wp_json_kstr(&j, "path", f->path);
		if (explain) {
			wp_json_key(&j, "rejected");
			wp_json_arr(&j);
			for (size_t k = 0; k < f->n_rejects; k++) {
				wp_json_obj(&j);
				wp_json_kstr(&j, "file", f->rejects[k].where);
				wp_json_kstr(&j, "why", f->rejects[k].why);
				wp_json_obj_end(&j);
			}
			wp_json_arr_end(&j);
		}
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_key(&j, "notes");
	wp_json_arr(&j);
	for (size_t i = 0; i < plan->n_notes; i++)
		wp_json_str(&j, plan->notes[i]);
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	wp_json_finish(&j, out);
}

static void print_plan(const struct wp_plan *plan, bool explain)
{
	struct wp_buf d = WP_BUF_INIT;
	for (size_t t = 0; t < plan->n_targets; t++) {
		wp_buf_reset(&d);
		wp_target_describe(&plan->targets[t], &d);
		printf("for %s:\n", d.data);
		for (size_t i = 0; i < plan->n; i++) {
			const struct wp_plan_file *f = &plan->files[i];
			if (f->target != t)
				continue;
			printf("  %s %s%s%s%s\n", f->project, f->version, f->required_by ? "  (needed by " : "",
			       f->required_by ? f->required_by : "", f->required_by ? ")" : "");
			printf("    %s\n", f->where);
			if (!f->required_by || explain)
				printf("    why: %s\n", f->reason);
			for (size_t k = 0; explain && k < f->n_rejects; k++)
				printf("    - %s: %s\n", f->rejects[k].where, f->rejects[k].why);
		}
	}
	wp_buf_free(&d);
}

/* requirements.txt in pip's hash-checking form: one line per project and version, every file's
 * hash on it, so one wheelhouse serves several targets. */
static int write_requirements(const char *dir, const struct wp_plan *plan, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	int rc;
	wp_buf_addstr(&b, "# written by wheelpick: pip install --no-index --find-links . --require-hashes -r requirements.txt\n");
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(plan->files[k].project, f->project) && !strcmp(plan->files[k].version, f->version);
		if (seen)
			continue;
		wp_buf_printf(&b, "%s==%s", f->project, f->version);
		/* hashes of every distinct file of this project and version */
		for (size_t k = i; k < plan->n; k++) {
			const struct wp_plan_file *g = &plan->files[k];
			if (strcmp(g->project, f->project) || strcmp(g->version, f->version) || !g->sha256)
				continue;
			bool dup = false;
			for (size_t m = i; m < k && !dup; m++)
				dup = plan->files[m].sha256 && !strcmp(plan->files[m].sha256, g->sha256);
			if (!dup)
				wp_buf_printf(&b, " \\\n    --hash=sha256:%s", g->sha256);
		}
		wp_buf_addch(&b, '\n');
	}
	char *path = wp_xasprintf("%s/requirements.txt", dir);
	rc = wp_atomic_write(path, b.data, b.len, err);
	free(path);
	wp_buf_free(&b);
	return rc;
}

int wp_pick_flow_fetch(struct wp_cli *cli, struct wp_pick_opts *o, struct wp_pick_flow *fl, struct wp_err *err)
{
	struct wp_plan *plan = &fl->plan;
	size_t n = plan->n;
	struct wp_fetch_item *items = wp_xcalloc(n ? n : 1, sizeof(*items));
	const char **names = wp_xcalloc(n ? n : 1, sizeof(*names));
	long long *sizes = wp_xcalloc(n ? n : 1, sizeof(*sizes));
	struct wp_progress prog;
	size_t unhashed = 0;
	int rc = 0, frc;

	for (size_t i = 0; i < n; i++) {
		struct wp_plan_file *f = &plan->files[i];
		items[i] = (struct wp_fetch_item){
			.url = f->url, .filename = f->filename, .sha256 = f->sha256, .size = f->size,
			.check = WP_FETCH_CHECK_WHEEL,
		};
		names[i] = f->filename;
		sizes[i] = f->size;
	}
	wp_progress_init(&prog, cli->stdout_tty && cli->verbosity >= 0 && !o->json, names, sizes, n);
	struct wp_fetch_opts fo = { .offline = o->offline, .progress = wp_progress_update, .pctx = &prog };
	frc = wp_fetch_files(&fl->store, items, n, &fo, err);
	wp_progress_finish(&prog);

	for (size_t i = 0; i < n; i++) {
		struct wp_plan_file *f = &plan->files[i];
		free(f->path);
		f->path = NULL;
		if (items[i].rc) {
			/* each failure once: the one err carries is the command's own last line */
			bool is_err = frc && !strcmp(items[i].err.msg, err->msg);
			if (!is_err && (cli->verbosity >= 0 || items[i].rc == -WPE_INTEGRITY))
				fprintf(stderr, "wheelpick: %s\n", items[i].err.msg);
			continue;
		}
		if (!f->sha256) {
			/* trust on first use: later fetches of this URL must hash the same */
			if (!rc)
				rc = wp_catalog_record_hash(&fl->cat, f->url, items[i].sha256_out, err);
			f->sha256 = wp_xstrdup(items[i].sha256_out);
			unhashed++;
		}
		f->path = items[i].path;
		items[i].path = NULL;
	}
	if (unhashed)
		wp_cli_warn(cli, "the index gives no sha256 for %zu file(s); recorded the hashes computed while fetching "
				 "(later fetches must match them)", unhashed);
	for (size_t i = 0; i < n; i++)
		wp_fetch_item_release(&items[i]);
	free(items);
	free(names);
	free(sizes);
	return frc ? frc : rc;
}

int wp_pick_flow_wheelhouse(struct wp_cli *cli, struct wp_pick_flow *fl, const char *dir, struct wp_err *err)
{
	struct wp_plan *plan = &fl->plan;
	int rc;
	if ((rc = wp_mkdir_p(dir, 0755, err)))
		return rc;
	/* proven files go in; a file that failed stays out, and an old copy of it is removed */
	for (size_t i = 0; i < plan->n; i++) {
		struct wp_plan_file *f = &plan->files[i];
		char *dst = wp_xasprintf("%s/%s", dir, f->filename);
		if (!f->path) {
			unlink(dst);
		} else if ((rc = wp_link_or_copy(f->path, dst, err))) {
			free(dst);
			return rc;
		} else {
			free(f->path);
			f->path = dst;
			dst = NULL;
		}
		free(dst);
	}
	/* requirements.txt promises every file: with one missing (it failed its checks) the old
	 * requirements and record stay as they were */
	for (size_t i = 0; i < plan->n; i++)
		if (!plan->files[i].path)
			return 0;
	if ((rc = write_requirements(dir, plan, err)))
		return rc;
	/* the pick record, with local paths */
	char *path = wp_xasprintf("%s/wheelpick.json", dir);
	char *tmp = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&tmp, &len);
	json_plan(plan, mem, false);
	fclose(mem);
	rc = wp_atomic_write(path, tmp, len, err);
	free(tmp);
	free(path);
	(void)cli;
	return rc;
}

void wp_pick_flow_print(const struct wp_plan *plan, bool json, bool explain)
{
	if (json)
		json_plan(plan, stdout, explain);
	else
		print_plan(plan, explain);
}

static int any_row(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	*(bool *)ctx = true;
	return 1; /* stop at the first row */
}

/* Has the catalog any file of the project a requirement names? */
static bool catalog_has(struct wp_catalog *cat, const char *req)
{
	struct wp_buf p = WP_BUF_INIT;
	struct wp_err e = WP_ERR_INIT;
	bool any = false;
	wp_project_name_normalize(req, strcspn(req, "<>=!~ [;@("), &p);
	wp_catalog_files(cat, p.data, false, any_row, &any, &e);
	wp_buf_free(&p);
	return any;
}

static void product_targets(struct wp_pick_opts *o, struct wp_strlist *cudas, struct wp_strlist *pys,
			    struct wp_strlist *plats)
{
	static const char *const none[] = { NULL };
	cudas->v = o->cuda.n ? o->cuda.v : (const char **)none;
	cudas->n = o->cuda.n ? o->cuda.n : 1;
	pys->v = o->python.n ? o->python.v : (const char **)none;
	pys->n = o->python.n ? o->python.n : 1;
	plats->v = o->platform.n ? o->platform.v : (const char **)none;
	plats->n = o->platform.n ? o->platform.n : 1;
}

/* Index roots a missing project's page may be under: the --index URLs that end in '/' (PEP 503
 * roots such as https://download.pytorch.org/whl/ or .../simple/), else PyTorch's root, which
 * also carries torch's dependencies (numpy, sympy, nvidia-*). */
struct fetch_ctx {
	struct wp_cli *cli;
	struct wp_catalog *cat;
	struct wp_sources roots;
};

static int fetch_projects(void *vctx, const char *const *projects, size_t n, struct wp_err *err)
{
	struct fetch_ctx *fc = vctx;
	struct wp_sources src = { 0 };
	/* every page of every project in one crawl: its fetches run in parallel */
	for (size_t p = 0; p < n; p++)
		for (size_t i = 0; i < fc->roots.n; i++) {
			char *url = wp_xasprintf("%s%s/", fc->roots.urls[i], projects[p]);
			wp_sources_add_index(&src, url);
			free(url);
		}
	if (!src.n)
		return -WPE_NOMATCH;
	/* quietly: most roots do not have most projects, and a 404 is the answer, not a failure */
	struct wp_err ce = WP_ERR_INIT;
	wp_cli_crawl_quiet(fc->cli, fc->cat, &src, &ce);
	wp_sources_release(&src);
	return 0;
}

static void fetch_roots(const struct wp_pick_opts *o, struct wp_sources *roots)
{
	for (size_t i = 0; i < o->index.n; i++) {
		size_t n = strlen(o->index.v[i]);
		if (n && o->index.v[i][n - 1] == '/')
			wp_sources_add_index(roots, o->index.v[i]);
	}
	if (!o->index.n) {
		const char *e = getenv("WHEELPICK_INDEX");
		if (!e || !*e)
			wp_sources_add_index(roots, "https://download.pytorch.org/whl/");
	}
}

int wp_pick_flow_plan(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
		      struct wp_pick_flow *fl, struct wp_err *err)
{
	struct wp_sources src = { 0 };
	struct wp_strlist cudas, pys, plats;
	int rc;

	if (!reqs->n)
		return wp_fail(err, -WPE_USAGE, "name at least one package, e.g. 'wheelpick torch --cuda 11.2'");
	if (o->channel.n || o->conda)
		return wp_fail(err, -WPE_USAGE,
			       "a bundle holds wheels; for conda, write a local channel with 'wheelpick mirror DIR --conda'");

	/* targets: the product of the --cuda, --python and --platform values, per --target profile */
	product_targets(o, &cudas, &pys, &plats);
	size_t nf = o->target.n ? o->target.n : 1;
	fl->targets = wp_xcalloc(nf * cudas.n * pys.n * plats.n, sizeof(*fl->targets));
	for (size_t f = 0; f < nf; f++)
		for (size_t c = 0; c < cudas.n; c++)
			for (size_t p = 0; p < pys.n; p++)
				for (size_t q = 0; q < plats.n; q++) {
					struct wp_target_words w = {
						.python = pys.v[p], .cuda = cudas.v[c], .rocm = o->rocm, .gpus = &o->gpu,
						.platform = plats.v[q], .target_file = o->target.n ? o->target.v[f] : NULL,
					};
					if ((rc = wp_cli_target(cli, &w, &fl->targets[fl->n_targets], err)))
						return rc;
					fl->n_targets++;
				}

	if ((rc = wp_cli_open_catalog(cli, &fl->cat, err)))
		return rc;
	for (size_t i = 0; i < o->index.n; i++)
		wp_sources_add_index(&src, o->index.v[i]);
	if (!src.n) {
		/* no --index: the catalog as it is, unless it has never seen these projects */
		bool missing = false;
		for (size_t i = 0; i < reqs->n && !missing; i++)
			missing = !catalog_has(&fl->cat, reqs->v[i]);
		if (missing && !o->offline) {
			struct wp_strlist def = { 0 };
			char *store = wp_cli_default_indexes(&def, false);
			for (size_t i = 0; i < def.n; i++)
				wp_sources_add_index(&src, def.v[i]);
			wp_strlist_release(&def);
			free(store);
		}
	}
	if (src.n && !o->offline) {
		struct wp_err ce = WP_ERR_INIT;
		int crc = wp_cli_crawl(cli, &fl->cat, &src, NULL, 0, false, o->refresh ? 0 : max_age(), &ce);
		if (crc) {
			bool have = true;
			for (size_t i = 0; i < reqs->n && have; i++)
				have = catalog_has(&fl->cat, reqs->v[i]);
			if (!have) {
				wp_sources_release(&src);
				return wp_fail(err, crc, "%s", ce.msg);
			}
			wp_cli_warn(cli, "%s; picking from what the catalog already has", ce.msg);
		}
	}
	wp_sources_release(&src);

	fl->cache_dir = wp_cli_cache_dir();
	fl->files_root = wp_xasprintf("%s/files", fl->cache_dir);
	if ((rc = wp_store_init(&fl->store, fl->files_root, err)))
		return rc;
	struct wp_plan_opts po = {
		.no_deps = o->no_deps, .pre = o->pre, .explain = o->explain, .offline = o->offline, .store = &fl->store,
		.verbosity = cli->verbosity,
	};
	/* --index URLs as crawled (file paths become file:// URLs), best first */
	struct wp_sources given = { 0 };
	for (size_t i = 0; i < o->index.n; i++)
		wp_sources_add_index(&given, o->index.v[i]);
	po.indexes = (const char *const *)given.urls;
	po.n_indexes = given.n;
	/* PROJECT=URL pins, with URL spelled as a source is (a path becomes file://) */
	struct wp_sources pinned_urls = { 0 };
	char **pins = wp_xcalloc(o->index_for.n + 1, sizeof(*pins));
	for (size_t i = 0; i < o->index_for.n; i++) {
		const char *eq = strchr(o->index_for.v[i], '=');
		if (!eq || eq == o->index_for.v[i] || !eq[1]) {
			for (size_t k = 0; k < i; k++)
				free(pins[k]);
			free(pins);
			wp_sources_release(&given);
			return wp_fail(err, -WPE_USAGE, "--index-for '%s' is not PROJECT=URL", o->index_for.v[i]);
		}
		size_t before = pinned_urls.n;
		wp_sources_add_index(&pinned_urls, eq + 1);
		pins[i] = wp_xasprintf("%.*s=%s", (int)(eq - o->index_for.v[i]), o->index_for.v[i],
				       pinned_urls.n > before ? pinned_urls.urls[pinned_urls.n - 1] : eq + 1);
	}
	po.index_for = (const char *const *)pins;
	po.n_index_for = o->index_for.n;
	struct fetch_ctx fc = { .cli = cli, .cat = &fl->cat };
	fetch_roots(o, &fc.roots);
	po.fetch_projects = fetch_projects;
	po.fetch_ctx = &fc;
	rc = wp_plan_build(&fl->cat, reqs->v, reqs->n, fl->targets, fl->n_targets, &po, &fl->plan, err);
	wp_sources_release(&given);
	wp_sources_release(&pinned_urls);
	wp_sources_release(&fc.roots);
	for (size_t i = 0; i < o->index_for.n; i++)
		free(pins[i]);
	free(pins);
	if (rc)
		return rc;
	for (size_t i = 0; i < fl->plan.n_notes; i++)
		wp_cli_note(cli, "%s", fl->plan.notes[i]);
	return 0;
}

void wp_pick_flow_release(struct wp_pick_flow *fl, struct wp_pick_opts *o)
{
	wp_plan_release(&fl->plan);
	wp_store_release(&fl->store);
	wp_catalog_close(&fl->cat);
	free(fl->targets);
	free(fl->cache_dir);
	free(fl->files_root);
	memset(fl, 0, sizeof(*fl));
	struct wp_strlist *lists[] = { &o->cuda, &o->python, &o->platform, &o->gpu, &o->target, &o->index, &o->channel,
				       &o->index_for };
	for (size_t i = 0; i < WP_ARRAY_LEN(lists); i++)
		wp_strlist_release(lists[i]);
}
