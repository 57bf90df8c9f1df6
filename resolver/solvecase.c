/* resolver/solvecase.c: records what a provider gave the solver and writes it as a tests/solve case
 * (the format is described at the top of tests/unit/test_solve_cases.c). */
#include "resolver/solvecase.h"

#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/urlmask.h"

static char *dup_or_null(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static struct wp_solve_rec_file *rec_find(struct wp_solve_rec *rec, const char *url)
{
	for (size_t i = 0; i < rec->files.n; i++)
		if (!strcmp(rec->files.v[i]->url, url))
			return rec->files.v[i];
	return NULL;
}

/* Each file once, however often (files, files_more) the solver was given it. */
static void rec_files(struct wp_solve_rec *rec, const struct wp_solve_files *out)
{
	for (size_t i = 0; i < out->n; i++) {
		const struct wp_candidate *c = &out->c[i];
		if (!c->url || !c->filename || rec_find(rec, c->url))
			continue;
		struct wp_solve_rec_file *f = wp_xcalloc(1, sizeof(*f));
		*f = (struct wp_solve_rec_file){
			.project = dup_or_null(c->project),
			.version = dup_or_null(c->version),
			.variant = wp_xstrdup(c->variant ? c->variant : ""),
			.kind = dup_or_null(c->kind),
			.filename = wp_xstrdup(c->filename),
			.url = wp_xstrdup(c->url),
			.sha256 = dup_or_null(c->sha256),
			.requires_python = dup_or_null(c->requires_python),
			.yanked = c->yanked != NULL,
		};
		wp_vec_push(&rec->files, f);
	}
}

static int r_files(void *ctx, const char *project, struct wp_solve_files *out, struct wp_err *err)
{
	struct wp_solve_rec *rec = ctx;
	int rc = rec->inner->files(rec->inner->ctx, project, out, err);
	if (rc < 0)
		wp_vec_push(&rec->broken, wp_xstrdup(project));
	else
		rec_files(rec, out);
	return rc;
}

static int r_files_more(void *ctx, const char *project, struct wp_solve_files *out,
			struct wp_err *err)
{
	struct wp_solve_rec *rec = ctx;
	int rc = rec->inner->files_more(rec->inner->ctx, project, out, err);
	if (rc < 0)
		wp_vec_push(&rec->broken, wp_xstrdup(project));
	else
		rec_files(rec, out);
	return rc;
}

static int r_deps(void *ctx, const struct wp_candidate *c, struct wp_solve_deps *out,
		  struct wp_err *err)
{
	struct wp_solve_rec *rec = ctx;
	int rc = rec->inner->deps(rec->inner->ctx, c, out, err);
	struct wp_solve_rec_file *f = c->url ? rec_find(rec, c->url) : NULL;
	if (!f || f->deps_read || f->deps_failed)
		return rc;
	if (rc < 0) {
		f->deps_failed = true;
		return rc;
	}
	f->deps_read = true;
	f->deps = wp_xcalloc(out->n ? out->n : 1, sizeof(*f->deps));
	for (size_t i = 0; i < out->n; i++)
		f->deps[f->n_deps++] = wp_xstrdup(out->reqs[i].text);
	f->metapy = dup_or_null(out->requires_python);
	return rc;
}

static void r_read_projects(void *ctx, const char *const *projects, size_t n)
{
	struct wp_solve_rec *rec = ctx;
	rec->inner->read_projects(rec->inner->ctx, projects, n);
}

static void r_read_deps(void *ctx, const struct wp_candidate *const *c, size_t n)
{
	struct wp_solve_rec *rec = ctx;
	rec->inner->read_deps(rec->inner->ctx, c, n);
}

void wp_solve_rec_wrap(struct wp_solve_rec *rec, const struct wp_solve_provider *inner,
		       struct wp_solve_provider *outer)
{
	*rec = (struct wp_solve_rec){ .inner = inner };
	*outer = (struct wp_solve_provider){
		.files = r_files,
		.files_more = inner->files_more ? r_files_more : NULL,
		.deps = r_deps,
		.read_projects = inner->read_projects ? r_read_projects : NULL,
		.read_deps = inner->read_deps ? r_read_deps : NULL,
		.ctx = rec,
	};
}

/* A case line holds one value per word: an href percent-encoded as the harness decodes it. */
static void put_encoded(struct wp_buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("._-~/", ch))
			wp_buf_printf(out, "%c", ch);
		else
			wp_buf_printf(out, "%%%02X", ch);
	}
}

