/* resolver/tags.c: PEP 425 tag ladders as packaging HEAD builds them (linux_ARCH last), and a hash
 * lookup over them. */
#include "resolver/tags.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/vec.h"
#include "base/str.h"

/* Ceilings that keep hostile numbers in a platform tag from turning into huge ladders. */
#define MAX_GLIBC_MAJOR 9
#define MAX_MINOR 999
#define MAX_MAC_MAJOR 99
/* packaging's _LAST_GLIBC_MINOR default for glibc majors it does not know yet */
#define LAST_GLIBC_MINOR 50

WP_VEC_OF(strlist, char *); /* each string owned */

static void list_push(struct strlist *l, char *s)
{
	wp_vec_push(l, s);
}

static void list_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* Parse "N" at the front of s, up to the next '_' (consumed); false when not a small number. */
static bool cut_num(struct wp_str *s, int max, int *out)
{
	struct wp_str part = wp_str_cut(s, '_');
	long long v;
	if (!wp_str_to_ll(part, &v) || v > max)
		return false;
	*out = (int)v;
	return true;
}

static void manylinux_ladder(struct strlist *l, int gmaj, int gmin, const char *arch)
{
	/* PEP 600 names manylinux_X_Y_ARCH for any ARCH sysconfig.get_platform() can give
	 * (riscv64, loongarch64, ...): the target's tag says its userland is that glibc on that
	 * arch, so no allow-list of arches (packaging's guards a guess about the running
	 * interpreter, which a described target does not need). The oldest glibc a manylinux tag
	 * exists for: 2.5 on x86, 2.17 elsewhere */
	int old_major = 2, old_minor = 16;
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "i686"))
		old_minor = 4;
	for (int major = gmaj; major >= 2; major--) {
		int top = major == gmaj ? gmin : LAST_GLIBC_MINOR;
		int floor = major == old_major ? old_minor : -1;
		for (int minor = top; minor > floor; minor--) {
			list_push(l, wp_xasprintf("manylinux_%d_%d_%s", major, minor, arch));
			const char *legacy = NULL;
			if (major == 2 && minor == 17)
				legacy = "manylinux2014";
			else if (major == 2 && minor == 12)
				legacy = "manylinux2010";
			else if (major == 2 && minor == 5)
				legacy = "manylinux1";
			if (legacy)
				list_push(l, wp_xasprintf("%s_%s", legacy, arch));
		}
	}
}

static void musllinux_ladder(struct strlist *l, int mmaj, int mmin, const char *arch)
{
	for (int minor = mmin; minor >= 0; minor--)
		list_push(l, wp_xasprintf("musllinux_%d_%d_%s", mmaj, minor, arch));
}

/* packaging's _mac_binary_formats; versions as major * 100 + minor */
static size_t mac_formats(int ver, const char *arch, const char *out[8])
{
	size_t n = 0;
	out[n++] = arch;
	if (!strcmp(arch, "x86_64")) {
		if (ver < 1004)
			return 0;
		out[n++] = "intel";
		out[n++] = "fat64";
		out[n++] = "fat3"; /* CPython and packaging HEAD spell it so; 21.3 wrote fat32 */
	} else if (!strcmp(arch, "i386")) {
		if (ver < 1004)
			return 0;
		out[n++] = "intel";
		out[n++] = "fat3"; /* CPython and packaging HEAD spell it so; 21.3 wrote fat32 */
		out[n++] = "fat";
	} else if (!strcmp(arch, "ppc64")) {
		if (ver > 1005 || ver < 1004)
			return 0;
		out[n++] = "fat64";
	} else if (!strcmp(arch, "ppc")) {
		if (ver > 1006)
			return 0;
		out[n++] = "fat3"; /* CPython and packaging HEAD spell it so; 21.3 wrote fat32 */
		out[n++] = "fat";
	}
	if (!strcmp(arch, "arm64") || !strcmp(arch, "x86_64"))
		out[n++] = "universal2";
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "i386") || !strcmp(arch, "ppc64") ||
	    !strcmp(arch, "ppc") || !strcmp(arch, "intel"))
		out[n++] = "universal";
	return n;
}

static void mac_push(struct strlist *l, int major, int minor, const char *arch)
{
	const char *fmt[8];
	size_t n = mac_formats(major * 100 + minor, arch, fmt);
	for (size_t i = 0; i < n; i++)
		list_push(l, wp_xasprintf("macosx_%d_%d_%s", major, minor, fmt[i]));
}

