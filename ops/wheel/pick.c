/* ops/wheel/pick.c: the wheel job: targets, sources, the plan, fetching into the store, the
 * wheelhouse. */
#include "ops/wheel/pick.h"
#include "ops/core/provenance.h"
#include "ops/wheel/sbom.h"
#include "index/localsrc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/nameindex.h"
#include "base/str.h"
#include "base/url.h"
#include "cache/announced.h"
#include "cache/gpucodedb.h"
#include "ops/core/fetch.h"
#include "ops/core/sources.h"
#include "ops/wheel/locks.h"
#include "resolver/gpucode.h"
#include "resolver/requirement.h"
#include "resolver/torchbuilds.h"
#include "resolver/variant.h"
#include "resolver/wheelname.h"
#include "verify/variantjson.h"
#include "verify/wheel.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static void json_target(struct wp_json *j, const struct wp_target *t)
{
	char b[32];
	wp_json_obj(j);
	snprintf(b, sizeof(b), "%d.%d%s", t->py_major, t->py_minor, wp_target_py_suffix(t));
	wp_json_kstr(j, "python", b);
	wp_json_kstr(j, "platform", t->platform);
	wp_json_kstr(j, "accelerator", wp_accel_word(t->accel));
	wp_json_key(j, "cuda");
	if (t->accel == WP_ACCEL_CUDA) {
		snprintf(b, sizeof(b), "%d.%d", t->cuda_major, t->cuda_minor);
		wp_json_str(j, b);
		/* a machine with no driver yet: the driver is what the picks need (said as a note),
		 * not one it has */
		wp_json_kstr(j, "driver",
			     t->driver.nparts && !t->driver_none_yet ? t->driver.text : NULL);
		if (t->driver_none_yet)
			wp_json_kbool(j, "driver_none_yet", true);
		wp_json_kstr(j, "cuda_compat", t->cuda_strict ? "strict" : "minor");
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
	for (int g = 0; g < t->n_gfx; g++)
		wp_json_str(j, t->gfx[g]);
	wp_json_arr_end(j);
	wp_json_obj_end(j);
}

/* paths_in_dir: a path is written as the file's name, relative to the folder the record lies in
 * (wheelpick.json in a wheelhouse or bundle: no local path leaks in, and two bundles of the same
 * wheels are the same bytes); else as it is. */
static void plan_members(struct wp_json *j, const struct wp_plan *plan,
			 const struct wp_target *fallback, bool explain, bool paths_in_dir)
{
	wp_json_key(j, "targets");
	wp_json_arr(j);
	for (size_t i = 0; i < plan->n_targets; i++)
		json_target(j, &plan->targets[i]);
	if (!plan->n_targets && fallback)
		json_target(j, fallback);
	wp_json_arr_end(j);
	wp_json_key(j, "picks");
	wp_json_arr(j);
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		wp_json_obj(j);
		wp_json_kstr(j, "project", f->project);
		wp_json_kstr(j, "version", f->version);
		wp_json_kstr(j, "variant", f->variant);
		wp_json_kstr(j, "filename", f->filename);
		if (f->index)
			wp_json_kstr(j, "index", f->index); /* which index the project came from */
		wp_json_kstr(j, "where", f->where);
		wp_json_kstr(j, "url", f->url);
		wp_json_kstr(j, "sha256", f->sha256);
		wp_json_key(j, "size");
		if (f->size >= 0)
			wp_json_int(j, f->size);
		else
			wp_json_null(j);
		wp_json_kstr(j, "tags", f->tags);
		wp_json_kstr(j, "requires_python", f->requires_python);
		wp_json_kint(j, "target", (long long)f->target);
		wp_json_kstr(j, "required_by", f->required_by);
		wp_json_kstr(j, "reason", f->reason);
		if (f->path) {
			const char *slash = paths_in_dir ? strrchr(f->path, '/') : NULL;
			wp_json_kstr(j, "path", slash ? slash + 1 : f->path);
		}
		if (explain) {
			wp_json_key(j, "rejected");
			wp_json_arr(j);
			for (size_t k = 0; k < f->n_rejects; k++) {
				wp_json_obj(j);
				wp_json_kstr(j, "file", f->rejects[k].where);
				wp_json_kstr(j, "why", f->rejects[k].why);
				wp_json_obj_end(j);
			}
			wp_json_arr_end(j);
		}
		wp_json_obj_end(j);
	}
	wp_json_arr_end(j);
	wp_json_key(j, "notes");
	wp_json_arr(j);
	for (size_t i = 0; i < plan->n_notes; i++)
		wp_json_str(j, plan->notes[i]);
	wp_json_arr_end(j);
}

void wp_plan_json_members(struct wp_json *j, const struct wp_plan *plan,
			  const struct wp_target *fallback, bool explain)
{
	plan_members(j, plan, fallback, explain, false);
}

static void plan_json(const struct wp_plan *plan, bool explain, bool paths_in_dir, FILE *out)
{
	struct wp_json j;
	wp_json_init(&j);
	wp_json_obj(&j);
	plan_members(&j, plan, NULL, explain, paths_in_dir);
	wp_json_obj_end(&j);
	wp_json_finish(&j, out);
}

void wp_plan_write_json(const struct wp_plan *plan, bool explain, FILE *out)
{
	plan_json(plan, explain, false, out);
}

static void bytes_text(char *out, size_t n, long long b)
{
	if (b >= 1000000)
		snprintf(out, n, "%.1f MB", (double)b / 1e6);
	else if (b >= 1000)
		snprintf(out, n, "%.1f kB", (double)b / 1e3);
	else
		snprintf(out, n, "%lld B", b);
}

/* Downloads taken up where an earlier run stopped, and those kept for the next run. */
static void say_partials(const struct wp_session *s, const struct wp_store *st,
			 const struct wp_fetch_item *items, size_t n)
{
	long long resumed = 0, kept = 0;
	size_t nr = 0, nk = 0;
	for (size_t i = 0; i < n; i++) {
		resumed += items[i].resumed;
		nr += items[i].resumed > 0;
		kept += items[i].kept;
		nk += items[i].kept > 0;
	}
	char b[32];
	if (nr) {
		bytes_text(b, sizeof(b), resumed);
		wp_say(s, WP_SAY_NOTE,
		       "resumed %zu download%s where an earlier run stopped (%s were kept)", nr,
		       nr == 1 ? "" : "s", b);
	}
	if (nk) {
		char *dir = wp_store_partial_dir(st);
		bytes_text(b, sizeof(b), kept);
		wp_say(s, WP_SAY_NOTE,
		       "kept %s of %zu unfinished download%s in %s: the next run resumes %s", b, nk,
		       nk == 1 ? "" : "s", dir, nk == 1 ? "it" : "them");
		free(dir);
	}
}

/* A download refused because its bytes are not the ones first seen for its name: its message
 * says where and when those were seen, and the command that accepts the new ones (the catalog
 * records the conflict, so that 'wheelpick trust' can). */
