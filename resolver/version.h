/* resolver/version.h: PEP 440 versions, parsed, normalised and ordered exactly as packaging
 * 24.2. */
/* Ownership: a struct wp_version owns its release array, local label and text; wp_version_release
 * frees them. Everything else here borrows its arguments and keeps nothing. */
#ifndef WP_VERSION_H
#define WP_VERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

/* Version text longer than this is refused (-WPE_TOO_BIG); no real version comes close. */
#define WP_VERSION_MAX_LEN 1024
/* packaging takes numbers of any size. wheelpick keeps epoch, release, pre, post and dev numbers
 * in uint64_t and refuses (-WPE_TOO_BIG) one with more than 18 significant digits (leading zeros
 * do not count). Numeric local segments have no such cap: they are kept and compared as text. */
#define WP_VERSION_MAX_DIGITS 18

enum wp_pre_kind {
	WP_PRE_NONE = 0,
	WP_PRE_A,  /* a, alpha */
	WP_PRE_B,  /* b, beta */
	WP_PRE_RC, /* rc, c, pre, preview */
};

struct wp_version {
	uint64_t epoch;
	uint64_t *release;  /* owned; nrelease >= 1 numbers as written (trailing zeros kept) */
	size_t nrelease;
	enum wp_pre_kind pre_kind;
	uint64_t pre;       /* valid when pre_kind != WP_PRE_NONE */
	bool has_post;
	uint64_t post;
	bool has_dev;
	uint64_t dev;
	char *local;        /* owned; normalised label ("cu111", "cpu.cxx11.abi") or NULL */
	char *text; /* owned; the text as given to wp_version_parse, which === compares as
		     * packaging compares a candidate string (str(item).lower()); NULL when
		     * unknown */
};

/* Parse n bytes of s (no NUL needed) the way packaging's Version() does: case-insensitive,
 * surrounding whitespace and a leading 'v' allowed, every alternate spelling and separator.
 * v is overwritten, not released: after success the caller releases it; after failure it holds
 * nothing. Errors: -WPE_PARSE (not PEP 440), -WPE_TOO_BIG (over the caps above). */
int wp_version_parse(struct wp_version *v, const char *s, size_t n, struct wp_err *err);
/* Frees what v owns and leaves it empty; releasing an empty or zeroed version is harmless. */
void wp_version_release(struct wp_version *v);
/* dst becomes an independent copy of src (dst is overwritten, not released). */
void wp_version_copy(struct wp_version *dst, const struct wp_version *src);

/* <0, 0, >0 in packaging's order: release trailing zeros ignored, x.dev < x.a < x < x.post,
 * local labels compared segment by segment (numbers as numbers, above any text). */
int wp_version_cmp(const struct wp_version *a, const struct wp_version *b);
/* Two spellings of one version ("2.10" and "2.10.0", "1.0RC1" and "1.0rc1")? Texts that are no
 * PEP 440 version are equal only when they are the same text, case aside. */
bool wp_version_text_equal(const char *a, size_t an, const char *b, size_t bn);
bool wp_version_same(const char *a, const char *b); /* the same, for NUL-terminated texts */
/* The same, as if neither side had a local label (what ==1.8.0 means for 1.8.0+cu111). */
int wp_version_cmp_public(const struct wp_version *a, const struct wp_version *b);
/* The same, on base versions (epoch and release only). */
int wp_version_cmp_base(const struct wp_version *a, const struct wp_version *b);

/* A sort key: bytes whose memcmp order (shorter first on a tie, as SQLite orders BLOBs) is exactly
 * wp_version_cmp's order, so that the catalog can order and select rows by version in SQL (schema
 * 7). The public part comes first and is self-delimiting: every version with the same public
 * version (1.8.0+cu111, 1.8.0+cpu, 1.8, 1.8.0) has a key that starts with the same
 * wp_version_key_public bytes, and no other version's key does; so ==1.8.0 is the key range
 * [public, public + 1), which wp_version_key_public_next gives. Appends to out; the key of one
 * version never changes. */
void wp_version_key(const struct wp_version *v, struct wp_buf *out);
void wp_version_key_public(const struct wp_version *v, struct wp_buf *out);
/* How many leading bytes of key are its public part (0 when key is no wp_version_key). */
size_t wp_version_key_public_len(const unsigned char *key, size_t n);
/* The smallest byte string above every key that starts with the public key p (n bytes, from
 * wp_version_key_public, whose last byte is never 0xff): p with its last byte incremented. */
void wp_version_key_public_next(const unsigned char *p, size_t n, struct wp_buf *out);

/* Appending text to out; each returns 0 or -WPE_TOO_BIG when out's ceiling is reached. */
int wp_version_format(const struct wp_version *v, struct wp_buf *out);        /* str(Version) */
int wp_version_format_public(const struct wp_version *v, struct wp_buf *out); /* .public */
int wp_version_format_base(const struct wp_version *v, struct wp_buf *out);   /* .base_version */
/* packaging.utils.canonicalize_version: like format, but trailing ".0" release parts dropped. */
int wp_version_format_canonical(const struct wp_version *v, struct wp_buf *out);

bool wp_version_is_prerelease(const struct wp_version *v); /* a pre or a dev release */
bool wp_version_is_devrelease(const struct wp_version *v);
bool wp_version_is_postrelease(const struct wp_version *v);
bool wp_version_has_local(const struct wp_version *v);
/* The normalised local label without '+' ("cu111"), or NULL when there is none. */
const char *wp_version_local(const struct wp_version *v);

/* Lower-level, for the specifier and requirement grammars: the length of the prefix of s that
 * packaging's version pattern matches at s (greedy, no anchors, no surrounding whitespace);
 * 0 when it matches nothing. */
enum {
	WP_VMATCH_LOCAL = 1,    /* allow "+label" */
	WP_VMATCH_WILDCARD = 2, /* allow ".*" right after the release (and nothing after it) */
	WP_VMATCH_TWO = 4,      /* the release needs at least two parts (~=) */
};
size_t wp_version_match(const char *s, size_t n, unsigned flags);

#endif
