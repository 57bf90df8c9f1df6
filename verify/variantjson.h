/* verify/variantjson.h: a PEP 825 variant wheel's own variant.json. Everything is borrowed for the
 * call; out and labels are the caller's. */
#ifndef WP_VERIFY_VARIANTJSON_H
#define WP_VERIFY_VARIANTJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

/* The wheel's top-level *.dist-info/variant.json into out (capped at WP_VARIANTS_MAX_BYTES).
 * 0 with *found set; -1 with why filled when the wheel cannot be read or the member is too big. */
int wp_wheel_variant_json(const char *path, struct wp_buf *out, bool *found, char *why,
			  size_t whysz);

/* The labels a variant.json's "variants" object names, quoted and joined with ", " into labels,
 * read as plain JSON: the check that the wheel is the build its file name says stands even when
 * the rest is not valid PEP 825 metadata. 1 when it names exactly one label, 0 for another count,
 * -1 when the text is not a JSON object with a "variants" object. */
int wp_variant_json_labels(const char *text, size_t len, struct wp_buf *labels);

/* A PEP 825 variant wheel at path, named filename, whose name has label (as the caller parsed the
 * name; NULL: not a variant wheel): its own *.dist-info/variant.json must name exactly that label,
 * else it is not the build its name says. 0 for any other file or when it does; -WPE_INTEGRITY
 * naming filename otherwise, or when the variant.json is missing or unreadable. */
int wp_verify_variant_wheel_label(const char *path, const char *filename, const char *label,
				  struct wp_err *err);

#endif
