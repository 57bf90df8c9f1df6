/* ops/verify/variants.c: PEP 825 in a mirror's or wheelhouse's folder: each variants.json parses
 * and lists the labels of the variant wheels beside it, and each variant wheel's own variant.json
 * agrees.
 *
 * Fatal (exit 4), because an installer could not choose among the wheels, or would choose on
 * metadata that is not there, or the wheel is not the build its name says: a variants.json that is
 * not variant metadata; a variant wheel without a *.dist-info/variant.json, with one that is not a
 * JSON object of "variants", or whose "variants" is not exactly its file name's label; a variant
 * wheel whose label the variants.json of its release does not list; in a mirror, a variant wheel
 * its pages list with no variants.json of its release beside it (PEP 825: the index MUST host it;
 * one no page lists yet is a killed run's, named as such by verify_mirror.c); and a wheel's
 * variant.json that is not valid PEP 825 metadata where no sound variants.json stands beside it.
 * Notes: with a sound variants.json beside it, a wheel's variant.json that is not valid PEP 825
 * metadata (a namespace its default-priorities do not list), and properties or a namespace order
 * that differ from the variants.json's.
 * PyTorch's own 2.10 wheels are built from a config that differs from the variants.json it
 * publishes (a static namespace `property` where the JSON says `priority`; `rocm7.1` declared with
 * `rocm_version 7.0`). The mirror carries upstream's bytes under upstream's hashes, and selection
 * (wheelpick's and, as PEP 825 asks, every installer's that has an index) reads the variants.json,
 * so the disagreement is the publisher's to fix: said with both values, never an integrity
 * failure. */
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "index/html.h"
#include "index/variants.h"
#include "ops/verify/common.h"
#include "ops/verify/outputs.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"
#include "resolver/wheelvariant.h"
#include "verify/variantjson.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

/* One {name}-{version}-variants.json of the folder. */
struct vjson {
	char *name, *project, *release;
	bool ok;                 /* parsed */
	struct wp_variants v;
};

static const struct wp_vprop *find_prop(const struct wp_vlabel *l, const char *ns,
					const char *feature)
{
	for (size_t i = 0; i < l->n_props; i++)
		if (!strcmp(l->props[i].ns, ns) && !strcmp(l->props[i].feature, feature))
			return &l->props[i];
	return NULL;
}

static bool has_value(const struct wp_vprop *p, const char *v)
{
	for (size_t i = 0; i < p->n_values; i++)
		if (!strcmp(p->values[i], v))
			return true;
	return false;
}

static void values_text(const struct wp_vprop *p, struct wp_buf *out)
{
	for (size_t i = 0; i < p->n_values; i++)
		wp_buf_printf(out, "%s%s", i ? ", " : "", p->values[i]);
}

/* The first way the wheel's properties (w) differ from the index's (x), as one phrase into out;
 * false when they are the same sets. */
static bool props_differ(const struct wp_vlabel *w, const struct wp_vlabel *x, struct wp_buf *out)
{
	for (size_t i = 0; i < w->n_props; i++) {
		const struct wp_vprop *p = &w->props[i], *q = find_prop(x, p->ns, p->feature);
		if (!q) {
			wp_buf_printf(out, "the wheel has %s :: %s :: ", p->ns, p->feature);
			values_text(p, out);
			wp_buf_addstr(out, ", which the variants.json does not give this label");
			return true;
		}
		bool same = p->n_values == q->n_values;
		for (size_t k = 0; same && k < p->n_values; k++)
			same = has_value(q, p->values[k]);
		if (!same) {
			wp_buf_printf(out, "%s :: %s is ", p->ns, p->feature);
			values_text(p, out);
			wp_buf_addstr(out, " in the wheel and ");
			values_text(q, out);
			wp_buf_addstr(out, " in the variants.json");
			return true;
		}
	}
	for (size_t i = 0; i < x->n_props; i++) {
		const struct wp_vprop *q = &x->props[i];
		if (!find_prop(w, q->ns, q->feature)) {
			wp_buf_printf(out, "the variants.json gives it %s :: %s :: ", q->ns,
				      q->feature);
			values_text(q, out);
			wp_buf_addstr(out, ", which the wheel does not have");
			return true;
		}
	}
	return false;
}

/* PEP 825: the namespace lists are the same, or the longer starts with the shorter. */
static bool ns_consistent(const struct wp_variants *a, const struct wp_variants *b)
{
	size_t n = a->n_namespaces < b->n_namespaces ? a->n_namespaces : b->n_namespaces;
	for (size_t i = 0; i < n; i++)
		if (strcmp(a->namespaces[i], b->namespaces[i]))
			return false;
	return true;
}

