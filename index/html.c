/* index/html.c: find-links and PEP 503 pages, through a fast anchor-list scanner or libxml2's
 * SAX parser, whole or from a file in pieces; bounded. */
#include "index/html.h"
#include "index/htmlpath.h"
#include "index/variants.h"

#include "base/buf.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/os/os.h"
#include "base/str.h"
#include "base/url.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <errno.h>
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

/* Invalid UTF-8 sequences (each bad lead or truncated sequence counts once) in a page of total
 * bytes read in pieces: p holds its bytes from off, and a sequence cut between two pieces is
 * carried in need. A lead whose sequence would run past the page's end is bad at once. */
struct utf8 {
	size_t bad;
	unsigned need; /* continuation bytes still due */
};

static void bad_utf8(struct utf8 *u, const unsigned char *p, size_t n, unsigned long long off,
		     unsigned long long total)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (u->need) {
			if ((c & 0xc0) == 0x80) {
				u->need--;
				continue;
			}
			u->bad++; /* cut short: this byte is read afresh */
			u->need = 0;
		}
		if (c < 0x80)
			continue;
		unsigned k = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 :
			     (c & 0xf8) == 0xf0 ? 3 : 9;
		if (k == 9 || c == 0xc0 || c == 0xc1 || c > 0xf4 || off + i + k >= total)
			u->bad++;
		else
			u->need = k;
	}
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
 * over the real pages.
 *
 * A page is read twice, whole or in pieces: once to check it is in the grammar, then to emit.
 * One pass cannot do: a page declined half way would have sent half its records before
 * libxml2 sends them all again. */

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

/* The scanner's state, kept from one piece of a page to the next. */
struct scan {
	struct page *pg;
	bool emit;              /* false: only check that the page is in the grammar */
	bool eof;               /* the bytes at hand end the page */
	bool in_a, in_title, in_h1, seen_el;
	unsigned depth;
	unsigned long anchors;
	struct wp_buf tag;      /* the attributes of the tag at hand, NUL-separated */
	const xmlChar *atts[2 * FAST_MAX_ATTRS + 1];
};

/* What reading a tag found: its end, a byte outside the grammar, or the end of the bytes at
 * hand before its end (the next piece may finish it). */
enum { TAG_OK, TAG_DECLINE, TAG_SHORT };

/* Text between tags, as on_text would see it. */
static void fast_text(struct scan *sc, const char *p, size_t n)
{
	if (sc->emit && n)
		on_text(sc->pg, (const xmlChar *)p, (int)n);
}

/* One start tag's attributes from *pp (just past its name) into sc->atts; *pp becomes the byte
 * after its '>'. *selfclose says it ended in "/>". */
static int fast_attrs(struct scan *sc, const char **pp, const char *end, bool *selfclose)
{
	const char *p = *pp;
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
			return TAG_SHORT;
		if (*p == '>')
			break;
		if (*p == '/' && p + 1 >= end)
			return TAG_SHORT;
		if (*p == '/' && p[1] == '>') {
			*selfclose = true;
			p++;
			break;
		}
		if (!spaced || na == FAST_MAX_ATTRS ||
		    !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return TAG_DECLINE;
		const char *nm = p;
		while (p < end && fast_name_char(*p))
			p++;
		if (p >= end)
			return TAG_SHORT;
		offs[2 * na] = sc->tag.len;
		wp_buf_add(&sc->tag, nm, (size_t)(p - nm));
		wp_buf_addch(&sc->tag, 0);
		has_val[na] = false;
		if (*p == '=') {
			p++;
			if (p >= end)
				return TAG_SHORT;
			if (*p != '"' && *p != '\'')
				return TAG_DECLINE;
			char q = *p++;
			const char *v = p;
			while (p < end && *p != q) {
				if (*p == '<' || (unsigned char)*p < 0x20)
					return TAG_DECLINE;
				p++;
			}
			if (p >= end)
				return TAG_SHORT;
			offs[2 * na + 1] = sc->tag.len;
			wp_buf_add(&sc->tag, v, (size_t)(p - v));
			wp_buf_addch(&sc->tag, 0);
			has_val[na] = true;
			p++;
		} else if (!fast_space(*p) && *p != '>' && *p != '/') {
			return TAG_DECLINE;
		}
		na++;
	}
	for (size_t i = 0; i < na; i++) {
		sc->atts[2 * i] = (const xmlChar *)sc->tag.data + offs[2 * i];
		sc->atts[2 * i + 1] = has_val[i] ? (const xmlChar *)sc->tag.data + offs[2 * i + 1] :
						   NULL;
	}
	sc->atts[2 * na] = NULL;
	*pp = p + 1;
	return TAG_OK;
}

