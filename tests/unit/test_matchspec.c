/* tests/unit/test_matchspec.c: conda MatchSpec parsing and matching, against conda's documented and
 * tested behaviour. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "resolver/matchspec.h"
#include "tests/unit/fixtures.h"

struct mcase {
	const char *spec;
	const char *name, *version, *build;
	long long bnum;
	bool want;
};

/* Each row: does the spec match the record? The first block is conda's own test_match_spec table
 * (numpy-1.7.1-py27_0), which settles that a bare "numpy 1.7" is exact. */
static const struct mcase cases[] = {
	{ "numpy 1.7*", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy 1.7.1", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy 1.7", "numpy", "1.7.1", "py27_0", 0, false },
	{ "numpy 1.5*", "numpy", "1.7.1", "py27_0", 0, false },
	{ "numpy >=1.5", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy >=1.5,<2", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy >1.7.1", "numpy", "1.7.1", "py27_0", 0, false },
	{ "numpy <=1.7.1", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy 1.7.1 py27_0", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy 1.7.1 py26_0", "numpy", "1.7.1", "py27_0", 0, false },
	{ "numpy 1.7.1 py27*", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy", "numpy", "1.7.1", "py27_0", 0, true },
	{ "python", "numpy", "1.7.1", "py27_0", 0, false },
	{ "NumPy", "numpy", "1.7.1", "py27_0", 0, true },

	/* a bare version compares as a version: 1.7 == 1.7.0 */
	{ "numpy 1.7", "numpy", "1.7.0", "py27_0", 0, true },
	{ "numpy 1.7", "numpy", "1.7", "py27_0", 0, true },
	/* '=' is fuzzy, '==' exact; the '=' form with a build keeps the version exact */
	{ "numpy=1.7", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy=1.7", "numpy", "1.70", "py27_0", 0, false },
	{ "numpy=1.7", "numpy", "1.8.0", "py27_0", 0, false },
	{ "numpy==1.7", "numpy", "1.7.1", "py27_0", 0, false },
	{ "numpy==1.7", "numpy", "1.7.0", "py27_0", 0, true },
	{ "numpy=1.7.1=py27_0", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy=1.7=py27_0", "numpy", "1.7.1", "py27_0", 0, false },
	{ "numpy=1.7.*=py27*", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy=", "numpy", "0.1", "x", 0, true },
	/* or, and, groups */
	{ "numpy 1.6|1.7.1", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy 1.6|1.7", "numpy", "1.7.1", "py27_0", 0, false },
	{ "numpy 1.6.*|1.7.*", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy=1.8|1.9", "numpy", "1.8.5", "0", 0, true }, /* "=1.8" prefix | "1.9" exact */
	{ "numpy=1.8|1.9", "numpy", "1.9.1", "0", 0, false },
	{ "numpy >=1.8,<2|>3", "numpy", "3.1", "0", 0, true },
	{ "numpy >=1.8,<2|>3", "numpy", "2.5", "0", 0, false },
	{ "numpy (>=1.5,<1.6)|>=1.7", "numpy", "1.7.1", "0", 0, true },
	{ "numpy (>=1.5,<1.6)|>=1.7", "numpy", "1.6.1", "0", 0, false },
	/* other operators */
	{ "numpy !=1.7.1", "numpy", "1.7.1", "0", 0, false },
	{ "numpy !=1.7.*", "numpy", "1.7.1", "0", 0, false },
	{ "numpy !=1.7.*", "numpy", "1.8", "0", 0, true },
	{ "numpy ~=1.7.0", "numpy", "1.7.1", "0", 0, true },
	{ "numpy ~=1.7.0", "numpy", "1.8.0", "0", 0, false },
	{ "numpy ~=1.7.0", "numpy", "1.6.9", "0", 0, false },
	/* ~=N with one part: rattler's reading, >=N (conda parses it, then fails on every match) */
	{ "numpy ~=1", "numpy", "1.0", "0", 0, true },
	{ "numpy ~=1", "numpy", "2.3", "0", 0, true },
	{ "numpy ~=1", "numpy", "0.9", "0", 0, false },
	{ "numpy ~=2024", "numpy", "2024.1", "0", 0, true },
	{ "numpy >=1.8.*", "numpy", "1.8.0", "0", 0, true },
	/* MatchSpec turns a lone "==1.8.*" into "1.8.*"; inside an expression the .* is dropped */
	{ "numpy ==1.8.*", "numpy", "1.8.1", "0", 0, true },
	{ "numpy >=1,==1.8.*", "numpy", "1.8.1", "0", 0, false },
	{ "numpy >=1,==1.8.*", "numpy", "1.8.0", "0", 0, true },
	{ "numpy 1.8.**.*", "numpy", "1.8.1.2", "0", 0, true },
	{ "numpy 1.*.1", "numpy", "1.7.1", "0", 0, true }, /* a glob over the text */
	{ "numpy 1.*.1", "numpy", "1.7.2", "0", 0, false },
	{ "numpy ^1\\.8\\..*$", "numpy", "1.8.3", "0", 0, true },
	{ "numpy ^1\\.8\\..*$", "numpy", "1.9.0", "0", 0, false },
	{ "numpy *", "numpy", "1.7.1", "0", 0, true },
	{ "numpy * py27_0", "numpy", "1.7.1", "py27_0", 0, true },
	{ "numpy >=1.8.0a0", "numpy", "1.8.0rc1", "0", 0, true },
	{ "scikit-learn 1.*", "scikit-learn", "1.3.2", "0", 0, true },
	{ "scikit-learn 1.*", "scikit-learn", "10.0", "0", 0, false },
	/* spaces inside the version, build after a space or '=' */
	{ "numpy >=1.0 , < 2.0 py34_0", "numpy", "1.5", "py34_0", 0, true },
	{ "numpy >=1.0 , < 2.0 =py34_0", "numpy", "1.5", "py34_0", 0, true },
	{ "numpy >=1.0 , < 2.0 py34_0", "numpy", "1.5", "py35_0", 0, false },
	{ "numpy 1.8 # a comment", "numpy", "1.8.0", "0", 0, true },
	{ "numpy 1.8 if __unix", "numpy", "1.8.0", "0", 0, true },
	{ "numpy 1.8 (optional)", "numpy", "1.8.0", "0", 0, true },

	/* the shapes in PyTorch's depends and constrains */
	{ "python >=3.8,<3.9.0a0", "python", "3.8.0", "h0", 0, true },
	{ "python >=3.8,<3.9.0a0", "python", "3.8.18", "h0", 0, true },
	{ "python >=3.8,<3.9.0a0", "python", "3.9.0", "h0", 0, false },
	{ "python >=3.8,<3.9.0a0", "python", "3.9.0rc1", "h0", 0, false },
	{ "python >=3.12,<3.13.0a0 *_cpython", "python", "3.12.5", "h2ad013b_0_cpython", 0, true },
	{ "python >=3.12,<3.13.0a0 *_cpython", "python", "3.12.5", "h2ad013b_0_pypy", 0, false },
	{ "python_abi 3.9.* *_cp39", "python_abi", "3.9", "4_cp39", 0, true },
	{ "python_abi 3.9.* *_cp39", "python_abi", "3.10", "4_cp310", 0, false },
	{ "cudatoolkit >=11.1,<11.2", "cudatoolkit", "11.1.74", "h6bb024c_0", 0, true },
	{ "cudatoolkit >=11.1,<11.2", "cudatoolkit", "11.2.0", "h73cb219_8", 0, false },
	{ "cudatoolkit >=10.0.130,<10.1.0a0", "cudatoolkit", "10.0.130", "0", 0, true },
	{ "pytorch-mutex 1.0 cuda", "pytorch-mutex", "1.0", "cuda", 0, true },
	{ "pytorch-mutex 1.0 cuda", "pytorch-mutex", "1.0", "cpu", 0, false },
	{ "pytorch-cuda 11.8.*", "pytorch-cuda", "11.8", "h7e8668a_5", 0, true },
	{ "cuda-version >=12.0,<13", "cuda-version", "12.6", "h7480c83_3", 0, true },
	{ "cuda-version >=12.0,<13", "cuda-version", "13.0", "h0", 0, false },
	{ "cudatoolkit 12.4|12.4.*", "cudatoolkit", "12.4.1", "h0", 0, true },
	{ "pytorch 2.4.0 cuda120_*_301", "pytorch", "2.4.0", "cuda120_py312h26b3cf7_301", 301,
	  true },
	{ "pytorch 2.4.0 cuda120_*_301", "pytorch", "2.4.0", "cuda120_py312haadfe8f_200", 200,
	  false },
	{ "pytorch=1.8.0=py3.8_cuda11.1*", "pytorch", "1.8.0", "py3.8_cuda11.1_cudnn8.0.5_0", 0,
	  true },
	{ "pytorch=1.8.0=py3.8_cuda11.1*", "pytorch", "1.8.0", "py3.8_cpu_0", 0, false },
	{ "pytorch==1.8.0", "pytorch", "1.8.0", "py3.8_cpu_0", 0, true },
	{ "pytorch==1.8.0", "pytorch", "1.8.1", "py3.8_cpu_0", 0, false },
	{ "pytorch 1.8.0", "pytorch", "1.8.0", "py3.8_cpu_0", 0, true },
	{ "pytorch-cpu ==99999999", "pytorch-cpu", "2.4.0", "cpu_0", 0, false },
	{ "cpuonly <0", "cpuonly", "2.0", "0", 0, false },
	{ "libtorch 2.4.0.*", "libtorch", "2.4.0", "cuda120_h2b0da52_301", 301, true },
	{ "libabseil * cxx17*", "libabseil", "20240116.2", "cxx17_he02047a_1", 1, true },
	{ "blas * mkl", "blas", "1.0", "openblas", 0, false },
	{ "__glibc >=2.17", "__glibc", "2.28", "0", 0, true },
	{ "__glibc >=2.17,<3.0.a0", "__glibc", "2.12", "0", 0, false },
	{ "__cuda", "__cuda", "12.1", "0", 0, true },
	{ "__cuda >=12", "__cuda", "11.8", "0", 0, false },

	/* brackets, channels, files */
	{ "numpy[build_number=3]", "numpy", "1.8", "py38_3", 3, true },
	{ "numpy[build_number=3]", "numpy", "1.8", "py38_2", 2, false },
	{ "numpy[build_number='>=3']", "numpy", "1.8", "py38_4", 4, true },
	{ "numpy[build_number='>=3']", "numpy", "1.8", "py38_2", 2, false },
	{ "numpy[version='>=1.8,<2', build=py38*]", "numpy", "1.9", "py38_0", 0, true },
	{ "numpy[version='>=1.8,<2', build=py38*]", "numpy", "2.0", "py38_0", 0, false },
	{ "numpy[version='>=1.8,<2', build=py38*]", "numpy", "1.9", "py39_0", 0, false },
	{ "numpy[version=1.8]", "numpy", "1.8.1", "0", 0, false },
	{ "numpy 1.8[version=1.9]", "numpy", "1.9", "0", 0, true }, /* brackets win */
	{ "numpy[md5=abc, license=BSD]", "numpy", "1.9", "0", 0, true }, /* keys not matched on */
	{ "conda-forge::numpy 1.8.*", "numpy", "1.8.2", "0", 0, true },
	{ "numpy-1.8.0-py38_0.tar.bz2", "numpy", "1.8.0", "py38_0", 0, true },
	{ "numpy-1.8.0-py38_0.tar.bz2", "numpy", "1.8.1", "py38_0", 0, false },
	{ "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py312heda63a1_0.conda",
	  "numpy", "1.26.4", "py312heda63a1_0", 0, true },
	{ "scikit-learn-1.3.2-py311hc009520_2.conda", "scikit-learn", "1.3.2", "py311hc009520_2", 2,
	  true },
};

static void test_match_table(void **state)
{
	int bad = 0;
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		const struct mcase *c = &cases[i];
		struct wp_matchspec m;
		struct wp_err e = WP_ERR_INIT;
		if (wp_matchspec_parse(c->spec, &m, &e) < 0) {
			print_error("'%s' did not parse: %s\n", c->spec, e.msg);
			bad++;
			continue;
		}
		bool got = wp_matchspec_match(&m, c->name, c->version, c->build, c->bnum);
		if (got != c->want) {
			print_error("'%s' vs %s %s %s: got %d\n", c->spec, c->name, c->version,
				    c->build, got);
			bad++;
		}
		wp_matchspec_release(&m);
	}
	assert_int_equal(bad, 0);
}

static void parsed(const char *spec, struct wp_matchspec *m)
{
	struct wp_err e = WP_ERR_INIT;
	if (wp_matchspec_parse(spec, m, &e) < 0)
		fail_msg("'%s': %s", spec, e.msg);
}

static void test_parts(void **state)
{
	struct wp_matchspec m;
	parsed("conda-forge/linux-64::numpy >=1.8 py38*", &m);
	assert_string_equal(m.name, "numpy");
	assert_string_equal(m.channel, "conda-forge");
	assert_string_equal(m.subdir, "linux-64");
	assert_string_equal(m.version_text, ">=1.8");
	assert_string_equal(m.build, "py38*");
	wp_matchspec_release(&m);

	parsed("https://conda.anaconda.org/pytorch::pytorch", &m);
	assert_string_equal(m.channel, "https://conda.anaconda.org/pytorch");
	assert_null(m.subdir);
	assert_null(m.version);
	wp_matchspec_release(&m);

	parsed("numpy[channel=pytorch/linux-64, subdir=noarch]", &m);
	assert_string_equal(m.channel, "pytorch");
	assert_string_equal(m.subdir, "noarch");
	wp_matchspec_release(&m);

	parsed("numpy=1.8", &m);
	assert_string_equal(m.version_text, "1.8*");
	wp_matchspec_release(&m);

	parsed("numpy==1.8", &m);
	assert_string_equal(m.version_text, "1.8");
	wp_matchspec_release(&m);

	parsed("numpy ==1.8 py38_0", &m); /* with a build the == stays */
	assert_string_equal(m.version_text, "==1.8");
	assert_string_equal(m.build, "py38_0");
	wp_matchspec_release(&m);

	parsed("numpy 1.8 (optional)", &m);
	assert_true(m.optional);
	assert_string_equal(m.version_text, "1.8");
	wp_matchspec_release(&m);

	parsed("numpy[build_number='!=3']", &m);
	assert_int_equal(m.bnum_op, WP_BNUM_NE);
	assert_int_equal(m.bnum, 3);
	assert_false(wp_matchspec_match(&m, "numpy", "1", "x", 3));
	assert_true(wp_matchspec_match(&m, "numpy", "1", "x", 4));
	assert_false(wp_matchspec_match(&m, "numpy", "1", "x", -1)); /* unknown build number */
	wp_matchspec_release(&m);

	struct wp_buf b = WP_BUF_INIT;
	parsed("conda-forge::pytorch >=2.1 cuda*[build_number=3]", &m);
	wp_matchspec_format(&m, &b);
	assert_string_equal(b.data, "conda-forge::pytorch >=2.1 cuda*[build_number=3]");
	wp_matchspec_release(&m);
	wp_buf_free(&b);

	/* a spec with a version never matches a record whose version is unknown */
	parsed("numpy >=1", &m);
	assert_false(wp_matchspec_match(&m, "numpy", NULL, "x", 0));
	assert_true(wp_matchspec_name_match(&m, "NUMPY"));
	wp_matchspec_release(&m);

	parsed("numpy*", &m); /* a name glob */
	assert_true(wp_matchspec_match(&m, "numpy-base", "1", "x", 0));
	wp_matchspec_release(&m);
}

/* conda's own tests/models/test_match_spec.py (conda 0f64223f, 2026-08-21):
 * test_url_percent_encoding, test_parse_spec_str_tarball_url / test_tarball_match_specs,
 * test_invalid_package_name_rejected, test_valid_package_names, test_matchspec_errors,
 * test_legacy_features_canonical_string_forms. */
static void test_conda_cases(void **state)
{
	struct wp_matchspec a, b;
	struct wp_err e = WP_ERR_INIT;
	struct wp_buf t = WP_BUF_INIT;
	/* %21 is '!': the epoch of x264 1!164.3095 */
	parsed("https://anaconda.org/conda-forge/linux-64/x264-1%21164.3095-h166bdaf_2.tar.bz2",
	       &a);
	parsed("https://anaconda.org/conda-forge/linux-64/x264-1!164.3095-h166bdaf_2.tar.bz2", &b);
	assert_string_equal(a.version_text, b.version_text);
	assert_true(wp_matchspec_match(&a, "x264", "1!164.3095", "h166bdaf_2", 2));
	wp_matchspec_release(&a);
	wp_matchspec_release(&b);
	parsed("https://anaconda.org/conda-forge%21/linux-64/x264-1%21164.3095-h166bdaf_2.tar.bz2",
	       &a);
	parsed("https://anaconda.org/conda-forge!/linux-64/x264-1!164.3095-h166bdaf_2.tar.bz2", &b);
	assert_string_equal(a.channel, b.channel);
	assert_string_equal(a.channel, "conda-forge!");
	wp_matchspec_release(&a);
	wp_matchspec_release(&b);
	/* a tarball URL keeps its channel and subdir */
	static const struct {
		const char *url, *channel, *name, *version, *build;
	} urls[] = {
		{ "https://repo.anaconda.com/pkgs/main/linux-64/_license-1.1-py27_1.tar.bz2",
		  "defaults", "_license", "==1.1", "py27_1" },
		{ "https://conda.anaconda.org/conda-canary/linux-64/conda-4.3.21.post699+1dab973-py36h4a561cd_0.tar.bz2",
		  "conda-canary", "conda", "==4.3.21.post699+1dab973", "py36h4a561cd_0" },
		{ "https://conda.anaconda.org/conda-canary/linux-64/conda-4.3.21.post699+1dab973-py36h4a561cd_0.conda",
		  "conda-canary", "conda", "==4.3.21.post699+1dab973", "py36h4a561cd_0" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(urls); i++) {
		parsed(urls[i].url, &a);
		assert_string_equal(a.channel, urls[i].channel);
		assert_string_equal(a.subdir, "linux-64");
		assert_string_equal(a.name, urls[i].name);
		assert_string_equal(a.version_text, urls[i].version);
		assert_string_equal(a.build, urls[i].build);
		wp_matchspec_release(&a);
	}
	/* a URL whose directory is no subdir names no channel (conda: *[url=...]) */
	parsed("https://conda.anaconda.org/conda-canary/conda-4.3.21.post699+1dab973-py36h4a561cd_0.tar.bz2",
	       &a);
	assert_null(a.channel);
	assert_null(a.subdir);
	wp_matchspec_release(&a);
	/* CEP 26 names */
	static const char *const bad[] = { "pkg..name",   "pkg--name", ".pkg",
					   "-pkg",        "'package'", "\"package\"",
					   "pack@ge",     "!xyz 1.3",  "blas[invalid=\"1\"]",
					   "blas [test=]" };
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		wp_err_clear(&e);
		if (wp_matchspec_parse(bad[i], &a, &e) != -WPE_PARSE)
			fail_msg("'%s' was accepted", bad[i]);
		assert_non_null(strstr(e.msg, "conda spec"));
	}
	static const char *const good[] = { "numpy",         "my-package", "my_package",
					    "my.package",    "r-base",     "python-dateutil",
					    "_openmp_mutex", "_pkg",       "__glibc",
					    "__unix" };
	for (size_t i = 0; i < WP_ARRAY_LEN(good); i++) {
		parsed(good[i], &a);
		assert_string_equal(a.name, good[i]);
		wp_matchspec_release(&a);
	}
	/* conda's fields in brackets are accepted, and the legacy feature spec */
	parsed("blas[license_family=BSD, when=\"x\"]", &a);
	wp_matchspec_release(&a);
	parsed("mkl@", &a);
	wp_matchspec_format(&a, &t);
	assert_string_equal(t.data, "*[track_features=mkl]");
	assert_false(wp_matchspec_match(&a, "mkl", "2024.0", "0", 0)); /* track_features unknown
									  here */
	wp_matchspec_release(&a);
	wp_buf_free(&t);
}

static void test_errors(void **state)
{
	static const char *const bad[] = {
		"",
		"   ",
		"# only a comment",
		">=1.8",
		"numpy >=",
		"numpy ==",
		"numpy <",
		"numpy ~=",
		"numpy >=1.8,,<2",
		"numpy 1.8|",
		"numpy |1.8",
		"numpy (1.8",
		"numpy 1.8)",
		"numpy >=<1.8",
		"numpy >=1.8<2",
		"numpy ~=.1",
		"numpy ~=1.8.*",
		"numpy >=1!a!b",
		"numpy ^1.8",
		"numpy 1.8$",
		"numpy ^(1.8$",
		"numpy[version=1.8][build=0]",
		"numpy[version]",
		"numpy[version=]",
		"numpy[build_number=abc]",
		"numpy[build_number='>=x']",
		"numpy[version='1.8]",
		"num,py",
		"num|py 1.8",
		"numpy 1.8\n",
		"numpy 1.8 ^py38$x",
		"-1.0-0.tar.bz2",
		"numpy 1.8[",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		struct wp_matchspec m;
		struct wp_err e = WP_ERR_INIT;
		int rc = wp_matchspec_parse(bad[i], &m, &e);
		if (rc != -WPE_PARSE)
			fail_msg("'%s' parsed (rc %d)", bad[i], rc);
		assert_true(e.msg[0] != 0);
		assert_null(m.name);
	}
	/* the message names the spec */
	struct wp_matchspec m;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_matchspec_parse("numpy >=1.8,,<2", &m, &e), -WPE_PARSE);
	assert_non_null(strstr(e.msg, "'numpy >=1.8,,<2'"));

	/* deep nesting and length are refused, not recursed into */
	char deep[64];
	memset(deep, '(', sizeof(deep) - 1);
	memcpy(deep, "numpy ", 6);
	deep[sizeof(deep) - 1] = 0;
	assert_int_equal(wp_matchspec_parse(deep, &m, NULL), -WPE_PARSE);
	char *longs = wp_xmalloc(WP_MATCHSPEC_MAX + 10);
	memset(longs, 'a', WP_MATCHSPEC_MAX + 9);
	longs[WP_MATCHSPEC_MAX + 9] = 0;
	assert_int_equal(wp_matchspec_parse(longs, &m, NULL), -WPE_PARSE);
	free(longs);
	assert_int_equal(wp_matchspec_parse(NULL, &m, NULL), -WPE_PARSE);
}

static void floor_is(const char *spec, const char *want)
{
	struct wp_matchspec m;
	struct wp_buf b = WP_BUF_INIT;
	parsed(spec, &m);
	bool got = wp_matchspec_version_floor(&m, &b);
	if (want) {
		if (!got || strcmp(b.data, want))
			fail_msg("floor of '%s': got '%s', want '%s'", spec,
				 got ? b.data : "(none)", want);
	} else if (got) {
		fail_msg("floor of '%s': got '%s', want none", spec, b.data);
	}
	wp_matchspec_release(&m);
	wp_buf_free(&b);
}

static void test_floor(void **state)
{
	floor_is("cudatoolkit >=11.1,<11.2", "11.1");
	floor_is("pytorch-cuda 11.8.*", "11.8");
	floor_is("pytorch-cuda >=12.1,<12.2", "12.1");
	floor_is("cuda-version >=12.0,<13", "12.0");
	floor_is("cuda-cudart >=12.0.107,<13.0a0", "12.0.107");
	floor_is("cudatoolkit 12.4|12.4.*", "12.4");
	floor_is("cudatoolkit=10.2", "10.2");
	floor_is("x >=11.1,>=11.3", "11.3");
	floor_is("x 11.8", "11.8");
	floor_is("x <12", NULL);
	floor_is("x", NULL);
	floor_is("x *", NULL);
	floor_is("x 1.8|<1.9", NULL);
	floor_is("x !=11.0", NULL);
}

static void test_json_list(void **state)
{
	struct wp_matchspec *v;
	size_t n;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_matchspec_parse_json_list("[\"python >=3.8,<3.9.0a0\", \"cudatoolkit >=11.1,<11.2\", "
						      "\"\\u0041bc\"]",
						      &v, &n, &e),
			 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].name, "python");
	assert_string_equal(v[1].version_text, ">=11.1,<11.2");
	assert_string_equal(v[2].name, "abc");
	wp_matchspecs_free(v, n);

	assert_int_equal(wp_matchspec_parse_json_list("[]", &v, &n, &e), 0);
	assert_int_equal(n, 0);
	wp_matchspecs_free(v, n);
	assert_int_equal(wp_matchspec_parse_json_list(NULL, &v, &n, &e), 0);
	assert_int_equal(n, 0);
	assert_null(v);

	static const char *const bad[] = {
		"[[\"a\"]]",      "{\"a\": 1}", "[\"a\", 1]",     "[\"a\"", "\"a\"", "[\"a\"] x",
		"[\"numpy >=\"]", "[null]",     "[\"a\"][\"b\"]", "[true]", "[{}]",  "nope",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		struct wp_err e2 = WP_ERR_INIT;
		if (wp_matchspec_parse_json_list(bad[i], &v, &n, &e2) != -WPE_PARSE)
			fail_msg("'%s' was accepted", bad[i]);
		assert_null(v);
		assert_int_equal(n, 0);
		assert_true(e2.msg[0] != 0);
	}

	/* a deep array stops at the second '[' */
	struct wp_buf deep = WP_BUF_INIT;
	for (int i = 0; i < 100000; i++)
		wp_buf_addch(&deep, '[');
	assert_int_equal(wp_matchspec_parse_json_list(deep.data, &v, &n, NULL), -WPE_PARSE);
	wp_buf_free(&deep);

	/* too many entries */
	struct wp_buf many = WP_BUF_INIT;
	wp_buf_addch(&many, '[');
	for (int i = 0; i < 5000; i++)
		wp_buf_printf(&many, "%s\"a%d\"", i ? "," : "", i);
	wp_buf_addch(&many, ']');
	assert_int_equal(wp_matchspec_parse_json_list(many.data, &v, &n, NULL), -WPE_PARSE);
	wp_buf_free(&many);
}

/* Every depends / constrains entry of the real repodata parses. */
static void test_real_specs(void **state)
{
	FILE *f = fixture_open("conda_repodata/rattler_pytorch_linux-64_repodata.json");
	/* pull every "..." inside depends/constrains arrays with a crude scan: the file is one JSON
	 * object per line block, and entries never hold quotes */
	char line[8192];
	size_t n = 0;
	bool in_list = false;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "\"depends\": [") || strstr(line, "\"constrains\": [")) {
			in_list = !strchr(line, ']');
			continue;
		}
		if (!in_list)
			continue;
		if (strchr(line, ']')) {
			in_list = false;
			continue;
		}
		char *a = strchr(line, '"'), *b = a ? strchr(a + 1, '"') : NULL;
		if (!b)
			continue;
		*b = 0;
		struct wp_matchspec m;
		struct wp_err e = WP_ERR_INIT;
		if (wp_matchspec_parse(a + 1, &m, &e) < 0)
			fail_msg("%s", e.msg);
		wp_matchspec_release(&m);
		n++;
	}
	fclose(f);
	assert_true(n > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conda_cases), cmocka_unit_test(test_match_table),
		cmocka_unit_test(test_parts),       cmocka_unit_test(test_errors),
		cmocka_unit_test(test_floor),       cmocka_unit_test(test_json_list),
		cmocka_unit_test(test_real_specs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
