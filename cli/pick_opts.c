/* cli/pick_opts.c: the option tables of pick, mirror, bundle, matrix and lock, requirements and
 * constraints files, and the jobs they make. */
#include "cli/pick_opts.h"
#include "base/envp.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/urlmask.h"
#include "cache/names.h"
#include "cli/print.h"
#include "ops/core/sources.h"
#include "ops/core/suggest.h"
#include "resolver/wheelname.h"
#include "base/os/os.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define O(f) offsetof(struct wp_pick_opts, f)
#define TARGET_OPTS                                                                                                \
	{ "cuda", 0, NULL, WP_OPT_LIST, O(cuda), "X.Y|auto|cpu",                                                         \
	  "a machine whose NVIDIA driver runs CUDA up to X.Y (default auto: this machine's); cpu for CPU builds" },     \
	{ "driver", 0, NULL, WP_OPT_LIST, O(driver), "VERSION", "the NVIDIA driver itself, e.g. 535.104.05" },          \
	{ "cuda-compat", 0, NULL, WP_OPT_STR, O(cuda_compat), "minor|strict",                                            \
	  "minor (default): a CUDA 12.x build runs on any 12.x driver new enough for NVIDIA's compatibility; "          \
	  "strict: never a build for a newer CUDA than the driver's" },                                                  \
	{ "rocm", 0, NULL, WP_OPT_STR, O(rocm), "X.Y", "pick AMD ROCm X.Y builds" },                                     \
	{ "xpu", 0, NULL, WP_OPT_FLAG, O(xpu), NULL, "pick Intel GPU (XPU) builds" },                                    \
	{ "gfx", 0, NULL, WP_OPT_LIST, O(gfx), "gfxN",                                                                   \
	  "an AMD GPU architecture the ROCm build must have code for, e.g. gfx942, gfx1100 (same as --gpu gfxN)" },      \
	{ "intel-device-ip", 0, NULL, WP_OPT_LIST, O(intel_ip), "IP|NAME",                                               \
	  "an Intel GPU, as its device IP (20.1.0) or name (bmg-g21, dg2-g10, pvc); implies --xpu" },               \
	{ "x86-64-level", 0, NULL, WP_OPT_STR, O(x86_64_level), "v1|v2|v3|v4",                                           \
	  "the target CPU's x86-64 level, for wheels built for one (default v1, which every x86-64 runs)" },           \
	{ "python", 0, "python-version", WP_OPT_LIST, O(python), "X.Y[t]|auto",                                          \
	  "the target's Python; 3.13t is the free-threaded build (default auto)" },                                    \
	{ "platform", 0, NULL, WP_OPT_LIST, O(platform), "TAG|auto",                                                     \
	  "the target's most specific platform tag, e.g. manylinux_2_28_x86_64, win_amd64 (default auto)" },            \
	{ "gpu", 0, NULL, WP_OPT_LIST, O(gpu), "sm_86|8.6|NAME|gfxN",                                                     \
	  "a GPU the build must have code for: an architecture, a name (\"RTX 3090\", A100), an AMD gfx "                 \
	  "(default: this machine's)" },                                                                                  \
	{ "target", 0, NULL, WP_OPT_LIST, O(target), "FILE", "a machine saved with 'wheelpick detect --json'" }
#define INDEX_OPTS                                                                                                 \
	{ "index", 0, NULL, WP_OPT_LIST, O(index), "URL",                                                                \
	  "an index root (https://host/simple, with or without the slash) or links page to pick from (read again "    \
	  "when older than an hour); a folder works too: a PEP 503 tree or a folder of wheels" },                      \
	{ "index-url", 'i', NULL, WP_OPT_LIST, O(index_url), "URL",                                                      \
	  "an index root, instead of the configured or default one (as pip's -i)" },                                   \
	{ "extra-index-url", 0, NULL, WP_OPT_LIST, O(extra_index), "URL", "another index root, after the first" },     \
	{ "find-links", 'f', NULL, WP_OPT_LIST, O(find_links), "URL|DIR",                                                \
	  "a links page (torch_stable.html) or folder of wheels; it serves what it lists, no dependencies' pages" },   \
	{ "no-index", 0, NULL, WP_OPT_FLAG, O(no_index), NULL, "no index root: only the --find-links pages" },           \
	{ "isolated", 0, NULL, WP_OPT_FLAG, O(isolated), NULL,                                                           \
	  "ignore pip's and uv's environment variables and pip's configuration files" },                               \
	{ "trusted-host", 0, NULL, WP_OPT_LIST, O(trusted_host), "HOST[:PORT]",                                          \
	  "do not check HOST's TLS certificate (said on every run; hashes are still checked)" },                         \
	{ "cert", 0, NULL, WP_OPT_STR, O(cert), "PEM", "the CA bundle to check servers' certificates with" },           \
	{ "client-cert", 0, NULL, WP_OPT_STR, O(client_cert), "PEM", "a client certificate (with its key) for TLS" }
#define WHEEL_SOURCE_OPTS                                                                                          \
	{ "index-for", 0, NULL, WP_OPT_LIST, O(index_for), "PROJECT=URL",                                                \
	  "take PROJECT only from the index at URL (by default a project comes from the first index that has it)" },     \
	{ "index-strategy", 0, NULL, WP_OPT_STR, O(index_strategy), "first-index|unsafe-best-match",                     \
	  "first-index (default): a project comes from the first index that lists it; unsafe-best-match: from all" }
