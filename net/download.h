/* net/download.h: downloading files in parallel, with retries and resume, into caller-owned sinks.
 * Ownership: the caller owns the items, their urls and ctx; wp_download_run fills only the result
 * fields (result, err, received, status, tries) and keeps nothing after it returns. Bytes are
 * streamed to the caller's write callback as they arrive; hashing and storing are the caller's. */
#ifndef WP_NET_DOWNLOAD_H
#define WP_NET_DOWNLOAD_H

#include "base/err.h"
#include "net/http.h"

#include <stddef.h>

/* Append n bytes to the sink. 0, or -WPE_* with details in err (it stops this download). */
typedef int wp_dl_write_fn(void *ctx, const void *p, size_t n, struct wp_err *err);
/* Drop everything past offset (only 0 is asked for today) so writing continues there. */
typedef int wp_dl_reset_fn(void *ctx, long long offset, struct wp_err *err);
/* The bytes from offset 0 on come, from now, under this validator (a strong ETag or a Last-Modified
 * date; NULL: none): called before the first of them reaches write, so that a sink that keeps its
 * bytes across runs can keep it beside them, written first. */
typedef void wp_dl_validated_fn(void *ctx, const char *validator);
/* Called at most every WP_DL_PROGRESS_MS per download, and once when each one ends.
 * total is -1 while unknown. */
typedef void wp_dl_progress_fn(void *pctx, size_t index, long long received, long long total);
/* Called when a download ends (result 0 or -WPE_*) while others may still run, so the caller can
 * start on it (checking, storing) without waiting for the slowest; at most once per download,
 * and not at all for some that fail before the run starts. It runs on the transferring thread:
 * hand long work elsewhere, and check every result once the run returns. */
typedef void wp_dl_ended_fn(void *ectx, size_t index, int result);

/* Hosts that cap each response's speed (CDNs do) reward parallel transfers; 8 connections to one
 * HTTP/1.1 host is what download managers use by default, and HTTP/2 multiplexes them onto one.
 * (uv allows 50 at once, curl --parallel 50, browsers 6 per host.) */
#define WP_DL_PARALLEL     16
#define WP_DL_PER_HOST     8
#define WP_DL_PROGRESS_MS  200

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
	const char *if_range;       /* with start: the validator those bytes came under (a strong ETag
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
void wp_download_probe_sizes(const char *const *urls, size_t n, long long *sizes, const struct wp_dl_opts *opts);

#endif
