/* tests/fuzz/fuzz_msgpack.c: libFuzzer target for base/msgpack's reader and the CEP 16 decoding
 * over it: any bytes either fail with a message or give JSON that the JSON reader accepts; the same
 * bytes as a shard index (msgpack, not compressed: "raw" is read as such) never crash. */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"
#include "base/msgpack.h"
#include "ops/core/shardread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_buf out = WP_BUF_INIT_MAX(4 << 20);
	struct wp_err e = WP_ERR_INIT;
	char *copy = wp_xmalloc(size ? size : 1); /* exactly sized: an overread is caught */
	memcpy(copy, data, size);
	int rc = wp_msgpack_to_json(copy, size, "fuzz", &out, &e);
	FZ_CHECK(rc == 0 || (e.code == rc && e.msg[0] && !strchr(e.msg, '\n')));
	if (!rc) {
		const struct wp_json_opts o = { .what = "fuzz", .max_bytes = out.len + 1 };
		struct wp_json_val *root = NULL;
		/* what the reader writes is JSON, nested no deeper than it allows */
		FZ_CHECK(wp_json_load(out.data, out.len, &o, &root, NULL) == 0);
		wp_json_tree_free(root);
	}
	struct wp_shard_index ix;
	struct wp_err ie = WP_ERR_INIT;
	if (wp_shard_index_decode(copy, size,
				  "https://h.example/c/linux-64/repodata_shards.msgpack.zst", &ix,
				  &ie) == 0) {
		for (size_t i = 0; i < ix.n; i++)
			FZ_CHECK(wp_shard_index_find(&ix, ix.v[i].name) != NULL);
		if (ix.n) {
			struct wp_buf json = WP_BUF_INIT;
			struct wp_err se = WP_ERR_INIT;
			(void)wp_shard_to_repodata(copy, size, &ix, &ix.v[0], "fuzz", &json, &se);
			wp_buf_free(&json);
		}
		wp_shard_index_release(&ix);
	} else {
		FZ_CHECK(ie.msg[0]);
	}
	wp_buf_free(&out);
	free(copy);
	return 0;
}
