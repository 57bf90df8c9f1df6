/* index/variants.c: PEP 825 variant metadata (variants.json, variant.json) into a struct
 * wp_variants, and back out as pylock.toml's [packages.variants-json] table. */
#include "index/variants.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/vec.h"
#include "resolver/wheelname.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool wp_variants_json_name(const char *filename)
{
	static const char end[] = "-variants.json";
	size_t n = filename ? strlen(filename) : 0, e = sizeof(end) - 1;
	if (n <= e || strcmp(filename + n - e, end) != 0)
		return false;
	/* exactly {name}-{version}: one dash before the suffix, with text on both sides */
	const char *dash = memchr(filename, '-', n - e);
	return dash && dash != filename && dash + 1 < filename + n - e &&
	       !memchr(dash + 1, '-', (size_t)(filename + n - e - dash - 1));
}

/* PEP 825: namespaces and features are [a-z0-9_]+, values [a-z0-9_.]+ */
static bool name_ok(const char *s, bool dots)
{
	if (!s || !*s || strlen(s) > 128)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      (dots && *s == '.')))
			return false;
	return true;
}

struct ctx {
	const char *what;
	struct wp_err *err;
	size_t values; /* counted against WP_VARIANTS_MAX_VALUES */
};

static int bad(struct ctx *c, const char *fmt, const char *a, const char *b)
{
	char msg[512];
	snprintf(msg, sizeof(msg), fmt, a ? a : "", b ? b : "");
	return wp_fail(c->err, -WPE_SOURCE, "variant metadata '%s': %s", c->what, msg);
}

/* An array of strings matching the value (dots) or name grammar into *out. */
static int str_list(struct ctx *c, const struct wp_json_val *arr, bool dots, const char *where,
		    char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (wp_json_type(arr) != WP_JSON_ARRAY)
		return bad(c, "%s is not a list", where, NULL);
	size_t len = wp_json_len(arr);
	if ((c->values += len) > WP_VARIANTS_MAX_VALUES)
		return wp_fail(c->err, -WPE_TOO_BIG,
			       "variant metadata '%s' lists more than %d values", c->what,
			       WP_VARIANTS_MAX_VALUES);
	*out = wp_xcalloc(len ? len : 1, sizeof(**out));
	for (size_t i = 0; i < len; i++) {
		const char *s = wp_json_as_str(wp_json_at(arr, i));
		if (!name_ok(s, dots))
			return bad(c, "%s holds '%s', which PEP 825 does not allow there", where,
				   s ? s : "(not a string)");
		for (size_t k = 0; k < *n; k++)
			if (!strcmp((*out)[k], s))
				return bad(c, "%s lists '%s' twice", where, s);
		(*out)[(*n)++] = wp_xstrdup(s);
	}
	return 0;
}

/* {namespace: {feature: [values]}} into props (appended). */
static int prop_table(struct ctx *c, const struct wp_json_val *obj, const char *where,
		      struct wp_vprop **props, size_t *n)
{
	char w[256];
	size_t cap = *n; /* what *props holds at least; it grows by doubling */
	if (wp_json_type(obj) != WP_JSON_OBJECT)
		return bad(c, "%s is not an object", where, NULL);
	for (size_t i = 0; i < wp_json_len(obj); i++) {
		const char *ns = wp_json_key_at(obj, i);
		const struct wp_json_val *feats = wp_json_at(obj, i);
		if (!name_ok(ns, false))
			return bad(c, "%s has a namespace '%s' that PEP 825 does not allow", where,
				   ns);
		if (wp_json_type(feats) != WP_JSON_OBJECT)
			return bad(c, "%s.%s is not an object", where, ns);
		for (size_t j = 0; j < wp_json_len(feats); j++) {
			const char *f = wp_json_key_at(feats, j);
			if (!name_ok(f, false))
				return bad(c, "%s has a feature '%s' that PEP 825 does not allow",
					   where, f);
			snprintf(w, sizeof(w), "%s.%s.%s", where, ns, f);
			size_t k = wp_vec_push_fields(*props, *n, cap, (struct wp_vprop){ 0 });
			struct wp_vprop *p = &(*props)[k];
			p->ns = wp_xstrdup(ns);
			p->feature = wp_xstrdup(f);
			int rc = str_list(c, wp_json_at(feats, j), true, w, &p->values,
					  &p->n_values);
			if (rc)
				return rc;
			if (!p->n_values)
				return bad(c, "%s is empty", w, NULL);
		}
	}
	return 0;
}

