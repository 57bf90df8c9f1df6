/* ops/conda/attest.h: CEP 27 attestations carried beside conda packages as CEP 50 serves them:
 * FILENAME.sigs.<sha256> (a JSON array of Sigstore bundles), the sha256 in the package's record.
 * Ownership: a wp_conda_attest owns its path (wp_conda_attest_release). */
#ifndef WP_OPS_CONDA_ATTEST_H
#define WP_OPS_CONDA_ATTEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "cache/catalogdb.h"
#include "ops/core/session.h"

struct wp_conda_attest {
	char *path; /* the sidecar in the cache, held to sha256; NULL: the channel offers none */
	char sha256[65];
};

/* For each of n package URLs whose record named attestations (the catalog keeps the sidecar's URL
 * as the file's provenance): the sidecar fetched (all at once) into the cache's
 * files/conda-attest/<sha256>, or found there from an earlier run (the only way offline), and
 * held to the sha256 its name gives. A package whose sidecar cannot be had or is not those
 * bytes is said (wp_say) and left without one; the first such error is returned
 * (-WPE_INTEGRITY for other bytes, -WPE_SOURCE for the network, offline or not) after all are
 * tried. out[0..n) is filled either way. */
int wp_conda_attest_carry(const struct wp_session *s, struct wp_catalog *cat,
			  const char *const *urls, size_t n, bool offline,
			  struct wp_conda_attest *out, struct wp_err *err);
void wp_conda_attest_release(struct wp_conda_attest *a, size_t n);

/* The sidecar's name beside filename, for the sha256 given (allocated). */
char *wp_conda_attest_name(const char *filename, const char *sha256);

#endif
