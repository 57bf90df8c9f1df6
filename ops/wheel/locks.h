/* ops/wheel/locks.h: what installs a plan on each of its targets: pip requirement files (hashes,
 * and the environment marker of the targets each line is for) and PEP 751 lock files (pylock.toml).
 * Targets that markers cannot tell apart (the same Python and platform, another CUDA driver or
 * GPU) get files of their own, named by a slug ("cu124-py3.10-manylinux_2_28_x86_64").
 * Everything is borrowed; a wp_lock_report owns its strings (wp_lock_report_release). */
#ifndef WP_OPS_WHEEL_LOCKS_H
#define WP_OPS_WHEEL_LOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/solve.h"

/* One file written, and the machines it is for. */
struct wp_lock_file {
	char *name; /* "requirements.txt", "pylock.cu124-py3.10-manylinux_2_28_x86_64.toml" */
	char *for_whom;    /* "every target", or one target described */
};

struct wp_lock_report {
	struct wp_lock_file *v;
	size_t n, cap;
	char **warnings;   /* what a lock left out and why, for the user */
	size_t n_warnings;
};

void wp_lock_report_release(struct wp_lock_report *rep);
/* Records one file written (the strings are copied). */
void wp_lock_report_add(struct wp_lock_report *rep, const char *name, const char *for_whom);
/* Removes from dir the files of a set (SHARED, or PREFIX*SUFFIX) that an earlier run wrote and
 * this one did not (written->v[from..]): they would promise files that are not there. Only files
 * whose first line says "written by wheelpick" go. */
void wp_lock_remove_stale(const char *dir, const char *shared, const char *prefix,
			  const char *suffix, const struct wp_lock_report *written, size_t from);

/* How a lock names its files: in a wheelhouse each file by its path beside the lock; elsewhere by
 * the URL it came from. */
enum wp_lock_files { WP_LOCK_URLS, WP_LOCK_PATHS };

/* requirements.txt (and requirements-SLUG.txt for targets markers cannot tell apart) into dir:
 * pip's hash-checking form, one line per project and version, the hashes of every file of it the
 * targets use, and a marker when not every target of the file needs it. -WPE_SOURCE when a file
 * has no sha256 (pip's --require-hashes needs one). */
int wp_write_requirements(const struct wp_plan *plan, const char *dir, struct wp_lock_report *rep,
			  struct wp_err *err);

/* pylock.toml (and pylock.SLUG.toml likewise) into dir, PEP 751 version 1.0: environments,
 * requires-python, created-by (a package's requires-python from the index only when it is a PEP
 * 440 specifier set; else it is left out and rep->warnings says so), a [[packages]] entry per name
 * and version with the marker of the targets that need it and its wheels (name, url or path, size,
 * sha256), and each target's variant under [tool.wheelpick]. -WPE_SOURCE when a file has no
 * sha256. */
int wp_write_pylock(const struct wp_plan *plan, const char *dir, enum wp_lock_files how,
		    struct wp_lock_report *rep, struct wp_err *err);
/* The same with the shared lock named (PEP 751: "pylock.toml" or "pylock.NAME.toml"; -WPE_USAGE
 * otherwise). */
int wp_write_pylock_named(const struct wp_plan *plan, const char *dir, const char *name,
			  enum wp_lock_files how, struct wp_lock_report *rep, struct wp_err *err);

/* PEP 825's [packages.variants-json] table for pylock.toml, keeping only the labels in keep (all
 * when keep is NULL) and the namespaces they use: "$schema", default-priorities.namespace and
 * variants, as TOML appended to out under the header prefix ("packages.variants-json"). */
void wp_pylock_variants_toml(const struct wp_variants *v, const char *const *keep, size_t n_keep,
			     const char *prefix, struct wp_buf *out);

/* A target's slug for file names ("cu124-py3.10-manylinux_2_28_x86_64", "cpu-py3.12-win_amd64",
 * "driver535.104.05-sm86-py3.10-..."). out is reset first. */
void wp_target_slug(const struct wp_target *t, struct wp_buf *out);

#endif
