/* tests/fuzz/fuzz_pep691.c: libFuzzer target for PEP 691 JSON project and root pages. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "base/url.h"
#include "index/pep691.h"
#include "index/record.h"

static int record_sink(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	FZ_CHECK(rec->filename && rec->url);
	/* every page here is https: no link off it goes to a local file or to plain http, and no
	 * file name holds a separator */
	FZ_CHECK(wp_url_kind_of(rec->url) == WP_URL_HTTPS);
	FZ_CHECK(wp_url_filename_ok(rec->filename));
	/* PEP 691 gives the name and the URL apart: the name is the URL's last segment */
	char *last = NULL;
	FZ_CHECK(wp_url_name_parts(rec->url, &last, NULL, NULL) == 0 &&
		 strcmp(last, rec->filename) == 0);
	free(last);
	size_t n = fz_touch(rec->filename) + fz_touch(rec->url) + fz_touch(rec->dir) +
		   fz_touch(rec->project);
	n += fz_touch(rec->sha256) + fz_touch(rec->md5) + fz_touch(rec->requires_python);
	n += fz_touch(rec->yanked) + fz_touch(rec->core_metadata);
	if (rec->sha256)
		FZ_CHECK(strlen(rec->sha256) == 64);
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
	char *page = wp_xmalloc(size ? size : 1);
	memcpy(page, data, size);
	size_t touched = 0;
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;

	memset(&st, 0, sizeof(st));
	if (wp_read_pep691("https://pypi.example.org/simple/demo/", NULL, page, size, record_sink,
			   &touched, &st, &err) == 0)
		FZ_CHECK(st.links == st.records + st.skipped);

	wp_err_clear(&err);
	(void)wp_read_pep691("https://pypi.example.org/simple/demo/", "demo", page, size,
			     record_sink, &touched, NULL, &err);

	wp_err_clear(&err);
	(void)wp_read_pep691_projects("https://pypi.example.org/simple/", page, size, project_sink,
				      &touched, NULL, &err);
	free(page);
	return 0;
}
