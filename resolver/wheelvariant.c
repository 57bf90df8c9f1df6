/* resolver/wheelvariant.c: PEP 825 variants for a described target: what each provider namespace
 * supports there (as nvidia-, amd- and intel-variant-provider compute it on the machine itself),
 * which labels fit, their order, and the variant markers' sets. Pure; no I/O. */
#include "resolver/wheelvariant.h"
#include "base/mem.h"
#include "base/vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_strs(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

static void free_props(struct wp_vprop *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].ns);
		free(p[i].feature);
		free_strs(p[i].values, p[i].n_values);
	}
	free(p);
}

void wp_variants_release(struct wp_variants *v)
{
	if (!v)
		return;
	free(v->schema);
	free_strs(v->namespaces, v->n_namespaces);
	for (size_t i = 0; i < v->n_feature_prio; i++) {
		free(v->feature_prio[i].ns);
		free_strs(v->feature_prio[i].features, v->feature_prio[i].n);
	}
	free(v->feature_prio);
	free_props(v->value_prio, v->n_value_prio);
	free_props(v->static_props, v->n_static_props);
	free_strs(v->static_ns, v->n_static_ns);
	for (size_t i = 0; i < v->n_labels; i++) {
		free(v->labels[i].label);
		free_props(v->labels[i].props, v->labels[i].n_props);
	}
	free(v->labels);
	memset(v, 0, sizeof(*v));
}

static char **copy_strs(char *const *s, size_t n)
{
	char **d = wp_xcalloc(n ? n : 1, sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = wp_xstrdup(s[i]);
	return d;
}

static struct wp_vprop *copy_props(const struct wp_vprop *p, size_t n)
{
	struct wp_vprop *d = wp_xcalloc(n ? n : 1, sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		d[i].ns = wp_xstrdup(p[i].ns);
		d[i].feature = wp_xstrdup(p[i].feature);
		d[i].values = copy_strs(p[i].values, p[i].n_values);
		d[i].n_values = p[i].n_values;
	}
	return d;
}

struct wp_variants *wp_variants_copy(const struct wp_variants *v)
{
	struct wp_variants *d = wp_xcalloc(1, sizeof(*d));
	*d = *v; /* the numbers; every pointer is replaced below */
	d->schema = v->schema ? wp_xstrdup(v->schema) : NULL;
	d->namespaces = copy_strs(v->namespaces, v->n_namespaces);
	d->feature_prio = wp_xcalloc(v->n_feature_prio ? v->n_feature_prio : 1,
				     sizeof(*d->feature_prio));
	for (size_t i = 0; i < v->n_feature_prio; i++) {
		d->feature_prio[i].ns = wp_xstrdup(v->feature_prio[i].ns);
		d->feature_prio[i].features = copy_strs(v->feature_prio[i].features,
							v->feature_prio[i].n);
		d->feature_prio[i].n = v->feature_prio[i].n;
	}
	d->value_prio = copy_props(v->value_prio, v->n_value_prio);
	d->static_props = copy_props(v->static_props, v->n_static_props);
	d->static_ns = copy_strs(v->static_ns, v->n_static_ns);
	d->labels = wp_xcalloc(v->n_labels ? v->n_labels : 1, sizeof(*d->labels));
	for (size_t i = 0; i < v->n_labels; i++) {
		d->labels[i].label = wp_xstrdup(v->labels[i].label);
		d->labels[i].props = copy_props(v->labels[i].props, v->labels[i].n_props);
		d->labels[i].n_props = v->labels[i].n_props;
	}
	return d;
}

const struct wp_vlabel *wp_variants_find(const struct wp_variants *v, const char *label)
{
	for (size_t i = 0; v && label && i < v->n_labels; i++)
		if (!strcmp(v->labels[i].label, label))
			return &v->labels[i];
	return NULL;
}

int wp_variants_ns_rank(const struct wp_variants *v, const char *ns)
{
	for (size_t i = 0; v && i < v->n_namespaces; i++)
		if (!strcmp(v->namespaces[i], ns))
			return (int)i;
	return -1;
}

static const struct wp_vprop *find_prop(const struct wp_vprop *p, size_t n, const char *ns,
					const char *feature)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].ns, ns) && !strcmp(p[i].feature, feature))
			return &p[i];
	return NULL;
}

