/* cli/cmd_verify.c: `wheelpick verify PATH...`: re-check wheels, wheelhouses, mirrors, channels, bundles. */
#include "cli/cli.h"
#include "base/lazylib.h"
#include "ops/sources.h"
#include "ops/targets.h"
#include "ops/verify_outputs.h"
#include "ops/publish_s3.h"
#include "base/url.h"

#include <stddef.h>
#include <stdio.h>
#include <strings.h>

struct verify_opts {
	const char *s3_endpoint;
};

const struct wp_opt wp_verify_table[] = {
	{ "s3-endpoint", 0, NULL, WP_OPT_STR, offsetof(struct verify_opts, s3_endpoint), "URL",
	  "for s3://BUCKET/PREFIX: the S3-compatible endpoint (else AWS_ENDPOINT_URL, else AWS)" },
	WP_OPT_END,
};

static bool is_s3(const char *p)
{
	return wp_url_scheme_len(p) == 2 && !strncasecmp(p, "s3", 2);
}

int wp_cmd_verify(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct wp_strlist pos = { 0 };
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	struct verify_opts o = { 0 };
	int rc = 0;
	if ((rc = wp_opts_parse(wp_verify_table, &o, argc, argv, &pos, err)))
		goto out;
	if (!pos.n) {
		rc = wp_fail(err, -WPE_USAGE, "verify needs a path: a wheel, a wheelhouse, a mirror, a channel, a bundle or a bundle volume");
		goto out;
	}
	for (size_t i = 0; i < pos.n; i++)
		if ((rc = wp_cli_dest_check(pos.v[i], "verify", "path", true, err)))
			goto out;
	if ((rc = wp_lazy_require(WP_LIB_ARCHIVE | WP_LIB_CRYPTO | WP_LIB_XML, err)))
		goto out;
	for (size_t i = 0; i < pos.n; i++) {
		struct wp_err e = WP_ERR_INIT;
		size_t before = rep.n_problems;
		int prc = is_s3(pos.v[i]) ? wp_verify_s3(pos.v[i], o.s3_endpoint, &rep, &e) : wp_verify_path(pos.v[i], &rep, &e);
		for (size_t k = before; k < rep.n_problems; k++)
			fprintf(stderr, "wheelpick: %s%s: %s\n", rep.problems[k].fatal ? "" : "note: ", rep.problems[k].path,
				rep.problems[k].what);
		if (prc && !rc)
			rc = wp_fail(err, prc, "%s", e.msg);
		else if (!prc && cli->verbosity >= 0)
			printf("ok %s (%s)\n", pos.v[i], wp_verify_kind_name(rep.kind));
	}
	if (cli->verbosity >= 0)
		printf("checked %zu files, %zu wheels, %zu pages, %zu links: %zu problems\n", rep.files, rep.wheels, rep.pages,
		       rep.links, rep.n_fatal);
out:
	wp_verify_report_release(&rep);
	wp_strlist_release(&pos);
	return rc;
}
