/* ops/wheel/pylock_fetch.h: `pick --lock pylock.toml`: the plan a PEP 751 lock names for the
 * targets, with no resolution and no index: each target selects from the lock (index/pylock.h, as
 * packaging's Pylock.select), and each wheel, sdist or archive it selects becomes a plan file (a
 * url as written; a path resolved against the lock's folder, as a file:// URL), so that
 * wp_pick_fetch proves it by the lock's sha256 and size (a wheel's contents too) and
 * wp_pick_write_wheelhouse writes the offline-ready folder; an sdist or archive is carried as a
 * file, never built.
 * Ownership: run is filled as wp_pick_plan fills it (wp_pick_run_release frees it). */
#ifndef WP_OPS_WHEEL_PYLOCK_FETCH_H
#define WP_OPS_WHEEL_PYLOCK_FETCH_H

#include "base/err.h"
#include "ops/core/session.h"
#include "ops/wheel/pick.h"

/* Errors: -WPE_IO reading the lock or a file it names by path; -WPE_PARSE for a lock that is not
 * valid PEP 751, or a file with no sha256 (wheelpick proves files by sha256); -WPE_NOMATCH when a
 * target selects what wheelpick cannot fetch: a package whose source is a directory or vcs
 * (the message names the package and what to do), or no wheel or sdist for the target. */
/* extras: the extras to install (PEP 751's extras marker set); groups: the dependency groups, or
 * NULL for the lock's default-groups. */
int wp_pylock_plan(const struct wp_session *s, const struct wp_pick_job *job, const char *lock_path,
		   const char *const *extras, size_t nextras, const char *const *groups,
		   size_t ngroups, struct wp_pick_run *run, struct wp_err *err);

#endif
