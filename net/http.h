/* net/http.h: fetching index pages and sources over http://, https:// and file:// (one request
 * each). Ownership: a wp_http_req and the strings it points to belong to the caller and are only
 * read. A wp_http_res owns its body and every string in it; wp_http_res_release frees them, after
 * success or failure alike. net/ is the only folder that includes libcurl; callers never see it. */
#ifndef WP_NET_HTTP_H
#define WP_NET_HTTP_H

#include "base/buf.h"
#include "base/err.h"
#include "net/transfer.h"

#include <stdbool.h>
#include <stddef.h>

struct wp_http_req {
	const char *url;            /* http://, https:// or file:// */
	const char *etag;           /* sent as If-None-Match; NULL for none */
	const char *last_modified;  /* sent as If-Modified-Since; NULL for none */
	const char *accept;         /* Accept header; NULL for libcurl's default */
	size_t max_bytes;           /* ceiling on decoded body bytes; 0 = WP_HTTP_MAX_DEFAULT */
	const char *to_path; /* NULL: the body goes to res->body; else into this file, written
			      * as "<to_path>.part" and renamed on success (a 304 or a failure
			      * leaves an existing file alone) */
	size_t spill_after;         /* with to_path: the body stays in res->body up to this many
				     * bytes, and only a larger one goes to the file (res->spilled);
				     * 0: always the file */
	const char *range; /* NULL, or sent as "Range: bytes=<range>": "A-B", "A-" or "-N" (the
			    * last N bytes). The body is then not decoded (no Accept-Encoding).
			    * A server may ignore it and answer 200 with the whole file: see
			    * res->partial. Not sent for file:// URLs, which always read whole. */
	struct wp_net_policy policy;
};

struct wp_http_res {
	long status;                /* last HTTP status; 0 for file:// */
	bool not_modified; /* 304 to a conditional request: body is empty, keep the old copy */
	struct wp_buf body; /* decoded body (empty with to_path, unless it fit spill_after) */
	bool spilled;               /* with to_path: the body is in that file, not in body */
	char *etag;                 /* validators to send next time, or NULL */
	char *last_modified;
	char *content_type;
	char *effective_url;        /* after redirects */
	int tries;                  /* attempts made */
	/* for a request with a range: */
	bool partial;               /* a 206: body holds bytes [range_start, range_start + body.len)
				     * of the file; false: body is the whole file */
	long long range_start;      /* 0 unless partial */
	long long range_total;      /* the file's size from Content-Range; -1 when not told */
};

/* Fetch one URL. res is overwritten (no need to init it) and must be released whatever the
 * result. Returns 0, or -WPE_NET (the message names the URL and the reason: HTTP status, curl's
 * reason, "(3 tries)"), -WPE_TOO_BIG, -WPE_IO (to_path), -WPE_USAGE (a header value with a line
 * break). */
int wp_http_get(const struct wp_http_req *req, struct wp_http_res *res, struct wp_err *err);

/* Fetch n URLs in parallel through one multi handle. res and errs have n entries each (errs
 * may be NULL). Returns 0 when all succeeded, else the code of the first failing request in
 * array order; every res[i] must be released. */
int wp_http_get_many(const struct wp_http_req *reqs, struct wp_http_res *res, size_t n,
		  struct wp_err *errs);

void wp_http_res_release(struct wp_http_res *res);

#endif
