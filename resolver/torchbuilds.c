/* resolver/torchbuilds.c: PyTorch's arch lists, PyPI's default torch builds and CUDA from
 * Requires-Dist, from resolver/data/. Pure; no I/O. */
#include "resolver/torchbuilds.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/str.h"
#include "resolver/data/tables.h"
#include "resolver/requirement.h"

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

const char *wp_torch_platform_family(const char *tag)
{
	if (!tag)
		return NULL;
	if (starts_with(tag, "macosx_") || starts_with(tag, "osx-"))
		return "macos";
	if (!strcmp(tag, "win_amd64") || !strcmp(tag, "win-64"))
		return "windows";
	if (!strcmp(tag, "linux-64"))
		return "linux-x86_64";
	if (!strcmp(tag, "linux-aarch64"))
		return "linux-aarch64";
	if (!starts_with(tag, "manylinux") && !starts_with(tag, "musllinux") &&
	    !starts_with(tag, "linux_"))
		return NULL;
	if (wp_cstr_endswith(tag, "_x86_64"))
		return "linux-x86_64";
	if (wp_cstr_endswith(tag, "_aarch64"))
		return "linux-aarch64";
	return NULL;
}

/* ---- arch lists ---- */

/* Leading "M.m" of a version ("2.7.1+cu128" -> 2, 7). */
static bool release_parse(const char *v, int *major, int *minor)
{
	char *end;
	if (!v || !isdigit((unsigned char)*v))
		return false;
	long M = strtol(v, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	long m = strtol(end + 1, &end, 10);
	if (M > 999 || m > 999)
		return false;
	*major = (int)M;
	*minor = (int)m;
	return true;
}

/* How far a table release rM.rm is from the asked-for qM.qm; smaller is nearer. The same major
 * first, then the nearer minor, the older on a tie; another major's releases after, its nearest end
 * first. */
static long release_distance(int qM, int qm, int rM, int rm)
{
	long majors = labs((long)rM - qM);
	long minors = rM == qM ? labs((long)rm - qm) : rM < qM ? 1000 - rm : rm;
	return majors * 100000 + minors * 2 + (rM > qM || (rM == qM && rm > qm));
}

static const char *const families[] = { "linux-x86_64", "linux-aarch64", "windows", "macos" };

static int family_index(const char *f)
{
	for (size_t i = 0; f && i < WP_ARRAY_LEN(families); i++)
		if (!strcmp(f, families[i]))
			return (int)i;
	return -1;
}

static const struct wp_tbl_arch_list *arch_list_find(int qM, int qm, int cuda, const char *family)
{
	const struct wp_tbl_arch_list *best = NULL;
	long best_d = 0;
	for (size_t i = 0; i < wp_tbl_arch_lists_len; i++) {
		const struct wp_tbl_arch_list *r = &wp_tbl_arch_lists[i];
		int rM, rm;
		if (r->cuda != cuda || strcmp(r->platform, family) ||
		    !release_parse(r->release, &rM, &rm))
			continue;
		long d = release_distance(qM, qm, rM, rm);
		if (!best || d < best_d) {
			best = r;
			best_d = d;
		}
	}
	return best;
}

int wp_torch_arch_list(const char *torch_version, int cuda_major, int cuda_minor,
		       const char *platform_family, struct wp_arch_list *out)
{
	int qM, qm, fam = family_index(platform_family);
	memset(out, 0, sizeof(*out));
	if (!release_parse(torch_version, &qM, &qm) || fam < 0 || fam == WP_TBL_MACOS)
		return -WPE_PARSE;
	out->cuda_major = cuda_major;
	out->cuda_minor = cuda_minor;
	snprintf(out->release, sizeof(out->release), "%d.%d", qM, qm);
	if (cuda_major < 0 || cuda_minor < 0 || cuda_minor > 9)
		return -WPE_NOMATCH;
	int cuda = cuda_major * 10 + cuda_minor;
	bool other = false;
	const struct wp_tbl_arch_list *r = arch_list_find(qM, qm, cuda, platform_family);
	if (!r && fam == WP_TBL_WINDOWS) {
		/* no Windows list for this CUDA in any release: Linux x86_64's is the nearest
		 * fact */
		r = arch_list_find(qM, qm, cuda, "linux-x86_64");
		other = r != NULL;
	}
	if (!r)
		return -WPE_NOMATCH;
	struct wp_arch_list parsed;
	wp_arch_list_parse(r->archs, &parsed, NULL); /* gen.sh checked the notation */
	out->n = parsed.n;
	memcpy(out->archs, parsed.archs, sizeof(out->archs));
	if (strcmp(r->release, out->release))
		snprintf(out->borrowed_from, sizeof(out->borrowed_from), "%s", r->release);
	snprintf(out->platform, sizeof(out->platform), "%s", r->platform);
	out->other_platform = other;
	return 0;
}

/* ---- PyPI's unlabeled torch ---- */

#define REL_PARTS 4

/* A final release's numbers ("1.8.0", "2.7", "2.7.1+cu128" without its label); false for pre-,
 * post- and dev releases and anything else. */
static bool final_release(const char *v, long out[REL_PARTS])
{
	memset(out, 0, sizeof(long) * REL_PARTS);
	if (!v)
		return false;
	size_t n = strcspn(v, "+");
	int part = 0;
	const char *p = v, *end = v + n;
	while (p < end) {
		if (part == REL_PARTS || !isdigit((unsigned char)*p))
			return false;
		char *q;
		out[part++] = strtol(p, &q, 10);
		if (q - p > 6)
			return false;
		p = q;
		if (p < end && (*p != '.' || p + 1 == end))
			return false;
		if (p < end)
			p++;
	}
	return part > 0;
}

static int release_cmp(const long a[REL_PARTS], const long b[REL_PARTS], int parts)
{
	for (int i = 0; i < parts; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static int set_variant(const char *label, struct wp_variant *out)
{
	memset(out, 0, sizeof(*out));
	return wp_variant_from_label(label, out) == 1 ? 1 : 0;
}

int wp_pypi_default_variant(const char *project, const char *version, const char *platform_family,
			    struct wp_variant *out)
{
	long want[REL_PARTS], have[REL_PARTS];
	int fam = family_index(platform_family);
	memset(out, 0, sizeof(*out));
	if (!project || strcasecmp(project, "torch") || fam < 0 || !final_release(version, want))
		return 0;
	/* the table's row for this version, else the value its release line agrees on */
	const char *exact = NULL, *line = NULL;
	bool line_agrees = true;
	for (size_t i = 0; i < wp_tbl_pypi_torch_len; i++) {
		const struct wp_tbl_pypi *r = &wp_tbl_pypi_torch[i];
		final_release(r->version, have);
		if (release_cmp(want, have, 2))
			continue;
		const char *v = r->variant[fam];
		if (!release_cmp(want, have, REL_PARTS))
			exact = v;
		if (v && line && strcmp(v, line))
			line_agrees = false;
		if (v && !line)
			line = v;
	}
	if (exact)
		return set_variant(exact, out);
	if (line && line_agrees)
		return set_variant(line, out);
	/* PyPI ships only CPU builds there */
	static const long aarch64_cuda[REL_PARTS] = { 2, 11, 0, 0 };
	if (fam == WP_TBL_WINDOWS || fam == WP_TBL_MACOS ||
	    (fam == WP_TBL_LINUX_AARCH64 && release_cmp(want, aarch64_cuda, REL_PARTS) < 0))
		return set_variant("cpu", out);
	return 0;
}

/* ---- Requires-Dist ---- */

/* A lower index is the better witness of the toolkit version. */
static const char *const cuda_dists[] = { "nvidia-cuda-runtime", "nvidia-cuda-nvrtc",
					  "nvidia-cublas" };
#define RANK_CUBLAS 2

/* The rank of a canonical name, and the major its -cuNN suffix names (0 when it has none); -1 if
 * other. */
static int cuda_dist_rank(const char *name, int *suffix_major)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(cuda_dists); i++) {
		size_t k = strlen(cuda_dists[i]);
		if (strncmp(name, cuda_dists[i], k))
			continue;
		const char *rest = name + k;
		*suffix_major = 0;
		if (!*rest)
			return (int)i;
		size_t digits = strlen(rest) > 3 ? strlen(rest + 3) : 0;
		if (strncmp(rest, "-cu", 3) || !digits || digits > 3 ||
		    strspn(rest + 3, "0123456789") != digits)
			continue;
		*suffix_major = (int)strtol(rest + 3, NULL, 10);
		return (int)i;
	}
	return -1;
}

/* "12.8.90", "12.8.*", "13.0" -> 12, 8 */
static bool pin_cuda(const char *text, int *major, int *minor)
{
	char *end;
	if (!isdigit((unsigned char)*text))
		return false;
	long M = strtol(text, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	long m = strtol(end + 1, &end, 10);
	if (*end && *end != '.')
		return false;
	if (M < 7 || M > 99 || m > 9)
		return false;
	*major = (int)M;
	*minor = (int)m;
	return true;
}

/* The rank of the CUDA package one requirement pins, with the version; -1 when it pins none. */
static int requirement_cuda(const struct wp_requirement *r, int *major, int *minor)
{
	/* a dependency of an extra says nothing about the build itself */
	if (r->has_marker && wp_marker_uses(&r->marker, "extra"))
		return -1;
	int rank = -1, suffix_major = 0, found = -1;
	struct wp_buf name = WP_BUF_INIT_MAX(256);
	if (wp_name_canonicalize(r->name, strlen(r->name), &name) == 0 && name.data)
		rank = cuda_dist_rank(name.data, &suffix_major);
	wp_buf_free(&name);
	for (size_t i = 0; rank >= 0 && i < r->spec.n && found < 0; i++) {
		const struct wp_specifier *sp = &r->spec.specs[i];
		int M, m;
		if (sp->op != WP_OP_EQ && sp->op != WP_OP_ARBITRARY && sp->op != WP_OP_COMPATIBLE)
			continue;
		if (!pin_cuda(sp->text, &M, &m) || (suffix_major && suffix_major != M))
			continue;
		if (rank == RANK_CUBLAS && M < 12)
			continue; /* cuBLAS 11.x is numbered apart from the toolkit */
		*major = M;
		*minor = m;
		found = rank;
	}
	return found;
}

int wp_variant_from_reqs(const struct wp_req *reqs, size_t n, struct wp_variant *out)
{
	int best = -1, major = 0, minor = 0;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; reqs && i < n; i++) {
		int M, m;
		if (!reqs[i].ok)
			continue;
		int rank = requirement_cuda(&reqs[i].r, &M, &m);
		if (rank >= 0 && (best < 0 || rank < best)) {
			best = rank;
			major = M;
			minor = m;
		}
	}
	if (best < 0)
		return 0;
	char label[16];
	snprintf(label, sizeof(label), "cu%d%d", major, minor);
	return set_variant(label, out);
}

int wp_variant_from_requires(const char *const *requires_dist, size_t n, struct wp_variant *out)
{
	struct wp_reqs reqs = { 0 };
	for (size_t i = 0; requires_dist && i < n; i++) {
		if (!requires_dist[i])
			continue;
		struct wp_str s = wp_str_trim(WP_STR(requires_dist[i]));
		if (s.n >= 14 && !strncasecmp(s.p, "Requires-Dist:", 14)) {
			s.p += 14;
			s.n -= 14;
			s = wp_str_trim(s);
		}
		wp_req_parse(wp_vec_add(&reqs), s.p, s.n, NULL);
	}
	int rc = wp_variant_from_reqs(reqs.v, reqs.n, out);
	wp_reqs_release(&reqs);
	return rc;
}
