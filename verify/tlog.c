/* verify/tlog.c: Rekor entries checked offline: signed entry timestamp, inclusion proof,
 * checkpoint. */
#include "verify/tlog.h"
#include "verify/hash.h"
#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

bool wp_sig_verify(struct evp_pkey_st *key, const void *data, size_t n, const unsigned char *sig,
		   size_t siglen)
{
	const EVP_MD *md = NULL;
	if (!key)
		return false;
	if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC)
		md = EVP_PKEY_get_bits(key) > 256 ? EVP_sha384() : EVP_sha256();
	else if (EVP_PKEY_get_base_id(key) != EVP_PKEY_ED25519)
		return false; /* Sigstore signs with ECDSA or Ed25519 only */
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	bool ok = ctx && EVP_DigestVerifyInit(ctx, NULL, md, NULL, key) == 1 &&
		  EVP_DigestVerify(ctx, sig, siglen, data, n) == 1;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}

static void node_hash(const unsigned char *l, const unsigned char *r, unsigned char out[32])
{
	struct wp_hasher h;
	unsigned char pre = 1; /* RFC 6962: interior nodes are H(0x01 || left || right) */
	if (wp_hasher_init(&h, WP_HASH_SHA256, NULL) == 0) {
		wp_hasher_update(&h, &pre, 1);
		wp_hasher_update(&h, l, 32);
		wp_hasher_update(&h, r, 32);
		wp_hasher_final_raw(&h, out, NULL, NULL);
	}
	wp_hasher_release(&h);
}

/* RFC 9162 section 2.1.3.2, step by step. */
bool wp_merkle_root_from_path(const unsigned char leaf_hash[32], long long index, long long size,
			      const unsigned char (*path)[32], size_t npath, unsigned char root[32])
{
	if (index < 0 || size <= 0 || index >= size)
		return false;
	unsigned long long fn = (unsigned long long)index, sn = (unsigned long long)size - 1;
	unsigned char r[32];
	memcpy(r, leaf_hash, 32);
	for (size_t i = 0; i < npath; i++) {
		if (sn == 0)
			return false;
		if ((fn & 1) || fn == sn) {
			node_hash(path[i], r, r);
			if (!(fn & 1))
				while (!(fn & 1) && fn) {
					fn >>= 1;
					sn >>= 1;
				}
		} else {
			node_hash(r, path[i], r);
		}
		fn >>= 1;
		sn >>= 1;
	}
	if (sn != 0)
		return false;
	memcpy(root, r, 32);
	return true;
}

static const struct wp_trust_tlog *find_log(const struct wp_trust_root *tr,
					    const unsigned char id[32])
{
	for (size_t i = 0; i < tr->ntlog; i++)
		if (!memcmp(tr->tlog[i].id, id, 32))
			return &tr->tlog[i];
	return NULL;
}

static EVP_PKEY *log_key(const struct wp_trust_tlog *t)
{
	const unsigned char *p = t->spki;
	EVP_PKEY *k = d2i_PUBKEY(NULL, &p, (long)t->spki_len);
	ERR_clear_error();
	return k;
}

/* The SET signs the entry's canonical JSON (RFC 8785: sorted keys, no spaces); base64 text
 * and hex need no escaping, so printf writes it exactly. */
static int check_set(const struct wp_tlog_entry *e, EVP_PKEY *key, const char *what,
		     struct wp_err *err)
{
	char hex[65];
	struct wp_buf b = WP_BUF_INIT_MAX(WP_TLOG_MAX_BODY * 2);
	wp_hex_encode(e->log_id, 32, hex);
	int rc = 0;
	if (!e->set_len) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the transparency log entry has no signed entry timestamp (inclusionPromise)",
			     what);
	} else if (wp_buf_printf(&b,
				 "{\"body\":\"%s\",\"integratedTime\":%lld,\"logID\":\"%s\",\"logIndex\":%lld}",
				 e->body_b64, e->integrated_time, hex, e->log_index) < 0 ||
		   !wp_sig_verify(key, b.data, b.len, e->set, e->set_len)) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "provenance '%s': the transparency log's signed entry timestamp does not verify "
			     "(entry body, integratedTime or logIndex changed)",
			     what);
	}
	wp_buf_free(&b);
	return rc;
}

