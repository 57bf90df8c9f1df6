/* tests/unit/test_variant.c: variant labels and directories, including every one on the real
 * PyTorch pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "resolver/variant.h"
#include "tests/unit/fixtures.h"

struct expect {
	const char *text;
	enum wp_variant_kind kind;
	int major, minor, patch;
	const char *label;
	const char *flavour;
};

#define CU(t, M, m) { t, WP_VARIANT_CUDA, M, m, 0, NULL, "" }
#define ROCM(t, M, m, p) { t, WP_VARIANT_ROCM, M, m, p, t, "" }
#define NOT(t) { t, WP_VARIANT_NONE, 0, 0, 0, "", "" }

/* Every directory and local label on the saved download.pytorch.org pages, and more. */
static const struct expect cases[] = {
	{ "cpu", WP_VARIANT_CPU, 0, 0, 0, "cpu", "" },
	{ "cpu-cxx11-abi", WP_VARIANT_CPU, 0, 0, 0, "cpu.cxx11.abi", "cxx11.abi" },
	{ "cpu.cxx11.abi", WP_VARIANT_CPU, 0, 0, 0, "cpu.cxx11.abi", "cxx11.abi" },
	CU("cu75", 7, 5),
	CU("cu80", 8, 0),
	CU("cu90", 9, 0),
	CU("cu91", 9, 1),
	CU("cu92", 9, 2),
	CU("cu100", 10, 0),
	CU("cu101", 10, 1),
	CU("cu102", 10, 2),
	CU("cu110", 11, 0),
	CU("cu111", 11, 1),
	CU("cu113", 11, 3),
	CU("cu115", 11, 5),
	CU("cu116", 11, 6),
	CU("cu117", 11, 7),
	CU("cu118", 11, 8),
	CU("cu121", 12, 1),
	CU("cu124", 12, 4),
	CU("cu126", 12, 6),
	CU("cu128", 12, 8),
	CU("cu129", 12, 9),
	CU("cu130", 13, 0),
	{ "cu117_pypi_cudnn", WP_VARIANT_CUDA, 11, 7, 0, "cu117.with.pypi.cudnn", "pypi.cudnn" },
	{ "cu121_pypi_cudnn", WP_VARIANT_CUDA, 12, 1, 0, "cu121.with.pypi.cudnn", "pypi.cudnn" },
	{ "cu117.with.pypi.cudnn", WP_VARIANT_CUDA, 11, 7, 0, "cu117.with.pypi.cudnn",
	  "pypi.cudnn" },
	{ "cu121.with.pypi.cudnn", WP_VARIANT_CUDA, 12, 1, 0, "cu121.with.pypi.cudnn",
	  "pypi.cudnn" },
	ROCM("rocm3.7", 3, 7, 0),
	ROCM("rocm3.8", 3, 8, 0),
	ROCM("rocm3.10", 3, 10, 0),
	ROCM("rocm4.0.1", 4, 0, 1),
	ROCM("rocm4.1", 4, 1, 0),
	ROCM("rocm4.2", 4, 2, 0),
	ROCM("rocm4.3.1", 4, 3, 1),
	ROCM("rocm4.5.2", 4, 5, 2),
	ROCM("rocm5.0", 5, 0, 0),
	ROCM("rocm5.1.1", 5, 1, 1),
	ROCM("rocm5.2", 5, 2, 0),
	ROCM("rocm5.3", 5, 3, 0),
	ROCM("rocm5.4.2", 5, 4, 2),
	ROCM("rocm5.5", 5, 5, 0),
	ROCM("rocm5.6", 5, 6, 0),
	ROCM("rocm5.7", 5, 7, 0),
	ROCM("rocm6.2.4", 6, 2, 4),
	{ "xpu", WP_VARIANT_XPU, 0, 0, 0, "xpu", "" },
	/* jaxlib's spelling on the same host (uv's parser fixtures) */
	{ "cuda100", WP_VARIANT_CUDA, 10, 0, 0, "cu100", "" },
	{ "CU111", WP_VARIANT_CUDA, 11, 1, 0, "cu111", "" },
	{ "+cu111", WP_VARIANT_CUDA, 11, 1, 0, "cu111", "" },
	{ "cu118.foo", WP_VARIANT_OTHER, 11, 8, 0, "cu118.foo", "" },
	{ "cpu_bar", WP_VARIANT_OTHER, 0, 0, 0, "cpu.bar", "" },
	/* eternalphane's rewritten link text stacks two labels: not a valid local version */
	NOT("cu117_pypi_cudnn+cu117.with.pypi.cudnn"),
	NOT("cu121_pypi_cudnn+cu121.with.pypi.cudnn"),
	NOT(""),
	NOT("whl"),
	NOT("nightly"),
	NOT("torch"),
	NOT("ubuntu.1"),
	NOT("post1"),
	NOT("233fca715f49"),
	NOT("cu"),
	NOT("cu8"),
	NOT("cu1234"),
	NOT("cuda11"),
	NOT("rocm"),
	NOT("rocm5"),
	NOT("rocmx.1"),
	NOT("cpux"),
	NOT("cu111..x"),
	NOT("cu111."),
	NOT(".cu111"),
	NOT("cu 111"),
	NOT("cu111/"),
	NOT("1.8"),
	NOT("lts"),
	NOT("a.b.c.d.e.f.g.h.i"),
	NOT("cu111.with.pypi.cudnn.and.a.very.long.tail.beyond.the.buffer.xxxxxxxx"),
};

