/* tests/unit/test_s3.c: net/s3.c without a network: s3:// URLs, the AWS variables, ListObjectsV2 pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "net/s3.h"

static void clear_env(void)
{
	const char *v[] = { "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
			    "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3" };
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++)
		unsetenv(v[i]);
}

static void test_open(void **state)
{
	(void)state;
	struct wp_s3 s3;
	struct wp_err err = WP_ERR_INIT;
	clear_env();
	assert_int_equal(wp_s3_open(&s3, "s3://my-bucket/a//b/", NULL, NULL, &err), 0);
	assert_string_equal(s3.prefix, "a/b/");
	assert_string_equal(s3.endpoint, "https://s3.us-east-1.amazonaws.com");
	assert_false(s3.path_style); /* AWS: the bucket in the host name */
	assert_true(s3.anonymous);
	wp_s3_release(&s3);

	setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t", 1);
	setenv("AWS_DEFAULT_REGION", "eu-west-3", 1);
	setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:7480/", 1);
	assert_int_equal(wp_s3_open(&s3, "S3://wheels", NULL, "public-read", &err), 0);
	assert_string_equal(s3.prefix, "");
	assert_string_equal(s3.endpoint, "http://127.0.0.1:7480");
	assert_true(s3.path_style); /* not AWS: path style */
	assert_false(s3.anonymous);
	assert_string_equal(s3.region, "eu-west-3");
	assert_null(strstr(s3.display, "s3cr3t"));
	wp_s3_release(&s3);
	/* --s3-endpoint wins over the variable */
	assert_int_equal(wp_s3_open(&s3, "s3://wheels/p", "https://minio.example:9000", NULL, &err), 0);
	assert_string_equal(s3.endpoint, "https://minio.example:9000");
	wp_s3_release(&s3);

	const char *bad[] = { "s3://", "s3://ab/x", "s3://Bad_Bucket!/x", "s3://bucket/a/../b", "gs://bucket/x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		wp_err_clear(&err);
		assert_int_equal(wp_s3_open(&s3, bad[i], NULL, NULL, &err), -WPE_USAGE);
		wp_s3_release(&s3);
	}
	wp_err_clear(&err);
	assert_int_equal(wp_s3_open(&s3, "s3://wheels/p", "ftp://x", NULL, &err), -WPE_USAGE);
	wp_s3_release(&s3);
	unsetenv("AWS_SECRET_ACCESS_KEY");
	wp_err_clear(&err);
	assert_int_equal(wp_s3_open(&s3, "s3://wheels/p", NULL, NULL, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "AWS_SECRET_ACCESS_KEY"));
	wp_s3_release(&s3);
	clear_env();
}

static void test_list_parse(void **state)
{
	(void)state;
	const char *page = "<?xml version=\"1.0\"?><ListBucketResult><IsTruncated>true</IsTruncated>"
			   "<NextContinuationToken>tok/+=</NextContinuationToken>"
			   "<Contents><Key>p/b&amp;c+d.whl</Key><ETag>&quot;abc&quot;</ETag><Size>12</Size></Contents>"
			   "<Contents><Key>p/a</Key><Size>0</Size><ETag>\"d41d-2\"</ETag></Contents>"
			   "<Contents><Key>p/ctl&#10;</Key><Size>3</Size></Contents></ListBucketResult>";
	struct wp_s3_listing l = { 0 };
	struct wp_err err = WP_ERR_INIT;
	bool trunc = false;
	char *next = NULL;
	assert_int_equal(wp_s3_list_parse(page, strlen(page), &l, &trunc, &next, &err), 0);
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
	wp_s3_error_code(e, strlen(e), code, sizeof(code));
	assert_string_equal(code, "InvalidAccessKeyId");
	assert_int_equal(wp_s3_list_parse(e, strlen(e), &l, &trunc, &next, &err), -WPE_SOURCE);
	assert_non_null(strstr(err.msg, "InvalidAccessKeyId"));
	wp_s3_listing_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_list_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
