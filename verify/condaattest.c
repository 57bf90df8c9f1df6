/* verify/condaattest.c: CEP 27 attestations of a conda package checked offline. A Sigstore bundle
 * holds what a PEP 740 attestation holds under other names, so the full check rewrites each into
 * that form and reuses verify/provenance.c rather than keep a second verifier. */
#include "verify/condaattest.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/mem.h"
#include "verify/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define INTOTO_TYPE "application/vnd.in-toto+json"

/* The statement a bundle's envelope carries names this package and digest. */
static int check_subject(const char *payload_b64, const char *what, size_t i, const char *file_name,
			 const char *sha256_hex, struct wp_err *err)
{
	size_t n = strlen(payload_b64);
	unsigned char *raw = wp_xmalloc(3 * (n / 4) + 1);
	long rl = wp_b64_decode(payload_b64, n, raw);
	struct wp_json_val *st = NULL;
	int rc;
	if (rl < 0) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "attestation '%s': bundle %zu's DSSE payload is not base64", what, i);
		goto out;
	}
	struct wp_json_opts o = { .what = what,
				  .noun = "attestation statement",
				  .kind = "an in-toto statement",
				  .code = -WPE_INTEGRITY,
				  .max_bytes = WP_CONDA_ATTEST_MAX_BYTES };
	if ((rc = wp_json_load((const char *)raw, (size_t)rl, &o, &st, err)))
		goto out;
	const char *type = wp_json_get_str(st, "_type");
	const struct wp_json_val *subj = wp_json_get_arr(st, "subject");
	const char *name = wp_json_get_str(wp_json_at(subj, 0), "name");
	const char *digest = wp_json_get_str(wp_json_at(subj, 0), "digest", "sha256");
	if (!type || strcmp(type, "https://in-toto.io/Statement/v1"))
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "attestation '%s': bundle %zu is not an in-toto v1 statement", what,
			     i);
	else if (wp_json_len(subj) != 1 || !name || strcmp(name, file_name))
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "attestation '%s': bundle %zu's subject is '%s', not the package '%s'",
			     what, i, name ? name : "(none)", file_name);
	else if (!digest || strcasecmp(digest, sha256_hex))
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "attestation '%s': bundle %zu's subject digest sha256:%.64s is not the package's sha256:%s "
			     "(another package's attestation?)",
			     what, i, digest ? digest : "(none)", sha256_hex);
out:
	wp_json_tree_free(st);
	free(raw);
	return rc;
}

/* A parsed value written back as it was (the log entry moves whole into the PEP 740 form). */
static void emit(struct wp_json *j, const struct wp_json_val *v)
{
	long long iv;
	bool bv;
	switch (wp_json_type(v)) {
	case WP_JSON_OBJECT:
		wp_json_obj(j);
		for (size_t i = 0; i < wp_json_len(v); i++) {
			wp_json_key(j, wp_json_key_at(v, i));
			emit(j, wp_json_at(v, i));
		}
		wp_json_obj_end(j);
		break;
	case WP_JSON_ARRAY:
		wp_json_arr(j);
		for (size_t i = 0; i < wp_json_len(v); i++)
			emit(j, wp_json_at(v, i));
		wp_json_arr_end(j);
		break;
	case WP_JSON_STRING:
		wp_json_str(j, wp_json_as_str(v));
		break;
	case WP_JSON_NUMBER:
		if (wp_json_as_int(v, &iv))
			wp_json_int(j, iv);
		else
			wp_json_null(j); /* no field of a log entry is a fraction: refused below */
		break;
	case WP_JSON_BOOL:
		wp_json_bool(j, wp_json_as_bool(v, &bv) && bv);
		break;
	default:
		wp_json_null(j);
	}
}

/* One bundle as one PEP 740 attestation: certificate, the log entry, the statement and its
 * signature. */