/* A construct (tag, comment, doctype) from lt runs past the bytes at hand: at the page's end
 * that is outside the grammar; before it, the bytes from lt wait for the next piece. */
#define SHORT(lt)                                     \
	do {                                          \
		if (sc->eof)                          \
			return 1;                     \
		*used = (size_t)((lt) - data);        \
		return 0;                             \
	} while (0)

/* Scan the bytes at hand: 0 when they were read (when emitting) or are in the grammar (when
 * checking) up to *used, the rest being a construct the next piece finishes; 1 when they are
 * not in the grammar. With sc->eof, *used is len. */
static int scan(struct scan *sc, const char *data, size_t len, size_t *used)
{
	static const char *const el_names[] = { "a",    "br",    "html", "head", "body",
						"meta", "title", "h1",   "base" };
	const char *p = data, *end = data + len;
	struct page *pg = sc->pg;
	*used = len;
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
			SHORT(lt);
		if (*p == '!') {
			/* "<!--" or "<!doctype" may be cut anywhere: wait for enough to tell */
			if (!sc->eof && end - p < 8)
				SHORT(lt);
			if (end - p >= 3 && p[1] == '-' && p[2] == '-') {
				const char *close = memmem(p + 3, (size_t)(end - p - 3), "-->", 3);
				if (!close)
					SHORT(lt);
				p = close + 3;
			} else if (!sc->seen_el && end - p >= 8 &&
				   !strncasecmp(p + 1, "doctype", 7)) {
				const char *gt = memchr(p, '>', (size_t)(end - p));
				if (!gt)
					SHORT(lt);
				if (memchr(p, '<', (size_t)(gt - p)))
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
		if (p >= end)
			SHORT(lt);
		enum fast_el el = fast_element(nm, (size_t)(p - nm));
		if (el == F_NONE)
			return 1;
		if (closing) {
			while (p < end && fast_space(*p))
				p++;
			if (p >= end)
				SHORT(lt);
			if (*p != '>')
				return 1;
			p++;
			sc->seen_el = true;
			bool *open = el == F_A     ? &sc->in_a :
				     el == F_TITLE ? &sc->in_title :
				     el == F_H1    ? &sc->in_h1 :
						     NULL;
			if (el == F_BR || el == F_META || el == F_BASE || (open && !*open) ||
			    (!open && sc->in_a) || !sc->depth)
				return 1;
			if (open)
				*open = false;
			sc->depth--;
			if (sc->emit)
				on_end(pg, (const xmlChar *)el_names[el]);
			continue;
		}
		/* anchors, titles and headings hold text alone */
		if (sc->in_a || sc->in_title || sc->in_h1)
			return 1;
		bool selfclose;
		int t = fast_attrs(sc, &p, end, &selfclose);
		if (t == TAG_SHORT)
			SHORT(lt);
		if (t == TAG_DECLINE)
			return 1;
		sc->seen_el = true;
		bool isvoid = el == F_BR || el == F_META || el == F_BASE;
		if (selfclose && !isvoid)
			return 1;
		if (el == F_A && ++sc->anchors > WP_HTML_MAX_ANCHORS)
			return 1;
		if (!isvoid) {
			if (++sc->depth > FAST_MAX_DEPTH)
				return 1;
			if (el == F_A)
				sc->in_a = true;
			else if (el == F_TITLE)
				sc->in_title = true;
			else if (el == F_H1)
				sc->in_h1 = true;
		}
		if (sc->emit) {
			on_start(pg, (const xmlChar *)el_names[el], sc->atts);
			if (isvoid && !pg->rc)
				on_end(pg, (const xmlChar *)el_names[el]);
		}
	}
	if (!sc->eof)
		return 0;
	/* an anchor, title or heading left open is libxml2's to close */
	return sc->in_a || sc->in_title || sc->in_h1 ? 1 : 0;
}
#undef SHORT

static void scan_reset(struct scan *sc, bool emit)
{
	sc->emit = emit;
	sc->eof = false;
	sc->in_a = sc->in_title = sc->in_h1 = sc->seen_el = false;
	sc->depth = 0;
	sc->anchors = 0;
}

/* entities, encodings and control characters (which libxml2 drops from text) are libxml2's
 * business */
static bool fast_bytes(const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c >= 0x7f || c == '&' || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
			return false;
	}
	return true;
}

