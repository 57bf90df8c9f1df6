/* verify/provenance.c: PEP 740 provenance (attestation bundles of DSSE-signed in-toto statements
 * with Fulcio certificates and Rekor entries) verified offline against a trusted root. */
#include "verify/provenance.h"
#include "verify/tlog.h"
#include "verify/hash.h"
#include "base/json.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

#define PAYLOAD_TYPE "application/vnd.in-toto+json"
#define GITHUB_ISSUER "https://token.actions.githubusercontent.com"
#define GITLAB_ISSUER "https://gitlab.com"
#define GOOGLE_ISSUER "https://accounts.google.com"

/* Everything one attestation decodes into; freed at once. */
struct att {
	unsigned char *cert, *statement, *sig, *body, *set;
	size_t cert_len, statement_len, sig_len, body_len, set_len;
	X509 *x509;
	struct wp_tlog_entry e;
};

static void att_free(struct att *a)
{
	free(a->cert);
	free(a->statement);
	free(a->sig);
	free(a->body);
	free(a->set);
	if (a->x509)
		X509_free(a->x509);
}

/* A required base64 field, canonical, decoded; -1 when absent or not base64. */
static int b64_field(const char *s, unsigned char **out, size_t *len)
{
	*out = NULL;
	if (!s || !*s)
		return -1;
	size_t n = strlen(s);
	*out = wp_xmalloc(n / 4 * 3 + 1);
	long got = wp_b64_decode(s, n, *out);
	if (got <= 0)
		return -1;
	*len = (size_t)got;
	return 0;
}

/* int64 fields arrive as strings in Sigstore's JSON (protobuf's mapping); accept numbers too.
 * Only the canonical decimal spelling: "0123" or "+5" would sign differently. */
static int int_field(const struct wp_json_val *v, long long *out)
{
	if (wp_json_type(v) == WP_JSON_NUMBER)
		return wp_json_as_int(v, out) ? 0 : -1;
	const char *s = wp_json_as_str(v);
	if (!s || !*s || strlen(s) > 19 || (s[0] == '0' && s[1]))
		return -1;
	long long n = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (*p - '0');
	}
	*out = n;
	return 0;
}

/* One DER TLV at p (n bytes): tag, contents and the whole length; -1 when malformed. */
static long der_tlv(const unsigned char *p, size_t n, int *tag, const unsigned char **c,
		    size_t *clen)
{
	if (n < 2)
		return -1;
	*tag = p[0];
	size_t len = p[1], hdr = 2;
	if (len & 0x80) {
		size_t k = len & 0x7f;
		if (k < 1 || k > 3 || n < 2 + k)
			return -1;
		len = 0;
		for (size_t i = 0; i < k; i++)
			len = len << 8 | p[2 + i];
		hdr += k;
	}
	if (len > n - hdr)
		return -1;
	*c = p + hdr;
	*clen = len;
	return (long)(hdr + len);
}

static void copy_text(char *dst, size_t size, const unsigned char *s, size_t n)
{
	if (n >= size || memchr(s, 0, n))
		n = 0; /* too long or with a NUL: matches nothing a policy names */
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* The Fulcio extensions (1.3.6.1.4.1.57264.1.x) and the SubjectAltName this wheelpick reads. */
static void read_identity(X509 *x, struct wp_prov_identity *id)
{
	int n = X509_get_ext_count(x);
	for (int i = 0; i < n; i++) {
		X509_EXTENSION *ext = X509_get_ext(x, i);
		char oid[80];
		if (OBJ_obj2txt(oid, sizeof(oid), X509_EXTENSION_get_object(ext), 1) <= 0)
			continue;
		ASN1_OCTET_STRING *os = X509_EXTENSION_get_data(ext);
		const unsigned char *d = ASN1_STRING_get0_data(os), *c;
		size_t dn = (size_t)ASN1_STRING_length(os), cn;
		int tag;
		if (!strcmp(oid, "1.3.6.1.4.1.57264.1.1")) {
			if (!id->issuer[0])
				copy_text(id->issuer, sizeof(id->issuer), d, dn); /* v1: the raw
										     bytes */
		} else if (!strcmp(oid, "1.3.6.1.4.1.57264.1.8")) {
			if (der_tlv(d, dn, &tag, &c, &cn) > 0 && tag == 0x0c)
				copy_text(id->issuer, sizeof(id->issuer), c, cn);
		} else if (!strcmp(oid, "1.3.6.1.4.1.57264.1.12")) {
			if (der_tlv(d, dn, &tag, &c, &cn) > 0 && tag == 0x0c)
				copy_text(id->source_repo, sizeof(id->source_repo), c, cn);
		} else if (!strcmp(oid, "1.3.6.1.4.1.57264.1.18")) {
			if (der_tlv(d, dn, &tag, &c, &cn) > 0 && tag == 0x0c)
				copy_text(id->build_config, sizeof(id->build_config), c, cn);
		} else if (!strcmp(oid, "2.5.29.17") && der_tlv(d, dn, &tag, &c, &cn) > 0 &&
			   tag == 0x30) {
			/* GeneralNames: the first rfc822Name [1] or URI [6] is the signer */
			const unsigned char *q, *g = c;
			size_t gn = cn, qn;
			long used;
			while (gn && (used = der_tlv(g, gn, &tag, &q, &qn)) > 0) {
				if ((tag == 0x81 || tag == 0x86) && !id->san[0]) {
					copy_text(id->san, sizeof(id->san), q, qn);
					break;
				}
				g += used;
				gn -= (size_t)used;
			}
		}
	}
}

static void fmt_time(long long t, char *out, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, size, "%lld", t);
}