/* packaging's mac_platforms: 10.x counts down minors; 11+ counts down majors (minor 0),
 * then offers 10.16 ... 10.4 (all formats on x86_64, universal2 only elsewhere). */
static void mac_ladder(struct strlist *l, int major, int minor, const char *arch)
{
	if (major == 10) {
		for (int m = minor; m >= 0; m--)
			mac_push(l, 10, m, arch);
	}
	if (major < 11)
		return;
	for (int m = major; m > 10; m--)
		mac_push(l, m, 0, arch);
	for (int m = 16; m > 3; m--) {
		if (!strcmp(arch, "x86_64"))
			mac_push(l, 10, m, arch);
		else
			list_push(l, wp_xasprintf("macosx_10_%d_universal2", m));
	}
}

static int ladder(const struct wp_target *t, struct strlist *l, struct wp_err *err)
{
	char plat[sizeof(t->platform) + 1];
	size_t plen = strnlen(t->platform, sizeof(t->platform));
	memcpy(plat, t->platform, plen);
	plat[plen] = 0;
	for (size_t i = 0; i < plen; i++)
		plat[i] = (char)tolower((unsigned char)plat[i]);

	struct wp_str s = WP_STRN(plat, plen);
	int a, b;
	if (!plen)
		return wp_fail(err, -WPE_USAGE, "target has no platform tag");
	for (size_t i = 0; i < plen; i++)
		if (!isalnum((unsigned char)plat[i]) && plat[i] != '_' && plat[i] != '.')
			return wp_fail(err, -WPE_USAGE, "malformed platform tag '%s'", plat);
	if (t->platform_exact) {
		list_push(l, wp_xstrdup(plat));
		return 0;
	}

	if (wp_str_startswith(s, "manylinux_") || wp_str_startswith(s, "musllinux_")) {
		bool musl = plat[0] == 'm' && plat[1] == 'u';
		wp_str_cut(&s, '_');
		if (!cut_num(&s, MAX_GLIBC_MAJOR, &a) || !cut_num(&s, MAX_MINOR, &b) || !s.n ||
		    a < 1)
			return wp_fail(err, -WPE_USAGE, "malformed platform tag '%s'", plat);
		if (musl)
			musllinux_ladder(l, a, b, s.p);
		else
			manylinux_ladder(l, a, b, s.p);
		list_push(l, wp_xasprintf("linux_%s", s.p));
		return 0;
	}
	static const struct { const char *prefix; int minor; } legacy[] = {
		{ "manylinux2014_", 17 }, { "manylinux2010_", 12 }, { "manylinux1_", 5 },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(legacy); i++) {
		if (!wp_str_startswith(s, legacy[i].prefix))
			continue;
		const char *arch = plat + strlen(legacy[i].prefix);
		if (!*arch)
			return wp_fail(err, -WPE_USAGE, "malformed platform tag '%s'", plat);
		manylinux_ladder(l, 2, legacy[i].minor, arch);
		list_push(l, wp_xasprintf("linux_%s", arch));
		return 0;
	}
	if (wp_str_startswith(s, "linux_") && plen > 6) {
		const char *arch = plat + 6;
		if (t->glibc_major > 0) {
			if (t->glibc_major > MAX_GLIBC_MAJOR || t->glibc_minor < 0 ||
			    t->glibc_minor > MAX_MINOR)
				return wp_fail(err, -WPE_USAGE,
					       "glibc %d.%d of target '%s' is out of range",
					       t->glibc_major, t->glibc_minor, plat);
			manylinux_ladder(l, t->glibc_major, t->glibc_minor, arch);
		} else if (t->musl_major > 0) {
			if (t->musl_major > MAX_GLIBC_MAJOR || t->musl_minor < 0 ||
			    t->musl_minor > MAX_MINOR)
				return wp_fail(err, -WPE_USAGE,
					       "musl %d.%d of target '%s' is out of range",
					       t->musl_major, t->musl_minor, plat);
			musllinux_ladder(l, t->musl_major, t->musl_minor, arch);
		}
		list_push(l, wp_xstrdup(plat));
		return 0;
	}
	if (wp_str_startswith(s, "macosx_")) {
		wp_str_cut(&s, '_');
		if (!cut_num(&s, MAX_MAC_MAJOR, &a) || !cut_num(&s, MAX_MINOR, &b) || !s.n ||
		    a < 10)
			return wp_fail(err, -WPE_USAGE, "malformed platform tag '%s'", plat);
		size_t before = l->n;
		mac_ladder(l, a, b, s.p);
		if (l->n == before)
			return wp_fail(err, -WPE_USAGE, "no macOS tags exist for '%s'", plat);
		return 0;
	}
	/* win_amd64, win32, win_arm64 and anything unknown accept only themselves */
	list_push(l, wp_xstrdup(plat));
	return 0;
}

