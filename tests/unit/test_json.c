/* tests/unit/test_json.c: base/json: the reader skeleton's caps and messages, the tree loader's
 * getters, and the writer's buffer output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"
#include "base/mem.h"

/* Every event as a word, so a test compares one string. */
struct trace {
	struct wp_buf out;
	int stop_at_string; /* 1-based: return an error from that string callback */
	int strings;
	struct wp_err *err;
};

static void word(struct trace *t, const char *w, const unsigned char *s, size_t n)
{
	wp_buf_printf(&t->out, "%s%s", t->out.len ? " " : "", w);
	if (s)
		wp_buf_printf(&t->out, "(%.*s)", (int)n, (const char *)s);
}

static int t_null(void *c) { word(c, "null", NULL, 0); return 0; }
static int t_bool(void *c, bool b) { word(c, b ? "true" : "false", NULL, 0); return 0; }
static int t_num(void *c, const char *s, size_t n)
{
	word(c, "num", (const unsigned char *)s, n);
	return 0;
}
static int t_map(void *c) { word(c, "{", NULL, 0); return 0; }
static int t_key(void *c, const unsigned char *s, size_t n) { word(c, "key", s, n); return 0; }
static int t_emap(void *c) { word(c, "}", NULL, 0); return 0; }
static int t_arr(void *c) { word(c, "[", NULL, 0); return 0; }
static int t_earr(void *c) { word(c, "]", NULL, 0); return 0; }

static int t_str(void *c, const unsigned char *s, size_t n)
{
	struct trace *t = c;
	word(t, "str", s, n);
	if (++t->strings == t->stop_at_string)
		return wp_fail(t->err, -WPE_INTEGRITY, "the reader's own error");
	return 0;
}

static const struct wp_json_callbacks cbs = {
	.null = t_null, .boolean = t_bool, .number = t_num, .string = t_str, .start_map = t_map,
	.key = t_key, .end_map = t_emap, .start_array = t_arr, .end_array = t_earr,
};

static const struct wp_json_opts opts = {
	.what = "x.json", .kind = "a test page", .code = -WPE_SOURCE, .max_bytes = 1 << 20
};

static void test_reader_events(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	struct trace t = { .err = &err };
	const char *doc = "{\"a\": [1, -2.5e3, true, false, null, \"s\\u00e9\"], \"b\": {}}";
	/* fed a byte at a time: the skeleton keeps its place across pieces */
	struct wp_json_reader r;
	wp_json_reader_init(&r, &cbs, &t, &opts, &err);
	for (size_t i = 0; doc[i]; i++)
		assert_int_equal(wp_json_reader_feed(&r, doc + i, 1), 0);
	assert_int_equal(wp_json_reader_finish(&r), 0);
	wp_json_reader_release(&r);
	assert_string_equal(wp_buf_cstr(&t.out),
			    "{ key(a) [ num(1) num(-2.5e3) true false null str(s\xc3\xa9) ] "
			    "key(b) { } }");
	wp_buf_free(&t.out);
}

static void expect_refused(const char *doc, size_t n, const struct wp_json_opts *o, int code,
			   const char *says)
{
	struct wp_err err = WP_ERR_INIT;
	struct trace t = { .err = &err };
	int rc = wp_json_read(doc, n, &cbs, &t, o, &err);
	if (rc != code || !strstr(err.msg, says) || strchr(err.msg, '\n'))
		fail_msg("'%.40s': rc %d, message '%s'; wanted %d and '%s'", doc, rc, err.msg, code,
			 says);
	wp_buf_free(&t.out);
}

static void test_reader_refuses(void **state)
{
	struct wp_json_opts noun = opts;
	noun.noun = "profile";
	noun.kind = NULL;
	noun.code = 0;
	expect_refused("{\"a\": 1,}", 9, &opts, -WPE_SOURCE,
		       "'x.json' is not a test page: parse error");
	expect_refused("{\"a\": 1", 7, &opts, -WPE_SOURCE, "'x.json' is not a test page: ");
	expect_refused("", 0, &opts, -WPE_SOURCE, "is not a test page");
	expect_refused("{} {}", 5, &opts, -WPE_SOURCE, "is not a test page");
	expect_refused("{} /* c */", 10, &opts, -WPE_SOURCE, "is not a test page");
	expect_refused("/* c */ {}", 10, &opts, -WPE_SOURCE, "is not a test page");
	expect_refused("[\"\xff\"]", 5, &noun, -WPE_PARSE, "profile 'x.json' is not valid JSON: ");
	expect_refused("[\"a\0b\"]", 7, &opts, -WPE_SOURCE, "is not a test page");

	/* the first error wins: the callback's, not the skeleton's */
	struct wp_err err = WP_ERR_INIT;
	struct trace t = { .err = &err, .stop_at_string = 2 };
	assert_int_equal(wp_json_read("[\"a\", \"b\", \"c\"]", 15, &cbs, &t, &opts, &err),
			 -WPE_INTEGRITY);
	assert_string_equal(err.msg, "the reader's own error");
	assert_string_equal(wp_buf_cstr(&t.out), "[ str(a) str(b)");
	wp_buf_free(&t.out);
}

