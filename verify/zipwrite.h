/* verify/zipwrite.h: a zip with one stored member, as Python's zipfile writes one by default: the
 * __main__.py archive an entry-point launcher carries (pip's and distlib's form). */
#ifndef WP_ZIPWRITE_H
#define WP_ZIPWRITE_H

#include <stddef.h>

#include "base/buf.h"

/* name (under 64 KiB) holding n bytes of data, stored (no compression), appended to out. The
 * offsets are the archive's own, from its first byte: a reader that finds the end record and
 * measures from there (CPython's zipimport) reads it wherever it sits at the end of a file. */
void wp_zip_one_stored(const char *name, const void *data, size_t n, struct wp_buf *out);

#endif
