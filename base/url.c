/* base/url.c: RFC 3986 reference resolution that keeps bytes as written, and link parts. */
#include "base/url.h"

#include "base/buf.h"
#include "base/mem.h"
#include "base/str.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct parts {
	struct wp_str scheme, auth, path, query, frag;
	bool has_scheme, has_auth, has_query, has_frag;
};

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Characters a URI may hold as they are (RFC 3986 unreserved, reserved and '%'). */
static bool uri_char(unsigned char c)
{
	/* a table, not strchr: every byte of every link on a page passes through here */
	static const bool punct[128] = {
		['-'] = 1, ['.'] = 1, ['_'] = 1,  ['~'] = 1, [':'] = 1, ['/'] = 1,
		['?'] = 1, ['#'] = 1, ['['] = 1,  [']'] = 1, ['@'] = 1, ['!'] = 1,
		['$'] = 1, ['&'] = 1, ['\''] = 1, ['('] = 1, [')'] = 1, ['*'] = 1,
		['+'] = 1, [','] = 1, [';'] = 1,  ['='] = 1, ['%'] = 1,
	};
	return is_alpha(c) || is_digit(c) || (c < 128 && punct[c]);
}

/* Split per RFC 3986 appendix B; a scheme must be ALPHA *(ALPHA / DIGIT / + - .). */
static int split(struct wp_str s, struct parts *u)
{
	memset(u, 0, sizeof(*u));
	size_t i = 0;
	while (i < s.n && !strchr(":/?#", s.p[i]))
		i++;
	if (i < s.n && s.p[i] == ':') {
		if (i == 0 || !is_alpha((unsigned char)s.p[0]))
			return -1;
		for (size_t k = 1; k < i; k++) {
			unsigned char c = (unsigned char)s.p[k];
			if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.')
				return -1;
		}
		u->scheme = WP_STRN(s.p, i);
		u->has_scheme = true;
		s.p += i + 1;
		s.n -= i + 1;
	}
	if (s.n >= 2 && s.p[0] == '/' && s.p[1] == '/') {
		size_t k = 2;
		while (k < s.n && !strchr("/?#", s.p[k]))
			k++;
		u->auth = WP_STRN(s.p + 2, k - 2);
		u->has_auth = true;
		s.p += k;
		s.n -= k;
	}
	size_t k = 0;
	while (k < s.n && s.p[k] != '?' && s.p[k] != '#')
		k++;
	u->path = WP_STRN(s.p, k);
	s.p += k;
	s.n -= k;
	if (s.n && s.p[0] == '?') {
		k = 1;
		while (k < s.n && s.p[k] != '#')
			k++;
		u->query = WP_STRN(s.p + 1, k - 1);
		u->has_query = true;
		s.p += k;
		s.n -= k;
	}
	if (s.n && s.p[0] == '#') {
		u->frag = WP_STRN(s.p + 1, s.n - 1);
		u->has_frag = true;
	}
	return 0;
}

/* Drop the last segment of out, and the '/' before it (RFC 3986 5.2.4 step C). */
static void pop_segment(struct wp_buf *out)
{
	size_t n = out->len;
	while (n > 0 && out->data[n - 1] != '/')
		n--;
	out->len = n ? n - 1 : 0;
	if (out->data)
		out->data[out->len] = 0;
}

/* Whether a path has a "." or ".." segment. */
static bool has_dot_segment(struct wp_str in)
{
	for (const char *p = in.p, *end = in.p + in.n; (p = memchr(p, '.', (size_t)(end - p)));
	     p++) {
		bool starts = p == in.p || p[-1] == '/';
		const char *q = p + 1 < end && p[1] == '.' ? p + 2 : p + 1;
		if (starts && (q == end || *q == '/'))
			return true;
	}
	return false;
}

