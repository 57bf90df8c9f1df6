/* resolver/gpu.c: GPUs, arch lists and drivers, answered from the tables compiled from
 * resolver/data/. Pure; no I/O. */
#include "resolver/gpu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/str.h"
#include "resolver/data/tables.h"

/* CUDA versions and capabilities as major * 10 + minor (every minor so far is one digit). */
#define CU(M, m) ((M) * 10 + (m))

static bool digits_only(struct wp_str s, size_t max)
{
	if (!s.n || s.n > max)
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (!isdigit((unsigned char)s.p[i]))
			return false;
	return true;
}

/* ---- architectures ---- */

int wp_gpu_sm_parse(const char *text, int *sm)
{
	struct wp_str s = wp_str_trim(WP_STR(text ? text : ""));
	long long v, minor;
	if (wp_str_startswith(s, "sm")) {
		size_t k = s.n > 2 && s.p[2] == '_' ? 3 : 2;
		s.p += k;
		s.n -= k;
	} else if (wp_str_startswith(s, "compute_")) {
		s.p += 8;
		s.n -= 8;
	}
	if (s.n && (s.p[s.n - 1] == 'a' || s.p[s.n - 1] == 'f'))
		s.n--;
	struct wp_str dot = s, major = wp_str_cut(&dot, '.');
	if (major.n != s.n) {
		/* "8.6", "12.0": one-digit minor */
		if (!digits_only(major, 2) || !digits_only(dot, 1) || !wp_str_to_ll(major, &v) ||
		    !wp_str_to_ll(dot, &minor) || v == 0)
			return -WPE_PARSE;
		*sm = (int)(v * 10 + minor);
		return 0;
	}
	/* "86", "120": the last digit is the minor */
	if (!digits_only(s, 3) || s.n < 2 || !wp_str_to_ll(s, &v) || v < 10)
		return -WPE_PARSE;
	*sm = (int)v;
	return 0;
}

static const struct wp_tbl_arch *find_arch(int sm)
{
	for (size_t i = 0; i < wp_tbl_archs_len; i++)
		if (wp_tbl_archs[i].sm == sm)
			return &wp_tbl_archs[i];
	return NULL;
}

const char *wp_gpu_family(int sm)
{
	const struct wp_tbl_arch *r = find_arch(sm);
	return r ? r->family : NULL;
}

int wp_gpu_min_cuda(int sm, int *major, int *minor)
{
	const struct wp_tbl_arch *r = find_arch(sm);
	if (!r)
		return -WPE_NOMATCH;
	*major = r->min_cuda / 10;
	*minor = r->min_cuda % 10;
	return 0;
}

void wp_cuda_newest_known(int *major, int *minor)
{
	int best = 0;
	for (size_t i = 0; i < wp_tbl_drivers_len; i++)
		if (wp_tbl_drivers[i].cuda > best && wp_tbl_drivers[i].linux_min)
			best = wp_tbl_drivers[i].cuda;
	*major = best / 10;
	*minor = best % 10;
}

