/* tests/unit/test_job_bundle.c: the bundle jobs in-process (ops/publish/publish.h): a pick's
 * wheelhouse packed (whole and in volumes), the conda job packed with its locks, their refusals,
 * and each bundle read back by the verifier (ops/verify/outputs.h). */
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
#include "ops/conda/conda.h"
#include "ops/publish/bundle.h"
#include "ops/publish/publish.h"
#include "ops/verify/outputs.h"


struct fx {
	struct jf_world w;
	struct jf_pick p;
	struct wp_err err;
};

static int setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	jf_world_init(&x->w, jf_pristine);
	x->err = (struct wp_err)WP_ERR_INIT;
	jf_pick_init(&x->p, &x->w, "torch==1.8.0", (const char *[]){ "11.2", NULL });
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	jf_pick_release(&x->p);
	jf_world_release(&x->w);
	free(x);
	return 0;
}

static void verify_bundle(struct fx *x, const char *path, size_t wheels, size_t packages)
{
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	if (wp_verify_path(path, &rep, &x->err))
		fail_msg("verify '%s': %s", path, x->err.msg);
	assert_int_equal(rep.kind, WP_VERIFY_BUNDLE);
	assert_int_equal(rep.n_fatal, 0);
	assert_int_equal(rep.wheels, wheels);
	assert_int_equal(rep.packages, packages);
	wp_verify_report_release(&rep);
}

/* Fetched, staged under the cache's tmp/, packed, the staging gone; the bundle verifies, and the
 * run's paths (into the staging) are cleared. */
static void test_wheel_bundle(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	char *out = jf_path(&x->w, "torch-bundle.tar.zst"), *tmp = jf_path(&x->w, "cache/tmp");
	assert_int_equal(wp_publish_bundle(&x->w.s, &x->p.run, out, &x->err), 0);
	assert_true(jf_exists(out));
	for (size_t i = 0; i < x->p.run.plan.n; i++)
		assert_null(x->p.run.plan.files[i].path);
	assert_true(jf_exists(tmp)); /* the staging was made there ... */
	assert_int_equal(jf_entries(tmp), 0); /* ... and removed */
	verify_bundle(x, out, 2, 0);
	free(out), free(tmp);
}

/* In volumes of 1 KiB: several, each named .NNN, none under the plain name; read back as a set. */
static void test_wheel_bundle_split(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	char *out = jf_path(&x->w, "torch-bundle.tar.gz");
	size_t nvol = 0;
	assert_int_equal(wp_publish_bundle_split(&x->w.s, &x->p.run, out, WP_BUNDLE_SPLIT_MIN,
						 &nvol, &x->err),
			 0);
	assert_true(nvol > 1);
	assert_false(jf_exists(out));
	char *first = wp_bundle_volume_name(out, 1), *last = wp_bundle_volume_name(out, nvol),
	     *past = wp_bundle_volume_name(out, nvol + 1);
	assert_true(jf_exists(first));
	assert_true(jf_exists(last));
	assert_false(jf_exists(past));
	verify_bundle(x, first, 2, 0);
	free(first), free(last), free(past), free(out);
}

/* A name no bundle can have: a usage error, nothing written. */
static void test_bundle_bad_name(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	char *out = jf_path(&x->w, "torch-bundle.zip");
	assert_int_equal(wp_publish_bundle(&x->w.s, &x->p.run, out, &x->err), -WPE_USAGE);
	assert_non_null(strstr(x->err.msg, "torch-bundle.zip"));
	assert_false(jf_exists(out));
	free(out);
}

/* The conda job packed: its channel under channel/, its locks beside it; the bundle verifies with
 * every package hashed. */
static void test_conda_bundle(void **state)
{
	struct fx *x = *state;
	struct wp_conda_job job = { 0 };
	struct wp_conda_result res = { 0 };
	wp_strlist_push(&job.reqs, "pytorch==1.8.0");
	wp_strlist_push(&job.channels, x->w.chan);
	wp_strlist_push(&job.channels, x->w.forge);
	wp_strlist_push(&job.targets.cuda, "11.2");
	wp_strlist_push(&job.targets.python, "3.8");
	wp_strlist_push(&job.targets.platform, "linux-64");
	job.targets.conda = true;
	char *out = jf_path(&x->w, "conda-bundle.tar.zst");
	size_t nvol = 0;
	assert_int_equal(wp_publish_conda_bundle(&x->w.s, &job, out, 0, &nvol, &res, &x->err), 0);
	assert_int_equal(nvol, 1);
	assert_int_equal(res.n, 5);
	verify_bundle(x, out, 0, 5);
	wp_conda_result_release(&res);

	/* without the forge the closure is incomplete: nothing fits, and no bundle is written */
	char *out2 = jf_path(&x->w, "incomplete.tar.zst");
	job.channels.n = 1;
	res = (struct wp_conda_result){ 0 };
	assert_int_equal(wp_publish_conda_bundle(&x->w.s, &job, out2, 0, &nvol, &res, &x->err),
			 -WPE_NOMATCH);
	assert_false(jf_exists(out2));
	wp_conda_result_release(&res);

	wp_strlist_release(&job.reqs);
	wp_strlist_release(&job.channels);
	wp_strlist_release(&job.targets.cuda);
	wp_strlist_release(&job.targets.python);
	wp_strlist_release(&job.targets.platform);
	free(out), free(out2);
}

/* A bundle with a member changed after it was packed: the verifier refuses it. */
static void test_damaged_bundle_is_found(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	char *out = jf_path(&x->w, "torch-bundle.tar");
	assert_int_equal(wp_publish_bundle(&x->w.s, &x->p.run, out, &x->err), 0);
	/* an uncompressed tar: a byte of a member's data in the middle of the archive */
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_file_read_capped(out, 64 << 20, &b, NULL), 0);
	char *at = memmem(b.data, b.len, "PK\x03\x04", 4); /* the first wheel's first zip entry */
	assert_non_null(at);
	at[64] ^= 0x5a;
	assert_int_equal(wp_atomic_write(out, b.data, b.len, &x->err), 0);
	wp_buf_free(&b);
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	assert_int_equal(wp_verify_path(out, &rep, &x->err), -WPE_INTEGRITY);
	assert_true(rep.n_fatal >= 1);
	wp_verify_report_release(&rep);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wheel_bundle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wheel_bundle_split, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bundle_bad_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conda_bundle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_bundle_is_found, setup, teardown),
	};
	return cmocka_run_group_tests_name("job_bundle", tests, jf_group_setup, jf_group_teardown);
}
