/* tests/fuzz/fuzz_metadata.c: libFuzzer target for core metadata (METADATA, PKG-INFO) and WHEEL
 * files. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "verify/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = wp_xmalloc(size ? size : 1);
	memcpy(text, data, size);
	struct wp_err err = WP_ERR_INIT;

	struct wp_metadata md;
	if (wp_metadata_parse(text, size, &md, &err) == 0) {
		FZ_CHECK(md.metadata_version && md.name && md.version);
		size_t n = fz_touch(md.summary) + fz_touch(md.requires_python) +
			   fz_touch(md.description);
		for (size_t i = 0; i < md.n_requires_dist; i++)
			n += fz_touch(md.requires_dist[i]);
		for (size_t i = 0; i < md.n_provides_extra; i++)
			n += fz_touch(md.provides_extra[i]);
		(void)n;
		wp_metadata_release(&md);
	}

	wp_err_clear(&err);
	struct wp_wheelfile wf;
	if (wp_wheelfile_parse(text, size, &wf, &err) == 0) {
		FZ_CHECK(wf.wheel_version && wf.n_tags >= 1);
		size_t n = fz_touch(wf.build) + fz_touch(wf.generator);
		for (size_t i = 0; i < wf.n_tags; i++)
			n += fz_touch(wf.tags[i]);
		(void)n;
		wp_wheelfile_release(&wf);
	}
	free(text);
	return 0;
}
