/* tests/unit/test_wheelvariant.c: PEP 825 variant metadata read from the real PyTorch and
 * variantlib files, what each provider namespace supports on described targets, PEP 825's order,
 * the variant markers, and pylock's [packages.variants-json] table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "index/variants.h"
#include "ops/wheel/locks.h"
#include "resolver/marker.h"
#include "resolver/pick.h"
#include "resolver/target.h"
#include "resolver/wheelvariant.h"
#include "tests/unit/fixtures.h"

#define V10 "variants/variant-repack__torch-2.10__torch-2.10.0-variants.json"
#define V9 "variants/variant-repack__torch-2.9__torch-2.9.0-variants.json"
#define V8 "variants/variant-repack__torch-2.8__torch-2.8.0-variants.json"

static void load(const char *rel, struct wp_variants *v)
{
	size_t len;
	char *text = fixture_read(rel, &len);
	struct wp_err e = WP_ERR_INIT;
	if (wp_variants_parse(rel, text, len, v, &e) < 0)
		fail_msg("%s: %s", rel, e.msg);
	free(text);
}

static int parse_text(const char *text, struct wp_variants *v, struct wp_err *e)
{
	return wp_variants_parse("t.json", text, strlen(text), v, e);
}

static void target(struct wp_target *t, const char *words)
{
	struct wp_err e = WP_ERR_INIT;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", words);
	wp_target_init(t);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int rc = 0;
		if (!strncmp(w, "cuda=", 5))
			rc = wp_target_set_cuda(t, w + 5, &e);
		else if (!strncmp(w, "rocm=", 5))
			rc = wp_target_set_rocm(t, w + 5, &e);
		else if (!strncmp(w, "gpu=", 4))
			rc = wp_target_add_gpu(t, w + 4, &e);
		else if (!strncmp(w, "intel=", 6))
			rc = wp_target_add_intel_ip(t, w + 6, &e);
		else if (!strncmp(w, "x86=", 4))
			rc = wp_target_set_x86_64_level(t, w + 4, &e);
		else if (!strncmp(w, "platform=", 9))
			rc = wp_target_set_platform(t, w + 9, &e);
		else
			fail_msg("unknown word '%s'", w);
		if (rc)
			fail_msg("%s", e.msg);
	}
	assert_int_equal(wp_target_finish(t, &e), 0);
}

/* Every real file reads, with the shape SOURCES.md describes. */
static void test_real_files(void **state)
{
	(void)state;
	struct wp_variants v;
	load(V10, &v);
	assert_int_equal(v.schema_major, 0);
	assert_int_equal(v.schema_patch, 3);
	assert_int_equal(v.n_namespaces, 4);
	assert_string_equal(v.namespaces[3], "priority");
	assert_int_equal(v.n_labels, 7);
	assert_true(wp_variants_is_static_ns(&v, "priority"));
	assert_false(wp_variants_is_static_ns(&v, "nvidia"));
	const struct wp_vprop *sp = wp_variants_static_values(&v, "priority", "order");
	assert_non_null(sp);
	assert_int_equal(sp->n_values, 3);
	const struct wp_vlabel *l = wp_variants_find(&v, "cuda12.8");
	assert_non_null(l);
	assert_int_equal(l->n_props, 3); /* cuda_version_lower_bound, sm_arch, priority order */
	assert_string_equal(wp_vlabel_accel(l), "nvidia");
	assert_null(wp_vlabel_accel(wp_variants_find(&v, "null")));
	assert_true(wp_variants_has_accel(&v));
	wp_variants_release(&v);

	load(V9, &v); /* 0.0.2: the static order in default-priorities.property, plugin-use none */
	assert_int_equal(v.schema_patch, 2);
	assert_true(wp_variants_is_static_ns(&v, "priority"));
	assert_non_null(wp_variants_static_values(&v, "priority", "order"));
	wp_variants_release(&v);

	load(V8, &v); /* the first files name no schema version */
	assert_int_equal(v.schema_minor, 0);
	assert_non_null(wp_variants_find(&v, "00000000"));
	wp_variants_release(&v);

	static const char *const others[] = {
		"variants/torch-2.8.0-variants.json",
		"variants/variant-repack__torch-2.10__torchvision-0.25.0-variants.json",
		"variants/variantlib__dummy_project-1.0.0-variants.json",
		"variants/variantlib__sandbox_project-1.0.0-variants.json",
		"variants/variantlib__test_package-0-variants.json",
		"variants/variantlib-testwheel__test_package-0-py3-none-any-foo__variant.json",
		"variants/variantlib-testwheel__test_package-0-py3-none-any-null__variant.json",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(others); i++) {
		load(others[i], &v);
		wp_variants_release(&v);
	}
	load("variants/variantlib__dummy_project-1.0.0-variants.json", &v);
	const struct wp_vfeatures *fp = wp_variants_feature_prio(&v, "fictional_hw");
	assert_non_null(fp);
	assert_string_equal(fp->features[0], "humor");
	assert_non_null(wp_variants_value_prio(&v, "fictional_tech", "technology"));
	wp_variants_release(&v);
}

