/* tests/unit/test_pickmemo.c: a pick's per-file parse kept across targets (resolver/pickmemo.h):
 * kept while the file is the same, made again when anything it was made from changed. The whole
 * pick through a memo is held against the pick without one in test_resolve_cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "resolver/pick.h"
#include "resolver/pickmemo.h"

#define V wp_pick_candidate_variant

static void test_kept_and_checked(void **state)
{
	char label[16] = "cu111";
	struct wp_candidate k = {
		.project = "torch",
		.version = "1.8.0",
		.variant = label,
		.kind = "wheel",
		.filename = "torch-1.8.0-cp38-cp38-linux_x86_64.whl",
	};
	struct wp_pick_memo m = { 0 };
	struct wp_pick_parsed p;
	wp_pick_memo_get(&m, 3, &k, V, &p); /* an index past the end grows it */
	assert_true(p.v_ok);
	assert_int_equal(p.v->release[0], 1);
	assert_string_equal(p.var.label, "cu111");
	const struct wp_version *first = p.v;
	wp_pick_memo_get(&m, 3, &k, V, &p);
	assert_ptr_equal(p.v, first); /* the same file: the kept parse */
	/* the same buffer holding another label (the solver frees a label and learns another,
	 * which may land at the same address): parsed again, not taken from the memo */
	snprintf(label, sizeof(label), "cu118");
	k.variant_from_metadata = true;
	wp_pick_memo_get(&m, 3, &k, V, &p);
	assert_string_equal(p.var.label, "cu118");
	assert_string_equal(p.var_src, "metadata");
	/* another file at that index */
	struct wp_candidate other = k;
	other.version = "not a version";
	wp_pick_memo_get(&m, 3, &other, V, &p);
	assert_false(p.v_ok);
	assert_null(p.v);
	wp_pick_memo_get(&m, 0, &k, V, &p); /* the indexes are apart */
	assert_true(p.v_ok);
	wp_pick_memo_release(&m);
	assert_int_equal(m.n, 0);
	wp_pick_memo_release(&m); /* twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_and_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
