/* tests/fuzz/fuzz_version.c: libFuzzer target for PEP 440 versions: parse, format, compare a pair
 * ("a\nb"). */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "resolver/version.h"

/* str(Version(str(v))) == str(v), and the reparsed version compares equal. */
static void roundtrip(const struct wp_version *v)
{
	struct wp_buf out = WP_BUF_INIT_MAX(4 * WP_VERSION_MAX_LEN);
	struct wp_err err = WP_ERR_INIT;
	if (wp_version_format(v, &out) == 0 && out.len <= WP_VERSION_MAX_LEN) {
		struct wp_version w;
		if (wp_version_parse(&w, out.data, out.len, &err) == 0) {
			FZ_CHECK(wp_version_cmp(v, &w) == 0);
			struct wp_buf out2 = WP_BUF_INIT_MAX(4 * WP_VERSION_MAX_LEN);
			FZ_CHECK(wp_version_format(&w, &out2) == 0);
			FZ_CHECK(out2.len == out.len && memcmp(out2.data, out.data, out.len) == 0);
			wp_buf_free(&out2);
			wp_version_release(&w);
		} else {
			FZ_CHECK(err.code == -WPE_TOO_BIG);
		}
	}
	wp_buf_reset(&out);
	(void)wp_version_format_public(v, &out);
	wp_buf_reset(&out);
	(void)wp_version_format_base(v, &out);
	wp_buf_reset(&out);
	(void)wp_version_format_canonical(v, &out);
	wp_buf_free(&out);

	(void)wp_version_is_prerelease(v);
	(void)wp_version_is_devrelease(v);
	(void)wp_version_is_postrelease(v);
	if (wp_version_has_local(v))
		FZ_CHECK(wp_version_local(v) != NULL);
	FZ_CHECK(wp_version_cmp(v, v) == 0);

	struct wp_version c;
	wp_version_copy(&c, v);
	FZ_CHECK(wp_version_cmp(v, &c) == 0);
	wp_version_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a, *b;
	size_t na, nb;
	fz_split(data, size, &a, &na, &b, &nb);

	static const unsigned flags[] = { 0, WP_VMATCH_LOCAL, WP_VMATCH_WILDCARD, WP_VMATCH_TWO,
					  WP_VMATCH_LOCAL | WP_VMATCH_WILDCARD | WP_VMATCH_TWO };
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		FZ_CHECK(wp_version_match(a, na, flags[i]) <= na);

	struct wp_err ea = WP_ERR_INIT, eb = WP_ERR_INIT;
	struct wp_version va, vb;
	int ra = wp_version_parse(&va, a, na, &ea);
	int rb = wp_version_parse(&vb, b, nb, &eb);
	if (ra == 0)
		roundtrip(&va);
	if (rb == 0)
		roundtrip(&vb);
	if (ra == 0 && rb == 0) {
		FZ_CHECK(fz_sign(wp_version_cmp(&va, &vb)) == -fz_sign(wp_version_cmp(&vb, &va)));
		FZ_CHECK(fz_sign(wp_version_cmp_public(&va, &vb)) ==
			 -fz_sign(wp_version_cmp_public(&vb, &va)));
		FZ_CHECK(fz_sign(wp_version_cmp_base(&va, &vb)) ==
			 -fz_sign(wp_version_cmp_base(&vb, &va)));
		/* equal versions are equal on the coarser orders too */
		if (wp_version_cmp(&va, &vb) == 0)
			FZ_CHECK(wp_version_cmp_public(&va, &vb) == 0);
		if (wp_version_cmp_public(&va, &vb) == 0)
			FZ_CHECK(wp_version_cmp_base(&va, &vb) == 0);
	}
	if (ra == 0)
		wp_version_release(&va);
	if (rb == 0)
		wp_version_release(&vb);
	free(a);
	free(b);
	return 0;
}