int wp_platform_ladder(const struct wp_target *t, char ***out, size_t *n, struct wp_err *err)
{
	struct strlist l = { 0 };
	int rc = ladder(t, &l, err);
	if (rc) {
		list_free(&l);
		*out = NULL;
		*n = 0;
		return rc;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

void wp_platform_ladder_free(char **list, size_t n)
{
	struct strlist l = { list, n, n };
	list_free(&l);
}

static uint64_t hash_tag(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)tolower((unsigned char)s[i]);
		h *= 1099511628211ULL;
	}
	return h;
}

static bool tag_eq(const char *stored, const char *s, size_t n)
{
	return strlen(stored) == n && strncasecmp(stored, s, n) == 0;
}

int wp_tagset_priority_n(const struct wp_tagset *ts, const char *tag, size_t n)
{
	if (!ts->nslots || !tag)
		return -1;
	size_t mask = ts->nslots - 1;
	for (size_t i = hash_tag(tag, n) & mask;; i = (i + 1) & mask) {
		size_t idx = ts->slots[i];
		if (!idx)
			return -1;
		if (tag_eq(ts->tags[idx - 1], tag, n))
			return (int)(idx - 1);
	}
}

int wp_tagset_priority(const struct wp_tagset *ts, const char *tag)
{
	return tag ? wp_tagset_priority_n(ts, tag, strlen(tag)) : -1;
}

/* Append unless already present: the first (best) position of a tag is its priority. */
static void add_tag(struct wp_tagset *ts, struct strlist *l, char *tag)
{
	size_t n = strlen(tag);
	size_t mask = ts->nslots - 1;
	size_t i = hash_tag(tag, n) & mask;
	for (; ts->slots[i]; i = (i + 1) & mask) {
		if (tag_eq(l->v[ts->slots[i] - 1], tag, n)) {
			free(tag);
			return;
		}
	}
	list_push(l, tag);
	ts->slots[i] = l->n;
}

