/* tests/unit/test_htmlfast.c: the fast anchor-list scanner and libxml2 give the same records, stats
 * and errors for every HTML page in tests/fixtures (and for each cut short and lightly broken),
 * and the real PyTorch pages take the fast path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/mem.h"
#include "index/html.h"
#include "index/htmlpath.h"
#include "tests/unit/fixtures.h"

static const char *s_or(const char *s)
{
	return s ? s : "(null)";
}

static int rec_sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	wp_buf_printf(ctx, "%d|%s|%s|%s|%s|%s|%s|%s|%s|%s|%lld\n", (int)r->kind, s_or(r->filename),
		      s_or(r->url), s_or(r->dir), s_or(r->project), s_or(r->sha256), s_or(r->md5),
		      s_or(r->requires_python), s_or(r->yanked), s_or(r->core_metadata), r->size);
	return 0;
}

static int proj_sink(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	wp_buf_printf(ctx, "%s|%s\n", name, url);
	return 0;
}

/* What one path made of a page: records, stats, code and message, as text. rc 1: declined. */
static int run(enum wp_html_path path, int how, const char *data, size_t len, struct wp_buf *out)
{
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc;
	wp_buf_reset(out);
	memset(&st, 0, sizeof(st));
	if (how == 0)
		rc = wp_read_html_links_via(path,
					    "https://download.pytorch.org/whl/torch_stable.html",
					    NULL, data, len, rec_sink, out, &st, &err);
	else if (how == 1)
		rc = wp_read_html_links_via(path, "https://pypi.example.org/simple/torch/", "torch",
					    data, len, rec_sink, out, &st, &err);
	else
		rc = wp_read_html_projects_via(path, "https://download.pytorch.org/whl/", data, len,
					       proj_sink, out, &st, &err);
	if (rc == 1)
		return 1;
	wp_buf_printf(out,
		      "rc %d '%s' links %llu records %llu skipped %llu malformed %llu refused %llu\n",
		      rc, err.msg, st.links, st.records, st.skipped, st.malformed, st.refused);
	return 0;
}

static int fast = 0, declined = 0, compared = 0;

static void compare(const char *what, const char *data, size_t len)
{
	struct wp_buf a = WP_BUF_INIT, b = WP_BUF_INIT;
	for (int how = 0; how < 3; how++) {
		run(WP_HTML_LIBXML, how, data, len, &a);
		if (run(WP_HTML_FAST, how, data, len, &b) == 1) {
			declined++;
			continue;
		}
		fast++;
		if (strcmp(wp_buf_cstr(&a), wp_buf_cstr(&b)) != 0) {
			print_message("%s (reader %d): libxml2 and the fast path differ\n--- libxml2:\n%.3000s\n--- fast:\n%.3000s\n",
				      what, how, wp_buf_cstr(&a), wp_buf_cstr(&b));
			fail();
		}
		compared++;
	}
	wp_buf_free(&a);
	wp_buf_free(&b);
}

/* the page whole, cut at a few places, and with a few bytes changed */
static void variants(const char *what, const char *data, size_t len)
{
	compare(what, data, len);
	char *copy = wp_xmalloc(len + 1);
	for (int k = 1; k < 8; k++) {
		size_t cut = len * (size_t)k / 8;
		compare(what, data, cut);
		memcpy(copy, data, len);
		static const char swaps[] = { '"', '<', '>', '/', ' ', '=', '\'' };
		copy[cut] = swaps[k % sizeof(swaps)];
		compare(what, copy, len);
	}
	free(copy);
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = wp_xasprintf("%s/%s", dir, e->d_name);
		struct stat sb;
		size_t n = strlen(e->d_name);
		if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			walk(p);
		} else if (n > 5 && !strcmp(e->d_name + n - 5, ".html")) {
			struct wp_buf b = WP_BUF_INIT;
			struct wp_err err = WP_ERR_INIT;
			assert_int_equal(wp_file_read_capped(p, 64 << 20, &b, &err), 0);
			variants(p, wp_buf_cstr(&b), b.len);
			wp_buf_free(&b);
		}
		free(p);
	}
	closedir(d);
}

