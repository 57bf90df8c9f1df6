/* ops/verify/sbom.c: an output's SBOM (sbom.cdx.json, and sbom.spdx.json when there) lists exactly
 * the output's files, each with the sha256 of its bytes. */
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "ops/verify/common.h"
#include "ops/wheel/sbom.h"

#include <stdlib.h>
#include <string.h>

#define SBOM_MAX ((size_t)256 << 20)

struct listed {
	const char *path, *sha256;
	bool seen;
};

/* The files a CycloneDX document lists: wheelpick:path (else bom-ref) and SHA-256. */
static size_t cdx_list(const struct wp_json_val *doc, struct listed **out)
{
	const struct wp_json_val *comps = wp_json_get_arr(doc, "components");
	size_t n = wp_json_len(comps);
	*out = wp_xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		const struct wp_json_val *c = wp_json_at(comps, i);
		const char *path = wp_json_get_str(c, "bom-ref");
		const struct wp_json_val *props = wp_json_get_arr(c, "properties");
		for (size_t k = 0; k < wp_json_len(props); k++) {
			const char *nm = wp_json_get_str(wp_json_at(props, k), "name");
			if (nm && !strcmp(nm, "wheelpick:path"))
				path = wp_json_get_str(wp_json_at(props, k), "value");
		}
		const struct wp_json_val *hashes = wp_json_get_arr(c, "hashes");
		const char *sha = NULL;
		for (size_t k = 0; k < wp_json_len(hashes); k++) {
			const char *alg = wp_json_get_str(wp_json_at(hashes, k), "alg");
			if (alg && !strcmp(alg, "SHA-256"))
				sha = wp_json_get_str(wp_json_at(hashes, k), "content");
		}
		(*out)[i] = (struct listed){ path, sha, false };
	}
	return n;
}

/* The same of an SPDX 2.3 document: packageFileName and its SHA256 checksum. */
static size_t spdx_list(const struct wp_json_val *doc, struct listed **out)
{
	const struct wp_json_val *pkgs = wp_json_get_arr(doc, "packages");
	size_t n = wp_json_len(pkgs);
	*out = wp_xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		const struct wp_json_val *p = wp_json_at(pkgs, i);
		const struct wp_json_val *sums = wp_json_get_arr(p, "checksums");
		const char *sha = NULL;
		for (size_t k = 0; k < wp_json_len(sums); k++) {
			const char *alg = wp_json_get_str(wp_json_at(sums, k), "algorithm");
			if (alg && !strcmp(alg, "SHA256"))
				sha = wp_json_get_str(wp_json_at(sums, k), "checksumValue");
		}
		(*out)[i] = (struct listed){ wp_json_get_str(p, "packageFileName"), sha, false };
	}
	return n;
}

static void check_one(struct vo_ctx *c, const char *dir, const char *name, bool cdx,
		      const char *const *paths, const char *const *sha, size_t n, bool fatal)
{
	char *path = wp_xasprintf("%s/%s", dir, name);
	struct wp_buf b = WP_BUF_INIT;
	struct wp_json_val *doc = NULL;
	struct wp_err e = WP_ERR_INIT;
	struct listed *l = NULL;
	bool found = false;
	const struct wp_json_opts o = { .what = path, .noun = "SBOM", .max_bytes = SBOM_MAX };
	if (wp_file_read_if_exists(path, SBOM_MAX, &b, &found, &e) < 0 ||
	    (found && wp_json_load(b.data, b.len, &o, &doc, &e) < 0)) {
		wp_vo_problem_add(c, true, path, "%s", e.msg);
		goto out;
	}
	if (!found) {
		/* outputs written before SBOMs were: said, not failed */
		if (cdx)
			wp_vo_problem_add(c, false, path,
					  "is missing: this output lists no SBOM of its files (write it again "
					  "with this wheelpick to get one)");
		goto out;
	}
	c->rep->pages++;
	const char *fmt = cdx ? wp_json_get_str(doc, "bomFormat") :
				wp_json_get_str(doc, "spdxVersion");
	const char *ver = cdx ? wp_json_get_str(doc, "specVersion") : "SPDX-2.3";
	if (!fmt || strcmp(fmt, cdx ? "CycloneDX" : "SPDX-2.3") || !ver ||
	    (cdx && strcmp(ver, "1.6"))) {
		wp_vo_problem_add(c, true, path, "is not a %s document",
				  cdx ? "CycloneDX 1.6" : "SPDX 2.3");
		goto out;
	}
	size_t nl = cdx ? cdx_list(doc, &l) : spdx_list(doc, &l);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < nl && !(l[k].path && !strcmp(l[k].path, paths[i])))
			k++;
		c->rep->links++;
		if (k == nl) {
			wp_vo_problem_add(c, fatal, path,
					  "does not list '%s', which is in the output", paths[i]);
			continue;
		}
		l[k].seen = true;
		if (!l[k].sha256 || strcmp(l[k].sha256, sha[i]))
			wp_vo_problem_add(c, fatal, path,
					  "gives sha256 %s for '%s'; the file's is %s",
					  l[k].sha256 ? l[k].sha256 : "(none)", paths[i], sha[i]);
	}
	for (size_t k = 0; k < nl; k++)
		if (!l[k].seen)
			wp_vo_problem_add(c, fatal, path, "lists '%s', which is not in the output",
					  l[k].path ? l[k].path : "(no path)");
out:
	free(l);
	wp_json_tree_free(doc);
	wp_buf_free(&b);
	free(path);
}

void wp_vo_check_sbom(struct vo_ctx *c, const char *dir, const char *const *paths,
		      const char *const *sha, size_t n, bool fatal)
{
	check_one(c, dir, WP_SBOM_CDX_NAME, true, paths, sha, n, fatal);
	check_one(c, dir, WP_SBOM_SPDX_NAME, false, paths, sha, n, fatal);
}
