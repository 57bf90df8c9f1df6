/* cli/cmd_apply.c: `wheelpick apply DELTA DEST`: lay a delta bundle onto the tree it was made
 * against. */
#include "base/lazylib.h"
#include "cli/cli.h"
#include "ops/verify/apply.h"

#include <stddef.h>
#include <stdio.h>

const struct wp_opt wp_apply_table[] = { WP_OPT_END };

int wp_cmd_apply(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_strlist pos = { 0 };
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	struct wp_apply_result res;
	int rc;
	if ((rc = wp_opts_parse(wp_apply_table, NULL, argc, argv, &pos, err)))
		goto out;
	if (pos.n != 2) {
		rc = wp_fail(err, -WPE_USAGE,
			     "apply takes a delta and the folder it updates: 'wheelpick apply "
			     "delta.tar.zst ./torch' (the folder the earlier bundle unpacked to)");
		goto out;
	}
	if ((rc = wp_cli_dest_check(pos.v[0], "apply", "delta", true, err)) ||
	    (rc = wp_cli_dest_check(pos.v[1], "apply", "folder", true, err)) ||
	    (rc = wp_lazy_require(WP_LIB_ARCHIVE | WP_LIB_CRYPTO | WP_LIB_XML, err)))
		goto out;
	rc = wp_apply_delta(pos.v[0], pos.v[1], &res, &rep, err);
	for (size_t k = 0; k < rep.n_problems; k++)
		fprintf(stderr, "wheelpick: %s%s: %s\n",
			rep.problems[k].fatal ? "" : "note: ", rep.problems[k].path,
			rep.problems[k].what);
	if (rc) {
		wp_err_prefix(err, "'%s' was left as it was", pos.v[1]);
		goto out;
	}
	if (cli->verbosity >= 0)
		printf("applied %s to %s: %zu file(s) carried, %zu kept, %zu removed; the tree verifies (%.16s...)\n",
		       pos.v[0], pos.v[1], res.carried, res.kept, res.removed, res.tree);
out:
	wp_verify_report_release(&rep);
	wp_strlist_release(&pos);
	return rc;
}
