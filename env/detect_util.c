/* env/detect_util.c: what detection's parts share: warnings and notes, text from programs made
 * safe, versions and words cut from it, files and programs looked up, programs run as jobs. */
#include "env/detect_internal.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "env/run.h"
#include "base/os/os.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return wp_xstrdup(fmt);
	char *s = wp_xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

__attribute__((format(printf, 2, 3)))
void wp_dx_warn(struct wp_dx_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wp_vec_push_fields(c->d->warnings, c->d->n_warnings, c->d->cap_warnings, vformat(fmt, ap));
	va_end(ap);
}

__attribute__((format(printf, 2, 3)))
void wp_dx_note(struct wp_dx_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wp_vec_push(&c->notes, vformat(fmt, ap));
	va_end(ap);
}

/* Text from programs and files ends up in JSON and on terminals: keep valid UTF-8 without
 * control characters, and replace anything else with '?'. */
void wp_dx_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;
	while (*p) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			     (*p & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0 && !(len == 1 && (*p < 0x20 || *p == 0x7f)) &&
			  !(len == 2 && *p < 0xc2);
		for (size_t i = 1; ok && i < len; i++)
			ok = (p[i] & 0xc0) == 0x80;
		if (!ok) {
			*p++ = '?';
			continue;
		}
		p += len;
	}
}

void wp_dx_copy_clean(char *dst, size_t size, struct wp_str s)
{
	size_t n = s.n < size - 1 ? s.n : size - 1;
	memcpy(dst, s.p, n);
	dst[n] = 0;
	/* a cut in the middle of a UTF-8 sequence becomes '?' here */
	wp_dx_sanitize(dst);
}

char *wp_dx_root_path(const struct wp_dx_ctx *c, const char *abs)
{
	return wp_xasprintf("%s%s", c->root, abs);
}

bool wp_dx_is_dir(const char *path)
{
	struct wp_os_stat st;
	return wp_os_stat(path, &st) == 0 && WP_S_ISDIR(st.st_mode);
}

bool wp_dx_is_exec(const char *path)
{
	struct wp_os_stat st;
	return wp_os_stat(path, &st) == 0 && WP_S_ISREG(st.st_mode) &&
	       wp_os_access(path, WP_X_OK) == 0;
}

/* The same file, by its resolved path (the names as given when either cannot be resolved). */
bool wp_dx_same_file(const char *a, const char *b)
{
	char *ra = wp_os_realpath(a), *rb = wp_os_realpath(b);
	bool same = ra && rb ? !strcmp(ra, rb) : !strcmp(a, b);
	free(ra);
	free(rb);
	return same;
}

bool wp_dx_is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

/* The next whitespace-separated word of s; empty at the end. */
struct wp_str wp_dx_next_word(struct wp_str *s)
{
	while (s->n && wp_dx_is_space(*s->p)) {
		s->p++;
		s->n--;
	}
	size_t i = 0;
	while (i < s->n && !wp_dx_is_space(s->p[i]))
		i++;
	struct wp_str w = WP_STRN(s->p, i);
	s->p += i;
	s->n -= i;
	return w;
}

struct wp_str wp_dx_find(struct wp_str s, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; n <= s.n && i <= s.n - n; i++)
		if (memcmp(s.p + i, needle, n) == 0)
			return WP_STRN(s.p + i, s.n - i);
	return WP_STRN(s.p + s.n, 0);
}

/* "535.104.05" -> {535, 104, 5}: 1 to max dot-separated numbers and nothing else. Returns how
 * many; 0 when s is not such a version. Missing parts are 0. */
int wp_dx_parse_version(struct wp_str s, int *v, int max)
{
	int n = 0;
	for (int i = 0; i < max; i++)
		v[i] = 0;
	while (n < max) {
		struct wp_str part = wp_str_cut(&s, '.');
		long long x;
		if (!wp_str_to_ll(part, &x) || x > 999999)
			return 0;
		v[n++] = (int)x;
		if (!s.n) /* "535." ends in a dot: the cut left s just past it */
			return s.p == part.p + part.n ? n : 0;
	}
	return 0; /* more parts than max */
}

