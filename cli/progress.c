/* cli/progress.c: a progress bar redrawn on a terminal, a line per finished file everywhere. */
#include "cli/progress.h"
#include "base/envp.h"
#include "base/mem.h"
#include "ops/core/session.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	return (double)wp_os_monotonic_ns() / 1e9;
}

void wp_progress_human(char *out, size_t n, double bytes)
{
	const char *u[] = { "B", "kB", "MB", "GB", "TB" };
	int i = 0;
	while (bytes >= 1000 && i < 4) {
		bytes /= 1000;
		i++;
	}
	snprintf(out, n, i ? "%.1f %s" : "%.0f %s", bytes, u[i]);
}

static int columns(void)
{
	int w = wp_os_term_width(WP_OS_STDERR);
	if (w >= 20)
		return w;
	const char *c = wp_envp_get(wp_os_environ(), "COLUMNS");
	long v = c ? strtol(c, NULL, 10) : 0;
	return v >= 20 && v < 10000 ? (int)v : 80;
}

static void release(struct wp_progress *p)
{
	enum wp_progress_mode mode = p->mode;
	free(p->got);
	free(p->kept);
	free(p->total);
	free(p->done);
	free(p->bad);
	memset(p, 0, sizeof(*p));
	p->mode = mode;
}

static void begin(void *ctx, const char *const *names, const long long *sizes, size_t n)
{
	struct wp_progress *p = ctx;
	release(p);
	p->n = n;
	p->names = names;
	p->got = wp_xcalloc(n ? n : 1, sizeof(*p->got));
	p->kept = wp_xcalloc(n ? n : 1, sizeof(*p->kept));
	p->total = wp_xcalloc(n ? n : 1, sizeof(*p->total));
	p->done = wp_xcalloc(n ? n : 1, sizeof(*p->done));
	p->bad = wp_xcalloc(n ? n : 1, sizeof(*p->bad));
	for (size_t i = 0; i < n; i++)
		p->total[i] = sizes ? sizes[i] : -1;
	p->start = now();
	p->width = columns();
}

/* Bytes so far (a finished file counts whole) and the total, when every size is known. */
static void sums(const struct wp_progress *p, long long *got, long long *total, bool *known,
		 long long *moved)
{
	*got = *total = *moved = 0;
	*known = true;
	for (size_t i = 0; i < p->n; i++) {
		*moved += p->got[i] - p->kept[i]; /* what came in this run */
		*got += p->done[i] && p->total[i] > 0 ? p->total[i] : p->got[i];
		if (p->total[i] > 0)
			*total += p->total[i];
		else
			*known = false;
	}
}

static void clear_bar(struct wp_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = false;
}

static void draw(struct wp_progress *p)
{
	char a[32], b[32], r[32], left[32] = "", line[512];
	long long got, total, moved;
	bool known;
	sums(p, &got, &total, &known, &moved);
	double dt = now() - p->start, rate = dt > 0.2 ? (double)moved / dt : 0;
	wp_progress_human(a, sizeof(a), (double)got);
	wp_progress_human(r, sizeof(r), rate);
	if (known && total > 0 && rate > 0) {
		long s = (long)((double)(total - got) / rate);
		snprintf(left, sizeof(left), ", %ld:%02ld left", s / 60, s % 60);
	}
	if (known && total > 0)
		wp_progress_human(b, sizeof(b), (double)total);
	else
		snprintf(b, sizeof(b), "?");
	char tail[160];
	snprintf(tail, sizeof(tail), " %s / %s, %s/s%s, %zu/%zu files", a, b, r, left, p->n_done,
		 p->n);
	/* the bar takes what the line leaves, between 10 and 40 cells */
	int cells = p->width - (int)strlen(tail) - 4;
	if (cells > 40)
		cells = 40;
	if (cells < 10)
		cells = 0;
	int fill = known && total > 0 ? (int)((double)cells * (double)got / (double)total) : 0;
	if (fill > cells)
		fill = cells;
	int k = 0;
	if (cells) {
		line[k++] = '[';
		for (int c = 0; c < cells; c++)
			line[k++] = c < fill ? '#' : c == fill && known ? '>' : ' ';
		line[k++] = ']';
	}
	snprintf(line + k, sizeof(line) - (size_t)k, "%s", tail);
	line[p->width > 1 && p->width - 1 < (int)sizeof(line) ? p->width - 1 :
								(int)sizeof(line) - 1] = 0;
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	p->drawn = true;
	p->last_draw = now();
}