#define CONDA_OPTS                                                                                                 \
	{ "channel", 'c', NULL, WP_OPT_LIST, O(channel), "NAME|URL",                                                     \
	  "a conda channel (implies --conda); a .txt file after -c is a constraints file, as with pip" },               \
	{ "conda", 0, NULL, WP_OPT_FLAG, O(conda), NULL, "pick conda packages instead of wheels" },                      \
	{ "allow-missing", 0, NULL, WP_OPT_FLAG, O(allow_missing), NULL,                                                 \
	  "conda: write the channel even when a dependency is in no channel given (it says which)" }
#define REQ_OPTS_C(c, also)                                                                                         \
	{ "requirement", 'r', NULL, WP_OPT_LIST, O(requirement), "FILE",                                                 \
	  "read requirements from a pip requirements file (hashes, markers, -r/-c and index lines too)" },              \
	{ "constraint", c, NULL, WP_OPT_LIST, O(constraint), "FILE",                                                     \
	  "a pip constraints file: versions for projects if something needs them" also },                               \
	{ "require-hashes", 0, NULL, WP_OPT_FLAG, O(require_hashes), NULL,                                              \
	  "every requirement must be pinned and carry --hash values in its file, as pip's option" }
#define REQ_OPTS REQ_OPTS_C(0, " (also -c FILE.txt)")
#define WHEEL_REQ_OPTS REQ_OPTS_C('c', "")
#define COMMON_OPTS                                                                                                \
	{ "no-deps", 0, NULL, WP_OPT_FLAG, O(no_deps), NULL, "only what was named, not what it needs" },               \
	{ "pre", 0, NULL, WP_OPT_FLAG, O(pre), NULL, "allow pre-releases" },                                             \
	{ "offline", 0, NULL, WP_OPT_FLAG, O(offline), NULL, "use only what was downloaded before: no network" },        \
	{ "refresh", 0, NULL, WP_OPT_FLAG, O(refresh), NULL, "read the --index pages again even if recent" }
#define JSON_OPT { "json", 0, NULL, WP_OPT_FLAG, O(json), NULL, "the result as JSON on stdout" }
#define SBOM_OPT                                                                                                   \
	{ "sbom", 0, NULL, WP_OPT_STR, O(sbom), "cyclonedx|spdx|both",                                                  \
	  "sbom.cdx.json (CycloneDX 1.6) is always written; spdx or both adds sbom.spdx.json (SPDX 2.3)" }
#define TESTCASE_OPT                                                                                               \
	{ "write-testcase", 0, NULL, WP_OPT_STR, O(write_testcase), "FILE",                                              \
	  "also write the resolution (what the indexes offered, what was picked) as a test case to attach to a report" }
#define EXPLAIN_OPT { "explain", 0, NULL, WP_OPT_FLAG, O(explain), NULL, "list every file that was not picked, and why" }
#define FULL_OPT                                                                                                   \
	{ "allow-full-downloads", 0, NULL, WP_OPT_FLAG, O(allow_full_downloads), NULL,                                   \
	  "let a dry run download whole wheels when their index offers no other way to read what they need" }

const struct wp_opt wp_pick_table[] = {
	TARGET_OPTS,
	INDEX_OPTS,
	WHEEL_SOURCE_OPTS,
	CONDA_OPTS,
	REQ_OPTS,
	{ "dest", 'd', NULL, WP_OPT_STR, O(dest), "DIR",
	  "the wheelhouse (or conda channel) to write (default ./wheelhouse)" },
	{ "dry-run", 'n', NULL, WP_OPT_FLAG, O(dry_run), NULL,
	  "say what would be picked and why; download nothing" },
	{ "lock", 0, NULL, WP_OPT_STR, O(lock), "FILE",
	  "fetch exactly the wheels a PEP 751 pylock.toml names for the target(s), resolving nothing" },
	{ "lock-extra", 0, NULL, WP_OPT_LIST, O(lock_extra), "NAME",
	  "with --lock: an extra to install (the lock's markers test 'NAME' in extras)" },
	{ "lock-group", 0, NULL, WP_OPT_LIST, O(lock_group), "NAME",
	  "with --lock: a dependency group to install, instead of the lock's default-groups" },
	FULL_OPT,
	TESTCASE_OPT,
	SBOM_OPT,
	COMMON_OPTS,
	JSON_OPT,
	EXPLAIN_OPT,
	WP_OPT_END,
};

const struct wp_opt wp_mirror_table[] = {
	TARGET_OPTS,
	INDEX_OPTS,
	WHEEL_SOURCE_OPTS,
	CONDA_OPTS,
	REQ_OPTS,
	{ "dry-run", 'n', NULL, WP_OPT_FLAG, O(dry_run), NULL,
	  "say what would be mirrored; download nothing" },
	FULL_OPT,
	{ "prune", 0, NULL, WP_OPT_FLAG, O(prune), NULL,
	  "remove files the targets no longer need" },
	{ "delta", 0, NULL, WP_OPT_STR, O(delta), "OUT.tar.zst",
	  "also write what this run changed in DIR as a delta to OUT ('wheelpick apply OUT DIR' on the far side): "
	  "against DIR as it was before the run, or against --since" },
	{ "since", 0, NULL, WP_OPT_STR, O(since), "OLD",
	  "with --delta: what the far side's mirror holds (a manifest from 'verify --manifest', or an earlier delta's)" },
	{ "split", 0, NULL, WP_OPT_STR, O(split), "SIZE",
	  "with --delta: write it in volumes of at most SIZE" },
	{ "s3-endpoint", 0, NULL, WP_OPT_STR, O(s3_endpoint), "URL",
	  "for s3://BUCKET/PREFIX: the S3-compatible endpoint (else AWS_ENDPOINT_URL, else AWS)" },
	{ "s3-acl", 0, NULL, WP_OPT_STR, O(s3_acl), "ACL",
	  "for s3://...: a canned ACL on each object (public-read)" },
	SBOM_OPT,
	COMMON_OPTS,
	JSON_OPT,
	EXPLAIN_OPT,
	WP_OPT_END,
};

