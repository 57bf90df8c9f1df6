/* resolver/name.c: PEP 503 names. Pure. */
#include "resolver/name.h"

#include "base/err.h"

int wp_name_canonicalize(const char *in, size_t n, struct wp_buf *out)
{
	int bad = 0;
	for (size_t i = 0; i < n;) {
		char c = in[i];
		if (c == '-' || c == '_' || c == '.') {
			while (i < n && (in[i] == '-' || in[i] == '_' || in[i] == '.'))
				i++;
			bad |= wp_buf_addch(out, '-');
			continue;
		}
		bad |= wp_buf_addch(out, c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c);
		i++;
	}
	/* an empty name still leaves out a valid C string */
	bad |= wp_buf_add(out, "", 0);
	return bad ? wp_fail(NULL, -WPE_TOO_BIG, "name over the buffer's ceiling") : 0;
}
