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

/* PEP 740 provenance (verify/provenance.c, verify/tlog.c): certificates, chains, signatures. */
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

FWD(const EVP_MD *, EVP_sha384, (void), ())
FWD(X509 *, d2i_X509, (X509 **a, const unsigned char **in, long len), (a, in, len))
FWD_VOID(X509_free, (X509 *a), (a))
FWD(EVP_PKEY *, X509_get0_pubkey, (const X509 *x), (x))
FWD(const ASN1_TIME *, X509_get0_notBefore, (const X509 *x), (x))
FWD(const ASN1_TIME *, X509_get0_notAfter, (const X509 *x), (x))
FWD(int, ASN1_TIME_cmp_time_t, (const ASN1_TIME *s, time_t t), (s, t))
FWD(int, ASN1_TIME_to_tm, (const ASN1_TIME *s, struct tm *tm), (s, tm))
FWD(X509_STORE *, X509_STORE_new, (void), ())
FWD_VOID(X509_STORE_free, (X509_STORE *v), (v))
FWD(int, X509_STORE_add_cert, (X509_STORE *ctx, X509 *x), (ctx, x))
FWD(X509_STORE_CTX *, X509_STORE_CTX_new, (void), ())
FWD_VOID(X509_STORE_CTX_free, (X509_STORE_CTX *ctx), (ctx))
FWD(int, X509_STORE_CTX_init,
    (X509_STORE_CTX * ctx, X509_STORE *store, X509 *x509, STACK_OF(X509) * chain),
    (ctx, store, x509, chain))
FWD_VOID(X509_STORE_CTX_set_time, (X509_STORE_CTX * ctx, unsigned long flags, time_t t),
	 (ctx, flags, t))
FWD(int, X509_verify_cert, (X509_STORE_CTX *ctx), (ctx))
FWD(int, X509_STORE_CTX_get_error, (const X509_STORE_CTX *ctx), (ctx))
FWD(const char *, X509_verify_cert_error_string, (long n), (n))
FWD(OPENSSL_STACK *, OPENSSL_sk_new_null, (void), ())
FWD(int, OPENSSL_sk_push, (OPENSSL_STACK *st, const void *data), (st, data))
FWD_VOID(OPENSSL_sk_free, (OPENSSL_STACK *st), (st))
FWD(int, X509_get_ext_count, (const X509 *x), (x))
FWD(X509_EXTENSION *, X509_get_ext, (const X509 *x, int loc), (x, loc))
FWD(ASN1_OBJECT *, X509_EXTENSION_get_object, (X509_EXTENSION *ex), (ex))
FWD(ASN1_OCTET_STRING *, X509_EXTENSION_get_data, (X509_EXTENSION *ne), (ne))
FWD(int, OBJ_obj2txt, (char *buf, int buf_len, const ASN1_OBJECT *a, int no_name),
    (buf, buf_len, a, no_name))
FWD(const unsigned char *, ASN1_STRING_get0_data, (const ASN1_STRING *x), (x))
FWD(int, ASN1_STRING_length, (const ASN1_STRING *x), (x))
FWD(EVP_PKEY *, d2i_PUBKEY, (EVP_PKEY **a, const unsigned char **pp, long length), (a, pp, length))
FWD_VOID(EVP_PKEY_free, (EVP_PKEY *pkey), (pkey))
FWD(int, EVP_PKEY_get_bits, (const EVP_PKEY *pkey), (pkey))
FWD(int, EVP_PKEY_get_base_id, (const EVP_PKEY *pkey), (pkey))
FWD(int, EVP_DigestVerifyInit,
    (EVP_MD_CTX * ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey),
    (ctx, pctx, type, e, pkey))
FWD(int, EVP_DigestVerify,
    (EVP_MD_CTX * ctx, const unsigned char *sigret, size_t siglen, const unsigned char *tbs,
     size_t tbslen),
    (ctx, sigret, siglen, tbs, tbslen))
FWD_VOID(ERR_clear_error, (void), ())
