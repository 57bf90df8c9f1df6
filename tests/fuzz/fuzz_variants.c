/* tests/fuzz/fuzz_variants.c: libFuzzer target for PEP 825 variant metadata (variants.json,
 * variant.json): the reader, then the order, support and markers for a few targets, and the pylock
 * table, over whatever it accepted. */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "index/variants.h"
#include "ops/wheel/locks.h"
#include "resolver/pick.h"
#include "resolver/target.h"
#include "resolver/wheelname.h"
#include "resolver/wheelvariant.h"

static void one_target(const struct wp_variants *v, const char *cuda, const char *gpu)
{
	struct wp_target t;
	struct wp_err e = WP_ERR_INIT;
	wp_target_init(&t);
	if (cuda && wp_target_set_cuda(&t, cuda, &e) < 0)
		return;
	if (gpu && wp_target_add_gpu(&t, gpu, &e) < 0)
		return;
	if (wp_target_finish(&t, &e) < 0)
		return;
	struct wp_vorder o;
	struct wp_buf why = WP_BUF_INIT, a = WP_BUF_INIT, b = WP_BUF_INIT, c = WP_BUF_INIT;
	wp_vorder_init(&o, v, &t);
	const struct wp_vlabel *prev = NULL;
	for (size_t i = 0; i < v->n_labels; i++) {
		const struct wp_vlabel *l = &v->labels[i];
		bool ok = wp_vorder_supported(&o, l, &why);
		FZ_CHECK(ok || why.len > 0);
		wp_buf_reset(&why);
		if (!ok)
			continue;
		if (prev) {
			/* an order: antisymmetric */
			int x = wp_vorder_cmp(&o, prev, l, &why),
			    y = wp_vorder_cmp(&o, l, prev, NULL);
			FZ_CHECK((x < 0 && y > 0) || (x > 0 && y < 0) || (x == 0 && y == 0));
			wp_buf_reset(&why);
		}
		wp_vorder_first_prop(&o, l, &why);
		wp_vorder_marker_sets(&o, l, &a, &b, &c);
		prev = l;
	}
	wp_vorder_release(&o);
	wp_buf_free(&why);
	wp_buf_free(&a);
	wp_buf_free(&b);
	wp_buf_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_variants v;
	struct wp_err err = WP_ERR_INIT;
	char *text = wp_xmalloc(size ? size : 1);
	memcpy(text, data, size);
	if (wp_variants_parse("fuzz.json", text, size, &v, &err) == 0) {
		FZ_CHECK(v.schema && v.n_namespaces > 0);
		for (size_t i = 0; i < v.n_labels; i++)
			FZ_CHECK(wp_variant_label_valid(v.labels[i].label,
							strlen(v.labels[i].label)));
		one_target(&v, "12.8", "sm_86");
		one_target(&v, "cpu", NULL);
		one_target(&v, "13.0", NULL);
		struct wp_buf t = WP_BUF_INIT;
		wp_pylock_variants_toml(&v, NULL, 0, "packages.variants-json", &t);
		FZ_CHECK(t.len > 0);
		wp_buf_free(&t);
		wp_variants_release(&v);
	} else {
		FZ_CHECK(err.code < 0 && err.msg[0]);
	}
	free(text);
	return 0;
}
