/* tests/unit/test_msgpack.c: base/msgpack's reader (MessagePack to JSON: every type, the bounds on
 * counts, depth and bytes) against its writer, and ops/shardread's index and shard decoding (hash
 * of the compressed or the decompressed bytes, a tampered shard, refused base URLs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"
#include "base/msgpack.h"
#include "base/zstd.h"
#include "ops/conda/shards.h"
#include "ops/core/shardread.h"
#include "verify/hash.h"

/* bytes (given as a string with \x escapes) read as JSON: the text, or "ERR <code>" */
static char *read_as_json(const char *data, size_t n)
{
	struct wp_buf out = WP_BUF_INIT_MAX(1 << 20);
	struct wp_err err = WP_ERR_INIT;
	char *r;
	int rc = wp_msgpack_to_json(data, n, "t", &out, &err);
	if (rc) {
		assert_true(err.msg[0] != 0);
		assert_non_null(strstr(err.msg, "'t'"));
		r = malloc(32);
		snprintf(r, 32, "ERR %d", -rc);
	} else {
		r = strdup(wp_buf_cstr(&out));
	}
	wp_buf_free(&out);
	return r;
}

#define EXPECT(bytes, want)                                              \
	do {                                                             \
		char *got_ = read_as_json(bytes, sizeof(bytes) - 1);     \
		assert_string_equal(got_, want);                         \
		free(got_);                                              \
	} while (0)

static void test_types(void **state)
{
	EXPECT("\x05", "5");
	EXPECT("\xff", "-1");
	EXPECT("\xcc\xff", "255");
	EXPECT("\xd1\xff\x00", "-256");
	EXPECT("\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "18446744073709551615");
	EXPECT("\xc0", "null");
	EXPECT("\xc3", "true");
	EXPECT("\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00", "1.5");
	EXPECT("\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", "null"); /* NaN is no JSON number */
	EXPECT("\xa3" "a\"b", "\"a\\\"b\"");
	EXPECT("\xa1\x01", "\"\\u0001\"");
	EXPECT("\xc4\x02\xab\x01", "\"ab01\""); /* bin: hex, as repodata.json writes hashes */
	EXPECT("\x92\x01\xa1x", "[1,\"x\"]");
	EXPECT("\x81\xa1k\x90", "{\"k\":[]}");
	EXPECT("\xa2\xc3\xa9", "\"\xc3\xa9\"");
}

static void test_refused(void **state)
{
	EXPECT("", "ERR 6");
	EXPECT("\x92\x01", "ERR 6");                 /* truncated */
	EXPECT("\x01\x02", "ERR 6");                 /* trailing bytes */
	EXPECT("\xc1", "ERR 6");                     /* reserved */
	EXPECT("\xd4\x01\x02", "ERR 6");             /* ext */
	EXPECT("\x81\x01\x02", "ERR 6");             /* a key that is no string */
	EXPECT("\xa2\xc3\x28", "ERR 6");             /* not UTF-8 */
	EXPECT("\xed\xa0\x80", "ERR 6");             /* negative fixint then junk: trailing */
	/* a 4-billion-element array in 5 bytes: refused before any allocation */
	EXPECT("\xdd\xff\xff\xff\xff", "ERR 6");
	EXPECT("\xdf\xff\xff\xff\xff\x01", "ERR 6");
	EXPECT("\xdb\xff\xff\xff\xff", "ERR 6");
	/* nesting: 16 levels read, 17 refused */
	char deep[18];
	memset(deep, 0x91, 17);
	deep[17] = 0x01;
	char *ok = read_as_json(deep + 1, 16 + 1), *bad = read_as_json(deep, 17 + 1);
	assert_string_equal(ok, "[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]");
	assert_string_equal(bad, "ERR 6");
	free(ok);
	free(bad);
	/* past the ceiling of the output */
	struct wp_buf small = WP_BUF_INIT_MAX(4);
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_msgpack_to_json("\xa6" "abcdef", 7, "t", &small, &err), -WPE_TOO_BIG);
	wp_buf_free(&small);
}

/* The writer's output reads back as the JSON it was given (hex under sha256 round-trips). */
static void test_round_trip(void **state)
{
	const char *
		text = "{\"name\":\"x\",\"sha256\":\"00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff\","
		       "\"depends\":[\"a >=1\",\"b\"],\"size\":-3,\"ok\":false}";
	struct wp_json_val *v = NULL;
	const struct wp_json_opts jo = { .what = "t", .max_bytes = 4096 };
	assert_int_equal(wp_json_load(text, strlen(text), &jo, &v, NULL), 0);
	struct wp_msgpack *m = wp_msgpack_new();
	wp_msgpack_json(m, v, NULL);
	size_t n;
	const void *data = wp_msgpack_data(m, &n);
	struct wp_buf out = WP_BUF_INIT_MAX(1 << 20);
	assert_int_equal(wp_msgpack_to_json(data, n, "t", &out, NULL), 0);
	assert_string_equal(out.data, text);
	wp_buf_free(&out);
	wp_msgpack_free(m);
	wp_json_tree_free(v);
}

/* ---- shards ---- */

static void zst(struct wp_msgpack *m, struct wp_buf *out)
{
	size_t n;
	const void *data = wp_msgpack_data(m, &n);
	assert_int_equal(wp_zstd_compress(data, n, out, NULL), 0);
}

