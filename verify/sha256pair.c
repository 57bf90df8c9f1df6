/* verify/sha256pair.c: two SHA-256 digests of the same bytes in one pass (SHA-NI, two lanes
 * interleaved), for a stored wheel member whose bytes the file's digest and RECORD's both need.
 * OpenSSL (verify/hash.c) hashes everything else: its EVP interface takes one stream at a time, and
 * one SHA-NI chain is latency-bound (each sha256rnds2 waits for the one before), so a second
 * independent chain runs in the gaps: measured here, both digests for 1.2x the CPU of one. */
#include "verify/sha256pair.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_SHANI 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define HAVE_SHANI 0
#endif

static bool native_off; /* wp_sha256_allow_native(false): tests only */

void wp_sha256_allow_native(bool on)
{
	__atomic_store_n(&native_off, !on, __ATOMIC_RELAXED);
}

static const uint32_t IV[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

#if HAVE_SHANI
static const uint32_t K[64] __attribute__((aligned(16))) = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

#define TGT __attribute__((target("sha,sse4.1,ssse3")))

/* The state as sha256rnds2 wants it: ABEF and CDGH. */
TGT static inline void st_load(const uint32_t s[8], __m128i *s0, __m128i *s1)
{
	__m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&s[0]), 0xB1);
	__m128i u = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&s[4]), 0x1B);
	*s0 = _mm_alignr_epi8(t, u, 8);
	*s1 = _mm_blend_epi16(u, t, 0xF0);
}

TGT static inline void st_store(uint32_t s[8], __m128i s0, __m128i s1)
{
	__m128i t = _mm_shuffle_epi32(s0, 0x1B);
	s1 = _mm_shuffle_epi32(s1, 0xB1);
	_mm_storeu_si128((__m128i *)&s[0], _mm_blend_epi16(t, s1, 0xF0));
	_mm_storeu_si128((__m128i *)&s[4], _mm_alignr_epi8(s1, t, 8));
}

#define BSWAP _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL)
#define LOADW(p, i) _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((p) + 16 * (i))), BSWAP)
/* four rounds with message words w (i: which four) */
#define ROUNDS4(S0, S1, w, i)                                                                 \
	do {                                                                                  \
		__m128i m_ = _mm_add_epi32((w), _mm_load_si128((const __m128i *)&K[4 * (i)])); \
		S1 = _mm_sha256rnds2_epu32(S1, S0, m_);                                       \
		S0 = _mm_sha256rnds2_epu32(S0, S1, _mm_shuffle_epi32(m_, 0x0E));              \
	} while (0)
/* the next four message words into w0, from the last sixteen (w0 oldest) */
#define SCHED(w0, w1, w2, w3) \
	w0 = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), _mm_alignr_epi8(w3, w2, 4)), w3)

TGT static void blocks1(uint32_t s[8], const unsigned char *p, size_t nb)
{
	__m128i S0, S1;
	st_load(s, &S0, &S1);
	for (; nb; nb--, p += 64) {
		__m128i A = S0, B = S1;
		__m128i w0 = LOADW(p, 0), w1 = LOADW(p, 1), w2 = LOADW(p, 2), w3 = LOADW(p, 3);
		ROUNDS4(S0, S1, w0, 0);
		ROUNDS4(S0, S1, w1, 1);
		ROUNDS4(S0, S1, w2, 2);
		ROUNDS4(S0, S1, w3, 3);
		for (int i = 4; i < 16; i += 4) {
			SCHED(w0, w1, w2, w3);
			ROUNDS4(S0, S1, w0, i);
			SCHED(w1, w2, w3, w0);
			ROUNDS4(S0, S1, w1, i + 1);
			SCHED(w2, w3, w0, w1);
			ROUNDS4(S0, S1, w2, i + 2);
			SCHED(w3, w0, w1, w2);
			ROUNDS4(S0, S1, w3, i + 3);
		}
		S0 = _mm_add_epi32(S0, A);
		S1 = _mm_add_epi32(S1, B);
	}
	st_store(s, S0, S1);
}

/* nb blocks at p into s and nb blocks at q into t, the two chains interleaved */
TGT static void blocks2(uint32_t s[8], const unsigned char *p, uint32_t t[8],
			const unsigned char *q, size_t nb)
{
	__m128i S0, S1, R0, R1;
	st_load(s, &S0, &S1);
	st_load(t, &R0, &R1);
	for (; nb; nb--, p += 64, q += 64) {
		__m128i A = S0, B = S1, C = R0, D = R1;
		__m128i w0 = LOADW(p, 0), w1 = LOADW(p, 1), w2 = LOADW(p, 2), w3 = LOADW(p, 3);
		__m128i v0 = LOADW(q, 0), v1 = LOADW(q, 1), v2 = LOADW(q, 2), v3 = LOADW(q, 3);
		ROUNDS4(S0, S1, w0, 0);
		ROUNDS4(R0, R1, v0, 0);
		ROUNDS4(S0, S1, w1, 1);
		ROUNDS4(R0, R1, v1, 1);
		ROUNDS4(S0, S1, w2, 2);
		ROUNDS4(R0, R1, v2, 2);
		ROUNDS4(S0, S1, w3, 3);
		ROUNDS4(R0, R1, v3, 3);
		for (int i = 4; i < 16; i += 4) {
			SCHED(w0, w1, w2, w3);
			SCHED(v0, v1, v2, v3);
			ROUNDS4(S0, S1, w0, i);
			ROUNDS4(R0, R1, v0, i);
			SCHED(w1, w2, w3, w0);
			SCHED(v1, v2, v3, v0);
			ROUNDS4(S0, S1, w1, i + 1);
			ROUNDS4(R0, R1, v1, i + 1);
			SCHED(w2, w3, w0, w1);
			SCHED(v2, v3, v0, v1);
			ROUNDS4(S0, S1, w2, i + 2);
			ROUNDS4(R0, R1, v2, i + 2);
			SCHED(w3, w0, w1, w2);
			SCHED(v3, v0, v1, v2);
			ROUNDS4(S0, S1, w3, i + 3);
			ROUNDS4(R0, R1, v3, i + 3);
		}
		S0 = _mm_add_epi32(S0, A);
		S1 = _mm_add_epi32(S1, B);
		R0 = _mm_add_epi32(R0, C);
		R1 = _mm_add_epi32(R1, D);
	}
	st_store(s, S0, S1);
	st_store(t, R0, R1);
}