static int remove_dots(struct wp_str in, struct wp_buf *out)
{
	const char *p = in.p, *end = in.p + in.n;
	/* most paths have none: they are kept whole */
	if (!has_dot_segment(in))
		return wp_buf_add(out, in.p, in.n);
	while (p < end) {
		size_t n = (size_t)(end - p);
		if (n >= 3 && !memcmp(p, "../", 3)) {
			p += 3;
		} else if (n >= 2 && !memcmp(p, "./", 2)) {
			p += 2;
		} else if (n >= 3 && !memcmp(p, "/./", 3)) {
			p += 2;
		} else if (n == 2 && !memcmp(p, "/.", 2)) {
			return wp_buf_addch(out, '/');
		} else if (n >= 4 && !memcmp(p, "/../", 4)) {
			p += 3;
			pop_segment(out);
		} else if (n == 3 && !memcmp(p, "/..", 3)) {
			pop_segment(out);
			return wp_buf_addch(out, '/');
		} else if ((n == 1 && p[0] == '.') || (n == 2 && !memcmp(p, "..", 2))) {
			p = end;
		} else {
			const char *q = p + 1;
			while (q < end && *q != '/')
				q++;
			if (wp_buf_add(out, p, (size_t)(q - p)) < 0)
				return -1;
			p = q;
		}
	}
	return 0;
}

/* Trim, drop tabs and newlines, percent-encode what a URI cannot hold; -1 on control chars.
 * The bytes kept as they are go into out a run at a time. */
static int clean_ref(const char *ref, struct wp_buf *out)
{
	struct wp_str s = wp_str_trim(WP_STR(ref));
	size_t run = 0; /* where the bytes not yet added, all kept as they are, start */
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (c == '%' ? i + 2 < s.n && wp_hexval((unsigned char)s.p[i + 1]) >= 0 &&
				       wp_hexval((unsigned char)s.p[i + 2]) >= 0
			     : uri_char(c))
			continue;
		if (wp_buf_add(out, s.p + run, i - run) < 0)
			return -1;
		run = i + 1;
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c < 0x20 || c == 0x7f)
			return -2;
		if (wp_buf_printf(out, "%%%02X", c) < 0)
			return -1;
	}
	return wp_buf_add(out, s.p + run, s.n - run) < 0 ? -1 : 0;
}

static int add_str(struct wp_buf *b, struct wp_str s)
{
	return wp_buf_add(b, s.p, s.n);
}

static int compose(const struct parts *b, const struct parts *r, struct wp_buf *out)
{
	struct wp_buf path = WP_BUF_INIT_MAX(WP_URL_MAX);
	const struct parts *auth_from = r->has_scheme || r->has_auth ? r : b;
	struct wp_str query = r->query;
	bool has_query = r->has_query;
	int rc = 0;

	if (r->has_scheme || r->has_auth) {
		rc = remove_dots(r->path, &path);
	} else if (r->path.n == 0) {
		/* RFC 3986 copies the base path as it is; a base with dot segments ("a:..") would
		 * then not resolve to a fixed point, so they go here too */
		rc = remove_dots(b->path, &path);
		if (!has_query) {
			query = b->query;
			has_query = b->has_query;
		}
	} else if (r->path.p[0] == '/') {
		rc = remove_dots(r->path, &path);
	} else {
		struct wp_buf merged = WP_BUF_INIT_MAX(WP_URL_MAX);
		if (b->has_auth && b->path.n == 0) {
			rc = wp_buf_addch(&merged, '/');
		} else {
			size_t k = b->path.n;
			while (k > 0 && b->path.p[k - 1] != '/')
				k--;
			rc = wp_buf_add(&merged, b->path.p, k);
		}
		if (!rc)
			rc = add_str(&merged, r->path);
		if (!rc)
			rc = remove_dots(WP_STRN(wp_buf_cstr(&merged), merged.len), &path);
		wp_buf_free(&merged);
	}
	if (rc)
		goto out;

	const struct parts *scheme_from = r->has_scheme ? r : b;
	size_t start = out->len;
	rc = wp_buf_add(out, scheme_from->scheme.p, scheme_from->scheme.n);
	for (size_t i = start; i < out->len && !rc; i++)
		if (out->data[i] >= 'A' && out->data[i] <= 'Z')
			out->data[i] = (char)(out->data[i] - 'A' + 'a');
	rc = rc ? rc : wp_buf_addch(out, ':');
	if (!rc && auth_from->has_auth) {
		rc = wp_buf_addstr(out, "//");
		rc = rc ? rc : add_str(out, auth_from->auth);
	}
	rc = rc ? rc : wp_buf_add(out, wp_buf_cstr(&path), path.len);
	if (!rc && has_query) {
		rc = wp_buf_addch(out, '?');
		rc = rc ? rc : add_str(out, query);
	}
	if (!rc && r->has_frag) {
		rc = wp_buf_addch(out, '#');
		rc = rc ? rc : add_str(out, r->frag);
	}
out:
	wp_buf_free(&path);
	return rc;
}

