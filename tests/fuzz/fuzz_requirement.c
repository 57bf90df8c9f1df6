/* tests/fuzz/fuzz_requirement.c: libFuzzer target for PEP 508 requirements: parse, print,
 * reparse. */
#include "tests/fuzz/fuzz.h"

#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/requirement.h"

/* packaging reads a quoted value with Python's literal_eval (escapes resolved) and str() prints it
 * raw inside '"', so a value holding '"' or a backslash does not print back to itself. */
static bool prints_raw(const char *s, size_t n)
{
	return (memchr(s, '"', n) && memchr(s, '\'', n)) || memchr(s, '\\', n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = wp_xmalloc(size ? size : 1);
	memcpy(s, data, size);
	struct wp_err err = WP_ERR_INIT;
	struct wp_requirement r;
	if (wp_requirement_parse(&r, s, size, &err) == 0) {
		size_t n = fz_touch(r.name) + fz_touch(r.url);
		for (size_t i = 0; i < r.nextras; i++)
			n += fz_touch(r.extras[i]);
		(void)n;
		struct wp_buf out = WP_BUF_INIT_MAX(4 * WP_REQUIREMENT_MAX_LEN);
		if (wp_requirement_format(&r, &out) == 0 && out.len <= WP_REQUIREMENT_MAX_LEN) {
			struct wp_requirement again;
			struct wp_err e2 = WP_ERR_INIT;
			if (wp_requirement_parse(&again, wp_buf_cstr(&out), out.len, &e2) == 0) {
				struct wp_buf out2 = WP_BUF_INIT_MAX(4 * WP_REQUIREMENT_MAX_LEN);
				FZ_CHECK(wp_requirement_format(&again, &out2) == 0);
				FZ_CHECK(prints_raw(s, size) ||
					 (out2.len == out.len &&
					  memcmp(wp_buf_cstr(&out2), wp_buf_cstr(&out), out.len) ==
						  0));
				wp_buf_free(&out2);
				wp_requirement_release(&again);
			} else {
				FZ_CHECK(e2.code == -WPE_TOO_BIG || prints_raw(s, size));
			}
		}
		wp_buf_free(&out);
		struct wp_buf canon = WP_BUF_INIT_MAX(4096);
		(void)wp_name_canonicalize(r.name, strlen(r.name), &canon);
		wp_buf_free(&canon);
		wp_requirement_release(&r);
	}
	struct wp_buf canon = WP_BUF_INIT_MAX(1 << 20);
	(void)wp_name_canonicalize(s, size, &canon);
	wp_buf_free(&canon);
	free(s);
	return 0;
}
