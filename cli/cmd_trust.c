/* cli/cmd_trust.c: `wheelpick trust [URL-PATTERN]`: accept sha256 changes the catalog refused. */
#include "cli/cli.h"
#include "ops/sources.h"
#include "ops/targets.h"

#include <stddef.h>
#include <stdio.h>

int wp_cmd_trust(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	static const struct wp_opt table[] = { WP_OPT_END };
	struct wp_strlist pos = { 0 };
	struct wp_catalog cat = { 0 };
	int64_t n = 0;
	int rc;
	if (wp_opts_wants_help(argc, argv)) {
		wp_opts_help(stdout, "wheelpick trust [URL-PATTERN]",
			     "Accept the hashes an index now gives for files whose sha256 changed since wheelpick\n"
			     "first saw them (all files, or those whose URL matches the SQL LIKE pattern). Check\n"
			     "with the index's owner first: a changed hash under the same name is how tampering looks.",
			     table);
		return 0;
	}
	if ((rc = wp_opts_parse(table, NULL, argc, argv, &pos, err)))
		goto out;
	if (pos.n > 1) {
		rc = wp_fail(err, -WPE_USAGE, "trust takes at most one URL pattern");
		goto out;
	}
	if ((rc = wp_cli_need_paths(cli, err)) || (rc = wp_catalog_open(&cat, cli->session.catalog_path, err)))
		goto out;
	if ((rc = wp_catalog_accept_hashes(&cat, pos.n ? pos.v[0] : NULL, &n, err)))
		goto out;
	wp_cli_note(cli, "accepted new hashes for %lld file(s)", (long long)n);
out:
	wp_catalog_close(&cat);
	wp_strlist_release(&pos);
	return rc;
}