const char *wp_gpu_from_pci_id(unsigned device_id, int *sm)
{
	size_t lo = 0, hi = wp_tbl_gpu_pci_len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (wp_tbl_gpu_pci[mid].id == device_id) {
			*sm = wp_tbl_gpu_pci[mid].sm;
			return wp_tbl_gpu_pci[mid].name;
		}
		if (wp_tbl_gpu_pci[mid].id < device_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int wp_gpu_max_cuda(int sm, int *major, int *minor)
{
	const struct wp_tbl_arch *r = find_arch(sm);
	if (!r)
		return -WPE_NOMATCH;
	if (!r->max_cuda)
		return 1;
	*major = r->max_cuda / 10;
	*minor = r->max_cuda % 10;
	return 0;
}

/* Intel device IPs known to intel-variant-provider (devices.py), with the base platform each runs
 * the code of. */
static const struct {
	const char *ip, *compat, *names;
} intel_ips[] = {
	{ "20.4.4", "20.1.0", " lnl-m lnl " },
	{ "20.2.0", "20.1.0", " bmg-g31 " },
	{ "20.1.0", "", " bmg-g21 bmg " },
	{ "12.74.4", "", " arl-h " },
	{ "12.71.4", "12.70.4", " mtl-h " },
	{ "12.70.4", "", " mtl-u arl-u arl-s mtl " },
	{ "12.60.7", "", " pvc " },
	{ "12.57.0", "12.55.8", " acm-g12 dg2-g12 " },
	{ "12.56.5", "12.55.8", " acm-g11 dg2-g11 ats-m75 " },
	{ "12.55.8", "", " acm-g10 dg2-g10 ats-m150 dg2 " },
	{ "12.10.0", "", " dg1 " },
	{ "12.4.0", "", " adl-n " },
	{ "12.3.0", "", " adl-p rpl-p " },
	{ "12.2.0", "", " adl-s rpl-s " },
	{ "12.1.0", "", " rkl " },
	{ "12.0.0", "", " tgllp tgl " },
};

bool wp_intel_device_ip(const char *s, char ip[16], char compat[16])
{
	char key[40];
	if (!s || !*s || strlen(s) > 30)
		return false;
	snprintf(key, sizeof(key), " %s ", s);
	for (size_t i = 0; i < WP_ARRAY_LEN(intel_ips); i++) {
		if (!strcmp(s, intel_ips[i].ip) || strstr(intel_ips[i].names, key)) {
			snprintf(ip, 16, "%s", intel_ips[i].ip);
			snprintf(compat, 16, "%s", intel_ips[i].compat);
			return true;
		}
	}
	/* an IP the table does not know: itself, as the provider would report it (a.b.c) */
	int a, b, c, used = 0;
	if (sscanf(s, "%d.%d.%d%n", &a, &b, &c, &used) == 3 && !s[used] && a >= 0 && b >= 0 &&
	    c >= 0) {
		snprintf(ip, 16, "%d.%d.%d", a, b, c);
		compat[0] = 0;
		return true;
	}
	return false;
}

/* ---- GPU names ---- */

#define NAME_MAX_LEN 96
#define NAME_MAX_TOKENS 16

/* A name as lower-case alphanumeric tokens, without the vendor words; key is their
 * concatenation. */
struct name_toks {
	char buf[NAME_MAX_LEN * 2];
	const char *tok[NAME_MAX_TOKENS];
	size_t n;
	char key[NAME_MAX_LEN];
	size_t keylen;
};

static bool name_tokenize(const char *s, struct name_toks *t)
{
	static const char *const vendor[] = { "nvidia", "geforce", "tesla" };
	size_t used = 0;
	t->n = 0;
	t->keylen = 0;
	t->key[0] = 0;
	while (*s) {
		if (!isalnum((unsigned char)*s)) {
			s++;
			continue;
		}
		const char *start = s;
		while (isalnum((unsigned char)*s))
			s++;
		size_t len = (size_t)(s - start);
		if (used + len + 1 > sizeof(t->buf) || t->n == NAME_MAX_TOKENS ||
		    t->keylen + len >= sizeof(t->key))
			return false;
		char *tok = t->buf + used;
		for (size_t i = 0; i < len; i++)
			tok[i] = (char)tolower((unsigned char)start[i]);
		tok[len] = 0;
		bool skip = false;
		for (size_t v = 0; v < WP_ARRAY_LEN(vendor); v++)
			skip |= !strcmp(tok, vendor[v]);
		if (skip)
			continue;
		used += len + 1;
		t->tok[t->n++] = tok;
		memcpy(t->key + t->keylen, tok, len + 1);
		t->keylen += len;
	}
	return t->n > 0;
}

/* digits then optionally more: "\d+gb" */
static bool num_then(const char *s, const char *rest)
{
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return !strcmp(s, rest);
}

static bool prefix_then_digits(const char *s, const char *prefix, bool e_ok)
{
	size_t n = strlen(prefix);
	if (strncmp(s, prefix, n))
		return false;
	s += n;
	while (isdigit((unsigned char)*s))
		s++;
	if (e_ok && *s == 'e')
		s++;
	return !*s;
}

/* Words after a product name that do not change the chip: "SXM4", "80GB", "Laptop GPU", "D" ...
 * ("Ti" and "SUPER" name other products, each with its row: "RTX 5090 Ti" is none). next is the
 * token after w (or NULL), so "80 GB" reads like "80GB". */
static bool suffix_word(const char *w, const char *next)
{
	static const char *const words[] = {
		"d", "pcie", "nvl", "laptop", "gpu", "mobile", "max", "q", "maxq", "design", "with",
		"generation", "edition", "workstation", "server", "gb", "tensor", "core",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(words); i++)
		if (!strcmp(w, words[i]))
			return true;
	if (prefix_then_digits(w, "sxm", false) || prefix_then_digits(w, "hbm", true) ||
	    num_then(w, "gb"))
		return true;
	return num_then(w, "") && next && !strcmp(next, "gb");
}

/* Whether the input tokens are the name key followed only by suffix words (the key may end inside a
 * token: "rtx3090ti" is "rtx3090" and "ti", but "rtx3090x" is nothing). */
static bool name_matches(const struct name_toks *in, const char *key, size_t keylen)
{
	if (keylen > in->keylen || memcmp(in->key, key, keylen))
		return false;
	size_t pos = 0, i = 0;
	while (i < in->n) {
		size_t len = strlen(in->tok[i]);
		if (pos + len > keylen)
			break;
		/* "RTX 3090" reads as "rtx3090", but "A10 0" is not "a100": digits do not join
		 * across a gap */
		if (i > 0 && pos < keylen && isdigit((unsigned char)in->tok[i][0]) &&
		    isdigit((unsigned char)in->tok[i - 1][strlen(in->tok[i - 1]) - 1]))
			return false;
		pos += len;
		i++;
	}
	if (i > 0 && i < in->n && pos < keylen && isdigit((unsigned char)in->tok[i][0]) &&
	    isdigit((unsigned char)in->tok[i - 1][strlen(in->tok[i - 1]) - 1]))
		return false;
	if (pos < keylen) {
		/* the key ends inside token i: the rest of that token must be a word of its own */
		if (!suffix_word(in->tok[i] + (keylen - pos),
				 i + 1 < in->n ? in->tok[i + 1] : NULL))
			return false;
		i++;
	}
	for (; i < in->n; i++)
		if (!suffix_word(in->tok[i], i + 1 < in->n ? in->tok[i + 1] : NULL))
			return false;
	return true;
}

static const struct wp_tbl_gpu_name *name_find(const struct name_toks *in)
{
	const struct wp_tbl_gpu_name *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < wp_tbl_gpu_names_len; i++) {
		struct name_toks k;
		if (!name_tokenize(wp_tbl_gpu_names[i].name, &k))
			continue;
		if (k.keylen > best_len && name_matches(in, k.key, k.keylen)) {
			best = &wp_tbl_gpu_names[i];
			best_len = k.keylen;
		}
	}
	return best;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), row[NAME_MAX_LEN + 1];
	if (nb > NAME_MAX_LEN)
		nb = NAME_MAX_LEN;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[nb];
}

