/* verify/recordcsv.h: the one reader of a wheel's RECORD rows (csv, as Python's csv writes
 * them), shared by the wheel check (verify/wheel.c) and install's reading of an installed
 * RECORD (ops/install/). Pure: no I/O. */
#ifndef WP_RECORDCSV_H
#define WP_RECORDCSV_H

#include "base/buf.h"
#include "base/str.h"

/* One RECORD row from the front of s, s moved past it: its first three fields into f[0..2]
 * (RFC 4180 quoting; a '\r' before a field's end dropped), further fields read into extra and
 * counted. Returns the number of fields (1 with an empty f[0] for a blank line), or -1 on a
 * broken quote, s then moved past that line so that a caller that skips it goes on. */
int wp_record_row(struct wp_str *s, struct wp_buf f[3], struct wp_buf *extra);

#endif
