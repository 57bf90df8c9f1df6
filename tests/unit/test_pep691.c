/* tests/unit/test_pep691.c: PEP 691 JSON project and root pages, and JSON that must be refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "index/pep691.h"

struct rec {
	enum wp_file_kind kind;
	char *filename, *url, *dir, *project, *sha256, *md5, *requires_python, *yanked, *core;
	long long size;
};

struct got {
	struct rec v[32];
	size_t n;
};

static char *dup_or_null(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static int collect(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	struct got *g = ctx;
	if (g->n < 32)
		g->v[g->n] = (struct rec){
			r->kind,
			dup_or_null(r->filename),
			dup_or_null(r->url),
			dup_or_null(r->dir),
			dup_or_null(r->project),
			dup_or_null(r->sha256),
			dup_or_null(r->md5),
			dup_or_null(r->requires_python),
			dup_or_null(r->yanked),
			dup_or_null(r->core_metadata),
			r->size,
		};
	g->n++;
	return 0;
}

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n && i < 32; i++) {
		struct rec *r = &g->v[i];
		free(r->filename), free(r->url), free(r->dir), free(r->project), free(r->sha256);
		free(r->md5), free(r->requires_python), free(r->yanked), free(r->core);
	}
	g->n = 0;
}

static char *fixture(const char *name, size_t *len)
{
	char *path = wp_xasprintf("tests/fixtures/index/%s", name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("fixture '%s' is missing (run from the repository root)", path);
	struct wp_buf b = WP_BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		wp_buf_add(&b, chunk, n);
	fclose(f);
	free(path);
	return wp_buf_detach(&b, len);
}

static const struct rec *find(const struct got *g, const char *filename)
{
	for (size_t i = 0; i < g->n && i < 32; i++)
		if (!strcmp(g->v[i].filename, filename))
			return &g->v[i];
	fail_msg("no record for '%s'", filename);
	return NULL;
}

static void test_project_page(void **state)
{
	size_t len;
	char *page = fixture("pep691_demo.json", &len);
	struct got g = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_read_pep691("https://pypi.example.org/simple/demo/", NULL, page, len, collect,
				&g, &st, &err);
	if (rc)
		fail_msg("%s", err.msg);
	assert_int_equal(st.links, 10);
	assert_int_equal(st.records, 4);
	assert_int_equal(st.skipped, 6);
	assert_int_equal(st.malformed, 5);

	const struct rec *r = find(&g, "demo-1.0.tar.gz");
	assert_int_equal(r->kind, WP_KIND_SDIST);
	assert_string_equal(r->url, "https://pypi.example.org/packages/demo-1.0.tar.gz");
	assert_string_equal(r->sha256,
			    "0000000000000000000000000000000000000000000000000000000000000001");
	assert_string_equal(r->project, "demo"); /* the page's name, though it came after the files
						  */
	assert_int_equal(r->size, 1234);
	assert_null(r->yanked);
	assert_null(r->requires_python);
	assert_null(r->core);

	r = find(&g, "demo-1.1+cu118-py3-none-any.whl");
	assert_string_equal(r->url,
			    "https://files.example.org/cu118/demo-1.1%2Bcu118-py3-none-any.whl");
	assert_string_equal(r->dir, "cu118");
	assert_string_equal(r->md5, "0123456789abcdef0123456789abcdef");
	assert_null(r->sha256);
	assert_string_equal(r->requires_python, ">=3.8,<4");
	assert_string_equal(r->yanked, "broken \"ABI\"");
	assert_string_equal(r->core,
			    "sha256=00000000000000000000000000000000000000000000000000000000000000cd");
	assert_int_equal(r->size, -1);

	r = find(&g, "demo-1.2-py3-none-any.whl");
	assert_string_equal(r->yanked, "");
	assert_string_equal(r->url, "https://pypi.example.org/packages/demo-1.2-py3-none-any.whl");
	assert_string_equal(r->sha256,
			    "00000000000000000000000000000000000000000000000000000000000000ef");
	assert_string_equal(r->core,
			    "sha256=00000000000000000000000000000000000000000000000000000000000000ab");

	r = find(&g, "demo-1.3-py3-none-any.whl");
	assert_null(r->core); /* PEP 714: core-metadata, present, wins over the older names */
	got_free(&g);

	/* with no "name" in the page, the caller's project is used */
	const char *nameless =
		"{\"meta\":{\"api-version\":\"1.0\"},\"files\":[{\"filename\":\"x-1.whl\",\"url\":\"x-1.whl\",\"hashes\":{}}]}";
	assert_int_equal(wp_read_pep691("https://h/simple/x/", "x", nameless, strlen(nameless),
					collect, &g, NULL, &err),
			 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].project, "x");
	assert_string_equal(g.v[0].url, "https://h/simple/x/x-1.whl");
	got_free(&g);
	free(page);
}

struct names {
	size_t n;
	char *name[8], *url[8];
};