static void fmt_asn1(const ASN1_TIME *t, char *out, size_t size)
{
	struct tm tm;
	if (!t || ASN1_TIME_to_tm(t, &tm) != 1 || !strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, size, "?");
}

static int check_validity(X509 *x, long long t, const char *what, struct wp_err *err)
{
	const ASN1_TIME *nb = X509_get0_notBefore(x), *na = X509_get0_notAfter(x);
	if (nb && na && ASN1_TIME_cmp_time_t(nb, (time_t)t) <= 0 &&
	    ASN1_TIME_cmp_time_t(na, (time_t)t) >= 0)
		return 0;
	char when[32], b[32], a[32];
	fmt_time(t, when, sizeof(when));
	fmt_asn1(nb, b, sizeof(b));
	fmt_asn1(na, a, sizeof(a));
	return wp_fail(err, -WPE_INTEGRITY,
		       "provenance '%s': its signing time %s (the log's integratedTime) is outside the certificate's validity (%s to %s)",
		       what, when, b, a);
}

/* The leaf chains, at its signing time, to one CA of the trusted root valid at that time. */
static int check_chain(X509 *leaf, long long t, const struct wp_trust_root *tr, const char *what,
		       struct wp_err *err)
{
	const char
		*why = "no certificate authority of the trusted root was valid at the signing time";
	for (size_t i = 0; i < tr->nca; i++) {
		const struct wp_trust_ca *ca = &tr->ca[i];
		if (t < ca->start || (ca->end && t > ca->end))
			continue;
		X509 *certs[WP_TRUST_MAX_CHAIN] = { 0 };
		X509_STORE *store = X509_STORE_new();
		X509_STORE_CTX *ctx = X509_STORE_CTX_new();
		OPENSSL_STACK *untrusted = OPENSSL_sk_new_null();
		bool ok = store && ctx && untrusted;
		for (size_t k = 0; ok && k < ca->n; k++) {
			const unsigned char *p = ca->der[k];
			certs[k] = d2i_X509(NULL, &p, (long)ca->len[k]);
			if (!certs[k])
				ok = false;
			else if (k + 1 == ca->n)
				ok = X509_STORE_add_cert(store, certs[k]) == 1; /* the root anchors
										 */
			else
				ok = OPENSSL_sk_push(untrusted, certs[k]) > 0;
		}
		if (ok && X509_STORE_CTX_init(ctx, store, leaf, (STACK_OF(X509) *)untrusted) == 1) {
			X509_STORE_CTX_set_time(ctx, 0, (time_t)t);
			if (X509_verify_cert(ctx) == 1)
				why = NULL;
			else
				why = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
		}
		if (ctx)
			X509_STORE_CTX_free(ctx);
		if (store)
			X509_STORE_free(store);
		if (untrusted)
			OPENSSL_sk_free(untrusted);
		for (size_t k = 0; k < ca->n; k++)
			if (certs[k])
				X509_free(certs[k]);
		ERR_clear_error();
		if (!why)
			return 0;
	}
	return wp_fail(err, -WPE_INTEGRITY,
		       "provenance '%s': the certificate does not chain to the trusted root (%s); is it the right trusted root?",
		       what, why);
}

