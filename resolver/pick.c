/* resolver/pick.c: the picking rule (DESIGN.md "The CUDA rule"): version first, then the newest
 * variant the target's driver runs with kernels for every GPU it has, then the best tag; every
 * rejected file gets a reason. */
#include "resolver/pick.h"
#include "base/mem.h"
#include "base/vec.h"
#include "resolver/gpu.h"
#include "resolver/pickmemo.h"
#include "resolver/torchbuilds.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why a candidate was dropped, in the order the checks run; the message for "nothing fits"
 * speaks about the last hurdle most candidates reached. */
enum rej {
	REJ_NONE = 0,
	REJ_NAME,     /* file name or version unreadable */
	REJ_KIND,     /* not a wheel */
	REJ_SPEC,     /* version outside the request */
	REJ_PRE,      /* a pre-release, not asked for */
	REJ_YANKED,
	REJ_HASH,     /* trust on first use */
	REJ_TAGS,     /* python/abi/platform */
	REJ_PYTHON,   /* Requires-Python */
	REJ_VARIANT,  /* the accelerator rule */
	REJ_SKIPPED,  /* (explain_pick's own mark: a version already spoken of) */
};

/* One distinct variants.json among the candidates, ordered for the target. */
struct vmeta {
	const struct wp_variants *v;
	struct wp_vorder o;
	const struct wp_vlabel **sorted; /* supported labels, PEP 825 order */
	size_t n_sorted;
};

struct vmetas {
	struct vmeta *v;
	size_t n;
};

struct cand {
	struct wp_version v;
	bool v_ok;
	bool v_memo;           /* v is the memo's (req->memo), not this pick's to release */
	struct wp_variant var;
	bool var_pending;      /* an unlabeled torch wheel whose variant only its METADATA tells */
	const char *var_src;   /* "label", "folder", "metadata", "PyPI default" */
	enum wp_runs_how how;  /* for a CUDA build that fits: how the driver runs it */
	char arch_note[48]; /* "2.9's list" when the GPU check borrowed another release's arch list
			     */
	int tag_prio;          /* lowest (best) priority among the file's tags; -1 none */
	long long build_num;
	enum rej rej;
	struct wp_buf why;
	struct wp_buf *whyp;   /* &why when reasons are wanted, else NULL */
	/* PEP 825 */
	bool vwheel;                 /* the name carries a variant label */
	const struct wp_vlabel *vl;  /* its entry in the metadata, or NULL */
	const struct vmeta *vm; /* its metadata ordered for the target, or NULL without metadata */
	int vrank; /* position in PEP 825's order among supported labels; large when none */
	bool cpu_only;               /* refused only as the CPU build on a GPU target */
};

#define VRANK_NONE (1 << 20)

/* A file's reason, written only where the caller asked for reasons (--explain): formatting one
 * for each of a project's ~800 files was a good part of every pick. why may be NULL. */
static void say(struct wp_buf *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct wp_buf *why, const char *fmt, ...)
{
	if (!why)
		return;
	va_list ap;
	va_start(ap, fmt);
	wp_buf_vprintf(why, fmt, ap);
	va_end(ap);
}

static bool spec_is_exact_pin(const struct wp_specset *s)
{
	return s && s->n == 1 &&
	       (s->specs[0].op == WP_OP_EQ || s->specs[0].op == WP_OP_ARBITRARY) &&
	       !s->specs[0].wildcard;
}

bool wp_pick_is_torch_family(const char *project)
{
	return project && (!strcmp(project, "torch") || !strcmp(project, "torchvision") ||
			   !strcmp(project, "torchaudio"));
}

/* The torch release a torch-family version belongs to ("2.9" for torchvision 0.24.0 and
 * torchaudio 2.9.0), which is what PyTorch's arch lists are kept by. false when unknown. */
static bool torch_release(const char *project, const struct wp_version *v, char *out, size_t n)
{
	long major = v->nrelease > 0 ? (long)v->release[0] : -1,
	     minor = v->nrelease > 1 ? (long)v->release[1] : 0;
	if (!strcmp(project, "torch"))
		return snprintf(out, n, "%ld.%ld", major, minor) > 0;
	if (!strcmp(project, "torchvision") && major == 0 && minor >= 15)
		return snprintf(out, n, "2.%ld", minor - 15) > 0; /* 0.15 came with torch 2.0 */
	if (!strcmp(project, "torchvision") && major == 0 && minor >= 2)
		return snprintf(out, n, "1.%ld", minor + 1) > 0;  /* 0.9 came with torch 1.8 */
	if (!strcmp(project, "torchaudio") && major == 0 && minor >= 8)
		return snprintf(out, n, "1.%ld", minor) > 0;      /* 0.8 came with torch 1.8 */
	if (!strcmp(project, "torchaudio") && major >= 2)
		return snprintf(out, n, "%ld.%ld", major, minor) > 0;
	return false;
}

/* The platform family of a wheel's own platform tag (its last tag, the most specific). */
static const char *file_family(const char *filename)
{
	struct wp_wheelname w;
	struct wp_err e = WP_ERR_INIT;
	const char *fam = NULL;
	if (wp_wheelname_parse(filename, &w, &e) < 0)
		return NULL;
	for (size_t i = 0; i < w.n_tags && !fam; i++) {
		const char *plat = strrchr(w.tags[i], '-');
		fam = plat ? wp_torch_platform_family(plat + 1) : NULL;
	}
	wp_wheelname_release(&w);
	return fam;
}

/* The PEP 825 label of a wheel name, into out (48 bytes); false for a non-variant name. Only names
 * with six or more parts can carry one, which spares parsing the rest. */
static bool name_label(const char *filename, char *out)
{
	size_t dashes = 0;
	for (const char *p = filename; p && *p; p++)
		dashes += *p == '-';
	if (dashes < 5)
		return false;
	struct wp_wheelname w;
	struct wp_err e = WP_ERR_INIT;
	if (wp_wheelname_parse(filename, &w, &e) < 0)
		return false;
	bool yes = w.variant_label != NULL;
	if (yes)
		snprintf(out, 48, "%s", w.variant_label);
	wp_wheelname_release(&w);
	return yes;
}

void wp_pick_variant_marker_env(struct wp_marker_env *env, const struct wp_candidate *c,
				const struct wp_target *t)
{
	char label[48];
	env->variant_label[0] = env->variant_namespaces[0] = env->variant_features[0] =
		env->variant_properties[0] = 0;
	if (!c || !c->kind || strcmp(c->kind, "wheel") != 0 || !c->filename ||
	    !name_label(c->filename, label))
		return;
	snprintf(env->variant_label, sizeof(env->variant_label), "%s", label);
	const struct wp_vlabel *vl = wp_variants_find(c->variants, label);
	if (!vl)
		return;
	struct wp_vorder o;
	struct wp_buf props = WP_BUF_INIT, feats = WP_BUF_INIT, nss = WP_BUF_INIT;
	wp_vorder_init(&o, c->variants, t);
	wp_vorder_marker_sets(&o, vl, &props, &feats, &nss);
	snprintf(env->variant_properties, sizeof(env->variant_properties), "%s",
		 wp_buf_cstr(&props));
	snprintf(env->variant_features, sizeof(env->variant_features), "%s", wp_buf_cstr(&feats));
	snprintf(env->variant_namespaces, sizeof(env->variant_namespaces), "%s", wp_buf_cstr(&nss));
	wp_buf_free(&props);
	wp_buf_free(&feats);
	wp_buf_free(&nss);
	wp_vorder_release(&o);
}

bool wp_pick_candidate_is_variant_wheel(const struct wp_candidate *c)
{
	char label[48];
	return c->kind && !strcmp(c->kind, "wheel") && c->filename &&
	       name_label(c->filename, label);
}