/* --- a page in pieces -----------------------------------------------------------------------
 *
 * A page in memory is read whole. One in a file (a fetched page past memory's share, a local
 * file:// page) is read in pieces of HTML_PIECE into a window, each pass from the start: the
 * check, then the fast scanner's emit or libxml2's pull parser fed through its I/O callback,
 * so memory stays a few MiB whatever the page's size. */

#define HTML_PIECE ((size_t)1 << 20)
#define CARRY_MAX  ((size_t)1 << 20) /* a tag or comment longer than this is libxml2's */

struct src {
	const char *data;        /* fd < 0: the page */
	int fd;
	unsigned long long len;  /* the page's length (a file's when it was opened) */
	unsigned long long max;  /* refused past this */
	size_t first, piece;     /* the lengths of the pieces: the first, then each one after */
	char *win;               /* in pieces: what the last piece left, then the next */
	size_t wlen;
};

static bool src_whole(const struct src *s)
{
	return s->fd < 0 && s->first >= s->len;
}

/* The piece at off onto the window's end; *got its length. */
static int src_next(struct page *pg, struct src *s, unsigned long long off, size_t *got)
{
	unsigned long long left = s->len - off;
	size_t want = off < s->first ? (size_t)(s->first - off) : s->piece;
	if (want > left)
		want = (size_t)left;
	char *to = s->win + s->wlen;
	if (s->fd < 0) {
		memcpy(to, s->data + off, want);
	} else {
		for (size_t n = 0; n < want;) {
			ssize_t r = wp_os_pread(s->fd, to + n, want - n, (int64_t)(off + n));
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return wp_fail(pg->err, -WPE_IO, "cannot read the copy of '%s': %s",
					       pg->page_url, strerror(errno));
			if (r == 0)
				return wp_fail(pg->err, -WPE_IO,
					       "'%s' changed while it was read; read it again",
					       pg->page_url);
			n += (size_t)r;
		}
	}
	s->wlen += want;
	*got = want;
	return 0;
}

/* fn over the page: the bytes at hand (what its last call left unused, then the next piece),
 * the fresh ones at their end and their offset in the page; it sets how many it used. */
typedef int piece_fn(void *ctx, const char *at, size_t n, size_t fresh, unsigned long long off,
		     bool eof, size_t *used);

