/* ops/publish/mirror_variants.c: the variants.json bytes a mirror run writes beside its variant
 * wheels, from the catalog. */
#include "ops/publish/mirror_variants.h"
#include "base/buf.h"
#include "base/mem.h"
#include "index/variants.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;
	while (a && b && a[n] && a[n] == b[n])
		n++;
	return n;
}

/* The best row for one release: bytes kept and still the ones the page lists, and of the indexes
 * that list one, the one whose URL is nearest the wheel's (the page the wheel came from). */
struct pick {
	const char *version, *wheel_url;
	char *filename, *sha256, *body;
	size_t score;
};

static int row_fn(void *ctx, const struct wp_variants_row *r, struct wp_err *err)
{
	struct pick *p = ctx;
	if (!r->version || !r->filename || !r->body || !r->body_sha256 ||
	    !wp_variants_json_name(r->filename) ||
	    (r->sha256 && strcasecmp(r->sha256, r->body_sha256)) ||
	    !wp_version_same(r->version, p->version))
		return 0;
	size_t score = common_prefix(r->url, p->wheel_url) + 1;
	if (score <= p->score)
		return 0;
	free(p->filename), free(p->sha256), free(p->body);
	p->filename = wp_xstrdup(r->filename);
	p->sha256 = wp_xstrdup(r->body_sha256);
	p->body = wp_xstrdup(r->body);
	p->score = score;
	return 0;
}

int wp_mirror_vjson_collect(const struct wp_pick_run *run, struct wp_mirror_vjson *out,
			    struct wp_err *err)
{
	const struct wp_plan *plan = &run->plan;
	/* read only; the catalog's reading calls take it mutable for their prepared statements */
	struct wp_catalog *cat = (struct wp_catalog *)&run->cat;
	struct wp_buf project = WP_BUF_INIT;
	char **releases = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*releases)); /* of out->files[k]
										 */
	int rc = 0;
	memset(out, 0, sizeof(*out));
	out->files = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*out->files));
	for (size_t i = 0; i < plan->n && !rc; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		const struct wp_wheelname *wn = &f->wheel; /* parsed when the plan took the file */
		if (!f->filename || !wn->name)
			continue;
		bool variant = wn->variant_label != NULL;
		wp_project_name_normalize(wn->project, strlen(wn->project), &project);
		bool seen = false;
		for (size_t k = 0; k < out->n && !seen; k++)
			seen = !strcmp(out->files[k].project, project.data) &&
			       wp_version_same(releases[k], wn->version);
		if (variant && !seen) {
			struct pick p = { .version = wn->version, .wheel_url = f->url };
			rc = wp_catalog_variants(cat, project.data, row_fn, &p, err);
			if (!rc && !p.body)
				rc = wp_fail(err, -WPE_SOURCE,
					     "'%s' is a PEP 825 variant wheel, but the catalog keeps no "
					     "variants.json of %s %s to mirror beside it; run the pick again online "
					     "(`wheelpick update`) so that it is read",
					     f->filename, project.data, wn->version);
			if (!rc) {
				struct wp_mirror_file *m = &out->files[out->n++];
				m->project = wp_xstrdup(project.data);
				m->filename = p.filename;
				m->sha256 = p.sha256;
				m->body = p.body;
				m->body_len = strlen(p.body);
				releases[out->n - 1] = wp_xstrdup(wn->version);
			} else {
				free(p.filename), free(p.sha256), free(p.body);
			}
		}
	}
	for (size_t k = 0; k < out->n; k++)
		free(releases[k]);
	free(releases);
	wp_buf_free(&project);
	if (rc)
		wp_mirror_vjson_free(out);
	return rc;
}

void wp_mirror_vjson_free(struct wp_mirror_vjson *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free((char *)v->files[i].project);
		free((char *)v->files[i].filename);
		free((char *)v->files[i].sha256);
		free((char *)v->files[i].body);
	}
	free(v->files);
	memset(v, 0, sizeof(*v));
}
