/* tests/unit/test_job_pick.c: the wheel job in-process (ops/wheel/pick.h): wp_pick_plan over a
 * fixture index, wp_pick_fetch with faults under it, wp_pick_write_wheelhouse, and what each leaves
 * in its result. */
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
#include "ops/verify/outputs.h"
#include "ops/wheel/pick.h"


struct fx {
	struct jf_world w;
	struct wp_pick_job job;
	struct wp_pick_run run;
	struct wp_err err;
};

/* torch==1.8.0 for one target: CUDA cuda, Python python, linux_x86_64, from index. */
static void job_for(struct fx *x, const char *index, const char *cuda, const char *python)
{
	assert_int_equal(wp_reqs_add(&x->job.reqs, "torch==1.8.0", NULL), 0);
	wp_strlist_push(&x->job.targets.cuda, cuda);
	wp_strlist_push(&x->job.targets.python, python);
	wp_strlist_push(&x->job.targets.platform, "linux_x86_64");
	wp_strlist_push(&x->job.index, index);
}

static int setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	jf_world_init(&x->w, jf_pristine);
	x->err = (struct wp_err)WP_ERR_INIT;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	wp_pick_run_release(&x->run);
	wp_reqs_release(&x->job.reqs);
	wp_strlist_release(&x->job.targets.cuda);
	wp_strlist_release(&x->job.targets.python);
	wp_strlist_release(&x->job.targets.platform);
	wp_strlist_release(&x->job.index);
	jf_world_release(&x->w);
	free(x);
	return 0;
}

static const struct wp_plan_file *plan_file(const struct wp_plan *plan, const char *project)
{
	for (size_t i = 0; i < plan->n; i++)
		if (!strcmp(plan->files[i].project, project))
			return &plan->files[i];
	fail_msg("the plan picks no '%s'", project);
	return NULL;
}

/* The 2021 seed case: CUDA 11.2 gets cu111 (PyTorch never shipped cu112), and torch's dependency
 * comes with it, named as needed by torch; --explain says why each other build was skipped. */
static void test_plan_picks_cu111(void **state)
{
	struct fx *x = *state;
	job_for(x, x->w.simple, "11.2", "3.8");
	x->job.dry_run = x->job.explain = true;
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(x->run.n_targets, 1);
	assert_int_equal(x->run.plan.n, 2);
	const struct wp_plan_file *t = plan_file(&x->run.plan, "torch");
	assert_string_equal(t->version, "1.8.0+cu111");
	assert_string_equal(t->variant, "cu111");
	assert_string_equal(t->where, JF_TORCH_CU111);
	assert_null(t->required_by);
	assert_non_null(t->sha256);
	assert_int_equal(strlen(t->sha256), 64);
	assert_non_null(strstr(t->reason, "cu111"));
	assert_null(t->path); /* a dry run fetches nothing */
	/* skipped: every other build of 1.8.0, each with its reason */
	bool rocm = false, cpu = false;
	for (size_t k = 0; k < t->n_rejects; k++) {
		rocm |= strstr(t->rejects[k].where,
			       "rocm4.0.1/torch-1.8.0+rocm4.0.1-cp38-cp38-linux") &&
			*t->rejects[k].why;
		cpu |= strstr(t->rejects[k].where, "cpu/torch-1.8.0+cpu-cp38-cp38-linux") &&
		       *t->rejects[k].why;
	}
	assert_true(rocm);
	assert_true(cpu);
	const struct wp_plan_file *te = plan_file(&x->run.plan, "typing-extensions");
	assert_string_equal(te->filename, JF_TYPING);
	assert_non_null(te->required_by);
	assert_string_equal(te->required_by, "torch 1.8.0");
	/* the crawl said what it read: torch's page, and the dependency's page on demand; a dry run
	 * made no store */
	jf_assert_said(&x->w, WP_SAY_DEBUG, "simple/torch/");
	jf_assert_said(&x->w, WP_SAY_DEBUG, "simple/typing-extensions/");
	char *files = jf_path(&x->w, "cache/files");
	assert_false(jf_exists(files));
	free(files);
}

/* Nothing fits: exit 1's code, the project that failed, every file with why, and the message names
 * the nearest miss (the oldest CUDA build, what the driver lacks) and the newest version that
 * fits. */
