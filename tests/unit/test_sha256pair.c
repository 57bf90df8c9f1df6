/* tests/unit/test_sha256pair.c: the two-lane SHA-256 gives OpenSSL's digests, for every split of
 * the bytes into updates and every offset of one lane's block boundary against the other's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "verify/hash.h"
#include "verify/sha256pair.h"

static void ref(const unsigned char *p, size_t n, unsigned char out[32])
{
	struct wp_hasher h;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_hasher_init(&h, 0, &err), 0);
	wp_hasher_update(&h, p, n);
	assert_int_equal(wp_hasher_final_raw(&h, out, NULL, &err), 0);
	wp_hasher_release(&h);
}

static void test_vectors(void **state)
{
	(void)state;
	static const char *const hex[] = {
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	};
	static const char *const in[] = { "", "abc" };
	for (int i = 0; i < 2; i++) {
		struct wp_sha256 c = { 0 };
		struct wp_err err = WP_ERR_INIT;
		unsigned char d[32];
		char got[65];
		assert_int_equal(wp_sha256_init(&c, &err), 0);
		wp_sha256_update(&c, in[i], strlen(in[i]));
		assert_int_equal(wp_sha256_final(&c, d, &err), 0);
		wp_hex_encode(d, 32, got);
		assert_string_equal(got, hex[i]);
		wp_sha256_release(&c);
	}
}

/* Lane a has taken `pre` bytes of its own before the shared ones (a file's headers before a
 * member), lane b none; the shared bytes come in updates of `step`. Both digests must be
 * OpenSSL's, whatever pre and step are (lengths around every block edge). */
static void pair_splits(void)
{
	enum { N = 5000 };
	unsigned char *buf = wp_xmalloc(N + 200);
	for (size_t i = 0; i < N + 200; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 13);
	static const size_t pres[] = { 0, 1, 30, 63, 64, 65, 127, 130 };
	static const size_t steps[] = { 1, 63, 64, 65, 255, 256, 257, 1000, 4096, N };
	static const size_t lens[] = { 0, 55, 56, 64, 119, 120, 256, 1024, 4099, N };
	for (size_t pi = 0; pi < sizeof(pres) / sizeof(*pres); pi++)
		for (size_t si = 0; si < sizeof(steps) / sizeof(*steps); si++)
			for (size_t li = 0; li < sizeof(lens) / sizeof(*lens); li++) {
				size_t pre = pres[pi], step = steps[si], len = lens[li];
				struct wp_sha256 a = { 0 }, b = { 0 };
				struct wp_err err = WP_ERR_INIT;
				unsigned char da[32], db[32], ra[32], rb[32];
				assert_int_equal(wp_sha256_init(&a, &err), 0);
				assert_int_equal(wp_sha256_init(&b, &err), 0);
				wp_sha256_update(&a, buf, pre);
				for (size_t off = 0; off < len; off += step)
					wp_sha256_update2(&a, &b, buf + pre + off,
							  len - off < step ? len - off : step);
				wp_sha256_update(&a, buf + pre + len, 7); /* a file goes on past its
									     member */
				assert_int_equal(wp_sha256_final(&a, da, &err), 0);
				assert_int_equal(wp_sha256_final(&b, db, &err), 0);
				ref(buf, pre + len + 7, ra);
				ref(buf + pre, len, rb);
				if (memcmp(da, ra, 32) || memcmp(db, rb, 32))
					fail_msg("pre %zu step %zu len %zu: a %s, b %s", pre, step,
						 len, memcmp(da, ra, 32) ? "differs" : "ok",
						 memcmp(db, rb, 32) ? "differs" : "ok");
				assert_true(a.len == pre + len + 7 && b.len == len);
				/* init again starts over */
				assert_int_equal(wp_sha256_init(&b, &err), 0);
				wp_sha256_update(&b, buf + pre, len);
				assert_int_equal(wp_sha256_final(&b, db, &err), 0);
				assert_memory_equal(db, rb, 32);
				wp_sha256_release(&a);
				wp_sha256_release(&b);
			}
	free(buf);
}

static void test_pair_splits(void **state)
{
	(void)state;
	pair_splits();
}

/* The same through OpenSSL's path, the one CPUs without SHA-NI take. */
static void test_pair_splits_openssl(void **state)
{
	(void)state;
	wp_sha256_allow_native(false);
	assert_false(wp_sha256_native());
	struct wp_sha256 c = { 0 };
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_sha256_init(&c, &err), 0);
	assert_false(c.native);
	wp_sha256_release(&c);
	pair_splits();
	wp_sha256_allow_native(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_pair_splits),
		cmocka_unit_test(test_pair_splits_openssl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
