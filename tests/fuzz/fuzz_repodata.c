/* tests/fuzz/fuzz_repodata.c: libFuzzer target for conda repodata.json in memory (plain or
 * compressed). */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "index/record.h"
#include "index/repodata.h"

static int record_sink(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	FZ_CHECK(rec->kind == WP_KIND_CONDA);
	FZ_CHECK(rec->filename && rec->url);
	size_t n = fz_touch(rec->filename) + fz_touch(rec->url) + fz_touch(rec->dir) +
		   fz_touch(rec->project);
	n += fz_touch(rec->sha256) + fz_touch(rec->md5) + fz_touch(rec->version) +
	     fz_touch(rec->build);
	n += fz_touch(rec->subdir) + fz_touch(rec->depends) + fz_touch(rec->constrains);
	n += fz_touch(rec->track_features) + fz_touch(rec->noarch) + fz_touch(rec->license);
	if (rec->sha256)
		FZ_CHECK(strlen(rec->sha256) == 64);
	if (rec->md5)
		FZ_CHECK(strlen(rec->md5) == 32);
	*(size_t *)ctx += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = wp_xmalloc(size ? size : 1);
	memcpy(doc, data, size);
	size_t touched = 0;
	struct wp_index_stats st;
	memset(&st, 0, sizeof(st));
	struct wp_err err = WP_ERR_INIT;
	(void)wp_read_repodata_mem(doc, size, "https://conda.anaconda.org/pytorch/linux-64",
				   record_sink, &touched, &st, &err);
	free(doc);
	return 0;
}
