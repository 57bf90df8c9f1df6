/* tests/fuzz/fuzz_marker.c: libFuzzer target for PEP 508 markers: parse, print, reparse,
 * evaluate. */
#include "tests/fuzz/fuzz.h"

#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/marker.h"

static void set_env(struct wp_marker_env *env, const char *extra)
{
	static const char *const kv[][2] = {
		{ "implementation_name", "cpython" },
		{ "implementation_version", "3.8.10" },
		{ "os_name", "posix" },
		{ "platform_machine", "x86_64" },
		{ "platform_release", "6.1.0-17-amd64" },
		{ "platform_system", "Linux" },
		{ "platform_version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.69-1" },
		{ "python_full_version", "3.8.10" },
		{ "platform_python_implementation", "CPython" },
		{ "python_version", "3.8" },
		{ "sys_platform", "linux" },
	};
	struct wp_err err = WP_ERR_INIT;
	wp_marker_env_init(env);
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		FZ_CHECK(wp_marker_env_set(env, kv[i][0], kv[i][1], &err) == 0);
	FZ_CHECK(wp_marker_env_set(env, "extra", extra, &err) == 0);
}

/* packaging reads a quoted value with Python's literal_eval (escapes resolved) and str() prints it
 * raw inside '"', so a value holding '"' or a backslash does not print back to itself. */
static bool prints_raw(const char *s, size_t n)
{
	return (memchr(s, '"', n) && memchr(s, '\'', n)) || memchr(s, '\\', n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exactly-sized copy, not NUL-terminated: the parser takes a length */
	char *s = wp_xmalloc(size ? size : 1);
	memcpy(s, data, size);
	struct wp_err err = WP_ERR_INIT;
	struct wp_marker m;
	if (wp_marker_parse(&m, s, size, &err) == 0) {
		struct wp_buf out = WP_BUF_INIT_MAX(4 * WP_MARKER_MAX_LEN);
		if (wp_marker_format(&m, &out) == 0 && out.len <= WP_MARKER_MAX_LEN) {
			struct wp_marker again;
			struct wp_err e2 = WP_ERR_INIT;
			if (wp_marker_parse(&again, wp_buf_cstr(&out), out.len, &e2) == 0) {
				struct wp_buf out2 = WP_BUF_INIT_MAX(4 * WP_MARKER_MAX_LEN);
				FZ_CHECK(wp_marker_format(&again, &out2) == 0);
				FZ_CHECK(prints_raw(s, size) ||
					 (out2.len == out.len &&
					  memcmp(wp_buf_cstr(&out2), wp_buf_cstr(&out), out.len) ==
						  0));
				wp_buf_free(&out2);
				wp_marker_release(&again);
			} else {
				FZ_CHECK(e2.code == -WPE_TOO_BIG || prints_raw(s, size));
			}
		}
		wp_buf_free(&out);

		static const char *const extras[] = { "", "gpu", "Foo.Bar" };
		for (size_t i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
			struct wp_marker_env env;
			set_env(&env, extras[i]);
			bool res = false;
			struct wp_err e3 = WP_ERR_INIT;
			(void)wp_marker_evaluate(&m, &env, &res, &e3);
			/* an empty environment must not crash either */
			wp_marker_env_init(&env);
			wp_err_clear(&e3);
			(void)wp_marker_evaluate(&m, &env, &res, &e3);
		}
		wp_marker_release(&m);
	}

	/* the requirement grammar's entry point: a marker after "name ;" */
	wp_err_clear(&err);
	size_t pos = 0;
	if (wp_marker_parse_at(&m, s, size, &pos, &err) == 0) {
		FZ_CHECK(pos <= size);
		wp_marker_release(&m);
	}
	free(s);
	return 0;
}