const struct wp_opt wp_matrix_table[] = {
	TARGET_OPTS,
	INDEX_OPTS,
	WHEEL_SOURCE_OPTS,
	{ "conda", 0, NULL, WP_OPT_FLAG, O(conda), NULL,
	  "each target's conda pick, from --channel (default conda-forge)" },
	{ "channel", 0, NULL, WP_OPT_LIST, O(channel), "NAME|URL",
	  "a conda channel (implies --conda)" },
	WHEEL_REQ_OPTS,
	FULL_OPT,
	COMMON_OPTS,
	JSON_OPT,
	WP_OPT_END,
};

const struct wp_opt wp_lock_table[] = {
	TARGET_OPTS,
	INDEX_OPTS,
	WHEEL_SOURCE_OPTS,
	WHEEL_REQ_OPTS,
	{ "output", 'o', NULL, WP_OPT_STR, O(output), "FILE",
	  "the lock to write (default pylock.toml)" },
	{ "fetch-hashes", 0, NULL, WP_OPT_FLAG, O(fetch_hashes), NULL,
	  "download the files the index gives no sha256 for, to hash them (a lock must name each hash)" },
	FULL_OPT,
	TESTCASE_OPT,
	COMMON_OPTS,
	JSON_OPT,
	EXPLAIN_OPT,
	WP_OPT_END,
};

const struct wp_opt wp_bundle_table[] = {
	TARGET_OPTS,
	INDEX_OPTS,
	WHEEL_SOURCE_OPTS,
	{ "channel", 'c', NULL, WP_OPT_LIST, O(channel), "NAME|URL",
	  "a conda channel (implies --conda); a .txt file after -c is a constraints file, as with pip" },
	{ "conda", 0, NULL, WP_OPT_FLAG, O(conda), NULL,
	  "bundle conda packages: the closure as a local channel under channel/, its locks (explicit-<subdir>.txt, "
	  "environment.yml) and an install.sh that runs 'conda create --offline' from the lock" },
	{ "allow-missing", 0, NULL, WP_OPT_FLAG, O(allow_missing), NULL,
	  "conda: bundle the channel even when a dependency is in no channel given (the locks say which)" },
	REQ_OPTS,
	{ "split", 0, NULL, WP_OPT_STR, O(split), "SIZE",
	  "write volumes of at most SIZE (700M, 4G, 4000000000): OUT.001, OUT.002 ... (join: cat OUT.* | tar --zstd -x)" },
	{ "since", 0, NULL, WP_OPT_STR, O(since), "OLD",
	  "a delta: only what the far side lacks against OLD (an earlier bundle, its volumes, or a manifest from "
	  "'verify --manifest'), with a manifest chained to it; 'wheelpick apply' lays it on there" },
	{ "s3-endpoint", 0, NULL, WP_OPT_STR, O(s3_endpoint), "URL",
	  "for s3://BUCKET/[PREFIX/]OUT.tar.zst: the S3-compatible endpoint (else AWS_ENDPOINT_URL, else AWS)" },
	{ "s3-acl", 0, NULL, WP_OPT_STR, O(s3_acl), "ACL",
	  "for s3://...: a canned ACL on the bundle (public-read)" },
	SBOM_OPT,
	COMMON_OPTS,
	JSON_OPT,
	WP_OPT_END,
};
#undef O

static bool is_url(const char *s)
{
	return strstr(s, "://") != NULL;
}

void wp_pick_opts_split_c(struct wp_pick_opts *o)
{
	size_t keep = 0;
	for (size_t i = 0; i < o->channel.n; i++) {
		const char *v = o->channel.v[i];
		size_t n = strlen(v);
		struct wp_os_stat st;
		bool file = !is_url(v) && ((n > 4 && !strcmp(v + n - 4, ".txt")) ||
					   (wp_os_stat(v, &st) == 0 && WP_S_ISREG(st.st_mode)));
		if (file)
			wp_strlist_push(&o->constraint, v);
		else
			o->channel.v[keep++] = v;
	}
	o->channel.n = keep;
}

bool wp_pick_opts_is_conda(const struct wp_pick_opts *o)
{
	return o->conda || o->channel.n;
}

int wp_pick_opts_check_platforms(const struct wp_strlist *platforms, bool conda, struct wp_err *err)
{
	const char *env = wp_envp_get(wp_os_environ(), "WHEELPICK_PLATFORM");
	size_t n = platforms->n ? platforms->n : env && *env ? 1 : 0;
	for (size_t i = 0; i < n; i++) {
		const char *p = platforms->n ? platforms->v[i] : env;
		struct wp_names could = { 0 };
		if (wp_suggest_platform(p, conda, &could))
			continue;
		struct wp_buf b = WP_BUF_INIT;
		struct wp_strlist l = { 0 };
		for (size_t k = 0; k < could.n; k++)
			wp_strlist_push(&l, could.v[k]);
		wp_suggest_join(&l, &b);
		int rc = wp_fail(err, -WPE_USAGE, "%s '%s' is not a %s; did you mean %s? (%s)",
				 platforms->n ? "--platform" : "WHEELPICK_PLATFORM", p,
				 conda ? "conda platform (a subdir such as linux-64)" :
					 "wheel platform tag",
				 b.data,
				 conda ? "conda's subdirs: linux-64, linux-aarch64, osx-arm64, osx-64, win-64" :
					 "'wheelpick tags --platform TAG' lists what a tag accepts");
		wp_buf_free(&b);
		wp_strlist_release(&l);
		wp_names_release(&could);
		return rc;
	}
	return 0;
}

