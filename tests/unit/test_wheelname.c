/* tests/unit/test_wheelname.c: wheel/sdist names against packaging's vectors and real PyTorch
 * pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "resolver/wheelname.h"
#include "tests/unit/fixtures.h"

/* packaging_vectors TSVs: values are C-escaped (\\, \t, \n, \r). Splits line in place. */
static size_t split_tsv(char *line, char **cols, size_t max)
{
	size_t n = 0;
	line[strcspn(line, "\n")] = 0;
	char *p = line;
	while (n < max) {
		cols[n++] = p;
		char *tab = strchr(p, '\t');
		if (!tab)
			break;
		*tab = 0;
		p = tab + 1;
	}
	for (size_t i = 0; i < n; i++) {
		char *r = cols[i], *w = cols[i];
		for (; *r; r++) {
			if (*r == '\\' && r[1]) {
				r++;
				*w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r == 'r' ? '\r' : *r;
			} else {
				*w++ = *r;
			}
		}
		*w = 0;
	}
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* wp_wheelname_each_tag agrees with wp_wheelname_parse on every name: the same verdict and
 * message, build number and tags (each one it gives is one of parse's, and it gives them all). */
struct seen_tags {
	const struct wp_wheelname *w;
	bool *seen;
	int calls;
	bool stray;
};

static bool note_tag(void *ctx, const char *tag)
{
	struct seen_tags *st = ctx;
	bool found = false;
	for (size_t i = 0; i < st->w->n_tags; i++)
		if (!strcmp(st->w->tags[i], tag))
			found = st->seen[i] = true;
	st->stray |= !found;
	st->calls++;
	return false;
}

static void same_as_parse(const char *name)
{
	struct wp_wheelname w;
	struct wp_err e1 = WP_ERR_INIT, e2 = WP_ERR_INIT;
	int rc = wp_wheelname_parse(name, &w, &e1);
	bool seen[1024] = { false };
	struct seen_tags st = { &w, seen, 0, false };
	long long bn = -7;
	assert_int_equal(wp_wheelname_each_tag(name, &bn, note_tag, &st, &e2), rc);
	assert_string_equal(e1.msg, e2.msg);
	if (rc)
		return;
	assert_true(w.n_tags <= 1024);
	assert_int_equal(bn, w.build_num);
	assert_false(st.stray);
	for (size_t i = 0; i < w.n_tags; i++)
		assert_true(seen[i]);
	assert_true(st.calls >= (int)w.n_tags);
	wp_wheelname_release(&w);
}

static void valid_vectors(const char *file)
{
	FILE *f = fixture_open(file);
	char line[1024], *c[5];
	int rows = 0;
	assert_non_null(fgets(line, sizeof(line), f)); /* header */
	while (fgets(line, sizeof(line), f)) {
		assert_int_equal(split_tsv(line, c, 5), 5);
		struct wp_wheelname w;
		struct wp_err err = WP_ERR_INIT;
		same_as_parse(c[0]);
		assert_int_equal(wp_wheelname_parse(c[0], &w, &err), 0);
		assert_string_equal(w.project, c[1]);
		assert_string_equal(w.version, c[2]);
		/* build_json: [] or [1000, "abc"] */
		if (!strcmp(c[3], "[]")) {
			assert_int_equal(w.build_num, -1);
		} else {
			char *bj = wp_xasprintf("[%lld, \"%s\"]", w.build_num, w.build_suffix);
			assert_string_equal(bj, c[3]);
			free(bj);
		}
		/* tags_json: ["py3-none-any"], a set written sorted */
		struct wp_buf tj = WP_BUF_INIT;
		qsort(w.tags, w.n_tags, sizeof(*w.tags), cmp_str);
		wp_buf_addch(&tj, '[');
		for (size_t i = 0; i < w.n_tags; i++)
			wp_buf_printf(&tj, "%s\"%s\"", i ? ", " : "", w.tags[i]);
		wp_buf_addch(&tj, ']');
		assert_string_equal(wp_buf_cstr(&tj), c[4]);
		wp_buf_free(&tj);
		wp_wheelname_release(&w);
		rows++;
	}
	fclose(f);
	assert_true(rows >= 4);
}

static void invalid_vectors(const char *file)
{
	FILE *f = fixture_open(file);
	char line[1024], *c[1];
	int rows = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		split_tsv(line, c, 1);
		same_as_parse(c[0]);
		struct wp_wheelname w;
		struct wp_err err = WP_ERR_INIT;
		/* packaging 24.2 predates PEP 825, which reads these as variant wheels: six parts
		 * whose third does not start with a digit (python tag "abc", abi "py3", platform
		 * "none", label "any"), and seven parts (build 200, label "junk") */
		static const char *const pep825[][2] = { { "foo-1.0-abc-py3-none-any.whl", "any" },
							 { "foo-1.0-200-py3-none-any-junk.whl",
							   "junk" } };
		bool label = false;
		for (size_t k = 0; k < WP_ARRAY_LEN(pep825) && !label; k++) {
			if (strcmp(c[0], pep825[k][0]) != 0)
				continue;
			label = true;
			assert_int_equal(wp_wheelname_parse(c[0], &w, &err), 0);
			assert_string_equal(w.variant_label, pep825[k][1]);
			wp_wheelname_release(&w);
		}
		if (label) {
			rows++;
			continue;
		}
		if (wp_wheelname_parse(c[0], &w, &err) != -WPE_PARSE) {
			print_error("'%s' was accepted\n", c[0]);
			fail();
		}
		assert_non_null(strstr(err.msg, c[0]));
		assert_null(w.tags);
		rows++;
	}
	fclose(f);
	assert_true(rows >= 7);
}

/* packaging 24.2's vectors, and packaging HEAD's: HEAD adds names with several platform tags and
 * non-ASCII project names (valid), and refuses an interpreter tag that is no identifier
 * (playlyfe-0.1.1-2.7.6-none-any.whl: "2", "7", "6"), as wheelpick does now */
static void test_valid_vectors(void **state)
{
	valid_vectors("packaging_vectors/packaging-24.2/wheel_filenames_valid.tsv");
	valid_vectors("packaging_vectors/packaging-26.4.dev0_HEAD/wheel_filenames_valid.tsv");
}

static void test_invalid_vectors(void **state)
{
	invalid_vectors("packaging_vectors/packaging-24.2/wheel_filenames_invalid.tsv");
	invalid_vectors("packaging_vectors/packaging-26.4.dev0_HEAD/wheel_filenames_invalid.tsv");
}

static void test_canonicalize_name(void **state)
{
	FILE *f = fixture_open("packaging_vectors/packaging-24.2/canonicalize_name.tsv");
	char line[1024], *c[2];
	int rows = 0;
	struct wp_buf b = WP_BUF_INIT;
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		assert_int_equal(split_tsv(line, c, 2), 2);
		wp_project_name_normalize(c[0], strlen(c[0]), &b);
		assert_string_equal(wp_buf_cstr(&b), c[1]);
		rows++;
	}
	fclose(f);
	/* the buffer is reset, not appended to */
	wp_project_name_normalize("Torch_Vision", 12, &b);
	assert_string_equal(wp_buf_cstr(&b), "torch-vision");
	wp_project_name_normalize("a-", 2, &b);
	assert_string_equal(wp_buf_cstr(&b), "a-");
	wp_project_name_normalize("", 0, &b);
	assert_string_equal(wp_buf_cstr(&b), "");
	wp_buf_free(&b);
	assert_true(rows >= 10);
}

