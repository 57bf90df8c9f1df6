/* ops/verify/installed.c: `verify --gpu` of an installed environment: each distribution's shared
 * objects, as its RECORD lists them, read from disk and their GPU code judged on the GPUs given. */
#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/str.h"
#include "ops/verify/common.h"
#include "resolver/gpucode.h"
#include "verify/fatbin.h"
#include "verify/gpufile.h"

#include <stdlib.h>
#include <string.h>

#define RECORD_MAX ((size_t)64 << 20)

/* The site-packages folder of dir: dir itself when it holds a *.dist-info folder, else, for a
 * virtual environment (pyvenv.cfg), its lib/python3.N/site-packages. NULL when neither. */
char *wp_vo_site_packages(const char *dir)
{
	size_t n;
	char **names = wp_vo_list_dir(dir, &n);
	char *found = NULL;
	for (size_t i = 0; i < n && !found; i++) {
		char *p = wp_xasprintf("%s/%s", dir, names[i]);
		if (wp_cstr_endswith(names[i], ".dist-info") && wp_vo_is_dir(p))
			found = wp_xstrdup(dir);
		free(p);
	}
	wp_vo_free_list(names, n);
	char *cfg = wp_xasprintf("%s/pyvenv.cfg", dir), *lib = wp_xasprintf("%s/lib", dir);
	if (!found && wp_vo_is_file(cfg)) {
		names = wp_vo_list_dir(lib, &n);
		for (size_t i = 0; i < n && !found; i++) {
			char *sp = wp_xasprintf("%s/%s/site-packages", lib, names[i]);
			if (!strncmp(names[i], "python3", 7) && wp_vo_is_dir(sp))
				found = sp;
			else
				free(sp);
		}
		wp_vo_free_list(names, n);
	}
	free(cfg);
	free(lib);
	return found;
}

/* A file's GPU code; NULL when it cannot be read (the problem is said, as is a container
 * refused). */
static char *file_code(struct vo_ctx *c, const char *path)
{
	char *code = NULL;
	struct wp_err e = WP_ERR_INIT;
	if (wp_gpu_code_of_file(path, &code, &e) < 0)
		wp_vo_problem_add(c, true, path, "%s", e.msg);
	if (code)
		c->rep->files++;
	return code;
}

/* The first field of each RECORD row (a path, CSV-quoted when it must be), one at a time. */
static bool record_path(struct wp_str *rest, struct wp_buf *out)
{
	wp_buf_reset(out);
	while (rest->n && (*rest->p == '\n' || *rest->p == '\r'))
		rest->p++, rest->n--;
	if (!rest->n)
		return false;
	struct wp_str line = wp_str_cut(rest, '\n');
	if (line.n && line.p[0] == '"') {
		for (size_t i = 1; i < line.n; i++) {
			if (line.p[i] == '"' && i + 1 < line.n && line.p[i + 1] == '"')
				wp_buf_addch(out, '"'), i++;
			else if (line.p[i] == '"')
				break;
			else
				wp_buf_addch(out, line.p[i]);
		}
	} else {
		const char *comma = memchr(line.p, ',', line.n);
		wp_buf_add(out, line.p, comma ? (size_t)(comma - line.p) : line.n);
	}
	wp_buf_cstr(out);
	return true;
}

void wp_vo_verify_installed(struct vo_ctx *c, const char *site)
{
	size_t n;
	char **names = wp_vo_list_dir(site, &n);
	struct wp_buf rec = WP_BUF_INIT, p = WP_BUF_INIT, code = WP_BUF_INIT, merged = WP_BUF_INIT,
		      why = WP_BUF_INIT, archs = WP_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (!wp_cstr_endswith(names[i], ".dist-info"))
			continue;
		char *dist = wp_xasprintf("%s/%s", site, names[i]),
		     *rpath = wp_xasprintf("%s/RECORD", dist);
		struct wp_err e = WP_ERR_INIT;
		bool any_so = false;
		wp_buf_reset(&code);
		wp_buf_free(&rec); /* the reader starts a buffer of its own */
		if (wp_file_read_capped(rpath, RECORD_MAX, &rec, &e) < 0) {
			wp_vo_problem_add(c, true, rpath, "%s", e.msg);
			goto next;
		}
		struct wp_str rest = WP_STRN(rec.data ? rec.data : "", rec.len);
		while (record_path(&rest, &p)) {
			/* the distribution's own files: nothing outside site-packages is a shared
			 * object of it */
			if (!wp_fatbin_wanted(p.data) || p.data[0] == '/' || strstr(p.data, ".."))
				continue;
			char *f = wp_xasprintf("%s/%s", site, p.data);
			char *fc = file_code(c, f);
			free(f);
			if (!fc)
				continue;
			any_so = true;
			wp_gpucode_merge(wp_buf_cstr(&code), fc, &merged);
			struct wp_buf t = code;
			code = merged;
			merged = t;
			free(fc);
		}
		c->rep->wheels++;
		if (!any_so)
			goto next;
		wp_gpucode_archs(wp_buf_cstr(&code), &archs);
		for (int g = 0; g < c->rep->gpus->n; g++) {
			const int sm = c->rep->gpus->sm[g];
			enum wp_gpu_verdict v;
			wp_err_clear(&e);
			if (wp_gpucode_verdict(wp_buf_cstr(&code), sm, c->rep->gpus->driver_cuda,
					       &v, &why, &e) < 0)
				continue;
			struct wp_verify_report *r = c->rep;
			wp_vec_push_fields(r->gpucode, r->n_gpucode, r->cap_gpucode,
					   ((struct wp_verify_gpucode){
						   .path = wp_xstrdup(dist),
						   .sm = sm,
						   .verdict = (int)v,
						   .why = why.len ? wp_xstrdup(wp_buf_cstr(&why)) :
								    NULL,
						   .archs = wp_xstrdup(wp_buf_cstr(&archs)) }));
			if (v == WP_GPU_NONE)
				wp_vo_problem_add(c, true, dist, "no kernel image for sm_%d: %s",
						  sm, wp_buf_cstr(&why));
			else if (v == WP_GPU_PTX_JIT)
				wp_vo_problem_add(c, false, dist,
						  "runs on sm_%d only by JIT-compiling its PTX (a slow first run, "
						  "maybe slower kernels): %s",
						  sm, wp_buf_cstr(&why));
		}
next:
		free(rpath);
		free(dist);
	}
	wp_vo_free_list(names, n);
	wp_buf_free(&rec);
	wp_buf_free(&p);
	wp_buf_free(&code);
	wp_buf_free(&merged);
	wp_buf_free(&why);
	wp_buf_free(&archs);
}
