/* resolver/condaver.h: conda version ordering (conda's VersionOrder), which is not PEP 440.
 * A parsed wp_condaver owns its storage; wp_condaver_release frees it. The parser borrows its
 * input only for the call. */
#ifndef WP_CONDAVER_H
#define WP_CONDAVER_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

enum wp_condaver_atom_kind {
	WP_CONDAVER_STR = 0, /* a run of letters/'_'/'*' ("a", "rc", "_"); "dev" is stored as "DEV"
			      */
	WP_CONDAVER_NUM, /* a run of digits, leading zeros dropped ("" is zero) */
	WP_CONDAVER_INF, /* "post": above every number */
};

struct wp_condaver_atom {
	enum wp_condaver_atom_kind kind;
	const char *p;       /* into wp_condaver.text, or a static string for "DEV" */
	size_t n;
};

struct wp_condaver {
	char *text;                       /* the normalised version (lower case, '-' as '_') */
	struct wp_condaver_atom *atoms;
	size_t n_atoms;
	size_t (*comps)[2];               /* each component: first atom, atom count */
	size_t n_version;                 /* components of the version, the epoch first */
	size_t n_local;                   /* components after '+', following the version's */
};

#define WP_CONDAVER_INIT { NULL, NULL, 0, NULL, 0, 0 }

/* conda's rules: case-insensitive; '-' counts as '_' unless the string has both; '!' epoch
 * (digits), '+' local part; '.' and '_' separate components (a trailing '_' stays in the last
 * one, for openssl-like 1.0.2_); components split into digit / letter runs, "post" above any
 * number, "dev" below every other string, a component that starts with no digit (a letter, '_'
 * or '*') gets a 0 in front. -WPE_PARSE naming the version for anything conda refuses. */
int wp_condaver_parse(const char *s, struct wp_condaver *v, struct wp_err *err);
void wp_condaver_release(struct wp_condaver *v);

/* <0, 0, >0. Missing components and atoms count as 0, so 1.0 == 1.0.0; a string atom is below
 * any number; strings compare as bytes ('*' < "DEV" < '_' < letters). */
int wp_condaver_order(const struct wp_condaver *a, const struct wp_condaver *b);

/* Parses both; a version conda refuses sorts below every valid one, and invalid ones compare
 * by their bytes, so sorting never fails. */
int wp_condaver_cmp(const char *a, const char *b);

/* conda's repr of VersionOrder.version: "[[0], [1], [0, 'a', 1]]" ('DEV', inf as in Python).
 * out is reset first. */
void wp_condaver_format_parsed(const struct wp_condaver *v, struct wp_buf *out);

#endif
