/* net/transfer.h: what one transfer is told, shared by the requests (net/http.h, net/download.h)
 * and the engine under them (net/xfer.h): how hard to try (the defaults and struct wp_net_policy)
 * and the callbacks a download's bytes and progress go to. */
#ifndef WP_NET_TRANSFER_H
#define WP_NET_TRANSFER_H

#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>

#ifndef WP_VERSION
#define WP_VERSION "0.1.0"
#endif
#define WP_NET_USER_AGENT "wheelpick/" WP_VERSION

/* Defaults; a zero field in struct wp_net_policy takes these. The run's struct wp_net_conf (below)
 * may replace both timeouts for fields left at zero (and so scale the overall deadline and cap
 * Retry-After), and the first backoff. */
#define WP_NET_CONNECT_TIMEOUT_S 15L
#define WP_NET_LOW_SPEED_TIME_S  30L   /* abort when slower than ... */
#define WP_NET_LOW_SPEED_BYTES   1L    /* ... this many bytes per second for that long */
/* The overall deadline of one transfer, its retries and waits included: after a grace of this many
 * stall times (300 s by default), it must have averaged WP_NET_MIN_RATE bytes a second, or it is
 * given up. A server that drips a byte a second stays above the stall limit for ever; this
 * ends it. (A 2.5 GB wheel at 8 KiB/s would take 3.5 days: such a link fails here.) */
#define WP_NET_DEADLINE_GRACE    10L
#define WP_NET_MIN_RATE          8192L
/* A Retry-After longer than this (or than the configured timeout, if smaller) is cut to it, and a
 * failure says what the server asked for. */
#define WP_NET_RETRY_AFTER_CAP_S 30L
#define WP_NET_TRIES             3
#define WP_NET_RETRY_BASE_MS     200L
#define WP_NET_RETRY_CAP_MS      10000L /* no backoff is longer (nor a configured first one) */
#define WP_NET_MAX_REDIRECTS     10L
#define WP_HTTP_MAX_DEFAULT     ((size_t)64 << 20)

struct wp_net_creds;

/* What the user configured for every transfer of the run: built once by cli/ from the command line,
 * pip's and uv's configuration and the environment (net/ reads no variable), and handed down with
 * each request (struct wp_net_policy's conf) and each S3 handle. NULL, or a zero field: net/'s
 * defaults. Ownership: the caller's, borrowed while the transfers run. Transfers run together
 * (one wp_http_get_many, one wp_download_run) share the first one's conf. */
struct wp_net_conf {
	long timeout_s; /* 1 to 86400: replaces the connect and stall limits; 0: the defaults */
	long retry_base_ms; /* the first backoff, with retry_base_set; else WP_NET_RETRY_BASE_MS */
	bool retry_base_set;
	const char *ca_file; /* PEM certificates that replace the system's; NULL: the system's */
	const char *ca_origin; /* where ca_file came from ("--cert", "PIP_CERT",
				  "WHEELPICK_CA_BUNDLE"), named when it cannot be read; NULL: it is
				  not checked first */
	const char *ca_advice;      /* how the user gives a private CA, said when a certificate is
	                               refused; NULL: net/'s plain words */
	const char *client_cert;    /* PEM, key included, for an https server that asks for one */
	const char *netrc;          /* the netrc file libcurl reads; NULL: ~/.netrc */
	const struct wp_net_creds *creds; /* user and password by origin (net/auth.h); NULL: none */
	const char *const *trusted_hosts; /* "host" or "host:port" whose certificate is not checked
					   */
	size_t n_trusted_hosts;
	/* a setting that was garbage where it was read (e.g. "WHEELPICK_TIMEOUT='5m' is not a whole
	 * number ..."): every transfer fails with -WPE_USAGE and these words; "" or NULL: none */
	const char *bad;
};

/* How hard to try one transfer. Zero means the default above. */
struct wp_net_policy {
	const struct wp_net_conf *conf; /* the run's settings; NULL: none configured */
	long connect_timeout_s;
	long low_speed_time_s;
	long low_speed_bytes;
	int max_tries;          /* attempts in all, the first one included */
	long deadline_grace_s;  /* 0: WP_NET_DEADLINE_GRACE stall times */
	long min_rate;          /* bytes/s averaged past the grace; 0: WP_NET_MIN_RATE */
};

/* Append n bytes to the sink. 0, or -WPE_* with details in err (it stops this download). */
typedef int wp_dl_write_fn(void *ctx, const void *p, size_t n, struct wp_err *err);
/* Drop everything past offset (only 0 is asked for today) so writing continues there. */
typedef int wp_dl_reset_fn(void *ctx, long long offset, struct wp_err *err);
/* The bytes from offset 0 on come, from now, under this validator (a strong ETag or a Last-Modified
 * date; NULL: none): called before the first of them reaches write, so that a sink that keeps its
 * bytes across runs can keep it beside them, written first. total: the size the answer announces
 * for the whole file (-1 unknown), so that a sink can tell a file too small to keep one for. */
typedef void wp_dl_validated_fn(void *ctx, const char *validator, long long total);
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

#endif
