/* ops/core/suggest.c: "did you mean" for commands, options, platforms and projects, and the
 * requirement spellings of other tools. */
#include "ops/core/suggest.h"
#include "base/fs.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "index/html.h"
#include "index/localsrc.h"
#include "index/pep691.h"
#include "ops/core/crawl.h"
#include "ops/core/pagefile.h"
#include "net/http.h"
#include "base/os/os.h"
#include "resolver/reqfile.h"
#include "resolver/requirement.h"
#include "resolver/wheelname.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_WORD 256

size_t wp_suggest_distance(const char *a, const char *b, size_t cap)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > MAX_WORD || m > MAX_WORD)
		return cap + 1;
	if ((n > m ? n - m : m - n) > cap)
		return cap + 1;
	/* three rows of the optimal-string-alignment table */
	size_t *prev2 = wp_xcalloc(m + 1, sizeof(size_t)),
	       *prev = wp_xcalloc(m + 1, sizeof(size_t)), *cur = wp_xcalloc(m + 1, sizeof(size_t));
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		cur[0] = i;
		size_t row_min = cur[0];
		for (size_t j = 1; j <= m; j++) {
			int ca = tolower((unsigned char)a[i - 1]),
			    cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb;
			size_t d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
			if (d < row_min)
				row_min = d;
		}
		size_t *t = prev2;
		prev2 = prev, prev = cur, cur = t;
		if (row_min > cap) {
			free(prev2), free(prev), free(cur);
			return cap + 1;
		}
	}
	size_t d = prev[m];
	free(prev2), free(prev), free(cur);
	return d > cap ? cap + 1 : d;
}

void wp_suggest_closest(const char *word, const char *const *cands, size_t n, size_t max,
			struct wp_strlist *out)
{
	size_t len = strlen(word), cap = len / 3 ? len / 3 : 1;
	if (cap > 3)
		cap = 3;
	const char **best = wp_xcalloc(max ? max : 1, sizeof(*best));
	size_t *dist = wp_xcalloc(max ? max : 1, sizeof(*dist)), nb = 0;
	for (size_t i = 0; i < n && max; i++) {
		if (!cands[i] || !strcasecmp(cands[i], word))
			continue;
		size_t d = wp_suggest_distance(word, cands[i], cap);
		/* "pytorch" for "torch": a name that contains the word, or is contained in it, by a
		 * short prefix such as py- counts as two edits, which the distance already says */
		if (d > cap)
			continue;
		bool dup = false;
		for (size_t k = 0; k < nb && !dup; k++)
			dup = !strcmp(best[k], cands[i]);
		if (dup)
			continue;
		/* keep the max best, ties in the candidates' order */
		size_t at = nb;
		while (at > 0 && dist[at - 1] > d)
			at--;
		if (at >= max)
			continue;
		size_t last = nb < max ? nb : max - 1;
		for (size_t k = last; k > at; k--)
			best[k] = best[k - 1], dist[k] = dist[k - 1];
		best[at] = cands[i], dist[at] = d;
		if (nb < max)
			nb++;
	}
	for (size_t k = 0; k < nb; k++)
		wp_strlist_push(out, best[k]);
	free(best);
	free(dist);
}

void wp_suggest_join(const struct wp_strlist *words, struct wp_buf *out)
{
	for (size_t i = 0; i < words->n; i++)
		wp_buf_printf(out, "%s'%s'",
			      i == 0            ? "" :
			      i + 1 == words->n ? " or " :
						  ", ",
			      words->v[i]);
}

/* --- platforms --- */

static const char *const linux_arches[] = { "x86_64",      "aarch64", "i686",  "armv7l",
					    "ppc64le",     "ppc64",   "s390x", "riscv64",
					    "loongarch64", "armv6l" };
static const char *const mac_arches[] = { "x86_64", "arm64", "universal2", "universal",
					  "intel",  "fat",   "fat3",       "fat64",
					  "i386",   "ppc",   "ppc64" };
static const char *const conda_subdirs[] = { "linux-64",    "linux-aarch64", "linux-ppc64le",
					     "linux-s390x", "linux-armv7l",  "linux-32",
					     "osx-64",      "osx-arm64",     "win-64",
					     "win-32",      "win-arm64",     "noarch" };
