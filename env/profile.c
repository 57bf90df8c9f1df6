/* env/profile.c: `detect --json` output, and reading it back as a target for `--target FILE`. */
#include "env/profile.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "resolver/ask.h"
#include "resolver/wheelvariant.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

/* "12.2"; null for 0.0, which means unknown everywhere in wp_detect. */
static void kver(struct wp_json *w, const char *k, int major, int minor)
{
	char v[32];
	snprintf(v, sizeof(v), "%d.%d", major, minor);
	wp_json_kstr(w, k, major || minor ? v : NULL);
}

static void write_target(struct wp_json *w, const struct wp_target *t, bool ok)
{
	static const char *const accel[] = { "cuda", "cpu", "rocm", "xpu" };
	char v[48];
	wp_json_obj(w);
	wp_json_kstr(w, "implementation", t->impl[0] ? t->impl : NULL);
	if (t->py_micro >= 0)
		snprintf(v, sizeof(v), "%d.%d.%d", t->py_major, t->py_minor, t->py_micro);
	else
		snprintf(v, sizeof(v), "%d.%d", t->py_major, t->py_minor);
	wp_json_kstr(w, "python", t->py_major ? v : NULL);
	wp_json_kstr(w, "abi", t->abi);
	wp_json_kstr(w, "platform", ok ? t->platform : NULL);
	wp_json_kbool(w, "platform_exact", t->platform_exact);
	if (t->conda_subdir[0])
		wp_json_kstr(w, "conda_subdir", t->conda_subdir);
	wp_json_kstr(w, "accel", (unsigned)t->accel < WP_ARRAY_LEN(accel) ? accel[t->accel] : NULL);
	if (t->accel == WP_ACCEL_CUDA) {
		kver(w, "cuda", t->cuda_major, t->cuda_minor);
		wp_json_kstr(w, "driver",
			     t->driver_given && t->driver.nparts ? t->driver.text : NULL);
		if (t->driver_none_yet)
			wp_json_kbool(w, "driver_none_yet", true);
	}
	if (t->accel == WP_ACCEL_ROCM)
		kver(w, "rocm", t->rocm_major, t->rocm_minor);
	wp_json_key(w, "gpu_sms");
	wp_json_arr(w);
	for (int i = 0; i < t->n_gpus && i < WP_TARGET_MAX_GPUS; i++)
		wp_json_int(w, t->gpu_sm[i]);
	wp_json_arr_end(w);
	if (t->n_gfx) {
		wp_json_key(w, "gfx");
		wp_json_arr(w);
		for (int i = 0; i < t->n_gfx; i++)
			wp_json_str(w, t->gfx[i]);
		wp_json_arr_end(w);
	}
	/* PEP 825 variants: Intel device IPs and the x86-64 level, when known */
	if (t->n_intel_ips) {
		wp_json_key(w, "intel_device_ips");
		wp_json_arr(w);
		for (int i = 0; i < t->n_intel_ips; i++)
			wp_json_str(w, t->intel_ip[i]);
		wp_json_arr_end(w);
	}
	if (t->x86_64_level > 0) {
		snprintf(v, sizeof(v), "v%d", t->x86_64_level);
		wp_json_kstr(w, "x86_64_level", v);
	}
	/* PEP 825 providers draft: the machine as a list of compatible features, namespace ->
	 * feature -> values (most preferred first), which a machine elsewhere picks variants from
	 * with no provider code */
	struct wp_buf props = WP_BUF_INIT;
	wp_target_variant_props(t, &props);
	wp_json_key(w, "variant_properties");
	wp_json_obj(w);
	char ns[160] = "", feat[160] = "";
	bool open_ns = false, open_feat = false;
	for (const char *p = props.data ? props.data : ""; *p;) {
		size_t n = strcspn(p, "\n");
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
		char *a1 = strstr(line, " :: "), *a2 = a1 ? strstr(a1 + 4, " :: ") : NULL;
		if (!a2)
			continue;
		*a1 = *a2 = 0;
		if (!open_ns || strcmp(ns, line)) {
			if (open_feat)
				wp_json_arr_end(w);
			if (open_ns)
				wp_json_obj_end(w);
			snprintf(ns, sizeof(ns), "%s", line);
			wp_json_key(w, ns);
			wp_json_obj(w);
			open_ns = true;
			open_feat = false;
		}
		if (!open_feat || strcmp(feat, a1 + 4)) {
			if (open_feat)
				wp_json_arr_end(w);
			snprintf(feat, sizeof(feat), "%s", a1 + 4);
			wp_json_key(w, feat);
			wp_json_arr(w);
			open_feat = true;
		}
		wp_json_str(w, a2 + 4);
	}
	if (open_feat)
		wp_json_arr_end(w);
	if (open_ns)
		wp_json_obj_end(w);
	wp_json_obj_end(w);
	wp_buf_free(&props);

	wp_json_obj_end(w);
}

