/* tests/unit/test_htmlpieces.c: an HTML page read in pieces (as from a file: a fetched page past
 * memory's share, a local file:// page) gives exactly the records, stats and errors it gives
 * read whole, wherever the pieces are cut: inside an anchor, an attribute, an entity, a
 * comment; on both readers (the fast scanner and libxml2's parser fed through its I/O
 * callback), for every HTML page in tests/fixtures and for hand-made ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/mem.h"
#include "index/html.h"
#include "index/htmlpath.h"

static const char *s_or(const char *s)
{
	return s ? s : "(null)";
}

static int rec_sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	wp_buf_printf(ctx, "%d|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%lld\n", (int)r->kind,
		      s_or(r->filename), s_or(r->url), s_or(r->dir), s_or(r->project),
		      s_or(r->sha256), s_or(r->md5), s_or(r->requires_python), s_or(r->yanked),
		      s_or(r->core_metadata), s_or(r->provenance), r->size);
	return 0;
}

static int proj_sink(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	wp_buf_printf(ctx, "%s|%s\n", name, url);
	return 0;
}

#define WHOLE ((size_t)-1)

/* What one reading made of a page: records, stats, code and message, as text. how: the
 * reader (0 find-links, 1 PEP 503 project page, 2 root page); first == WHOLE: in memory whole,
 * else in pieces (first, then piece bytes each). */
static int run(enum wp_html_path path, int how, const char *data, size_t len, size_t first,
	       size_t piece, struct wp_buf *out)
{
	static const char *const urls[] = { "https://download.pytorch.org/whl/torch_stable.html",
					    "https://pypi.example.org/simple/torch/",
					    "https://download.pytorch.org/whl/" };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc;
	wp_buf_reset(out);
	memset(&st, 0, sizeof(st));
	if (how < 2 && first == WHOLE)
		rc = wp_read_html_links_via(path, urls[how], how ? "torch" : NULL, data, len,
					    rec_sink, out, &st, &err);
	else if (how < 2)
		rc = wp_read_html_links_pieces(path, urls[how], how ? "torch" : NULL, data, len,
					       first, piece, rec_sink, out, &st, &err);
	else if (first == WHOLE)
		rc = wp_read_html_projects_via(path, urls[2], data, len, proj_sink, out, &st,
					       &err);
	else
		rc = wp_read_html_projects_pieces(path, urls[2], data, len, first, piece,
						  proj_sink, out, &st, &err);
	wp_buf_printf(out,
		      "rc %d '%s' links %llu records %llu skipped %llu malformed %llu "
		      "refused %llu\n",
		      rc, err.msg, st.links, st.records, st.skipped, st.malformed, st.refused);
	return rc;
}

static unsigned long readings;

/* The page in pieces (first, then piece each) reads as it does whole, on path. */
static void same(const char *what, enum wp_html_path path, const char *data, size_t len,
		 size_t first, size_t piece, const struct wp_buf *whole, int how)
{
	struct wp_buf b = WP_BUF_INIT;
	int rc = run(path, how, data, len, first, piece, &b);
	readings++;
	(void)rc;
	if (strcmp(wp_buf_cstr(whole), wp_buf_cstr(&b))) {
		print_message("%s (reader %d, path %d, first %zu, piece %zu): whole and in pieces "
			      "differ\n--- whole:\n%.3000s\n--- pieces:\n%.3000s\n",
			      what, how, (int)path, first, piece, wp_buf_cstr(whole),
			      wp_buf_cstr(&b));
		fail();
	}
	wp_buf_free(&b);
}

/* cuts: every offset when the page is small, else every one inside its first anchor and its
 * last one, and pieces of several sizes */
