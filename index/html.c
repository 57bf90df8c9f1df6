/* index/html.c: find-links and PEP 503 pages through libxml2's HTML SAX parser, bounded. */
#include "index/html.h"
#include "index/htmlpath.h"
#include "index/variants.h"

#include "base/buf.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/url.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TEXT_MAX   512 /* title, h1 and anchor text kept for detection and names */

struct page {
	const char *page_url;
	const char *project;
	bool roots;               /* reading a root page: anchors name projects */
	wp_record_fn *sink;
	wp_project_fn *name_sink;
	void *ctx;
	struct wp_index_stats *stats;
	struct wp_err *err;
	htmlParserCtxtPtr parser;
	int rc;

	char *base;               /* <base href>, resolved; NULL = page_url */
	unsigned long anchors;
	unsigned depth;
	bool in_a, in_title, in_h1, in_script;
	bool has_text;            /* non-blank text outside anchors and scripts */
	bool pep503;              /* "<h1>Links for" or <meta name="pypi:repository-version"> */
	struct wp_buf title, h1, atext;
	char *ahref;              /* root pages: href of the open anchor */
	enum wp_html_path path;
};

static void stop(struct page *pg, int rc)
{
	if (!pg->rc)
		pg->rc = rc;
	if (pg->parser) /* the fast path has none: it stops on pg->rc */
		xmlStopParser(pg->parser);
}

static const char *attr(const xmlChar **atts, const char *name, bool *present)
{
	if (present)
		*present = false;
	for (size_t i = 0; atts && atts[i]; i += 2) {
		if (!strcasecmp((const char *)atts[i], name)) {
			if (present)
				*present = true;
			return atts[i + 1] ? (const char *)atts[i + 1] : "";
		}
	}
	return NULL;
}

enum wp_file_kind wp_index_file_kind(const char *filename)
{
	static const char *const sdists[] = { ".tar.gz", ".zip", ".tar.bz2", ".tgz", ".tar.xz" };
	struct wp_str s = WP_STR(filename);
	size_t n = s.n;

	if (n > 4 && !strcasecmp(filename + n - 4, ".whl"))
		return WP_KIND_WHEEL;
	if (wp_variants_json_name(filename))
		return WP_KIND_VARIANTS;
	for (size_t i = 0; i < WP_ARRAY_LEN(sdists); i++) {
		size_t k = strlen(sdists[i]);
		if (n > k && !strcasecmp(filename + n - k, sdists[i]))
			return WP_KIND_SDIST;
	}
	return WP_KIND_UNKNOWN;
}

/* PEP 658/714 value: NULL for none, "true", or "sha256=<lowercase hex>" into out. */
static const char *core_metadata(const char *v, char *out, size_t outsz)
{
	if (!v || !strcasecmp(v, "false"))
		return NULL;
	const char *eq = strchr(v, '=');
	if (!eq)
		return "true";
	if ((size_t)(eq - v) == 6 && !strncasecmp(v, "sha256", 6)) {
		if (outsz < 7 + 65 || !wp_url_hex_lower(eq + 1, strlen(eq + 1), 64, out + 7))
			return NULL; /* a hash we cannot check is worse than no metadata */
		memcpy(out, "sha256=", 7);
		return out;
	}
	return "true";
}

static void skip(struct page *pg, bool malformed)
{
	pg->stats->skipped++;
	if (malformed)
		pg->stats->malformed++;
}

/* A link the page may not make (wp_url_link_refused): skipped as malformed, and counted apart. */
static bool refused(struct page *pg, const char *url)
{
	if (!wp_url_link_refused(pg->page_url, url))
		return false;
	skip(pg, true);
	pg->stats->refused++;
	return true;
}

