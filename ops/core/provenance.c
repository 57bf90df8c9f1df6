/* ops/core/provenance.c: FILE.provenance beside a file: its status, and the files a user names for
 * it. */
#include "ops/core/provenance.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "cache/provstore.h"
#include "net/http.h"
#include "verify/hash.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLICY_FILE_MAX ((size_t)1 << 20)

const char *wp_prov_status_name(enum wp_prov_status s)
{
	switch (s) {
	case WP_PROV_CARRIED:
		return "carried";
	case WP_PROV_VERIFIED:
		return "verified";
	case WP_PROV_FAILED:
		return "failed";
	default:
		return "none";
	}
}

enum wp_prov_status wp_provenance_status(const char *file_path, const char *filename,
					 const char *sha256_hex, const struct wp_trust_root *tr,
					 struct wp_prov_result *res, struct wp_err *err)
{
	char *ppath = wp_xasprintf("%s" WP_PROV_SUFFIX, file_path);
	struct wp_buf b = WP_BUF_INIT;
	struct wp_prov_result local;
	char sha[WP_SHA256_HEX_LEN + 1];
	struct wp_os_stat sb;
	enum wp_prov_status st = WP_PROV_NONE;
	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (wp_os_lstat(ppath, &sb) < 0)
		goto out;
	if (!WP_S_ISREG(sb.st_mode)) {
		wp_fail(err, -WPE_INTEGRITY, "provenance '%s' is not a plain file", ppath);
		st = WP_PROV_FAILED;
		goto out;
	}
	if (!tr) {
		st = WP_PROV_CARRIED;
		goto out;
	}
	st = WP_PROV_FAILED;
	if (wp_file_read_capped(ppath, WP_PROV_MAX_BYTES, &b, err) < 0)
		goto out;
	if (!sha256_hex) {
		if (wp_hash_file(file_path, sha, NULL, err) < 0)
			goto out;
		sha256_hex = sha;
	}
	if (!filename) {
		const char *slash = strrchr(file_path, '/');
		filename = slash ? slash + 1 : file_path;
	}
	if (wp_provenance_verify(b.data ? b.data : "", b.len, ppath, filename, sha256_hex, tr, res,
				 err) == 0)
		st = WP_PROV_VERIFIED;
out:
	wp_buf_free(&b);
	free(ppath);
	return st;
}

int wp_trust_root_load_file(struct wp_trust_root *tr, const char *path, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	memset(tr, 0, sizeof(*tr));
	int rc = wp_file_read_capped(path, WP_TRUST_ROOT_MAX_BYTES, &b, err);
	if (rc < 0) {
		wp_err_prefix(err, "trusted root");
		rc = err && err->code ? err->code : -WPE_IO;
	} else {
		rc = wp_trust_root_load(tr, b.data ? b.data : "", b.len, path, err);
	}
	wp_buf_free(&b);
	return rc;
}

int wp_prov_policy_add_spec(struct wp_prov_policy *p, const char *spec, struct wp_err *err)
{
	if (strchr(spec, '='))
		return wp_prov_policy_add(p, spec, err);
	struct wp_buf b = WP_BUF_INIT;
	int rc = wp_file_read_capped(spec, POLICY_FILE_MAX, &b, err);
	if (rc < 0) {
		wp_err_prefix(err,
			      "provenance policy (PROJECT=KIND:IDENTITY, or a file of such lines)");
		rc = -WPE_USAGE;
		if (err)
			err->code = rc;
	} else {
		rc = wp_prov_policy_add_lines(p, b.data ? b.data : "", b.len, spec, err);
	}
	wp_buf_free(&b);
	return rc;
}

/* The bytes as served go to dest (a verifier reads them as they are), but what is not JSON is an
 * error page, not provenance. */
static int keep(const char *url, const struct wp_buf *body, const char *dest, struct wp_err *err)
{
	struct wp_json_val *root = NULL;
	struct wp_json_opts o = { .what = url,
				  .noun = "provenance",
				  .kind = "PEP 740 provenance JSON",
				  .code = -WPE_INTEGRITY,
				  .max_bytes = WP_PROV_MAX_BYTES };
	int rc = wp_json_load(body->data ? body->data : "", body->len, &o, &root, err);
	wp_json_tree_free(root);
	return rc ? rc : wp_atomic_write(dest, body->data ? body->data : "", body->len, err);
}

size_t wp_provenance_carry_many(const struct wp_net_conf *net, struct wp_catalog *cat,
				const char *const *file_urls, const char *const *dests, size_t n,
				bool *got, struct wp_err *errs)
{
	char **urls = wp_xcalloc(n ? n : 1, sizeof(*urls));
	struct wp_http_req *reqs = wp_xcalloc(n ? n : 1, sizeof(*reqs));
	struct wp_http_res *res = wp_xcalloc(n ? n : 1, sizeof(*res));
	struct wp_err *ferr = wp_xcalloc(n ? n : 1, sizeof(*ferr));
	size_t *of = wp_xcalloc(n ? n : 1, sizeof(*of));
	size_t m = 0, failed = 0;
	for (size_t i = 0; i < n; i++) {
		got[i] = false;
		wp_err_clear(&errs[i]);
		if (wp_catalog_provenance_get(cat, file_urls[i], &urls[i], &errs[i]) < 0) {
			failed++;
			continue;
		}
		if (!urls[i])
			continue; /* its index offers none */
		reqs[m] = (struct wp_http_req){ .url = urls[i],
						.accept = "application/json",
						.max_bytes = WP_PROV_MAX_BYTES,
						.policy = { .conf = net } };
		of[m++] = i;
	}
	/* all at once: one round trip for the lot, not one per file */
	if (m)
		wp_http_get_many(reqs, res, m, ferr);
	for (size_t k = 0; k < m; k++) {
		size_t i = of[k];
		int rc = ferr[k].code ? ferr[k].code :
					keep(urls[i], &res[k].body, dests[i], &errs[i]);
		if (ferr[k].code)
			errs[i] = ferr[k];
		got[i] = rc == 0;
		failed += rc != 0;
		wp_http_res_release(&res[k]);
	}
	for (size_t i = 0; i < n; i++)
		free(urls[i]);
	free(urls);
	free(reqs);
	free(res);
	free(ferr);
	free(of);
	return failed;
}

int wp_provenance_carry(const struct wp_net_conf *net, struct wp_catalog *cat, const char *file_url,
			const char *dest, bool *got, struct wp_err *err)
{
	struct wp_err e = WP_ERR_INIT;
	if (!wp_provenance_carry_many(net, cat, &file_url, &dest, 1, got, &e))
		return 0;
	return wp_fail(err, e.code, "%s", e.msg);
}
