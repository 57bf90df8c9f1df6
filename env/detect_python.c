/* env/detect_python.c: the Python interpreters for detection: python3 and its versioned names on
 * PATH (Windows: python, and what the py launcher lists), each asked what it is. */
#include "env/detect_internal.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "env/run.h"
#include "base/os/os.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PY_LAUNCHED 16 /* interpreters `py -0p` lists that are asked */

static const char py_probe[] =
	"import sys,sysconfig,platform;print(sys.implementation.name, *sys.version_info[:3], "
	"sysconfig.get_config_var(\"SOABI\") or \"\", platform.machine())";

/* On Windows the last word is the interpreter's own architecture, from sysconfig.get_platform():
 * platform.machine() says AMD64 in a 32-bit Python on 64-bit Windows (it reads
 * PROCESSOR_ARCHITEW6432), and only the interpreter's tells which wheels it takes */
static const char py_probe_windows[] =
	"import sys,sysconfig;p=sysconfig.get_platform();print(sys.implementation.name, "
	"*sys.version_info[:3], sysconfig.get_config_var(\"SOABI\") or \"\", "
	"{\"win32\":\"x86\",\"win-amd64\":\"AMD64\",\"win-arm64\":\"ARM64\"}.get(p,p))";

/* Windows has python.exe (and the py launcher, asked with -0p); python3.exe is only the Store's
 * alias there */
static const char *const python_names_windows[] = { "python" };

static const char *const python_names[] = {
	"python3",     "python3.6",   "python3.7",  "python3.8",  "python3.9",
	"python3.10",  "python3.11",  "python3.12", "python3.13", "python3.14",
	"python3.13t", "python3.14t", /* PEP 703's free-threaded builds, installed beside the others
				       */
};
_Static_assert(WP_ARRAY_LEN(python_names) == WP_DX_N_PY_NAMES,
	       "struct wp_dx_plan has a probe job for each name");

bool wp_detect_python_free_threaded(const struct wp_detect_python *py)
{
	/* Windows: "cp313t-win_amd64", the part before the first dash */
	if (!strncmp(py->soabi, "cp", 2) && py->soabi[2] >= '0' && py->soabi[2] <= '9') {
		const char *d = strchr(py->soabi, '-');
		return !strcmp(py->impl, "cpython") && d && d[-1] == 't';
	}
	/* "cpython-313t-x86_64-linux-gnu": the version part ends in t */
	const char *dash = strchr(py->soabi, '-');
	const char *end = dash ? strchr(dash + 1, '-') : NULL;
	return !strcmp(py->impl, "cpython") && dash &&
	       (end ? end > dash + 1 && end[-1] == 't' : py->soabi[strlen(py->soabi) - 1] == 't');
}

/* "cpython 3 11 7 cpython-311-x86_64-linux-gnu x86_64"; SOABI may be empty (5 words). */
static bool parse_python(const struct wp_run *j, struct wp_detect_python *py)
{
	struct wp_str s = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	struct wp_str line = wp_str_trim(wp_str_cut(&s, '\n'));
	struct wp_str w[7];
	int n = 0;
	for (struct wp_str x = wp_dx_next_word(&line); x.n; x = wp_dx_next_word(&line)) {
		if (n == 6)
			return false;
		w[n++] = x;
	}
	if (n != 5 && n != 6)
		return false;
	long long v[3];
	for (int i = 0; i < 3; i++)
		if (!wp_str_to_ll(w[i + 1], &v[i]) || v[i] > 1000)
			return false;
	wp_dx_copy_clean(py->impl, sizeof(py->impl), w[0]);
	py->major = (int)v[0];
	py->minor = (int)v[1];
	py->micro = (int)v[2];
	wp_dx_copy_clean(py->soabi, sizeof(py->soabi), n == 6 ? w[4] : WP_STRN("", 0));
	wp_dx_copy_clean(py->machine, sizeof(py->machine), w[n - 1]);
	return true;
}

