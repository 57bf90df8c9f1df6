/* verify/conda.h: does a conda package (.tar.bz2 or .conda) open, read to the end, and carry an
 * info/index.json that says what the caller expects.
 * Ownership: the expectations are borrowed; *index_json is the caller's to free. */
#ifndef WP_CONDA_H
#define WP_CONDA_H

#include <stddef.h>

#include "base/err.h"

#define WP_CONDA_INDEX_MAX (1 << 20) /* an index.json past 1 MiB is refused */

/* Any field NULL = not checked. */
struct wp_conda_expect {
	const char *name;
	const char *version;
	const char *build;
};

/* The format comes from the file name (.conda, else .tar.bz2). Every member of every tarball
 * is read through, so truncation and bad compression show. index_json (optional) gets the
 * index.json text, NUL-terminated. Failures of the file are -WPE_INTEGRITY. */
int wp_conda_verify(const char *path, const struct wp_conda_expect *expect, char **index_json,
		    struct wp_err *err);
/* The same for a file whose own name says nothing (a store object): filename is the package's
 * name, which says the format and names it in messages.
 * Every member must be one an extractor can make without harm: no absolute or '..' names, no
 * devices, FIFOs or sockets, no name twice, symbolic links only to places inside the package and
 * nothing written through one, hard links only to an earlier file of the package. A .conda's
 * info/index.json counts only from its info-*.tar.zst. */
int wp_conda_verify_named(const char *path, const char *filename,
			  const struct wp_conda_expect *expect, char **index_json,
			  struct wp_err *err);

/* The value of a top-level string member of a JSON object, newly allocated; NULL when absent,
 * not a string, or the text is not a JSON object (nor one within base/json's caps). */
char *wp_conda_json_string(const char *json, size_t len, const char *key);

#endif
