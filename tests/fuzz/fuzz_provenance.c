/* tests/fuzz/fuzz_provenance.c: libFuzzer target for PEP 740 provenance JSON verified offline, for
 * a trusted_root.json, and for provenance policy lines. */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "verify/provenance.h"

/* The real production root when run from the repository (fuzz.sh and the replay do), so inputs
 * near the seeds get past the chain; else an empty one, which still parses everything first. */
static const struct wp_trust_root *root(void)
{
	static struct wp_trust_root tr;
	static int loaded;
	if (!loaded) {
		struct wp_buf b;
		loaded = 1;
		if (wp_file_read_capped("tests/fixtures/provenance/trusted_root.json",
					WP_TRUST_ROOT_MAX_BYTES, &b, NULL) == 0 &&
		    wp_trust_root_load(&tr, b.data ? b.data : "", b.len, "root", NULL) != 0)
			memset(&tr, 0, sizeof(tr));
		wp_buf_free(&b);
	}
	return &tr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = wp_xmalloc(size ? size : 1);
	memcpy(text, data, size);
	struct wp_err err = WP_ERR_INIT;
	struct wp_prov_result res;

	int rc = wp_provenance_verify(text, size, "p", "pypi_attestations-0.0.19.tar.gz",
				      "9bb1add04b1b4e182be6b0b80931593f7a291eb49d69b4fd728a5d4cbcdc4bd3",
				      root(), &res, &err);
	/* a failure always says why; a success names its signers */
	FZ_CHECK(rc == 0 ? res.n > 0 && res.n <= WP_PROV_MAX_ATTEST :
			   rc == -WPE_INTEGRITY && err.msg[0]);
	for (size_t i = 0; rc == 0 && i < res.n; i++)
		FZ_CHECK(strlen(res.id[i].issuer) < sizeof(res.id[i].issuer));

	struct wp_trust_root tr;
	wp_err_clear(&err);
	if (wp_trust_root_load(&tr, text, size, "t", &err) == 0) {
		FZ_CHECK(tr.nca > 0 && tr.nca <= WP_TRUST_MAX_CA && tr.ntlog > 0 &&
			 tr.ntlog <= WP_TRUST_MAX_TLOG);
		wp_trust_root_release(&tr);
	}

	struct wp_prov_policy p = { 0 };
	wp_err_clear(&err);
	if (wp_prov_policy_add_lines(&p, text, size, "policy", &err) == 0)
		for (size_t i = 0; i < p.n; i++)
			FZ_CHECK(p.rules[i].project[0] && p.rules[i].kind[0] &&
				 p.rules[i].ident[0]);
	else
		FZ_CHECK(err.code == -WPE_USAGE);
	wp_prov_policy_release(&p);
	free(text);
	return 0;
}
