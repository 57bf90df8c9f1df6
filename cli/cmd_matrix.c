/* cli/cmd_matrix.c: `wheelpick matrix PKG... --cuda A --cuda B --python X ...`: what each target
 * would get, as a grid (a row per target, a column per package asked for) or JSON. */
#include "base/buf.h"
#include "base/json.h"
#include "base/mem.h"
#include "cli/cli.h"
#include "cli/pick_opts.h"
#include "cli/print.h"
#include "ops/conda/condamatrix.h"
#include "ops/wheel/matrix.h"
#include "resolver/gpucode.h"
#include "resolver/variant.h"
#include "resolver/wheelname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pick of project in a row's plan (normalised names compared), or NULL. */
/* The plan's pick for a requirement (its PEP 503 name, from the job's parse). */
static const struct wp_plan_file *pick_of(const struct wp_plan *plan, const struct wp_req *req)
{
	for (size_t i = 0; req->ok && i < plan->n; i++)
		if (!strcmp(plan->files[i].project, req->project))
			return &plan->files[i];
	return NULL;
}

static void cell_text(const struct wp_plan_file *f, char *out, size_t n)
{
	if (!f)
		snprintf(out, n, "-");
	else if (f->variant && *f->variant && !strchr(f->version, '+'))
		snprintf(out, n, "%s (%s)", f->version, f->variant); /* an unlabeled build: say what
									it is */
	else
		snprintf(out, n, "%s", f->version);
}

/* Does the pick run on the row's target only by NVIDIA's minor-version compatibility? A CUDA build
 * newer than the driver's CUDA within its major; never under --cuda-compat strict, which rules
 * such builds out (their reasons still name the rule, to say why they were skipped). */
static bool by_minor_compat_label(const char *variant, const struct wp_target *t)
{
	struct wp_variant v;
	if (t->accel != WP_ACCEL_CUDA || t->cuda_strict || !variant ||
	    wp_variant_from_label(variant, &v) != 1 || v.kind != WP_VARIANT_CUDA)
		return false;
	return v.major == t->cuda_major && v.minor > t->cuda_minor;
}

static bool by_minor_compat(const struct wp_plan_file *f, const struct wp_target *t)
{
	return f && by_minor_compat_label(f->variant, t);
}

/* A column per requirement of the command line: the first n of the job's (the files' follow). */
static void print_grid(const struct wp_matrix *m, const struct wp_req *reqs, size_t n)
{
	struct wp_buf d = WP_BUF_INIT;
	size_t width = 6;
	for (size_t i = 0; i < m->n; i++) {
		wp_buf_reset(&d);
		wp_target_describe(&m->rows[i].target, &d);
		if (d.len > width)
			width = d.len;
	}
	printf("%-*s", (int)width, "target");
	for (size_t k = 0; k < n; k++)
		printf("  %-22s", reqs[k].text);
	putchar('\n');
	for (size_t i = 0; i < m->n; i++) {
		const struct wp_matrix_row *r = &m->rows[i];
		wp_buf_reset(&d);
		wp_target_describe(&r->target, &d);
		printf("%-*s", (int)width, d.data);
		for (size_t k = 0; k < n; k++) {
			char cell[96];
			cell_text(r->rc ? NULL : pick_of(&r->plan, &reqs[k]), cell, sizeof(cell));
			printf("  %-22s", cell);
		}
		putchar('\n');
		if (r->gpu_verdict >= 0)
			printf("  GPU code (files the store holds): %s, %s\n",
			       wp_gpu_verdict_name(r->gpu_verdict), r->gpu_note);
		if (r->rc)
			printf("  nothing: %s\n", r->err.msg);
		else
			for (size_t k = 0; k < n; k++) {
				const struct wp_plan_file *f = pick_of(&r->plan, &reqs[k]);
				if (by_minor_compat(f, &r->target))
					printf("  %s: by NVIDIA's minor-version compatibility\n",
					       f->project);
			}
	}
	wp_buf_free(&d);
}

