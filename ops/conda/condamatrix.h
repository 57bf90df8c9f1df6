/* ops/conda/condamatrix.h: `matrix --conda`: each target's conda pick on its own (as
 * ops/wheel/matrix.h does for wheels), so that a target no channel serves does not hide the others.
 * A wp_conda_matrix owns its rows, and each row its result (wp_conda_matrix_release). */
#ifndef WP_OPS_CONDA_CONDAMATRIX_H
#define WP_OPS_CONDA_CONDAMATRIX_H

#include <stddef.h>

#include "base/err.h"
#include "ops/conda/conda.h"

struct wp_conda_matrix_row {
	struct wp_conda_result res; /* its picks (target 0) and its target */
	int rc;                     /* 0, or why it gets nothing (-WPE_NOMATCH, -WPE_LIMIT) */
	struct wp_err err;
};

struct wp_conda_matrix {
	struct wp_conda_matrix_row *rows;
	size_t n;
};

/* One row per target job->targets names (the product of its values, each driver and profile
 * beside them), each resolved as a dry run of its own. 0 when every target was resolved or found
 * unservable (each row says which); a failure common to all (usage, catalog, channels) is
 * returned. */
int wp_conda_matrix_build(const struct wp_session *s, const struct wp_conda_job *job,
			  struct wp_conda_matrix *m, struct wp_err *err);
void wp_conda_matrix_release(struct wp_conda_matrix *m);

#endif
