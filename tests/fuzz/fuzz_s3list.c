/* tests/fuzz/fuzz_s3list.c: libFuzzer target for S3 ListObjectsV2, ListMultipartUploads and
 * ListParts pages, <Error> bodies and InitiateMultipartUpload answers, as index/s3xml.c reads them
 * (libxml2). */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "index/s3xml.h"
#include "net/s3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_s3_listing l = { 0 };
	bool truncated = true;
	char *next = NULL;
	int rc = wp_s3xml_list_parse((const char *)data, size, &l, &truncated, &next, &err);
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
	struct wp_s3_uploads u = { 0 };
	char *nk = NULL, *ni = NULL;
	rc = wp_s3xml_uploads_parse((const char *)data, size, &u, &truncated, &nk, &ni, &err);
	FZ_CHECK(rc != 0 || !truncated || nk != NULL);
	for (size_t i = 0; i < u.n; i++)
		FZ_CHECK(u.v[i].key[0] && u.v[i].id[0]);
	free(nk);
	free(ni);
	wp_s3_uploads_free(&u);
	struct wp_s3_parts parts = { 0 };
	long nextp = 0;
	rc = wp_s3xml_parts_parse((const char *)data, size, &parts, &truncated, &nextp, &err);
	FZ_CHECK(rc != 0 || !truncated || nextp >= 1);
	for (size_t i = 0; i < parts.n; i++)
		FZ_CHECK(parts.v[i].number >= 1 && parts.v[i].number <= 10000 &&
			 parts.v[i].size >= 0);
	free(parts.v);
	char code[64];
	wp_s3xml_error_code((const char *)data, size, code, sizeof(code));
	FZ_CHECK(strlen(code) < sizeof(code));
	char id[128];
	if (wp_s3xml_upload_id((const char *)data, size, id, sizeof(id)))
		FZ_CHECK(id[0] && strlen(id) < sizeof(id));
	return 0;
}