static void check_versions(const char *rel, bool want_valid, bool has_header)
{
	FILE *f = fixture_open(rel);
	char line[1024], *c[1];
	int rows = 0;
	if (has_header)
		assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		split_tsv(line, c, 1);
		size_t n = strlen(c[0]);
		const char *v = c[0];
		/* packaging strips surrounding space; wp_pep440_valid takes file name parts */
		while (n && (*v == ' ' || *v == '\t' || *v == '\n')) {
			v++;
			n--;
		}
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\n'))
			n--;
		if (wp_pep440_valid(v, n) != want_valid) {
			print_error("%s: '%s' should be %s\n", rel, c[0],
				    want_valid ? "valid" : "invalid");
			fail();
		}
		rows++;
	}
	fclose(f);
	assert_true(rows > 5);
}

static void test_pep440_grammar(void **state)
{
	check_versions("packaging_vectors/packaging-24.2/versions_sorted.txt", true, false);
	check_versions("packaging_vectors/packaging-26.4.dev0_HEAD/versions_sorted.txt", true,
		       false);
	check_versions("packaging_vectors/packaging-24.2/versions_normalized.tsv", true, true);
	check_versions("packaging_vectors/packaging-24.2/versions_invalid.tsv", false, true);
	check_versions("packaging_vectors/packaging-26.4.dev0_HEAD/versions_invalid.tsv", false,
		       true);
	static const char *const bad[] = { "",     "v",      "1!",  "!1",     "1.0-",
					   "1.0+", "1.0+a.", "1.x", "1.0a1b1" };
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++)
		assert_false(wp_pep440_valid(bad[i], strlen(bad[i])));
	static const char *const good[] = { "1.8.0+cu111",
					    "1.8.0+rocm4.0.1",
					    "2.0.1+cu117.with.pypi.cudnn",
					    "1!2.0.post1.dev3+local_1-x",
					    "0.4.1",
					    "1.0a.",
					    "1.0-5",
					    "1.0.dev-" };
	for (size_t i = 0; i < WP_ARRAY_LEN(good); i++)
		assert_true(wp_pep440_valid(good[i], strlen(good[i])));
}

