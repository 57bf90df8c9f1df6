/* tests/unit/test_condapick.c: the conda picking rule on the real pytorch channel and pixi's
 * conda-forge records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "index/repodata.h"
#include "resolver/condapick.h"
#include "resolver/fileinfo.h"
#include "resolver/matchspec.h"
#include "resolver/target.h"
#include "tests/unit/fixtures.h"

#define RATTLER "conda_repodata/rattler_pytorch_linux-64_repodata.json"
#define PIXI "conda_repodata/pixi_pytorch_example_records_as_repodata.json"

/* ---- candidates that own their strings ---- */

struct set {
	struct wp_conda_candidate *c;
	size_t n, cap;
	const char *only; /* keep this name only, or NULL */
};

static char *dup_or_null(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static void set_add(struct set *s, const struct wp_conda_candidate *k)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->c = wp_xrealloc(s->c, s->cap * sizeof(*s->c));
	}
	struct wp_conda_candidate *d = &s->c[s->n++];
	*d = *k;
	d->name = dup_or_null(k->name);
	d->version = dup_or_null(k->version);
	d->build = dup_or_null(k->build);
	d->depends = dup_or_null(k->depends);
	d->constrains = dup_or_null(k->constrains);
	d->track_features = dup_or_null(k->track_features);
	d->subdir = dup_or_null(k->subdir);
	d->filename = dup_or_null(k->filename);
	d->url = dup_or_null(k->url);
	d->md5 = dup_or_null(k->md5);
	d->sha256 = dup_or_null(k->sha256);
}

static void set_free(struct set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct wp_conda_candidate *d = &s->c[i];
		free((char *)d->name);
		free((char *)d->version);
		free((char *)d->build);
		free((char *)d->depends);
		free((char *)d->constrains);
		free((char *)d->track_features);
		free((char *)d->subdir);
		free((char *)d->filename);
		free((char *)d->url);
		free((char *)d->md5);
		free((char *)d->sha256);
	}
	free(s->c);
	memset(s, 0, sizeof(*s));
}

/* The repo's own streaming reader fills the set, so the depends text is what the catalog stores. */
static int sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	struct set *s = ctx;
	if (s->only && strcmp(r->project, s->only))
		return 0;
	struct wp_conda_candidate k = {
		.name = r->project,
		.version = r->version,
		.build = r->build,
		.build_number = r->build_number,
		.depends = r->depends,
		.constrains = r->constrains,
		.track_features = r->track_features,
		.subdir = r->subdir,
		.timestamp = r->timestamp,
		.filename = r->filename,
		.url = r->url,
		.md5 = r->md5,
		.sha256 = r->sha256,
	};
	set_add(s, &k);
	return 0;
}

static void load_rattler(struct set *s, const char *only)
{
	char *path = fixture_need(RATTLER);
	struct wp_err e = WP_ERR_INIT;
	s->only = only;
	int rc = wp_read_repodata_file(path, "https://conda.anaconda.org/pytorch/linux-64", sink, s,
				       NULL, &e);
	free(path);
	if (rc < 0)
		fail_msg("%s", e.msg);
}

/* pixi's file groups repodata per channel and subdir: {"channels": {URL: {subdir: repodata}}}. */
static char *json_of(yajl_val v)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *buf;
	size_t len;
	yajl_gen_array_open(g);
	for (size_t i = 0; YAJL_IS_ARRAY(v) && i < v->u.array.len; i++) {
		const char *s = YAJL_GET_STRING(v->u.array.values[i]);
		yajl_gen_string(g, (const unsigned char *)s, strlen(s));
	}
	yajl_gen_array_close(g);
	yajl_gen_get_buf(g, &buf, &len);
	char *out = wp_xstrndup((const char *)buf, len);
	yajl_gen_free(g);
	return out;
}

static const char *get_str(yajl_val o, const char *k)
{
	const char *path[] = { k, NULL };
	return YAJL_GET_STRING(yajl_tree_get(o, path, yajl_t_string));
}

