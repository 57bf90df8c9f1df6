/* net/s3.c: S3 requests signed by libcurl (CURLOPT_AWS_SIGV4), run in parallel on one multi handle;
 * ListObjectsV2 paged; multipart PUT for big files. */
#include "net/s3.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "net/auth.h"
#include "net/xfer.h"
#include "base/os/os.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define S3_TRIES 3
#define S3_ERRBODY_MAX (64 << 10)    /* an error or a small answer (XML) past this is cut */
#define S3_LIST_PAGE_MAX (16 << 20)  /* one ListObjectsV2 page: 1000 keys of 1 KiB at most, and XML */
/* A listing that says it goes on but brings nothing new this many pages in a row is broken (S3
 * fills every page of a listing without a delimiter; a few empty ones are tolerated) */
#define S3_LIST_EMPTY_RUN 8
/* and one listing reads at most this many pages past what WP_S3_LIST_MAX_KEYS needs */
#define S3_LIST_SPARE_PAGES 100

/* ---- names, URLs ---- */

bool wp_s3_is_url(const char *s)
{
	return s && !strncasecmp(s, "s3://", 5);
}

/* S3's rules for a new bucket name (3-63 of a-z 0-9 . -, starting and ending with a letter or
 * digit); older buckets may have upper case and '_', which path-style still reaches. */
static bool bucket_ok(const char *b)
{
	size_t n = strlen(b);
	if (n < 3 || n > 63 || !isalnum((unsigned char)b[0]) || !isalnum((unsigned char)b[n - 1]))
		return false;
	for (const char *p = b; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
			return false;
	return true;
}

static bool unreserved(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
}

/* Percent-encode s the way SigV4's canonical request does (upper-case hex); keep_slash for a key
 * in a path. */
static void enc(struct wp_buf *b, const char *s, bool keep_slash)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (unreserved(*p) || (keep_slash && *p == '/'))
			wp_buf_addch(b, (char)*p);
		else
			wp_buf_printf(b, "%%%02X", *p);
	}
}

/* The URL of key (NULL: the bucket), with query (already encoded, sorted by name) or NULL. */
static char *url_of(const struct wp_s3 *s3, const char *key, const char *query)
{
	struct wp_buf b = WP_BUF_INIT;
	if (s3->path_style) {
		wp_buf_printf(&b, "%s/%s", s3->endpoint, s3->bucket);
	} else {
		const char *host = strstr(s3->endpoint, "://");
		wp_buf_add(&b, s3->endpoint, (size_t)(host - s3->endpoint) + 3);
		wp_buf_printf(&b, "%s.%s", s3->bucket, host + 3);
	}
	/* the bucket itself: no '/' after its name (RGW signs "/bucket", not "/bucket/") */
	if (key || !s3->path_style)
		wp_buf_addch(&b, '/');
	if (key)
		enc(&b, key, true);
	if (query)
		wp_buf_printf(&b, "?%s", query);
	return wp_buf_detach(&b, NULL);
}

static const char *nonempty(const char *v)
{
	return v && *v ? v : NULL;
}

int wp_s3_open(struct wp_s3 *s3, const char *url, const char *endpoint, const char *acl,
	       const struct wp_s3_conf *conf, struct wp_err *err)
{
	static const struct wp_s3_conf none = { 0 };
	if (!conf)
		conf = &none;
	memset(s3, 0, sizeof(*s3));
	s3->net = conf->net;
	if (!wp_s3_is_url(url))
		return wp_fail(err, -WPE_USAGE, "'%s' is not an s3://BUCKET/PREFIX URL", url);
	const char *b = url + 5, *slash = strchr(b, '/');
	s3->bucket = slash ? wp_xstrndup(b, (size_t)(slash - b)) : wp_xstrdup(b);
	if (!bucket_ok(s3->bucket))
		return wp_fail(err, -WPE_USAGE,
			       "'%s' names no bucket S3 would take ('%s': 3 to 63 of a-z, 0-9, '.', '-')",
			       url, s3->bucket);
	/* the prefix, as segments: no empty, "." or ".." one (a reader's URL would fold them
	 * away) */
	struct wp_buf pre = WP_BUF_INIT;
	struct wp_str rest = WP_STR(slash ? slash + 1 : "");
	while (rest.n) {
		struct wp_str seg = wp_str_cut(&rest, '/');
		if (!seg.n)
			continue;
		bool bad = wp_str_eq(seg, ".") || wp_str_eq(seg, "..");
		for (size_t i = 0; i < seg.n && !bad; i++)
			bad = (unsigned char)seg.p[i] < 0x20 || seg.p[i] == 0x7f ||
			      seg.p[i] == '\\';
		if (bad) {
			wp_buf_free(&pre);
			return wp_fail(err, -WPE_USAGE,
				       "prefix of '%s' has a segment a URL cannot carry as it is ('%.*s')",
				       url, (int)seg.n, seg.p);
		}
		wp_buf_add(&pre, seg.p, seg.n);
		wp_buf_addch(&pre, '/');
	}
	s3->prefix = pre.len ? wp_buf_detach(&pre, NULL) : wp_xstrdup("");
	wp_buf_free(&pre);
	s3->display = wp_xasprintf("s3://%s/%s", s3->bucket, s3->prefix);

	const char *region = nonempty(conf->region);
	s3->region = wp_xstrdup(region ? region : "us-east-1");
	for (const char *p = s3->region; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return wp_fail(err, -WPE_USAGE, "AWS_REGION '%s' is not a region name",
				       s3->region);
	const char *ep = endpoint && *endpoint ? endpoint : nonempty(conf->endpoint_url);
	if (ep) {
		if (strncasecmp(ep, "http://", 7) && strncasecmp(ep, "https://", 8))
			return wp_fail(err, -WPE_USAGE,
				       "S3 endpoint '%s' is not an http:// or https:// URL", ep);
		if (strpbrk(ep, "?#@ \t\r\n"))
			return wp_fail(err, -WPE_USAGE,
				       "S3 endpoint '%s' must be scheme://host[:port][/path] alone",
				       ep);
		size_t n = strlen(ep);
		while (n > 8 && ep[n - 1] == '/')
			n--;
		s3->endpoint = wp_xstrndup(ep, n);
		/* only AWS's own hosts take the bucket in the host name for sure */
		s3->path_style = !strstr(s3->endpoint, ".amazonaws.com");
	} else {
		s3->endpoint = wp_xasprintf("https://s3.%s.amazonaws.com", s3->region);
		s3->path_style = strchr(s3->bucket, '.') != NULL; /* a dotted bucket breaks TLS
								     names */
	}
	if (acl) {
		for (const char *p = acl; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '-')
				return wp_fail(err, -WPE_USAGE,
					       "'%s' is no canned ACL (private, public-read, ...)",
					       acl);
		s3->acl = wp_xstrdup(acl);
	}
	const char *pk = nonempty(conf->list_page);
	long long page_keys = 0;
	if (pk && (!wp_str_to_ll(WP_STR(pk), &page_keys) || page_keys < 1 || page_keys > 1000))
		return wp_fail(err, -WPE_USAGE,
			       "WHEELPICK_S3_LIST_PAGE='%.40s' is not a number from 1 to 1000", pk);
	s3->list_page = (long)page_keys;
	const char *id = nonempty(conf->access_key_id), *secret = nonempty(conf->secret_access_key);
	if (id && !secret)
		return wp_fail(err, -WPE_USAGE,
			       "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set both");
	if (id && strchr(id, ':'))
		return wp_fail(err, -WPE_USAGE, "AWS_ACCESS_KEY_ID has a ':', which no key id has");
	if (id && (strpbrk(id, "\r\n") || strpbrk(secret, "\r\n")))
		return wp_fail(err, -WPE_USAGE,
			       "AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY has a line break");
	s3->anonymous = !id;
	if (id) {
		s3->userpwd = wp_xasprintf("%s:%s", id, secret);
		s3->sigv4 = wp_xasprintf("aws:amz:%s:s3", s3->region);
		const char *tok = nonempty(conf->session_token);
		if (tok && strpbrk(tok, "\r\n"))
			return wp_fail(err, -WPE_USAGE, "AWS_SESSION_TOKEN has a line break");
		s3->token = tok ? wp_xstrdup(tok) : NULL;
	}
	return 0;
}

static void wipe_free(char *s)
{
	if (s) {
		volatile char *p = s;
		while (*p)
			*p++ = 0;
		free(s);
	}
}

void wp_s3_release(struct wp_s3 *s3)
{
	free(s3->display);
	free(s3->endpoint);
	free(s3->bucket);
	free(s3->prefix);
	free(s3->region);
	free(s3->acl);
	wipe_free(s3->userpwd);
	wipe_free(s3->token);
	free(s3->sigv4);
	memset(s3, 0, sizeof(*s3));
}

/* ---- S3's XML answers: read by the caller's reader (base/s3xml.h), never here ---- */

/* The error code of an answer's body, when the handle has a reader ("" otherwise). */
static void error_code(const struct wp_s3 *s3, const char *xml, size_t n, char *code, size_t size)
{
	code[0] = 0;
	if (s3->xml && s3->xml->error_code && xml && n)
		s3->xml->error_code(xml, n, code, size);
}

static int need_reader(const struct wp_s3 *s3, struct wp_err *err)
{
	if (!s3->xml || !s3->xml->list || !s3->xml->uploads || !s3->xml->parts ||
	    !s3->xml->upload_id)
		return wp_fail(err, -WPE_USAGE, "no reader of S3's XML answers was given for '%s'",
			       s3->display);
	return 0;
}

static int obj_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wp_s3_object *)a)->key, ((const struct wp_s3_object *)b)->key);
}

