/* tests/unit/test_sourcekind.c: source kinds (cache/sourcekind.h) to the names the catalog stores
 * and back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cache/sourcekind.h"

/* Every kind survives the catalog's text column; the names are the ones catalogs already hold
 * (an older catalog's rows read back as the same kinds). */
static void test_names(void **state)
{
	static const struct {
		enum wp_source_kind k;
		const char *name;
	} known[] = {
		{ WP_SOURCE_FINDLINKS, "findlinks" }, { WP_SOURCE_SIMPLE, "simple" },
		{ WP_SOURCE_SIMPLE_JSON, "simple-json" }, { WP_SOURCE_ROOT, "root" },
		{ WP_SOURCE_REPODATA, "repodata" }, { WP_SOURCE_SHARD_INDEX, "shard-index" },
		{ WP_SOURCE_SHARD, "shard" },
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		assert_string_equal(wp_source_kind_name(known[i].k), known[i].name);
		assert_int_equal(wp_source_kind_of(known[i].name), known[i].k);
	}
	/* what this wheelpick does not know is no kind it knows */
	assert_int_equal(wp_source_kind_of(NULL), WP_SOURCE_UNKNOWN);
	assert_int_equal(wp_source_kind_of(""), WP_SOURCE_UNKNOWN);
	assert_int_equal(wp_source_kind_of("Simple"), WP_SOURCE_UNKNOWN);
	assert_int_equal(wp_source_kind_of("simple-json2"), WP_SOURCE_UNKNOWN);
	assert_string_equal(wp_source_kind_name(WP_SOURCE_UNKNOWN), "");
	assert_string_equal(wp_source_kind_name((enum wp_source_kind)99), "");
	/* pages have files of their own; a root and conda sources are not pages */
	assert_true(wp_source_kind_is_page(WP_SOURCE_FINDLINKS));
	assert_true(wp_source_kind_is_page(WP_SOURCE_SIMPLE));
	assert_true(wp_source_kind_is_page(WP_SOURCE_SIMPLE_JSON));
	assert_false(wp_source_kind_is_page(WP_SOURCE_ROOT));
	assert_false(wp_source_kind_is_page(WP_SOURCE_REPODATA));
	assert_false(wp_source_kind_is_page(WP_SOURCE_UNKNOWN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests_name("sourcekind", tests, NULL, NULL);
}