/* PEP 825 0.1.1, and what is refused, each by one line naming the fault. */
static void test_schema_and_refusals(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(parse_text("{\"$schema\": \"https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json\","
				    " \"default-priorities\": {\"namespace\": [\"x86_64\", \"blas_lapack\"]},"
				    " \"variants\": {\"null\": {}, \"x86_64_v3_openblas\": {\"blas_lapack\": {\"library\": [\"openblas\"]},"
				    " \"x86_64\": {\"level\": [\"v3\"]}}}}",
				    &v, &e),
			 0);
	assert_int_equal(v.schema_minor, 1);
	assert_int_equal(v.schema_patch, 1);
	assert_int_equal(v.n_labels, 2);
	wp_variants_release(&v);

	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "[]", "not a JSON object" },
		{ "{\"default-priorities\": {\"namespace\": [\"a\"]}, \"variants\": {}}",
		  "no $schema" },
		{ "{\"$schema\": \"https://x/v1.0.0.json\", \"default-priorities\": {\"namespace\": [\"a\"]}, \"variants\": {}}",
		  "major version" },
		{ "{\"$schema\": \"https://x/schema.json\", \"default-priorities\": {\"namespace\": [\"a\"]}, \"variants\": {}}",
		  "names no schema version" },
		{ "{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": []}, \"variants\": {}}",
		  "namespace is empty" },
		{ "{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"a\"]},"
		  " \"variants\": {\"x\": {\"b\": {\"f\": [\"1\"]}}}}",
		  "which default-priorities.namespace does not list" },
		{ "{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"a\"]},"
		  " \"variants\": {\"X\": {}}}",
		  "label 'X'" },
		{ "{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"a\"]},"
		  " \"variants\": {\"x\": {\"a\": {\"f\": []}}}}",
		  "is empty" },
		{ "{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"a\"]},"
		  " \"variants\": {\"x\": {\"a\": {\"f\": [\"1 2\"]}}}}",
		  "does not allow" },
		{ "{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"a\"]},"
		  " \"variants\": {\"null\": {\"a\": {\"f\": [\"1\"]}}}}",
		  "reserved" },
		{ "{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"a\", \"a\"]}, \"variants\": {}}",
		  "twice" },
		{ "{\"$schema\": 1", "t.json" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		wp_err_clear(&e);
		if (parse_text(bad[i].text, &v, &e) != -WPE_SOURCE)
			fail_msg("accepted: %s", bad[i].text);
		if (!strstr(e.msg, bad[i].says))
			fail_msg("'%s' lacks '%s'", e.msg, bad[i].says);
		assert_null(v.labels);
	}
	assert_true(wp_variants_json_name("torch-2.10.0-variants.json"));
	assert_false(wp_variants_json_name("-variants.json"));
	assert_false(wp_variants_json_name("torch-variants.json"));
	assert_false(wp_variants_json_name("torch-1-2-variants.json"));
}