/* "cuda12.8", "cu128", "rocm7.0": the version a label's name spells, as wheelpick's variants do. */
static bool label_version(const char *label, const char *prefix, int *major, int *minor)
{
	size_t n = strlen(prefix);
	int a, b, used = 0;
	if (strncmp(label, prefix, n) != 0)
		return false;
	if (sscanf(label + n, "%d.%d%n", &a, &b, &used) == 2 && !label[n + used]) {
		*major = a;
		*minor = b;
		return true;
	}
	return false;
}

/* What kind of build a PEP 825 label is: from its properties when the metadata is known (nvidia:
 * CUDA, amd: ROCm, intel: XPU, none while the release has such builds: CPU), else from its name. */
static void vwheel_variant(const char *label, const struct wp_vlabel *vl,
			   const struct wp_variants *meta, struct wp_variant *v)
{
	memset(v, 0, sizeof(*v));
	struct wp_variant byname;
	bool named = wp_variant_from_label(label, &byname) == 1;
	const char *accel = vl ? wp_vlabel_accel(vl) : NULL;
	int M = 0, m = 0;
	if (vl) {
		v->kind = !accel                   ? (wp_variants_has_accel(meta) ? WP_VARIANT_CPU :
										    WP_VARIANT_OTHER) :
			  !strcmp(accel, "nvidia") ? WP_VARIANT_CUDA :
			  !strcmp(accel, "amd")    ? WP_VARIANT_ROCM :
						     WP_VARIANT_XPU;
	} else if (label_version(label, "cuda", &M, &m) ||
		   (named && byname.kind == WP_VARIANT_CUDA)) {
		v->kind = WP_VARIANT_CUDA;
	} else if (named && byname.kind != WP_VARIANT_NONE) {
		v->kind = byname.kind;
	} else {
		v->kind = !strcmp(label, "null") ? WP_VARIANT_CPU : WP_VARIANT_OTHER;
	}
	if (label_version(label, "cuda", &M, &m) || label_version(label, "rocm", &M, &m)) {
		v->major = M;
		v->minor = m;
	} else if (named && byname.kind == v->kind) {
		v->major = byname.major;
		v->minor = byname.minor;
		v->patch = byname.patch;
	}
	/* a name that says nothing: the newest CUDA lower bound or ROCm version its properties
	 * give */
	for (size_t p = 0; vl && !v->major && p < vl->n_props; p++) {
		const struct wp_vprop *pr = &vl->props[p];
		bool cuda = v->kind == WP_VARIANT_CUDA &&
			    !strcmp(pr->feature, "cuda_version_lower_bound");
		bool rocm = v->kind == WP_VARIANT_ROCM && !strcmp(pr->feature, "rocm_version");
		for (size_t k = 0; (cuda || rocm) && k < pr->n_values; k++) {
			int a = 0, b = 0;
			if (sscanf(pr->values[k], "%d.%d", &a, &b) >= 1 &&
			    (a > v->major || (a == v->major && b > v->minor))) {
				v->major = a;
				v->minor = b;
			}
		}
	}
	snprintf(v->label, sizeof(v->label), "%s", label);
}

void wp_pick_candidate_variant(const struct wp_candidate *c, struct wp_variant *v, bool *pending,
			       const char **source)
{
	const char *src = NULL;
	char label[48];
	*pending = false;
	memset(v, 0, sizeof(*v));
	if (c->kind && !strcmp(c->kind, "wheel") && c->filename && name_label(c->filename, label)) {
		vwheel_variant(label, wp_variants_find(c->variants, label), c->variants, v);
		src = "variant label";
		goto out;
	}
	if (c->variant && *c->variant && wp_variant_from_label(c->variant, v)) {
		src = c->variant_from_metadata              ? "metadata" :
		      c->version && strchr(c->version, '+') ? "label" :
							      "folder";
		goto out;
	}
	memset(v, 0, sizeof(*v));
	if (!c->project || strcmp(c->project, "torch") != 0 || !c->kind ||
	    strcmp(c->kind, "wheel") != 0)
		goto out; /* other projects' unlabeled files carry no variant */
	if (c->variant_from_metadata) {
		/* its metadata was read and pins no CUDA: nothing says which build it is */
		v->kind = WP_VARIANT_OTHER;
		snprintf(v->label, sizeof(v->label), "unlabeled");
		src = "metadata";
		goto out;
	}
	const char *fam = file_family(c->filename);
	struct wp_version ver;
	struct wp_err e = WP_ERR_INIT;
	long major = 0, minor = 0;
	if (c->version && wp_version_parse(&ver, c->version, strlen(c->version), &e) == 0) {
		major = ver.nrelease > 0 ? (long)ver.release[0] : 0;
		minor = ver.nrelease > 1 ? (long)ver.release[1] : 0;
		wp_version_release(&ver);
	}
	/* PyPI's Linux wheels name their CUDA only in their nvidia-* pins (x86_64 from 1.13,
	 * aarch64 from 2.11); earlier ones bundled it, and Windows, macOS and older aarch64 are CPU
	 * builds */
	bool pins = fam &&
		    ((!strcmp(fam, "linux-x86_64") && (major > 1 || (major == 1 && minor >= 13))) ||
		     (!strcmp(fam, "linux-aarch64") && (major > 2 || (major == 2 && minor >= 11))));
	if (pins) {
		*pending = true;
		v->kind = WP_VARIANT_OTHER;
		snprintf(v->label, sizeof(v->label), "unlabeled");
		src = "metadata";
	} else if (fam && wp_pypi_default_variant("torch", c->version, fam, v) == 1) {
		src = "PyPI default";
	} else {
		memset(v, 0, sizeof(*v));
		v->kind = WP_VARIANT_OTHER; /* an unlabeled torch nobody can place */
		snprintf(v->label, sizeof(v->label), "unlabeled");
	}
out:
	if (source)
		*source = src;
}

/* Does a CUDA build have kernels for every GPU of the target? From what PyTorch compiled for that
 * release, CUDA version and platform when the tables know it, else from what the toolkit could. */
static bool gpus_served(const struct cand *c, const struct wp_candidate *k,
			const struct wp_target *t, struct cand *out, struct wp_buf *why)
{
	const struct wp_variant *var = &c->var;
	char rel[16];
	const char *fam = wp_pick_is_torch_family(k->project) ? file_family(k->filename) : NULL;
	struct wp_arch_list l;
	if (!t->n_gpus)
		return true;
	if (!fam || !c->v_ok || !torch_release(k->project, &c->v, rel, sizeof(rel)) ||
	    wp_torch_arch_list(rel, var->major, var->minor, fam, &l) < 0)
		return wp_gpu_cuda_fits(t, var->major, var->minor, var->label, why);
	for (int g = 0; g < t->n_gpus; g++) {
		struct wp_buf w = WP_BUF_INIT;
		bool ok = wp_arch_list_serves(&l, t->gpu_sm[g], c->how == WP_RUNS_NATIVE,
					      why ? &w : NULL);
		if (!ok) {
			if (why)
				wp_buf_printf(why, "%s: %s%s%s", var->label, w.data,
					      l.borrowed_from[0] ? "; as in " : "",
					      l.borrowed_from[0] ? l.borrowed_from : "");
			wp_buf_free(&w);
			return false;
		}
		wp_buf_free(&w);
	}
	if (l.borrowed_from[0])
		snprintf(out->arch_note, sizeof(out->arch_note), "the arch list of %s",
			 l.borrowed_from);
	return true;
}