static int src_pass(struct page *pg, struct src *s, piece_fn *fn, void *ctx)
{
	size_t used;
	if (src_whole(s))
		return fn(ctx, s->data, (size_t)s->len, (size_t)s->len, 0, true, &used);
	s->wlen = 0;
	for (unsigned long long off = 0; off < s->len;) {
		size_t got;
		int rc = src_next(pg, s, off, &got);
		if (rc)
			return rc;
		bool eof = off + got == s->len;
		used = s->wlen;
		if ((rc = fn(ctx, s->win, s->wlen, got, off, eof, &used)))
			return rc;
		off += got;
		memmove(s->win, s->win + used, s->wlen - used);
		s->wlen -= used;
	}
	return 0;
}

/* The first pass: the bytes are text, and whether the fast scanner reads the page. */
struct check {
	struct page *pg;
	unsigned long long len;
	bool nul;
	struct utf8 u;
	bool fast;               /* still a page for the fast scanner */
	struct scan *sc;
};

static int check_piece(void *ctx, const char *at, size_t n, size_t fresh,
		       unsigned long long off, bool eof, size_t *used)
{
	struct check *ck = ctx;
	const char *f = at + n - fresh;
	*used = n;
	if (memchr(f, 0, fresh)) {
		ck->nul = true;
		return 1; /* that is the verdict, whatever follows */
	}
	bad_utf8(&ck->u, (const unsigned char *)f, fresh, off, ck->len);
	if (ck->fast && !fast_bytes(f, fresh))
		ck->fast = false;
	if (!ck->fast)
		return 0;
	ck->sc->eof = eof;
	if (scan(ck->sc, at, n, used) || n - *used > CARRY_MAX) {
		ck->fast = false;
		*used = n;
	}
	return 0;
}

static int emit_piece(void *ctx, const char *at, size_t n, size_t fresh,
		      unsigned long long off, bool eof, size_t *used)
{
	struct scan *sc = ctx;
	sc->eof = eof;
	if (scan(sc, at, n, used) || n - *used > CARRY_MAX)
		/* the check passed over these very bytes: only a file changed since reads so */
		return wp_fail(sc->pg->err, -WPE_IO,
			       "'%s' changed while it was read; read it again", sc->pg->page_url);
	return sc->pg->rc;
}

/* libxml2's I/O callback: the page from its start, as many bytes as it asks for (it expects a
 * file's full reads), through the window. */
struct xml_in {
	struct page *pg;
	struct src *s;
	unsigned long long off;  /* of the window's end in the page */
	size_t at;               /* bytes of the window given out */
};

static int xml_read(void *ctx, char *buf, int len)
{
	struct xml_in *in = ctx;
	struct src *s = in->s;
	size_t n = 0;
	while (n < (size_t)len) {
		if (in->at == s->wlen) {
			size_t got;
			if (in->off == s->len)
				break;
			s->wlen = in->at = 0;
			int rc = src_next(in->pg, s, in->off, &got);
			if (rc) {
				if (!in->pg->rc)
					in->pg->rc = rc;
				return -1;
			}
			in->off += got;
		}
		size_t k = s->wlen - in->at;
		if (k > (size_t)len - n)
			k = (size_t)len - n;
		memcpy(buf + n, s->win + in->at, k);
		n += k;
		in->at += k;
	}
	return (int)n;
}