static const char *const common_tags[] = { "manylinux_2_28_x86_64",
					   "manylinux_2_28_aarch64",
					   "manylinux_2_17_x86_64",
					   "manylinux2014_x86_64",
					   "manylinux2014_aarch64",
					   "musllinux_1_2_x86_64",
					   "linux_x86_64",
					   "linux_aarch64",
					   "macosx_11_0_arm64",
					   "macosx_10_15_x86_64",
					   "win_amd64",
					   "win_arm64",
					   "win32" };

static bool in(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, list[i]))
			return true;
	return false;
}

/* s is "N_M_" followed by the rest: digits, '_', digits, '_'. Returns the rest or NULL. */
static const char *two_numbers(const char *s)
{
	for (int k = 0; k < 2; k++) {
		if (!isdigit((unsigned char)*s))
			return NULL;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s++ != '_')
			return NULL;
	}
	return s;
}

static bool tag_ok(const char *w)
{
	const char *rest;
	if (!strcmp(w, "auto") || !strcmp(w, "any") ||
	    in(w, conda_subdirs, WP_ARRAY_LEN(conda_subdirs)))
		return true;
	if (!strcmp(w, "win32") || !strcmp(w, "win_amd64") || !strcmp(w, "win_arm64") ||
	    !strcmp(w, "win_ia64"))
		return true;
	if (!strncmp(w, "android_", 8) || !strncmp(w, "ios_", 4))
		return true; /* PEP 738 and 730: their shapes are theirs to check */
	if ((!strncmp(w, "manylinux_", 10) || !strncmp(w, "musllinux_", 10)) &&
	    (rest = two_numbers(w + 10)))
		return in(rest, linux_arches, WP_ARRAY_LEN(linux_arches));
	static const char *const legacy[] = { "manylinux1_", "manylinux2010_", "manylinux2014_",
					      "linux_" };
	for (size_t i = 0; i < WP_ARRAY_LEN(legacy); i++)
		if (!strncmp(w, legacy[i], strlen(legacy[i])))
			return in(w + strlen(legacy[i]), linux_arches, WP_ARRAY_LEN(linux_arches));
	if (!strncmp(w, "macosx_", 7) && (rest = two_numbers(w + 7)))
		return in(rest, mac_arches, WP_ARRAY_LEN(mac_arches));
	return false;
}

static void push(struct wp_names *out, const char *fmt, const char *a)
{
	char *t = wp_xasprintf(fmt, a);
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->v[i], t)) {
			free(t);
			return;
		}
	wp_vec_push(out, t);
}

static void push_closest(struct wp_names *out, const char *w, const char *const *list, size_t n)
{
	struct wp_strlist close = { 0 };
	wp_suggest_closest(w, list, n, 3, &close);
	for (size_t i = 0; i < close.n; i++)
		push(out, "%s", close.v[i]);
	wp_strlist_release(&close);
}

#define NEAR 3 /* edits: a suggestion this close is a likely typo of it */

/* How far a suggestion is from what was typed: one that completes it by a few letters
 * ("..._x86" -> "..._x86_64") or is one edit from it is 1; any other is 2 (a guess from the
 * words' meaning, "linux" -> "manylinux_2_28_x86_64", keeps its place among those). */
static size_t rank(const char *typed, const char *cand)
{
	size_t n = strlen(typed), m = strlen(cand);
	if (n && m > n && m - n <= NEAR && !strncmp(cand, typed, n))
		return 1;
	/* past one edit, the order they were thought of in is the better guess ("win64" is
	 * win_amd64, though win32 is two letters from it) */
	return wp_suggest_distance(typed, cand, 1) <= 1 ? 1 : 2;
}

/* The suggestions, nearest first; ties keep the order they were thought of in. */
static void nearest_first(struct wp_names *out, const char *typed)
{
	for (size_t i = 1; i < out->n; i++) {
		char *v = out->v[i];
		size_t r = rank(typed, v), j = i;
		for (; j > 0 && rank(typed, out->v[j - 1]) > r; j--)
			out->v[j] = out->v[j - 1];
		out->v[j] = v;
	}
}