static void test_plan_nothing_fits(void **state)
{
	struct fx *x = *state;
	job_for(x, x->w.simple, "10.0", "3.8");
	x->job.dry_run = true;
	int rc = wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err);
	assert_int_equal(rc, -WPE_NOMATCH);
	assert_int_equal(x->err.code, -WPE_NOMATCH);
	assert_int_equal(x->run.plan.n, 0);
	assert_non_null(x->run.plan.failed_project);
	assert_string_equal(x->run.plan.failed_project, "torch");
	assert_true(x->run.plan.n_failed_rejects >= 5);
	bool cu101 = false;
	for (size_t k = 0; k < x->run.plan.n_failed_rejects; k++) {
		const struct wp_plan_reject *r = &x->run.plan.failed_rejects[k];
		if (!strcmp(r->where, "cu101/torch-1.8.0+cu101-cp38-cp38-linux_x86_64.whl"))
			cu101 = strstr(r->why, "418.39") != NULL; /* the driver CUDA 10.1 needs */
	}
	assert_true(cu101);
	assert_non_null(strstr(x->err.msg, "cu101"));
	assert_non_null(strstr(x->err.msg, "1.7.1"));
}

/* The whole job: fetched into the store, proven, linked into a wheelhouse that verifies. */
static void test_fetch_and_wheelhouse(void **state)
{
	struct fx *x = *state;
	job_for(x, x->w.simple, "11.2", "3.8");
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(x->run.refused, 0);
	assert_int_equal(x->run.failed, 0);
	assert_int_equal(x->run.unhashed, 0); /* the PEP 503 pages give every sha256 */
	for (size_t i = 0; i < x->run.plan.n; i++) {
		const struct wp_plan_file *f = &x->run.plan.files[i];
		assert_non_null(f->path);
		assert_non_null(strstr(f->path, x->w.cache)); /* in the store */
	}
	char *dir = jf_path(&x->w, "house");
	assert_int_equal(wp_pick_write_wheelhouse(&x->w.s, &x->run, dir, &x->err), 0);
	assert_int_equal(jf_count(dir, ".whl"), 2);
	char *req = jf_path(&x->w, "house/requirements.txt"),
	     *rec = jf_path(&x->w, "house/wheelpick.json"),
	     *inc = jf_path(&x->w, "house/INCOMPLETE.txt");
	assert_true(jf_exists(req));
	assert_true(jf_exists(rec));
	assert_false(jf_exists(inc));
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	assert_int_equal(wp_verify_path(dir, &rep, &x->err), 0);
	assert_int_equal(rep.kind, WP_VERIFY_WHEELHOUSE);
	assert_int_equal(rep.wheels, 2);
	assert_int_equal(rep.n_fatal, 0);
	wp_verify_report_release(&rep);
	free(req), free(rec), free(inc), free(dir);
}

/* A file whose bytes are not the ones its page hashed: -WPE_INTEGRITY naming it, counted as
 * refused, no store object for it, and nothing under its name in the wheelhouse, which says it is
 * incomplete; the other file is fetched and placed. */
static void test_fetch_hash_mismatch(void **state)
{
	struct fx *x = *state;
	job_for(x, x->w.simple, "11.2", "3.8");
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	jf_fault_flip(&x->w, "sample/whl/" JF_TORCH_CU111);
	int rc = wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err);
	assert_int_equal(rc, -WPE_INTEGRITY);
	assert_non_null(strstr(x->err.msg, "torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"));
	assert_int_equal(x->run.refused, 1);
	assert_int_equal(x->run.failed, 0);
	const struct wp_plan_file *t = plan_file(&x->run.plan, "torch");
	assert_null(t->path);
	assert_non_null(plan_file(&x->run.plan, "typing-extensions")->path);
	char *obj = NULL;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_store_lookup(&x->run.store, t->sha256, &obj, &e), 0); /* not stored */
	assert_null(obj);

	char *dir = jf_path(&x->w, "house");
	assert_int_equal(wp_pick_write_wheelhouse(&x->w.s, &x->run, dir, &x->err), 0);
	char *bad = wp_xasprintf("%s/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl", dir),
	     *good = wp_xasprintf("%s/%s", dir, JF_TYPING),
	     *req = wp_xasprintf("%s/requirements.txt", dir),
	     *inc = wp_xasprintf("%s/INCOMPLETE.txt", dir);
	assert_false(jf_exists(bad));
	assert_true(jf_exists(good));
	assert_false(jf_exists(req)); /* it would promise the missing file */
	assert_true(jf_exists(inc));
	free(bad), free(good), free(req), free(inc), free(dir);
}

/* A file cut short is refused too (its bytes hash otherwise). */
static void test_fetch_truncated(void **state)
{
	struct fx *x = *state;
	job_for(x, x->w.simple, "11.2", "3.8");
	x->job.no_deps = true;
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(x->run.plan.n, 1);
	jf_fault_truncate(&x->w, "sample/whl/" JF_TORCH_CU111, 100);
	assert_int_equal(wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err), -WPE_INTEGRITY);
	assert_int_equal(x->run.refused, 1);
	assert_null(x->run.plan.files[0].path);
}

