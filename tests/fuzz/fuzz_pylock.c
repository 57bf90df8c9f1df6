/* tests/fuzz/fuzz_pylock.c: libFuzzer target for index/pylock: a lock read, then selected from for
 * a Linux CPython 3.12 target with an extra and a dependency group. */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

#include "base/err.h"
#include "index/pylock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_pylock lk;
	if (wp_pylock_parse(&lk, (const char *)data, size, "fuzz.toml", &err) < 0) {
		FZ_CHECK(err.msg[0] != 0);
		return 0;
	}
	FZ_CHECK(lk.lock_version && lk.created_by);
	for (size_t i = 0; i < lk.npackages; i++) {
		const struct wp_pylock_package *p = &lk.packages[i];
		size_t direct = (p->vcs != NULL) + (p->directory != NULL) + (p->archive != NULL);
		FZ_CHECK(p->name && (direct == 1) != (p->nwheels || p->sdist));
		for (size_t k = 0; k < p->nwheels; k++)
			FZ_CHECK(p->wheels[k].name && p->wheels[k].nhashes > 0);
	}
	static const char *const tags[] = { "cp312-cp312-manylinux_2_17_x86_64",
					    "cp312-abi3-manylinux_2_17_x86_64",
					    "py3-none-manylinux_2_17_x86_64", "py3-none-any" };
	static const char *const extras[] = { "test" }, *const groups[] = { "dev" };
	struct wp_marker_env env;
	wp_marker_env_init(&env);
	wp_marker_env_set(&env, "python_full_version", "3.12.0", NULL);
	wp_marker_env_set(&env, "python_version", "3.12", NULL);
	wp_marker_env_set(&env, "sys_platform", "linux", NULL);
	wp_marker_env_set(&env, "platform_machine", "x86_64", NULL);
	struct wp_pylock_want w = { &env, NULL, tags, 4, extras, 1, groups, 1 };
	struct wp_pylock_pick *picks;
	size_t n;
	wp_err_clear(&err);
	if (wp_pylock_select(&lk, &w, &picks, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++)
			FZ_CHECK(picks[i].pkg &&
				 (picks[i].file != NULL) == (picks[i].source == WP_PYLOCK_WHEEL ||
							     picks[i].source == WP_PYLOCK_SDIST ||
							     picks[i].source == WP_PYLOCK_ARCHIVE));
		free(picks);
	} else {
		FZ_CHECK(err.msg[0] != 0);
	}
	wp_pylock_release(&lk);
	return 0;
}