/* The leading run of digits and dots of s (after blanks), without a trailing dot. */
struct wp_str wp_dx_version_prefix(struct wp_str s)
{
	while (s.n && (*s.p == ' ' || *s.p == '\t')) {
		s.p++;
		s.n--;
	}
	size_t i = 0;
	while (i < s.n && ((s.p[i] >= '0' && s.p[i] <= '9') || s.p[i] == '.'))
		i++;
	while (i && s.p[i - 1] == '.')
		i--;
	return WP_STRN(s.p, i);
}

int wp_dx_cuda_cmp(int amaj, int amin, int bmaj, int bmin)
{
	if (amaj != bmaj)
		return amaj < bmaj ? -1 : 1;
	return amin < bmin ? -1 : amin > bmin;
}

/* One entry of PATH (';'-separated on Windows, where an entry may be quoted). */
struct wp_str wp_dx_path_entry(struct wp_str *rest)
{
	struct wp_str dir = wp_str_cut(rest, wp_os_path_list_sep);
	if (dir.n >= 2 && dir.p[0] == '"' && dir.p[dir.n - 1] == '"') {
		dir.p++;
		dir.n -= 2;
	}
	return dir;
}

/* name (".exe" added on Windows) in the first folder of PATH that has it as a program. */
char *wp_dx_find_program(const struct wp_dx_ctx *c, const char *name)
{
	struct wp_str rest = WP_STR(c->path_env);
	while (rest.n) {
		struct wp_str dir = wp_dx_path_entry(&rest);
		char *p = wp_xasprintf("%.*s%s%s%s", dir.n ? (int)dir.n : 1, dir.n ? dir.p : ".",
				       c->windows ? "\\" : "/", name, wp_os_exe_suffix);
		if (wp_dx_is_exec(p))
			return p;
		free(p);
	}
	return NULL;
}

/* The folder part of a program's path, either separator: ".../bin/nvcc" -> ".../bin". */
struct wp_str wp_dx_parent_dir(struct wp_str s)
{
	while (s.n && !wp_os_is_sep(s.p[s.n - 1]))
		s.n--;
	while (s.n > 1 && wp_os_is_sep(s.p[s.n - 1]))
		s.n--;
	return s;
}

struct wp_run *wp_dx_job_add(struct wp_run *jobs, size_t *n, char *path, bool merge_stderr)
{
	if (*n >= WP_DX_MAX_JOBS) {
		free(path);
		return NULL;
	}
	struct wp_run *j = &jobs[(*n)++];
	wp_run_init(j, 0);
	j->argv[0] = path;
	j->merge_stderr = merge_stderr;
	return j;
}

/* Run the jobs, a few at a time (a dozen pyenv shims at once can starve a small machine into
 * timing out all of them, python3 included), each with its own time limit and max bytes kept. */
void wp_dx_run_jobs(struct wp_run *jobs, size_t n, int timeout_ms, size_t max,
		    const char *const *envp)
{
	for (size_t i = 0; i < n; i++) {
		jobs[i].out.max = max;
		jobs[i].envp = envp; /* the programs see the environment detection was handed */
	}
	wp_run_all(jobs, n, 0, timeout_ms);
}

void wp_dx_job_release(struct wp_run *j)
{
	free((char *)j->argv[0]);
	wp_buf_free(&j->out);
}

/* A job that produced nothing usable says why, once, as a note. */
void wp_dx_job_note(struct wp_dx_ctx *c, const struct wp_run *j)
{
	if (j->timed_out) {
		wp_dx_note(c, "'%s' did not finish within %g s and was stopped", j->argv[0],
			   c->timeout_ms / 1000.0);
		return;
	}
	if (j->skipped) {
		wp_dx_note(c, "'%s' was not run: hung programs before it used up the time",
			   j->argv[0]);
		return;
	}
	if (!j->started) {
		wp_dx_note(c, "could not run '%s'", j->argv[0]);
		return;
	}
	struct wp_str s = WP_STRN(j->out.data ? j->out.data : "", j->out.len);
	struct wp_str line = WP_STRN("", 0);
	while (s.n && !line.n)
		line = wp_str_trim(wp_str_cut(&s, '\n'));
	char msg[160];
	wp_dx_copy_clean(msg, sizeof(msg), line);
	if (j->status < 0)
		wp_dx_note(c, "'%s' crashed%s%s", j->argv[0], msg[0] ? ": " : "", msg);
	else
		wp_dx_note(c, "'%s' exited with status %d%s%s", j->argv[0], j->status,
			   msg[0] ? ": " : "", msg);
}
