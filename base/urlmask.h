/* base/urlmask.h: credentials in URLs hidden for saying: pure functions of the text, no I/O.
 * Ownership: every char * handed out is malloc'd and belongs to the caller. */
#ifndef WP_BASE_URLMASK_H
#define WP_BASE_URLMASK_H

/* url with any userinfo shown as "***" (a copy): for a message or a command line to print. */
char *wp_url_mask(const char *url);

/* url with no userinfo at all (a copy): to compare where a URL points, with nothing to say or
 * to take as credentials. */
char *wp_url_strip_userinfo(const char *url);

/* Every "scheme://user:pass@" inside text masked the same way (a copy): for a whole command
 * line, an error message or a JSON string. */
char *wp_url_text_mask(const char *text);

/* url as pip shows it (pip's redact_auth_from_url): "user:****@host" when a password is written,
 * "****@host" for a user (a token) alone, else url unchanged. "Looking in indexes" and `config
 * list` use it, so that a pip user sees the same line from both tools. */
char *wp_url_redact(const char *url);

#endif