bool wp_variants_is_static_ns(const struct wp_variants *v, const char *ns)
{
	for (size_t i = 0; v && i < v->n_static_ns; i++)
		if (!strcmp(v->static_ns[i], ns))
			return true;
	for (size_t i = 0; v && i < v->n_static_props; i++)
		if (!strcmp(v->static_props[i].ns, ns))
			return true;
	return false;
}

const struct wp_vprop *wp_variants_static_values(const struct wp_variants *v, const char *ns,
						 const char *feature)
{
	const struct wp_vprop *p = v ? find_prop(v->static_props, v->n_static_props, ns, feature) :
				       NULL;
	return p ? p : wp_variants_value_prio(v, ns, feature);
}

const struct wp_vprop *wp_variants_value_prio(const struct wp_variants *v, const char *ns,
					      const char *feature)
{
	return v ? find_prop(v->value_prio, v->n_value_prio, ns, feature) : NULL;
}

const struct wp_vfeatures *wp_variants_feature_prio(const struct wp_variants *v, const char *ns)
{
	for (size_t i = 0; v && i < v->n_feature_prio; i++)
		if (!strcmp(v->feature_prio[i].ns, ns))
			return &v->feature_prio[i];
	return NULL;
}

/* ---- what a target supports, namespace by namespace ---- */

struct strs {
	char **v;
	size_t n, cap;
};

static void push(struct strs *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void push(struct strs *s, const char *fmt, ...)
{
	char buf[160]; /* a value is at most 128 bytes (index/variants.c) */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], buf))
			return;
	wp_vec_push(s, wp_xstrdup(buf));
}

/* nvidia-variant-provider's version catalogue runs from 15.20 down to 11 ("11.0" then "11"). */
#define NV_TOP_MAJOR 15
#define NV_TOP_MINOR 20
#define NV_BOTTOM_MAJOR 11

/* cuda_version_lower_bound: every version not above the driver's (a build needing CUDA >= X runs
 * when X <= the driver's CUDA), newest first, each major closed by its major-only spelling. */
static void nv_lower(const struct wp_target *t, struct strs *out)
{
	for (int M = t->cuda_major; M >= NV_BOTTOM_MAJOR; M--) {
		for (int m = M == t->cuda_major ? t->cuda_minor : NV_TOP_MINOR; m >= 0; m--)
			push(out, "%d.%d", M, m);
		push(out, "%d", M);
	}
}

/* cuda_version_upper_bound: every version above the driver's (a build needing CUDA < X), from the
 * top of the catalogue down, the driver's own major-only entry excluded (CUDA < 12 is false
 * for 12.x). */
static void nv_upper(const struct wp_target *t, struct strs *out)
{
	for (int M = NV_TOP_MAJOR; M >= t->cuda_major && M >= NV_BOTTOM_MAJOR; M--) {
		for (int m = NV_TOP_MINOR; m >= 0; m--)
			if (M > t->cuda_major || m > t->cuda_minor)
				push(out, "%d.%d", M, m);
		if (M > t->cuda_major)
			push(out, "%d", M);
	}
}

/* sm_arch for one GPU (compute capability x10): its major's real code at or below its minor, newest
 * first, then the major's base PTX (the provider's "descending real minors, then major-zero
 * virtual"). */
static void nv_sm(int sm, struct strs *out)
{
	int major = sm / 10, minor = sm % 10;
	for (int m = minor; m >= 0; m--)
		push(out, "%d_real", major * 10 + m);
	push(out, "%d_virtual", major * 10);
}

/* The provider reads only the newest GPU; wheelpick keeps its rule that every GPU is served, which
 * wp_vorder_supported checks apart. */
static int top_gpu(const struct wp_target *t)
{
	int hi = -1;
	for (int g = 0; g < t->n_gpus; g++)
		if (t->gpu_sm[g] > hi)
			hi = t->gpu_sm[g];
	return hi;
}

/* The label values of ns :: feature across the metadata, in file order (a static namespace that
 * lists no order of its own supports what its labels use). */
