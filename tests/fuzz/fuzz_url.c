/* tests/fuzz/fuzz_url.c: libFuzzer target for URL resolution and index links ("base\nhref"). */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/url.h"

static void link_of(const char *base, const char *href)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_url_link link;
	if (wp_url_link_parse(base, href, &link, &err) == 0) {
		FZ_CHECK(link.url && link.filename);
		FZ_CHECK(wp_url_scheme_ok(link.url));
		FZ_CHECK(wp_url_filename_ok(link.filename));
		FZ_CHECK(!strchr(link.url, '#'));
		(void)(fz_touch(link.dir) + fz_touch(link.hashes.sha256) +
		       fz_touch(link.hashes.md5));
		wp_url_link_release(&link);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a, *b;
	size_t na, nb;
	fz_split(data, size, &a, &na, &b, &nb);
	struct wp_err err = WP_ERR_INIT;

	char *out = NULL;
	if (wp_url_resolve(a, b, &out, &err) == 0) {
		FZ_CHECK(out != NULL);
		/* a resolved URL is absolute: resolving it again against the same base is a fixed
		 * point */
		char *again = NULL;
		struct wp_err e2 = WP_ERR_INIT;
		if (wp_url_resolve(a, out, &again, &e2) == 0) {
			FZ_CHECK(strcmp(again, out) == 0);
			free(again);
		}
		free(out);
	}
	/* the same href against a fixed, realistic base */
	link_of(a, b);
	link_of("https://download.pytorch.org/whl/torch_stable.html", b);
	link_of("https://download.pytorch.org/whl/cu118/torch/", a);

	(void)wp_url_scheme_ok(a);
	(void)wp_url_filename_ok(b);

	/* the name a URL gives a file is one usable segment, and so is its folder's */
	char *name = NULL, *dir = NULL;
	wp_err_clear(&err);
	if (wp_url_name_parts(a, &name, &dir, &err) == 0) {
		FZ_CHECK(name && wp_url_filename_ok(name) && !strchr(name, '/'));
		FZ_CHECK(!dir || wp_url_filename_ok(dir));
	} else {
		FZ_CHECK(!name && !dir);
	}
	free(name);
	free(dir);
	/* a page on the network never sends us to a local file, https never to http */
	enum wp_url_kind ka = wp_url_kind_of(a), kb = wp_url_kind_of(b);
	const char *why = wp_url_link_refused(a, b);
	if (kb == WP_URL_OTHER ||
	    ((ka == WP_URL_HTTP || ka == WP_URL_HTTPS) && kb == WP_URL_FILE) ||
	    (ka == WP_URL_HTTPS && kb == WP_URL_HTTP))
		FZ_CHECK(why != NULL);
	else
		FZ_CHECK(why == NULL);

	char *dec = NULL;
	wp_err_clear(&err);
	if (wp_url_decode(b, nb, &dec, &err) == 0)
		free(dec);

	struct wp_url_hashes h;
	wp_err_clear(&err);
	(void)wp_url_fragment_hashes(b, nb, &h, &err);

	char hex[65];
	if (nb <= 64)
		(void)wp_url_hex_lower(b, nb, 64, hex);

	char *joined = NULL;
	wp_err_clear(&err);
	if (wp_url_join_segment(a, b, &joined, &err) == 0)
		free(joined);
	struct wp_buf jb = WP_BUF_INIT_MAX(1 << 16);
	(void)wp_url_join_segment_buf(a, b, &jb);
	wp_buf_free(&jb);

	free(a);
	free(b);
	return 0;
}
