/* resolver/reqfile.c: pip's requirements and constraints file format, read as pip 24 reads it
 * (src/pip/_internal/req/req_file.py), with the options wheelpick cannot honour refused by name. */
#include "resolver/reqfile.h"
#include "base/mem.h"
#include "resolver/requirement.h"
#include "resolver/specifier.h"
#include "resolver/wheelname.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A logical line is at most this long (a file joined into one line by backslashes is refused). */
#define MAX_LINE (1 << 20)
#define MAX_TOKENS 4096

struct parse {
	struct wp_reqfile *rf;
	const struct wp_reqfile_io *io;
	const char *name;           /* the file, as named */
	unsigned line;              /* first physical line of the logical line */
	int depth;
	const char *chain[WP_REQFILE_MAX_DEPTH + 2]; /* the files that led here, for cycles */
};

static int at(const struct parse *p, struct wp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "FILE:LINE: message" */
static int at(const struct parse *p, struct wp_err *err, const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wp_fail(err, -WPE_USAGE, "%s:%u: %s", p->name, p->line, msg);
}

static char *where(const struct parse *p)
{
	return wp_xasprintf("%s:%u", p->name, p->line);
}

static void note(struct parse *p, const char *fmt, const char *arg)
{
	char *w = where(p);
	char *text = wp_xasprintf(fmt, arg);
	wp_vec_push(&p->rf->notes, wp_xasprintf("%s: %s", w, text));
	free(text);
	free(w);
}

/* ${NAME} with NAME of upper-case letters, digits and '_' (the only form pip expands). */
static int expand_env(const struct parse *p, const char *s, struct wp_buf *out)
{
	int bad = 0;
	while (*s) {
		if (s[0] == '$' && s[1] == '{') {
			size_t n = 0;
			while (isupper((unsigned char)s[2 + n]) ||
			       isdigit((unsigned char)s[2 + n]) || s[2 + n] == '_')
				n++;
			if (n && s[2 + n] == '}' && n < 256 && p->io && p->io->lookup_var) {
				char name[257];
				memcpy(name, s + 2, n);
				name[n] = 0;
				const char *v = p->io->lookup_var(p->io->ctx, name);
				if (v) {
					bad |= wp_buf_addstr(out, v);
					s += n + 3;
					continue;
				}
			}
		}
		bad |= wp_buf_addch(out, *s++);
	}
	return bad ? -1 : 0;
}

/* Split at whitespace, honouring '...' and "..." (pip hands option text to shlex). */
static int tokenize(const struct parse *p, const char *s, char ***out, size_t *n,
		    struct wp_err *err)
{
	char **v = NULL;
	size_t nv = 0, cap = 0;
	struct wp_buf tok = WP_BUF_INIT;
	*out = NULL;
	*n = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		wp_buf_reset(&tok);
		char q = 0;
		for (; *s && (q || (*s != ' ' && *s != '\t')); s++) {
			if (q && *s == q)
				q = 0;
			else if (!q && (*s == '\'' || *s == '"'))
				q = *s;
			else
				wp_buf_addch(&tok, *s);
		}
		if (q) {
			for (size_t i = 0; i < nv; i++)
				free(v[i]);
			free(v);
			wp_buf_free(&tok);
			return at(p, err, "a quote is not closed");
		}
		if (nv == MAX_TOKENS) {
			for (size_t i = 0; i < nv; i++)
				free(v[i]);
			free(v);
			wp_buf_free(&tok);
			return at(p, err, "more than %d words on one line", MAX_TOKENS);
		}
		wp_vec_push_fields(v, nv, cap, wp_xstrdup(wp_buf_cstr(&tok)));
	}
	wp_buf_free(&tok);
	*out = v;
	*n = nv;
	return 0;
}