const struct wp_s3_object *wp_s3_listing_find(const struct wp_s3_listing *l, const char *key)
{
	struct wp_s3_object k = { .key = (char *)key };
	return l->n ? bsearch(&k, l->v, l->n, sizeof(*l->v), obj_cmp) : NULL;
}

void wp_s3_listing_free(struct wp_s3_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].key);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void wp_s3_uploads_free(struct wp_s3_uploads *u)
{
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i].key);
		free(u->v[i].id);
	}
	free(u->v);
	memset(u, 0, sizeof(*u));
}

/* ---- requests ---- */


/* One HTTP request; an op is one of these, or (multipart) several. */
struct req {
	const char *method;         /* GET PUT HEAD DELETE POST */
	char *url;
	const char *key;            /* for messages */
	const char *what;           /* "upload", "download", ... for messages */
	const char *content_type;
	const char *payload_sha256; /* x-amz-content-sha256; NULL: UNSIGNED-PAYLOAD */
	const char *meta_sha256;    /* sent as x-amz-meta-sha256, or NULL */
	bool acl;                   /* send the canned ACL */
	bool may_miss;
	/* the body sent: a file's [off, off + len), or mem. The file is opened when the request
	 * first starts and closed when it ends, so a run of thousands holds at most `parallel`
	 * open (a default RLIMIT_NOFILE is 1024) */
	const char *path;
	int fd;
	long long off, len, sent;
	bool whole; /* path is the whole body: len is set from it, checked against want */
	long long want;             /* whole: the size the caller announced, or -1 */
	const char *mem;
	/* the answer */
	const char *out_path;       /* GET: into "<out_path>.part", renamed */
	int out_fd;
	char *part_path;
	struct wp_buf *out;
	long long out_max;
	struct wp_buf body;         /* an error's body, or a small answer kept for the caller */
	bool keep_body;
	long status;
	long long length, got;
	char meta[65];
	char etag[80];
	char ctype[128];            /* the answer's Content-Type */
	bool missing;
	/* the run */
	CURL *e;
	struct curl_slist *hdrs;
	int tries;
	long long not_before;
	bool active, done;
	int result;
	struct wp_err err;
	char errbuf[CURL_ERROR_SIZE];
};

static size_t on_read(char *buf, size_t size, size_t nitems, void *ud)
{
	struct req *r = ud;
	long long want = (long long)(size * nitems), left = r->len - r->sent;
	if (want > left)
		want = left;
	if (want <= 0)
		return 0;
	if (r->mem) {
		memcpy(buf, r->mem + r->sent, (size_t)want);
	} else {
		ssize_t got = wp_os_pread(r->fd, buf, (size_t)want, r->off + r->sent);
		if (got < 0)
			return CURL_READFUNC_ABORT;
		if (got == 0) /* the file shrank under us: the length sent would lie */
			return CURL_READFUNC_ABORT;
		want = got;
	}
	r->sent += want;
	return (size_t)want;
}