/* DSSE's pre-authentication encoding: "DSSEv1 <len> <type> <len> <body>". */
static int check_signature(const struct att *a, const char *what, struct wp_err *err)
{
	struct wp_buf pae = WP_BUF_INIT_MAX(WP_PROV_MAX_BYTES + 128);
	int rc = 0;
	if (wp_buf_printf(&pae, "DSSEv1 %zu %s %zu ", strlen(PAYLOAD_TYPE), PAYLOAD_TYPE,
			  a->statement_len) < 0 ||
	    wp_buf_add(&pae, a->statement, a->statement_len) < 0 ||
	    !wp_sig_verify(X509_get0_pubkey(a->x509), pae.data, pae.len, a->sig, a->sig_len))
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the signature over the statement (DSSE) does not verify with the certificate's key",
			     what);
	wp_buf_free(&pae);
	return rc;
}

static int check_statement(const struct att *a, const char *what, const char *file_name,
			   const char *sha256_hex, struct wp_err *err)
{
	struct wp_json_opts o = { .what = what,
				  .noun = "provenance statement",
				  .kind = "an in-toto statement",
				  .code = -WPE_INTEGRITY,
				  .max_bytes = WP_PROV_MAX_BYTES };
	struct wp_json_val *st = NULL;
	int rc = wp_json_load((const char *)a->statement, a->statement_len, &o, &st, err);
	if (rc)
		return rc;
	const char *type = wp_json_get_str(st, "_type");
	const char *pt = wp_json_get_str(st, "predicateType");
	const struct wp_json_val *subj = wp_json_get_arr(st, "subject");
	const char *name = wp_json_get_str(wp_json_at(subj, 0), "name");
	const char *digest = wp_json_get_str(wp_json_at(subj, 0), "digest", "sha256");
	/* a conda package's (CEP 27, verify/condaattest.c) is its publish predicate, never a
	 * wheel's */
	size_t fl = strlen(file_name);
	bool conda = (fl > 6 && !strcmp(file_name + fl - 6, ".conda")) ||
		     (fl > 8 && !strcmp(file_name + fl - 8, ".tar.bz2"));
	if (!type || strcmp(type, "https://in-toto.io/Statement/v1") || !pt ||
	    (strcmp(pt, "https://docs.pypi.org/attestations/publish/v1") &&
	     strcmp(pt, "https://slsa.dev/provenance/v1") &&
	     !(conda && !strcmp(pt, WP_CONDA_PUBLISH_PREDICATE))))
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the statement is not an in-toto v1 statement of a PyPI publish or SLSA predicate",
			     what);
	else if (wp_json_len(subj) != 1 || !name || strcmp(name, file_name))
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the statement's subject is '%s', not the file '%s'",
			     what, name ? name : "(none)", file_name);
	else if (!digest || strcasecmp(digest, sha256_hex))
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the statement's subject digest sha256:%.64s is not the file's sha256:%s (another file's provenance?)",
			     what, digest ? digest : "(none)", sha256_hex);
	wp_json_tree_free(st);
	return rc;
}

/* The log entry's body must be this envelope: kind dsse, the statement's hash, this signature
 * and this certificate (envelopeHash is left out: the envelope's JSON spelling is not fixed). */
