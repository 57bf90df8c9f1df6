/* env/profile.c: `detect --json` output, and reading it back as a target for `--target FILE`. */
#include "env/profile.h"
#include "base/mem.h"
#include "base/str.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

/* ---- writing ---- */

/* Keeps the first failure, so the calls below read as a document rather than a ladder of ifs. */
struct jw {
	yajl_gen g;
	yajl_gen_status st;
};

static void jw_keep(struct jw *w, yajl_gen_status st)
{
	if (w->st == yajl_gen_status_ok)
		w->st = st;
}

static void jw_str(struct jw *w, const char *s)
{
	jw_keep(w, s ? yajl_gen_string(w->g, (const unsigned char *)s, strlen(s)) : yajl_gen_null(w->g));
}

static void jw_key(struct jw *w, const char *k)
{
	jw_str(w, k);
}

static void jw_kstr(struct jw *w, const char *k, const char *s)
{
	jw_key(w, k);
	jw_str(w, s);
}

static void jw_kbool(struct jw *w, const char *k, bool b)
{
	jw_key(w, k);
	jw_keep(w, yajl_gen_bool(w->g, b));
}

/* "12.2"; null for 0.0, which means unknown everywhere in wp_detect. */
static void jw_kver(struct jw *w, const char *k, int major, int minor)
{
	char v[32];
	snprintf(v, sizeof(v), "%d.%d", major, minor);
	jw_kstr(w, k, major || minor ? v : NULL);
}

static void jw_open(struct jw *w, bool map)
{
	jw_keep(w, map ? yajl_gen_map_open(w->g) : yajl_gen_array_open(w->g));
}

static void jw_close(struct jw *w, bool map)
{
	jw_keep(w, map ? yajl_gen_map_close(w->g) : yajl_gen_array_close(w->g));
}

static void write_target(struct jw *w, const struct wp_target *t, bool ok)
{
	static const char *const accel[] = { "cuda", "cpu", "rocm" };
	char v[48];
	jw_open(w, true);
	jw_kstr(w, "implementation", t->impl[0] ? t->impl : NULL);
	if (t->py_micro >= 0)
		snprintf(v, sizeof(v), "%d.%d.%d", t->py_major, t->py_minor, t->py_micro);
	else
		snprintf(v, sizeof(v), "%d.%d", t->py_major, t->py_minor);
	jw_kstr(w, "python", t->py_major ? v : NULL);
	jw_kstr(w, "abi", t->abi);
	jw_kstr(w, "platform", ok ? t->platform : NULL);
	jw_kbool(w, "platform_exact", t->platform_exact);
	if (t->conda_subdir[0])
		jw_kstr(w, "conda_subdir", t->conda_subdir);
	jw_kstr(w, "accel", (unsigned)t->accel < WP_ARRAY_LEN(accel) ? accel[t->accel] : NULL);
	if (t->accel == WP_ACCEL_CUDA)
		jw_kver(w, "cuda", t->cuda_major, t->cuda_minor);
	if (t->accel == WP_ACCEL_ROCM)
		jw_kver(w, "rocm", t->rocm_major, t->rocm_minor);
	jw_key(w, "gpu_sms");
	jw_open(w, false);
	for (int i = 0; i < t->n_gpus && i < WP_TARGET_MAX_GPUS; i++)
		jw_keep(w, yajl_gen_integer(w->g, t->gpu_sm[i]));
	jw_close(w, false);
	jw_close(w, true);
}

