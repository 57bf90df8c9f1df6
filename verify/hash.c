/* verify/hash.c: streaming digests over OpenSSL EVP; the one place that knows EVP for hashing. */
#include "verify/hash.h"
#include "base/mem.h"
#include "base/fs.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static int ctx_start(struct evp_md_ctx_st **ctx, const EVP_MD *md, struct wp_err *err)
{
	if (!*ctx)
		*ctx = EVP_MD_CTX_new();
	if (!*ctx || EVP_DigestInit_ex(*ctx, md, NULL) != 1)
		return wp_fail(err, -WPE_IO, "cannot start a '%s' digest (OpenSSL)",
			       EVP_MD_get0_name(md));
	return 0;
}

int wp_hasher_init(struct wp_hasher *h, unsigned algs, struct wp_err *err)
{
	memset(h, 0, sizeof(*h));
	h->algs = algs ? algs : WP_HASH_SHA256;
	int rc = wp_hasher_reset(h, err);
	if (rc)
		wp_hasher_release(h);
	return rc;
}

int wp_hasher_reset(struct wp_hasher *h, struct wp_err *err)
{
	int rc = 0;
	if ((h->algs & WP_HASH_SHA256) && (rc = ctx_start(&h->sha256, EVP_sha256(), err)))
		return rc;
	if ((h->algs & WP_HASH_MD5) && (rc = ctx_start(&h->md5, EVP_md5(), err)))
		return rc;
	return 0;
}

void wp_hasher_update(struct wp_hasher *h, const void *data, size_t n)
{
	/* EVP_DigestUpdate fails only on a context that was never started, which init rules out. */
	if (h->sha256)
		EVP_DigestUpdate(h->sha256, data, n);
	if (h->md5)
		EVP_DigestUpdate(h->md5, data, n);
}

int wp_hasher_final_raw(struct wp_hasher *h, unsigned char sha256[WP_SHA256_LEN],
			unsigned char md5[WP_MD5_LEN], struct wp_err *err)
{
	unsigned char tmp[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (sha256) {
		if (!h->sha256 || EVP_DigestFinal_ex(h->sha256, tmp, &n) != 1 || n != WP_SHA256_LEN)
			return wp_fail(err, -WPE_IO, "cannot finish a 'sha256' digest");
		memcpy(sha256, tmp, WP_SHA256_LEN);
	}
	if (md5) {
		if (!h->md5 || EVP_DigestFinal_ex(h->md5, tmp, &n) != 1 || n != WP_MD5_LEN)
			return wp_fail(err, -WPE_IO,
				       "cannot finish an 'md5' digest (was it asked for?)");
		memcpy(md5, tmp, WP_MD5_LEN);
	}
	return 0;
}

int wp_hasher_final(struct wp_hasher *h, char sha256_hex[WP_SHA256_HEX_LEN + 1],
		    char md5_hex[WP_MD5_HEX_LEN + 1], struct wp_err *err)
{
	unsigned char s[WP_SHA256_LEN], m[WP_MD5_LEN];
	int rc = wp_hasher_final_raw(h, sha256_hex ? s : NULL, md5_hex ? m : NULL, err);
	if (rc)
		return rc;
	if (sha256_hex)
		wp_hex_encode(s, sizeof(s), sha256_hex);
	if (md5_hex)
		wp_hex_encode(m, sizeof(m), md5_hex);
	return 0;
}

void wp_hasher_release(struct wp_hasher *h)
{
	EVP_MD_CTX_free(h->sha256);
	EVP_MD_CTX_free(h->md5);
	h->sha256 = h->md5 = NULL;
}

int wp_sha256_hex_of(const void *data, size_t n, char hex[WP_SHA256_HEX_LEN + 1])
{
	struct wp_hasher h;
	hex[0] = 0;
	if (wp_hasher_init(&h, WP_HASH_SHA256, NULL) < 0)
		return -1;
	wp_hasher_update(&h, data, n);
	int rc = wp_hasher_final(&h, hex, NULL, NULL);
	if (rc)
		hex[0] = 0;
	wp_hasher_release(&h);
	return rc ? -1 : 0;
}

int wp_hash_file(const char *path, char sha256_hex[WP_SHA256_HEX_LEN + 1], long long *size,
		 struct wp_err *err)
{
	return wp_hash_file_md5(path, sha256_hex, NULL, size, err);
}

int wp_hash_file_md5(const char *path, char sha256_hex[WP_SHA256_HEX_LEN + 1],
		     char md5_hex[WP_MD5_HEX_LEN + 1], long long *size, struct wp_err *err)
{
	struct wp_hasher h;
	long long total = 0;
	int rc = wp_hasher_init(&h, WP_HASH_SHA256 | (md5_hex ? WP_HASH_MD5 : 0), err);
	if (rc)
		return rc;
	int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (fd < 0) {
		rc = wp_fs_fail(err, errno, "cannot open", path);
		goto out;
	}
	/* 256 KiB keeps syscalls rare without touching more cache than sha256 needs. */
	enum { CHUNK = 256 << 10 };
	unsigned char *buf = wp_xmalloc(CHUNK);
	for (;;) {
		ssize_t n = wp_os_read(fd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = wp_fs_fail(err, errno, "cannot read", path);
			break;
		}
		if (n == 0)
			break;
		wp_hasher_update(&h, buf, (size_t)n);
		total += n;
	}
	free(buf);
	wp_os_close(fd);
	if (!rc)
		rc = wp_hasher_final(&h, sha256_hex, md5_hex, err);
	if (!rc && size)
		*size = total;
out:
	wp_hasher_release(&h);
	return rc;
}

void wp_hex_encode(const unsigned char *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = 0;
}

bool wp_sha256_hex_valid(const char *s)
{
	for (int i = 0; i < WP_SHA256_HEX_LEN; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return false;
	}
	return s[WP_SHA256_HEX_LEN] == 0;
}

void wp_b64url_encode(const unsigned char *p, size_t n, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		out[o++] = tab[(v >> 18) & 63];
		out[o++] = tab[(v >> 12) & 63];
		if (i + 1 < n)
			out[o++] = tab[(v >> 6) & 63];
		if (i + 2 < n)
			out[o++] = tab[v & 63];
	}
	out[o] = 0;
}

static int b64_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long wp_b64_decode(const char *s, size_t n, unsigned char *out)
{
	if (n % 4)
		return -1;
	long o = 0;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		int pad = 0;
		for (int k = 0; k < 4; k++) {
			unsigned char c = (unsigned char)s[i + k];
			if (c == '=' && i + 4 == n && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad || (v[k] = b64_val(c)) < 0)
				return -1; /* a character after '=', or not base64 */
		}
		unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 |
			     (unsigned)v[3];
		if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))
			return -1; /* bits no byte uses: another spelling of the same bytes */
		out[o++] = (unsigned char)(w >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(w >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)w;
	}
	return o;
}
