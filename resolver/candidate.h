/* resolver/candidate.h: a file as the picking rule sees it (resolver/pick.h), apart so that what
 * keeps per-file work for the rule (resolver/pickmemo.h) need not include the rule.
 * Ownership: every string and pointer is borrowed. */
#ifndef WP_CANDIDATE_H
#define WP_CANDIDATE_H

#include <stdbool.h>

struct wp_variants;

struct wp_candidate {
	const char *project;         /* normalised */
	const char *version;         /* as in the file name */
	const char *variant;         /* catalog label ("cu111", "cpu", "" none) */
	const char *kind;            /* "wheel", "sdist" */
	const char *filename;
	const char *url;
	const char *sha256;
	const char *requires_python;
	const char *yanked;          /* NULL: not yanked */
	const char *hash_conflict;   /* first-seen sha256 when the index now says another */
	const char *core_metadata;   /* PEP 658/714 value ("sha256=..." or "true"), or NULL */
	const char *tags;            /* "pyt-abit-platt" as the catalog keeps them, or NULL */
	const char *upload_time;     /* ISO 8601 (PEP 700), or NULL */
	long long size;
	/* Where the index lists it among the project's files (the catalog's row order; 0 for all:
	 * the array's order): res->rejects follow it, whatever order the provider read them in. */
	long long seq;
	/* An unlabeled torch wheel whose variant only its METADATA can tell (PyPI's Linux builds):
	 * set by whoever read that metadata (the solver), variant then holds what the nvidia-*
	 * pins say ("cu128"), or "" when they say nothing. */
	bool variant_from_metadata;
	/* PEP 825: the combined variant metadata ({name}-{version}-variants.json) of this file's
	 * project and version, set by whoever read it; NULL when none was found. A wheel with a
	 * variant label and no metadata is never picked: what it needs is unknown. */
	const struct wp_variants *variants;
	/* The index that listed it, as configured (for the plan to say), or NULL. */
	const char *source;
};

#endif
