/* base/urlmask.c: credentials in URLs hidden for saying (wheelpick's "***" and pip's "****"). */
#include "base/urlmask.h"

#include "base/buf.h"
#include "base/mem.h"

#include <stdbool.h>
#include <string.h>

/* The userinfo of url: [*start, *at) when url is scheme://userinfo@host..., else false. */
static bool userinfo(const char *url, const char **start, const char **at)
{
	const char *sep = strstr(url, "://");
	if (!sep || sep == url)
		return false;
	for (const char *c = url; c < sep; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '+' || *c == '-' || *c == '.'))
			return false;
	const char *s = sep + 3, *end = s + strcspn(s, "/?#"), *last = NULL;
	for (const char *c = s; c < end; c++)
		if (*c == '@')
			last = c;
	if (!last)
		return false;
	*start = s;
	*at = last;
	return true;
}

char *wp_url_mask(const char *url)
{
	const char *s, *at;
	if (!userinfo(url, &s, &at))
		return wp_xstrdup(url);
	return wp_xasprintf("%.*s***%s", (int)(s - url), url, at);
}

char *wp_url_strip_userinfo(const char *url)
{
	const char *s, *at;
	if (!userinfo(url, &s, &at))
		return wp_xstrdup(url);
	return wp_xasprintf("%.*s%s", (int)(s - url), url, at + 1);
}

char *wp_url_text_mask(const char *text)
{
	struct wp_buf b = WP_BUF_INIT;
	const char *p = text;
	for (;;) {
		const char *sep = strstr(p, "://");
		if (!sep) {
			wp_buf_addstr(&b, p);
			break;
		}
		const char *start = sep + 3;
		/* the authority ends where a URL's would, or at a space or quote of the text around
		 * it */
		const char *end = start + strcspn(start, "/?# \t\n'\"<>");
		const char *at = NULL;
		for (const char *c = start; c < end; c++)
			if (*c == '@')
				at = c;
		wp_buf_add(&b, p, (size_t)(start - p));
		if (at) {
			wp_buf_addstr(&b, "***");
			p = at;
		} else {
			p = start;
		}
	}
	return wp_buf_detach(&b, NULL);
}

char *wp_url_redact(const char *url)
{
	const char *s, *at;
	if (!userinfo(url, &s, &at))
		return wp_xstrdup(url);
	const char *colon = memchr(s, ':', (size_t)(at - s));
	if (!colon) /* a user alone is a token: pip hides it whole */
		return wp_xasprintf("%.*s****%s", (int)(s - url), url, at);
	return wp_xasprintf("%.*s:****%s", (int)(colon - url), url, at);
}
