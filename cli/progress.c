/* cli/progress.c: a redrawn block of progress lines on stderr. */
#include "cli/progress.h"
#include "base/mem.h"
#include "ops/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void human(char *out, size_t n, double bytes)
{
	const char *u[] = { "B", "kB", "MB", "GB", "TB" };
	int i = 0;
	while (bytes >= 1000 && i < 4) {
		bytes /= 1000;
		i++;
	}
	snprintf(out, n, i ? "%.1f %s" : "%.0f %s", bytes, u[i]);
}

static void begin(void *ctx, const char *const *names, const long long *sizes, size_t n)
{
	struct wp_progress *p = ctx;
	bool on = p->on;
	free(p->got);
	free(p->total);
	memset(p, 0, sizeof(*p));
	p->on = on && n > 0;
	p->n = n;
	p->names = names;
	p->got = wp_xcalloc(n ? n : 1, sizeof(*p->got));
	p->total = wp_xcalloc(n ? n : 1, sizeof(*p->total));
	for (size_t i = 0; i < n; i++)
		p->total[i] = sizes ? sizes[i] : -1;
	p->start = now();
}

static void draw(struct wp_progress *p)
{
	char a[32], b[32], r[32];
	long long got = 0, total = 0;
	bool known = true;
	if (p->drawn)
		fprintf(stderr, "\033[%dA", p->drawn);
	for (size_t i = 0; i < p->n; i++) {
		human(a, sizeof(a), (double)p->got[i]);
		if (p->total[i] > 0) {
			human(b, sizeof(b), (double)p->total[i]);
			fprintf(stderr, "\r\033[K  %-60.60s %9s / %-9s %3d%%\n", p->names[i], a, b,
				(int)(100.0 * (double)p->got[i] / (double)p->total[i]));
			total += p->total[i];
		} else {
			fprintf(stderr, "\r\033[K  %-60.60s %9s\n", p->names[i], a);
			known = false;
		}
		got += p->got[i];
	}
	double dt = now() - p->start, rate = dt > 0 ? (double)got / dt : 0;
	human(a, sizeof(a), (double)got);
	human(r, sizeof(r), rate);
	if (known && total > 0 && rate > 0) {
		human(b, sizeof(b), (double)total);
		fprintf(stderr, "\r\033[K  total %s / %s, %s/s, %.0f s left\n", a, b, r, (double)(total - got) / rate);
	} else {
		fprintf(stderr, "\r\033[K  total %s, %s/s\n", a, r);
	}
	p->drawn = (int)p->n + 1;
}

static void update(void *pctx, size_t index, long long received, long long total)
{
	struct wp_progress *p = pctx;
	if (!p->on || index >= p->n || !p->got)
		return;
	p->got[index] = received;
	if (total > 0)
		p->total[index] = total;
	draw(p);
}

static void end(void *ctx)
{
	struct wp_progress *p = ctx;
	bool on = p->on;
	if (p->on && p->drawn)
		draw(p);
	free(p->got);
	free(p->total);
	memset(p, 0, sizeof(*p));
	p->on = on;
}

void wp_progress_sink_for(struct wp_progress *p, bool on, struct wp_progress_sink *sink)
{
	memset(p, 0, sizeof(*p));
	p->on = on;
	*sink = (struct wp_progress_sink){ .begin = begin, .update = update, .end = end, .ctx = p };
}