static void file_anchor(struct page *pg, const char *href, const xmlChar **atts)
{
	struct wp_url_link link;
	char cm[80];
	bool yanked_present;

	if (wp_url_link_parse(pg->base ? pg->base : pg->page_url, href, &link, NULL) < 0) {
		skip(pg, true);
		return;
	}
	if (refused(pg, link.url))
		goto out;
	enum wp_file_kind kind = wp_index_file_kind(link.filename);
	if (kind == WP_KIND_UNKNOWN) {
		skip(pg, false);
		goto out;
	}
	const char *rp = attr(atts, "data-requires-python", NULL);
	const char *yanked = attr(atts, "data-yanked", &yanked_present);
	bool core_present;
	const char *core = attr(atts, "data-core-metadata", &core_present);
	if (!core_present)
		core = attr(atts, "data-dist-info-metadata", NULL);
	/* PEP 740: data-provenance, a URL (resolved as the href is; never one the page may not
	 * make) */
	const char *pv = attr(atts, "data-provenance", NULL);
	char *prov = NULL;
	if (pv && pv[0] &&
	    (wp_url_resolve(pg->base ? pg->base : pg->page_url, pv, &prov, NULL) < 0 ||
	     wp_url_link_refused(pg->page_url, prov))) {
		free(prov);
		prov = NULL;
	}

	struct wp_file_record rec = {
		.kind = kind,
		.filename = link.filename,
		.url = link.url,
		.dir = link.dir,
		.project = pg->project,
		.sha256 = link.hashes.sha256[0] ? link.hashes.sha256 : NULL,
		.md5 = link.hashes.md5[0] ? link.hashes.md5 : NULL,
		.requires_python = rp && rp[0] ? rp : NULL,
		.yanked = yanked_present ? yanked : NULL,
		.core_metadata = core_metadata(core, cm, sizeof(cm)),
		.size = -1,
		.provenance = prov,
		.build_number = -1,
		.timestamp = -1,
	};
	if (kind == WP_KIND_VARIANTS) /* PEP 825: these attributes mean nothing for it; ignored */
		rec.requires_python = rec.yanked = rec.core_metadata = NULL;
	int rc = pg->sink(pg->ctx, &rec, pg->err);
	if (rc < 0)
		stop(pg, rc);
	else
		pg->stats->records++;
	free(prov);
out:
	wp_url_link_release(&link);
}

bool wp_index_project_name_ok(const char *s, size_t n)
{
	if (!n || n > 200)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9');
		bool inner = c == '.' || c == '_' || c == '-';
		if (!alnum && !(inner && i > 0 && i + 1 < n))
			return false;
	}
	return true;
}

static bool names_file(const char *url)
{
	static const char *const exts[] = { ".exe", ".egg", ".msi", ".rpm", ".deb", ".dmg", ".html",
					    ".htm", ".json", ".txt", ".conda" };
	struct wp_str last = WP_STRN(url, strcspn(url, "?"));
	wp_str_rcut(&last, '/');
	char *seg = wp_xstrndup(last.p, last.n);
	bool yes = wp_index_file_kind(seg) != WP_KIND_UNKNOWN;
	for (size_t i = 0; i < WP_ARRAY_LEN(exts) && !yes; i++)
		yes = wp_str_endswith(WP_STR(seg), exts[i]);
	free(seg);
	return yes;
}

static void project_anchor(struct page *pg)
{
	char *url = NULL, *name = NULL;
	struct wp_str text = wp_str_trim(WP_STRN(wp_buf_cstr(&pg->atext), pg->atext.len));

	if (wp_url_resolve(pg->base ? pg->base : pg->page_url, pg->ahref, &url, NULL) < 0 ||
	    !wp_url_scheme_ok(url)) {
		skip(pg, true);
		goto out;
	}
	if (refused(pg, url))
		goto out;
	char *hash = strchr(url, '#');
	if (hash)
		*hash = 0;
	/* a link to a file is not a project page (a links page read as a root page) */
	if (names_file(url)) {
		skip(pg, false);
		goto out;
	}
	if (!text.n) {
		/* no text: the href's last non-empty path segment names it ("torch/") */
		struct wp_str path = WP_STR(url);
		if (memchr(path.p, '?', path.n))
			path.n = (size_t)((const char *)memchr(path.p, '?', path.n) - path.p);
		while (path.n && path.p[path.n - 1] == '/')
			path.n--;
		text = path;
		wp_str_rcut(&text, '/');
		if (!text.n)
			text = path;
		if (wp_url_decode(text.p, text.n, &name, NULL) < 0) {
			skip(pg, true);
			goto out;
		}
		text = WP_STR(name);
	}
	if (!wp_index_project_name_ok(text.p, text.n)) {
		skip(pg, true);
		goto out;
	}
	char *owned = wp_xstrndup(text.p, text.n);
	int rc = pg->name_sink(pg->ctx, owned, url, pg->err);
	free(owned);
	if (rc < 0)
		stop(pg, rc);
	else
		pg->stats->records++;
out:
	free(url);
	free(name);
}

