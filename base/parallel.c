/* base/parallel.c: wp_parallel_for: an atomic counter hands out items; the first error wins. */
#include "base/parallel.h"
#include "base/os/os.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define MAX_THREADS 32

struct run {
	size_t n;
	wp_each_fn *fn;
	void *ctx;
	atomic_size_t next;
	atomic_bool failed;
	pthread_mutex_t mu;
	int rc;
	struct wp_err err;
};

static void *worker(void *arg)
{
	struct run *r = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&r->next, 1);
		if (i >= r->n || atomic_load(&r->failed))
			break;
		struct wp_err e = WP_ERR_INIT;
		int rc = r->fn(r->ctx, i, &e);
		if (rc < 0) {
			pthread_mutex_lock(&r->mu);
			if (!r->rc) {
				r->rc = rc;
				r->err = e;
			}
			pthread_mutex_unlock(&r->mu);
			atomic_store(&r->failed, true);
		}
	}
	return NULL;
}

int wp_parallel_for(size_t n, size_t max_threads, wp_each_fn *fn, void *ctx, struct wp_err *err)
{
	struct run r = { .n = n, .fn = fn, .ctx = ctx };
	if (!max_threads) {
		max_threads = (size_t)wp_os_ncpu();
	}
	if (max_threads > MAX_THREADS)
		max_threads = MAX_THREADS;
	if (max_threads > n)
		max_threads = n ? n : 1;
	pthread_mutex_init(&r.mu, NULL);
	pthread_t th[MAX_THREADS];
	size_t started = 0;
	/* a thread that cannot be made is no failure: fewer hands do the same work */
	for (size_t i = 1; i < max_threads; i++)
		if (pthread_create(&th[started], NULL, worker, &r) == 0)
			started++;
	worker(&r);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&r.mu);
	if (r.rc)
		return wp_fail(err, r.rc, "%s", r.err.msg);
	return 0;
}