static const struct expect *lookup(const char *text)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++)
		if (!strcmp(cases[i].text, text))
			return &cases[i];
	return NULL;
}

static void check(const struct expect *e, const struct wp_variant *v, int rc)
{
	if ((int)v->kind != (int)e->kind || rc != (e->kind != WP_VARIANT_NONE)) {
		print_error("'%s': kind %d rc %d, want kind %d\n", e->text, v->kind, rc, e->kind);
		fail();
	}
	assert_int_equal(v->major, e->major);
	assert_int_equal(v->minor, e->minor);
	assert_int_equal(v->patch, e->patch);
	assert_string_equal(v->label, e->label ? e->label : e->text);
	assert_string_equal(v->flavour, e->flavour);
}

static void test_table(void **state)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		struct wp_variant v;
		int rc = wp_variant_from_label(cases[i].text, &v);
		check(&cases[i], &v, rc);
		if (cases[i].text[0] == '+')
			continue;
		rc = wp_variant_from_dir(cases[i].text, &v);
		check(&cases[i], &v, rc);
	}
	struct wp_variant v;
	assert_int_equal(wp_variant_from_label(NULL, &v), 0);
	assert_int_equal(v.kind, WP_VARIANT_NONE);
	assert_int_equal(wp_variant_from_dir("+cu111", &v), 0);
}

static int seen_pages, seen_dirs, seen_labels;

static void percent_b(const char *in, size_t n, struct wp_buf *out)
{
	wp_buf_reset(out);
	for (size_t i = 0; i < n; i++) {
		if (i + 2 < n && !strncmp(in + i, "%2B", 3)) {
			wp_buf_addch(out, '+');
			i += 2;
		} else {
			wp_buf_addch(out, in[i]);
		}
	}
}

/* the local label of a wheel file name: "torch-1.8.0+cu111-cp38-..." -> "cu111" */
static void check_label_of(const char *file)
{
	const char *d1 = strchr(file, '-');
	const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
	const char *plus = d1 ? memchr(d1, '+', d2 ? (size_t)(d2 - d1) : strlen(d1)) : NULL;
	if (!plus || !d2)
		return;
	char *label = wp_xstrndup(plus + 1, (size_t)(d2 - plus - 1));
	const struct expect *e = lookup(label);
	if (!e) {
		print_error("label '%s' (%s) is not in the table\n", label, file);
		fail();
	}
	struct wp_variant v;
	check(e, &v, wp_variant_from_label(label, &v));
	seen_labels++;
	free(label);
}

