/* tests/unit/test_s3.c: net/s3.c without a network: s3:// URLs, the AWS settings (handed in as a
 * value, as cli/ reads them); S3's XML answers as index/s3xml.c reads them (libxml2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "index/s3xml.h"
#include "net/s3.h"

#include <stdio.h>

static void test_open(void **state)
{
	(void)state;
	struct wp_s3 s3;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_s3_open(&s3, "s3://my-bucket/a//b/", NULL, NULL, NULL, &err), 0);
	assert_string_equal(s3.prefix, "a/b/");
	assert_string_equal(s3.endpoint, "https://s3.us-east-1.amazonaws.com");
	assert_false(s3.path_style); /* AWS: the bucket in the host name */
	assert_true(s3.anonymous);
	wp_s3_release(&s3);

	struct wp_s3_conf c = { .access_key_id = "AKID",
				.secret_access_key = "s3cr3t",
				.region = "eu-west-3",
				.endpoint_url = "http://127.0.0.1:7480/" };
	assert_int_equal(wp_s3_open(&s3, "S3://wheels", NULL, "public-read", &c, &err), 0);
	assert_string_equal(s3.prefix, "");
	assert_string_equal(s3.endpoint, "http://127.0.0.1:7480");
	assert_true(s3.path_style); /* not AWS: path style */
	assert_false(s3.anonymous);
	assert_string_equal(s3.region, "eu-west-3");
	assert_null(strstr(s3.display, "s3cr3t"));
	wp_s3_release(&s3);
	/* --s3-endpoint wins over the variable */
	assert_int_equal(wp_s3_open(&s3, "s3://wheels/p", "https://minio.example:9000", NULL, &c,
				    &err),
			 0);
	assert_string_equal(s3.endpoint, "https://minio.example:9000");
	wp_s3_release(&s3);

	const char *bad[] = { "s3://", "s3://ab/x", "s3://Bad_Bucket!/x", "s3://bucket/a/../b",
			      "gs://bucket/x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		wp_err_clear(&err);
		assert_int_equal(wp_s3_open(&s3, bad[i], NULL, NULL, &c, &err), -WPE_USAGE);
		wp_s3_release(&s3);
	}
	wp_err_clear(&err);
	assert_int_equal(wp_s3_open(&s3, "s3://wheels/p", "ftp://x", NULL, &c, &err), -WPE_USAGE);
	wp_s3_release(&s3);
	c.secret_access_key = NULL;
	wp_err_clear(&err);
	assert_int_equal(wp_s3_open(&s3, "s3://wheels/p", NULL, NULL, &c, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "AWS_SECRET_ACCESS_KEY"));
	wp_s3_release(&s3);
	/* a listing page size for tests: 1 to 1000, else refused naming the variable */
	struct wp_s3_conf paged = { .list_page = "5" };
	assert_int_equal(wp_s3_open(&s3, "s3://wheels/p", NULL, NULL, &paged, &err), 0);
	assert_int_equal(s3.list_page, 5);
	wp_s3_release(&s3);
	paged.list_page = "5000";
	wp_err_clear(&err);
	assert_int_equal(wp_s3_open(&s3, "s3://wheels/p", NULL, NULL, &paged, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "WHEELPICK_S3_LIST_PAGE='5000'"));
	wp_s3_release(&s3);
}

static void test_list_parse(void **state)
{
	(void)state;
	const char *
		page = "<?xml version=\"1.0\"?><ListBucketResult><IsTruncated>true</IsTruncated>"
		       "<NextContinuationToken>tok/+=</NextContinuationToken>"
		       "<Contents><Key>p/b&amp;c+d.whl</Key><ETag>&quot;abc&quot;</ETag><Size>12</Size></Contents>"
		       "<Contents><Key>p/a</Key><Size>0</Size><ETag>\"d41d-2\"</ETag></Contents>"
		       "<Contents><Key>p/ctl&#10;</Key><Size>3</Size></Contents></ListBucketResult>";
	struct wp_s3_listing l = { 0 };
	struct wp_err err = WP_ERR_INIT;
	bool trunc = false;
	char *next = NULL;
	assert_int_equal(wp_s3xml_list_parse(page, strlen(page), &l, &trunc, &next, &err), 0);
	assert_true(trunc);
	assert_string_equal(next, "tok/+=");
	assert_int_equal(l.n, 2); /* a key with a control byte is no object of ours */
	assert_string_equal(l.v[0].key, "p/b&c+d.whl");
	assert_string_equal(l.v[0].etag, "abc");
	assert_int_equal(l.v[0].size, 12);
	assert_string_equal(l.v[1].etag, "d41d-2");
	free(next);
	wp_s3_listing_free(&l);

	const char *e = "<Error><Code>InvalidAccessKeyId</Code><Message>x</Message></Error>";
	char code[64];
	wp_s3xml_error_code(e, strlen(e), code, sizeof(code));
	assert_string_equal(code, "InvalidAccessKeyId");
	assert_int_equal(wp_s3xml_list_parse(e, strlen(e), &l, &trunc, &next, &err), -WPE_SOURCE);
	assert_non_null(strstr(err.msg, "InvalidAccessKeyId"));
	wp_s3_listing_free(&l);
}