static void file_values(const struct wp_variants *v, const char *ns, const char *feature,
			struct strs *out)
{
	for (size_t l = 0; l < v->n_labels; l++)
		for (size_t p = 0; p < v->labels[l].n_props; p++) {
			const struct wp_vprop *pr = &v->labels[l].props[p];
			if (!strcmp(pr->ns, ns) && !strcmp(pr->feature, feature))
				for (size_t k = 0; k < pr->n_values; k++)
					push(out, "%s", pr->values[k]);
		}
}

static int num_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	double dx = strtod(x, NULL), dy = strtod(y, NULL);
	return dx < dy ? -1 : dx > dy ? 1 : strcmp(x, y);
}

/* The provider features in their priority order; NULL for a namespace wheelpick has no provider
 * for. */
static const char *const *provider_features(const char *ns)
{
	static const char *const nvidia[] = { "cuda_version_lower_bound",
					      "cuda_version_upper_bound", "sm_arch", NULL };
	static const char *const amd[] = { "gfx_arch", "rocm_version", NULL };
	static const char *const intel[] = { "device_ip", NULL };
	static const char *const x86[] = { "level", NULL };
	if (!strcmp(ns, "nvidia"))
		return nvidia;
	if (!strcmp(ns, "amd"))
		return amd;
	if (!strcmp(ns, "intel"))
		return intel;
	if (!strcmp(ns, "x86_64"))
		return x86;
	return NULL;
}

static bool is_x86_64(const struct wp_target *t)
{
	size_t n = strlen(t->platform);
	return (n >= 6 && !strcmp(t->platform + n - 6, "x86_64")) ||
	       !strcmp(t->platform, "win_amd64") ||
	       (n >= 5 && !strcmp(t->platform + n - 5, "amd64"));
}

