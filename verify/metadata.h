/* verify/metadata.h: core metadata (METADATA, PKG-INFO, PEP 658 .metadata) and WHEEL files:
 * RFC 822-style headers with continuation lines, then an optional body.
 * Ownership: each struct owns every string and array in it; release with its _release. The
 * parsers copy from text, which stays the caller's. */
#ifndef WP_METADATA_H
#define WP_METADATA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define WP_METADATA_MAX_LEN (16 << 20) /* a METADATA past 16 MiB is refused */

struct wp_metadata {
	char *metadata_version;  /* required */
	char *name;              /* required, as written */
	char *version;           /* required, as written */
	char *summary;           /* NULL when absent */
	char *requires_python;   /* NULL when absent */
	char **requires_dist;    /* PEP 508 strings, in file order */
	size_t n_requires_dist;
	char **provides_extra;
	size_t n_provides_extra;
	char *description;       /* the body after the blank line, or a Description header; NULL */
};

/* -WPE_PARSE naming the first bad line; a missing Metadata-Version, Name or Version is an error. */
int wp_metadata_parse(const char *text, size_t len, struct wp_metadata *md, struct wp_err *err);
void wp_metadata_release(struct wp_metadata *md);

struct wp_wheelfile {
	char *wheel_version;     /* "1.0"; only major version 1 is accepted */
	bool root_is_purelib;
	char **tags;             /* "py3-none-any", one per Tag header */
	size_t n_tags;
	char *build;             /* NULL when absent */
	char *generator;         /* NULL when absent */
};

/* The dist-info WHEEL file. Wheel-Version 1.x, Root-Is-Purelib and at least one Tag required. */
int wp_wheelfile_parse(const char *text, size_t len, struct wp_wheelfile *wf, struct wp_err *err);
void wp_wheelfile_release(struct wp_wheelfile *wf);

#endif
