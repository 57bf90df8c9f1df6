/* resolver/matchspec.h: conda MatchSpec strings ("cudatoolkit >=11.1,<11.2",
 * "pytorch=1.8.0=py3.8_cuda11.1*", "conda-forge::numpy[build_number=3]") parsed the way conda
 * parses them, and matched against records. Pure: no I/O. A parsed wp_matchspec owns all its
 * storage (wp_matchspec_release); the parsers borrow their input only for the call, and the
 * matchers borrow the record's strings only for the call. */
#ifndef WP_MATCHSPEC_H
#define WP_MATCHSPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

/* A compiled version expression (conda's VersionSpec): a tree of ',' (and) and '|' (or) over
 * leaves. Opaque; owned by the wp_matchspec that holds it. */
struct wp_vspec;

enum wp_bnum_op {
	WP_BNUM_ANY = 0,
	WP_BNUM_EQ,
	WP_BNUM_NE,
	WP_BNUM_LT,
	WP_BNUM_LE,
	WP_BNUM_GT,
	WP_BNUM_GE,
};

struct wp_matchspec {
	char *name;             /* lower case; may be a glob ("*", "pytorch*") */
	char *channel;          /* "conda-forge", "pytorch", a channel URL; NULL: any channel */
	char *subdir;           /* from "conda-forge/linux-64::x" or [subdir=...]; NULL: any */
	char *version_text; /* the version part as conda rewrites it ("1.8*", ">=11.1,<11.2"); NULL:
			       any */
	struct wp_vspec *version; /* compiled version_text; NULL: any version */
	char *build;            /* build string, exact or a glob with '*' (or ^regex$); NULL: any */
	enum wp_bnum_op bnum_op;
	long long bnum;
	bool optional;          /* "(optional)": a constrains-style entry */
	char *track_features; /* conda's legacy "mkl@" (= "*[track_features=mkl]"); the matchers
			       * know no record's track_features, so such a spec matches nothing */
};

#define WP_MATCHSPEC_MAX 4096 /* longest spec string accepted */

/* conda's rules (conda/models/match_spec.py, version.py), not PEP 440's:
 *  - "name": any version. "name VERSION" and "name VERSION BUILD" split at spaces, or at '='
 *    ("name=1.8.0=py3.8_cuda11.1*"); ">=1.0 , < 2.0 py34_0" keeps its spaces inside the version.
 *  - A bare version is EXACT, as in conda's own tests: "numpy 1.7" matches 1.7 and 1.7.0 (conda
 *    compares versions, not text) but not 1.7.1. Fuzzy matching needs a '*' or a single '=':
 *    "numpy 1.7*", "numpy 1.7.*" and "numpy=1.7" match 1.7, 1.7.0, 1.7.1, never 1.70.
 *    "numpy==1.7" is exact. "numpy=1.7=py38_0" is exact too (the '=' form with a build keeps the
 *    version as written), while "numpy=1.7*=py38_0" is fuzzy.
 *  - Operators ==, !=, <, <=, >, >=, ~= (compatible release), and '=' inside an expression
 *    ("=1.8|=1.9", prefix match); ',' is and, '|' is or, ',' binds tighter, parentheses group.
 *    "!=1.8.*" excludes the 1.8 series; a ".*" after <, <=, >, == inside an expression is
 *    dropped, as conda does (">=1,==1.8.*" means ==1.8; a lone "numpy==1.8.*" is first rewritten
 *    to "1.8.*", a prefix match). '*' alone is any version; a '*' inside ("1.*.3") is a glob
 *    over the version text; ^regex$ is a POSIX extended regex over the version text.
 *  - The build is exact, or a glob when it has '*' ("cuda120_*_301", "*_cp38").
 *  - "channel::name", "channel/subdir::name"; brackets "[version='>=1.8', build=py3*,
 *    build_number=3, subdir=linux-64, channel=pytorch]" override the other parts; keys conda has
 *    that wheelpick does not match on (md5, sha256, fn, url, features, track_features, license)
 *    are accepted and ignored. "(optional)", "# comments" and " if ..." conditions are dropped.
 *  - A package file name or URL ("pkgs/numpy-1.8.0-py38_0.tar.bz2", ".conda") means exactly
 *    that name, version and build; a URL is percent-decoded first ("x264-1%21164.3095-..." is
 *    version 1!164.3095), and one whose directory is a subdir keeps its channel and subdir
 *    (conda.anaconda.org/conda-canary/linux-64/... is conda-canary/linux-64; repo.anaconda.com/
 *    pkgs/main/... is defaults; another host's channel is its URL).
 *  - Names follow CEP 26 as conda checks them (globs aside): "pkg..name", "pkg--name", "-pkg",
 *    ".pkg" are refused; brackets take only conda's field names ("blas[invalid=1]" is refused);
 *    "mkl@" is conda's legacy feature spec "*[track_features=mkl]".
 * -WPE_PARSE with a message naming the spec in quotes for anything conda refuses, and for
 * input longer than WP_MATCHSPEC_MAX. m is zeroed on failure. */
int wp_matchspec_parse(const char *s, struct wp_matchspec *m, struct wp_err *err);
void wp_matchspec_release(struct wp_matchspec *m);

/* Whether a record fits: name (case-insensitive glob), version, build glob, build_number.
 * version/build may be NULL when unknown; a spec that constrains an unknown part does not match.
 * build_number < 0 means unknown. Channel and subdir are the caller's to check. */
bool wp_matchspec_match(const struct wp_matchspec *m, const char *name, const char *version,
			const char *build, long long build_number);

/* Only the name (case-insensitive; the spec's name may be a glob). */
bool wp_matchspec_name_match(const struct wp_matchspec *m, const char *name);

/* Only the version part (true when the spec has none). */
bool wp_matchspec_version_match(const struct wp_matchspec *m, const char *version);

/* Only the build part (true when the spec has none). */
bool wp_matchspec_build_match(const struct wp_matchspec *m, const char *build);

/* The lowest version the version part admits, as normalised text: ">=11.1,<11.2" -> "11.1",
 * "11.8.*" -> "11.8", ">=12.0,<13" -> "12.0", "1.8|1.9" -> "1.8". false (out empty) when the part
 * is missing or has no lower bound ("<12", "!=11.0", "*", a glob). out is reset first. */
bool wp_matchspec_version_floor(const struct wp_matchspec *m, struct wp_buf *out);

/* conda's canonical text for messages: "channel::name version build[build_number=3]". out is
 * reset first. */
void wp_matchspec_format(const struct wp_matchspec *m, struct wp_buf *out);

/* A repodata "depends" or "constrains" value (a JSON array of spec strings) parsed into specs.
 * json NULL or "" gives none. *out is an array of *n specs the caller frees with
 * wp_matchspecs_free; on error nothing is returned. -WPE_PARSE for text that is not a flat
 * array of strings (nesting is refused at the first inner container), more than 4096 entries,
 * or an entry wp_matchspec_parse refuses (its message is kept). */
int wp_matchspec_parse_json_list(const char *json, struct wp_matchspec **out, size_t *n,
				 struct wp_err *err);
void wp_matchspecs_free(struct wp_matchspec *v, size_t n);

#endif
