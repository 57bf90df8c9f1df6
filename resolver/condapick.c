/* resolver/condapick.c: the picking rule for conda records: fit (subdir, Python, virtual packages,
 * CUDA rule), then rank. */
#include "resolver/condapick.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/vec.h"
#include "resolver/condaver.h"
#include "resolver/fileinfo.h"
#include "resolver/gpu.h"

/* Why a record was dropped, in the order the checks run. Everything after REJ_CHANNEL passed the
 * request, so "nothing fits" speaks about those. */
enum rej {
	REJ_NONE = 0,
	REJ_NAME,     /* another package, or no version */
	REJ_SPEC,     /* version / build / build_number outside the request */
	REJ_CHANNEL,  /* the spec names another channel or subdir */
	REJ_SUBDIR,   /* built for another platform */
	REJ_BROKEN,   /* depends unreadable */
	REJ_PYTHON,
	REJ_VARIANT,  /* the CUDA rule */
	REJ_VIRTUAL,  /* __glibc, __cuda, __osx ... */
	REJ_HASH,     /* its sha256 changed since first seen (trust on first use) */
	REJ_MAX,
};

struct cand {
	struct wp_condaver v;
	bool v_ok;
	struct wp_matchspec *deps, *cons;
	size_t n_deps, n_cons;
	bool deps_ok;
	char deps_err[256];
	struct wp_variant var;
	int n_tf;               /* track_features count */
	enum rej rej;
	struct wp_buf why;
};

/* ---- the target as conda sees it ---- */

void wp_condapick_subdir(const struct wp_target *t, char out[32])
{
	static const struct {
		const char *arch, *linux_subdir;
	} arches[] = {
		{ "x86_64", "linux-64" },       { "aarch64", "linux-aarch64" },
		{ "ppc64le", "linux-ppc64le" }, { "s390x", "linux-s390x" },
		{ "i686", "linux-32" },         { "armv7l", "linux-armv7l" },
		{ "riscv64", "linux-riscv64" },
	};
	const char *p = t->platform;
	out[0] = 0;
	if (t->conda_subdir[0]) {
		snprintf(out, 32, "%s", t->conda_subdir);
		return;
	}
	if (!strncmp(p, "manylinux", 9) || !strncmp(p, "musllinux", 9) ||
	    !strncmp(p, "linux_", 6)) {
		size_t n = strlen(p);
		for (size_t i = 0; i < WP_ARRAY_LEN(arches); i++) {
			size_t an = strlen(arches[i].arch);
			if (n > an && !strcmp(p + n - an, arches[i].arch) && p[n - an - 1] == '_') {
				snprintf(out, 32, "%s", arches[i].linux_subdir);
				return;
			}
		}
	} else if (!strncmp(p, "macosx_", 7)) {
		snprintf(out, 32, "%s", strstr(p, "arm64") ? "osx-arm64" : "osx-64");
	} else if (!strcmp(p, "win_amd64")) {
		snprintf(out, 32, "win-64");
	} else if (!strcmp(p, "win32")) {
		snprintf(out, 32, "win-32");
	} else if (!strcmp(p, "win_arm64")) {
		snprintf(out, 32, "win-arm64");
	}
}

/* glibc the target has, from detection or its manylinux tag; false when unknown. */
static bool target_glibc(const struct wp_target *t, int *maj, int *min)
{
	const char *p = t->platform;
	if (t->glibc_major > 0) {
		*maj = t->glibc_major;
		*min = t->glibc_minor;
		return true;
	}
	if (sscanf(p, "manylinux_%d_%d_", maj, min) == 2)
		return true;
	static const struct {
		const char *tag;
		int maj, min;
	} legacy[] = { { "manylinux2014_", 2, 17 },
		       { "manylinux2010_", 2, 12 },
		       { "manylinux1_", 2, 5 } };
	for (size_t i = 0; i < WP_ARRAY_LEN(legacy); i++)
		if (!strncmp(p, legacy[i].tag, strlen(legacy[i].tag))) {
			*maj = legacy[i].maj;
			*min = legacy[i].min;
			return true;
		}
	return false;
}

static bool target_macos(const struct wp_target *t, int *maj, int *min)
{
	return sscanf(t->platform, "macosx_%d_%d_", maj, min) == 2;
}