static int check_body(const struct att *a, const char *what, struct wp_err *err)
{
	struct wp_json_opts o = { .what = what,
				  .noun = "transparency log entry",
				  .kind = "a Rekor dsse entry",
				  .code = -WPE_INTEGRITY,
				  .max_bytes = WP_PROV_MAX_BYTES };
	struct wp_json_val *b = NULL;
	int rc = wp_json_load((const char *)a->body, a->body_len, &o, &b, err);
	if (rc)
		return rc;
	char hash[WP_SHA256_HEX_LEN + 1];
	const struct wp_json_val *sigs = wp_json_get_arr(b, "spec", "signatures");
	const char *kind = wp_json_get_str(b, "kind"), *ver = wp_json_get_str(b, "apiVersion");
	const char *ph = wp_json_get_str(b, "spec", "payloadHash", "value");
	const char *pa = wp_json_get_str(b, "spec", "payloadHash", "algorithm");
	const char *sig = wp_json_get_str(wp_json_at(sigs, 0), "signature");
	const char *ver_pem = wp_json_get_str(wp_json_at(sigs, 0), "verifier");
	unsigned char *s = NULL, *pem = NULL, *der = NULL;
	size_t sl = 0, pl = 0;
	long dl = -1;
	wp_sha256_hex_of(a->statement, a->statement_len, hash);
	if (!kind || strcmp(kind, "dsse") || !ver || strcmp(ver, "0.0.1")) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the transparency log entry is not a dsse 0.0.1 entry",
			     what);
		goto out;
	}
	if (!ph || !pa || strcmp(pa, "sha256") || strcmp(ph, hash)) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the transparency log entry's payload hash is not the statement's",
			     what);
		goto out;
	}
	if (wp_json_len(sigs) != 1 || b64_field(sig, &s, &sl) < 0 || sl != a->sig_len ||
	    memcmp(s, a->sig, sl)) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the transparency log entry's signature is not the envelope's",
			     what);
		goto out;
	}
	/* The verifier is a PEM certificate, base64 again inside: compare its DER. */
	if (b64_field(ver_pem, &pem, &pl) == 0) {
		const char *p = (const char *)pem, *end = p + pl;
		const char *beg = memmem(p, pl, "-----BEGIN CERTIFICATE-----\n", 28);
		const char *fin = beg ? memmem(beg, (size_t)(end - beg),
					       "-----END CERTIFICATE-----", 25) :
					NULL;
		if (beg && fin) {
			struct wp_buf flat = WP_BUF_INIT_MAX(pl);
			for (const char *q = beg + 28; q < fin; q++)
				if (*q != '\n' && wp_buf_addch(&flat, *q) < 0)
					break;
			der = wp_xmalloc(flat.len / 4 * 3 + 1);
			dl = wp_b64_decode(flat.data ? flat.data : "", flat.len, der);
			wp_buf_free(&flat);
		}
	}
	if (dl <= 0 || (size_t)dl != a->cert_len || memcmp(der, a->cert, a->cert_len))
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the transparency log entry's certificate is not the attestation's",
			     what);
out:
	free(s);
	free(pem);
	free(der);
	wp_json_tree_free(b);
	return rc;
}

/* Whether every key of object v is one of the NULL-terminated names: the unsigned parts of
 * provenance (a bundle, its publisher) carry no claim wheelpick would silently skip. */
static const char *unknown_key(const struct wp_json_val *v, const char *const *names)
{
	for (size_t i = 0; i < wp_json_len(v); i++) {
		const char *k = wp_json_key_at(v, i);
		size_t j = 0;
		while (names[j] && strcmp(names[j], k))
			j++;
		if (!names[j])
			return k;
	}
	return NULL;
}

/* The bundle's publisher is unsigned; when it is there it must say what the certificate says.
 * A bundle without one (not what PyPI serves, but what a signer outside PyPI's trusted
 * publishers makes) is judged by its certificate alone. */
static int check_publisher(const struct wp_json_val *pub, struct wp_prov_identity *id,
			   const char *what, struct wp_err *err)
{
	const char *kind = wp_json_get_str(pub, "kind");
	const char *repo = wp_json_get_str(pub, "repository");
	const char *wf = wp_json_get_str(pub, "workflow");
	char want[600];
	bool ok = false;
	if (!pub)
		return 0; /* unsigned and optional here: the certificate (which a policy checks) is
			     the identity */
	if (!kind)
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': an attestation bundle's publisher has no kind",
			       what);
	copy_text(id->publisher, sizeof(id->publisher), (const unsigned char *)kind, strlen(kind));
	static const char *const gh_keys[] = { "kind", "repository", "workflow", "environment",
					       NULL };
	static const char *const gl_keys[] = { "kind", "repository", "workflow_filepath",
					       "environment", NULL };
	static const char *const google_keys[] = { "kind", "email", NULL };
	const char *const *keys = !strcmp(kind, "GitHub") ? gh_keys :
				  !strcmp(kind, "GitLab") ? gl_keys :
				  !strcmp(kind, "Google") ? google_keys :
							    NULL;
	if (!keys)
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': publisher kind '%s' is not one wheelpick can check against a certificate "
			       "(GitHub, GitLab, Google)",
			       what, kind);
	const char *odd = unknown_key(pub, keys);
	const struct wp_json_val *env = wp_json_get(pub, "environment");
	if (odd ||
	    (env && wp_json_type(env) != WP_JSON_NULL && wp_json_type(env) != WP_JSON_STRING))
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': the %s publisher has a member wheelpick cannot check ('%s')",
			       what, kind, odd ? odd : "environment");
	if (!strcmp(kind, "GitHub") && repo && wf) {
		snprintf(want, sizeof(want), "https://github.com/%s", repo);
		ok = !strcmp(id->issuer, GITHUB_ISSUER) && !strcasecmp(id->source_repo, want);
		snprintf(want, sizeof(want), "/.github/workflows/%s@", wf);
		ok = ok && strstr(id->build_config, want);
	} else if (!strcmp(kind, "GitLab") && repo) {
		const char *wfp = wp_json_get_str(pub, "workflow_filepath");
		snprintf(want, sizeof(want), "https://gitlab.com/%s", repo);
		ok = !strcmp(id->issuer, GITLAB_ISSUER) && !strcasecmp(id->source_repo, want);
		snprintf(want, sizeof(want), "//%s@", wfp ? wfp : "");
		ok = ok && wfp && strstr(id->build_config, want);
	} else if (!strcmp(kind, "Google")) {
		const char *email = wp_json_get_str(pub, "email");
		ok = email && !strcmp(id->issuer, GOOGLE_ISSUER) && !strcmp(id->san, email);
	} else {
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': publisher kind '%s' is not one wheelpick can check against a certificate "
			       "(GitHub, GitLab, Google)",
			       what, kind);
	}
	if (!ok)
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': the publisher (%s %s) is not who the certificate names (%s, %s)",
			       what, kind,
			       repo                          ? repo :
			       wp_json_get_str(pub, "email") ? wp_json_get_str(pub, "email") :
							       "?",
			       id->source_repo[0] ? id->source_repo : id->san, id->issuer);
	return 0;
}