bool wp_url_scheme_ok(const char *url)
{
	return !strncasecmp(url, "http:", 5) || !strncasecmp(url, "https:", 6) ||
	       !strncasecmp(url, "file:", 5);
}

size_t wp_url_scheme_len(const char *arg)
{
	/* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":", here followed by "/"; one
	 * letter is a drive ("C:/x") */
	size_t n = 0;
	if (!arg || !isalpha((unsigned char)arg[0]))
		return 0;
	while (isalnum((unsigned char)arg[n]) || arg[n] == '+' || arg[n] == '-' || arg[n] == '.')
		n++;
	return n > 1 && arg[n] == ':' && arg[n + 1] == '/' ? n : 0;
}

bool wp_url_is_s3(const char *arg)
{
	return wp_url_scheme_len(arg) == 2 && !strncasecmp(arg, "s3", 2);
}

enum wp_url_kind wp_url_kind_of(const char *url)
{
	if (!strncasecmp(url, "https:", 6))
		return WP_URL_HTTPS;
	if (!strncasecmp(url, "http:", 5))
		return WP_URL_HTTP;
	if (!strncasecmp(url, "file:", 5))
		return WP_URL_FILE;
	return WP_URL_OTHER;
}

const char *wp_url_link_refused(const char *page, const char *link)
{
	enum wp_url_kind p = wp_url_kind_of(page), l = wp_url_kind_of(link);
	if (l == WP_URL_OTHER)
		return "is not an http, https or file URL";
	/* a page from the network must not make us read this machine's files */
	if ((p == WP_URL_HTTP || p == WP_URL_HTTPS) && l == WP_URL_FILE)
		return "points at a local file from a page on the network";
	/* nor take what TLS protected on a link anyone on the path can rewrite */
	if (p == WP_URL_HTTPS && l == WP_URL_HTTP)
		return "leaves https for plain http";
	return NULL;
}

int wp_url_resolve(const char *base, const char *ref, char **out, struct wp_err *err)
{
	struct wp_buf cbase = WP_BUF_INIT_MAX(WP_URL_MAX);
	struct wp_buf clean = WP_BUF_INIT_MAX(WP_URL_MAX);
	struct wp_buf res = WP_BUF_INIT_MAX(WP_URL_MAX);
	struct parts b, r;
	int rc = 0;

	*out = NULL;
	/* the base gets the same repairs as the reference, so resolving a result again against
	 * the same base gives the result back */
	if (clean_ref(base, &cbase) || split(WP_STRN(wp_buf_cstr(&cbase), cbase.len), &b) < 0 ||
	    !b.has_scheme) {
		rc = wp_fail(err, -WPE_PARSE, "base URL '%.200s' is not absolute", base);
		goto out;
	}
	rc = clean_ref(ref, &clean);
	if (rc == -2) {
		rc = wp_fail(err, -WPE_PARSE, "link '%.200s' holds a control character", ref);
		goto out;
	} else if (rc) {
		rc = wp_fail(err, -WPE_PARSE, "link '%.200s...' is longer than %d bytes", ref,
			     WP_URL_MAX);
		goto out;
	}
	if (split(WP_STRN(wp_buf_cstr(&clean), clean.len), &r) < 0) {
		rc = wp_fail(err, -WPE_PARSE, "link '%.200s' has a malformed scheme", ref);
		goto out;
	}
	rc = compose(&b, &r, &res);
	if (rc) {
		rc = wp_fail(err, -WPE_PARSE, "link '%.200s' resolves to more than %d bytes", ref,
			     WP_URL_MAX);
		goto out;
	}
	*out = wp_buf_detach(&res, NULL);
out:
	wp_buf_free(&cbase);
	wp_buf_free(&clean);
	wp_buf_free(&res);
	return rc;
}

