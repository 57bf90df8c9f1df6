/* base/url.h: URL reference resolution (RFC 3986 section 5) and the parts an index link carries.
 * Ownership: every char * handed out (through char ** or in struct wp_url_link) is malloc'd and
 * belongs to the caller; wp_url_link_release frees a link's. Inputs are only borrowed. */
#ifndef WP_URL_H
#define WP_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define WP_URL_MAX  16384 /* a resolved URL longer than this is refused */
#define WP_HREF_MAX 8192  /* an href longer than this is refused */

/* Resolve ref against the absolute base. Nothing is decoded or normalised beyond dot segments
 * and the scheme's case, so "%2B" stays "%2B" (S3 reads a raw '+' in a path as a space, which
 * is why libxml2's xmlBuildURI, which decodes it, is not used). As browsers do, whitespace
 * around ref is trimmed, tabs and newlines inside it are dropped, and spaces, non-ASCII bytes
 * and characters a URL cannot hold are percent-encoded. -WPE_PARSE for a control character, a
 * bad scheme or a base that is not absolute. The result keeps ref's fragment. */
int wp_url_resolve(const char *base, const char *ref, char **out, struct wp_err *err);

/* true when url starts with http:, https: or file: (any case) */
bool wp_url_scheme_ok(const char *url);

/* The length of arg's scheme when arg is written as a URL ("s3://b/p", "s3:/b", "HTTP://h/": 2, 2,
 * 4), else 0 ("dir", "./s3://b", "C:/x", "a:b"). Where a command takes a folder or file, such an
 * argument is a URL it must accept or refuse, never a relative path beginning "s3:". */
size_t wp_url_scheme_len(const char *arg);
/* arg is written as an s3:// URL (any case), as wp_url_scheme_len reads URLs. */
bool wp_url_is_s3(const char *arg);

enum wp_url_kind { WP_URL_OTHER, WP_URL_FILE, WP_URL_HTTP, WP_URL_HTTPS };
/* By the scheme, in any case. */
enum wp_url_kind wp_url_kind_of(const char *url);

/* May a page found at page send us to link? Never to another scheme than http, https or file; a
 * page from the network never to a local file (file:), and an https page never to plain http.
 * NULL when allowed, else why not ("leaves https for plain http"). Redirects are net/'s to
 * police. */
const char *wp_url_link_refused(const char *page, const char *link);

/* The percent-decoded last path segment of url (query and fragment ignored), checked by
 * wp_url_filename_ok, and (dir not NULL) the segment before it, or NULL when there is none or it
 * is no usable name. -WPE_PARSE when the URL names no usable file; both NULL then. */
int wp_url_name_parts(const char *url, char **filename, char **dir, struct wp_err *err);

/* Copy n hex digits from s into out (n + 1 bytes) in lower case; false unless s is exactly
 * want hex digits. */
bool wp_url_hex_lower(const char *s, size_t n, size_t want, char *out);

/* Percent-decode s[0..n) into a new string; -WPE_PARSE for a bad escape or a NUL byte. */
int wp_url_decode(const char *s, size_t n, char **out, struct wp_err *err);

/* A usable file name: not empty, not "." or "..", no '/', '\\', NUL or control characters. */
bool wp_url_filename_ok(const char *name);

struct wp_url_hashes {
	char sha256[65]; /* lowercase hex, "" when absent */
	char md5[33];
};

/* Hashes from a URL fragment ("sha256=...", "md5=...", "egg=x&sha256=..."), percent-decoded
 * first. Other hash names and other keys are ignored; sha256 or md5 with a value that is not
 * 64 or 32 hex digits is -WPE_PARSE, so a broken hash is never silently dropped. */
int wp_url_fragment_hashes(const char *frag, size_t n, struct wp_url_hashes *h, struct wp_err *err);

struct wp_url_link {
	char *url;       /* absolute http/https/file URL, fragment removed */
	char *filename;  /* percent-decoded last path segment, checked by wp_url_filename_ok */
	char *dir;       /* percent-decoded last directory segment of url ("cu102"), or NULL */
	struct wp_url_hashes hashes;
};

/* Everything a link to a file says: resolve href against base, split off the hash fragment,
 * and name the file and its directory. -WPE_PARSE (message names the href) when the href is
 * too long, resolves to another scheme, names no file, or carries a malformed hash. On
 * failure link holds nothing. */
int wp_url_link_parse(const char *base, const char *href, struct wp_url_link *link,
		      struct wp_err *err);
void wp_url_link_release(struct wp_url_link *link);

/* base + "/" + name, with name percent-encoded as a single path segment (conda file names
 * into a channel subdir URL); a trailing '/' on base is not doubled. */
int wp_url_join_segment(const char *base, const char *name, char **out, struct wp_err *err);
/* The same, appended to out (reset first), so a caller making many reuses one buffer; -1 past
 * out's ceiling. */
int wp_url_join_segment_buf(const char *base, const char *name, struct wp_buf *out);

#endif