static void say_first_seen(struct wp_catalog *cat, struct wp_fetch_item *it, const char *expected)
{
	struct wp_err e = WP_ERR_INIT;
	char *first_url = NULL, when[32] = "?";
	int64_t t = 0;
	bool found = false;
	if (wp_catalog_fetch_conflict(cat, it->url, expected, it->sha256_out, &found, &first_url,
				      &t, &e) < 0 ||
	    !found) {
		free(first_url);
		return;
	}
	time_t tt = (time_t)t;
	struct tm tm;
	if (t > 0 && gmtime_r(&tt, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d", &tm);
	wp_err_clear(&it->err);
	wp_fail(&it->err, -WPE_INTEGRITY,
		"'%s' refused: its bytes now hash to %s, but %s was seen first for it, at '%s' "
		"(%s); check the source, then accept the new bytes with: wheelpick trust '%s'",
		it->filename, it->sha256_out, expected, first_url, when, it->url);
	free(first_url);
}

/* A plan file's size as the disk knows it (the store's copy, or a file:// URL's file), or -1. */
static long long local_size(const struct wp_pick_run *run, const struct wp_plan_file *f)
{
	struct wp_os_stat sb;
	char *path = NULL;
	long long size = -1;
	/* a dry run opens no store, but knows where it is */
	struct wp_store where = { .root = run->store.root ? run->store.root : run->files_root };
	if (f->sha256 && where.root) {
		path = wp_store_path(&where, f->sha256);
		if (path && wp_os_stat(path, &sb) == 0 && WP_S_ISREG(sb.st_mode))
			size = (long long)sb.st_size;
		free(path);
		path = NULL;
	}
	if (size < 0 && wp_local_is_file_url(f->url)) {
		struct wp_err e = WP_ERR_INIT;
		if (wp_local_path(f->url, &path, &e) == 0 && wp_os_stat(path, &sb) == 0 &&
		    WP_S_ISREG(sb.st_mode))
			size = (long long)sb.st_size;
		free(path);
	}
	return size;
}

void wp_pick_probe_sizes(const struct wp_session *s, const struct wp_pick_job *job,
			 struct wp_pick_run *run)
{
	const struct wp_plan *plan = &run->plan;
	const char **urls = NULL;
	size_t nu = 0;                      /* URL k is entry k of by_url */
	long long *got = NULL;              /* URL k's size; -1 unknown */
	size_t *ask = NULL, na = 0;         /* the URLs no earlier run kept a size for */
	struct wp_name_index by_url = { 0 };
	struct wp_err e = WP_ERR_INIT;

	free(run->shown_sizes);
	run->shown_sizes = NULL;
	if (job->offline)
		return; /* the index's sizes alone, and the total says it gave none */
	run->shown_sizes = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*run->shown_sizes));
	for (size_t i = 0; i < plan->n; i++)
		run->shown_sizes[i] = plan->files[i].size;
	urls = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*urls));
	ask = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*ask));
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		if (f->size >= 0 || !f->url || wp_name_index_find(&by_url, f->url) != WP_NAME_NONE)
			continue;
		/* the disk tells without a request: a file already in the store, or a file://
		 * one */
		if ((run->shown_sizes[i] = local_size(run, f)) >= 0)
			continue;
		if (strncasecmp(f->url, "http://", 7) && strncasecmp(f->url, "https://", 8))
			continue;
		wp_name_index_push(&by_url, f->url);
		urls[nu++] = f->url;
	}
	if (!nu)
		goto out;
	got = wp_xcalloc(nu, sizeof(*got));
	for (size_t k = 0; k < nu; k++)
		got[k] = -1;
	/* what the servers announced to an earlier run (a failed read only means asking again) */
	if (wp_catalog_announced_get(&run->cat, urls, nu, got, &e) < 0) {
		wp_say(s, WP_SAY_DEBUG, "%s", e.msg);
		wp_err_clear(&e);
	}
	for (size_t k = 0; k < nu; k++)
		if (got[k] < 0)
			ask[na++] = k;
	if (na && wp_lazy_require(WP_LIB_CURL, &e) < 0) {
		wp_say(s, WP_SAY_DEBUG, "no sizes asked of the servers: %s", e.msg);
		wp_err_clear(&e);
		na = 0;
	}
	if (na) {
		const char **asked = wp_xcalloc(na, sizeof(*asked));
		long long *heard = wp_xcalloc(na, sizeof(*heard));
		for (size_t j = 0; j < na; j++)
			asked[j] = urls[ask[j]];
		struct wp_dl_opts po = { .policy = wp_session_net_policy(s) };
		wp_download_probe_sizes(asked, na, heard, &po);
		for (size_t j = 0; j < na; j++)
			got[ask[j]] = heard[j];
		/* kept for the next plan of these files: never fatal, a size is display only */
		if (wp_catalog_announced_put(&run->cat, asked, heard, na, &e) < 0) {
			wp_say(s, WP_SAY_DEBUG, "%s", e.msg);
			wp_err_clear(&e);
		}
		wp_say(s, WP_SAY_DEBUG, "asked %zu server%s for the sizes the index does not give",
		       na, na == 1 ? "" : "s");
		free(asked);
		free(heard);
	}
	for (size_t i = 0; i < plan->n; i++) {
		size_t k = plan->files[i].size >= 0 || !plan->files[i].url ?
				   WP_NAME_NONE :
				   wp_name_index_find(&by_url, plan->files[i].url);
		if (k != WP_NAME_NONE)
			run->shown_sizes[i] = got[k];
	}
out:
	wp_name_index_free(&by_url);
	free(urls);
	free(ask);
	free(got);
}

/* PEP 740: each proven file's provenance, where its index offers one, fetched beside its object in
 * the store (OBJECT.provenance), so that a wheelhouse, mirror or bundle written from the store
 * carries it, offline runs too. Kept once fetched: its signature binds it to these bytes. All are
 * fetched at once (one round trip, not one per file). A provenance that cannot be fetched is said,
 * not fatal: verify decides what a missing one means. */
static void carry_provenance(const struct wp_session *s, const struct wp_pick_job *job,
			     struct wp_pick_run *run, const struct wp_fetch_item *items, size_t n)
{
	const char **urls = wp_xcalloc(n ? n : 1, sizeof(*urls));
	char **dests = wp_xcalloc(n ? n : 1, sizeof(*dests));
	const char **names = wp_xcalloc(n ? n : 1, sizeof(*names));
	size_t m = 0;
	for (size_t k = 0; k < n && !job->offline; k++) {
		struct wp_os_stat st;
		if (items[k].rc || !items[k].path)
			continue;
		char *dest = wp_xasprintf("%s" WP_PROV_SUFFIX, items[k].path);
		if (wp_os_stat(dest, &st) == 0) {
			free(dest); /* carried by an earlier run */
			continue;
		}
		urls[m] = items[k].url;
		names[m] = items[k].filename;
		dests[m++] = dest;
	}
	bool *got = wp_xcalloc(m ? m : 1, sizeof(*got));
	struct wp_err *errs = wp_xcalloc(m ? m : 1, sizeof(*errs));
	if (m && wp_provenance_carry_many(s->net, &run->cat, urls, (const char *const *)dests, m,
					  got, errs))
		for (size_t i = 0; i < m; i++)
			if (errs[i].code)
				wp_say(s, WP_SAY_WARN,
				       "'%s': its index offers PEP 740 provenance, which could not be carried: %s",
				       names[i], errs[i].msg);
	for (size_t i = 0; i < m; i++)
		free(dests[i]);
	free(urls);
	free(dests);
	free(names);
	free(got);
	free(errs);
}

/* The GPU code of a fetched wheel: from the check that proved it, else the catalog, else its stored
 * bytes read now (and kept, so that a file is read once). NULL when it cannot be read. */
