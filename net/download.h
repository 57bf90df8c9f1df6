/* net/download.h: downloading files in parallel, with retries and resume, into caller-owned sinks.
 * Ownership: the caller owns the items, their urls and ctx; wp_download_run fills only the result
 * fields (result, err, received, status, tries) and keeps nothing after it returns. Bytes are
 * streamed to the caller's write callback as they arrive; hashing and storing are the caller's. */
#ifndef WP_NET_DOWNLOAD_H
#define WP_NET_DOWNLOAD_H

#include "base/err.h"
#include "net/http.h"
#include "net/transfer.h"

#include <stddef.h>

struct wp_download {
	/* the request */
	const char *url;
	long long expect_size;      /* -1 unknown; else any other size is -WPE_INTEGRITY */
	wp_dl_write_fn *write;
	wp_dl_reset_fn *reset;      /* NULL: a server that ignores Range cannot be recovered from */
	wp_dl_validated_fn *validated; /* may be NULL */
	void *ctx;
	long long start;            /* bytes the sink already holds from an earlier run: the first
	                               request asks for the rest (Range); a server that answers with
	                               the whole file starts the sink over (reset to 0) */
	const char *if_range; /* with start: the validator those bytes came under (a strong ETag
				 or a Last-Modified date), sent as If-Range; NULL: Range alone */
	/* the result */
	int result;                 /* 0 or -WPE_* */
	struct wp_err err;
	long long received;         /* bytes now in the sink */
	long status;                /* last HTTP status (0 for file://) */
	int tries;
};

struct wp_dl_opts {
	int max_parallel;           /* transfers at once; 0 = WP_DL_PARALLEL */
	int max_per_host;           /* connections per host; 0 = WP_DL_PER_HOST */
	struct wp_net_policy policy;
	wp_dl_ended_fn *ended;      /* may be NULL */
	void *ectx;
};

/* Run all downloads, up to max_parallel at a time, sharing connections (HTTP/2 multiplexing
 * where offered). opts and progress may be NULL. Returns 0 when every item succeeded, else the
 * result of the first failing item in array order; each item says its own result. */
int wp_download_run(struct wp_download *items, size_t n, const struct wp_dl_opts *opts,
		    wp_dl_progress_fn *progress, void *pctx);

/* The sizes of n files as their servers announce them, for a plan's total before its download:
 * one HEAD request each (a file:// URL: its size on disk), in parallel under opts' bounds, with
 * the credentials and TLS settings a download has. sizes[i] gets the Content-Length, or -1 when
 * the server refuses HEAD (405, 501), gives no length, or cannot be reached: never an error. One
 * try each, with short timeouts. A size got this way is a server's word to show the user; it is
 * never the size a download is held to (expect_size). */
void wp_download_probe_sizes(const char *const *urls, size_t n, long long *sizes,
			     const struct wp_dl_opts *opts);

#endif
