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

/* TLS settings for the run (pip's --cert, --client-cert, --trusted-host): a CA bundle that
 * replaces the system's (NULL: $WHEELPICK_CA_BUNDLE, $SSL_CERT_FILE, $CURL_CA_BUNDLE, else the
 * system's), a client certificate (PEM, key included), and hosts ("host" or "host:port") whose
 * certificate is not checked. Strings are copied. */
void wp_net_set_ca_bundle(const char *path);
const char *wp_net_ca_bundle(void);
/* The caller's words: where the CA bundle came from ("--cert", "PIP_CERT", a pip.conf), named when
 * it cannot be read, and how to give a private CA, said when a certificate is refused. NULL: net/'s
 * own plain words. Strings are copied. */
void wp_net_set_ca_bundle_origin(const char *given_by);
void wp_net_set_private_ca_advice(const char *advice);
const char *wp_net_ca_bundle_origin(void);
const char *wp_net_private_ca_advice(void);
void wp_net_set_client_cert(const char *path);
const char *wp_net_client_cert(void);
void wp_net_trust_host(const char *host);
bool wp_net_host_trusted(const char *url);

/* Forget every credential and TLS setting (tests). */
void wp_net_cred_clear(void);

#endif
