/* resolver/version.c: PEP 440 versions: parse, normalise, compare, as packaging 24.2. Pure; no
 * I/O. */
#include "resolver/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"

/* Spans found by one pass of the grammar; offsets are relative to the scanned text. */
struct scan {
	size_t epoch_b, epoch_e;          /* epoch_e == 0: no epoch */
	size_t rel_b, rel_e;
	size_t nrel;
	enum wp_pre_kind pre_kind;
	size_t pre_b, pre_e;              /* digits; empty means 0 */
	bool has_post;
	size_t post_b, post_e;
	bool has_dev;
	size_t dev_b, dev_e;
	size_t local_b, local_e;          /* local_e == 0: no local */
	bool wildcard;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Python's \s (str.isspace) at s: the byte length of one whitespace character, or 0. The
 * non-ASCII ones are matched in their UTF-8 form, as packaging sees decoded text. */
static size_t pyspace(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	if (!n)
		return 0;
	if (u[0] == ' ' || (u[0] >= 0x09 && u[0] <= 0x0d) || (u[0] >= 0x1c && u[0] <= 0x1f))
		return 1;
	if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
		return 2;
	if (n >= 3 && u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
		return 3;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 &&
	    ((u[2] >= 0x80 && u[2] <= 0x8a) || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
		return 3;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
		return 3;
	if (n >= 3 && u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
		return 3;
	return 0;
}

/* Case-insensitive: does s[i..] start with word? */
static bool at_word(const char *s, size_t n, size_t i, const char *word)
{
	size_t k = strlen(word);
	if (i > n || n - i < k)
		return false;
	for (size_t j = 0; j < k; j++)
		if (lower(s[i + j]) != word[j])
			return false;
	return true;
}

static size_t digits(const char *s, size_t n, size_t i)
{
	while (i < n && is_digit(s[i]))
		i++;
	return i;
}

/* One pass of packaging's VERSION_PATTERN at s, greedy as its regular expression is. Where the
 * pattern has a choice (an optional separator that could belong to the next part), taking it
 * greedily never loses a match the pattern would find, so no backtracking is needed. */
static size_t scan(const char *s, size_t n, unsigned flags, struct scan *sc)
{
	static const struct { const char *w; enum wp_pre_kind k; } pre_words[] = {
		{ "alpha", WP_PRE_A }, { "a", WP_PRE_A },        { "beta", WP_PRE_B },
		{ "b", WP_PRE_B },     { "preview", WP_PRE_RC }, { "pre", WP_PRE_RC },
		{ "c", WP_PRE_RC },    { "rc", WP_PRE_RC },
	};
	static const char *const post_words[] = { "post", "rev", "r" };
	size_t i = 0, q;

	memset(sc, 0, sizeof(*sc));
	if (i < n && lower(s[i]) == 'v')
		i++;
	q = digits(s, n, i);
	if (q > i && q < n && s[q] == '!') {
		sc->epoch_b = i;
		sc->epoch_e = q;
		i = q + 1;
	}
	if (sc->epoch_e && (i >= n || !is_digit(s[i]))) {
		/* the pattern backtracks: "1!" without a release was not an epoch after all */
		i = sc->epoch_b;
		sc->epoch_b = sc->epoch_e = 0;
	}
	if (i >= n || !is_digit(s[i]))
		return 0;
	sc->rel_b = i;
	i = digits(s, n, i);
	sc->nrel = 1;
	while (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
		i = digits(s, n, i + 1);
		sc->nrel++;
	}
	sc->rel_e = i;
	if ((flags & WP_VMATCH_TWO) && sc->nrel < 2)
		return 0;
	if ((flags & WP_VMATCH_WILDCARD) && i + 1 < n && s[i] == '.' && s[i + 1] == '*') {
		sc->wildcard = true;
		return i + 2;
	}

	/* pre-release: [-_.]? (alpha|a|beta|b|preview|pre|c|rc) [-_.]? [0-9]* */
	q = i < n && is_sep(s[i]) ? i + 1 : i;
	for (size_t w = 0; w < WP_ARRAY_LEN(pre_words); w++) {
		if (!at_word(s, n, q, pre_words[w].w))
			continue;
		sc->pre_kind = pre_words[w].k;
		i = q + strlen(pre_words[w].w);
		if (i < n && is_sep(s[i]))
			i++;
		sc->pre_b = i;
		i = digits(s, n, i);
		sc->pre_e = i;
		break;
	}

	/* post-release: -[0-9]+ | [-_.]? (post|rev|r) [-_.]? [0-9]* */
	if (i + 1 < n && s[i] == '-' && is_digit(s[i + 1])) {
		sc->has_post = true;
		sc->post_b = i + 1;
		i = digits(s, n, i + 1);
		sc->post_e = i;
	} else {
		q = i < n && is_sep(s[i]) ? i + 1 : i;
		for (size_t w = 0; w < WP_ARRAY_LEN(post_words); w++) {
			if (!at_word(s, n, q, post_words[w]))
				continue;
			sc->has_post = true;
			i = q + strlen(post_words[w]);
			if (i < n && is_sep(s[i]))
				i++;
			sc->post_b = i;
			i = digits(s, n, i);
			sc->post_e = i;
			break;
		}
	}

	/* dev-release: [-_.]? dev [-_.]? [0-9]* */
	q = i < n && is_sep(s[i]) ? i + 1 : i;
	if (at_word(s, n, q, "dev")) {
		sc->has_dev = true;
		i = q + 3;
		if (i < n && is_sep(s[i]))
			i++;
		sc->dev_b = i;
		i = digits(s, n, i);
		sc->dev_e = i;
	}

	/* local: \+ [a-z0-9]+ ([-_.][a-z0-9]+)* */
	if ((flags & WP_VMATCH_LOCAL) && i + 1 < n && s[i] == '+' && is_alnum(s[i + 1])) {
		sc->local_b = i + 1;
		i++;
		while (i < n && is_alnum(s[i]))
			i++;
		while (i + 1 < n && is_sep(s[i]) && is_alnum(s[i + 1])) {
			i++;
			while (i < n && is_alnum(s[i]))
				i++;
		}
		sc->local_e = i;
	}
	return i;
}

size_t wp_version_match(const char *s, size_t n, unsigned flags)
{
	struct scan sc;
	return scan(s, n, flags, &sc);
}

/* Digits s[b..e) as a number; empty means 0. */
/* The version as a message shows it: at most 64 bytes. Formatted only for a message: a warm
 * pick parses every row's version, and this snprintf was 15% of it. */
struct shown {
	const char *s;
	size_t n;
	char text[80];
};

static const char *show(struct shown *w)
{
	snprintf(w->text, sizeof(w->text), "%.*s%s", (int)(w->n < 64 ? w->n : 64), w->s,
		 w->n > 64 ? "..." : "");
	return w->text;
}

static int number(const char *s, size_t b, size_t e, uint64_t *out, struct shown *what,
		  struct wp_err *err)
{
	uint64_t v = 0;
	while (b < e && s[b] == '0')
		b++;
	if (e - b > WP_VERSION_MAX_DIGITS)
		return wp_fail(err, -WPE_TOO_BIG,
			       "version '%s' has a number with more than %d digits, which wheelpick does not support",
			       show(what), WP_VERSION_MAX_DIGITS);
	for (; b < e; b++)
		v = v * 10 + (uint64_t)(s[b] - '0');
	*out = v;
	return 0;
}

/* Local label as packaging keeps it: lower case, '.'-separated, numbers without leading zeros. */
static char *normalise_local(const char *s, size_t b, size_t e)
{
	struct wp_buf out = WP_BUF_INIT;
	while (b < e) {
		size_t k = b;
		bool numeric = true;
		while (k < e && !is_sep(s[k])) {
			numeric = numeric && is_digit(s[k]);
			k++;
		}
		if (out.len)
			wp_buf_addch(&out, '.');
		if (numeric) {
			while (b + 1 < k && s[b] == '0')
				b++;
		}
		for (; b < k; b++)
			wp_buf_addch(&out, lower(s[b]));
		b = k < e ? k + 1 : k;
	}
	return wp_buf_detach(&out, NULL);
}

int wp_version_parse(struct wp_version *v, const char *s, size_t n, struct wp_err *err)
{
	struct scan sc;
	size_t b = 0, e = n, m, k;
	struct shown shown = { s, n, "" };
	const char *given = s;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	if (n > WP_VERSION_MAX_LEN)
		return wp_fail(err, -WPE_TOO_BIG, "version '%s' is longer than %d bytes",
			       show(&shown), WP_VERSION_MAX_LEN);
	if (memchr(s, 0, n))
		return wp_fail(err, -WPE_PARSE, "version '%s' contains a NUL byte", show(&shown));
	while (b < e && (k = pyspace(s + b, e - b)) > 0)
		b += k;
	m = scan(s + b, e - b, WP_VMATCH_LOCAL, &sc);
	if (m == 0)
		goto bad;
	for (k = b + m; k < e;) {
		size_t w = pyspace(s + k, e - k);
		if (!w)
			goto bad;
		k += w;
	}
	s += b;

	if (sc.epoch_e && (rc = number(s, sc.epoch_b, sc.epoch_e, &v->epoch, &shown, err)) < 0)
		goto out;
	v->release = wp_xcalloc(sc.nrel, sizeof(*v->release));
	v->nrelease = sc.nrel;
	for (size_t i = sc.rel_b, j = 0; j < sc.nrel; j++) {
		size_t end = digits(s, sc.rel_e, i);
		if ((rc = number(s, i, end, &v->release[j], &shown, err)) < 0)
			goto out;
		i = end + 1;
	}
	v->pre_kind = sc.pre_kind;
	if (sc.pre_kind && (rc = number(s, sc.pre_b, sc.pre_e, &v->pre, &shown, err)) < 0)
		goto out;
	v->has_post = sc.has_post;
	if (sc.has_post && (rc = number(s, sc.post_b, sc.post_e, &v->post, &shown, err)) < 0)
		goto out;
	v->has_dev = sc.has_dev;
	if (sc.has_dev && (rc = number(s, sc.dev_b, sc.dev_e, &v->dev, &shown, err)) < 0)
		goto out;
	if (sc.local_e)
		v->local = normalise_local(s, sc.local_b, sc.local_e);
	v->text = wp_xstrndup(given, n);
	return 0;
bad:
	rc = wp_fail(err, -WPE_PARSE, "invalid version '%s' (not PEP 440)", show(&shown));
out:
	wp_version_release(v);
	return rc;
}

void wp_version_release(struct wp_version *v)
{
	free(v->release);
	free(v->local);
	free(v->text);
	memset(v, 0, sizeof(*v));
}

void wp_version_copy(struct wp_version *dst, const struct wp_version *src)
{
	*dst = *src;
	dst->release = wp_xmalloc((src->nrelease ? src->nrelease : 1) * sizeof(*dst->release));
	if (src->nrelease)
		memcpy(dst->release, src->release, src->nrelease * sizeof(*dst->release));
	dst->local = src->local ? wp_xstrdup(src->local) : NULL;
	dst->text = src->text ? wp_xstrdup(src->text) : NULL;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static size_t trimmed(const struct wp_version *v)
{
	size_t n = v->nrelease;
	while (n > 0 && v->release[n - 1] == 0)
		n--;
	return n;
}

static int cmp_base(const struct wp_version *a, const struct wp_version *b)
{
	int c = cmp_u64(a->epoch, b->epoch);
	if (c)
		return c;
	size_t na = trimmed(a), nb = trimmed(b);
	for (size_t i = 0; i < na && i < nb; i++)
		if ((c = cmp_u64(a->release[i], b->release[i])))
			return c;
	return na < nb ? -1 : na > nb;
}

/* packaging's _cmpkey: a bare dev release sorts before any pre-release of the same release,
 * no pre-release sorts after all of them; no post before any post; no dev after any dev. */
static int cmp_public(const struct wp_version *a, const struct wp_version *b)
{
	int c = cmp_base(a, b);
	if (c)
		return c;
	/* pre as a rank: -1 dev-only, 0..2 a/b/rc, 3 none */
	int ra = a->pre_kind ? (int)a->pre_kind - 1 : (!a->has_post && a->has_dev ? -1 : 3);
	int rb = b->pre_kind ? (int)b->pre_kind - 1 : (!b->has_post && b->has_dev ? -1 : 3);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->pre_kind && (c = cmp_u64(a->pre, b->pre)))
		return c;
	if (a->has_post != b->has_post)
		return a->has_post ? 1 : -1;
	if (a->has_post && (c = cmp_u64(a->post, b->post)))
		return c;
	if (a->has_dev != b->has_dev)
		return a->has_dev ? -1 : 1;
	if (a->has_dev && (c = cmp_u64(a->dev, b->dev)))
		return c;
	return 0;
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return n > 0;
}

/* Local labels are normalised (numbers have no leading zeros), so numbers compare by length
 * and then as text, whatever their size; a number beats any text. */
static int cmp_local(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : (a ? 1 : -1);
	for (;;) {
		if (!*a || !*b)
			return !*a && !*b ? 0 : (*a ? 1 : -1);
		size_t la = strcspn(a, "."), lb = strcspn(b, ".");
		bool na = all_digits(a, la), nb = all_digits(b, lb);
		int c;
		if (na != nb)
			return na ? 1 : -1;
		if (na && la != lb)
			return la < lb ? -1 : 1;
		c = memcmp(a, b, la < lb ? la : lb);
		if (c)
			return c < 0 ? -1 : 1;
		if (la != lb)
			return la < lb ? -1 : 1;
		a += la + (a[la] == '.');
		b += lb + (b[lb] == '.');
	}
}

int wp_version_cmp(const struct wp_version *a, const struct wp_version *b)
{
	int c = cmp_public(a, b);
	return c ? c : cmp_local(a->local, b->local);
}

int wp_version_cmp_public(const struct wp_version *a, const struct wp_version *b)
{
	return cmp_public(a, b);
}

int wp_version_cmp_base(const struct wp_version *a, const struct wp_version *b)
{
	return cmp_base(a, b);
}

/* The sort key. A number is its count of significant bytes, then those bytes big-endian (0 is
 * the one byte 0): longer is larger. Fields in cmp_public's order, each self-delimiting:
 *   epoch number; per release part (trailing zeros dropped) 0x02 and the number, then 0x01 (an
 *   ended release sorts below one with more parts); the pre rank as in cmp_public (0 dev-only,
 *   1 a, 2 b, 3 rc, 4 none) and the pre number when there is one; 0x00 no post, or 0x01 and the
 *   number; 0x01 no dev, or 0x00 and the number; then 0x00, which ends the public part.
 * The local label follows as its segments: a number 0x02, its length in two bytes and its digits
 * (normalised: no leading zeros, so longer is larger); text 0x01, its bytes and 0x00 (labels are
 * lower-case letters and digits only, so 0x00 ends it and a shorter text sorts first). A number
 * segment above any text one, and fewer segments first, as cmp_local. */
static void key_num(uint64_t x, struct wp_buf *out)
{
	unsigned char b[9];
	size_t n = 0;
	for (uint64_t y = x; y; y >>= 8)
		n++;
	b[0] = (unsigned char)n;
	for (size_t i = 0; i < n; i++)
		b[1 + i] = (unsigned char)(x >> (8 * (n - 1 - i)));
	wp_buf_add(out, b, 1 + n);
}

void wp_version_key_public(const struct wp_version *v, struct wp_buf *out)
{
	size_t nr = trimmed(v);
	key_num(v->epoch, out);
	for (size_t i = 0; i < nr; i++) {
		wp_buf_addch(out, 0x02);
		key_num(v->release[i], out);
	}
	wp_buf_addch(out, 0x01);
	int rank = v->pre_kind ? (int)v->pre_kind - 1 : (!v->has_post && v->has_dev ? -1 : 3);
	wp_buf_addch(out, (char)(rank + 1));
	if (v->pre_kind)
		key_num(v->pre, out);
	wp_buf_addch(out, v->has_post ? 0x01 : 0x00);
	if (v->has_post)
		key_num(v->post, out);
	wp_buf_addch(out, v->has_dev ? 0x00 : 0x01);
	if (v->has_dev)
		key_num(v->dev, out);
	wp_buf_addch(out, 0x00);
}

void wp_version_key(const struct wp_version *v, struct wp_buf *out)
{
	wp_version_key_public(v, out);
	for (const char *s = v->local; s && *s;) {
		size_t l = strcspn(s, ".");
		if (all_digits(s, l)) {
			unsigned char h[3] = { 0x02, (unsigned char)(l >> 8), (unsigned char)l };
			wp_buf_add(out, h, 3);
			wp_buf_add(out, s, l);
		} else {
			wp_buf_addch(out, 0x01);
			wp_buf_add(out, s, l);
			wp_buf_addch(out, 0x00);
		}
		s += l + (s[l] == '.');
	}
}

/* The length of the number at key[i] (0 when it runs past n). */
static size_t key_num_len(const unsigned char *key, size_t n, size_t i)
{
	return i < n && key[i] <= 8 && i + 1 + key[i] <= n ? 1u + key[i] : 0;
}

size_t wp_version_key_public_len(const unsigned char *key, size_t n)
{
	size_t i = 0, l;
	if (!(l = key_num_len(key, n, i)))
		return 0;
	for (i += l; i < n && key[i] == 0x02; i += l)
		if (!(l = key_num_len(key, n, ++i)))
			return 0;
	if (i >= n || key[i++] != 0x01 || i >= n)
		return 0;
	unsigned rank = key[i++];
	if (rank > 4)
		return 0;
	if (rank >= 1 && rank <= 3) {
		if (!(l = key_num_len(key, n, i)))
			return 0;
		i += l;
	}
	if (i >= n || key[i] > 0x01)
		return 0;
	if (key[i++] == 0x01) {
		if (!(l = key_num_len(key, n, i)))
			return 0;
		i += l;
	}
	if (i >= n || key[i] > 0x01)
		return 0;
	if (key[i++] == 0x00) {
		if (!(l = key_num_len(key, n, i)))
			return 0;
		i += l;
	}
	return i < n && key[i] == 0x00 ? i + 1 : 0;
}

void wp_version_key_public_next(const unsigned char *p, size_t n, struct wp_buf *out)
{
	wp_buf_add(out, p, n);
	if (n)
		out->data[out->len - 1]++;
}

static int format(const struct wp_version *v, struct wp_buf *out, bool suffixes, bool local,
		  bool strip)
{
	static const char *const pre_names[] = { "", "a", "b", "rc" };
	size_t nrel = v->nrelease;
	int bad = 0;

	if (strip)
		while (nrel > 1 && v->release[nrel - 1] == 0)
			nrel--;
	if (v->epoch)
		bad |= wp_buf_printf(out, "%llu!", (unsigned long long)v->epoch);
	for (size_t i = 0; i < nrel; i++)
		bad |= wp_buf_printf(out, "%s%llu", i ? "." : "",
				     (unsigned long long)v->release[i]);
	if (suffixes && v->pre_kind)
		bad |= wp_buf_printf(out, "%s%llu", pre_names[v->pre_kind],
				     (unsigned long long)v->pre);
	if (suffixes && v->has_post)
		bad |= wp_buf_printf(out, ".post%llu", (unsigned long long)v->post);
	if (suffixes && v->has_dev)
		bad |= wp_buf_printf(out, ".dev%llu", (unsigned long long)v->dev);
	if (local && v->local)
		bad |= wp_buf_printf(out, "+%s", v->local);
	return bad ? wp_fail(NULL, -WPE_TOO_BIG, "version text over the buffer's ceiling") : 0;
}

int wp_version_format(const struct wp_version *v, struct wp_buf *out)
{
	return format(v, out, true, true, false);
}

int wp_version_format_public(const struct wp_version *v, struct wp_buf *out)
{
	return format(v, out, true, false, false);
}

int wp_version_format_base(const struct wp_version *v, struct wp_buf *out)
{
	return format(v, out, false, false, false);
}

int wp_version_format_canonical(const struct wp_version *v, struct wp_buf *out)
{
	return format(v, out, true, true, true);
}

bool wp_version_is_prerelease(const struct wp_version *v)
{
	return v->pre_kind != WP_PRE_NONE || v->has_dev;
}

bool wp_version_is_devrelease(const struct wp_version *v)
{
	return v->has_dev;
}

bool wp_version_is_postrelease(const struct wp_version *v)
{
	return v->has_post;
}

bool wp_version_has_local(const struct wp_version *v)
{
	return v->local != NULL;
}

const char *wp_version_local(const struct wp_version *v)
{
	return v->local;
}

bool wp_version_text_equal(const char *a, size_t an, const char *b, size_t bn)
{
	if (an == bn && strncasecmp(a, b, an) == 0)
		return true;
	struct wp_version va, vb;
	bool eq = false;
	if (wp_version_parse(&va, a, an, NULL) != 0)
		return false;
	if (wp_version_parse(&vb, b, bn, NULL) == 0) {
		eq = wp_version_cmp(&va, &vb) == 0;
		wp_version_release(&vb);
	}
	wp_version_release(&va);
	return eq;
}

bool wp_version_same(const char *a, const char *b)
{
	return wp_version_text_equal(a, strlen(a), b, strlen(b));
}
