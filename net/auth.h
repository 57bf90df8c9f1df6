/* net/auth.h: credentials for one run, kept in memory only and matched by origin (scheme, host,
 * port). A URL with userinfo (https://user:TOKEN@host/simple/) is split when it enters the run:
 * the rest of wheelpick sees, stores and prints only the URL without it, and the transfer engine
 * (net/xfer.c) sends the credentials to that origin alone. libcurl then keeps them across a
 * redirect to the same host and port and drops them at another; ~/.netrc and $NETRC are read by
 * libcurl for any origin that has none here (CURLOPT_NETRC_OPTIONAL).
 * Ownership: every char * handed out is malloc'd and belongs to the caller. */
#ifndef WP_NET_AUTH_H
#define WP_NET_AUTH_H

#include <stdbool.h>
#include <stddef.h>

/* url without its userinfo (a copy; the same text when it has none). The userinfo, percent-
 * decoded, is kept for url's origin (a later pair for the same origin replaces it). */
char *wp_net_url_take_credentials(const char *url);

/* Keep user and password for the origin of url (scheme://host[:port], the default port by
 * scheme). A NULL or empty user forgets nothing and adds nothing. */
void wp_net_cred_add(const char *url, const char *user, const char *password);

/* The credentials kept for url's origin: true with *user and *password borrowed (valid until
 * the next add or the end of the run). */
bool wp_net_cred_find(const char *url, const char **user, const char **password);

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

/* Forget every credential (tests). */
void wp_net_cred_clear(void);

#endif