/* PEP 629: a client must refuse a major version it does not know. */
static void repository_version(struct page *pg, const char *v)
{
	struct wp_str s = wp_str_trim(WP_STR(v ? v : ""));
	struct wp_str major = wp_str_cut(&s, '.');
	pg->pep503 = true;
	if (!wp_str_eq(major, "1")) {
		wp_fail(pg->err, -WPE_SOURCE,
			"index '%s' uses repository version '%.40s'; wheelpick reads 1.x",
			pg->page_url, v ? v : "");
		stop(pg, -WPE_SOURCE);
	}
}

static void on_start(void *ud, const xmlChar *xname, const xmlChar **atts)
{
	struct page *pg = ud;
	const char *name = (const char *)xname;

	if (pg->rc)
		return;
	if (++pg->depth > WP_HTML_MAX_DEPTH) {
		wp_fail(pg->err, -WPE_SOURCE,
			"'%s' is not an index page: elements nest more than %d deep", pg->page_url,
			WP_HTML_MAX_DEPTH);
		stop(pg, -WPE_SOURCE);
		return;
	}
	if (!strcasecmp(name, "a")) {
		if (++pg->anchors > WP_HTML_MAX_ANCHORS) {
			wp_fail(pg->err, -WPE_TOO_BIG, "index '%s' has more than %d links",
				pg->page_url, WP_HTML_MAX_ANCHORS);
			stop(pg, -WPE_TOO_BIG);
			return;
		}
		pg->in_a = true;
		const char *href = attr(atts, "href", NULL);
		if (!href)
			return; /* a named anchor, not a link */
		pg->stats->links++;
		if (strlen(href) > WP_HREF_MAX) {
			skip(pg, true);
			return;
		}
		if (pg->roots) {
			free(pg->ahref);
			pg->ahref = wp_xstrdup(href);
			wp_buf_reset(&pg->atext);
		} else {
			file_anchor(pg, href, atts);
		}
	} else if (!strcasecmp(name, "base")) {
		const char *href = attr(atts, "href", NULL);
		char *abs = NULL;
		if (!pg->base && href && wp_url_resolve(pg->page_url, href, &abs, NULL) == 0) {
			if (wp_url_scheme_ok(abs))
				pg->base = abs;
			else
				free(abs);
		}
	} else if (!strcasecmp(name, "meta")) {
		const char *n = attr(atts, "name", NULL);
		if (n && !strcasecmp(n, "pypi:repository-version"))
			repository_version(pg, attr(atts, "content", NULL));
	} else if (!strcasecmp(name, "title")) {
		pg->in_title = true;
	} else if (!strcasecmp(name, "h1")) {
		pg->in_h1 = true;
	} else if (!strcasecmp(name, "script") || !strcasecmp(name, "style")) {
		pg->in_script = true;
	}
}

static void on_end(void *ud, const xmlChar *xname)
{
	struct page *pg = ud;
	const char *name = (const char *)xname;

	if (pg->rc)
		return;
	if (pg->depth)
		pg->depth--;
	if (!strcasecmp(name, "a")) {
		if (pg->roots && pg->ahref)
			project_anchor(pg);
		free(pg->ahref);
		pg->ahref = NULL;
		pg->in_a = false;
	} else if (!strcasecmp(name, "title")) {
		pg->in_title = false;
	} else if (!strcasecmp(name, "h1")) {
		struct wp_str h = wp_str_trim(WP_STRN(wp_buf_cstr(&pg->h1), pg->h1.len));
		if (wp_str_startswith(h, "Links for"))
			pg->pep503 = true;
		pg->in_h1 = false;
	} else if (!strcasecmp(name, "script") || !strcasecmp(name, "style")) {
		pg->in_script = false;
	}
}

