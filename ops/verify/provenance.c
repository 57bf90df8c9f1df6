/* ops/verify/provenance.c: each distribution's FILE.provenance checked as verify's options say. */
#include "base/mem.h"
#include "base/vec.h"
#include "ops/core/provenance.h"
#include "ops/verify/common.h"
#include "resolver/wheelname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The project a distribution's file name says, or NULL. */
static char *project_of(const char *filename)
{
	struct wp_wheelname w;
	struct wp_sdistname s;
	char *p = NULL;
	if (wp_wheelname_parse(filename, &w, NULL) == 0) {
		p = wp_xstrdup(w.project);
		wp_wheelname_release(&w);
	} else if (wp_sdistname_parse(filename, &s, NULL) == 0) {
		p = wp_xstrdup(s.project);
		wp_sdistname_release(&s);
	}
	return p;
}

static void record(struct vo_ctx *c, const char *path, const char *status, const struct wp_prov_identity *id)
{
	struct wp_verify_prov p = { .path = vo_show(c, path), .status = status, .signed_at = -1 };
	if (id) {
		const char *who = id->source_repo[0] ? id->source_repo : id->san;
		p.signer = who[0] ? wp_xstrdup(who) : NULL;
		p.issuer = id->issuer[0] ? wp_xstrdup(id->issuer) : NULL;
		p.build = id->build_config[0] ? wp_xstrdup(id->build_config) : NULL;
		p.signed_at = id->signed_at;
	}
	wp_vec_push_fields(c->rep->provs, c->rep->n_provs, c->rep->cap_provs, p);
}

void vo_check_provenance(struct vo_ctx *c, const char *path, const char *filename, const char *sha256)
{
	const struct wp_verify_opts *o = c->opts;
	if (!filename) {
		const char *slash = strrchr(path, '/');
		filename = slash ? slash + 1 : path;
	}
	char *project = project_of(filename);
	const struct wp_prov_rule *rule = o && project ? wp_prov_policy_find(o->policy, project) : NULL;
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
			vo_problem_add(c, true, path, "has no provenance (%s" WP_PROV_SUFFIX "), and the policy requires "
				       "'%s' to come from %s", filename, project, want);
		break;
	case WP_PROV_CARRIED:
		record(c, path, "carried", NULL);
		c->rep->provenance_unchecked++;
		break;
	case WP_PROV_FAILED:
		record(c, path, "failed", NULL);
		vo_problem_add(c, true, ppath, "%s", e.msg);
		break;
	case WP_PROV_VERIFIED:
		record(c, path, "verified", &res.id[0]);
		c->rep->provenance_verified++;
		if (rule) {
			bool ok = false;
			for (size_t i = 0; i < res.n && !ok; i++)
				ok = wp_prov_rule_matches(rule, &res.id[i]);
			if (!ok)
				vo_problem_add(c, true, ppath, "verifies, but its signer is %s (issuer %s), not %s that the policy "
					       "requires for '%s'", res.id[0].source_repo[0] ? res.id[0].source_repo : res.id[0].san,
					       res.id[0].issuer, want, project);
		}
		break;
	}
	free(ppath);
	free(project);
}
