/* ops/verify/common.c: the verify report, problems, the hash cache and file helpers every check
 * uses. */
#include "ops/verify/common.h"
#include "base/buf.h"
#include "base/mem.h"
#include "index/localsrc.h"
#include "resolver/gpucode.h"
#include "verify/wheel.h"
#include "base/os/os.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *wp_vo_show(const struct vo_ctx *c, const char *path)
{
	size_t n = c->real ? strlen(c->real) : 0;
	if (n && !strncmp(path, c->real, n) && (path[n] == '/' || !path[n]))
		return wp_xasprintf("%s%s", c->shown, path[n] ? path + n + 1 : "");
	return wp_xstrdup(path);
}

void wp_vo_problem_add(struct vo_ctx *c, bool fatal, const char *path, const char *fmt, ...)
{
	struct wp_verify_report *rep = c->rep;
	va_list ap;
	va_start(ap, fmt);
	char *what = NULL;
	if (vasprintf(&what, fmt, ap) < 0)
		abort();
	va_end(ap);
	struct wp_verify_problem p = { .path = wp_vo_show(c, path), .what = what, .fatal = fatal };
	wp_vec_push_fields(rep->problems, rep->n_problems, rep->cap_problems, p);
	rep->n_fatal += fatal;
}

/* ---- small helpers ---- */

bool wp_vo_is_file(const char *path)
{
	struct wp_os_stat sb;
	return wp_os_stat(path, &sb) == 0 && WP_S_ISREG(sb.st_mode);
}

bool wp_vo_is_dir(const char *path)
{
	struct wp_os_stat sb;
	return wp_os_stat(path, &sb) == 0 && WP_S_ISDIR(sb.st_mode);
}

/* Sorted names in dir (no dot files); the caller frees each and the array. */
char **wp_vo_list_dir(const char *dir, size_t *n)
{
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	while (d && (de = wp_os_readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		wp_vec_push_fields(v, *n, cap, wp_xstrdup(de->d_name));
	}
	if (d)
		wp_os_closedir(d);
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			char *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v;
}

void wp_vo_free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

struct vo_hashed *wp_vo_hash_of(struct vo_ctx *c, struct vo_hcache *hc, const char *path)
{
	for (size_t i = 0; i < hc->n; i++)
		if (!strcmp(hc->v[i]->path, path))
			return hc->v[i];
	struct vo_hashed *h = wp_xcalloc(1, sizeof(*h));
	wp_vec_push(hc, h);
	h->path = wp_xstrdup(path);
	struct wp_err e = WP_ERR_INIT;
	if (wp_hash_file(path, h->sha256, &h->size, &e) < 0)
		h->sha256[0] = 0;
	else
		c->rep->files++;
	return h;
}

void wp_vo_hcache_free(struct vo_hcache *hc)
{
	for (size_t i = 0; i < hc->n; i++) {
		free(hc->v[i]->path);
		free(hc->v[i]);
	}
	free(hc->v);
}

/* verify --target: the wheel's GPU code (read while RECORD was checked) on each GPU. none is a
 * failure (its import fails at the first kernel), ptx-jit a note; a wheel with no shared object
 * has nothing to judge. */
static void check_gpu_code(struct vo_ctx *c, const char *path, const struct wp_wheel_info *info)
{
	const struct wp_verify_gpus *g = c->rep->gpus;
	if (info->gpu_problem)
		wp_vo_problem_add(c, true, path, "%s", info->gpu_problem);
	if (!info->gpu_code)
		return;
	struct wp_buf why = WP_BUF_INIT, archs = WP_BUF_INIT;
	wp_gpucode_archs(info->gpu_code, &archs);
	for (int i = 0; i < g->n; i++) {
		enum wp_gpu_verdict v;
		struct wp_err e = WP_ERR_INIT;
		if (wp_gpucode_verdict(info->gpu_code, g->sm[i], g->driver_cuda, &v, &why, &e) <
		    0) {
			wp_vo_problem_add(c, true, path, "%s", e.msg);
			continue;
		}
		struct wp_verify_report *r = c->rep;
		wp_vec_push_fields(r->gpucode, r->n_gpucode, r->cap_gpucode,
				   ((struct wp_verify_gpucode){
					   .path = wp_vo_show(c, path),
					   .sm = g->sm[i],
					   .verdict = (int)v,
					   .why = why.len ? wp_xstrdup(wp_buf_cstr(&why)) : NULL,
					   .archs = wp_xstrdup(wp_buf_cstr(&archs)) }));
		if (v == WP_GPU_NONE)
			wp_vo_problem_add(c, true, path, "no kernel image for sm_%d: %s", g->sm[i],
					  wp_buf_cstr(&why));
		else if (v == WP_GPU_PTX_JIT)
			wp_vo_problem_add(c, false, path,
					  "runs on sm_%d only by JIT-compiling its PTX (a slow first run, "
					  "maybe slower kernels): %s",
					  g->sm[i], wp_buf_cstr(&why));
	}
	wp_buf_free(&why);
	wp_buf_free(&archs);
}

void wp_vo_check_wheel(struct vo_ctx *c, const char *path, const char *filename)
{
	struct wp_err e = WP_ERR_INIT;
	struct wp_wheel_info info = { 0 };
	int rc = filename ? wp_wheel_verify_named(path, filename, NULL, &info, &e)
			  : wp_wheel_verify(path, NULL, &info, &e);
	if (rc < 0)
		wp_vo_problem_add(c, true, path, "%s", e.msg);
	else
		c->rep->wheels++;
	if (rc >= 0 && c->rep->gpus)
		check_gpu_code(c, path, &info);
	wp_wheel_info_release(&info);
}

/* file:// URL of an absolute path (index/localsrc.c's wp_local_url), and tail. */
char *wp_vo_file_url(const char *abs, const char *tail)
{
	char *url = wp_local_url(abs);
	char *full = wp_xasprintf("%s%s", url, tail);
	free(url);
	return full;
}