static long long get_num(yajl_val o, const char *k)
{
	const char *path[] = { k, NULL };
	yajl_val v = yajl_tree_get(o, path, yajl_t_number);
	return v && YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : -1;
}

static void load_pixi(struct set *s, const char *channel, const char *subdir, const char *only)
{
	char *text = fixture_read(PIXI, NULL);
	char ebuf[256];
	yajl_val root = yajl_tree_parse(text, ebuf, sizeof(ebuf));
	free(text);
	if (!root)
		fail_msg("pixi data: %s", ebuf);
	const char *rp[] = { "channels", channel, subdir, NULL };
	yajl_val rd = yajl_tree_get(root, rp, yajl_t_object);
	assert_non_null(rd);
	static const char *const sections[] = { "packages", "packages.conda" };
	for (size_t sct = 0; sct < 2; sct++) {
		const char *sp[] = { sections[sct], NULL };
		yajl_val pk = yajl_tree_get(rd, sp, yajl_t_object);
		for (size_t i = 0; pk && i < pk->u.object.len; i++) {
			yajl_val r = pk->u.object.values[i];
			const char *dp[] = { "depends", NULL }, *cp[] = { "constrains", NULL };
			yajl_val dv = yajl_tree_get(r, dp, yajl_t_array),
				 cv = yajl_tree_get(r, cp, yajl_t_array);
			if (only && strcmp(get_str(r, "name"), only))
				continue;
			char *url = wp_xasprintf("%s/%s/%s", channel, subdir, pk->u.object.keys[i]);
			char *deps = dv ? json_of(dv) : NULL, *cons = cv ? json_of(cv) : NULL;
			struct wp_conda_candidate k = {
				.name = get_str(r, "name"),
				.version = get_str(r, "version"),
				.build = get_str(r, "build"),
				.build_number = get_num(r, "build_number"),
				.depends = deps,
				.constrains = cons,
				.track_features = get_str(r, "track_features"),
				.subdir = get_str(r, "subdir"),
				.timestamp = get_num(r, "timestamp"),
				.filename = pk->u.object.keys[i],
				.url = url,
				.md5 = get_str(r, "md5"),
				.sha256 = get_str(r, "sha256"),
			};
			set_add(s, &k);
			free(url);
			free(deps);
			free(cons);
		}
	}
	yajl_tree_free(root);
}

/* ---- picking ---- */

/* cuda: "11.2", "cpu", or "11.7 strict" (--cuda-compat strict) */
static void target(struct wp_target *t, const char *cuda, const char *py, const char *platform)
{
	struct wp_err e = WP_ERR_INIT;
	char cu[32];
	snprintf(cu, sizeof(cu), "%s", cuda);
	char *sp = strchr(cu, ' ');
	wp_target_init(t);
	if (sp)
		*sp = 0;
	assert_int_equal(wp_target_set_cuda(t, cu, &e), 0);
	if (sp)
		assert_int_equal(wp_target_set_cuda_compat(t, sp + 1, &e), 0);
	assert_int_equal(wp_target_set_python(t, py, &e), 0);
	assert_int_equal(wp_target_set_platform(t, platform, &e), 0);
	assert_int_equal(wp_target_finish(t, &e), 0);
}

/* Picks; returns the chosen file name or NULL, and leaves res for the caller to look at. */
static const char *pick(const struct set *s, const char *spec, const struct wp_target *t,
			struct wp_condapick_result *res)
{
	struct wp_matchspec m;
	struct wp_err e = WP_ERR_INIT;
	if (wp_matchspec_parse(spec, &m, &e) < 0)
		fail_msg("%s", e.msg);
	struct wp_condapick_request req = { .spec_text = spec, .spec = &m };
	assert_int_equal(wp_condapick(s->c, s->n, &req, t, res, &e), 0);
	wp_matchspec_release(&m);
	if (res->chosen < 0) {
		assert_non_null(res->message);
		return NULL;
	}
	assert_non_null(res->reason);
	return s->c[res->chosen].filename;
}

static const char *reject_why(const struct set *s, const struct wp_condapick_result *res,
			      const char *filename)
{
	for (size_t i = 0; i < res->n_rejects; i++)
		if (!strcmp(s->c[res->rejects[i].index].filename, filename))
			return res->rejects[i].why;
	return NULL;
}