bool wp_url_hex_lower(const char *s, size_t n, size_t want, char *out)
{
	/* a table: every sha256 and md5 of a 300,000-record repodata passes through here */
	static const char lower[256] = {
		['0'] = '0', ['1'] = '1', ['2'] = '2', ['3'] = '3', ['4'] = '4', ['5'] = '5',
		['6'] = '6', ['7'] = '7', ['8'] = '8', ['9'] = '9', ['a'] = 'a', ['b'] = 'b',
		['c'] = 'c', ['d'] = 'd', ['e'] = 'e', ['f'] = 'f', ['A'] = 'a', ['B'] = 'b',
		['C'] = 'c', ['D'] = 'd', ['E'] = 'e', ['F'] = 'f',
	};
	if (n != want)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = lower[(unsigned char)s[i]];
		if (!c)
			return false;
		out[i] = c;
	}
	out[n] = 0;
	return true;
}

int wp_url_decode(const char *s, size_t n, char **out, struct wp_err *err)
{
	char *d = wp_xmalloc(n + 1);
	size_t k = 0;
	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == '%') {
			int hi = i + 2 < n ? wp_hexval((unsigned char)s[i + 1]) : -1;
			int lo = hi >= 0 ? wp_hexval((unsigned char)s[i + 2]) : -1;
			if (hi < 0 || lo < 0) {
				free(d);
				return wp_fail(err, -WPE_PARSE, "'%.*s' has a bad percent escape",
					       (int)(n > 200 ? 200 : n), s);
			}
			c = hi * 16 + lo;
			i += 2;
		}
		if (c == 0) {
			free(d);
			return wp_fail(err, -WPE_PARSE, "'%.*s' holds a NUL byte",
				       (int)(n > 200 ? 200 : n), s);
		}
		d[k++] = (char)c;
	}
	d[k] = 0;
	*out = d;
	return 0;
}

bool wp_url_filename_ok(const char *name)
{
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\')
			return false;
	return true;
}

int wp_url_fragment_hashes(const char *frag, size_t n, struct wp_url_hashes *h, struct wp_err *err)
{
	char *dec = NULL;
	int rc = 0;

	h->sha256[0] = h->md5[0] = 0;
	/* A fragment that does not decode carries no hash we could use; it is not ours to judge. */
	if (wp_url_decode(frag, n, &dec, NULL) < 0)
		return 0;
	struct wp_str s = WP_STR(dec);
	while (s.n) {
		struct wp_str kv = wp_str_cut(&s, '&');
		struct wp_str key = wp_str_cut(&kv, '=');
		if (wp_str_ieq(key, "sha256")) {
			if (!wp_url_hex_lower(kv.p, kv.n, 64, h->sha256)) {
				rc = wp_fail(err, -WPE_PARSE, "sha256 '%.*s' is not 64 hex digits",
					     (int)(kv.n > 100 ? 100 : kv.n), kv.p);
				goto out;
			}
		} else if (wp_str_ieq(key, "md5")) {
			if (!wp_url_hex_lower(kv.p, kv.n, 32, h->md5)) {
				rc = wp_fail(err, -WPE_PARSE, "md5 '%.*s' is not 32 hex digits",
					     (int)(kv.n > 100 ? 100 : kv.n), kv.p);
				goto out;
			}
		}
	}
out:
	if (rc)
		h->sha256[0] = h->md5[0] = 0;
	free(dec);
	return rc;
}

void wp_url_link_release(struct wp_url_link *link)
{
	free(link->url);
	free(link->filename);
	free(link->dir);
	memset(link, 0, sizeof(*link));
}

int wp_url_link_parse(const char *base, const char *href, struct wp_url_link *link,
		      struct wp_err *err)
{
	char *abs = NULL;
	struct parts u;
	int rc = 0;

