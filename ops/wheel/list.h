/* ops/wheel/list.h: what the catalog has for one project, as pick sees it: every file, newest
 * first, each marked with whether a target could take it and, when pick would not look at its
 * source (a project comes from the first source that lists it), which source shadows it. A wp_list
 * owns everything in it (wp_list_release). */
#ifndef WP_OPS_WHEEL_LIST_H
#define WP_OPS_WHEEL_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "cache/catalog.h"
#include "ops/wheel/resolve.h"
#include "resolver/target.h"
#include "resolver/version.h"

struct wp_list_file {
	char *filename, *version, *variant, *url, *sha256, *kind, *tags, *requires_python, *yanked,
		*build, *subdir;
	char *source_url;         /* the page that lists it */
	const char *shadowed_by; /* the source pick takes this project from instead (into the list),
				    or NULL */
	long long size;
	struct wp_version v;      /* parsed (wheels), for ordering */
	bool v_ok;
	bool fits;                /* the target given to mark takes this file (judged alone) */
	char *gpu_code; /* the GPU code the store read from it (resolver/gpucode.h: "" none, "-" no
			   shared object), or NULL: the store has not read it */
	int gpu_verdict; /* on the marked target's GPUs (the worst; enum wp_gpu_verdict), -1 not
			    judged */
	int gpu_sm;               /* the GPU that verdict is for */
};

struct wp_list {
	struct wp_list_file *v;
	size_t n, cap;
	bool conda;
	size_t n_shadowed;
};

struct wp_list_job {
	bool conda;
	const struct wp_target *mark;          /* NULL: mark nothing */
	const struct wp_resolve_opts *policy; /* the sources in play, as pick would take them (may
						 be NULL) */
};

/* The files of project (a name as the user wrote it; normalised here for wheels). */
int wp_list_project(struct wp_catalog *cat, const char *project, const struct wp_list_job *o,
		    struct wp_list *out, struct wp_err *err);
void wp_list_release(struct wp_list *l);

/* The public version of a file ("1.8.0" for 1.8.0+cu111), or the version as written. */
void wp_list_public_version(const struct wp_list_file *f, bool conda, char *out, size_t n);

#endif