static void test_torch_names(void **state)
{
	struct wp_wheelname w;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_wheelname_parse("torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl", &w,
					    &err),
			 0);
	assert_string_equal(w.name, "torch");
	assert_string_equal(w.version, "1.8.0+cu111");
	assert_string_equal(w.build, "");
	assert_int_equal(w.n_tags, 1);
	assert_string_equal(w.tags[0], "cp38-cp38-linux_x86_64");
	wp_wheelname_release(&w);

	assert_int_equal(wp_wheelname_parse("Foo.Bar-2.0-7x-py2.py3-none-MANYLINUX1_x86_64.manylinux2010_x86_64.whl",
					    &w, &err),
			 0);
	assert_string_equal(w.project, "foo-bar");
	assert_int_equal(w.build_num, 7);
	assert_string_equal(w.build_suffix, "x");
	assert_int_equal(w.n_tags, 4);
	assert_string_equal(w.tags[0], "py2-none-manylinux1_x86_64");
	assert_string_equal(w.tags[1], "py2-none-manylinux2010_x86_64");
	assert_string_equal(w.tags[3], "py3-none-manylinux2010_x86_64");
	wp_wheelname_release(&w);

	static const char *const bad[] = {
		".whl",
		"torch-1.0-cp38-cp38-.whl",
		"torch-1.0-cp38..cp39-none-any.whl",
		"torch-1.0-cp38.-none-any.whl",
		"torch-1.0-99999999999999999999999-py3-none-any.whl",
		"-1.0-py3-none-any.whl",
		"torch-1.0-py3-no ne-any.whl",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		wp_err_clear(&err);
		if (wp_wheelname_parse(bad[i], &w, &err) != -WPE_PARSE) {
			print_error("'%s' was accepted\n", bad[i]);
			fail();
		}
	}
	/* a tag set that would expand past the ceiling is refused, not expanded */
	struct wp_buf big = WP_BUF_INIT;
	wp_buf_addstr(&big, "x-1.0-");
	for (int part = 0; part < 3; part++) {
		for (int i = 0; i < 12; i++)
			wp_buf_printf(&big, "%sp%d", i ? "." : "", i);
		wp_buf_addstr(&big, part < 2 ? "-" : ".whl");
	}
	wp_err_clear(&err);
	assert_int_equal(wp_wheelname_parse(wp_buf_cstr(&big), &w, &err), -WPE_PARSE);
	wp_buf_free(&big);
}