/* Fills f->values (or f->why) for one (namespace, feature) on the target. */
static void supported_values(const struct wp_variants *v, const struct wp_target *t,
			     struct wp_vfeature_order *f)
{
	struct strs s = { 0 };
	const char *ns = f->ns, *feat = f->feature;
	const char *const *pf = provider_features(ns);
	f->known = true;
	f->ask = -1;
	if (t->variant_given && !wp_variants_is_static_ns(v, ns) &&
	    !(!pf && !strcmp(ns, "priority"))) {
		/* the user's list of compatible features, and only it (the providers draft) */
		size_t nl = strlen(ns), fl = strlen(feat);
		for (const char *p = t->variant_props; *p;) {
			size_t n = strcspn(p, "\n");
			if (n > nl + fl + 8 && !strncmp(p, ns, nl) && !strncmp(p + nl, " :: ", 4) &&
			    !strncmp(p + nl + 4, feat, fl) && !strncmp(p + nl + 4 + fl, " :: ", 4))
				push(&s, "%.*s", (int)(n - nl - fl - 8), p + nl + fl + 8);
			p += n + (p[n] == '\n');
		}
		if (!s.n)
			snprintf(f->why, sizeof(f->why),
				 "the target's list of compatible features names no value of "
				 "%s :: %s",
				 ns, feat);
		goto out;
	}
	if (wp_variants_is_static_ns(v, ns) || (!pf && !strcmp(ns, "priority"))) {
		/* a static namespace runs no code at install time: it supports what the file
		 * declares, in the file's order; an undeclared "priority" (PEP 825 0.1.x files) by
		 * number */
		const struct wp_vprop *sv = wp_variants_static_values(v, ns, feat);
		if (sv) {
			for (size_t i = 0; i < sv->n_values; i++)
				push(&s, "%s", sv->values[i]);
		} else if (wp_variants_is_static_ns(v, ns)) {
			/* a static provider supports exactly what it lists (variantlib filters such
			 * labels; the draft says so): a feature its static-properties leave out is
			 * not supported */
			snprintf(f->why, sizeof(f->why),
				 "static namespace '%s' does not list feature '%s' in its "
				 "static-properties, so nothing of it is supported",
				 ns, feat);
		} else {
			file_values(v, ns, feat, &s);
			if (!wp_variants_is_static_ns(v, ns))
				qsort(s.v, s.n, sizeof(*s.v), num_cmp);
		}
		goto out;
	}
	bool feat_known = false;
	for (size_t i = 0; pf && pf[i]; i++)
		feat_known |= !strcmp(pf[i], feat);
	if (!pf || !feat_known) {
		f->known = false;
		if (!pf)
			snprintf(f->why, sizeof(f->why),
				 "namespace '%s' has no provider wheelpick knows (it knows nvidia, amd, "
				 "intel, x86_64 and static ones); its wheels are not picked",
				 ns);
		else
			snprintf(f->why, sizeof(f->why),
				 "feature '%s :: %s' is not one the %s provider has; its wheels are "
				 "not picked",
				 ns, feat, ns);
		goto out;
	}
	if (!strcmp(ns, "nvidia")) {
		if (t->accel != WP_ACCEL_CUDA) {
			snprintf(f->why, sizeof(f->why),
				 "an NVIDIA build; the target has no NVIDIA driver (%s)",
				 t->accel == WP_ACCEL_ROCM ? "ROCm" :
				 t->accel == WP_ACCEL_XPU  ? "an Intel GPU" :
							     "CPU");
		} else if (!strcmp(feat, "cuda_version_lower_bound")) {
			nv_lower(t, &s);
		} else if (!strcmp(feat, "cuda_version_upper_bound")) {
			nv_upper(t, &s);
		} else if (top_gpu(t) >= 0) {
			nv_sm(top_gpu(t), &s);
		} else {
			/* no GPU named: every architecture counts (wheelpick's rule for a driver
			 * alone), in the provider's catalogue order, real before virtual */
			for (int sm = 129; sm >= 50; sm--)
				push(&s, "%d_real", sm);
			for (int sm = 129; sm >= 50; sm--)
				push(&s, "%d_virtual", sm);
		}
	} else if (!strcmp(ns, "amd")) {
		if (t->accel != WP_ACCEL_ROCM) {
			snprintf(f->why, sizeof(f->why), "an AMD ROCm build");
			f->ask = WP_ASK_ROCM;
		} else if (!strcmp(feat, "rocm_version")) {
			push(&s, "%d.%d", t->rocm_major, t->rocm_minor);
		} else if (t->n_gfx) {
			for (int g = 0; g < t->n_gfx; g++)
				push(&s, "%s", t->gfx[g]);
		} else {
			file_values(v, ns, feat, &s); /* no architecture named: each counts */
		}
	} else if (!strcmp(ns, "intel")) {
		if (t->accel != WP_ACCEL_XPU) {
			snprintf(f->why, sizeof(f->why), "an Intel GPU build");
			f->ask = WP_ASK_XPU;
		} else if (t->n_intel_ips) {
			for (int i = 0; i < t->n_intel_ips; i++) {
				char ip[16], compat[16];
				if (wp_intel_device_ip(t->intel_ip[i], ip, compat)) {
					push(&s, "%s", ip);
					if (compat[0])
						push(&s, "%s", compat);
				}
			}
		} else {
			file_values(v, ns, feat, &s); /* no device named: each counts */
		}
	} else if (!strcmp(ns, "x86_64")) {
		if (!is_x86_64(t)) {
			snprintf(f->why, sizeof(f->why), "an x86-64 build; the target is %s",
				 t->platform);
		} else {
			/* the machine's level and every one below it; an unnamed level is the
			 * baseline, v1, which every x86-64 machine runs */
			for (int l = t->x86_64_level > 0 ? t->x86_64_level : 1; l >= 1; l--)
				push(&s, "v%d", l);
		}
	}
out:
	f->values = s.v;
	f->n_values = s.n;
	/* PEP 825 0.0.x default-priorities.property puts its values first, among the supported
	 * ones, a static namespace's too: where it and static-properties both order a feature's
	 * values, the priority wins (variantlib's order) */
	const struct wp_vprop *vp = wp_variants_value_prio(v, ns, feat);
	if (vp && f->n_values) {
		size_t at = 0;
		for (size_t k = 0; k < vp->n_values; k++)
			for (size_t i = at; i < f->n_values; i++)
				if (!strcmp(f->values[i], vp->values[k])) {
					char *x = f->values[i];
					memmove(&f->values[at + 1], &f->values[at],
						(i - at) * sizeof(*f->values));
					f->values[at++] = x;
					break;
				}
	}
}