/* One variant wheel: its own variant.json, and its label in vj (NULL when its release has none). */
static void check_wheel(struct vo_ctx *c, const char *path, const char *label,
			const struct vjson *vj)
{
	struct wp_buf b = WP_BUF_INIT_MAX(WP_VARIANTS_MAX_BYTES), labels = WP_BUF_INIT;
	struct wp_variants own;
	struct wp_err e = WP_ERR_INIT;
	bool found, parsed = false;
	char why[512];
	if (wp_wheel_variant_json(path, &b, &found, why, sizeof(why)) < 0) {
		wp_vo_problem_add(c, true, path, "%s", why);
		goto out;
	}
	if (!found) {
		wp_vo_problem_add(c, true, path,
				  "is a variant wheel (label '%s') without a *.dist-info/variant.json; PEP 825 "
				  "requires one",
				  label);
		goto out;
	}
	/* fatal: the wheel is not the build its name says (or says nothing of which it is) */
	int one = wp_variant_json_labels(wp_buf_cstr(&b), b.len, &labels);
	char *want = wp_xasprintf("'%s'", label);
	bool same = one == 1 && !strcmp(labels.data, want);
	free(want);
	if (one < 0) {
		wp_vo_problem_add(c, true, path,
				  "its variant.json is not a JSON object with a \"variants\" object");
		goto out;
	}
	if (!same) {
		wp_vo_problem_add(c, true, path,
				  "its variant.json names %s, but its file name's label is '%s' (PEP 825: "
				  "exactly that one label)",
				  labels.len ? labels.data : "no label", label);
		goto out;
	}
	const struct wp_vlabel *x = vj && vj->ok ? wp_variants_find(&vj->v, label) : NULL;
	if (vj && vj->ok && !x) {
		wp_vo_problem_add(c, true, path,
				  "its label '%s' is not in %s beside it: no installer can choose this wheel",
				  label, vj->name);
		goto out;
	}
	/* a note when the index's file is sound: installers with an index decide by it */
	if (wp_variants_parse("variant.json", wp_buf_cstr(&b), b.len, &own, &e) < 0) {
		wp_vo_problem_add(c, !vj || !vj->ok, path,
				  "label '%s': its variant.json is not valid PEP 825 metadata: %s%s",
				  label, e.msg,
				  vj && vj->ok ?
					  " (installers decide by the variants.json, which is)" :
					  "");
		goto out;
	}
	parsed = true;
	if (!x)
		goto out;
	struct wp_buf d = WP_BUF_INIT;
	if (props_differ(&own.labels[0], x, &d))
		wp_vo_problem_add(c, false, path,
				  "label '%s' differs from %s: %s (installers decide by the variants.json)",
				  label, vj->name, d.data);
	wp_buf_free(&d);
	if (!ns_consistent(&own, &vj->v))
		wp_vo_problem_add(c, false, path,
				  "label '%s': its default-priorities.namespace and that of %s are not one "
				  "the start of the other (PEP 825)",
				  label, vj->name);
out:
	if (parsed)
		wp_variants_release(&own);
	wp_buf_free(&b);
	wp_buf_free(&labels);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void wp_vo_check_variants(struct vo_ctx *c, const char *dir, char *const *linked, size_t n_linked)
{
	size_t n;
	char **names = wp_vo_list_dir(dir, &n);
	struct vjson *vs = wp_xcalloc(n ? n : 1, sizeof(*vs));
	size_t nv = 0;
	struct wp_buf norm = WP_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (wp_index_file_kind(names[i]) != WP_KIND_VARIANTS)
			continue;
		char *path = wp_xasprintf("%s/%s", dir, names[i]);
		struct vjson *v = &vs[nv++];
		const char *dash = strchr(names[i], '-'); /* the name has one
							     (wp_variants_json_name) */
		wp_project_name_normalize(names[i], (size_t)(dash - names[i]), &norm);
		v->name = names[i];
		v->project = wp_xstrdup(norm.data);
		v->release = wp_xstrndup(dash + 1, strlen(dash + 1) - strlen("-variants.json"));
		struct wp_buf b;
		struct wp_err e = WP_ERR_INIT;
		if (!wp_vo_is_file(path))
			wp_vo_problem_add(c, true, path, "is not a plain file");
		else if (wp_file_read_capped(path, WP_VARIANTS_MAX_BYTES, &b, &e) < 0)
			wp_vo_problem_add(c, true, path, "%s", e.msg);
		else if (wp_variants_parse(path, wp_buf_cstr(&b), b.len, &v->v, &e) < 0)
			wp_vo_problem_add(c, true, path, "%s", e.msg), wp_buf_free(&b);
		else
			v->ok = true, wp_buf_free(&b);
		free(path);
	}
	for (size_t i = 0; i < n; i++) {
		struct wp_wheelname w;
		if (!wp_cstr_endswith(names[i], ".whl") ||
		    wp_wheelname_parse(names[i], &w, NULL) < 0)
			continue;
		if (w.variant_label) {
			const struct vjson *vj = NULL;
			for (size_t k = 0; k < nv && !vj; k++)
				if (!strcmp(vs[k].project, w.project) &&
				    wp_version_same(vs[k].release, w.version))
					vj = &vs[k];
			char *path = wp_xasprintf("%s/%s", dir, names[i]);
			/* an index must host it where its pages list the wheel */
			bool listed = linked && n_linked &&
				      bsearch(&path, linked, n_linked, sizeof(*linked), cmp_path);
			if (!vj && listed)
				wp_vo_problem_add(c, true, path,
						  "is a variant wheel, but no %s-%s-variants.json is beside it: PEP 825 "
						  "installers cannot choose among its release's variants (mirror again)",
						  w.name, w.version);
			check_wheel(c, path, w.variant_label, vj);
			free(path);
		}
		wp_wheelname_release(&w);
	}
	for (size_t k = 0; k < nv; k++) {
		free(vs[k].project);
		free(vs[k].release);
		if (vs[k].ok)
			wp_variants_release(&vs[k].v);
	}
	free(vs);
	wp_buf_free(&norm);
	wp_vo_free_list(names, n);
}
