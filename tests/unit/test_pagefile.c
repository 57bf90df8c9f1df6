/* tests/unit/test_pagefile.c: ops/core/pagefile.c, the page in memory or in a file: a page up to
 * memory's share is read whole and closed, a larger one kept open and read by the readers in
 * pieces with the same records, one past the ceiling refused; the JSON root test and the lead
 * byte read the same from either. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "ops/core/pagefile.h"

static const char PAGE[] =
	"  <!DOCTYPE html><html><body>\n"
	"<a href=\"../../f/demo-1.0-py3-none-any.whl#sha256="
	"0000000000000000000000000000000000000000000000000000000000000001\">"
	"demo-1.0-py3-none-any.whl</a>\n"
	"<a href=\"../../f/demo-1.1.tar.gz\">demo-1.1.tar.gz</a>\n"
	"</body></html>\n";

static const char ROOT_JSON[] = "\n {\"meta\": {\"api-version\": \"1.1\"}, "
				"\"projects\": [{\"name\": \"demo\"}, {\"name\": \"other\"}]}";

static char *write_tmp(const char *data, size_t len)
{
	char *path = strdup("/tmp/wp-pagefile-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

static int rec_sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	wp_buf_printf(ctx, "%s|%s|%s\n", r->filename, r->url, r->sha256 ? r->sha256 : "-");
	return 0;
}

static int proj_sink(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	wp_buf_printf(ctx, "%s|%s\n", name, url);
	return 0;
}

/* The records of the page at path, loaded with memory's share in_memory; *in_file says which. */
static void links_of(const char *path, size_t in_memory, struct wp_buf *out, bool *in_file)
{
	struct wp_page pg = WP_PAGE_INIT;
	struct wp_err err = WP_ERR_INIT;
	struct wp_index_stats st = { 0 };
	assert_int_equal(wp_page_load(&pg, path, "demo page", 1 << 20, in_memory, &err), 0);
	*in_file = pg.fd >= 0;
	assert_true(*in_file ? pg.body.len == 0 : pg.body.len == sizeof(PAGE) - 1);
	assert_int_equal(wp_page_lead(&pg), '<');
	assert_int_equal(wp_page_read_links(&pg, false, "https://example.org/simple/demo/", "demo",
					    rec_sink, out, &st, &err),
			 0);
	assert_int_equal(st.records, 2);
	wp_page_release(&pg);
	assert_int_equal(pg.fd, -1);
}

static void test_memory_or_file(void **state)
{
	char *path = write_tmp(PAGE, sizeof(PAGE) - 1);
	struct wp_buf whole = WP_BUF_INIT, pieces = WP_BUF_INIT;
	bool in_file;
	links_of(path, 8 << 20, &whole, &in_file);
	assert_false(in_file);
	links_of(path, 16, &pieces, &in_file);
	assert_true(in_file);
	assert_string_equal(wp_buf_cstr(&whole), wp_buf_cstr(&pieces));
	assert_non_null(strstr(wp_buf_cstr(&whole), "https://example.org/f/demo-1.1.tar.gz"));

	/* past the ceiling: refused, naming the page, nothing left open */
	struct wp_page pg = WP_PAGE_INIT;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_page_load(&pg, path, "demo page", 64, 16, &err), -WPE_TOO_BIG);
	assert_non_null(strstr(err.msg, "'demo page'"));
	assert_int_equal(pg.fd, -1);
	assert_null(pg.body.data);
	wp_err_clear(&err);
	assert_int_equal(wp_page_load(&pg, "/nonexistent/wp-page", "gone", 64, 16, &err), -WPE_IO);
	assert_non_null(strstr(err.msg, "'gone'"));
	unlink(path);
	free(path);
	wp_buf_free(&whole);
	wp_buf_free(&pieces);
}

static void test_json_root(void **state)
{
	char *path = write_tmp(ROOT_JSON, sizeof(ROOT_JSON) - 1);
	struct wp_buf whole = WP_BUF_INIT, pieces = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	for (int k = 0; k < 2; k++) {
		struct wp_page pg = WP_PAGE_INIT;
		struct wp_index_stats st = { 0 };
		assert_int_equal(wp_page_load(&pg, path, "root", 1 << 20, k ? 8 : 1 << 20, &err),
				 0);
		assert_int_equal(pg.fd >= 0, k);
		assert_int_equal(wp_page_lead(&pg), '{');
		if (k) {
			bool root = false;
			assert_int_equal(wp_page_json_is_root(pg.fd, &root, "root", &err), 0);
			assert_true(root);
		}
		assert_int_equal(wp_page_read_projects(&pg, true, "https://example.org/simple/",
						       proj_sink, k ? &pieces : &whole, &st, &err),
				 0);
		assert_int_equal(st.records, 2);
		wp_page_release(&pg);
	}
	assert_string_equal(wp_buf_cstr(&whole), wp_buf_cstr(&pieces));
	assert_non_null(strstr(wp_buf_cstr(&whole), "demo|https://example.org/simple/demo/"));
	unlink(path);
	free(path);
	wp_buf_free(&whole);
	wp_buf_free(&pieces);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_or_file),
		cmocka_unit_test(test_json_root),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
