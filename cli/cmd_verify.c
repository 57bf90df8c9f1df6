/* cli/cmd_verify.c: `wheelpick verify PATH...`: re-check wheels, wheelhouses, mirrors, channels, bundles. */
#include "base/json.h"
#include "base/lazylib.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/url.h"
#include "cli/cli.h"
#include "cli/print.h"
#include "ops/core/sources.h"
#include "ops/core/targets.h"
#include "ops/publish/bundle.h"
#include "ops/publish/manifest.h"
#include "ops/publish/publish_s3.h"
#include "ops/verify/outputs.h"
#include "ops/verify/s3.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

struct verify_opts {
	bool json;
	const char *s3_endpoint;
	const char *manifest;
};

const struct wp_opt wp_verify_table[] = {
	{ "json", 0, NULL, WP_OPT_FLAG, offsetof(struct verify_opts, json), NULL,
	  "the report as JSON on stdout: each path's kind and result, every problem, the counts" },
	{ "s3-endpoint", 0, NULL, WP_OPT_STR, offsetof(struct verify_opts, s3_endpoint), "URL",
	  "for s3://BUCKET/PREFIX: the S3-compatible endpoint (else AWS_ENDPOINT_URL, else AWS)" },
	{ "manifest", 0, NULL, WP_OPT_STR, offsetof(struct verify_opts, manifest), "FILE",
	  "once PATH verifies, write what it holds (every file's sha256, and the tree's digest) to FILE: carry it "
	  "back, and 'bundle --since FILE' makes a delta of only what is missing here" },
	WP_OPT_END,
};

/* What each path was and how it went, for --json. */
struct path_result {
	const char *path, *kind;
	int rc;
	char msg[sizeof(((struct wp_err *)0)->msg)];
};

static void print_json(const struct path_result *res, size_t n, const struct wp_verify_report *rep, int rc,
		       const struct wp_err *err)
{
	struct wp_json j;
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_kbool(&j, "ok", rc == 0);
	wp_json_key(&j, "paths");
	wp_json_arr(&j);
	for (size_t i = 0; i < n; i++) {
		wp_json_obj(&j);
		wp_json_kstr(&j, "path", res[i].path);
		wp_json_kstr(&j, "kind", res[i].kind);
		wp_json_kbool(&j, "ok", res[i].rc == 0);
		wp_json_kstr(&j, "message", res[i].rc ? res[i].msg : NULL);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_key(&j, "problems");
	wp_json_arr(&j);
	for (size_t k = 0; k < rep->n_problems; k++) {
		wp_json_obj(&j);
		wp_json_kstr(&j, "path", rep->problems[k].path);
		wp_json_kstr(&j, "what", rep->problems[k].what);
		wp_json_kbool(&j, "fatal", rep->problems[k].fatal);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_kint(&j, "files", (long long)rep->files);
	wp_json_kint(&j, "wheels", (long long)rep->wheels);
	wp_json_kint(&j, "pages", (long long)rep->pages);
	wp_json_kint(&j, "links", (long long)rep->links);
	wp_json_kint(&j, "packages", (long long)rep->packages);
	wp_json_key(&j, "error");
	if (rc)
		wp_print_json_error_obj(&j, rc, err, NULL);
	else
		wp_json_null(&j);
	wp_json_obj_end(&j);
	wp_print_json_out(&j);
}

/* --manifest: what a verified path holds, for a delta made against it on the other side. */
static int export_manifest(const char *path, const char *kind, const char *out, struct wp_err *err)
{
	struct wp_tree_manifest m = { 0 };
	struct wp_buf b = WP_BUF_INIT;
	struct stat sb;
	int rc = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) ? wp_tree_manifest_of_dir(path, &m, err)
							     : wp_tree_manifest_of_bundle(path, &m, err);
	if (!rc && !(rc = wp_tree_manifest_format(&m, kind, &b, err)))
		rc = wp_atomic_write(out, b.data, b.len, err);
	wp_buf_free(&b);
	wp_tree_manifest_release(&m);
	return rc;
}

int wp_cmd_verify(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct verify_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	struct path_result *res = NULL;
	int rc = 0;
	if ((rc = wp_opts_parse(wp_verify_table, &o, argc, argv, &pos, err)))
		goto out;
	if (!pos.n) {
		rc = wp_fail(err, -WPE_USAGE, "verify needs a path: a wheel, a wheelhouse, a mirror, a channel, a bundle or a bundle volume");
		goto out;
	}
	if (o.manifest && (pos.n != 1 || wp_url_is_s3(pos.v[0]))) {
		rc = wp_fail(err, -WPE_USAGE, "--manifest describes one folder or bundle on this disk: give one PATH");
		goto out;
	}
	for (size_t i = 0; i < pos.n; i++)
		if ((rc = wp_cli_dest_check(pos.v[i], "verify", "path", true, err)))
			goto out;
	if ((rc = wp_lazy_require(WP_LIB_ARCHIVE | WP_LIB_CRYPTO | WP_LIB_XML, err)))
		goto out;
	res = wp_xcalloc(pos.n, sizeof(*res));
	for (size_t i = 0; i < pos.n; i++) {
		struct wp_err e = WP_ERR_INIT;
		size_t before = rep.n_problems;
		int prc = wp_url_is_s3(pos.v[i]) ? wp_verify_s3(pos.v[i], o.s3_endpoint, &rep, &e) : wp_verify_path(pos.v[i], &rep, &e);
		res[i] = (struct path_result){ .path = pos.v[i], .kind = prc == -WPE_USAGE || prc == -WPE_IO ? NULL
											   : wp_verify_kind_name(rep.kind), .rc = prc };
		snprintf(res[i].msg, sizeof(res[i].msg), "%s", e.msg);
		for (size_t k = before; k < rep.n_problems; k++)
			fprintf(stderr, "wheelpick: %s%s: %s\n", rep.problems[k].fatal ? "" : "note: ", rep.problems[k].path,
				rep.problems[k].what);
		if (prc && !rc)
			rc = wp_fail(err, prc, "%s", e.msg);
		else if (!prc && cli->verbosity >= 0 && !o.json)
			printf("ok %s (%s)\n", pos.v[i], wp_verify_kind_name(rep.kind));
	}
	if (!rc && o.manifest)
		rc = export_manifest(pos.v[0], wp_verify_kind_name(rep.kind), o.manifest, err);
	if (o.json)
		print_json(res, pos.n, &rep, rc, err);
	else if (cli->verbosity >= 0 && rep.packages && !rep.wheels) /* a conda channel: its words */
		printf("checked %zu files, %zu packages, %zu repodata files, %zu records: %zu problems\n", rep.files,
		       rep.packages, rep.pages, rep.links, rep.n_fatal);
	else if (cli->verbosity >= 0)
		printf("checked %zu files, %zu wheels, %zu pages, %zu links: %zu problems\n", rep.files, rep.wheels, rep.pages,
		       rep.links, rep.n_fatal);
out:
	free(res);
	wp_verify_report_release(&rep);
	wp_strlist_release(&pos);
	return rc;
}
