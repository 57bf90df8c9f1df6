/* cli/common.c: catalog opening, source lists, crawling with a report, targets from flags. */
#include "cli/common.h"
#include "base/mem.h"
#include "base/fs.h"
#include "env/detect.h"
#include "env/profile.h"
#include "ops/crawl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wp_cli_open_catalog(struct wp_cli *cli, struct wp_catalog *cat, struct wp_err *err)
{
	return wp_catalog_open(cat, cli->catalog_path, err);
}

static void push(struct wp_sources *s, char *url)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->urls[i], url)) {
			free(url);
			return;
		}
	s->urls = wp_xrealloc(s->urls, (s->n + 1) * sizeof(*s->urls));
	s->urls[s->n++] = url;
}

static bool has_scheme(const char *u)
{
	return !strncmp(u, "http://", 7) || !strncmp(u, "https://", 8) || !strncmp(u, "file://", 7);
}

/* A local path (pip's --find-links DIR habit) becomes an absolute file:// URL. */
static char *as_url(const char *u)
{
	if (has_scheme(u) || strstr(u, "://"))
		return wp_xstrdup(u);
	if (u[0] == '/')
		return wp_xasprintf("file://%s", u);
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return wp_xasprintf("file://%s", u);
	return wp_xasprintf("file://%s/%s", cwd, u);
}

void wp_sources_add_index(struct wp_sources *s, const char *url)
{
	push(s, as_url(url));
}

void wp_sources_add_channel(struct wp_sources *s, const char *channel, const char *const *subdirs, size_t n)
{
	char *base;
	if (wp_crawl_is_repodata(channel)) {
		push(s, as_url(channel));
		return;
	}
	if (has_scheme(channel) || channel[0] == '/' || channel[0] == '.')
		base = as_url(channel);
	else /* a channel name, as conda's -c takes it */
		base = wp_xasprintf("https://conda.anaconda.org/%s", channel);
	size_t bl = strlen(base);
	while (bl > 0 && base[bl - 1] == '/')
		base[--bl] = 0;
	for (size_t i = 0; i < n; i++)
		push(s, wp_xasprintf("%s/%s/repodata.json", base, subdirs[i]));
	free(base);
}

void wp_sources_release(struct wp_sources *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->urls[i]);
	free(s->urls);
	s->urls = NULL;
	s->n = 0;
}

int wp_cli_crawl(struct wp_cli *cli, struct wp_catalog *cat, const struct wp_sources *src, const char *const *projects,
		 size_t n_projects, bool force, long max_age_s, struct wp_err *err)
{
	struct wp_crawl_report rep;
	char *tmp = wp_cli_cache_dir();
	struct wp_crawl_opts o = { .projects = projects, .n_projects = n_projects, .force = force, .max_age_s = max_age_s };
	struct wp_err tmp_err = WP_ERR_INIT;
	/* repodata downloads go next to the cache, not to a small /tmp */
	char *tmpdir = wp_xasprintf("%s/tmp", tmp);
	if (wp_mkdir_p(tmpdir, 0755, &tmp_err) == 0)
		o.tmp_dir = tmpdir;
	int rc = wp_crawl(cat, (const char *const *)src->urls, src->n, &o, &rep, err);
	bool first_failure = true;
	for (size_t i = 0; i < rep.n; i++) {
		const struct wp_crawl_source *s = &rep.v[i];
		if (s->rc) {
			/* the first failure is the command's error, which main prints */
			if (!first_failure)
				fprintf(stderr, "wheelpick: %s\n", s->error);
			first_failure = false;
			continue;
		}
		if (s->redirected_to)
			wp_cli_note(cli, "'%s' redirected to another host, '%s'; its links were read from there", s->url,
				    s->redirected_to);
		if (s->conflicts)
			wp_cli_warn(cli, "'%s': %llu file(s) now have a different sha256 than first seen; they will not be picked "
					 "until you check the source and run 'wheelpick trust'", s->url, s->conflicts);
		if (s->malformed)
			wp_cli_warn(cli, "'%s': skipped %llu malformed link(s)", s->url, s->malformed);
		if (cli->verbosity >= 0 && (cli->verbosity > 0 || !s->unchanged))
			fprintf(stderr, "wheelpick: %s %s\n", s->unchanged ? "unchanged" : "updated", s->url);
		if (cli->verbosity > 0 && !s->unchanged)
			fprintf(stderr, "           %s: %llu files, %llu other links skipped\n", s->kind, s->files, s->skipped);
	}
	wp_crawl_report_release(&rep);
	free(tmpdir);
	free(tmp);
	return rc;
}

