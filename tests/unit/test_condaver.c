/* tests/unit/test_condaver.c: conda version parsing and order against conda's own parse of 28k
 * versions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "resolver/condaver.h"
#include "tests/unit/fixtures.h"

#define DATA_FILE "conda_repodata/conda_versions/rattler_parsed_versions_by_conda.txt"

/* conda's parse as printed by Python, kept as text: "[[0], [1], [0, 'a', 1]]" */
struct row {
	char *version;
	char *repr;
};

static struct row *rows;
static size_t n_rows;

/* Read once, by the first test that needs the rows, so that a missing file fails that test by
 * name (a group setup could only abort the group). */
static void need_rows(void)
{
	if (n_rows)
		return;
	FILE *f = fixture_open(DATA_FILE);
	char line[1024];
	size_t cap = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *eq = strchr(line, '=');
		if (line[0] == '#' || !eq)
			continue;
		*eq = 0;
		if (n_rows == cap) {
			cap = cap ? cap * 2 : 1024;
			rows = wp_xrealloc(rows, cap * sizeof(*rows));
		}
		rows[n_rows].version = wp_xstrdup(line);
		rows[n_rows].repr = wp_xstrdup(eq + 1);
		n_rows++;
	}
	fclose(f);
}

static int unload(void **state)
{
	for (size_t i = 0; i < n_rows; i++) {
		free(rows[i].version);
		free(rows[i].repr);
	}
	free(rows);
	return 0;
}

static void test_parse_matches_conda(void **state)
{
	need_rows();
	struct wp_buf b = WP_BUF_INIT;
	size_t bad = 0;
	for (size_t i = 0; i < n_rows; i++) {
		struct wp_condaver v;
		struct wp_err err = WP_ERR_INIT;
		if (wp_condaver_parse(rows[i].version, &v, &err)) {
			print_error("'%s': %s\n", rows[i].version, err.msg);
			bad++;
			continue;
		}
		wp_condaver_format_parsed(&v, &b);
		if (strcmp(wp_buf_cstr(&b), rows[i].repr)) {
			if (bad < 10)
				print_error("'%s': got %s, conda %s\n", rows[i].version,
					    wp_buf_cstr(&b), rows[i].repr);
			bad++;
		}
		wp_condaver_release(&v);
	}
	wp_buf_free(&b);
	assert_int_equal(bad, 0);
	assert_true(n_rows > 28000);
}

/* A second reading of conda's rule, over conda's own parse: atoms are ints, 'strings', inf. */
struct ratom {
	int kind; /* 0 str, 1 num, 2 inf */
	const char *p;
	size_t n;
};

static size_t read_repr(const char *s, struct ratom *out, size_t *comp_len, size_t max_atoms,
			size_t *n_comps)
{
	size_t na = 0;
	*n_comps = 0;
	for (const char *p = s + 1; *p && *p != ']' ;) {
		if (*p == '[') {
			size_t start = na;
			p++;
			while (*p && *p != ']') {
				assert_true(na < max_atoms);
				if (*p == '\'') {
					const char *q = strchr(p + 1, '\'');
					assert_non_null(q);
					out[na++] = (struct ratom){ 0, p + 1, (size_t)(q - p - 1) };
					p = q + 1;
				} else if (!strncmp(p, "inf", 3)) {
					out[na++] = (struct ratom){ 2, p, 3 };
					p += 3;
				} else {
					const char *q = p;
					while (isdigit((unsigned char)*q))
						q++;
					assert_true(q > p);
					while (p + 1 < q && *p == '0')
						p++;
					out[na++] = (struct ratom){ 1, p, (size_t)(q - p) };
					p = q;
				}
				if (*p == ',')
					p += 2;
			}
			comp_len[(*n_comps)++] = na - start;
			p++;
		} else {
			p++;
		}
	}
	return na;
}

static int ratom_cmp(const struct ratom *x, const struct ratom *y)
{
	if (x->kind == 0 && y->kind == 0) {
		int c = strncmp(x->p, y->p, x->n < y->n ? x->n : y->n);
		if (c)
			return c < 0 ? -1 : 1;
		return (x->n > y->n) - (x->n < y->n);
	}
	if (x->kind == 0)
		return -1;
	if (y->kind == 0)
		return 1;
	if (x->kind != y->kind)
		return x->kind == 2 ? 1 : -1;
	if (x->kind == 2)
		return 0;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	int c = memcmp(x->p, y->p, x->n);
	return (c > 0) - (c < 0);
}