bool wp_suggest_platform(const char *word, bool conda, struct wp_names *out)
{
	char w[MAX_WORD], u[MAX_WORD];
	size_t n = 0;
	for (; word[n] && n + 1 < sizeof(w); n++)
		w[n] = (char)tolower((unsigned char)word[n]);
	w[n] = 0;
	if (tag_ok(w))
		return true;
	/* what it would mean with '-' and '.' read as '_' (manylinux-2-28-x86_64,
	 * macosx-11.0-arm64) */
	for (size_t i = 0; i <= n; i++)
		u[i] = w[i] == '-' || w[i] == '.' ? '_' : w[i];
	if (!conda && tag_ok(u)) {
		push(out, "%s", u);
		return false;
	}
	/* an architecture cut short at the end ("manylinux2014_x86", "macosx_11_0_arm"): completed,
	 * and said first; the guesses below still follow */
	for (int list = 0; !conda && list < 2; list++) {
		const char *const *al = list ? mac_arches : linux_arches;
		size_t an = list ? WP_ARRAY_LEN(mac_arches) : WP_ARRAY_LEN(linux_arches);
		for (size_t a = 0; a < an; a++) {
			size_t al_n = strlen(al[a]);
			for (size_t k = al_n - 1; k >= 2; k--) {
				char t[2 * MAX_WORD];
				if (k > n || strncmp(u + n - k, al[a], k))
					continue;
				snprintf(t, sizeof(t), "%.*s%s", (int)(n - k), u, al[a]);
				if (tag_ok(t))
					push(out, "%s", t);
				break;
			}
		}
	}
	size_t completed = out->n;
	const char *arch = strstr(u, "aarch64") || strstr(u, "arm64") ? "aarch64"
			 : strstr(u, "ppc64le")                      ? "ppc64le"
			 : strstr(u, "s390x")                        ? "s390x"
			 : strstr(u, "x86_64") || strstr(u, "amd64") || strstr(u, "x64") ? "x86_64"
			 : strstr(u, "i686") || strstr(u, "i386") || strstr(u, "x86")   ? "i686"
											 : NULL;
	/* a bare "x86" is x86_64 short of its "_64" as much as it is i686: both, nearest first */
	bool x86 = arch && !strcmp(arch, "i686") && !strstr(u, "i686") && !strstr(u, "i386");
	if (x86)
		arch = "x86_64";
	const char *arches[2] = { arch ? arch : "x86_64", x86 ? "i686" : arch ? NULL : "aarch64" };
	bool mac = strstr(u, "mac") || strstr(u, "osx") || strstr(u, "darwin");
	bool win = !mac && (strstr(u, "win") || !strcmp(u, "amd64"));
	bool musl = strstr(u, "musl") || strstr(u, "alpine");
	bool lin = !mac && !win &&
		   (strstr(u, "lin") || strstr(u, "ubuntu") || strstr(u, "debian") ||
		    strstr(u, "centos") || strstr(u, "rhel") || strstr(u, "fedora") || musl ||
		    strstr(u, "glibc"));
	if (conda) {
		for (int k = 0; lin && k < 2 && arches[k]; k++)
			push(out, "linux-%s", !strcmp(arches[k], "x86_64") ? "64" : arches[k]);
		if (mac)
			push(out, "%s", "osx-arm64"), push(out, "%s", "osx-64");
		if (win)
			push(out, "%s", "win-64");
		if (!out->n)
			push_closest(out, w, conda_subdirs, WP_ARRAY_LEN(conda_subdirs));
		if (!out->n)
			push(out, "%s", "linux-64"), push(out, "%s", "osx-arm64"),
				push(out, "%s", "win-64");
		return false;
	}
	if ((!strncmp(u, "manylinux", 9) || !strncmp(u, "musllinux", 9)) && !arch) {
		/* manylinux2014 or manylinux_2_28 without its architecture */
		size_t keep = strlen(u);
		while (keep && u[keep - 1] == '_')
			keep--;
		u[keep] = 0;
		for (int k = 0; k < 2; k++) {
			char t[2 * MAX_WORD];
			snprintf(t, sizeof(t), "%s_%s", u, arches[k]);
			if (tag_ok(t))
				push(out, "%s", t);
		}
	}
	if (out->n > completed) {
		/* the architectures of what was named */
	} else if (musl) {
		for (int k = 0; k < 2 && arches[k]; k++)
			push(out, "musllinux_1_2_%s", arches[k]);
	} else if (lin) {
		for (int k = 0; k < 2 && arches[k]; k++)
			push(out, "manylinux_2_28_%s", arches[k]);
		push(out, "manylinux_2_17_%s", arches[0]);
		push(out, "linux_%s", arches[0]);
	} else if (mac) {
		if (!arch || !strcmp(arch, "aarch64"))
			push(out, "%s", "macosx_11_0_arm64");
		if (!arch || !strcmp(arch, "x86_64"))
			push(out, "%s", "macosx_10_15_x86_64");
	} else if (win) {
		if (!arch || !strcmp(arch, "x86_64"))
			push(out, "%s", "win_amd64");
		if (!arch || !strcmp(arch, "aarch64"))
			push(out, "%s", "win_arm64");
		if (!arch || !strcmp(arch, "i686") || x86)
			push(out, "%s", "win32");
	}
	if (!out->n)
		push_closest(out, u, common_tags, WP_ARRAY_LEN(common_tags));
	if (!out->n)
		push(out, "%s", "manylinux_2_28_x86_64"), push(out, "%s", "win_amd64"),
			push(out, "%s", "macosx_11_0_arm64");
	nearest_first(out, u);
	return false;
}

