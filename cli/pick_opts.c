/* cli/pick_opts.c: the option tables of pick, mirror and bundle, and the jobs they make. */
#include "cli/pick_opts.h"

#include <stddef.h>
#include <string.h>

#define O(f) offsetof(struct wp_pick_opts, f)
#define TARGET_OPTS                                                                                                \
	{ "cuda", 0, NULL, WP_OPT_LIST, O(cuda), "X.Y|auto|cpu",                                                         \
	  "a driver whose newest CUDA is X.Y (default auto: this machine's driver); cpu for CPU builds" },              \
	{ "driver", 0, NULL, WP_OPT_LIST, O(driver), "VERSION", "the NVIDIA driver itself, e.g. 535.104.05" },          \
	{ "cuda-compat", 0, NULL, WP_OPT_STR, O(cuda_compat), "minor|strict",                                            \
	  "minor (default): CUDA X.y builds run on any X.x driver past NVIDIA's floor; strict: none newer than it" },   \
	{ "rocm", 0, NULL, WP_OPT_STR, O(rocm), "X.Y", "pick ROCm X.Y builds" },                                         \
	{ "xpu", 0, NULL, WP_OPT_FLAG, O(xpu), NULL, "pick Intel GPU (XPU) builds" },                                    \
	{ "python", 0, "python-version", WP_OPT_LIST, O(python), "X.Y[t]|auto",                                          \
	  "the target's Python; 3.13t is the free-threaded build (default auto)" },                                    \
	{ "platform", 0, NULL, WP_OPT_LIST, O(platform), "TAG|auto",                                                     \
	  "the target's most specific platform tag; one target each (default auto)" },                                  \
	{ "gpu", 0, NULL, WP_OPT_LIST, O(gpu), "sm_86|8.6|NAME|gfxN",                                                     \
	  "a GPU the build must have kernels for: an architecture, a name (\"RTX 3090\", A100), an AMD gfx (default: detected)" }, \
	{ "target", 0, NULL, WP_OPT_LIST, O(target), "FILE", "a saved 'detect --json' profile; one target each" }
#define SOURCE_OPTS                                                                                                \
	{ "index", 'i', "index-url|extra-index-url", WP_OPT_LIST, O(index), "URL",                                       \
	  "a source to pick from (added to the catalog if missing or stale)" },                                         \
	{ "find-links", 'f', NULL, WP_OPT_LIST, O(index), "URL", "same as --index" },                                    \
	{ "index-for", 0, NULL, WP_OPT_LIST, O(index_for), "PROJECT=URL",                                                \
	  "take PROJECT only from the index at URL (by default a project comes from the first index that has it)" },     \
	{ "index-strategy", 0, NULL, WP_OPT_STR, O(index_strategy), "first-index|unsafe-best-match",                     \
	  "first-index (default): a project comes from the first index that lists it; unsafe-best-match: from all" },    \
	{ "channel", 'c', NULL, WP_OPT_LIST, O(channel), "NAME|URL", "a conda channel (implies --conda)" },               \
	{ "conda", 0, NULL, WP_OPT_FLAG, O(conda), NULL, "pick conda packages" },                                        \
	{ "allow-missing", 0, NULL, WP_OPT_FLAG, O(allow_missing), NULL,                                                 \
	  "conda: write the channel though dependencies are in no channel given (the locks say so)" }
#define RESOLVE_OPTS                                                                                               \
	{ "no-deps", 0, NULL, WP_OPT_FLAG, O(no_deps), NULL, "only what was named, not its dependencies" },            \
	{ "json", 0, NULL, WP_OPT_FLAG, O(json), NULL, "the picks as JSON on stdout" },                                  \
	{ "explain", 0, NULL, WP_OPT_FLAG, O(explain), NULL, "every rejected file, and why" },                           \
	{ "pre", 0, NULL, WP_OPT_FLAG, O(pre), NULL, "allow pre-releases" },                                             \
	{ "offline", 0, NULL, WP_OPT_FLAG, O(offline), NULL, "use the catalog and the file cache only" },                \
	{ "refresh", 0, NULL, WP_OPT_FLAG, O(refresh), NULL, "re-check --index sources even if fresh" }