static int ref_cmp(const char *ra, const char *rb)
{
	struct ratom a[128], b[128];
	size_t la[64], lb[64], nca, ncb;
	read_repr(ra, a, la, 128, &nca);
	read_repr(rb, b, lb, 128, &ncb);
	static const struct ratom fill = { 1, "0", 1 };
	size_t ia = 0, ib = 0;
	for (size_t c = 0; c < (nca > ncb ? nca : ncb); c++) {
		size_t ka = c < nca ? la[c] : 0, kb = c < ncb ? lb[c] : 0;
		for (size_t j = 0; j < (ka > kb ? ka : kb); j++) {
			const struct ratom *x = j < ka ? &a[ia + j] : &fill;
			const struct ratom *y = j < kb ? &b[ib + j] : &fill;
			int r = ratom_cmp(x, y);
			if (r)
				return r;
		}
		ia += ka;
		ib += kb;
	}
	return 0;
}

static void check_pair(size_t i, size_t j)
{
	int want = ref_cmp(rows[i].repr, rows[j].repr);
	/* conda's printout leaves out the local part: only a difference there is unseen */
	if (!want && (strchr(rows[i].version, '+') || strchr(rows[j].version, '+')))
		return;
	int got = wp_condaver_cmp(rows[i].version, rows[j].version);
	if (got != want) {
		print_error("'%s' vs '%s': got %d, want %d\n", rows[i].version, rows[j].version,
			    got, want);
		fail();
	}
}

static void test_order_matches_conda(void **state)
{
	need_rows();
	/* neighbours in the file differ in small ways; random pairs cover the rest */
	for (size_t i = 0; i + 1 < n_rows; i++)
		check_pair(i, i + 1);
	uint64_t x = 88172645463325252ULL;
	for (int k = 0; k < 200000; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check_pair((size_t)(x % n_rows), (size_t)((x >> 32) % n_rows));
	}
}

static void test_known_orderings(void **state)
{
	/* ascending; "=" marks a pair conda holds equal */
	static const char *const asc[] = {
		"0.4",
		"=0.4.0",
		"0.4.1a.vc11",
		"0.4.1.rc",
		"0.4.1.vc11",
		"0.4.1",
		"0.5*",
		"0.5a1",
		"0.5b3",
		"0.5C1",
		"0.5z",
		"0.5za",
		"0.5",
		"0.5_5",
		"=0.5-5",
		"0.9.6",
		"0.960923",
		"1.0",
		"1.0.4a3",
		"1.0.4b1",
		"1.0.4",
		"1.1dev1",
		"1.1_",
		"1.1a1",
		"1.1.dev1",
		"1.1.a1",
		"1.1",
		"1.1.post1",
		"1.1.1dev1",
		"1.1.1rc1",
		"1.1.1",
		"1.1.1post1",
		"1.1post1",
		"2g6",
		"2.0b1pr0",
		"2.2be.ta29",
		"2.2be5ta29",
		"2.2beta29",
		"2.2.0.1",
		"3.1.1.6",
		"3.2.p.r0",
		"3.2.pr0",
		"3.2.pr.1",
		"5.5.kw",
		"11g",
		"14.3.1",
		"14.3.1.post26.g9d75ca2",
		"1996.07.12",
		"1!0.4.1",
		"1!3.1.1.6",
		"2!0.4.1",
	};
	for (size_t i = 0; i + 1 < WP_ARRAY_LEN(asc); i++) {
		const char *a = asc[i][0] == '=' ? asc[i] + 1 : asc[i];
		const char *b = asc[i + 1][0] == '=' ? asc[i + 1] + 1 : asc[i + 1];
		int want = asc[i + 1][0] == '=' ? 0 : -1;
		if (wp_condaver_cmp(a, b) != want || wp_condaver_cmp(b, a) != -want) {
			print_error("'%s' vs '%s': want %d\n", a, b, want);
			fail();
		}
	}
	static const struct { const char *a, *b; int c; } pairs[] = {
		{ "1.0a1", "1.0", -1 },
		{ "1.0", "1.0post1", -1 },
		{ "1.1dev", "1.1a", -1 },
		{ "1.0", "1.0.0", 0 },
		{ "1.0", "1.0.0.0", 0 },
		{ "1.0+2", "1.0+1", 1 },
		{ "1.0+1", "1.0", 1 },
		{ "1.0+a", "1.0", -1 },
		{ "1.0+1.0", "1.0+1", 0 },
		{ "1.0_1", "1.0.1", 0 },
		{ "1.1.1", "1.1.1a", 1 },
		{ "1.0", "1.0_", 1 },
		{ "0!1.0", "1.0", 0 },
		{ "1!0.1", "9.9", 1 },
		{ "10.0", "9.0", 1 },
		{ "001.2", "1.2", 0 },
		{ "1.0.DEV", "1.0.dev", 0 },
		{ "1.0.dev", "1.0.*", 1 },
		{ "12345678901234567890123", "1234567890123456789012", 1 },
		{ "11.8", "11.10", -1 },
		{ "  2.1 ", "2.1", 0 },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(pairs); i++) {
		if (wp_condaver_cmp(pairs[i].a, pairs[i].b) != pairs[i].c) {
			print_error("'%s' vs '%s': want %d\n", pairs[i].a, pairs[i].b, pairs[i].c);
			fail();
		}
	}
}