static int feature_rank(const struct wp_variants *v, const char *ns, const char *feature)
{
	const struct wp_vfeatures *fp = wp_variants_feature_prio(v, ns);
	int r = 0;
	for (size_t i = 0; fp && i < fp->n; i++, r++)
		if (!strcmp(fp->features[i], feature))
			return r;
	const char *const *pf = provider_features(ns);
	for (size_t i = 0; pf && pf[i]; i++) {
		bool listed = false;
		for (size_t k = 0; fp && k < fp->n && !listed; k++)
			listed = !strcmp(fp->features[k], pf[i]);
		if (listed)
			continue;
		if (!strcmp(pf[i], feature))
			return r;
		r++;
	}
	/* a static namespace's features: as its static list gives them, else the first label's
	 * order */
	for (size_t i = 0; i < v->n_static_props; i++)
		if (!strcmp(v->static_props[i].ns, ns) &&
		    !strcmp(v->static_props[i].feature, feature))
			return r + (int)i;
	return r + (int)v->n_static_props;
}

void wp_vorder_init(struct wp_vorder *o, const struct wp_variants *v, const struct wp_target *t)
{
	size_t cap = 0; /* o->f's room */
	memset(o, 0, sizeof(*o));
	o->v = v;
	o->t = t;
	for (size_t l = 0; v && l < v->n_labels; l++)
		for (size_t p = 0; p < v->labels[l].n_props; p++) {
			const struct wp_vprop *pr = &v->labels[l].props[p];
			bool have = false;
			for (size_t i = 0; i < o->n && !have; i++)
				have = !strcmp(o->f[i].ns, pr->ns) &&
				       !strcmp(o->f[i].feature, pr->feature);
			if (have)
				continue;
			size_t k = wp_vec_push_fields(o->f, o->n, cap,
						      (struct wp_vfeature_order){ 0 });
			struct wp_vfeature_order *f = &o->f[k];
			f->ns = pr->ns;
			f->feature = pr->feature;
			f->ns_rank = wp_variants_ns_rank(v, pr->ns);
			f->feature_rank = feature_rank(v, pr->ns, pr->feature);
			supported_values(v, t, f);
		}
}

void wp_vorder_release(struct wp_vorder *o)
{
	for (size_t i = 0; i < o->n; i++)
		free_strs(o->f[i].values, o->f[i].n_values);
	free(o->f);
	memset(o, 0, sizeof(*o));
}

static const struct wp_vfeature_order *order_of(const struct wp_vorder *o, const struct wp_vprop *p)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->f[i].ns, p->ns) && !strcmp(o->f[i].feature, p->feature))
			return &o->f[i];
	return NULL;
}

/* Index of the label's best supported value for p in the feature's order, or -1. */
static int best_value(const struct wp_vfeature_order *f, const struct wp_vprop *p)
{
	for (size_t i = 0; f && i < f->n_values; i++)
		for (size_t k = 0; k < p->n_values; k++)
			if (!strcmp(f->values[i], p->values[k]))
				return (int)i;
	return -1;
}

static void list_values(struct wp_buf *why, char *const *v, size_t n, size_t max)
{
	for (size_t i = 0; i < n && i < max; i++)
		wp_buf_printf(why, "%s%s", i ? ", " : "", v[i]);
	if (n > max)
		wp_buf_printf(why, ", ... %zu in all", n);
}

bool wp_vorder_supported(const struct wp_vorder *o, const struct wp_vlabel *l, struct wp_buf *why)
{
	for (size_t p = 0; p < l->n_props; p++) {
		const struct wp_vprop *pr = &l->props[p];
		const struct wp_vfeature_order *f = order_of(o, pr);
		if (!f || !f->known || f->why[0]) {
			if (why) {
				wp_buf_printf(why, "%s: %s", l->label,
					      f ? f->why : "no order for it");
				if (f && f->ask >= 0)
					wp_buf_printf(why, "; ask for %s with %s",
						      f->ask == WP_ASK_ROCM ? "ROCm" : "it",
						      wp_ask_words(o->asks, (enum wp_ask)f->ask));
			}
			return false;
		}
		if (best_value(f, pr) < 0) {
			if (why) {
				wp_buf_printf(why, "%s: the target supports none of %s :: %s :: ",
					      l->label, pr->ns, pr->feature);
				list_values(why, pr->values, pr->n_values, 4);
				wp_buf_addstr(why, " (it supports ");
				list_values(why, f->values, f->n_values, 4);
				wp_buf_addch(why, ')');
			}
			return false;
		}
		/* wheelpick's rule beyond the provider's (which reads the newest GPU only): every
		 * GPU the target names has code in the build */
		if (!strcmp(pr->ns, "nvidia") && !strcmp(pr->feature, "sm_arch") &&
		    o->t->n_gpus > 1) {
			for (int g = 0; g < o->t->n_gpus; g++) {
				struct strs gs = { 0 };
				nv_sm(o->t->gpu_sm[g], &gs);
				bool served = false;
				for (size_t i = 0; i < gs.n && !served; i++)
					for (size_t k = 0; k < pr->n_values && !served; k++)
						served = !strcmp(gs.v[i], pr->values[k]);
				free_strs(gs.v, gs.n);
				if (!served) {
					if (why)
						wp_buf_printf(why,
							      "%s: nvidia :: sm_arch has no code for the target's sm_%d",
							      l->label, o->t->gpu_sm[g]);
					return false;
				}
			}
		}
	}
	return true;
}