static const char *accel_words(const struct wp_target *t)
{
	return t->accel == WP_ACCEL_CUDA ? "an NVIDIA GPU" :
	       t->accel == WP_ACCEL_ROCM ? "an AMD GPU (ROCm)" :
	       t->accel == WP_ACCEL_XPU  ? "an Intel GPU" :
					   "CPU-only";
}

/* PEP 825's rule: every feature of the label has a value the target supports; and wheelpick's: a
 * GPU target never gets the CPU build unasked. */
static bool vwheel_fits(struct cand *c, const struct wp_target *t,
			const struct wp_pick_request *req, struct wp_buf *why)
{
	const char *label = c->var.label;
	c->cpu_only = false;
	if (!c->vm) {
		say(why,
		    "%s: a PEP 825 variant wheel, but the index lists no variants.json for its release, so what "
		    "it needs is unknown (wheelpick does not guess)",
		    label);
		return false;
	}
	const struct vmeta *m = c->vm;
	if (!c->vl) {
		say(why, "%s: the release's variants.json does not list this label", label);
		return false;
	}
	struct wp_vorder o = m->o; /* a borrowing view, with the caller's words for its advice */
	o.asks = req->asks;
	if (!wp_vorder_supported(&o, c->vl, why))
		return false;
	if (c->var.kind == WP_VARIANT_CPU && t->accel != WP_ACCEL_CPU) {
		c->cpu_only = true;
		say(why, "%s: the CPU build; the target has %s (ask for the CPU build with %s)",
		    label, accel_words(t), wp_ask_words(req->asks, WP_ASK_CPU));
		return false;
	}
	return true;
}

/* A PEP 825 label and a local label that name the same build (cuda12.8 and cu128, null and cpu):
 * a set whose torch is a variant wheel may take torchaudio from an index of +cu128 builds. */
static bool same_build(const struct cand *c, const char *require)
{
	int a, b, n = 0;
	bool pep825 = !strcmp(require, "null") ||
		      (sscanf(require, "cuda%d.%d%n", &a, &b, &n) == 2 && !require[n]);
	if (!c->vwheel && !pep825)
		return false;
	struct wp_variant r;
	vwheel_variant(require, NULL, NULL, &r);
	const struct wp_variant *v = &c->var;
	if (r.kind != v->kind || r.flavour[0] || v->flavour[0])
		return false;
	switch (r.kind) {
	case WP_VARIANT_CUDA:
	case WP_VARIANT_ROCM:
		return r.major == v->major && r.minor == v->minor;
	case WP_VARIANT_XPU:
	case WP_VARIANT_CPU:
		return true;
	default:
		return false;
	}
}

/* The accelerator rule. Returns true when the variant may run on the target; else fills why. */
static bool variant_fits(struct cand *c, const struct wp_candidate *k, const struct wp_target *t,
			 const struct wp_pick_request *req, struct wp_buf *why)
{
	const struct wp_variant *var = &c->var;
	const char *label = var->kind == WP_VARIANT_NONE ? "" : var->label;
	if (c->var_pending) {
		say(why,
		    "an unlabeled torch build: which CUDA it has is in its METADATA, not read yet");
		return false;
	}
	if (req->require_variant && strcmp(label, req->require_variant) != 0 &&
	    !same_build(c, req->require_variant)) {
		say(why, "%s: the set shares variant '%s'", *label ? label : "no variant",
		    req->require_variant);
		return false;
	}
	for (size_t i = 0; i < req->n_avoid; i++) {
		if (!strcmp(label, req->avoid_variants[i])) {
			say(why, "%s: cannot complete the set", *label ? label : "no variant");
			return false;
		}
	}
	if (c->vwheel)
		return vwheel_fits(c, t, req, why);
	switch (var->kind) {
	case WP_VARIANT_NONE:
		return true; /* a file with no variant is the project's only build for its tags */
	case WP_VARIANT_CUDA:
		if (t->accel != WP_ACCEL_CUDA) {
			say(why, "%s: a CUDA build; the target is %s", label,
			    t->accel == WP_ACCEL_CPU  ? "CPU-only" :
			    t->accel == WP_ACCEL_ROCM ? "ROCm" :
							"an Intel GPU");
			return false;
		}
		if (why) {
			struct wp_buf w = WP_BUF_INIT;
			bool runs = wp_target_runs_cuda(t, var->major, var->minor, &c->how, &w);
			if (!runs)
				say(why, "%s: %s", label, w.data);
			wp_buf_free(&w);
			if (!runs)
				return false;
		} else if (!wp_target_runs_cuda(t, var->major, var->minor, &c->how, NULL)) {
			return false;
		}
		return gpus_served(c, k, t, c, why);
	case WP_VARIANT_CPU:
		if (t->accel == WP_ACCEL_CPU)
			return true;
		say(why, "%s: a CPU build; ask with %s", label,
		    wp_ask_words(req->asks, WP_ASK_CPU));
		return false;
	case WP_VARIANT_ROCM:
		if (t->accel == WP_ACCEL_ROCM && var->major == t->rocm_major &&
		    var->minor == t->rocm_minor)
			return true;
		if (t->accel == WP_ACCEL_ROCM)
			say(why, "%s: ROCm %d.%d is not the target's ROCm %d.%d", label, var->major,
			    var->minor, t->rocm_major, t->rocm_minor);
		else
			say(why, "%s: a ROCm build; ask with %s", label,
			    wp_ask_words(req->asks, WP_ASK_ROCM));
		return false;
	case WP_VARIANT_XPU:
		if (t->accel == WP_ACCEL_XPU)
			return true;
		say(why, "%s: an Intel GPU build; ask with %s", label,
		    wp_ask_words(req->asks, WP_ASK_XPU));
		return false;
	default:
		if (!strcmp(var->label, "unlabeled"))
			say(why,
			    "an unlabeled torch build that no label, folder or nvidia-* pin places; wheelpick gives it "
			    "to no target (use an index with labels, such as download.pytorch.org/whl/<variant>/)");
		else
			say(why,
			    "%s: a special build; wheelpick picks CUDA, ROCm, XPU or CPU builds",
			    label);
		return false;
	}
}

/* Preference among fitting variants at one version: the target's own kind first, then no
 * variant, then by wp_variant_cmp (newest CUDA, plain before flavours). */
static int kind_rank(const struct wp_variant *v, const struct wp_target *t)
{
	if (v->kind == WP_VARIANT_NONE)
		return 1;
	if ((t->accel == WP_ACCEL_CUDA && v->kind == WP_VARIANT_CUDA) ||
	    (t->accel == WP_ACCEL_CPU && v->kind == WP_VARIANT_CPU) ||
	    (t->accel == WP_ACCEL_ROCM && v->kind == WP_VARIANT_ROCM) ||
	    (t->accel == WP_ACCEL_XPU && v->kind == WP_VARIANT_XPU))
		return 2;
	return 0;
}

/* >0 when a is the better pick than b (both fit). */
static int better(const struct cand *a, const struct cand *b, const struct wp_target *t)
{
	int c = wp_version_cmp_public(&a->v, &b->v);
	if (c)
		return c;
	if (a->vwheel || b->vwheel) {
		/* PEP 825: labels in their order (null last among them), then non-variant wheels,
		 * then tags */
		int ra = a->vwheel ? a->vrank : VRANK_NONE + 1,
		    rb = b->vwheel ? b->vrank : VRANK_NONE + 1;
		if (ra != rb)
			return ra < rb ? 1 : -1;
		if ((c = wp_version_cmp(&a->v, &b->v)))
			return c;
		if (a->tag_prio != b->tag_prio)
			return a->tag_prio < b->tag_prio ? 1 : -1;
		return (a->build_num > b->build_num) - (a->build_num < b->build_num);
	}
	if ((c = kind_rank(&a->var, t) - kind_rank(&b->var, t)))
		return c;
	if ((c = wp_variant_cmp(&a->var, &b->var)))
		return c;
	if ((c = wp_version_cmp(&a->v, &b->v)))
		return c;
	if (a->tag_prio != b->tag_prio)
		return a->tag_prio < b->tag_prio ? 1 : -1;
	return (a->build_num > b->build_num) - (a->build_num < b->build_num);
}