int wp_detect_format_json(const struct wp_detect *d, struct wp_buf *out)
{
	struct jw w = { yajl_gen_alloc(NULL), yajl_gen_status_ok };
	if (!w.g)
		return -WPE_ENV;
	yajl_gen_config(w.g, yajl_gen_beautify, 1);
	yajl_gen_config(w.g, yajl_gen_indent_string, "  ");
	/* strings from programs were cleaned when stored; this makes any slip an error, not bad JSON */
	yajl_gen_config(w.g, yajl_gen_validate_utf8, 1);

	jw_open(&w, true);
	jw_kstr(&w, "driver_version", d->driver_version[0] ? d->driver_version : NULL);
	jw_kstr(&w, "driver_source", d->driver_source);
	jw_kbool(&w, "gpu_hardware", d->gpu_hardware);

	jw_key(&w, "cuda");
	if (d->cuda_major) {
		jw_open(&w, true);
		jw_kver(&w, "version", d->cuda_major, d->cuda_minor);
		jw_kstr(&w, "source", wp_cuda_source_name(d->cuda_source));
		jw_close(&w, true);
	} else {
		jw_str(&w, NULL);
	}

	char v[48];
	jw_key(&w, "gpus");
	jw_open(&w, false);
	for (int i = 0; i < d->n_gpus && i < WP_DETECT_MAX_GPUS; i++) {
		const struct wp_detect_gpu *g = &d->gpus[i];
		snprintf(v, sizeof(v), "%d.%d", g->cc_major, g->cc_minor);
		jw_open(&w, true);
		jw_kstr(&w, "name", g->name);
		jw_kstr(&w, "compute_capability", g->cc_major >= 0 && g->cc_minor >= 0 ? v : NULL);
		jw_close(&w, true);
	}
	jw_close(&w, false);

	jw_key(&w, "toolkits");
	jw_open(&w, false);
	for (size_t i = 0; i < d->n_toolkits; i++) {
		const struct wp_detect_toolkit *t = &d->toolkits[i];
		if (t->patch >= 0)
			snprintf(v, sizeof(v), "%d.%d.%d", t->major, t->minor, t->patch);
		else
			snprintf(v, sizeof(v), "%d.%d", t->major, t->minor);
		jw_open(&w, true);
		jw_kstr(&w, "version", v);
		jw_kstr(&w, "path", t->path);
		jw_kstr(&w, "source", t->source);
		jw_close(&w, true);
	}
	jw_close(&w, false);

	jw_key(&w, "pythons");
	jw_open(&w, false);
	for (size_t i = 0; i < d->n_pythons; i++) {
		const struct wp_detect_python *py = &d->pythons[i];
		snprintf(v, sizeof(v), "%d.%d.%d", py->major, py->minor, py->micro);
		jw_open(&w, true);
		jw_kstr(&w, "path", py->path);
		jw_kstr(&w, "implementation", py->impl);
		jw_kstr(&w, "version", v);
		jw_kstr(&w, "soabi", py->soabi);
		jw_kstr(&w, "machine", py->machine);
		jw_kbool(&w, "default", (int)i == d->default_python);
		jw_close(&w, true);
	}
	jw_close(&w, false);

	jw_kver(&w, "glibc", d->glibc_major, d->glibc_minor);
	jw_kver(&w, "musl", d->musl_major, d->musl_minor);
	jw_kstr(&w, "os", d->os[0] ? d->os : NULL);
	jw_kstr(&w, "os_release", d->os_release[0] ? d->os_release : NULL);
	jw_kstr(&w, "machine", d->machine[0] ? d->machine : NULL);

	struct wp_target t;
	bool ok = wp_detect_to_target(d, &t) == 0;
	jw_key(&w, "target");
	write_target(&w, &t, ok);

	jw_key(&w, "warnings");
	jw_open(&w, false);
	for (size_t i = 0; i < d->n_warnings; i++)
		jw_str(&w, d->warnings[i]);
	jw_close(&w, false);
	jw_close(&w, true);

	int rc = 0;
	const unsigned char *buf;
	size_t len;
	if (w.st != yajl_gen_status_ok || yajl_gen_get_buf(w.g, &buf, &len) != yajl_gen_status_ok)
		rc = -WPE_ENV;
	else if (wp_buf_add(out, buf, len) < 0)
		rc = -WPE_TOO_BIG;
	yajl_gen_free(w.g);
	return rc;
}

/* ---- reading ---- */

bool wp_json_nesting_ok(const char *s, size_t n, int max_depth)
{
	int depth = 0;
	bool in_str = false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = false;
		} else if (ch == '"') {
			in_str = true;
		} else if (ch == '[' || ch == '{') {
			if (++depth > max_depth)
				return false;
		} else if (ch == ']' || ch == '}') {
			depth--;
		}
	}
	return true;
}

