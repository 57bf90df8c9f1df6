/* tests/unit/test_condaattest.c: CEP 27 attestations of a conda package as CEP 50 names them: the
 * repodata field read, and the sidecar (a vendored one signed by our own CA and log,
 * tests/fixtures/conda-attest/mkattest.py) checked offline, and each way a changed one must
 * fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "index/repodata.h"
#include "verify/condaattest.h"
#include "verify/hash.h"
#include "readfile.h"

#define DIR "tests/fixtures/conda-attest/"
#define PKG "demo-1.0-0.tar.bz2"

static char *need(const char *name, size_t *len)
{
	char *path = wp_xasprintf(DIR "%s", name);
	char *s = test_read_file(path, len);
	if (!s)
		fail_msg("missing test input '%s' (vendored; run from the repository root)", path);
	free(path);
	return s;
}

static void pkg_sha(char hex[WP_SHA256_HEX_LEN + 1])
{
	size_t n;
	char *p = need(PKG, &n);
	assert_int_equal(wp_sha256_hex_of(p, n, hex), 0);
	free(p);
}

static void root(struct wp_trust_root *tr)
{
	size_t n;
	char *t = need("trusted_root.json", &n);
	struct wp_err err = WP_ERR_INIT;
	if (wp_trust_root_load(tr, t, n, "trusted_root.json", &err))
		fail_msg("%s", err.msg);
	free(t);
}

static void must_fail(const char *text, size_t len, const char *file, const char *sha,
		      const struct wp_trust_root *tr, const char *word)
{
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_conda_attest_check(text, len, "sidecar", file, sha, tr, NULL, &err);
	if (rc != -WPE_INTEGRITY)
		fail_msg("expected -WPE_INTEGRITY for '%s', got %d (%s)", word, rc, err.msg);
	if (!strstr(err.msg, word))
		fail_msg("message '%s' lacks '%s'", err.msg, word);
}

static void test_signed_sidecar_verifies(void **state)
{
	(void)state;
	char sha[WP_SHA256_HEX_LEN + 1];
	size_t n;
	char *t = need(PKG ".sigs", &n);
	struct wp_trust_root tr;
	struct wp_prov_result res;
	struct wp_err err = WP_ERR_INIT;
	pkg_sha(sha);
	root(&tr);
	/* without a root: there, and about this package */
	assert_int_equal(wp_conda_attest_check(t, n, "sidecar", PKG, sha, NULL, &res, &err), 0);
	/* with one: signed, logged, inside the certificate's time */
	if (wp_conda_attest_check(t, n, "sidecar", PKG, sha, &tr, &res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.id[0].source_repo, "https://github.com/example/demo");
	/* another file, another digest: refused without a root too */
	must_fail(t, n, "other-1.0-0.tar.bz2", sha, NULL, "not the package 'other-1.0-0.tar.bz2'");
	must_fail(t, n, PKG, "0000000000000000000000000000000000000000000000000000000000000000",
		  NULL, "is not the package's sha256");
	/* one changed byte of the signature: only the full check sees it */
	char *bad = wp_xstrdup(t), *sig = strstr(bad, "\"sig\":\"");
	assert_non_null(sig);
	sig += 7;
	sig[4] = sig[4] == 'A' ? 'B' : 'A';
	assert_int_equal(wp_conda_attest_check(bad, n, "sidecar", PKG, sha, NULL, NULL, &err), 0);
	must_fail(bad, n, PKG, sha, &tr, "sidecar");
	free(bad);
	/* the payload type is in-toto's, or it is no attestation */
	bad = wp_xstrdup(t);
	char *pt = strstr(bad, "application/vnd.in-toto+json");
	assert_non_null(pt);
	pt[12] = 'X';
	must_fail(bad, n, PKG, sha, NULL, "is not a Sigstore bundle");
	free(bad);
	wp_trust_root_release(&tr);
	free(t);
}

static void test_other_statement_fails(void **state)
{
	(void)state;
	char sha[WP_SHA256_HEX_LEN + 1];
	size_t n;
	char *t = need("other.sigs", &n);
	struct wp_trust_root tr;
	pkg_sha(sha);
	root(&tr);
	must_fail(t, n, PKG, sha, NULL, "subject digest");
	must_fail(t, n, PKG, sha, &tr, "subject digest");
	wp_trust_root_release(&tr);
	free(t);
}

static void test_shapes_refused(void **state)
{
	(void)state;
	const char *sha = "835157b5822157487cf6ce00a4433b5d46e7ecbf6a59f9fee2a022c6babf7e5b";
	static const char *const docs[] = {
		"[]",
		"{}",
		"\"x\"",
		"[1]",
		"[{}]",
		"not json",
		"[{\"dsseEnvelope\":{\"payloadType\":\"application/vnd.in-toto+json\","
		"\"payload\":\"!!\",\"signatures\":[{\"sig\":\"AA==\"}]}}]"
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct wp_err err = WP_ERR_INIT;
		if (wp_conda_attest_check(docs[i], strlen(docs[i]), "sidecar", PKG, sha, NULL, NULL,
					  &err) != -WPE_INTEGRITY)
			fail_msg("'%s' was taken", docs[i]);
	}
}

struct got {
	char *provenance;
	int n;
};

static int sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	(void)err;
	struct got *g = ctx;
	g->n++;
	free(g->provenance);
	g->provenance = r->provenance ? wp_xstrdup(r->provenance) : NULL;
	return 0;
}

static void test_repodata_field(void **state)
{
	(void)state;
	const char *hex = "A4AA9EC150A4DEB7BD5C2AD207C7F27CA8FFDD5216D8C0D9CF8F5E1953D5F166";
	char *doc = wp_xasprintf("{\"packages\":{\"" PKG
				 "\":{\"name\":\"demo\",\"version\":\"1.0\",\"build\":\"0\","
				 "\"attestations_sha256\":\"%s\"}}}",
				 hex);
	struct got g = { 0 };
	struct wp_index_stats st = { 0 };
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_read_repodata_mem(doc, strlen(doc), "https://ch.example/c/noarch", sink,
					      &g, &st, &err),
			 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.provenance,
			    "https://ch.example/c/noarch/" PKG
			    ".sigs.a4aa9ec150a4deb7bd5c2ad207c7f27ca8ffdd5216d8c0d9cf8f5e1953d5f166");
	free(doc);
	/* none: no provenance; not a sha256: the record is broken, as a bad sha256 makes it */
	doc = wp_xstrdup(
		"{\"packages\":{\"" PKG
		"\":{\"name\":\"demo\",\"version\":\"1.0\",\"build\":\"0\"},"
		"\"demo-1.0-1.tar.bz2\":{\"name\":\"demo\",\"version\":\"1.0\",\"build\":\"1\","
		"\"attestations_sha256\":\"../../evil\"}}}");
	g.n = 0;
	memset(&st, 0, sizeof(st));
	assert_int_equal(wp_read_repodata_mem(doc, strlen(doc), "https://ch.example/c/noarch", sink,
					      &g, &st, &err),
			 0);
	assert_int_equal(g.n, 1);
	assert_null(g.provenance);
	assert_int_equal(st.malformed, 1);
	free(doc);
	free(g.provenance);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signed_sidecar_verifies),
		cmocka_unit_test(test_other_statement_fails),
		cmocka_unit_test(test_shapes_refused),
		cmocka_unit_test(test_repodata_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
