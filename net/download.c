/* net/download.c: parallel file downloads, resumed with Range requests, streamed to the caller. */
#include "net/download.h"

#include "base/mem.h"
#include "net/xfer.h"

#include <stdlib.h>

int wp_download_run(struct wp_download *items, size_t n, const struct wp_dl_opts *opts,
		    wp_dl_progress_fn *progress, void *pctx)
{
	struct wp_xfer *xs = wp_xcalloc(n ? n : 1, sizeof(*xs));
	struct wp_xfer_opts xo = { .progress = progress, .pctx = pctx };
	struct wp_net_policy policy = { 0 };
	int rc = 0;

	if (opts) {
		xo.max_parallel = opts->max_parallel;
		xo.max_per_host = opts->max_per_host;
		xo.ended = opts->ended;
		xo.ectx = opts->ectx;
		policy = opts->policy;
	}
	for (size_t i = 0; i < n; i++) {
		struct wp_download *d = &items[i];
		struct wp_xfer *x = &xs[i];

		wp_err_clear(&d->err);
		x->url = d->url;
		x->verb = "download";
		/* wheels are already compressed, and a Range is only meaningful over the raw
		 * bytes */
		x->decode = false;
		x->resume = true;
		x->start = d->start;
		x->if_range = d->if_range;
		x->max_bytes = -1;
		x->expect_size = d->expect_size >= 0 ? d->expect_size : -1;
		x->policy = policy;
		x->write = d->write;
		x->reset = d->reset;
		x->validated = d->validated;
		x->ctx = d->ctx;
		x->err = &d->err;
	}

	rc = wp_xfer_run(xs, n, &xo);

	for (size_t i = 0; i < n; i++) {
		items[i].result = xs[i].result;
		items[i].received = xs[i].received;
		items[i].status = xs[i].status;
		items[i].tries = xs[i].tries;
		wp_xfer_release(&xs[i]);
	}
	free(xs);
	return rc;
}

/* A HEAD has no body; a transfer wants somewhere to put one. */
static int no_body(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	(void)ctx, (void)p, (void)n;
	return wp_fail(err, -WPE_NET, "a HEAD answer came with a body");
}

/* A probe gives up quickly: it only improves what the plan says. */
#define PROBE_TIMEOUT_S 5L

void wp_download_probe_sizes(const char *const *urls, size_t n, long long *sizes,
			     const struct wp_dl_opts *opts)
{
	struct wp_xfer *xs = wp_xcalloc(n ? n : 1, sizeof(*xs));
	struct wp_err *errs = wp_xcalloc(n ? n : 1, sizeof(*errs));
	struct wp_xfer_opts xo = { 0 };
	struct wp_net_policy policy = { 0 };

	if (opts) {
		xo.max_parallel = opts->max_parallel;
		xo.max_per_host = opts->max_per_host;
		policy = opts->policy;
	}
	policy.max_tries = 1;
	if (policy.connect_timeout_s <= 0 || policy.connect_timeout_s > PROBE_TIMEOUT_S)
		policy.connect_timeout_s = PROBE_TIMEOUT_S;
	if (policy.low_speed_time_s <= 0 || policy.low_speed_time_s > PROBE_TIMEOUT_S)
		policy.low_speed_time_s = PROBE_TIMEOUT_S;
	for (size_t i = 0; i < n; i++) {
		struct wp_xfer *x = &xs[i];
		x->url = urls[i];
		x->verb = "probe";
		x->head = true;
		x->max_bytes = -1;
		x->expect_size = -1;
		x->policy = policy;
		x->write = no_body;
		x->err = &errs[i];
	}
	wp_xfer_run(xs, n, &xo);
	for (size_t i = 0; i < n; i++) {
		sizes[i] = xs[i].result == 0 && xs[i].total >= 0 ? xs[i].total : -1;
		wp_xfer_release(&xs[i]);
	}
	free(errs);
	free(xs);
}
