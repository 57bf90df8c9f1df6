/* verify/hash.h: streaming sha256 (and md5 when asked) over OpenSSL EVP, with hex and base64 forms.
 * Ownership: a struct wp_hasher owns its EVP contexts until wp_hasher_release; every hex or
 * base64 output is a caller-provided buffer. The OpenSSL types stay opaque here so that callers
 * outside verify/ and cache/store.c never include an OpenSSL header. */
#ifndef WP_HASH_H
#define WP_HASH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define WP_SHA256_LEN 32
#define WP_MD5_LEN 16
#define WP_SHA256_HEX_LEN 64
#define WP_MD5_HEX_LEN 32

enum wp_hash_alg {
	WP_HASH_SHA256 = 1 << 0,
	WP_HASH_MD5 = 1 << 1, /* off unless asked: with SHA-NI, sha256 runs ~1.4 GB/s and md5 only
	                         ~0.7 GB/s (both at once ~0.5 GB/s), and only old conda repodata
	                         carries md5 alone (measured in tests/unit/test_hash.c) */
};

struct evp_md_ctx_st;

struct wp_hasher {
	unsigned algs;
	struct evp_md_ctx_st *sha256;
	struct evp_md_ctx_st *md5;
};

/* algs is a mask of WP_HASH_*; 0 means sha256 alone. */
int wp_hasher_init(struct wp_hasher *h, unsigned algs, struct wp_err *err);
void wp_hasher_update(struct wp_hasher *h, const void *data, size_t n);
/* Start over with nothing hashed (a download restarting at offset 0). */
int wp_hasher_reset(struct wp_hasher *h, struct wp_err *err);
/* Digests of what was hashed; either output may be NULL. The hasher must be reset before more
 * updates. */
int wp_hasher_final_raw(struct wp_hasher *h, unsigned char sha256[WP_SHA256_LEN],
			unsigned char md5[WP_MD5_LEN], struct wp_err *err);
/* Lowercase hex, NUL-terminated; either output may be NULL. */
int wp_hasher_final(struct wp_hasher *h, char sha256_hex[WP_SHA256_HEX_LEN + 1],
		    char md5_hex[WP_MD5_HEX_LEN + 1], struct wp_err *err);
void wp_hasher_release(struct wp_hasher *h);

/* sha256 of n bytes in memory, lowercase hex; "" (and nonzero) when libcrypto would not hash. */
int wp_sha256_hex_of(const void *data, size_t n, char hex[WP_SHA256_HEX_LEN + 1]);

/* sha256 of a whole file, streamed; size (optional) gets its length in bytes. */
int wp_hash_file(const char *path, char sha256_hex[WP_SHA256_HEX_LEN + 1], long long *size,
		 struct wp_err *err);
/* The same, with its MD5 too when md5_hex is not NULL (an S3 ETag), in the one pass. */
int wp_hash_file_md5(const char *path, char sha256_hex[WP_SHA256_HEX_LEN + 1],
		     char md5_hex[WP_MD5_HEX_LEN + 1], long long *size, struct wp_err *err);

/* Lowercase hex of n bytes into out (2n+1 bytes). */
void wp_hex_encode(const unsigned char *p, size_t n, char *out);
/* True for exactly 64 hex digits (either case) followed by NUL. */
bool wp_sha256_hex_valid(const char *s);
/* The form wheel RECORD files use: urlsafe base64 without '=' padding, NUL-terminated;
 * out needs 4 * ceil(n / 3) + 1 bytes. */
void wp_b64url_encode(const unsigned char *p, size_t n, char *out);
/* Standard base64 (RFC 4648, '+' '/', padded) into out, which needs 3 * (n / 4) bytes: the
 * decoded length, or -1 for anything but the one canonical spelling (a stray character, a
 * missing or misplaced '=', nonzero bits below the last byte), so no two texts decode alike
 * and a changed character always changes or refuses the bytes (signatures rely on that). */
long wp_b64_decode(const char *s, size_t n, unsigned char *out);

#endif
