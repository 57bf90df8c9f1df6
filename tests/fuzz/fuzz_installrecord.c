/* tests/fuzz/fuzz_installrecord.c: libFuzzer target for an installed RECORD as uninstall reads it
 * (its paths) and the lexical path resolution that keeps removals inside the environment. */
#include "tests/fuzz/fuzz.h"

#include "base/vec.h"
#include "ops/install/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_strlist paths = { 0 };
	wp_inst_record_paths((const char *)data, size, &paths);
	for (size_t i = 0; i < paths.n; i++) {
		FZ_CHECK(paths.v[i][0] != 0);
		char *joined = paths.v[i][0] == '/' ? wp_xstrdup(paths.v[i]) :
						      wp_xasprintf("/env/lib/%s", paths.v[i]);
		char *abs = wp_inst_lexical(joined);
		/* what comes out is plain: rooted, no empty, '.' or '..' segment left */
		FZ_CHECK(abs[0] == '/');
		FZ_CHECK(!strstr(abs, "//") && !strstr(abs, "/./") && !strstr(abs, "/../"));
		size_t n = strlen(abs);
		FZ_CHECK(!(n >= 3 && !strcmp(abs + n - 3, "/..")) &&
			 !(n >= 2 && !strcmp(abs + n - 2, "/.")));
		free(abs);
		free(joined);
		free((char *)paths.v[i]);
	}
	wp_strlist_release(&paths);
	return 0;
}