static void describe_python(const struct wp_target *t, struct wp_buf *out)
{
	wp_buf_printf(out, "Python %d.%d%s", t->py_major, t->py_minor, wp_target_py_suffix(t));
}

void wp_target_describe(const struct wp_target *t, struct wp_buf *out)
{
	switch (t->accel) {
	case WP_ACCEL_CUDA:
		if (t->driver_given)
			wp_buf_printf(out, "driver %s (CUDA %d.%d)", t->driver.text, t->cuda_major,
				      t->cuda_minor);
		else if (t->driver_none_yet)
			wp_buf_printf(out, "CUDA up to %d.%d (driver: none yet)", t->cuda_major,
				      t->cuda_minor);
		else
			wp_buf_printf(out, "CUDA %d.%d", t->cuda_major, t->cuda_minor);
		break;
	case WP_ACCEL_XPU:
		wp_buf_addstr(out, "Intel GPU (XPU)");
		break;
	case WP_ACCEL_CPU:
		wp_buf_addstr(out, t->accel_foreign ? "CPU (another machine: its GPU not given)" :
						      "CPU");
		break;
	case WP_ACCEL_ROCM:
		wp_buf_printf(out, "ROCm %d.%d", t->rocm_major, t->rocm_minor);
		break;
	}
	wp_buf_addstr(out, ", ");
	describe_python(t, out);
	wp_buf_printf(out, ", %s", t->platform);
	for (int g = 0; g < t->n_gpus; g++)
		wp_buf_printf(out, "%ssm_%d", g ? "," : ", GPU ", t->gpu_sm[g]);
	for (int g = 0; g < t->n_gfx; g++)
		wp_buf_printf(out, "%s%s", g || t->n_gpus ? "," : ", GPU ", t->gfx[g]);
}

struct best_tag {
	const struct wp_tagset *ts;
	int best;
};

static bool best_tag(void *ctx, const char *tag)
{
	struct best_tag *b = ctx;
	int p = wp_tagset_priority(b->ts, tag);
	if (p >= 0 && (b->best < 0 || p < b->best))
		b->best = p;
	return b->best == 0; /* nothing beats the first */
}

/* The file's best tag for the target: -1 none fits, -2 no wheel name. Without allocating: every
 * candidate is asked for every target (a 16-target mirror: 17% of its time went to parsing names
 * and copying their tags). */
static int tag_priority(const char *filename, const struct wp_tagset *ts, long long *build_num)
{
	struct wp_err e = WP_ERR_INIT;
	struct best_tag b = { ts, -1 };
	if (wp_wheelname_each_tag(filename, build_num, best_tag, &b, &e) < 0)
		return -2;
	return b.best;
}

static bool python_fits(const char *requires_python, const struct wp_target *t, struct wp_buf *why)
{
	struct wp_specset rp;
	struct wp_version pv;
	struct wp_err e = WP_ERR_INIT;
	char py[32];
	bool ok = true;
	if (!requires_python || !*requires_python)
		return true;
	snprintf(py, sizeof(py), "%d.%d.%d", t->py_major, t->py_minor,
		 t->py_micro < 0 ? 0 : t->py_micro);
	if (wp_specset_parse(&rp, requires_python, strlen(requires_python), &e) < 0)
		return true; /* pip ignores an unreadable Requires-Python; so do we */
	if (wp_version_parse(&pv, py, strlen(py), &e) == 0) {
		ok = wp_specset_contains(&rp, &pv, WP_PRERELEASES_YES);
		wp_version_release(&pv);
	}
	wp_specset_release(&rp);
	if (!ok)
		say(why, "requires Python %s; the target has %d.%d", requires_python, t->py_major,
		    t->py_minor);
	return ok;
}

/* Checks one candidate; fills c. pre: whether pre-releases count on this pass. hash_blocks: a
 * file whose bytes differ from those first trusted for its name is rejected (false: judged as if
 * it were not, to learn whether it would be the pick). */
static void check_as(const struct wp_candidate *k, struct cand *c,
		     const struct wp_pick_request *req, const struct wp_target *t,
		     const struct wp_tagset *ts, bool pre, bool hash_blocks)
{
	struct wp_err e = WP_ERR_INIT;
	wp_buf_reset(&c->why);
	c->rej = REJ_NONE;
	if (!c->v_ok) {
		c->rej = REJ_NAME;
		say(c->whyp, "version '%s' is not PEP 440", k->version ? k->version : "");
		return;
	}
	if (strcmp(k->kind, "wheel") != 0) {
		c->rej = REJ_KIND;
		say(c->whyp, "%s: wheelpick fetches built wheels, not source builds", k->kind);
		return;
	}
	if (req->spec && !wp_specset_contains(req->spec, &c->v, WP_PRERELEASES_YES)) {
		c->rej = REJ_SPEC;
		size_t own = req->spec->n -
			     (req->n_given_up < req->spec->n ? req->n_given_up : req->spec->n);
		struct wp_specset asked = *req->spec;
		asked.n = own;
		if (own < req->spec->n && wp_specset_contains(&asked, &c->v, WP_PRERELEASES_YES)) {
			/* the requirements allow it: the solver gave this version up */
			const char *gw = NULL;
			for (size_t g = own; g < req->spec->n && !gw; g++)
				if (!wp_specifier_contains(&req->spec->specs[g], &c->v,
							   WP_PRERELEASES_YES))
					gw = req->given_up_why && req->given_up_why[g - own] ?
						     req->given_up_why[g - own] :
						     "";
			say(c->whyp, "%s was tried and given up%s%s", k->version,
			    gw && *gw ? ": " : "", gw ? gw : "");
		} else if (req->spec_text && *req->spec_text) {
			say(c->whyp, "%s is outside '%s'", k->version, req->spec_text);
		} else {
			say(c->whyp, "%s is ruled out by the requirements", k->version);
		}
		return;
	}
	if (!pre && wp_version_is_prerelease(&c->v) &&
	    !(req->spec && wp_specset_prereleases(req->spec) == WP_PRERELEASES_YES)) {
		c->rej = REJ_PRE;
		say(c->whyp, "%s is a pre-release; ask with %s", k->version,
		    wp_ask_words(req->asks, WP_ASK_PRE));
		return;
	}
	if (k->yanked && !spec_is_exact_pin(req->spec)) {
		c->rej = REJ_YANKED;
		say(c->whyp, "yanked%s%s; pin it with == to take it anyway", *k->yanked ? ": " : "",
		    k->yanked);
		return;
	}
	if (k->hash_conflict && hash_blocks) {
		c->rej = REJ_HASH;
		say(c->whyp, "the index now gives sha256 %.12s... but %.12s... was seen first; "
				       "check the source, then %s", k->sha256 ? k->sha256 : "?",
			      k->hash_conflict, wp_ask_words(req->asks, WP_ASK_TRUST));
		return;
	}
	c->tag_prio = tag_priority(k->filename, ts, &c->build_num);
	if (c->tag_prio < 0) {
		c->rej = c->tag_prio == -2 ? REJ_NAME : REJ_TAGS;
		if (c->tag_prio == -2)
			say(c->whyp, "'%s' is not a valid wheel name", k->filename);
		else
			say(c->whyp, "tags do not fit Python %d.%d%s on %s", t->py_major,
			    t->py_minor, wp_target_py_suffix(t), t->platform);
		return;
	}
	if (!python_fits(k->requires_python, t, c->whyp)) {
		c->rej = REJ_PYTHON;
		return;
	}
	if (!variant_fits(c, k, t, req, c->whyp)) {
		c->rej = REJ_VARIANT;
		return;
	}
	(void)e;
}

