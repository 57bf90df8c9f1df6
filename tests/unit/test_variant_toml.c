/* tests/unit/test_variant_toml.c: refusals of hostile metadata: PEP 825 variant metadata
 * with duplicated keys, names PEP 825 does not allow, and DEL in a string written to TOML. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "index/variants.h"
#include "ops/wheel/locks.h"
#include "resolver/wheelvariant.h"

#define HEAD "{\"$schema\": \"https://x/v0.1.1.json\", "

static int parse_text(const char *text, struct wp_variants *v, struct wp_err *e)
{
	return wp_variants_parse("t.json", text, strlen(text), v, e);
}

static void test_variants_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *text, *says;
	} bad[] = {
		/* Python's json and uv read the last "a" label, a first-wins reader the first */
		{ HEAD
		  "\"default-priorities\": {\"namespace\": [\"a\"]}, \"variants\": {\"x\": {\"a\": {\"f\": [\"1\"]}},"
		  " \"x\": {\"a\": {\"f\": [\"2\"]}}}}",
		  "the key 'x' appears twice" },
		{ HEAD
		  "\"default-priorities\": {\"namespace\": [\"a\"], \"namespace\": [\"b\"]}, \"variants\": {}}",
		  "the key 'namespace' appears twice" },
		{ HEAD
		  "\"default-priorities\": {\"namespace\": [\"a\"]}, \"variants\": {\"x\": {\"a\": {\"f\": [\"1\"], \"f\": [\"2\"]}}}}",
		  "the key 'f' appears twice" },
		{ HEAD
		  "\"$schema\": \"https://x/v0.1.1.json\", \"default-priorities\": {\"namespace\": [\"a\"]}, \"variants\": {}}",
		  "the key '$schema' appears twice" },
		/* PEP 825's names where the file names namespaces: feature priorities and
		 * providers */
		{ HEAD
		  "\"default-priorities\": {\"namespace\": [\"a\"], \"feature\": {\"A\\u007f\": [\"f\"]}}, \"variants\": {}}",
		  "default-priorities.feature has a namespace" },
		{ HEAD
		  "\"default-priorities\": {\"namespace\": [\"a\"]}, \"providers\": {\"a b\": {}}, \"variants\": {}}",
		  "providers has a namespace" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		struct wp_variants v;
		struct wp_err e = WP_ERR_INIT;
		if (parse_text(bad[i].text, &v, &e) != -WPE_SOURCE)
			fail_msg("accepted: %s", bad[i].text);
		if (!strstr(e.msg, bad[i].says))
			fail_msg("'%s' lacks '%s'", e.msg, bad[i].says);
	}
}

/* A $schema holding U+007F (the wheelnext host takes any text after it): escaped, as the locks
 * writer escapes it, so that the pylock.toml stays TOML. */
static void test_toml_del(void **state)
{
	(void)state;
	struct wp_variants v;
	struct wp_err e = WP_ERR_INIT;
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(parse_text("{\"$schema\": \"https://variants-schema.wheelnext.dev/x\\u007fy\","
				    " \"default-priorities\": {\"namespace\": [\"a\"]}, \"variants\": {\"null\": {}}}",
				    &v, &e),
			 0);
	wp_pylock_variants_toml(&v, NULL, 0, "packages.variants-json", &b);
	assert_null(memchr(b.data, 0x7f, b.len));
	assert_non_null(strstr(b.data, "x\\u007fy"));
	wp_buf_free(&b);
	wp_variants_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variants_refusals),
		cmocka_unit_test(test_toml_del),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
