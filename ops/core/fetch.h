/* ops/core/fetch.h: bringing files into the content-addressed store, in parallel, proven: sha256
 * while streaming, then the archive itself (wheel RECORD, conda index.json).
 * Items are the caller's; fetch fills their result fields, and path is then owned by the item
 * (wp_fetch_item_release). */
#ifndef WP_OPS_CORE_FETCH_H
#define WP_OPS_CORE_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "cache/store.h"
#include "net/download.h"

enum wp_fetch_check {
	WP_FETCH_CHECK_NONE = 0,
	WP_FETCH_CHECK_WHEEL, /* zip, RECORD hashes and sizes, safe member names, WHEEL, METADATA */
	WP_FETCH_CHECK_CONDA, /* .tar.bz2 / .conda with info/index.json matching name/version/build
			       */
};

struct wp_fetch_item {
	/* request */
	const char *url;
	const char *filename;        /* as the user knows it (messages, wheel name checks) */
	const char *sha256;          /* from the index, or NULL (then computed and reported) */
	const char *md5; /* checked too when given (old conda records carry md5 alone) */
	long long size;              /* from the index, or -1 */
	enum wp_fetch_check check;
	const char *conda_name, *conda_version, *conda_build;
	/* result */
	int rc;
	struct wp_err err;
	char *path;                  /* the proven object in the store */
	char sha256_out[65];         /* what the bytes hash to */
	bool cached;                 /* it was in the store already: no transfer */
	long long bytes;             /* transferred in this run (a resume: not what was kept) */
	long long resumed;           /* bytes an earlier run had kept of it (cache/store.h: partial
	                                downloads), taken up instead of fetched again */
	long long kept;              /* it failed (not its bytes: the network): bytes kept for the
	                                next run to resume */
	char *gpu_code; /* a wheel checked here: its shared objects' GPU code (verify/wheel.h:
			   "" none; "-" no shared object); NULL when not read (it was stored) */
};

struct wp_fetch_opts {
	bool offline;                /* never touch the network: only what the store has */
	const struct wp_dl_opts *dl;
	const struct wp_net_conf *net; /* the run's network settings, when dl's policy has none */
	wp_dl_progress_fn *progress; /* index is into the items array */
	/* before the transfers: item index goes on from the kept bytes of an earlier run (pctx) */
	void (*resumed)(void *pctx, size_t index, long long kept);
	void *pctx;
};

/* Fetch every item (those already stored cost nothing). Each item gets its own result; returns
 * 0 when all succeeded, else the first failure's code (integrity failures win over others, so
 * the exit code says 4) with err set. A file that fails a check is never left in the store. */
int wp_fetch_files(struct wp_store *st, struct wp_fetch_item *items, size_t n,
		   const struct wp_fetch_opts *opts, struct wp_err *err);
void wp_fetch_item_release(struct wp_fetch_item *it);

#endif
