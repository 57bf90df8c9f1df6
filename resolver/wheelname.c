/* resolver/wheelname.c: splitting wheel and sdist file names the way packaging's utils do. */
#include "resolver/wheelname.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/str.h"

/* A ceiling so that hostile names cannot make the tag expansion quadratic-huge. */
#define MAX_TAGS 1024

void wp_project_name_normalize(const char *in, size_t n, struct wp_buf *out)
{
	wp_buf_reset(out);
	bool sep = false;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		if (c == '-' || c == '_' || c == '.') {
			sep = true;
			continue;
		}
		if (sep)
			wp_buf_addch(out, '-');
		sep = false;
		wp_buf_addch(out, (char)tolower((unsigned char)c));
	}
	/* canonicalize_name keeps a trailing separator, as '-' */
	if (sep)
		wp_buf_addch(out, '-');
}

struct cursor {
	const char *s;
	size_t n, i;
};

static bool at_digit(const struct cursor *c)
{
	return c->i < c->n && isdigit((unsigned char)c->s[c->i]);
}

static bool at_sep(const struct cursor *c)
{
	return c->i < c->n && (c->s[c->i] == '-' || c->s[c->i] == '_' || c->s[c->i] == '.');
}

static void digits(struct cursor *c)
{
	while (at_digit(c))
		c->i++;
}

static bool word(struct cursor *c, const char *const *words)
{
	for (; *words; words++) {
		size_t k = strlen(*words);
		if (c->n - c->i >= k && !strncasecmp(c->s + c->i, *words, k)) {
			c->i += k;
			return true;
		}
	}
	return false;
}

/* [-_.]? LABEL [-_.]? [0-9]*  -- greedy is enough: every later part may start with a
 * separator of its own, so taking one here never makes a valid version fail. */
static bool labelled(struct cursor *c, const char *const *labels)
{
	size_t start = c->i;
	if (at_sep(c))
		c->i++;
	if (!word(c, labels)) {
		c->i = start;
		return false;
	}
	if (at_sep(c))
		c->i++;
	digits(c);
	return true;
}

bool wp_pep440_valid(const char *s, size_t n)
{
	/* longest spelling first, as the regex alternation would settle it */
	static const char *const pre[] = { "alpha", "beta", "preview", "pre", "rc",
					   "a",     "b",    "c",       NULL };
	static const char *const post[] = { "post", "rev", "r", NULL };
	static const char *const dev[] = { "dev", NULL };
	struct cursor c = { s, n, 0 };
	if (c.i < n && (s[0] == 'v' || s[0] == 'V'))
		c.i++;
	size_t mark = c.i;
	digits(&c);
	if (c.i < n && s[c.i] == '!' && c.i > mark)
		c.i++;
	else
		c.i = mark;
	if (!at_digit(&c))
		return false;
	digits(&c);
	while (c.i + 1 < n && s[c.i] == '.' && isdigit((unsigned char)s[c.i + 1])) {
		c.i++;
		digits(&c);
	}
	labelled(&c, pre);
	if (c.i + 1 < n && s[c.i] == '-' && isdigit((unsigned char)s[c.i + 1])) {
		c.i++;
		digits(&c);
	} else {
		labelled(&c, post);
	}
	labelled(&c, dev);
	if (c.i < n && s[c.i] == '+') {
		c.i++;
		for (;;) {
			size_t seg = c.i;
			while (c.i < n && isalnum((unsigned char)s[c.i]))
				c.i++;
			if (c.i == seg)
				return false;
			if (!at_sep(&c))
				break;
			c.i++;
		}
	}
	return c.i == n;
}

static size_t count_char(struct wp_str s, char ch)
{
	size_t k = 0;
	for (size_t i = 0; i < s.n; i++)
		k += s.p[i] == ch;
	return k;
}

static char *normalized(struct wp_str name)
{
	struct wp_buf b = WP_BUF_INIT;
	wp_project_name_normalize(name.p, name.n, &b);
	return wp_buf_detach(&b, NULL);
}