struct key {
	int ns, feat, val;
	const struct wp_vprop *p;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	if (x->feat != y->feat)
		return x->feat < y->feat ? -1 : 1;
	return (x->val > y->val) - (x->val < y->val);
}

/* PEP 825 steps 4-6: each feature's best value, as (namespace, feature, value) ranks, sorted. */
static struct key *sorted_keys(const struct wp_vorder *o, const struct wp_vlabel *l)
{
	struct key *k = wp_xcalloc(l->n_props + 1, sizeof(*k));
	for (size_t p = 0; p < l->n_props; p++) {
		const struct wp_vfeature_order *f = order_of(o, &l->props[p]);
		k[p] = (struct key){ f ? f->ns_rank : 1 << 20, f ? f->feature_rank : 1 << 20,
				     best_value(f, &l->props[p]), &l->props[p] };
	}
	qsort(k, l->n_props, sizeof(*k), key_cmp);
	return k;
}

static const char *value_at(const struct wp_vorder *o, const struct key *k)
{
	const struct wp_vfeature_order *f = order_of(o, k->p);
	return f && k->val >= 0 && (size_t)k->val < f->n_values ? f->values[k->val] : "?";
}

int wp_vorder_cmp(const struct wp_vorder *o, const struct wp_vlabel *a, const struct wp_vlabel *b,
		  struct wp_buf *decider)
{
	struct key *ka = sorted_keys(o, a), *kb = sorted_keys(o, b);
	int r = 0;
	size_t i = 0;
	for (; i < a->n_props && i < b->n_props; i++) {
		if ((r = key_cmp(&ka[i], &kb[i])))
			break;
	}
	if (r) {
		if (decider) {
			const struct key *w = r < 0 ? &ka[i] : &kb[i],
					 *lo = r < 0 ? &kb[i] : &ka[i];
			if (w->ns == lo->ns && w->feat == lo->feat)
				wp_buf_printf(decider, "%s :: %s :: %s before %s", w->p->ns,
					      w->p->feature, value_at(o, w), value_at(o, lo));
			else
				wp_buf_printf(decider, "%s :: %s :: %s", w->p->ns, w->p->feature,
					      value_at(o, w));
		}
	} else if (a->n_props != b->n_props) {
		/* one's properties run out first: the one with more comes first */
		r = a->n_props > b->n_props ? -1 : 1;
		if (decider) {
			const struct key *w = r < 0 ? &ka[i] : &kb[i];
			wp_buf_printf(decider, "%s :: %s :: %s, which %s lacks", w->p->ns,
				      w->p->feature, value_at(o, w), r < 0 ? b->label : a->label);
		}
	} else {
		r = strcmp(a->label, b->label);
		if (decider)
			wp_buf_printf(decider, "equal properties; the label's name decides");
	}
	free(ka);
	free(kb);
	return r;
}

void wp_vorder_first_prop(const struct wp_vorder *o, const struct wp_vlabel *l, struct wp_buf *out)
{
	if (!l->n_props)
		return;
	struct key *k = sorted_keys(o, l);
	wp_buf_printf(out, "%s :: %s :: %s", k[0].p->ns, k[0].p->feature, value_at(o, &k[0]));
	free(k);
}

static bool accel_ns(const char *ns)
{
	return !strcmp(ns, "nvidia") || !strcmp(ns, "amd") || !strcmp(ns, "intel");
}

