/* net/xfer.c: the one place that drives libcurl: a multi handle, retries with backoff, resume. */
#include "net/xfer.h"

#include "base/mem.h"
#include "base/str.h"
#include "net/auth.h"
#include "base/os/os.h"

#include <curl/curl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define RETRY_CAP_MS        ((long long)WP_NET_RETRY_CAP_MS)
/* A resume that brought new bytes does not use up a try (a flaky link can still finish a 2 GB
 * wheel), but only this many times, so a server that always drops still ends. */
#define FREE_RESUMES        8
#define POLL_MAX_MS         1000
/* A connect that has not finished in this many times the slowest connect to its host seen in the
 * run (and at least REDIAL_FLOOR_MS) is dialled again, at most REDIALS times: a SYN that a full
 * listen queue dropped (python3 -m http.server listens with a backlog of 5, and closes each
 * connection after one answer) is otherwise sent again by the kernel only after a second. */
#define REDIAL_FACTOR       4
#define REDIAL_FLOOR_MS     25
#define REDIALS             8
#define MAX_DIAL_HOSTS      32
#define REDIRECT_BODY_MAX   (1LL << 20)

#ifdef CURL_WRITEFUNC_ERROR
#define WRITE_ABORT ((size_t)CURL_WRITEFUNC_ERROR)
#else
#define WRITE_ABORT ((size_t)0)
#endif

enum state { ST_WAIT, ST_RUN, ST_DONE };

/* What the callbacks decided about the attempt in flight. */
enum verdict {
	V_NONE,     /* nothing yet: the curl result and the status decide */
	V_FAIL,     /* final; the error is recorded */
	V_HTTP,     /* an HTTP error status: its body is not stored, the status decides */
	V_RESTART,  /* a range answer we cannot use: start over from byte 0 */
	V_COMPLETE, /* 416 to a resume at the very end: every byte is already here */
	V_REDIRECT, /* a 3xx with a Location: the next request goes there */
};

struct slot {
	struct wp_xfer *x;
	size_t index;
	CURL *easy;
	struct curl_slist *hdrs;
	enum state state;
	long long not_before;       /* monotonic ms; a retry waits until then */
	long long offset;           /* where this attempt's body starts */
	long long attempt_start;    /* x->received when the attempt began */
	int spent;                  /* attempts that count against max_tries */
	int free_resumes;
	bool head_seen;
	bool sent_auth;             /* credentials kept for the URL's origin went with it */
	enum verdict verdict;
	int fail_code;
	/* the response being received; cleared at each status line so that redirects and
	 * interim responses do not leak their headers into the final one */
	long status;
	long long clen, cr_start, cr_end, cr_total;
	bool cr_star;
	long long retry_after_s;
	char *etag, *last_modified, *content_type;
	char *validator;            /* of the bytes in the sink: sent as If-Range to resume them */
	long long progress_sent;
	long long progress_at;
	long long started_ms; /* when the first attempt began (0: not yet): the deadline runs from
				 it */
	long long asked_wait_s; /* the longest Retry-After the server sent, to say when it was cut
				 */
	/* redirects are followed here, not by libcurl, so that each hop gets its own TLS settings
	 * and credentials (a --trusted-host is trusted for itself, not for where it points) */
	char *hop_url;              /* the URL of this hop; NULL: x->url */
	int hops;
	long long redirect_body;    /* bytes of a 3xx's body, dropped */
	bool free_start;            /* the next start is a hop or a redial: no try is spent */
	/* the connect of this attempt: when its socket opened (0: none opened yet), and whether it
	 * finished (its time is then counted for its host) */
	long long dial_at;
	bool dialed;
	int redials;
	char why[256];              /* the last transient failure, for the final message */
	char range[48];
	char errbuf[CURL_ERROR_SIZE];
};

struct run {
	struct slot *slots;
	size_t n;
	CURLM *multi;
	const struct wp_xfer_opts *opts;
	long env_timeout_s;
	long long retry_base_ms;
	long long retry_after_cap_s;
	const char *ca_bundle;
	char env_error[320]; /* the conf's bad setting (garbage where it was read): every transfer
				fails */
	char ca_error[320]; /* the conf's CA bundle is no readable file: https transfers fail */
	/* the slowest connect seen to each host in this run, in microseconds */
	struct dial_host {
		char host[264];
		long long worst_us;
	} dials[MAX_DIAL_HOSTS];
	size_t n_dials;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int wp_xfer_curl_start(void)
{
	pthread_once(&curl_once, curl_init);
	return (int)curl_init_rc;
}

long long wp_xfer_now_ms(void)
{
	return (long long)(wp_os_monotonic_ns() / 1000000);
}

static long long now_ms(void)
{
	return wp_xfer_now_ms();
}

/* The run's CA bundle, checked before libcurl's vague "error setting certificate file" when the
 * caller named where it came from: an unreadable one fails each https transfer (bad). */
static const char *conf_ca_file(const struct wp_net_conf *c, char *bad, size_t badsz)
{
	const char *given = c ? c->ca_file : NULL;
	if (!given || !*given)
		return NULL;
	struct wp_os_stat sb;
	if (c->ca_origin && (wp_os_stat(given, &sb) < 0 || !WP_S_ISREG(sb.st_mode) ||
			     wp_os_access(given, WP_R_OK) < 0))
		snprintf(bad, badsz,
			 "the CA bundle '%.200s' (%s) is not a readable file of PEM certificates",
			 given, c->ca_origin);
	return given;
}

static bool is_https(const char *url)
{
	return strncasecmp(url, "https://", 8) == 0;
}

/* Whether url's host is an IP address and the TLS library is Schannel, which in libcurl 7.88
 * matches a certificate's DNS names only (its IP address entries never match). */
static bool schannel_ip(const char *url)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
	if (!v || !v->ssl_version || !strstr(v->ssl_version, "Schannel"))
		return false;
	char hp[512];
	wp_net_url_host(url, hp, sizeof(hp));
	if (hp[0] == '[')
		return true;
	size_t n = strcspn(hp, ":");
	return n && strspn(hp, "0123456789.") == n;
}

/* The URL this attempt asks: the hop a redirect led to, else the request's. */
static const char *url_now(const struct slot *s)
{
	return s->hop_url ? s->hop_url : s->x->url;
}

static bool is_redirect(long st)
{
	return st == 301 || st == 302 || st == 303 || st == 307 || st == 308;
}

