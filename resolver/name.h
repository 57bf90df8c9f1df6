/* resolver/name.h: PEP 503 project names. Apart from resolver/requirement.h so that the marker
 * evaluator (which requirement.h includes) can compare names without including it back. Pure. */
#ifndef WP_NAME_H
#define WP_NAME_H

#include <stddef.h>

#include "base/buf.h"

/* PEP 503 name: ASCII lower case, every run of '-', '_', '.' one '-' ("Foo.._Bar" -> "foo-bar").
 * Appends to out; 0, or -WPE_TOO_BIG at out's ceiling. Bytes past ASCII are copied unchanged. */
int wp_name_canonicalize(const char *in, size_t n, struct wp_buf *out);

#endif
