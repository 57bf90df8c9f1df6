/* tests/fuzz/fuzz_toml.c: libFuzzer target for index/toml (the TOML reader under pylock.toml). */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "index/toml.h"

static size_t walk(const struct wp_toml *t, int depth)
{
	size_t n = 1;
	FZ_CHECK(depth <= WP_TOML_MAX_DEPTH + 2);
	if (t->str)
		FZ_CHECK(t->str[t->len] == 0);
	for (size_t i = 0; i < t->n; i++) {
		if (t->type == WP_TOML_TABLE) {
			(void)fz_touch(t->keys[i]);
			/* every key finds its own value */
			FZ_CHECK(wp_toml_get(t, t->keys[i]) != NULL);
		}
		n += walk(t->items[i], depth + 1);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_toml *t = NULL;
	if (wp_toml_parse((const char *)data, size, "fuzz.toml", &t, &err) == 0) {
		FZ_CHECK(t && t->type == WP_TOML_TABLE);
		FZ_CHECK(walk(t, 0) <= WP_TOML_MAX_NODES);
		wp_toml_free(t);
	} else {
		FZ_CHECK(err.msg[0] != 0);
	}
	FZ_CHECK(err.msg[sizeof(err.msg) - 1] == 0);
	return 0;
}