static void pieces(const char *what, const char *data, size_t len)
{
	static const enum wp_html_path paths[] = { WP_HTML_AUTO, WP_HTML_LIBXML, WP_HTML_FAST };
	struct wp_buf whole = WP_BUF_INIT;
	for (int how = 0; how < 3; how++) {
		for (size_t pi = 0; pi < WP_ARRAY_LEN(paths); pi++) {
			enum wp_html_path path = paths[pi];
			run(path, how, data, len, WHOLE, 0, &whole);
			static const size_t sizes[] = { 1, 2, 3, 7, 61, 4096, 65536 };
			if (len > 70000 && how != 0)
				continue; /* a big page: every size on one reading */
			for (size_t k = 0; k < WP_ARRAY_LEN(sizes); k++)
				if (sizes[k] < len && (sizes[k] > 7 || len <= 70000))
					same(what, path, data, len, sizes[k], sizes[k], &whole,
					     how);
			if (path == WP_HTML_LIBXML)
				continue; /* libxml2 takes what it asks for, not our cuts */
			if (len <= 4096) {
				for (size_t c = 1; c < len; c++)
					same(what, path, data, len, c, 0, &whole, how);
				continue;
			}
			if (path != WP_HTML_AUTO || how != 0)
				continue; /* a big page: cut at every offset of one reading */
			const char *a = strstr(data, "<a ");
			const char *z = a ? strstr(a, "</a>") : NULL;
			for (const char *p = a; z && p <= z + 4 && p < a + 400; p++)
				same(what, path, data, len, (size_t)(p - data), 0, &whole, how);
			for (size_t c = len - 64; c < len; c++)
				same(what, path, data, len, c, 0, &whole, how);
		}
	}
	wp_buf_free(&whole);
}

static unsigned pages;

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
			pieces(p, wp_buf_cstr(&b), b.len);
			pages++;
			wp_buf_free(&b);
		}
		free(p);
	}
	closedir(d);
}

static void test_fixture_pages_in_pieces(void **state)
{
	walk("tests/fixtures");
	print_message("%u pages, %lu readings in pieces compared\n", pages, readings);
	assert_true(pages >= 40);
}

/* Hand-made pages: every attribute the readers take, entities, comments, a doctype, CRLF,
 * a character set, pages cut short and pages that are refused. */