static int names_sink(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	struct names *ns = ctx;
	if (ns->n < 8) {
		ns->name[ns->n] = wp_xstrdup(name);
		ns->url[ns->n] = wp_xstrdup(url);
	}
	ns->n++;
	return 0;
}

static void test_root_page(void **state)
{
	size_t len;
	char *page = fixture("pep691_root.json", &len);
	struct names ns = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_read_pep691_projects("https://pypi.example.org/simple/", page, len, names_sink,
					 &ns, &st, &err);
	if (rc)
		fail_msg("%s", err.msg);
	assert_int_equal(ns.n, 3);
	assert_int_equal(st.links, 7);
	assert_int_equal(st.malformed, 4);
	assert_string_equal(ns.name[0], "torch");
	assert_string_equal(ns.url[0], "https://pypi.example.org/simple/torch/");
	assert_string_equal(ns.name[1], "Jinja2");
	assert_string_equal(ns.url[1], "https://pypi.example.org/simple/jinja2/");
	assert_string_equal(ns.url[2], "https://pypi.example.org/simple/nvidia-cudnn-cu12/");
	for (size_t i = 0; i < 3; i++)
		free(ns.name[i]), free(ns.url[i]);
	free(page);
}

static void expect_refused(const char *what, const char *data, size_t len, int code,
			   const char *in_msg)
{
	struct got g = { 0 };
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_read_pep691("https://h/simple/demo/", "demo", data, len, collect, &g, NULL,
				&err);
	if (rc != code)
		fail_msg("%s: got %d (%s), want %d", what, rc, err.msg, code);
	if (!strstr(err.msg, in_msg))
		fail_msg("%s: message '%s' lacks '%s'", what, err.msg, in_msg);
	/* a refused page sends nothing to the sink */
	assert_int_equal(g.n, 0);
}

#define REFUSE(what, s, code, msg) expect_refused(what, s, strlen(s), code, msg)

static void test_refused(void **state)
{
	size_t len;
	char *v2 = fixture("pep691_v2.json", &len);
	expect_refused("api 2.0", v2, len, -WPE_SOURCE, "API version '2.0'");
	free(v2);
	REFUSE("no meta", "{\"name\":\"demo\",\"files\":[]}", -WPE_SOURCE, "no meta.api-version");
	REFUSE("error JSON", "{\"message\":\"Not Found\"}", -WPE_SOURCE, "no meta.api-version");
	REFUSE("array", "[1,2,3]", -WPE_SOURCE, "not a JSON object");
	REFUSE("HTML", "<!DOCTYPE html><html></html>", -WPE_SOURCE, "'https://h/simple/demo/'");
	REFUSE("empty", "", -WPE_SOURCE, "not a PEP 691 page");
	REFUSE("truncated",
	       "{\"meta\":{\"api-version\":\"1.0\"},\"files\":[{\"filename\":\"a-1.whl\",\"url\":\"a-1.whl\"},{\"filen",
	       -WPE_SOURCE, "not a PEP 691 page");
	REFUSE("trailing junk", "{\"meta\":{\"api-version\":\"1.0\"},\"files\":[]} {}", -WPE_SOURCE,
	       "not a PEP 691");
	REFUSE("bad utf-8", "{\"meta\":{\"api-version\":\"1.0\"},\"name\":\"\xff\xfe\"}",
	       -WPE_SOURCE, "not a PEP 691");
	REFUSE("api not a string", "{\"meta\":{\"api-version\":1},\"files\":[]}", -WPE_SOURCE,
	       "api-version");
	expect_refused("NUL", "{\"meta\"\0:{}}", 12, -WPE_SOURCE, "not a PEP 691");

	/* 100,000 levels: refused at the depth cap, at once, without recursion */
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, "{\"meta\":{\"api-version\":\"1.0\"},\"files\":");
	for (int i = 0; i < 100000; i++)
		wp_buf_addch(&b, '[');
	clock_t t0 = clock();
	expect_refused("deep", b.data, b.len, -WPE_SOURCE, "nested too deep");
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
	wp_buf_free(&b);
	for (int i = 0; i < 100000; i++)
		wp_buf_addstr(&b, "{\"a\":");
	expect_refused("deep maps", b.data, b.len, -WPE_SOURCE, "nested too deep");
	wp_buf_free(&b);

	struct got g = { 0 };
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_read_pep691("simple/demo/", NULL, "{}", 2, collect, &g, NULL, &err),
			 -WPE_USAGE);
	wp_err_clear(&err);
	assert_int_equal(wp_read_pep691("https://h/", NULL, "{}", WP_PEP691_MAX_BYTES + 1, collect,
					&g, NULL, &err),
			 -WPE_TOO_BIG);
}

static int stop_sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	return wp_fail(err, -WPE_CATALOG, "stop at '%s'", r->filename);
}

