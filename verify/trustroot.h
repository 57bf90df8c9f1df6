/* verify/trustroot.h: Sigstore's trusted_root.json (the CAs and transparency logs a user trusts),
 * read for offline provenance checks. Pure.
 * Ownership: a struct wp_trust_root owns the DER it copied until wp_trust_root_release. */
#ifndef WP_TRUSTROOT_H
#define WP_TRUSTROOT_H

#include <stddef.h>

#include "base/err.h"

#define WP_TRUST_ROOT_MAX_BYTES (1u << 20)
#define WP_TRUST_MAX_CA 16
#define WP_TRUST_MAX_CHAIN 8
#define WP_TRUST_MAX_TLOG 16

/* One certificate authority: its chain (leafward first, the root last, DER) and the time it
 * may have issued certificates (Unix seconds; end 0 = still valid). */
struct wp_trust_ca {
	size_t n;
	unsigned char *der[WP_TRUST_MAX_CHAIN];
	size_t len[WP_TRUST_MAX_CHAIN];
	long long start, end;
};

/* One transparency log: its key (SubjectPublicKeyInfo, DER), the log ID (sha256 of that key)
 * and the time the key signed. */
struct wp_trust_tlog {
	unsigned char id[32];
	unsigned char *spki;
	size_t spki_len;
	long long start, end;
};

/* Sigstore's trusted_root.json, the parts verification needs. */
struct wp_trust_root {
	size_t nca, ntlog;
	struct wp_trust_ca ca[WP_TRUST_MAX_CA];
	struct wp_trust_tlog tlog[WP_TRUST_MAX_TLOG];
};

/* Parse a trusted_root.json (what names it in messages). 0, or -WPE_INTEGRITY naming what is
 * wrong (a trusted root that cannot be read is never "no root"). */
int wp_trust_root_load(struct wp_trust_root *tr, const char *text, size_t len, const char *what,
		       struct wp_err *err);
void wp_trust_root_release(struct wp_trust_root *tr);
/* An RFC 3339 UTC time ("2021-03-07T03:20:29Z", fractions dropped) as Unix seconds; -1 if not. */
int wp_prov_time_parse(const char *s, long long *out);

#endif