void wp_condapick_describe_target(const struct wp_target *t, struct wp_buf *out)
{
	char sd[32];
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
	case WP_ACCEL_XPU:
		wp_buf_addstr(out, "Intel GPU (XPU)");
		break;
	}
	if (t->py_major > 0)
		wp_buf_printf(out, ", Python %d.%d%s", t->py_major, t->py_minor,
			      wp_target_py_suffix(t));
	wp_condapick_subdir(t, sd);
	wp_buf_printf(out, ", %s", sd[0] ? sd : t->platform);
	for (int g = 0; g < t->n_gpus; g++)
		wp_buf_printf(out, "%ssm_%d", g ? "," : ", GPU ", t->gpu_sm[g]);
}

/* ---- the CUDA rule ---- */

static bool is_cuda_pin(const char *name)
{
	return !strcmp(name, "cudatoolkit") || !strcmp(name, "cuda-version") ||
	       !strcmp(name, "pytorch-cuda") || !strcmp(name, "cuda-cudart");
}

/* "11.1", "12", "10.0.130" -> major, minor */
static bool major_minor(const char *s, int *maj, int *min)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return false;
	long a = strtol(s, &end, 10), b = 0;
	if (*end == '.' && isdigit((unsigned char)end[1]))
		b = strtol(end + 1, &end, 10);
	if (a > 999 || b > 999)
		return false;
	*maj = (int)a;
	*min = (int)b;
	return true;
}

static void set_cuda(struct wp_variant *v, int maj, int min)
{
	memset(v, 0, sizeof(*v));
	v->kind = WP_VARIANT_CUDA;
	v->major = maj;
	v->minor = min;
	snprintf(v->label, sizeof(v->label), "cu%d%d", maj, min);
}

static void classify(const struct wp_conda_candidate *k, const struct wp_matchspec *deps, size_t nd,
		     struct wp_variant *out)
{
	int cmaj = -1, cmin = -1, maj, min;
	bool cuda = false, cpu = false;
	struct wp_buf f = WP_BUF_INIT;
	char lab[48];
	for (size_t i = 0; i < nd; i++) {
		const struct wp_matchspec *d = &deps[i];
		if (is_cuda_pin(d->name) && wp_matchspec_version_floor(d, &f) &&
		    major_minor(f.data, &maj, &min)) {
			/* the build needs every pin: the highest floor is its CUDA */
			if (maj > cmaj || (maj == cmaj && min > cmin))
				cmaj = maj, cmin = min;
		} else if (!strcmp(d->name, "pytorch-mutex") && d->build) {
			cuda |= strstr(d->build, "cuda") != NULL;
			cpu |= strstr(d->build, "cpu") != NULL;
		} else if (!strcmp(d->name, "__cuda")) {
			cuda = true;
		} else if (!strcmp(d->name, "cpuonly")) {
			cpu = true;
		}
	}
	wp_buf_free(&f);
	wp_conda_variant(k->build, lab);
	if (cmaj >= 0) {
		set_cuda(out, cmaj, cmin);
		return;
	}
	if (!strncmp(lab, "cu", 2) && wp_variant_from_label(lab, out) &&
	    out->kind == WP_VARIANT_CUDA)
		return;
	memset(out, 0, sizeof(*out));
	if (cuda) {
		set_cuda(out, 0, 0);
		snprintf(out->label, sizeof(out->label), "cuda");
	} else if (cpu || !strcmp(lab, "cpu")) {
		out->kind = WP_VARIANT_CPU;
		snprintf(out->label, sizeof(out->label), "cpu");
	}
}

void wp_condapick_variant(const struct wp_conda_candidate *c, struct wp_variant *v)
{
	struct wp_matchspec *deps = NULL;
	size_t nd = 0;
	struct wp_err e = WP_ERR_INIT;
	if (wp_matchspec_parse_json_list(c->depends, &deps, &nd, &e) < 0)
		nd = 0;
	classify(c, deps, nd, v);
	wp_matchspecs_free(deps, nd);
}

/* conda's spelling for lists of builds: cpu, cuda11.1, cuda (version unknown), no variant */
static void conda_label(const struct wp_variant *v, struct wp_buf *out)
{
	if (v->kind == WP_VARIANT_CUDA && !v->major)
		wp_buf_addstr(out, "cuda");
	else if (v->kind == WP_VARIANT_CUDA)
		wp_buf_printf(out, "cuda%d.%d", v->major, v->minor);
	else if (v->kind == WP_VARIANT_NONE)
		wp_buf_addstr(out, "no variant");
	else
		wp_buf_addstr(out, v->label);
}

/* ---- fitting ---- */

static const char *vlabel(const struct wp_variant *v)
{
	return v->kind == WP_VARIANT_NONE ? "" : v->label;
}