static void free_tokens(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* An option word: "--name=value", "--name", "-X", "-Xvalue". Sets the long name (or the short
 * letter as a one-character name) and an inline value when there is one. */
struct optword {
	char name[64];
	const char *inline_val;
};

static bool read_optword(const char *tok, struct optword *o)
{
	o->inline_val = NULL;
	if (tok[0] != '-' || !tok[1])
		return false;
	if (tok[1] == '-') {
		const char *eq = strchr(tok + 2, '=');
		size_t n = eq ? (size_t)(eq - tok - 2) : strlen(tok + 2);
		if (!n || n >= sizeof(o->name))
			return false;
		memcpy(o->name, tok + 2, n);
		o->name[n] = 0;
		o->inline_val = eq ? eq + 1 : NULL;
		return true;
	}
	o->name[0] = tok[1];
	o->name[1] = 0;
	o->inline_val = tok[2] ? tok + 2 : NULL;
	return true;
}

static bool is_opt(const struct optword *o, const char *shortname, const char *longname)
{
	return (shortname && !strcmp(o->name, shortname)) ||
	       (longname && !strcmp(o->name, longname));
}

/* The value of option o: inline, or the next token. NULL when missing. */
static const char *opt_value(const struct optword *o, char **tok, size_t n, size_t *i)
{
	if (o->inline_val)
		return o->inline_val;
	if (*i + 1 < n)
		return tok[++*i];
	return NULL;
}

/* A nested file named in p's file: absolute, or relative to that file's folder (as pip does). */
static char *nested_path(const struct parse *p, const char *name)
{
	const char *slash = strrchr(p->name, '/');
	if (name[0] == '/' || !slash)
		return wp_xstrdup(name);
	return wp_xasprintf("%.*s/%s", (int)(slash - p->name), p->name, name);
}

static bool is_url(const char *s)
{
	const char *c = strstr(s, "://");
	if (!c || c == s)
		return false;
	for (const char *q = s; q < c; q++)
		if (!isalpha((unsigned char)*q) && *q != '+')
			return false;
	return true;
}

static int load(struct parse *parent, const char *path, bool constraint, struct wp_err *err);

/* A source line's URL: a relative path is a folder or file next to the requirements file. */
static void add_source(struct parse *p, const char *url, enum wp_reqfile_source_kind kind)
{
	struct wp_reqfile_source *s = wp_vec_add(&p->rf->sources);
	s->url = is_url(url) || url[0] == '/' ? wp_xstrdup(url) : nested_path(p, url);
	s->kind = kind;
	s->where = where(p);
}

static int option_line(struct parse *p, char **tok, size_t n, struct wp_err *err)
{
	for (size_t i = 0; i < n; i++) {
		struct optword o;
		if (!read_optword(tok[i], &o))
			return at(p, err,
				  "'%s' is not an option; a requirement comes first on its line",
				  tok[i]);
		const char *v;
		int rc;
		if (is_opt(&o, "r", "requirement") || is_opt(&o, "c", "constraint")) {
			bool nested_constraint = is_opt(&o, "c", "constraint");
			if (!(v = opt_value(&o, tok, n, &i)))
				return at(p, err, "'%s' needs a file name", tok[i]);
			if (is_url(v))
				return at(p, err,
					  "'%s' names a file by URL; download it and name the copy",
					  v);
			char *np = nested_path(p, v);
			/* pip: -r inside a constraints file still reads requirements */
			rc = load(p, np, nested_constraint, err);
			free(np);
			if (rc)
				return rc;
		} else if (is_opt(&o, "i", "index-url") || is_opt(&o, NULL, "extra-index-url") ||
			   is_opt(&o, "f", "find-links")) {
			enum wp_reqfile_source_kind kind = is_opt(&o, "i", "index-url") ?
								   WP_REQFILE_INDEX_URL :
							   is_opt(&o, "f", "find-links") ?
								   WP_REQFILE_FIND_LINKS :
								   WP_REQFILE_EXTRA_INDEX_URL;
			if (!(v = opt_value(&o, tok, n, &i)) || !*v)
				return at(p, err, "'%s' needs a URL", tok[i]);
			add_source(p, v, kind);
		} else if (is_opt(&o, NULL, "no-index")) {
			p->rf->no_index = true;
		} else if (is_opt(&o, NULL, "pre")) {
			p->rf->pre = true;
		} else if (is_opt(&o, NULL, "require-hashes")) {
			p->rf->require_hashes = true;
		} else if (is_opt(&o, NULL, "prefer-binary")) {
			note(p, "%s: ignored; wheelpick picks only wheels", "--prefer-binary");
		} else if (is_opt(&o, NULL, "only-binary")) {
			opt_value(&o, tok, n, &i);
			note(p, "%s: ignored; wheelpick picks only wheels", "--only-binary");
		} else if (is_opt(&o, NULL, "use-feature")) {
			v = opt_value(&o, tok, n, &i);
			note(p, "--use-feature %s: ignored; it changes only what pip does",
			     v ? v : "");
		} else if (is_opt(&o, NULL, "no-binary")) {
			return at(p, err,
				  "--no-binary asks for a build from source; wheelpick picks wheels only (remove the line)");
		} else if (is_opt(&o, NULL, "trusted-host")) {
			return at(p, err,
				  "--trusted-host turns off TLS checks for a host; wheelpick keeps them (give the index "
				  "over https, and a private CA with WHEELPICK_CA_BUNDLE)");
		} else if (is_opt(&o, "e", "editable")) {
			return at(p, err,
				  "-e installs a source tree in place; wheelpick picks from indexes (name the project "
				  "instead, or run pip for this line)");
		} else {
			return at(p, err,
				  "'%s' is not a requirements-file option wheelpick knows (it reads -r, -c, --index-url, "
				  "--extra-index-url, --find-links, --no-index, --pre, --require-hashes)",
				  tok[i]);
		}
	}
	return 0;
}

static bool hex64(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]))
			return false;
	return n == 64;
}