/* --- projects --- */

struct collect {
	struct wp_names *names;
	size_t max;
};

static int collect_fn(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	struct collect *c = ctx;
	if (c->names->n >= c->max)
		return 1;
	struct wp_buf b = WP_BUF_INIT;
	wp_project_name_normalize(name, strlen(name), &b);
	wp_vec_push(c->names, wp_buf_detach(&b, NULL));
	return 0;
}

struct root_prior {
	char *etag, *last_modified;
	int64_t fetched_at;
	bool root;
};

static int root_prior_fn(void *ctx, const struct wp_source_row *r, struct wp_err *err)
{
	struct root_prior *p = ctx;
	p->etag = r->etag ? wp_xstrdup(r->etag) : NULL;
	p->last_modified = r->last_modified ? wp_xstrdup(r->last_modified) : NULL;
	p->fetched_at = r->fetched_at;
	p->root = r->type == WP_SOURCE_ROOT;
	return 0;
}

/* Where a root page's bytes are kept between runs: CACHE/roots/<FNV-1a of the URL>. */
static char *root_cache_path(const struct wp_session *s, const char *root)
{
	unsigned long long h = 1469598103934665603ULL;
	if (!s->cache_dir)
		return NULL;
	for (const unsigned char *c = (const unsigned char *)root; *c; c++)
		h = (h ^ *c) * 1099511628211ULL;
	return wp_xasprintf("%s/roots/%016llx", s->cache_dir, h);
}

static unsigned long long root_max(const struct wp_session *s)
{
	return s->max_page_bytes ? s->max_page_bytes : WP_CRAWL_PAGE_MAX_DEFAULT;
}

/* A root's page that outgrew memory, fetched into <path>.new: kept as path the way
 * wp_atomic_write keeps a small one (synced, renamed over, the folder synced), so the bytes kept
 * are all of one answer or the old ones, then opened (pg) to be read in pieces; read from tmp
 * when it cannot be kept. true when kept. */
static bool keep_spilled(const char *tmp, const char *path, const char *dir, const char *root,
			 unsigned long long max, struct wp_page *pg, struct wp_err *e)
{
	/* synced through a descriptor that may write (Windows' FlushFileBuffers needs one), and
	 * closed before the rename (Windows renames no open file) */
	int fd = wp_os_open(tmp, WP_O_RDWR | WP_O_CLOEXEC);
	bool kept = fd >= 0 && wp_os_fsync(fd) == 0;
	if (fd >= 0)
		wp_os_close(fd);
	kept = kept && wp_os_rename(tmp, path) == 0;
	if (wp_page_open(pg, kept ? path : tmp, root, max, e))
		return false;
	return kept && wp_fs_sync_dir(dir, e) == 0;
}