/* PEP 825 names: a label after the platform tag, with or without a build tag */
static void test_variant_labels(void **state)
{
	(void)state;
	struct wp_wheelname w;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_wheelname_parse("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl",
					    &w, &err),
			 0);
	assert_string_equal(w.variant_label, "cuda12.8");
	assert_string_equal(w.version, "2.10.0");
	assert_int_equal(w.build_num, -1);
	assert_string_equal(w.tags[0], "cp313-cp313-manylinux_2_28_x86_64");
	wp_wheelname_release(&w);
	assert_int_equal(wp_wheelname_parse("numpy-2.3.2-1-cp313-cp313t-musllinux_1_2_x86_64-x86_64_v3.whl",
					    &w, &err),
			 0);
	assert_string_equal(w.variant_label, "x86_64_v3");
	assert_int_equal(w.build_num, 1);
	wp_wheelname_release(&w);
	assert_int_equal(wp_wheelname_parse("numpy-2.3.2-cp313-cp313t-musllinux_1_2_x86_64-null.whl",
					    &w, &err),
			 0);
	assert_string_equal(w.variant_label, "null");
	wp_wheelname_release(&w);
	assert_int_equal(wp_wheelname_parse("numpy-2.3.2-cp313-cp313t-musllinux_1_2_x86_64.whl", &w,
					    &err),
			 0);
	assert_null(w.variant_label);
	wp_wheelname_release(&w);
	/* upper case, '-' and an empty label are not labels */
	assert_int_equal(wp_wheelname_parse("numpy-2.3.2-cp313-cp313t-linux_x86_64-CUDA.whl", &w,
					    &err),
			 -WPE_PARSE);
	assert_non_null(strstr(err.msg, "variant label"));
	assert_int_equal(wp_wheelname_parse("numpy-2.3.2-1-cp313-cp313t-linux_x86_64-.whl", &w,
					    &err),
			 -WPE_PARSE);
	assert_int_equal(wp_wheelname_parse("a-1-1-py3-none-any-x-y.whl", &w, &err), -WPE_PARSE);
	assert_int_equal(wp_wheelname_parse("a-1-py3-none-any-0123456789012345678901234567890123456789012345678.whl",
					    &w, &err),
			 -WPE_PARSE);
}

static void test_sdists(void **state)
{
	static const struct { const char *file, *project, *version; } ok[] = {
		{ "foo-1.0.tar.gz", "foo", "1.0" },
		{ "foo-1.0.zip", "foo", "1.0" },
		{ "torchtext-0.6.0.tar.gz", "torchtext", "0.6.0" },
		{ "lit-15.0.7.tar.gz", "lit", "15.0.7" },
		{ "Foo_Bar-baz-2.0rc1.tar.bz2", "foo-bar-baz", "2.0rc1" },
		{ "foo-1.0-post1.tgz", "foo", "1.0-post1" },
		{ "foo-2-1.0.tar.xz", "foo-2", "1.0" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(ok); i++) {
		struct wp_sdistname s;
		struct wp_err err = WP_ERR_INIT;
		assert_int_equal(wp_sdistname_parse(ok[i].file, &s, &err), 0);
		assert_string_equal(s.project, ok[i].project);
		assert_string_equal(s.version, ok[i].version);
		wp_sdistname_release(&s);
	}
	static const char *const bad[] = { "foo-1.0.xz",  "foo1.0.tar.gz", "foo-1.x.tar.gz",
					   "-1.0.tar.gz", ".tar.gz",       "foo-.tar.gz" };
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		struct wp_sdistname s;
		struct wp_err err = WP_ERR_INIT;
		assert_int_equal(wp_sdistname_parse(bad[i], &s, &err), -WPE_PARSE);
		assert_null(s.name);
	}
}

/* Every file name packaging HEAD accepts on the real 2021 and 2023 PyTorch pages parses here
 * too. */
static int refused_like_head;

static int scan_page(const char *rel, int *torch)
{
	FILE *f = fixture_open(rel);
	char line[4096];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *a = strstr(line, "<a ");
		char *gt = a ? strchr(a, '>') : NULL;
		char *end = gt ? strstr(gt, "</a>") : NULL;
		if (!end)
			continue;
		*end = 0;
		char *text = strrchr(gt + 1, '/');
		text = text ? text + 1 : gt + 1;
		struct wp_buf name = WP_BUF_INIT;
		for (char *p = text; *p; p++) {
			if (!strncmp(p, "%2B", 3)) {
				wp_buf_addch(&name, '+');
				p += 2;
			} else {
				wp_buf_addch(&name, *p);
			}
		}
		size_t len = name.len;
		if (len > 4 && !strcmp(name.data + len - 4, ".whl")) {
			struct wp_wheelname w;
			struct wp_err err = WP_ERR_INIT;
			same_as_parse(name.data);
			if (wp_wheelname_parse(name.data, &w, &err)) {
				/* packaging HEAD refuses an interpreter tag that is no identifier:
				 * the 2023 page's torchrec_cpu-0.1.1-3.7-none-any.whl; pip's next
				 * packaging will too */
				if (strstr(err.msg, "that is no identifier")) {
					refused_like_head++;
					wp_buf_free(&name);
					continue;
				}
				print_error("%s: %s\n", rel, err.msg);
				fail();
			}
			assert_true(w.n_tags >= 1);
			if (!strcmp(w.project, "torch"))
				(*torch)++;
			wp_wheelname_release(&w);
			n++;
		}
		wp_buf_free(&name);
	}
	fclose(f);
	return n;
}

