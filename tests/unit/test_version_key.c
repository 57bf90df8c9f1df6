/* tests/unit/test_version_key.c: wp_version_key's byte order is wp_version_cmp's order. */

/* The catalog orders and selects rows by these keys in SQL (schema 7), so a key that sorts one
 * pair differently from wp_version_cmp would change a pick. Every pair of a few hundred versions
 * (packaging 24.2's vectors, the versions of the real 2021 PyTorch page, and local labels and
 * numbers chosen to cross every field's boundaries) is compared both ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/vec.h"
#include "tests/unit/vectors.h"
#include "resolver/version.h"

struct vkey {
	char *text;
	struct wp_version v;
	struct wp_buf key, pub;
};

WP_VEC_OF(vkey_vec, struct vkey);

static void add(struct vkey_vec *vs, const char *s, size_t n)
{
	struct vkey k = { .key = WP_BUF_INIT, .pub = WP_BUF_INIT };
	struct wp_err err = WP_ERR_INIT;
	if (wp_version_parse(&k.v, s, n, &err) < 0)
		return; /* the vector files hold invalid versions too */
	k.text = wp_xstrndup(s, n);
	wp_version_key(&k.v, &k.key);
	wp_version_key_public(&k.v, &k.pub);
	wp_vec_push(vs, k);
}

static void add_file_col0(struct vkey_vec *vs, const char *file)
{
	FILE *f = open_vectors(file);
	char line[512];
	struct row r;
	next_row(f, line, sizeof(line), &r);
	while (next_row(f, line, sizeof(line), &r))
		add(vs, r.col[0], r.len[0]);
	fclose(f);
}

/* The versions of every link on the real 2021 page (tests/fixtures/real/, as fixtures.h finds
 * it). */
static void add_page(struct vkey_vec *vs)
{
	FILE *f = fixture_open("pytorch_index/torch_stable_2021-03-12.html");
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		char *h = strstr(line, "href=\"");
		if (!h)
			continue;
		h += 6;
		char *end = strchr(h, '"'), *slash;
		if (!end)
			continue;
		*end = 0;
		while ((slash = strchr(h, '/')))
			h = slash + 1;
		char *dash = strchr(h, '-');
		if (!dash)
			continue;
		char *ver = dash + 1, *dash2 = strchr(ver, '-');
		if (!dash2)
			continue;
		struct wp_buf b = WP_BUF_INIT;
		for (char *p = ver; p < dash2; p++) {
			if (!strncmp(p, "%2B", 3)) {
				wp_buf_addch(&b, '+');
				p += 2;
			} else {
				wp_buf_addch(&b, *p);
			}
		}
		add(vs, b.data, b.len);
		wp_buf_free(&b);
	}
	fclose(f);
}

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

/* memcmp, then the shorter first: SQLite's order for BLOBs */
static int blob_cmp(const struct wp_buf *a, const struct wp_buf *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = n ? memcmp(a->data, b->data, n) : 0;
	return c ? sign(c) : (a->len > b->len) - (a->len < b->len);
}