/* A bare file or URL where a name should be: pip installs those; wheelpick picks from indexes. */
static bool looks_like_file(const char *text)
{
	size_t n = strcspn(text, " ;");
	if (text[0] == '.' || text[0] == '/' || text[0] == '~')
		return true;
	if (is_url(text) && !strchr(text, '@'))
		return true;
	static const char *const exts[] = { ".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz" };
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t en = strlen(exts[i]);
		if (n > en && !strncmp(text + n - en, exts[i], en))
			return true;
	}
	return false;
}

static bool pinned(const struct wp_requirement *r)
{
	if (r->spec.n != 1)
		return false;
	const struct wp_specifier *s = &r->spec.specs[0];
	return (s->op == WP_OP_EQ && !s->wildcard) || s->op == WP_OP_ARBITRARY;
}

static void req_free(struct wp_reqfile_req *q)
{
	free(q->text);
	free(q->project);
	for (size_t i = 0; i < q->nhashes; i++)
		free(q->hashes[i]);
	free(q->hashes);
	free(q->where);
	wp_req_release(&q->req);
}

/* How the user adds an index ("--index"), for the advice. */
static const char *index_words(const struct parse *p)
{
	return wp_ask_words(p->io ? p->io->asks : NULL, WP_ASK_INDEX);
}

