/* tests/unit/test_version.c: resolver/version against packaging 24.2's own test vectors. */

/* The reference is packaging 24.2 (tests/fixtures/real/packaging_vectors/packaging-24.2), the
 * packaging pip 23/24 vendors; this machine's pip vendors 21.3, which tests/diff/pep440_diff.py
 * uses where the two agree. Every row of every file below must pass; none is skipped. */
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
#include "tests/unit/vectors.h"
#include "resolver/version.h"


static void parse_ok(struct wp_version *v, const char *s, size_t n)
{
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_version_parse(v, s, n, &err);
	if (rc) {
		print_error("cannot parse '%.*s': %s\n", (int)n, s, err.msg);
		fail();
	}
}

static char *fmt(const struct wp_version *v, int (*f)(const struct wp_version *, struct wp_buf *))
{
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(f(v, &b), 0);
	return wp_buf_detach(&b, NULL);
}

static void expect_fmt(const struct wp_version *v,
		       int (*f)(const struct wp_version *, struct wp_buf *), const char *want,
		       const char *input)
{
	char *got = fmt(v, f);
	if (strcmp(got, want)) {
		print_error("'%s': want '%s', got '%s'\n", input, want, got);
		free(got);
		fail();
	}
	free(got);
}

/* ---- vector files ---- */

static void test_sorted(void **state)
{
	FILE *f = open_vectors("versions_sorted.txt");
	struct wp_version vs[128];
	char line[256];
	size_t n = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		assert_true(n < WP_ARRAY_LEN(vs));
		parse_ok(&vs[n++], line, strlen(line));
	}
	fclose(f);
	assert_true(n > 10);
	/* every pair, both ways: the order is total and strict */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int c = wp_version_cmp(&vs[i], &vs[j]);
			int want = i < j ? -1 : i > j;
			if ((c > 0) - (c < 0) != want) {
				print_error("cmp(#%zu, #%zu) = %d, want %d\n", i, j, c, want);
				fail();
			}
		}
	for (size_t i = 0; i < n; i++)
		wp_version_release(&vs[i]);
	print_message("versions_sorted.txt: %zu/%zu versions in strict order\n", n, n);
}

static void test_invalid(void **state)
{
	FILE *f = open_vectors("versions_invalid.tsv");
	char line[512];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	while (next_row(f, line, sizeof(line), &r)) {
		struct wp_version v;
		struct wp_err err = WP_ERR_INIT;
		int rc = wp_version_parse(&v, r.col[0], r.len[0], &err);
		if (rc != -WPE_PARSE) {
			print_error("'%s' should be invalid (rc %d)\n", r.col[0], rc);
			fail();
		}
		assert_non_null(strstr(err.msg, "invalid version '"));
		rows++;
	}
	fclose(f);
	print_message("versions_invalid.tsv: %zu/%zu rows pass\n", rows, rows);
}

/* versions_normalized.tsv and versions_str.tsv: (input, str(Version(input))) */
static void check_normalized(const char *file)
{
	FILE *f = open_vectors(file);
	char line[512];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	while (next_row(f, line, sizeof(line), &r)) {
		struct wp_version v;
		assert_int_equal(r.n, 2);
		parse_ok(&v, r.col[0], r.len[0]);
		expect_fmt(&v, wp_version_format, r.col[1], r.col[0]);
		/* the normal form parses back to itself */
		struct wp_version again;
		parse_ok(&again, r.col[1], r.len[1]);
		assert_int_equal(wp_version_cmp(&v, &again), 0);
		expect_fmt(&again, wp_version_format, r.col[1], r.col[1]);
		wp_version_release(&again);
		wp_version_release(&v);
		rows++;
	}
	fclose(f);
	print_message("%s: %zu/%zu rows pass\n", file, rows, rows);
}

static void test_normalized(void **state)
{
	check_normalized("versions_normalized.tsv");
}

static void test_str(void **state)
{
	check_normalized("versions_str.tsv");
}

static void check_is(const char *file, bool (*is)(const struct wp_version *))
{
	FILE *f = open_vectors(file);
	char line[512];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	while (next_row(f, line, sizeof(line), &r)) {
		struct wp_version v;
		parse_ok(&v, r.col[0], r.len[0]);
		if (is(&v) != is_true(r.col[1])) {
			print_error("%s: '%s' want %s\n", file, r.col[0], r.col[1]);
			fail();
		}
		wp_version_release(&v);
		rows++;
	}
	fclose(f);
	print_message("%s: %zu/%zu rows pass\n", file, rows, rows);
}

