/* env/run.h: the one way env/ runs a program: wp_os_spawn (posix_spawn, CreateProcessW) in a
 * process group of its own, stdin from text (or /dev/null), stdout (and stderr when asked) into a
 * buffer with a ceiling, a time limit, and its whole group killed once it is done. Detection runs
 * several at once; wp_env_run (env/python.h) one. */
#ifndef WP_RUN_H
#define WP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include "base/buf.h"
#include "base/os/os.h"

/* One program run. The caller zeroes it (wp_run_init), fills the inputs and frees out. */
struct wp_run {
	/* inputs */
	const char *argv[8]; /* NULL-terminated; argv[0] a path, or a name found on PATH when search
			      */
	bool search;            /* argv[0] looked up on PATH as execvp does */
	bool merge_stderr;      /* stderr into out too; otherwise to /dev/null ... */
	bool inherit_stderr;    /* ... or, with this, where ours goes */
	bool drain; /* past out's ceiling read on and drop (wait for the exit); otherwise stop
		     * there and kill it: enough was read to parse */
	const char *stdin_text; /* its stdin (NULL: /dev/null) */
	const char *const *envp; /* its environment: the one cli/ hands down (base/envp.h); NULL: an
				    empty one */
	size_t stdin_len;
	/* outputs */
	struct wp_buf out;      /* its output, at most out.max bytes when that is set */
	int status;             /* exit status; -1 when it did not start, was killed or crashed */
	int signal;             /* the signal that ended it, or 0 */
	int spawn_errno;        /* why it did not start (its exec failing reads as status 127) */
	bool started, timed_out, truncated, skipped;
	/* the runner's */
	struct wp_os_proc proc;
	int fd, in_fd;
	size_t sent;
	long long deadline;
	bool done;
};

/* r zeroed, out given its ceiling (0: none), no process yet. */
void wp_run_init(struct wp_run *r, size_t out_max);

/* Run them, at most at_once at a time (0: the processor count, 4 at the least), each with its own
 * timeout_ms; those not started after three time limits are skipped (->skipped), so a handful of
 * hung programs cannot add up. */
void wp_run_all(struct wp_run *runs, size_t n, size_t at_once, int timeout_ms);

#endif