static int requirement_line(struct parse *p, const char *text, char **opts, size_t nopts,
			    bool constraint, struct wp_err *err)
{
	struct wp_err pe = WP_ERR_INIT;
	struct wp_reqfile_req q = { 0 };
	const struct wp_requirement *r = &q.req.r;
	size_t hashes_cap = 0; /* q.hashes' room */
	int rc = 0;
	if (looks_like_file(text))
		return at(p, err,
			  "'%s' is a file by path or URL; wheelpick picks from indexes (add its folder or page "
			  "with %s and name the project)",
			  text, index_words(p));
	/* parsed here, once: what pick and install take from this file is q.req */
	if (wp_req_parse(&q.req, text, strlen(text), &pe) < 0) {
		struct wp_buf fix = WP_BUF_INIT;
		if (wp_requirement_guess(text, &fix))
			rc = at(p, err, "'%s' is not a requirement; did you mean '%s'?", text,
				fix.data);
		else
			rc = at(p, err, "'%s' is not a requirement: %s", text, pe.msg);
		wp_buf_free(&fix);
		goto out;
	}
	if (r->url) {
		rc = at(p, err,
			"'%s' names a file by URL; wheelpick picks from indexes (add the index with %s and "
			"name the project with a version)",
			text, index_words(p));
		goto out;
	}
	if (constraint && r->nextras) {
		rc = at(p, err,
			"'%s': a constraint cannot name extras (pip refuses them too); write '%s' and the "
			"specifiers alone",
			text, r->name);
		goto out;
	}
	if (p->rf->reqs.n >= WP_REQFILE_MAX_ENTRIES) {
		rc = at(p, err, "more than %d requirements", WP_REQFILE_MAX_ENTRIES);
		goto out;
	}
	q.text = wp_xstrdup(text);
	q.project = wp_xstrdup(q.req.project);
	q.constraint = constraint;
	q.pinned = pinned(r);
	q.where = where(p);
	for (size_t i = 0; i < nopts && !rc; i++) {
		struct optword o;
		const char *v;
		if (!read_optword(opts[i], &o)) {
			rc = at(p, err, "'%s' after the requirement is not an option", opts[i]);
		} else if (is_opt(&o, NULL, "hash")) {
			if (!(v = opt_value(&o, opts, nopts, &i))) {
				rc = at(p, err, "--hash needs a value, sha256:HEX");
			} else if (strncmp(v, "sha256:", 7) != 0) {
				const char *colon = strchr(v, ':');
				rc = at(p, err,
					"--hash '%s': only sha256 hashes can be checked (indexes publish sha256)%s",
					v, colon ? "" : "; write --hash=sha256:HEX");
			} else if (!hex64(v + 7)) {
				rc = at(p, err, "--hash '%s' is not sha256: and 64 hex digits", v);
			} else if (q.nhashes == WP_REQFILE_MAX_HASHES) {
				rc = at(p, err, "more than %d --hash options on one line",
					WP_REQFILE_MAX_HASHES);
			} else {
				char *h = wp_xstrdup(v + 7);
				for (char *c = h; *c; c++)
					*c = (char)tolower((unsigned char)*c);
				wp_vec_push_fields(q.hashes, q.nhashes, hashes_cap, h);
			}
		} else if (is_opt(&o, NULL, "config-settings") ||
			   is_opt(&o, NULL, "global-option") ||
			   is_opt(&o, NULL, "install-option")) {
			opt_value(&o, opts, nopts, &i);
			note(p,
			     "--%s: ignored; it is for building from source, and wheelpick picks wheels",
			     o.name);
		} else {
			rc = at(p, err,
				"'%s' cannot follow a requirement (pip allows --hash there)",
				opts[i]);
		}
	}
	if (!rc) {
		wp_vec_push(&p->rf->reqs, q);
		return 0;
	}
out:
	req_free(&q);
	return rc;
}

