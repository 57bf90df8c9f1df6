/* tests/fuzz/fuzz_condaver.c: libFuzzer target for conda versions: parse, order and print a pair
 * ("a\nb"). */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "resolver/condaver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a, *b;
	size_t na, nb;
	fz_split(data, size, &a, &na, &b, &nb);
	struct wp_err ea = WP_ERR_INIT, eb = WP_ERR_INIT;
	struct wp_condaver va = WP_CONDAVER_INIT, vb = WP_CONDAVER_INIT;
	int ra = wp_condaver_parse(a, &va, &ea);
	int rb = wp_condaver_parse(b, &vb, &eb);
	struct wp_buf out = WP_BUF_INIT;
	if (ra == 0) {
		wp_condaver_format_parsed(&va, &out);
		FZ_CHECK(wp_condaver_order(&va, &va) == 0);
	}
	if (rb == 0)
		wp_condaver_format_parsed(&vb, &out);
	if (ra == 0 && rb == 0)
		FZ_CHECK(fz_sign(wp_condaver_order(&va, &vb)) ==
			 -fz_sign(wp_condaver_order(&vb, &va)));
	FZ_CHECK(fz_sign(wp_condaver_cmp(a, b)) == -fz_sign(wp_condaver_cmp(b, a)));
	FZ_CHECK(wp_condaver_cmp(a, a) == 0);
	wp_buf_free(&out);
	if (ra == 0)
		wp_condaver_release(&va);
	if (rb == 0)
		wp_condaver_release(&vb);
	free(a);
	free(b);
	return 0;
}