/* A row per target, each the object `pick --json` prints for it ("targets", "picks", "notes"),
 * with "target" (its one-line description) and "error" (null, or pick's error object). */
static void print_json(const struct wp_matrix *m)
{
	struct wp_json j;
	struct wp_buf d = WP_BUF_INIT;
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_key(&j, "rows");
	wp_json_arr(&j);
	for (size_t i = 0; i < m->n; i++) {
		const struct wp_matrix_row *r = &m->rows[i];
		wp_buf_reset(&d);
		wp_target_describe(&r->target, &d);
		wp_json_obj(&j);
		wp_json_kstr(&j, "target", d.data);
		wp_plan_json_members(&j, &r->plan, &r->target, false);
		/* the worst verdict of the picks' GPU code the store has read, null when none
		 * was */
		wp_json_kstr(&j, "gpu_verdict",
			     r->gpu_verdict >= 0 ? wp_gpu_verdict_name(r->gpu_verdict) : NULL);
		wp_json_kstr(&j, "gpu_note", r->gpu_verdict >= 0 ? r->gpu_note : NULL);
		wp_json_key(&j, "error");
		if (r->rc)
			wp_print_json_error_obj(&j, r->rc, &r->err, &r->plan);
		else
			wp_json_null(&j);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	wp_print_json_out(&j);
	wp_buf_free(&d);
}

/* The conda pick of a spec's package in a row (its name up to the version), or NULL. */
static const struct wp_conda_pick *conda_pick_of(const struct wp_conda_result *res, const char *req)
{
	size_t n = strcspn(req, " =<>!~[");
	for (size_t i = 0; i < res->n; i++)
		if (res->picks[i].target == 0 && strlen(res->picks[i].c->name) == n &&
		    !strncmp(res->picks[i].c->name, req, n))
			return &res->picks[i];
	return NULL;
}

static void print_conda_grid(const struct wp_conda_matrix *m, const struct wp_strlist *reqs)
{
	struct wp_buf d = WP_BUF_INIT;
	size_t width = 6;
	for (size_t i = 0; i < m->n; i++) {
		wp_buf_reset(&d);
		if (m->rows[i].res.n_targets)
			wp_condapick_describe_target(&m->rows[i].res.targets[0], &d);
		if (d.len > width)
			width = d.len;
	}
	printf("%-*s", (int)width, "target");
	for (size_t k = 0; k < reqs->n; k++)
		printf("  %-30s", reqs->v[k]);
	putchar('\n');
	for (size_t i = 0; i < m->n; i++) {
		const struct wp_conda_matrix_row *r = &m->rows[i];
		wp_buf_reset(&d);
		if (r->res.n_targets)
			wp_condapick_describe_target(&r->res.targets[0], &d);
		printf("%-*s", (int)width, d.len ? d.data : "?");
		for (size_t k = 0; k < reqs->n; k++) {
			const struct wp_conda_pick *p = r->rc ? NULL :
								conda_pick_of(&r->res, reqs->v[k]);
			char cell[128];
			snprintf(cell, sizeof(cell), "%s%s%s", p ? p->c->version : "-",
				 p ? " " : "", p ? p->c->build : "");
			printf("  %-30s", cell);
		}
		putchar('\n');
		if (r->rc)
			printf("  nothing: %s\n", r->err.msg);
		else
			for (size_t k = 0; k < reqs->n; k++) {
				const struct wp_conda_pick *p = conda_pick_of(&r->res, reqs->v[k]);
				if (p && p->reason && r->res.n_targets &&
				    by_minor_compat_label(p->variant, &r->res.targets[0]))
					printf("  %s: by NVIDIA's minor-version compatibility\n",
					       p->c->name);
			}
	}
	wp_buf_free(&d);
}

static void print_conda_json(const struct wp_conda_matrix *m)
{
	struct wp_json j;
	struct wp_buf d = WP_BUF_INIT;
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_key(&j, "rows");
	wp_json_arr(&j);
	for (size_t i = 0; i < m->n; i++) {
		const struct wp_conda_matrix_row *r = &m->rows[i];
		wp_buf_reset(&d);
		if (r->res.n_targets)
			wp_condapick_describe_target(&r->res.targets[0], &d);
		wp_json_obj(&j);
		wp_json_kstr(&j, "target", d.len ? d.data : NULL);
		wp_json_key(&j, "picks");
		wp_json_arr(&j);
		for (size_t k = 0; !r->rc && k < r->res.n; k++) {
			const struct wp_conda_pick *p = &r->res.picks[k];
			wp_json_obj(&j);
			wp_json_kstr(&j, "name", p->c->name);
			wp_json_kstr(&j, "version", p->c->version);
			wp_json_kstr(&j, "build", p->c->build);
			wp_json_kstr(&j, "variant", p->variant);
			wp_json_kstr(&j, "subdir", p->c->subdir);
			wp_json_kstr(&j, "url", p->c->url);
			wp_json_kstr(&j, "required_by", p->required_by);
			wp_json_kstr(&j, "reason", p->reason);
			wp_json_obj_end(&j);
		}
		wp_json_arr_end(&j);
		wp_json_key(&j, "error");
		if (r->rc)
			wp_print_json_error_obj(&j, r->rc, &r->err, NULL);
		else
			wp_json_null(&j);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	wp_print_json_out(&j);
	wp_buf_free(&d);
}

static int matrix_conda(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
			struct wp_err *err)
{
	struct wp_conda_job job;
	struct wp_conda_matrix m = { 0 };
	int rc;
	if ((rc = wp_pick_opts_conda_job(cli, o, reqs, NULL, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err)))
		return rc;
	cli->info_as_debug = true; /* the channels it reads are said with -v */
	if (!(rc = wp_conda_matrix_build(&cli->session, &job, &m, err))) {
		if (o->json)
			print_conda_json(&m);
		else
			print_conda_grid(&m, reqs);
	}
	wp_conda_matrix_release(&m);
	return rc;
}

int wp_cmd_matrix(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_pick_opts o = { 0 };
	struct wp_strlist reqs = { 0 };
	struct wp_pick_job job;
	struct wp_matrix m = { 0 };
	int rc;
	if ((rc = wp_opts_parse(wp_matrix_table, &o, argc, argv, &reqs, err)))
		goto out;
	if (wp_pick_opts_is_conda(&o)) {
		rc = matrix_conda(cli, &o, &reqs, err);
		goto out;
	}
	if ((rc = wp_pick_opts_job(cli, &o, &reqs, &job, err)) ||
	    (rc = wp_cli_need_paths(cli, err)))
		goto out;
	job.dry_run = true; /* a matrix downloads nothing (but what --allow-full-downloads allows)
			     */
	if ((rc = wp_matrix_build(&cli->session, &job, &m, err)))
		goto out;
	if (job.offline) {
		struct wp_catalog cat = { 0 };
		struct wp_err ce = WP_ERR_INIT;
		if (wp_catalog_open_as(&cat, cli->session.catalog_path, &wp_cli_asks, &ce) == 0) {
			for (size_t i = 0; i < m.n; i++)
				wp_pick_opts_hint_offline(&job, &cat, &m.rows[i].plan, m.rows[i].rc,
							  &m.rows[i].err);
			wp_catalog_close(&cat);
		}
	}
	if (o.json)
		print_json(&m);
	else
		print_grid(&m, job.reqs.v, reqs.n < job.reqs.n ? reqs.n : job.reqs.n);
out:
	if (rc && o.json)
		wp_print_json_error(rc, err, NULL);
	wp_matrix_release(&m);
	wp_pick_opts_release(&o);
	wp_strlist_release(&reqs);
	return rc;
}
