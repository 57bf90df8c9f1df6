/* ops/verify/provenance.c: each distribution's FILE.provenance checked as verify's options say. */
#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/vec.h"
#include "ops/core/provenance.h"
#include "ops/verify/common.h"
#include "index/repodata.h"
#include "resolver/wheelname.h"
#include "verify/condaattest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The project a distribution's file name says, or NULL. */
static char *project_of(const char *filename)
{
	char *x = NULL;
	wp_distname_split(filename, &x, NULL);
	return x;
}

static void record(struct vo_ctx *c, const char *path, const char *status,
		   const struct wp_prov_identity *id)
{
	struct wp_verify_prov p = { .path = wp_vo_show(c, path), .status = status,
				    .signed_at = -1 };
	if (id) {
		const char *who = id->source_repo[0] ? id->source_repo : id->san;
		p.signer = who[0] ? wp_xstrdup(who) : NULL;
		p.issuer = id->issuer[0] ? wp_xstrdup(id->issuer) : NULL;
		p.build = id->build_config[0] ? wp_xstrdup(id->build_config) : NULL;
		p.signed_at = id->signed_at;
	}
	wp_vec_push_fields(c->rep->provs, c->rep->n_provs, c->rep->cap_provs, p);
}

void wp_vo_check_provenance(struct vo_ctx *c, const char *path, const char *filename,
			    const char *sha256)
{
	const struct wp_verify_opts *o = c->opts;
	if (!filename) {
		filename = wp_path_base(path);
	}
	char *project = project_of(filename);
	const struct wp_prov_rule *rule = o && project ? wp_prov_policy_find(o->policy, project) :
							 NULL;
	char want[420] = "";
	if (rule)
		wp_prov_rule_format(rule, want, sizeof(want));
	struct wp_prov_result res;
	struct wp_err e = WP_ERR_INIT;
	char *ppath = wp_xasprintf("%s" WP_PROV_SUFFIX, path);
	switch (wp_provenance_status(path, filename, sha256, o ? o->trust : NULL, &res, &e)) {
	case WP_PROV_NONE:
		if (rule)
			record(c, path, "missing", NULL);
		if (rule)
			wp_vo_problem_add(c, true, path,
					  "has no provenance (%s" WP_PROV_SUFFIX
					  "), and the policy requires "
					  "'%s' to come from %s",
					  filename, project, want);
		break;
	case WP_PROV_CARRIED:
		record(c, path, "carried", NULL);
		c->rep->provenance_unchecked++;
		break;
	case WP_PROV_FAILED:
		record(c, path, "failed", NULL);
		wp_vo_problem_add(c, true, ppath, "%s", e.msg);
		break;
	case WP_PROV_VERIFIED:
		record(c, path, "verified", &res.id[0]);
		c->rep->provenance_verified++;
		if (rule) {
			bool ok = false;
			for (size_t i = 0; i < res.n && !ok; i++)
				ok = wp_prov_rule_matches(rule, &res.id[i]);
			if (!ok)
				wp_vo_problem_add(c, true, ppath,
						  "verifies, but its signer is %s (issuer %s), not %s that the policy "
						  "requires for '%s'",
						  res.id[0].source_repo[0] ? res.id[0].source_repo :
									     res.id[0].san,
						  res.id[0].issuer, want, project);
		}
		break;
	}
	free(ppath);
	free(project);
}

/* The sha256 a CEP 50 sidecar URL's name fixes (into hex), or false. */
static bool attest_hash(const char *url, char hex[WP_SHA256_HEX_LEN + 1])
{
	const char *at = NULL;
	for (const char *p = url ? strstr(url, WP_CONDA_ATTEST_INFIX) : NULL; p;
	     p = strstr(p + 1, WP_CONDA_ATTEST_INFIX))
		at = p;
	if (!at || !wp_sha256_hex_valid(at + strlen(WP_CONDA_ATTEST_INFIX)))
		return false;
	snprintf(hex, WP_SHA256_HEX_LEN + 1, "%s", at + strlen(WP_CONDA_ATTEST_INFIX));
	return true;
}

void wp_vo_check_conda_attest(struct vo_ctx *c, const char *path, const char *filename,
			      const char *project, const char *sha256, const char *attest_url)
{
	const struct wp_verify_opts *o = c->opts;
	const struct wp_prov_rule *rule = o && project ? wp_prov_policy_find(o->policy, project) :
							 NULL;
	char want[420] = "", hex[WP_SHA256_HEX_LEN + 1], got[WP_SHA256_HEX_LEN + 1];
	if (rule)
		wp_prov_rule_format(rule, want, sizeof(want));
	if (!attest_hash(attest_url, hex)) {
		if (rule) {
			record(c, path, "missing", NULL);
			wp_vo_problem_add(c, true, path,
					  "has no attestations (repodata.json gives no attestations_sha256), and the "
					  "policy requires '%s' to come from %s",
					  project, want);
		}
		return;
	}
	char *apath = wp_xasprintf("%s" WP_CONDA_ATTEST_INFIX "%s", path, hex);
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err e = WP_ERR_INIT;
	struct wp_prov_result res;
	if (!wp_vo_is_file(apath)) {
		record(c, path, "failed", NULL);
		wp_vo_problem_add(c, true, apath,
				  "is missing; repodata.json names it (attestations_sha256)");
	} else if (wp_file_read_capped(apath, WP_CONDA_ATTEST_MAX_BYTES, &b, &e) < 0) {
		record(c, path, "failed", NULL);
		wp_vo_problem_add(c, true, apath, "%s", e.msg);
	} else if (wp_sha256_hex_of(b.data ? b.data : "", b.len, got) < 0 || strcmp(got, hex)) {
		record(c, path, "failed", NULL);
		wp_vo_problem_add(c, true, apath,
				  "sha256 is %s, repodata.json's attestations_sha256 says %s", got,
				  hex);
	} else if (wp_conda_attest_check(b.data ? b.data : "", b.len, filename, filename, sha256,
					 o ? o->trust : NULL, &res, &e) < 0) {
		record(c, path, "failed", NULL);
		wp_vo_problem_add(c, true, apath, "%s", e.msg);
	} else if (!o || !o->trust) {
		record(c, path, "carried", NULL);
		c->rep->provenance_unchecked++;
	} else {
		record(c, path, "verified", &res.id[0]);
		c->rep->provenance_verified++;
		bool ok = !rule;
		for (size_t i = 0; i < res.n && !ok; i++)
			ok = wp_prov_rule_matches(rule, &res.id[i]);
		if (!ok)
			wp_vo_problem_add(c, true, apath,
					  "verifies, but its signer is %s (issuer %s), not %s that the policy "
					  "requires for '%s'",
					  res.id[0].source_repo[0] ? res.id[0].source_repo :
								     res.id[0].san,
					  res.id[0].issuer, want, project);
	}
	wp_buf_free(&b);
	free(apath);
}