static void test_reader_caps(void **state)
{
	/* depth: WP_JSON_MAX_DEPTH levels are read, one more is refused */
	struct wp_buf b = WP_BUF_INIT;
	for (int i = 0; i < WP_JSON_MAX_DEPTH; i++)
		wp_buf_addch(&b, '[');
	for (int i = 0; i < WP_JSON_MAX_DEPTH; i++)
		wp_buf_addch(&b, ']');
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_json_read(b.data, b.len, NULL, NULL, &opts, &err), 0);
	wp_buf_reset(&b);
	for (int i = 0; i <= WP_JSON_MAX_DEPTH; i++)
		wp_buf_addstr(&b, "{\"k\":");
	expect_refused(b.data, b.len, &opts, -WPE_SOURCE, "nested too deep (more than 64 levels)");

	/* size: counted over every feed */
	struct wp_json_opts small = opts;
	small.max_bytes = 8;
	struct wp_json_reader r;
	wp_err_clear(&err);
	wp_json_reader_init(&r, NULL, NULL, &small, &err);
	assert_int_equal(wp_json_reader_feed(&r, "[1, ", 4), 0);
	assert_int_equal(wp_json_reader_feed(&r, "2, 3]", 5), -WPE_TOO_BIG);
	assert_int_equal(wp_json_reader_finish(&r), -WPE_TOO_BIG); /* stays refused */
	wp_json_reader_release(&r);
	assert_string_equal(err.msg, "'x.json' is larger than 8 bytes");

	/* one token: refused before the parser would buffer it, whether split or escaped */
	struct wp_json_opts tok = opts;
	tok.max_token = 16;
	wp_buf_reset(&b);
	wp_buf_addstr(&b, "[\"");
	for (int i = 0; i < 20; i++)
		wp_buf_addstr(&b, "\\n");
	wp_buf_addstr(&b, "\"]");
	expect_refused(b.data, b.len, &tok, -WPE_TOO_BIG,
		       "'x.json' holds a JSON value longer than 16 bytes");
	expect_refused("[123456789012345678901234567890]", 32, &tok, -WPE_TOO_BIG,
		       "longer than 16");
	wp_err_clear(&err);
	const char *fits = "[\"12345678901234\", 123456789012345]"; /* the guard counts the byte
								       before a literal */
	assert_int_equal(wp_json_read(fits, strlen(fits), NULL, NULL, &tok, &err), 0);
	/* strings scanned sixteen bytes at a time: each quote and escape found where it is, long
	 * runs counted whole, whatever their offset from a block's start */
	tok.max_token = 20;
	const char *
		short_ones = "[\"abcdefghijklmnopq\",\"rstuvwxyz0123456\", \"a\\\"b\\\\cdefghijkl\"]";
	assert_int_equal(wp_json_read(short_ones, strlen(short_ones), NULL, NULL, &tok, &err), 0);
	for (int lead = 0; lead < 17; lead++) {
		wp_buf_reset(&b);
		wp_buf_addstr(&b, "[");
		for (int i = 0; i < lead; i++)
			wp_buf_addstr(&b, " ");
		wp_buf_addstr(&b, "\"abcdefghijklmnopqrstuvwxyz0123456789\"]");
		expect_refused(b.data, b.len, &tok, -WPE_TOO_BIG, "longer than 20 bytes");
	}
	wp_buf_free(&b);
}


/* Fed in pieces no larger than the cap, the guard counts only the tokens at a piece's ends (one
 * inside a piece cannot pass the cap): the verdict must be the one a whole feed gets, for every
 * piece size and every place a piece may start. */
static int feed_in_pieces(const char *doc, size_t piece, size_t skew, const struct wp_json_opts *o,
			  struct wp_err *err)
{
	struct wp_json_reader r;
	struct trace t = { .err = err };
	size_t n = strlen(doc), at = 0;
	int rc = 0;
	wp_json_reader_init(&r, &cbs, &t, o, err);
	while (!rc && at < n) {
		size_t k = at == 0 && skew ? skew : piece;
		if (k > n - at)
			k = n - at;
		rc = wp_json_reader_feed(&r, doc + at, k);
		at += k;
	}
	if (!rc)
		rc = wp_json_reader_finish(&r);
	wp_json_reader_release(&r);
	wp_buf_free(&t.out);
	return rc;
}

