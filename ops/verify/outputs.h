/* ops/verify/outputs.h: re-check what wheelpick wrote (a wheel, wheelhouse, mirror, conda channel
 * or bundle). Ownership: the report owns its problems and their strings (wp_verify_report_release);
 * the path is borrowed. Nothing is changed on disk except a bundle's temp unpack dir, which is
 * removed. */
#ifndef WP_OPS_VERIFY_OUTPUTS_H
#define WP_OPS_VERIFY_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "ops/verify/report.h"


/* Recognise what path is and re-check all of it: every hash, every link, every wheel's RECORD.
 * Problems go into rep, each naming its file; -WPE_INTEGRITY (the message counts them and
 * quotes the first) when this call found any fatal one. -WPE_IO when path cannot be read,
 * -WPE_USAGE when it is none of the kinds above. */
int wp_verify_path(const char *path, struct wp_verify_report *rep, struct wp_err *err);
/* The same with provenance checked as o says (o may be NULL): a provenance that does not verify,
 * or a file the policy names without provenance or by another publisher, is a fatal problem. */
int wp_verify_path_opts(const char *path, const struct wp_verify_opts *o,
			struct wp_verify_report *rep, struct wp_err *err);

#endif