static int load_entry(struct att *a, const struct wp_json_val *t, const char *what,
		      struct wp_err *err)
{
	struct wp_tlog_entry *e = &a->e;
	const struct wp_json_val *proof = wp_json_get_obj(t, "inclusionProof");
	const struct wp_json_val *hashes = wp_json_get_arr(proof, "hashes");
	unsigned char *id = NULL, *root = NULL;
	size_t idl = 0, rl = 0;
	int rc = 0;
	e->body_b64 = wp_json_get_str(t, "canonicalizedBody");
	e->checkpoint = wp_json_get_str(proof, "checkpoint", "envelope");
	if (b64_field(e->body_b64, &a->body, &a->body_len) < 0 ||
	    int_field(wp_json_get(t, "integratedTime"), &e->integrated_time) < 0 ||
	    int_field(wp_json_get(t, "logIndex"), &e->log_index) < 0 ||
	    b64_field(wp_json_get_str(t, "logId", "keyId"), &id, &idl) < 0 || idl != 32) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the transparency log entry lacks its body, integratedTime, logIndex or logId",
			     what);
		goto out;
	}
	const char *kind = wp_json_get_str(t, "kindVersion", "kind");
	const char *kver = wp_json_get_str(t, "kindVersion", "version");
	if (!kind || strcmp(kind, "dsse") || !kver || strcmp(kver, "0.0.1")) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the transparency log entry is not a dsse 0.0.1 entry (kindVersion)",
			     what);
		goto out;
	}
	memcpy(e->log_id, id, 32);
	e->body = a->body;
	e->body_len = a->body_len;
	if (b64_field(wp_json_get_str(t, "inclusionPromise", "signedEntryTimestamp"), &a->set,
		      &a->set_len) == 0)
		e->set = a->set, e->set_len = a->set_len;
	if (!proof || int_field(wp_json_get(proof, "logIndex"), &e->proof_index) < 0 ||
	    int_field(wp_json_get(proof, "treeSize"), &e->tree_size) < 0 ||
	    b64_field(wp_json_get_str(proof, "rootHash"), &root, &rl) < 0 || rl != 32 ||
	    wp_json_len(hashes) > WP_TLOG_MAX_PATH || !e->checkpoint) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the inclusion proof is missing or malformed (logIndex, treeSize, rootHash, hashes, checkpoint)",
			     what);
		goto out;
	}
	memcpy(e->root, root, 32);
	for (size_t i = 0; i < wp_json_len(hashes); i++) {
		unsigned char *h = NULL;
		size_t hl = 0;
		int bad = b64_field(wp_json_as_str(wp_json_at(hashes, i)), &h, &hl) < 0 || hl != 32;
		if (!bad)
			memcpy(e->path[i], h, 32);
		free(h);
		if (bad) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "provenance '%s': the inclusion proof's hash %zu is malformed",
				     what, i);
			goto out;
		}
	}
	e->npath = wp_json_len(hashes);
out:
	free(id);
	free(root);
	return rc;
}