static void test_invalid(void **state)
{
	static const char *const bad[] = { "",     "   ",         "1.0+",  "+1",    "1!",
					   "!1",   "a!1",         "1!2!3", "1+2+3", "1..0",
					   "1.0.", ".1",          "_1",    "1-0_1", "1 0",
					   "1.0#", "1.0\xc3\xa9", "1,0",   NULL };
	for (int i = 0; bad[i]; i++) {
		struct wp_condaver v;
		struct wp_err err = WP_ERR_INIT;
		if (wp_condaver_parse(bad[i], &v, &err) != -WPE_PARSE) {
			print_error("'%s' was accepted\n", bad[i]);
			fail();
		}
		assert_int_equal(err.code, -WPE_PARSE);
		assert_null(v.atoms);
		/* invalid sorts below valid, and among themselves by bytes */
		assert_int_equal(wp_condaver_cmp(bad[i], "0"), -1);
		assert_int_equal(wp_condaver_cmp("0", bad[i]), 1);
	}
	assert_int_equal(wp_condaver_cmp("1..0", "1..0"), 0);
	assert_int_equal(wp_condaver_cmp(NULL, "1"), -1);
	struct wp_condaver v;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_condaver_parse("1.0-1", &v, &err), 0); /* '-' becomes '_' */
	struct wp_buf b = WP_BUF_INIT;
	wp_condaver_format_parsed(&v, &b);
	assert_string_equal(wp_buf_cstr(&b), "[[0], [1], [0], [1]]");
	wp_condaver_release(&v);
	assert_int_equal(wp_condaver_parse("1.0.2_", &v, &err), 0); /* openssl-like */
	wp_condaver_format_parsed(&v, &b);
	assert_string_equal(wp_buf_cstr(&b), "[[0], [1], [0], [2, '_']]");
	wp_condaver_release(&v);
	/* a component that starts with no digit gets conda's 0 in front: '_' (what is left of a
	 * last part that is all '_' or '-'), '*' (conda/models/version.py, as
	 * tests/diff/conda_version_diff.py asks it) */
	static const char *const parsed[][2] = {
		{ "_", "[[0], [0, '_']]" },
		{ "1.0__", "[[0], [1], [0], [0, '_']]" },
		{ "1.0--", "[[0], [1], [0], [0, '_']]" },
		{ "1.*", "[[0], [1], [0, '*']]" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(parsed); i++) {
		assert_int_equal(wp_condaver_parse(parsed[i][0], &v, &err), 0);
		wp_condaver_format_parsed(&v, &b);
		assert_string_equal(wp_buf_cstr(&b), parsed[i][1]);
		wp_condaver_release(&v);
	}
	/* so 1.0__ is 1.0.0_ (conda: equal), and 1.0-- too */
	assert_int_equal(wp_condaver_cmp("1.0__", "1.0.0_"), 0);
	assert_int_equal(wp_condaver_cmp("9.9--", "9.9.0_"), 0);
	wp_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_matches_conda),
		cmocka_unit_test(test_order_matches_conda),
		cmocka_unit_test(test_known_orderings),
		cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, unload);
}
