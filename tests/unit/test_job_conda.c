/* tests/unit/test_job_conda.c: the conda job in-process (wp_conda_run, ops/conda/conda.h) over two
 * file:// channels: the picks, an incomplete closure, nothing that fits, and a local channel
 * written, with faults under its fetch. */
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
#include "ops/verify/outputs.h"

#define PT_CU111 "pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2"


struct fx {
	struct jf_world w;
	struct wp_conda_job job;
	struct wp_conda_result res;
	struct wp_err err;
	char *dest;
};

static int setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	jf_world_init(&x->w, jf_pristine);
	x->err = (struct wp_err)WP_ERR_INIT;
	x->dest = jf_path(&x->w, "local");
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	wp_conda_result_release(&x->res);
	wp_strlist_release(&x->job.reqs);
	wp_strlist_release(&x->job.channels);
	wp_strlist_release(&x->job.targets.cuda);
	wp_strlist_release(&x->job.targets.python);
	wp_strlist_release(&x->job.targets.platform);
	free(x->dest);
	jf_world_release(&x->w);
	free(x);
	return 0;
}

/* pytorch==1.8.0 for linux-64, Python 3.8, CUDA cuda; the pytorch-shaped channel, and the forge
 * (python, pip) when forge. */
static void job_for(struct fx *x, const char *cuda, bool forge)
{
	wp_strlist_push(&x->job.reqs, "pytorch==1.8.0");
	wp_strlist_push(&x->job.channels, x->w.chan);
	if (forge)
		wp_strlist_push(&x->job.channels, x->w.forge);
	wp_strlist_push(&x->job.targets.cuda, cuda);
	wp_strlist_push(&x->job.targets.python, "3.8");
	wp_strlist_push(&x->job.targets.platform, "linux-64");
	x->job.targets.conda = true;
}

static const struct wp_conda_pick *pick(const struct wp_conda_result *res, const char *name)
{
	for (size_t i = 0; i < res->n; i++)
		if (!strcmp(res->picks[i].c->name, name))
			return &res->picks[i];
	fail_msg("no '%s' picked", name);
	return NULL;
}

static char *dest_file(const struct fx *x, const char *rel)
{
	return wp_xasprintf("%s/%s", x->dest, rel);
}

/* CUDA 11.2 takes the cuda11.1 build with its toolkit and mutex; the closure is whole with the
 * forge (python from there, strict channel priority); a dry run writes nothing. */
static void test_picks(void **state)
{
	struct fx *x = *state;
	job_for(x, "11.2", true);
	assert_int_equal(wp_conda_run(&x->w.s, &x->job, &x->res, &x->err), 0);
	assert_int_equal(x->res.n_targets, 1);
	assert_int_equal(x->res.nmissing, 0);
	assert_false(x->res.wrote);
	const struct wp_conda_pick *p = pick(&x->res, "pytorch");
	assert_string_equal(p->c->build, "py3.8_cuda11.1_cudnn8.0.5_0");
	assert_null(p->required_by);
	assert_non_null(strstr(p->channel, "conda/pt"));
	assert_string_equal(pick(&x->res, "cudatoolkit")->c->version, "11.1.1");
	assert_string_equal(pick(&x->res, "pytorch-mutex")->c->build, "cuda");
	p = pick(&x->res, "python");
	assert_string_equal(p->c->version, "3.8.10");
	assert_non_null(strstr(p->channel, "conda/forge"));
	assert_non_null(p->required_by);
	assert_int_equal(x->res.n, 5); /* pytorch, cudatoolkit, pytorch-mutex, python, pip */
	assert_false(jf_exists(x->dest));
}

/* The pytorch-shaped channel alone lacks python: nothing fits (exit 1's code) naming what is
 * missing and who needs it; the picks are there for printing; no channel is written. */