/* ListMultipartUploads and ListParts pages, as Ceph RGW 16 writes them (trimmed) */
static void test_uploads_parts_parse(void **state)
{
	(void)state;
	const char *up =
		"<?xml version=\"1.0\"?><ListMultipartUploadsResult><Bucket>b</Bucket>"
		"<NextKeyMarker>p/x.whl</NextKeyMarker><NextUploadIdMarker>2~B</NextUploadIdMarker>"
		"<IsTruncated>true</IsTruncated>"
		"<Upload><Key>p/x.whl</Key><UploadId>2~A</UploadId><Initiator><ID>u</ID></Initiator></Upload>"
		"<Upload><Key>p/a&amp;b.whl</Key><UploadId>2~B</UploadId></Upload>"
		"<Upload><Key>p/no-id.whl</Key></Upload></ListMultipartUploadsResult>";
	struct wp_s3_uploads u = { 0 };
	struct wp_err err = WP_ERR_INIT;
	bool trunc = false;
	char *nk = NULL, *ni = NULL;
	assert_int_equal(wp_s3xml_uploads_parse(up, strlen(up), &u, &trunc, &nk, &ni, &err), 0);
	assert_true(trunc);
	assert_string_equal(nk, "p/x.whl");
	assert_string_equal(ni, "2~B");
	assert_int_equal(u.n, 2); /* an upload without its id is none we can go on with */
	assert_string_equal(u.v[0].id, "2~A");
	assert_string_equal(u.v[1].key, "p/a&b.whl");
	free(nk);
	free(ni);
	wp_s3_uploads_free(&u);
	const char *bad =
		"<ListMultipartUploadsResult><IsTruncated>true</IsTruncated></ListMultipartUploadsResult>";
	assert_int_equal(wp_s3xml_uploads_parse(bad, strlen(bad), &u, &trunc, &nk, &ni, &err),
			 -WPE_SOURCE);
	wp_s3_uploads_free(&u);
	free(nk);
	free(ni);
	const char *e = "<Error><Code>NotImplemented</Code></Error>";
	wp_err_clear(&err);
	assert_int_equal(wp_s3xml_uploads_parse(e, strlen(e), &u, &trunc, &nk, &ni, &err),
			 -WPE_SOURCE);
	assert_non_null(strstr(err.msg, "NotImplemented"));

	const char *pp =
		"<ListPartsResult><NextPartNumberMarker>2</NextPartNumberMarker><IsTruncated>true</IsTruncated>"
		"<Part><PartNumber>1</PartNumber><ETag>&quot;764efa883dda1e11db47671c4a3bbd9e&quot;</ETag>"
		"<Size>3</Size></Part><Part><PartNumber>0</PartNumber><ETag>\"x\"</ETag><Size>1</Size></Part>"
		"<Part><PartNumber>2</PartNumber><ETag>\"y\"</ETag><Size>-1</Size></Part></ListPartsResult>";
	struct wp_s3_parts parts = { 0 };
	long next = 0;
	assert_int_equal(wp_s3xml_parts_parse(pp, strlen(pp), &parts, &trunc, &next, &err), 0);
	assert_true(trunc);
	assert_int_equal(next, 2);
	assert_int_equal(parts.n, 1); /* part 0 and a negative size are no parts */
	assert_int_equal(parts.v[0].number, 1);
	assert_int_equal(parts.v[0].size, 3);
	assert_string_equal(parts.v[0].etag, "764efa883dda1e11db47671c4a3bbd9e");
	free(parts.v);
}

/* What a scanner of text took for objects is XML to libxml2: a comment, a CDATA section, a
 * namespace, an entry nested elsewhere; an entity is never fetched; bad XML is no listing. */
