/* cli/cmd_verify.c: `wheelpick verify PATH...`: re-check wheels, wheelhouses, mirrors, channels,
 * bundles. */
#include "base/json.h"
#include "base/lazylib.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/url.h"
#include "cli/cli.h"
#include "cli/print.h"
#include "ops/core/provenance.h"
#include "ops/core/sources.h"
#include "ops/core/targets.h"
#include "ops/publish/bundle.h"
#include "ops/publish/manifest.h"
#include "ops/publish/publish_s3.h"
#include "ops/verify/outputs.h"
#include "ops/verify/s3.h"
#include "resolver/gpu.h"
#include "resolver/gpucode.h"
#include "base/os/os.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

struct verify_opts {
	bool json;
	const char *s3_endpoint;
	const char *trusted_root;
	struct wp_strlist require_provenance;
	const char *target, *cuda;
	struct wp_strlist gpu;
	const char *manifest;
};

const struct wp_opt wp_verify_table[] = {
	{ "json", 0, NULL, WP_OPT_FLAG, offsetof(struct verify_opts, json), NULL,
	  "the report as JSON on stdout: each path's kind and result, every problem, the counts" },
	{ "s3-endpoint", 0, NULL, WP_OPT_STR, offsetof(struct verify_opts, s3_endpoint), "URL",
	  "for s3://BUCKET/PREFIX: the S3-compatible endpoint (else AWS_ENDPOINT_URL, else AWS)" },
	{ "trusted-root", 0, NULL, WP_OPT_STR, offsetof(struct verify_opts, trusted_root), "FILE",
	  "check each file's PEP 740 provenance (FILE.provenance) offline against this Sigstore "
	  "trusted_root.json; wheelpick ships none" },
	{ "require-provenance", 0, NULL, WP_OPT_LIST,
	  offsetof(struct verify_opts, require_provenance), "PROJECT=KIND:ID|FILE",
	  "the project's files must carry provenance signed by this publisher "
	  "(github:OWNER/REPO[@WORKFLOW], gitlab:NS/PROJECT[@FILE], google:EMAIL, email:ADDR), or every "
	  "line of FILE; repeatable; needs --trusted-root" },
	{ "target", 0, NULL, WP_OPT_STR, offsetof(struct verify_opts, target), "FILE",
	  "a machine saved with 'wheelpick detect --json': judge each wheel's GPU code on its GPUs and driver" },
	{ "gpu", 0, NULL, WP_OPT_LIST, offsetof(struct verify_opts, gpu), "ARCH|NAME",
	  "judge each wheel's GPU code on this GPU (sm_86, 8.6, \"RTX 3090\"); repeatable" },
	{ "cuda", 0, NULL, WP_OPT_STR, offsetof(struct verify_opts, cuda), "X.Y",
	  "with --gpu: the driver's CUDA, for whether it can JIT-compile the wheels' PTX" },
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

/* The GPUs of --target, --gpu and --cuda (none of them: no GPU check). */
static int gpus_from_opts(struct wp_cli *cli, const struct verify_opts *o, struct wp_verify_gpus *g,
			  bool *on, struct wp_err *err)
{
	int rc;
	memset(g, 0, sizeof(*g));
	*on = o->target || o->gpu.n;
	if (o->cuda && !*on)
		return wp_fail(err, -WPE_USAGE,
			       "verify --cuda needs --gpu: the GPU whose driver it is");
	if (o->target) {
		struct wp_target t;
		struct wp_target_words w = { .target_file = o->target, .cuda = o->cuda };
		if ((rc = wp_target_from_words(&cli->session, &w, &t, err)))
			return rc;
		for (int i = 0; i < t.n_gpus && g->n < WP_VERIFY_GPUS_MAX; i++)
			g->sm[g->n++] = t.gpu_sm[i];
		if (t.accel == WP_ACCEL_CUDA)
			g->driver_cuda = t.cuda_major * 10 + t.cuda_minor;
		if (!t.n_gpus && !o->gpu.n)
			return wp_fail(err, -WPE_USAGE,
				       "the machine in '%s' names no NVIDIA GPU; add --gpu ARCH",
				       o->target);
	}
	for (size_t i = 0; i < o->gpu.n; i++) {
		if (g->n == WP_VERIFY_GPUS_MAX)
			return wp_fail(err, -WPE_USAGE, "more than %d GPUs for verify",
				       WP_VERIFY_GPUS_MAX);
		if ((rc = wp_gpu_parse(o->gpu.v[i], &g->sm[g->n], err)))
			return rc;
		g->n++;
	}
	if (o->cuda && !o->target) {
		unsigned a, b;
		char tail;
		if (sscanf(o->cuda, "%u.%u%c", &a, &b, &tail) != 2 || a > 99 || b > 9)
			return wp_fail(err, -WPE_USAGE,
				       "invalid --cuda '%s'; expected X.Y like 12.8", o->cuda);
		g->driver_cuda = (int)(a * 10 + b);
	}
	return 0;
}

static void print_gpucode(const struct wp_verify_report *rep, size_t from)
{
	for (size_t i = from; i < rep->n_gpucode; i++) {
		const struct wp_verify_gpucode *v = &rep->gpucode[i];
		const char *slash = strrchr(v->path, '/');
		bool code = v->archs && *v->archs;
		printf("gpu %s sm_%d: %s%s%s%s\n", slash ? slash + 1 : v->path, v->sm,
		       wp_gpu_verdict_name(v->verdict), code ? " (" : "", code ? v->archs : "",
		       code ? ")" : "");
	}
}

static void print_json(const struct path_result *res, size_t n, const struct wp_verify_report *rep,
		       int rc, const struct wp_err *err)
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
	if (rep->gpus) {
		wp_json_key(&j, "gpu_code");
		wp_json_arr(&j);
		for (size_t k = 0; k < rep->n_gpucode; k++) {
			const struct wp_verify_gpucode *v = &rep->gpucode[k];
			char sm[16];
			snprintf(sm, sizeof(sm), "sm_%d", v->sm);
			wp_json_obj(&j);
			wp_json_kstr(&j, "path", v->path);
			wp_json_kstr(&j, "gpu", sm);
			wp_json_kstr(&j, "verdict", wp_gpu_verdict_name(v->verdict));
			wp_json_kstr(&j, "code", v->archs);
			wp_json_kstr(&j, "why", v->why);
			wp_json_obj_end(&j);
		}
		wp_json_arr_end(&j);
	}
	wp_json_kint(&j, "files", (long long)rep->files);
	wp_json_kint(&j, "wheels", (long long)rep->wheels);
	wp_json_kint(&j, "pages", (long long)rep->pages);
	wp_json_kint(&j, "links", (long long)rep->links);
	wp_json_kint(&j, "packages", (long long)rep->packages);
	wp_json_kint(&j, "provenance_verified", (long long)rep->provenance_verified);
	wp_json_kint(&j, "provenance_unchecked", (long long)rep->provenance_unchecked);
	wp_json_key(&j, "provenance");
	wp_json_arr(&j);
	for (size_t k = 0; k < rep->n_provs; k++) {
		const struct wp_verify_prov *p = &rep->provs[k];
		wp_json_obj(&j);
		wp_json_kstr(&j, "path", p->path);
		wp_json_kstr(&j, "status", p->status);
		wp_json_kstr(&j, "signer", p->signer);
		wp_json_kstr(&j, "issuer", p->issuer);
		wp_json_kstr(&j, "build", p->build);
		wp_json_key(&j, "signed_at");
		if (p->signed_at >= 0)
			wp_json_int(&j, p->signed_at);
		else
			wp_json_null(&j);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
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
	struct wp_os_stat sb;
	int rc = wp_os_stat(path, &sb) == 0 && WP_S_ISDIR(sb.st_mode) ?
			 wp_tree_manifest_of_dir(path, &m, err) :
			 wp_tree_manifest_of_bundle(path, &m, err);
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
	struct wp_trust_root trust;
	struct wp_prov_policy policy = { 0 };
	struct wp_verify_opts vo = { 0 };
	bool have_trust = false;
	int rc = 0;
	struct wp_verify_gpus gpus;
	bool gpu_on = false;
	if ((rc = wp_opts_parse(wp_verify_table, &o, argc, argv, &pos, err)))
		goto out;
	for (size_t i = 0; i < o.require_provenance.n; i++)
		if ((rc = wp_prov_policy_add_spec(&policy, o.require_provenance.v[i], err)))
			goto out;
	if (policy.n && !o.trusted_root) {
		rc = wp_fail(err, -WPE_USAGE,
			     "--require-provenance needs --trusted-root FILE (Sigstore's trusted_root.json): "
			     "wheelpick ships no trusted root");
		goto out;
	}
	if ((rc = gpus_from_opts(cli, &o, &gpus, &gpu_on, err)))
		goto out;
	if (gpu_on)
		rep.gpus = &gpus;
	if (!pos.n) {
		rc = wp_fail(err, -WPE_USAGE,
			     "verify needs a path: a wheel, a wheelhouse, a mirror, a channel, a bundle or a bundle volume");
		goto out;
	}
	if (o.manifest && (pos.n != 1 || wp_url_is_s3(pos.v[0]))) {
		rc = wp_fail(err, -WPE_USAGE,
			     "--manifest describes one folder or bundle on this disk: give one PATH");
		goto out;
	}
	for (size_t i = 0; i < pos.n; i++)
		if ((rc = wp_cli_dest_check(pos.v[i], "verify", "path", true, err)))
			goto out;
	if ((rc = wp_lazy_require(WP_LIB_ARCHIVE | WP_LIB_CRYPTO | WP_LIB_XML, err)))
		goto out;
	if (o.trusted_root) {
		if ((rc = wp_trust_root_load_file(&trust, o.trusted_root, err)))
			goto out;
		have_trust = true;
		vo.trust = &trust;
	}
	vo.policy = &policy;
	vo.tmpdir = cli->session.tmpdir;
	res = wp_xcalloc(pos.n, sizeof(*res));
	for (size_t i = 0; i < pos.n; i++) {
		struct wp_err e = WP_ERR_INIT;
		size_t before = rep.n_problems, gbefore = rep.n_gpucode;
		int prc = wp_url_is_s3(pos.v[i]) ? wp_verify_s3(pos.v[i], o.s3_endpoint,
								&cli->net.s3, &vo, &rep, &e) :
						   wp_verify_path_opts(pos.v[i], &vo, &rep, &e);
		res[i] = (struct path_result){ .path = pos.v[i],
					       .kind = prc == -WPE_USAGE || prc == -WPE_IO ?
							       NULL :
							       wp_verify_kind_name(rep.kind),
					       .rc = prc };
		snprintf(res[i].msg, sizeof(res[i].msg), "%s", e.msg);
		if (cli->verbosity >= 0 && !o.json)
			print_gpucode(&rep, gbefore);
		for (size_t k = before; k < rep.n_problems; k++)
			fprintf(stderr, "wheelpick: %s%s: %s\n",
				rep.problems[k].fatal ? "" : "note: ", rep.problems[k].path,
				rep.problems[k].what);
		if (prc && !rc)
			rc = wp_fail(err, prc, "%s", e.msg);
		else if (!prc && cli->verbosity >= 0 && !o.json)
			printf("ok %s (%s)\n", pos.v[i], wp_verify_kind_name(rep.kind));
	}
	if (rep.provenance_unchecked && !o.json)
		fprintf(stderr,
			"wheelpick: note: %zu file%s carr%s PEP 740 provenance, not checked: give --trusted-root FILE "
			"(Sigstore's trusted_root.json) to verify it offline\n",
			rep.provenance_unchecked, rep.provenance_unchecked == 1 ? "" : "s",
			rep.provenance_unchecked == 1 ? "ies" : "y");
	for (size_t k = 0; cli->verbosity > 0 && !o.json && k < rep.n_provs; k++)
		if (rep.provs[k].signer) {
			char when[32] = "";
			time_t t = (time_t)rep.provs[k].signed_at;
			struct tm tm;
			if (gmtime_r(&t, &tm))
				strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
			/* the certificate's words, shown: a control byte in them cannot reach the
			 * terminal */
			fputs("provenance: ", stdout);
			wp_fputs_shown(rep.provs[k].path, stdout);
			fputs(": signed by ", stdout);
			wp_fputs_shown(rep.provs[k].signer, stdout);
			fputs(" (issuer ", stdout);
			wp_fputs_shown(rep.provs[k].issuer ? rep.provs[k].issuer : "?", stdout);
			if (rep.provs[k].build) {
				fputs(", ", stdout);
				wp_fputs_shown(rep.provs[k].build, stdout);
			}
			printf(") at %s\n", when);
		}
	if (rep.provenance_verified && cli->verbosity >= 0 && !o.json)
		printf("provenance: %zu file%s verified against '%s'%s\n", rep.provenance_verified,
		       rep.provenance_verified == 1 ? "" : "s", o.trusted_root,
		       policy.n && !rc ? ", policy held" : "");
	if (!rc && o.manifest)
		rc = export_manifest(pos.v[0], wp_verify_kind_name(rep.kind), o.manifest, err);
	if (o.json)
		print_json(res, pos.n, &rep, rc, err);
	else if (rc && rc != -WPE_INTEGRITY)
		; /* a path could not be checked (unreachable, refused, not there): its error is the
		     one line */
	else if (cli->verbosity >= 0 && rep.packages && !rep.wheels) /* a conda channel: its words
								      */
		printf("checked %zu files, %zu packages, %zu repodata files, %zu records: %zu problems\n",
		       rep.files, rep.packages, rep.pages, rep.links, rep.n_fatal);
	else if (cli->verbosity >= 0)
		printf("checked %zu files, %zu wheels, %zu pages, %zu links: %zu problems\n",
		       rep.files, rep.wheels, rep.pages, rep.links, rep.n_fatal);
out:
	wp_strlist_release(&o.gpu);
	free(res);
	if (have_trust)
		wp_trust_root_release(&trust);
	wp_prov_policy_release(&policy);
	wp_strlist_release(&o.require_provenance);
	wp_verify_report_release(&rep);
	wp_strlist_release(&pos);
	return rc;
}
