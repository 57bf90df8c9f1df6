/* ops/core/suggest.h: "did you mean": the words closest to a mistyped one (commands, options,
 * projects from the catalog and the index roots in play), the platform tags a loose word such as
 * "linux" could mean, and the habits of other tools in requirements ('torch=2.9', an unquoted
 * 'pytorch 1.8.*'). Everything is said to the user, so nothing here fails a job: a root page
 * that cannot be read gives no names, not an error.
 * Ownership: wp_suggest_closest borrows its candidates into out; a wp_names owns its strings. */
#ifndef WP_OPS_CORE_SUGGEST_H
#define WP_OPS_CORE_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/vec.h"
#include "cache/catalog.h"
#include "cache/names.h"
#include "ops/core/session.h"
#include "resolver/requirement.h"

/* Edit distance with a swap of two neighbours counted once ("torhc" is 1 from "torch"), in
 * ASCII case-insensitively; anything past cap is cap + 1. */
size_t wp_suggest_distance(const char *a, const char *b, size_t cap);

/* The candidates close enough to word to be what was meant (a distance of about a third of its
 * length, at least 1), best first, at most max, pushed to out (borrowed from cands). */
void wp_suggest_closest(const char *word, const char *const *cands, size_t n, size_t max,
			struct wp_strlist *out);

/* "'a'", "'a' or 'b'", "'a', 'b' or 'c'" appended to out. */
void wp_suggest_join(const struct wp_strlist *words, struct wp_buf *out);

/* Is word a --platform value wheelpick knows the shape of (a wheel platform tag with a known
 * architecture, a conda subdir, auto)? When not, and false is returned, out (zeroed by the
 * caller, released with wp_names_release) gets the tags it could mean ("manylinux_2_28_x86_64",
 * ...; conda subdirs with conda), best first. */
bool wp_suggest_platform(const char *word, bool conda, struct wp_names *out);

/* Names close to project (normalised) among the catalog's projects and, unless offline, those
 * the index roots among indexes (URLs ending in '/') list. out is the caller's to release. */
int wp_suggest_projects(const struct wp_session *s, struct wp_catalog *cat,
			const struct wp_strlist *indexes, bool offline, bool conda,
			const char *project, struct wp_names *out, struct wp_err *err);

/* Requirements as typed on a command line, checked for other tools' habits before they reach a
 * parser that would only say "not PEP 508": 'torch=2.9' (did you mean 'torch==2.9'? unless
 * conda, where '=' is right) and a version on its own after a name (an unquoted 'pytorch 1.8.*').
 * -WPE_USAGE with the message, else 0. Not conda: each is parsed here, the one parse it gets, and
 * appended to out (when not NULL; the caller releases it). */
int wp_suggest_check_reqs(const struct wp_strlist *reqs, bool conda, struct wp_reqs *out,
			  struct wp_err *err);

#endif
