/* ops/wheel/matrix.c: each target resolved on its own, over one catalog and one crawl. */
#include "ops/wheel/matrix.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

int wp_matrix_build(const struct wp_session *s, const struct wp_pick_job *job, struct wp_matrix *m, struct wp_err *err)
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
		/* a row that fails for want of a source or catalog fails for all: that is the job's */
		if (r->rc && r->rc != -WPE_NOMATCH && r->rc != -WPE_LIMIT && r->rc != -WPE_UNTRUSTED) {
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
