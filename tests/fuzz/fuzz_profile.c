/* tests/fuzz/fuzz_profile.c: libFuzzer target for target profiles (`--target FILE`, what `detect
 * --json` wrote on another machine). */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "env/profile.h"
#include "resolver/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_write_tmp("profile.json", data, size);
	if (!path)
		return 0;
	struct wp_target t;
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_target_load_profile(path, &t, &err);
	/* every failure is the user's file: a usage error that names it */
	if (rc) {
		FZ_CHECK(rc == -WPE_USAGE);
		FZ_CHECK(strstr(err.msg, "profile.json") != NULL);
	} else {
		FZ_CHECK(t.py_major >= 0 && t.n_gpus >= 0);
	}
	return 0;
}