static char *gpu_code_of(const struct wp_session *s, struct wp_pick_run *run,
			 const struct wp_fetch_item *it)
{
	char *code = NULL;
	struct wp_err e = WP_ERR_INIT;
	if (it->gpu_code)
		code = wp_xstrdup(it->gpu_code);
	else if (wp_catalog_gpu_code_get(&run->cat, it->sha256_out, &code, &e) < 0)
		wp_say(s, WP_SAY_DEBUG, "%s", e.msg);
	if (!code) {
		struct wp_wheel_info info = { 0 };
		wp_err_clear(&e);
		if (wp_wheel_verify_named(it->path, it->filename, NULL, &info, &e) == 0)
			code = wp_xstrdup(info.gpu_code ? info.gpu_code : "-");
		else
			wp_say(s, WP_SAY_DEBUG, "%s", e.msg);
		wp_wheel_info_release(&info);
	}
	wp_err_clear(&e);
	if (code && wp_catalog_gpu_code_put(&run->cat, it->sha256_out, code, &e) < 0)
		wp_say(s, WP_SAY_DEBUG, "%s", e.msg);
	return code;
}

/* What PyTorch's arch list for a torch build says of gpu_sm, when it has one: the binary was read
 * and disagrees, and the binary wins; the words say so. */
static void arch_list_words(const struct wp_plan_file *f, int gpu_sm, struct wp_buf *out)
{
	struct wp_variant var;
	struct wp_arch_list l;
	const char *fam = wp_torch_platform_family(
		f->tags && strchr(f->tags, '-') ? strrchr(f->tags, '-') + 1 : "");
	const char *plus = f->version ? strchr(f->version, '+') : NULL;
	if (!f->project || strcasecmp(f->project, "torch") || !plus ||
	    wp_variant_from_label(plus, &var) < 0 || var.kind != WP_VARIANT_CUDA || !fam ||
	    wp_torch_arch_list(f->version, var.major, var.minor, fam, &l) < 0)
		return;
	struct wp_buf list = WP_BUF_INIT;
	wp_arch_list_format(&l, &list);
	if (wp_arch_list_serves(&l, gpu_sm, true, NULL))
		wp_buf_printf(out,
			      "; PyTorch's arch list for this build (%s) says it serves sm_%d, the binary says not, and the "
			      "binary wins",
			      wp_buf_cstr(&list), gpu_sm);
	wp_buf_free(&list);
}

/* job->gpu_check: each fetched wheel's GPU code on its target's GPUs. A none refuses the file (its
 * URL joins run->gpu_refused, the reason goes to why unless one is there); a ptx-jit is a warning.
 * Returns how many files were refused. */
static size_t gpu_check(const struct wp_session *s, struct wp_pick_run *run,
			struct wp_fetch_item *items, const size_t *item_of, struct wp_buf *why)
{
	size_t refused = 0;
	struct wp_plan *plan = &run->plan;
	char **codes = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*codes));
	for (size_t i = 0; i < plan->n; i++) {
		struct wp_plan_file *f = &plan->files[i];
		struct wp_fetch_item *it = &items[item_of[i]];
		const struct wp_target *t = f->target < plan->n_targets ?
						    &plan->targets[f->target] :
						    NULL;
		if (!f->path || !t || t->accel != WP_ACCEL_CUDA || !t->n_gpus ||
		    !wp_cstr_endswith(f->filename, ".whl"))
			continue;
		if (!codes[item_of[i]])
			codes[item_of[i]] = gpu_code_of(s, run, it);
		const char *code = codes[item_of[i]];
		if (!code || !strcmp(code, "-") || !*code)
			continue;
		int drv = t->cuda_major * 10 + t->cuda_minor;
		for (int g = 0; g < t->n_gpus; g++) {
			enum wp_gpu_verdict v;
			struct wp_buf w = WP_BUF_INIT;
			struct wp_err e = WP_ERR_INIT;
			if (wp_gpucode_verdict(code, t->gpu_sm[g], drv, &v, &w, &e) < 0) {
				wp_buf_free(&w);
				continue;
			}
			if (v == WP_GPU_NONE) {
				arch_list_words(f, t->gpu_sm[g], &w);
				wp_say(s, WP_SAY_WARN,
				       "refused %s: no kernel image for sm_%d (%s); picking again without it",
				       f->filename, t->gpu_sm[g], wp_buf_cstr(&w));
				if (!why->len)
					wp_buf_printf(why, "%s has no kernel image for sm_%d: %s",
						      f->filename, t->gpu_sm[g], wp_buf_cstr(&w));
				wp_strlist_push(&run->gpu_refused, f->url);
				refused++;
				wp_buf_free(&w);
				break;
			}
			if (v == WP_GPU_PTX_JIT)
				wp_say(s, WP_SAY_WARN,
				       "%s runs on sm_%d only by JIT-compiling its PTX (a slow first run, "
				       "maybe slower kernels): %s",
				       f->filename, t->gpu_sm[g], wp_buf_cstr(&w));
			wp_buf_free(&w);
		}
	}
	for (size_t i = 0; i < plan->n; i++)
		free(codes[i]);
	free(codes);
	return refused;
}

#define GPU_REFUSALS_MAX 32

int wp_pick_fetch(const struct wp_session *s, const struct wp_pick_job *job,
		  struct wp_pick_run *run, struct wp_err *err)
{
	struct wp_plan *plan = &run->plan;
	size_t n = plan->n, u = 0;
	struct wp_fetch_item *items = wp_xcalloc(n ? n : 1, sizeof(*items));
	const char **names = wp_xcalloc(n ? n : 1, sizeof(*names));
	long long *sizes = wp_xcalloc(n ? n : 1, sizeof(*sizes));
	size_t *item_of = wp_xcalloc(n ? n : 1, sizeof(*item_of)); /* plan file -> its item */
	const struct wp_progress_sink *ps = &s->progress;
	int rc = 0, frc;

	/* transfers (file:// too go through libcurl) and hashes; libarchive (with libxml2, ICU and
	 * libstdc++ behind it: 16 x 200 KB spent a tenth of their CPU loading it) only when a
	 * wheel's check falls back to the full pass, which asks for it itself */
	if (n && (rc = wp_lazy_require(WP_LIB_CRYPTO | (job->offline ? 0 : WP_LIB_CURL), err))) {
		free(items), free(names), free(sizes), free(item_of);
		return rc;
	}
	/* what killed runs left in the store's tmp/ (a download writes, so its file stays
	 * younger) */
	struct wp_err ce = WP_ERR_INIT;
	if (wp_store_clean_tmp(&run->store, WP_STORE_TMP_MAX_AGE_S, &ce) < 0)
		wp_say(s, WP_SAY_DEBUG, "%s", ce.msg);

	/* one item per URL: targets that share a file share its fetch, and the counts (the plan's
	 * total, "N of M files ready") count the same files */
	struct wp_name_index by_url = { 0 }; /* item k's URL is item k of the index */
	for (size_t i = 0; i < n; i++) {
		struct wp_plan_file *f = &plan->files[i];
		size_t k = wp_name_index_find(&by_url, f->url);
		item_of[i] = k == WP_NAME_NONE ? u : k;
		if (k != WP_NAME_NONE)
			continue;
		wp_name_index_push(&by_url, f->url);
		items[u] = (struct wp_fetch_item){
			.url = f->url,
			.filename = f->filename,
			.sha256 = f->sha256,
			.size = f->size,
			/* an sdist or archive a pylock.toml names is held to its sha256 only */
			.check = wp_cstr_endswith(f->filename, ".whl") ? WP_FETCH_CHECK_WHEEL :
									 WP_FETCH_CHECK_NONE,
		};
		names[u] = f->filename;
		/* for the progress bar only: a server's word, not what the download is held to */
		sizes[u] = f->size >= 0 || !run->shown_sizes ? f->size : run->shown_sizes[i];
		u++;
	}
	wp_name_index_free(&by_url);
	if (ps->begin)
		ps->begin(ps->ctx, names, sizes, u);
	struct wp_fetch_opts fo = { .offline = job->offline,
				    .progress = ps->update,
				    .resumed = ps->resumed,
				    .pctx = ps->ctx,
				    .net = s->net };
	frc = wp_fetch_files(&run->store, items, u, &fo, err);
	for (size_t i = 0; ps->file_done && i < u; i++) /* the ones the sink has not seen finish:
							   cached, failed */
		ps->file_done(ps->ctx, i, items[i].rc, items[i].cached);
	if (ps->end)
		ps->end(ps->ctx);