static void test_is_prerelease(void **state)
{
	check_is("versions_is_prerelease.tsv", wp_version_is_prerelease);
}

static void test_is_devrelease(void **state)
{
	check_is("versions_is_devrelease.tsv", wp_version_is_devrelease);
}

static void test_is_postrelease(void **state)
{
	check_is("versions_is_postrelease.tsv", wp_version_is_postrelease);
}

static void expect_num(bool present, uint64_t value, const char *want, const char *input)
{
	if (!strcmp(want, "<None>")) {
		assert_false(present);
		return;
	}
	assert_true(present);
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)value);
	if (strcmp(buf, want)) {
		print_error("'%s': want %s, got %s\n", input, want, buf);
		fail();
	}
}

/* version public base_version epoch release local pre dev post */
static void test_parts(void **state)
{
	static const char *const pre_names[] = { "", "a", "b", "rc" };
	FILE *f = open_vectors("versions_parts.tsv");
	char line[1024], buf[256];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	assert_string_equal(r.col[3], "epoch");
	while (next_row(f, line, sizeof(line), &r)) {
		struct wp_version v;
		assert_int_equal(r.n, 9);
		parse_ok(&v, r.col[0], r.len[0]);
		expect_fmt(&v, wp_version_format_public, r.col[1], r.col[0]);
		expect_fmt(&v, wp_version_format_base, r.col[2], r.col[0]);
		expect_num(true, v.epoch, r.col[3], r.col[0]);
		/* release as JSON: [1, 0] */
		size_t len = 0;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "[");
		for (size_t i = 0; i < v.nrelease; i++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu",
						i ? ", " : "", (unsigned long long)v.release[i]);
		snprintf(buf + len, sizeof(buf) - len, "]");
		assert_string_equal(buf, r.col[4]);
		if (!strcmp(r.col[5], "<None>"))
			assert_null(wp_version_local(&v));
		else
			assert_string_equal(wp_version_local(&v), r.col[5]);
		if (!strcmp(r.col[6], "<None>")) {
			assert_int_equal(v.pre_kind, WP_PRE_NONE);
		} else {
			assert_int_not_equal(v.pre_kind, WP_PRE_NONE);
			snprintf(buf, sizeof(buf), "[\"%s\", %llu]", pre_names[v.pre_kind],
				 (unsigned long long)v.pre);
			assert_string_equal(buf, r.col[6]);
		}
		expect_num(v.has_dev, v.dev, r.col[7], r.col[0]);
		expect_num(v.has_post, v.post, r.col[8], r.col[0]);
		wp_version_release(&v);
		rows++;
	}
	fclose(f);
	print_message("versions_parts.tsv: %zu/%zu rows pass\n", rows, rows);
}

/* canonicalize_version(): the canonical form, or the text unchanged when it is no version */
static void test_canonicalize_version(void **state)
{
	FILE *f = open_vectors("canonicalize_version.tsv");
	char line[512];
	struct row r;
	size_t rows = 0;
	next_row(f, line, sizeof(line), &r);
	while (next_row(f, line, sizeof(line), &r)) {
		struct wp_version v;
		if (wp_version_parse(&v, r.col[0], r.len[0], NULL) < 0) {
			assert_string_equal(r.col[0], r.col[1]);
		} else {
			expect_fmt(&v, wp_version_format_canonical, r.col[1], r.col[0]);
			wp_version_release(&v);
		}
		rows++;
	}
	fclose(f);
	print_message("canonicalize_version.tsv: %zu/%zu rows pass\n", rows, rows);
}

/* ---- wheelpick's own cases ---- */

static int cmp_text(const char *a, const char *b)
{
	struct wp_version va, vb;
	parse_ok(&va, a, strlen(a));
	parse_ok(&vb, b, strlen(b));
	int c = wp_version_cmp(&va, &vb);
	wp_version_release(&va);
	wp_version_release(&vb);
	return (c > 0) - (c < 0);
}

