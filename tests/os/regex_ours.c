/* tests/os/regex_ours.c: base/os/win32_regex.c behind one function, for tests/os/regex_diff.c (its
 * <regex.h> is ours). */
#include "base/os/win32inc/regex.h"
int ours_match(const char *pat, const char *text, int *compiled)
{
	regex_t re;
	int rc = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB);
	*compiled = rc == 0;
	if (rc)
		return -1;
	rc = regexec(&re, text, 0, 0, 0);
	regfree(&re);
	return rc == 0;
}