static const struct wp_vfeature_order *feature(const struct wp_vorder *o, const char *ns,
					       const char *f)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->f[i].ns, ns) && !strcmp(o->f[i].feature, f))
			return &o->f[i];
	fail_msg("no order for %s :: %s", ns, f);
	return NULL;
}

/* What nvidia-variant-provider's test cases give (driver 12.7, GPU 8.9: lower bounds 12.7 ... 11,
 * upper bounds 15.20 ... 12.8, sm_arch 89_real ... 80_real then 80_virtual). */
static void test_nvidia_values(void **state)
{
	(void)state;
	const char *text =
		"{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"nvidia\"]},"
		" \"variants\": {\"a\": {\"nvidia\": {\"cuda_version_lower_bound\": [\"12.0\"],"
		" \"cuda_version_upper_bound\": [\"13\"], \"sm_arch\": [\"86_real\"]}}}}";
	struct wp_variants v;
	struct wp_err e = WP_ERR_INIT;
	struct wp_target t;
	struct wp_vorder o;
	assert_int_equal(parse_text(text, &v, &e), 0);
	target(&t, "cuda=12.7 gpu=sm_89");
	wp_vorder_init(&o, &v, &t);
	const struct wp_vfeature_order *lo = feature(&o, "nvidia", "cuda_version_lower_bound");
	assert_string_equal(lo->values[0], "12.7");
	assert_string_equal(lo->values[7], "12.0");
	assert_string_equal(lo->values[8], "12");
	assert_string_equal(lo->values[lo->n_values - 1], "11");
	assert_int_equal(lo->n_values, 31);
	const struct wp_vfeature_order *up = feature(&o, "nvidia", "cuda_version_upper_bound");
	assert_string_equal(up->values[0], "15.20");
	assert_string_equal(up->values[up->n_values - 1], "12.8");
	bool has13 = false, has12 = false;
	for (size_t i = 0; i < up->n_values; i++) {
		has13 |= !strcmp(up->values[i], "13");
		has12 |= !strcmp(up->values[i], "12");
	}
	assert_true(has13);
	assert_false(has12);
	const struct wp_vfeature_order *sm = feature(&o, "nvidia", "sm_arch");
	assert_int_equal(sm->n_values, 11);
	assert_string_equal(sm->values[0], "89_real");
	assert_string_equal(sm->values[9], "80_real");
	assert_string_equal(sm->values[10], "80_virtual");
	assert_true(wp_vorder_supported(&o, &v.labels[0], NULL));
	wp_vorder_release(&o);

	/* an AMD target supports nothing NVIDIA, and says why */
	struct wp_buf why = WP_BUF_INIT;
	target(&t, "rocm=7.0 gpu=gfx942");
	wp_vorder_init(&o, &v, &t);
	assert_false(wp_vorder_supported(&o, &v.labels[0], &why));
	assert_non_null(strstr(why.data, "no NVIDIA driver"));
	wp_vorder_release(&o);
	wp_buf_free(&why);
	wp_variants_release(&v);
}

/* An unknown namespace or feature makes its labels unsupported, and says so. */
static void test_unknown_namespace(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_target t;
	struct wp_vorder o;
	struct wp_buf why = WP_BUF_INIT;
	load("variants/variantlib__test_package-0-variants.json", &v);
	target(&t, "cuda=12.8 gpu=sm_86");
	wp_vorder_init(&o, &v, &t);
	assert_false(wp_vorder_supported(&o, wp_variants_find(&v, "5d8be4b9"), &why));
	assert_non_null(
		strstr(why.data, "namespace 'installable_plugin' has no provider wheelpick knows"));
	wp_vorder_release(&o);
	wp_variants_release(&v);

	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(parse_text("{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"nvidia\"]},"
				    " \"variants\": {\"a\": {\"nvidia\": {\"driver\": [\"12.4\"]}}}}",
				    &v, &e),
			 0);
	wp_vorder_init(&o, &v, &t);
	wp_buf_reset(&why);
	assert_false(wp_vorder_supported(&o, &v.labels[0], &why));
	assert_non_null(strstr(why.data, "feature 'nvidia :: driver'"));
	wp_vorder_release(&o);
	wp_variants_release(&v);
	wp_buf_free(&why);
}

