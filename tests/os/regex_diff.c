/* tests/os/regex_diff.c: base/os/win32_regex.c (the Windows build's <regex.h>) against glibc's
 * regcomp/regexec: conda-shaped build and version regexes, bounds, classes, bad patterns, each on
 * every text; they must agree on compiling and on matching. make windows-regex-check (runs here,
 * under ASan). */
#include <regex.h>
#include <stdio.h>
#include <string.h>
int ours_match(const char *pat, const char *text, int *compiled);
static int glibc_match(const char *pat, const char *text, int *compiled)
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
int main(void)
{
	const char *pats[] = { "^py36.*$",
			       "^py3[6-9]_.*$",
			       "^(py|np)1[0-9]+_0$",
			       "^.*cuda.*$",
			       "^cuda1[12]\\.[0-9]$",
			       "a|b",
			       "^(a|bc)*d$",
			       "^a{2,3}$",
			       "^a{2}$",
			       "^a{2,}$",
			       "^(ab){1,2}c$",
			       "^[^0-9]+$",
			       "^[[:alpha:]_]+$",
			       "^[[:digit:]]{3}$",
			       "x?y+z*",
			       "^\\w+$",
			       "^\\s*$",
			       "^[]a]$",
			       "^[a-]$",
			       "\\.",
			       "^h.*_[0-9]+$",
			       "^$",
			       "^1\\.2(\\.[0-9]+)?$",
			       "((a*)*)*b",
			       "^(a?){10}a{10}$",
			       "^[^]x]$",
			       "^py_?[0-9]+$",
			       "cpu$",
			       "^(?:a)$",
			       "a{",
			       "a{1",
			       "(",
			       ")",
			       "[a",
			       "*a",
			       "a**",
			       "^[[:foo:]]$",
			       "a|",
			       "|a",
			       "()",
			       "^a\\$$",
			       "a)b",
			       "^x)$",
			       "(a))",
			       NULL };
	const char *texts[] = { "py36_0",   "py37_cuda_1", "np10_0",  "py310h1234_0",
				"cuda11.2", "cuda12.1",    "",        "a",
				"aa",       "aaa",         "aaaa",    "ababc",
				"abc",      "bcd",         "abcbcd",  "d",
				"123",      "12",          "x",       "yy",
				"xyz",      "foo_bar",     "   ",     "]",
				"-",        "1.2",         "1.2.3",   "1.2.",
				"h12_3",    "cpu",         "gpu_cpu", "aaaaaaaaaaaaaaaaaaaa",
				"b",        "a$",          "py_3",    ".",
				"a)b",      "x)",          ")",       NULL };
	int n = 0, bad = 0;
	for (int i = 0; pats[i]; i++)
		for (int j = 0; texts[j]; j++) {
			int c1, c2;
			int a = glibc_match(pats[i], texts[j], &c1),
			    b = ours_match(pats[i], texts[j], &c2);
			n++;
			if (a != b) {
				bad++;
				printf("DIFF /%s/ on '%s': glibc %d (compiled %d), ours %d (compiled %d)\n",
				       pats[i], texts[j], a, c1, b, c2);
			}
		}
	printf("%d cases, %d differ\n", n, bad);
	return bad != 0;
}