const struct wp_opt wp_pick_table[] = {
	TARGET_OPTS,
	SOURCE_OPTS,
	{ "dest", 'd', NULL, WP_OPT_STR, O(dest), "DIR", "the wheelhouse to write (default ./wheelhouse)" },
	{ "dry-run", 'n', NULL, WP_OPT_FLAG, O(dry_run), NULL, "say what would be picked; fetch nothing" },
	RESOLVE_OPTS,
	WP_OPT_END,
};

const struct wp_opt wp_mirror_table[] = {
	TARGET_OPTS,
	SOURCE_OPTS,
	{ "dry-run", 'n', NULL, WP_OPT_FLAG, O(dry_run), NULL, "say what would be mirrored; fetch nothing" },
	{ "prune", 0, NULL, WP_OPT_FLAG, O(prune), NULL, "remove files the targets no longer need" },
	RESOLVE_OPTS,
	WP_OPT_END,
};

const struct wp_opt wp_matrix_table[] = {
	TARGET_OPTS,
	SOURCE_OPTS,
	RESOLVE_OPTS,
	WP_OPT_END,
};

const struct wp_opt wp_lock_table[] = {
	TARGET_OPTS,
	SOURCE_OPTS,
	{ "output", 'o', NULL, WP_OPT_STR, O(output), "FILE", "the lock to write (default pylock.toml)" },
	RESOLVE_OPTS,
	WP_OPT_END,
};

const struct wp_opt wp_bundle_table[] = {
	TARGET_OPTS,
	SOURCE_OPTS,
	RESOLVE_OPTS,
	WP_OPT_END,
};
#undef O

bool wp_pick_opts_is_conda(const struct wp_pick_opts *o)
{
	return o->conda || o->channel.n;
}

static void target_spec(const struct wp_pick_opts *o, bool conda, struct wp_target_spec *t)
{
	*t = (struct wp_target_spec){
		.cuda = o->cuda, .driver = o->driver, .python = o->python, .platform = o->platform,
		.target_files = o->target, .gpu = o->gpu, .rocm = o->rocm, .cuda_compat = o->cuda_compat, .xpu = o->xpu,
		.conda = conda,
	};
}

int wp_pick_opts_job(const struct wp_pick_opts *o, const struct wp_strlist *reqs, struct wp_pick_job *job,
		     struct wp_err *err)
{
	memset(job, 0, sizeof(*job));
	job->reqs = *reqs;
	target_spec(o, false, &job->targets);
	job->index = o->index;
	job->index_for = o->index_for;
	job->no_deps = o->no_deps, job->pre = o->pre, job->explain = o->explain;
	job->offline = o->offline, job->refresh = o->refresh;
	if (!o->index_strategy || !strcmp(o->index_strategy, "first-index") || !strcmp(o->index_strategy, "first-match"))
		job->strategy = WP_INDEX_FIRST;
	else if (!strcmp(o->index_strategy, "unsafe-best-match"))
		job->strategy = WP_INDEX_BEST_MATCH;
	else
		return wp_fail(err, -WPE_USAGE, "--index-strategy '%s' is not one of first-index, unsafe-best-match",
			       o->index_strategy);
	return 0;
}

int wp_pick_opts_conda_job(const struct wp_pick_opts *o, const struct wp_strlist *reqs, const char *dest,
			   struct wp_conda_job *job, struct wp_err *err)
{
	const char *bad = o->index_for.n ? "--index-for" : o->pre ? "--pre" : o->explain ? "--explain"
						       : o->index_strategy ? "--index-strategy" : NULL;
	if (bad)
		return wp_fail(err, -WPE_USAGE, "%s does not apply to conda packages; conda channels are in strict priority "
						"(order them with -c)", bad);
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

void wp_pick_opts_release(struct wp_pick_opts *o)
{
	struct wp_strlist *lists[] = { &o->cuda, &o->driver, &o->python, &o->platform, &o->gpu, &o->target, &o->index,
				       &o->channel, &o->index_for };
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		wp_strlist_release(lists[i]);
}
