/* net/auth.c: credentials by origin, in memory only, in a store the caller owns and hands down. */
#include "net/auth.h"
#include "net/transfer.h"

#include "base/mem.h"
#include "base/url.h"
#include "base/urlmask.h"
#include "base/vec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The authority of url: [start, end) after "scheme://", and where its userinfo ends ('@' + 1, or
 * start when there is none). false when url has no "scheme://". */
static bool authority(const char *url, size_t *scheme_len, const char **start, const char **end,
		      const char **host)
{
	const char *p = strstr(url, "://");
	if (!p || p == url)
		return false;
	for (const char *c = url; c < p; c++)
		if (!isalnum((unsigned char)*c) && *c != '+' && *c != '-' && *c != '.')
			return false;
	*scheme_len = (size_t)(p - url);
	*start = p + 3;
	*end = *start + strcspn(*start, "/?#");
	*host = *start;
	for (const char *c = *start; c < *end; c++)
		if (*c == '@')
			*host = c + 1; /* the last '@': a password may hold one unencoded */
	return true;
}

/* A secret's bytes overwritten before they go back to the allocator. */
static void wipe(char *secret)
{
	if (!secret)
		return;
	memset(secret, 0, strlen(secret));
	free(secret);
}

/* "https://host:443" for url, lower case, the port always written. NULL without an authority. */
static char *origin_of(const char *url)
{
	size_t sl;
	const char *start, *end, *host;
	if (!authority(url, &sl, &start, &end, &host))
		return NULL;
	const char *port = NULL, *hend = end;
	if (*host == '[') {
		const char *rb = memchr(host, ']', (size_t)(end - host));
		if (rb && rb + 1 < end && rb[1] == ':')
			port = rb + 2, hend = rb + 1;
	} else {
		const char *colon = memchr(host, ':', (size_t)(end - host));
		if (colon)
			port = colon + 1, hend = colon;
	}
	char dflt[8] = "";
	if (!port || port == end) {
		if (sl == 5 && !strncasecmp(url, "https", 5))
			snprintf(dflt, sizeof(dflt), "443");
		else if (sl == 4 && !strncasecmp(url, "http", 4))
			snprintf(dflt, sizeof(dflt), "80");
	}
	char *o = wp_xasprintf("%.*s://%.*s:%.*s", (int)sl, url, (int)(hend - host), host,
			       port && port < end ? (int)(end - port) : (int)strlen(dflt),
			       port && port < end ? port : dflt);
	for (char *c = o; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return o;
}

void wp_net_creds_add(struct wp_net_creds *cs, const char *url, const char *user,
		      const char *password)
{
	if (!cs || !user || !*user)
		return;
	char *o = origin_of(url);
	if (!o)
		return;
	struct wp_net_cred *c = NULL;
	for (size_t i = 0; i < cs->n && !c; i++)
		if (!strcmp(cs->v[i].origin, o))
			c = &cs->v[i];
	if (c) {
		free(o);
		free(c->user);
		wipe(c->password);
	} else {
		size_t k = wp_vec_push_fields(cs->v, cs->n, cs->cap,
					      (struct wp_net_cred){ .origin = o });
		c = &cs->v[k];
	}
	c->user = wp_xstrdup(user);
	c->password = wp_xstrdup(password ? password : "");
}

bool wp_net_creds_find(const struct wp_net_creds *cs, const char *url, const char **user,
		       const char **password)
{
	if (!cs || !cs->n)
		return false;
	char *o = origin_of(url);
	bool found = false;
	if (!o)
		return false;
	for (size_t i = 0; i < cs->n && !found; i++)
		if (!strcmp(cs->v[i].origin, o)) {
			*user = cs->v[i].user;
			*password = cs->v[i].password;
			found = true;
		}
	free(o);
	return found;
}

const char *wp_net_private_ca_advice(const struct wp_net_conf *conf)
{
	return conf && conf->ca_advice && *conf->ca_advice ?
		       conf->ca_advice :
		       "give its PEM file as the CA bundle (WHEELPICK_CA_BUNDLE)";
}

bool wp_net_host_trusted(const struct wp_net_conf *conf, const char *url)
{
	char hp[512];
	if (!conf || !conf->n_trusted_hosts || strncasecmp(url, "https://", 8) != 0)
		return false;
	wp_net_url_host(url, hp, sizeof(hp));
	for (char *c = hp; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	size_t hl = strlen(hp);
	const char *colon = hp[0] == '[' ? strstr(hp, "]:") : strrchr(hp, ':');
	size_t bare = colon ? (size_t)(colon - hp) + (hp[0] == '[') : hl;
	for (size_t i = 0; i < conf->n_trusted_hosts; i++) {
		const char *t = conf->trusted_hosts[i];
		if (!t || !*t)
			continue;
		/* "host" trusts it on any port, as pip's --trusted-host does; "host:port" that
		 * port */
		if (!strcasecmp(t, hp) || (strlen(t) == bare && !strncasecmp(t, hp, bare)))
			return true;
	}
	return false;
}

void wp_net_creds_release(struct wp_net_creds *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->v[i].origin);
		free(cs->v[i].user);
		wipe(cs->v[i].password);
	}
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

/* Decoded, or the text as it is when it does not decode. */
static char *decoded(const char *s, size_t n)
{
	char *out = NULL;
	if (wp_url_decode(s, n, &out, NULL) < 0)
		out = wp_xstrndup(s, n);
	return out;
}

char *wp_net_url_take_credentials(struct wp_net_creds *creds, const char *url)
{
	size_t sl;
	const char *start, *end, *host;
	if (!authority(url, &sl, &start, &end, &host) || host == start)
		return wp_xstrdup(url);
	const char *info_end = host - 1; /* the '@' */
	const char *colon = memchr(start, ':', (size_t)(info_end - start));
	char *user = decoded(start, (size_t)((colon ? colon : info_end) - start));
	char *pass = colon ? decoded(colon + 1, (size_t)(info_end - colon - 1)) : NULL;
	char *clean = wp_xasprintf("%.*s%s", (int)(start - url), url, host);
	wp_net_creds_add(creds, clean, user, pass);
	free(user);
	wipe(pass);
	return clean;
}

/* the masking is base/'s, a pure function of the text (cli/ uses it without net/) */
char *wp_net_url_mask(const char *url)
{
	return wp_url_mask(url);
}

char *wp_net_text_mask(const char *text)
{
	return wp_url_text_mask(text);
}

void wp_net_url_host(const char *url, char *out, size_t cap)
{
	size_t sl;
	const char *start, *end, *host;
	if (!cap)
		return;
	if (!authority(url, &sl, &start, &end, &host)) {
		snprintf(out, cap, "%s", url);
		return;
	}
	snprintf(out, cap, "%.*s", (int)(end - host), host);
}