static void test_guard_pieces(void **state)
{
	struct wp_json_opts tok = opts;
	tok.max_token = 16;
	static const struct {
		const char *doc;
		int want;
	} docs[] = {
		{ "[\"12345678901234\", 123456789012345, \"abcdefghijklmn\", true, null]", 0 },
		{ "{\"k234567890123\": [1, 2, 3, \"x\"], \"b\": {\"c\": \"d\"}, \"e\": 123456789012345}",
		  0 },
		{ "[\"12345678901234\", 1234567890123456, \"a\"]", -WPE_TOO_BIG }, /* a literal of
										      16 */
		{ "[\"a\", \"b\", \"123456789012345\", \"c\"]", -WPE_TOO_BIG }, /* a string of 17 */
		{ "[1, 2, 3, 4, 5, 6, 7, \"abcdefghijklmnopqrstuvwxyz\", 8]", -WPE_TOO_BIG },
		{ "{\"abcdefghijklmnopqrstuvwxyz\": 1}", -WPE_TOO_BIG }, /* a key */
		{ "[\"a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\n\", 1]", -WPE_TOO_BIG }, /* escapes count raw
										*/
		{ "[\"a\\\"b\\\\c\", 12, \"\\u00e9\\u00e9\", 1]", 0 },
	};
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		struct wp_err whole = WP_ERR_INIT;
		int w = wp_json_read(docs[d].doc, strlen(docs[d].doc), NULL, NULL, &tok, &whole);
		if (w != docs[d].want)
			fail_msg("'%s' whole: rc %d (%s), wanted %d", docs[d].doc, w, whole.msg,
				 docs[d].want);
		for (size_t piece = 1; piece <= tok.max_token; piece++)
			for (size_t skew = 0; skew < piece; skew++) {
				struct wp_err err = WP_ERR_INIT;
				int rc = feed_in_pieces(docs[d].doc, piece, skew, &tok, &err);
				if (rc != docs[d].want)
					fail_msg("'%s' in pieces of %zu (first %zu): rc %d (%s), wanted %d",
						 docs[d].doc, piece, skew, rc, err.msg,
						 docs[d].want);
			}
	}
}

static void test_tree(void **state)
{
	const char *
		doc = "{\"cuda\": {\"version\": \"12.2\"}, \"n\": 42, \"f\": 1.5, \"big\": 99999999999999999999,"
		      " \"ok\": true, \"no\": null, \"list\": [\"a\", 2, \"c\"]}";
	struct wp_err err = WP_ERR_INIT;
	struct wp_json_val *root;
	assert_int_equal(wp_json_load(doc, strlen(doc), &opts, &root, &err), 0);
	assert_int_equal(wp_json_type(root), WP_JSON_OBJECT);
	assert_string_equal(wp_json_get_str(root, "cuda", "version"), "12.2");
	assert_null(wp_json_get_str(root, "cuda"));
	assert_null(wp_json_get_str(root, "cuda", "version", "deeper"));
	assert_null(wp_json_get(root, "missing"));
	assert_int_equal(wp_json_type(wp_json_get(root, "missing")), WP_JSON_ABSENT);
	assert_int_equal(wp_json_type(wp_json_get(root, "no")), WP_JSON_NULL);
	long long n;
	bool b;
	assert_true(wp_json_as_int(wp_json_get(root, "n"), &n));
	assert_int_equal(n, 42);
	assert_false(wp_json_as_int(wp_json_get(root, "f"), &n));
	assert_false(wp_json_as_int(wp_json_get(root, "big"), &n));
	assert_int_equal(wp_json_type(wp_json_get(root, "big")), WP_JSON_NUMBER);
	assert_true(wp_json_as_bool(wp_json_get(root, "ok"), &b));
	assert_true(b);
	assert_false(wp_json_as_bool(wp_json_get(root, "no"), &b));
	const struct wp_json_val *list = wp_json_get_arr(root, "list");
	assert_non_null(list);
	assert_null(wp_json_get_obj(root, "list"));
	assert_int_equal(wp_json_len(list), 3);
	assert_string_equal(wp_json_as_str(wp_json_at(list, 0)), "a");
	assert_null(wp_json_as_str(wp_json_at(list, 1)));
	assert_null(wp_json_at(list, 3));
	assert_int_equal(wp_json_len(root), 7);
	assert_int_equal(wp_json_len(NULL), 0);
	wp_json_tree_free(root);

	/* the same caps and messages as the reader; comments too are refused */
	struct wp_json_opts prof = {
		.what = "p.json", .noun = "profile", .code = -WPE_USAGE, .max_bytes = 100
	};
	assert_int_equal(wp_json_load("{} // c", 7, &prof, &root, &err), -WPE_USAGE);
	assert_null(root);
	assert_non_null(strstr(err.msg, "profile 'p.json' is not valid JSON: "));
	char deep[200];
	memset(deep, '[', sizeof(deep));
	wp_err_clear(&err);
	assert_int_equal(wp_json_load(deep, 100, &prof, &root, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "nested too deep"));
	wp_err_clear(&err);
	assert_int_equal(wp_json_load(deep, sizeof(deep), &prof, &root, &err), -WPE_TOO_BIG);
	/* text without a NUL after it */
	char exact[2] = { '[', ']' };
	assert_int_equal(wp_json_load(exact, 2, &prof, &root, NULL), 0);
	assert_int_equal(wp_json_len(root), 0);
	assert_int_equal(wp_json_type(root), WP_JSON_ARRAY);
	wp_json_tree_free(root);
}