/* Keep what fits under TEXT_MAX; the rest of a long text is not needed. */
static void keep(struct wp_buf *b, const xmlChar *ch, int len)
{
	size_t room = b->max > b->len ? b->max - b->len : 0;
	wp_buf_add(b, ch, (size_t)len < room ? (size_t)len : room);
}

static void on_text(void *ud, const xmlChar *ch, int len)
{
	struct page *pg = ud;

	if (pg->rc || pg->in_script || len <= 0)
		return;
	if (pg->in_a) {
		if (pg->roots)
			keep(&pg->atext, ch, len);
		return;
	}
	if (pg->in_title)
		keep(&pg->title, ch, len);
	if (pg->in_h1)
		keep(&pg->h1, ch, len);
	if (!pg->has_text && wp_str_trim(WP_STRN((const char *)ch, (size_t)len)).n)
		pg->has_text = true;
}

static void on_error(void *ud, xmlErrorPtr e)
{
	(void)ud;
	(void)e;
}

/* Invalid UTF-8 sequences in data (each bad lead or truncated sequence counts once). */
static size_t bad_utf8(const unsigned char *p, size_t n)
{
	size_t bad = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 :
			   (c & 0xf8) == 0xf0 ? 3 : 9;
		if (k == 9 || c == 0xc0 || c == 0xc1 || c > 0xf4 || (k && i + k >= n)) {
			bad++;
			i++;
			continue;
		}
		size_t j = 1;
		while (j <= k && (p[i + j] & 0xc0) == 0x80)
			j++;
		if (j <= k) {
			bad++;
			i += j;
			continue;
		}
		i += k + 1;
	}
	return bad;
}

static int check_bytes(const char *url, const char *data, size_t len, struct wp_err *err)
{
	if (len > WP_HTML_MAX_BYTES)
		return wp_fail(err, -WPE_TOO_BIG, "index '%s' is larger than %zu bytes", url,
			       WP_HTML_MAX_BYTES);
	if (memchr(data, 0, len))
		return wp_fail(err, -WPE_SOURCE,
			       "'%s' is not an index page: it holds binary data (NUL bytes)", url);
	/* A few stray Latin-1 bytes are a sloppy page; many are not text at all. */
	size_t bad = bad_utf8((const unsigned char *)data, len);
	if (bad >= 16 && bad > len / 100)
		return wp_fail(err, -WPE_SOURCE,
			       "'%s' is not an index page: %zu invalid UTF-8 sequences", url, bad);
	return 0;
}

/* --- the fast path: a scanner for plain, well-formed anchor lists ---------------------------
 *
 * Pages such as torch_stable.html and PEP 503 pages from pip-compatible servers are a list of
 * <a href="...">text</a> lines, perhaps in <html><body> with an <h1>, <title>, <meta> or
 * <base>. Loading libxml2 (and ICU behind it) and running its SAX machinery costs more than
 * reading such a page. scan() reads exactly that grammar and gives the same events to the same
 * handlers as the libxml2 path; anything outside it (an entity, a byte that is not ASCII, an
 * unquoted value, a comment left open, an element it does not know, text or tags inside an
 * anchor, an anchor left open) makes it decline before any record reaches the sink, and libxml2
 * reads the page as before. tests/unit/test_htmlfast.c holds both paths to the same records
 * over the real pages. */

#define FAST_MAX_ATTRS 16
#define FAST_MAX_DEPTH 16

enum fast_el { F_A, F_BR, F_HTML, F_HEAD, F_BODY, F_META, F_TITLE, F_H1, F_BASE, F_NONE };

static enum fast_el fast_element(const char *p, size_t n)
{
	static const char *const names[] = { "a",    "br",    "html", "head", "body",
					     "meta", "title", "h1",   "base" };
	for (size_t i = 0; i < WP_ARRAY_LEN(names); i++)
		if (strlen(names[i]) == n && !strncasecmp(p, names[i], n))
			return (enum fast_el)i;
	return F_NONE;
}

