/* tests/unit/test_job_fetch.c: the wheel job's fetch in-process over HTTP, with faults on the wire
 * (tests/server/faultserver.py): a status that will not change, one that does, a dropped connection
 * resumed, other bytes than the index hashed; what wp_pick_fetch and the wheelhouse make of
 * each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/jobfix.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fs.h"
#include "base/mem.h"
#include "cache/store.h"
#include "ops/core/fetch.h"
#include "ops/verify/outputs.h"
#include "ops/wheel/pick.h"
#include "verify/hash.h"

/* the torch wheel's path on the server, as its page links it */
#define TORCH_PATH "/whl/cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl"
#define TORCH_FILE "torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"


struct fx {
	struct jf_world w;
	struct jf_server srv;
	struct jf_pick p;
	struct wp_err err;
	char *index;
};

static int setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	jf_world_init(&x->w, jf_pristine);
	jf_serve(&x->w, &x->srv);
	x->err = (struct wp_err)WP_ERR_INIT;
	x->index = wp_xasprintf("%ssimple/", x->srv.base);
	jf_pick_init(&x->p, &x->w, "torch==1.8.0", (const char *[]){ "11.2", NULL });
	x->p.job.index.v[0] = x->index;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	jf_pick_release(&x->p);
	jf_serve_stop(&x->srv);
	free(x->index);
	jf_world_release(&x->w);
	free(x);
	return 0;
}

/* How many requests the server logged for path, and how many of them asked for a Range. */
static size_t requests(const struct fx *x, const char *path, size_t *ranged)
{
	struct wp_buf b = WP_BUF_INIT;
	size_t n = 0, r = 0;
	if (wp_file_read_capped(x->srv.log, 16 << 20, &b, NULL) == 0 && b.data) {
		char *want = wp_xasprintf("\"path\":\"%s\"", path);
		for (char *line = b.data, *end; line && *line; line = end ? end + 1 : NULL) {
			end = strchr(line, '\n');
			if (end)
				*end = 0;
			if (strstr(line, want)) {
				n++;
				r += strstr(line, "\"Range\":\"bytes=") != NULL;
			}
		}
		free(want);
	}
	wp_buf_free(&b);
	if (ranged)
		*ranged = r;
	return n;
}

/* Over HTTP, whole: both files fetched and proven, the wheelhouse verifies. */
static void test_http_fetch(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(x->p.run.plan.n, 2);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	assert_int_equal(x->p.run.failed + x->p.run.refused, 0);
	char *dir = jf_path(&x->w, "house");
	assert_int_equal(wp_pick_write_wheelhouse(&x->w.s, &x->p.run, dir, &x->err), 0);
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	assert_int_equal(wp_verify_path(dir, &rep, &x->err), 0);
	assert_int_equal(rep.wheels, 2);
	wp_verify_report_release(&rep);
	free(dir);
}

/* 404 for the wheel (the plan made before it went, reading torch's METADATA by Range): a source
 * error (exit 3's code) naming the file and the status, asked once by the fetch (a 404 is an
 * answer, not an outage); the other file is fetched; nothing of the wheel is in the store or the
 * wheelhouse. */
static void test_http_404(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	size_t planned = requests(x, TORCH_PATH, NULL);
	jf_serve_script(&x->srv, "{\"" TORCH_PATH "\": {\"status\": [404]}}");
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), -WPE_NET);
	assert_non_null(strstr(x->err.msg, "404"));
	assert_non_null(strstr(x->err.msg, "torch-1.8.0"));
	assert_int_equal(x->p.run.failed, 1);
	assert_int_equal(x->p.run.refused, 0);
	assert_int_equal(requests(x, TORCH_PATH, NULL), planned + 1);
	char *dir = jf_path(&x->w, "house");
	assert_int_equal(wp_pick_write_wheelhouse(&x->w.s, &x->p.run, dir, &x->err), 0);
	char *bad = wp_xasprintf("%s/%s", dir, TORCH_FILE),
	     *good = wp_xasprintf("%s/%s", dir, JF_TYPING);
	assert_false(jf_exists(bad));
	assert_true(jf_exists(good));
	free(bad), free(good), free(dir);
}

/* 503, 503, then 200: retried until it comes. (--no-deps here and below: planning asks nothing of
 * the wheel, so the server's count of requests to it starts with the fetch.) */
static void test_http_503_then_200(void **state)
{
	struct fx *x = *state;
	x->p.job.no_deps = true;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(requests(x, TORCH_PATH, NULL), 0);
	jf_serve_script(&x->srv, "{\"" TORCH_PATH "\": {\"status\": [503, 503, 200]}}");
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	assert_int_equal(requests(x, TORCH_PATH, NULL), 3);
}

