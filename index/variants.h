/* index/variants.h: PEP 825 variant metadata: {name}-{version}-variants.json (index level) and a
 * wheel's *.dist-info/variant.json, in PEP 825's 0.1.x schema and wheelnext's 0.0.x one (the files
 * PyTorch publishes: providers, static-properties, default-priorities.feature/.property).
 * The data (struct wp_variants) is resolver/wheelvariant.h's; the parser borrows its input only for
 * the call. */
#ifndef WP_INDEX_VARIANTS_H
#define WP_INDEX_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/wheelvariant.h"

/* True for a file name of the form {name}-{version}-variants.json (the index-level file). */
bool wp_variants_json_name(const char *filename);

/* Parse one variants.json or variant.json. what names it in messages (a URL or path).
 * -WPE_SOURCE for JSON that is not variant metadata (the message names the key at fault),
 * -WPE_TOO_BIG past WP_VARIANTS_MAX_BYTES, -WPE_SOURCE for a schema major version other than 0
 * (PEP 825: tools reject a major they do not know). v is overwritten. */
int wp_variants_parse(const char *what, const char *text, size_t len, struct wp_variants *v,
		      struct wp_err *err);

#endif