static int read_page(struct page *pg, struct src *s)
{
	xmlSAXHandler sax;
	int rc = 0;
	struct scan sc = { .pg = pg, .tag = WP_BUF_INIT };
	struct check ck = {
		.pg = pg, .len = s->len, .fast = pg->path != WP_HTML_LIBXML, .sc = &sc,
	};

	if (!pg->page_url || !wp_url_scheme_ok(pg->page_url))
		return wp_fail(pg->err, -WPE_USAGE,
			       "index URL '%s' is not an absolute http, https or file URL",
			       pg->page_url ? pg->page_url : "");
	if (!s->len || (s->fd < 0 && !s->data))
		return 0; /* an empty page lists nothing and says nothing: not an error page */
	if (s->len > s->max)
		return wp_fail(pg->err, -WPE_TOO_BIG, "index '%s' is larger than %llu bytes",
			       pg->page_url, s->max);
	if (!src_whole(s)) {
		size_t most = s->first > s->piece ? s->first : s->piece;
		if (most > s->len)
			most = (size_t)s->len;
		s->win = wp_xmalloc(CARRY_MAX + most + 1);
	}

	pg->title = (struct wp_buf)WP_BUF_INIT_MAX(TEXT_MAX);
	pg->h1 = (struct wp_buf)WP_BUF_INIT_MAX(TEXT_MAX);
	pg->atext = (struct wp_buf)WP_BUF_INIT_MAX(TEXT_MAX);
	rc = src_pass(pg, s, check_piece, &ck);
	if (ck.nul) {
		rc = wp_fail(pg->err, -WPE_SOURCE,
			     "'%s' is not an index page: it holds binary data (NUL bytes)",
			     pg->page_url);
		goto out;
	}
	if (rc)
		goto out;
	/* A few stray Latin-1 bytes are a sloppy page; many are not text at all. */
	if (ck.u.bad >= 16 && ck.u.bad > s->len / 100) {
		rc = wp_fail(pg->err, -WPE_SOURCE,
			     "'%s' is not an index page: %zu invalid UTF-8 sequences", pg->page_url,
			     ck.u.bad);
		goto out;
	}
	if (ck.fast) {
		scan_reset(&sc, true);
		rc = src_pass(pg, s, emit_piece, &sc);
		if (!rc)
			rc = pg->rc;
		goto done;
	}
	if (pg->path == WP_HTML_FAST) {
		rc = 1;
		goto out;
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

	/* The pull parser, over the whole buffer or fed through its I/O callback: libxml2 2.9's
	 * push parser gives up for good on some junk (a stray "<https:" in text) where the pull
	 * parser recovers. */
	int opts = HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
		   HTML_PARSE_RECOVER;
	pg->parser = src_whole(s) ? htmlCreateMemoryParserCtxt(s->data, (int)s->len) :
				    htmlNewParserCtxt();
	if (!pg->parser) {
		rc = wp_fail(pg->err, -WPE_SOURCE, "cannot start an HTML parser for '%s'",
			     pg->page_url);
		goto out;
	}
	*pg->parser->sax = sax;
	pg->parser->userData = pg;
	if (src_whole(s)) {
		htmlCtxtUseOptions(pg->parser, opts);
		htmlParseDocument(pg->parser);
	} else {
		struct xml_in in = { .pg = pg, .s = s };
		s->wlen = 0;
		htmlDocPtr doc = htmlCtxtReadIO(pg->parser, xml_read, NULL, &in, NULL, NULL, opts);
		if (doc)
			xmlFreeDoc(doc);
	}
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
	wp_buf_free(&sc.tag);
	free(s->win);
	s->win = NULL;
	free(pg->base);
	free(pg->ahref);
	wp_buf_free(&pg->title);
	wp_buf_free(&pg->h1);
	wp_buf_free(&pg->atext);
	return rc;
}

/* The page in data, or in the file fd (its length as it is now); first/piece as struct src's
 * (0: whole, or HTML_PIECE from a file). */
static int read_src(struct page *pg, int fd, unsigned long long max_bytes, const char *data,
		    size_t len, size_t first, size_t piece)
{
	struct src s = { .data = data, .fd = fd, .len = len, .max = WP_HTML_MAX_BYTES };
	memset(pg->stats, 0, sizeof(*pg->stats));
	if (fd >= 0) {
		struct wp_os_stat st;
		if (wp_os_fstat(fd, &st) < 0)
			return wp_fail(pg->err, -WPE_IO, "cannot read the copy of '%s': %s",
				       pg->page_url ? pg->page_url : "", strerror(errno));
		s.len = (unsigned long long)st.st_size;
		s.max = max_bytes;
		s.first = s.piece = HTML_PIECE;
	} else {
		s.piece = piece ? piece : len;
		s.first = first ? first : s.piece;
	}
	return read_page(pg, &s);
}

static int read_links(enum wp_html_path path, const char *page_url, const char *project, int fd,
		      unsigned long long max_bytes, const char *data, size_t len, size_t first,
		      size_t piece, wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
		      struct wp_err *err)
{
	struct wp_index_stats local;
	struct page pg = {
		.page_url = page_url, .project = project, .sink = sink, .ctx = ctx,
		.stats = stats ? stats : &local, .err = err, .path = path,
	};
	return read_src(&pg, fd, max_bytes, data, len, first, piece);
}

static int read_projects(enum wp_html_path path, const char *page_url, int fd,
			 unsigned long long max_bytes, const char *data, size_t len, size_t first,
			 size_t piece, wp_project_fn *sink, void *ctx, struct wp_index_stats *stats,
			 struct wp_err *err)
{
	struct wp_index_stats local;
	struct page pg = {
		.page_url = page_url, .roots = true, .name_sink = sink, .ctx = ctx,
		.stats = stats ? stats : &local, .err = err, .path = path,
	};
	return read_src(&pg, fd, max_bytes, data, len, first, piece);
}

int wp_read_html_links(const char *page_url, const char *project, const char *data, size_t len,
		       wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
		       struct wp_err *err)
{
	return read_links(WP_HTML_AUTO, page_url, project, -1, 0, data, len, 0, 0, sink, ctx,
			  stats, err);
}

int wp_read_html_links_fd(const char *page_url, const char *project, int fd,
			  unsigned long long max_bytes, const char *data, size_t len,
			  wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
			  struct wp_err *err)
{
	return read_links(WP_HTML_AUTO, page_url, project, fd, max_bytes, data, len, 0, 0, sink,
			  ctx, stats, err);
}

int wp_read_html_links_via(enum wp_html_path path, const char *page_url, const char *project,
			   const char *data, size_t len, wp_record_fn *sink, void *ctx,
			   struct wp_index_stats *stats, struct wp_err *err)
{
	return read_links(path, page_url, project, -1, 0, data, len, 0, 0, sink, ctx, stats, err);
}

int wp_read_html_links_pieces(enum wp_html_path path, const char *page_url, const char *project,
			      const char *data, size_t len, size_t first, size_t piece,
			      wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
			      struct wp_err *err)
{
	return read_links(path, page_url, project, -1, 0, data, len, first, piece, sink, ctx,
			  stats, err);
}

int wp_read_html_projects(const char *page_url, const char *data, size_t len, wp_project_fn *sink,
			  void *ctx, struct wp_index_stats *stats, struct wp_err *err)
{
	return read_projects(WP_HTML_AUTO, page_url, -1, 0, data, len, 0, 0, sink, ctx, stats,
			     err);
}

int wp_read_html_projects_fd(const char *page_url, int fd, unsigned long long max_bytes,
			     const char *data, size_t len, wp_project_fn *sink, void *ctx,
			     struct wp_index_stats *stats, struct wp_err *err)
{
	return read_projects(WP_HTML_AUTO, page_url, fd, max_bytes, data, len, 0, 0, sink, ctx,
			     stats, err);
}

int wp_read_html_projects_via(enum wp_html_path path, const char *page_url, const char *data,
			      size_t len, wp_project_fn *sink, void *ctx,
			      struct wp_index_stats *stats, struct wp_err *err)
{
	return read_projects(path, page_url, -1, 0, data, len, 0, 0, sink, ctx, stats, err);
}

int wp_read_html_projects_pieces(enum wp_html_path path, const char *page_url, const char *data,
				 size_t len, size_t first, size_t piece, wp_project_fn *sink,
				 void *ctx, struct wp_index_stats *stats, struct wp_err *err)
{
	return read_projects(path, page_url, -1, 0, data, len, first, piece, sink, ctx, stats,
			     err);
}