static int verify_one(const struct wp_json_val *att, const struct wp_json_val *pub,
		      const char *what, const char *file_name, const char *sha256_hex,
		      const struct wp_trust_root *tr, struct wp_prov_identity *id,
		      struct wp_err *err)
{
	struct att a = { 0 };
	long long ver = 0;
	int rc = 0;
	const struct wp_json_val *vm = wp_json_get_obj(att, "verification_material");
	const struct wp_json_val *tes = wp_json_get_arr(vm, "transparency_entries");
	if (!wp_json_as_int(wp_json_get(att, "version"), &ver) || ver != 1) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': an attestation is not version 1", what);
		goto out;
	}
	if (b64_field(wp_json_get_str(att, "envelope", "statement"), &a.statement,
		      &a.statement_len) < 0 ||
	    b64_field(wp_json_get_str(att, "envelope", "signature"), &a.sig, &a.sig_len) < 0) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the envelope's statement or signature is missing or not base64",
			     what);
		goto out;
	}
	const unsigned char *p = NULL;
	if (b64_field(wp_json_get_str(vm, "certificate"), &a.cert, &a.cert_len) == 0) {
		p = a.cert;
		a.x509 = d2i_X509(NULL, &p, (long)a.cert_len);
		ERR_clear_error();
	}
	if (!a.x509 || p != a.cert + a.cert_len) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the certificate cannot be read (DER X.509)", what);
		goto out;
	}
	if (wp_json_len(tes) != 1) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': an attestation has %zu transparency log entries; exactly one is checked",
			     what, wp_json_len(tes));
		goto out;
	}
	if ((rc = load_entry(&a, wp_json_at(tes, 0), what, err)))
		goto out;
	memset(id, 0, sizeof(*id));
	read_identity(a.x509, id);
	id->signed_at = a.e.integrated_time;
	if ((rc = check_validity(a.x509, a.e.integrated_time, what, err)) ||
	    (rc = check_chain(a.x509, a.e.integrated_time, tr, what, err)) ||
	    (rc = check_signature(&a, what, err)) ||
	    (rc = check_statement(&a, what, file_name, sha256_hex, err)) ||
	    (rc = check_body(&a, what, err)) || (rc = wp_tlog_verify(&a.e, tr, what, err)) ||
	    (rc = check_publisher(pub, id, what, err)))
		goto out;
out:
	att_free(&a);
	return rc;
}

int wp_provenance_verify(const char *json, size_t len, const char *what, const char *file_name,
			 const char *sha256_hex, const struct wp_trust_root *tr,
			 struct wp_prov_result *res, struct wp_err *err)
{
	memset(res, 0, sizeof(*res));
	struct wp_json_opts o = { .what = what,
				  .noun = "provenance",
				  .kind = "PEP 740 provenance JSON",
				  .code = -WPE_INTEGRITY,
				  .max_bytes = WP_PROV_MAX_BYTES };
	struct wp_json_val *root = NULL;
	long long ver = 0;
	int rc = wp_json_load(json, len, &o, &root, err);
	if (rc)
		return rc;
	const struct wp_json_val *bundles = wp_json_get_arr(root, "attestation_bundles");
	if (!wp_json_as_int(wp_json_get(root, "version"), &ver) || ver != 1 ||
	    !wp_json_len(bundles)) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s' is not PEP 740 provenance version 1 with attestation bundles",
			     what);
		goto out;
	}
	for (size_t i = 0; i < wp_json_len(bundles); i++) {
		const struct wp_json_val *b = wp_json_at(bundles, i);
		const struct wp_json_val *atts = wp_json_get_arr(b, "attestations");
		static const char *const bundle_keys[] = { "attestations", "publisher", NULL };
		const char *odd = unknown_key(b, bundle_keys);
		const struct wp_json_val *pub = wp_json_get(b, "publisher");
		if (odd || (pub && wp_json_type(pub) != WP_JSON_OBJECT)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "provenance '%s': attestation bundle %zu has an unknown member '%s'",
				     what, i, odd ? odd : "publisher (not an object)");
			goto out;
		}
		if (!wp_json_len(atts)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "provenance '%s': attestation bundle %zu has no attestations",
				     what, i);
			goto out;
		}
		for (size_t k = 0; k < wp_json_len(atts); k++) {
			if (res->n == WP_PROV_MAX_ATTEST) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "provenance '%s' carries more than %d attestations",
					     what, WP_PROV_MAX_ATTEST);
				goto out;
			}
			rc = verify_one(wp_json_at(atts, k), wp_json_get_obj(b, "publisher"), what,
					file_name, sha256_hex, tr, &res->id[res->n], err);
			if (rc)
				goto out;
			res->n++;
		}
	}
out:
	wp_json_tree_free(root);
	return rc;
}