	run->unhashed = run->refused = run->failed = 0;
	say_partials(s, &run->store, items, u);
	for (size_t k = 0; k < u; k++) {
		struct wp_fetch_item *it = &items[k];
		if (it->rc) {
			/* each failure once: the one err carries is the job's own */
			bool job_err = frc && !strcmp(it->err.msg, err->msg);
			if (it->rc == -WPE_INTEGRITY) {
				run->refused++;
				if (it->sha256 && it->sha256_out[0])
					say_first_seen(&run->cat, it, it->sha256);
				if (job_err) {
					wp_err_clear(err);
					wp_fail(err, it->rc, "%s", it->err.msg);
				}
			} else {
				run->failed++;
			}
			if (!job_err)
				wp_say(s, WP_SAY_ERROR, "%s", it->err.msg);
		} else if (!it->sha256) {
			/* trust on first use: later fetches of this URL must hash the same */
			if (!rc)
				rc = wp_catalog_record_hash(&run->cat, it->url, it->sha256_out,
							    err);
			run->unhashed++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct wp_plan_file *f = &plan->files[i];
		struct wp_fetch_item *it = &items[item_of[i]];
		free(f->path);
		f->path = NULL;
		if (it->rc)
			continue;
		if (!f->sha256)
			f->sha256 = wp_xstrdup(it->sha256_out);
		f->path = wp_xstrdup(it->path);
		struct wp_os_stat st;
		if (f->size < 0 && wp_os_stat(f->path, &st) == 0)
			f->size = (long long)st.st_size; /* the index did not say; the proven file
							    does */
	}
	carry_provenance(s, job, run, items, u);
	if (run->unhashed)
		wp_say(s, WP_SAY_WARN,
		       "the index gives no sha256 for %zu file(s); recorded the hashes computed while fetching "
		       "(later fetches must match them)",
		       run->unhashed);
	struct wp_buf why = WP_BUF_INIT;
	size_t refused = job->gpu_check && !frc && !rc ? gpu_check(s, run, items, item_of, &why) :
							 0;
	for (size_t i = 0; i < u; i++)
		wp_fetch_item_release(&items[i]);
	free(items);
	free(names);
	free(sizes);
	free(item_of);
	if (refused) {
		/* the next candidate: the plan again without the refused files */
		struct wp_plan next = { 0 };
		if (run->gpu_refused.n > GPU_REFUSALS_MAX) {
			rc = wp_fail(err, -WPE_NOMATCH,
				     "%s; %zu files refused for their GPU code, giving up",
				     wp_buf_cstr(&why), run->gpu_refused.n);
		} else if ((rc = wp_pick_resolve(s, job, run, run->targets, run->n_targets, &next,
						 err))) {
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			wp_err_clear(err);
			rc = wp_fail(err, -WPE_NOMATCH, "%s; without it nothing fits: %s",
				     wp_buf_cstr(&why), msg);
		} else {
			wp_plan_release(&run->plan);
			run->plan = next;
			memset(&next, 0, sizeof(next));
			free(run->shown_sizes);
			run->shown_sizes = NULL;
			for (size_t i = 0; i < run->plan.n; i++)
				wp_say(s, WP_SAY_NOTE, "picked %s", run->plan.files[i].filename);
			rc = wp_pick_fetch(s, job, run, err);
		}
		wp_plan_release(&next);
		wp_buf_free(&why);
		return rc;
	}
	wp_buf_free(&why);
	return frc ? frc : rc;
}

/* A PEP 825 variant wheel's name without its label ("torch-2.10.0-cp313-cp313-linux_x86_64.whl"
 * for "...-linux_x86_64-cuda12.8.whl"), newly allocated, from the name and its label as parsed
 * (label NULL: no variant wheel); NULL for any other file. */
static char *plain_of(const char *filename, const char *label)
{
	if (!label)
		return NULL;
	size_t n = strlen(filename), k = strlen(label);
	if (n > k + 5 && filename[n - 4 - k - 1] == '-')
		return wp_xasprintf("%.*s.whl", (int)(n - 4 - k - 1), filename);
	return NULL;
}

/* A plan file's plain name: its name was parsed when the plan took it. */
static char *plain_wheel_name(const struct wp_plan_file *f)
{
	return plain_of(f->filename, f->wheel.variant_label);
}

/* The plain name of a wheel an earlier run's record names: read from disk, so parsed here. */
static char *plain_name_parsed(const char *filename)
{
	struct wp_wheelname w;
	if (wp_wheelname_parse(filename, &w, NULL) < 0)
		return NULL;
	char *plain = plain_of(filename, w.variant_label);
	wp_wheelname_release(&w);
	return plain;
}

/* The plan file a component of the wheelhouse's SBOM was made from (wp_sbom_from_plan lists each
 * fetched file by its name), or NULL. */
static const struct wp_plan_file *plan_file_named(const struct wp_plan *plan, const char *filename)
{
	for (size_t i = 0; i < plan->n; i++)
		if (!strcmp(plan->files[i].filename, filename))
			return &plan->files[i];
	return NULL;
}

/* pip and uv (up to their releases of 2026) refuse a file name with a PEP 825 label, so each
 * variant wheel also goes in under its plain name: the same bytes, so the same sha256 that the
 * requirement files pin. Where targets take different variants with one plain name, one folder
 * cannot hold both: none is written, and the user is told to write one wheelhouse per target. */
/* A variant wheel's copy under its plain name (write_plain_copies) is a file of the wheelhouse too:
 * listed with the variant wheel's hash, name, version and targets. */
static void sbom_add_plain_copies(const struct wp_plan *plan, struct wp_sbom *b)
{
	size_t n = b->n;
	for (size_t i = 0; i < n; i++) {
		const struct wp_plan_file *pf = plan_file_named(plan, b->c[i].filename);
		char *plain = pf ? plain_wheel_name(pf) : NULL;
		bool have = !plain;
		for (size_t k = 0; k < b->n && !have; k++)
			have = !strcmp(b->c[k].path, plain);
		/* a plain name that several variant wheels share was not written
		 * (write_plain_copies) */
		for (size_t k = 0; k < plan->n && !have; k++) {
			char *other = plain_wheel_name(&plan->files[k]);
			have = other && !strcmp(other, plain) &&
			       strcmp(plan->files[k].filename, b->c[i].filename) != 0;
			free(other);
		}
		if (!have) {
			struct wp_sbom_comp *c = wp_sbom_add(b), *v = &b->c[i];
			c->path = wp_xstrdup(plain);
			c->filename = wp_xstrdup(plain);
			c->ecosystem = wp_xstrdup(v->ecosystem);
			c->name = wp_xstrdup(v->name);
			c->version = wp_xstrdup(v->version);
			c->sha256 = v->sha256 ? wp_xstrdup(v->sha256) : NULL;
			c->url = v->url ? wp_xstrdup(v->url) : NULL;
			c->size = v->size;
			c->variant = v->variant ? wp_xstrdup(v->variant) : NULL;
			for (size_t t = 0; t < v->n_targets; t++)
				wp_sbom_comp_target(c, v->targets[t]);
		}
		free(plain);
	}
}

static int write_plain_copies(const struct wp_session *s, const struct wp_plan *plan,
			      const char *dir, struct wp_err *err)
{
	int rc = 0;
	for (size_t i = 0; i < plan->n && !rc; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		char *plain = f->path ? plain_wheel_name(f) : NULL;
		if (!plain)
			continue;
		bool first = true, clash = false;
		for (size_t k = 0; k < plan->n; k++) {
			char *other = k != i ? plain_wheel_name(&plan->files[k]) : NULL;
			if (other && !strcmp(other, plain)) {
				first &= k > i; /* one copy, one message per plain name */
				clash |= strcmp(plan->files[k].filename, f->filename) != 0;
			}
			free(other);
		}
		char *dst = wp_xasprintf("%s/%s", dir, plain);
		if (clash && first)
			wp_say(s, WP_SAY_WARN,
			       "%s: targets take different variant wheels with this one plain name, "
			       "which pip and uv need; write one wheelhouse per target (-d) for them",
			       plain);
		else if (!clash && first && !(rc = wp_link_or_copy_unsynced(f->path, dst, err)))
			wp_say(s, WP_SAY_NOTE,
			       "%s/%s: %s under its plain name, for pip and uv releases that "
			       "refuse PEP 825 variant file names (same bytes, same sha256)",
			       dir, plain, f->filename);
		free(dst);
		free(plain);
	}
	return rc ? rc : wp_fs_sync_dir(dir, err);
}

static int write_wheelhouse(const struct wp_session *s, struct wp_pick_run *run, const char *dir,
			    struct wp_err *err);

bool wp_plan_has_variant_wheels(const struct wp_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		if (plan->files[i].wheel.variant_label)
			return true;
	}
	return false;
}

