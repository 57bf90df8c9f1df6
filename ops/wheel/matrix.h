/* ops/wheel/matrix.h: what each target would get, for planning a migration (CUDA 11.2 -> 11.8
 * -> 12.4): every target resolved on its own, so that one that cannot be served does not hide the
 * others. A wp_matrix owns its rows (wp_matrix_release). */
#ifndef WP_OPS_WHEEL_MATRIX_H
#define WP_OPS_WHEEL_MATRIX_H

#include <stddef.h>

#include "base/err.h"
#include "ops/core/session.h"
#include "ops/wheel/pick.h"

struct wp_matrix_row {
	struct wp_target target;
	struct wp_plan plan;    /* the picks for it (empty when it fails) */
	int rc;                 /* 0, or why it gets nothing (-WPE_NOMATCH, -WPE_NET ...) */
	struct wp_err err;
	/* the GPU code of its picks that the store has read (pick, verify): the worst verdict on
	 * the target's GPUs (enum wp_gpu_verdict; -1: none of them read, or no GPU to judge on),
	 * and for that worst one "FILE on sm_XY: why" */
	int gpu_verdict;
	char gpu_note[512];
};

struct wp_matrix {
	struct wp_matrix_row *rows;
	size_t n;
};

/* One row per target of the job. Returns 0 when every target was resolved or found unservable
 * (each row says which); a failure common to all (usage, catalog, sources) is returned. */
int wp_matrix_build(const struct wp_session *s, const struct wp_pick_job *job, struct wp_matrix *m,
		    struct wp_err *err);
void wp_matrix_release(struct wp_matrix *m);

#endif
