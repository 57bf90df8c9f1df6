/* ops/conda/condamatrix.c: `matrix --conda`: the target spec split into one spec per target, each
 * run as a conda dry run. */
#include "ops/conda/condamatrix.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* A list of one value, or of none when v is NULL. */
static void one(struct wp_strlist *l, const char *v)
{
	memset(l, 0, sizeof(*l));
	if (v)
		wp_strlist_push(l, v);
}

static const char *at(const struct wp_strlist *l, size_t i)
{
	return l->n ? l->v[i] : NULL;
}

static size_t count(const struct wp_strlist *l)
{
	return l->n ? l->n : 1;
}

/* The run for one target's spec: a row, unless the failure is everyone's. */
static int run_row(const struct wp_session *s, const struct wp_conda_job *job,
		   const struct wp_target_spec *spec, struct wp_conda_matrix *m, size_t *cap,
		   struct wp_err *err)
{
	struct wp_conda_job j = *job;
	j.targets = *spec;
	j.dest = NULL; /* a matrix writes nothing */
	j.locks_dir = NULL;
	size_t at_row = wp_vec_push_fields(m->rows, m->n, *cap,
					   (struct wp_conda_matrix_row){ .err = WP_ERR_INIT });
	struct wp_conda_matrix_row *r = &m->rows[at_row];
	r->rc = wp_conda_run(s, &j, &r->res, &r->err);
	if (r->rc && r->rc != -WPE_NOMATCH && r->rc != -WPE_LIMIT)
		return wp_fail(err, r->rc, "%s", r->err.msg);
	return 0;
}

int wp_conda_matrix_build(const struct wp_session *s, const struct wp_conda_job *job,
			  struct wp_conda_matrix *m, struct wp_err *err)
{
	const struct wp_target_spec *t = &job->targets;
	size_t cap = 0;
	int rc = 0;
	memset(m, 0, sizeof(*m));
	/* the accelerators: each --cuda value and each --driver (none given: the default, once) */
	size_t nacc = t->cuda.n + t->driver.n ? t->cuda.n + t->driver.n : 1;
	for (size_t a = 0; a < nacc && !rc; a++)
		for (size_t p = 0; p < count(&t->python) && !rc; p++)
			for (size_t f = 0; f < count(&t->platform) && !rc; f++)
				for (size_t g = 0; g < count(&t->target_files) && !rc; g++) {
					struct wp_target_spec sub = *t;
					one(&sub.cuda, a < t->cuda.n ? t->cuda.v[a] : NULL);
					one(&sub.driver,
					    a >= t->cuda.n && a - t->cuda.n < t->driver.n ?
						    t->driver.v[a - t->cuda.n] :
						    NULL);
					one(&sub.python, at(&t->python, p));
					one(&sub.platform, at(&t->platform, f));
					one(&sub.target_files, at(&t->target_files, g));
					rc = run_row(s, job, &sub, m, &cap, err);
					wp_strlist_release(&sub.cuda);
					wp_strlist_release(&sub.driver);
					wp_strlist_release(&sub.python);
					wp_strlist_release(&sub.platform);
					wp_strlist_release(&sub.target_files);
				}
	return rc;
}

void wp_conda_matrix_release(struct wp_conda_matrix *m)
{
	for (size_t i = 0; i < m->n; i++)
		wp_conda_result_release(&m->rows[i].res);
	free(m->rows);
	memset(m, 0, sizeof(*m));
}