int wp_tagset_build(struct wp_tagset *ts, const struct wp_target *t, struct wp_err *err)
{
	struct wp_tagset z = WP_TAGSET_INIT;
	struct strlist plats = { 0 }, tags = { 0 };
	char impl[sizeof(t->impl) + 1], abi[sizeof(t->abi) + 1];
	int rc = 0;
	*ts = z;

	size_t il = strnlen(t->impl, sizeof(t->impl)), al = strnlen(t->abi, sizeof(t->abi));
	memcpy(impl, t->impl, il);
	impl[il] = 0;
	memcpy(abi, t->abi, al);
	abi[al] = 0;
	if (!il)
		memcpy(impl, "cp", 3);
	for (char *p = impl; *p; p++) {
		*p = (char)tolower((unsigned char)*p);
		if (!isalpha((unsigned char)*p)) {
			rc = wp_fail(err, -WPE_USAGE, "malformed python implementation '%s'", impl);
			goto out;
		}
	}
	for (char *p = abi; *p; p++) {
		*p = (char)tolower((unsigned char)*p);
		if (!isalnum((unsigned char)*p) && *p != '_') {
			rc = wp_fail(err, -WPE_USAGE, "malformed python abi '%s'", abi);
			goto out;
		}
	}
	int major = t->py_major, minor = t->py_minor;
	if (major < 1 || major > 9 || minor < 0 || minor > 99) {
		rc = wp_fail(err, -WPE_USAGE, "python version '%d.%d' is out of range", major,
			     minor);
		goto out;
	}
	rc = ladder(t, &plats, err);
	if (rc)
		goto out;

	/* every platform meets about 3 + minor + minor + 2 interpreters, plus the "any" tail */
	size_t want = plats.n * (size_t)(2 * minor + 8) + (size_t)minor + 8;
	ts->nslots = 64;
	while (ts->nslots < 2 * want)
		ts->nslots *= 2;
	ts->slots = wp_xcalloc(ts->nslots, sizeof(*ts->slots));

	bool cpython = !strcmp(impl, "cp");
	char *interp = wp_xasprintf("%s%d%d", impl, major, minor);
	/* packaging's _is_threaded_cpython: a 't' among the ABI's flags (cp313t, cp315td) is a
	 * free-threaded build, which cannot load abi3 modules but loads abi3t ones (PEP 803:
	 * wherever abi3 is allowed for a GIL build, abi3t is for a free-threaded one) */
	const char *flags = abi;
	if (!strncmp(flags, "cp", 2)) {
		flags += 2;
		while (isdigit((unsigned char)*flags))
			flags++;
	}
	bool threaded = cpython && flags != abi + 2 && flags > abi && strchr(flags, 't') != NULL;
	bool stable = major > 3 || (major == 3 && minor >= 2);
	const char *stable_abi = threaded ? "abi3t" : "abi3";
	const char *abis[1];
	size_t nabi = 0;
	char defabi[32];
	if (abi[0]) {
		/* packaging yields abi3 and none at their usual places, whatever the caller says */
		if (strcmp(abi, "abi3") && strcmp(abi, "none") &&
		    (!threaded || strcmp(abi, "abi3t")))
			abis[nabi++] = abi;
	} else if (cpython) {
		const char *suffix = "";
		if (major < 3 || (major == 3 && minor < 3))
			suffix = strncmp(plats.v[0], "win", 3) && strncmp(plats.v[0], "macosx", 6) ?
					 "mu" :
					 "m";
		else if (major == 3 && minor < 8)
			suffix = "m";
		snprintf(defabi, sizeof(defabi), "cp%d%d%s", major, minor, suffix);
		abis[nabi++] = defabi;
	}

	for (size_t a = 0; a < nabi; a++)
		for (size_t p = 0; p < plats.n; p++)
			add_tag(ts, &tags, wp_xasprintf("%s-%s-%s", interp, abis[a], plats.v[p]));
	if (cpython && stable)
		for (size_t p = 0; p < plats.n; p++)
			add_tag(ts, &tags,
				wp_xasprintf("%s-%s-%s", interp, stable_abi, plats.v[p]));
	for (size_t p = 0; p < plats.n; p++)
		add_tag(ts, &tags, wp_xasprintf("%s-none-%s", interp, plats.v[p]));
	if (cpython && stable)
		for (int m = minor - 1; m > 1; m--)
			for (size_t p = 0; p < plats.n; p++)
				add_tag(ts, &tags,
					wp_xasprintf("cp%d%d-%s-%s", major, m, stable_abi,
						     plats.v[p]));

	/* compatible_tags: py38, py3, py37 ... py30 on each platform, then the same on "any"
	 * after the interpreter's own cp38-none-any */
	char py[102][16];
	int npy = 0;
	snprintf(py[npy++], sizeof(py[0]), "py%d%d", major, minor);
	snprintf(py[npy++], sizeof(py[0]), "py%d", major);
	for (int m = minor - 1; m >= 0; m--)
		snprintf(py[npy++], sizeof(py[0]), "py%d%d", major, m);
	for (int v = 0; v < npy; v++)
		for (size_t p = 0; p < plats.n; p++)
			add_tag(ts, &tags, wp_xasprintf("%s-none-%s", py[v], plats.v[p]));
	add_tag(ts, &tags, wp_xasprintf("%s-none-any", interp));
	for (int v = 0; v < npy; v++)
		add_tag(ts, &tags, wp_xasprintf("%s-none-any", py[v]));
	free(interp);

	ts->tags = tags.v;
	ts->n = tags.n;
	ts->platforms = plats.v;
	ts->n_platforms = plats.n;
	return 0;
out:
	list_free(&plats);
	list_free(&tags);
	free(ts->slots);
	*ts = z;
	return rc;
}

void wp_tagset_release(struct wp_tagset *ts)
{
	wp_platform_ladder_free(ts->tags, ts->n);
	wp_platform_ladder_free(ts->platforms, ts->n_platforms);
	free(ts->slots);
	struct wp_tagset z = WP_TAGSET_INIT;
	*ts = z;
}
