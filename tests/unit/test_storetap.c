/* tests/unit/test_storetap.c: the store writer's tap sees every byte of the file, in order, once,
 * inline or on its own thread, through 1 MiB blocks, restarts and aborts; and a batch commit
 * (seal, start_sync, commit, sync_dirs) puts what it sealed in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "cache/store.h"
#include "verify/hash.h"

struct fx {
	char dir[64];
	struct wp_store st;
};

static int fx_setup(void **state)
{
	struct fx *fx = wp_xcalloc(1, sizeof(*fx));
	struct wp_err err = WP_ERR_INIT;
	if (test_tmpdir_make(fx->dir, sizeof(fx->dir), "storetap") < 0)
		return -1;
	char *root = wp_xasprintf("%s/files", fx->dir);
	int rc = wp_store_init(&fx->st, root, &err);
	free(root);
	*state = fx;
	return rc;
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;
	int rc = test_tmpdir_remove(fx->dir);
	wp_store_release(&fx->st);
	free(fx);
	return rc;
}

/* A tap that hashes what it sees and counts it. */
struct seen {
	struct wp_hasher h;
	long long bytes;
	int resets;
	long long count_off; /* tap_sha256 says it covers this many bytes more than it does */
	bool gave;           /* tap_sha256 was asked */
};

static void tap(void *ctx, const void *p, size_t n)
{
	struct seen *s = ctx;
	wp_hasher_update(&s->h, p, n);
	s->bytes += (long long)n;
}

static void tap_reset(void *ctx)
{
	struct seen *s = ctx;
	struct wp_err err = WP_ERR_INIT;
	wp_hasher_reset(&s->h, &err);
	s->bytes = 0;
	s->resets++;
}

/* The file's digest from the tap (the writer then hashes nothing itself). */
static int tap_sha256(void *ctx, unsigned char out[32], long long *len)
{
	struct seen *s = ctx;
	struct wp_err err = WP_ERR_INIT;
	s->gave = true;
	*len = s->bytes + s->count_off;
	return wp_hasher_final_raw(&s->h, out, NULL, &err);
}

static unsigned char *pattern(size_t n)
{
	unsigned char *p = wp_xmalloc(n);
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = (unsigned char)x;
	}
	return p;
}

/* size bytes in pieces of piece, starting over at byte 0 once restart_at bytes went in (0: never).
 * digest: the tap gives the file's sha256 (1), or one whose count is off by a byte (2: the writer
 * must then hash the file from disk); the sealed sha256 is the data's either way. */
static void run_case_d(struct fx *fx, size_t size, size_t piece, size_t restart_at, bool thread,
		       int digest)
{
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	struct seen s = { 0 };
	char sha[WP_SHA256_HEX_LEN + 1], tapped[WP_SHA256_HEX_LEN + 1];
	unsigned char *data = pattern(size);
	assert_int_equal(wp_hasher_init(&s.h, WP_HASH_SHA256, &err), 0);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "tap.whl", &err), 0);
	w.tap = tap;
	w.tap_reset = tap_reset;
	w.tap_ctx = &s;
	w.tap_thread = thread;
	if (digest) {
		w.tap_sha256 = tap_sha256;
		s.count_off = digest == 2 ? -1 : 0;
	}
	for (size_t off = 0; off < size; off += piece) {
		size_t n = size - off < piece ? size - off : piece;
		assert_int_equal(wp_store_writer_write(&w, data + off, n), 0);
		if (restart_at && off + n >= restart_at) {
			assert_int_equal(wp_store_writer_reset(&w, 0), 0);
			restart_at = 0;
			off = (size_t)0 - piece; /* the loop adds piece: from 0 again */
		}
	}
	assert_int_equal(wp_store_writer_seal(&w, sha, &err), 0);
	assert_null(w.tq); /* the tap thread is over once the writer is sealed */
	assert_int_equal(s.bytes, (long long)size);
	char want[WP_SHA256_HEX_LEN + 1];
	assert_int_equal(wp_sha256_hex_of(data, size, want), 0);
	assert_string_equal(sha, want);
	assert_true(s.gave == (digest != 0));
	if (!digest) {
		assert_int_equal(wp_hasher_final(&s.h, tapped, NULL, &err), 0);
		assert_string_equal(tapped, sha);
	}
	char *path = NULL;
	wp_store_writer_start_sync(&w);
	assert_int_equal(wp_store_writer_commit(&w, &path, &err), 0);
	assert_int_equal(wp_store_sync_dirs(&fx->st, &err), 0);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, (long long)size);
	free(path);
	wp_hasher_release(&s.h);
	free(data);
}

