/* resolver/pick.c: the picking rule (DESIGN.md "The CUDA rule"): version first, then the newest
 * variant the target runs, then the best tag; every rejected file gets a reason. */
#include "resolver/pick.h"
#include "base/mem.h"
#include "resolver/gpu.h"
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
};

struct cand {
	struct wp_version v;
	bool v_ok;
	struct wp_variant var;
	int tag_prio;          /* lowest (best) priority among the file's tags; -1 none */
	long long build_num;
	enum rej rej;
	struct wp_buf why;
	struct wp_buf *whyp;   /* &why when reasons are wanted, else NULL */
};

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
	return s && s->n == 1 && (s->specs[0].op == WP_OP_EQ || s->specs[0].op == WP_OP_ARBITRARY) &&
	       !s->specs[0].wildcard;
}

static void cuda_str(char *out, size_t n, int major, int minor)
{
	snprintf(out, n, "%d.%d", major, minor);
}

/* The accelerator rule. Returns true when the variant may run on the target; else fills why. */
static bool variant_fits(const struct wp_variant *var, const struct wp_target *t, const struct wp_pick_request *req,
			 struct wp_buf *why)
{
	const char *label = var->kind == WP_VARIANT_NONE ? "" : var->label;
	char tc[16];
	if (req->require_variant && strcmp(label, req->require_variant) != 0) {
		say(why, "%s: the set shares variant '%s'", *label ? label : "no variant", req->require_variant);
		return false;
	}
	for (size_t i = 0; i < req->n_avoid; i++) {
		if (!strcmp(label, req->avoid_variants[i])) {
			say(why, "%s: cannot complete the set", *label ? label : "no variant");
			return false;
		}
	}
	switch (var->kind) {
	case WP_VARIANT_NONE:
		return true; /* a file with no variant is the project's only build for its tags */
	case WP_VARIANT_CUDA:
		if (t->accel != WP_ACCEL_CUDA) {
			say(why, "%s: a CUDA build; the target is %s", label,
				      t->accel == WP_ACCEL_CPU ? "CPU-only" : "ROCm");
			return false;
		}
		cuda_str(tc, sizeof(tc), t->cuda_major, t->cuda_minor);
		if (!wp_variant_runs_on_cuda(var, t->cuda_major, t->cuda_minor)) {
			say(why, "%s: CUDA %d.%d is newer than the target's %s", label, var->major, var->minor, tc);
			return false;
		}
		return wp_gpu_cuda_fits(t, var->major, var->minor, label, why);
	case WP_VARIANT_CPU:
		if (t->accel == WP_ACCEL_CPU)
			return true;
		say(why, "%s: a CPU build; ask with --cuda cpu", label);
		return false;
	case WP_VARIANT_ROCM:
		if (t->accel == WP_ACCEL_ROCM && var->major == t->rocm_major && var->minor <= t->rocm_minor)
			return true;
		if (t->accel == WP_ACCEL_ROCM)
			say(why, "%s: ROCm %d.%d does not match the target's ROCm %d.%d", label, var->major,
				      var->minor, t->rocm_major, t->rocm_minor);
		else
			say(why, "%s: a ROCm build; ask with --rocm X.Y", label);
		return false;
	default:
		say(why, "%s: a %s build; wheelpick picks CUDA, ROCm or CPU builds", label,
			      var->kind == WP_VARIANT_XPU ? "XPU" : "special");
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
	    (t->accel == WP_ACCEL_ROCM && v->kind == WP_VARIANT_ROCM))
		return 2;
	return 0;
}

/* >0 when a is the better pick than b (both fit). */
static int better(const struct cand *a, const struct cand *b, const struct wp_target *t)
{
	int c = wp_version_cmp_public(&a->v, &b->v);
	if (c)
		return c;
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
	wp_buf_printf(out, "Python %d.%d", t->py_major, t->py_minor);
}

