/* resolver/reqfile.h: pip's requirements files (-r) and constraints files (-c), read as pip reads
 * them: lines joined at a trailing backslash, '#' comments, ${VAR} from the environment, one
 * requirement per line with its --hash options and environment marker, nested -r/-c files, and
 * pip's option lines: the ones wheelpick can honour (sources, --pre, --require-hashes, --no-index)
 * are recorded; the others are refused with a message naming the file, the line and what to do.
 * Pure: files and environment variables come through callbacks the caller gives (no I/O here).
 * Ownership: a wp_reqfile owns every string in it (wp_reqfile_release); callbacks' arguments are
 * borrowed for the call. */
#ifndef WP_REQFILE_H
#define WP_REQFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/vec.h"
#include "resolver/ask.h"
#include "resolver/requirement.h"

#define WP_REQFILE_MAX_DEPTH   10       /* -r inside -r inside ...: deeper is refused */
#define WP_REQFILE_MAX_ENTRIES 100000   /* requirements and constraints, all files together */
#define WP_REQFILE_MAX_BYTES   (8 << 20) /* one file; the reader is asked for no more */
#define WP_REQFILE_MAX_HASHES  256      /* --hash options on one line */
#define WP_REQFILE_MAX_FILES   1000     /* files read through -r/-c, all together: a fan-out ends */
#define WP_REQFILE_MAX_TOTAL   (64 << 20) /* bytes read, all files together */
#define WP_REQFILE_MAX_INCLUDES 100000  /* -r/-c lines, all files together (read or not) */

struct wp_reqfile_req {
	char *text; /* the requirement without its options: "torch==2.4.0; sys_platform == 'linux'"
		     */
	char *project;    /* PEP 503 name: "torch" */
	char **hashes;    /* sha256 values (64 lower-case hex digits) from --hash options */
	size_t nhashes;
	bool constraint; /* read from a constraints file (-c): binds a project only when it is
			    pulled in */
	bool pinned; /* one == (no wildcard) or === specifier: what pip's hash-checking mode needs
		      */
	char *where;      /* "requirements.txt:12", for messages */
	struct wp_req req; /* text, parsed: a line's one parse (a caller may move it out, leaving it
	                      zeroed) */
};

enum wp_reqfile_source_kind {
	WP_REQFILE_INDEX_URL,       /* -i / --index-url */
	WP_REQFILE_EXTRA_INDEX_URL, /* --extra-index-url */
	WP_REQFILE_FIND_LINKS,      /* -f / --find-links */
};

struct wp_reqfile_source {
	char *url; /* as written, ${VAR} expanded; a relative path is joined to the file's folder */
	enum wp_reqfile_source_kind kind;
	char *where;
};

WP_VEC_OF(wp_reqfile_reqs, struct wp_reqfile_req);
WP_VEC_OF(wp_reqfile_sources, struct wp_reqfile_source);
WP_VEC_OF(wp_reqfile_notes, char *);

struct wp_reqfile {
	struct wp_reqfile_reqs reqs; /* in the order read, nested files where they were named */
	struct wp_reqfile_sources sources; /* in the order read */
	struct wp_reqfile_notes notes;     /* options read and ignored, said to the user */
	bool pre;                          /* --pre */
	bool no_index; /* --no-index: --index-url/--extra-index-url are not used */
	bool require_hashes;               /* --require-hashes */
	unsigned files;                    /* files read */
	unsigned long long bytes;          /* bytes read, all files together */
	unsigned includes;                 /* -r/-c lines met, all files together */
	struct wp_reqfile_notes read; /* "r:PATH" or "c:PATH" for each file read: one named twice
					 (as requirements, or as constraints) is read once */
};

/* The whole file at path, into out (whose ceiling the reader sets, at most WP_REQFILE_MAX_BYTES):
 * 0, or a negative -WPE_* with err naming the path. */
typedef int wp_reqfile_read_fn(void *ctx, const char *path, struct wp_buf *out, struct wp_err *err);
/* The value of an environment variable, or NULL. */
typedef const char *wp_reqfile_env_fn(void *ctx, const char *name);

struct wp_reqfile_io {
	wp_reqfile_read_fn *read;  /* NULL: a nested -r/-c is refused */
	/* ${VAR}: its value from what the caller hands down (cli/: the session's environment);
	 * NULL: ${VAR} stays as written */
	wp_reqfile_env_fn *lookup_var;
	void *ctx;
	const struct wp_asks *asks; /* how the user adds an index, for the advice; NULL: plain words
				     */
};

/* Read the file at path (through io->read) and the files it names into rf, which accumulates
 * over calls (zero-initialise it first). constraint: path is a constraints file. -WPE_USAGE for
 * what the files say wrong (naming file and line), or the reader's error. */
int wp_reqfile_load(struct wp_reqfile *rf, const char *path, bool constraint,
		    const struct wp_reqfile_io *io, struct wp_err *err);
/* The same for text already in memory; name is its path (for messages and nested files). */
int wp_reqfile_parse(struct wp_reqfile *rf, const char *name, const char *text, size_t len,
		     bool constraint, const struct wp_reqfile_io *io, struct wp_err *err);
/* pip's hash-checking mode, once everything is read: when --require-hashes was given (in a file,
 * or require_hashes here) or any requirement has a --hash, every requirement (not constraint)
 * must be pinned with == or === and have a --hash. -WPE_USAGE naming the first that is not. */
int wp_reqfile_check_hashes(const struct wp_reqfile *rf, bool require_hashes, struct wp_err *err);
void wp_reqfile_release(struct wp_reqfile *rf);

/* What a pip or conda habit meant, in PEP 508: "torch=2.9" (conda's '=') and "torch 2.9"
 * (conda's space) become "torch==2.9". true with the fix appended to out, false when the text
 * has no such shape. */
bool wp_requirement_guess(const char *text, struct wp_buf *out);
/* True when a word looks like a version or a version specifier on its own ("1.8.*", ">=2.0",
 * "2.4"), as the second half of an unquoted conda "pytorch 1.8.*" does. */
bool wp_looks_like_version_spec(const char *word);

#endif