static void expect_pick(const struct set *s, const char *spec, const char *cuda, const char *py,
			const char *platform, const char *want_file, const char *want_variant)
{
	struct wp_target t;
	struct wp_condapick_result res;
	target(&t, cuda, py, platform);
	const char *got = pick(s, spec, &t, &res);
	if (!got || strcmp(got, want_file))
		fail_msg("'%s' for CUDA %s, Python %s, %s: got %s (%s), want %s", spec, cuda, py,
			 platform, got ? got : "nothing", got ? res.reason : res.message,
			 want_file);
	assert_string_equal(res.variant.kind == WP_VARIANT_NONE ? "" : res.variant.label,
			    want_variant);
	wp_condapick_result_release(&res);
}

static void test_pytorch_channel(void **state)
{
	struct set s = { 0 };
	load_rattler(&s, "pytorch");
	assert_true(s.n > 200);

	/* the brief's case: 1.8.0 is in the file, and cu111 is the newest CUDA under 11.2 */
	expect_pick(&s, "pytorch 1.8.0", "11.2", "3.8", "linux-64",
		    "pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2", "cu111");
	expect_pick(&s, "pytorch==1.8.0", "11.2", "3.8", "linux-64",
		    "pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2", "cu111");
	expect_pick(&s, "pytorch=1.8.0=py3.8_cuda11.1*", "12.4", "3.8", "linux-64",
		    "pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2", "cu111");
	/* CUDA 11.0 cannot take cu111: the next one down */
	expect_pick(&s, "pytorch 1.8.0", "11.0", "3.8", "linux-64",
		    "pytorch-1.8.0-py3.8_cuda10.2_cudnn7.6.5_0.tar.bz2", "cu102");
	/* pytorch-cuda pins (2.x): an 11.7 driver runs the cu118 build by minor-version
	 * compatibility, and takes cu117 when asked to be strict */
	expect_pick(&s, "pytorch 2.0.1", "11.7", "3.10", "linux-64",
		    "pytorch-2.0.1-py3.10_cuda11.8_cudnn8.7.0_0.tar.bz2", "cu118");
	expect_pick(&s, "pytorch 2.0.1", "11.7 strict", "3.10", "linux-64",
		    "pytorch-2.0.1-py3.10_cuda11.7_cudnn8.5.0_0.tar.bz2", "cu117");
	expect_pick(&s, "pytorch 2.1.0", "12.2", "3.11", "linux-64",
		    "pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0.tar.bz2", "cu121");
	expect_pick(&s, "pytorch 2.1.0", "12.0", "3.11", "linux-64",
		    "pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0.tar.bz2", "cu121");
	expect_pick(&s, "pytorch 2.1.0", "12.0 strict", "3.11", "linux-64",
		    "pytorch-2.1.0-py3.11_cuda11.8_cudnn8.7.0_0.tar.bz2", "cu118");
	/* CPU target: the cpu build (pytorch-mutex * cpu), never a CUDA one */
	expect_pick(&s, "pytorch 2.1.0", "cpu", "3.9", "linux-64",
		    "pytorch-2.1.0-py3.9_cpu_0.tar.bz2", "cpu");
	expect_pick(&s, "pytorch 1.8.0", "cpu", "3.8", "linux-64",
		    "pytorch-1.8.0-py3.8_cpu_0.tar.bz2", "cpu");
	/* no version: the newest that fits */
	expect_pick(&s, "pytorch", "11.8", "3.11", "linux-64",
		    "pytorch-2.1.0-py3.11_cuda11.8_cudnn8.7.0_0.tar.bz2", "cu118");
	expect_pick(&s, "pytorch >=1.8,<1.9", "11.2", "3.8", "linux-64",
		    "pytorch-1.8.1-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2", "cu111");

	/* reasons for the others */
	struct wp_target t;
	struct wp_condapick_result res;
	target(&t, "11.2", "3.8", "linux-64");
	assert_non_null(pick(&s, "pytorch 1.8.0", &t, &res));
	assert_non_null(
		strstr(res.reason, "pytorch 1.8.0 is the newest version with a build that fits"));
	assert_non_null(strstr(res.reason, "cuda11.1 is the newest CUDA the driver runs"));
	assert_string_equal(reject_why(&s, &res,
				       "pytorch-1.8.0-py3.8_cuda10.2_cudnn7.6.5_0.tar.bz2"),
			    "fits, but another record is better");
	assert_string_equal(reject_why(&s, &res,
				       "pytorch-1.8.0-py3.9_cuda11.1_cudnn8.0.5_0.tar.bz2"),
			    "requires python >=3.9,<3.10.0a0; the target has Python 3.8");
	/* the resolver names what to ask for; with no words from its caller, plain ones */
	assert_string_equal(reject_why(&s, &res, "pytorch-1.8.0-py3.8_cpu_0.tar.bz2"),
			    "cpu: a CPU build; ask with a CPU target");
	assert_string_equal(reject_why(&s, &res,
				       "pytorch-1.7.1-py3.8_cuda11.0.221_cudnn8.0.5_0.tar.bz2"),
			    "1.7.1 py3.8_cuda11.0.221_cudnn8.0.5_0 is outside 'pytorch 1.8.0'");
	assert_int_equal(res.n_rejects, s.n - 1);
	wp_condapick_result_release(&res);
	{
		/* the caller's words (the CLI's flags) where it gives them */
		static const struct wp_asks asks = {
			.words = { [WP_ASK_CPU] = "CPU-WORDS", [WP_ASK_CHANNEL] = "CHANNEL-WORDS" }
		};
		struct wp_matchspec m;
		struct wp_err e = WP_ERR_INIT;
		assert_int_equal(wp_matchspec_parse("pytorch 1.8.0", &m, &e), 0);
		struct wp_condapick_request req = { .spec_text = "pytorch 1.8.0",
						    .spec = &m,
						    .asks = &asks };
		assert_int_equal(wp_condapick(s.c, s.n, &req, &t, &res, &e), 0);
		assert_string_equal(reject_why(&s, &res, "pytorch-1.8.0-py3.8_cpu_0.tar.bz2"),
				    "cpu: a CPU build; ask with CPU-WORDS");
		wp_condapick_result_release(&res);
		assert_int_equal(wp_condapick(s.c, 0, &req, &t, &res, &e), 0);
		assert_non_null(res.message);
		assert_non_null(strstr(res.message, "add its channel with CHANNEL-WORDS"));
		wp_condapick_result_release(&res);
		wp_matchspec_release(&m);
	}

	target(&t, "11.8", "3.8", "linux-64");
	assert_non_null(pick(&s, "pytorch 2.1.0", &t, &res));
	assert_string_equal(reject_why(&s, &res,
				       "pytorch-2.1.0-py3.8_cuda12.1_cudnn8.9.2_0.tar.bz2"),
			    "cu121: CUDA 12.1 needs driver 530.30.02 or newer; driver 520.61.05 supports CUDA 11.8");
	wp_condapick_result_release(&res);

	target(&t, "cpu", "3.8", "linux-64");
	assert_non_null(pick(&s, "pytorch 2.1.0", &t, &res));
	assert_string_equal(reject_why(&s, &res,
				       "pytorch-2.1.0-py3.8_cuda12.1_cudnn8.9.2_0.tar.bz2"),
			    "cu121: a CUDA build; the target is CPU-only");
	wp_condapick_result_release(&res);

	/* CUDA 9.2: 1.8.0 has no build for it; the message lists what exists and what would fit */
	target(&t, "9.2", "3.8", "linux-64");
	assert_null(pick(&s, "pytorch 1.8.0", &t, &res));
	if (strcmp(res.message,
		   "pytorch 1.8.0 has cpu, cuda10.1, cuda10.2, cuda11.1; none runs on CUDA 9.2; "
		   "the newest pytorch that fits CUDA 9.2, Python 3.8, linux-64 is 1.7.1 (cuda9.2)"))
		fail_msg("message: %s", res.message);
	assert_string_equal(reject_why(&s, &res,
				       "pytorch-1.8.0-py3.8_cuda10.2_cudnn7.6.5_0.tar.bz2"),
			    "cu102: CUDA 10.2 needs driver 440.33 or newer; driver 396.26 supports CUDA 9.2");
	wp_condapick_result_release(&res);

	/* Python 3.12 postdates the file */
	target(&t, "12.1", "3.12", "linux-64");
	assert_null(pick(&s, "pytorch 2.1.0", &t, &res));
	assert_non_null(
		strstr(res.message,
		       "pytorch 2.1.0 has cpu, cuda11.8, cuda12.1; none supports Python 3.12"));
	wp_condapick_result_release(&res);

	/* another platform */
	target(&t, "12.1", "3.11", "osx-arm64");
	assert_null(pick(&s, "pytorch 2.1.0", &t, &res));
	assert_non_null(strstr(res.message, "none is built for osx-arm64"));
	wp_condapick_result_release(&res);

	/* a version the channel never had */
	target(&t, "12.1", "3.11", "linux-64");
	assert_null(pick(&s, "pytorch 9.9", &t, &res));
	assert_string_equal(res.message,
			    "no pytorch record matches 'pytorch 9.9'; the newest in the catalog is 2.1.0");
	wp_condapick_result_release(&res);

	/* a channel the records are not from */
	assert_null(pick(&s, "conda-forge::pytorch", &t, &res));
	assert_non_null(strstr(res.message, "no pytorch record matches"));
	wp_condapick_result_release(&res);
	expect_pick(&s, "pytorch::pytorch 2.1.0", "12.1", "3.11", "linux-64",
		    "pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0.tar.bz2", "cu121");

	/* nothing at all */
	assert_int_equal(wp_condapick(s.c, 0, &(struct wp_condapick_request){ .spec_text = "x" },
				      &t, &res, NULL),
			 -WPE_USAGE);
	wp_condapick_result_release(&res);
	struct wp_matchspec m;
	assert_int_equal(wp_matchspec_parse("pytorch", &m, NULL), 0);
	struct wp_condapick_request req = { .spec_text = "pytorch", .spec = &m };
	assert_int_equal(wp_condapick(s.c, 0, &req, &t, &res, NULL), 0);
	assert_int_equal(res.chosen, -1);
	assert_non_null(strstr(res.message, "the catalog has no conda records for 'pytorch'"));
	wp_condapick_result_release(&res);

	/* a set shares its variant */
	target(&t, "12.1", "3.11", "linux-64");
	req.require_variant = "cu118";
	assert_int_equal(wp_condapick(s.c, s.n, &req, &t, &res, NULL), 0);
	assert_int_not_equal(res.chosen, -1);
	assert_string_equal(s.c[res.chosen].filename,
			    "pytorch-2.1.0-py3.11_cuda11.8_cudnn8.7.0_0.tar.bz2");
	wp_condapick_result_release(&res);
	wp_matchspec_release(&m);
	set_free(&s);
}

