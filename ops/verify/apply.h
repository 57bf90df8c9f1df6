/* ops/verify/apply.h: `wheelpick apply DELTA DEST`: a delta bundle (bundle --since) laid onto the
 * tree it was made against (an unpacked bundle, a wheelhouse, a conda bundle's folder), all or
 * nothing. Everything is borrowed for the call. */
#ifndef WP_OPS_VERIFY_APPLY_H
#define WP_OPS_VERIFY_APPLY_H

#include <stddef.h>

#include "base/err.h"
#include "ops/verify/report.h"

struct wp_apply_result {
	size_t carried;  /* files the delta brought */
	size_t kept;     /* files of DEST the new tree keeps */
	size_t removed;  /* files of DEST the new tree no longer has */
	char tree[65];   /* the new tree's digest */
};

/* Unpacks delta (or its volumes) beside dest, checks the chain (dest's tree, as its files hash
 * now, is the one the delta names as previous), builds the new tree beside dest from the files
 * the delta carries and those dest keeps (each checked against the delta's manifest), verifies it
 * as a whole (wp_verify_path, and its digest is the delta's), and only then swaps it into dest's
 * place. On any failure dest is left as it was and nothing else remains. -WPE_INTEGRITY for a
 * broken chain, a file that is not what the manifest says, or a result that does not verify (its
 * problems in rep); -WPE_USAGE for a delta that is no delta; -WPE_IO for the file system. */
int wp_apply_delta(const char *delta, const char *dest, struct wp_apply_result *res,
		   struct wp_verify_report *rep, struct wp_err *err);

#endif