#define NEAREST 4

static int unknown_name(const char *text, const struct name_toks *in, struct wp_err *err)
{
	size_t pick[NEAREST], dist[NEAREST], n = 0;
	for (size_t i = 0; i < wp_tbl_gpu_names_len; i++) {
		struct name_toks k;
		if (!name_tokenize(wp_tbl_gpu_names[i].name, &k))
			continue;
		/* names that contain what was typed first ("RTX 6000": RTX 6000 Ada, Quadro RTX
		 * 6000), then by edits */
		const char *typed = in ? in->key : "";
		size_t d = *typed && strstr(k.key, typed) ? k.keylen - strlen(typed)
			   /* then the product that what was typed starts with ("RTX 5090 Ti": RTX
			      5090) */
			   :
			   *typed && k.keylen && !strncmp(typed, k.key, k.keylen) ?
							    100 + strlen(typed) - k.keylen :
							    1000 + edit_distance(typed, k.key);
		/* insert keeping the NEAREST smallest, earlier rows first among equals */
		size_t at = n;
		while (at > 0 && dist[at - 1] > d)
			at--;
		if (at == NEAREST)
			continue;
		if (n < NEAREST)
			n++;
		for (size_t j = n - 1; j > at; j--) {
			pick[j] = pick[j - 1];
			dist[j] = dist[j - 1];
		}
		pick[at] = i;
		dist[at] = d;
	}
	char list[512] = "";
	size_t len = 0;
	for (size_t j = 0; j < n && len < sizeof(list); j++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", j ? ", " : "",
					wp_tbl_gpu_names[pick[j]].name);
	return wp_fail(err, -WPE_USAGE,
		       "unknown GPU '%s'; known names near it: %s (or give its architecture: sm_86, 8.6)",
		       text, list);
}