static void check(const struct wp_candidate *k, struct cand *c, const struct wp_pick_request *req,
		  const struct wp_target *t, const struct wp_tagset *ts, bool pre)
{
	check_as(k, c, req, t, ts, pre, true);
}

static int run_pass_as(const struct wp_candidate *k, struct cand *c, size_t n,
		       const struct wp_pick_request *req, const struct wp_target *t,
		       const struct wp_tagset *ts, bool pre, bool hash_blocks)
{
	long best = -1;
	for (size_t i = 0; i < n; i++) {
		check_as(&k[i], &c[i], req, t, ts, pre, hash_blocks);
		if (c[i].rej == REJ_NONE && (best < 0 || better(&c[i], &c[best], t) > 0))
			best = (long)i;
	}
	return (int)best;
}

static int run_pass(const struct wp_candidate *k, struct cand *c, size_t n,
		    const struct wp_pick_request *req, const struct wp_target *t,
		    const struct wp_tagset *ts, bool pre)
{
	return run_pass_as(k, c, n, req, t, ts, pre, true);
}

/* No silent substitution: the file that would be the pick were every hash trusted, when its bytes
 * are not the ones first trusted for its name and no trusted copy of it ranks the same (the same
 * file listed twice, honestly once); else -1. Taking the next best build in its place (cu118 for
 * a re-published cu121) would hand the user another build than they get everywhere else with no
 * word on later runs. Leaves c as a plain pass leaves it. */
static long untrusted_pick(const struct wp_candidate *k, struct cand *c, size_t n,
			   const struct wp_pick_request *req, const struct wp_target *t,
			   const struct wp_tagset *ts, bool pre)
{
	bool any = false;
	for (size_t i = 0; i < n && !any; i++)
		any = k[i].hash_conflict != NULL;
	if (!any)
		return -1;
	long would = run_pass_as(k, c, n, req, t, ts, pre, false);
	long stop = -1;
	if (would >= 0 && k[would].hash_conflict) {
		stop = would;
		for (size_t i = 0; i < n && stop >= 0; i++)
			if (!k[i].hash_conflict && c[i].rej == REJ_NONE &&
			    better(&c[i], &c[would], t) >= 0)
				stop = -1;
	}
	run_pass(k, c, n, req, t, ts, pre);
	return stop;
}

/* The pick stops at a file whose bytes changed: both hashes, and where the new ones are (the
 * caller adds what to do). */
static char *untrusted_message(const struct wp_candidate *k, const struct wp_pick_request *req,
			       const struct wp_target *t)
{
	struct wp_buf m = WP_BUF_INIT, tgt = WP_BUF_INIT;
	wp_target_describe(t, &tgt);
	wp_buf_printf(&m,
		      "%s %s is the build that fits %s, but '%s' at '%s' now has sha256 %s where %s was trusted "
		      "first for that name; no other build is taken in its place",
		      req->project, k->version, tgt.data, k->filename, k->url,
		      k->sha256 ? k->sha256 : "?", k->hash_conflict);
	wp_buf_free(&tgt);
	return wp_buf_detach(&m, NULL);
}

/* Labels of the files at one public version, in variant order, as "cpu, cu101, cu102". */
/* A file whose tags fit the target (its variant or Python may still not). */
static bool tags_fit(const struct cand *c)
{
	return c->rej == REJ_NONE || c->rej == REJ_PYTHON || c->rej == REJ_VARIANT ||
	       c->rej == REJ_SKIPPED;
}

/* The labels of the builds at one version, for this Python and platform when it has any (the
 * others say nothing about this target), else of all of them. */
static void variants_at(const struct cand *c, size_t n, const struct wp_version *at,
			struct wp_buf *out)
{
	const struct wp_variant *seen[64];
	size_t ns = 0;
	bool any_fit = false;
	for (size_t i = 0; i < n && !any_fit; i++)
		any_fit = c[i].v_ok && wp_version_cmp_public(&c[i].v, at) == 0 && tags_fit(&c[i]);
	for (size_t i = 0; i < n; i++) {
		if (!c[i].v_ok || wp_version_cmp_public(&c[i].v, at) != 0 || c[i].rej == REJ_KIND ||
		    (any_fit && !tags_fit(&c[i])))
			continue;
		bool dup = false;
		for (size_t j = 0; j < ns && !dup; j++)
			dup = !strcmp(seen[j]->label, c[i].var.label);
		if (!dup && ns < WP_ARRAY_LEN(seen))
			seen[ns++] = &c[i].var;
	}
	for (size_t i = 1; i < ns; i++) /* insertion sort: a handful */
		for (size_t j = i; j > 0 && wp_variant_cmp(seen[j - 1], seen[j]) > 0; j--) {
			const struct wp_variant *tmp = seen[j];
			seen[j] = seen[j - 1];
			seen[j - 1] = tmp;
		}
	for (size_t i = 0; i < ns; i++)
		wp_buf_printf(out, "%s%s", i ? ", " : "",
			      seen[i]->kind == WP_VARIANT_NONE ? "no variant" : seen[i]->label);
}

static void format_version(const struct wp_version *v, struct wp_buf *out)
{
	wp_version_format_public(v, out);
}

static void reason_of(const struct wp_candidate *k, struct cand *c,
		      const struct wp_pick_request *req, const struct wp_target *t,
		      const struct wp_tagset *ts, bool pre, struct wp_buf *out);

/* The kind of build the target asks for. */
static enum wp_variant_kind t_kind(const struct wp_target *t)
{
	switch (t->accel) {
	case WP_ACCEL_CUDA:
		return WP_VARIANT_CUDA;
	case WP_ACCEL_ROCM:
		return WP_VARIANT_ROCM;
	case WP_ACCEL_XPU:
		return WP_VARIANT_XPU;
	default:
		return WP_VARIANT_CPU;
	}
}

/* "torch 1.8.0 has cpu, cu101, cu102, cu111; none runs on CUDA 9.2; the newest torch with a
 * build that fits is 1.7.1 (cu92)". */
