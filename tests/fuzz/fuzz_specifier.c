/* tests/fuzz/fuzz_specifier.c: libFuzzer target for PEP 440 specifier sets: parse, format, contains
 * ("set\nversion"). */
#include "tests/fuzz/fuzz.h"

#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/specifier.h"
#include "resolver/version.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a, *b;
	size_t na, nb;
	fz_split(data, size, &a, &na, &b, &nb);
	struct wp_err err = WP_ERR_INIT;

	FZ_CHECK(wp_specifier_match(a, na) <= na);

	struct wp_version v;
	struct wp_err verr = WP_ERR_INIT;
	bool have_v = wp_version_parse(&v, b, nb, &verr) == 0;

	struct wp_specifier sp;
	if (wp_specifier_parse(&sp, a, na, &err) == 0) {
		struct wp_buf out = WP_BUF_INIT_MAX(4 * WP_SPECSET_MAX_LEN);
		(void)wp_specifier_format(&sp, &out);
		wp_buf_free(&out);
		(void)wp_specifier_prereleases(&sp);
		struct wp_specifier c;
		wp_specifier_copy(&c, &sp);
		FZ_CHECK(wp_specifier_eq(&sp, &c));
		wp_specifier_release(&c);
		if (have_v) {
			for (int pre = -1; pre <= 1; pre++)
				(void)wp_specifier_contains(&sp, &v, (enum wp_prereleases)pre);
			const struct wp_version *vs[1] = { &v };
			bool keep[1];
			(void)wp_specifier_filter(&sp, vs, 1, WP_PRERELEASES_DEFAULT, keep);
		}
		wp_specifier_release(&sp);
	}

	wp_err_clear(&err);
	struct wp_specset set;
	if (wp_specset_parse(&set, a, na, &err) == 0) {
		struct wp_buf out = WP_BUF_INIT_MAX(4 * WP_SPECSET_MAX_LEN);
		if (wp_specset_format(&set, &out) == 0 && out.len <= WP_SPECSET_MAX_LEN) {
			/* the printed set parses back to the same set */
			struct wp_specset again;
			struct wp_err e2 = WP_ERR_INIT;
			if (wp_specset_parse(&again, out.data ? out.data : "", out.len, &e2) == 0) {
				FZ_CHECK(again.n == set.n);
				struct wp_buf out2 = WP_BUF_INIT_MAX(4 * WP_SPECSET_MAX_LEN);
				FZ_CHECK(wp_specset_format(&again, &out2) == 0);
				FZ_CHECK(out2.len == out.len &&
					 memcmp(wp_buf_cstr(&out2), wp_buf_cstr(&out), out.len) ==
						 0);
				wp_buf_free(&out2);
				if (have_v)
					FZ_CHECK(
						wp_specset_contains(&set, &v, WP_PRERELEASES_YES) ==
						wp_specset_contains(&again, &v,
								    WP_PRERELEASES_YES));
				wp_specset_release(&again);
			} else {
				FZ_CHECK(e2.code == -WPE_TOO_BIG);
			}
		}
		wp_buf_free(&out);
		(void)wp_specset_prereleases(&set);
		if (have_v) {
			for (int pre = -1; pre <= 1; pre++)
				(void)wp_specset_contains(&set, &v, (enum wp_prereleases)pre);
			const struct wp_version *vs[2] = { &v, &v };
			bool keep[2];
			FZ_CHECK(wp_specset_filter(&set, vs, 2, WP_PRERELEASES_DEFAULT, keep) <= 2);
		}
		wp_specset_release(&set);
	}
	if (have_v)
		wp_version_release(&v);
	free(a);
	free(b);
	return 0;
}