static void target_spec(const struct wp_pick_opts *o, bool conda, struct wp_target_spec *t)
{
	*t = (struct wp_target_spec){
		.cuda = o->cuda,
		.driver = o->driver,
		.python = o->python,
		.platform = o->platform,
		.target_files = o->target,
		.gpu = o->gpu,
		.rocm = o->rocm,
		.cuda_compat = o->cuda_compat,
		.xpu = o->xpu,
		.conda = conda,
		.gfx = o->gfx,
		.intel_ip = o->intel_ip,
		.x86_64_level = o->x86_64_level,
	};
}

static int read_file(void *ctx, const char *path, struct wp_buf *out, struct wp_err *err)
{
	int rc = wp_file_read_capped(path, out->max ? out->max : WP_REQFILE_MAX_BYTES, out, err);
	if (rc == -WPE_TOO_BIG)
		wp_err_prefix(err, "a requirements file is read up to %d MiB",
			      WP_REQFILE_MAX_BYTES >> 20);
	return rc;
}

static const char *env_fn(void *ctx, const char *name)
{
	return wp_envp_get(wp_os_environ(), name);
}

/* The requirement files into o: requirements, constraints, sources, hashes per project. */
static int read_files(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
		      struct wp_err *err)
{
	struct wp_reqfile_io io = { .read = read_file, .lookup_var = env_fn, .asks = &wp_cli_asks };
	int rc;
	for (size_t i = 0; i < o->icfg.index.n; i++)
		wp_strlist_push(&o->sources, o->icfg.index.v[i]);
	for (size_t i = 0; i < o->icfg.find_links.n; i++)
		wp_strlist_push(&o->find_links_all, o->icfg.find_links.v[i]);
	for (size_t i = 0; i < o->requirement.n; i++)
		if ((rc = wp_reqfile_load(&o->rf, o->requirement.v[i], false, &io, err)))
			return rc;
	for (size_t i = 0; i < o->constraint.n; i++)
		if ((rc = wp_reqfile_load(&o->rf, o->constraint.v[i], true, &io, err)))
			return rc;
	for (size_t i = 0; i < o->rf.notes.n; i++)
		wp_cli_note(cli, "%s", o->rf.notes.v[i]);
	if ((rc = wp_reqfile_check_hashes(&o->rf, o->require_hashes, err)))
		return rc;
	bool hash_mode = o->require_hashes || o->rf.require_hashes;
	for (size_t i = 0; i < o->rf.reqs.n && !hash_mode; i++)
		hash_mode = !o->rf.reqs.v[i].constraint && o->rf.reqs.v[i].nhashes;
	if (hash_mode && reqs->n)
		return wp_fail(err, -WPE_USAGE,
			       "'%s' on the command line has no --hash, and the requirements are hash-checked "
			       "(as pip does); put it in the file with its hashes",
			       reqs->v[0]);
	size_t hashes_cap = o->n_hashes; /* what o->hashes holds at least */
	for (size_t i = 0; i < o->rf.reqs.n; i++) {
		struct wp_reqfile_req *q = &o->rf.reqs.v[i];
		/* the line's one parse moves into the job's list */
		wp_vec_push(q->constraint ? &o->cons : &o->all_reqs, q->req);
		memset(&q->req, 0, sizeof(q->req));
		if (!q->nhashes)
			continue;
		/* one allow-list per project: every line that names it adds its hashes */
		struct wp_solve_hashes *h = NULL;
		for (size_t k = 0; k < o->n_hashes && !h; k++)
			if (!strcmp(o->hashes[k].project, q->project))
				h = &o->hashes[k];
		if (!h) {
			size_t k = wp_vec_push_fields(o->hashes, o->n_hashes, hashes_cap,
						      (struct wp_solve_hashes){
							      .project = q->project });
			h = &o->hashes[k];
		}
		const char **v = wp_xrealloc((void *)h->sha256, (h->n + q->nhashes) * sizeof(*v));
		for (size_t k = 0; k < q->nhashes; k++)
			v[h->n + k] = q->hashes[k];
		h->sha256 = v;
		h->n += q->nhashes;
	}
	for (size_t i = 0; i < o->rf.sources.n; i++) {
		const struct wp_reqfile_source *s = &o->rf.sources.v[i];
		if ((o->rf.no_index || o->no_index) && s->kind != WP_REQFILE_FIND_LINKS) {
			wp_cli_debug(cli, "%s: --no-index: not reading %s", s->where, s->url);
			continue;
		}
		wp_strlist_push(s->kind == WP_REQFILE_FIND_LINKS ? &o->find_links_all : &o->sources,
				s->url);
	}
	if (o->requirement.n && !o->all_reqs.n)
		return wp_fail(err, -WPE_USAGE,
			       "'%s' names no requirement (only options or constraints)",
			       o->requirement.v[0]);
	return 0;
}

int wp_pick_opts_tls(struct wp_cli *cli, struct wp_pick_opts *o, struct wp_err *err)
{
	/* as the job will take them: pip's and uv's configuration for wheels, the command line
	 * alone for conda (wp_pick_opts_conda_job) */
	bool conda = wp_pick_opts_is_conda(o);
	struct wp_index_given g = {
		.cert = o->cert, .client_cert = o->client_cert, .trusted_host = o->trusted_host,
		.isolated = conda || o->isolated, .envp = wp_os_environ(), .creds = &cli->net.creds,
	};
	if (!conda) {
		g.index_url = o->index_url, g.index = o->index, g.extra = o->extra_index,
		g.find_links = o->find_links;
		g.no_index = o->no_index;
	}
	struct wp_index_config c = { 0 };
	int rc = wp_index_config_resolve(&g, &c, err);
	if (!rc)
		wp_cli_net_apply(&cli->net, &c);
	wp_index_config_release(&c);
	return rc;
}

