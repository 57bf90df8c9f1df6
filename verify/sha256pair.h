/* verify/sha256pair.h: SHA-256 contexts that can take the same bytes two at a time in one pass (a
 * stored wheel member: the file's digest and the member's, both needed; see verify/wheelstream.c).
 * With the CPU's SHA extensions (SHA-NI) both run interleaved on one core at about 1.2x the cost
 * of one (two dependent chains of sha256rnds2 fill each other's latency); without them, or off
 * x86-64, each is OpenSSL's (verify/hash.h) and a pair is two updates, one after the other.
 * A struct wp_sha256 is zeroed before its first wp_sha256_init. Ownership: it owns its OpenSSL
 * context (if any) until wp_sha256_release. */
#ifndef WP_SHA256PAIR_H
#define WP_SHA256PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "verify/hash.h"

struct wp_sha256 {
	bool native;            /* SHA-NI's: h, buf, nbuf, len; else evp */
	bool evp_ready;
	uint32_t h[8];
	unsigned char buf[64];
	size_t nbuf;
	uint64_t len; /* bytes taken (both kinds: the caller's count of what was hashed) */
	struct wp_hasher evp;
};

/* Whether this CPU runs the native pair (SHA-NI, SSSE3, SSE4.1), and not turned off. */
bool wp_sha256_native(void);
/* Tests: contexts initialised after wp_sha256_allow_native(false) take OpenSSL's path even where
 * the CPU has SHA-NI (the path of CPUs without it). */
void wp_sha256_allow_native(bool on);
/* Ready c with nothing hashed (again, after a final or to start over). */
int wp_sha256_init(struct wp_sha256 *c, struct wp_err *err);
void wp_sha256_update(struct wp_sha256 *c, const void *p, size_t n);
/* The same n bytes into a and b: one interleaved pass where both are native. */
void wp_sha256_update2(struct wp_sha256 *a, struct wp_sha256 *b, const void *p, size_t n);
/* The digest of what was taken since init; init again before more updates. */
int wp_sha256_final(struct wp_sha256 *c, unsigned char out[WP_SHA256_LEN], struct wp_err *err);
void wp_sha256_release(struct wp_sha256 *c);

#endif
