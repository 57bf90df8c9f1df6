/* tests/unit/vectors.h: reading the packaging test vectors (TSV: a header line, tab-separated
 * C-escaped columns, "<None>" for None) for the PEP 440/508 unit tests. Test-only, header-only:
 * each test program includes it once, after <cmocka.h>. The files are the vendored copies in
 * tests/fixtures/real/packaging_vectors/packaging-24.2/. A row's columns point into the caller's
 * line buffer. */
#ifndef WP_TEST_VECTORS_H
#define WP_TEST_VECTORS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "tests/unit/fixtures.h"

#define MAX_COLS 12

struct row {
	char *col[MAX_COLS];
	size_t len[MAX_COLS];
	int n;
};

/* Opens a vector file (tests/unit/fixtures.h); a missing one fails the test, naming it. */
static inline FILE *open_vectors(const char *name)
{
	char *rel = wp_xasprintf("packaging_vectors/packaging-24.2/%s", name);
	FILE *f = fixture_open(rel);
	free(rel);
	return f;
}

static inline size_t unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r;
			continue;
		}
		r++;
		switch (*r) {
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case '0': *w++ = '\0'; break;
		case 'x': {
			unsigned v = 0;
			int k = 0;
			while (k < 2 && r[1] && strchr("0123456789abcdefABCDEF", r[1])) {
				char c = *++r;
				v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
				k++;
			}
			*w++ = (char)v;
			break;
		}
		default: *w++ = *r; break;
		}
	}
	*w = 0;
	return (size_t)(w - s);
}

/* Next data row (the header is skipped by the caller's first call); false at the end. */
static inline bool next_row(FILE *f, char *line, size_t cap, struct row *r)
{
	if (!fgets(line, (int)cap, f))
		return false;
	line[strcspn(line, "\n")] = 0;
	r->n = 0;
	char *p = line;
	for (;;) {
		char *tab = strchr(p, '\t');
		if (tab)
			*tab = 0;
		assert_true(r->n < MAX_COLS);
		r->col[r->n] = p;
		r->len[r->n] = unescape(p);
		r->n++;
		if (!tab)
			break;
		p = tab + 1;
	}
	return true;
}

static inline bool is_true(const char *s)
{
	assert_true(!strcmp(s, "true") || !strcmp(s, "false"));
	return !strcmp(s, "true");
}

#endif