static void test_sink_stops(void **state)
{
	const char *
		page = "{\"meta\":{\"api-version\":\"1.0\"},\"files\":[{\"filename\":\"a-1.whl\",\"url\":\"a-1.whl\"},"
		       "{\"filename\":\"b-1.whl\",\"url\":\"b-1.whl\"}]}";
	struct wp_err err = WP_ERR_INIT;
	struct wp_index_stats st;
	assert_int_equal(wp_read_pep691("https://h/s/", NULL, page, strlen(page), stop_sink, NULL,
					&st, &err),
			 -WPE_CATALOG);
	assert_string_equal(err.msg, "stop at 'a-1.whl'");
	assert_int_equal(st.records, 0);
}

static int count(void *ctx, const struct wp_file_record *r, struct wp_err *e)
{
	(*(size_t *)ctx)++;
	return r->sha256 && r->size >= 0 ? 0 :
					   wp_fail(e, -WPE_PARSE, "record lost its hash or size");
}

static void test_many_files(void **state)
{
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, "{\"meta\":{\"api-version\":\"1.1\"},\"name\":\"t\",\"files\":[");
	for (int i = 0; i < 200000; i++)
		wp_buf_printf(&b,
			      "%s{\"filename\":\"t-%d-py3-none-any.whl\",\"url\":\"t-%d-py3-none-any.whl\",\"hashes\":{\"sha256\":\"%064d\"},\"size\":%d}",
			      i ? "," : "", i, i, i, i);
	wp_buf_addstr(&b, "]}");
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;

	size_t n = 0;
	assert_int_equal(wp_read_pep691("https://h/s/t/", NULL, b.data, b.len, count, &n, &st,
					&err),
			 0);
	assert_int_equal(n, 200000);
	assert_int_equal(st.records, 200000);
	wp_buf_free(&b);
}


/* A page as a file (one past memory's share in a crawl): the same records as from memory, the
 * caller's ceiling instead of WP_PEP691_MAX_BYTES, and a bounded token. */
static int temp_of(const char *data, size_t len)
{
	char path[] = "/tmp/test_pep691.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	return fd;
}

static void test_from_file(void **state)
{
	size_t len;
	char *page = fixture("pep691_demo.json", &len);
	struct got mem = { 0 }, file = { 0 };
	struct wp_index_stats sm, sf;
	struct wp_err err = WP_ERR_INIT;
	int fd = temp_of(page, len);
	const char *url = "https://pypi.example.org/simple/demo/";
	assert_int_equal(wp_read_pep691(url, NULL, page, len, collect, &mem, &sm, &err), 0);
	assert_int_equal(wp_read_pep691_fd(url, NULL, fd, len, NULL, 0, collect, &file, &sf, &err),
			 0);
	assert_true(mem.n > 0);
	assert_int_equal(file.n, mem.n);
	assert_int_equal(sf.records, sm.records);
	assert_int_equal(sf.malformed, sm.malformed);
	for (size_t i = 0; i < mem.n && i < 32; i++) {
		assert_string_equal(file.v[i].filename, mem.v[i].filename);
		assert_string_equal(file.v[i].url, mem.v[i].url);
		assert_true((!file.v[i].sha256 && !mem.v[i].sha256) ||
			    !strcmp(file.v[i].sha256, mem.v[i].sha256));
	}
	got_free(&mem);
	got_free(&file);
	/* one byte over the caller's ceiling: refused, nothing sent */
	assert_int_equal(wp_read_pep691_fd(url, NULL, fd, len - 1, NULL, 0, collect, &file, NULL,
					   &err),
			 -WPE_TOO_BIG);
	assert_int_equal(file.n, 0);
	close(fd);
	free(page);

	/* a string longer than 16 MiB is refused before it is held whole */
	size_t big = ((size_t)16 << 20) + 100;
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, "{\"meta\": {\"api-version\": \"1.1\"}, \"files\": [], \"x\": \"");
	char *pad = wp_xmalloc(big);
	memset(pad, 'a', big);
	wp_buf_add(&b, pad, big);
	wp_buf_addstr(&b, "\"}");
	fd = temp_of(b.data, b.len);
	struct wp_err e2 = WP_ERR_INIT;
	assert_int_equal(wp_read_pep691_fd(url, NULL, fd, (size_t)1 << 30, NULL, 0, collect, &file,
					   NULL, &e2),
			 -WPE_TOO_BIG);
	assert_non_null(strstr(e2.msg, url));
	close(fd);
	free(pad);
	wp_buf_free(&b);

	/* a root from a file */
	page = fixture("pep691_root.json", &len);
	fd = temp_of(page, len);
	struct names ns = { 0 };
	assert_int_equal(wp_read_pep691_projects_fd("https://pypi.example.org/simple/", fd, len,
						    NULL, 0, names_sink, &ns, NULL, &err),
			 0);
	assert_int_equal(ns.n, 3);
	assert_string_equal(ns.url[1], "https://pypi.example.org/simple/jinja2/");
	for (size_t i = 0; i < 3; i++)
		free(ns.name[i]), free(ns.url[i]);
	close(fd);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_project_page),
		cmocka_unit_test(test_root_page),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_sink_stops),
		cmocka_unit_test(test_many_files),
		cmocka_unit_test(test_from_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
