/* tests/unit/test_job_resolve.c: wp_resolve (ops/wheel/resolve.h) in-process over a fixture catalog
 * crawled from file:// pages: the source policy, targets, dependencies crawled on demand, and its
 * failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/jobfix.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "cache/catalog.h"
#include "ops/core/targets.h"
#include "ops/wheel/resolve.h"


struct fx {
	struct jf_world w;
	struct wp_catalog cat;
	struct wp_target *targets;
	size_t n_targets;
	struct wp_strlist indexes;
	struct wp_resolve_opts o;
	struct wp_plan plan;
	struct wp_err err;
};

static int setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	jf_world_init(&x->w, jf_pristine);
	x->err = (struct wp_err)WP_ERR_INIT;
	x->o.indexes = &x->indexes;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	wp_plan_release(&x->plan);
	free(x->targets);
	wp_catalog_close(&x->cat);
	wp_strlist_release(&x->indexes);
	jf_world_release(&x->w);
	free(x);
	return 0;
}

/* Targets for linux_x86_64 and Python 3.8, one per CUDA word ("11.2", "cpu"). */
static void targets(struct fx *x, const char *const *cuda, size_t n)
{
	struct wp_target_spec spec = { 0 };
	for (size_t i = 0; i < n; i++)
		wp_strlist_push(&spec.cuda, cuda[i]);
	wp_strlist_push(&spec.python, "3.8");
	wp_strlist_push(&spec.platform, "linux_x86_64");
	assert_int_equal(wp_targets_build(&x->w.s, &spec, &x->targets, &x->n_targets, &x->err), 0);
	assert_int_equal(x->n_targets, n);
	wp_strlist_release(&spec.cuda);
	wp_strlist_release(&spec.python);
	wp_strlist_release(&spec.platform);
}

/* The catalog of the given sources (crawled by the real crawl code), opened for wp_resolve. */
static void catalog(struct fx *x, const char *const *indexes, size_t n)
{
	static const char *const projects[] = { "torch", "torchvision" };
	jf_catalog_crawl(&x->w, indexes, n, projects, 2);
	assert_int_equal(wp_catalog_open(&x->cat, x->w.catalog, &x->err), 0);
}

static int resolve(struct fx *x, const char *req)
{
	/* parsed as the job's edge parses; one that does not parse is handed on, for wp_resolve to
	 * refuse */
	struct wp_reqs reqs = { 0 };
	wp_req_parse(wp_vec_add(&reqs), req, strlen(req), NULL);
	int rc = wp_resolve(&x->w.s, &x->cat, reqs.v, reqs.n, x->targets, x->n_targets, &x->o,
			    &x->plan, &x->err);
	wp_reqs_release(&reqs);
	return rc;
}

static const struct wp_plan_file *pick(const struct wp_plan *plan, const char *project,
				       size_t target)
{
	for (size_t i = 0; i < plan->n; i++)
		if (!strcmp(plan->files[i].project, project) && plan->files[i].target == target)
			return &plan->files[i];
	fail_msg("the plan picks no '%s' for target %zu", project, target);
	return NULL;
}

/* Two targets in one resolution: each gets its own build, and the dependency (crawled on demand:
 * nobody crawled its page) for each. */
static void test_two_targets(void **state)
{
	struct fx *x = *state;
	catalog(x, (const char *[]){ x->w.simple }, 1);
	wp_strlist_push(&x->indexes, x->w.simple);
	targets(x, (const char *[]){ "11.2", "cpu" }, 2);
	assert_int_equal(resolve(x, "torchvision==0.9.0"), 0);
	assert_int_equal(x->plan.n_targets, 2);
	assert_string_equal(pick(&x->plan, "torch", 0)->variant, "cu111");
	assert_string_equal(pick(&x->plan, "torch", 1)->variant, "cpu");
	assert_string_equal(pick(&x->plan, "torchvision", 0)->version, "0.9.0+cu111");
	assert_string_equal(pick(&x->plan, "torchvision", 1)->version, "0.9.0+cpu");
	const struct wp_plan_file *t = pick(&x->plan, "torch", 0);
	assert_non_null(t->required_by);
	assert_string_equal(t->required_by, "torchvision 0.9.0");
	assert_null(pick(&x->plan, "torchvision", 1)->required_by);
	/* numpy, pillow and typing-extensions came from pages nobody crawled before */
	assert_string_equal(pick(&x->plan, "numpy", 0)->version, "1.24.0");
	assert_string_equal(pick(&x->plan, "pillow", 1)->version, "9.0.0");
	assert_string_equal(pick(&x->plan, "typing-extensions", 1)->version, "4.5.0");
	jf_assert_said(&x->w, WP_SAY_DEBUG, "simple/numpy/");
	/* the Windows-only dependency of torch is not there for Linux */
	for (size_t i = 0; i < x->plan.n; i++)
		assert_string_not_equal(x->plan.files[i].project, "pywin32");
}

/* --no-deps: what was asked for and nothing else. */
static void test_no_deps(void **state)
{
	struct fx *x = *state;
	catalog(x, (const char *[]){ x->w.simple }, 1);
	wp_strlist_push(&x->indexes, x->w.simple);
	targets(x, (const char *[]){ "11.2" }, 1);
	x->o.no_deps = true;
	assert_int_equal(resolve(x, "torchvision"), 0);
	assert_int_equal(x->plan.n, 1);
	assert_string_equal(x->plan.files[0].version, "0.9.0+cu111");
}