static void test_writer(void **state)
{
	struct wp_json j;
	struct wp_buf out = WP_BUF_INIT;
	wp_json_init_indent(&j, NULL);
	wp_json_obj(&j);
	wp_json_kstr(&j, "s", "a\"b");
	wp_json_kint(&j, "i", -3);
	wp_json_kbool(&j, "t", true);
	wp_json_kstr(&j, "n", NULL);
	wp_json_key(&j, "l");
	wp_json_raw_list(&j, "[\"x >=1\", 2, \"y\"]");
	wp_json_key(&j, "bad");
	wp_json_raw_list(&j, "[\"x\"");
	wp_json_obj_end(&j);
	assert_int_equal(wp_json_finish_buf(&j, &out), 0);
	assert_string_equal(wp_buf_cstr(&out),
			    "{\"s\":\"a\\\"b\",\"i\":-3,\"t\":true,\"n\":null,\"l\":[\"x >=1\",\"y\"],\"bad\":[]}\n");

	/* pretty: one newline at the end, not two */
	wp_buf_reset(&out);
	wp_json_init_indent(&j, " ");
	wp_json_arr(&j);
	wp_json_int(&j, 1);
	wp_json_arr_end(&j);
	assert_int_equal(wp_json_finish_buf(&j, &out), 0);
	assert_string_equal(wp_buf_cstr(&out), "[\n 1\n]\n");

	/* pretty: empty arrays and objects as [] and {}, strings untouched; appended after what the
	 * buffer held */
	wp_buf_reset(&out);
	wp_buf_addstr(&out, "x");
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_key(&j, "a");
	wp_json_arr(&j);
	wp_json_arr_end(&j);
	wp_json_key(&j, "o");
	wp_json_obj(&j);
	wp_json_obj_end(&j);
	wp_json_kstr(&j, "s", "[ ] \" {\n}");
	wp_json_obj_end(&j);
	assert_int_equal(wp_json_finish_buf(&j, &out), 0);
	assert_string_equal(wp_buf_cstr(&out),
			    "x{\n  \"a\": [],\n  \"o\": {},\n  \"s\": \"[ ] \\\" {\\n}\"\n}\n");

	/* not UTF-8: refused, and nothing written */
	wp_buf_reset(&out);
	wp_json_init(&j);
	wp_json_arr(&j);
	wp_json_str(&j, "\xff");
	wp_json_arr_end(&j);
	assert_int_equal(wp_json_finish_buf(&j, &out), -WPE_PARSE);
	assert_int_equal(out.len, 0);

	/* calls that break the grammar: a number where a key belongs */
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_int(&j, 1);
	assert_int_equal(wp_json_finish_buf(&j, &out), -WPE_PARSE);

	/* the buffer's ceiling */
	struct wp_buf tiny = WP_BUF_INIT_MAX(4);
	wp_json_init(&j);
	wp_json_str(&j, "longer than four");
	assert_int_equal(wp_json_finish_buf(&j, &tiny), -WPE_TOO_BIG);
	wp_buf_free(&tiny);
	wp_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_events),
		cmocka_unit_test(test_reader_refuses),
		cmocka_unit_test(test_reader_caps),
		cmocka_unit_test(test_guard_pieces),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_writer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