/* A line of text as one line (a newline would start another directive), credentials masked. */
static void put_text(struct wp_buf *out, const char *word, const char *text)
{
	char *m = wp_url_text_mask(text);
	for (char *p = m; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	wp_buf_printf(out, "%-10s %s\n", word, m);
	free(m);
}

/* A specifier as one word: PEP 440 allows no spaces that matter inside it. */
static void put_nospace(struct wp_buf *out, const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t')
			wp_buf_printf(out, "%c", *s);
}

static void put_target(struct wp_buf *out, const struct wp_target *t)
{
	wp_buf_printf(out, "target     python=%d.%d platform=%s", t->py_major, t->py_minor,
		      t->platform);
	switch (t->accel) {
	case WP_ACCEL_CUDA:
		wp_buf_printf(out, " cuda=%d.%d", t->cuda_major, t->cuda_minor);
		break;
	case WP_ACCEL_CPU:
		wp_buf_printf(out, " cuda=cpu");
		break;
	case WP_ACCEL_ROCM:
		wp_buf_printf(out, " rocm=%d.%d", t->rocm_major, t->rocm_minor);
		break;
	case WP_ACCEL_XPU:
		wp_buf_printf(out, " xpu");
		break;
	}
	for (int i = 0; i < t->n_gpus; i++)
		wp_buf_printf(out, " gpu=sm_%d", t->gpu_sm[i]);
	if (t->cuda_strict)
		wp_buf_printf(out, " strict");
	wp_buf_printf(out, "\n");
}

static const char *exit_word(int rc)
{
	switch (rc) {
	case -WPE_NOMATCH:
		return "nomatch";
	case -WPE_LIMIT:
		return "limit";
	case -WPE_NET:
		return "net";
	case -WPE_USAGE:
		return "usage";
	case -WPE_INTEGRITY:
		return "integrity";
	default:
		return NULL;
	}
}

/* Names in the case: the file name under its variant's folder (the harness reads a variant from
 * there too), made unique when two indexes list the same name. */
static void name_files(struct wp_solve_rec *rec)
{
	for (size_t i = 0; i < rec->files.n; i++) {
		struct wp_solve_rec_file *f = rec->files.v[i];
		free(f->href);
		f->href = NULL;
		for (unsigned k = 1; !f->href; k++) {
			char *dir = k == 1 ? wp_xstrdup(f->variant) :
					     wp_xasprintf("%s%sdup%u", f->variant,
							  *f->variant ? "-" : "", k);
			char *href = *dir ? wp_xasprintf("%s/%s", dir, f->filename) :
					    wp_xstrdup(f->filename);
			free(dir);
			bool taken = false;
			for (size_t j = 0; j < i && !taken; j++)
				taken = !strcmp(rec->files.v[j]->href, href);
			if (taken)
				free(href);
			else
				f->href = href;
		}
	}
}

void wp_solve_rec_case(struct wp_solve_rec *rec, const struct wp_req *reqs, size_t nreq,
		       const struct wp_target *targets, size_t n_targets,
		       const struct wp_solve_opts *so, const struct wp_plan *plan, int rc,
		       const char *msg, struct wp_buf *out)
{
	name_files(rec);
	wp_buf_printf(out,
		      "# A resolution written by wheelpick: what the indexes offered it and what it\n"
		      "# picked. Replay: build/tests/test_solve_cases THIS-FILE (no network).\n");
	for (size_t i = 0; i < n_targets; i++)
		put_target(out, &targets[i]);
	if (so->no_deps)
		wp_buf_printf(out, "option     no_deps\n");
	if (so->pre)
		wp_buf_printf(out, "option     pre\n");
	if (so->max_steps)
		wp_buf_printf(out, "option     max_steps=%u\n", so->max_steps);
	if (so->max_projects)
		wp_buf_printf(out, "option     max_projects=%zu\n", so->max_projects);
	for (size_t i = 0; i < nreq; i++)
		put_text(out, "request", reqs[i].text);
	for (size_t i = 0; i < so->n_constraints; i++)
		put_text(out, "constraint", so->constraints[i].text);
	for (size_t i = 0; i < so->n_hashes; i++) {
		wp_buf_printf(out, "hash       %s", so->hashes[i].project);
		for (size_t k = 0; k < so->hashes[i].n; k++)
			wp_buf_printf(out, " %s", so->hashes[i].sha256[k]);
		wp_buf_printf(out, "\n");
	}
	for (size_t i = 0; i < rec->broken.n; i++)
		wp_buf_printf(out, "broken     %s\n", rec->broken.v[i]);
	for (size_t i = 0; i < rec->files.n; i++) {
		struct wp_solve_rec_file *f = rec->files.v[i];
		char *url = wp_url_strip_userinfo(f->url);
		wp_buf_printf(out, "# %s\n", url);
		free(url);
		wp_buf_printf(out, "file       ");
		put_encoded(out, f->href);
		wp_buf_printf(out, " variant=");
		put_encoded(out, f->variant);
		if (f->requires_python && *f->requires_python) {
			wp_buf_printf(out, " requires_python=");
			put_nospace(out, f->requires_python);
		}
		if (f->yanked)
			wp_buf_printf(out, " yanked");
		if (f->sha256 && *f->sha256)
			wp_buf_printf(out, " sha256=%s", f->sha256);
		wp_buf_printf(out, "\n");
	}
	for (size_t i = 0; i < rec->files.n; i++) {
		struct wp_solve_rec_file *f = rec->files.v[i];
		struct wp_buf head = WP_BUF_INIT;
		put_encoded(&head, f->href);
		if (f->deps_failed)
			wp_buf_printf(out, "brokenmeta %s\n", head.data);
		if (!f->deps_read) {
			wp_buf_free(&head);
			continue;
		}
		/* a file read with no dependencies still says so, for whoever reads the case */
		if (!f->n_deps)
			wp_buf_printf(out, "# %s needs nothing\n", head.data);
		for (size_t k = 0; k < f->n_deps; k++) {
			struct wp_buf line = WP_BUF_INIT;
			wp_buf_printf(&line, "%s %s", head.data, f->deps[k]);
			put_text(out, "dep", line.data);
			wp_buf_free(&line);
		}
		if (f->metapy && *f->metapy) {
			struct wp_buf line = WP_BUF_INIT;
			wp_buf_printf(&line, "%s %s", head.data, f->metapy);
			put_text(out, "metapy", line.data);
			wp_buf_free(&line);
		}
		wp_buf_free(&head);
	}
	if (rc < 0) {
		const char *w = exit_word(rc);
		if (w)
			wp_buf_printf(out, "exit       %s\n", w);
		else
			wp_buf_printf(out,
				      "# the resolution failed with code %d, which a case cannot expect\n",
				      rc);
		/* the message's head, when it names nothing of this machine (a URL would differ on
		 * replay); what follows a ';' or '(' is advice worded for the command line, which
		 * the replay words for the library (resolver/ask.h) */
		if (w && (rc == -WPE_NOMATCH || rc == -WPE_LIMIT) && msg && *msg &&
		    !strstr(msg, "://")) {
			char line[512];
			snprintf(line, sizeof(line), "%s", msg);
			line[strcspn(line, "\r\n;(")] = 0;
			for (size_t n = strlen(line); n && line[n - 1] == ' '; n--)
				line[n - 1] = 0;
			if (*line)
				put_text(out, "message", line);
		}
		return;
	}
	if (!plan->n)
		wp_buf_printf(out, "expect     none\n");
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *pf = &plan->files[i];
		struct wp_solve_rec_file *f = pf->url ? rec_find(rec, pf->url) : NULL;
		if (!f) {
			char *url = wp_url_strip_userinfo(pf->url ? pf->url : "?");
			wp_buf_printf(out,
				      "# picked %s, which no index listed (the case cannot replay it)\n",
				      url);
			free(url);
			continue;
		}
		wp_buf_printf(out, "expect     ");
		if (pf->target)
			wp_buf_printf(out, "@%zu ", pf->target);
		put_encoded(out, f->href);
		wp_buf_printf(out, "\n");
	}
}

void wp_solve_rec_release(struct wp_solve_rec *rec)
{
	for (size_t i = 0; i < rec->files.n; i++) {
		struct wp_solve_rec_file *f = rec->files.v[i];
		free(f->project), free(f->version), free(f->variant), free(f->kind),
			free(f->filename), free(f->url);
		free(f->sha256), free(f->requires_python), free(f->metapy), free(f->href);
		for (size_t k = 0; k < f->n_deps; k++)
			free(f->deps[k]);
		free(f->deps);
		free(f);
	}
	wp_vec_free(&rec->files);
	for (size_t i = 0; i < rec->broken.n; i++)
		free(rec->broken.v[i]);
	wp_vec_free(&rec->broken);
}