static int read_profile(const char *path, struct wp_buf *b, struct wp_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return wp_fail(err, -WPE_USAGE, "cannot read profile '%s': %s", path, strerror(errno));
	int rc = 0, r = wp_buf_read_fd(b, fd);
	if (r == -1)
		rc = wp_fail(err, -WPE_USAGE, "cannot read profile '%s': %s", path, strerror(errno));
	else if (r == -2)
		rc = wp_fail(err, -WPE_USAGE, "profile '%s' is larger than %zu bytes; is it a profile?", path, b->max);
	close(fd);
	return rc;
}

static bool chars_ok(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr(extra, *s)))
			return false;
	return true;
}

/* A string member copied into dst: absent and null leave dst alone (0); anything else that
 * is not a fitting string is -WPE_USAGE. */
static int get_str(const char *file, yajl_val obj, const char *key, char *dst, size_t size,
		   const char *extra, struct wp_err *err)
{
	const char *path[] = { key, NULL };
	yajl_val v = yajl_tree_get(obj, path, yajl_t_any);
	if (!v || YAJL_IS_NULL(v))
		return 0;
	const char *s = YAJL_GET_STRING(v);
	if (!s || strlen(s) >= size || !chars_ok(s, extra))
		return wp_fail(err, -WPE_USAGE, "profile '%s': '%s' must be a string of at most %zu letters, "
			       "digits or '%s'", file, key, size - 1, extra);
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
		return wp_fail(err, -WPE_USAGE, "profile '%s': '%s' is \"%s\", not a version like \"12.1\"",
			       file, key, s);
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

static int load_target(const char *file, yajl_val tg, struct wp_target *t, struct wp_err *err)
{
	int rc, v[3];
	char buf[32] = "";

	if ((rc = get_str(file, tg, "implementation", t->impl, sizeof(t->impl), "", err)) ||
	    (rc = get_str(file, tg, "abi", t->abi, sizeof(t->abi), "_", err)) ||
	    (rc = get_str(file, tg, "platform", t->platform, sizeof(t->platform), "_.", err)) ||
	    (rc = get_str(file, tg, "conda_subdir", t->conda_subdir, sizeof(t->conda_subdir), "-_", err)))
		return rc;
	if (!t->platform[0])
		return wp_fail(err, -WPE_USAGE, "profile '%s' names no target 'platform' (such as "
			       "\"manylinux_2_28_x86_64\")", file);
	libc_from_platform(t);

	const char *exact[] = { "platform_exact", NULL };
	yajl_val x = yajl_tree_get(tg, exact, yajl_t_any);
	if (x && !YAJL_IS_NULL(x) && !YAJL_IS_TRUE(x) && !YAJL_IS_FALSE(x))
		return wp_fail(err, -WPE_USAGE, "profile '%s': 'platform_exact' must be true or false", file);
	t->platform_exact = x && YAJL_IS_TRUE(x);

	if ((rc = get_str(file, tg, "python", buf, sizeof(buf), ".", err)))
		return rc;
	if (buf[0]) {
		if ((rc = parse_ver(file, "python", buf, v, err)))
			return rc;
		t->py_major = v[0];
		t->py_minor = v[1];
		t->py_micro = v[2];
	}

	char accel[16] = "", cuda[16] = "", rocm[16] = "";
	if ((rc = get_str(file, tg, "accel", accel, sizeof(accel), "", err)) ||
	    (rc = get_str(file, tg, "cuda", cuda, sizeof(cuda), ".", err)) ||
	    (rc = get_str(file, tg, "rocm", rocm, sizeof(rocm), ".", err)))
		return rc;
	if (!accel[0])
		snprintf(accel, sizeof(accel), "%s", cuda[0] ? "cuda" : rocm[0] ? "rocm" : "");
	if (!strcmp(accel, "cuda") || !strcmp(accel, "rocm")) {
		bool is_cuda = accel[0] == 'c';
		const char *ver = is_cuda ? cuda : rocm;
		if (!ver[0])
			return wp_fail(err, -WPE_USAGE, "profile '%s': accel is '%s' but '%s' gives no version",
				       file, accel, accel);
		if ((rc = parse_ver(file, accel, ver, v, err)))
			return rc;
		t->accel = is_cuda ? WP_ACCEL_CUDA : WP_ACCEL_ROCM;
		*(is_cuda ? &t->cuda_major : &t->rocm_major) = v[0];
		*(is_cuda ? &t->cuda_minor : &t->rocm_minor) = v[1];
	} else if (!strcmp(accel, "cpu")) {
		t->accel = WP_ACCEL_CPU;
	} else if (accel[0]) {
		return wp_fail(err, -WPE_USAGE, "profile '%s': accel '%s' is not cuda, cpu or rocm", file, accel);
	} else {
		return wp_fail(err, -WPE_USAGE, "profile '%s' says neither 'cuda' (a version such as \"12.1\") "
			       "nor 'accel' (\"cpu\")", file);
	}

	const char *sms[] = { "gpu_sms", NULL };
	x = yajl_tree_get(tg, sms, yajl_t_any);
	if (!x || YAJL_IS_NULL(x))
		return 0;
	if (!YAJL_IS_ARRAY(x) || x->u.array.len > WP_TARGET_MAX_GPUS)
		return wp_fail(err, -WPE_USAGE, "profile '%s': 'gpu_sms' must be a list of at most %d numbers "
			       "such as 86", file, WP_TARGET_MAX_GPUS);
	for (size_t i = 0; i < x->u.array.len; i++) {
		yajl_val e = x->u.array.values[i];
		if (!YAJL_IS_INTEGER(e) || YAJL_GET_INTEGER(e) < 10 || YAJL_GET_INTEGER(e) > 999)
			return wp_fail(err, -WPE_USAGE, "profile '%s': 'gpu_sms' holds something other than a "
				       "compute capability such as 86", file);
		t->gpu_sm[t->n_gpus++] = (int)YAJL_GET_INTEGER(e);
	}
	return 0;
}

int wp_target_load_profile(const char *path, struct wp_target *t, struct wp_err *err)
{
	memset(t, 0, sizeof(*t));
	t->py_micro = -1;
	struct wp_buf b = WP_BUF_INIT_MAX(WP_PROFILE_MAX);
	yajl_val root = NULL;
	int rc = read_profile(path, &b, err);
	if (rc)
		goto out;
	if (memchr(wp_buf_cstr(&b), 0, b.len)) {
		rc = wp_fail(err, -WPE_USAGE, "profile '%s' is not JSON (it holds NUL bytes)", path);
		goto out;
	}
	if (!wp_json_nesting_ok(b.data, b.len, 64)) {
		rc = wp_fail(err, -WPE_USAGE, "profile '%s' nests deeper than 64 levels; is it a profile?", path);
		goto out;
	}
	char ebuf[256] = "";
	root = yajl_tree_parse(wp_buf_cstr(&b), ebuf, sizeof(ebuf));
	if (!root) {
		/* yajl adds the offending text and an arrow on later lines; the first says it */
		ebuf[strcspn(ebuf, "\n")] = 0;
		rc = wp_fail(err, -WPE_USAGE, "profile '%s' is not valid JSON: %s", path, ebuf);
		goto out;
	}
	if (!YAJL_IS_OBJECT(root)) {
		rc = wp_fail(err, -WPE_USAGE, "profile '%s' is not a JSON object", path);
		goto out;
	}
	const char *tpath[] = { "target", NULL };
	yajl_val tg = yajl_tree_get(root, tpath, yajl_t_any);
	if (tg && !YAJL_IS_OBJECT(tg)) {
		rc = wp_fail(err, -WPE_USAGE, "profile '%s': 'target' is not an object; was the machine's "
			     "platform unknown when it was written?", path);
		goto out;
	}
	rc = load_target(path, tg ? tg : root, t, err);
out:
	if (rc) {
		memset(t, 0, sizeof(*t));
		t->py_micro = -1;
	}
	yajl_tree_free(root);
	wp_buf_free(&b);
	return rc;
}