int wp_detect_format_json(const struct wp_detect *d, struct wp_buf *out)
{
	struct wp_json w;
	/* strings from programs were cleaned when stored; the writer makes any slip an error */
	wp_json_init(&w);

	wp_json_obj(&w);
	wp_json_kstr(&w, "driver_version", d->driver_version[0] ? d->driver_version : NULL);
	wp_json_kstr(&w, "driver_source", d->driver_source);
	wp_json_kbool(&w, "gpu_hardware", d->gpu_hardware);
	wp_json_kstr(&w, "driver_state", wp_driver_state_name(d->driver_state));
	wp_json_kstr(&w, "driver_failure", d->driver_failure[0] ? d->driver_failure : NULL);
	wp_json_kstr(&w, "gpu_source", d->gpu_source);

	wp_json_key(&w, "cuda");
	if (d->cuda_major) {
		wp_json_obj(&w);
		kver(&w, "version", d->cuda_major, d->cuda_minor);
		wp_json_kstr(&w, "source", wp_cuda_source_name(d->cuda_source));
		wp_json_obj_end(&w);
	} else {
		wp_json_str(&w, NULL);
	}

	char v[48];
	wp_json_key(&w, "gpus");
	wp_json_arr(&w);
	for (int i = 0; i < d->n_gpus && i < WP_DETECT_MAX_GPUS; i++) {
		const struct wp_detect_gpu *g = &d->gpus[i];
		snprintf(v, sizeof(v), "%d.%d", g->cc_major, g->cc_minor);
		wp_json_obj(&w);
		wp_json_kstr(&w, "name", g->name);
		wp_json_kstr(&w, "compute_capability",
			     g->cc_major >= 0 && g->cc_minor >= 0 ? v : NULL);
		wp_json_obj_end(&w);
	}
	wp_json_arr_end(&w);

	wp_json_key(&w, "toolkits");
	wp_json_arr(&w);
	for (size_t i = 0; i < d->n_toolkits; i++) {
		const struct wp_detect_toolkit *t = &d->toolkits[i];
		if (t->patch >= 0)
			snprintf(v, sizeof(v), "%d.%d.%d", t->major, t->minor, t->patch);
		else
			snprintf(v, sizeof(v), "%d.%d", t->major, t->minor);
		wp_json_obj(&w);
		wp_json_kstr(&w, "version", v);
		wp_json_kstr(&w, "path", t->path);
		wp_json_kstr(&w, "source", t->source);
		wp_json_obj_end(&w);
	}
	wp_json_arr_end(&w);

	wp_json_key(&w, "pythons");
	wp_json_arr(&w);
	for (size_t i = 0; i < d->n_pythons; i++) {
		const struct wp_detect_python *py = &d->pythons[i];
		snprintf(v, sizeof(v), "%d.%d.%d", py->major, py->minor, py->micro);
		wp_json_obj(&w);
		wp_json_kstr(&w, "path", py->path);
		wp_json_kstr(&w, "implementation", py->impl);
		wp_json_kstr(&w, "version", v);
		wp_json_kstr(&w, "soabi", py->soabi);
		wp_json_kstr(&w, "machine", py->machine);
		wp_json_kbool(&w, "default", (int)i == d->default_python);
		wp_json_kbool(&w, "free_threaded", wp_detect_python_free_threaded(py));
		wp_json_obj_end(&w);
	}
	wp_json_arr_end(&w);

	kver(&w, "glibc", d->glibc_major, d->glibc_minor);
	kver(&w, "musl", d->musl_major, d->musl_minor);
	wp_json_kstr(&w, "os", d->os[0] ? d->os : NULL);
	wp_json_kstr(&w, "os_release", d->os_release[0] ? d->os_release : NULL);
	wp_json_kstr(&w, "machine", d->machine[0] ? d->machine : NULL);
	/* PEP 825 variants: what --x86-64-level, --rocm and --gfx would say */
	if (d->x86_64_level > 0)
		snprintf(v, sizeof(v), "v%d", d->x86_64_level);
	wp_json_kstr(&w, "x86_64_level", d->x86_64_level > 0 ? v : NULL);
	wp_json_kstr(&w, "rocm", d->rocm_version[0] ? d->rocm_version : NULL);
	wp_json_key(&w, "gfx");
	wp_json_arr(&w);
	for (int i = 0; i < d->n_gfx && i < WP_DETECT_MAX_GPUS; i++)
		wp_json_str(&w, d->gfx[i]);
	wp_json_arr_end(&w);

	struct wp_target t;
	bool ok = wp_detect_profile_target(d, &t) == 0;
	wp_json_key(&w, "target");
	write_target(&w, &t, ok);

	wp_json_key(&w, "warnings");
	wp_json_arr(&w);
	for (size_t i = 0; i < d->n_warnings; i++)
		wp_json_str(&w, d->warnings[i]);
	wp_json_arr_end(&w);
	wp_json_obj_end(&w);

	int rc = wp_json_finish_buf(&w, out);
	return rc == -WPE_PARSE ? -WPE_ENV : rc;
}

