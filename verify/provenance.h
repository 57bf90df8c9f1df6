/* verify/provenance.h: PEP 740 provenance checked offline against a Sigstore trusted root, and
 * the per-project publisher policy. Pure: no network, no files; callers hand in bytes.
 * Ownership: results are plain values the caller owns; a policy owns its rules until
 * wp_prov_policy_release. */
#ifndef WP_PROVENANCE_H
#define WP_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "verify/trustroot.h"

#define WP_PROV_MAX_BYTES (4u << 20)   /* a provenance file past 4 MiB is refused */
/* CEP 27's publish predicate: taken in a statement about a .conda or .tar.bz2 only */
#define WP_CONDA_PUBLISH_PREDICATE "https://schemas.conda.org/attestations-publish-1.schema.json"
#define WP_PROV_MAX_ATTEST 8           /* attestations checked per file, all bundles together */
/* Who signed one attestation, read from its Fulcio certificate. */
struct wp_prov_identity {
	char issuer[256];      /* OIDC issuer (1.3.6.1.4.1.57264.1.8, else .1.1) */
	char source_repo[512]; /* Source Repository URI (.1.12) */
	char build_config[512];/* Build Config URI (.1.18): the workflow file at its ref */
	char san[512];         /* the SubjectAltName: a URI or an email address */
	char publisher[32];    /* the provenance's unsigned publisher kind ("GitHub"), checked
				  against the certificate */
	long long signed_at;   /* the log's integratedTime */
};

struct wp_prov_result {
	size_t n; /* attestations verified (all that the file carries) */
	struct wp_prov_identity id[WP_PROV_MAX_ATTEST];
};

/* Check a PEP 740 provenance object (JSON text) for the file file_name whose sha256 is
 * sha256_hex, against tr, with no network: every attestation's certificate chains to a CA of
 * tr at its signing time, which lies inside the certificate's validity; the DSSE signature over
 * the in-toto statement holds with the certificate's key; the statement names this file and
 * its digest; the transparency-log entry's body matches the envelope and certificate, its
 * signed entry timestamp, inclusion proof and signed checkpoint hold under a log key of tr;
 * and each bundle's publisher agrees with its certificate. 0 with res filled, or
 * -WPE_INTEGRITY whose message says which check failed (what names the provenance). */
int wp_provenance_verify(const char *json, size_t len, const char *what, const char *file_name,
			 const char *sha256_hex, const struct wp_trust_root *tr,
			 struct wp_prov_result *res, struct wp_err *err);

/* ---- policy: the publisher a project's files must come from ---- */

/* "torch=github:pytorch/pytorch", with "@release.yml" after it to name the workflow; kinds:
 * github:OWNER/REPO, gitlab:NAMESPACE/PROJECT, google:EMAIL, email:ADDRESS. */
struct wp_prov_rule {
	char project[128]; /* normalised (PEP 503) */
	char kind[16];
	char ident[256];
	char workflow[128]; /* "" = any */
};

struct wp_prov_policy {
	size_t n;
	struct wp_prov_rule *rules; /* owned; wp_prov_policy_release frees */
};

/* Add one rule (text as above). 0 or -WPE_USAGE naming the text. */
int wp_prov_policy_add(struct wp_prov_policy *p, const char *text, struct wp_err *err);
/* Add every line of a file's text: blank lines and '#' comments skipped. */
int wp_prov_policy_add_lines(struct wp_prov_policy *p, const char *text, size_t len,
			     const char *what, struct wp_err *err);
void wp_prov_policy_release(struct wp_prov_policy *p);
/* The rule for a project (any spelling), or NULL. */
const struct wp_prov_rule *wp_prov_policy_find(const struct wp_prov_policy *p, const char *project);
/* Whether one identity is the rule's publisher. */
bool wp_prov_rule_matches(const struct wp_prov_rule *r, const struct wp_prov_identity *id);
/* "github:pytorch/pytorch@release.yml" into out. */
void wp_prov_rule_format(const struct wp_prov_rule *r, char *out, size_t size);

#endif