/* One logical line, comments stripped. */
static int parse_line(struct parse *p, const char *raw, bool constraint, struct wp_err *err)
{
	struct wp_buf line = WP_BUF_INIT_MAX(2 * MAX_LINE);
	char **tok = NULL;
	size_t n = 0;
	int rc;
	if (expand_env(p, raw, &line) < 0) {
		wp_buf_free(&line);
		return at(p, err, "the line is longer than %d bytes once ${VARIABLES} are expanded",
			  2 * MAX_LINE);
	}
	const char *s = wp_buf_cstr(&line);
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		wp_buf_free(&line);
		return 0;
	}
	/* pip: the words before the first that starts with '-' are the requirement; the rest
	 * options */
	if (s[0] == '-') {
		if ((rc = tokenize(p, s, &tok, &n, err)) == 0)
			rc = option_line(p, tok, n, err);
		free_tokens(tok, n);
		wp_buf_free(&line);
		return rc;
	}
	const char *opt = s;
	for (;;) {
		opt += strcspn(opt, " \t");
		while (*opt == ' ' || *opt == '\t')
			opt++;
		if (!*opt || *opt == '-')
			break;
	}
	size_t rn = (size_t)(opt - s);
	while (rn && (s[rn - 1] == ' ' || s[rn - 1] == '\t'))
		rn--;
	if (rn > WP_REQUIREMENT_MAX_LEN) {
		wp_buf_free(&line);
		return at(p, err, "a requirement longer than %d characters",
			  WP_REQUIREMENT_MAX_LEN);
	}
	char *text = wp_xstrndup(s, rn);
	if ((rc = tokenize(p, opt, &tok, &n, err)) == 0)
		rc = requirement_line(p, text, tok, n, constraint, err);
	free_tokens(tok, n);
	free(text);
	wp_buf_free(&line);
	return rc;
}

/* pip's COMMENT_RE, (^|\s+)#.*$: a '#' at the start or after whitespace ends the line. */
static void strip_comment(struct wp_buf *b)
{
	for (size_t i = 0; i < b->len; i++)
		if (b->data[i] == '#' &&
		    (i == 0 || b->data[i - 1] == ' ' || b->data[i - 1] == '\t')) {
			b->len = i;
			b->data[i] = 0;
			return;
		}
}

static bool is_comment_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i < n && s[i] == '#';
}

static int parse_text(struct parse *p, const char *text, size_t len, bool constraint,
		      struct wp_err *err)
{
	struct wp_buf logical = WP_BUF_INIT_MAX(MAX_LINE);
	unsigned lineno = 0;
	bool joining = false;
	int rc = 0;
	size_t pos = 0;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) /* a byte order mark */
		pos = 3;
	while (pos < len && !rc) {
		const char *ln = text + pos;
		const char *nl = memchr(ln, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - ln) : len - pos;
		pos += n + (nl ? 1 : 0);
		lineno++;
		if (n && ln[n - 1] == '\r')
			n--;
		if (memchr(ln, 0, n)) {
			p->line = lineno;
			rc = at(p, err, "a NUL byte; this is not a text file");
			break;
		}
		if (!joining)
			p->line = lineno;
		/* pip joins a line ending in '\' with the next, unless it is a comment */
		bool cont = n && ln[n - 1] == '\\' && !is_comment_line(ln, n);
		if (wp_buf_add(&logical, ln, cont ? n - 1 : n) < 0) {
			rc = at(p, err, "a line longer than %d bytes (joined with '\\')", MAX_LINE);
			break;
		}
		if (cont && pos < len) {
			joining = true;
			continue;
		}
		joining = false;
		strip_comment(&logical);
		rc = parse_line(p, wp_buf_cstr(&logical), constraint, err);
		wp_buf_reset(&logical);
	}
	wp_buf_free(&logical);
	return rc;
}

static int start(struct parse *p, struct wp_reqfile *rf, const struct wp_reqfile_io *io,
		 const char *name, const struct parse *parent, struct wp_err *err)
{
	memset(p, 0, sizeof(*p));
	p->rf = rf;
	p->io = io;
	p->name = name;
	if (parent) {
		p->depth = parent->depth + 1;
		memcpy(p->chain, parent->chain, sizeof(p->chain));
		if (p->depth > WP_REQFILE_MAX_DEPTH)
			return at(parent, err, "'%s': files nested more than %d deep", name,
				  WP_REQFILE_MAX_DEPTH);
		for (int i = 0; i < p->depth; i++)
			if (p->chain[i] && !strcmp(p->chain[i], name))
				return at(parent, err, "'%s' includes itself (through -r or -c)",
					  name);
	}
	p->chain[p->depth] = name;
	rf->files++;
	return 0;
}