/* The wheels an earlier run's record (dir/wheelpick.json) names: the set this run replaces. */
static void earlier_set(const char *dir, struct wp_strlist *out)
{
	char *path = wp_xasprintf("%s/wheelpick.json", dir);
	const struct wp_json_opts o = { .what = path,
					.noun = "pick record",
					.max_bytes = 64 << 20 };
	struct wp_buf b;
	struct wp_json_val *root = NULL;
	bool found = false;
	if (wp_file_read_if_exists(path, 64 << 20, &b, &found, NULL) == 0 && found &&
	    wp_json_load(b.data, b.len, &o, &root, NULL) == 0) {
		const struct wp_json_val *picks = wp_json_get_arr(root, "picks");
		for (size_t i = 0; i < wp_json_len(picks); i++) {
			const char *fn = wp_json_get_str(wp_json_at(picks, i), "filename");
			size_t n = fn ? strlen(fn) : 0;
			if (fn && wp_url_filename_ok(fn) && n > 4 && !strcmp(fn + n - 4, ".whl"))
				wp_strlist_push(out, wp_xstrdup(fn)); /* the list borrows; freed in
									 the caller */
		}
	}
	wp_json_tree_free(root);
	wp_buf_free(&b);
	free(path);
}

/* Does the plan write filename: one of its files, or the plain-name copy of a variant wheel that
 * no other file of the plan shares (write_plain_copies writes none where targets clash)? A plain
 * copy an earlier run left under a name the plan clashes on holds bytes no requirement now pins:
 * it must go, or verify fails the wheelhouse (issue 36: reused wheelhouses failed 6 of 10
 * rounds). */
static bool plan_names(const struct wp_plan *plan, const char *filename)
{
	const char *plain_of = NULL;
	bool clash = false;
	for (size_t i = 0; i < plan->n; i++) {
		if (!strcmp(plan->files[i].filename, filename))
			return true;
		char *plain = plain_wheel_name(&plan->files[i]);
		if (plain && !strcmp(plain, filename)) {
			clash |= plain_of && strcmp(plain_of, plan->files[i].filename) != 0;
			plain_of = plan->files[i].filename;
		}
		free(plain);
	}
	return plain_of && !clash;
}

/* A wheelhouse is one set: the wheels (and their plain-named copies) the earlier run wrote that
 * this run's requirements do not name go, once the new requirements and record are in place.
 * Left, pip's --find-links would see them and verify would fail them; a wheel the user put
 * here (no record names it) stays. */
static void remove_earlier_set(const char *dir, const struct wp_strlist *earlier,
			       const struct wp_plan *plan)
{
	for (size_t i = 0; i < earlier->n; i++) {
		char *plain = plain_name_parsed(earlier->v[i]);
		const char *names[] = { earlier->v[i], plain };
		for (size_t k = 0; k < 2; k++) {
			struct wp_os_stat sb;
			char *p = names[k] ? wp_xasprintf("%s/%s", dir, names[k]) : NULL;
			if (p && !plan_names(plan, names[k]) && wp_os_lstat(p, &sb) == 0 &&
			    WP_S_ISREG(sb.st_mode)) {
				wp_os_unlink(p);
				char *pv = wp_xasprintf("%s" WP_PROV_SUFFIX, p); /* its provenance
										    goes with it */
				wp_os_unlink(pv);
				free(pv);
			}
			free(p);
		}
		free(plain);
	}
}

/* Some files of the pick are not in dir: INCOMPLETE.txt names them, and a line says so (no
 * requirements.txt is written for a partial set; an earlier complete pick's stays, with its
 * files). */
static int mark_incomplete(const struct wp_session *s, const struct wp_plan *plan, const char *dir,
			   struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	size_t missing = 0, files = 0;
	wp_buf_addstr(&b,
		      "This wheelhouse is incomplete: these files of the last pick failed their checks or could not be\n"
		      "fetched, so no requirements.txt was written for it. Run the pick again once the cause is fixed.\n");
	bool *first = wp_plan_first_of_url(plan, &files); /* a file several targets share counts
							     once */
	for (size_t i = 0; i < plan->n; i++) {
		if (first[i] && !plan->files[i].path) {
			missing++;
			wp_buf_printf(&b, "  %s (%s)\n", plan->files[i].filename,
				      plan->files[i].url);
		}
	}
	free(first);
	char *path = wp_xasprintf("%s/INCOMPLETE.txt", dir),
	     *req = wp_xasprintf("%s/requirements.txt", dir);
	int rc = wp_atomic_write(path, b.data, b.len, err);
	struct wp_os_stat st;
	bool old = wp_os_stat(req, &st) == 0;
	if (!rc)
		wp_say(s, WP_SAY_WARN,
		       "'%s' is incomplete: %zu of %zu files are missing (%s names them); %s", dir,
		       missing, files, path,
		       old ? "its requirements.txt is an earlier pick's, whose files are there" :
			     "no requirements.txt was written, so nothing installs from a partial set");
	free(path);
	free(req);
	wp_buf_free(&b);
	return rc;
}

