/* tests/fuzz/fuzz_conda.c: libFuzzer target for conda package verification (.conda or .tar.bz2) via
 * a temp file. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "verify/conda.h"

/* The file is named .conda when the bytes start like a zip, else .tar.bz2. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int zip = size >= 2 && memcmp(data, "PK", 2) == 0;
	const char *path = fz_write_tmp(zip ? "demo-1.0-0.conda" : "demo-1.0-0.tar.bz2", data,
					size);
	if (!path)
		return 0;
	struct wp_err err = WP_ERR_INIT;
	char *index_json = NULL;
	if (wp_conda_verify(path, NULL, &index_json, &err) == 0) {
		FZ_CHECK(index_json != NULL);
		char *name = wp_conda_json_string(index_json, strlen(index_json), "name");
		free(name);
	}
	free(index_json);

	struct wp_conda_expect want = { "demo", "1.0", "0" };
	wp_err_clear(&err);
	(void)wp_conda_verify(path, &want, NULL, &err);

	/* the JSON helper on raw bytes */
	char *text = wp_xmalloc(size ? size : 1);
	memcpy(text, data, size);
	free(wp_conda_json_string(text, size, "version"));
	free(text);
	return 0;
}