static void test_list_parse_is_xml(void **state)
{
	(void)state;
	const char
		*page = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
			"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
			"<!-- <Contents><Key>p/in-a-comment.whl</Key><Size>1</Size></Contents> -->"
			"<Contents><Key><![CDATA[p/a<b.whl]]></Key><Size>5</Size></Contents>"
			"<Owner><Contents><Key>p/nested.whl</Key><Size>1</Size></Contents></Owner>"
			"<IsTruncated>false</IsTruncated></ListBucketResult>";
	struct wp_s3_listing l = { 0 };
	struct wp_err err = WP_ERR_INIT;
	bool trunc = true;
	char *next = NULL;
	assert_int_equal(wp_s3xml_list_parse(page, strlen(page), &l, &trunc, &next, &err), 0);
	assert_false(trunc);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].key, "p/a<b.whl");
	wp_s3_listing_free(&l);

	/* an external entity is not loaded: its name stays unexpanded, the file unread */
	const char *
		xxe = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
		      "<ListBucketResult><Contents><Key>p/&x;</Key><Size>1</Size></Contents>"
		      "<IsTruncated>false</IsTruncated></ListBucketResult>";
	assert_int_equal(wp_s3xml_list_parse(xxe, strlen(xxe), &l, &trunc, &next, &err), 0);
	for (size_t i = 0; i < l.n; i++)
		assert_null(strstr(l.v[i].key, "root:"));
	wp_s3_listing_free(&l);

	const char *broken[] = { "", "<ListBucketResult><Contents><Key>a</Key>", "not xml at all",
				 "<ListBucketResultX/>",
				 "<Error><Code>Slow Down&amp;</Code></Error>" };
	for (size_t i = 0; i < sizeof(broken) / sizeof(*broken); i++) {
		wp_err_clear(&err);
		assert_int_equal(wp_s3xml_list_parse(broken[i], strlen(broken[i]), &l, &trunc,
						     &next, &err),
				 -WPE_SOURCE);
		assert_non_null(strstr(err.msg, "no object listing"));
		assert_int_equal(l.n, 0);
		assert_null(next);
	}
	assert_non_null(strstr(err.msg, ": SlowDown")); /* the code, its odd bytes dropped */
	char code[64];
	wp_s3xml_error_code("<html>502</html>", 16, code, sizeof(code));
	assert_string_equal(code, "");
}

/* Ceilings: the bytes of an answer, the entries of one page. */
static void test_list_parse_ceilings(void **state)
{
	(void)state;
	struct wp_s3_listing l = { 0 };
	struct wp_err err = WP_ERR_INIT;
	bool trunc = false;
	char *next = NULL;
	size_t big = WP_S3XML_MAX_BYTES + 1;
	char *huge = calloc(1, big + 1);
	assert_non_null(huge);
	memset(huge, ' ', big);
	memcpy(huge, "<ListBucketResult>", 18);
	assert_int_equal(wp_s3xml_list_parse(huge, big, &l, &trunc, &next, &err), -WPE_TOO_BIG);
	free(huge);

	size_t cap = (WP_S3XML_MAX_ENTRIES + 1) * 64 + 64, len = 0;
	char *many = malloc(cap);
	assert_non_null(many);
	len += (size_t)snprintf(many + len, cap - len, "<ListBucketResult>");
	for (int i = 0; i <= WP_S3XML_MAX_ENTRIES; i++)
		len += (size_t)snprintf(many + len, cap - len,
					"<Contents><Key>k%d</Key><Size>1</Size></Contents>", i);
	len += (size_t)snprintf(many + len, cap - len, "</ListBucketResult>");
	wp_err_clear(&err);
	assert_int_equal(wp_s3xml_list_parse(many, len, &l, &trunc, &next, &err), -WPE_TOO_BIG);
	assert_non_null(strstr(err.msg, "entries"));
	wp_s3_listing_free(&l);
	free(many);
}

static void test_upload_id(void **state)
{
	(void)state;
	const char *
		ok = "<?xml version=\"1.0\"?><InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
		     "<UploadId>2~abc&amp;d</UploadId></InitiateMultipartUploadResult>";
	char id[64];
	assert_true(wp_s3xml_upload_id(ok, strlen(ok), id, sizeof(id)));
	assert_string_equal(id, "2~abc&d");
	const char *none =
		"<InitiateMultipartUploadResult><UploadId></UploadId></InitiateMultipartUploadResult>";
	assert_false(wp_s3xml_upload_id(none, strlen(none), id, sizeof(id)));
	assert_false(wp_s3xml_upload_id(ok, strlen(ok), id, 4)); /* does not fit: none, not a cut
								    one */
	const char *err = "<Error><Code>AccessDenied</Code><UploadId>x</UploadId></Error>";
	assert_false(wp_s3xml_upload_id(err, strlen(err), id, sizeof(id)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_list_parse),
		cmocka_unit_test(test_uploads_parts_parse),
		cmocka_unit_test(test_list_parse_is_xml),
		cmocka_unit_test(test_list_parse_ceilings),
		cmocka_unit_test(test_upload_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
