/* cli/cmd_trust.c: `wheelpick trust [URL-PATTERN]`: accept sha256 changes the catalog refused. */
#include "base/json.h"
#include "cli/cli.h"
#include "cli/print.h"
#include "ops/core/sources.h"
#include "ops/core/targets.h"

#include <stddef.h>
#include <stdio.h>

struct trust_opts {
	bool json;
};

const struct wp_opt wp_trust_table[] = {
	{ "json", 0, NULL, WP_OPT_FLAG, offsetof(struct trust_opts, json), NULL,
	  "print {\"accepted\": N} on stdout (a failure: {\"error\": ...})" },
	WP_OPT_END,
};

int wp_cmd_trust(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct trust_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_catalog cat = { 0 };
	int64_t n = 0;
	int rc;
	if ((rc = wp_opts_parse(wp_trust_table, &o, argc, argv, &pos, err)))
		goto out;
	if (pos.n > 1) {
		rc = wp_fail(err, -WPE_USAGE, "trust takes at most one URL pattern");
		goto out;
	}
	if ((rc = wp_cli_need_paths(cli, err)) ||
	    (rc = wp_catalog_open_as(&cat, cli->session.catalog_path, &wp_cli_asks, err)))
		goto out;
	if ((rc = wp_catalog_accept_hashes(&cat, pos.n ? pos.v[0] : NULL, &n, err)))
		goto out;
	if (o.json) {
		struct wp_json j;
		wp_json_init(&j);
		wp_json_obj(&j);
		wp_json_kint(&j, "accepted", (long long)n);
		wp_json_kstr(&j, "pattern", pos.n ? pos.v[0] : NULL);
		wp_json_obj_end(&j);
		wp_print_json_out(&j);
	} else {
		wp_cli_note(cli, "accepted new hashes for %lld file(s)", (long long)n);
	}
out:
	wp_catalog_close(&cat);
	wp_strlist_release(&pos);
	return rc;
}