void wp_dx_pick_default_python(struct wp_dx_ctx *c, bool have_python3, int launcher_default)
{
	struct wp_detect *d = c->d;
	if (have_python3 || !d->n_pythons)
		return;
	if (launcher_default >= 0) {
		/* what `py` runs with no version asked for */
		d->default_python = launcher_default;
		wp_dx_note(c,
			   "no working 'python' on PATH; the target Python is the py launcher's "
			   "default '%s' (%d.%d)",
			   d->pythons[launcher_default].path, d->pythons[launcher_default].major,
			   d->pythons[launcher_default].minor);
		return;
	}
	size_t best = 0;
	for (size_t i = 1; i < d->n_pythons; i++)
		if (wp_dx_cuda_cmp(d->pythons[i].major, d->pythons[i].minor, d->pythons[best].major,
				   d->pythons[best].minor) > 0)
			best = i;
	d->default_python = (int)best;
	wp_dx_warn(c, "no working '%s' on PATH; the target Python is '%s' (%d.%d)",
		   c->windows ? "python" : "python3", d->pythons[best].path, d->pythons[best].major,
		   d->pythons[best].minor);
}

/* The interpreters' names on PATH on this system. */
static const char *const *py_names(const struct wp_dx_ctx *c, size_t *n)
{
	*n = c->windows ? WP_ARRAY_LEN(python_names_windows) : WP_ARRAY_LEN(python_names);
	return c->windows ? python_names_windows : python_names;
}

void wp_dx_plan_pythons(struct wp_dx_ctx *c, struct wp_dx_plan *pl)
{
	char *real[WP_ARRAY_LEN(python_names)] = { 0 };
	size_t nn;
	const char *const *names = py_names(c, &nn);
	for (size_t i = 0; i < WP_ARRAY_LEN(python_names); i++)
		pl->py[i] = -1;
	pl->py_launcher = -1;
	/* Windows' Python launcher lists every interpreter it knows (the registry's, PEP 514) */
	char *py = c->windows ? wp_dx_find_program(c, "py") : NULL;
	if (py && wp_dx_job_add(pl->jobs, &pl->nj, py, false)) {
		pl->py_launcher = (int)pl->nj - 1;
		pl->jobs[pl->nj - 1].argv[1] = "-0p";
	}
	for (size_t i = 0; i < nn; i++) {
		char *p = wp_dx_find_program(c, names[i]);
		if (!p)
			continue;
		/* python3 is often a link to one of the python3.N: ask it once */
		real[i] = wp_os_realpath(p);
		bool dup = false;
		for (size_t k = 0; real[i] && k < i; k++)
			dup |= real[k] && !strcmp(real[k], real[i]);
		if (dup) {
			free(p);
			continue;
		}
		if (!wp_dx_job_add(pl->jobs, &pl->nj, p, false))
			continue;
		pl->py[i] = (int)pl->nj - 1;
		pl->jobs[pl->nj - 1].argv[1] = "-c";
		pl->jobs[pl->nj - 1].argv[2] = c->windows ? py_probe_windows : py_probe;
	}
	for (size_t i = 0; i < nn; i++)
		free(real[i]);
}

/* The interpreter a probe job asked, added to d->pythons; false when it said nothing usable. */
static bool add_python(struct wp_dx_ctx *c, const struct wp_run *j)
{
	struct wp_detect *d = c->d;
	struct wp_detect_python py;
	memset(&py, 0, sizeof(py));
	if (j->status != 0 || !parse_python(j, &py)) {
		/* exiting non-zero is what a pyenv shim for a version not selected does (and
		 * Windows' Store alias python.exe): quietly skip */
		if (j->timed_out || j->skipped || j->status < 0)
			wp_dx_job_note(c, j);
		return false;
	}
	py.path = wp_xstrdup(j->argv[0]);
	wp_dx_sanitize(py.path);
	wp_vec_push_fields(d->pythons, d->n_pythons, d->cap_pythons, py);
	return true;
}