	memset(link, 0, sizeof(*link));
	if (strlen(href) > WP_HREF_MAX)
		return wp_fail(err, -WPE_PARSE, "link '%.100s...' is longer than %d bytes", href,
			       WP_HREF_MAX);
	if (!wp_str_trim(WP_STR(href)).n)
		return wp_fail(err, -WPE_PARSE, "link has an empty href");
	rc = wp_url_resolve(base, href, &abs, err);
	if (rc)
		goto out;
	if (!wp_url_scheme_ok(abs)) {
		rc = wp_fail(err, -WPE_PARSE, "link '%.200s' is not an http, https or file URL",
			     href);
		goto out;
	}
	split(WP_STR(abs), &u);
	if (u.has_frag) {
		rc = wp_url_fragment_hashes(u.frag.p, u.frag.n, &link->hashes, err);
		if (rc) {
			wp_err_prefix(err, "link '%.200s'", href);
			goto out;
		}
		abs[u.frag.p - 1 - abs] = 0;
	}
	const char *end = u.path.p + u.path.n;
	const char *slash = u.path.n ? memrchr(u.path.p, '/', u.path.n) : NULL;
	struct wp_str name = slash ? WP_STRN(slash + 1, (size_t)(end - slash - 1)) : u.path;
	rc = wp_url_decode(name.p, name.n, &link->filename, err);
	if (rc || !wp_url_filename_ok(link->filename)) {
		rc = wp_fail(err, -WPE_PARSE, "link '%.200s' does not name a usable file", href);
		goto out;
	}
	if (slash) {
		const char *prev = slash > u.path.p ?
					   memrchr(u.path.p, '/', (size_t)(slash - u.path.p)) :
					   NULL;
		const char *d = prev ? prev + 1 : u.path.p;
		if (slash > d && wp_url_decode(d, (size_t)(slash - d), &link->dir, NULL) == 0 &&
		    !wp_url_filename_ok(link->dir)) {
			free(link->dir);
			link->dir = NULL;
		}
	}
	link->url = abs;
	abs = NULL;
out:
	free(abs);
	if (rc)
		wp_url_link_release(link);
	return rc;
}

int wp_url_name_parts(const char *url, char **filename, char **dir, struct wp_err *err)
{
	struct parts u;
	*filename = NULL;
	if (dir)
		*dir = NULL;
	if (split(WP_STR(url), &u) < 0)
		return wp_fail(err, -WPE_PARSE, "'%.200s' is not a URL", url);
	const char *end = u.path.p + u.path.n;
	const char *slash = u.path.n ? memrchr(u.path.p, '/', u.path.n) : NULL;
	struct wp_str name = slash ? WP_STRN(slash + 1, (size_t)(end - slash - 1)) : u.path;
	if (wp_url_decode(name.p, name.n, filename, NULL) < 0 || !wp_url_filename_ok(*filename)) {
		free(*filename);
		*filename = NULL;
		return wp_fail(err, -WPE_PARSE, "'%.200s' does not name a usable file", url);
	}
	if (dir && slash) {
		const char *prev = slash > u.path.p ?
					   memrchr(u.path.p, '/', (size_t)(slash - u.path.p)) :
					   NULL;
		const char *d = prev ? prev + 1 : u.path.p;
		if (slash > d && wp_url_decode(d, (size_t)(slash - d), dir, NULL) == 0 &&
		    !wp_url_filename_ok(*dir)) {
			free(*dir);
			*dir = NULL;
		}
	}
	return 0;
}

int wp_url_join_segment_buf(const char *base, const char *name, struct wp_buf *b)
{
	size_t n = strlen(base);
	int rc = 0;

	wp_buf_reset(b);
	while (n > 0 && base[n - 1] == '/')
		n--;
	rc = wp_buf_add(b, base, n);
	rc = rc ? rc : wp_buf_addch(b, '/');
	/* one segment: everything outside unreserved and sub-delims is escaped; runs that need
	 * none go in whole (a conda crawl builds 300,000 of these: a call per byte was 4% of it) */
	for (const char *p = name; *p && !rc;) {
		const char *q = p;
		while (*q && (is_alpha((unsigned char)*q) || is_digit((unsigned char)*q) ||
			      strchr("-._~!$&'()*+,;=@:", *q)))
			q++;
		rc = wp_buf_add(b, p, (size_t)(q - p));
		p = q;
		if (*p && !rc) {
			rc = wp_buf_printf(b, "%%%02X", (unsigned char)*p);
			p++;
		}
	}
	return rc;
}

int wp_url_join_segment(const char *base, const char *name, char **out, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT_MAX(WP_URL_MAX);

	if (wp_url_join_segment_buf(base, name, &b) < 0) {
		*out = NULL;
		wp_buf_free(&b);
		return wp_fail(err, -WPE_PARSE, "URL for '%.200s' is longer than %d bytes", name,
			       WP_URL_MAX);
	}
	*out = wp_buf_detach(&b, NULL);
	return 0;
}
