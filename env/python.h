/* env/python.h: an interpreter's own facts, asked once per run by running it: its version, tags,
 * marker values, sys.executable and the sysconfig scheme paths an installer writes into (as pip
 * maps them for the default scheme, --prefix and --target); and running it again (compileall).
 * Ownership: a struct wp_python owns every string in it (wp_python_release). */
#ifndef WP_PYTHON_H
#define WP_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/marker.h"
#include "resolver/target.h"

enum wp_python_scheme {
	WP_SCHEME_DEFAULT, /* the interpreter's own environment (its venv, or its prefix) */
	WP_SCHEME_PREFIX,  /* pip's --prefix DIR */
	WP_SCHEME_TARGET,  /* pip's --target DIR: libraries straight into DIR, scripts in DIR/bin */
};

struct wp_python {
	char *path;        /* as given (python3, /venv/bin/python) */
	char *executable;  /* sys.executable: what shebangs and launchers name */
	char *prefix;      /* sys.prefix */
	char *version;     /* "3.11.7" */
	char *soabi;       /* "cpython-311-x86_64-linux-gnu", "" when none */
	char *cache_tag;   /* "cpython-311" */
	char *tag_platform;/* the most specific platform tag: "manylinux_2_36_x86_64" */
	bool in_venv;
	/* a Windows interpreter (os.name 'nt'): entry points are .exe launchers, .data scripts
	 * get pip's "#!EXE" CRLF line; its scheme paths are given with '/' (executable as it
	 * said) */
	bool windows;
	/* where each scheme of a wheel goes (absolute); headers is the folder above <dist name>/ */
	char *purelib, *platlib, *scripts, *data, *include;
	char *stdlib;      /* where PEP 668's EXTERNALLY-MANAGED marker would be */
	struct wp_target target;      /* for the tags it accepts */
	struct wp_marker_env markers; /* what its markers see */
};

/* Run `path` once and fill py. dir is the --prefix/--target folder (NULL for the default).
 * -WPE_ENV naming path when it cannot run or says nothing usable. */
int wp_python_probe(const char *path, enum wp_python_scheme scheme, const char *dir,
		    struct wp_python *py, struct wp_err *err);
/* The same, with the words for the advice in its messages (resolver/ask.h; NULL: plain words), and
 * the environment the interpreter runs with (the one cli/ hands down; NULL: an empty one). */
struct wp_asks;
int wp_python_probe_as(const char *path, enum wp_python_scheme scheme, const char *dir,
		       const struct wp_asks *asks, const char *const *envp, struct wp_python *py,
		       struct wp_err *err);
void wp_python_release(struct wp_python *py);

/* Run argv (argv[0] found on PATH when it has no '/') in the environment envp (the one cli/ hands
 * down; NULL: an empty one) with stdin_text on its stdin, its stdout (and stderr when merge) into
 * out (capped by out's ceiling), waiting at most timeout_ms. 0 with *status its exit status;
 * -WPE_ENV when it cannot start or runs out of time. */
int wp_env_run(const char *const *argv, const char *const *envp, const char *stdin_text,
	       size_t stdin_len, bool merge, int timeout_ms, struct wp_buf *out, int *status,
	       struct wp_err *err);

#endif