static void as_pep740(struct wp_json *j, const struct wp_json_val *b, const char *cert,
		      const char *payload, const char *sig)
{
	wp_json_obj(j);
	wp_json_kint(j, "version", 1);
	wp_json_key(j, "verification_material");
	wp_json_obj(j);
	wp_json_kstr(j, "certificate", cert);
	wp_json_key(j, "transparency_entries");
	emit(j, wp_json_get_arr(b, "verificationMaterial", "tlogEntries"));
	wp_json_obj_end(j);
	wp_json_key(j, "envelope");
	wp_json_obj(j);
	wp_json_kstr(j, "statement", payload);
	wp_json_kstr(j, "signature", sig);
	wp_json_obj_end(j);
	wp_json_obj_end(j);
}

int wp_conda_attest_check(const char *json, size_t len, const char *what, const char *file_name,
			  const char *sha256_hex, const struct wp_trust_root *tr,
			  struct wp_prov_result *res, struct wp_err *err)
{
	struct wp_json_opts o = { .what = what,
				  .noun = "attestation",
				  .kind = "a JSON array of Sigstore bundles",
				  .code = -WPE_INTEGRITY,
				  .max_bytes = WP_CONDA_ATTEST_MAX_BYTES };
	struct wp_json_val *root = NULL;
	struct wp_json j;
	struct wp_buf out = WP_BUF_INIT;
	struct wp_prov_result local;
	bool writing = false;
	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	int rc = wp_json_load(json, len, &o, &root, err);
	if (rc)
		return rc;
	size_t n = wp_json_len(wp_json_typed(root, WP_JSON_ARRAY));
	if (!n || n > WP_PROV_MAX_ATTEST) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "attestation '%s' is not an array of 1 to %d Sigstore bundles", what,
			     WP_PROV_MAX_ATTEST);
		goto out;
	}
	if (tr) {
		wp_json_init(&j);
		writing = true;
		wp_json_obj(&j);
		wp_json_kint(&j, "version", 1);
		wp_json_key(&j, "attestation_bundles");
		wp_json_arr(&j);
		wp_json_obj(&j);
		wp_json_key(&j, "attestations");
		wp_json_arr(&j);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		const struct wp_json_val *b = wp_json_at(root, i);
		const char *ptype = wp_json_get_str(b, "dsseEnvelope", "payloadType");
		const char *payload = wp_json_get_str(b, "dsseEnvelope", "payload");
		const struct wp_json_val *sigs = wp_json_get_arr(b, "dsseEnvelope", "signatures");
		const char *sig = wp_json_get_str(wp_json_at(sigs, 0), "sig");
		const char *cert = wp_json_get_str(b, "verificationMaterial", "certificate",
						   "rawBytes");
		if (!cert) /* bundles before v0.3 give the chain; its first is the leaf */
			cert = wp_json_get_str(wp_json_at(wp_json_get_arr(b, "verificationMaterial",
									  "x509CertificateChain",
									  "certificates"),
							  0),
					       "rawBytes");
		if (!ptype || strcmp(ptype, INTOTO_TYPE) || !payload || wp_json_len(sigs) != 1 ||
		    !sig)
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "attestation '%s': bundle %zu is not a Sigstore bundle with one DSSE "
				     "signature over an in-toto statement",
				     what, i);
		else if (!(rc = check_subject(payload, what, i, file_name, sha256_hex, err)) &&
			 tr) {
			if (!cert)
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "attestation '%s': bundle %zu carries no certificate",
					     what, i);
			else
				as_pep740(&j, b, cert, payload, sig);
		}
	}
	if (rc || !tr)
		goto out;
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	writing = false;
	if (wp_json_finish_buf(&j, &out) < 0) {
		rc = wp_fail(err, -WPE_INTEGRITY, "attestation '%s' holds text that is not UTF-8",
			     what);
		goto out;
	}
	rc = wp_provenance_verify(out.data ? out.data : "", out.len, what, file_name, sha256_hex,
				  tr, res, err);
out:
	if (writing) {
		struct wp_buf drop = WP_BUF_INIT;
		(void)wp_json_finish_buf(&j, &drop);
		wp_buf_free(&drop);
	}
	wp_buf_free(&out);
	wp_json_tree_free(root);
	return rc;
}
