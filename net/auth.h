/* net/auth.h: credentials for one run, kept in memory only and matched by origin (scheme, host,
 * port). A URL with userinfo (https://user:TOKEN@host/simple/) is split when it enters the run:
 * the rest of wheelpick sees, stores and prints only the URL without it, and the transfer engine
 * (net/xfer.c) sends the credentials to that origin alone. libcurl then keeps them across a
 * redirect to the same host and port and drops them at another; ~/.netrc and $NETRC are read by
 * libcurl for any origin that has none here (CURLOPT_NETRC_OPTIONAL).
 * Ownership: every char * handed out is malloc'd and belongs to the caller. The credentials are
 * a struct wp_net_creds the caller owns (below), found through each transfer's struct
 * wp_net_conf. */
#ifndef WP_NET_AUTH_H
#define WP_NET_AUTH_H

#include <stdbool.h>
#include <stddef.h>

/* The run's credentials by origin: a value, not a global. cli/ owns one (struct wp_cli_net), fills
 * it while it builds the run's configuration (a URL's userinfo, $UV_INDEX_<NAME>_USERNAME/PASSWORD)
 * and while a job sets up its sources (the session's creds), before the transfers that read it;
 * each transfer finds its origin's pair in its own struct wp_net_conf's creds. Nothing adds to it
 * while transfers run, so it needs no lock; two confs with two stores never see each other's.
 * Ownership: every string in it is its own (wp_net_creds_release). */
struct wp_net_cred {
	char *origin, *user, *password;
};
struct wp_net_creds {
	struct wp_net_cred *v;
	size_t n, cap;
};

/* url without its userinfo (a copy; the same text when it has none). The userinfo, percent-
 * decoded, is kept in creds for url's origin (a later pair for the same origin replaces it);
 * creds NULL: it is dropped. */
char *wp_net_url_take_credentials(struct wp_net_creds *creds, const char *url);

/* Keep user and password in creds for the origin of url (scheme://host[:port], the default port
 * by scheme). A NULL or empty user, or a NULL creds, adds nothing. */
void wp_net_creds_add(struct wp_net_creds *creds, const char *url, const char *user,
		      const char *password);

/* The credentials creds keeps for url's origin: true with *user and *password borrowed (valid
 * until the next add or the release). False for a NULL creds. */
bool wp_net_creds_find(const struct wp_net_creds *creds, const char *url, const char **user,
		       const char **password);

/* Forget every credential, the passwords overwritten first. */
void wp_net_creds_release(struct wp_net_creds *creds);

/* url with any userinfo shown as "***" (a copy): for a message or a command line to print. */
char *wp_net_url_mask(const char *url);

/* Every "scheme://user:pass@" inside text masked the same way (a copy): for a whole command
 * line, an error message or a JSON string. */
char *wp_net_text_mask(const char *text);

/* "host" or "host:port" of url as written (no userinfo), into out (cap bytes). */
void wp_net_url_host(const char *url, char *out, size_t cap);

/* TLS settings are no part of this file's state: they are the run's struct wp_net_conf
 * (net/transfer.h), built by cli/ and handed down with each transfer. */
struct wp_net_conf;

/* Whether conf's trusted hosts (pip's --trusted-host: "host" on any port, or "host:port") hold
 * url's https host, whose certificate then is not checked. False for a NULL conf. */
bool wp_net_host_trusted(const struct wp_net_conf *conf, const char *url);
/* conf's words for giving a private CA, else net/'s own plain ones. */
const char *wp_net_private_ca_advice(const struct wp_net_conf *conf);

#endif