static int unknown_arch(const char *text, int sm, struct wp_err *err)
{
	int pick[NEAREST], n = 0;
	for (size_t i = 0; i < wp_tbl_archs_len; i++) {
		int d = abs(wp_tbl_archs[i].sm - sm), at = n;
		while (at > 0 && abs(pick[at - 1] - sm) > d)
			at--;
		if (at == NEAREST)
			continue;
		if (n < NEAREST)
			n++;
		for (int j = n - 1; j > at; j--)
			pick[j] = pick[j - 1];
		pick[at] = wp_tbl_archs[i].sm;
	}
	/* name them in order */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && pick[j - 1] > pick[j]; j--) {
			int t = pick[j];
			pick[j] = pick[j - 1];
			pick[j - 1] = t;
		}
	char list[128] = "";
	size_t len = 0;
	for (int j = 0; j < n && len < sizeof(list); j++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%ssm_%d", j ? ", " : "",
					pick[j]);
	return wp_fail(err, -WPE_USAGE, "unknown GPU architecture '%s'; known near it: %s", text,
		       list);
}

/* "sm_8x6", "compute_", "9.9.9": meant as an architecture, but not one ("3090" may mean a GPU) */
static bool looks_like_arch(struct wp_str s)
{
	if (wp_str_startswith(s, "compute_") || wp_str_startswith(s, "sm_") ||
	    (wp_str_startswith(s, "sm") && s.n > 2 && isdigit((unsigned char)s.p[2])))
		return true;
	bool dot = false;
	for (size_t i = 0; i < s.n; i++) {
		if (!isdigit((unsigned char)s.p[i]) && s.p[i] != '.')
			return false;
		dot |= s.p[i] == '.';
	}
	return s.n > 0 && (dot || s.n <= 3);
}

int wp_gpu_parse(const char *text, int *sm, struct wp_err *err)
{
	const char *t = text ? text : "";
	int v;
	if (wp_gpu_sm_parse(t, &v) == 0) {
		if (!find_arch(v))
			return unknown_arch(t, v, err);
		*sm = v;
		return 0;
	}
	struct name_toks in;
	bool ok = name_tokenize(t, &in);
	const struct wp_tbl_gpu_name *hit = ok ? name_find(&in) : NULL;
	if (hit) {
		*sm = hit->sm;
		return 0;
	}
	if (looks_like_arch(wp_str_trim(WP_STR(t))))
		return wp_fail(err, -WPE_USAGE,
			       "invalid GPU architecture '%s'; give one like sm_86 or 8.6, or a GPU name like 'RTX 3090'",
			       t);
	return unknown_name(t, ok ? &in : NULL, err);
}

/* ---- arch lists ---- */

