/* ops/wheel/list.c: a project's files from the catalog, ordered, marked for a target and for the
 * source pick would use. */
#include "ops/wheel/list.h"
#include "base/buf.h"
#include "base/mem.h"
#include "base/vec.h"
#include "cache/gpucodedb.h"
#include "index/variants.h"
#include "resolver/gpucode.h"
#include "resolver/condaver.h"
#include "resolver/pick.h"
#include "resolver/tags.h"
#include "resolver/wheelname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

struct collect {
	struct wp_list *l;
	const struct wp_list_job *o;
	WP_VEC_OF(, long long) rank;
};

static int collect(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct collect *c = ctx;
	struct wp_list *l = c->l;
	struct wp_err e = WP_ERR_INIT;
	struct wp_list_file *f = wp_vec_add(l);
	*f = (struct wp_list_file){
		.filename = dup(r->filename),
		.version = dup(r->version),
		.variant = dup(r->variant),
		.url = dup(r->url),
		.sha256 = dup(r->sha256),
		.kind = dup(r->kind),
		.tags = dup(r->tags),
		.requires_python = dup(r->requires_python),
		.yanked = dup(r->yanked),
		.build = dup(r->build),
		.subdir = dup(r->subdir),
		.source_url = dup(r->source_url),
		.size = r->size,
	};
	if (!l->conda)
		f->v_ok = wp_version_parse(&f->v, f->version, strlen(f->version), &e) == 0;
	wp_vec_push(&c->rank, c->o->conda ? 0 :
					    wp_resolve_index_rank(c->o->policy, r->project,
								  r->source_url, r->source_id));
	return 0;
}

/* newest first; then variant; then file name. arg: bool *conda */
static int by_version_desc(const void *pa, const void *pb, void *arg)
{
	const struct wp_list_file *a = pa, *b = pb;
	int c;
	if (*(const bool *)arg)
		c = wp_condaver_cmp(b->version, a->version);
	else if (a->v_ok && b->v_ok)
		c = wp_version_cmp_public(&b->v, &a->v);
	else
		c = (int)b->v_ok - (int)a->v_ok;
	if (c)
		return c;
	if ((c = strcmp(a->variant ? a->variant : "", b->variant ? b->variant : "")))
		return c;
	return strcmp(a->filename, b->filename);
}

void wp_list_public_version(const struct wp_list_file *f, bool conda, char *out, size_t n)
{
	struct wp_buf b = WP_BUF_INIT;
	if (!conda && f->v_ok)
		wp_version_format_public(&f->v, &b);
	snprintf(out, n, "%s", b.len ? b.data : f->version);
	wp_buf_free(&b);
}

/* PEP 825 metadata kept in the catalog for a project's releases (list reads nothing over the
 * network: a variants.json never read leaves its wheels unmarked). */
struct vmeta {
	char *version;
	struct wp_variants v;
};
WP_VEC_OF(vmeta_vec, struct vmeta);

static int vmeta_row(void *ctx, const struct wp_variants_row *r, struct wp_err *err)
{
	struct vmeta_vec *vs = ctx;
	struct vmeta m = { 0 };
	struct wp_err e = WP_ERR_INIT;
	if (!r->body || !r->version ||
	    wp_variants_parse(r->url, r->body, strlen(r->body), &m.v, &e) < 0)
		return 0;
	m.version = wp_xstrdup(r->version);
	wp_vec_push(vs, m);
	return 0;
}

static const struct wp_variants *vmeta_for(const struct vmeta_vec *vs, const char *version)
{
	for (size_t i = 0; version && i < vs->n; i++)
		if (!strcmp(vs->v[i].version, version))
			return &vs->v[i].v;
	return NULL;
}

/* Which files a target would take, each judged alone by the picking rule. */
static void mark_fits(const char *project, struct wp_list *l, const struct wp_target *t,
		      const struct vmeta_vec *vs)
{
	struct wp_tagset ts = WP_TAGSET_INIT;
	struct wp_err e = WP_ERR_INIT;
	if (wp_tagset_build(&ts, t, &e) < 0)
		return;
	for (size_t i = 0; i < l->n; i++) {
		const struct wp_list_file *f = &l->v[i];
		if (f->shadowed_by)
			continue; /* pick would not look at it */
		struct wp_candidate c = {
			.project = project,
			.version = f->version,
			.variant = f->variant ? f->variant : "",
			.kind = f->kind,
			.filename = f->filename,
			.url = f->url,
			.sha256 = f->sha256,
			.requires_python = f->requires_python,
			.yanked = f->yanked,
			.size = f->size,
			.variants = vmeta_for(vs, f->version),
		};
		struct wp_pick_request req = { .project = project, .pre = true };
		struct wp_pick_result res;
		if (wp_pick(&c, 1, &req, t, &ts, &res, &e) == 0)
			l->v[i].fits = res.chosen == 0;
		wp_pick_result_release(&res);
	}
	wp_tagset_release(&ts);
}