bool wp_variants_has_accel(const struct wp_variants *v)
{
	for (size_t i = 0; v && i < v->n_namespaces; i++)
		if (accel_ns(v->namespaces[i]))
			return true;
	return false;
}

const char *wp_vlabel_accel(const struct wp_vlabel *l)
{
	for (size_t p = 0; l && p < l->n_props; p++)
		if (accel_ns(l->props[p].ns))
			return l->props[p].ns;
	return NULL;
}

void wp_vorder_marker_sets(const struct wp_vorder *o, const struct wp_vlabel *l,
			   struct wp_buf *props, struct wp_buf *features, struct wp_buf *namespaces)
{
	wp_buf_reset(props);
	wp_buf_reset(features);
	wp_buf_reset(namespaces);
	for (size_t p = 0; l && p < l->n_props; p++) {
		const struct wp_vprop *pr = &l->props[p];
		const struct wp_vfeature_order *f = order_of(o, pr);
		bool any = false;
		for (size_t k = 0; k < pr->n_values; k++) {
			bool ok = false;
			for (size_t i = 0; f && i < f->n_values && !ok; i++)
				ok = !strcmp(f->values[i], pr->values[k]);
			if (!ok)
				continue;
			any = true;
			wp_buf_printf(props, "%s :: %s :: %s\n", pr->ns, pr->feature,
				      pr->values[k]);
		}
		if (!any)
			continue;
		wp_buf_printf(features, "%s :: %s\n", pr->ns, pr->feature);
		/* each namespace once: look for "\nNS\n" in "\n" + what is there */
		char line[160];
		snprintf(line, sizeof(line), "\n%s\n", pr->ns);
		struct wp_buf probe = WP_BUF_INIT;
		wp_buf_printf(&probe, "\n%s", namespaces->len ? namespaces->data : "");
		if (!strstr(probe.data, line))
			wp_buf_addstr(namespaces, line + 1);
		wp_buf_free(&probe);
	}
}

/* ---- a target's own list of compatible properties ---- */

static bool vname_ok(const char *s, bool dots)
{
	if (!*s || strlen(s) > 128)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      (dots && *s == '.')))
			return false;
	return true;
}

int wp_target_add_variant_prop(struct wp_target *t, const char *ns, const char *feature,
			       const char *value, struct wp_err *err)
{
	if (!vname_ok(ns, false) || !vname_ok(feature, false) || !vname_ok(value, true))
		return wp_fail(err, -WPE_USAGE,
			       "variant property '%.40s :: %.40s :: %.40s' is not PEP 825's "
			       "namespace :: feature :: value ([a-z0-9_], values also '.')",
			       ns, feature, value);
	size_t have = strlen(t->variant_props);
	int n = snprintf(t->variant_props + have, sizeof(t->variant_props) - have,
			 "%s :: %s :: %s\n", ns, feature, value);
	if (n < 0 || (size_t)n >= sizeof(t->variant_props) - have) {
		t->variant_props[have] = 0;
		return wp_fail(err, -WPE_TOO_BIG,
			       "the target's variant properties are longer than %d bytes",
			       WP_TARGET_VARIANT_PROPS);
	}
	t->variant_given = true;
	return 0;
}

void wp_target_variant_props(const struct wp_target *t, struct wp_buf *out)
{
	static const char *const nss[] = { "nvidia", "amd", "intel", "x86_64" };
	struct wp_variants none = { 0 };
	wp_buf_reset(out);
	if (t->variant_given) {
		wp_buf_addstr(out, t->variant_props);
		return;
	}
	for (size_t i = 0; i < WP_ARRAY_LEN(nss); i++) {
		const char *const *pf = provider_features(nss[i]);
		for (size_t k = 0; pf && pf[k]; k++) {
			struct wp_vfeature_order f = { .ns = (char *)nss[i],
						       .feature = (char *)pf[k] };
			supported_values(&none, t, &f);
			for (size_t j = 0; !f.why[0] && j < f.n_values; j++)
				wp_buf_printf(out, "%s :: %s :: %s\n", nss[i], pf[k], f.values[j]);
			free_strs(f.values, f.n_values);
		}
	}
	wp_buf_addstr(out, "");
}