/* The connection dropped after 700 bytes: the rest asked for with a Range, the file whole. */
static void test_http_drop_resumed(void **state)
{
	struct fx *x = *state;
	x->p.job.no_deps = true;
	jf_pick_plan(&x->p, &x->w);
	jf_serve_script(&x->srv, "{\"" TORCH_PATH "\": {\"drop_after\": 700, \"times\": 1}}");
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	size_t ranged = 0;
	assert_int_equal(requests(x, TORCH_PATH, &ranged), 2);
	assert_int_equal(ranged, 1);
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_file_read_capped(x->srv.log, 16 << 20, &b, NULL), 0);
	assert_non_null(strstr(b.data, "\"Range\":\"bytes=700-\""));
	wp_buf_free(&b);
	const struct wp_plan_file *t = &x->p.run.plan.files[0];
	assert_string_equal(t->project, "torch");
	char sha[65];
	assert_int_equal(wp_hash_file(t->path, sha, NULL, NULL), 0);
	assert_string_equal(sha, t->sha256);
}

/* Other bytes than the page hashed, served whole with a 200: -WPE_INTEGRITY naming the file, and
 * no store object under the page's hash. */
static void test_http_other_bytes(void **state)
{
	struct fx *x = *state;
	x->p.job.no_deps = true;
	jf_pick_plan(&x->p, &x->w);
	jf_serve_script(&x->srv,
			"{\"" TORCH_PATH
			"\": {\"body\": \"PK\\u0003\\u0004 not the wheel the page hashed\"}}");
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), -WPE_INTEGRITY);
	assert_non_null(strstr(x->err.msg, TORCH_FILE));
	assert_int_equal(x->p.run.refused, 1);
	const struct wp_plan_file *t = &x->p.run.plan.files[0];
	assert_null(t->path);
	char *obj = NULL;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_store_lookup(&x->p.run.store, t->sha256, &obj, &e), 0);
	assert_null(obj);
}

/* Eight small files in one batch (issue 42, per-file cost): each file's data synced once and
 * each folder once (not a sync for a file's data, and again for it at its rename), the partial
 * folder made once, not per file, and a fan-out folder only when a rename finds it missing;
 * every file in the store after it, and a second fetch syncs nothing. */
static void test_batch_syncs(void **state)
{
	struct fx *x = *state;
	enum { N = 8 };
	struct wp_store st;
	struct wp_fetch_item it[N];
	char *urls[N], *names[N], sha[N][65];
	char *src = jf_path(&x->w, "small"), *root = jf_path(&x->w, "store");
	assert_int_equal(wp_mkdir_p(src, 0755, &x->err), 0);
	assert_int_equal(wp_store_init(&st, root, &x->err), 0);
	memset(it, 0, sizeof(it));
	for (int i = 0; i < N; i++) {
		char body[300];
		snprintf(body, sizeof(body), "small file %d, a few bytes of it\n", i);
		names[i] = wp_xasprintf("small%d.bin", i);
		char *path = wp_xasprintf("%s/%s", src, names[i]);
		assert_int_equal(wp_atomic_write(path, body, strlen(body), &x->err), 0);
		assert_int_equal(wp_sha256_hex_of(body, strlen(body), sha[i]), 0);
		urls[i] = wp_xasprintf("file://%s", path);
		it[i] = (struct wp_fetch_item){ .url = urls[i],
						.filename = names[i],
						.sha256 = sha[i],
						.size = (long long)strlen(body) };
		free(path);
	}
	struct wp_fetch_opts o = { 0 };
	assert_int_equal(wp_fetch_files(&st, it, N, &o, &x->err), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(it[i].rc, 0);
		assert_non_null(it[i].path);
		assert_int_equal(access(it[i].path, F_OK), 0);
	}
	assert_int_equal(st.counts.file_syncs, N);
	/* the fan-out folders made, ROOT/sha256 for their names, ROOT/tmp */
	assert_true(st.counts.dirs_made >= 1 && st.counts.dirs_made <= N);
	assert_int_equal(st.counts.dir_syncs, st.counts.dirs_made + 2);
	/* the same again: all in the store, nothing synced */
	struct wp_store_counts before = st.counts;
	for (int i = 0; i < N; i++)
		wp_fetch_item_release(&it[i]);
	assert_int_equal(wp_fetch_files(&st, it, N, &o, &x->err), 0);
	for (int i = 0; i < N; i++)
		assert_true(it[i].cached);
	assert_int_equal(st.counts.file_syncs, before.file_syncs);
	assert_int_equal(st.counts.dir_syncs, before.dir_syncs);
	for (int i = 0; i < N; i++) {
		wp_fetch_item_release(&it[i]);
		free(urls[i]);
		free(names[i]);
	}
	wp_store_release(&st);
	free(src);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_http_fetch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_404, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_503_then_200, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_drop_resumed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_other_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_syncs, setup, teardown),
	};
	return cmocka_run_group_tests_name("job_fetch", tests, jf_group_setup, jf_group_teardown);
}