static void test_local_order(void **state)
{
	/* PEP 440 compares local labels segment-wise; pip sorts the PyTorch variants by text,
	 * which is why the CUDA rule cannot rely on version order alone */
	assert_int_equal(cmp_text("1.8.0+rocm4.0.1", "1.8.0+cu111"), 1);
	assert_int_equal(cmp_text("1.8.0+cu111", "1.8.0+cu102"), 1);
	assert_int_equal(cmp_text("1.8.0+cu111", "1.8.0"), 1);
	assert_int_equal(cmp_text("1.8.0", "1.8.0+cpu"), -1);
	/* a number beats any text; numbers compare as numbers, at any size */
	assert_int_equal(cmp_text("1.0+1", "1.0+zzz"), 1);
	assert_int_equal(cmp_text("1.0+abc.10", "1.0+abc.9"), 1);
	assert_int_equal(cmp_text("1.0+123456789012345678901234567890",
				  "1.0+99999999999999999999999999999"),
			 1);
	assert_int_equal(cmp_text("1.0+007", "1.0+7"), 0);
	assert_int_equal(cmp_text("1.0+abc", "1.0+abc.0"), -1);
	assert_int_equal(cmp_text("1.0+cpu.cxx11.abi", "1.0+cpu"), 1);
	assert_int_equal(cmp_text("1.0+CPU-cxx11_abi", "1.0+cpu.cxx11.abi"), 0);
	/* release trailing zeros are ignored, also for epochs and suffixes */
	assert_int_equal(cmp_text("1.0.0.0", "1"), 0);
	assert_int_equal(cmp_text("1!0", "1!0.0.0"), 0);
	assert_int_equal(cmp_text("2.0a1", "2a1"), 0);
	assert_int_equal(cmp_text("1.0.post1", "1.0.post1.dev0"), 1);
	assert_int_equal(cmp_text("1.0.dev0", "1.0a0.dev0"), -1);
	assert_int_equal(cmp_text("0!9", "1!0"), -1);
}