static void test_edges_in_pieces(void **state)
{
	static const char *const pages_[] = {
		"<!DOCTYPE html>\r\n<html><head><meta name=\"pypi:repository-version\" content="
		"\"1.1\">"
		"<title>Links for x</title></head><body><h1>Links for x</h1>\r\n"
		"<a href=\"../../files/x-1.0-py3-none-any.whl#sha256=0123456789abcdef0123456789a"
		"bcdef0123456789abcdef0123456789abcdef\""
		" "
		"data-requires-python=\"&gt;=3.8\" data-dist-info-metadata=\"sha256=aabbccddeeff"
		"00112233445566778899aabbccddeeff00112233445566778899\""
		" "
		"data-yanked=\"bad &amp; broken\">x-1.0-py3-none-any.whl</a><br/>\r\n"
		"<a href=\"x-1.1.tar.gz#md5=0123456789abcdef0123456789abcdef\" data-core-metadat"
		"a=\"true\""
		" "
		"data-provenance=\"x-1.1.tar.gz.provenance\">x-1.1.tar.gz</a><br/>\r\n"
		"<!-- a comment -- with <a href=\"no-1.0-py3-none-any.whl\"> inside -->"
		"<a href='y-2.0-cp311-cp311-manylinux_2_17_x86_64.whl#sha256=fffffffffffffffffff"
		"fffffffffffffffffffffffffffffffffffffffffffff'"
		" data-yanked>y</a>\r\n"
		"</body></html>\r\n",
		/* the same in the fast scanner's grammar: no entity */
		"<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1"
		".1\">"
		"<title>Links for x</title></head><body><h1>Links for x</h1>\n"
		"<a href=\"../../files/x-1.0-py3-none-any.whl#sha256=0123456789abcdef0123456789a"
		"bcdef0123456789abcdef0123456789abcdef\""
		" "
		"data-requires-python=\"~=3.8\" data-dist-info-metadata=\"sha256=AABBCCDDEEFF001"
		"12233445566778899AABBCCDDEEFF00112233445566778899\""
		" "
		"data-yanked=\"bad build\">x-1.0-py3-none-any.whl</a><br/>\n"
		"<a href=\"x-1.1.tar.gz#md5=0123456789abcdef0123456789abcdef\" data-core-metadat"
		"a=\"true\""
		" "
		"data-dist-info-metadata=\"false\">x-1.1.tar.gz</a><br/>\n"
		"<!-- a comment with <a href=\"no-1.0-py3-none-any.whl\"> inside -->"
		"<A HREF='y-2.0-cp311-cp311-manylinux_2_17_x86_64.whl#sha256=fffffffffffffffffff"
		"fffffffffffffffffffffffffffffffffffffffffffff'"
		" data-yanked>y</A>\n"
		"<a name=\"top\"></a></body></html>\n",
		"<html><head><base href=\"https://files.example.org/sub/\"></head><body>"
		"<a href=\"torch/\">torch</a><a href=\"torchvision/\"></a><a href=\"bad name/\">bad"
		" name</a>"
		"<a href=\"x-1.0-py3-none-any.whl\">x</a></body></html>",
		"<meta charset=\"iso-8859-1\"><a href=\"caf\xe9-1.0-py3-none-any.whl\">caf\xe9</a>"
		"<a href=\"x-1.0-py3-none-any.whl\" data-requires-python=\"&#62;=3.9\">x&nbsp;&e"
		"acute;"
		"</a>",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a><a href=\"y-1.0-py3-none-any.whl\">y",
		"<meta name=\"pypi:repository-version\" content=\"2.0\"><a href=\"x-1.0-py3-none"
		"-any.whl\">x"
		"</a>",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a><meta name=\"pypi:repository-version\""
		" content=\"2.0\">",
		"<html><head><title>Just a moment...</title></head><body>Checking your browser</"
		"body>"
		"</html>",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a><",
		"<a href=\"x-1.0-py3-none-any.whl\">x</a><!-- never closed",
		"<a href=x-1.0-py3-none-any.whl>x</a> text <a href=\"https://x.org/y-1.0-py3-non"
		"e-any.whl\">y"
		"</a>",
		"\xef\xbb\xbf<a href=\"x-1.0-py3-none-any.whl\">x\xe2\x82</a>\xc3",
		/* 16 sequences cut short: the count is in the message */
		"<a href=\"x-1.0-py3-none-any.whl\">\xe2\x82 \xe2\x82 \xe2\x82 \xe2\x82 \xf0\x9f"
		"\x98"
		" \xe2\x82 \xe2\x82 \xe2\x82 "
		"\xe2\x82 \xe2\x82 \xe2\x82 \xe2\x82 \xe2\x82 \xe2\x82 \xe2\x82 \xe2\x82</a>",
		"<a href=\"x-1.0-py3-none-any.whl\">\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5"
		"\xf4\xf3\xf2\xf1\xf0\xef"
		"</a>",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(pages_); i++)
		pieces(pages_[i], pages_[i], strlen(pages_[i]));
	/* NUL bytes: binary, at any cut */
	static const char
		nul[] = "<a href=\"x-1.0-py3-none-any.whl\">x</a>\0<a href=\"y.whl\">y</a>";
	pieces("NUL", nul, sizeof(nul) - 1);
}

/* A page past the window: 20,000 anchors with data-* attributes, and one tag longer than the
 * 1 MiB a piece may carry (the fast scanner leaves it to libxml2: the same records). */
