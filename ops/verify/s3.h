/* ops/verify/s3.h: verify what a publish put in an S3 bucket. The URL and endpoint are borrowed;
 * the report's problems are its own (wp_verify_report_release). */
#ifndef WP_OPS_VERIFY_S3_H
#define WP_OPS_VERIFY_S3_H

#include "base/err.h"
#include "net/s3.h"
#include "ops/verify/outputs.h"

/* `verify s3://BUCKET/PREFIX`: every object under the prefix read back into a temporary folder
 * (under vo's tmpdir) and checked as wp_verify_path checks a folder; problems name the objects
 * (s3://BUCKET/KEY). A URL that names a bundle object (KEY, or its volumes KEY.001 ...) rather
 * than a prefix reads those back and checks the bundle. -WPE_NET for the store (refused
 * credentials: exit 3), -WPE_INTEGRITY for what the checks find. */
int wp_verify_s3(const char *url, const char *endpoint, const struct wp_s3_conf *conf,
		 const struct wp_verify_opts *vo, struct wp_verify_report *rep, struct wp_err *err);

#endif