/* The torch 2.10 order on an Ampere machine: cuda12.8 before cuda12.6 (priority), null last; and
 * the x86_64 level with the numpy example of PEP 825. */
static void test_order(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_target t;
	struct wp_vorder o;
	struct wp_buf d = WP_BUF_INIT;
	load(V10, &v);
	target(&t, "cuda=12.8 gpu=sm_86");
	wp_vorder_init(&o, &v, &t);
	const struct wp_vlabel *c126 = wp_variants_find(&v, "cuda12.6"),
			       *c128 = wp_variants_find(&v, "cuda12.8"),
			       *null = wp_variants_find(&v, "null");
	assert_true(wp_vorder_supported(&o, c126, NULL));
	assert_true(wp_vorder_supported(&o, c128, NULL));
	assert_true(wp_vorder_supported(&o, null, NULL));
	assert_false(wp_vorder_supported(&o, wp_variants_find(&v, "cuda13.0"), NULL));
	assert_false(wp_vorder_supported(&o, wp_variants_find(&v, "rocm7.0"), NULL));
	assert_true(wp_vorder_cmp(&o, c128, c126, &d) < 0);
	assert_string_equal(d.data, "priority :: order :: 2 before 3");
	assert_true(wp_vorder_cmp(&o, c126, null, NULL) < 0);
	assert_true(wp_vorder_cmp(&o, null, c128, NULL) > 0);
	wp_vorder_release(&o);
	wp_buf_free(&d);
	wp_variants_release(&v);

	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(parse_text("{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"x86_64\"]},"
				    " \"variants\": {\"null\": {}, \"v2\": {\"x86_64\": {\"level\": [\"v2\"]}},"
				    " \"v3\": {\"x86_64\": {\"level\": [\"v3\"]}}, \"v4\": {\"x86_64\": {\"level\": [\"v4\"]}}}}",
				    &v, &e),
			 0);
	target(&t, "cuda=cpu x86=v3");
	wp_vorder_init(&o, &v, &t);
	assert_true(wp_vorder_supported(&o, wp_variants_find(&v, "v3"), NULL));
	assert_false(wp_vorder_supported(&o, wp_variants_find(&v, "v4"), NULL));
	assert_true(wp_vorder_cmp(&o, wp_variants_find(&v, "v3"), wp_variants_find(&v, "v2"),
				  NULL) < 0);
	wp_vorder_release(&o);
	target(&t, "cuda=cpu platform=manylinux_2_28_aarch64");
	wp_vorder_init(&o, &v, &t);
	assert_false(wp_vorder_supported(&o, wp_variants_find(&v, "v2"), NULL));
	assert_true(wp_vorder_supported(&o, wp_variants_find(&v, "null"), NULL));
	wp_vorder_release(&o);
	wp_variants_release(&v);
}

/* PEP 825 0.1.x declares no static namespaces: an undeclared "priority" orders by number (10 after
 * 9); values as long as the grammar allows compare whole. */
