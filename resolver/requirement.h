/* resolver/requirement.h: PEP 508 requirements and PEP 503 names, as packaging 24.2. */
/* Ownership: a struct wp_requirement owns every string, its specifier set and its marker;
 * wp_requirement_release frees them. Functions here keep none of their arguments. */
#ifndef WP_REQUIREMENT_H
#define WP_REQUIREMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/vec.h"
#include "resolver/marker.h"
#include "resolver/name.h"
#include "resolver/specifier.h"

/* Requirement text past this is refused (-WPE_TOO_BIG). */
#define WP_REQUIREMENT_MAX_LEN 16384

struct wp_requirement {
	char *name; /* as written ("Torch_Vision"); canonical form via wp_name_canonicalize */
	char **extras;       /* as written, duplicates dropped, in order of appearance */
	size_t nextras, cap_extras;
	struct wp_specset spec; /* empty for "name" and "name @ url" */
	char *url;           /* after '@', or NULL; not validated, as packaging 24.2 does not */
	bool has_marker;
	struct wp_marker marker;
};

/* Requirement(text). r is overwritten, not released; after failure it holds nothing.
 * -WPE_PARSE (the message names the text, what was expected and where), -WPE_TOO_BIG. */
int wp_requirement_parse(struct wp_requirement *r, const char *s, size_t n, struct wp_err *err);
void wp_requirement_release(struct wp_requirement *r);
/* str(Requirement): name, [sorted,extras], specifiers, "@ url", "; marker". */
int wp_requirement_format(const struct wp_requirement *r, struct wp_buf *out);

/* A requirement as it travels from where it was read (the command line, a requirements file, a
 * METADATA's Requires-Dist) to the resolver and the writers: parsed once there, with the text it
 * was read from (for messages and what is written) and its PEP 503 name. Owns every field. */
struct wp_req {
	char *text;               /* as written */
	char *project;            /* PEP 503 normalised name ("torch-vision"); NULL when !ok */
	bool ok;                  /* r holds the parsed requirement; else why says what is wrong */
	struct wp_requirement r;
	char *why;                /* !ok: the parser's message */
};
WP_VEC_OF(wp_reqs, struct wp_req);

/* text[0..n) parsed into q (overwritten). 0, or the parser's error: q then holds the text and
 * why, for a caller that keeps an unreadable line and says so only when it matters (pip refuses
 * a release whose Requires-Dist it cannot read when it tries that release). */
int wp_req_parse(struct wp_req *q, const char *text, size_t n, struct wp_err *err);
void wp_req_release(struct wp_req *q);
/* Parse text and append it to l; nothing is appended when it is not PEP 508. */
int wp_reqs_add(struct wp_reqs *l, const char *text, struct wp_err *err);
/* Release every element and the array. */
void wp_reqs_release(struct wp_reqs *l);


#endif
