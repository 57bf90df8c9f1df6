/* bench/pair_speed.c: what the two-lane SHA-256 (verify/sha256pair.c) costs against OpenSSL's one
 * chain: 256 MiB hashed once by OpenSSL, once by one native lane, once into both lanes; CPU time.
 * cc -O2 -I. bench/pair_speed.c build-bench/libwp.a -lcrypto -o /tmp/pair_speed &&
 * /tmp/pair_speed */
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "verify/sha256pair.h"

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
	size_t n = (size_t)256 << 20;
	unsigned char *b = malloc(n), d[32];
	struct wp_err err = WP_ERR_INIT;
	if (!b)
		return 1;
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 2654435761u >> 13);
	printf("native two lanes: %s\n",
	       wp_sha256_native() ? "yes (SHA-NI)" : "no (OpenSSL twice)");
	for (int r = 0; r < 3; r++) {
		struct wp_sha256 a = { 0 }, c = { 0 };
		double t0 = cpu();
		SHA256(b, n, d);
		double t1 = cpu();
		wp_sha256_init(&a, &err);
		wp_sha256_update(&a, b, n);
		wp_sha256_final(&a, d, &err);
		double t2 = cpu();
		wp_sha256_init(&a, &err);
		wp_sha256_init(&c, &err);
		wp_sha256_update(&a, b, 100); /* the file's lane ahead of the member's, as in a
						 wheel */
		wp_sha256_update2(&a, &c, b + 100, n - 100);
		wp_sha256_final(&a, d, &err);
		wp_sha256_final(&c, d, &err);
		double t3 = cpu();
		printf("OpenSSL %.0f MB/s; one lane %.0f MB/s; both lanes %.2fx OpenSSL's time for one digest\n",
		       n / 1e6 / (t1 - t0), n / 1e6 / (t2 - t1), (t3 - t2) / (t1 - t0));
		wp_sha256_release(&a);
		wp_sha256_release(&c);
	}
	free(b);
	return 0;
}