static void test_static_01x(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_target t;
	struct wp_vorder o;
	struct wp_err e = WP_ERR_INIT;
	char text[1024], longv[129];
	memset(longv, 'a', 120);
	longv[120] = 0;
	snprintf(text, sizeof(text),
		 "{\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"priority\"]},"
		 " \"variants\": {\"a\": {\"priority\": {\"order\": [\"10\"]}}, \"b\": {\"priority\": {\"order\": [\"9\"]}},"
		 " \"c\": {\"priority\": {\"order\": [\"%s\"]}}}}",
		 longv);
	assert_int_equal(parse_text(text, &v, &e), 0);
	target(&t, "cuda=cpu");
	wp_vorder_init(&o, &v, &t);
	const struct wp_vlabel *a = wp_variants_find(&v, "a"), *b = wp_variants_find(&v, "b"),
			       *c = wp_variants_find(&v, "c");
	assert_true(wp_vorder_supported(&o, a, NULL));
	assert_true(wp_vorder_supported(&o, c, NULL));
	assert_true(wp_vorder_cmp(&o, b, a, NULL) < 0);
	wp_vorder_release(&o);
	wp_variants_release(&v);
}

/* A static namespace supports exactly what its static-properties list: a label using a feature
 * they leave out is not supported, and the why-line names it; for 0.0.x files,
 * default-priorities.property wins over the static-properties order (variantlib's reading,
 * tests/diff/variants_diff.py). */
static void test_static_00x(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_target t;
	struct wp_vorder o;
	struct wp_err e = WP_ERR_INIT;
	const char *text =
		"{\"$schema\": \"https://variants-schema.wheelnext.dev/v0.0.3.json\","
		" \"default-priorities\": {\"namespace\": [\"blas\"], \"property\": {\"blas\": {\"lib\": [\"mkl\"]}}},"
		" \"providers\": {\"blas\": {\"install-time\": false}},"
		" \"static-properties\": {\"blas\": {\"lib\": [\"openblas\", \"mkl\"]}},"
		" \"variants\": {\"null\": {}, \"ob\": {\"blas\": {\"lib\": [\"openblas\"]}},"
		" \"mkl\": {\"blas\": {\"lib\": [\"mkl\"]}}, \"ilp\": {\"blas\": {\"ilp64\": [\"yes\"]}}}}";
	assert_int_equal(parse_text(text, &v, &e), 0);
	target(&t, "cuda=cpu");
	wp_vorder_init(&o, &v, &t);
	const struct wp_vlabel *ob = wp_variants_find(&v, "ob"), *mkl = wp_variants_find(&v, "mkl"),
			       *ilp = wp_variants_find(&v, "ilp");
	struct wp_buf why = WP_BUF_INIT;
	assert_false(wp_vorder_supported(&o, ilp, &why));
	assert_non_null(strstr(wp_buf_cstr(&why), "does not list feature 'ilp64'"));
	wp_buf_free(&why);
	assert_true(wp_vorder_supported(&o, ob, NULL));
	assert_true(wp_vorder_supported(&o, mkl, NULL));
	assert_true(wp_vorder_cmp(&o, mkl, ob, NULL) < 0); /* the property priority, not the static
							      order */
	wp_vorder_release(&o);
	wp_variants_release(&v);
}

/* AMD wants the exact ROCm version and one of the machine's gfx; Intel a device IP or its base. */
static void test_amd_intel(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_target t;
	struct wp_vorder o;
	load(V10, &v);
	target(&t, "rocm=7.1 gpu=gfx1100");
	wp_vorder_init(&o, &v, &t);
	assert_true(wp_vorder_supported(&o, wp_variants_find(&v, "rocm7.1"), NULL));
	assert_false(wp_vorder_supported(&o, wp_variants_find(&v, "rocm7.0"), NULL));
	wp_vorder_release(&o);
	target(&t, "rocm=7.0 gpu=gfx1036");
	wp_vorder_init(&o, &v, &t);
	assert_false(wp_vorder_supported(&o, wp_variants_find(&v, "rocm7.0"), NULL));
	wp_vorder_release(&o);
	target(&t, "intel=dg2-g12");
	wp_vorder_init(&o, &v, &t);
	assert_true(wp_vorder_supported(&o, wp_variants_find(&v, "xpu"), NULL));
	wp_vorder_release(&o);
	wp_variants_release(&v);

	char ip[16], compat[16];
	assert_true(wp_intel_device_ip("lnl-m", ip, compat));
	assert_string_equal(ip, "20.4.4");
	assert_string_equal(compat, "20.1.0");
	assert_true(wp_intel_device_ip("30.1.0", ip, compat));
	assert_string_equal(compat, "");
	assert_false(wp_intel_device_ip("nonsense", ip, compat));
	struct wp_target x;
	struct wp_err e = WP_ERR_INIT;
	wp_target_init(&x);
	assert_int_equal(wp_target_add_intel_ip(&x, "foo", &e), -WPE_USAGE);
	assert_int_equal(wp_target_set_x86_64_level(&x, "v5", &e), -WPE_USAGE);
	assert_int_equal(wp_target_set_x86_64_level(&x, "x86-64-v2", &e), 0);
	assert_int_equal(x.x86_64_level, 2);
}

