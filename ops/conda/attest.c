/* ops/conda/attest.c: a conda package's CEP 27 attestations fetched beside it, content-addressed
 * in the cache by the sha256 its repodata record gives (CEP 50), so a re-run and --offline find
 * them. */
#include "ops/conda/attest.h"
#include "base/fs.h"
#include "base/mem.h"
#include "cache/provstore.h"
#include "index/repodata.h"
#include "ops/core/provenance.h"
#include "verify/hash.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *wp_conda_attest_name(const char *filename, const char *sha256)
{
	return wp_xasprintf("%s" WP_CONDA_ATTEST_INFIX "%s", filename, sha256);
}

/* The sha256 a sidecar URL's name fixes, or false for a URL that is no CEP 50 sidecar's. */
static bool hash_of_url(const char *url, char hex[65])
{
	const char *at = url ? strstr(url, WP_CONDA_ATTEST_INFIX) : NULL;
	for (const char *next = at; next; next = strstr(next + 1, WP_CONDA_ATTEST_INFIX))
		at = next;
	if (!at || strlen(at + strlen(WP_CONDA_ATTEST_INFIX)) != 64 ||
	    !wp_sha256_hex_valid(at + strlen(WP_CONDA_ATTEST_INFIX)))
		return false;
	snprintf(hex, 65, "%s", at + strlen(WP_CONDA_ATTEST_INFIX));
	return true;
}

/* A sidecar in the cache that is what its name says. */
static bool held(const char *path, const char *hex)
{
	char got[WP_SHA256_HEX_LEN + 1];
	struct wp_err e = WP_ERR_INIT;
	struct wp_os_stat sb;
	return wp_os_stat(path, &sb) == 0 && WP_S_ISREG(sb.st_mode) &&
	       wp_hash_file(path, got, NULL, &e) == 0 && !strcmp(got, hex);
}

static void keep_first(struct wp_err *err, int *rc, int code, const char *msg)
{
	if (!*rc)
		*rc = wp_fail(err, code, "%s", msg);
}

int wp_conda_attest_carry(const struct wp_session *s, struct wp_catalog *cat,
			  const char *const *urls, size_t n, bool offline,
			  struct wp_conda_attest *out, struct wp_err *err)
{
	char *dir = wp_xasprintf("%s/files/conda-attest", s->cache_dir);
	const char **want = wp_xcalloc(n ? n : 1, sizeof(*want)),
		   **dests = wp_xcalloc(n ? n : 1, sizeof(*dests));
	size_t *of = wp_xcalloc(n ? n : 1, sizeof(*of));
	bool *got = wp_xcalloc(n ? n : 1, sizeof(*got));
	struct wp_err *errs = wp_xcalloc(n ? n : 1, sizeof(*errs));
	size_t m = 0;
	int rc = 0;
	memset(out, 0, n * sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		char *purl = NULL;
		struct wp_err e = WP_ERR_INIT;
		if (wp_catalog_provenance_get(cat, urls[i], &purl, &e) < 0) {
			wp_say(s, WP_SAY_ERROR, "%s", e.msg);
			keep_first(err, &rc, e.code, e.msg);
			continue;
		}
		if (!purl)
			continue;
		if (!hash_of_url(purl, out[i].sha256)) {
			free(purl);
			continue; /* not a CEP 50 sidecar: nothing this reads */
		}
		free(purl);
		out[i].path = wp_xasprintf("%s/%s", dir, out[i].sha256);
		if (held(out[i].path, out[i].sha256))
			continue;
		if (offline) {
			char *msg =
				wp_xasprintf("the attestations of '%s' are not in the cache, and --offline fetches nothing: "
					     "the package goes in without them (run once online to carry them)",
					     urls[i]);
			wp_say(s, WP_SAY_ERROR, "%s", msg);
			keep_first(err, &rc, -WPE_SOURCE, msg);
			free(msg);
			free(out[i].path);
			out[i].path = NULL;
			continue;
		}
		want[m] = urls[i];
		dests[m] = out[i].path;
		of[m++] = i;
	}
	if (m) {
		struct wp_err de = WP_ERR_INIT;
		if (wp_mkdir_p(dir, 0755, &de) < 0) {
			keep_first(err, &rc, de.code, de.msg);
			m = 0;
			for (size_t i = 0; i < n; i++) {
				free(out[i].path);
				out[i].path = NULL;
			}
		}
	}
	if (m)
		wp_provenance_carry_many(s->net, cat, want, dests, m, got, errs);
	for (size_t k = 0; k < m; k++) {
		size_t i = of[k];
		char *msg = NULL;
		int code = 0;
		if (!got[k]) {
			msg = wp_xasprintf("the attestations of '%s' could not be fetched (%s): the package goes in without them",
					   urls[i], errs[k].msg);
			code = errs[k].code ? errs[k].code : -WPE_SOURCE;
		} else if (!held(out[i].path, out[i].sha256)) {
			msg = wp_xasprintf("the attestations of '%s' are not the bytes its repodata names (sha256 %s): the "
					   "package goes in without them",
					   urls[i], out[i].sha256);
			code = -WPE_INTEGRITY;
			wp_os_unlink(out[i].path);
		}
		if (msg) {
			wp_say(s, WP_SAY_ERROR, "%s", msg);
			keep_first(err, &rc, code, msg);
			free(msg);
			free(out[i].path);
			out[i].path = NULL;
		}
	}
	free(dir);
	free(want);
	free(dests);
	free(of);
	free(got);
	free(errs);
	return rc;
}

void wp_conda_attest_release(struct wp_conda_attest *a, size_t n)
{
	for (size_t i = 0; a && i < n; i++) {
		free(a[i].path);
		a[i].path = NULL;
	}
}