static bool fast_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool fast_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == ':' || c == '.';
}

struct scan {
	struct page *pg;
	bool emit;              /* false: only check that the page is in the grammar */
	struct wp_buf tag;      /* the attributes of the tag at hand, NUL-separated */
	const xmlChar *atts[2 * FAST_MAX_ATTRS + 1];
};

/* Text between tags, as on_text would see it. */
static void fast_text(struct scan *sc, const char *p, size_t n)
{
	if (sc->emit && n)
		on_text(sc->pg, (const xmlChar *)p, (int)n);
}

/* One start tag's attributes from p (just past its name) into sc->atts; returns the byte after
 * its '>', or NULL to decline. *selfclose says it ended in "/>". */
static const char *fast_attrs(struct scan *sc, const char *p, const char *end, bool *selfclose)
{
	size_t na = 0;
	size_t offs[2 * FAST_MAX_ATTRS];
	bool has_val[FAST_MAX_ATTRS];
	wp_buf_reset(&sc->tag);
	*selfclose = false;
	for (;;) {
		bool spaced = false;
		while (p < end && fast_space(*p))
			p++, spaced = true;
		if (p >= end)
			return NULL;
		if (*p == '>')
			break;
		if (*p == '/' && p + 1 < end && p[1] == '>') {
			*selfclose = true;
			p++;
			break;
		}
		if (!spaced || na == FAST_MAX_ATTRS ||
		    !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return NULL;
		const char *nm = p;
		while (p < end && fast_name_char(*p))
			p++;
		offs[2 * na] = sc->tag.len;
		wp_buf_add(&sc->tag, nm, (size_t)(p - nm));
		wp_buf_addch(&sc->tag, 0);
		has_val[na] = false;
		if (p < end && *p == '=') {
			p++;
			if (p >= end || (*p != '"' && *p != '\''))
				return NULL;
			char q = *p++;
			const char *v = p;
			while (p < end && *p != q) {
				if (*p == '<' || (unsigned char)*p < 0x20)
					return NULL;
				p++;
			}
			if (p >= end)
				return NULL;
			offs[2 * na + 1] = sc->tag.len;
			wp_buf_add(&sc->tag, v, (size_t)(p - v));
			wp_buf_addch(&sc->tag, 0);
			has_val[na] = true;
			p++;
		} else if (p < end && !fast_space(*p) && *p != '>' && *p != '/') {
			return NULL;
		}
		na++;
	}
	for (size_t i = 0; i < na; i++) {
		sc->atts[2 * i] = (const xmlChar *)sc->tag.data + offs[2 * i];
		sc->atts[2 * i + 1] = has_val[i] ? (const xmlChar *)sc->tag.data + offs[2 * i + 1] :
						   NULL;
	}
	sc->atts[2 * na] = NULL;
	return p + 1;
}

/* 0: the page was read (when emitting) or is in the grammar (when checking); 1: it is not. */
static int scan(struct scan *sc, const char *data, size_t len)
{
	static const char *const el_names[] = { "a",    "br",    "html", "head", "body",
						"meta", "title", "h1",   "base" };
	const char *p = data, *end = data + len;
	struct page *pg = sc->pg;
	bool in_a = false, in_title = false, in_h1 = false, seen_el = false;
	unsigned depth = 0;
	unsigned long anchors = 0;
	while (p < end) {
		if (sc->emit && pg->rc)
			return 0;
		const char *lt = memchr(p, '<', (size_t)(end - p));
		if (!lt) {
			fast_text(sc, p, (size_t)(end - p));
			break;
		}
		fast_text(sc, p, (size_t)(lt - p));
		p = lt + 1;
		if (p >= end)
			return 1;
		if (*p == '!') {
			if (end - p >= 3 && p[1] == '-' && p[2] == '-') {
				const char *close = memmem(p + 3, (size_t)(end - p - 3), "-->", 3);
				if (!close)
					return 1;
				p = close + 3;
			} else if (!seen_el && end - p >= 8 && !strncasecmp(p + 1, "doctype", 7)) {
				const char *gt = memchr(p, '>', (size_t)(end - p));
				if (!gt || memchr(p, '<', (size_t)(gt - p)))
					return 1;
				p = gt + 1;
			} else {
				return 1;
			}
			continue;
		}
		bool closing = *p == '/';
		if (closing)
			p++;
		const char *nm = p;
		while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				   (*p >= '0' && *p <= '9')))
			p++;
		enum fast_el el = fast_element(nm, (size_t)(p - nm));
		if (el == F_NONE)
			return 1;
		seen_el = true;
		if (closing) {
			while (p < end && fast_space(*p))
				p++;
			if (p >= end || *p != '>')
				return 1;
			p++;
			bool *open = el == F_A     ? &in_a :
				     el == F_TITLE ? &in_title :
				     el == F_H1    ? &in_h1 :
						     NULL;
			if (el == F_BR || el == F_META || el == F_BASE || (open && !*open) ||
			    (!open && in_a) || !depth)
				return 1;
			if (open)
				*open = false;
			depth--;
			if (sc->emit)
				on_end(pg, (const xmlChar *)el_names[el]);
			continue;
		}
		/* anchors, titles and headings hold text alone */
		if (in_a || in_title || in_h1)
			return 1;
		bool selfclose;
		p = fast_attrs(sc, p, end, &selfclose);
		if (!p)
			return 1;
		bool isvoid = el == F_BR || el == F_META || el == F_BASE;
		if (selfclose && !isvoid)
			return 1;
		if (el == F_A && ++anchors > WP_HTML_MAX_ANCHORS)
			return 1;
		if (!isvoid) {
			if (++depth > FAST_MAX_DEPTH)
				return 1;
			if (el == F_A)
				in_a = true;
			else if (el == F_TITLE)
				in_title = true;
			else if (el == F_H1)
				in_h1 = true;
		}
		if (sc->emit) {
			on_start(pg, (const xmlChar *)el_names[el], sc->atts);
			if (isvoid && !pg->rc)
				on_end(pg, (const xmlChar *)el_names[el]);
		}
	}
	/* an anchor, title or heading left open is libxml2's to close */
	return in_a || in_title || in_h1 ? 1 : 0;
}