/* Every record of the channel classifies, and the CUDA ones agree with their build strings. */
static void test_variants(void **state)
{
	struct set s = { 0 };
	load_rattler(&s, NULL);
	size_t cuda = 0, cpu = 0;
	for (size_t i = 0; i < s.n; i++) {
		struct wp_variant v;
		char lab[48];
		wp_condapick_variant(&s.c[i], &v);
		wp_conda_variant(s.c[i].build, lab);
		cuda += v.kind == WP_VARIANT_CUDA;
		cpu += v.kind == WP_VARIANT_CPU;
		if (!strcmp(s.c[i].name, "pytorch") && lab[0] && strcmp(lab, v.label))
			fail_msg("%s: build says %s, depends say %s", s.c[i].filename, lab,
				 v.label);
	}
	assert_true(cuda > 100);
	assert_true(cpu > 50);
	set_free(&s);
}

static void test_pixi_conda_forge(void **state)
{
	struct set s = { 0 };
	const char *cf = "https://conda.anaconda.org/conda-forge";
	load_pixi(&s, cf, "linux-64", "pytorch");
	assert_int_equal(s.n, 1);

	/* pixi.lock's cf-channel environment (cuda 12.1): the cuda120 build */
	expect_pick(&s, "pytorch", "12.1", "3.12", "linux-64",
		    "pytorch-2.4.0-cuda120_py312h26b3cf7_301.conda", "cu120");
	expect_pick(&s, "conda-forge::pytorch 2.4.*", "12.8", "3.12", "manylinux_2_28_x86_64",
		    "pytorch-2.4.0-cuda120_py312h26b3cf7_301.conda", "cu120");

	struct wp_target t;
	struct wp_condapick_result res;
	/* CUDA 11.8: cuda-version >=12.0,<13 makes it a CUDA 12.0 build */
	target(&t, "11.8", "3.12", "linux-64");
	assert_null(pick(&s, "pytorch", &t, &res));
	assert_non_null(strstr(res.message, "pytorch 2.4.0 has cuda12.0; none runs on CUDA 11.8"));
	assert_string_equal(reject_why(&s, &res, "pytorch-2.4.0-cuda120_py312h26b3cf7_301.conda"),
			    "cu120: CUDA 12.0 needs driver 525.60.13 or newer; driver 520.61.05 supports CUDA 11.8");
	wp_condapick_result_release(&res);

	/* CPU: __cuda needs a driver */
	target(&t, "cpu", "3.12", "linux-64");
	assert_null(pick(&s, "pytorch", &t, &res));
	assert_non_null(strstr(res.message, "none is a CPU build"));
	wp_condapick_result_release(&res);

	/* __glibc >=2.17 against an older glibc */
	target(&t, "12.1", "3.12", "manylinux_2_12_x86_64");
	assert_null(pick(&s, "pytorch", &t, &res));
	assert_string_equal(reject_why(&s, &res, "pytorch-2.4.0-cuda120_py312h26b3cf7_301.conda"),
			    "needs __glibc >=2.17,<3.0.a0; the target's glibc is 2.12");
	assert_non_null(strstr(res.message, "the build that fits otherwise needs __glibc"));
	wp_condapick_result_release(&res);

	/* python_abi *_cp312 and python >=3.12 */
	target(&t, "12.1", "3.11", "linux-64");
	assert_null(pick(&s, "pytorch", &t, &res));
	assert_non_null(strstr(res.message, "none supports Python 3.11"));
	wp_condapick_result_release(&res);

	/* the depends a closure walk needs: no virtual packages */
	struct wp_matchspec *deps;
	size_t nd;
	assert_int_equal(wp_condapick_deps(&s.c[0], &deps, &nd, NULL), 0);
	assert_int_equal(nd, 35); /* 37 entries less __cuda and __glibc */
	for (size_t i = 0; i < nd; i++)
		assert_true(strncmp(deps[i].name, "__", 2) != 0);
	assert_string_equal(deps[0].name, "_openmp_mutex");
	wp_matchspecs_free(deps, nd);
	set_free(&s);

	/* aarch64 has its own build (and python's *_cpython build spec) */
	load_pixi(&s, cf, "linux-aarch64", "pytorch");
	expect_pick(&s, "pytorch", "12.1", "3.12", "linux-aarch64",
		    "pytorch-2.4.0-cuda120_py312haadfe8f_200.conda", "cu120");
	set_free(&s);

	/* osx-arm64: a CPU build for a CPU target with macOS >= 11 */
	load_pixi(&s, cf, "osx-arm64", "pytorch");
	expect_pick(&s, "pytorch", "cpu", "3.12", "macosx_14_0_arm64",
		    "pytorch-2.4.0-cpu_generic_py312h6bd8f41_1.conda", "cpu");
	target(&t, "cpu", "3.12", "macosx_10_15_arm64");
	assert_null(pick(&s, "pytorch", &t, &res));
	assert_non_null(strstr(res.message, "needs __osx >=11.0; the target's macOS is 10.15"));
	wp_condapick_result_release(&res);
	set_free(&s);

	/* cuda-version's constrains on __cuda: 12.6 wants a CUDA 12 driver */
	load_pixi(&s, cf, "noarch", "cuda-version");
	expect_pick(&s, "cuda-version", "12.1", "3.12", "linux-64",
		    "cuda-version-12.6-h7480c83_3.conda", "");
	target(&t, "11.8", "3.12", "linux-64");
	assert_null(pick(&s, "cuda-version", &t, &res));
	assert_non_null(strstr(res.message, "constrains __cuda >=12; the target's CUDA is 11.8"));
	wp_condapick_result_release(&res);
	expect_pick(&s, "cuda-version", "cpu", "3.12", "linux-64",
		    "cuda-version-12.6-h7480c83_3.conda", "");
	set_free(&s);
}

