/* tests/fuzz/fuzz_fatbin.c: libFuzzer target for the fatbinary reader (verify/fatbin.c) and the
 * verdict on its summary. */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "resolver/gpucode.h"
#include "verify/fatbin.h"

/* The input is a whole file: read at once, then streamed in chunks sized by its first byte; both
 * readings agree, every entry lies in its container, and the summary is text the verdict takes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_err e1 = WP_ERR_INIT, e2 = WP_ERR_INIT;
	struct wp_fatbin a = { 0 }, b = { 0 };
	int r1 = wp_fatbin_read(data, size, "f.so", &a, &e1);
	struct wp_fatbin_scan *s = wp_fatbin_scan_new();
	size_t step = size ? 1 + data[0] % 61 : 1;
	for (size_t at = 0; at < size; at += step)
		wp_fatbin_scan_feed(s, data + at, size - at < step ? size - at : step);
	int r2 = wp_fatbin_scan_finish(s, "f.so", &b, &e2);
	wp_fatbin_scan_free(s);
	FZ_CHECK(r1 == 0 || r1 == -WPE_INTEGRITY);
	FZ_CHECK(r1 == r2);
	FZ_CHECK(a.n_containers == b.n_containers && a.n_entries == b.n_entries);
	for (size_t i = 0; i < a.n_entries; i++) {
		const struct wp_fatbin_entry *en = &a.entries[i];
		FZ_CHECK(en->container < a.n_containers);
		const struct wp_fatbin_container *c = &a.containers[en->container];
		FZ_CHECK(en->offset > c->offset && en->offset - c->offset < c->size);
		FZ_CHECK(en->kind == WP_FATBIN_PTX || en->kind == WP_FATBIN_CUBIN);
		FZ_CHECK(en->arch == b.entries[i].arch && en->kind == b.entries[i].kind);
	}
	struct wp_buf sum = WP_BUF_INIT, why = WP_BUF_INIT;
	wp_fatbin_summary(&a, &sum);
	static const int gpus[] = { 35, 61, 80, 87, 90, 100, 120 };
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
		enum wp_gpu_verdict v;
		struct wp_err e = WP_ERR_INIT;
		FZ_CHECK(wp_gpucode_verdict(wp_buf_cstr(&sum), gpus[i], 120, &v, &why, &e) == 0);
		FZ_CHECK((v == WP_GPU_NO_CODE) == (sum.len == 0));
	}
	wp_buf_free(&sum);
	wp_buf_free(&why);
	wp_fatbin_free(&a);
	wp_fatbin_free(&b);
	return 0;
}
