/* net/xfer.h: the transfer engine under wp_http_get and wp_download_run; internal to net/.
 * Ownership: the caller owns each struct wp_xfer and what its request fields point to. The engine
 * fills the result fields; the strings it leaves there (etag, last_modified, content_type,
 * effective_url) are the caller's to take or to free with wp_xfer_release. */
#ifndef WP_NET_XFER_H
#define WP_NET_XFER_H

#include "base/err.h"
#include "net/transfer.h"

#include <stdbool.h>
#include <stddef.h>

struct wp_xfer {
	/* the request */
	const char *url;
	const char *verb;               /* "fetch" or "download", for messages */
	const char *if_none_match;
	const char *if_modified_since;
	const char *accept;
	bool decode;                    /* send Accept-Encoding and decode what comes back */
	bool resume;                    /* continue a dropped body with a Range request */
	bool head; /* a HEAD request: no body; total gets the announced
		      Content-Length (-1 when none); not with resume or range */
	const char *if_range; /* with resume and start > 0: the validator (a strong ETag or a
				 Last-Modified date) the bytes already held came under, sent as
				 If-Range; a 200 then means the file changed: start over */
	long long start; /* with resume: bytes the sink already holds (an earlier run's
			    partial file); the first request asks for the rest */
	const char *range;              /* CURLOPT_RANGE for a partial request ("A-B", "A-", "-N");
					 * NULL for none; not with resume; ignored for file:// */
	long long max_bytes;            /* ceiling on decoded body bytes; -1 for none */
	long long expect_size;          /* -1 unknown */
	struct wp_net_policy policy;
	wp_dl_write_fn *write;
	wp_dl_reset_fn *reset;
	wp_dl_validated_fn *validated;  /* may be NULL */
	void *ctx;
	struct wp_err *err;             /* may be NULL */
	/* the result */
	int result;
	long status;
	bool not_modified;
	long long received;
	long long total;                /* -1 unknown; for a 206 to range, the length of the part */
	long long range_start; /* a 206 to range: where the part starts in the file; else 0 */
	long long range_total; /* a 206 to range: the file's size (Content-Range); else -1 */
	int tries;
	char *etag, *last_modified, *content_type, *effective_url;
	/* the validator of the bytes now in the sink (what If-Range would send to resume them: a
	 * strong ETag, else a Last-Modified date), set even when the transfer failed; NULL when the
	 * answer that delivered them had none. The caller's to take or free (wp_xfer_release). */
	char *validator;
};

struct wp_xfer_opts {
	int max_parallel;
	int max_per_host;
	wp_dl_progress_fn *progress;    /* may be NULL */
	void *pctx;
	wp_dl_ended_fn *ended;          /* may be NULL */
	void *ectx;
};

/* Run every transfer to its end. Returns 0, or the result of the first failed one in order. */
int wp_xfer_run(struct wp_xfer *xs, size_t n, const struct wp_xfer_opts *opts);

void wp_xfer_release(struct wp_xfer *x);

/* libcurl's global start, once per process for every user in net/ (xfer.c, s3.c): its CURLcode. */
int wp_xfer_curl_start(void);
/* A monotonic clock in milliseconds, for retry delays and deadlines. */
long long wp_xfer_now_ms(void);

#endif