static void set_str(char **dst, struct wp_str v)
{
	free(*dst);
	*dst = wp_xstrndup(v.p, v.n);
}

static void clear_response(struct slot *s)
{
	s->status = 0;
	s->clen = -1;
	s->cr_start = -1;
	s->cr_end = -1;
	s->cr_total = -1;
	s->cr_star = false;
	s->retry_after_s = -1;
	free(s->etag);
	free(s->last_modified);
	free(s->content_type);
	s->etag = s->last_modified = s->content_type = NULL;
}

/* What If-Range may carry for the answer now received: a strong ETag (a weak one never matches
 * there, RFC 9110 13.1.5), else its Last-Modified date; NULL for none. */
static const char *answer_validator(const struct slot *s)
{
	if (s->etag && s->etag[0] == '"')
		return s->etag;
	return s->last_modified;
}

/* The bytes in the sink now came under the answer just received. */
static void take_validator(struct slot *s)
{
	const char *v = answer_validator(s);
	free(s->validator);
	s->validator = v ? wp_xstrdup(v) : NULL;
	if (s->x->validated)
		s->x->validated(s->x->ctx, s->validator, s->x->total);
}

/* "bytes 100-199/1000" or "bytes *\/1000" (an unsatisfiable range) */
static void parse_content_range(struct slot *s, struct wp_str v)
{
	long long t;
	struct wp_str unit = wp_str_cut(&v, ' ');
	if (!wp_str_ieq(unit, "bytes"))
		return;
	struct wp_str range = wp_str_trim(wp_str_cut(&v, '/'));
	if (wp_str_to_ll(wp_str_trim(v), &t))
		s->cr_total = t;
	if (wp_str_eq(range, "*")) {
		s->cr_star = true;
		return;
	}
	if (wp_str_to_ll(wp_str_cut(&range, '-'), &t))
		s->cr_start = t;
	if (wp_str_to_ll(range, &t))
		s->cr_end = t;
}

/* Seconds, or an HTTP date. */
static void parse_retry_after(struct slot *s, struct wp_str v)
{
	long long t;
	if (wp_str_to_ll(v, &t)) {
		s->retry_after_s = t;
		return;
	}
	char date[128];
	if (v.n >= sizeof(date))
		return;
	memcpy(date, v.p, v.n);
	date[v.n] = 0;
	time_t when = curl_getdate(date, NULL);
	if (when != -1) {
		time_t now = time(NULL);
		s->retry_after_s = when > now ? (long long)(when - now) : 0;
	}
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	struct slot *s = ud;
	size_t len = size * nmemb;
	struct wp_str line = wp_str_trim(WP_STRN(p, len));
	long long v;

	if (wp_str_startswith(line, "HTTP/")) {
		clear_response(s);
		wp_str_cut(&line, ' ');
		if (wp_str_to_ll(wp_str_cut(&line, ' '), &v) && v < 1000)
			s->status = (long)v;
		return len;
	}
	struct wp_str name = wp_str_trim(wp_str_cut(&line, ':'));
	struct wp_str val = wp_str_trim(line);
	if (wp_str_ieq(name, "ETag"))
		set_str(&s->etag, val);
	else if (wp_str_ieq(name, "Last-Modified"))
		set_str(&s->last_modified, val);
	else if (wp_str_ieq(name, "Content-Type"))
		set_str(&s->content_type, val);
	else if (wp_str_ieq(name, "Content-Length") && wp_str_to_ll(val, &v))
		s->clen = v;
	else if (wp_str_ieq(name, "Content-Range"))
		parse_content_range(s, val);
	else if (wp_str_ieq(name, "Retry-After"))
		parse_retry_after(s, val);
	return len;
}

