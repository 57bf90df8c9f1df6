/* cli/progress.h: transfer progress on a terminal: one line per transfer and a total, redrawn in
 * place. Silent unless enabled (stdout is a terminal and not -q). Owns its arrays. */
#ifndef WP_PROGRESS_H
#define WP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct wp_progress {
	bool on;
	size_t n;
	const char **names;     /* borrowed */
	long long *got, *total;
	double start;
	int drawn;              /* lines on screen */
};

void wp_progress_init(struct wp_progress *p, bool on, const char **names, const long long *sizes, size_t n);
/* matches net's wp_dl_progress_fn */
void wp_progress_update(void *pctx, size_t index, long long received, long long total);
void wp_progress_finish(struct wp_progress *p);

#endif