static void test_local_label(void **state)
{
	static const struct {
		const char *in, *local, *public;
	} cases[] = {
		{ "1.8.0+cu111", "cu111", "1.8.0" },
		{ "2.1.0+cpu.cxx11.abi", "cpu.cxx11.abi", "2.1.0" },
		{ "2.0.1+cu117.with.pypi.cudnn", "cu117.with.pypi.cudnn", "2.0.1" },
		{ "1.8.0+ROCm4-0_01", "rocm4.0.1", "1.8.0" },
		{ "1.0+00.0", "0.0", "1.0" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		struct wp_version v, c;
		parse_ok(&v, cases[i].in, strlen(cases[i].in));
		assert_true(wp_version_has_local(&v));
		assert_string_equal(wp_version_local(&v), cases[i].local);
		expect_fmt(&v, wp_version_format_public, cases[i].public, cases[i].in);
		wp_version_copy(&c, &v);
		wp_version_release(&v);
		assert_string_equal(wp_version_local(&c), cases[i].local);
		assert_int_equal(wp_version_cmp_public(&c, &c), 0);
		wp_version_release(&c);
	}
}

static void test_grammar_edges(void **state)
{
	static const struct {
		const char *in, *out; /* out NULL: invalid */
	} cases[] = {
		{ "1.0a-", "1.0a0" },         /* the separator after a letter needs no number */
		{ "1.0.dev-", "1.0.dev0" },
		{ "1.0.post-", "1.0.post0" },
		{ "1.0-", NULL },             /* an implicit post release needs its number */
		{ "1!", NULL },
		{ "1.", NULL },
		{ "", NULL },
		{ "   ", NULL },
		{ "v", NULL },
		{ "V1.0RC1", "1.0rc1" },
		{ "1.0a1-1", "1.0a1.post1" },
		{ "1.0preview2", "1.0rc2" },
		{ "1.0-r", "1.0.post0" },
		{ "1.0+ab.", NULL },
		{ "1.0+", NULL },
		{ "\xe2\x80\x83" "1.0\xc2\xa0", "1.0" }, /* Unicode spaces, as Python's \s */
		{ "\x1c" "1.0\x1f", "1.0" },
		{ "1.0\xc3\xa9", NULL },
		{ "000000000000000000000000001.0", "1.0" }, /* leading zeros do not count */
		{ "999999999999999999", "999999999999999999" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		struct wp_version v;
		struct wp_err err = WP_ERR_INIT;
		int rc = wp_version_parse(&v, cases[i].in, strlen(cases[i].in), &err);
		if (!cases[i].out) {
			if (rc != -WPE_PARSE) {
				print_error("'%s' should be invalid\n", cases[i].in);
				fail();
			}
			continue;
		}
		if (rc) {
			print_error("'%s': %s\n", cases[i].in, err.msg);
			fail();
		}
		expect_fmt(&v, wp_version_format, cases[i].out, cases[i].in);
		wp_version_release(&v);
	}
}

static void test_caps(void **state)
{
	struct wp_version v;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_version_parse(&v, "1.9999999999999999999", 21, &err), -WPE_TOO_BIG);
	assert_non_null(strstr(err.msg, "more than 18 digits"));
	assert_null(v.release);
	wp_err_clear(&err);
	assert_int_equal(wp_version_parse(&v, "1.0.post1234567890123456789", 27, &err),
			 -WPE_TOO_BIG);
	wp_err_clear(&err);

	char *big = wp_xmalloc(WP_VERSION_MAX_LEN + 2);
	memset(big, '1', WP_VERSION_MAX_LEN + 1);
	for (size_t i = 1; i < WP_VERSION_MAX_LEN + 1; i += 2)
		big[i] = '.';
	assert_int_equal(wp_version_parse(&v, big, WP_VERSION_MAX_LEN + 1, &err), -WPE_TOO_BIG);
	wp_err_clear(&err);
	/* the same text one byte shorter is fine: 512 release parts */
	assert_int_equal(wp_version_parse(&v, big, WP_VERSION_MAX_LEN - 1, &err), 0);
	assert_int_equal(v.nrelease, WP_VERSION_MAX_LEN / 2);
	wp_version_release(&v);
	free(big);

	/* a NUL inside the given length is not text */
	assert_int_equal(wp_version_parse(&v, "1.0\0", 4, &err), -WPE_PARSE);
	/* no NUL terminator needed: only n bytes are read */
	assert_int_equal(wp_version_parse(&v, "1.0garbage", 3, NULL), 0);
	wp_version_release(&v);
	wp_version_release(&v); /* harmless twice */
}

static void test_match(void **state)
{
	/* the unanchored pattern, as packaging's requirement tokenizer uses it */
	assert_int_equal(wp_version_match("1.0abc", 6, 0), 4);          /* "1.0a" */
	assert_int_equal(wp_version_match("1!x", 3, 0), 1); /* "1": no epoch after all */
	assert_int_equal(wp_version_match("1.0.*", 5, 0), 3);
	assert_int_equal(wp_version_match("1.0.*", 5, WP_VMATCH_WILDCARD), 5);
	assert_int_equal(wp_version_match("1.0+cu1", 7, 0), 3);
	assert_int_equal(wp_version_match("1.0+cu1", 7, WP_VMATCH_LOCAL), 7);
	assert_int_equal(wp_version_match("1", 1, WP_VMATCH_TWO), 0);
	assert_int_equal(wp_version_match("x1", 2, 0), 0);
	assert_int_equal(wp_version_match("1.0 ;", 5, 0), 3);
}

/* two spellings of one version: what mirrors, verify and the variants.json lookup compare */
static void test_text_equal(void **state)
{
	assert_true(wp_version_same("2.10", "2.10.0"));
	assert_true(wp_version_same("1.0RC1", "1.0rc1"));
	assert_true(wp_version_same("1.8.0+cu111", "1.8.0+CU111"));
	assert_false(wp_version_same("2.10.0", "2.10.1"));
	assert_false(wp_version_same("1.8.0+cu111", "1.8.0"));
	assert_true(wp_version_same("not a version", "NOT A VERSION"));
	assert_false(wp_version_same("not a version", "not a version!"));
	assert_true(wp_version_text_equal("2.10.0-x", 6, "2.10", 4)); /* a length, not a NUL, ends a
								       */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_normalized),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_is_prerelease),
		cmocka_unit_test(test_is_devrelease),
		cmocka_unit_test(test_is_postrelease),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_canonicalize_version),
		cmocka_unit_test(test_local_order),
		cmocka_unit_test(test_local_label),
		cmocka_unit_test(test_grammar_edges),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_text_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
