/* resolver/specifier.h: PEP 440 version specifiers and specifier sets, as packaging 24.2, with
 * packaging HEAD's reading of === (text equality against the candidate as written) and of >V,
 * <V. */
/* Ownership: a struct wp_specifier owns its text and parsed version; a struct wp_specset owns its
 * array of specifiers. Functions taking versions borrow them and keep nothing. */
#ifndef WP_SPECIFIER_H
#define WP_SPECIFIER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/version.h"

/* A specifier set text longer than this is refused (-WPE_TOO_BIG). */
#define WP_SPECSET_MAX_LEN 8192

enum wp_spec_op {
	WP_OP_COMPATIBLE, /* ~= */
	WP_OP_EQ,         /* == */
	WP_OP_NE,         /* != */
	WP_OP_LE,         /* <= */
	WP_OP_GE,         /* >= */
	WP_OP_LT,         /* <  */
	WP_OP_GT,         /* >  */
	WP_OP_ARBITRARY,  /* === */
};

/* Whether pre-releases count: packaging's prereleases=None/False/True. */
enum wp_prereleases {
	WP_PRERELEASES_DEFAULT = -1, /* decide from the specifiers (None) */
	WP_PRERELEASES_NO = 0,
	WP_PRERELEASES_YES = 1,
};

struct wp_specifier {
	enum wp_spec_op op;
	char *text; /* owned: the version as written, whitespace stripped ("1.8.*", "v2") */
	bool wildcard;              /* == or != ending in ".*" */
	bool has_version;           /* false only for === with text that is no PEP 440 version */
	struct wp_version version;  /* text parsed, without ".*"; valid when has_version */
};

struct wp_specset {
	struct wp_specifier *specs; /* owned; duplicates (same canonical form) dropped, first kept
				     */
	size_t n;
	enum wp_prereleases prereleases; /* the set's own setting (SpecifierSet(prereleases=)) */
};

#define WP_SPECSET_INIT { NULL, 0, WP_PRERELEASES_DEFAULT }

/* One specifier, like Specifier(text): "~=2.0", "==1.8.*", " >= 1.0 ". sp is overwritten, not
 * released; after failure it holds nothing. -WPE_PARSE, or -WPE_TOO_BIG for a version number
 * over WP_VERSION_MAX_DIGITS digits. */
int wp_specifier_parse(struct wp_specifier *sp, const char *s, size_t n, struct wp_err *err);
void wp_specifier_release(struct wp_specifier *sp);
void wp_specifier_copy(struct wp_specifier *dst, const struct wp_specifier *src);
/* str(Specifier): operator then text ("<2", "==1.8.*"). */
int wp_specifier_format(const struct wp_specifier *sp, struct wp_buf *out);
/* Specifier == Specifier: same operator and same canonical version. */
bool wp_specifier_eq(const struct wp_specifier *a, const struct wp_specifier *b);
/* Specifier.prereleases with nothing set: does an inclusive operator name a pre-release? */
bool wp_specifier_prereleases(const struct wp_specifier *sp);
/* Specifier.contains(v, prereleases). */
bool wp_specifier_contains(const struct wp_specifier *sp, const struct wp_version *v,
			   enum wp_prereleases pre);
/* Specifier.filter: keep[i] says whether vs[i] is yielded; returns how many are. */
size_t wp_specifier_filter(const struct wp_specifier *sp, const struct wp_version *const *vs,
			   size_t n, enum wp_prereleases pre, bool *keep);

/* Length of the specifier packaging's requirement grammar reads at s (its SPECIFIER token:
 * operator and version, no surrounding whitespace); 0 when there is none. */
size_t wp_specifier_match(const char *s, size_t n);

/* SpecifierSet(text): comma-separated specifiers; "" is the empty set, which takes any final
 * release. set is overwritten, not released; its prereleases starts as DEFAULT. */
int wp_specset_parse(struct wp_specset *set, const char *s, size_t n, struct wp_err *err);
void wp_specset_release(struct wp_specset *set);
/* str(SpecifierSet): specifiers sorted by their text, joined by ','. */
int wp_specset_format(const struct wp_specset *set, struct wp_buf *out);
/* SpecifierSet.prereleases: the set's setting, else whether any specifier names a
 * pre-release; DEFAULT for an empty set with nothing set. */
enum wp_prereleases wp_specset_prereleases(const struct wp_specset *set);
/* SpecifierSet.contains(v, prereleases): every specifier contains v. */
bool wp_specset_contains(const struct wp_specset *set, const struct wp_version *v,
			 enum wp_prereleases pre);
/* SpecifierSet.filter as packaging HEAD and PEP 440: pre-releases count when pre (else the set's
 * own setting) says YES or a specifier names one; with neither, they are kept only when no final
 * release matches (">=1.2.3" over 1.2, 1.5a1 keeps 1.5a1). keep[i] says whether vs[i] is
 * yielded; returns how many are. */
size_t wp_specset_filter(const struct wp_specset *set, const struct wp_version *const *vs, size_t n,
			 enum wp_prereleases pre, bool *keep);

#endif