static char *nothing_fits(const struct wp_candidate *k, struct cand *c, size_t n,
			  const struct wp_pick_request *req, const struct wp_target *t,
			  const struct wp_tagset *ts)
{
	struct wp_buf m = WP_BUF_INIT, tgt = WP_BUF_INIT;
	long top = -1;
	size_t counts[REJ_SKIPPED + 1] = { 0 };
	wp_target_describe(t, &tgt);
	if (n == 0) {
		wp_buf_printf(&m,
			      "the catalog has no files for '%s'; add its index with %s (or %s)",
			      req->project, wp_ask_words(req->asks, WP_ASK_INDEX),
			      wp_ask_words(req->asks, WP_ASK_UPDATE));
		goto out;
	}
	/* The newest version the request allows, whatever else is wrong with its files. */
	for (size_t i = 0; i < n; i++) {
		if (c[i].rej > REJ_YANKED &&
		    (top < 0 || wp_version_cmp_public(&c[i].v, &c[top].v) > 0))
			top = (long)i;
		counts[c[i].rej]++;
	}
	if (top < 0) {
		if (counts[REJ_SPEC] || counts[REJ_PRE] || counts[REJ_YANKED]) {
			wp_buf_printf(&m, "no %s release matches '%s'%s%s%s", req->project,
				      req->spec_text ? req->spec_text : "",
				      counts[REJ_PRE] ? " (pre-releases need " : "",
				      counts[REJ_PRE] ? wp_ask_words(req->asks, WP_ASK_PRE) : "",
				      counts[REJ_PRE] ? ")" : "");
			long newest = -1;
			for (size_t i = 0; i < n; i++)
				if (c[i].v_ok && c[i].rej != REJ_KIND &&
				    (newest < 0 ||
				     wp_version_cmp_public(&c[i].v, &c[newest].v) > 0))
					newest = (long)i;
			if (newest >= 0) {
				wp_buf_addstr(&m, "; the newest in the catalog is ");
				format_version(&c[newest].v, &m);
			}
		} else {
			wp_buf_printf(&m, "the catalog lists no wheels for '%s'", req->project);
		}
		goto out;
	}
	struct wp_buf vs = WP_BUF_INIT;
	variants_at(c, n, &c[top].v, &vs);
	wp_buf_printf(&m, "%s ", req->project);
	format_version(&c[top].v, &m);
	wp_buf_printf(&m, " has %s", vs.len ? vs.data : "no builds");
	wp_buf_free(&vs);

	/* What stopped the files of that version. */
	size_t at_python = 0, at_variant = 0, at_hash = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].rej <= REJ_YANKED || wp_version_cmp_public(&c[i].v, &c[top].v) != 0)
			continue;
		at_python += c[i].rej == REJ_PYTHON;
		at_hash += c[i].rej == REJ_HASH;
		at_variant += c[i].rej == REJ_VARIANT;
	}
	if (at_variant) {
		switch (t->accel) {
		case WP_ACCEL_CUDA:
			if (t->driver_given)
				wp_buf_printf(&m, "; none runs on driver %s (CUDA %d.%d)",
					      t->driver.text, t->cuda_major, t->cuda_minor);
			else
				wp_buf_printf(&m, "; none runs on CUDA %d.%d", t->cuda_major,
					      t->cuda_minor);
			for (int g = 0; g < t->n_gpus; g++)
				wp_buf_printf(&m, "%ssm_%d", g ? "," : " with ", t->gpu_sm[g]);
			break;
		case WP_ACCEL_CPU:
			wp_buf_addstr(&m, "; none is a CPU build");
			break;
		case WP_ACCEL_ROCM:
			wp_buf_printf(&m, "; none runs on ROCm %d.%d", t->rocm_major,
				      t->rocm_minor);
			break;
		case WP_ACCEL_XPU:
			wp_buf_addstr(&m, "; none is an Intel GPU (XPU) build");
			break;
		}
		if (req->require_variant)
			wp_buf_printf(&m, " as variant '%s'", req->require_variant);
		/* one of them, and what stops it */
		long shown = -1;
		bool cpu_there = false, shown_serves = false;
		for (size_t i = 0; i < n; i++) {
			if (c[i].rej != REJ_VARIANT ||
			    wp_version_cmp_public(&c[i].v, &c[top].v) != 0)
				continue;
			cpu_there |= c[i].var.kind == WP_VARIANT_CPU;
			if (c[i].var.kind != t_kind(t))
				continue;
			/* the nearest miss: a build with kernels for every GPU, which only the
			 * driver stops (its oldest: the smallest driver upgrade), before one that
			 * cannot serve them; else the oldest build of the target's kind: when even
			 * it does not run, none does */
			struct cand scratch = c[i];
			bool serves = t->accel == WP_ACCEL_CUDA && t->n_gpus &&
				      gpus_served(&c[i], &k[i], t, &scratch, NULL);
			if (shown < 0 || (serves && !shown_serves) ||
			    (serves == shown_serves &&
			     wp_variant_cmp(&c[i].var, &c[shown].var) < 0)) {
				shown = (long)i;
				shown_serves = serves;
			}
		}
		bool cpu_only = false;
		for (size_t i = 0; i < n && !cpu_only; i++)
			cpu_only = c[i].cpu_only && wp_version_cmp_public(&c[i].v, &c[top].v) == 0;
		if (shown >= 0) {
			wp_buf_addstr(&m, " (");
			reason_of(&k[shown], &c[shown], req, t, ts, req->pre, &m);
			wp_buf_addch(&m, ')');
		}
		if (cpu_only) {
			wp_buf_printf(&m, "; only the CPU build (null) fits; ask for it with %s",
				      wp_ask_words(req->asks, WP_ASK_CPU));
		} else if (shown < 0 && cpu_there && t->accel != WP_ACCEL_CPU) {
			wp_buf_printf(&m, "; only a CPU build is there (ask for it with %s)",
				      wp_ask_words(req->asks, WP_ASK_CPU));
		} else if (cpu_there && t->accel != WP_ACCEL_CPU) {
			wp_buf_printf(&m, "; a CPU build is there (%s)",
				      wp_ask_words(req->asks, WP_ASK_CPU));
		}
	} else if (at_hash) {
		wp_buf_printf(&m,
			      "; the index now gives another sha256 than was first seen for it (check the source, "
			      "then %s)",
			      wp_ask_words(req->asks, WP_ASK_TRUST));
	} else if (at_python) {
		wp_buf_printf(&m, "; none supports Python %d.%d%s", t->py_major, t->py_minor,
			      wp_target_py_suffix(t));
	} else {
		wp_buf_printf(&m, "; no wheel fits Python %d.%d%s on %s", t->py_major, t->py_minor,
			      wp_target_py_suffix(t), t->platform);
	}

	/* The newest version, any, with a file that fits: what the user could ask for instead. */
	struct wp_pick_request any = *req;
	any.spec = NULL;
	int alt = run_pass(k, c, n, &any, t, ts, req->pre);
	if (alt >= 0) {
		wp_buf_printf(&m, "; the newest %s that fits %s is ", req->project, tgt.data);
		format_version(&c[alt].v, &m);
		if (c[alt].var.kind != WP_VARIANT_NONE)
			wp_buf_printf(&m, " (%s)", c[alt].var.label);
	} else {
		wp_buf_printf(&m, "; no %s in the catalog fits %s", req->project, tgt.data);
	}
	/* leave the per-candidate reasons as they were for the request, for --explain */
	run_pass(k, c, n, req, t, ts, req->pre);
out:
	wp_buf_free(&tgt);
	return wp_buf_detach(&m, NULL);
}

/* Why candidate i is not the pick, in words, whether or not reasons were asked for. */
static void reason_of(const struct wp_candidate *k, struct cand *c,
		      const struct wp_pick_request *req, const struct wp_target *t,
		      const struct wp_tagset *ts, bool pre, struct wp_buf *out)
{
	struct wp_buf *saved = c->whyp;
	struct wp_buf keep = c->why;
	c->why = (struct wp_buf)WP_BUF_INIT;
	c->whyp = &c->why;
	check(k, c, req, t, ts, pre);
	wp_buf_addstr(out, c->why.len ? c->why.data : "does not fit");
	wp_buf_free(&c->why);
	c->why = keep;
	c->whyp = saved;
}

/* Which file speaks for a version that was skipped: the one that got furthest through the
 * checks; among builds the accelerator rule refused, one of the target's kind before others, and
 * the oldest of those (when even that one does not run, none does). */
static bool further(const struct cand *a, const struct cand *b, const struct wp_target *t)
{
	if (a->rej != b->rej)
		return a->rej > b->rej;
	if (a->rej != REJ_VARIANT)
		return false;
	bool ka = a->var.kind == t_kind(t), kb = b->var.kind == t_kind(t);
	if (ka != kb)
		return ka;
	return wp_variant_cmp(&a->var, &b->var) < 0;
}

