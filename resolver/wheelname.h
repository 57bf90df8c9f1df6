/* resolver/wheelname.h: PEP 427 wheel and sdist file names, and PEP 503 project names.
 * A parsed name owns all its strings; wp_wheelname_release / wp_sdistname_release free them.
 * Parsers borrow the file name only for the call. */
#ifndef WP_WHEELNAME_H
#define WP_WHEELNAME_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define WP_VARIANT_LABEL_MAX 47

struct wp_wheelname {
	char *name;          /* as written in the file name: "some_PACKAGE" */
	char *project;       /* PEP 503 normalised: "some-package" */
	char *version;       /* as written: "1.8.0+cu111" (the PEP 440 module parses it) */
	char *build;         /* build tag as written ("1000abc"), "" when absent */
	long long build_num; /* 1000; -1 when absent (so "no build" sorts first) */
	const char *build_suffix; /* points into build after the digits: "abc" */
	char **tags;         /* every tag of the compressed set, lowercased, in file-name order:
	                        py2.py3-none-any -> py2-none-any, py3-none-any */
	size_t n_tags;
	char *variant_label; /* PEP 825 variant label after the platform tag ("cuda12.8", "null"),
				or NULL for a non-variant wheel */
};

struct wp_sdistname {
	char *name;          /* as written */
	char *project;       /* PEP 503 normalised */
	char *version;       /* as written */
	const char *ext;     /* static: ".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz" */
};

/* PEP 825 lengthens the name: {name}-{version}(-{build})?-{py}-{abi}-{plat}(-{label})?.whl. Six
 * parts are a build tag when the third starts with a digit (a Python tag never does), else a
 * variant label; seven parts carry both. A label is [0-9a-z_.]+, at most WP_VARIANT_LABEL_MAX
 * bytes (PEP 825 sets no length; ours keeps labels inside fixed buffers).
 * -WPE_PARSE (naming the file) for anything packaging's parse_wheel_filename refuses:
 * not .whl, not 4 to 6 dashes, bad project name ("__", other punctuation), a version that is
 * not PEP 440, a build tag not starting with a digit, empty tag parts. */
int wp_wheelname_parse(const char *filename, struct wp_wheelname *w, struct wp_err *err);
/* A wheel name's tags as wp_wheelname_parse would list them (lowercased; a compressed set's
 * repeats may come again), each to fn in a buffer valid for that call, without allocating: a pick
 * asks it of every candidate for every target. fn returns true to stop. *build_num as
 * wp_wheelname_parse sets it. -WPE_PARSE, with its messages, for every name it refuses. */
int wp_wheelname_each_tag(const char *filename, long long *build_num,
			  bool (*fn)(void *ctx, const char *tag), void *ctx, struct wp_err *err);
void wp_wheelname_release(struct wp_wheelname *w);

/* name-version.EXT, split at the last '-' whose remainder is a PEP 440 version. */
int wp_sdistname_parse(const char *filename, struct wp_sdistname *s, struct wp_err *err);
void wp_sdistname_release(struct wp_sdistname *s);
/* A wheel's or an sdist's file name: its project and its version, newly allocated (either out may
 * be NULL: not wanted). -WPE_PARSE, nothing allocated, when it is neither. */
int wp_distname_split(const char *filename, char **project, char **version);

/* True when s[0..n) is a PEP 825 variant label: [0-9a-z_.]+, at most WP_VARIANT_LABEL_MAX. */
bool wp_variant_label_valid(const char *s, size_t n);

/* PEP 503: lower case, each run of '-', '_', '.' becomes one '-'. out is reset first. */
void wp_project_name_normalize(const char *in, size_t n, struct wp_buf *out);

/* True when s[0..n) matches PEP 440's version grammar (case-insensitive, a leading 'v'
 * allowed, no surrounding space). A check only: comparison lives in resolver/version. */
bool wp_pep440_valid(const char *s, size_t n);

#endif