/* A root's page over the network, stored like any page: the catalog keeps its validators and
 * time (kind root), the cache its bytes, so that inside the freshness limit it is not asked for
 * and after it the question is conditional (a 304 reads the kept bytes). A page past memory's
 * share (WP_CRAWL_PAGE_IN_MEMORY) goes to a file and is read from it in pieces, as the crawl reads
 * one, up to --max-page-size. false when there is nothing to read (this is only a hint). */
static bool root_body(const struct wp_session *s, struct wp_catalog *cat, const char *root,
		      struct wp_page *pg, bool *json)
{
	struct wp_err e = WP_ERR_INIT;
	struct root_prior pr = { 0 };
	bool found = false, ok = false;
	char *path = root_cache_path(s, root);
	char *dir = path ? wp_xasprintf("%s/roots", s->cache_dir) : NULL;
	char *tmp = NULL;
	struct wp_page kept = WP_PAGE_INIT;
	unsigned long long max = root_max(s);
	bool have = path &&
		    wp_page_load(&kept, path, path, max, WP_CRAWL_PAGE_IN_MEMORY, &e) == 0;
	if (cat && wp_catalog_source_get(cat, root, root_prior_fn, &pr, &found, &e) < 0)
		found = false;
	wp_err_clear(&e);
	if (have && found && pr.root && s->max_age_s > 0 &&
	    time(NULL) - pr.fetched_at < s->max_age_s) {
		wp_say(s, WP_SAY_DEBUG, "project names from '%s' as read %lld s ago", root,
		       (long long)(time(NULL) - pr.fetched_at));
		goto kept;
	}
	/* a big page leaves memory for a file beside where it is kept; with nowhere to keep it, it
	 * stays in memory under the old ceiling */
	if (dir && cat && wp_mkdir_p(dir, 0755, &e) == 0)
		tmp = wp_xasprintf("%s.new", path);
	wp_err_clear(&e);
	struct wp_http_req req = {
		.policy = wp_session_net_policy(s),
		.url = root,
		.accept = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1",
		.etag = have && found && pr.root ? pr.etag : NULL,
		.last_modified = have && found && pr.root ? pr.last_modified : NULL,
		.max_bytes = !tmp ? 0 : max > SIZE_MAX ? SIZE_MAX : (size_t)max,
		.to_path = tmp,
		.spill_after = tmp ? WP_CRAWL_PAGE_IN_MEMORY : 0,
	};
	struct wp_http_res res;
	memset(&res, 0, sizeof(res));
	if (wp_http_get(&req, &res, &e) < 0) {
		wp_say(s, WP_SAY_DEBUG, "no project names from '%s' for suggestions: %s", root,
		       e.msg);
		wp_http_res_release(&res);
		goto out;
	}
	if (res.not_modified && have) {
		wp_http_res_release(&res);
		if (cat)
			wp_catalog_source_touch(cat, root, &e);
		goto kept;
	}
	*json = res.content_type && strstr(res.content_type, "json");
	/* kept for the next run: the bytes, then the validators that name them */
	bool stored;
	if (res.spilled) {
		stored = keep_spilled(tmp, path, dir, root, max, pg, &e);
		if (pg->fd < 0) {
			wp_http_res_release(&res);
			goto out;
		}
	} else {
		pg->body = res.body;
		res.body = (struct wp_buf)WP_BUF_INIT;
		stored = dir && cat && wp_mkdir_p(dir, 0755, &e) == 0 &&
			 wp_atomic_write(path, pg->body.data ? pg->body.data : "", pg->body.len,
					 &e) == 0;
	}
	int64_t id;
	if (stored && wp_catalog_refresh_begin(cat, root, WP_SOURCE_ROOT, &id, &e) == 0 &&
	    wp_catalog_refresh_commit(cat, id, res.etag, res.last_modified, NULL, 0, &e) != 0)
		wp_catalog_refresh_abort(cat);
	wp_http_res_release(&res);
	ok = true;
	goto out;
kept:
	*json = wp_page_lead(&kept) == '{';
	*pg = kept;
	kept = (struct wp_page)WP_PAGE_INIT;
	ok = true;
out:
	if (tmp)
		wp_os_unlink(tmp); /* left only when it could not be kept */
	wp_page_release(&kept);
	free(pr.etag);
	free(pr.last_modified);
	free(tmp);
	free(dir);
	free(path);
	return ok;
}

