/* cli/cmd_pick.c: `wheelpick pick`: the build that fits each target, its dependencies, and (unless
 * --dry-run) a verified wheelhouse that pip installs offline. */
#include "cli/common.h"
#include "cli/json.h"
#include "cli/plan.h"
#include "cli/progress.h"
#include "base/mem.h"
#include "cache/fetch.h"
#include "cache/fsutil.h"
#include "resolver/pick.h"
#include "resolver/wheelname.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pick_opts {
	const char *cuda, *python, *rocm, *dest;
	struct wp_strlist platform, gpu, target, index, channel;
	bool conda, dry_run, no_deps, json, explain, pre, offline, refresh;
};

#define O(f) offsetof(struct pick_opts, f)
static const struct wp_opt pick_table[] = {
	{ "cuda", 0, NULL, WP_OPT_STR, O(cuda), "X.Y|auto|cpu", "the target's CUDA (default auto: this machine's driver)" },
	{ "rocm", 0, NULL, WP_OPT_STR, O(rocm), "X.Y", "pick ROCm builds for ROCm X.Y" },
	{ "python", 0, "python-version", WP_OPT_STR, O(python), "X.Y|auto", "the target's Python (default auto)" },
	{ "platform", 0, NULL, WP_OPT_LIST, O(platform), "TAG|auto",
	  "the target's most specific platform tag; one target each (default auto)" },
	{ "gpu", 0, NULL, WP_OPT_LIST, O(gpu), "sm_XY", "a GPU the build must support (default: detected)" },
	{ "target", 0, NULL, WP_OPT_LIST, O(target), "FILE", "a saved 'detect --json' profile; one target each" },
	{ "index", 'i', "index-url|extra-index-url", WP_OPT_LIST, O(index), "URL",
	  "a source to pick from (added to the catalog if missing or stale)" },
	{ "find-links", 'f', NULL, WP_OPT_LIST, O(index), "URL", "same as --index" },
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

static int write_wheelhouse(struct wp_cli *cli, struct wp_catalog *cat, const char *dir, struct wp_plan *plan,
			    struct wp_store *store, const struct pick_opts *o, struct wp_err *err)
{
	size_t n = plan->n;
	struct wp_fetch_item *items = wp_xcalloc(n ? n : 1, sizeof(*items));
	const char **names = wp_xcalloc(n ? n : 1, sizeof(*names));
	long long *sizes = wp_xcalloc(n ? n : 1, sizeof(*sizes));
	struct wp_progress prog;
	int rc, frc;
	size_t unhashed = 0;

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
	frc = wp_fetch_files(store, items, n, &fo, err);
	wp_progress_finish(&prog);

	if ((rc = wp_mkdir_p(dir, 0755, err)))
		goto out;
	/* proven files go in; a file that failed stays out, and an old copy of it is removed */
	for (size_t i = 0; i < n; i++) {
		struct wp_plan_file *f = &plan->files[i];
		char *dst = wp_xasprintf("%s/%s", dir, f->filename);
		if (items[i].rc) {
			unlink(dst);
			if (cli->verbosity >= 0 || items[i].rc == -WPE_INTEGRITY)
				fprintf(stderr, "wheelpick: %s\n", items[i].err.msg);
		} else {
			if (!f->sha256) {
				/* trust on first use: later fetches of this URL must hash the same */
				if ((rc = wp_catalog_record_hash(cat, f->url, items[i].sha256_out, err))) {
					free(dst);
					goto out;
				}
				f->sha256 = wp_xstrdup(items[i].sha256_out);
				unhashed++;
			}
			if ((rc = wp_link_or_copy(items[i].path, dst, err))) {
				free(dst);
				goto out;
			}
			f->path = wp_xstrdup(dst);
		}
		free(dst);
	}
	if (unhashed)
		wp_cli_warn(cli, "the index gives no sha256 for %zu file(s); recorded the hashes computed while fetching "
				 "(later fetches must match them)", unhashed);
	if (frc) {
		rc = frc;
		goto out;
	}
	if ((rc = write_requirements(dir, plan, err)))
		goto out;
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
out:
	for (size_t i = 0; i < n; i++)
		wp_fetch_item_release(&items[i]);
	free(items);
	free(names);
	free(sizes);
	return rc;
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

int wp_cmd_pick(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct pick_opts o = { 0 };
	struct wp_strlist reqs = { 0 };
	struct wp_sources src = { 0 };
	struct wp_catalog cat = { 0 };
	struct wp_target *targets = NULL;
	struct wp_plan plan = { 0 };
	struct wp_store store = { 0 };
	char *cache = NULL, *files_root = NULL;
	size_t nt = 0;
	int rc;

	if (wp_opts_wants_help(argc, argv)) {
		wp_opts_help(stdout, "wheelpick [pick] PKG[SPEC]... [--cuda X.Y|auto|cpu] [--python X.Y] [--platform TAG]... [-d DIR]",
			     "Pick the build of each package that fits the target: the newest version with a build\n"
			     "that runs there, then the newest CUDA not newer than the target's (PyTorch never shipped\n"
			     "cu112, so CUDA 11.2 gets cu111), then the best wheel tag; with the dependencies, evaluated\n"
			     "for the target. Then fetch, verify (sha256 and each wheel's RECORD) and write a wheelhouse\n"
			     "that 'pip install --no-index --find-links DIR --require-hashes -r DIR/requirements.txt'\n"
			     "installs with no network.",
			     pick_table);
		return 0;
	}
	if ((rc = wp_opts_parse(pick_table, &o, argc, argv, &reqs, err)))
		goto out;
	if (!reqs.n) {
		rc = wp_fail(err, -WPE_USAGE, "name at least one package, e.g. 'wheelpick torch --cuda 11.2'");
		goto out;
	}
	if (o.channel.n || o.conda) {
		rc = wp_fail(err, -WPE_USAGE, "picking conda packages is not available in this build yet; use 'wheelpick update --conda' and 'wheelpick list --conda' to inspect a channel");
		goto out;
	}

	/* targets: one per --platform (and per --target profile) */
	size_t np = o.platform.n ? o.platform.n : 1, nf = o.target.n ? o.target.n : 1;
	targets = wp_xcalloc(np * nf, sizeof(*targets));
	for (size_t f = 0; f < nf; f++) {
		for (size_t p = 0; p < np; p++) {
			struct wp_target_words w = {
				.python = o.python, .cuda = o.cuda, .rocm = o.rocm, .gpus = &o.gpu,
				.platform = o.platform.n ? o.platform.v[p] : NULL, .target_file = o.target.n ? o.target.v[f] : NULL,
			};
			if ((rc = wp_cli_target(cli, &w, &targets[nt], err)))
				goto out;
			nt++;
		}
	}

	if ((rc = wp_cli_open_catalog(cli, &cat, err)))
		goto out;
	for (size_t i = 0; i < o.index.n; i++)
		wp_sources_add_index(&src, o.index.v[i]);
	if (!src.n) {
		/* no --index: the catalog as it is, unless it has never seen these projects */
		bool missing = false;
		for (size_t i = 0; i < reqs.n && !missing; i++)
			missing = !catalog_has(&cat, reqs.v[i]);
		if (missing && !o.offline) {
			struct wp_strlist def = { 0 };
			wp_cli_default_indexes(&def, false);
			for (size_t i = 0; i < def.n; i++)
				wp_sources_add_index(&src, def.v[i]);
			wp_strlist_release(&def);
		}
	}
	if (src.n && !o.offline) {
		struct wp_err ce = WP_ERR_INIT;
		int crc = wp_cli_crawl(cli, &cat, &src, NULL, 0, false, o.refresh ? 0 : max_age(), &ce);
		if (crc) {
			bool have = true;
			for (size_t i = 0; i < reqs.n && have; i++)
				have = catalog_has(&cat, reqs.v[i]);
			if (!have) {
				rc = wp_fail(err, crc, "%s", ce.msg);
				goto out;
			}
			wp_cli_warn(cli, "picking from what the catalog already has");
		}
	}

	cache = wp_cli_cache_dir();
	files_root = wp_xasprintf("%s/files", cache);
	if ((rc = wp_store_init(&store, files_root, err)))
		goto out;
	struct wp_plan_opts po = {
		.no_deps = o.no_deps, .pre = o.pre, .explain = o.explain, .offline = o.offline, .store = &store,
		.verbosity = cli->verbosity,
	};
	if ((rc = wp_plan_build(&cat, reqs.v, reqs.n, targets, nt, &po, &plan, err)))
		goto out;
	for (size_t i = 0; i < plan.n_notes; i++)
		wp_cli_note(cli, "%s", plan.notes[i]);

	if (!o.dry_run) {
		const char *dest = o.dest ? o.dest : getenv("WHEELPICK_DEST") ? getenv("WHEELPICK_DEST") : "wheelhouse";
		rc = write_wheelhouse(cli, &cat, dest, &plan, &store, &o, err);
		if (rc && rc != -WPE_INTEGRITY)
			goto out;
		if (o.json)
			json_plan(&plan, stdout, o.explain);
		else
			print_plan(&plan, o.explain);
		if (!rc && !o.json && cli->verbosity >= 0)
			printf("wrote %s: install offline with\n  python3 -m pip install --no-index --find-links %s "
			       "--require-hashes -r %s/requirements.txt\n", dest, dest, dest);
		goto out;
	}
	if (o.json) {
		json_plan(&plan, stdout, o.explain);
	} else {
		print_plan(&plan, o.explain);
		if (cli->verbosity >= 0) {
			printf("next: wheelpick");
			for (size_t i = 0; i < reqs.n; i++)
				printf(" '%s'", reqs.v[i]);
			for (size_t i = 0; i < o.index.n; i++)
				printf(" --index %s", o.index.v[i]);
			const struct wp_target *t = &plan.targets[0];
			if (t->accel == WP_ACCEL_CUDA)
				printf(" --cuda %d.%d", t->cuda_major, t->cuda_minor);
			else if (t->accel == WP_ACCEL_CPU)
				printf(" --cuda cpu");
			printf(" --python %d.%d", t->py_major, t->py_minor);
			for (size_t i = 0; i < nt; i++)
				printf(" --platform %s", plan.targets[i].platform);
			printf(" -d wheelhouse\n");
		}
	}
out:
	wp_plan_release(&plan);
	wp_store_release(&store);
	free(cache);
	free(files_root);
	free(targets);
	wp_catalog_close(&cat);
	wp_sources_release(&src);
	wp_strlist_release(&reqs);
	wp_strlist_release(&o.platform);
	wp_strlist_release(&o.gpu);
	wp_strlist_release(&o.target);
	wp_strlist_release(&o.index);
	wp_strlist_release(&o.channel);
	return rc;
}