/* ---- reading ---- */

/* The messages name the profile and say -WPE_USAGE: the user named the file. */
static int read_profile(const char *path, const struct wp_asks *asks, long idle_s, struct wp_buf *b,
			struct wp_err *err)
{
	int rc = wp_file_read_waiting(path, WP_PROFILE_MAX,
				      idle_s > 0 && idle_s < 86400 ? (int)idle_s * 1000 : 0, b,
				      NULL);
	if (rc == -WPE_TOO_BIG)
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s' is larger than %zu bytes; is it a profile?", path,
			       b->max);
	if (rc && errno == ETIMEDOUT) /* a FIFO nobody writes to: it would have blocked */
		return wp_fail(err, -WPE_USAGE,
			       "cannot read profile '%s': it is a FIFO or device and nothing came from it; "
			       "give the file that the %s command wrote",
			       path, wp_ask_words(asks, WP_ASK_PROFILE));
	if (rc)
		return wp_fail(err, -WPE_USAGE, "cannot read profile '%s': %s", path,
			       strerror(errno));
	return 0;
}

static bool chars_ok(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return false;
	return true;
}

/* A string member copied into dst: absent and null leave dst alone (0); anything else that
 * is not a fitting string is -WPE_USAGE. */
static int get_str(const char *file, const struct wp_json_val *obj, const char *key, char *dst,
		   size_t size, const char *extra, struct wp_err *err)
{
	const struct wp_json_val *v = wp_json_get(obj, key);
	if (wp_json_type(v) <= WP_JSON_NULL)
		return 0;
	const char *s = wp_json_as_str(v);
	if (!s || strlen(s) >= size || !chars_ok(s, extra))
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s': '%s' must be a string of at most %zu letters, "
			       "digits or '%s'",
			       file, key, size - 1, extra);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* "12.2" or "3.11.7": 2 or 3 numbers. */