static bool variant_fits(const struct wp_variant *var, const struct wp_target *t,
			 const struct wp_condapick_request *req, struct wp_buf *why)
{
	const char *label = vlabel(var);
	if (req->require_variant && strcmp(label, req->require_variant) != 0) {
		wp_buf_printf(why, "%s: the set shares variant '%s'", *label ? label : "no variant",
			      req->require_variant);
		return false;
	}
	for (size_t i = 0; i < req->n_avoid; i++) {
		if (!strcmp(label, req->avoid_variants[i])) {
			wp_buf_printf(why, "%s: cannot complete the set",
				      *label ? label : "no variant");
			return false;
		}
	}
	if (req->allow_variant && *label && !strcmp(label, req->allow_variant))
		return true; /* the user's exact build string chose it for the set */
	switch (var->kind) {
	case WP_VARIANT_NONE:
		return true;
	case WP_VARIANT_CUDA:
		if (t->accel != WP_ACCEL_CUDA) {
			wp_buf_printf(why, "%s: a CUDA build; the target is %s", label,
				      t->accel == WP_ACCEL_CPU  ? "CPU-only" :
				      t->accel == WP_ACCEL_ROCM ? "ROCm" :
								  "an Intel GPU");
			return false;
		}
		if (!var->major)
			return true; /* CUDA of unknown version: its own depends decide, in the
					closure */
		/* the same driver rule as wheels: minor-version compatibility unless --cuda-compat
		 * strict */
		struct wp_buf w = WP_BUF_INIT;
		bool runs = wp_target_runs_cuda(t, var->major, var->minor, NULL, &w);
		if (!runs)
			wp_buf_printf(why, "%s: %s", label, w.data);
		wp_buf_free(&w);
		if (!runs)
			return false;
		return wp_gpu_cuda_fits(t, var->major, var->minor, label, why);
	case WP_VARIANT_CPU:
		if (t->accel == WP_ACCEL_CPU)
			return true;
		wp_buf_printf(why, "%s: a CPU build; ask with %s", label,
			      wp_ask_words(req->asks, WP_ASK_CPU));
		return false;
	default:
		wp_buf_printf(why, "%s: wheelpick picks conda CUDA or CPU builds", label);
		return false;
	}
}

static bool python_fits(const struct cand *c, const struct wp_target *t, struct wp_buf *why)
{
	char full[32], xy[16], abi[32];
	struct wp_buf txt = WP_BUF_INIT;
	if (t->py_major <= 0)
		return true;
	snprintf(full, sizeof(full), "%d.%d.0", t->py_major, t->py_minor);
	snprintf(xy, sizeof(xy), "%d.%d", t->py_major, t->py_minor);
	if (t->abi[0])
		snprintf(abi, sizeof(abi), "0_%s", t->abi);
	else
		snprintf(abi, sizeof(abi), "0_cp%d%d%s", t->py_major, t->py_minor,
			 t->py_major == 3 && t->py_minor <= 7 ? "m" : "");
	for (size_t i = 0; i < c->n_deps; i++) {
		const struct wp_matchspec *d = &c->deps[i];
		bool ok = true;
		if (!strcmp(d->name, "python"))
			ok = wp_matchspec_version_match(d, full); /* its build (*_cpython) is the
								     python's own */
		else if (!strcmp(d->name, "python_abi"))
			ok = wp_matchspec_version_match(d, xy) &&
			     (strcmp(t->impl, "cp") || wp_matchspec_build_match(d, abi));
		else
			continue;
		if (!ok) {
			wp_matchspec_format(d, &txt);
			wp_buf_printf(why, "requires %s; the target has Python %s", txt.data, xy);
			wp_buf_free(&txt);
			return false;
		}
	}
	return true;
}

/* A virtual package spec against the target. Returns true when it holds; fills why otherwise.
 * constrains: only a check of a package the target has (absent ones are fine). */
