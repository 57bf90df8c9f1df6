/* index/pylock.h: PEP 751 lock files (pylock.toml) read and selected from, as packaging HEAD
 * (26.4.dev0) does: wp_pylock_parse is Pylock.from_dict(tomllib.load(f)) (every check it makes,
 * in its words where it has words), wp_pylock_select is Pylock.select(environment, tags, extras,
 * dependency_groups) with no sdist preference. tests/diff/pylock_diff.py holds both to the
 * vendored packaging.
 *
 * Who uses it: `wheelpick verify pylock.toml`, `pick --lock pylock.toml` (ops/wheel/pylock_fetch.c)
 * and `wheelpick install pylock.toml`. This module reads and selects only: it fetches nothing,
 * verifies no hash and never refuses a source kind; the caller decides what it can honor (pick
 * --lock fetches wheel, sdist and archive files by url or path; wheelpick builds nothing, so
 * install refuses sdists and archives, and both refuse directory and vcs picks, naming the
 * package).
 *
 * One deliberate difference from packaging: a wheel name with a PEP 825 variant label
 * ({name}-{version}-{py}-{abi}-{plat}-{label}.whl) is read as the wheel it is (packaging HEAD
 * refuses the lock), since wheelpick's own locks may name variant wheels.
 *
 * Ownership: a struct wp_pylock owns everything in it (strings, markers, specifier sets, the
 * arrays) until wp_pylock_release. wp_pylock_select's array is the caller's to free() (one
 * free; its pointers borrow the lock, which must outlive it). */
#ifndef WP_PYLOCK_H
#define WP_PYLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "resolver/marker.h"
#include "resolver/specifier.h"
#include "resolver/tags.h"
#include "resolver/target.h"

#define WP_PYLOCK_MAX_BYTES (64u << 20) /* the TOML reader's cap */

enum wp_pylock_source {
	WP_PYLOCK_WHEEL,     /* packages.wheels[i] */
	WP_PYLOCK_SDIST,     /* packages.sdist */
	WP_PYLOCK_ARCHIVE,   /* packages.archive: a direct URL or path to an archive */
	WP_PYLOCK_DIRECTORY, /* packages.directory: a local source tree */
	WP_PYLOCK_VCS,       /* packages.vcs: a repository at a commit */
};

struct wp_pylock_hash {
	char *algo; /* as written: "sha256" */
	char *hex;  /* as written */
};

/* A wheel, the sdist, or the archive of a package. */
struct wp_pylock_file {
	char *name;        /* the file name: name, else path's last part, else url's last path part
			      (percent-decoded); NULL for an archive, which has no name key */
	char *url;         /* NULL when absent */
	char *path;        /* NULL when absent; relative paths are relative to the lock's folder */
	long long size;    /* -1 when absent */
	char *upload_time; /* TOML date-time text, or NULL */
	char *subdirectory; /* archive only, or NULL */
	struct wp_pylock_hash *hashes; /* at least one */
	size_t nhashes;
};

struct wp_pylock_directory {
	char *path;
	int editable; /* -1 absent, 0, 1 */
	char *subdirectory;
};

struct wp_pylock_vcs {
	char *type, *url, *path, *requested_revision, *commit_id, *subdirectory; /* NULL when absent
										  */
};

struct wp_pylock_package {
	size_t index;           /* where it is in packages[] (messages say packages[index]) */
	char *name;             /* PEP 503 normalised (the lock must write it so) */
	char *version;          /* as written, or NULL (direct sources may leave it out) */
	char *marker_text;      /* as written, or NULL */
	struct wp_marker marker;
	bool has_requires_python;
	struct wp_specset requires_python;
	char *index_url;        /* packages.index, or NULL */
	struct wp_pylock_file *wheels;
	size_t nwheels;
	struct wp_pylock_file *sdist;   /* or NULL */
	struct wp_pylock_file *archive; /* or NULL */
	struct wp_pylock_directory *directory; /* or NULL */
	struct wp_pylock_vcs *vcs;      /* or NULL */
	size_t ndependencies;   /* packages.dependencies (read for their count only) */
};

