/* ops/wheel/matrix.c: each target resolved on its own, over one catalog and one crawl. */
#include "ops/wheel/matrix.h"
#include "base/buf.h"
#include "base/mem.h"
#include "cache/gpucodedb.h"
#include "resolver/gpucode.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* What the store read of the row's picks (kept by sha256 in the catalog), on its target's GPUs. */
static void row_gpu(struct wp_pick_run *run, struct wp_matrix_row *r)
{
	const struct wp_target *t = &r->target;
	r->gpu_verdict = -1;
	if (r->rc || t->accel != WP_ACCEL_CUDA || !t->n_gpus)
		return;
	for (size_t i = 0; i < r->plan.n; i++) {
		const struct wp_plan_file *f = &r->plan.files[i];
		char *code = NULL;
		struct wp_err e = WP_ERR_INIT;
		if (!f->sha256 || wp_catalog_gpu_code_get(&run->cat, f->sha256, &code, &e) < 0 ||
		    !code)
			continue;
		for (int g = 0; g < t->n_gpus && *code && strcmp(code, "-"); g++) {
			enum wp_gpu_verdict v;
			struct wp_buf why = WP_BUF_INIT;
			if (wp_gpucode_verdict(code, t->gpu_sm[g],
					       t->cuda_major * 10 + t->cuda_minor, &v, &why,
					       &e) == 0 &&
			    (r->gpu_verdict < 0 || (int)v < r->gpu_verdict)) {
				r->gpu_verdict = (int)v;
				snprintf(r->gpu_note, sizeof(r->gpu_note), "%s on sm_%d%s%s",
					 f->filename, t->gpu_sm[g], why.len ? ": " : "",
					 wp_buf_cstr(&why));
			}
			wp_buf_free(&why);
		}
		free(code);
	}
}

int wp_matrix_build(const struct wp_session *s, const struct wp_pick_job *job, struct wp_matrix *m,
		    struct wp_err *err)
{
	struct wp_pick_run run = { 0 };
	int rc;
	memset(m, 0, sizeof(*m));
	if ((rc = wp_pick_prepare(s, job, &run, err)))
		goto out;
	m->rows = wp_xcalloc(run.n_targets ? run.n_targets : 1, sizeof(*m->rows));
	for (size_t i = 0; i < run.n_targets; i++) {
		struct wp_matrix_row *r = &m->rows[m->n++];
		r->target = run.targets[i];
		r->err = (struct wp_err)WP_ERR_INIT;
		r->rc = wp_pick_resolve(s, job, &run, &run.targets[i], 1, &r->plan, &r->err);
		row_gpu(&run, r);
		/* a row that fails for want of a source or catalog fails for all: that is the
		 * job's */
		if (r->rc && r->rc != -WPE_NOMATCH && r->rc != -WPE_LIMIT &&
		    r->rc != -WPE_UNTRUSTED) {
			rc = wp_fail(err, r->rc, "%s", r->err.msg);
			break;
		}
	}
out:
	wp_pick_run_release(&run);
	return rc;
}

void wp_matrix_release(struct wp_matrix *m)
{
	for (size_t i = 0; i < m->n; i++)
		wp_plan_release(&m->rows[i].plan);
	free(m->rows);
	memset(m, 0, sizeof(*m));
}