static bool virtual_fits(const struct wp_matchspec *d, const struct wp_target *t, const char *sd,
			 bool constrains, struct wp_buf *why)
{
	char ver[32];
	int maj, min;
	bool linux = !strncmp(sd, "linux-", 6), osx = !strncmp(sd, "osx-", 4),
	     win = !strncmp(sd, "win-", 4);
	bool known_os = sd[0] != 0;
	const char *verb = constrains ? "constrains" : "needs";
	struct wp_buf txt = WP_BUF_INIT;
	bool ok = true;
	wp_matchspec_format(d, &txt);
	if (!strcmp(d->name, "__cuda")) {
		if (t->accel != WP_ACCEL_CUDA) {
			ok = constrains;
			if (!ok)
				wp_buf_printf(why, "needs %s (an NVIDIA driver); the target is %s",
					      txt.data,
					      t->accel == WP_ACCEL_CPU ? "CPU-only" : "ROCm");
		} else {
			snprintf(ver, sizeof(ver), "%d.%d", t->cuda_major, t->cuda_minor);
			ok = wp_matchspec_version_match(d, ver) && wp_matchspec_build_match(d, "0");
			if (!ok)
				wp_buf_printf(why, "%s %s; the target's CUDA is %s", verb, txt.data,
					      ver);
		}
	} else if (!strcmp(d->name, "__glibc")) {
		if (known_os && !linux) {
			ok = constrains;
			if (!ok)
				wp_buf_printf(why, "needs %s; the target (%s) is not Linux",
					      txt.data, sd);
		} else if (target_glibc(t, &maj, &min)) {
			snprintf(ver, sizeof(ver), "%d.%d", maj, min);
			ok = wp_matchspec_version_match(d, ver);
			if (!ok)
				wp_buf_printf(why, "%s %s; the target's glibc is %s", verb,
					      txt.data, ver);
		}
	} else if (!strcmp(d->name, "__osx")) {
		if (known_os && !osx) {
			ok = constrains;
			if (!ok)
				wp_buf_printf(why, "needs %s; the target (%s) is not macOS",
					      txt.data, sd);
		} else if (target_macos(t, &maj, &min)) {
			snprintf(ver, sizeof(ver), "%d.%d", maj, min);
			ok = wp_matchspec_version_match(d, ver);
			if (!ok)
				wp_buf_printf(why, "%s %s; the target's macOS is %s", verb,
					      txt.data, ver);
		}
	} else if (!strcmp(d->name, "__linux") || !strcmp(d->name, "__unix") ||
		   !strcmp(d->name, "__win")) {
		/* the kernel's version is not part of a target: only the OS counts */
		bool has = !known_os || (d->name[2] == 'l' ? linux :
					 d->name[2] == 'u' ? (linux || osx) :
							     win);
		ok = has || constrains;
		if (!ok)
			wp_buf_printf(why, "needs %s; the target is %s", txt.data, sd);
	} else if (strcmp(d->name, "__archspec") && strcmp(d->name, "__conda") && !constrains) {
		ok = false;
		wp_buf_printf(why, "needs the virtual package %s, which wheelpick cannot check",
			      txt.data);
	}
	wp_buf_free(&txt);
	return ok;
}

static bool channel_fits(const struct wp_matchspec *m, const struct wp_conda_candidate *k)
{
	if (m->subdir && k->subdir && strcmp(m->subdir, k->subdir) != 0)
		return false;
	if (!m->channel || !k->url)
		return true;
	size_t n = strlen(m->channel);
	while (n && m->channel[n - 1] == '/')
		n--;
	if (strstr(m->channel, "://"))
		return !strncmp(k->url, m->channel, n) && k->url[n] == '/';
	/* a channel name: the URL has it as a whole path segment ("/conda-forge/linux-64/...") */
	for (const char *p = k->url; (p = strchr(p, '/')); p++)
		if (!strncmp(p + 1, m->channel, n) && p[1 + n] == '/')
			return true;
	return false;
}