static int arch_add(struct wp_arch_list *l, int sm, enum wp_arch_kind kind, const char *entry,
		    struct wp_err *err)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->archs[i].sm == sm && l->archs[i].kind == kind)
			return 0;
	if (l->n == WP_ARCH_LIST_MAX)
		return wp_fail(err, -WPE_TOO_BIG, "arch list has more than %d entries at '%s'",
			       WP_ARCH_LIST_MAX, entry);
	l->archs[l->n].sm = sm;
	l->archs[l->n].kind = kind;
	l->n++;
	return 0;
}

static bool strip_suffix(char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (n < k || strcmp(s + n - k, suffix))
		return false;
	s[n - k] = 0;
	return true;
}

static bool strip_prefix(char *s, const char *prefix)
{
	size_t k = strlen(prefix);
	if (strncmp(s, prefix, k))
		return false;
	memmove(s, s + k, strlen(s + k) + 1);
	return true;
}

static int arch_entry(struct wp_arch_list *l, const char *entry, size_t n, struct wp_err *err)
{
	char e[32];
	if (n >= sizeof(e))
		return wp_fail(err, -WPE_PARSE, "invalid arch list entry '%.*s'", (int)n, entry);
	for (size_t i = 0; i < n; i++)
		e[i] = (char)tolower((unsigned char)entry[i]);
	e[n] = 0;
	bool ptx_too = strip_suffix(e, "+ptx");
	bool virt = false;
	if (!ptx_too) {
		if (strip_suffix(e, "_virtual"))
			virt = true;
		else
			strip_suffix(e, "_real");
	}
	if (strip_prefix(e, "compute_"))
		virt = true;
	else
		strip_prefix(e, "sm_");
	bool specific = strip_suffix(e, "a");
	if (!specific)
		strip_suffix(e, "f"); /* family-specific (sm_100f): the same major, as real code */
	int sm;
	if (!*e || !isdigit((unsigned char)e[0]) || wp_gpu_sm_parse(e, &sm) < 0)
		return wp_fail(err, -WPE_PARSE,
			       "invalid arch list entry '%.*s'; expected 8.6, 9.0a, 12.0+PTX or 80_real",
			       (int)n, entry);
	if (specific)
		return arch_add(l, sm, WP_ARCH_SPECIFIC, e, err);
	int rc = arch_add(l, sm, virt ? WP_ARCH_PTX : WP_ARCH_REAL, e, err);
	if (!rc && ptx_too)
		rc = arch_add(l, sm, WP_ARCH_PTX, e, err);
	return rc;
}

