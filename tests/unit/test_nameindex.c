/* tests/unit/test_nameindex.c: base/nameindex.c: names found after growth, the newest of two
 * equal names first, and removal newest first restoring what was found before. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/nameindex.h"

static void test_push_find_pop(void **state)
{
	enum { N = 5000 };
	char *names[N + 1];
	struct wp_name_index ix = { 0 };
	assert_int_equal(wp_name_index_find(&ix, "x"), WP_NAME_NONE);
	for (size_t i = 0; i < N; i++) {
		names[i] = wp_xasprintf("name-%zu", i);
		wp_name_index_push(&ix, names[i]);
	}
	for (size_t i = 0; i < N; i++)
		assert_int_equal(wp_name_index_find(&ix, names[i]), i);
	assert_int_equal(wp_name_index_find(&ix, "name-5000"), WP_NAME_NONE);
	/* the same name again: the newest is found, and popping it finds the older one */
	names[N] = wp_xasprintf("name-17");
	wp_name_index_push(&ix, names[N]);
	assert_int_equal(wp_name_index_find(&ix, "name-17"), N);
	wp_name_index_pop(&ix);
	assert_int_equal(wp_name_index_find(&ix, "name-17"), 17);
	for (size_t i = N; i-- > 10;)
		wp_name_index_pop(&ix);
	assert_int_equal(wp_name_index_find(&ix, "name-9"), 9);
	assert_int_equal(wp_name_index_find(&ix, "name-10"), WP_NAME_NONE);
	assert_int_equal(wp_name_index_find(&ix, "name-4999"), WP_NAME_NONE);
	wp_name_index_free(&ix);
	for (size_t i = 0; i <= N; i++)
		free(names[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_find_pop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