void wp_target_describe(const struct wp_target *t, struct wp_buf *out)
{
	switch (t->accel) {
	case WP_ACCEL_CUDA:
		wp_buf_printf(out, "CUDA %d.%d", t->cuda_major, t->cuda_minor);
		break;
	case WP_ACCEL_CPU:
		wp_buf_addstr(out, "CPU");
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
}

static int tag_priority(const char *filename, const struct wp_tagset *ts, long long *build_num)
{
	struct wp_wheelname w;
	struct wp_err e = WP_ERR_INIT;
	int best = -1;
	if (wp_wheelname_parse(filename, &w, &e) < 0)
		return -2;
	for (size_t i = 0; i < w.n_tags; i++) {
		int p = wp_tagset_priority(ts, w.tags[i]);
		if (p >= 0 && (best < 0 || p < best))
			best = p;
	}
	*build_num = w.build_num;
	wp_wheelname_release(&w);
	return best;
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
	snprintf(py, sizeof(py), "%d.%d.%d", t->py_major, t->py_minor, t->py_micro < 0 ? 0 : t->py_micro);
	if (wp_specset_parse(&rp, requires_python, strlen(requires_python), &e) < 0)
		return true; /* pip ignores an unreadable Requires-Python; so do we */
	if (wp_version_parse(&pv, py, strlen(py), &e) == 0) {
		ok = wp_specset_contains(&rp, &pv, WP_PRERELEASES_YES);
		wp_version_release(&pv);
	}
	wp_specset_release(&rp);
	if (!ok)
		say(why, "requires Python %s; the target has %d.%d", requires_python, t->py_major, t->py_minor);
	return ok;
}

/* Checks one candidate; fills c. pre: whether pre-releases count on this pass. */
static void check(const struct wp_candidate *k, struct cand *c, const struct wp_pick_request *req,
		  const struct wp_target *t, const struct wp_tagset *ts, bool pre)
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
		say(c->whyp, "%s is outside '%s'", k->version, req->spec_text ? req->spec_text : "");
		return;
	}
	if (!pre && wp_version_is_prerelease(&c->v) &&
	    !(req->spec && wp_specset_prereleases(req->spec) == WP_PRERELEASES_YES)) {
		c->rej = REJ_PRE;
		say(c->whyp, "%s is a pre-release; ask with --pre", k->version);
		return;
	}
	if (k->yanked && !spec_is_exact_pin(req->spec)) {
		c->rej = REJ_YANKED;
		say(c->whyp, "yanked%s%s; pin it with == to take it anyway", *k->yanked ? ": " : "", k->yanked);
		return;
	}
	if (k->hash_conflict) {
		c->rej = REJ_HASH;
		say(c->whyp, "the index now gives sha256 %.12s... but %.12s... was seen first; "
				       "check the source, then run 'wheelpick trust'", k->sha256 ? k->sha256 : "?",
			      k->hash_conflict);
		return;
	}
	c->tag_prio = tag_priority(k->filename, ts, &c->build_num);
	if (c->tag_prio < 0) {
		c->rej = c->tag_prio == -2 ? REJ_NAME : REJ_TAGS;
		if (c->tag_prio == -2)
			say(c->whyp, "'%s' is not a valid wheel name", k->filename);
		else
			say(c->whyp, "tags do not fit Python %d.%d on %s", t->py_major, t->py_minor, t->platform);
		return;
	}
	if (!python_fits(k->requires_python, t, c->whyp)) {
		c->rej = REJ_PYTHON;
		return;
	}
	if (!variant_fits(&c->var, t, req, c->whyp)) {
		c->rej = REJ_VARIANT;
		return;
	}
	(void)e;
}

static int run_pass(const struct wp_candidate *k, struct cand *c, size_t n, const struct wp_pick_request *req,
		    const struct wp_target *t, const struct wp_tagset *ts, bool pre)
{
	long best = -1;
	for (size_t i = 0; i < n; i++) {
		check(&k[i], &c[i], req, t, ts, pre);
		if (c[i].rej == REJ_NONE && (best < 0 || better(&c[i], &c[best], t) > 0))
			best = (long)i;
	}
	return (int)best;
}