/* Has this file been read already in this mode? Else it is noted as read. */
static bool read_before(struct wp_reqfile *rf, const char *path, bool constraint)
{
	char *key = wp_xasprintf("%c:%s", constraint ? 'c' : 'r', path);
	for (size_t i = 0; i < rf->read.n; i++)
		if (!strcmp(rf->read.v[i], key)) {
			free(key);
			return true;
		}
	wp_vec_push(&rf->read, key);
	return false;
}

/* One file's bytes through io->read, held to the caps on all files of the run together. */
static int read_capped(const struct parse *p, const struct parse *parent, const char *path,
		       struct wp_buf *b, struct wp_err *err)
{
	struct wp_reqfile *rf = p->rf;
	const struct parse *blame = parent ? parent : p;
	if (rf->files > WP_REQFILE_MAX_FILES)
		return at(blame, err,
			  "'%s': more than %d files read through -r and -c; a requirements file that "
			  "names files which name files fans out without end",
			  path, WP_REQFILE_MAX_FILES);
	int rc = p->io->read(p->io->ctx, path, b, err);
	if (rc)
		return rc;
	rf->bytes += b->len;
	if (rf->bytes > WP_REQFILE_MAX_TOTAL)
		return at(blame, err,
			  "'%s': the requirements files read through -r and -c hold more than %d MiB "
			  "together",
			  path, WP_REQFILE_MAX_TOTAL >> 20);
	return 0;
}

static int load(struct parse *parent, const char *path, bool constraint, struct wp_err *err)
{
	struct parse p;
	const struct wp_reqfile_io *io = parent->io;
	int rc;
	if (!io || !io->read)
		return at(parent, err, "'%s': nested files cannot be read here", path);
	if (++parent->rf->includes > WP_REQFILE_MAX_INCLUDES)
		return at(parent, err,
			  "more than %d -r and -c lines in the requirements files together",
			  WP_REQFILE_MAX_INCLUDES);
	if ((rc = start(&p, parent->rf, io, path, parent, err)))
		return rc;
	if (read_before(parent->rf, path, constraint)) {
		parent->rf->files--; /* named again, not read again: pip would add the same lines
					twice */
		return 0;
	}
	struct wp_buf b = WP_BUF_INIT_MAX(WP_REQFILE_MAX_BYTES);
	if ((rc = read_capped(&p, parent, path, &b, err)) == 0)
		rc = parse_text(&p, wp_buf_cstr(&b), b.len, constraint, err);
	wp_buf_free(&b);
	return rc;
}

int wp_reqfile_parse(struct wp_reqfile *rf, const char *name, const char *text, size_t len,
		     bool constraint, const struct wp_reqfile_io *io, struct wp_err *err)
{
	struct parse p;
	int rc = start(&p, rf, io, name, NULL, err);
	return rc ? rc : parse_text(&p, text, len, constraint, err);
}

int wp_reqfile_load(struct wp_reqfile *rf, const char *path, bool constraint,
		    const struct wp_reqfile_io *io, struct wp_err *err)
{
	struct parse top;
	int rc;
	if (!io || !io->read)
		return wp_fail(err, -WPE_USAGE, "'%s': no way to read files", path);
	if ((rc = start(&top, rf, io, path, NULL, err)))
		return rc;
	if (read_before(rf, path, constraint)) {
		rf->files--;
		return 0;
	}
	struct wp_buf b = WP_BUF_INIT_MAX(WP_REQFILE_MAX_BYTES);
	if ((rc = read_capped(&top, NULL, path, &b, err)) == 0)
		rc = parse_text(&top, wp_buf_cstr(&b), b.len, constraint, err);
	wp_buf_free(&b);
	return rc;
}