static int parse_ver(const char *file, const char *key, const char *s, int *v, struct wp_err *err)
{
	struct wp_str rest = WP_STR(s);
	int n = 0;
	while (rest.n && n < 3) {
		long long x;
		if (!wp_str_to_ll(wp_str_cut(&rest, '.'), &x) || x > 9999)
			break;
		v[n++] = (int)x;
	}
	if (rest.n || n < 2 || s[strlen(s) - 1] == '.')
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s': '%s' is \"%s\", not a version like \"12.1\"", file,
			       key, s);
	if (n == 2)
		v[2] = -1;
	return 0;
}

/* glibc and musl follow from the platform tag: it was written from them. */
static void libc_from_platform(struct wp_target *t)
{
	static const struct { const char *prefix; int minor; } legacy[] = {
		{ "manylinux1_", 5 }, { "manylinux2010_", 12 }, { "manylinux2014_", 17 },
	};
	int a, b;
	for (size_t i = 0; i < WP_ARRAY_LEN(legacy); i++) {
		if (!strncmp(t->platform, legacy[i].prefix, strlen(legacy[i].prefix))) {
			t->glibc_major = 2;
			t->glibc_minor = legacy[i].minor;
			return;
		}
	}
	if (sscanf(t->platform, "manylinux_%d_%d_", &a, &b) == 2) {
		t->glibc_major = a;
		t->glibc_minor = b;
	} else if (sscanf(t->platform, "musllinux_%d_%d_", &a, &b) == 2) {
		t->musl_major = a;
		t->musl_minor = b;
	}
}

static int load_target(const char *file, const struct wp_json_val *tg, struct wp_target *t,
		       struct wp_err *err)
{
	int rc, v[3];
	char buf[32] = "";

	if ((rc = get_str(file, tg, "implementation", t->impl, sizeof(t->impl), "", err)) ||
	    (rc = get_str(file, tg, "abi", t->abi, sizeof(t->abi), "_", err)) ||
	    (rc = get_str(file, tg, "platform", t->platform, sizeof(t->platform), "_.", err)) ||
	    (rc = get_str(file, tg, "conda_subdir", t->conda_subdir, sizeof(t->conda_subdir), "-_",
			  err)))
		return rc;
	if (!t->platform[0])
		return wp_fail(err, -WPE_USAGE, "profile '%s' names no target 'platform' (such as "
			       "\"manylinux_2_28_x86_64\")", file);
	libc_from_platform(t);

	const struct wp_json_val *x = wp_json_get(tg, "platform_exact");
	bool exact = false;
	if (wp_json_type(x) > WP_JSON_NULL && !wp_json_as_bool(x, &exact))
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s': 'platform_exact' must be true or false", file);
	t->platform_exact = exact;

	if ((rc = get_str(file, tg, "python", buf, sizeof(buf), ".", err)))
		return rc;
	if (buf[0]) {
		if ((rc = parse_ver(file, "python", buf, v, err)))
			return rc;
		t->py_major = v[0];
		t->py_minor = v[1];
		t->py_micro = v[2];
	}

