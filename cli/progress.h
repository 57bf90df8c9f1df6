/* cli/progress.h: transfer progress on a terminal: one line per transfer and a total, redrawn in
 * place. Silent unless enabled (stdout is a terminal and not -q). Owns its arrays. */
#ifndef WP_PROGRESS_H
#define WP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct wp_progress_sink;

struct wp_progress {
	bool on;
	size_t n;
	const char *const *names; /* borrowed for the job */
	long long *got, *total;
	double start;
	int drawn;                /* lines on screen */
};

/* A sink for ops/ that draws into p while on is true. */
void wp_progress_sink_for(struct wp_progress *p, bool on, struct wp_progress_sink *sink);

#endif
