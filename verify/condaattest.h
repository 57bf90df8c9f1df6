/* verify/condaattest.h: a conda package's CEP 27 attestations as CEP 50 carries them (a JSON array
 * of Sigstore bundles beside the package), checked offline. Pure: callers hand in bytes. */
#ifndef WP_CONDAATTEST_H
#define WP_CONDAATTEST_H

#include <stddef.h>

#include "base/err.h"
#include "verify/provenance.h"

#define WP_CONDA_ATTEST_MAX_BYTES WP_PROV_MAX_BYTES

/* Check the sidecar json (len bytes) for the package file_name whose sha256 is sha256_hex: a
 * non-empty array (at most WP_PROV_MAX_ATTEST) of Sigstore bundles, each a DSSE envelope of an
 * in-toto v1 statement whose subject names file_name with that digest. With tr, each bundle is
 * also verified in full as PEP 740 provenance is (verify/provenance.c: certificate chain and
 * validity at the signing time, DSSE signature, Rekor entry, inclusion proof, checkpoint), res
 * filled. 0, or -WPE_INTEGRITY whose message names what (the sidecar) and the check that failed. */
int wp_conda_attest_check(const char *json, size_t len, const char *what, const char *file_name,
			  const char *sha256_hex, const struct wp_trust_root *tr,
			  struct wp_prov_result *res, struct wp_err *err);

#endif