struct wp_pylock {
	char *lock_version;     /* as written: "1.0" */
	bool newer_minor; /* 1.x with x > 0: read anyway; PEP 751 says warn (the caller does) */
	char *created_by;
	bool has_environments;
	struct wp_marker *environments;
	char **environment_texts;
	size_t nenvironments;
	bool has_requires_python;
	struct wp_specset requires_python;
	char **extras;          /* the extras the lock can install */
	size_t nextras;
	char **dependency_groups;
	size_t ndependency_groups;
	bool has_default_groups;
	char **default_groups;
	size_t ndefault_groups;
	struct wp_pylock_package *packages;
	size_t npackages;
};

/* Read and validate n bytes of pylock.toml (what names it in messages). lk is overwritten; after
 * failure it holds nothing. -WPE_PARSE: not TOML, or not a valid PEP 751 lock (the message
 * names the key, as "packages[3].wheels[0]", and what is wrong); -WPE_TOO_BIG over the caps. */
int wp_pylock_parse(struct wp_pylock *lk, const char *text, size_t n, const char *what,
		    struct wp_err *err);
void wp_pylock_release(struct wp_pylock *lk);
/* The same for the file at path (read whole, at most WP_PYLOCK_MAX_BYTES; -WPE_IO when it cannot
 * be read, -WPE_TOO_BIG past the cap). */
int wp_pylock_load(struct wp_pylock *lk, const char *path, struct wp_err *err);

/* What to select for. env: the target's marker values (python_full_version must be set; its
 * extras and dependency_groups are ignored: the lists below fill them). Tags in priority order:
 * tags, or when it is NULL, tag_list[0..ntags) (best first). groups: NULL for the lock's
 * default-groups (packaging's dependency_groups=None), else exactly these (may be empty). */
struct wp_pylock_want {
	const struct wp_marker_env *env;
	const struct wp_tagset *tags;
	const char *const *tag_list;
	size_t ntags;
	const char *const *extras;
	size_t nextras;
	const char *const *groups;
	size_t ngroups;
};

/* One package to install and the one source of it to use. */
struct wp_pylock_pick {
	const struct wp_pylock_package *pkg;
	enum wp_pylock_source source;
	const struct wp_pylock_file *file; /* WHEEL, SDIST, ARCHIVE; NULL for DIRECTORY and VCS */
};

/* Pylock.select: the packages whose marker holds for the target, in lock order, each with its
 * source (vcs, else directory, else archive, else the wheel whose best tag ranks first among
 * the target's, first in lock order on a tie, else the sdist). Errors, as packaging raises
 * PylockSelectError: -WPE_NOMATCH when the lock's or a selected package's requires-python
 * excludes the target's python_full_version, when no environments marker holds, or when a
 * package has no wheel for the target and no sdist (the message names the package and
 * packages[i]); -WPE_PARSE when two selected entries name the same package, or a marker cannot
 * be evaluated. On success *out (NULL when *n is 0) is the caller's to free(). */
int wp_pylock_select(const struct wp_pylock *lk, const struct wp_pylock_want *w,
		     struct wp_pylock_pick **out, size_t *n, struct wp_err *err);

/* wp_pylock_select for a wheelpick target: its marker values (wp_marker_env_from_target) and its
 * tags (wp_tagset_build), the given extras, and the lock's default-groups when groups is NULL.
 * Errors as wp_pylock_select's, and -WPE_USAGE for a target no tags can be made for. */
int wp_pylock_select_target(const struct wp_pylock *lk, const struct wp_target *t,
			    const char *const *extras, size_t nextras, const char *const *groups,
			    size_t ngroups, struct wp_pylock_pick **out, size_t *n,
			    struct wp_err *err);

/* The words for a source kind: "wheel", "sdist", "archive", "directory", "vcs". */
const char *wp_pylock_source_name(enum wp_pylock_source s);

#endif