/* A file the source no longer has: a source error (exit 3's code), not an integrity one, counted as
 * failed; nothing of it is in the store. */
static void test_fetch_missing_file(void **state)
{
	struct fx *x = *state;
	job_for(x, x->w.simple, "11.2", "3.8");
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	jf_fault_remove(&x->w, "sample/whl/" JF_TORCH_CU111);
	int rc = wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err);
	assert_int_equal(rc, -WPE_NET);
	assert_non_null(strstr(x->err.msg, "torch-1.8.0"));
	assert_int_equal(x->run.failed, 1);
	assert_int_equal(x->run.refused, 0);
	assert_null(plan_file(&x->run.plan, "torch")->path);
	assert_non_null(plan_file(&x->run.plan, "typing-extensions")->path);
}

/* A find-links page gives no sha256: the first fetch hashes each file and the catalog keeps it, so
 * that a later fetch of other bytes under the same URL is refused (trust on first use). */
static void test_unhashed_first_seen(void **state)
{
	struct fx *x = *state;
	job_for(x, x->w.findlinks, "11.2", "3.8");
	x->job.no_deps = true;
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_null(x->run.plan.files[0].sha256);
	assert_int_equal(wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(x->run.unhashed, 1);
	assert_non_null(x->run.plan.files[0].sha256);
	wp_pick_run_release(&x->run);

	/* the same URL, other bytes, an empty store: the catalog's hash refuses them */
	jf_fault_flip(&x->w, "sample/whl/" JF_TORCH_CU111);
	char *files = jf_path(&x->w, "cache/files");
	test_tmpdir_remove(files);
	free(files);
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err), -WPE_INTEGRITY);
	assert_int_equal(x->run.refused, 1);
}

/* Planning reads a dependency's METADATA from a file:// wheel in place, and proves the wheel's
 * hash as it does: a torch wheel with other bytes stops torchvision's plan (exit 4's code), naming
 * it, before anything is fetched. */
static void test_plan_proves_what_it_reads(void **state)
{
	struct fx *x = *state;
	assert_int_equal(wp_reqs_add(&x->job.reqs, "torchvision==0.9.0", NULL), 0);
	wp_strlist_push(&x->job.targets.cuda, "11.2");
	wp_strlist_push(&x->job.targets.python, "3.8");
	wp_strlist_push(&x->job.targets.platform, "linux_x86_64");
	wp_strlist_push(&x->job.index, x->w.simple);
	jf_fault_flip(&x->w, "sample/whl/" JF_TORCH_CU111);
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), -WPE_INTEGRITY);
	assert_non_null(strstr(x->err.msg, JF_TORCH_CU111));
	assert_int_equal(x->run.plan.n, 0);
}

/* Offline: what the store has is used as it is (no transfer), what it lacks is a source error
 * naming the file, and nothing is asked of the sources (they are gone here). */
static void test_fetch_offline(void **state)
{
	struct fx *x = *state;
	job_for(x, x->w.simple, "11.2", "3.8");
	x->job.no_deps = true;
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err), 0);
	wp_pick_run_release(&x->run);

	jf_fault_remove(&x->w, "sample/whl/" JF_TORCH_CU111);
	x->job.offline = true;
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_non_null(x->run.plan.files[0].path);
	wp_pick_run_release(&x->run);

	char *files = jf_path(&x->w, "cache/files");
	test_tmpdir_remove(files);
	free(files);
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), 0);
	assert_int_equal(wp_pick_fetch(&x->w.s, &x->job, &x->run, &x->err), -WPE_NET);
	assert_non_null(strstr(x->err.msg, "torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"));
	assert_int_equal(x->run.failed, 1);
}

/* No package named: a usage error before anything is opened. */
static void test_plan_needs_a_package(void **state)
{
	struct fx *x = *state;
	wp_strlist_push(&x->job.index, x->w.simple);
	assert_int_equal(wp_pick_plan(&x->w.s, &x->job, &x->run, &x->err), -WPE_USAGE);
	assert_false(jf_exists(x->w.catalog));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plan_picks_cu111, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_nothing_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fetch_and_wheelhouse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fetch_hash_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fetch_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fetch_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unhashed_first_seen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fetch_offline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_proves_what_it_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_needs_a_package, setup, teardown),
	};
	return cmocka_run_group_tests_name("job_pick", tests, jf_group_setup, jf_group_teardown);
}
