/* tests/unit/test_job_mirror.c: the mirror job in-process: a pick's proven files published as a PEP
 * 503/691 tree (wp_publish_mirror, ops/publish/publish.h), its report, a re-run, a refused file
 * left out, and the tree read back by the verifier (ops/verify/outputs.h). */
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
#include "base/str.h"
#include "verify/hash.h"
#include "ops/publish/publish.h"
#include "ops/verify/outputs.h"

#define TORCH_CU111 "torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"


struct fx {
	struct jf_world w;
	struct jf_pick p;
	struct wp_mirror_report rep;
	struct wp_err err;
	char *dir;
};

static int setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	jf_world_init(&x->w, jf_pristine);
	x->err = (struct wp_err)WP_ERR_INIT;
	x->dir = jf_path(&x->w, "mirror");
	jf_pick_init(&x->p, &x->w, "torchvision==0.9.0", (const char *[]){ "11.2", "cpu", NULL });
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	jf_pick_release(&x->p);
	free(x->dir);
	jf_world_release(&x->w);
	free(x);
	return 0;
}

static void verify_clean(struct fx *x, size_t wheels)
{
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	int rc = wp_verify_path(x->dir, &rep, &x->err);
	if (rc)
		fail_msg("verify '%s': %s", x->dir, x->err.msg);
	assert_int_equal(rep.kind, WP_VERIFY_MIRROR);
	assert_int_equal(rep.n_fatal, 0);
	assert_int_equal(rep.wheels, wheels);
	wp_verify_report_release(&rep);
}

/* Two targets' files, each once: the merged root and one per variant, the pages, PEP 658 files;
 * a second run changes nothing; the tree verifies. */
static void test_mirror_two_targets(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	assert_int_equal(wp_publish_mirror(&x->w.s, &x->p.run, x->dir, false, &x->rep, &x->err), 0);
	/* torch and torchvision for cu111 and cpu; numpy, pillow, typing-extensions shared */
	assert_int_equal(x->rep.files, 7);
	assert_int_equal(x->rep.added, 7);
	assert_int_equal(x->rep.projects, 5);
	assert_int_equal(x->rep.roots, 3); /* simple/, cu111/, cpu/ */
	assert_int_equal(x->rep.metadata, 7);
	assert_int_equal(x->rep.removed, 0);
	jf_assert_said(&x->w, WP_SAY_INFO, "7 files in 5 projects");
	char *f = wp_xasprintf("%s/files/torch/%s", x->dir, TORCH_CU111),
	     *page = wp_xasprintf("%s/cu111/torch/index.html", x->dir),
	     *json = wp_xasprintf("%s/simple/torch/index.json", x->dir),
	     *man = wp_xasprintf("%s/%s", x->dir, WP_MIRROR_MANIFEST);
	assert_true(jf_exists(f));
	assert_true(jf_exists(page));
	assert_true(jf_exists(json));
	assert_true(jf_exists(man));
	free(f), free(page), free(json), free(man);
	verify_clean(x, 7);

	/* the same run again: nothing added, nothing replaced */
	assert_int_equal(wp_publish_mirror(&x->w.s, &x->p.run, x->dir, false, &x->rep, &x->err), 0);
	assert_int_equal(x->rep.added, 0);
	assert_int_equal(x->rep.unchanged, 7);
	assert_int_equal(x->rep.replaced, 0);
	verify_clean(x, 7);
}

/* A file refused by the fetch (-WPE_INTEGRITY) is not mirrored: no file under its name, no page
 * links it, and the rest verifies; the pick's error stays the job's. */
static void test_mirror_leaves_refused_out(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	jf_fault_flip(&x->w, "sample/whl/" JF_TORCH_CU111);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), -WPE_INTEGRITY);
	assert_int_equal(x->p.run.refused, 1);
	struct wp_err merr = WP_ERR_INIT;
	assert_int_equal(wp_publish_mirror(&x->w.s, &x->p.run, x->dir, false, &x->rep, &merr), 0);
	assert_int_equal(x->rep.files, 6);
	char *f = wp_xasprintf("%s/files/torch/%s", x->dir, TORCH_CU111),
	     *page = wp_xasprintf("%s/simple/torch/index.html", x->dir);
	assert_false(jf_exists(f));
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_file_read_capped(page, 1 << 20, &b, NULL), 0);
	assert_null(strstr(b.data, "cu111-cp38"));
	assert_non_null(strstr(b.data, "cpu-cp38"));
	wp_buf_free(&b);
	free(f), free(page);
	verify_clean(x, 6);
}

/* --prune: a later run for one target leaves only its files; the tree still verifies. */
static void test_mirror_prune(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	assert_int_equal(wp_publish_mirror(&x->w.s, &x->p.run, x->dir, false, &x->rep, &x->err), 0);
	struct jf_pick cpu;
	jf_pick_init(&cpu, &x->w, "torchvision==0.9.0", (const char *[]){ "cpu", NULL });
	jf_pick_plan(&cpu, &x->w);
	assert_int_equal(jf_pick_fetch(&cpu, &x->w, &x->err), 0);
	assert_int_equal(wp_publish_mirror(&x->w.s, &cpu.run, x->dir, true, &x->rep, &x->err), 0);
	jf_pick_release(&cpu);
	assert_int_equal(x->rep.files, 5);
	assert_int_equal(x->rep.removed, 2);
	assert_int_equal(x->rep.roots, 2); /* simple/, cpu/ */
	char *f = wp_xasprintf("%s/files/torch/%s", x->dir, TORCH_CU111);
	assert_false(jf_exists(f));
	free(f);
	verify_clean(x, 5);
}