int wp_arch_list_parse(const char *text, struct wp_arch_list *out, struct wp_err *err)
{
	memset(out, 0, sizeof(*out));
	const char *p = text ? text : "";
	while (*p) {
		size_t n = strcspn(p, ";, \t\n");
		if (n) {
			int rc = arch_entry(out, p, n, err);
			if (rc)
				return rc;
		}
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

static int arch_order(const void *a, const void *b)
{
	const struct wp_arch *x = a, *y = b;
	if (x->sm != y->sm)
		return x->sm < y->sm ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

void wp_arch_list_format(const struct wp_arch_list *l, struct wp_buf *out)
{
	struct wp_arch a[WP_ARCH_LIST_MAX];
	size_t n = l->n < WP_ARCH_LIST_MAX ? l->n : WP_ARCH_LIST_MAX;
	memcpy(a, l->archs, n * sizeof(a[0]));
	qsort(a, n, sizeof(a[0]), arch_order);
	for (size_t i = 0; i < n; i++) {
		const char *sep = i ? ", " : "";
		int M = a[i].sm / 10, m = a[i].sm % 10;
		if (a[i].kind == WP_ARCH_REAL && i + 1 < n && a[i + 1].sm == a[i].sm &&
		    a[i + 1].kind == WP_ARCH_PTX) {
			wp_buf_printf(out, "%s%d.%d+PTX", sep, M, m);
			i++;
		} else if (a[i].kind == WP_ARCH_PTX) {
			wp_buf_printf(out, "%s%d.%d (PTX only)", sep, M, m);
		} else {
			wp_buf_printf(out, "%s%d.%d%s", sep, M, m,
				      a[i].kind == WP_ARCH_SPECIFIC ? "a" : "");
		}
	}
}

bool wp_arch_list_serves(const struct wp_arch_list *l, int gpu_sm, bool ptx_jit_ok,
			 struct wp_buf *why)
{
	int ptx_blocked = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct wp_arch *a = &l->archs[i];
		switch (a->kind) {
		case WP_ARCH_REAL:
			if (a->sm / 10 == gpu_sm / 10 && a->sm % 10 <= gpu_sm % 10)
				return true;
			break;
		case WP_ARCH_SPECIFIC:
			if (a->sm == gpu_sm)
				return true;
			break;
		case WP_ARCH_PTX:
			if (a->sm <= gpu_sm) {
				if (ptx_jit_ok)
					return true;
				if (a->sm > ptx_blocked)
					ptx_blocked = a->sm;
			}
			break;
		}
	}
	if (!why)
		return false;
	wp_buf_printf(why, "no kernels for sm_%d (", gpu_sm);
	if (l->n)
		wp_buf_addstr(why, "built for ");
	else
		wp_buf_addstr(why, "the build lists no architectures");
	wp_arch_list_format(l, why);
	wp_buf_addch(why, ')');
	if (ptx_blocked) {
		wp_buf_printf(why, "; its PTX for %d.%d needs a driver for ", ptx_blocked / 10,
			      ptx_blocked % 10);
		if (l->cuda_major)
			wp_buf_printf(why, "CUDA %d.%d or newer", l->cuda_major, l->cuda_minor);
		else
			wp_buf_addstr(why, "the build's CUDA or newer");
		wp_buf_addstr(why, " to be JIT-compiled");
	}
	return false;
}

/* ---- drivers ---- */

static bool driver_scan(const char *text, struct wp_driver *out)
{
	struct wp_str s = wp_str_trim(WP_STR(text));
	memset(out, 0, sizeof(*out));
	if (!s.n || s.n >= sizeof(out->text))
		return false;
	size_t start = 0;
	for (size_t i = 0; i <= s.n; i++) {
		if (i < s.n && s.p[i] != '.')
			continue;
		struct wp_str num = WP_STRN(s.p + start, i - start);
		long long v;
		if (out->nparts == WP_DRIVER_PARTS || !digits_only(num, 6) ||
		    !wp_str_to_ll(num, &v))
			return false;
		out->part[out->nparts++] = (long)v;
		start = i + 1;
	}
	memcpy(out->text, s.p, s.n);
	out->text[s.n] = 0;
	return true;
}

int wp_driver_parse(const char *text, struct wp_driver *out, struct wp_err *err)
{
	if (!text || !driver_scan(text, out))
		return wp_fail(err, -WPE_USAGE,
			       "invalid driver version '%s'; expected numbers like 535.104.05",
			       text ? text : "");
	return 0;
}

int wp_driver_cmp(const struct wp_driver *a, const struct wp_driver *b)
{
	for (int i = 0; i < WP_DRIVER_PARTS; i++)
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	return 0;
}

static const char *row_driver(const struct wp_tbl_driver *r, bool windows)
{
	return windows ? r->windows_min : r->linux_min;
}

int wp_driver_newest_cuda(const struct wp_driver *d, bool windows, int *major, int *minor)
{
	int best = -1;
	for (size_t i = 0; i < wp_tbl_drivers_len; i++) {
		const char *floor = row_driver(&wp_tbl_drivers[i], windows);
		struct wp_driver need;
		if (floor && driver_scan(floor, &need) && wp_driver_cmp(d, &need) >= 0 &&
		    wp_tbl_drivers[i].cuda > best)
			best = wp_tbl_drivers[i].cuda;
	}
	if (best < 0)
		return -WPE_NOMATCH;
	*major = best / 10;
	*minor = best % 10;
	return 0;
}

int wp_driver_max_cuda(const char *driver_version, int *major, int *minor)
{
	struct wp_driver d;
	if (!driver_version || !driver_scan(driver_version, &d))
		return -WPE_PARSE;
	return wp_driver_newest_cuda(&d, false, major, minor);
}

int wp_cuda_min_driver_os(int major, int minor, bool windows, const char **driver)
{
	if (minor < 0 || minor > 9)
		return -WPE_NOMATCH;
	const struct wp_tbl_driver *best = NULL;
	for (size_t i = 0; i < wp_tbl_drivers_len; i++) {
		const struct wp_tbl_driver *r = &wp_tbl_drivers[i];
		if (r->cuda / 10 == major && r->cuda >= CU(major, minor) &&
		    (!best || r->cuda < best->cuda))
			best = r;
	}
	if (!best || !row_driver(best, windows))
		return -WPE_NOMATCH;
	*driver = row_driver(best, windows);
	return 0;
}

int wp_cuda_min_driver(int major, int minor, const char **driver)
{
	return wp_cuda_min_driver_os(major, minor, false, driver);
}

int wp_driver_for_cuda(int major, int minor, bool windows, struct wp_driver *out)
{
	const char *floor;
	int rc = wp_cuda_min_driver_os(major, minor, windows, &floor);
	if (rc)
		return rc;
	driver_scan(floor, out); /* the table's rows were checked by gen.sh */
	return 0;
}

int wp_cuda_compat_min_driver(int major, bool windows, const char **driver)
{
	for (size_t i = 0; i < wp_tbl_compat_len; i++) {
		const struct wp_tbl_compat *r = &wp_tbl_compat[i];
		const char *d = windows ? r->windows_min : r->linux_min;
		if (r->major == major && d) {
			*driver = d;
			return 0;
		}
	}
	return -WPE_NOMATCH;
}

const char *wp_runs_how_name(enum wp_runs_how how)
{
	switch (how) {
	case WP_RUNS_NATIVE:
		return "same or older CUDA";
	case WP_RUNS_MINOR_COMPAT:
		return "minor-version compatibility";
	case WP_RUNS_NO:
		break;
	}
	return "does not run";
}

bool wp_cuda_runs_on_driver(int build_major, int build_minor, const struct wp_driver *drv,
			    bool windows, bool strict, enum wp_runs_how *how, struct wp_buf *why)
{
	enum wp_runs_how dummy;
	int dM, dm;
	const char *need = NULL, *compat = NULL;
	if (!how)
		how = &dummy;
	*how = WP_RUNS_NO;
	if (wp_driver_newest_cuda(drv, windows, &dM, &dm) < 0) {
		if (why)
			wp_buf_printf(why, "driver %s is older than any CUDA toolkit's", drv->text);
		return false;
	}
	if (build_major < dM || (build_major == dM && build_minor <= dm)) {
		*how = WP_RUNS_NATIVE;
		return true;
	}
	bool has_need = wp_cuda_min_driver_os(build_major, build_minor, windows, &need) == 0;
	bool has_compat = wp_cuda_compat_min_driver(build_major, windows, &compat) == 0;
	if (build_major == dM && !strict && has_compat) {
		struct wp_driver floor;
		driver_scan(compat, &floor);
		if (wp_driver_cmp(drv, &floor) >= 0) {
			*how = WP_RUNS_MINOR_COMPAT;
			return true;
		}
	}
	if (!why)
		return false;
	wp_buf_printf(why, "CUDA %d.%d needs ", build_major, build_minor);
	if (has_need)
		wp_buf_printf(why, "driver %s or newer", need);
	else
		wp_buf_printf(why, "a newer driver than any wheelpick knows");
	if (build_major == dM && strict)
		wp_buf_addstr(why, " (strict: no minor-version compatibility)");
	else if (build_major == dM && has_compat)
		wp_buf_printf(why, ", or %s for minor-version compatibility", compat);
	wp_buf_printf(why, "; driver %s supports CUDA %d.%d", drv->text, dM, dm);
	return false;
}