int wp_pick_write_wheelhouse(const struct wp_session *s, struct wp_pick_run *run, const char *dir,
			     struct wp_err *err)
{
	struct wp_plan *plan = &run->plan;
	struct wp_strlist earlier = { 0 };
	int rc;
	if ((rc = wp_pick_dest_ready(dir, err)))
		return rc;
	/* a variant wheel whose own variant.json names another label is not the build its name
	 * says: refused before anything is written (verify fails such a wheelhouse, and an
	 * installer that reads the wheel's metadata would take it for another build) */
	for (size_t i = 0; i < plan->n; i++)
		if (plan->files[i].path &&
		    (rc = wp_verify_variant_wheel_label(plan->files[i].path,
							plan->files[i].filename,
							plan->files[i].wheel.variant_label, err)))
			return rc;
	earlier_set(dir, &earlier);
	rc = write_wheelhouse(s, run, dir, err);
	/* only when the new requirements were written (a file that failed its checks keeps the
	 * old) */
	bool complete = !rc;
	for (size_t i = 0; i < plan->n && complete; i++)
		complete = plan->files[i].path != NULL;
	if (complete)
		remove_earlier_set(dir, &earlier, plan);
	for (size_t i = 0; i < earlier.n; i++)
		free((char *)earlier.v[i]);
	wp_strlist_release(&earlier);
	return rc;
}

/* The provenance carried beside a store object goes in beside its file (and an old one that
 * no longer belongs stays: it names these bytes or it does not verify). */
static int link_provenance(const char *object, const char *dst, struct wp_err *err)
{
	char *from = wp_xasprintf("%s" WP_PROV_SUFFIX, object),
	     *to = wp_xasprintf("%s" WP_PROV_SUFFIX, dst);
	struct wp_os_stat st;
	int rc = wp_os_stat(from, &st) == 0 ? wp_link_or_copy_unsynced(from, to, err) : 0;
	free(from);
	free(to);
	return rc;
}

static int write_wheelhouse(const struct wp_session *s, struct wp_pick_run *run, const char *dir,
			    struct wp_err *err)
{
	struct wp_plan *plan = &run->plan;
	int rc;
	/* proven files go in; a file that failed its checks stays out. A copy an earlier run put
	 * here stays: it was proven then, and the requirements that pin it stay as they were
	 * (below). The folder is synced once when they are all in, not once per file (16 small
	 * wheels paid 19 fsyncs of it). */
	for (size_t i = 0; i < plan->n; i++) {
		struct wp_plan_file *f = &plan->files[i];
		char *dst = wp_xasprintf("%s/%s", dir, f->filename);
		if (!f->path) {
			/* nothing: see above */
		} else if ((rc = wp_link_or_copy_unsynced(f->path, dst, err)) ||
			   (rc = link_provenance(f->path, dst, err))) {
			free(dst);
			return rc;
		} else {
			free(f->path);
			f->path = dst;
			dst = NULL;
		}
		free(dst);
	}
	if ((rc = wp_fs_sync_dir(dir, err)))
		return rc;
	/* requirements.txt promises every file: with one missing (it failed its checks) the old
	 * requirements and record stay as they were, and the folder says it is incomplete */
	for (size_t i = 0; i < plan->n; i++)
		if (!plan->files[i].path)
			return mark_incomplete(s, plan, dir, err);
	char *marker = wp_xasprintf("%s/INCOMPLETE.txt", dir);
	wp_os_unlink(marker); /* an earlier run's, now complete */
	free(marker);
	if ((rc = write_plain_copies(s, plan, dir, err)))
		return rc;
	/* what installs it on each target: requirement files with markers, and PEP 751 locks */
	struct wp_lock_report rep = { 0 };
	if ((rc = wp_write_requirements(plan, dir, &rep, err)) ||
	    (rc = wp_write_pylock(plan, dir, WP_LOCK_PATHS, &rep, err))) {
		wp_lock_report_release(&rep);
		return rc;
	}
	for (size_t i = 0; i < rep.n; i++)
		if (strcmp(rep.v[i].for_whom, "every target") != 0)
			wp_say(s, WP_SAY_NOTE, "%s/%s: for %s", dir, rep.v[i].name,
			       rep.v[i].for_whom);
	for (size_t i = 0; i < rep.n_warnings; i++)
		wp_say(s, WP_SAY_WARN, "%s", rep.warnings[i]);
	wp_lock_report_release(&rep);
	/* the pick record, with local paths */
	char *path = wp_xasprintf("%s/wheelpick.json", dir);
	char *tmp = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&tmp, &len);
	plan_json(plan, false, true, mem);
	fclose(mem);
	rc = wp_atomic_write(path, tmp, len, err);
	free(tmp);
	free(path);
	/* what is in it, for whoever reviews what crosses (written last: it lists the whole set) */
	if (!rc) {
		struct wp_sbom b = { .kind = "wheelhouse" }; /* no path: two builds elsewhere give
								one SBOM */
		wp_sbom_from_plan(plan, &b);
		sbom_add_plain_copies(plan, &b);
		rc = wp_sbom_write(s, dir, &b, WP_SBOM_CDX | (s->sbom_spdx ? WP_SBOM_SPDX : 0),
				   err);
		wp_sbom_release(&b);
	}
	return rc;
}

static int any_row(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	*(bool *)ctx = true;
	return 1; /* stop at the first row */
}

/* Has the catalog any file of the project a requirement names? A catalog that cannot be read
 * is an error, not a "no". */
static int catalog_has(struct wp_catalog *cat, const struct wp_req *req, bool *has,
		       struct wp_err *err)
{
	*has = false;
	if (!req->ok)
		return 0; /* the solver says what is wrong with it */
	int rc = wp_catalog_files(cat, req->project, false, any_row, has, err);
	return rc < 0 ? rc : 0;
}

static int all_in_catalog(struct wp_catalog *cat, const struct wp_reqs *reqs, bool *all,
			  struct wp_err *err)
{
	int rc = 0;
	*all = true;
	for (size_t i = 0; i < reqs->n && *all && !rc; i++)
		rc = catalog_has(cat, &reqs->v[i], all, err);
	return rc;
}

/* Is a source in the catalog from an earlier crawl? */
static int source_known(struct wp_catalog *cat, const char *url, bool *known, struct wp_err *err)
{
	return wp_catalog_source_get(cat, url, NULL, NULL, known, err);
}

/* --index sources crawled when stale; without --index, the defaults when the catalog has never
 * seen a project asked for. */
static int crawl_sources(const struct wp_session *s, const struct wp_pick_job *job,
			 struct wp_pick_run *run, struct wp_err *err)
{
	struct wp_sources src = { .creds = s->creds };
	bool have;
	int rc = 0;
	for (size_t i = 0; i < job->index.n; i++)
		wp_sources_add_index(&src, job->index.v[i]);
	for (size_t i = 0; i < job->find_links.n; i++)
		wp_sources_add_findlinks(&src, job->find_links.v[i]);
	if (!src.n) {
		if ((rc = all_in_catalog(&run->cat, &job->reqs, &have, err)))
			goto out;
		/* --refresh reads the defaults again even when the catalog has every project */
		if ((!have || job->refresh) && !job->offline) {
			struct wp_strlist def = { 0 };
			char *block = wp_default_indexes(s->envp, &def, false);
			for (size_t i = 0; i < def.n; i++)
				wp_sources_add_index(&src, def.v[i]);
			wp_strlist_release(&def);
			free(block);
		}
	}
	if (src.n && !job->offline) {
		struct wp_err ce = WP_ERR_INIT;
		if (wp_sources_crawl_given(s, &run->cat, &src, &job->reqs, false,
					   job->refresh ? 0 : s->max_age_s,
					   job->strategy == WP_INDEX_FIRST, &ce)) {
			/* a source that cannot be reached now, while the catalog holds what it
			 * listed before: picking from that is what --offline would do; say so. An
			 * --index never read, or nothing to pick from at all, makes the failure the
			 * answer (exit 3), not "nothing fits" */
			bool known = true;
			for (size_t i = 0;
			     (job->index.n || job->find_links.n) && i < src.n && known && !rc; i++)
				rc = source_known(&run->cat, src.urls[i], &known, err);
			if (!rc && known)
				rc = all_in_catalog(&run->cat, &job->reqs, &have, err);
			if (rc)
				goto out;
			if (!known || !have) {
				rc = wp_fail(err, ce.code, "%s", ce.msg);
				goto out;
			}
			wp_say(s, WP_SAY_WARN, "%s; picking from what the catalog already has",
			       ce.msg);
		}
	}
out:
	wp_sources_release(&src);
	return rc;
}