/* The why-line of a variant wheel: the label, and the property that put it before the next label
 * that also fits here (PEP 825's order), or its first property when no other competes. */
static void explain_vwheel(const struct cand *c, size_t n, long best, const struct wp_target *t,
			   const char *labels, struct wp_buf *out)
{
	const struct cand *b = &c[best];
	long next = -1;
	for (size_t i = 0; i < n; i++)
		if ((long)i != best && c[i].rej == REJ_NONE && c[i].vwheel && c[i].vl &&
		    c[i].vl != b->vl && wp_version_cmp_public(&c[i].v, &b->v) == 0 &&
		    (next < 0 || c[i].vrank < c[next].vrank))
			next = (long)i;
	wp_buf_printf(out,
		      "; of its variants (%s), %s comes first in PEP 825's order for this target",
		      labels, b->var.label);
	struct wp_buf d = WP_BUF_INIT;
	if (next >= 0) {
		wp_vorder_cmp(&b->vm->o, b->vl, c[next].vl, &d);
		wp_buf_printf(out, ": %s puts it before %s", d.data ? d.data : "",
			      c[next].var.label);
	} else if (b->vl->n_props) {
		wp_vorder_first_prop(&b->vm->o, b->vl, &d);
		wp_buf_printf(out, ", the only one that fits (%s)", d.data ? d.data : "");
	} else {
		wp_buf_printf(out, ", the build with no properties, which %s target takes",
			      t->accel == WP_ACCEL_CPU ? "a CPU" : "this");
	}
	wp_buf_free(&d);
}

static void explain_pick(const struct wp_candidate *k, struct cand *c, size_t n, long best,
			 const struct wp_pick_request *req, const struct wp_target *t,
			 const struct wp_tagset *ts, bool pre, struct wp_buf *out)
{
	const struct cand *b = &c[best];
	struct wp_buf vs = WP_BUF_INIT;
	variants_at(c, n, &b->v, &vs);
	wp_buf_printf(out, "%s ", k[best].project);
	format_version(&b->v, out);
	wp_buf_addstr(out, " is the newest version with a build that runs here");
	if (b->vwheel && b->vm && b->vl) {
		explain_vwheel(c, n, best, t, vs.data, out);
		wp_buf_free(&vs);
		goto skipped;
	}
	switch (b->var.kind) {
	case WP_VARIANT_CUDA: {
		wp_buf_printf(out, "; of its builds (%s), %s is the newest CUDA the driver runs",
			      vs.data, b->var.label);
		if (b->how == WP_RUNS_MINOR_COMPAT) {
			const char *floor = NULL;
			struct wp_driver d = t->driver;
			if (!d.nparts)
				wp_driver_for_cuda(t->cuda_major, t->cuda_minor,
						   wp_target_is_windows(t), &d);
			wp_cuda_compat_min_driver(b->var.major, wp_target_is_windows(t), &floor);
			wp_buf_printf(out,
				      " by NVIDIA's minor-version compatibility (driver %s, CUDA %d.%d; CUDA %d.x builds "
				      "run on %s or newer)",
				      d.nparts ? d.text : "?", t->cuda_major, t->cuda_minor,
				      b->var.major, floor ? floor : "?");
		}
		if (t->n_gpus) {
			wp_buf_addstr(out, ", with kernels for");
			for (int g = 0; g < t->n_gpus; g++)
				wp_buf_printf(out, "%s sm_%d", g ? "," : "", t->gpu_sm[g]);
			if (b->arch_note[0])
				wp_buf_printf(out, " (%s: the tables have none for this release)",
					      b->arch_note);
		}
		break;
	}
	case WP_VARIANT_NONE:
		wp_buf_addstr(out, "; the file carries no variant");
		break;
	default:
		wp_buf_printf(out, "; of its builds (%s), %s was asked for", vs.data, b->var.label);
		break;
	}
	if (b->var_src && (!strcmp(b->var_src, "metadata") || !strcmp(b->var_src, "PyPI default")))
		wp_buf_printf(out, " (an unlabeled build: %s)",
			      !strcmp(b->var_src, "metadata") ?
				      "its METADATA's nvidia-* pins say which CUDA" :
				      "PyPI's known build for that release and platform");
	wp_buf_free(&vs);

skipped:;
	/* what was skipped: builds of this version with a newer CUDA (for variant wheels: labels of
	 * the target's kind that do not fit), then newer versions */
	struct wp_buf sk = WP_BUF_INIT;
	size_t nsk = 0;
	for (size_t i = 0; i < n && nsk < 3; i++) {
		bool newer = b->vwheel ? c[i].vwheel && c[i].var.kind == t_kind(t) &&
						 strcmp(c[i].var.label, b->var.label) != 0 :
					 c[i].var.kind == WP_VARIANT_CUDA &&
						 wp_variant_cmp(&c[i].var, &b->var) > 0;
		if ((long)i == best || c[i].rej != REJ_VARIANT || !newer ||
		    wp_version_cmp_public(&c[i].v, &b->v) != 0)
			continue;
		bool dup = false;
		for (size_t j = 0; j < i && !dup; j++)
			dup = (long)j != best && c[j].rej == REJ_VARIANT &&
			      !strcmp(c[j].var.label, c[i].var.label) &&
			      wp_version_cmp_public(&c[j].v, &b->v) == 0;
		if (dup)
			continue;
		wp_buf_addstr(&sk, nsk++ ? "; " : "");
		reason_of(&k[i], &c[i], req, t, ts, pre, &sk);
	}
	for (size_t seen = 0; seen < 3;) {
		/* the newest version above the pick not yet said, and its furthest-reaching file */
		long top = -1;
		for (size_t i = 0; i < n; i++) {
			if (!c[i].v_ok || c[i].rej <= REJ_YANKED || c[i].rej == REJ_SKIPPED ||
			    wp_version_cmp_public(&c[i].v, &b->v) <= 0)
				continue;
			if (top >= 0 && wp_version_cmp_public(&c[i].v, &c[top].v) < 0)
				continue;
			if (top < 0 || wp_version_cmp_public(&c[i].v, &c[top].v) > 0 ||
			    further(&c[i], &c[top], t))
				top = (long)i;
		}
		if (top < 0)
			break;
		wp_buf_addstr(&sk, nsk++ ? "; " : "");
		format_version(&c[top].v, &sk);
		wp_buf_addstr(&sk, ": ");
		if (c[top].rej == REJ_TAGS)
			wp_buf_printf(&sk, "no build for Python %d.%d%s on %s", t->py_major,
				      t->py_minor, wp_target_py_suffix(t), t->platform);
		else
			reason_of(&k[top], &c[top], req, t, ts, pre, &sk);
		seen++;
		/* the next round looks below this version */
		for (size_t i = 0; i < n; i++)
			if (c[i].v_ok && wp_version_cmp_public(&c[i].v, &c[top].v) == 0)
				c[i].rej = REJ_SKIPPED;
	}
	if (nsk)
		wp_buf_printf(out, "; skipped %s", sk.data);
	wp_buf_free(&sk);
}

/* PEP 825: each distinct variants.json among the candidates ordered once for the target, and each
 * variant wheel's rank in it (steps 1-7: supported labels by their best properties; null, with
 * none, comes last of them). */