bool wp_sha256_native(void)
{
	static int known; /* 0 not asked, 1 no, 2 yes */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (!k) {
		unsigned a, b, c, d;
		bool ok = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
			  __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)); /* SHA */
		k = ok ? 2 : 1;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k == 2 && !__atomic_load_n(&native_off, __ATOMIC_RELAXED);
}
#else
static void blocks1(uint32_t s[8], const unsigned char *p, size_t nb)
{
	(void)s, (void)p, (void)nb;
}

static void blocks2(uint32_t s[8], const unsigned char *p, uint32_t t[8], const unsigned char *q,
		    size_t nb)
{
	(void)s, (void)p, (void)t, (void)q, (void)nb;
}

bool wp_sha256_native(void)
{
	return false;
}
#endif

int wp_sha256_init(struct wp_sha256 *c, struct wp_err *err)
{
	c->native = wp_sha256_native();
	c->nbuf = 0;
	c->len = 0;
	memcpy(c->h, IV, sizeof(IV));
	if (c->native)
		return 0;
	if (c->evp_ready)
		return wp_hasher_reset(&c->evp, err);
	int rc = wp_hasher_init(&c->evp, WP_HASH_SHA256, err);
	c->evp_ready = rc == 0;
	return rc;
}

/* Bytes into c's partial block until it is whole (or p runs out): how many it took. */
static size_t fill(struct wp_sha256 *c, const unsigned char *p, size_t n)
{
	size_t k = 64 - c->nbuf < n ? 64 - c->nbuf : n;
	memcpy(c->buf + c->nbuf, p, k);
	c->nbuf += k;
	if (c->nbuf == 64) {
		blocks1(c->h, c->buf, 1);
		c->nbuf = 0;
	}
	return k;
}

void wp_sha256_update(struct wp_sha256 *c, const void *data, size_t n)
{
	const unsigned char *p = data;
	c->len += n;
	if (!c->native) {
		wp_hasher_update(&c->evp, p, n);
		return;
	}
	if (c->nbuf) {
		size_t k = fill(c, p, n);
		p += k, n -= k;
	}
	if (n >= 64) {
		blocks1(c->h, p, n / 64);
		p += n / 64 * 64, n %= 64;
	}
	if (n)
		fill(c, p, n);
}

void wp_sha256_update2(struct wp_sha256 *a, struct wp_sha256 *b, const void *data, size_t n)
{
	const unsigned char *p = data;
	if (!a->native || !b->native || n < 256) {
		wp_sha256_update(a, p, n);
		wp_sha256_update(b, p, n);
		return;
	}
	a->len += n;
	b->len += n;
	/* each takes bytes into its partial block until whole: then both stand at a block
	 * boundary, each at its own offset into p (ka, kb < 64) */
	size_t ka = a->nbuf ? fill(a, p, n) : 0;
	size_t kb = b->nbuf ? fill(b, p, n) : 0;
	size_t both = (n - (ka > kb ? ka : kb)) / 64;
	blocks2(a->h, p + ka, b->h, p + kb, both);
	ka += both * 64;
	kb += both * 64;
	/* the rest one at a time (under 128 bytes each) */
	if (n - ka >= 64) {
		blocks1(a->h, p + ka, (n - ka) / 64);
		ka += (n - ka) / 64 * 64;
	}
	if (n - kb >= 64) {
		blocks1(b->h, p + kb, (n - kb) / 64);
		kb += (n - kb) / 64 * 64;
	}
	if (n > ka)
		fill(a, p + ka, n - ka);
	if (n > kb)
		fill(b, p + kb, n - kb);
}

int wp_sha256_final(struct wp_sha256 *c, unsigned char out[WP_SHA256_LEN], struct wp_err *err)
{
	if (!c->native)
		return wp_hasher_final_raw(&c->evp, out, NULL, err);
	uint64_t bits = c->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t padn = (c->nbuf < 56 ? 56 : 120) - c->nbuf;
	for (int i = 0; i < 8; i++)
		pad[padn + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
	uint64_t len = c->len;
	wp_sha256_update(c, pad, padn + 8);
	c->len = len;
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
	return 0;
}

void wp_sha256_release(struct wp_sha256 *c)
{
	if (c->evp_ready)
		wp_hasher_release(&c->evp);
	c->evp_ready = false;
}