static bool holds(const char *marker, const struct wp_marker_env *env)
{
	struct wp_marker m;
	struct wp_err e = WP_ERR_INIT;
	bool yes = false;
	if (wp_marker_parse(&m, marker, strlen(marker), &e) < 0)
		fail_msg("%s: %s", marker, e.msg);
	if (wp_marker_evaluate(&m, env, &yes, &e) < 0)
		fail_msg("%s: %s", marker, e.msg);
	wp_marker_release(&m);
	return yes;
}

/* PEP 825 "evaluating variant markers", with its sm_arch example: only supported properties
 * count. */
static void test_markers(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_target t;
	struct wp_marker_env env;
	load(V10, &v);
	target(&t, "cuda=13.0 gpu=sm_86 platform=manylinux_2_28_x86_64");
	wp_marker_env_from_target(&env, &t);
	struct wp_candidate c = {
		.project = "torch",
		.version = "2.10.0",
		.kind = "wheel",
		.filename = "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda13.0.whl",
		.variants = &v
	};
	wp_pick_variant_marker_env(&env, &c, &t);
	assert_true(holds("variant_label == 'cuda13.0'", &env));
	assert_true(holds("variant_label != 'null'", &env));
	assert_true(holds("'nvidia' in variant_namespaces", &env));
	assert_true(holds("'priority' in variant_namespaces", &env));
	assert_false(holds("'amd' in variant_namespaces", &env));
	assert_true(holds("'nvidia :: sm_arch' in variant_features", &env));
	assert_true(holds("'nvidia::sm_arch::86_real' in variant_properties", &env));
	/* the build has 120_real, but an sm_86 machine does not support it */
	assert_false(holds("'nvidia :: sm_arch :: 120_real' in variant_properties", &env));
	assert_true(holds("'nvidia :: sm_arch :: 120_real' not in variant_properties", &env));
	assert_true(holds("variant_label == 'cuda13.0' and platform_system == 'Linux'", &env));

	/* a set compared with == is an error naming it */
	struct wp_marker m;
	struct wp_err e = WP_ERR_INIT;
	bool yes;
	assert_int_equal(wp_marker_parse(&m, "variant_namespaces == 'nvidia'", 30, &e), 0);
	assert_int_equal(wp_marker_evaluate(&m, &env, &yes, &e), -WPE_PARSE);
	assert_non_null(strstr(e.msg, "it is a set"));
	wp_marker_release(&m);

	/* a non-variant wheel: "" and empty sets */
	struct wp_candidate plain = {
		.project = "torch",
		.version = "2.10.0",
		.kind = "wheel",
		.filename = "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64.whl"
	};
	wp_pick_variant_marker_env(&env, &plain, &t);
	assert_true(holds("variant_label == ''", &env));
	assert_false(holds("'nvidia' in variant_namespaces", &env));
	wp_variants_release(&v);
}