	char accel[16] = "", cuda[16] = "", rocm[16] = "", driver[32] = "";
	if ((rc = get_str(file, tg, "accel", accel, sizeof(accel), "", err)) ||
	    (rc = get_str(file, tg, "cuda", cuda, sizeof(cuda), ".", err)) ||
	    (rc = get_str(file, tg, "rocm", rocm, sizeof(rocm), ".", err)) ||
	    (rc = get_str(file, tg, "driver", driver, sizeof(driver), ".", err)))
		return rc;
	if (!accel[0])
		snprintf(accel, sizeof(accel), "%s",
			 cuda[0] || driver[0] ? "cuda" :
			 rocm[0]              ? "rocm" :
						"");
	if (!strcmp(accel, "cuda") && driver[0]) {
		/* the driver itself: what it runs follows from it (wp_target_finish) */
		struct wp_err de = WP_ERR_INIT;
		if (wp_target_set_driver(t, driver, &de) < 0)
			return wp_fail(err, -WPE_USAGE, "profile '%s': %s", file, de.msg);
		if (!cuda[0])
			goto gpus;
	}
	if (!strcmp(accel, "cuda") || !strcmp(accel, "rocm")) {
		bool is_cuda = accel[0] == 'c';
		const char *ver = is_cuda ? cuda : rocm;
		if (!ver[0])
			return wp_fail(err, -WPE_USAGE,
				       "profile '%s': accel is '%s' but '%s' gives no version",
				       file, accel, accel);
		if ((rc = parse_ver(file, accel, ver, v, err)))
			return rc;
		t->accel = is_cuda ? WP_ACCEL_CUDA : WP_ACCEL_ROCM;
		*(is_cuda ? &t->cuda_major : &t->rocm_major) = v[0];
		*(is_cuda ? &t->cuda_minor : &t->rocm_minor) = v[1];
	} else if (!strcmp(accel, "cpu")) {
		t->accel = WP_ACCEL_CPU;
	} else if (!strcmp(accel, "xpu")) {
		t->accel = WP_ACCEL_XPU;
	} else if (accel[0]) {
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s': accel '%s' is not cuda, cpu, rocm or xpu", file,
			       accel);
	} else {
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s' says neither 'cuda' (a version such as \"12.1\") "
			       "nor 'accel' (\"cpu\")",
			       file);
	}
	/* a machine with GPUs and no driver yet: its picks say which driver to install */
	x = wp_json_get(tg, "driver_none_yet");
	bool none_yet = false;
	if (wp_json_type(x) > WP_JSON_NULL && !wp_json_as_bool(x, &none_yet))
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s': 'driver_none_yet' must be true or false", file);
	t->driver_none_yet = none_yet && t->accel == WP_ACCEL_CUDA && !t->driver_given;