/* pixi.lock's pytorch-channel environment takes pytorch-2.4.1 cuda12.4 for a CUDA 12.1 system
 * (conda's solvers do not compare pytorch-cuda with __cuda). NVIDIA's minor-version
 * compatibility agrees: a 12.1 driver runs 12.x builds. With --cuda-compat strict it does not. */
static void test_pixi_pytorch_channel(void **state)
{
	struct set s = { 0 };
	load_pixi(&s, "https://conda.anaconda.org/pytorch", "linux-64", "pytorch");
	struct wp_target t;
	struct wp_condapick_result res;
	expect_pick(&s, "pytorch", "12.1", "3.12", "linux-64",
		    "pytorch-2.4.1-py3.12_cuda12.4_cudnn9.1.0_0.tar.bz2", "cu124");
	target(&t, "12.1 strict", "3.12", "linux-64");
	assert_null(pick(&s, "pytorch", &t, &res));
	assert_non_null(strstr(res.message, "pytorch 2.4.1 has cuda12.4; none runs on CUDA 12.1"));
	wp_condapick_result_release(&res);
	expect_pick(&s, "pytorch", "12.4", "3.12", "linux-64",
		    "pytorch-2.4.1-py3.12_cuda12.4_cudnn9.1.0_0.tar.bz2", "cu124");
	set_free(&s);
}