static void hex_of(const void *p, size_t n, char out[65])
{
	struct wp_hasher h;
	assert_int_equal(wp_hasher_init(&h, WP_HASH_SHA256, NULL), 0);
	wp_hasher_update(&h, p, n);
	assert_int_equal(wp_hasher_final(&h, out, NULL, NULL), 0);
	wp_hasher_release(&h);
}

static void index_of(const char *base_url, const char *name, const char hex[65], struct wp_buf *out)
{
	unsigned char raw[32];
	for (int i = 0; i < 32; i++)
		sscanf(hex + 2 * i, "%2hhx", &raw[i]);
	struct wp_msgpack *m = wp_msgpack_new();
	wp_msgpack_map(m, 3);
	wp_msgpack_str(m, "version");
	wp_msgpack_int(m, 1);
	wp_msgpack_str(m, "info");
	wp_msgpack_map(m, 2);
	wp_msgpack_str(m, "base_url");
	wp_msgpack_str(m, base_url);
	wp_msgpack_str(m, "subdir");
	wp_msgpack_str(m, "linux-64");
	wp_msgpack_str(m, "shards");
	wp_msgpack_map(m, 2);
	wp_msgpack_str(m, name);
	wp_msgpack_bin(m, raw, 32);
	wp_msgpack_str(m, "bad/name");
	wp_msgpack_bin(m, raw, 32);
	zst(m, out);
	wp_msgpack_free(m);
}

static void test_shards(void **state)
{
	/* a shard: {"packages": {"x-1-0.tar.bz2": {"name": "x", ...}}, "packages.conda": {}} */
	struct wp_msgpack *m = wp_msgpack_new();
	wp_msgpack_map(m, 2);
	wp_msgpack_str(m, "packages");
	wp_msgpack_map(m, 1);
	wp_msgpack_str(m, "x-1-0.tar.bz2");
	wp_msgpack_map(m, 1);
	wp_msgpack_str(m, "name");
	wp_msgpack_str(m, "x");
	wp_msgpack_str(m, "packages.conda");
	wp_msgpack_map(m, 0);
	size_t rawn;
	const void *raw = wp_msgpack_data(m, &rawn);
	struct wp_buf z = WP_BUF_INIT, ixz = WP_BUF_INIT, json = WP_BUF_INIT;
	zst(m, &z);
	char hz[65], hraw[65];
	hex_of(z.data, z.len, hz);
	hex_of(raw, rawn, hraw);

	struct wp_shard_index ix;
	struct wp_err err = WP_ERR_INIT;
	const char *url = "https://h.example/ch/linux-64/repodata_shards.msgpack.zst";
	index_of("./", "x", hz, &ixz);
	assert_int_equal(wp_shard_index_decode(ixz.data, ixz.len, url, &ix, &err), 0);
	assert_int_equal(ix.n, 1);
	assert_int_equal(ix.malformed, 1); /* "bad/name" */
	assert_string_equal(ix.base_url, "https://h.example/ch/linux-64/");
	assert_string_equal(ix.shards_base_url, "https://h.example/ch/linux-64/shards/");
	const struct wp_shard_entry *e = wp_shard_index_find(&ix, "x");
	assert_non_null(e);
	assert_null(wp_shard_index_find(&ix, "y"));
	char *su = wp_shard_url(&ix, e);
	assert_non_null(strstr(su, hz));
	free(su);
	/* packages beside the index: no base_url in the text, as in the subdir's own
	 * repodata.json */
	assert_int_equal(wp_shard_to_repodata(z.data, z.len, &ix, e, "s", &json, &err), 0);
	assert_string_equal(json.data,
			    "{\"info\":{\"subdir\":\"linux-64\"},\"packages\":{\"x-1-0.tar.bz2\":{\"name\":\"x\"}},"
			    "\"packages.conda\":{}}");
	/* one byte changed: exit 4's code, naming both hashes */
	z.data[z.len - 1] ^= 1;
	wp_err_clear(&err);
	assert_int_equal(wp_shard_to_repodata(z.data, z.len, &ix, e, "s", &json, &err),
			 -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, hz));
	z.data[z.len - 1] ^= 1;
	wp_shard_index_release(&ix);

	/* an index that hashes the bytes before compression, with packages elsewhere */
	wp_buf_reset(&ixz);
	index_of("https://files.example/x/", "x", hraw, &ixz);
	assert_int_equal(wp_shard_index_decode(ixz.data, ixz.len, url, &ix, &err), 0);
	e = wp_shard_index_find(&ix, "x");
	assert_int_equal(wp_shard_to_repodata(z.data, z.len, &ix, e, "s", &json, &err), 0);
	assert_non_null(strstr(json.data, "\"base_url\":\"https://files.example/x/\""));
	wp_shard_index_release(&ix);

	/* an index on the network may not send us to a local file, nor https to http */
	wp_buf_reset(&ixz);
	index_of("file:///etc/", "x", hz, &ixz);
	wp_err_clear(&err);
	assert_int_equal(wp_shard_index_decode(ixz.data, ixz.len, url, &ix, &err), -WPE_SOURCE);
	assert_non_null(strstr(err.msg, "file:///etc/"));
	wp_buf_reset(&ixz);
	index_of("http://h.example/", "x", hz, &ixz);
	assert_int_equal(wp_shard_index_decode(ixz.data, ixz.len, url, &ix, &err), -WPE_SOURCE);
	/* not an index at all */
	assert_int_equal(wp_shard_index_decode("garbage", 7, url, &ix, &err) < 0, 1);

	wp_buf_free(&z);
	wp_buf_free(&ixz);
	wp_buf_free(&json);
	wp_msgpack_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_shards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
