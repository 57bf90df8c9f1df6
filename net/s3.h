/* net/s3.h: a small S3 client over libcurl's own SigV4 signer (CURLOPT_AWS_SIGV4; no SDK): PUT
 * (multipart past WP_S3_MULTIPART_MIN), GET, HEAD, DELETE in parallel on one multi handle, and
 * ListObjectsV2 paged. Works with AWS S3 and S3-compatible stores (Ceph RGW, MinIO), path-style for
 * any endpoint that is not AWS's.
 * Ownership: struct wp_s3 owns its strings (wp_s3_release); the credentials live only in it, in
 * memory, and are never put in a message, a file or a URL. Each struct wp_s3_op is the caller's;
 * the strings it points to are borrowed for the call. A listing owns its keys (wp_s3_list_free). */
#ifndef WP_NET_S3_H
#define WP_NET_S3_H

#include "base/buf.h"
#include "base/err.h"
#include "base/s3xml.h"
#include "net/transfer.h"

#include <stdbool.h>
#include <stddef.h>

#define WP_S3_MULTIPART_MIN ((long long)64 << 20) /* a PUT larger than this goes in parts ... */
#define WP_S3_PART_SIZE ((long long)64 << 20)     /* ... of this size (S3 allows 5 MiB to 5 GiB, 10,000 parts) */
#define WP_S3_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* What the caller read for S3, as AWS's tools take it (cli/ reads the variables; net/ reads none).
 * Strings are borrowed by wp_s3_open, which copies what it keeps; net is borrowed for the handle's
 * life. */
struct wp_s3_conf {
	const char *access_key_id;      /* AWS_ACCESS_KEY_ID; NULL: requests go unsigned */
	const char *secret_access_key;  /* AWS_SECRET_ACCESS_KEY */
	const char *session_token;      /* AWS_SESSION_TOKEN */
	const char *region;             /* AWS_REGION, else AWS_DEFAULT_REGION; NULL: us-east-1 */
	const char *endpoint_url; /* AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL; an open's endpoint
				     wins */
	const char *list_page; /* WHEELPICK_S3_LIST_PAGE: keys a listing page asks for (1 to 1000;
				  tests page small listings); NULL: 1000 */
	const struct wp_net_conf *net; /* the CA bundle, client certificate, trusted hosts and
					  timeout, as the rest of net/ takes them; NULL: libcurl's
					  defaults */
};

struct wp_s3 {
	char *display;     /* "s3://bucket/prefix" for messages */
	char *endpoint; /* "https://s3.us-east-1.amazonaws.com", "http://127.0.0.1:8000": no '/' at
			   the end */
	char *bucket;
	char *prefix;      /* "" or "a/b/" (always ending in '/') */
	char *region;
	bool path_style;   /* ENDPOINT/BUCKET/KEY; else BUCKET.HOST/KEY (AWS) */
	bool anonymous; /* no AWS_ACCESS_KEY_ID: requests go unsigned (a public bucket reads so) */
	char *acl;         /* a canned ACL sent with each PUT ("public-read"), or NULL */
	/* set by the caller after wp_s3_open: the sha256 and/or md5 (hex; either may be NULL) of
	 * path's [off, off + len) (net/ hashes nothing itself). With it, each part of a multipart
	 * upload signs its sha256 (the store checks it), and a multipart upload goes on with an
	 * unfinished one of its key, keeping each part whose size and ETag (an MD5) match its own
	 * bytes. NULL: a PUT in parts fails (-WPE_USAGE): none goes up unchecked. */
	int (*part_hash)(const char *path, long long off, long long len, char *sha256_hex,
			 char *md5_hex, struct wp_err *err);
	const struct wp_net_conf *net; /* the conf's, borrowed: each request's TLS settings and
					  timeout */
	/* set by the caller after wp_s3_open: what reads S3's XML answers (base/s3xml.h; ops/ hands
	 * index/s3xml.c's). NULL: a listing fails (-WPE_USAGE), and an error's code is not read. */
	const struct wp_s3_xml *xml;
	long list_page;    /* keys a listing page asks for; 0: the store's 1000 */
	/* private: never shown */
	char *userpwd;     /* "KEY:SECRET" for libcurl's signer */
	char *token;       /* AWS_SESSION_TOKEN or NULL */
	char *sigv4;       /* "aws:amz:REGION:s3" */
};

/* Parse url ("s3://BUCKET[/PREFIX]") and take the rest from conf (may be NULL) the way AWS tools
 * do: the credentials, the region (us-east-1), the endpoint from endpoint (a --s3-endpoint), else
 * conf's, else AWS's regional one. acl may be NULL. -WPE_USAGE naming what is wrong: a bucket name
 * S3 would refuse, a prefix with "." or ".." segments or control bytes, an endpoint that is not
 * http(s), a key id given without its secret, a list_page out of range. s3 is overwritten;
 * release it whatever the result. */