/* "https://variants-schema.wheelnext.dev/v0.0.3.json", ".../peps/825/v0.1.1.json": the version
 * after the last "/v". wheelnext's first files name no version: 0.0.0. */
static int schema_version(struct ctx *c, struct wp_variants *v)
{
	const char *s = v->schema, *p = NULL;
	for (const char *q = s; (q = strstr(q, "/v")); q += 2)
		p = q + 2;
	int a, b, d, used = 0;
	if (p && sscanf(p, "%d.%d.%d%n", &a, &b, &d, &used) == 3 && used > 0 &&
	    (!strcmp(p + used, ".json") || !p[used])) {
		v->schema_major = a;
		v->schema_minor = b;
		v->schema_patch = d;
	} else if (strstr(s, "variants-schema.wheelnext.dev")) {
		v->schema_major = v->schema_minor = v->schema_patch = 0;
	} else {
		return bad(c, "$schema '%s' names no schema version", s, NULL);
	}
	if (v->schema_major != 0)
		return bad(c,
			   "$schema '%s' is a major version this wheelpick does not know (it reads 0.x); upgrade wheelpick",
			   s, NULL);
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key twice in one object is refused: Python's json and uv keep the last, a first-wins reader
 * the first, so two tools would read two different files. */
static int no_dup_keys(struct ctx *c, const struct wp_json_val *val)
{
	enum wp_json_type t = wp_json_type(val);
	if (t != WP_JSON_OBJECT && t != WP_JSON_ARRAY)
		return 0;
	size_t n = wp_json_len(val);
	int rc = 0;
	if (t == WP_JSON_OBJECT && n > 1) {
		const char **keys = wp_xcalloc(n, sizeof(*keys));
		for (size_t i = 0; i < n; i++)
			keys[i] = wp_json_key_at(val, i) ? wp_json_key_at(val, i) : "";
		qsort(keys, n, sizeof(*keys), cmp_key);
		for (size_t i = 1; i < n && !rc; i++)
			if (!strcmp(keys[i - 1], keys[i]))
				rc = bad(c,
					 "the key '%s' appears twice in one object (JSON readers disagree on which "
					 "one counts)",
					 keys[i], NULL);
		free(keys);
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = no_dup_keys(c, wp_json_at(val, i));
	return rc;
}

static int parse_tree(struct ctx *c, const struct wp_json_val *root, struct wp_variants *v)
{
	int rc;
	if (wp_json_type(root) != WP_JSON_OBJECT)
		return bad(c, "not a JSON object", NULL, NULL);
	if ((rc = no_dup_keys(c, root)))
		return rc;
	const char *schema = wp_json_get_str(root, "$schema");
	if (!schema)
		return bad(c, "no $schema", NULL, NULL);
	v->schema = wp_xstrdup(schema);
	if ((rc = schema_version(c, v)))
		return rc;

	const struct wp_json_val *dp = wp_json_get_obj(root, "default-priorities");
	if (!dp)
		return bad(c, "no default-priorities object", NULL, NULL);
	if ((rc = str_list(c, wp_json_get(dp, "namespace"), false, "default-priorities.namespace",
			   &v->namespaces, &v->n_namespaces)))
		return rc;
	if (!v->n_namespaces)
		return bad(c, "default-priorities.namespace is empty", NULL, NULL);
	const struct wp_json_val *fp = wp_json_get(dp, "feature");
	if (fp) {
		if (wp_json_type(fp) != WP_JSON_OBJECT)
			return bad(c, "default-priorities.feature is not an object", NULL, NULL);
		v->feature_prio = wp_xcalloc(wp_json_len(fp) + 1, sizeof(*v->feature_prio));
		for (size_t i = 0; i < wp_json_len(fp); i++) {
			const char *ns = wp_json_key_at(fp, i);
			if (!name_ok(ns, false))
				return bad(c,
					   "default-priorities.feature has a namespace '%s' that PEP 825 does not allow",
					   ns, NULL);
			struct wp_vfeatures *f = &v->feature_prio[v->n_feature_prio++];
			f->ns = wp_xstrdup(ns);
			if ((rc = str_list(c, wp_json_at(fp, i), false,
					   "default-priorities.feature", &f->features, &f->n)))
				return rc;
		}
	}
	const struct wp_json_val *pp = wp_json_get(dp, "property");
	if (pp && (rc = prop_table(c, pp, "default-priorities.property", &v->value_prio,
				   &v->n_value_prio)))
		return rc;
	const struct wp_json_val *sp = wp_json_get(root, "static-properties");
	if (sp &&
	    (rc = prop_table(c, sp, "static-properties", &v->static_props, &v->n_static_props)))
		return rc;
	const struct wp_json_val *prov = wp_json_get(root, "providers");
	if (prov) {
		if (wp_json_type(prov) != WP_JSON_OBJECT)
			return bad(c, "providers is not an object", NULL, NULL);
		v->static_ns = wp_xcalloc(wp_json_len(prov) + 1, sizeof(*v->static_ns));
		for (size_t i = 0; i < wp_json_len(prov); i++) {
			const struct wp_json_val *p = wp_json_at(prov, i);
			if (!name_ok(wp_json_key_at(prov, i), false))
				return bad(c,
					   "providers has a namespace '%s' that PEP 825 does not allow",
					   wp_json_key_at(prov, i), NULL);
			bool install_time = true;
			const char *use = wp_json_get_str(p, "plugin-use");
			if (wp_json_as_bool(wp_json_get(p, "install-time"), &install_time) &&
			    !install_time)
				v->static_ns[v->n_static_ns++] = wp_xstrdup(
					wp_json_key_at(prov, i));
			else if (use && !strcmp(use, "none"))
				v->static_ns[v->n_static_ns++] = wp_xstrdup(
					wp_json_key_at(prov, i));
		}
	}

	const struct wp_json_val *vars = wp_json_get(root, "variants");
	if (wp_json_type(vars) != WP_JSON_OBJECT)
		return bad(c, "no variants object", NULL, NULL);
	if (wp_json_len(vars) > WP_VARIANTS_MAX_LABELS)
		return wp_fail(c->err, -WPE_TOO_BIG,
			       "variant metadata '%s' lists more than %d labels", c->what,
			       WP_VARIANTS_MAX_LABELS);
	v->labels = wp_xcalloc(wp_json_len(vars) + 1, sizeof(*v->labels));
	for (size_t i = 0; i < wp_json_len(vars); i++) {
		const char *label = wp_json_key_at(vars, i);
		if (!label || !wp_variant_label_valid(label, strlen(label)))
			return bad(c, "variants has a label '%s' that PEP 825 does not allow",
				   label, NULL);
		struct wp_vlabel *l = &v->labels[v->n_labels++];
		l->label = wp_xstrdup(label);
		char where[96];
		snprintf(where, sizeof(where), "variants.%s", label);
		if ((rc = prop_table(c, wp_json_at(vars, i), where, &l->props, &l->n_props)))
			return rc;
		if (!strcmp(label, "null") && l->n_props)
			return bad(c,
				   "the label 'null' is reserved for no properties, but has some",
				   NULL, NULL);
		for (size_t k = 0; k < l->n_props; k++)
			if (wp_variants_ns_rank(v, l->props[k].ns) < 0)
				return bad(c,
					   "'%s' uses namespace '%s', which default-priorities.namespace does not list",
					   label, l->props[k].ns);
	}
	return 0;
}

int wp_variants_parse(const char *what, const char *text, size_t len, struct wp_variants *v,
		      struct wp_err *err)
{
	struct ctx c = { .what = what ? what : "variants.json", .err = err };
	struct wp_json_val *root = NULL;
	const struct wp_json_opts o = { .what = c.what,
					.kind = "variant metadata (PEP 825)",
					.code = -WPE_SOURCE,
					.max_bytes = WP_VARIANTS_MAX_BYTES,
					.max_token = 4096 };
	memset(v, 0, sizeof(*v));
	int rc = wp_json_load(text, len, &o, &root, err);
	if (!rc)
		rc = parse_tree(&c, root, v);
	wp_json_tree_free(root);
	if (rc)
		wp_variants_release(v);
	return rc;
}