/* pylock's table: TOML with the schema, the namespaces, every label kept in full. */
static void test_toml(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_buf b = WP_BUF_INIT;
	load(V10, &v);
	const char *keep[] = { "cuda12.8", "null" };
	wp_pylock_variants_toml(&v, keep, 2, "packages.variants-json", &b);
	assert_non_null(
		strstr(b.data,
		       "[packages.variants-json]\n\"$schema\" = \"https://variants-schema.wheelnext.dev/v0.0.3.json\""));
	assert_non_null(strstr(b.data, "namespace = [\"nvidia\", \"priority\"]"));
	assert_non_null(strstr(b.data, "\"null\" = {}"));
	assert_non_null(
		strstr(b.data,
		       "\"cuda12.8\" = { \"nvidia\" = { \"cuda_version_lower_bound\" = [\"12.0\"]"));
	assert_null(strstr(b.data, "cuda12.6"));
	assert_non_null(strstr(b.data, "[packages.variants-json.static-properties]"));
	/* the plan keeps a copy of the metadata, which outlives the provider's: the same table from
	 * it */
	struct wp_variants *copy = wp_variants_copy(&v);
	wp_variants_release(&v);
	struct wp_buf c = WP_BUF_INIT;
	wp_pylock_variants_toml(copy, keep, 2, "packages.variants-json", &c);
	assert_string_equal(b.data, c.data);
	wp_buf_free(&c);
	wp_buf_free(&b);
	wp_variants_release(copy);
	free(copy);
}

/* PEP 825 providers draft: the providers' answers for a machine written as a list, and the list
 * read back picks the same labels with no provider rule (a CPU target here). */
static void test_variant_list(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_target t, u;
	struct wp_buf list = WP_BUF_INIT;
	struct wp_err e = WP_ERR_INIT;
	load(V10, &v);
	target(&t, "cuda=12.8 gpu=sm_86 x86=v3");
	wp_target_variant_props(&t, &list);
	assert_non_null(strstr(list.data, "nvidia :: sm_arch :: 86_real\n"));
	assert_non_null(
		strstr(list.data,
		       "x86_64 :: level :: v3\nx86_64 :: level :: v2\nx86_64 :: level :: v1\n"));
	assert_null(strstr(list.data, "amd ::")); /* not a ROCm machine */
	target(&u, "cuda=cpu");
	for (char *p = list.data; *p;) {
		char *nl = strchr(p, '\n'), *a = strstr(p, " :: "), *b = strstr(a + 4, " :: ");
		*nl = *a = *b = 0;
		assert_int_equal(wp_target_add_variant_prop(&u, p, a + 4, b + 4, &e), 0);
		p = nl + 1;
	}
	assert_true(u.variant_given);
	struct wp_vorder ot, ou;
	wp_vorder_init(&ot, &v, &t);
	wp_vorder_init(&ou, &v, &u);
	for (size_t i = 0; i < v.n_labels; i++)
		assert_int_equal(wp_vorder_supported(&ot, &v.labels[i], NULL),
				 wp_vorder_supported(&ou, &v.labels[i], NULL));
	assert_true(wp_vorder_supported(&ou, wp_variants_find(&v, "cuda12.8"), NULL));
	wp_vorder_release(&ot);
	wp_vorder_release(&ou);
	/* names PEP 825 does not allow are refused, naming the property */
	assert_int_equal(wp_target_add_variant_prop(&u, "nvidia", "sm_arch", "86 real", &e),
			 -WPE_USAGE);
	assert_non_null(strstr(e.msg, "86 real"));
	wp_buf_free(&list);
	wp_variants_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_files),
		cmocka_unit_test(test_schema_and_refusals),
		cmocka_unit_test(test_variant_list),
		cmocka_unit_test(test_nvidia_values),
		cmocka_unit_test(test_unknown_namespace),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_static_01x),
		cmocka_unit_test(test_static_00x),
		cmocka_unit_test(test_amd_intel),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_toml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