/* The projects a root page lists; nothing when it cannot be read (this is only a hint). A local
 * page past memory's share is read where it lies, in pieces. */
static void root_names(const struct wp_session *s, struct wp_catalog *cat, const char *root,
		       struct wp_names *out)
{
	struct wp_err e = WP_ERR_INIT;
	struct collect c = { out, 1000000 };
	struct wp_index_stats st = { 0 };
	struct wp_page pg = WP_PAGE_INIT;
	bool json = false, folder = false;
	if (wp_local_is_file_url(root)) {
		char *file = NULL;
		unsigned long long size;
		bool ok = !wp_lazy_require(WP_LIB_XML, &e) &&
			  !wp_local_page_file(root, &file, &folder, &size, &e) && !folder &&
			  !wp_page_load(&pg, file, root, root_max(s), WP_CRAWL_PAGE_IN_MEMORY, &e);
		free(file);
		if (!ok)
			goto out;
	} else if (wp_lazy_require(WP_LIB_CURL | WP_LIB_XML, &e) ||
		   !root_body(s, cat, root, &pg, &json)) {
		goto out;
	}
	wp_page_read_projects(&pg, json, root, collect_fn, &c, &st, &e);
out:
	wp_page_release(&pg);
}

int wp_suggest_projects(const struct wp_session *s, struct wp_catalog *cat,
			const struct wp_strlist *indexes, bool offline, bool conda,
			const char *project, struct wp_names *out, struct wp_err *err)
{
	struct wp_names all = { 0 };
	struct wp_strlist close = { 0 };
	int rc;
	memset(out, 0, sizeof(*out));
	if ((rc = wp_catalog_project_names(cat, conda, 0, &all, err)))
		return rc;
	for (size_t i = 0; !conda && !offline && indexes && i < indexes->n; i++) {
		size_t n = strlen(indexes->v[i]);
		if (n && indexes->v[i][n - 1] == '/')
			root_names(s, cat, indexes->v[i], &all);
	}
	wp_suggest_closest(project, (const char *const *)all.v, all.n, 3, &close);
	for (size_t i = 0; i < close.n; i++)
		wp_vec_push(out, wp_xstrdup(close.v[i]));
	wp_strlist_release(&close);
	wp_names_release(&all);
	return 0;
}

/* --- requirements as typed --- */

static bool bare_name(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

int wp_suggest_check_reqs(const struct wp_strlist *reqs, bool conda, struct wp_reqs *out,
			  struct wp_err *err)
{
	for (size_t i = 0; i < reqs->n; i++) {
		const char *r = reqs->v[i];
		if (i > 0 && bare_name(reqs->v[i - 1]) && wp_looks_like_version_spec(r)) {
			bool op = strchr("<>=!~", r[0]) != NULL;
			if (conda)
				return wp_fail(err, -WPE_USAGE,
					       "'%s' looks like the version of '%s': quote the whole spec, "
					       "'%s %s', or the shell splits it in two",
					       r, reqs->v[i - 1], reqs->v[i - 1], r);
			return wp_fail(err, -WPE_USAGE,
				       "'%s' looks like the version of '%s': write them as one "
				       "requirement, '%s%s%s'",
				       r, reqs->v[i - 1], reqs->v[i - 1], op ? "" : "==", r);
		}
		if (conda)
			continue;
		struct wp_req q;
		struct wp_err pe = WP_ERR_INIT;
		if (wp_req_parse(&q, r, strlen(r), &pe) == 0) {
			if (out)
				wp_vec_push(out, q);
			else
				wp_req_release(&q);
			continue;
		}
		wp_req_release(&q);
		struct wp_buf fix = WP_BUF_INIT;
		int rc;
		if (wp_requirement_guess(r, &fix))
			rc = wp_fail(err, -WPE_USAGE,
				     "requirement '%s': did you mean '%s'? (pip's spelling; conda's '=' works "
				     "with --conda)",
				     r, fix.data);
		else
			rc = wp_fail(err, -WPE_USAGE, "requirement '%s' is not PEP 508: %s", r,
				     pe.msg);
		wp_buf_free(&fix);
		return rc;
	}
	return 0;
}