gpus:
	x = wp_json_get(tg, "gfx");
	for (size_t i = 0; wp_json_type(x) == WP_JSON_ARRAY && i < wp_json_len(x); i++) {
		const char *g = wp_json_as_str(wp_json_at(x, i));
		struct wp_err ge = WP_ERR_INIT;
		if (!g || wp_target_add_gpu(t, g, &ge) < 0)
			return wp_fail(err, -WPE_USAGE,
				       "profile '%s': 'gfx' holds something other than an AMD "
				       "architecture such as \"gfx942\"",
				       file);
	}
	x = wp_json_get(tg, "intel_device_ips");
	for (size_t i = 0; wp_json_type(x) == WP_JSON_ARRAY && i < wp_json_len(x); i++) {
		const char *ip = wp_json_as_str(wp_json_at(x, i));
		struct wp_err ie = WP_ERR_INIT;
		if (!ip || wp_target_add_intel_ip(t, ip, &ie) < 0)
			return wp_fail(err, -WPE_USAGE,
				       "profile '%s': 'intel_device_ips' holds something other than an "
				       "Intel device IP such as \"20.1.0\"",
				       file);
	}
	/* PEP 825 providers draft: a list of compatible features, used alone when present */
	x = wp_json_get(tg, "variant_properties");
	if (wp_json_type(x) > WP_JSON_NULL) {
		if (wp_json_type(x) != WP_JSON_OBJECT)
			return wp_fail(err, -WPE_USAGE,
				       "profile '%s': 'variant_properties' must be an object of "
				       "namespaces, each an object of features, each a list of values",
				       file);
		for (size_t i = 0; i < wp_json_len(x); i++) {
			const char *ns = wp_json_key_at(x, i);
			const struct wp_json_val *fo = wp_json_at(x, i);
			if (wp_json_type(fo) != WP_JSON_OBJECT)
				return wp_fail(err, -WPE_USAGE,
					       "profile '%s': 'variant_properties' namespace '%s' is not "
					       "an object of features",
					       file, ns ? ns : "");
			for (size_t k = 0; k < wp_json_len(fo); k++) {
				const char *feat = wp_json_key_at(fo, k);
				const struct wp_json_val *vals = wp_json_at(fo, k);
				if (wp_json_type(vals) != WP_JSON_ARRAY)
					return wp_fail(err, -WPE_USAGE,
						       "profile '%s': 'variant_properties' %s :: %s is not a "
						       "list of values",
						       file, ns, feat ? feat : "");
				for (size_t j = 0; j < wp_json_len(vals); j++) {
					const char *val = wp_json_as_str(wp_json_at(vals, j));
					struct wp_err ve = WP_ERR_INIT;
					if (!val ||
					    wp_target_add_variant_prop(t, ns, feat, val, &ve) < 0)
						return wp_fail(err, -WPE_USAGE, "profile '%s': %s",
							       file,
							       val ? ve.msg :
								     "a variant property value is not a string");
				}
			}
			if (!wp_json_len(fo))
				t->variant_given = true; /* a namespace named with nothing: still
							    the user's list */
		}
		if (!wp_json_len(x))
			t->variant_given = true; /* {} : this machine supports no variant property
						  */
	}
	const char *lv = wp_json_get_str(tg, "x86_64_level");
	if (lv && wp_target_set_x86_64_level(t, lv, err) < 0)
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s': 'x86_64_level' is not one of v1, v2, v3, v4", file);
	x = wp_json_get(tg, "gpu_sms");
	if (wp_json_type(x) <= WP_JSON_NULL)
		return 0;
	if (wp_json_type(x) != WP_JSON_ARRAY || wp_json_len(x) > WP_TARGET_MAX_GPUS)
		return wp_fail(err, -WPE_USAGE,
			       "profile '%s': 'gpu_sms' must be a list of at most %d numbers "
			       "such as 86",
			       file, WP_TARGET_MAX_GPUS);
	for (size_t i = 0; i < wp_json_len(x); i++) {
		long long sm;
		if (!wp_json_as_int(wp_json_at(x, i), &sm) || sm < 10 || sm > 999)
			return wp_fail(err, -WPE_USAGE,
				       "profile '%s': 'gpu_sms' holds something other than a "
				       "compute capability such as 86",
				       file);
		t->gpu_sm[t->n_gpus++] = (int)sm;
	}
	return 0;
}

int wp_target_load_profile(const char *path, struct wp_target *t, struct wp_err *err)
{
	return wp_target_load_profile_as(path, NULL, 0, t, err);
}

int wp_target_load_profile_as(const char *path, const struct wp_asks *asks, long idle_s,
			      struct wp_target *t, struct wp_err *err)
{
	const struct wp_json_opts o = { .what = path, .noun = "profile", .code = -WPE_USAGE,
					.max_bytes = WP_PROFILE_MAX };
	memset(t, 0, sizeof(*t));
	t->py_micro = -1;
	struct wp_buf b = WP_BUF_INIT;
	struct wp_json_val *root = NULL;
	int rc = read_profile(path, asks, idle_s, &b, err);
	if (!rc)
		rc = wp_json_load(b.data, b.len, &o, &root, err);
	if (rc)
		goto out;
	if (wp_json_type(root) != WP_JSON_OBJECT) {
		rc = wp_fail(err, -WPE_USAGE, "profile '%s' is not a JSON object", path);
		goto out;
	}
	const struct wp_json_val *tg = wp_json_get(root, "target");
	if (tg && wp_json_type(tg) != WP_JSON_OBJECT) {
		rc = wp_fail(err, -WPE_USAGE,
			     "profile '%s': 'target' is not an object; was the machine's "
			     "platform unknown when it was written?",
			     path);
		goto out;
	}
	rc = load_target(path, tg ? tg : root, t, err);
out:
	if (rc) {
		memset(t, 0, sizeof(*t));
		t->py_micro = -1;
	}
	wp_json_tree_free(root);
	wp_buf_free(&b);
	return rc;
}