static void test_key_order(void **state)
{
	static const char *const extra[] = {
		"0",
		"0.0",
		"0!0",
		"1!0",
		"1!1.0",
		"0.0.0.0.1",
		"1",
		"1.0",
		"1.0.0",
		"1.0.0.0",
		"1.0.1",
		"1.1",
		"1.255",
		"1.256",
		"1.65535",
		"1.65536",
		"1.4294967296",
		"1.999999999999999999",
		"255",
		"256",
		"1.0.dev0",
		"1.0.dev1",
		"1.0.dev255",
		"1.0.dev256",
		"1.0a0.dev0",
		"1.0a0",
		"1.0a1",
		"1.0a1.post0",
		"1.0a1.post1.dev0",
		"1.0a1.post1",
		"1.0b0",
		"1.0rc0",
		"1.0rc1",
		"1.0.post0.dev0",
		"1.0.post0",
		"1.0.post1",
		"1.0.post256",
		"1.0+0",
		"1.0+1",
		"1.0+9",
		"1.0+10",
		"1.0+99999999999999999999999",
		"1.0+a",
		"1.0+a.0",
		"1.0+a.a",
		"1.0+a.b",
		"1.0+ab",
		"1.0+b",
		"1.0+z",
		"1.0+0.a",
		"1.0+a.1",
		"1.0+cu111",
		"1.0+cu102",
		"1.0+cpu",
		"1.0+cpu.cxx11.abi",
		"1.0+cu117.with.pypi.cudnn",
		"1.0+rocm4.0.1",
		"1.0+rocm4.2",
		"1.0.0+cu111",
		"1.0a1+local",
		"1.0.dev0+local",
		"1.0.post1+x",
		"2.0",
		"2.0+cu118",
		"10.0",
		"1.8.0",
		"1.8.0+cu111",
		"1.8.9900+cu111",
		"1.10.0",
		"1.9",
	};
	struct vkey_vec vs = { 0 };
	FILE *f = open_vectors("versions_sorted.txt");
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		add(&vs, line, strlen(line));
	}
	fclose(f);
	add_file_col0(&vs, "versions_normalized.tsv");
	add_file_col0(&vs, "versions_parts.tsv");
	add_file_col0(&vs, "versions_str.tsv");
	add_file_col0(&vs, "versions_is_prerelease.tsv");
	add_file_col0(&vs, "versions_is_devrelease.tsv");
	for (size_t i = 0; i < WP_ARRAY_LEN(extra); i++)
		add(&vs, extra[i], strlen(extra[i]));
	add_page(&vs);
	assert_true(vs.n > 300);
	size_t pairs = 0;
	for (size_t i = 0; i < vs.n; i++) {
		struct vkey *a = &vs.v[i];
		/* the public part is the key's prefix, and the key says where it ends */
		assert_true(a->pub.len <= a->key.len);
		assert_memory_equal(a->pub.data, a->key.data, a->pub.len);
		assert_int_equal(wp_version_key_public_len((const unsigned char *)a->key.data,
							   a->key.len),
				 a->pub.len);
		assert_true((unsigned char)a->pub.data[a->pub.len - 1] != 0xff);
		struct wp_buf next = WP_BUF_INIT;
		wp_version_key_public_next((const unsigned char *)a->pub.data, a->pub.len, &next);
		for (size_t j = 0; j < vs.n; j++) {
			struct vkey *b = &vs.v[j];
			int want = sign(wp_version_cmp(&a->v, &b->v)),
			    got = blob_cmp(&a->key, &b->key);
			if (want != got) {
				print_error("'%s' vs '%s': wp_version_cmp %d, key order %d\n",
					    a->text, b->text, want, got);
				fail();
			}
			want = sign(wp_version_cmp_public(&a->v, &b->v));
			if (want != blob_cmp(&a->pub, &b->pub)) {
				print_error("'%s' vs '%s': public order differs\n", a->text,
					    b->text);
				fail();
			}
			/* ==a (no local) is the key range [public(a), next(a)) */
			bool in = blob_cmp(&b->key, &a->pub) >= 0 && blob_cmp(&b->key, &next) < 0;
			if (in != (want == 0)) {
				print_error("'%s' in the range of ==%s: %d, but public cmp %d\n",
					    b->text, a->text, in, want);
				fail();
			}
			pairs++;
		}
		wp_buf_free(&next);
	}
	for (size_t i = 0; i < vs.n; i++) {
		free(vs.v[i].text);
		wp_version_release(&vs.v[i].v);
		wp_buf_free(&vs.v[i].key);
		wp_buf_free(&vs.v[i].pub);
	}
	wp_vec_free(&vs);
	print_message("version keys: %zu pairs in wp_version_cmp's order\n", pairs);
}

static void test_key_public_len_rejects(void **state)
{
	static const unsigned char junk[][4] = { { 9 }, { 0, 7 }, { 0, 1, 5 }, { 0, 0x02, 3, 1 } };
	for (size_t i = 0; i < WP_ARRAY_LEN(junk); i++)
		assert_int_equal(wp_version_key_public_len(junk[i], sizeof(junk[i])), 0);
	assert_int_equal(wp_version_key_public_len(junk[0], 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_order),
		cmocka_unit_test(test_key_public_len_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