/* Labels of the files at one public version, in variant order, as "cpu, cu101, cu102". */
static void variants_at(const struct cand *c, size_t n, const struct wp_version *at, struct wp_buf *out)
{
	const struct wp_variant *seen[64];
	size_t ns = 0;
	for (size_t i = 0; i < n; i++) {
		if (!c[i].v_ok || wp_version_cmp_public(&c[i].v, at) != 0 || c[i].rej == REJ_KIND)
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
		wp_buf_printf(out, "%s%s", i ? ", " : "", seen[i]->kind == WP_VARIANT_NONE ? "no variant" : seen[i]->label);
}

static void format_version(const struct wp_version *v, struct wp_buf *out)
{
	wp_version_format_public(v, out);
}

/* "torch 1.8.0 has cpu, cu101, cu102, cu111; none runs on CUDA 9.2; the newest torch with a
 * build that fits is 1.7.1 (cu92)". */
static char *nothing_fits(const struct wp_candidate *k, struct cand *c, size_t n, const struct wp_pick_request *req,
			  const struct wp_target *t, const struct wp_tagset *ts)
{
	struct wp_buf m = WP_BUF_INIT, tgt = WP_BUF_INIT;
	long top = -1;
	size_t counts[REJ_VARIANT + 1] = { 0 };
	wp_target_describe(t, &tgt);
	if (n == 0) {
		wp_buf_printf(&m, "the catalog has no files for '%s'; add its index with --index URL (or run 'wheelpick update')",
			      req->project);
		goto out;
	}
	/* The newest version the request allows, whatever else is wrong with its files. */
	for (size_t i = 0; i < n; i++) {
		if (c[i].rej > REJ_YANKED && (top < 0 || wp_version_cmp_public(&c[i].v, &c[top].v) > 0))
			top = (long)i;
		counts[c[i].rej]++;
	}
	if (top < 0) {
		if (counts[REJ_SPEC] || counts[REJ_PRE] || counts[REJ_YANKED]) {
			wp_buf_printf(&m, "no %s release matches '%s'%s", req->project, req->spec_text ? req->spec_text : "",
				      counts[REJ_PRE] ? " (pre-releases need --pre)" : "");
			long newest = -1;
			for (size_t i = 0; i < n; i++)
				if (c[i].v_ok && c[i].rej != REJ_KIND && (newest < 0 || wp_version_cmp_public(&c[i].v, &c[newest].v) > 0))
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
			wp_buf_printf(&m, "; none runs on CUDA %d.%d", t->cuda_major, t->cuda_minor);
			if (t->n_gpus)
				wp_buf_printf(&m, " with sm_%d", t->gpu_sm[0]);
			break;
		case WP_ACCEL_CPU:
			wp_buf_addstr(&m, "; none is a CPU build");
			break;
		case WP_ACCEL_ROCM:
			wp_buf_printf(&m, "; none runs on ROCm %d.%d", t->rocm_major, t->rocm_minor);
			break;
		}
		if (req->require_variant)
			wp_buf_printf(&m, " as variant '%s'", req->require_variant);
	} else if (at_hash) {
		wp_buf_addstr(&m, "; the index now gives another sha256 than was first seen for it (check the source, "
				  "then run 'wheelpick trust')");
	} else if (at_python) {
		wp_buf_printf(&m, "; none supports Python %d.%d", t->py_major, t->py_minor);
	} else {
		wp_buf_printf(&m, "; no wheel fits Python %d.%d on %s", t->py_major, t->py_minor, t->platform);
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

static void explain_pick(const struct wp_candidate *k, const struct cand *c, size_t n, long best,
			 const struct wp_target *t, struct wp_buf *out)
{
	const struct cand *b = &c[best];
	struct wp_buf vs = WP_BUF_INIT;
	variants_at(c, n, &b->v, &vs);
	wp_buf_printf(out, "%s ", k[best].project);
	format_version(&b->v, out);
	wp_buf_addstr(out, " is the newest version with a build that fits");
	switch (b->var.kind) {
	case WP_VARIANT_CUDA:
		wp_buf_printf(out, "; of its builds (%s), %s is the newest CUDA not newer than the target's %d.%d", vs.data,
			      b->var.label, t->cuda_major, t->cuda_minor);
		break;
	case WP_VARIANT_NONE:
		wp_buf_addstr(out, "; the file carries no variant");
		break;
	default:
		wp_buf_printf(out, "; of its builds (%s), %s was asked for", vs.data, b->var.label);
		break;
	}
	wp_buf_free(&vs);
}

int wp_pick(const struct wp_candidate *k, size_t n, const struct wp_pick_request *req, const struct wp_target *t,
	    const struct wp_tagset *ts, struct wp_pick_result *res, struct wp_err *err)
{
	struct cand *c = wp_xcalloc(n ? n : 1, sizeof(*c));
	struct wp_err e = WP_ERR_INIT;
	memset(res, 0, sizeof(*res));
	res->chosen = -1;
	for (size_t i = 0; i < n; i++) {
		c[i].v_ok = k[i].version && wp_version_parse(&c[i].v, k[i].version, strlen(k[i].version), &e) == 0;
		wp_err_clear(&e);
		if (!(k[i].variant && *k[i].variant && wp_variant_from_label(k[i].variant, &c[i].var)))
			memset(&c[i].var, 0, sizeof(c[i].var));
		c[i].why = (struct wp_buf)WP_BUF_INIT;
		c[i].whyp = req->reasons ? &c[i].why : NULL;
	}
	long best = run_pass(k, c, n, req, t, ts, req->pre);
	/* packaging's filter: with no final release that fits, pre-releases are taken */
	if (best < 0 && !req->pre)
		best = run_pass(k, c, n, req, t, ts, true);
	if (best >= 0) {
		struct wp_buf why = WP_BUF_INIT;
		res->chosen = best;
		res->variant = c[best].var;
		explain_pick(k, c, n, best, t, &why);
		res->reason = wp_buf_detach(&why, NULL);
	} else {
		res->message = nothing_fits(k, c, n, req, t, ts);
	}
	if (req->reasons)
		res->rejects = wp_xcalloc(n ? n : 1, sizeof(*res->rejects));
	for (size_t i = 0; i < n; i++) {
		if (req->reasons && c[i].rej == REJ_NONE && (long)i != best) {
			wp_buf_reset(&c[i].why);
			wp_buf_addstr(&c[i].why, "fits, but another file is better");
		}
		if (req->reasons && (long)i != best) {
			res->rejects[res->n_rejects].index = i;
			res->rejects[res->n_rejects].why = wp_buf_detach(&c[i].why, NULL);
			res->n_rejects++;
		}
		wp_buf_free(&c[i].why);
		if (c[i].v_ok)
			wp_version_release(&c[i].v);
	}
	free(c);
	(void)err;
	return 0;
}

void wp_pick_result_release(struct wp_pick_result *res)
{
	free(res->reason);
	free(res->message);
	for (size_t i = 0; i < res->n_rejects; i++)
		free(res->rejects[i].why);
	free(res->rejects);
	memset(res, 0, sizeof(*res));
	res->chosen = -1;
}