/* 1 when the page is not for the fast path (nothing was emitted); else what reading it gave. */
static int fast_page(struct page *pg, const char *data, size_t len)
{
	/* entities, encodings and control characters (which libxml2 drops from text) are libxml2's
	 * business */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c >= 0x7f || c == '&' || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
			return 1;
	}
	struct scan sc = { .pg = pg, .tag = WP_BUF_INIT };
	int rc = scan(&sc, data, len);
	if (rc == 0) {
		sc.emit = true;
		rc = scan(&sc, data, len);
		if (rc == 0)
			rc = pg->rc;
	}
	wp_buf_free(&sc.tag);
	return rc;
}

static int read_page(struct page *pg, const char *data, size_t len)
{
	xmlSAXHandler sax;
	int rc = 0;

	if (!pg->page_url || !wp_url_scheme_ok(pg->page_url))
		return wp_fail(pg->err, -WPE_USAGE,
			       "index URL '%s' is not an absolute http, https or file URL",
			       pg->page_url ? pg->page_url : "");
	if (!data || !len)
		return 0; /* an empty page lists nothing and says nothing: not an error page */
	rc = check_bytes(pg->page_url, data, len, pg->err);
	if (rc)
		return rc;

	pg->title = (struct wp_buf)WP_BUF_INIT_MAX(TEXT_MAX);
	pg->h1 = (struct wp_buf)WP_BUF_INIT_MAX(TEXT_MAX);
	pg->atext = (struct wp_buf)WP_BUF_INIT_MAX(TEXT_MAX);
	if (pg->path != WP_HTML_LIBXML) {
		rc = fast_page(pg, data, len);
		if (rc != 1)
			goto done;
		if (pg->path == WP_HTML_FAST)
			goto out;
		rc = 0;
	}
	/* libxml2 (and ICU behind it) is loaded only for a page the fast path leaves to it; a
	 * caller may have loaded it already, which costs nothing here */
	if ((rc = wp_lazy_require(WP_LIB_XML, pg->err)))
		goto out;
	xmlInitParser();
	memset(&sax, 0, sizeof(sax));
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElement = on_start;
	sax.endElement = on_end;
	sax.characters = on_text;
	sax.ignorableWhitespace = on_text;
	sax.serror = on_error;

	/* The pull parser over the whole buffer: libxml2 2.9's push parser gives up for good on
	 * some junk (a stray "<https:" in text) where the pull parser recovers. */
	pg->parser = htmlCreateMemoryParserCtxt(data, (int)len);
	if (!pg->parser) {
		rc = wp_fail(pg->err, -WPE_SOURCE, "cannot start an HTML parser for '%s'",
			     pg->page_url);
		goto out;
	}
	*pg->parser->sax = sax;
	pg->parser->userData = pg;
	htmlCtxtUseOptions(pg->parser, HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
					       HTML_PARSE_NONET | HTML_PARSE_RECOVER);
	htmlParseDocument(pg->parser);
	rc = pg->rc;
done:
	if (rc)
		goto out;
	if (!pg->stats->records && pg->has_text && !pg->pep503) {
		/* the title says what the server sent instead ("Just a moment...", "404 Not
		 * Found") */
		struct wp_str t = wp_str_trim(WP_STRN(wp_buf_cstr(&pg->title), pg->title.len));
		char title[81];
		size_t n = t.n < 80 ? t.n : 80;
		for (size_t i = 0; i < n; i++)
			title[i] = (unsigned char)t.p[i] < 0x20 ? ' ' : t.p[i];
		title[n] = 0;
		if (n)
			rc = wp_fail(pg->err, -WPE_SOURCE,
				     "'%s' is not an index page (titled '%s')", pg->page_url,
				     title);
		else
			rc = wp_fail(pg->err, -WPE_SOURCE,
				     "'%s' is not an index page: it has text but no package links",
				     pg->page_url);
	}
out:
	if (pg->parser) {
		if (pg->parser->myDoc)
			xmlFreeDoc(pg->parser->myDoc);
		htmlFreeParserCtxt(pg->parser);
	}
	free(pg->base);
	free(pg->ahref);
	wp_buf_free(&pg->title);
	wp_buf_free(&pg->h1);
	wp_buf_free(&pg->atext);
	return rc;
}