/* A project comes from the first index in play that lists it (the dependency-confusion guard):
 * the find-links page first gives torch without hashes, the PEP 503 root first gives it with them;
 * best-match lets both compete. */
static void test_first_index_wins(void **state)
{
	struct fx *x = *state;
	catalog(x, (const char *[]){ x->w.simple, x->w.findlinks }, 2);
	targets(x, (const char *[]){ "11.2" }, 1);
	x->o.no_deps = true;

	wp_strlist_push(&x->indexes, x->w.findlinks);
	wp_strlist_push(&x->indexes, x->w.simple);
	assert_int_equal(resolve(x, "torch==1.8.0"), 0);
	assert_string_equal(x->plan.files[0].where, JF_TORCH_CU111);
	assert_null(x->plan.files[0].sha256);
	wp_plan_release(&x->plan);

	x->indexes.v[0] = x->w.simple;
	x->indexes.v[1] = x->w.findlinks;
	assert_int_equal(resolve(x, "torch==1.8.0"), 0);
	assert_non_null(x->plan.files[0].sha256);
	wp_plan_release(&x->plan);

	/* the ranks behind it: a root covers its project pages; a source not in play is out */
	char *page = wp_xasprintf("%storch/", x->w.simple);
	assert_int_equal(wp_resolve_index_rank(&x->o, "torch", page, 9), 0);
	assert_int_equal(wp_resolve_index_rank(&x->o, "torch", x->w.findlinks, 9), 1);
	assert_int_equal(wp_resolve_index_rank(&x->o, "torch", "file:///elsewhere/torch/", 9), -1);
	x->o.strategy = WP_INDEX_BEST_MATCH;
	assert_int_equal(wp_resolve_index_rank(&x->o, "torch", x->w.findlinks, 9), 0);
	x->o.strategy = WP_INDEX_FIRST;

	/* PROJECT=URL: that project from that index alone, whatever the order */
	struct wp_index_pin pin = { .project = "torch", .url = x->w.findlinks };
	x->o.index_for = &pin, x->o.n_index_for = 1;
	assert_int_equal(wp_resolve_index_rank(&x->o, "torch", page, 9), -1);
	assert_int_equal(wp_resolve_index_rank(&x->o, "torch", x->w.findlinks, 9), 0);
	assert_int_equal(resolve(x, "torch==1.8.0"), 0);
	assert_null(x->plan.files[0].sha256);
	x->o.index_for = NULL, x->o.n_index_for = 0;
	free(page);
}

/* A dependency page that is not an index, while the resolution needs it: the job stops with that
 * source's error (exit 3), never with a smaller set picked. */
static void test_dependency_source_fails(void **state)
{
	struct fx *x = *state;
	catalog(x, (const char *[]){ x->w.simple }, 1);
	wp_strlist_push(&x->indexes, x->w.simple);
	targets(x, (const char *[]){ "11.2" }, 1);
	jf_fault_remove(&x->w, "sample/simple/typing-extensions/index.html");
	char *page = wp_xasprintf("%s/sample/simple/typing-extensions/index.html", x->w.src);
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_atomic_write(page, "\x89PNG\r\n\x1a\n\0\0\0garbage", 19, &e), 0);
	free(page);
	int rc = resolve(x, "torch==1.8.0");
	assert_int_equal(rc, -WPE_SOURCE);
	assert_non_null(strstr(x->err.msg, "typing-extensions"));
	assert_int_equal(x->plan.n, 0);
}

/* A requirement that is not PEP 508: a usage error naming it. */
/* A warm resolution (its pages and metadata read before) reads the catalog in one transaction, not
 * one per statement (a 10,000-project web made about 36,000); the first, which crawls pages and
 * keeps metadata on demand, writes between its reads and still picks the same. */
static void test_one_read_transaction(void **state)
{
	struct fx *x = *state;
	catalog(x, (const char *[]){ x->w.simple }, 1);
	wp_strlist_push(&x->indexes, x->w.simple);
	targets(x, (const char *[]){ "11.2" }, 1);
	wp_catalog_count_transactions(&x->cat, true);
	assert_int_equal(resolve(x, "torchvision==0.9.0"), 0);
	uint64_t cold = x->cat.transactions;
	size_t n = x->plan.n;
	assert_true(n >= 4); /* torchvision, torch and the dependencies crawled on demand */
	assert_true(cold > 1); /* the crawls and the metadata kept wrote between the reads */
	wp_plan_release(&x->plan);
	memset(&x->plan, 0, sizeof(x->plan));
	wp_catalog_count_transactions(&x->cat, true);
	assert_int_equal(resolve(x, "torchvision==0.9.0"), 0);
	assert_int_equal(x->plan.n, n);
	assert_int_equal(x->cat.transactions, 1);
	assert_false(x->cat.read_open); /* ended with the resolution */
	assert_string_equal(pick(&x->plan, "numpy", 0)->version, "1.24.0");
}

static void test_bad_requirement(void **state)
{
	struct fx *x = *state;
	catalog(x, (const char *[]){ x->w.simple }, 1);
	targets(x, (const char *[]){ "11.2" }, 1);
	assert_int_equal(resolve(x, "torch[cuda"), -WPE_USAGE);
	assert_non_null(strstr(x->err.msg, "torch[cuda"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_deps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_index_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dependency_source_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_requirement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_read_transaction, setup, teardown),
	};
	return cmocka_run_group_tests_name("job_resolve", tests, jf_group_setup, jf_group_teardown);
}