int wp_pick_opts_indexes(struct wp_cli *cli, struct wp_pick_opts *o, struct wp_err *err)
{
	struct wp_index_given g = {
		.index_url = o->index_url,
		.index = o->index,
		.extra = o->extra_index,
		.find_links = o->find_links,
		.trusted_host = o->trusted_host,
		.cert = o->cert,
		.client_cert = o->client_cert,
		.no_index = o->no_index,
		.isolated = o->isolated,
		.envp = wp_os_environ(),
		.creds = &cli->net.creds,
	};
	int rc = wp_index_config_resolve(&g, &o->icfg, err);
	/* the TLS settings and pip's timeout join the run's network settings (handed down, not
	 * set) */
	if (!rc)
		wp_cli_net_apply(&cli->net, &o->icfg);
	for (size_t i = 0; i < o->icfg.warnings.n; i++)
		wp_cli_warn(cli, "%s", o->icfg.warnings.v[i]);
	if (rc)
		return rc;
	for (size_t i = 0; i < o->icfg.trusted_host.n; i++)
		wp_cli_warn(cli,
			    "the TLS certificate of '%s' is not checked (--trusted-host); file hashes still are",
			    o->icfg.trusted_host.v[i]);
	for (size_t i = 0; i < o->icfg.shown.n; i++)
		wp_cli_debug(cli, "index: %s (from %s)", o->icfg.shown.v[i],
			     o->icfg.shown_from.v[i]);
	/* pip's own line, for a pip user comparing the two tools */
	for (int links = 0; links < 2; links++) {
		const struct wp_strlist *l = links ? &o->icfg.looking_links : &o->icfg.looking;
		struct wp_buf b = WP_BUF_INIT;
		for (size_t i = 0; i < l->n; i++) {
			if (i)
				wp_buf_addstr(&b, ", ");
			wp_buf_addstr(&b, l->v[i]);
		}
		if (l->n)
			wp_cli_debug(cli, "Looking in %s: %s", links ? "links" : "indexes",
				     wp_buf_cstr(&b));
		wp_buf_free(&b);
	}
	return 0;
}

/* Is url under one of the sources (a page itself, or a root's page)? */
static bool covered(const char *url, const struct wp_sources *by)
{
	for (size_t i = 0; i < by->n; i++)
		if (!strncmp(url, by->urls[i], strlen(by->urls[i])))
			return true;
	return false;
}

void wp_pick_opts_sources_used(struct wp_pick_opts *o, struct wp_pick_run *run)
{
	struct wp_err e = WP_ERR_INIT;
	struct wp_strlist used = { 0 };
	struct wp_sources shown = { 0 }, files = { 0 };
	if (o->lock) {
		/* the lock names each file by URL: no index was read */
		o->used_from = wp_xasprintf("%s: the files are its own URLs", o->lock);
		return;
	}
	/* the indexes in force, their userinfo dropped first: a shown URL's is "***", which once
	 * replaced the real credentials and every download from that host was refused (t-auth);
	 * these sources have no creds store, so nothing they hold reaches a transfer */
	for (size_t i = 0; i < o->icfg.shown.n; i++) {
		char *bare = wp_url_strip_userinfo(o->icfg.shown.v[i]);
		wp_sources_add_index(&shown, bare);
		free(bare);
	}
	for (size_t i = 0; i < o->rf.sources.n; i++)
		if (o->rf.sources.v[i].kind == WP_REQFILE_FIND_LINKS)
			wp_sources_add_findlinks(&files, o->rf.sources.v[i].url);
		else
			wp_sources_add_index(&files, o->rf.sources.v[i].url);
	struct wp_strlist prefer = { 0 };
	for (size_t i = 0; i < shown.n; i++)
		wp_strlist_push(&prefer, shown.urls[i]);
	for (size_t i = 0; i < files.n; i++)
		wp_strlist_push(&prefer, files.urls[i]);
	int urc = wp_pick_sources_used(run, &prefer, &used, &e);
	wp_strlist_release(&prefer);
	if (urc == 0 && used.n) {
		bool all = true, any = false, from_file = false, from_catalog = false;
		for (size_t i = 0; i < used.n; i++) {
			bool in_force = covered(used.v[i], &shown);
			all = all && in_force;
			any = any || in_force;
			if (!in_force && covered(used.v[i], &files))
				from_file = true;
			else if (!in_force)
				from_catalog = true;
		}
		if (!all) {
			o->used = used;
			memset(&used, 0, sizeof(used));
			struct wp_buf from = WP_BUF_INIT;
			if (any)
				wp_buf_addstr(&from,
					      o->icfg.origin ? o->icfg.origin : "the default");
			if (from_file)
				wp_buf_printf(&from, "%sthe requirement file's index options",
					      from.len ? " and " : "");
			if (from_catalog)
				wp_buf_printf(&from, "%sthe catalog, read before",
					      from.len ? " and " : "");
			o->used_from = wp_buf_detach(&from, NULL);
		}
	}
	for (size_t i = 0; i < used.n; i++)
		free((char *)used.v[i]);
	wp_strlist_release(&used);
	wp_sources_release(&shown);
	wp_sources_release(&files);
}

