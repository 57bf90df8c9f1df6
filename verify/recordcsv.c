/* verify/recordcsv.c: a wheel RECORD's csv rows, read one at a time (the only csv reader). */
#include "verify/recordcsv.h"

#include <string.h>

/* One CSV field (RFC 4180 quoting, as Python's csv writes it) into out; returns the byte that
 * ended it (',' or '\n'), 0 at the end of the text, -1 on a broken quote (s not moved). */
static int csv_field(struct wp_str *s, struct wp_buf *out)
{
	wp_buf_reset(out);
	size_t i = 0;
	if (s->n && s->p[0] == '"') {
		for (i = 1;; i++) {
			if (i >= s->n)
				return -1;
			if (s->p[i] == '"') {
				if (i + 1 < s->n && s->p[i + 1] == '"') {
					wp_buf_addch(out, '"');
					i++;
					continue;
				}
				i++;
				break;
			}
			wp_buf_addch(out, s->p[i]);
		}
		if (i < s->n && s->p[i] == '\r')
			i++;
		if (i < s->n && s->p[i] != ',' && s->p[i] != '\n')
			return -1;
	} else {
		while (i < s->n && s->p[i] != ',' && s->p[i] != '\n')
			i++;
		size_t n = i;
		if (n && s->p[n - 1] == '\r')
			n--;
		wp_buf_add(out, s->p, n);
	}
	if (i >= s->n) {
		s->p += s->n;
		s->n = 0;
		return 0;
	}
	int end = s->p[i];
	s->p += i + 1;
	s->n -= i + 1;
	return end;
}

int wp_record_row(struct wp_str *s, struct wp_buf f[3], struct wp_buf *extra)
{
	int end = 0, nf = 0;
	do {
		end = csv_field(s, nf < 3 ? &f[nf] : extra);
		nf++;
	} while (end == ',');
	if (end >= 0)
		return nf;
	/* the broken field is still at the front: the line is skipped, so a reader always moves
	 * on */
	const char *nl = memchr(s->p, '\n', s->n);
	size_t skip = nl ? (size_t)(nl - s->p) + 1 : s->n;
	s->p += skip;
	s->n -= skip;
	return -1;
}
