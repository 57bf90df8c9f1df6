/* tests/cli/killat.c: an LD_PRELOAD shim for crash tests: kill -9 the process just before its
 * Nth change to a tree (rename, unlink, rmdir, mkdir of a path under WP_KILL_UNDER), so that a
 * test reaches every intermediate state of a job's writes in turn. WP_KILL_AT=N (1-based); with
 * WP_KILL_COUNT=FILE the process is not killed and writes how many changes it made at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long seen;

static void report(void)
{
	const char *f = getenv("WP_KILL_COUNT");
	FILE *fp = f ? fopen(f, "w") : NULL;
	if (fp) {
		fprintf(fp, "%ld\n", seen);
		fclose(fp);
	}
}

static void step(const char *path)
{
	static int init;
	const char *under = getenv("WP_KILL_UNDER"), *at = getenv("WP_KILL_AT");
	if (!init) {
		init = 1;
		if (getenv("WP_KILL_COUNT"))
			atexit(report);
	}
	if (!under || !path || strncmp(path, under, strlen(under)))
		return;
	seen++;
	if (at && seen == strtol(at, NULL, 10))
		raise(SIGKILL);
}

#define REAL(ret, name, ...) \
	static ret (*real_##name)(__VA_ARGS__); \
	if (!real_##name) \
		real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

int rename(const char *a, const char *b)
{
	REAL(int, rename, const char *, const char *);
	step(b);
	return real_rename(a, b);
}

int renameat(int fa, const char *a, int fb, const char *b)
{
	REAL(int, renameat, int, const char *, int, const char *);
	step(b);
	return real_renameat(fa, a, fb, b);
}

int unlink(const char *p)
{
	REAL(int, unlink, const char *);
	step(p);
	return real_unlink(p);
}

int rmdir(const char *p)
{
	REAL(int, rmdir, const char *);
	step(p);
	return real_rmdir(p);
}

int mkdir(const char *p, mode_t m)
{
	REAL(int, mkdir, const char *, mode_t);
	step(p);
	return real_mkdir(p, m);
}