static void check(const struct wp_conda_candidate *k, struct cand *c,
		  const struct wp_condapick_request *req, const struct wp_target *t, const char *sd,
		  bool any_version)
{
	const struct wp_matchspec *m = req->spec;
	wp_buf_reset(&c->why);
	c->rej = REJ_NONE;
	if (!k->name || !k->version || !wp_matchspec_name_match(m, k->name) || !c->v_ok) {
		c->rej = REJ_NAME;
		if (k->name && k->version && !c->v_ok)
			wp_buf_printf(&c->why, "version '%s' is not a conda version", k->version);
		else
			wp_buf_printf(&c->why, "'%s' is not '%s'", k->name ? k->name : "", m->name);
		return;
	}
	if (!any_version &&
	    !wp_matchspec_match(m, k->name, k->version, k->build, k->build_number)) {
		c->rej = REJ_SPEC;
		wp_buf_printf(&c->why, "%s %s is outside '%s'", k->version,
			      k->build ? k->build : "", req->spec_text ? req->spec_text : "");
		return;
	}
	if (!channel_fits(m, k)) {
		c->rej = REJ_CHANNEL;
		wp_buf_printf(&c->why, "from %s, not %s%s%s",
			      k->url    ? k->url :
			      k->subdir ? k->subdir :
					  "?",
			      m->channel ? m->channel : "", m->channel && m->subdir ? "/" : "",
			      m->subdir ? m->subdir : "");
		return;
	}
	if (sd[0] && k->subdir && strcmp(k->subdir, sd) != 0 && strcmp(k->subdir, "noarch") != 0) {
		c->rej = REJ_SUBDIR;
		wp_buf_printf(&c->why, "built for %s; the target is %s", k->subdir, sd);
		return;
	}
	if (!c->deps_ok) {
		c->rej = REJ_BROKEN;
		wp_buf_printf(&c->why, "its depends are unreadable: %s", c->deps_err);
		return;
	}
	if (!python_fits(c, t, &c->why)) {
		c->rej = REJ_PYTHON;
		return;
	}
	/* an exact build string ("pytorch=1.8.0=py3.8_cpu_0", "pytorch-mutex 1.0 cpu") is what was
	 * asked for: conda installs it whatever the machine has, and so does this */
	bool exact_build = m->build && !strpbrk(m->build, "*?[^$");
	if (!exact_build && !variant_fits(&c->var, t, req, &c->why)) {
		c->rej = REJ_VARIANT;
		return;
	}
	for (size_t i = 0; i < c->n_deps; i++)
		if (!strncmp(c->deps[i].name, "__", 2) &&
		    !virtual_fits(&c->deps[i], t, sd, false, &c->why)) {
			c->rej = REJ_VIRTUAL;
			return;
		}
	for (size_t i = 0; i < c->n_cons; i++)
		if (!strncmp(c->cons[i].name, "__", 2) &&
		    !virtual_fits(&c->cons[i], t, sd, true, &c->why)) {
			c->rej = REJ_VIRTUAL;
			return;
		}
	if (k->hash_conflict) {
		c->rej = REJ_HASH;
		wp_buf_printf(&c->why,
			      "the channel now gives sha256 %.12s... but %.12s... was seen first; check the "
			      "source, then %s",
			      k->sha256 ? k->sha256 : "?", k->hash_conflict,
			      wp_ask_words(req->asks, WP_ASK_TRUST));
	}
}

/* ---- ranking ---- */

static int kind_rank(const struct wp_variant *v, const struct wp_target *t)
{
	if (v->kind == WP_VARIANT_NONE)
		return 1;
	if ((t->accel == WP_ACCEL_CUDA && v->kind == WP_VARIANT_CUDA) ||
	    (t->accel == WP_ACCEL_CPU && v->kind == WP_VARIANT_CPU))
		return 2;
	return 0;
}

static int is_dot_conda(const char *filename)
{
	size_t n = filename ? strlen(filename) : 0;
	return n > 6 && !strcmp(filename + n - 6, ".conda");
}

/* >0 when a is the better pick than b (both fit). */
static int better(const struct wp_conda_candidate *ka, const struct cand *a,
		  const struct wp_conda_candidate *kb, const struct cand *b,
		  const struct wp_target *t)
{
	int c = wp_condaver_order(&a->v, &b->v);
	if (c)
		return c;
	if ((c = kind_rank(&a->var, t) - kind_rank(&b->var, t)))
		return c;
	if (a->var.kind == WP_VARIANT_CUDA && b->var.kind == WP_VARIANT_CUDA) {
		if (a->var.major != b->var.major)
			return a->var.major > b->var.major ? 1 : -1;
		if (a->var.minor != b->var.minor)
			return a->var.minor > b->var.minor ? 1 : -1;
	}
	if (ka->build_number != kb->build_number)
		return ka->build_number > kb->build_number ? 1 : -1;
	if (a->n_tf != b->n_tf)
		return a->n_tf < b->n_tf ? 1 : -1;
	if ((c = (ka->timestamp > kb->timestamp) - (ka->timestamp < kb->timestamp)))
		return c;
	/* one build published in both formats: conda takes the .conda one, and so the pick does not
	 * depend on which of the two the catalog happens to hold first */
	return is_dot_conda(ka->filename) - is_dot_conda(kb->filename);
}

static long run_pass(const struct wp_conda_candidate *k, struct cand *c, size_t n,
		     const struct wp_condapick_request *req, const struct wp_target *t,
		     const char *sd, bool any_version)
{
	long best = -1;
	for (size_t i = 0; i < n; i++) {
		check(&k[i], &c[i], req, t, sd, any_version);
		if (c[i].rej == REJ_NONE &&
		    (best < 0 || better(&k[i], &c[i], &k[best], &c[best], t) > 0))
			best = (long)i;
	}
	return best;
}