static void fail(struct slot *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct slot *s, int code, const char *fmt, ...)
{
	char msg[sizeof(s->x->err->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	wp_fail(s->x->err, code, "%s", msg);
	s->verdict = V_FAIL;
	s->fail_code = code < 0 ? code : -code;
}

/* The sink starts over at byte 0. */
static int restart_sink(struct slot *s)
{
	struct wp_xfer *x = s->x;
	x->received = 0;
	s->attempt_start = 0;
	if (!x->reset) {
		fail(s, -WPE_NET,
		     "cannot %s '%s': it must start over, and what was written cannot be undone",
		     x->verb, x->url);
		return -1;
	}
	int rc = x->reset(x->ctx, 0, x->err);
	if (rc < 0) {
		fail(s, rc, "cannot %s '%s': cannot start the output over", x->verb, x->url);
		return -1;
	}
	return 0;
}

/* The final response's head is complete (its first body byte is here, or it had no body):
 * decide what it means before any of its bytes reach the sink. */
static void on_head(struct slot *s)
{
	struct wp_xfer *x = s->x;
	long st = s->status;

	s->head_seen = true;
	if (is_redirect(st)) {
		s->verdict = V_REDIRECT;
		return;
	}
	if (x->head) {
		/* only what the answer announces; a failure leaves the size unknown */
		if (st == 0 || (st >= 200 && st <= 299))
			x->total = s->clen;
		else
			s->verdict = V_HTTP;
		return;
	}
	if (st == 0) {
		/* file:// has no status line; libcurl reports the size as Content-Length */
		x->total = s->clen >= 0 ? s->offset + s->clen : -1;
	} else if (st == 304) {
		return;
	} else if (st == 416 && s->offset > 0) {
		s->verdict = s->cr_star && s->cr_total == s->offset ? V_COMPLETE : V_RESTART;
		if (s->verdict == V_RESTART)
			snprintf(s->why, sizeof(s->why), "HTTP 416 to a resume at byte %lld",
				 s->offset);
		return;
	} else if (st < 200 || st > 299) {
		s->verdict = V_HTTP;
		return;
	} else if (x->range && s->offset == 0 && st == 206) {
		/* the part we asked for; the caller checks that it is the part it wanted */
		if (s->cr_start < 0 || s->cr_end < s->cr_start ||
		    (s->cr_total >= 0 && s->cr_end >= s->cr_total) ||
		    (s->clen >= 0 && !x->decode && s->clen != s->cr_end - s->cr_start + 1)) {
			fail(s, -WPE_NET,
			     "cannot %s '%s': the server answered 206 without a usable "
			     "Content-Range",
			     x->verb, x->url);
			return;
		}
		x->range_start = s->cr_start;
		x->range_total = s->cr_total;
		x->total = s->cr_end - s->cr_start + 1;
	} else if (s->offset > 0 && st != 206) {
		/* the server ignored our Range, or its If-Range says the file changed: this body is
		 * the whole file, so the sink starts over */
		if (restart_sink(s) < 0)
			return;
		s->offset = 0;
		x->total = x->decode ? -1 : s->clen;
		take_validator(s);
	} else if (st == 206 &&
		   (s->cr_start != s->offset || s->cr_end < s->cr_start ||
		    (s->cr_total >= 0 && s->cr_end >= s->cr_total) ||
		    (s->clen >= 0 && s->clen != s->cr_end - s->cr_start + 1) ||
		    (s->cr_total >= 0 && x->expect_size >= 0 && s->cr_total != x->expect_size))) {
		/* Appending bytes from another offset would corrupt the file, so the answer is
		 * refused; the next try asks for the whole file without Range (a server with broken
		 * ranges still serves plain GETs), and it counts as a try so this ends. */
		s->verdict = V_RESTART;
		if (s->cr_start < 0 || s->cr_end < s->cr_start)
			snprintf(s->why, sizeof(s->why),
				 "asked to resume at byte %lld, the server answered "
				 "206 without a usable Content-Range",
				 s->offset);
		else if (s->cr_start != s->offset)
			snprintf(s->why, sizeof(s->why),
				 "asked to resume at byte %lld, the server answered "
				 "from byte %lld",
				 s->offset, s->cr_start);
		else if (s->clen >= 0 && s->clen != s->cr_end - s->cr_start + 1)
			snprintf(s->why, sizeof(s->why),
				 "asked to resume at byte %lld, the server answered "
				 "206 for bytes %lld-%lld with %lld bytes",
				 s->offset, s->cr_start, s->cr_end, s->clen);
		else
			snprintf(s->why, sizeof(s->why),
				 "asked to resume at byte %lld, the server answered "
				 "206 for a file of %lld bytes, not %lld",
				 s->offset, s->cr_total,
				 s->cr_total >= 0 && s->cr_end >= s->cr_total ? s->cr_end + 1 :
										x->expect_size);
		return;
	} else if (st == 206) {
		/* a resume: the bytes held keep the validator they were asked under; held under
		 * none, they get none now (this answer's says nothing of the earlier bytes) */
		x->total = s->cr_total;
	} else {
		x->total = x->decode ? -1 : s->clen;
		take_validator(s);
	}

	/* An announced size that differs from expect_size is not yet an error: servers misstate
	 * Content-Length, and the bytes themselves are capped at expect_size as they arrive and
	 * counted at the end. */
	if (x->max_bytes >= 0 && x->total > x->max_bytes)
		fail(s, -WPE_TOO_BIG, "'%s' is larger than %lld bytes", x->url, x->max_bytes);
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	struct slot *s = ud;
	struct wp_xfer *x = s->x;
	size_t len = size * nmemb;

	if (!s->head_seen)
		on_head(s);
	if (s->verdict == V_REDIRECT) {
		/* read to its end and dropped: libcurl says where it pointed only after a whole
		 * answer */
		s->redirect_body += (long long)len;
		return s->redirect_body > REDIRECT_BODY_MAX ? WRITE_ABORT : len;
	}
	if (s->verdict != V_NONE)
		return WRITE_ABORT;
	/* checked on decoded bytes, so a gzip bomb stops at the ceiling, not at its compressed
	 * size */
	if (x->max_bytes >= 0 && (long long)len > x->max_bytes - x->received) {
		fail(s, -WPE_TOO_BIG, "'%s' is larger than %lld bytes", x->url, x->max_bytes);
		return WRITE_ABORT;
	}
	if (s->status == 206 && s->offset > 0 && (long long)len > s->cr_end + 1 - x->received) {
		/* more than its Content-Range said: the bytes do not lie where it says */
		s->verdict = V_RESTART;
		snprintf(s->why, sizeof(s->why),
			 "asked to resume at byte %lld, the server sent more than the "
			 "bytes %lld-%lld it named",
			 s->offset, s->cr_start, s->cr_end);
		return WRITE_ABORT;
	}
	if (x->expect_size >= 0 && (long long)len > x->expect_size - x->received) {
		fail(s, -WPE_INTEGRITY, "'%s' is larger than the expected %lld bytes", x->url,
		     x->expect_size);
		return WRITE_ABORT;
	}
	int rc = x->write(x->ctx, p, len, x->err);
	if (rc < 0) {
		fail(s, rc, "cannot store '%s'", x->url);
		return WRITE_ABORT;
	}
	x->received += (long long)len;
	return len;
}

/* "A-B", "A-" or "-N" in decimal: what CURLOPT_RANGE takes for one HTTP byte range. */
static bool range_ok(const char *r)
{
	struct wp_str s = WP_STR(r);
	struct wp_str a = wp_str_cut(&s, '-');
	long long va = 0, vb = 0;
	if (a.p + a.n == r + strlen(r))
		return false; /* no '-' */
	if (a.n && !wp_str_to_ll(a, &va))
		return false;
	if (s.n && !wp_str_to_ll(s, &vb))
		return false;
	if (!a.n)
		return s.n && vb > 0;
	return !s.n || vb >= va;
}

static int add_header(struct slot *s, const char *name, const char *value)
{
	if (!value)
		return 0;
	if (strpbrk(value, "\r\n"))
		return wp_fail(s->x->err, -WPE_USAGE, "header %s for '%s' contains a line break",
			       name, s->x->url);
	char *line = wp_xasprintf("%s: %s", name, value);
	struct curl_slist *l = curl_slist_append(s->hdrs, line);
	free(line);
	if (!l)
		return wp_fail(s->x->err, -WPE_NET, "cannot build the request for '%s'", s->x->url);
	s->hdrs = l;
	return 0;
}

/* A socket of this attempt opened: its connect starts now (the first of happy eyeballs' two). */
static int on_sockopt(void *ud, curl_socket_t fd, curlsocktype purpose)
{
	struct slot *s = ud;
	(void)fd;
	if (purpose == CURLSOCKTYPE_IPCXN && !s->dial_at)
		s->dial_at = now_ms();
	return CURL_SOCKOPT_OK;
}

#define SETOPT(opt, val) \
	do { \
		if ((cc = curl_easy_setopt(e, (opt), (val))) != CURLE_OK) \
			goto bad_opt; \
	} while (0)

/* Credentials: the conf's for the hop's origin (net/auth.h), else a netrc file's (libcurl reads
 * $NETRC, else ~/.netrc): each hop of a redirect is a request of its own, so they go to their
 * origin only. A client certificate (pip's --client-cert: one PEM file with the key) goes to every
 * https server that asks for one; a trusted host (pip's --trusted-host) is not held to its
 * certificate, and only it: a hop to another origin is checked (pip mounts its unchecked adapter
 * on the trusted origin alone). */
static int set_auth(struct slot *s, CURL *e)
{
	struct wp_xfer *x = s->x;
	const char *user = NULL, *password = NULL;
	CURLcode cc = CURLE_OK;
	s->sent_auth = false;
	const char *url = url_now(s);
	if (strncasecmp(url, "file:", 5) == 0)
		return 0;
	const struct wp_net_conf *conf = x->policy.conf;
	if (wp_net_creds_find(conf ? conf->creds : NULL, url, &user, &password)) {
		SETOPT(CURLOPT_USERNAME, user);
		SETOPT(CURLOPT_PASSWORD, password);
		SETOPT(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		s->sent_auth = true;
	}
	SETOPT(CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	if (conf && conf->netrc && *conf->netrc)
		SETOPT(CURLOPT_NETRC_FILE, conf->netrc);
	if (conf && conf->client_cert && *conf->client_cert)
		SETOPT(CURLOPT_SSLCERT, conf->client_cert);
	if (wp_net_host_trusted(conf, url)) {
		SETOPT(CURLOPT_SSL_VERIFYPEER, 0L);
		SETOPT(CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return 0;
bad_opt:
	return wp_fail(x->err, -WPE_NET, "cannot set up the transfer of '%s': %s", x->url,
		       curl_easy_strerror(cc));
}

/* Prepare the easy handle for the next attempt; every option is set afresh. */
static int setup(struct run *r, struct slot *s)
{
	struct wp_xfer *x = s->x;
	CURLcode cc = CURLE_OK;
	int rc = 0;

	if (!x->url || !x->write)
		return wp_fail(x->err, -WPE_USAGE, "a %s needs a URL and a place for the bytes",
			       x->verb);
	if (r->ca_error[0] && is_https(url_now(s)))
		return wp_fail(x->err, -WPE_USAGE, "cannot %s '%s': %s", x->verb, x->url,
			       r->ca_error);
	if (!s->easy) {
		s->easy = curl_easy_init();
		if (!s->easy)
			return wp_fail(x->err, -WPE_NET, "cannot start a transfer for '%s'",
				       x->url);
	} else {
		curl_easy_reset(s->easy);
	}
	CURL *e = s->easy;
	curl_slist_free_all(s->hdrs);
	s->hdrs = NULL;
	clear_response(s);
	s->head_seen = false;
	s->verdict = V_NONE;
	s->fail_code = 0;
	s->errbuf[0] = 0;
	s->attempt_start = x->received;
	s->dial_at = 0;
	s->dialed = false;
	s->redirect_body = 0;

	long env_t = r->env_timeout_s;
	long connect_s = x->policy.connect_timeout_s > 0 ? x->policy.connect_timeout_s :
			 env_t > 0 ? env_t : WP_NET_CONNECT_TIMEOUT_S;
	long slow_s = x->policy.low_speed_time_s > 0 ? x->policy.low_speed_time_s :
		      env_t > 0 ? env_t : WP_NET_LOW_SPEED_TIME_S;
	long slow_bytes = x->policy.low_speed_bytes > 0 ? x->policy.low_speed_bytes :
							  WP_NET_LOW_SPEED_BYTES;

	SETOPT(CURLOPT_URL, url_now(s));
	SETOPT(CURLOPT_PRIVATE, (void *)s);
	SETOPT(CURLOPT_ERRORBUFFER, s->errbuf);
	SETOPT(CURLOPT_NOSIGNAL, 1L);
	SETOPT(CURLOPT_USERAGENT, WP_NET_USER_AGENT);
	SETOPT(CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(CURLOPT_WRITEDATA, (void *)s);
	SETOPT(CURLOPT_HEADERFUNCTION, on_header);
	SETOPT(CURLOPT_HEADERDATA, (void *)s);
	/* redirects: followed by finish(), a hop at a time (CURLOPT_FOLLOWLOCATION stays off) */
	SETOPT(CURLOPT_SOCKOPTFUNCTION, on_sockopt);
	SETOPT(CURLOPT_SOCKOPTDATA, (void *)s);
#if LIBCURL_VERSION_NUM >= 0x075500
	SETOPT(CURLOPT_PROTOCOLS_STR, "http,https,file");
#else
	SETOPT(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS | CURLPROTO_FILE));
#endif
	SETOPT(CURLOPT_CONNECTTIMEOUT, connect_s);
	SETOPT(CURLOPT_LOW_SPEED_LIMIT, slow_bytes);
	SETOPT(CURLOPT_LOW_SPEED_TIME, slow_s);
	SETOPT(CURLOPT_TCP_KEEPALIVE, 1L);
	/* 16 KiB reads (the default) cost a recv and a poll each: 25,000 of each for 400 MB. A
	 * bigger receive buffer (512 KiB per transfer, 4 MiB for 8 at once) lets big wheels
	 * stream. */
	SETOPT(CURLOPT_BUFFERSIZE, 512L * 1024);
	/* a libcurl built without HTTP/2 (the static Windows one: no nghttp2) refuses the option
	 * with CURLE_UNSUPPORTED_PROTOCOL, which would fail every transfer: it speaks HTTP/1.1 */
	cc = curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	if (cc != CURLE_OK && cc != CURLE_UNSUPPORTED_PROTOCOL)
		goto bad_opt;
	if (is_https(url_now(s)))
		SETOPT(CURLOPT_PIPEWAIT, 1L);
	SETOPT(CURLOPT_SSL_VERIFYPEER, 1L);
	SETOPT(CURLOPT_SSL_VERIFYHOST, 2L);
	if (r->ca_bundle)
		SETOPT(CURLOPT_CAINFO, r->ca_bundle);
	if ((rc = set_auth(s, e)) < 0)
		return rc;
	if (x->decode)
		SETOPT(CURLOPT_ACCEPT_ENCODING, "");
	else if (x->max_bytes >= 0)
		/* refuse an announced oversize body before it starts; decoded bodies are capped as
		 * they stream, since Content-Length then counts compressed bytes */
		SETOPT(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max_bytes);

	/* CURLOPT_RANGE rather than CURLOPT_RESUME_FROM_LARGE: with the latter libcurl itself
	 * fails a 200 answer (CURLE_RANGE_ERROR) and we lose its body, while a server that ignores
	 * ranges is best met by taking that body from byte 0; on_head checks Content-Range. */
	s->offset = x->resume ? x->received : 0;
	if (s->offset > 0) {
		snprintf(s->range, sizeof(s->range), "%lld-", s->offset);
		SETOPT(CURLOPT_RANGE, s->range);
	} else if (x->range) {
		if (!range_ok(x->range))
			return wp_fail(x->err, -WPE_USAGE,
				       "range '%s' for '%s' is not A-B, A- or -N", x->range,
				       x->url);
		/* file:// would cut the bytes but say nothing of where they lie: it is read
		 * whole */
		if (strncasecmp(x->url, "file:", 5) != 0)
			SETOPT(CURLOPT_RANGE, x->range);
	}

	/* a resume names the version it continues: a server whose file changed answers 200 */
	if (s->offset > 0 && s->validator && (rc = add_header(s, "If-Range", s->validator)) < 0)
		return rc;
	if (x->head)
		SETOPT(CURLOPT_NOBODY, 1L);

	if ((rc = add_header(s, "If-None-Match", x->if_none_match)) < 0 ||
	    (rc = add_header(s, "If-Modified-Since", x->if_modified_since)) < 0 ||
	    (rc = add_header(s, "Accept", x->accept)) < 0)
		return rc;
	if (s->hdrs)
		SETOPT(CURLOPT_HTTPHEADER, s->hdrs);
	return 0;

bad_opt:
	return wp_fail(x->err, -WPE_NET, "cannot set up the transfer of '%s': %s", x->url,
		       curl_easy_strerror(cc));
}

static bool transient_curl(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

static bool transient_status(long st)
{
	return st >= 500 || st == 429 || st == 408;
}

static void take(char **dst, char **src)
{
	free(*dst);
	*dst = *src;
	*src = NULL;
}

static void finish_ok(struct slot *s)
{
	struct wp_xfer *x = s->x;
	char *url = NULL;

	if (x->expect_size >= 0 && x->received != x->expect_size && !x->not_modified) {
		fail(s, -WPE_INTEGRITY, "'%s' has %lld bytes, expected %lld", x->url, x->received,
		     x->expect_size);
		x->result = s->fail_code;
		s->state = ST_DONE;
		return;
	}
	take(&x->etag, &s->etag);
	take(&x->last_modified, &s->last_modified);
	take(&x->content_type, &s->content_type);
	if (curl_easy_getinfo(s->easy, CURLINFO_EFFECTIVE_URL, &url) == CURLE_OK && url) {
		free(x->effective_url);
		x->effective_url = wp_xstrdup(url);
	}
	if (x->total < 0 && !x->head)
		x->total = x->received;
	x->result = 0;
	s->state = ST_DONE;
}

/* Schedule another attempt after a transient failure, or give up with the reason. */
static void retry_or_fail(struct run *r, struct slot *s, bool from_zero, bool stalled)
{
	struct wp_xfer *x = s->x;
	int max_tries = x->policy.max_tries > 0 ? x->policy.max_tries : WP_NET_TRIES;
	bool progressed = x->resume && !from_zero && !stalled && x->received > s->attempt_start;

	if (progressed && s->free_resumes < FREE_RESUMES) {
		s->free_resumes++;
		s->spent--;
	}
	if (s->spent >= max_tries) {
		char waited[160] = "";
		/* what a refused range answer left is not kept for a later run to go on from */
		if (from_zero && x->received > 0 && x->reset) {
			struct wp_err ignored = WP_ERR_INIT;
			x->received = 0;
			x->reset(x->ctx, 0, &ignored);
		}
		if (s->asked_wait_s > r->retry_after_cap_s)
			snprintf(waited, sizeof(waited),
				 "; the server asked to wait %lld s before trying again, and "
				 "wheelpick waits %lld s at most",
				 s->asked_wait_s, r->retry_after_cap_s);
		fail(s, -WPE_NET, "cannot %s '%s': %s (%d %s%s)", x->verb, x->url, s->why, x->tries,
		     x->tries == 1 ? "try" : "tries", waited);
		x->result = s->fail_code;
		s->state = ST_DONE;
		return;
	}
	if ((from_zero || !x->resume) && x->received > 0 && restart_sink(s) < 0) {
		x->result = s->fail_code;
		s->state = ST_DONE;
		return;
	}
	/* a try starts over from the URL asked for: where it pointed may have been for a while
	 * only */
	free(s->hop_url);
	s->hop_url = NULL;
	s->hops = 0;
	int shift = s->spent > 1 ? s->spent - 1 : 0;
	long long delay = shift > 16 ? RETRY_CAP_MS : r->retry_base_ms << shift;
	if (delay > RETRY_CAP_MS)
		delay = RETRY_CAP_MS;
	if (s->retry_after_s >= 0) {
		if (s->retry_after_s > s->asked_wait_s)
			s->asked_wait_s = s->retry_after_s;
		long long ra = s->retry_after_s > r->retry_after_cap_s ? r->retry_after_cap_s :
									 s->retry_after_s;
		if (ra * 1000 > delay)
			delay = ra * 1000;
	}
	s->not_before = now_ms() + delay;
	s->state = ST_WAIT;
}

/* A 3xx: the next request goes where it points, as libcurl would have gone (at most
 * WP_NET_MAX_REDIRECTS hops, never from https to anything else, never to file://), and it starts
 * afresh there: its own credentials and TLS settings (set_auth). A hop spends no try. */
static void follow(struct slot *s)
{
	struct wp_xfer *x = s->x;
	char *to = NULL;
	curl_easy_getinfo(s->easy, CURLINFO_REDIRECT_URL, &to);
	if (!to || !*to) {
		fail(s, -WPE_NET, "cannot %s '%s': HTTP %ld without a Location to go to", x->verb,
		     x->url, s->status);
	} else if (s->hops >= WP_NET_MAX_REDIRECTS) {
		fail(s, -WPE_NET, "cannot %s '%s': more than %ld redirects", x->verb, x->url,
		     WP_NET_MAX_REDIRECTS);
	} else if (!is_https(to) && (is_https(x->url) || strncasecmp(to, "http://", 7))) {
		/* a redirect may never leave TLS once it started there */
		fail(s, -WPE_NET, "cannot %s '%s': refused a redirect%s to '%s'", x->verb, x->url,
		     is_https(x->url) ? " from https" : "", to);
	} else {
		char *next = wp_xstrdup(to);
		free(s->hop_url);
		s->hop_url = next;
		s->hops++;
		s->free_start = true;
		s->not_before = 0;
		s->state = ST_WAIT;
		return;
	}
	x->result = s->fail_code;
	s->state = ST_DONE;
}

/* One attempt ended with cc: done, failed, or to be tried again. */
static void finish(struct run *r, struct slot *s, CURLcode cc)
{
	struct wp_xfer *x = s->x;

	if (s->verdict == V_NONE && cc == CURLE_OK && !s->head_seen)
		on_head(s);
	x->status = s->status;

	switch (s->verdict) {
	case V_FAIL:
		x->result = s->fail_code;
		s->state = ST_DONE;
		return;
	case V_COMPLETE:
		finish_ok(s);
		return;
	case V_RESTART:
		retry_or_fail(r, s, true, false);
		return;
	case V_REDIRECT:
		follow(s);
		return;
	case V_HTTP:
	case V_NONE:
		break;
	}

	if (s->verdict == V_HTTP) {
		long st = s->status;
		if (transient_status(st)) {
			snprintf(s->why, sizeof(s->why), "HTTP %ld", st);
			retry_or_fail(r, s, false, false);
		} else if (st == 401 || st == 403) {
			/* who answered (after a redirect, maybe not the URL's host); the
			 * credentials are never part of the message */
			char *eff = NULL, host[256];
			curl_easy_getinfo(s->easy, CURLINFO_EFFECTIVE_URL, &eff);
			wp_net_url_host(eff ? eff : x->url, host, sizeof(host));
			if (s->sent_auth)
				fail(s, -WPE_NET,
				     "cannot %s '%s': HTTP %ld from %s: the credentials given for it were refused "
				     "(check the user and password in the index URL, ~/.netrc or the environment)",
				     x->verb, x->url, st, host);
			else
				fail(s, -WPE_NET,
				     "cannot %s '%s': HTTP %ld from %s: credentials needed (add them to the index "
				     "URL or ~/.netrc)",
				     x->verb, x->url, st, host);
			x->result = s->fail_code;
			s->state = ST_DONE;
		} else {
			fail(s, -WPE_NET, "cannot %s '%s': HTTP %ld", x->verb, x->url, st);
			x->result = s->fail_code;
			s->state = ST_DONE;
		}
		return;
	}

	if (cc == CURLE_OK) {
		if (s->status == 304) {
			if (!x->if_none_match && !x->if_modified_since) {
				fail(s, -WPE_NET,
				     "cannot %s '%s': HTTP 304 to a request that was not conditional",
				     x->verb, x->url);
				x->result = s->fail_code;
				s->state = ST_DONE;
				return;
			}
			x->not_modified = true;
		} else if (s->status == 206 && s->offset > 0 && x->received < s->cr_end + 1) {
			/* a resume's answer that ended cleanly short of the range it named: its
			 * bytes do not lie where it says, and none of them may stay */
			snprintf(s->why, sizeof(s->why),
				 "asked to resume at byte %lld, the server named bytes %lld-%lld "
				 "and sent %lld",
				 s->offset, s->cr_start, s->cr_end, x->received - s->offset);
			retry_or_fail(r, s, true, false);
			return;
		} else if (s->status == 206 && x->total >= 0 && x->received < x->total) {
			/* a range answer may end early with no error from libcurl; ask for the
			 * rest */
			snprintf(s->why, sizeof(s->why),
				 "the range answer ended at byte %lld of %lld", x->received,
				 x->total);
			retry_or_fail(r, s, false, false);
			return;
		}
		finish_ok(s);
		return;
	}

	const char *reason = s->errbuf[0] ? s->errbuf : curl_easy_strerror(cc);
	if (cc == CURLE_FILESIZE_EXCEEDED) {
		fail(s, -WPE_TOO_BIG, "'%s' is larger than %lld bytes", x->url, x->max_bytes);
	} else if (cc == CURLE_UNSUPPORTED_PROTOCOL && is_https(x->url)) {
		char *to = NULL;
		curl_easy_getinfo(s->easy, CURLINFO_EFFECTIVE_URL, &to);
		fail(s, -WPE_NET, "cannot %s '%s': refused a redirect from https to '%s' (%s)",
		     x->verb, x->url, to ? to : "?", reason);
	} else if (cc == CURLE_PEER_FAILED_VERIFICATION && r->ca_bundle) {
		/* a CA was given: "give its PEM file" would send the user round in a circle */
		const struct wp_net_conf *c = x->policy.conf;
		fail(s, -WPE_NET,
		     "cannot %s '%s': %s (the CA bundle '%s'%s%s%s does not vouch for its "
		     "certificate, or the certificate names another host%s)",
		     x->verb, x->url, reason, r->ca_bundle, c && c->ca_origin ? " (" : "",
		     c && c->ca_origin ? c->ca_origin : "", c && c->ca_origin ? ")" : "",
		     schannel_ip(x->url) ? "; Schannel matches host names only: use one, not an IP "
					   "address" :
					   "");
	} else if (cc == CURLE_PEER_FAILED_VERIFICATION) {
		fail(s, -WPE_NET, "cannot %s '%s': %s (for a private CA, %s)", x->verb, x->url,
		     reason, wp_net_private_ca_advice(x->policy.conf));
	} else if (transient_curl(cc)) {
		snprintf(s->why, sizeof(s->why), "%s", reason);
		/* a stall earns no free resume, or a slow drip would take FREE_RESUMES timeouts */
		retry_or_fail(r, s, false, cc == CURLE_OPERATION_TIMEDOUT);
		return;
	} else {
		fail(s, -WPE_NET, "cannot %s '%s': %s", x->verb, x->url, reason);
	}
	x->result = s->fail_code;
	s->state = ST_DONE;
}

static void ended(struct run *r, struct slot *s)
{
	if (r->opts->ended)
		r->opts->ended(r->opts->ectx, (size_t)(s - r->slots), s->x->result);
}

static void report(struct run *r, struct slot *s, long long now, bool force)
{
	wp_dl_progress_fn *fn = r->opts->progress;
	if (!fn)
		return;
	if (!force &&
	    (s->x->received == s->progress_sent || now - s->progress_at < WP_DL_PROGRESS_MS))
		return;
	s->progress_sent = s->x->received;
	s->progress_at = now;
	long long total = s->x->expect_size >= 0 ? s->x->expect_size : s->x->total;
	fn(r->opts->pctx, s->index, s->x->received, total);
}

/* The transfer's overall deadline (its tries and waits included): past the grace, it must have
 * averaged the minimum rate since its first try began. */
static bool past_deadline(const struct run *r, const struct slot *s, long long now)
{
	const struct wp_xfer *x = s->x;
	if (!s->started_ms)
		return false;
	long stall = x->policy.low_speed_time_s > 0 ? x->policy.low_speed_time_s :
		     r->env_timeout_s > 0 ? r->env_timeout_s : WP_NET_LOW_SPEED_TIME_S;
	long long grace_ms = 1000LL * (x->policy.deadline_grace_s > 0 ?
					       x->policy.deadline_grace_s :
					       WP_NET_DEADLINE_GRACE * stall);
	long long rate = x->policy.min_rate > 0 ? x->policy.min_rate : WP_NET_MIN_RATE;
	return now - s->started_ms > grace_ms + x->received * 1000 / rate;
}

static void fail_deadline(struct run *r, struct slot *s, long long now)
{
	struct wp_xfer *x = s->x;
	long long rate = x->policy.min_rate > 0 ? x->policy.min_rate : WP_NET_MIN_RATE;
	fail(s, -WPE_NET,
	     "cannot %s '%s': too slow: %lld bytes in %lld s, under %lld KiB/s on average (%d %s); "
	     "a slow link can raise WHEELPICK_TIMEOUT",
	     x->verb, x->url, x->received, (now - s->started_ms) / 1000, rate / 1024, x->tries,
	     x->tries == 1 ? "try" : "tries");
	x->result = s->fail_code;
	s->state = ST_DONE;
}

/* The slowest connect to host seen in this run, for a redial's patience; NULL when none
 * finished. */
static struct dial_host *dial_host(struct run *r, const char *host, bool add)
{
	for (size_t i = 0; i < r->n_dials; i++)
		if (!strcmp(r->dials[i].host, host))
			return &r->dials[i];
	if (!add || r->n_dials == MAX_DIAL_HOSTS)
		return NULL;
	struct dial_host *d = &r->dials[r->n_dials++];
	snprintf(d->host, sizeof(d->host), "%s", host);
	d->worst_us = 0;
	return d;
}

/* A running attempt's connect: when it finished, its time counts for its host; while it has not,
 * the ms left before it is dialled again (-1: not to be, or not yet known). */
static long long dial_check(struct run *r, struct slot *s, long long now)
{
	char host[264];
	if (!s->dial_at || s->dialed || strncasecmp(url_now(s), "http", 4))
		return -1;
	curl_off_t conn_us = 0, dns_us = 0;
	wp_net_url_host(url_now(s), host, sizeof(host));
	if (curl_easy_getinfo(s->easy, CURLINFO_CONNECT_TIME_T, &conn_us) == CURLE_OK &&
	    conn_us > 0) {
		curl_easy_getinfo(s->easy, CURLINFO_NAMELOOKUP_TIME_T, &dns_us);
		struct dial_host *d = dial_host(r, host, true);
		long long us = (long long)(conn_us - dns_us);
		if (d && us > d->worst_us)
			d->worst_us = us;
		s->dialed = true;
		return -1;
	}
	const struct dial_host *d = dial_host(r, host, false);
	if (!d || s->redials >= REDIALS)
		return -1;
	long long patience = REDIAL_FACTOR * d->worst_us / 1000;
	if (patience < REDIAL_FLOOR_MS)
		patience = REDIAL_FLOOR_MS;
	long long left = s->dial_at + patience - now;
	return left > 0 ? left : 0;
}

static void fail_all(struct run *r, CURLMcode mc)
{
	for (size_t i = 0; i < r->n; i++) {
		struct slot *s = &r->slots[i];
		if (s->state == ST_DONE)
			continue;
		fail(s, -WPE_NET, "cannot %s '%s': %s", s->x->verb, s->x->url,
		     curl_multi_strerror(mc));
		s->x->result = s->fail_code;
		s->state = ST_DONE;
		ended(r, s);
	}
}

static void drive(struct run *r)
{
	int max_par = r->opts->max_parallel > 0 ? r->opts->max_parallel : WP_DL_PARALLEL;
	size_t done = 0;
	int running = 0;
	CURLMcode mc;

	while (done < r->n) {
		long long now = now_ms();
		long long wake = now + POLL_MAX_MS;
		for (size_t i = 0; i < r->n && running < max_par; i++) {
			struct slot *s = &r->slots[i];
			if (s->state != ST_WAIT)
				continue;
			if (s->not_before > now) {
				if (s->not_before < wake)
					wake = s->not_before;
				continue;
			}
			if (past_deadline(r, s, now)) {
				fail_deadline(r, s, now);
				done++;
				report(r, s, now, true);
				ended(r, s);
				continue;
			}
			if (!s->started_ms)
				s->started_ms = now ? now : 1;
			if (!s->free_start) {
				s->x->tries++;
				s->spent++;
			}
			s->free_start = false;
			int rc = setup(r, s);
			if (rc == 0 && (mc = curl_multi_add_handle(r->multi, s->easy)) != CURLM_OK)
				rc = wp_fail(s->x->err, -WPE_NET,
					     "cannot start the transfer of '%s': %s", s->x->url,
					     curl_multi_strerror(mc));
			if (rc < 0) {
				s->x->result = rc;
				s->state = ST_DONE;
				done++;
				report(r, s, now, true);
				ended(r, s);
				continue;
			}
			s->state = ST_RUN;
			running++;
		}
		if (done == r->n)
			break;

		int still = 0;
		if ((mc = curl_multi_perform(r->multi, &still)) != CURLM_OK) {
			fail_all(r, mc);
			return;
		}
		CURLMsg *msg;
		int left;
		while ((msg = curl_multi_info_read(r->multi, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			CURL *e = msg->easy_handle;
			CURLcode cc = msg->data.result;
			char *priv = NULL;
			curl_easy_getinfo(e, CURLINFO_PRIVATE, &priv);
			struct slot *s = (struct slot *)priv;
			curl_multi_remove_handle(r->multi, e);
			running--;
			finish(r, s, cc);
			if (s->state == ST_DONE) {
				done++;
				report(r, s, now_ms(), true);
				ended(r, s);
			}
		}
		now = now_ms();
		for (size_t i = 0; i < r->n; i++) {
			struct slot *s = &r->slots[i];
			if (s->state != ST_RUN)
				continue;
			if (past_deadline(r, s, now)) {
				curl_multi_remove_handle(r->multi, s->easy);
				running--;
				fail_deadline(r, s, now);
				done++;
				report(r, s, now, true);
				ended(r, s);
				continue;
			}
			long long dial_left = dial_check(r, s, now);
			if (dial_left == 0) {
				/* its SYN is likely lost (a full listen queue drops it): dial again
				 * now, not after the kernel's second; nothing of the answer has
				 * come */
				curl_multi_remove_handle(r->multi, s->easy);
				running--;
				s->redials++;
				s->free_start = true;
				s->not_before = 0;
				s->state = ST_WAIT;
				continue;
			}
			if (dial_left > 0 && now + dial_left < wake)
				wake = now + dial_left;
			report(r, s, now, false);
		}
		if (done == r->n)
			break;

		/* wake for the next retry due, or for libcurl (curl_multi_poll caps the wait at its
		 * own timeout) */
		long long wait = wake - now;
		for (size_t i = 0; i < r->n; i++) {
			struct slot *s = &r->slots[i];
			if (s->state == ST_WAIT && running < max_par && s->not_before - now < wait)
				wait = s->not_before - now;
		}
		if (running > 0 && r->opts->progress && wait > WP_DL_PROGRESS_MS)
			wait = WP_DL_PROGRESS_MS;
		if (wait < 0)
			wait = 0;
		if ((mc = curl_multi_poll(r->multi, NULL, 0, (int)wait, NULL)) != CURLM_OK) {
			fail_all(r, mc);
			return;
		}
	}
}

int wp_xfer_run(struct wp_xfer *xs, size_t n, const struct wp_xfer_opts *opts)
{
	static const struct wp_xfer_opts no_opts = { 0 };
	struct run r = { .n = n, .opts = opts ? opts : &no_opts };
	int rc = 0;
	/* the run's settings: the first transfer's (a caller runs together what shares them) */
	const struct wp_net_conf *conf = n ? xs[0].policy.conf : NULL;
	if (conf && conf->bad && conf->bad[0])
		snprintf(r.env_error, sizeof(r.env_error), "%s", conf->bad);
	r.env_timeout_s = conf && conf->timeout_s > 0 && conf->timeout_s <= 86400 ?
				  conf->timeout_s :
				  0;
	r.retry_base_ms = conf && conf->retry_base_set && conf->retry_base_ms >= 0 &&
					  conf->retry_base_ms <= RETRY_CAP_MS ?
				  conf->retry_base_ms :
				  WP_NET_RETRY_BASE_MS;
	r.retry_after_cap_s = r.env_timeout_s > 0 && r.env_timeout_s < WP_NET_RETRY_AFTER_CAP_S ?
				      r.env_timeout_s :
				      WP_NET_RETRY_AFTER_CAP_S;
	r.ca_bundle = conf_ca_file(conf, r.ca_error, sizeof(r.ca_error));

	for (size_t i = 0; i < n; i++) {
		struct wp_xfer *x = &xs[i];
		x->result = 0;
		x->status = 0;
		x->not_modified = false;
		x->received = x->resume && x->start > 0 ? x->start : 0;
		x->total = -1;
		x->range_start = 0;
		x->range_total = -1;
		x->tries = 0;
		x->etag = x->last_modified = x->content_type = x->effective_url = x->validator = NULL;
	}
	if (n == 0)
		return 0;
	if (r.env_error[0]) {
		for (size_t i = 0; i < n; i++)
			xs[i].result = wp_fail(xs[i].err, -WPE_USAGE, "%s", r.env_error);
		return xs[0].result;
	}

	if (wp_xfer_curl_start() != CURLE_OK) {
		for (size_t i = 0; i < n; i++)
			xs[i].result = wp_fail(xs[i].err, -WPE_NET,
					       "cannot %s '%s': libcurl did not start: %s",
					       xs[i].verb, xs[i].url,
					       curl_easy_strerror(curl_init_rc));
		return xs[0].result;
	}

	r.slots = wp_xcalloc(n, sizeof(*r.slots));
	for (size_t i = 0; i < n; i++) {
		r.slots[i].x = &xs[i];
		r.slots[i].index = i;
		r.slots[i].state = ST_WAIT;
		r.slots[i].progress_sent = -1;
		if (xs[i].resume && xs[i].start > 0 && xs[i].if_range && *xs[i].if_range)
			r.slots[i].validator = wp_xstrdup(xs[i].if_range);
		clear_response(&r.slots[i]);
	}
	r.multi = curl_multi_init();
	if (!r.multi) {
		for (size_t i = 0; i < n; i++)
			xs[i].result = wp_fail(xs[i].err, -WPE_NET,
					       "cannot %s '%s': libcurl multi handle failed",
					       xs[i].verb, xs[i].url);
		goto out;
	}
	int max_par = r.opts->max_parallel > 0 ? r.opts->max_parallel : WP_DL_PARALLEL;
	int per_host = r.opts->max_per_host > 0 ? r.opts->max_per_host : WP_DL_PER_HOST;
	curl_multi_setopt(r.multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	curl_multi_setopt(r.multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)per_host);
	curl_multi_setopt(r.multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)max_par);

	drive(&r);

out:
	for (size_t i = 0; i < n; i++) {
		struct slot *s = &r.slots[i];
		if (s->easy) {
			/* harmless for a handle that is no longer in the multi */
			if (r.multi)
				curl_multi_remove_handle(r.multi, s->easy);
			curl_easy_cleanup(s->easy);
		}
		curl_slist_free_all(s->hdrs);
		clear_response(s);
		free(s->hop_url);
		xs[i].validator = s->validator;
		if (!rc && xs[i].result)
			rc = xs[i].result;
	}
	if (r.multi)
		curl_multi_cleanup(r.multi);
	free(r.slots);
	return rc;
}

void wp_xfer_release(struct wp_xfer *x)
{
	free(x->etag);
	free(x->last_modified);
	free(x->content_type);
	free(x->effective_url);
	free(x->validator);
	x->etag = x->last_modified = x->content_type = x->effective_url = x->validator = NULL;
}