/* packaging: "__" is refused, and the rest must be \w, '.' or '_'; bytes past ASCII are
 * taken as the word characters of a UTF-8 name. */
static bool wheel_project_ok(struct wp_str s)
{
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (!isalnum(c) && c != '_' && c != '.' && c < 0x80)
			return false;
		if (c == '_' && i + 1 < s.n && s.p[i + 1] == '_')
			return false;
	}
	return true;
}

static bool tag_part_ok(struct wp_str s)
{
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (!isalnum(c) && c != '_')
			return false;
	}
	return true;
}

/* Split "a.b" into views; false on an empty or odd part, or more than max parts. */
static bool split_dots(struct wp_str s, struct wp_str *parts, size_t max, size_t *n)
{
	size_t start = 0;
	*n = 0;
	for (size_t i = 0; i <= s.n; i++) {
		if (i < s.n && s.p[i] != '.')
			continue;
		struct wp_str p = WP_STRN(s.p + start, i - start);
		if (*n == max || !tag_part_ok(p))
			return false;
		parts[(*n)++] = p;
		start = i + 1;
	}
	return true;
}

static char *tag_dup(struct wp_str py, struct wp_str abi, struct wp_str plat)
{
	char *t = wp_xasprintf("%.*s-%.*s-%.*s", WP_STR_FMT(py), WP_STR_FMT(abi), WP_STR_FMT(plat));
	for (char *p = t; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return t;
}

/* str.isidentifier() for an interpreter tag: a letter or '_' first, then letters, digits, '_'
 * (bytes past ASCII taken as letters, as Python takes most of them) */
static bool identifier(struct wp_str s)
{
	if (!s.n || (s.p[0] >= '0' && s.p[0] <= '9'))
		return false;
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (!(c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

bool wp_variant_label_valid(const char *s, size_t n)
{
	if (!n || n > WP_VARIANT_LABEL_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') || s[i] == '_' ||
		      s[i] == '.'))
			return false;
	return true;
}

/* A wheel name cut into views of filename, every part checked: all that wp_wheelname_parse
 * refuses is refused here, with its messages; nothing is allocated. */
struct name_parts {
	struct wp_str name, version, build, label;
	bool has_build, has_label;
	long long build_num;
	struct wp_str py[16], abi[16], plat[64];
	size_t npy, nabi, nplat;
};

static int split_name(const char *filename, struct name_parts *np, struct wp_err *err)
{
	struct wp_str s = WP_STR(filename);
	np->build_num = -1;
	if (!wp_str_endswith(s, ".whl") || s.n == 4)
		return wp_fail(err, -WPE_PARSE, "wheel file name '%s' does not end in .whl",
			       filename);
	s.n -= 4;
	size_t dashes = count_char(s, '-');
	if (dashes < 4 || dashes > 6)
		return wp_fail(err, -WPE_PARSE, "wheel file name '%s' has %zu parts, not 5 to 7",
			       filename, dashes + 1);
	np->name = wp_str_cut(&s, '-');
	np->version = wp_str_cut(&s, '-');
	np->build = (struct wp_str){ "", 0 };
	np->label = (struct wp_str){ NULL, 0 };
	/* six parts: a build tag starts with a digit, a Python tag never does (PEP 825) */
	np->has_build = dashes == 6 || (dashes == 5 && s.n && isdigit((unsigned char)s.p[0]));
	np->has_label = dashes == 6 || (dashes == 5 && !np->has_build);
	if (np->has_build)
		np->build = wp_str_cut(&s, '-');
	struct wp_str pyt = wp_str_cut(&s, '-');
	struct wp_str abit = wp_str_cut(&s, '-');
	struct wp_str platt = np->has_label ? wp_str_cut(&s, '-') : s;
	if (np->has_label) {
		np->label = s;
		if (!wp_variant_label_valid(np->label.p, np->label.n))
			return wp_fail(err, -WPE_PARSE,
				       "wheel file name '%s' has an invalid variant label '%.*s' (PEP 825: "
				       "0-9, a-z, '_' and '.', at most %d)",
				       filename, WP_STR_FMT(np->label), WP_VARIANT_LABEL_MAX);
	}

	if (!wheel_project_ok(np->name))
		return wp_fail(err, -WPE_PARSE, "wheel file name '%s' has an invalid project name",
			       filename);
	if (!wp_pep440_valid(np->version.p, np->version.n))
		return wp_fail(err, -WPE_PARSE,
			       "wheel file name '%s' has an invalid version '%.*s'", filename,
			       WP_STR_FMT(np->version));
	if (np->has_build) {
		size_t k = 0;
		while (k < np->build.n && isdigit((unsigned char)np->build.p[k]))
			k++;
		long long num;
		if (!k || !wp_str_to_ll(WP_STRN(np->build.p, k), &num))
			return wp_fail(err, -WPE_PARSE,
				       "wheel file name '%s' has a build tag not starting with a digit",
				       filename);
		np->build_num = num;
	}

	if (!split_dots(pyt, np->py, WP_ARRAY_LEN(np->py), &np->npy) ||
	    !split_dots(abit, np->abi, WP_ARRAY_LEN(np->abi), &np->nabi) ||
	    !split_dots(platt, np->plat, WP_ARRAY_LEN(np->plat), &np->nplat) ||
	    np->npy * np->nabi * np->nplat > MAX_TAGS)
		return wp_fail(err, -WPE_PARSE,
			       "wheel file name '%s' has a malformed tag '%.*s-%.*s-%.*s'",
			       filename, WP_STR_FMT(pyt), WP_STR_FMT(abit), WP_STR_FMT(platt));
	/* packaging 26.3: each interpreter tag is a Python identifier ("py3", "cp312"), so
	 * playlyfe-0.1.1-2.7.6-none-any.whl ("2", "7", "6") is no wheel name */
	for (size_t i = 0; i < np->npy; i++)
		if (!identifier(np->py[i]))
			return wp_fail(err, -WPE_PARSE,
				       "wheel file name '%s' has an interpreter tag '%.*s' that is no "
				       "identifier (PEP 425: py3, cp312)",
				       filename, WP_STR_FMT(np->py[i]));
	return 0;
}

int wp_wheelname_parse(const char *filename, struct wp_wheelname *w, struct wp_err *err)
{
	struct wp_wheelname z = { 0 };
	struct name_parts np;
	*w = z;
	w->build_num = -1;
	int rc = split_name(filename, &np, err);
	if (rc)
		return rc;
	w->build_num = np.build_num;
	w->name = wp_xstrndup(np.name.p, np.name.n);
	w->project = normalized(np.name);
	w->version = wp_xstrndup(np.version.p, np.version.n);
	w->build = wp_xstrndup(np.build.p, np.build.n);
	w->variant_label = np.has_label ? wp_xstrndup(np.label.p, np.label.n) : NULL;
	if (w->build_num >= 0) {
		size_t k = 0;
		while (isdigit((unsigned char)w->build[k]))
			k++;
		w->build_suffix = w->build + k;
	} else {
		w->build_suffix = w->build;
	}
	w->tags = wp_xcalloc(np.npy * np.nabi * np.nplat, sizeof(*w->tags));
	for (size_t a = 0; a < np.npy; a++)
		for (size_t b = 0; b < np.nabi; b++)
			for (size_t c = 0; c < np.nplat; c++) {
				char *t = tag_dup(np.py[a], np.abi[b], np.plat[c]);
				bool dup = false;
				for (size_t k = 0; k < w->n_tags && !dup; k++)
					dup = !strcmp(w->tags[k], t);
				if (dup)
					free(t);
				else
					w->tags[w->n_tags++] = t;
			}
	return 0;
}

int wp_wheelname_each_tag(const char *filename, long long *build_num,
			  bool (*fn)(void *ctx, const char *tag), void *ctx, struct wp_err *err)
{
	struct name_parts np;
	char small[256];
	int rc = split_name(filename, &np, err);
	if (rc)
		return rc;
	*build_num = np.build_num;
	for (size_t a = 0; a < np.npy; a++)
		for (size_t b = 0; b < np.nabi; b++)
			for (size_t c = 0; c < np.nplat; c++) {
				size_t len = np.py[a].n + np.abi[b].n + np.plat[c].n + 2;
				/* the tags of one name are never longer than the name: a long one
				 * goes to the heap */
				char *t = len < sizeof(small) ? small : NULL, *heap = NULL;
				if (!t)
					t = heap = tag_dup(np.py[a], np.abi[b], np.plat[c]);
				else {
					const struct wp_str part[3] = { np.py[a], np.abi[b],
									np.plat[c] };
					size_t at = 0;
					for (int k = 0; k < 3; k++) {
						for (size_t i = 0; i < part[k].n; i++)
							t[at++] = (char)tolower(
								(unsigned char)part[k].p[i]);
						t[at++] = k < 2 ? '-' : 0;
					}
				}
				bool stop = fn(ctx, t);
				free(heap);
				if (stop)
					return 0;
			}
	return 0;
}

void wp_wheelname_release(struct wp_wheelname *w)
{
	free(w->name);
	free(w->project);
	free(w->version);
	free(w->build);
	free(w->variant_label);
	for (size_t i = 0; i < w->n_tags; i++)
		free(w->tags[i]);
	free(w->tags);
	struct wp_wheelname z = { 0 };
	*w = z;
	w->build_num = -1;
}

int wp_sdistname_parse(const char *filename, struct wp_sdistname *sd, struct wp_err *err)
{
	static const char *const exts[] = { ".tar.gz", ".tar.bz2", ".tar.xz", ".zip", ".tgz" };
	struct wp_sdistname z = { 0 };
	struct wp_str s = WP_STR(filename);
	*sd = z;
	const char *ext = NULL;
	for (size_t i = 0; i < WP_ARRAY_LEN(exts) && !ext; i++)
		if (wp_str_endswith(s, exts[i]))
			ext = exts[i];
	if (!ext)
		return wp_fail(err, -WPE_PARSE,
			       "'%s' is not an sdist (.tar.gz, .zip, .tar.bz2, .tar.xz, .tgz)",
			       filename);
	s.n -= strlen(ext);
	/* the last '-' whose remainder is a version: "foo-bar-1.0", "foo-1.0-post1" */
	for (size_t i = s.n; i-- > 0;) {
		if (s.p[i] != '-')
			continue;
		struct wp_str name = WP_STRN(s.p, i), ver = WP_STRN(s.p + i + 1, s.n - i - 1);
		if (!name.n || !wp_pep440_valid(ver.p, ver.n))
			continue;
		sd->name = wp_xstrndup(name.p, name.n);
		sd->project = normalized(name);
		sd->version = wp_xstrndup(ver.p, ver.n);
		sd->ext = ext;
		return 0;
	}
	return wp_fail(err, -WPE_PARSE, "sdist name '%s' has no '-VERSION' part", filename);
}

void wp_sdistname_release(struct wp_sdistname *sd)
{
	free(sd->name);
	free(sd->project);
	free(sd->version);
	struct wp_sdistname z = { 0 };
	*sd = z;
}

int wp_distname_split(const char *filename, char **project, char **version)
{
	struct wp_wheelname w;
	struct wp_sdistname s;
	const char *pr, *ve;
	bool wheel = wp_wheelname_parse(filename, &w, NULL) == 0;
	if (wheel) {
		pr = w.project;
		ve = w.version;
	} else if (wp_sdistname_parse(filename, &s, NULL) == 0) {
		pr = s.project;
		ve = s.version;
	} else {
		return -WPE_PARSE;
	}
	if (project)
		*project = wp_xstrdup(pr);
	if (version)
		*version = wp_xstrdup(ve);
	if (wheel)
		wp_wheelname_release(&w);
	else
		wp_sdistname_release(&s);
	return 0;
}