int wp_reqfile_check_hashes(const struct wp_reqfile *rf, bool require_hashes, struct wp_err *err)
{
	bool mode = require_hashes || rf->require_hashes;
	const struct wp_reqfile_req *hashed = NULL;
	for (size_t i = 0; i < rf->reqs.n && !hashed; i++)
		if (!rf->reqs.v[i].constraint && rf->reqs.v[i].nhashes)
			hashed = &rf->reqs.v[i];
	if (!mode && !hashed)
		return 0;
	for (size_t i = 0; i < rf->reqs.n; i++) {
		const struct wp_reqfile_req *q = &rf->reqs.v[i];
		if (q->constraint)
			continue;
		const char *why = mode ? "--require-hashes is given" : NULL;
		char because[600];
		if (!why) {
			snprintf(because, sizeof(because),
				 "%s has a --hash, which turns on pip's hash-checking mode",
				 hashed->where);
			why = because;
		}
		if (!q->nhashes)
			return wp_fail(err, -WPE_USAGE,
				       "%s: '%s' has no --hash; %s, so every requirement needs one "
				       "(pip refuses this file too)",
				       q->where, q->text, why);
		if (!q->pinned)
			return wp_fail(err, -WPE_USAGE,
				       "%s: '%s' is not pinned with ==; %s, so every requirement must name "
				       "one version (pip refuses this file too)",
				       q->where, q->text, why);
	}
	return 0;
}

void wp_reqfile_release(struct wp_reqfile *rf)
{
	for (size_t i = 0; i < rf->reqs.n; i++)
		req_free(&rf->reqs.v[i]);
	wp_vec_free(&rf->reqs);
	for (size_t i = 0; i < rf->sources.n; i++) {
		free(rf->sources.v[i].url);
		free(rf->sources.v[i].where);
	}
	wp_vec_free(&rf->sources);
	for (size_t i = 0; i < rf->notes.n; i++)
		free(rf->notes.v[i]);
	wp_vec_free(&rf->notes);
	for (size_t i = 0; i < rf->read.n; i++)
		free(rf->read.v[i]);
	wp_vec_free(&rf->read);
	memset(rf, 0, sizeof(*rf));
}

/* A project name as PEP 508 spells one: letters, digits, and . _ - inside. */
static size_t name_len(const char *s)
{
	size_t n = 0;
	if (!isalnum((unsigned char)s[0]))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '.' || s[n] == '_' || s[n] == '-')
		n++;
	while (n && !isalnum((unsigned char)s[n - 1]))
		n--;
	return n;
}

/* A version as people type one: digits and dots, with an optional trailing ".*" or letters
 * (2.4, 1.8.*, 2.0rc1, 1.8.0+cu111). */
static bool version_word(const char *s, size_t n)
{
	if (!n || !isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '*' && s[i] != '+' &&
		    s[i] != '!')
			return false;
	return true;
}

bool wp_looks_like_version_spec(const char *word)
{
	const char *s = word;
	while (*s == '<' || *s == '>' || *s == '=' || *s == '!' || *s == '~')
		s++;
	while (*s == ' ')
		s++;
	return version_word(s, strlen(s));
}

bool wp_requirement_guess(const char *text, struct wp_buf *out)
{
	size_t n = name_len(text);
	if (!n)
		return false;
	const char *rest = text + n;
	/* conda's name=version and name=version=build: one '=' where pip wants two */
	if (rest[0] == '=' && rest[1] != '=') {
		const char *v = rest + 1;
		size_t vn = strcspn(v, "=");
		if (!version_word(v, vn))
			return false;
		wp_buf_printf(out, "%.*s==%.*s", (int)n, text, (int)vn, v);
		return true;
	}
	/* conda's "name version" */
	if (rest[0] == ' ') {
		const char *v = rest;
		while (*v == ' ')
			v++;
		size_t vn = strcspn(v, " ");
		if (v[vn] || !version_word(v, vn))
			return false;
		wp_buf_printf(out, "%.*s==%.*s", (int)n, text, (int)vn, v);
		return true;
	}
	return false;
}