/* The builds at one version, in variant order, as "cpu, cuda10.2, cuda11.1". */
static void variants_at(const struct cand *c, size_t n, const struct wp_condaver *at,
			struct wp_buf *out)
{
	const struct wp_variant *seen[64];
	size_t ns = 0;
	for (size_t i = 0; i < n; i++) {
		if (!c[i].v_ok || c[i].rej == REJ_NAME || wp_condaver_order(&c[i].v, at) != 0)
			continue;
		bool dup = false;
		for (size_t j = 0; j < ns && !dup; j++)
			dup = !strcmp(seen[j]->label, c[i].var.label) &&
			      seen[j]->kind == c[i].var.kind;
		if (!dup && ns < WP_ARRAY_LEN(seen))
			seen[ns++] = &c[i].var;
	}
	for (size_t i = 1; i < ns; i++)
		for (size_t j = i; j > 0 && wp_variant_cmp(seen[j - 1], seen[j]) > 0; j--) {
			const struct wp_variant *tmp = seen[j];
			seen[j] = seen[j - 1];
			seen[j - 1] = tmp;
		}
	for (size_t i = 0; i < ns; i++) {
		if (i)
			wp_buf_addstr(out, ", ");
		conda_label(seen[i], out);
	}
}

static char *nothing_fits(const struct wp_conda_candidate *k, struct cand *c, size_t n,
			  const struct wp_condapick_request *req, const struct wp_target *t,
			  const char *sd)
{
	struct wp_buf m = WP_BUF_INIT, tgt = WP_BUF_INIT;
	const char *name = req->spec->name;
	long top = -1;
	size_t counts[REJ_MAX] = { 0 };
	wp_condapick_describe_target(t, &tgt);
	for (size_t i = 0; i < n; i++) {
		if (c[i].rej > REJ_CHANNEL &&
		    (top < 0 || wp_condaver_order(&c[i].v, &c[top].v) > 0))
			top = (long)i;
		counts[c[i].rej]++;
	}
	if (top < 0) {
		if (counts[REJ_SPEC] || counts[REJ_CHANNEL]) {
			wp_buf_printf(&m, "no %s record matches '%s'", name,
				      req->spec_text ? req->spec_text : "");
			long newest = -1;
			for (size_t i = 0; i < n; i++)
				if (c[i].rej != REJ_NAME &&
				    (newest < 0 || wp_condaver_order(&c[i].v, &c[newest].v) > 0))
					newest = (long)i;
			if (newest >= 0)
				wp_buf_printf(&m, "; the newest in the catalog is %s",
					      k[newest].version);
		} else {
			wp_buf_printf(&m,
				      "the catalog has no conda records for '%s'; add its channel with %s (or %s)",
				      name, wp_ask_words(req->asks, WP_ASK_CHANNEL),
				      wp_ask_words(req->asks, WP_ASK_UPDATE));
		}
		goto out;
	}
	struct wp_buf vs = WP_BUF_INIT;
	variants_at(c, n, &c[top].v, &vs);
	wp_buf_printf(&m, "%s %s has %s", name, k[top].version, vs.len ? vs.data : "no builds");
	wp_buf_free(&vs);

	/* what stopped the records of that version, the furthest hurdle first */
	size_t at[REJ_MAX] = { 0 };
	long first_virtual = -1, first_hash = -1;
	for (size_t i = 0; i < n; i++) {
		if (c[i].rej <= REJ_CHANNEL || wp_condaver_order(&c[i].v, &c[top].v) != 0)
			continue;
		at[c[i].rej]++;
		if (c[i].rej == REJ_VIRTUAL && first_virtual < 0)
			first_virtual = (long)i;
		if (c[i].rej == REJ_HASH && first_hash < 0)
			first_hash = (long)i;
	}
	if (at[REJ_HASH]) {
		wp_buf_printf(&m, "; the build that fits is refused: %s", c[first_hash].why.data);
	} else if (at[REJ_VIRTUAL]) {
		wp_buf_printf(&m, "; the build that fits otherwise %s", c[first_virtual].why.data);
	} else if (at[REJ_VARIANT]) {
		switch (t->accel) {
		case WP_ACCEL_CUDA:
			wp_buf_printf(&m, "; none runs on CUDA %d.%d", t->cuda_major,
				      t->cuda_minor);
			if (t->n_gpus)
				wp_buf_printf(&m, " with sm_%d", t->gpu_sm[0]);
			break;
		case WP_ACCEL_CPU:
			wp_buf_addstr(&m, "; none is a CPU build");
			break;
		case WP_ACCEL_ROCM:
			wp_buf_printf(&m,
				      "; none runs on ROCm %d.%d (the conda route has no ROCm builds)",
				      t->rocm_major, t->rocm_minor);
			break;
		case WP_ACCEL_XPU:
			wp_buf_addstr(&m,
				      "; none is an Intel GPU build (the conda route has none)");
			break;
		}
		if (req->require_variant)
			wp_buf_printf(&m, " as variant '%s'", req->require_variant);
	} else if (at[REJ_PYTHON]) {
		wp_buf_printf(&m, "; none supports Python %d.%d%s", t->py_major, t->py_minor,
			      wp_target_py_suffix(t));
	} else if (at[REJ_BROKEN]) {
		wp_buf_addstr(&m, "; its records have unreadable depends");
	} else {
		wp_buf_printf(&m, "; none is built for %s", sd[0] ? sd : t->platform);
	}

	/* the newest version, any, with a record that fits: what the user could ask for instead */
	long alt = run_pass(k, c, n, req, t, sd, true);
	if (alt >= 0) {
		wp_buf_printf(&m, "; the newest %s that fits %s is %s", name, tgt.data,
			      k[alt].version);
		if (c[alt].var.kind != WP_VARIANT_NONE) {
			wp_buf_addstr(&m, " (");
			conda_label(&c[alt].var, &m);
			wp_buf_addstr(&m, ")");
		}
	} else {
		wp_buf_printf(&m, "; no %s in the catalog fits %s", name, tgt.data);
	}
	run_pass(k, c, n, req, t, sd, false); /* leave the reasons as they were for the request */
out:
	wp_buf_free(&tgt);
	return wp_buf_detach(&m, NULL);
}