int wp_cli_crawl_quiet(struct wp_cli *cli, struct wp_catalog *cat, const struct wp_sources *src, struct wp_err *err)
{
	struct wp_crawl_report rep;
	struct wp_crawl_opts o = { 0 };
	int rc = wp_crawl(cat, (const char *const *)src->urls, src->n, &o, &rep, err);
	wp_crawl_report_release(&rep);
	return rc;
}

int wp_cli_target(struct wp_cli *cli, const struct wp_target_words *w, struct wp_target *t, struct wp_err *err)
{
	bool need_detect = false;
	int rc = 0;
	const char *python = w->python ? w->python : getenv("WHEELPICK_PYTHON");
	const char *cuda = w->cuda ? w->cuda : getenv("WHEELPICK_CUDA");
	const char *platform = w->platform ? w->platform : getenv("WHEELPICK_PLATFORM");

	wp_target_init(t);
	if (w->target_file) {
		if ((rc = wp_target_load_profile(w->target_file, t, err)))
			return rc;
	} else {
		need_detect = !python || !strcmp(python, "auto") || !platform || !strcmp(platform, "auto") ||
			      ((!cuda || !strcmp(cuda, "auto")) && !w->rocm);
	}
	if (need_detect) {
		struct wp_detect d;
		struct wp_detect_opts o = { 0 };
		struct wp_target dt;
		if ((rc = wp_detect_run(&d, &o, err))) {
			wp_detect_release(&d);
			return rc;
		}
		if (wp_detect_to_target(&d, &dt) < 0 && (!platform || !strcmp(platform, "auto")))
			wp_cli_warn(cli, "this machine's platform has no wheel tag wheelpick knows; give --platform");
		if (!python || !strcmp(python, "auto")) {
			if (d.default_python < 0)
				wp_cli_note(cli, "no python3 found on PATH; assuming Python %d.%d (give --python)", t->py_major,
					    t->py_minor);
			else {
				snprintf(t->impl, sizeof(t->impl), "%s", dt.impl);
				snprintf(t->abi, sizeof(t->abi), "%s", dt.abi);
				t->py_major = dt.py_major;
				t->py_minor = dt.py_minor;
				t->py_micro = dt.py_micro;
			}
		}
		if (!platform || !strcmp(platform, "auto")) {
			snprintf(t->platform, sizeof(t->platform), "%s", dt.platform);
			t->glibc_major = dt.glibc_major;
			t->glibc_minor = dt.glibc_minor;
			t->musl_major = dt.musl_major;
			t->musl_minor = dt.musl_minor;
		}
		if ((!cuda || !strcmp(cuda, "auto")) && !w->rocm) {
			t->accel = dt.accel;
			t->cuda_major = dt.cuda_major;
			t->cuda_minor = dt.cuda_minor;
			if (dt.accel == WP_ACCEL_CPU)
				wp_cli_note(cli, "no NVIDIA driver found: picking CPU builds (give --cuda X.Y for another machine)");
			else
				wp_cli_note(cli, "the NVIDIA driver %s runs CUDA %d.%d (from %s)", d.driver_version, dt.cuda_major,
					    dt.cuda_minor, wp_cuda_source_name(d.cuda_source));
		}
		if (!w->gpus || !w->gpus->n) {
			t->n_gpus = dt.n_gpus;
			memcpy(t->gpu_sm, dt.gpu_sm, sizeof(t->gpu_sm));
		}
		wp_detect_release(&d);
	}
	if (python && strcmp(python, "auto") && (rc = wp_target_set_python(t, python, err)))
		return rc;
	if (platform && strcmp(platform, "auto") && (rc = wp_target_set_platform(t, platform, err)))
		return rc;
	if (cuda && strcmp(cuda, "auto") && (rc = wp_target_set_cuda(t, cuda, err)))
		return rc;
	if (w->rocm && (rc = wp_target_set_rocm(t, w->rocm, err)))
		return rc;
	for (size_t i = 0; w->gpus && i < w->gpus->n; i++)
		if ((rc = wp_target_add_gpu(t, w->gpus->v[i], err)))
			return rc;
	/* eight A100s are one constraint, not eight */
	int n = 0;
	for (int i = 0; i < t->n_gpus; i++) {
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = t->gpu_sm[k] == t->gpu_sm[i];
		if (!seen)
			t->gpu_sm[n++] = t->gpu_sm[i];
	}
	t->n_gpus = n;
	return 0;
}