static void scan_page(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		fixture_missing(path);
	seen_pages++;
	char line[8192];
	struct wp_buf href = WP_BUF_INIT, text = WP_BUF_INIT;
	while (fgets(line, sizeof(line), f)) {
		char *h = strstr(line, "href=\"");
		if (!h)
			continue;
		h += 6;
		size_t n = strcspn(h, "\"#");
		percent_b(h, n, &href);
		if (href.len < 4 || strcmp(href.data + href.len - 4, ".whl"))
			continue;
		char *slash = strrchr(href.data, '/');
		const char *file = slash ? slash + 1 : href.data;
		/* the directory the file sits in, as index readers report it */
		if (slash) {
			*slash = 0;
			char *prev = strrchr(href.data, '/');
			const char *dir = prev ? prev + 1 : href.data;
			const struct expect *e = lookup(dir);
			if (!e) {
				print_error("directory '%s' in %s is not in the table\n", dir,
					    path);
				fail();
			}
			struct wp_variant v;
			check(e, &v, wp_variant_from_dir(dir, &v));
			seen_dirs++;
		}
		check_label_of(file);
		/* the link text can differ from the href (eternalphane adds labels) */
		char *gt = strchr(h + n, '>');
		char *end = gt ? strstr(gt, "</a>") : NULL;
		if (end) {
			percent_b(gt + 1, (size_t)(end - gt - 1), &text);
			const char *s = strrchr(text.data, '/');
			check_label_of(s ? s + 1 : text.data);
		}
	}
	wp_buf_free(&href);
	wp_buf_free(&text);
	fclose(f);
}

static void scan_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = wp_xasprintf("%s/%s", dir, de->d_name);
		size_t n = strlen(p);
		if (n > 5 && !strcmp(p + n - 5, ".html"))
			scan_page(p);
		else
			scan_tree(p);
		free(p);
	}
	closedir(d);
}

static void test_real_pages(void **state)
{
	char *root = fixture_path("pytorch_index");
	DIR *d = opendir(root);
	if (!d)
		fixture_missing(root);
	closedir(d);
	seen_pages = seen_dirs = seen_labels = 0;
	scan_tree(root);
	if (seen_pages < 44) /* one of the pages vendored in tests/fixtures/real/pytorch_index is
				gone */
		fail_msg("%d pages under '%s', want 44: an input is missing", seen_pages, root);
	free(root);
	assert_true(seen_dirs > 10000);
	assert_true(seen_labels > 10000);
}

static void test_order(void **state)
{
	static const char *const asc[] = {
		"cpu.cxx11.abi", "cpu",      "cu75",      "cu92",
		"cu100",         "cu102",    "cu111",     "cu117.with.pypi.cudnn",
		"cu117",         "cu118",    "cu121",     "cu128",
		"cu130",         "rocm3.10", "rocm4.0.1", "rocm5.6",
		"xpu",
	};
	for (size_t i = 0; i + 1 < WP_ARRAY_LEN(asc); i++) {
		struct wp_variant a, b;
		assert_int_equal(wp_variant_from_label(asc[i], &a), 1);
		assert_int_equal(wp_variant_from_label(asc[i + 1], &b), 1);
		if (wp_variant_cmp(&a, &b) >= 0 || wp_variant_cmp(&b, &a) <= 0) {
			print_error("'%s' should rank below '%s'\n", asc[i], asc[i + 1]);
			fail();
		}
		assert_int_equal(wp_variant_cmp(&a, &a), 0);
	}
	/* pip compares "rocm4.0.1" > "cu111" > "cu102" as text; 3.10 > 3.8 numerically here */
	struct wp_variant r38, r310, cu111, cu111d;
	wp_variant_from_label("rocm3.8", &r38);
	wp_variant_from_label("rocm3.10", &r310);
	assert_true(wp_variant_cmp(&r310, &r38) > 0);
	wp_variant_from_label("cu111", &cu111);
	wp_variant_from_dir("cu111", &cu111d);
	assert_int_equal(wp_variant_cmp(&cu111, &cu111d), 0);
}

static void test_format(void **state)
{
	static const struct { const char *label, *text; } f[] = {
		{ "cu111", "CUDA 11.1" },
		{ "rocm4.0.1", "ROCm 4.0.1" },
		{ "cpu", "CPU" },
		{ "cpu-cxx11-abi", "CPU (cxx11.abi)" },
		{ "cu117_pypi_cudnn", "CUDA 11.7 (pypi.cudnn)" },
		{ "xpu", "Intel XPU" },
		{ "ubuntu.1", "no variant" },
		{ "cu118.x", "unknown variant 'cu118.x'" },
	};
	struct wp_buf b = WP_BUF_INIT;
	for (size_t i = 0; i < WP_ARRAY_LEN(f); i++) {
		struct wp_variant v;
		wp_variant_from_label(f[i].label, &v);
		wp_variant_format(&v, &b);
		assert_string_equal(wp_buf_cstr(&b), f[i].text);
	}
	wp_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_real_pages),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