int wp_list_project(struct wp_catalog *cat, const char *project, const struct wp_list_job *o,
		    struct wp_list *out, struct wp_err *err)
{
	struct wp_buf name = WP_BUF_INIT;
	struct collect c = { .l = out, .o = o };
	int rc;
	memset(out, 0, sizeof(*out));
	out->conda = o->conda;
	if (o->conda)
		wp_buf_addstr(&name, project);
	else
		wp_project_name_normalize(project, strlen(project), &name);
	if ((rc = wp_catalog_files(cat, name.data, o->conda, collect, &c, err)) < 0)
		goto out;
	/* pick takes a project from the best source that lists it: the others are shadowed */
	long long best = -1;
	const char *best_url = NULL;
	for (size_t i = 0; i < out->n; i++)
		if (c.rank.v[i] >= 0 && (best < 0 || c.rank.v[i] < best)) {
			best = c.rank.v[i];
			best_url = out->v[i].source_url;
		}
	for (size_t i = 0; i < out->n; i++) {
		if (c.rank.v[i] == best)
			continue;
		out->v[i].shadowed_by = best_url ? best_url : "(no source in play)";
		out->n_shadowed++;
	}
	/* sort after the ranks are spent: they are parallel to the rows as read */
	if (out->n)
		qsort_r(out->v, out->n, sizeof(*out->v), by_version_desc, &out->conda);
	for (size_t i = 0; i < out->n && !o->conda; i++) {
		/* what the store read of the files it holds: kept by sha256, read once */
		struct wp_list_file *f = &out->v[i];
		struct wp_err e = WP_ERR_INIT;
		f->gpu_verdict = -1;
		if (!f->sha256 || wp_catalog_gpu_code_get(cat, f->sha256, &f->gpu_code, &e) < 0 ||
		    !f->gpu_code)
			continue;
		const struct wp_target *t = o->mark;
		if (!t || t->accel != WP_ACCEL_CUDA || !*f->gpu_code || !strcmp(f->gpu_code, "-"))
			continue;
		for (int g = 0; g < t->n_gpus; g++) {
			enum wp_gpu_verdict v;
			if (wp_gpucode_verdict(f->gpu_code, t->gpu_sm[g],
					       t->cuda_major * 10 + t->cuda_minor, &v, NULL,
					       &e) == 0 &&
			    (f->gpu_verdict < 0 || (int)v < f->gpu_verdict)) {
				f->gpu_verdict = (int)v;
				f->gpu_sm = t->gpu_sm[g];
			}
		}
	}
	if (o->mark && !o->conda) {
		struct vmeta_vec vs = { 0 };
		if ((rc = wp_catalog_variants(cat, name.data, vmeta_row, &vs, err)) < 0)
			goto out;
		mark_fits(name.data, out, o->mark, &vs);
		for (size_t i = 0; i < out->n; i++)
			if (out->v[i].gpu_verdict == WP_GPU_NONE)
				out->v[i].fits = false; /* its binary has no kernel image for the
							   GPU: that wins */
		for (size_t i = 0; i < vs.n; i++) {
			free(vs.v[i].version);
			wp_variants_release(&vs.v[i].v);
		}
		wp_vec_free(&vs);
	}
out:
	wp_vec_free(&c.rank);
	wp_buf_free(&name);
	return rc;
}

void wp_list_release(struct wp_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct wp_list_file *f = &l->v[i];
		free(f->filename), free(f->version), free(f->variant), free(f->url),
			free(f->sha256), free(f->kind);
		free(f->tags), free(f->requires_python), free(f->yanked), free(f->build),
			free(f->subdir), free(f->source_url);
		free(f->gpu_code);
		if (f->v_ok)
			wp_version_release(&f->v);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