static void run_case(struct fx *fx, size_t size, size_t piece, size_t restart_at, bool thread)
{
	run_case_d(fx, size, piece, restart_at, thread, 0);
}

/* The tap's digest is the file's: the writer hashed nothing (a tap whose digest is wrong makes
 * the seal refuse the file), and one that covers another count of bytes is not used. */
static void test_tap_digest(void **state)
{
	struct fx *fx = *state;
	run_case_d(fx, 3 << 20, 16384, 0, false, 1);
	run_case_d(fx, 20 << 20, 16381, 0, true, 1);
	run_case_d(fx, 20 << 20, 65536, 12 << 20, true, 1);
	run_case_d(fx, 20 << 20, 65536, 0, true, 2);
	run_case_d(fx, 1000, 100, 0, false, 2);

	/* a tap whose digest is of other bytes: the expected sha256 (the data's) does not match */
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	struct seen s = { 0 };
	char sha[WP_SHA256_HEX_LEN + 1], want[WP_SHA256_HEX_LEN + 1];
	unsigned char *data = pattern(4 << 20);
	assert_int_equal(wp_sha256_hex_of(data, 4 << 20, want), 0);
	assert_int_equal(wp_hasher_init(&s.h, WP_HASH_SHA256, &err), 0);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, want, 4 << 20, "lie.whl", &err), 0);
	w.tap = tap;
	w.tap_reset = tap_reset;
	w.tap_ctx = &s;
	w.tap_sha256 = tap_sha256;
	assert_int_equal(wp_store_writer_write(&w, data, 4 << 20), 0);
	wp_hasher_update(&s.h, "x", 1); /* the tap's digest now covers one byte more than the file
					 */
	assert_int_equal(wp_store_writer_seal(&w, sha, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "sha256 mismatch"));
	wp_store_writer_abort(&w);
	wp_hasher_release(&s.h);
	free(data);
}

static void test_tap_inline_and_threaded(void **state)
{
	struct fx *fx = *state;
	run_case(fx, 3 << 20, 16384, 0, false);
	run_case(fx, 20 << 20, 16384, 0, true);            /* the thread starts past 8 MiB */
	run_case(fx, 20 << 20, 16381, 0, true);            /* pieces that straddle blocks */
	run_case(fx, 20 << 20, 3 << 20, 0, true);          /* pieces bigger than a block */
	run_case(fx, 20 << 20, 65536, 12 << 20, true);     /* a restart while the thread runs */
	run_case(fx, 5 << 20, 65536, 1 << 20, true);       /* a restart before it starts */
}

static void test_abort_with_thread(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	struct seen s = { 0 };
	unsigned char *data = pattern(1 << 20);
	assert_int_equal(wp_hasher_init(&s.h, WP_HASH_SHA256, &err), 0);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "gone.whl", &err), 0);
	w.tap = tap;
	w.tap_reset = tap_reset;
	w.tap_ctx = &s;
	w.tap_thread = true;
	for (int i = 0; i < 12; i++)
		assert_int_equal(wp_store_writer_write(&w, data, 1 << 20), 0);
	wp_store_writer_abort(&w);
	assert_null(w.tq);
	wp_hasher_release(&s.h);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tap_inline_and_threaded),
		cmocka_unit_test(test_abort_with_thread),
		cmocka_unit_test(test_tap_digest),
	};
	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