void wp_pick_opts_print_index(const struct wp_pick_opts *o)
{
	const struct wp_index_config *c = &o->icfg;
	if (o->used_from) {
		/* what the picks came from, when that is not the indexes in force */
		fputs("index: ", stdout);
		for (size_t i = 0; i < o->used.n; i++) {
			if (i)
				fputs(", ", stdout);
			wp_fputs_shown(o->used.v[i], stdout);
		}
		if (!o->used.n)
			fputs("none read", stdout);
		fputs(" (from ", stdout);
		wp_fputs_shown(o->used_from, stdout);
		fputs(")\n", stdout);
		return;
	}
	if (!c->shown.n)
		return;
	/* "index: A, B (from X), C (from Y)": each run of indexes with where it came from */
	fputs("index: ", stdout);
	for (size_t i = 0; i < c->shown.n; i++) {
		if (i)
			fputs(", ", stdout);
		wp_fputs_shown(c->shown.v[i], stdout);
		if (i + 1 == c->shown.n || strcmp(c->shown_from.v[i], c->shown_from.v[i + 1]) != 0)
			printf(" (from %s)", c->shown_from.v[i]);
	}
	fputc('\n', stdout);
}

/* With several indexes in play: which one each project came from, one line per index. */
static void print_plan_indexes(const struct wp_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		const char *idx = plan->files[i].index;
		bool seen = !idx;
		for (size_t k = 0; k < i && !seen; k++)
			seen = plan->files[k].index && !strcmp(plan->files[k].index, idx);
		if (seen)
			continue;
		fputs("from ", stdout);
		wp_fputs_shown(idx, stdout);
		fputs(":", stdout);
		for (size_t k = i; k < plan->n; k++) {
			bool dup = false;
			if (!plan->files[k].index || strcmp(plan->files[k].index, idx) != 0)
				continue;
			for (size_t m = i; m < k && !dup; m++)
				dup = plan->files[m].index && !strcmp(plan->files[m].index, idx) &&
				      !strcmp(plan->files[m].project, plan->files[k].project);
			if (!dup)
				printf(" %s", plan->files[k].project);
		}
		fputc('\n', stdout);
	}
}

