/* base/s3xml.c: what net/s3.c and index/s3xml.c share of S3's answers: an ETag without its
 * quotes. */
#include "base/s3xml.h"

#include <string.h>

void wp_s3_etag_copy(char *dst, size_t size, const char *s, size_t n)
{
	if (!size)
		return;
	while (n && (*s == '"' || *s == ' '))
		s++, n--;
	while (n && (s[n - 1] == '"' || s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}