static void explain_pick(const struct wp_conda_candidate *k, const struct cand *c, size_t n,
			 long best, const struct wp_target *t, struct wp_buf *out)
{
	const struct cand *b = &c[best];
	struct wp_buf vs = WP_BUF_INIT;
	variants_at(c, n, &b->v, &vs);
	wp_buf_printf(out, "%s %s is the newest version with a build that fits", k[best].name,
		      k[best].version);
	switch (b->var.kind) {
	case WP_VARIANT_CUDA:
		wp_buf_printf(out, "; of its builds (%s), ", vs.data);
		conda_label(&b->var, out);
		if (b->var.major) {
			enum wp_runs_how how = WP_RUNS_NO;
			wp_target_runs_cuda(t, b->var.major, b->var.minor, &how, NULL);
			wp_buf_addstr(out, " is the newest CUDA the driver runs");
			if (how == WP_RUNS_MINOR_COMPAT)
				wp_buf_printf(out,
					      " (by NVIDIA's minor-version compatibility: the target's CUDA is %d.%d)",
					      t->cuda_major, t->cuda_minor);
		} else
			wp_buf_addstr(out,
				      " (its CUDA version left to its depends) is the CUDA build");
		break;
	case WP_VARIANT_NONE:
		wp_buf_addstr(out, "; the record carries no variant");
		break;
	default:
		wp_buf_printf(out, "; of its builds (%s), %s was asked for", vs.data, b->var.label);
		break;
	}
	wp_buf_printf(out, "; build %s, number %lld", k[best].build ? k[best].build : "?",
		      k[best].build_number);
	wp_buf_free(&vs);
}

static int count_features(const char *s)
{
	int n = 0;
	bool in = false;
	for (; s && *s; s++) {
		bool sep = *s == ' ' || *s == ',';
		n += !sep && !in;
		in = !sep;
	}
	return n;
}

static void cand_setup(const struct wp_conda_candidate *k, struct cand *c)
{
	struct wp_err e = WP_ERR_INIT;
	memset(c, 0, sizeof(*c));
	c->why = (struct wp_buf)WP_BUF_INIT;
	c->v_ok = k->version && wp_condaver_parse(k->version, &c->v, NULL) == 0;
	c->deps_ok = wp_matchspec_parse_json_list(k->depends, &c->deps, &c->n_deps, &e) == 0;
	if (c->deps_ok && wp_matchspec_parse_json_list(k->constrains, &c->cons, &c->n_cons, &e) < 0)
		c->deps_ok = false;
	if (!c->deps_ok)
		snprintf(c->deps_err, sizeof(c->deps_err), "%s", e.msg);
	classify(k, c->deps, c->n_deps, &c->var);
	c->n_tf = count_features(k->track_features);
}