/* Names the vectors do not hold: compressed sets, upper case, a tag too long for the stack
 * buffer, PEP 825 labels, and names refused at each step. */
static bool stop_at_first(void *ctx, const char *tag)
{
	(*(int *)ctx)++;
	return true;
}

static void test_each_tag(void **state)
{
	static const char *const names[] = {
		"Foo-1.0-py2.py3-none-any.whl",
		"foo-1.0-PY3-NONE-Linux_X86_64.whl",
		"foo-1.0-1abc-cp38.cp39-abi3.none-manylinux1_x86_64.manylinux2014_x86_64.whl",
		"torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl",
		"foo-1.0-200-py3-none-any-junk.whl",
		"foo-1.0-py3-none-any.whl.whl",
		"foo-1.0-py3-none.whl",
		"foo-x.y.z-py3-none-any.whl",
		"foo-1.0-a1-py3-none-any.whl",
		"foo-1.0-2.7-none-any.whl",
		"foo-1.0-py3-none-any-BAD.whl",
		"foo-1.0-py3-none-a..b.whl",
		".whl",
		"",
		"-----.whl",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(names); i++)
		same_as_parse(names[i]);
	/* a platform tag past the 256-byte buffer */
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, "foo-1.0-py3-none-");
	for (int i = 0; i < 300; i++)
		wp_buf_addch(&b, i % 2 ? 'x' : 'Y');
	wp_buf_addstr(&b, ".any.whl");
	same_as_parse(wp_buf_cstr(&b));
	wp_buf_free(&b);
	/* fn may stop it: one call */
	struct wp_wheelname w = { 0 };
	struct wp_err e = WP_ERR_INIT;
	long long bn;
	int calls = 0;
	assert_int_equal(wp_wheelname_each_tag("foo-1.0-py2.py3-none-any.whl", &bn, stop_at_first,
					       &calls, &e),
			 0);
	assert_int_equal(calls, 1);
	(void)w;
}

static void test_real_pages(void **state)
{
	int torch = 0, total = 0, pages = 0;
	total += scan_page("pytorch_index/torch_stable_2021-03-12.html", &torch);
	char *dir = fixture_path("pytorch_index/whl_simple_2023-10-13");
	DIR *d = opendir(dir);
	if (!d)
		fixture_missing(dir);
	struct dirent *de;
	while ((de = readdir(d))) {
		char *sub = wp_xasprintf("%s/%s", dir, de->d_name);
		struct stat sb;
		bool project = de->d_name[0] != '.' && !stat(sub, &sb) && S_ISDIR(sb.st_mode);
		free(sub);
		if (!project)
			continue; /* the root page index.html sits beside the project folders */
		char *rel = wp_xasprintf("pytorch_index/whl_simple_2023-10-13/%s/index.html",
					 de->d_name);
		total += scan_page(rel, &torch);
		pages++;
		free(rel);
	}
	closedir(d);
	if (pages < 35) /* the 35 project pages vendored in tests/fixtures/real */
		fail_msg("%d project pages under '%s', want 35: an input is missing", pages, dir);
	free(dir);
	/* packaging 21.3 accepts all 3,710 distinct names; the pages repeat a few. packaging HEAD
	 * refuses the few whose interpreter tag is a bare number ("3.7"), and so does wheelpick */
	print_message("real pages: %d wheel names read, %d refused as packaging HEAD refuses them\n",
		      total, refused_like_head);
	assert_true(total + refused_like_head >= 3710);
	assert_true(refused_like_head >= 1 && refused_like_head < 20);
	assert_true(torch > 1500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_vectors),
		cmocka_unit_test(test_invalid_vectors),
		cmocka_unit_test(test_canonicalize_name),
		cmocka_unit_test(test_pep440_grammar),
		cmocka_unit_test(test_torch_names),
		cmocka_unit_test(test_sdists),
		cmocka_unit_test(test_variant_labels),
		cmocka_unit_test(test_each_tag),
		cmocka_unit_test(test_real_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
