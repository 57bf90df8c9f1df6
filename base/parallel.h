/* base/parallel.h: run one function over n items on every CPU, the first failure winning.
 * Ownership: nothing is kept; ctx is the caller's, shared by the threads (fn must only touch
 * item i's part of it, or lock). */
#ifndef WP_PARALLEL_H
#define WP_PARALLEL_H

#include <stddef.h>

#include "base/err.h"

/* Work on item i; < 0 with err set on a failure. */
typedef int wp_each_fn(void *ctx, size_t i, struct wp_err *err);

/* fn for every i < n, items handed out in order to up to max_threads threads (the caller's
 * included; 0: one per CPU, at most 32). After a failure no new item is started; the failure
 * first recorded is returned, with its message in err. */
int wp_parallel_for(size_t n, size_t max_threads, wp_each_fn *fn, void *ctx, struct wp_err *err);

#endif