int wp_pick_prepare(const struct wp_session *s, const struct wp_pick_job *job,
		    struct wp_pick_run *run, struct wp_err *err)
{
	int rc;
	if (!job->reqs.n)
		return wp_fail(err, -WPE_USAGE,
			       "name at least one package, e.g. 'wheelpick torch --cuda 11.2'");
	if ((rc = wp_targets_build(s, &job->targets, &run->targets, &run->n_targets, err)))
		return rc;
	if ((rc = wp_catalog_open_as(&run->cat, s->catalog_path, s->asks, err)))
		return rc;
	if ((rc = crawl_sources(s, job, run, err)))
		return rc;
	run->files_root = wp_xasprintf("%s/files", s->cache_dir);
	/* a dry run that reads no wheel whole leaves the cache as it was: no store to make */
	if (job->dry_run && !job->allow_full_downloads)
		return 0;
	if ((rc = wp_store_init(&run->store, run->files_root, err)))
		return rc;
	/* fetched files are held to the catalog: an unhashed file to its first-seen hash, a wheel
	 * to the metadata the catalog read for it, even when this run resolved nothing
	 * (--no-deps) */
	run->store.catalog = &run->cat;
	return 0;
}

struct used_ctx {
	const char *project;
	const struct wp_strlist *prefer;
	char *pick;      /* the source chosen for this file (owned) */
	bool preferred;  /* it is under one of prefer */
};

static bool under_any(const char *url, const struct wp_strlist *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (!strncmp(url, l->v[i], strlen(l->v[i])))
			return true;
	return false;
}

static int used_fn(void *vctx, const struct wp_source_row *r, struct wp_err *err)
{
	struct used_ctx *u = vctx;
	if (!r->url || u->preferred)
		return 0;
	bool pref = under_any(r->url, u->prefer);
	if (!u->pick || pref) {
		free(u->pick);
		u->pick = wp_xstrdup(r->url);
		u->preferred = pref;
		/* a project's page ROOT/<name>/ is said as its root, as an index is named */
		size_t n = strlen(u->pick), pn = strlen(u->project);
		if ((r->type == WP_SOURCE_SIMPLE || r->type == WP_SOURCE_SIMPLE_JSON) &&
		    n > pn + 2 && u->pick[n - 1] == '/' &&
		    !strncmp(u->pick + n - 1 - pn, u->project, pn) && u->pick[n - 2 - pn] == '/')
			u->pick[n - 1 - pn] = 0;
	}
	return 0;
}

int wp_pick_sources_used(struct wp_pick_run *run, const struct wp_strlist *prefer,
			 struct wp_strlist *out, struct wp_err *err)
{
	int rc = 0;
	if (!run->cat.db)
		return 0;
	size_t distinct;
	bool *first = wp_plan_first_of_url(&run->plan, &distinct);
	/* one snapshot for every file's lookup, as in a resolution */
	wp_catalog_read_begin(&run->cat);
	for (size_t i = 0; i < run->plan.n && !rc; i++) {
		const struct wp_plan_file *f = &run->plan.files[i];
		struct used_ctx u = { f->project, prefer, NULL, false };
		if (first[i] && f->project && f->url)
			rc = wp_catalog_file_url_sources(&run->cat, f->project, f->version, f->url,
							 used_fn, &u, err);
		bool dup = !u.pick;
		for (size_t k = 0; k < out->n && !dup; k++)
			dup = !strcmp(out->v[k], u.pick);
		if (dup)
			free(u.pick);
		else
			wp_strlist_push(out, u.pick);
	}
	wp_catalog_read_end(&run->cat);
	free(first);
	return rc;
}

int wp_pick_dest_ready(const char *dir, struct wp_err *err)
{
	int rc = wp_mkdir_p(dir, 0755, err);
	if (rc)
		return rc;
	if (wp_os_access(dir, WP_W_OK | WP_X_OK) < 0)
		return wp_fs_fail(err, errno, "cannot write into", dir);
	/* what a run killed while writing here left (its temp names, never reused) */
	wp_fs_sweep_stale_tmp(dir);
	return 0;
}

int wp_pick_resolve(const struct wp_session *s, const struct wp_pick_job *job,
		    struct wp_pick_run *run, const struct wp_target *targets, size_t n_targets,
		    struct wp_plan *plan, struct wp_err *err)
{
	/* --index URLs as crawled (paths become file:// URLs), best first; PROJECT=URL pins with
	 * URL spelled the same way */
	struct wp_sources given = { .creds = s->creds };
	struct wp_strlist indexes = { 0 };
	struct wp_index_pin *pins = wp_xcalloc(job->index_for.n + 1, sizeof(*pins));
	char **pin_names = wp_xcalloc(job->index_for.n + 1, sizeof(*pin_names));
	char **pin_urls = wp_xcalloc(job->index_for.n + 1, sizeof(*pin_urls));
	int rc = 0;
	for (size_t i = 0; i < job->index.n; i++)
		wp_sources_add_index(&given, job->index.v[i]);
	for (size_t i = 0; i < job->find_links.n; i++)
		wp_sources_add_findlinks(&given, job->find_links.v[i]);
	for (size_t i = 0; i < given.n; i++)
		wp_strlist_push(&indexes, given.urls[i]);
	for (size_t i = 0; i < job->index_for.n && !rc; i++) {
		const char *v = job->index_for.v[i], *eq = strchr(v, '=');
		if (!eq || eq == v || !eq[1]) {
			rc = wp_fail(err, -WPE_USAGE, "--index-for '%s' is not PROJECT=URL", v);
			break;
		}
		/* read once, here: the name in PEP 503 form, the URL as the index is crawled */
		struct wp_buf name = WP_BUF_INIT;
		wp_project_name_normalize(v, (size_t)(eq - v), &name);
		pin_names[i] = wp_buf_detach(&name, NULL);
		struct wp_sources one = { .creds = s->creds };
		wp_sources_add_index(&one, eq + 1);
		pin_urls[i] = wp_xstrdup(one.urls[0]);
		wp_sources_release(&one);
		pins[i] = (struct wp_index_pin){ .project = pin_names[i], .url = pin_urls[i] };
	}
	if (!rc) {
		struct wp_resolve_opts ro = {
			.indexes = &indexes,
			.index_for = pins,
			.n_index_for = job->index_for.n,
			.strategy = job->strategy,
			.store = job->dry_run && !job->allow_full_downloads ? NULL : &run->store,
			.offline = job->offline,
			.no_deps = job->no_deps,
			.pre = job->pre,
			.explain = job->explain,
			.refresh = job->refresh,
			.constraints = &job->constraints,
			.hashes = job->hashes,
			.n_hashes = job->n_hashes,
			.refused = &run->gpu_refused,
			.testcase = job->testcase,
		};
		rc = wp_resolve(s, &run->cat, job->reqs.v, job->reqs.n, targets, n_targets, &ro,
				plan, err);
	}
	for (size_t i = 0; i < job->index_for.n; i++)
		free(pin_names[i]), free(pin_urls[i]);
	free(pin_names);
	free(pin_urls);
	free(pins);
	wp_strlist_release(&indexes);
	wp_sources_release(&given);
	return rc;
}

