/* verify/lazy_crypto.c: the libcrypto digests wheelpick uses (sha256, md5), loaded on first use
 * (see lazylib.h). A pick from a warm catalog hashes nothing and need not relocate libcrypto. */
#include "base/lazylib.h"

#include <openssl/evp.h>

#define FWD(ret, name, params, args) WP_LAZY_FORWARD(wp_lazy_crypto, ret, name, params, args)
#define FWD_VOID(name, params, args) WP_LAZY_FORWARD_VOID(wp_lazy_crypto, name, params, args)

FWD(const EVP_MD *, EVP_sha256, (void), ())
FWD(const EVP_MD *, EVP_md5, (void), ())
FWD(const char *, EVP_MD_get0_name, (const EVP_MD *md), (md))
FWD(EVP_MD_CTX *, EVP_MD_CTX_new, (void), ())
FWD_VOID(EVP_MD_CTX_free, (EVP_MD_CTX *ctx), (ctx))
FWD(int, EVP_DigestInit_ex, (EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl), (ctx, type, impl))
FWD(int, EVP_DigestUpdate, (EVP_MD_CTX *ctx, const void *d, size_t cnt), (ctx, d, cnt))
FWD(int, EVP_DigestFinal_ex, (EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s), (ctx, md, s))