int wp_s3_open(struct wp_s3 *s3, const char *url, const char *endpoint, const char *acl,
	       const struct wp_s3_conf *conf, struct wp_err *err);
void wp_s3_release(struct wp_s3 *s3);

/* One cheap request (a listing of at most one key under the prefix): the bucket is there and the
 * credentials may list it. -WPE_NET as wp_s3_run ("bucket 'B' does not exist at 'E': create it
 * first", refused credentials); -WPE_SOURCE for an answer that is no listing. */
int wp_s3_reach(const struct wp_s3 *s3, struct wp_err *err);

/* True for "s3://..." in any case. */
bool wp_s3_is_url(const char *s);

/* WP_S3_PUT_ACL: PutObjectAcl, the canned ACL of the struct wp_s3 (--s3-acl) on an object that is
 * there already (no body; a re-run's unchanged objects get the ACL asked for now). */
enum wp_s3_verb { WP_S3_GET = 1, WP_S3_PUT, WP_S3_HEAD, WP_S3_DELETE, WP_S3_PUT_ACL };

struct wp_s3_op {
	enum wp_s3_verb verb;
	const char *key;            /* the whole key, prefix included */
	/* PUT: the body is path's bytes (size of them), or body (size bytes) when path is NULL */
	const char *path; /* GET: written to "<path>.part", then renamed; NULL: into out */
	const void *body;
	long long size;             /* PUT: the body's length; GET: a ceiling (-1: none) */
	const char *content_type;   /* PUT */
	const char *sha256; /* PUT: the body's sha256 (hex): signed, so the store checks it, and
			       kept as x-amz-meta-sha256. Required: a PUT without one fails
			       (-WPE_USAGE) and sends nothing, so that no byte goes up unchecked */
	bool may_miss;              /* GET/HEAD/DELETE: a missing key is no failure (missing set) */
	struct wp_buf *out;         /* GET with path NULL: the body (a ceiling in out->max) */
	/* the result */
	int result; /* 0 or -WPE_* (the op's message went to the err given to the run) */
	long status;
	bool missing;
	long long length;           /* HEAD/GET: the object's size */
	char meta_sha256[65];       /* HEAD/GET: x-amz-meta-sha256, "" when none */
	char etag[80];              /* HEAD/GET/PUT: the ETag, quotes removed */
	int parts, parts_kept; /* PUT in parts: how many, and how many an unfinished upload held */
	long long kept_bytes;       /* ... the bytes of those, not sent again */
};

/* The unfinished multipart uploads of keys starting with prefix (ListMultipartUploads, paged).
 * -WPE_NET as wp_s3_run; -WPE_SOURCE for an answer that is no such listing. */
int wp_s3_list_uploads(const struct wp_s3 *s3, const char *prefix, struct wp_s3_uploads *out,
		       struct wp_err *err);
void wp_s3_uploads_free(struct wp_s3_uploads *u);
/* AbortMultipartUpload: its parts go; an upload already gone is no failure. */
int wp_s3_abort_upload(const struct wp_s3 *s3, const char *key, const char *id, struct wp_err *err);
/* Called once per op as it ends (from the thread that called wp_s3_run); may be NULL. */
typedef void wp_s3_done_fn(void *ctx, const struct wp_s3_op *op);

/* Run every op, at most parallel at once (0: 16), retrying what S3 says may be retried (5xx,
 * SlowDown, a dropped connection) three times in all. A request that sends or receives nothing
 * for 60 s (the net conf's timeout when set) fails. A PUT past WP_S3_MULTIPART_MIN goes as a
 * multipart upload whose parts run in parallel; a failed one is aborted. Returns 0 when all
 * succeeded, else the code of the first failure in array order, its message in err: -WPE_NET for
 * the network and for refused credentials (the message names the endpoint's reason:
 * "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", and what to check), -WPE_IO for a
 * local file, -WPE_TOO_BIG past a GET's ceiling, -WPE_USAGE for a key S3 cannot take. */
int wp_s3_run(const struct wp_s3 *s3, struct wp_s3_op *ops, size_t n, int parallel,
	      wp_s3_done_fn *done, void *ctx, struct wp_err *err);

/* Every object whose key starts with prefix (ListObjectsV2, 1000 a page, paged with the
 * continuation token; the conf's list_page asks for fewer a page, for tests), sorted by key.
 * -WPE_NET as wp_s3_run; -WPE_SOURCE for an answer that is no listing; -WPE_TOO_BIG past
 * WP_S3_LIST_MAX_KEYS. */
int wp_s3_list(const struct wp_s3 *s3, const char *prefix, struct wp_s3_listing *out,
	       struct wp_err *err);
/* The object of that key, or NULL (binary search; the listing is sorted). */
const struct wp_s3_object *wp_s3_listing_find(const struct wp_s3_listing *l, const char *key);
void wp_s3_listing_free(struct wp_s3_listing *l);

#endif