static void test_fixture_pages_agree(void **state)
{
	walk("tests/fixtures");
	print_message("%d readings compared on the fast path, %d declined to libxml2\n", compared,
		      declined);
	assert_true(compared > 100);
	assert_true(declined > 10);
}

/* Small hand-made pages around the grammar's edges. */
static void test_edges_agree(void **state)
{
	static const char *const pages[] = {
		"<a href=\"x-1.0-py3-none-any.whl\">x</a>",
		"<a href='x-1.0-py3-none-any.whl'>x</a>",
		"<A HREF=\"x-1.0-py3-none-any.whl\">x</A><BR>",
		"<a href=\"x-1.0-py3-none-any.whl\" data-yanked>x</a>",
		"<a href=\"x-1.0-py3-none-any.whl\" data-yanked=\"\" data-requires-python=\">=3.8\">x</a>",
		"<a href=\"x-1.0-py3-none-any.whl\" href=\"y-1.0-py3-none-any.whl\">x</a>",
		"<a href=\"x-1.0-py3-none-any.whl#sha256=ABCDEF\">x</a>",
		"<a href=\"x-1.0-py3-none-any.whl\" data-core-metadata=\"sha256=00\">x</a>",
		"<a href=\"x-1.0-py3-none-any.whl\"/>",
		"<a href=\"x-1.0-py3-none-any.whl\">x",
		"<a href=\"x-1.0-py3-none-any.whl\">x<br></a>",
		"<a href=x-1.0-py3-none-any.whl>x</a>",
		"<a href=\"x-1.0-py3-none-any.whl\"data-x=\"1\">x</a>",
		"<a name=\"top\"></a><a href=\"x-1.0-py3-none-any.whl\">x</a>",
		"<html><head><base href=\"https://files.example.org/sub/\"><title>t</title>"
		"<meta name=\"pypi:repository-version\" content=\"1.1\"></head><body><h1>Links for x</h1>"
		"<a href=\"x-1.0-py3-none-any.whl\">x</a></body></html>",
		"<meta name=\"pypi:repository-version\" content=\"2.0\"><a href=\"x-1.0-py3-none-any.whl\">x</a>",
		"<html><body><h1>Links for x</h1></body></html>",
		"<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>",
		"<!DOCTYPE html><!-- a comment --><a href=\"x-1.0-py3-none-any.whl\">x</a>",
		"<!-- never closed <a href=\"x-1.0-py3-none-any.whl\">x</a>",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a></h1>",
		"<a href=\"file:///etc/x-1.0-py3-none-any.whl\">x</a><a href=\"http://h/x-1.0.tar.gz\">y</a>",
		"<a href=\"torch/\">torch</a><a href=\"torchvision/\"></a><a href=\"bad name/\">bad name</a>",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a>&amp;",
		"<p><a href=\"x-1.0-py3-none-any.whl\">x</a></p>",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a></a>",
		"text before <a href=\"x-1.0-py3-none-any.whl\">x</a>",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a><",
		/* found by the fuzzer: libxml2 drops the control character from the project's
		 * name */
		"<a href=\"nvidia-cudnn-cu12/\">nvidia-cudnn-cu\x10"
		"2</a><a href=\"x/\">x\x7f</a>",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a>\r\n<a href=\"y-1.0-py3-none-any.whl\">y\r</a>",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(pages); i++)
		compare(pages[i], pages[i], strlen(pages[i]));
}

static void test_real_pages_take_the_fast_path(void **state)
{
	static const char *const real[] = { "pytorch_index/torch_stable_2021-03-12.html",
					    "pytorch_index/whl_simple_2023-10-13/torch/index.html",
					    "pytorch_index/whl_simple_2023-10-13/index.html" };
	struct wp_buf out = WP_BUF_INIT;
	for (size_t i = 0; i < WP_ARRAY_LEN(real); i++) {
		size_t len;
		char *page = fixture_read(real[i], &len);
		assert_int_equal(run(WP_HTML_FAST, i == 2 ? 2 : 0, page, len, &out), 0);
		assert_non_null(strstr(wp_buf_cstr(&out), "rc 0 ''"));
		free(page);
	}
	wp_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_pages_agree),
		cmocka_unit_test(test_edges_agree),
		cmocka_unit_test(test_real_pages_take_the_fast_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
