/* tests/fuzz/fuzz_s3list.c: libFuzzer target for S3 ListObjectsV2 pages and <Error> bodies (net/s3.c). */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "net/s3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_s3_listing l = { 0 };
	bool truncated = true;
	char *next = NULL;
	int rc = wp_s3_list_parse((const char *)data, size, &l, &truncated, &next, &err);
	FZ_CHECK(rc == 0 || err.msg[0]);
	/* on failure nothing dangles; on success a truncated page always says where to go on */
	FZ_CHECK(rc != 0 || !truncated || next != NULL);
	for (size_t i = 0; i < l.n; i++) {
		FZ_CHECK(l.v[i].key && l.v[i].key[0] && l.v[i].size >= 0);
		for (const char *p = l.v[i].key; *p; p++)
			FZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
		FZ_CHECK(strlen(l.v[i].etag) < sizeof(l.v[i].etag));
	}
	free(next);
	wp_s3_listing_free(&l);
	char code[64];
	wp_s3_error_code((const char *)data, size, code, sizeof(code));
	FZ_CHECK(strlen(code) < sizeof(code));
	return 0;
}
