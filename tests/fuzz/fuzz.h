/* tests/fuzz/fuzz.h: helpers every fuzz harness shares: NUL-terminated copies, splitting, temp
 * files, checks. */
#ifndef WP_FUZZ_H
#define WP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a finding: say which, then abort so the fuzzer keeps the input. */
#define FZ_CHECK(cond)                                                                  \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                        \
		}                                                                       \
	} while (0)

/* The input as a C string (an embedded NUL simply ends it there). */
static inline char *fz_cstr(const uint8_t *data, size_t size)
{
	return wp_xstrndup((const char *)data, size);
}

/* Split the input at its first '\n' into two exactly-sized heap copies (so an overread past
 * either part is caught); b is "" when there is no newline. Free both. */
static inline void fz_split(const uint8_t *data, size_t size, char **a, size_t *na, char **b,
			    size_t *nb)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t n1 = nl ? (size_t)(nl - data) : size;
	size_t n2 = nl ? size - n1 - 1 : 0;
	*a = wp_xmalloc(n1 + 1);
	memcpy(*a, data, n1);
	(*a)[n1] = 0;
	*b = wp_xmalloc(n2 + 1);
	if (n2)
		memcpy(*b, nl + 1, n2);
	(*b)[n2] = 0;
	*na = n1;
	*nb = n2;
}

static inline int fz_sign(int x)
{
	return (x > 0) - (x < 0);
}

/* Read every byte of a borrowed string a reader handed out, so ASan sees a dangling one. */
static inline size_t fz_touch(const char *s)
{
	return s ? strlen(s) : 0;
}

/* Write the input to a file named NAME in a private temp dir (created once per process and
 * removed at exit); returns its path (static storage), or NULL when the disk refuses. */
static char fz_tmpdir[64];
static char fz_tmppath[512];

static inline void fz_tmp_cleanup(void)
{
	if (fz_tmppath[0])
		unlink(fz_tmppath);
	if (fz_tmpdir[0])
		rmdir(fz_tmpdir);
}

static inline const char *fz_write_tmp(const char *name, const uint8_t *data, size_t size)
{
	if (!fz_tmpdir[0]) {
		snprintf(fz_tmpdir, sizeof(fz_tmpdir), "%s/wpfuzz.XXXXXX",
			 getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 32 ? getenv("TMPDIR") :
									     "/tmp");
		if (!mkdtemp(fz_tmpdir)) {
			fz_tmpdir[0] = 0;
			return NULL;
		}
		atexit(fz_tmp_cleanup);
	}
	if (fz_tmppath[0])
		unlink(fz_tmppath);
	snprintf(fz_tmppath, sizeof(fz_tmppath), "%s/%s", fz_tmpdir, name);
	FILE *f = fopen(fz_tmppath, "wb");
	if (!f)
		return NULL;
	size_t w = size ? fwrite(data, 1, size, f) : 0;
	if (fclose(f) != 0 || w != size)
		return NULL;
	return fz_tmppath;
}

#endif