/* Ranking among equal versions, with made-up records. */
static void test_ranking(void **state)
{
	struct wp_conda_candidate c[] = {
		{ .name = "foo",
		  .version = "1.0",
		  .build = "a_0",
		  .build_number = 0,
		  .subdir = "linux-64",
		  .filename = "a0",
		  .timestamp = 5 },
		{ .name = "foo",
		  .version = "1.0",
		  .build = "a_1",
		  .build_number = 1,
		  .subdir = "linux-64",
		  .filename = "a1",
		  .track_features = "slow",
		  .timestamp = 9 },
		{ .name = "foo",
		  .version = "1.0",
		  .build = "b_0",
		  .build_number = 0,
		  .subdir = "noarch",
		  .filename = "b0",
		  .timestamp = 7 },
		{ .name = "foo",
		  .version = "0.9",
		  .build = "c_9",
		  .build_number = 9,
		  .subdir = "linux-64",
		  .filename = "c9",
		  .timestamp = 99 },
		{ .name = "foo",
		  .version = "1.1",
		  .build = "d_0",
		  .build_number = 0,
		  .subdir = "linux-64",
		  .filename = "d0",
		  .depends = "[\"__glibc >=2.99\"]" },
		{ .name = "foo",
		  .version = "1.2",
		  .build = "e_0",
		  .build_number = 0,
		  .subdir = "linux-64",
		  .filename = "e0",
		  .depends = "[\"__weird\"]" },
		{ .name = "foo",
		  .version = "1.3",
		  .build = "f_0",
		  .build_number = 0,
		  .subdir = "linux-64",
		  .filename = "f0",
		  .depends = "[\"broken >=\"]" },
		{ .name = "foo",
		  .version = "1.4",
		  .build = "g_0",
		  .build_number = 0,
		  .subdir = "linux-64",
		  .filename = "g0",
		  .depends = "[\"__win\"]" },
	};
	struct set s = { c, WP_ARRAY_LEN(c), 0, NULL };
	struct wp_target t;
	struct wp_condapick_result res;
	target(&t, "12.1", "3.12", "linux-64");
	/* build 1 wins on build number although it has a track feature; then b0 (newer timestamp)
	 * over a0 */
	assert_string_equal(pick(&s, "foo", &t, &res), "a1");
	assert_string_equal(reject_why(&s, &res, "d0"),
			    "needs __glibc >=2.99; the target's glibc is 2.17");
	assert_string_equal(reject_why(&s, &res, "e0"),
			    "needs the virtual package __weird, which wheelpick cannot check");
	assert_non_null(strstr(reject_why(&s, &res, "f0"),
			       "its depends are unreadable: conda spec 'broken >='"));
	assert_string_equal(reject_why(&s, &res, "g0"), "needs __win; the target is linux-64");
	wp_condapick_result_release(&res);
	c[1].build_number = 0;
	assert_string_equal(pick(&s, "foo", &t, &res), "b0");
	wp_condapick_result_release(&res);
	c[2].timestamp = 1;
	assert_string_equal(pick(&s, "foo", &t, &res), "a0");
	wp_condapick_result_release(&res);
	assert_string_equal(pick(&s, "foo <1", &t, &res), "c9");
	wp_condapick_result_release(&res);
	assert_string_equal(pick(&s, "foo[subdir=noarch]", &t, &res), "b0");
	wp_condapick_result_release(&res);
}