/* One line for a finished file, above the bar when there is one. */
static void finished(struct wp_progress *p, size_t i, const char *how, int result)
{
	char size[32] = "";
	if (p->done[i] && (!result || p->bad[i]))
		return;
	if (p->done[i]) {
		/* its bytes all came, then it failed its checks: counted so, and said */
		p->bad[i] = true;
		if (result == -WPE_INTEGRITY)
			p->n_refused++;
		else
			p->n_failed++;
		if (p->mode == WP_PROGRESS_OFF)
			return;
		clear_bar(p);
		fprintf(stderr, "  %s %s\n", p->names[i],
			result == -WPE_INTEGRITY ? "refused: it failed its checks" : "failed");
		if (p->mode == WP_PROGRESS_BAR)
			draw(p);
		return;
	}
	p->done[i] = true;
	p->n_done++;
	if (result) {
		p->bad[i] = true;
		if (result == -WPE_INTEGRITY)
			p->n_refused++;
		else
			p->n_failed++;
	}
	if (p->mode == WP_PROGRESS_OFF)
		return;
	if (p->total[i] > 0)
		wp_progress_human(size, sizeof(size), (double)p->total[i]);
	else if (p->got[i] > 0)
		wp_progress_human(size, sizeof(size), (double)p->got[i]);
	clear_bar(p);
	fprintf(stderr, "  [%zu/%zu] %s%s%s%s%s\n", p->n_done, p->n, p->names[i],
		size[0] ? " (" : "", size, size[0] ? ")" : "", how);
	if (p->mode == WP_PROGRESS_BAR)
		draw(p);
	fflush(stderr);
}

static void update(void *pctx, size_t index, long long received, long long total)
{
	struct wp_progress *p = pctx;
	if (index >= p->n || !p->got)
		return;
	if (received < p->kept[index])
		p->kept[index] = 0; /* the server would not resume it: it came again from byte 0 */
	p->got[index] = received;
	if (total > 0)
		p->total[index] = total;
	if (p->total[index] > 0 && received >= p->total[index])
		finished(p, index, "", 0);
	else if (p->mode == WP_PROGRESS_BAR && now() - p->last_draw >= 0.1)
		draw(p);
}

static void resumed(void *ctx, size_t index, long long kept)
{
	struct wp_progress *p = ctx;
	if (index < p->n && p->kept && kept > 0)
		p->kept[index] = p->got[index] = kept;
}

static void file_done(void *ctx, size_t index, int result, bool cached)
{
	struct wp_progress *p = ctx;
	if (index >= p->n || !p->done)
		return;
	finished(p, index,
		 result == -WPE_INTEGRITY ? " refused" :
		 result                   ? " failed" :
		 cached                   ? " already downloaded" :
					    "",
		 result);
}

static void end(void *ctx)
{
	struct wp_progress *p = ctx;
	if (p->n && p->mode != WP_PROGRESS_OFF) {
		char a[32], r[32];
		long long got, total, moved;
		bool known;
		sums(p, &got, &total, &known, &moved);
		double dt = now() - p->start;
		clear_bar(p);
		wp_progress_human(a, sizeof(a), (double)moved);
		wp_progress_human(r, sizeof(r), dt > 0 ? (double)moved / dt : 0);
		/* ready, refused and failed count the same files the plan's total does */
		fprintf(stderr, "  total %s downloaded in %.1f s (%s/s); %zu of %zu files ready", a,
			dt, r, p->n_done - p->n_failed - p->n_refused, p->n);
		if (p->n_refused)
			fprintf(stderr, ", %zu refused", p->n_refused);
		if (p->n_failed)
			fprintf(stderr, ", %zu failed", p->n_failed);
		fputc('\n', stderr);
		fflush(stderr);
	}
	release(p);
}

void wp_progress_sink_for(struct wp_progress *p, enum wp_progress_mode mode,
			  struct wp_progress_sink *sink)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	*sink = (struct wp_progress_sink){ .begin = begin,
					   .update = update,
					   .resumed = resumed,
					   .file_done = file_done,
					   .end = end,
					   .ctx = p };
}