static int on_seek(void *ud, curl_off_t offset, int origin)
{
	struct req *r = ud;
	if (origin != SEEK_SET || offset < 0 || offset > r->len)
		return CURL_SEEKFUNC_CANTSEEK;
	r->sent = offset;
	return CURL_SEEKFUNC_OK;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct req *r = ud;
	size_t n = size * nmemb;
	bool ok_status = r->status >= 200 && r->status < 300;
	if (!ok_status || r->keep_body) {
		/* an error's XML is for the message; past the ceiling it is cut, not failed */
		if (r->body.len < S3_ERRBODY_MAX)
			wp_buf_add(&r->body, p,
				   n < S3_ERRBODY_MAX - r->body.len ? n :
								      S3_ERRBODY_MAX - r->body.len);
		return n;
	}
	r->got += (long long)n;
	if (r->out_max >= 0 && r->got > r->out_max)
		return 0;
	if (r->out_fd >= 0) {
		for (size_t done = 0; done < n;) {
			ssize_t w = wp_os_write(r->out_fd, p + done, n - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return 0;
			done += (size_t)w;
		}
	} else if (r->out && wp_buf_add(r->out, p, n) < 0) {
		return 0;
	}
	return n;
}

static bool hdr_is(const char *line, size_t n, const char *name, const char **val, size_t *vn)
{
	size_t k = strlen(name);
	if (n <= k || strncasecmp(line, name, k) || line[k] != ':')
		return false;
	const char *v = line + k + 1, *e = line + n;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
		e--;
	*val = v;
	*vn = (size_t)(e - v);
	return true;
}

static size_t on_header(char *line, size_t size, size_t nitems, void *ud)
{
	struct req *r = ud;
	size_t n = size * nitems;
	const char *v;
	size_t vn;
	if (n > 5 && !strncmp(line, "HTTP/", 5)) {
		const char *sp = memchr(line, ' ', n);
		r->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		r->meta[0] = 0;
		r->etag[0] = 0;
		r->ctype[0] = 0;
		r->length = -1;
	} else if (hdr_is(line, n, "etag", &v, &vn)) {
		wp_s3_etag_copy(r->etag, sizeof(r->etag), v, vn);
	} else if (hdr_is(line, n, "content-type", &v, &vn)) {
		snprintf(r->ctype, sizeof(r->ctype), "%.*s", (int)vn, v);
	} else if (hdr_is(line, n, "x-amz-meta-sha256", &v, &vn)) {
		if (vn == 64) {
			for (size_t i = 0; i < 64; i++)
				r->meta[i] = (char)tolower((unsigned char)v[i]);
			r->meta[64] = 0;
		}
	} else if (hdr_is(line, n, "content-length", &v, &vn)) {
		long long len;
		if (wp_str_to_ll((struct wp_str){ v, vn }, &len) && len >= 0)
			r->length = len;
	}
	return n;
}

static int add_hdr(struct req *r, const char *fmt, const char *val)
{
	char *line = wp_xasprintf(fmt, val);
	struct curl_slist *l = curl_slist_append(r->hdrs, line);
	free(line);
	if (!l)
		return -1;
	r->hdrs = l;
	return 0;
}

#define SETOPT(opt, val) \
	do { \
		if (curl_easy_setopt(e, (opt), (val)) != CURLE_OK) \
			goto bad; \
	} while (0)

static void close_out(struct req *r)
{
	if (r->out_fd >= 0)
		wp_os_close(r->out_fd);
	r->out_fd = -1;
}

/* A PUT's file, opened when its request first starts; a whole one's size checked. */
static int open_body(struct req *r, struct wp_err *err)
{
	struct wp_os_stat sb;
	r->fd = wp_os_open(r->path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (r->fd < 0 || wp_os_fstat(r->fd, &sb) < 0)
		return wp_fs_fail(err, errno, "cannot read", r->path);
	if (!r->whole)
		return 0;
	if (r->want >= 0 && sb.st_size != r->want)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' is %lld bytes, not the %lld expected",
			       r->path, (long long)sb.st_size, r->want);
	r->len = sb.st_size;
	return 0;
}

static void close_body(struct req *r)
{
	if (r->fd >= 0)
		wp_os_close(r->fd);
	r->fd = -1;
}

/* Ready r for its next try: every option set afresh. */
static int setup(const struct wp_s3 *s3, struct req *r)
{
	if (!r->e && !(r->e = curl_easy_init()))
		return wp_fail(&r->err, -WPE_NET, "cannot start a request for '%s'", r->key);
	CURL *e = r->e;
	curl_easy_reset(e);
	curl_slist_free_all(r->hdrs);
	r->hdrs = NULL;
	r->sent = 0;
	r->got = 0;
	r->status = 0;
	r->length = -1;
	r->meta[0] = r->etag[0] = 0;
	r->errbuf[0] = 0;
	wp_buf_reset(&r->body);
	if (r->out)
		wp_buf_reset(r->out);
	close_out(r);
	if (r->path && r->fd < 0) {
		int rc = open_body(r, &r->err);
		if (rc)
			return rc;
	}
	if (r->out_path) {
		free(r->part_path);
		r->part_path = wp_xasprintf("%s.part", r->out_path);
		r->out_fd = wp_os_open(r->part_path,
				       WP_O_WRONLY | WP_O_CREAT | WP_O_TRUNC | WP_O_CLOEXEC, 0644);
		if (r->out_fd < 0)
			return wp_fs_fail(&r->err, errno, "cannot write", r->part_path);
	}
	const char *payload = r->payload_sha256 ? r->payload_sha256 : "UNSIGNED-PAYLOAD";
	if (!strcmp(r->method, "GET") || !strcmp(r->method, "HEAD") || !strcmp(r->method, "DELETE"))
		payload = WP_S3_EMPTY_SHA256;
	/* no "Expect:" to switch 100-continue off: libcurl 7.88 signs the empty header, S3 does
	 * not */
	if (add_hdr(r, "x-amz-content-sha256: %s", payload) ||
	    (r->content_type && add_hdr(r, "Content-Type: %s", r->content_type)) ||
	    (r->meta_sha256 && add_hdr(r, "x-amz-meta-sha256: %s", r->meta_sha256)) ||
	    (r->acl && s3->acl && add_hdr(r, "x-amz-acl: %s", s3->acl)) ||
	    (s3->token && add_hdr(r, "x-amz-security-token: %s", s3->token)))
		return wp_fail(&r->err, -WPE_NET, "cannot build the request for '%s'", r->key);
	SETOPT(CURLOPT_URL, r->url);
	SETOPT(CURLOPT_PRIVATE, (void *)r);
	SETOPT(CURLOPT_ERRORBUFFER, r->errbuf);
	SETOPT(CURLOPT_NOSIGNAL, 1L);
	SETOPT(CURLOPT_USERAGENT, "wheelpick-s3");
	SETOPT(CURLOPT_HTTPHEADER, r->hdrs);
	SETOPT(CURLOPT_WRITEFUNCTION, on_write);
	SETOPT(CURLOPT_WRITEDATA, (void *)r);
	SETOPT(CURLOPT_HEADERFUNCTION, on_header);
	SETOPT(CURLOPT_HEADERDATA, (void *)r);
#if LIBCURL_VERSION_NUM >= 0x075500
	SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
#else
	SETOPT(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	/* as the rest of net/: the conf's timeout replaces the connect and stall limits, its CA
	 * bundle the system's, its client certificate goes to a server that asks, a trusted host is
	 * not held to its certificate, and a setting that was garbage fails the request */
	const struct wp_net_conf *nc = s3->net;
	if (nc && nc->bad && nc->bad[0])
		return wp_fail(&r->err, -WPE_USAGE, "%s", nc->bad);
	long t = nc && nc->timeout_s > 0 && nc->timeout_s <= 86400 ? nc->timeout_s : 0;
	SETOPT(CURLOPT_CONNECTTIMEOUT, t ? t : 15L);
	SETOPT(CURLOPT_LOW_SPEED_LIMIT, 1L);
	SETOPT(CURLOPT_LOW_SPEED_TIME, t ? t : 60L);
	SETOPT(CURLOPT_TCP_KEEPALIVE, 1L);
	SETOPT(CURLOPT_SSL_VERIFYPEER, 1L);
	SETOPT(CURLOPT_SSL_VERIFYHOST, 2L);
	if (nc && nc->ca_file && *nc->ca_file) {
		struct wp_os_stat sb;
		if (nc->ca_origin && strncasecmp(r->url, "https://", 8) == 0 &&
		    (wp_os_stat(nc->ca_file, &sb) < 0 || !WP_S_ISREG(sb.st_mode) ||
		     wp_os_access(nc->ca_file, WP_R_OK) < 0))
			return wp_fail(&r->err, -WPE_USAGE,
				       "cannot %s 's3://%s/%s': the CA bundle '%.200s' (%s) is not a "
				       "readable file of PEM certificates",
				       r->what, s3->bucket, r->key, nc->ca_file, nc->ca_origin);
		SETOPT(CURLOPT_CAINFO, nc->ca_file);
	}
	if (nc && nc->client_cert && *nc->client_cert)
		SETOPT(CURLOPT_SSLCERT, nc->client_cert);
	if (wp_net_host_trusted(nc, r->url)) {
		SETOPT(CURLOPT_SSL_VERIFYPEER, 0L);
		SETOPT(CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (!s3->anonymous) {
		SETOPT(CURLOPT_AWS_SIGV4, s3->sigv4);
		SETOPT(CURLOPT_USERPWD, s3->userpwd);
	}
	if (!strcmp(r->method, "PUT")) {
		SETOPT(CURLOPT_UPLOAD, 1L);
		SETOPT(CURLOPT_READFUNCTION, on_read);
		SETOPT(CURLOPT_READDATA, (void *)r);
		SETOPT(CURLOPT_SEEKFUNCTION, on_seek);
		SETOPT(CURLOPT_SEEKDATA, (void *)r);
		SETOPT(CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->len);
		SETOPT(CURLOPT_UPLOAD_BUFFERSIZE, 512L * 1024);
	} else if (!strcmp(r->method, "POST")) {
		SETOPT(CURLOPT_POST, 1L);
		SETOPT(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
		SETOPT(CURLOPT_POSTFIELDS, r->mem ? r->mem : "");
	} else if (!strcmp(r->method, "HEAD")) {
		SETOPT(CURLOPT_NOBODY, 1L);
	} else if (!strcmp(r->method, "DELETE")) {
		SETOPT(CURLOPT_CUSTOMREQUEST, "DELETE");
	} else {
		SETOPT(CURLOPT_BUFFERSIZE, 512L * 1024);
	}
	return 0;
bad:
	return wp_fail(&r->err, -WPE_NET, "cannot set up the request for '%s'", r->key);
}

static bool retry_status(long st, const char *code)
{
	return st == 500 || st == 502 || st == 503 || st == 504 || st == 429 ||
	       !strcmp(code, "SlowDown") || !strcmp(code, "RequestTimeout") ||
	       !strcmp(code, "InternalError");
}

static bool retry_curl(CURLcode cc)
{
	return cc == CURLE_COULDNT_CONNECT || cc == CURLE_SEND_ERROR || cc == CURLE_RECV_ERROR ||
	       cc == CURLE_PARTIAL_FILE || cc == CURLE_GOT_NOTHING ||
	       cc == CURLE_OPERATION_TIMEDOUT;
}

/* What a finished try means: 0 done, 1 try again, or a failure recorded in r->err. */
static int judge(const struct wp_s3 *s3, struct req *r, CURLcode cc)
{
	char code[64] = "";
	if (cc == CURLE_OK && r->status >= 200 && r->status < 300) {
		if (r->out_path) {
			close_out(r);
			if (wp_os_rename(r->part_path, r->out_path) < 0)
				return wp_fs_fail(&r->err, errno, "cannot rename", r->part_path);
		}
		return 0;
	}
	if (cc == CURLE_WRITE_ERROR && r->out_max >= 0 && r->got > r->out_max)
		return wp_fail(&r->err, -WPE_TOO_BIG, "'s3://%s/%s' is larger than %lld bytes",
			       s3->bucket, r->key, r->out_max);
	if (cc == CURLE_WRITE_ERROR)
		return wp_fail(&r->err, -WPE_IO, "cannot keep what 's3://%s/%s' sent%s%s",
			       s3->bucket, r->key, r->out_path ? ": writing " : "",
			       r->out_path ? r->out_path : "");
	if (cc == CURLE_ABORTED_BY_CALLBACK || cc == CURLE_READ_ERROR)
		return wp_fail(&r->err, -WPE_IO, "cannot read '%s' while sending it",
			       r->path ? r->path : r->key);
	if (cc != CURLE_OK) {
		if (retry_curl(cc) && r->tries < S3_TRIES)
			return 1;
		if (cc == CURLE_PEER_FAILED_VERIFICATION)
			return wp_fail(&r->err, -WPE_NET,
				       "cannot %s 's3://%s/%s' at '%s': %s (for a private CA, %s)",
				       r->what, s3->bucket, r->key, s3->endpoint,
				       r->errbuf[0] ? r->errbuf : curl_easy_strerror(cc),
				       wp_net_private_ca_advice(s3->net));
		return wp_fail(&r->err, -WPE_NET, "cannot %s 's3://%s/%s' at '%s': %s (%d tries)",
			       r->what, s3->bucket, r->key, s3->endpoint,
			       r->errbuf[0] ? r->errbuf : curl_easy_strerror(cc), r->tries);
	}
	error_code(s3, r->body.data, r->body.len, code, sizeof(code));
	if (r->may_miss && (r->status == 404 ||
			    (r->status == 403 && s3->anonymous && strcmp(r->method, "DELETE")))) {
		r->missing = true;
		if (r->out_path) {
			close_out(r);
			wp_os_unlink(r->part_path);
		}
		return 0;
	}
	if (retry_status(r->status, code) && r->tries < S3_TRIES)
		return 1;
	if (r->status == 403 && s3->anonymous)
		return wp_fail(&r->err, -WPE_NET,
			       "'%s' refused to %s 's3://%s/%s' without credentials (403 %s): set "
			       "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or allow anonymous reads by bucket policy",
			       s3->endpoint, r->what, s3->bucket, r->key,
			       code[0] ? code : "AccessDenied");
	if (r->status == 403 || r->status == 401)
		return wp_fail(&r->err, -WPE_NET,
			       "'%s' refused the credentials to %s 's3://%s/%s' (%ld %s): check "
			       "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY%s, and AWS_REGION ('%s')",
			       s3->endpoint, r->what, s3->bucket, r->key, r->status,
			       code[0] ? code : "AccessDenied",
			       s3->token ? " and AWS_SESSION_TOKEN" : "", s3->region);
	if (!strcmp(code, "NoSuchBucket"))
		return wp_fail(&r->err, -WPE_NET,
			       "bucket '%s' does not exist at '%s': create it first", s3->bucket,
			       s3->endpoint);
	return wp_fail(&r->err, -WPE_NET, "cannot %s 's3://%s/%s' at '%s': HTTP %ld%s%s", r->what,
		       s3->bucket, r->key, s3->endpoint, r->status, code[0] ? " " : "", code);
}

static void req_release(struct req *r)
{
	if (r->e)
		curl_easy_cleanup(r->e);
	curl_slist_free_all(r->hdrs);
	if (r->out_fd >= 0) {
		wp_os_close(r->out_fd);
		if (r->part_path)
			wp_os_unlink(r->part_path);
	} else if (r->part_path && r->result) {
		wp_os_unlink(r->part_path);
	}
	if (r->fd >= 0)
		wp_os_close(r->fd);
	free(r->part_path);
	free(r->url);
	wp_buf_free(&r->body);
	r->e = NULL;
	r->hdrs = NULL;
	r->fd = r->out_fd = -1;
	r->part_path = NULL;
	r->url = NULL;
}

static void req_init(struct req *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = r->out_fd = -1;
	r->out_max = -1;
	r->body = (struct wp_buf)WP_BUF_INIT_MAX(S3_ERRBODY_MAX + 1);
}

typedef void req_done_fn(void *ctx, struct req *r);

/* Run every request to its end, parallel at once; each one's result and message stay in it. */
static void run_reqs(const struct wp_s3 *s3, struct req **rs, size_t n, int parallel,
		     req_done_fn *done, void *ctx)
{
	if (wp_xfer_curl_start() != CURLE_OK) {
		for (size_t i = 0; i < n; i++)
			rs[i]->result = wp_fail(&rs[i]->err, -WPE_NET, "libcurl would not start");
		return;
	}
	CURLM *m = curl_multi_init();
	if (!m) {
		for (size_t i = 0; i < n; i++)
			rs[i]->result = wp_fail(&rs[i]->err, -WPE_NET, "libcurl would not start");
		return;
	}
	curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)parallel);
	size_t next = 0, left = n, low = 0;
	int active = 0;
	while (left) {
		/* start what may start: fresh ones in order, and retries whose wait is over (from
		 * the first one not done: a scan from 0 each time is quadratic in thousands of
		 * objects) */
		long long now = wp_xfer_now_ms();
		while (low < n && rs[low]->done)
			low++;
		for (size_t i = low; i < n && i <= next && active < parallel; i++) {
			struct req *r = rs[i];
			if (r->done || r->active || (i >= next && i != next) || r->not_before > now)
				continue;
			if (i == next)
				next++;
			r->tries++;
			int rc = setup(s3, r);
			if (!rc && curl_multi_add_handle(m, r->e) != CURLM_OK)
				rc = wp_fail(&r->err, -WPE_NET, "cannot start the request for '%s'",
					     r->key);
			if (rc) {
				r->result = rc;
				r->done = true;
				left--;
				close_body(r);
				if (done)
					done(ctx, r);
				continue;
			}
			r->active = true;
			active++;
		}
		int running = 0;
		curl_multi_perform(m, &running);
		CURLMsg *msg;
		int q;
		while ((msg = curl_multi_info_read(m, &q))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			struct req *r = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
			CURLcode cc = msg->data.result;
			curl_multi_remove_handle(m, msg->easy_handle);
			r->active = false;
			active--;
			int v = judge(s3, r, cc);
			if (v == 1) {
				r->not_before = wp_xfer_now_ms() + 200LL * (1LL << (r->tries - 1));
				continue;
			}
			r->result = v;
			r->done = true;
			left--;
			close_out(r);
			close_body(r);
			if (done)
				done(ctx, r);
		}
		if (left && active)
			curl_multi_poll(m, NULL, 0, 100, NULL);
		else if (left)
			wp_os_sleep_ms(20); /* only retries waiting their turn */
	}
	curl_multi_cleanup(m);
}

/* ---- ops ---- */

static const char *verb_word(enum wp_s3_verb v)
{
	switch (v) {
	case WP_S3_GET: return "download";
	case WP_S3_PUT: return "upload";
	case WP_S3_HEAD: return "look up";
	case WP_S3_DELETE: return "delete";
	case WP_S3_PUT_ACL: return "set the ACL of";
	}
	return "reach";
}

static const char *verb_method(enum wp_s3_verb v)
{
	switch (v) {
	case WP_S3_GET: return "GET";
	case WP_S3_PUT: return "PUT";
	case WP_S3_HEAD: return "HEAD";
	case WP_S3_DELETE: return "DELETE";
	case WP_S3_PUT_ACL: return "PUT";
	}
	return "GET";
}

static bool key_ok(const char *k)
{
	if (!k || !*k || strlen(k) > 1024)
		return false;
	for (const char *p = k; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* Copy a request's answer to its op. */
static void to_op(struct wp_s3_op *op, const struct req *r)
{
	op->result = r->result;
	op->status = r->status;
	op->missing = r->missing;
	op->length = op->verb == WP_S3_GET && !r->missing ? r->got : r->length;
	memcpy(op->meta_sha256, r->meta, sizeof(op->meta_sha256));
	memcpy(op->etag, r->etag, sizeof(op->etag));
}

struct small_ctx {
	struct req *reqs;
	struct wp_s3_op **ops_of;
	wp_s3_done_fn *done;
	void *ctx;
};

static void small_done(void *ctx, struct req *r)
{
	struct small_ctx *c = ctx;
	struct wp_s3_op *op = c->ops_of[r - c->reqs];
	to_op(op, r);
	if (c->done)
		c->done(c->ctx, op);
}

static char *enc_str(const char *s)
{
	struct wp_buf b = WP_BUF_INIT;
	enc(&b, s, false);
	char *r = wp_xstrdup(wp_buf_cstr(&b));
	wp_buf_free(&b);
	return r;
}

/* One request with no body sent: method on key (NULL: the bucket) with query; a small answer into
 * out (when not NULL) up to max bytes. */
static int one_req(const struct wp_s3 *s3, const char *method, const char *key, const char *query,
		   const char *what, struct wp_buf *out, long long max, bool may_miss,
		   bool *missing, struct wp_err *err)
{
	struct req r;
	req_init(&r);
	r.method = method;
	r.url = url_of(s3, key, query);
	r.key = key ? key : s3->prefix;
	r.what = what;
	r.out = out;
	r.out_max = out ? max : -1;
	r.may_miss = may_miss;
	struct req *one = &r;
	run_reqs(s3, &one, 1, 1, NULL, NULL);
	int rc = r.result;
	if (rc)
		wp_fail(err, rc, "%s", r.err.msg);
	if (missing)
		*missing = r.missing;
	req_release(&r);
	return rc;
}

int wp_s3_list_uploads(const struct wp_s3 *s3, const char *prefix, struct wp_s3_uploads *out,
		       struct wp_err *err)
{
	char *key_marker = NULL, *id_marker = NULL;
	memset(out, 0, sizeof(*out));
	int rc = need_reader(s3, err);
	if (rc)
		return rc;
	for (long long page = 0;; page++) {
		if (page >= WP_S3_LIST_MAX_KEYS / 1000 + S3_LIST_SPARE_PAGES) {
			rc = wp_fail(err, -WPE_SOURCE,
				     "'%s' said its list of unfinished uploads goes on after %lld pages",
				     s3->endpoint, page);
			break;
		}
		/* the query sorted by name, values encoded, as libcurl 7.88 signs it as written */
		struct wp_buf q = WP_BUF_INIT;
		if (key_marker) {
			wp_buf_addstr(&q, "key-marker=");
			enc(&q, key_marker, false);
			wp_buf_addch(&q, '&');
		}
		wp_buf_addstr(&q, "prefix=");
		enc(&q, prefix, false);
		if (id_marker) {
			wp_buf_addstr(&q, "&upload-id-marker=");
			enc(&q, id_marker, false);
		}
		wp_buf_addstr(&q, "&uploads=");
		struct wp_buf body = WP_BUF_INIT_MAX(S3_LIST_PAGE_MAX);
		rc = one_req(s3, "GET", NULL, q.data, "list the unfinished uploads under", &body,
			     S3_LIST_PAGE_MAX, false, NULL, err);
		wp_buf_free(&q);
		bool truncated = false;
		char *nk = NULL, *ni = NULL;
		if (!rc &&
		    (rc = s3->xml->uploads(body.data, body.len, out, &truncated, &nk, &ni, err)))
			wp_err_prefix(err, "listing the unfinished uploads of '%s' at '%s'",
				      s3->display, s3->endpoint);
		wp_buf_free(&body);
		/* a marker that does not move would loop for ever */
		if (!rc && truncated && key_marker && !strcmp(nk, key_marker) &&
		    (!ni || (id_marker && !strcmp(ni, id_marker))))
			rc = wp_fail(err, -WPE_SOURCE,
				     "'%s' lists the same unfinished uploads again", s3->endpoint);
		free(key_marker);
		free(id_marker);
		key_marker = nk;
		id_marker = ni;
		if (rc || !truncated)
			break;
	}
	free(key_marker);
	free(id_marker);
	if (rc)
		wp_s3_uploads_free(out);
	return rc;
}

int wp_s3_abort_upload(const struct wp_s3 *s3, const char *key, const char *id, struct wp_err *err)
{
	char *e = enc_str(id), *q = wp_xasprintf("uploadId=%s", e);
	int rc = one_req(s3, "DELETE", key, q, "abort the unfinished upload of", NULL, -1, true,
			 NULL, err);
	free(e);
	free(q);
	return rc;
}

/* The parts an unfinished upload holds (ListParts, paged). */
static int list_parts(const struct wp_s3 *s3, const char *key, const char *id,
		      struct wp_s3_parts *out, struct wp_err *err)
{
	int rc = need_reader(s3, err);
	if (rc)
		return rc;
	char *eid = enc_str(id);
	long marker = 0;
	for (int page = 0; page < 100; page++) {
		char *q = marker ? wp_xasprintf("part-number-marker=%ld&uploadId=%s", marker, eid) :
				   wp_xasprintf("uploadId=%s", eid);
		struct wp_buf body = WP_BUF_INIT_MAX(S3_LIST_PAGE_MAX);
		rc = one_req(s3, "GET", key, q, "list the parts of", &body, S3_LIST_PAGE_MAX, false,
			     NULL, err);
		free(q);
		bool truncated = false;
		long next = 0;
		if (!rc)
			rc = s3->xml->parts(body.data, body.len, out, &truncated, &next, err);
		wp_buf_free(&body);
		if (rc || !truncated || next <= marker)
			break;
		marker = next;
	}
	free(eid);
	return rc;
}

/* An unfinished upload of op's key to go on with: *id, and in etags[i] the ETag of each part i + 1
 * it already holds with our bytes (same size, ETag the MD5 of our range), "" for the rest. Every
 * other unfinished upload of the key goes into stale. Nothing to go on with: *id NULL. A store
 * that cannot list uploads or parts leaves nothing to resume, not a failure. */
static void find_resumable(const struct wp_s3 *s3, const struct wp_s3_op *op, long long size,
			   size_t np, char (*etags)[80], char **id, struct wp_s3_uploads *stale)
{
	struct wp_s3_uploads ups;
	struct wp_err e = WP_ERR_INIT;
	*id = NULL;
	if (!s3->part_hash || wp_s3_list_uploads(s3, op->key, &ups, &e))
		return;
	for (size_t u = 0; u < ups.n; u++) {
		if (strcmp(ups.v[u].key, op->key))
			continue; /* a longer key with ours as its prefix */
		struct wp_s3_parts parts = { 0 };
		size_t kept = 0;
		if (!*id && !list_parts(s3, op->key, ups.v[u].id, &parts, &e)) {
			for (size_t k = 0; k < parts.n; k++) {
				const struct wp_s3_part *pt = &parts.v[k];
				if (pt->number < 1 || (size_t)pt->number > np)
					continue;
				long long off = (long long)(pt->number - 1) * WP_S3_PART_SIZE;
				long long len = size - off < WP_S3_PART_SIZE ? size - off :
									       WP_S3_PART_SIZE;
				char md5[33];
				if (pt->size != len ||
				    s3->part_hash(op->path, off, len, NULL, md5, &e) ||
				    strcasecmp(md5, pt->etag))
					continue;
				snprintf(etags[pt->number - 1], 80, "%s", pt->etag);
				kept++;
			}
		}
		wp_vec_free(&parts);
		if (kept) {
			*id = ups.v[u].id;
			ups.v[u].id = NULL;
		} else {
			wp_vec_push(stale,
				    (struct wp_s3_upload){ wp_xstrdup(ups.v[u].key), ups.v[u].id });
			ups.v[u].id = NULL;
		}
	}
	if (!*id)
		for (size_t i = 0; i < np; i++)
			etags[i][0] = 0;
	wp_s3_uploads_free(&ups);
}

/* One big PUT: go on with an unfinished upload of the key when one holds some of our parts (else
 * initiate one), the missing parts in parallel, complete. A part that fails leaves the upload for
 * the next run to go on with (with part_hash set; else it is aborted); the key's other unfinished
 * uploads are aborted once it is in place. fresh: never go on with an old one. */
static int put_multipart(const struct wp_s3 *s3, struct wp_s3_op *op, int parallel, bool fresh,
			 struct wp_err *err)
{
	struct req init, fin;
	struct req *parts = NULL, **pp = NULL;
	struct wp_buf t = WP_BUF_INIT, xml = WP_BUF_INIT;
	struct wp_s3_uploads stale = { 0 };
	char *upload_id = NULL, *enc_id = NULL;
	char (*etags)[80] = NULL;
	char (*shas)[65] = NULL;
	int rc = 0;
	size_t np = 0, nsend = 0;
	bool resumed = false, keep_upload = false;
	if ((rc = need_reader(s3, err)))
		return rc;
	req_init(&init);
	req_init(&fin);
	op->parts = op->parts_kept = 0;
	op->kept_bytes = 0;
	if (!s3->part_hash) {
		/* each part signs its own sha256, or it would go up unchecked */
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' would go up in parts without their sha256, so the store could not "
			     "check their bytes",
			     op->key);
		goto out;
	}
	struct wp_os_stat sb;
	if (wp_os_stat(op->path, &sb) < 0) {
		rc = wp_fs_fail(err, errno, "cannot read", op->path);
		goto out;
	}
	if (op->size >= 0 && sb.st_size != op->size) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s' is %lld bytes, not the %lld expected",
			     op->path, (long long)sb.st_size, op->size);
		goto out;
	}
	np = (size_t)((sb.st_size + WP_S3_PART_SIZE - 1) / WP_S3_PART_SIZE);
	etags = wp_xcalloc(np, sizeof(*etags));
	if (!fresh)
		find_resumable(s3, op, (long long)sb.st_size, np, etags, &upload_id, &stale);
	resumed = upload_id != NULL;
	if (!upload_id) {
		init.method = "POST";
		init.url = url_of(s3, op->key, "uploads=");
		init.key = op->key;
		init.what = "start uploading";
		init.content_type = op->content_type;
		init.meta_sha256 = op->sha256;
		init.acl = true;
		init.keep_body = true;
		struct req *one = &init;
		run_reqs(s3, &one, 1, 1, NULL, NULL);
		if ((rc = init.result)) {
			wp_fail(err, rc, "%s", init.err.msg);
			goto out;
		}
		char id[1100];
		if (!s3->xml->upload_id(init.body.data, init.body.len, id, sizeof(id)) ||
		    strpbrk(id, "\r\n&")) {
			rc = wp_fail(err, -WPE_SOURCE,
				     "'%s' did not start a multipart upload of 's3://%s/%s'",
				     s3->endpoint, s3->bucket, op->key);
			goto out;
		}
		upload_id = wp_xstrdup(id);
	}
	enc_id = enc_str(upload_id);
	parts = wp_xcalloc(np, sizeof(*parts));
	pp = wp_xcalloc(np, sizeof(*pp));
	for (size_t i = 0; i < np; i++) {
		struct req *r = &parts[i];
		req_init(r);
		r->off = (long long)i * WP_S3_PART_SIZE;
		r->len = sb.st_size - r->off < WP_S3_PART_SIZE ? sb.st_size - r->off :
								 WP_S3_PART_SIZE;
		if (etags[i][0]) {
			op->parts_kept++;
			op->kept_bytes += r->len;
			continue;
		}
		char *q = wp_xasprintf("partNumber=%zu&uploadId=%s", i + 1, enc_id);
		r->method = "PUT";
		r->url = url_of(s3, op->key, q);
		free(q);
		r->key = op->key;
		r->what = "upload a part of";
		r->path = op->path; /* opened when it starts (setup) */
		/* each part signs its sha256, as a single PUT does: the store refuses other
		 * bytes */
		if (s3->part_hash) {
			if (!shas)
				shas = wp_xcalloc(np, sizeof(*shas));
			if ((rc = s3->part_hash(op->path, r->off, r->len, shas[i], NULL, err)))
				goto abort;
			r->payload_sha256 = shas[i];
		}
		pp[nsend++] = r;
	}
	op->parts = (int)np;
	run_reqs(s3, pp, nsend, parallel, NULL, NULL);
	for (size_t i = 0; i < nsend && !rc; i++)
		if (pp[i]->result || !pp[i]->etag[0])
			rc = wp_fail(err, pp[i]->result ? pp[i]->result : -WPE_SOURCE, "%s",
				     pp[i]->result ? pp[i]->err.msg :
						     "a part's upload got no ETag");
	if (rc) {
		/* the parts that went up stay for the next run to go on with */
		keep_upload = s3->part_hash != NULL;
		goto abort;
	}
	wp_buf_addstr(&xml, "<CompleteMultipartUpload>");
	for (size_t i = 0; i < np; i++)
		wp_buf_printf(&xml, "<Part><PartNumber>%zu</PartNumber><ETag>\"%s\"</ETag></Part>",
			      i + 1, etags[i][0] ? etags[i] : parts[i].etag);
	wp_buf_addstr(&xml, "</CompleteMultipartUpload>");
	char *q = wp_xasprintf("uploadId=%s", enc_id);
	fin.method = "POST";
	fin.url = url_of(s3, op->key, q);
	free(q);
	fin.key = op->key;
	fin.what = "finish uploading";
	fin.mem = xml.data;
	fin.len = (long long)xml.len;
	fin.keep_body = true;
	struct req *one = &fin;
	run_reqs(s3, &one, 1, 1, NULL, NULL);
	/* S3 may answer 200 with an <Error> in the body */
	char code[64];
	error_code(s3, fin.body.data, fin.body.len, code, sizeof(code));
	if ((rc = fin.result) || code[0]) {
		rc = wp_fail(err, rc ? rc : -WPE_NET, "%s%s%s",
			     rc ? fin.err.msg : "finishing the upload failed: ", rc ? "" : code,
			     "");
		goto abort;
	}
	op->result = 0;
	op->status = fin.status;
	if (resumed) {
		/* the parts kept are our bytes, but the object's metadata (sha256, type) came from
		 * the upload's start, by another run: it must be ours too */
		struct req h;
		req_init(&h);
		h.method = "HEAD";
		h.url = url_of(s3, op->key, NULL);
		h.key = op->key;
		h.what = "look up";
		struct req *hp = &h;
		run_reqs(s3, &hp, 1, 1, NULL, NULL);
		bool same = !h.result && h.length == (long long)sb.st_size &&
			    (!op->sha256 || !strcmp(h.meta, op->sha256)) &&
			    (!op->content_type || !strcmp(h.ctype, op->content_type));
		req_release(&h);
		if (!same) {
			/* put it again from the start: the object's bytes are ours, its record of
			 * them is not */
			rc = put_multipart(s3, op, parallel, true, err);
			goto out;
		}
	}
	goto out;
abort:
	if (!keep_upload) {
		struct wp_err e2 = WP_ERR_INIT;
		wp_s3_abort_upload(s3, op->key, upload_id, &e2);
	}
out:
	/* the key's other unfinished uploads: nothing of theirs was kept, and they would stay for
	 * ever */
	for (size_t i = 0; i < stale.n; i++) {
		struct wp_err e3 = WP_ERR_INIT;
		wp_s3_abort_upload(s3, stale.v[i].key, stale.v[i].id, &e3);
	}
	wp_s3_uploads_free(&stale);
	for (size_t i = 0; parts && i < np; i++)
		req_release(&parts[i]);
	free(parts);
	free(pp);
	free(etags);
	free(shas);
	req_release(&init);
	req_release(&fin);
	free(upload_id);
	free(enc_id);
	wp_buf_free(&t);
	wp_buf_free(&xml);
	if (rc)
		op->result = rc;
	return rc;
}

int wp_s3_run(const struct wp_s3 *s3, struct wp_s3_op *ops, size_t n, int parallel,
	      wp_s3_done_fn *done, void *ctx, struct wp_err *err)
{
	if (parallel <= 0)
		parallel = 16;
	struct req *reqs = wp_xcalloc(n ? n : 1, sizeof(*reqs));
	struct req **rp = wp_xcalloc(n ? n : 1, sizeof(*rp));
	struct wp_s3_op **ops_of = wp_xcalloc(n ? n : 1, sizeof(*ops_of));
	size_t nr = 0;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct wp_s3_op *op = &ops[i];
		op->result = 0;
		op->missing = false;
		op->meta_sha256[0] = op->etag[0] = 0;
		op->length = -1;
		if (!key_ok(op->key) ||
		    (op->verb == WP_S3_PUT && (!op->sha256 || strlen(op->sha256) != 64))) {
			op->result = -WPE_USAGE;
			continue;
		}
		if (op->verb == WP_S3_PUT && op->path && op->size > WP_S3_MULTIPART_MIN)
			continue; /* below, one at a time, its parts in parallel */
		struct req *r = &reqs[nr];
		req_init(r);
		r->method = verb_method(op->verb);
		r->url = url_of(s3, op->key, op->verb == WP_S3_PUT_ACL ? "acl=" : NULL);
		r->key = op->key;
		r->what = verb_word(op->verb);
		r->may_miss = op->may_miss;
		if (op->verb == WP_S3_PUT_ACL) {
			/* no body: its sha256 is the empty one's, and the ACL header says it all */
			r->payload_sha256 = WP_S3_EMPTY_SHA256;
			r->acl = true;
			r->mem = "";
			r->len = 0;
		}
		if (op->verb == WP_S3_PUT) {
			r->content_type = op->content_type;
			r->payload_sha256 = op->sha256;
			r->meta_sha256 = op->sha256;
			r->acl = true;
			if (op->path) {
				r->path = op->path; /* opened when it starts (setup) */
				r->whole = true;
				r->want = op->size;
			} else {
				r->mem = op->body;
				r->len = op->size;
			}
		} else if (op->verb == WP_S3_GET) {
			r->out_path = op->path;
			r->out = op->path ? NULL : op->out;
			r->out_max = op->size;
		}
		ops_of[nr] = op;
		rp[nr] = r;
		nr++;
	}
	struct small_ctx sc = { reqs, ops_of, done, ctx };
	run_reqs(s3, rp, nr, parallel, small_done, &sc);
	for (size_t i = 0; i < n; i++) {
		struct wp_s3_op *op = &ops[i];
		if (op->verb == WP_S3_PUT && op->path && op->size > WP_S3_MULTIPART_MIN &&
		    !op->result) {
			struct wp_err e = WP_ERR_INIT;
			put_multipart(s3, op, parallel, false, &e);
			if (op->result)
				wp_fail(err, op->result, "%s", e.msg);
			if (done)
				done(ctx, op);
		}
	}
	/* the first failure in array order speaks */
	for (size_t i = 0; i < n && !rc; i++) {
		if (!ops[i].result)
			continue;
		rc = ops[i].result;
		if (!key_ok(ops[i].key)) {
			wp_err_clear(err);
			wp_fail(err, rc, "'%s' is no key S3 can take",
				ops[i].key ? ops[i].key : "(null)");
		} else if (ops[i].verb == WP_S3_PUT &&
			   (!ops[i].sha256 || strlen(ops[i].sha256) != 64)) {
			wp_err_clear(err);
			wp_fail(err, rc,
				"'%s' would go up without its sha256, so the store could not check its bytes",
				ops[i].key);
		}
		for (size_t k = 0; k < nr; k++)
			if (ops_of[k] == &ops[i] && reqs[k].result) {
				wp_err_clear(err);
				wp_fail(err, rc, "%s", reqs[k].err.msg);
			}
	}
	for (size_t k = 0; k < nr; k++)
		req_release(&reqs[k]);
	free(reqs);
	free(rp);
	free(ops_of);
	return rc;
}

int wp_s3_reach(const struct wp_s3 *s3, struct wp_err *err)
{
	struct wp_buf q = WP_BUF_INIT, body = WP_BUF_INIT_MAX(S3_LIST_PAGE_MAX);
	struct wp_s3_listing one = { 0 };
	bool truncated = false;
	char *next = NULL;
	int rc = need_reader(s3, err);
	if (rc)
		return rc;
	wp_buf_addstr(&q, "list-type=2&max-keys=1&prefix=");
	enc(&q, s3->prefix, false);
	rc = one_req(s3, "GET", NULL, q.data, "list", &body, S3_LIST_PAGE_MAX, false, NULL, err);
	if (!rc && (rc = s3->xml->list(body.data, body.len, &one, &truncated, &next, err)))
		wp_err_prefix(err, "listing '%s' at '%s'", s3->display, s3->endpoint);
	free(next);
	wp_s3_listing_free(&one);
	wp_buf_free(&q);
	wp_buf_free(&body);
	return rc;
}

int wp_s3_list(const struct wp_s3 *s3, const char *prefix, struct wp_s3_listing *out,
	       struct wp_err *err)
{
	char *token = NULL;
	long long page_keys = s3->list_page;
	memset(out, 0, sizeof(*out));
	int rc = need_reader(s3, err);
	if (rc)
		return rc;
	/* a store whose listing never ends (IsTruncated for ever, the same token again, the same
	 * keys under fresh tokens, empty pages) is stopped: keys come in UTF-8 binary order across
	 * pages */
	long long max_pages = WP_S3_LIST_MAX_KEYS / (page_keys ? page_keys : 1000) +
			      S3_LIST_SPARE_PAGES;
	int empty_run = 0;
	for (long long page = 0;; page++) {
		if (page >= max_pages) {
			rc = wp_fail(err, -WPE_SOURCE,
				     "listing '%s' at '%s': the store said the listing goes on after %lld "
				     "pages; its listing is broken",
				     s3->display, s3->endpoint, page);
			break;
		}
		size_t had = out->n;
		struct wp_buf q = WP_BUF_INIT;
		/* SigV4 signs the query sorted by name, and libcurl 7.88 signs it as written */
		if (token) {
			wp_buf_addstr(&q, "continuation-token=");
			enc(&q, token, false);
			wp_buf_addch(&q, '&');
		}
		wp_buf_addstr(&q, "list-type=2");
		if (page_keys)
			wp_buf_printf(&q, "&max-keys=%lld", page_keys);
		wp_buf_addstr(&q, "&prefix=");
		enc(&q, prefix, false);
		struct req r;
		req_init(&r);
		struct wp_buf body = WP_BUF_INIT_MAX(S3_LIST_PAGE_MAX);
		r.method = "GET";
		r.url = url_of(s3, NULL, q.data);
		wp_buf_free(&q);
		r.key = prefix;
		r.what = "list";
		r.out = &body;
		r.out_max = S3_LIST_PAGE_MAX;
		struct req *one = &r;
		run_reqs(s3, &one, 1, 1, NULL, NULL);
		bool truncated = false;
		char *next = NULL;
		if ((rc = r.result))
			wp_fail(err, rc, "%s", r.err.msg);
		else if ((rc = s3->xml->list(body.data, body.len, out, &truncated, &next, err)))
			wp_err_prefix(err, "listing '%s' at '%s'", s3->display, s3->endpoint);
		req_release(&r);
		wp_buf_free(&body);
		if (!rc && truncated && token && !strcmp(next, token))
			rc = wp_fail(err, -WPE_SOURCE,
				     "listing '%s' at '%s': the store gave the same continuation token "
				     "again after %lld pages; its listing is broken",
				     s3->display, s3->endpoint, page + 1);
		else if (!rc && had && out->n > had &&
			 strcmp(out->v[had].key, out->v[had - 1].key) <= 0)
			rc = wp_fail(err, -WPE_SOURCE,
				     "listing '%s' at '%s': page %lld starts with a key listed before "
				     "('%.200s'); its listing is broken",
				     s3->display, s3->endpoint, page + 1, out->v[had].key);
		else if (!rc && truncated &&
			 (empty_run = out->n > had ? 0 : empty_run + 1) >= S3_LIST_EMPTY_RUN)
			rc = wp_fail(err, -WPE_SOURCE,
				     "listing '%s' at '%s': %d pages in a row that list nothing, and "
				     "the store says it goes on; its listing is broken",
				     s3->display, s3->endpoint, empty_run);
		free(token);
		token = next;
		if (rc || !truncated)
			break;
	}
	free(token);
	if (!rc && out->n)
		qsort(out->v, out->n, sizeof(*out->v), obj_cmp);
	if (rc)
		wp_s3_listing_free(out);
	return rc;
}