/* One build in both formats with the same timestamp (conda-forge publishes such pairs): the .conda
 * one, as conda takes it, whichever the catalog holds first. */
static void test_both_formats(void **state)
{
	struct wp_conda_candidate c[] = {
		{ .name = "foo",
		  .version = "1.0",
		  .build = "h0_0",
		  .subdir = "linux-64",
		  .filename = "foo-1.0-h0_0.tar.bz2",
		  .timestamp = 5 },
		{ .name = "foo",
		  .version = "1.0",
		  .build = "h0_0",
		  .subdir = "linux-64",
		  .filename = "foo-1.0-h0_0.conda",
		  .timestamp = 5 },
	};
	struct set s = { c, WP_ARRAY_LEN(c), 0, NULL };
	struct wp_target t;
	struct wp_condapick_result res;
	(void)state;
	target(&t, "12.1", "3.12", "linux-64");
	for (int order = 0; order < 2; order++) {
		assert_string_equal(pick(&s, "foo", &t, &res), "foo-1.0-h0_0.conda");
		wp_condapick_result_release(&res);
		struct wp_conda_candidate tmp = c[0];
		c[0] = c[1];
		c[1] = tmp;
	}
	/* a newer .tar.bz2 still wins: the format only breaks a tie */
	c[0].timestamp = c[1].timestamp = 5;
	(strstr(c[0].filename, ".tar.bz2") ? &c[0] : &c[1])->timestamp = 6;
	assert_string_equal(pick(&s, "foo", &t, &res), "foo-1.0-h0_0.tar.bz2");
	wp_condapick_result_release(&res);
}

static void test_subdir(void **state)
{
	static const struct {
		const char *platform, *want;
	} rows[] = {
		{ "manylinux_2_28_x86_64", "linux-64" },
		{ "manylinux2014_aarch64", "linux-aarch64" },
		{ "linux_x86_64", "linux-64" },
		{ "musllinux_1_2_x86_64", "linux-64" },
		{ "macosx_11_0_arm64", "osx-arm64" },
		{ "macosx_10_15_x86_64", "osx-64" },
		{ "win_amd64", "win-64" },
		{ "linux-aarch64", "linux-aarch64" },
		{ "any", "" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(rows); i++) {
		struct wp_target t;
		char sd[32];
		wp_target_init(&t);
		assert_int_equal(wp_target_set_platform(&t, rows[i].platform, NULL), 0);
		wp_condapick_subdir(&t, sd);
		assert_string_equal(sd, rows[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pytorch_channel),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_pixi_conda_forge),
		cmocka_unit_test(test_pixi_pytorch_channel),
		cmocka_unit_test(test_ranking),
		cmocka_unit_test(test_subdir),
		cmocka_unit_test(test_both_formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
