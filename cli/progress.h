/* cli/progress.h: download progress on stderr: on a terminal one bar redrawn in place (bytes,
 * rate, time left, files) with a line above it for each finished file; elsewhere (a CI log) only
 * the line per finished file and a last line with the totals. Owns its arrays. */
#ifndef WP_PROGRESS_H
#define WP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct wp_progress_sink;

enum wp_progress_mode {
	WP_PROGRESS_OFF,   /* -q */
	WP_PROGRESS_LINES, /* not a terminal, or --json */
	WP_PROGRESS_BAR,   /* a terminal */
};

struct wp_progress {
	enum wp_progress_mode mode;
	size_t n, n_done, n_failed;
	size_t n_refused; /* of n_done: failed their checks (integrity), not counted ready */
	const char *const *names; /* borrowed for the job */
	long long *got, *total;
	long long *kept; /* what an earlier run had kept of each (resumed): not downloaded now */
	bool *done;
	bool *bad; /* counted failed or refused (a file can finish, then fail its checks) */
	double start, last_draw;
	bool drawn;               /* the bar is on screen */
	int width;                /* the terminal's columns */
};

/* A sink for ops/ that reports into p in the given mode. */
void wp_progress_sink_for(struct wp_progress *p, enum wp_progress_mode mode,
			  struct wp_progress_sink *sink);
/* "1.2 GB" into out. */
void wp_progress_human(char *out, size_t n, double bytes);

#endif