static void cand_release(struct cand *c)
{
	if (c->v_ok)
		wp_condaver_release(&c->v);
	wp_matchspecs_free(c->deps, c->n_deps);
	wp_matchspecs_free(c->cons, c->n_cons);
	wp_buf_free(&c->why);
}

int wp_condapick(const struct wp_conda_candidate *k, size_t n,
		 const struct wp_condapick_request *req, const struct wp_target *t,
		 struct wp_condapick_result *res, struct wp_err *err)
{
	char sd[32];
	memset(res, 0, sizeof(*res));
	res->chosen = -1;
	res->untrusted = -1;
	if (!req || !req->spec || !req->spec->name)
		return wp_fail(err, -WPE_USAGE, "conda pick needs a spec");
	wp_condapick_subdir(t, sd);
	struct cand *c = wp_xcalloc(n ? n : 1, sizeof(*c));
	for (size_t i = 0; i < n; i++)
		cand_setup(&k[i], &c[i]);
	long best = run_pass(k, c, n, req, t, sd, false);
	/* no silent substitution: the record that would be the pick were every hash trusted (the
	 * hash is checked last, so a REJ_HASH record fits in every other way) has other bytes than
	 * were first seen for its name, and no trusted record ranks with it: the pick stops there
	 * rather than take another build in its place */
	long would = -1;
	for (size_t i = 0; i < n; i++)
		if ((c[i].rej == REJ_NONE || c[i].rej == REJ_HASH) &&
		    (would < 0 || better(&k[i], &c[i], &k[would], &c[would], t) > 0))
			would = (long)i;
	if (would >= 0 && c[would].rej == REJ_HASH &&
	    (best < 0 || better(&k[best], &c[best], &k[would], &c[would], t) < 0)) {
		struct wp_buf m = WP_BUF_INIT, tgt = WP_BUF_INIT;
		wp_target_describe(t, &tgt);
		wp_buf_printf(&m,
			      "%s %s %s is the build that fits %s, but '%s' at '%s' now has sha256 %s where %s was "
			      "trusted first for that name; no other build is taken in its place",
			      k[would].name, k[would].version, k[would].build ? k[would].build : "",
			      tgt.data, k[would].filename, k[would].url ? k[would].url : "?",
			      k[would].sha256 ? k[would].sha256 : "?", k[would].hash_conflict);
		wp_buf_free(&tgt);
		res->untrusted = would;
		res->message = wp_buf_detach(&m, NULL);
		best = -1;
	} else if (best >= 0) {
		struct wp_buf why = WP_BUF_INIT;
		res->chosen = best;
		res->variant = c[best].var;
		explain_pick(k, c, n, best, t, &why);
		res->reason = wp_buf_detach(&why, NULL);
	} else {
		res->message = nothing_fits(k, c, n, req, t, sd);
	}
	for (size_t i = 0; i < n; i++) {
		if ((long)i == best)
			continue;
		if (c[i].rej == REJ_NONE) {
			wp_buf_reset(&c[i].why);
			wp_buf_addstr(&c[i].why, "fits, but another record is better");
		}
		struct wp_pick_reject r = { .index = i, .why = wp_buf_detach(&c[i].why, NULL) };
		wp_vec_push_fields(res->rejects, res->n_rejects, res->cap_rejects, r);
	}
	for (size_t i = 0; i < n; i++)
		cand_release(&c[i]);
	free(c);
	return 0;
}

void wp_condapick_result_release(struct wp_condapick_result *res)
{
	free(res->reason);
	free(res->message);
	for (size_t i = 0; i < res->n_rejects; i++)
		free(res->rejects[i].why);
	free(res->rejects);
	memset(res, 0, sizeof(*res));
	res->chosen = -1;
	res->untrusted = -1;
}

int wp_condapick_deps(const struct wp_conda_candidate *c, struct wp_matchspec **out, size_t *n,
		      struct wp_err *err)
{
	struct wp_matchspec *all = NULL;
	size_t na = 0, kept = 0;
	*out = NULL;
	*n = 0;
	int rc = wp_matchspec_parse_json_list(c->depends, &all, &na, err);
	if (rc < 0) {
		wp_err_prefix(err, "depends of '%s'",
			      c->filename ? c->filename :
			      c->name     ? c->name :
					    "?");
		return rc;
	}
	for (size_t i = 0; i < na; i++) {
		if (!strncmp(all[i].name, "__", 2))
			wp_matchspec_release(&all[i]);
		else
			all[kept++] = all[i];
	}
	if (!kept) {
		free(all);
		all = NULL;
	}
	*out = all;
	*n = kept;
	return 0;
}
