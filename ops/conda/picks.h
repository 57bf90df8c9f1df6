/* ops/conda/picks.h: one pick of the conda job, as the job makes it (ops/conda/conda.c) and the
 * lock writer reads it (ops/conda/condalocks.c): a record, its channel, why, and for which target.
 * Ownership: the conda result that holds the picks owns the record and channel; the strings are
 * the pick's (wp_conda_result_release frees them). */
#ifndef WP_OPS_CONDA_PICKS_H
#define WP_OPS_CONDA_PICKS_H

#include <stddef.h>

#include "resolver/condapick.h"

struct wp_conda_pick {
	const struct wp_conda_candidate *c;  /* into the result's records */
	const char *channel; /* the channel's base URL (the result's records own it) */
	char *reason, *required_by, *variant;
	size_t target;
};

#endif