void wp_pick_opts_print_plan(const struct wp_pick_opts *o, const struct wp_plan *plan, bool json,
			     bool explain)
{
	const struct wp_index_config *c = &o->icfg;
	if (!json) {
		wp_pick_opts_print_index(o);
		wp_print_plan(plan, false, explain);
		if (c->shown.n > 1)
			print_plan_indexes(plan);
		return;
	}
	/* the plan's document with "index" first: where the indexes came from, and which */
	char *doc = NULL, *idx = NULL;
	size_t dn = 0, in = 0;
	FILE *m = open_memstream(&doc, &dn), *mi = open_memstream(&idx, &in);
	if (!m || !mi) {
		if (m)
			fclose(m);
		if (mi)
			fclose(mi);
		free(doc);
		free(idx);
		wp_print_plan(plan, true, explain);
		return;
	}
	wp_plan_write_json(plan, explain, m);
	fclose(m);
	struct wp_json j;
	wp_json_init_indent(&j, NULL);
	wp_json_obj(&j);
	wp_json_kstr(&j, "from",
		     o->used_from ? o->used_from :
		     c->origin    ? c->origin :
				    "the default");
	wp_json_key(&j, "urls");
	wp_json_arr(&j);
	const struct wp_strlist *urls = o->used_from ? &o->used : &c->shown;
	for (size_t i = 0; i < urls->n; i++)
		wp_json_str(&j, urls->v[i]);
	wp_json_arr_end(&j);
	wp_json_key(&j, "sources"); /* each index with where it came from, in the order they are
				       asked */
	wp_json_arr(&j);
	for (size_t i = 0; i < c->shown.n; i++) {
		wp_json_obj(&j);
		wp_json_kstr(&j, "url", c->shown.v[i]);
		wp_json_kstr(&j, "from", c->shown_from.v[i]);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	wp_json_finish(&j, mi);
	fclose(mi);
	char *brace = doc ? strchr(doc, '{') : NULL;
	size_t il = idx ? strcspn(idx, "\n") : 0;
	if (brace && il)
		printf("{\n  \"index\": %.*s,%s", (int)il, idx, brace + 1);
	else if (doc)
		fputs(doc, stdout);
	free(doc);
	free(idx);
}

/* --sbom: which documents every output carries (CycloneDX always). */
static int sbom_formats(struct wp_cli *cli, const struct wp_pick_opts *o, struct wp_err *err)
{
	if (!o->sbom || !strcmp(o->sbom, "cyclonedx") || !strcmp(o->sbom, "cdx"))
		cli->session.sbom_spdx = false;
	else if (!strcmp(o->sbom, "spdx") || !strcmp(o->sbom, "both"))
		cli->session.sbom_spdx = true;
	else
		return wp_fail(err, -WPE_USAGE, "--sbom '%s' is not one of cyclonedx, spdx, both",
			       o->sbom);
	return 0;
}

int wp_pick_opts_job(struct wp_cli *cli, struct wp_pick_opts *o, const struct wp_strlist *reqs,
		     struct wp_pick_job *job, struct wp_err *err)
{
	int rc;
	memset(job, 0, sizeof(*job));
	if ((rc = sbom_formats(cli, o, err)))
		return rc;
	if (o->allow_missing)
		return wp_fail(err, -WPE_USAGE,
			       "--allow-missing is for conda channels (with --conda or -c CHANNEL)");
	/* the command line's requirements are parsed here once, into all_reqs (the files'
	 * follow) */
	if ((rc = wp_pick_opts_check_platforms(&o->platform, false, err)) ||
	    (rc = wp_suggest_check_reqs(reqs, false, &o->all_reqs, err)) ||
	    (rc = wp_pick_opts_indexes(cli, o, err)) || (rc = read_files(cli, o, reqs, err)))
		return rc;
	cli->info_as_debug = true; /* the sources a pick reads are said with -v */
	job->reqs = o->all_reqs;
	target_spec(o, false, &job->targets);
	job->index = o->sources;
	job->find_links = o->find_links_all;
	job->index_for = o->index_for;
	job->constraints = o->cons;
	job->hashes = o->hashes;
	job->n_hashes = o->n_hashes;
	job->no_deps = o->no_deps, job->pre = o->pre || o->rf.pre, job->explain = o->explain;
	job->offline = o->offline, job->refresh = o->refresh;
	job->dry_run = o->dry_run, job->allow_full_downloads = o->allow_full_downloads;
	job->fetch_hashes = o->fetch_hashes;
	job->testcase = o->write_testcase;
	/* the flag, else uv's UV_INDEX_STRATEGY or uv.toml's index-strategy */
	const char *strategy = o->index_strategy ? o->index_strategy : o->icfg.index_strategy;
	const char *named = o->index_strategy ? "--index-strategy" : "uv's index-strategy";
	if (!strategy || !strcmp(strategy, "first-index") || !strcmp(strategy, "first-match"))
		job->strategy = WP_INDEX_FIRST;
	else if (!strcmp(strategy, "unsafe-best-match"))
		job->strategy = WP_INDEX_BEST_MATCH;
	else if (!strcmp(strategy, "unsafe-first-match"))
		return wp_fail(err, -WPE_USAGE,
			       "%s 'unsafe-first-match' (uv's) is not supported yet; use first-index "
			       "or unsafe-best-match",
			       named);
	else
		return wp_fail(err, -WPE_USAGE,
			       "%s '%s' is not one of first-index, unsafe-best-match", named,
			       strategy);
	return 0;
}

int wp_pick_opts_conda_job(struct wp_cli *cli, struct wp_pick_opts *o,
			   const struct wp_strlist *reqs, const char *dest,
			   struct wp_conda_job *job, struct wp_err *err)
{
	const char *bad = o->index_for.n    ? "--index-for" :
			  o->pre            ? "--pre" :
			  o->explain        ? "--explain" :
			  o->index_strategy ? "--index-strategy" :
			  o->write_testcase ? "--write-testcase" :
					      NULL;
	int rc;
	if ((rc = sbom_formats(cli, o, err)))
		return rc;
	if (bad)
		return wp_fail(err, -WPE_USAGE,
			       "%s does not apply to conda packages; conda channels are in strict priority "
			       "(order them with -c)",
			       bad);
	if (o->requirement.n || o->constraint.n || o->require_hashes)
		return wp_fail(err, -WPE_USAGE,
			       "%s reads pip's format, for wheels; for conda, give the specs on the command "
			       "line ('pytorch=1.8' 'torchvision')",
			       o->requirement.n ? "-r" :
			       o->constraint.n  ? "a constraints file" :
						  "--require-hashes");
	if ((rc = wp_pick_opts_check_platforms(&o->platform, true, err)) ||
	    (rc = wp_suggest_check_reqs(reqs, true, NULL, err)))
		return rc;
	/* conda reads no pip configuration, but TLS settings given on the command line (a company
	 * CA, a client certificate, a host whose certificate is not checked) hold for channels
	 * too */
	struct wp_index_given tls = {
		.cert = o->cert,
		.client_cert = o->client_cert,
		.trusted_host = o->trusted_host,
		.isolated = true,
		.creds = &cli->net.creds,
	};
	struct wp_index_config tc;
	rc = wp_index_config_resolve(&tls, &tc, err); /* reads no pip file */
	if (!rc)
		wp_cli_net_apply(&cli->net, &tc);
	wp_index_config_release(&tc);
	if (rc)
		return rc;
	for (size_t i = 0; i < o->trusted_host.n; i++) {
		wp_cli_warn(cli,
			    "the TLS certificate of '%s' is not checked (--trusted-host); package hashes still are",
			    o->trusted_host.v[i]);
	}
	memset(job, 0, sizeof(*job));
	job->reqs = *reqs;
	target_spec(o, true, &job->targets);
	job->channels = o->channel;
	job->index = o->index;
	job->no_deps = o->no_deps, job->offline = o->offline, job->refresh = o->refresh;
	job->allow_missing = o->allow_missing;
	job->dest = dest;
	return 0;
}

/* --offline: no page was asked for, so none can be said to be missing: the catalog is all there is.
 * Names the first --index or -f as crawled (a path becomes a file:// URL). */
static void offline_nothing(const struct wp_pick_job *job, const char *name, struct wp_err *err)
{
	struct wp_sources given = { 0 };
	for (size_t i = 0; i < job->index.n; i++)
		wp_sources_add_index(&given, job->index.v[i]);
	for (size_t i = 0; i < job->find_links.n; i++)
		wp_sources_add_findlinks(&given, job->find_links.v[i]);
	snprintf(err->msg, sizeof(err->msg),
		 "the catalog has nothing for '%s', and --offline forbids fetching its "
		 "pages; run 'wheelpick update%s%s' online first (or pick without --offline)",
		 name, given.n ? " --index " : "", given.n ? given.urls[0] : "");
	wp_sources_release(&given);
}

/* plan failed (rc) on a project the catalog has nothing for. */
static bool unlisted(struct wp_catalog *cat, const struct wp_plan *plan, int rc)
{
	const char *name = plan->failed_project;
	struct wp_err e = WP_ERR_INIT;
	bool has = true;
	if (rc != -WPE_NOMATCH || !name || plan->n_failed_rejects || !cat->db)
		return false;
	struct wp_buf canon = WP_BUF_INIT;
	wp_project_name_normalize(name, strlen(name), &canon);
	bool none = wp_catalog_has_project(cat, canon.data, false, &has, &e) == 0 && !has;
	wp_buf_free(&canon);
	return none;
}

void wp_pick_opts_hint_offline(const struct wp_pick_job *job, struct wp_catalog *cat,
			       const struct wp_plan *plan, int rc, struct wp_err *err)
{
	if (job->offline && unlisted(cat, plan, rc))
		offline_nothing(job, plan->failed_project, err);
}

void wp_pick_opts_hint_project(struct wp_cli *cli, const struct wp_pick_job *job,
			       struct wp_pick_run *run, int rc, struct wp_err *err)
{
	const char *name = run->plan.failed_project;
	struct wp_err e = WP_ERR_INIT;
	bool has = true;
	if (rc != -WPE_NOMATCH || !name || run->plan.n_failed_rejects || !run->cat.db)
		return;
	struct wp_buf canon = WP_BUF_INIT;
	wp_project_name_normalize(name, strlen(name), &canon);
	if (wp_catalog_has_project(&run->cat, canon.data, false, &has, &e) || has) {
		wp_buf_free(&canon);
		return;
	}
	/* the roots in play, spelled as crawled (a path becomes a file:// URL) */
	struct wp_sources given = { 0 }, roots = { 0 };
	struct wp_strlist urls = { 0 }, all = { 0 };
	for (size_t i = 0; i < job->index.n; i++)
		wp_sources_add_index(&given, job->index.v[i]);
	for (size_t i = 0; i < job->find_links.n; i++)
		wp_sources_add_findlinks(&given, job->find_links.v[i]);
	for (size_t i = 0; i < given.n; i++)
		wp_strlist_push(&all, given.urls[i]);
	if (given.n)
		wp_sources_dependency_roots(wp_os_environ(), &all, &roots);
	if (job->offline) {
		/* no page was asked for, so none can be said to be missing: the catalog is all
		 * there is */
		offline_nothing(job, name, err);
	} else if (given.n && !roots.n) {
		/* only links pages: nothing could be asked for a project they do not list */
		struct wp_buf b = WP_BUF_INIT;
		for (size_t i = 0; i < given.n && i < 3; i++)
			wp_buf_printf(&b, "%s%s", i ? ", " : "", given.urls[i]);
		if (given.n > 3)
			wp_buf_printf(&b, " and %zu more", given.n - 3);
		snprintf(err->msg, sizeof(err->msg),
			 "'%s' is on none of the pages given, and no index is in play to ask for it: only --find-links pages "
			 "(%s); add the index that has it with --index-url URL or --extra-index-url URL",
			 name, wp_buf_cstr(&b));
		wp_buf_free(&b);
	} else if (given.n) {
		/* every root was asked for ROOT/<name>/ and answered that it has no such project */
		struct wp_buf b = WP_BUF_INIT;
		for (size_t i = 0; i < roots.n && i < 3; i++)
			wp_buf_printf(&b, "%s%s%s/", i ? ", " : "", roots.urls[i], canon.data);
		if (roots.n > 3)
			wp_buf_printf(&b, " and %zu more", roots.n - 3);
		snprintf(err->msg, sizeof(err->msg),
			 "'%s' is on none of the indexes in play (no page at %s); check the name, or add the index that "
			 "has it with --extra-index-url URL",
			 name, wp_buf_cstr(&b));
		wp_buf_free(&b);
	}
	wp_strlist_release(&all);
	wp_sources_release(&roots);
	for (size_t i = 0; i < given.n; i++)
		wp_strlist_push(&urls, given.urls[i]);
	struct wp_names close = { 0 };
	if (wp_suggest_projects(&cli->session, &run->cat, &urls, job->offline, false, canon.data,
				&close, &e) == 0 &&
	    close.n) {
		struct wp_buf b = WP_BUF_INIT;
		struct wp_strlist l = { 0 };
		for (size_t i = 0; i < close.n; i++)
			wp_strlist_push(&l, close.v[i]);
		wp_suggest_join(&l, &b);
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s; did you mean %s?", err->msg, b.data);
		snprintf(err->msg, sizeof(err->msg), "%s", msg);
		wp_strlist_release(&l);
		wp_buf_free(&b);
	}
	wp_names_release(&close);
	wp_strlist_release(&urls);
	wp_sources_release(&given);
	wp_buf_free(&canon);
}

void wp_pick_opts_release(struct wp_pick_opts *o)
{
	struct wp_strlist *lists[] = { &o->cuda,          &o->driver,     &o->python,
				       &o->platform,      &o->gpu,        &o->target,
				       &o->index,         &o->channel,    &o->index_for,
				       &o->requirement,   &o->constraint, &o->sources,
				       &o->gfx,           &o->intel_ip,   &o->index_url,
				       &o->extra_index,   &o->find_links, &o->trusted_host,
				       &o->find_links_all };
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		wp_strlist_release(lists[i]);
	wp_reqs_release(&o->all_reqs);
	wp_reqs_release(&o->cons);
	wp_strlist_release(&o->lock_extra);
	wp_strlist_release(&o->lock_group);
	for (size_t i = 0; i < o->n_hashes; i++)
		free((void *)o->hashes[i].sha256);
	free(o->hashes);
	wp_reqfile_release(&o->rf);
	wp_index_config_release(&o->icfg);
	for (size_t i = 0; i < o->used.n; i++)
		free((char *)o->used.v[i]);
	wp_strlist_release(&o->used);
	free(o->used_from);
}
