/* verify/tlog.h: a Rekor transparency-log entry checked offline: its signed entry timestamp,
 * RFC 6962 inclusion proof and signed checkpoint (the note format), under a trusted log key;
 * and the signature check verify/provenance.c shares. Pure. Ownership: the entry borrows
 * every pointer from its caller. */
#ifndef WP_TLOG_H
#define WP_TLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "verify/trustroot.h"

#define WP_TLOG_MAX_PATH 64 /* a proof for a tree of 2^64 leaves */
#define WP_TLOG_MAX_BODY (4u << 20) /* as a provenance file's ceiling: a body is inside one */

struct wp_tlog_entry {
	const unsigned char *body; /* canonicalizedBody, decoded */
	size_t body_len;
	const char *body_b64;      /* as the entry spells it (the SET signs this text) */
	long long integrated_time, log_index;
	unsigned char log_id[32];
	const unsigned char *set;  /* inclusionPromise.signedEntryTimestamp, decoded */
	size_t set_len;
	long long proof_index, tree_size;
	unsigned char root[32];
	unsigned char path[WP_TLOG_MAX_PATH][32];
	size_t npath;
	const char *checkpoint;    /* the signed note's text */
};

/* 0, or -WPE_INTEGRITY naming the check that failed ("inclusion proof", "checkpoint",
 * "signed entry timestamp", "transparency log"); what names the provenance. */
int wp_tlog_verify(const struct wp_tlog_entry *e, const struct wp_trust_root *tr, const char *what,
		   struct wp_err *err);

/* An ECDSA (DER) or Ed25519 signature over data under a public key (an EVP_PKEY, opaque
 * here); the digest follows the key: SHA-256 for P-256, SHA-384 for P-384. */
struct evp_pkey_st;
bool wp_sig_verify(struct evp_pkey_st *key, const void *data, size_t n, const unsigned char *sig,
		   size_t siglen);

/* The RFC 6962 root a leaf's audit path leads to (index of size leaves); false when the path
 * is the wrong length for index and size. */
bool wp_merkle_root_from_path(const unsigned char leaf_hash[32], long long index, long long size,
			      const unsigned char (*path)[32], size_t npath,
			      unsigned char root[32]);

#endif
