/* tests/fuzz/fuzz_html.c: libFuzzer target for HTML index pages: find-links, PEP 503 project and root pages. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "base/url.h"
#include "index/html.h"
#include "index/record.h"

static int record_sink(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	FZ_CHECK(rec->filename && rec->url);
	/* every page here is https: no link off it goes to a local file or to plain http, and no
	 * file name holds a separator */
	FZ_CHECK(wp_url_kind_of(rec->url) == WP_URL_HTTPS);
	FZ_CHECK(wp_url_filename_ok(rec->filename));
	size_t n = fz_touch(rec->filename) + fz_touch(rec->url) + fz_touch(rec->dir) + fz_touch(rec->project);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exactly-sized copy so ASan sees a read past the end */
	char *page = wp_xmalloc(size ? size : 1);
	memcpy(page, data, size);
	size_t touched = 0;
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;

	memset(&st, 0, sizeof(st));
	if (wp_read_html_links("https://download.pytorch.org/whl/torch_stable.html", NULL, page, size, record_sink,
			       &touched, &st, &err) == 0)
		FZ_CHECK(st.links == st.records + st.skipped);

	wp_err_clear(&err);
	memset(&st, 0, sizeof(st));
	if (wp_read_html_links("https://pypi.example.org/simple/torch/", "torch", page, size, record_sink, &touched,
			       &st, &err) == 0)
		FZ_CHECK(st.links == st.records + st.skipped);

	wp_err_clear(&err);
	(void)wp_read_html_projects("https://download.pytorch.org/whl/", page, size, project_sink, &touched, NULL,
				    &err);
	free(page);
	return 0;
}