/* A mirror's file damaged after the run: the verifier names it. */
static void test_mirror_damage_is_found(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	assert_int_equal(wp_publish_mirror(&x->w.s, &x->p.run, x->dir, false, &x->rep, &x->err), 0);
	char *f = wp_xasprintf("%s/files/torch/%s", x->dir, TORCH_CU111);
	/* a copy of its own: the mirror's file may be a hard link to the store's object */
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_file_read_capped(f, 64 << 20, &b, NULL), 0);
	b.data[b.len / 2] ^= 0x5a;
	assert_int_equal(wp_atomic_write(f, b.data, b.len, &x->err), 0);
	wp_buf_free(&b);
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	assert_int_equal(wp_verify_path(x->dir, &rep, &x->err), -WPE_INTEGRITY);
	assert_true(rep.n_fatal >= 1);
	bool named = false;
	for (size_t i = 0; i < rep.n_problems; i++)
		named |= rep.problems[i].fatal && strstr(rep.problems[i].path, TORCH_CU111) != NULL;
	assert_true(named);
	wp_verify_report_release(&rep);
	free(f);
}

/* What the sink got: each .metadata's name and bytes (a copy), and whether its sha256 was
 * theirs. */
struct got_metas {
	char *rel[16];
	struct wp_buf bytes[16];
	size_t n;
	bool sha_ok;
};

static int keep_meta(void *ctx, const char *rel, const char *bytes, size_t len, const char *sha256,
		     struct wp_err *err)
{
	struct got_metas *g = ctx;
	char hex[65];
	if (g->n == 16)
		return wp_fail(err, -WPE_IO, "more .metadata than the test expects");
	g->sha_ok &= wp_sha256_hex_of(bytes, len, hex) == 0 && !strcmp(hex, sha256);
	g->rel[g->n] = wp_xstrdup(rel);
	g->bytes[g->n] = (struct wp_buf)WP_BUF_INIT;
	wp_buf_add(&g->bytes[g->n], bytes, len);
	g->n++;
	return 0;
}

/* wp_mirror_meta_in_fn: torch's cu111 wheel's .metadata is known (these bytes, not the wheel's) */
static const char known_meta[] = "Metadata-Version: 2.1\nName: torch\nVersion: 1.8.0+cu111\n";

static const char *meta_known(void *ctx, const char *project, const char *filename, size_t *len)
{
	(void)ctx;
	if (strcmp(project, "torch") || strcmp(filename, TORCH_CU111))
		return NULL;
	*len = sizeof(known_meta) - 1;
	return known_meta;
}

/* With meta_out (S3's staging), no .metadata file is written: each goes to the sink, with its
 * sha256, the same bytes the tree on disk gets without it (but where meta_in knows them: its
 * bytes, the wheel not read); the pages announce them all the same. */
static void test_mirror_metadata_to_a_sink(void **state)
{
	struct fx *x = *state;
	jf_pick_plan(&x->p, &x->w);
	assert_int_equal(jf_pick_fetch(&x->p, &x->w, &x->err), 0);
	struct got_metas g = { .sha_ok = true };
	const struct wp_mirror_opts mo = { .meta_out = keep_meta,
					   .meta_in = meta_known,
					   .meta_ctx = &g };
	char *staged = jf_path(&x->w, "staged");
	assert_int_equal(wp_publish_mirror_opts(&x->w.s, &x->p.run, staged, &mo, &x->rep, &x->err),
			 0);
	assert_int_equal(x->rep.metadata, 7);
	assert_int_equal(g.n, 7);
	assert_true(g.sha_ok);
	assert_int_equal(wp_publish_mirror(&x->w.s, &x->p.run, x->dir, false, &x->rep, &x->err), 0);
	bool torch_seen = false;
	for (size_t i = 0; i < g.n; i++) {
		char *in_stage = wp_xasprintf("%s/%s", staged, g.rel[i]),
		     *on_disk = wp_xasprintf("%s/%s", x->dir, g.rel[i]);
		assert_true(wp_cstr_endswith(g.rel[i], ".metadata"));
		assert_false(jf_exists(in_stage));
		struct wp_buf b = WP_BUF_INIT;
		assert_int_equal(wp_file_read_capped(on_disk, 1 << 20, &b, NULL), 0);
		if (strstr(g.rel[i], TORCH_CU111)) {
			assert_int_equal(g.bytes[i].len, sizeof(known_meta) - 1);
			assert_memory_equal(g.bytes[i].data, known_meta, sizeof(known_meta) - 1);
			torch_seen = true;
		} else {
			assert_int_equal(b.len, g.bytes[i].len);
			assert_memory_equal(b.data, g.bytes[i].data, b.len);
		}
		wp_buf_free(&b);
		free(in_stage), free(on_disk), free(g.rel[i]);
		wp_buf_free(&g.bytes[i]);
	}
	assert_true(torch_seen);
	/* the staged pages announce each .metadata as the disk's do */
	char *page = wp_xasprintf("%s/simple/torch/index.html", staged);
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_file_read_capped(page, 1 << 20, &b, NULL), 0);
	assert_non_null(strstr(b.data, "data-core-metadata=\"sha256="));
	wp_buf_free(&b);
	free(page);
	free(staged);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mirror_two_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mirror_leaves_refused_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mirror_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mirror_damage_is_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mirror_metadata_to_a_sink, setup, teardown),
	};
	return cmocka_run_group_tests_name("job_mirror", tests, jf_group_setup, jf_group_teardown);
}