static void vmetas_setup(const struct wp_candidate *k, struct cand *c, size_t n,
			 const struct wp_target *t, struct vmetas *vms)
{
	char label[48];
	vms->v = wp_xcalloc(n ? n : 1, sizeof(*vms->v)); /* never grown: c[i].vm points into it */
	for (size_t i = 0; i < n; i++) {
		c[i].vm = NULL;
		c[i].vl = NULL;
		c[i].vrank = VRANK_NONE;
		c[i].vwheel = k[i].kind && !strcmp(k[i].kind, "wheel") &&
			      name_label(k[i].filename, label);
		if (!c[i].vwheel || !k[i].variants)
			continue;
		size_t m = 0;
		while (m < vms->n && vms->v[m].v != k[i].variants)
			m++;
		if (m == vms->n) {
			struct vmeta *vm = &vms->v[vms->n++];
			vm->v = k[i].variants;
			wp_vorder_init(&vm->o, vm->v, t);
			vm->sorted = wp_xcalloc(vm->v->n_labels + 1, sizeof(*vm->sorted));
			for (size_t l = 0; l < vm->v->n_labels; l++) {
				const struct wp_vlabel *vl = &vm->v->labels[l];
				if (!wp_vorder_supported(&vm->o, vl, NULL))
					continue;
				size_t at = vm->n_sorted++;
				while (at > 0 &&
				       wp_vorder_cmp(&vm->o, vl, vm->sorted[at - 1], NULL) < 0) {
					vm->sorted[at] = vm->sorted[at - 1];
					at--;
				}
				vm->sorted[at] = vl;
			}
		}
		c[i].vm = &vms->v[m];
		c[i].vl = wp_variants_find(k[i].variants, label);
		for (size_t r = 0; c[i].vl && r < vms->v[m].n_sorted; r++)
			if (vms->v[m].sorted[r] == c[i].vl)
				c[i].vrank = (int)r;
	}
}

static int by_seq(const void *a, const void *b, void *vk)
{
	const struct wp_candidate *k = vk;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (k[x].seq != k[y].seq)
		return k[x].seq < k[y].seq ? -1 : 1;
	return (x > y) - (x < y);
}

/* The candidates' indexes in the order the index lists them (seq; ties and 0 in array order). */
static size_t *in_seq_order(const struct wp_candidate *k, size_t n)
{
	size_t *o = wp_xcalloc(n ? n : 1, sizeof(*o));
	for (size_t i = 0; i < n; i++)
		o[i] = i;
	qsort_r(o, n, sizeof(*o), by_seq, (void *)k);
	return o;
}

int wp_pick(const struct wp_candidate *k, size_t n, const struct wp_pick_request *req,
	    const struct wp_target *t, const struct wp_tagset *ts, struct wp_pick_result *res,
	    struct wp_err *err)
{
	struct cand *c = wp_xcalloc(n ? n : 1, sizeof(*c));
	struct wp_err e = WP_ERR_INIT;
	memset(res, 0, sizeof(*res));
	res->chosen = -1;
	res->needs_metadata = -1;
	res->untrusted = -1;
	for (size_t i = 0; i < n; i++) {
		if (req->memo) {
			struct wp_pick_parsed p;
			wp_pick_memo_get(req->memo, i, &k[i], wp_pick_candidate_variant, &p);
			c[i].v_ok = c[i].v_memo = p.v_ok;
			if (p.v_ok)
				c[i].v = *p.v;
			c[i].var = p.var;
			c[i].var_pending = p.var_pending;
			c[i].var_src = p.var_src;
		} else {
			c[i].v_ok = k[i].version && wp_version_parse(&c[i].v, k[i].version,
								     strlen(k[i].version), &e) == 0;
			wp_err_clear(&e);
			wp_pick_candidate_variant(&k[i], &c[i].var, &c[i].var_pending,
						  &c[i].var_src);
		}
		c[i].why = (struct wp_buf)WP_BUF_INIT;
		c[i].whyp = req->reasons ? &c[i].why : NULL;
	}
	struct vmetas vms = { 0 };
	vmetas_setup(k, c, n, t, &vms);
	bool pre = req->pre;
	size_t *order = NULL; /* with reasons: the rejects' order */
	long best = run_pass(k, c, n, req, t, ts, pre);
	long stop = untrusted_pick(k, c, n, req, t, ts, pre);
	if (req->partial && ((best < 0 && stop < 0) || req->reasons)) {
		/* an older file could fit where none of these does, or must get its reason */
		res->incomplete = true;
		best = -1;
		goto out;
	}
	/* packaging's filter: with no final release that fits, pre-releases are taken */
	if (best < 0 && stop < 0 && !req->pre) {
		pre = true;
		best = run_pass(k, c, n, req, t, ts, pre);
		stop = untrusted_pick(k, c, n, req, t, ts, pre);
	}
	long ref = stop >= 0 ? stop : best; /* what the pick is, trusted or not */
	/* an unlabeled torch wheel that could beat the pick (or be the only one) once its METADATA
	 * says which build it is: the caller reads it and asks again */
	size_t cap = res->n_pending; /* what res->pending holds at least */
	for (size_t i = 0; i < n; i++) {
		if (!c[i].var_pending || c[i].rej != REJ_VARIANT)
			continue;
		if (ref >= 0 && wp_version_cmp_public(&c[i].v, &c[ref].v) < 0)
			continue;
		size_t at = wp_vec_push_fields(res->pending, res->n_pending, cap, i);
		/* insertion, best first: a few dozen at most (one per version and platform) */
		while (at > 0 && better(&c[i], &c[res->pending[at - 1]], t) > 0) {
			res->pending[at] = res->pending[at - 1];
			at--;
		}
		res->pending[at] = i;
	}
	if (res->n_pending)
		res->needs_metadata = (long)res->pending[0];
	if (stop >= 0 && res->needs_metadata < 0) {
		best = -1;
		res->untrusted = stop;
		res->message = untrusted_message(&k[stop], req, t);
	} else if (best >= 0) {
		struct wp_buf why = WP_BUF_INIT;
		res->chosen = best;
		res->variant = c[best].var;
		if (res->needs_metadata < 0) /* the reason of a pick that stands, not of a
						provisional one */
			explain_pick(k, c, n, best, req, t, ts, pre, &why);
		res->reason = wp_buf_detach(&why, NULL);
		/* explain_pick marks the versions it spoke of; the reasons below are per file
		 * again */
		if (req->reasons)
			run_pass(k, c, n, req, t, ts, pre);
	} else {
		res->message = nothing_fits(k, c, n, req, t, ts);
	}
	if (req->reasons)
		res->rejects = wp_xcalloc(n ? n : 1, sizeof(*res->rejects));
	if (req->reasons)
		order = in_seq_order(k, n);
out:
	for (size_t i = 0; i < n; i++) {
		if (req->reasons && !res->incomplete && c[i].rej == REJ_NONE && (long)i != best) {
			wp_buf_reset(&c[i].why);
			wp_buf_addstr(&c[i].why, "fits, but another file is better");
		}
		if (c[i].v_ok && !c[i].v_memo)
			wp_version_release(&c[i].v);
	}
	for (size_t j = 0; order && j < n; j++) {
		size_t i = order[j];
		if ((long)i != best) {
			res->rejects[res->n_rejects].index = i;
			res->rejects[res->n_rejects].why = wp_buf_detach(&c[i].why, NULL);
			res->n_rejects++;
		}
	}
	for (size_t i = 0; i < n; i++)
		wp_buf_free(&c[i].why);
	free(order);
	for (size_t i = 0; i < vms.n; i++) {
		wp_vorder_release(&vms.v[i].o);
		free(vms.v[i].sorted);
	}
	free(vms.v);
	free(c);
	(void)err;
	return 0;
}

void wp_pick_result_release(struct wp_pick_result *res)
{
	free(res->pending);
	free(res->reason);
	free(res->message);
	for (size_t i = 0; i < res->n_rejects; i++)
		free(res->rejects[i].why);
	free(res->rejects);
	memset(res, 0, sizeof(*res));
	res->chosen = -1;
	res->needs_metadata = -1;
	res->untrusted = -1;
}