/* true when python3 (Windows: python) itself answered */
bool wp_dx_collect_pythons(struct wp_dx_ctx *c, const struct wp_dx_plan *pl)
{
	struct wp_detect *d = c->d;
	bool have_python3 = false;
	for (size_t i = 0; i < WP_ARRAY_LEN(python_names); i++) {
		if (pl->py[i] < 0 || !add_python(c, &pl->jobs[pl->py[i]]))
			continue;
		if (i == 0) {
			have_python3 = true;
			d->default_python = (int)d->n_pythons - 1;
		}
	}
	return have_python3;
}

/* `py -0p`: one interpreter a line, its tag first and the default marked with '*', before the path
 * from launcher 3.11 on (" -V:3.12 *        C:\Python312\python.exe"), after it before
 * (" -3.9-64        C:\Python39\python.exe *"); a path may hold blanks. The paths into paths
 * (each owned), *def the default's index or -1. */
static size_t parse_py_list(struct wp_str out, char **paths, size_t max, int *def)
{
	size_t n = 0;
	*def = -1;
	while (out.n && n < max) {
		struct wp_str line = wp_str_trim(wp_str_cut(&out, '\n'));
		if (!line.n || line.p[0] != '-')
			continue; /* a heading ("Installed Pythons found by py Launcher...") */
		wp_dx_next_word(&line);
		line = wp_str_trim(line);
		bool star = false;
		if (line.n && line.p[0] == '*' && (line.n == 1 || wp_dx_is_space(line.p[1]))) {
			star = true;
			line = wp_str_trim(WP_STRN(line.p + 1, line.n - 1));
		}
		if (line.n >= 2 && line.p[line.n - 1] == '*' &&
		    wp_dx_is_space(line.p[line.n - 2])) {
			star = true;
			line = wp_str_trim(WP_STRN(line.p, line.n - 1));
		}
		char *p = wp_xstrndup(line.p, line.n);
		if (!line.n || !wp_os_path_is_abs(p)) {
			free(p);
			continue;
		}
		if (star)
			*def = (int)n;
		paths[n++] = p;
	}
	return n;
}

/* The interpreters the py launcher listed that PATH did not give, asked as the others were. Returns
 * the index in d->pythons of the launcher's default, or -1. */
int wp_dx_launched_pythons(struct wp_dx_ctx *c, const struct wp_dx_plan *pl)
{
	struct wp_detect *d = c->d;
	if (pl->py_launcher < 0)
		return -1;
	const struct wp_run *lj = &pl->jobs[pl->py_launcher];
	if (lj->status != 0) {
		wp_dx_job_note(c, lj);
		return -1;
	}
	char *paths[MAX_PY_LAUNCHED];
	int def = -1, found = -1;
	size_t n = parse_py_list(WP_STRN(wp_buf_cstr(&lj->out), lj->out.len), paths,
				 MAX_PY_LAUNCHED, &def);
	struct wp_run jobs[MAX_PY_LAUNCHED];
	int of[MAX_PY_LAUNCHED]; /* which path each job asks */
	size_t nj = 0;
	for (size_t i = 0; i < n; i++) {
		bool known = false;
		for (size_t k = 0; k < d->n_pythons && !known; k++)
			if (wp_dx_same_file(paths[i], d->pythons[k].path)) {
				known = true;
				if ((int)i == def)
					found = (int)k;
			}
		if (known) {
			free(paths[i]);
			continue;
		}
		of[nj] = (int)i;
		wp_dx_job_add(jobs, &nj, paths[i], false);
		jobs[nj - 1].argv[1] = "-c";
		jobs[nj - 1].argv[2] = py_probe_windows;
	}
	wp_dx_run_jobs(jobs, nj, c->timeout_ms, c->output_max, c->envp);
	for (size_t i = 0; i < nj; i++) {
		if (add_python(c, &jobs[i]) && of[i] == def)
			found = (int)d->n_pythons - 1;
		wp_dx_job_release(&jobs[i]);
	}
	return found;
}
