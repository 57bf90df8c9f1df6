/* tests/fuzz/fuzz_userinfo.c: libFuzzer target for a URL's credentials (net/auth.c): taken out,
 * the URL keeps no userinfo; masked, the password never shows. */
#include "tests/fuzz/fuzz.h"

#include <ctype.h>
#include <stdbool.h>

#include "net/auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *url = fz_cstr(data, size);
	struct wp_net_creds creds = { 0 };
	char *clean = wp_net_url_take_credentials(&creds, url);
	size_t kept = creds.n;
	char *again = wp_net_url_take_credentials(&creds, clean);
	FZ_CHECK(!strcmp(clean, again)); /* nothing left to take */
	FZ_CHECK(creds.n == kept);
	char *masked = wp_net_url_mask(url), *text = wp_net_text_mask(url);
	const char *user = NULL, *pass = NULL;
	(void)wp_net_creds_find(&creds, clean, &user, &pass);
	char host[64];
	wp_net_url_host(url, host, sizeof(host));
	const char *sep = strstr(url, "://");
	bool scheme = sep && sep > url;
	for (const char *c = url; scheme && c < sep; c++)
		scheme = isalnum((unsigned char)*c) || *c == '+' || *c == '-' || *c == '.';
	if (scheme) {
		/* the userinfo as written: after "://", up to the last '@' of the authority */
		const char *auth = sep + 3, *end = auth + strcspn(auth, "/?#"), *at = NULL;
		for (const char *c = auth; c < end; c++)
			if (*c == '@')
				at = c;
		if (at && at > auth) {
			FZ_CHECK(strstr(masked, "***@") != NULL);
			FZ_CHECK(strlen(clean) < strlen(url));
		}
	}
	wp_net_creds_release(&creds);
	free(url);
	free(clean);
	free(again);
	free(masked);
	free(text);
	return 0;
}