/* A signed note: "ORIGIN\nSIZE\nROOT_B64\n[more lines\n]\n— NAME B64(hint4 || sig)\n...". */
static int check_checkpoint(const struct wp_tlog_entry *e, EVP_PKEY *key, const char *what,
			    struct wp_err *err)
{
	const char *note = e->checkpoint ? e->checkpoint : "";
	const char *sep = strstr(note, "\n\n");
	char origin[256], rootb64[64];
	long long size = -1;
	int used = 0;
	if (!sep ||
	    sscanf(note, "%255[^\n]\n%lld\n%63[^\n]\n%n", origin, &size, rootb64, &used) != 3 ||
	    !used)
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': the checkpoint is not a signed note", what);
	size_t body_len = (size_t)(sep - note) + 1;
	unsigned char root[48];
	if (size != e->tree_size || wp_b64_decode(rootb64, strlen(rootb64), root) != 32 ||
	    memcmp(root, e->root, 32))
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': the checkpoint's tree size or root hash is not the inclusion proof's",
			       what);
	/* Any one signature line by this log's key will do: a hint of the key ID's first 4
	 * bytes. */
	const char *line = sep + 2;
	while (*line) {
		const char *end = strchr(line, '\n');
		if (!end)
			break;
		static const char dash[] = "\xe2\x80\x94 "; /* U+2014 EM DASH, then a space */
		const char *sp = (size_t)(end - line) > sizeof(dash) ?
					 memchr(line + sizeof(dash) - 1, ' ',
						(size_t)(end - line) - (sizeof(dash) - 1)) :
					 NULL;
		/* the signer's name is the origin's first word ("rekor.sigstore.dev - 1193..."): a
		   signature line by another name is not this log's, whatever its key hint */
		size_t oname = strcspn(origin, " ");
		const char *name = line + sizeof(dash) - 1;
		if (!strncmp(line, dash, sizeof(dash) - 1) && sp && (size_t)(sp - name) == oname &&
		    !strncmp(name, origin, oname)) {
			size_t bn = (size_t)(end - sp - 1);
			unsigned char *sig = malloc(bn / 4 * 3 + 1);
			long sl = sig ? wp_b64_decode(sp + 1, bn, sig) : -1;
			bool ok = sl > 4 && !memcmp(sig, e->log_id, 4) &&
				  wp_sig_verify(key, note, body_len, sig + 4, (size_t)sl - 4);
			free(sig);
			if (ok)
				return 0;
		}
		line = end + 1;
	}
	return wp_fail(err, -WPE_INTEGRITY,
		       "provenance '%s': the checkpoint's signature does not verify under the trusted root's log key",
		       what);
}

int wp_tlog_verify(const struct wp_tlog_entry *e, const struct wp_trust_root *tr, const char *what,
		   struct wp_err *err)
{
	const struct wp_trust_tlog *t = find_log(tr, e->log_id);
	if (!t)
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': its transparency log is not in the trusted root (logId); is it the right trusted root?",
			       what);
	if (e->integrated_time < t->start || (t->end && e->integrated_time > t->end))
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': the transparency log's key was not valid at the entry's integratedTime",
			       what);
	EVP_PKEY *key = log_key(t);
	if (!key)
		return wp_fail(err, -WPE_INTEGRITY,
			       "provenance '%s': the trusted root's log key cannot be read", what);
	int rc = check_set(e, key, what, err);
	if (!rc) {
		unsigned char leaf[32], root[32];
		struct wp_hasher h;
		unsigned char pre = 0; /* leaves are H(0x00 || entry) */
		rc = wp_hasher_init(&h, WP_HASH_SHA256, err);
		if (!rc) {
			wp_hasher_update(&h, &pre, 1);
			wp_hasher_update(&h, e->body, e->body_len);
			rc = wp_hasher_final_raw(&h, leaf, NULL, err);
			wp_hasher_release(&h);
		}
		if (!rc && (!wp_merkle_root_from_path(leaf, e->proof_index, e->tree_size,
						      (const unsigned char(*)[32])e->path, e->npath,
						      root) ||
			    memcmp(root, e->root, 32)))
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "provenance '%s': the inclusion proof does not lead from the entry to the root hash",
				     what);
	}
	if (!rc)
		rc = check_checkpoint(e, key, what, err);
	EVP_PKEY_free(key);
	return rc;
}
