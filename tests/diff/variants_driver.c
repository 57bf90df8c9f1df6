/* tests/diff/variants_driver.c: PEP 825 order for variants_diff.py: for each variants.json named
 * on the command line, one line "ok LABEL LABEL ..." (the labels the target supports, best first,
 * as wheelpick orders them) or "error MESSAGE"; with -v, one "why LABEL: REASON" line for each
 * label left out, before it. The target is a CPU x86-64 Linux machine (the files this test writes
 * use static namespaces only, whose support comes from the file and not the machine). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "index/variants.h"
#include "resolver/target.h"
#include "resolver/wheelvariant.h"

static const struct wp_vorder *g_order;

static int by_order(const void *a, const void *b)
{
	const struct wp_vlabel *x = *(const struct wp_vlabel *const *)a,
			       *y = *(const struct wp_vlabel *const *)b;
	return wp_vorder_cmp(g_order, x, y, NULL);
}

int main(int argc, char **argv)
{
	struct wp_target t;
	struct wp_err err = WP_ERR_INIT;
	int first = 1;
	bool why = argc > 1 && !strcmp(argv[1], "-v");
	wp_target_init(&t);
	if (wp_target_set_platform(&t, "manylinux_2_28_x86_64", &err) ||
	    wp_target_set_python(&t, "3.12", &err) || wp_target_finish(&t, &err)) {
		fprintf(stderr, "target: %s\n", err.msg);
		return 2;
	}
	for (int a = first + why; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");
		struct wp_buf b = WP_BUF_INIT;
		char chunk[65536];
		size_t k;
		if (!f) {
			printf("error cannot open\n");
			continue;
		}
		while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
			wp_buf_add(&b, chunk, k);
		fclose(f);
		struct wp_variants v;
		wp_err_clear(&err);
		if (wp_variants_parse(argv[a], b.data ? b.data : "", b.len, &v, &err) < 0) {
			printf("error %s\n", err.msg);
			wp_buf_free(&b);
			continue;
		}
		struct wp_vorder o;
		wp_vorder_init(&o, &v, &t);
		const struct wp_vlabel **keep = calloc(v.n_labels + 1, sizeof(*keep));
		size_t n = 0;
		for (size_t i = 0; i < v.n_labels; i++) {
			struct wp_buf w = WP_BUF_INIT;
			if (wp_vorder_supported(&o, &v.labels[i], why ? &w : NULL))
				keep[n++] = &v.labels[i];
			else if (why)
				printf("why %s\n", wp_buf_cstr(&w));
			wp_buf_free(&w);
		}
		g_order = &o;
		qsort(keep, n, sizeof(*keep), by_order);
		fputs("ok", stdout);
		for (size_t i = 0; i < n; i++)
			printf(" %s", keep[i]->label);
		putchar('\n');
		free(keep);
		wp_vorder_release(&o);
		wp_variants_release(&v);
		wp_buf_free(&b);
	}
	return 0;
}
