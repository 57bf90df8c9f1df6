/* tests/unit/test_parallel.c: base/parallel.c: every item done once on several threads; a failure
 * stops the handing out and its message is the one returned. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/parallel.h"

struct counts {
	atomic_int *seen;
	size_t fail_at; /* the item that fails; (size_t)-1: none */
	atomic_int done;
};

static int visit(void *ctx, size_t i, struct wp_err *err)
{
	struct counts *c = ctx;
	atomic_fetch_add(&c->seen[i], 1);
	atomic_fetch_add(&c->done, 1);
	if (i == c->fail_at)
		return wp_fail(err, -WPE_IO, "item %zu failed", i);
	return 0;
}

static void test_every_item_once(void **state)
{
	enum { N = 10000 };
	struct counts c = { .seen = wp_xcalloc(N, sizeof(*c.seen)), .fail_at = (size_t)-1 };
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_parallel_for(N, 4, visit, &c, &e), 0);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(atomic_load(&c.seen[i]), 1);
	/* none at all, and the default thread count */
	assert_int_equal(wp_parallel_for(0, 0, visit, &c, &e), 0);
	free(c.seen);
}

static void test_first_failure_stops(void **state)
{
	enum { N = 100000 };
	struct counts c = { .seen = wp_xcalloc(N, sizeof(*c.seen)), .fail_at = 10 };
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_parallel_for(N, 4, visit, &c, &e), -WPE_IO);
	assert_string_equal(e.msg, "item 10 failed");
	/* items are handed out in order: far fewer than all were started after item 10 failed */
	assert_true(atomic_load(&c.done) < N);
	free(c.seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_item_once),
		cmocka_unit_test(test_first_failure_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