/* Whether the metadata's Requires-Dist names the extra in a marker (what makes an extra exist for
 * pip, besides a bare Provides-Extra that brings nothing). The catalog keeps the text: each line
 * is parsed here, and the marker asked, not printed and searched. */
static bool provides_extra(const char *requires_dist, const char *extra)
{
	bool yes = false;
	for (const char *p = requires_dist; *p && !yes;) {
		size_t n = strcspn(p, "\n");
		struct wp_requirement r;
		struct wp_err e = WP_ERR_INIT;
		if (wp_requirement_parse(&r, p, n, &e) == 0) {
			yes = r.has_marker && wp_marker_compares_eq(&r.marker, "extra", extra);
			wp_requirement_release(&r);
		}
		p += n + (p[n] == '\n');
	}
	return yes;
}

/* pip's warning for an extra the picked release does not have ("torch[cuda]"): the request
 * still stands, without it. Only where the release's metadata was read. */
static void warn_unknown_extras(const struct wp_session *s, const struct wp_pick_job *job,
				struct wp_pick_run *run)
{
	for (size_t i = 0; i < job->reqs.n; i++) {
		const struct wp_req *q = &job->reqs.v[i];
		struct wp_err e = WP_ERR_INIT;
		if (!q->ok)
			continue;
		const struct wp_requirement *r = &q->r;
		const struct wp_plan_file *f = NULL;
		for (size_t k = 0; k < run->plan.n && !f; k++)
			if (!strcmp(run->plan.files[k].project, q->project))
				f = &run->plan.files[k];
		struct wp_catalog_meta cm = { 0 };
		if (f && r->nextras &&
		    wp_catalog_metadata_lookup(&run->cat, f->url, &cm, &e) == 0 && cm.found)
			for (size_t x = 0; x < r->nextras; x++)
				if (!provides_extra(cm.requires_dist ? cm.requires_dist : "",
						    r->extras[x]))
					wp_say(s, WP_SAY_WARN,
					       "%s %s does not provide the extra '%s'", f->project,
					       f->version, r->extras[x]);
		wp_catalog_meta_release(&cm);
	}
}

/* A target whose GPUs have no driver yet (detection's PCI rung): the driver to install is the one
 * the newest CUDA among its picked builds needs. */
static void advise_driver(const struct wp_session *s, const struct wp_pick_run *run)
{
	for (size_t ti = 0; ti < run->plan.n_targets; ti++) {
		const struct wp_target *t = &run->plan.targets[ti];
		int best = 0;
		if (!t->driver_none_yet || t->accel != WP_ACCEL_CUDA)
			continue;
		for (size_t i = 0; i < run->plan.n; i++) {
			const struct wp_plan_file *f = &run->plan.files[i];
			long long v;
			if (f->target != ti || !f->variant || strncmp(f->variant, "cu", 2) ||
			    !wp_str_to_ll(WP_STR(f->variant + 2), &v) || v < 10 || v > 999)
				continue;
			best = (int)v > best ? (int)v : best;
		}
		const char *need = NULL;
		if (best && wp_cuda_min_driver_os(best / 10, best % 10, wp_target_is_windows(t),
						  &need) == 0)
			wp_say(s, WP_SAY_NOTE,
			       "this machine has no NVIDIA driver yet: the CUDA %d.%d builds picked need driver %s "
			       "or newer; install it before running them",
			       best / 10, best % 10, need);
		else
			wp_say(s, WP_SAY_NOTE,
			       "this machine has no NVIDIA driver yet and no CUDA build was picked");
	}
}

int wp_pick_plan(const struct wp_session *s, const struct wp_pick_job *job, struct wp_pick_run *run,
		 struct wp_err *err)
{
	int rc;
	if ((rc = wp_pick_prepare(s, job, run, err)) ||
	    (rc = wp_pick_resolve(s, job, run, run->targets, run->n_targets, &run->plan, err)))
		return rc;
	warn_unknown_extras(s, job, run);
	advise_driver(s, run);
	for (size_t i = 0; i < run->plan.n_notes; i++)
		wp_say(s, WP_SAY_NOTE, "%s", run->plan.notes[i]);
	return 0;
}

/* lock --fetch-hashes: the files the index gives no sha256 for are fetched and proven (into the
 * store, recorded in the catalog as a pick records them), so that the lock can name each hash. */
static int fetch_for_hashes(const struct wp_session *s, const struct wp_pick_job *job,
			    struct wp_pick_run *run, struct wp_err *err)
{
	struct wp_plan *plan = &run->plan, full = *plan;
	size_t n = 0, *at = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*at));
	struct wp_plan_file *sub = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*sub));
	for (size_t i = 0; i < plan->n; i++)
		if (!plan->files[i].sha256 || !*plan->files[i].sha256) {
			at[n] = i;
			sub[n++] = plan->files[i];
		}
	int rc = 0;
	/* a lock's dry run made no store (unless --allow-full-downloads did) */
	if (n && !job->allow_full_downloads) {
		if ((rc = wp_store_init(&run->store, run->files_root, err))) {
			free(sub);
			free(at);
			return rc;
		}
		run->store.catalog = &run->cat;
	}
	if (n) {
		wp_say(s, WP_SAY_NOTE,
		       "fetching %zu file%s the index gives no sha256 for, to hash %s (--fetch-hashes)",
		       n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
		struct wp_pick_job j = *job;
		j.dry_run = false;
		plan->files = sub;
		plan->n = n;
		rc = wp_pick_fetch(s, &j, run, err);
		*plan = full;
		for (size_t k = 0; k < n; k++) {
			/* what the fetch learned goes back to the plan's own rows */
			struct wp_plan_file *f = &plan->files[at[k]];
			if (!f->sha256 && sub[k].sha256)
				f->sha256 = sub[k].sha256;
			f->size = sub[k].size;
			free(sub[k].path); /* a lock names URLs, not the store's paths */
		}
	}
	free(sub);
	free(at);
	return rc;
}

int wp_pick_lock(const struct wp_session *s, const struct wp_pick_job *job, struct wp_pick_run *run,
		 const char *path, struct wp_lock_report *rep, struct wp_err *err)
{
	struct wp_pick_job j = *job;
	int rc;
	j.dry_run = true; /* a lock downloads nothing (but what --allow-full-downloads allows) */
	if ((rc = wp_pick_plan(s, &j, run, err)))
		return rc;
	if (job->fetch_hashes && (rc = fetch_for_hashes(s, &j, run, err)))
		return rc;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? wp_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) :
			    wp_xstrdup(".");
	if (!(rc = wp_mkdir_p(dir, 0755, err)))
		rc = wp_write_pylock_named(&run->plan, dir, slash ? slash + 1 : path, WP_LOCK_URLS,
					   rep, err);
	for (size_t i = 0; !rc && i < rep->n_warnings; i++)
		wp_say(s, WP_SAY_WARN, "%s", rep->warnings[i]);
	free(dir);
	return rc;
}

void wp_pick_run_release(struct wp_pick_run *run)
{
	wp_plan_release(&run->plan);
	wp_store_release(&run->store);
	wp_catalog_close(&run->cat);
	free(run->targets);
	free(run->files_root);
	free(run->shown_sizes);
	wp_strlist_release(&run->gpu_refused);
	memset(run, 0, sizeof(*run));
}