int wp_read_html_links(const char *page_url, const char *project, const char *data, size_t len,
		       wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
		       struct wp_err *err)
{
	return wp_read_html_links_via(WP_HTML_AUTO, page_url, project, data, len, sink, ctx, stats,
				      err);
}

int wp_read_html_links_via(enum wp_html_path path, const char *page_url, const char *project,
			   const char *data, size_t len, wp_record_fn *sink, void *ctx,
			   struct wp_index_stats *stats, struct wp_err *err)
{
	struct wp_index_stats local;
	struct page pg = {
		.page_url = page_url, .project = project, .sink = sink, .ctx = ctx,
		.stats = stats ? stats : &local, .err = err, .path = path,
	};
	memset(pg.stats, 0, sizeof(*pg.stats));
	return read_page(&pg, data, len);
}

int wp_read_html_projects(const char *page_url, const char *data, size_t len, wp_project_fn *sink,
			  void *ctx, struct wp_index_stats *stats, struct wp_err *err)
{
	return wp_read_html_projects_via(WP_HTML_AUTO, page_url, data, len, sink, ctx, stats, err);
}

int wp_read_html_projects_via(enum wp_html_path path, const char *page_url, const char *data,
			      size_t len, wp_project_fn *sink, void *ctx,
			      struct wp_index_stats *stats, struct wp_err *err)
{
	struct wp_index_stats local;
	struct page pg = {
		.page_url = page_url, .roots = true, .name_sink = sink, .ctx = ctx,
		.stats = stats ? stats : &local, .err = err, .path = path,
	};
	memset(pg.stats, 0, sizeof(*pg.stats));
	return read_page(&pg, data, len);
}
