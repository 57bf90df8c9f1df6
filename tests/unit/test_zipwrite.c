/* tests/unit/test_zipwrite.c: the one-member stored zip a Windows entry point carries
 * (verify/zipwrite.c), read back by the zip reader of verify/zipmeta.c: end record, central entry,
 * local header and data agree, the CRC-32 checks, and the data is the bytes given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "verify/zipmeta.h"
#include "verify/zipwrite.h"

static void read_back(const char *body, size_t n)
{
	struct wp_buf z = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	wp_zip_one_stored("demo-1.0.dist-info/METADATA", body, n, &z);
	const unsigned char *f = (const unsigned char *)z.data;
	struct wp_zip_end end;
	assert_int_equal(wp_zip_end_find("t.zip", f, z.len, z.len, &end, &err), 0);
	assert_false(end.need_more);
	assert_int_equal(end.n_entries, 1);
	struct wp_zip_member m;
	assert_int_equal(wp_zip_find_metadata("t.zip", f + end.cd_offset, (size_t)end.cd_size, &end,
					      "demo", "1.0", &m, &err),
			 0);
	assert_int_equal(m.method, 0);
	assert_int_equal(m.size, n);
	assert_int_equal(m.comp_size, n);
	size_t at = 0;
	uint64_t need = 0;
	assert_int_equal(wp_zip_local_data("t.zip", f + m.local_offset, z.len - m.local_offset, &m,
					   &at, &need, &err),
			 0);
	assert_int_equal(need, 0);
	char *out = NULL;
	size_t out_len = 0;
	assert_int_equal(wp_zip_member_decode("t.zip", f + m.local_offset + at, n, &m, &out,
					      &out_len, &err),
			 0);
	assert_int_equal(out_len, n);
	assert_memory_equal(out, body, n);
	free(out);
	wp_buf_free(&z);
}

static void test_script(void **state)
{
	(void)state;
	static const char body[] = "# -*- coding: utf-8 -*-\nimport re\nimport sys\n"
				   "from alpha import main\nsys.exit(main())\n";
	read_back(body, sizeof(body) - 1);
}

static void test_empty_and_binary(void **state)
{
	(void)state;
	read_back("", 0);
	unsigned char bin[5000];
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(i * 131 + 7);
	read_back((const char *)bin, sizeof(bin));
}

/* Appended to other bytes (the launcher), the archive's offsets stay its own: the end record's
 * central directory offset counts from the archive's first byte. */
static void test_appended(void **state)
{
	(void)state;
	struct wp_buf z = WP_BUF_INIT;
	wp_buf_addstr(&z, "MZ launcher bytes #!python.exe\n");
	size_t pre = z.len;
	wp_zip_one_stored("__main__.py", "x = 1\n", 6, &z);
	const unsigned char *e = (const unsigned char *)z.data + z.len - 22;
	assert_memory_equal(e, "PK\x05\x06", 4);
	uint32_t cd_off = (uint32_t)e[16] | (uint32_t)e[17] << 8 | (uint32_t)e[18] << 16 |
			  (uint32_t)e[19] << 24;
	assert_memory_equal(z.data + pre + cd_off, "PK\x01\x02", 4);
	assert_memory_equal(z.data + pre, "PK\x03\x04", 4);
	wp_buf_free(&z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_empty_and_binary),
		cmocka_unit_test(test_appended),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
