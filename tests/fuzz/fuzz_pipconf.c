/* tests/fuzz/fuzz_pipconf.c: libFuzzer target for pip's configuration format
 * (ops/core/indexconf.c): every key and value it hands out is a C string within the input's length,
 * keys lower case. */
#include "tests/fuzz/fuzz.h"

#include <ctype.h>

#include "ops/core/indexconf.h"

struct seen {
	size_t n, max;
};

static void on_key(void *ctx, const char *section, const char *key, const char *value,
		   unsigned line)
{
	struct seen *s = ctx;
	s->n++;
	FZ_CHECK(strlen(section) <= s->max && strlen(key) <= s->max && strlen(value) <= s->max);
	FZ_CHECK(*key != 0);
	for (const char *c = key; *c; c++)
		FZ_CHECK(!isupper((unsigned char)*c) && *c != '_');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exactly-sized copy without a NUL: an overread past it is caught */
	char *text = wp_xmalloc(size ? size : 1);
	memcpy(text, data, size);
	struct seen s = { 0, size };
	wp_pipconf_parse(text, size, on_key, &s);
	FZ_CHECK(s.n <= size);
	free(text);
	return 0;
}