static void test_incomplete_closure(void **state)
{
	struct fx *x = *state;
	job_for(x, "11.2", false);
	x->job.dest = x->dest;
	assert_int_equal(wp_conda_run(&x->w.s, &x->job, &x->res, &x->err), -WPE_NOMATCH);
	assert_int_equal(x->res.nmissing, 1);
	assert_string_equal(x->res.missing[0], "python");
	assert_non_null(strstr(x->err.msg, "python"));
	assert_non_null(strstr(x->err.msg, "pytorch 1.8.0"));
	assert_true(x->res.n > 0);
	assert_false(x->res.wrote);
	char *rd = dest_file(x, "linux-64/repodata.json");
	assert_false(jf_exists(rd));
	free(rd);
}

/* CUDA 9.2 has no 1.8.0 build: nothing fits, and the message says what would (1.7.1). */
static void test_nothing_fits(void **state)
{
	struct fx *x = *state;
	job_for(x, "9.2", true);
	assert_int_equal(wp_conda_run(&x->w.s, &x->job, &x->res, &x->err), -WPE_NOMATCH);
	assert_non_null(strstr(x->err.msg, "1.7.1"));
	assert_false(x->res.wrote);
}

/* The closure fetched, proven and laid out as a channel with its lock, which verifies. */
static void test_local_channel(void **state)
{
	struct fx *x = *state;
	job_for(x, "11.2", true);
	x->job.dest = x->dest;
	assert_int_equal(wp_conda_run(&x->w.s, &x->job, &x->res, &x->err), 0);
	assert_true(x->res.wrote);
	char *lin = dest_file(x, "linux-64"), *rd = dest_file(x, "noarch/repodata.json");
	assert_int_equal(jf_count(lin, ".tar.bz2"), 4); /* pip is noarch */
	assert_true(jf_exists(rd));
	bool explicit = false;
	for (size_t i = 0; i < x->res.locks.n; i++)
		explicit |= !strcmp(x->res.locks.v[i].name, "explicit-linux-64.txt");
	assert_true(explicit);
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	assert_int_equal(wp_verify_path(x->dest, &rep, &x->err), 0);
	assert_int_equal(rep.kind, WP_VERIFY_CHANNEL);
	assert_int_equal(rep.n_fatal, 0);
	assert_int_equal(rep.packages, 5);
	wp_verify_report_release(&rep);
	free(lin), free(rd);
}

/* A package whose bytes are not the ones its repodata hashed: -WPE_INTEGRITY naming it, nothing
 * under its name; what was proven still goes in (ops/conda/conda.c), and the channel's repodata
 * lists only that, so what is there verifies. */
static void test_hash_mismatch(void **state)
{
	struct fx *x = *state;
	job_for(x, "11.2", true);
	x->job.dest = x->dest;
	jf_fault_flip(&x->w, "conda/pt/linux-64/" PT_CU111);
	assert_int_equal(wp_conda_run(&x->w.s, &x->job, &x->res, &x->err), -WPE_INTEGRITY);
	assert_non_null(strstr(x->err.msg, PT_CU111));
	assert_false(x->res.wrote);
	char *bad = dest_file(x, "linux-64/" PT_CU111),
	     *rd = dest_file(x, "linux-64/repodata.json");
	assert_false(jf_exists(bad));
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_file_read_capped(rd, 1 << 20, &b, NULL), 0);
	assert_null(strstr(b.data, PT_CU111));
	assert_non_null(strstr(b.data, "cudatoolkit-11.1.1"));
	wp_buf_free(&b);
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	assert_int_equal(wp_verify_path(x->dest, &rep, &x->err), 0);
	assert_int_equal(rep.n_fatal, 0);
	assert_int_equal(rep.packages, 4);
	wp_verify_report_release(&rep);
	free(bad), free(rd);
}

/* A package the channel no longer has: a source error, no channel. */
static void test_missing_package(void **state)
{
	struct fx *x = *state;
	job_for(x, "11.2", true);
	x->job.dest = x->dest;
	jf_fault_remove(&x->w, "conda/pt/linux-64/" PT_CU111);
	assert_int_equal(wp_conda_run(&x->w.s, &x->job, &x->res, &x->err), -WPE_NET);
	assert_non_null(strstr(x->err.msg, "pytorch-1.8.0"));
	assert_false(x->res.wrote);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_picks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_closure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_channel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hash_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_package, setup, teardown),
	};
	return cmocka_run_group_tests_name("job_conda", tests, jf_group_setup, jf_group_teardown);
}
