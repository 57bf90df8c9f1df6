/* resolver/requirement.h: PEP 508 requirements and PEP 503 names, as packaging 24.2. */
/* Ownership: a struct wp_requirement owns every string, its specifier set and its marker;
 * wp_requirement_release frees them. Functions here keep none of their arguments. */
#ifndef WP_REQUIREMENT_H
#define WP_REQUIREMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/marker.h"
#include "resolver/name.h"
#include "resolver/specifier.h"

/* Requirement text past this is refused (-WPE_TOO_BIG). */
#define WP_REQUIREMENT_MAX_LEN 16384

struct wp_requirement {
	char *name;          /* as written ("Torch_Vision"); canonical form via wp_name_canonicalize */
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


#endif
