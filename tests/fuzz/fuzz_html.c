/* tests/fuzz/fuzz_html.c: libFuzzer target for HTML index pages: find-links, PEP 503 project and
 * root pages, read whole and in pieces (as from a file) cut where the input says. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "base/url.h"
#include "base/buf.h"
#include "index/html.h"
#include "index/htmlpath.h"
#include "index/record.h"

static int record_sink(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	FZ_CHECK(rec->filename && rec->url);
	/* every page here is https: no link off it goes to a local file or to plain http, and no
	 * file name holds a separator */
	FZ_CHECK(wp_url_kind_of(rec->url) == WP_URL_HTTPS);
	FZ_CHECK(wp_url_filename_ok(rec->filename));
	size_t n = fz_touch(rec->filename) + fz_touch(rec->url) + fz_touch(rec->dir) +
		   fz_touch(rec->project);
	n += fz_touch(rec->sha256) + fz_touch(rec->md5) + fz_touch(rec->requires_python);
	n += fz_touch(rec->yanked) + fz_touch(rec->core_metadata);
	if (rec->sha256)
		FZ_CHECK(strlen(rec->sha256) == 64);
	if (rec->md5)
		FZ_CHECK(strlen(rec->md5) == 32);
	*(size_t *)ctx += n;
	return 0;
}

static int project_sink(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	FZ_CHECK(name && url);
	*(size_t *)ctx += fz_touch(name) + fz_touch(url);
	return 0;
}

static const char *s_or(const char *s)
{
	return s ? s : "-";
}

static int text_sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	wp_buf_printf(ctx, "%d|%s|%s|%s|%s|%s|%s|%s|%s|%s\n", (int)r->kind, s_or(r->filename),
		      s_or(r->url), s_or(r->dir), s_or(r->project), s_or(r->sha256), s_or(r->md5),
		      s_or(r->requires_python), s_or(r->yanked), s_or(r->core_metadata));
	return 0;
}

static int text_project_sink(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	wp_buf_printf(ctx, "%s|%s\n", name, url);
	return 0;
}

/* One reading as text; first/piece 0: the page whole, else in pieces as from a file. */
static int reading(enum wp_html_path path, const char *page, size_t size, bool roots,
		   size_t first, size_t piece, struct wp_buf *out)
{
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc;
	memset(&st, 0, sizeof(st));
	if (roots)
		rc = wp_read_html_projects_pieces(path, "https://download.pytorch.org/whl/", page,
						  size, first, piece, text_project_sink, out, &st,
						  &err);
	else
		rc = wp_read_html_links_pieces(path, "https://pypi.example.org/simple/torch/",
					       "torch", page, size, first, piece, text_sink, out,
					       &st, &err);
	wp_buf_printf(out, "%d %s %llu %llu %llu %llu %llu", rc, err.msg, st.links, st.records,
		      st.skipped, st.malformed, st.refused);
	return rc;
}

/* The fast scanner, where it reads a page at all, must read it exactly as libxml2 does; and
 * each path must read the page in pieces (cut where the input's own bytes say: the first piece
 * anywhere, then pieces of 1 to 64 bytes) exactly as whole. */
static void differential(const char *page, size_t size, bool roots)
{
	struct wp_buf out[4] = { WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT };
	uint64_t h = 14695981039346656037ull; /* FNV-1a of the input picks the cuts */
	for (size_t i = 0; i < size; i++)
		h = (h ^ (unsigned char)page[i]) * 1099511628211ull;
	size_t first = size ? 1 + (size_t)(h % size) : 1, piece = 1 + (size_t)((h >> 32) % 64);
	int rc[4];
	for (int i = 0; i < 4; i++)
		rc[i] = reading(i & 1 ? WP_HTML_FAST : WP_HTML_LIBXML, page, size, roots,
				i < 2 ? 0 : first, i < 2 ? 0 : piece, &out[i]);
	if (rc[1] != 1)
		FZ_CHECK(strcmp(wp_buf_cstr(&out[0]), wp_buf_cstr(&out[1])) == 0);
	FZ_CHECK(strcmp(wp_buf_cstr(&out[0]), wp_buf_cstr(&out[2])) == 0);
	FZ_CHECK(strcmp(wp_buf_cstr(&out[1]), wp_buf_cstr(&out[3])) == 0);
	for (int i = 0; i < 4; i++)
		wp_buf_free(&out[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exactly-sized copy so ASan sees a read past the end */
	char *page = wp_xmalloc(size ? size : 1);
	memcpy(page, data, size);
	size_t touched = 0;
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;

	memset(&st, 0, sizeof(st));
	if (wp_read_html_links("https://download.pytorch.org/whl/torch_stable.html", NULL, page,
			       size, record_sink, &touched, &st, &err) == 0)
		FZ_CHECK(st.links == st.records + st.skipped);

	wp_err_clear(&err);
	memset(&st, 0, sizeof(st));
	if (wp_read_html_links("https://pypi.example.org/simple/torch/", "torch", page, size,
			       record_sink, &touched, &st, &err) == 0)
		FZ_CHECK(st.links == st.records + st.skipped);

	wp_err_clear(&err);
	(void)wp_read_html_projects("https://download.pytorch.org/whl/", page, size, project_sink,
				    &touched, NULL, &err);
	differential(page, size, false);
	differential(page, size, true);
	free(page);
	return 0;
}