static void test_big_pages_in_pieces(void **state)
{
	struct wp_buf page = WP_BUF_INIT, whole = WP_BUF_INIT, b = WP_BUF_INIT;
	wp_buf_addstr(&page, "<!DOCTYPE html><html><body>\n");
	for (int i = 0; i < 20000; i++)
		wp_buf_printf(&page,
			      "<a href=\"files/p-1.%d-py3-none-any.whl#sha256=%064x\" "
			      "data-requires-python=\"&gt;=3.%d\" "
			      "data-core-metadata=\"sha256=%064x\"%s>"
			      "p-1.%d</a><br/>\n",
			      i, i, i % 13, i + 7, i % 5 ? "" : " data-yanked=\"\"", i);
	wp_buf_addstr(&page, "</body></html>\n");
	for (int fast = 0; fast < 2; fast++) {
		if (fast) /* no entity: the fast scanner's */
			for (size_t i = 0; i + 4 <= page.len; i++)
				if (!memcmp(page.data + i, "&gt;", 4))
					memcpy(page.data + i, "~=3 ", 4);
		run(WP_HTML_AUTO, 1, page.data, page.len, WHOLE, 0, &whole);
		assert_non_null(strstr(wp_buf_cstr(&whole), "records 20000 "));
		static const size_t sizes[] = { 4093, 65536, 1 << 20 };
		for (size_t k = 0; k < WP_ARRAY_LEN(sizes); k++)
			same("20,000 anchors", WP_HTML_AUTO, page.data, page.len, sizes[k],
			     sizes[k], &whole, 1);
	}
	wp_buf_reset(&page);
	wp_buf_addstr(&page, "<a href=\"x-1.0-py3-none-any.whl\" data-pad=\"");
	for (int i = 0; i < (3 << 20) / 64; i++)
		wp_buf_addstr(&page,
			      "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp");
	wp_buf_addstr(&page, "\">x</a><a href=\"y-1.0-py3-none-any.whl\">y</a>\n");
	run(WP_HTML_AUTO, 0, page.data, page.len, WHOLE, 0, &whole);
	assert_non_null(strstr(wp_buf_cstr(&whole), "records 2 "));
	assert_int_equal(run(WP_HTML_FAST, 0, page.data, page.len, 1 << 20, 1 << 20, &b), 1);
	same("a 3 MiB tag", WP_HTML_AUTO, page.data, page.len, 1 << 20, 1 << 20, &whole, 0);
	wp_buf_free(&page);
	wp_buf_free(&whole);
	wp_buf_free(&b);
}

/* From a file: the same records as from memory; a file past max_bytes is refused. */
static void test_from_a_file(void **state)
{
	struct wp_buf page = WP_BUF_INIT, whole = WP_BUF_INIT, b = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_file_read_capped("tests/fixtures/real/pytorch_index/"
					     "torch_stable_2021-03-12.html",
					     64 << 20, &page, &err),
			 0);
	char path[] = "/tmp/wp-htmlpieces-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, page.data, page.len), (ssize_t)page.len);
	struct wp_index_stats st;
	run(WP_HTML_AUTO, 0, page.data, page.len, WHOLE, 0, &whole);
	assert_int_equal(wp_read_html_links_fd("https://download.pytorch.org/whl/torch_stable.html",
					       NULL, fd, 1 << 30, NULL, 0, rec_sink, &b, &st, &err),
			 0);
	wp_buf_printf(&b,
		      "rc %d '%s' links %llu records %llu skipped %llu malformed %llu "
		      "refused %llu\n",
		      0, err.msg, st.links, st.records, st.skipped, st.malformed, st.refused);
	assert_string_equal(wp_buf_cstr(&whole), wp_buf_cstr(&b));
	assert_true(st.records > 1000);
	assert_int_equal(wp_read_html_links_fd("https://download.pytorch.org/whl/torch_stable.html",
					       NULL, fd, 4096, NULL, 0, rec_sink, &b, &st, &err),
			 -WPE_TOO_BIG);
	close(fd);
	unlink(path);
	wp_buf_free(&page);
	wp_buf_free(&whole);
	wp_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges_in_pieces),
		cmocka_unit_test(test_big_pages_in_pieces),
		cmocka_unit_test(test_from_a_file),
		cmocka_unit_test(test_fixture_pages_in_pieces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
