/* base/err.h: error codes and the caller-owned error record; the first error wins. */
#ifndef WP_ERR_H
#define WP_ERR_H

#include <stdarg.h>

/* Error codes. Functions return 0 or -WPE_*. The CLI maps each to an exit code
 * (wp_err_exit_code); nothing below cli/ prints or exits. */
enum wp_errcode {
	WPE_OK = 0,
	WPE_NOMATCH, /* nothing fits the request               -> exit 1 */
	WPE_USAGE, /* bad flags, bad spec from the user      -> exit 2 */
	WPE_NET, /* a source or transfer failed            -> exit 3 */
	WPE_SOURCE, /* a source answered with something that is not an index -> exit 3 */
	WPE_TOO_BIG, /* input over a cap                       -> exit 3 */
	WPE_PARSE, /* malformed text (version, spec, name)   -> exit 2 when from the user */
	WPE_INTEGRITY, /* hash, size, RECORD, archive            -> exit 4 */
	WPE_CATALOG, /* SQLite or schema trouble               -> exit 3 */
	WPE_IO, /* local file system                      -> exit 3 */
	WPE_ENV, /* detection failed, a library missing    -> exit 3 */
	WPE_LIMIT, /* a resolution outgrew its bounds (steps, projects) -> exit 1 */
	WPE_CORRUPT, /* a catalog file that is not a catalog or is damaged -> exit 3 */
	WPE_UNTRUSTED, /* the file that fits has other bytes than were trusted for its name -> exit
			  1; no other version or build is tried in its place */
};

/* Message buffer is inside the struct: no allocation, safe to use after OOM-free paths. */
struct wp_err {
	int code;        /* 0 while no error was recorded; else a negative -WPE_* */
	char msg[1024];
};

#define WP_ERR_INIT { 0, { 0 } }

/* Record an error unless one is already recorded; returns code (negative) so callers
 * can write `return wp_fail(err, -WPE_PARSE, "...")`. err may be NULL. */
int wp_fail(struct wp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix context to an existing message: "crawling 'URL': <old message>". */
void wp_err_prefix(struct wp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void wp_err_clear(struct wp_err *err);

/* Documented exit code for an error code (negative or positive accepted). */
int wp_err_exit_code(int code);

#endif
