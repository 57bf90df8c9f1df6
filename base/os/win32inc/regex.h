/* base/os/win32inc/regex.h: POSIX <regex.h> for the Windows build (mingw's C runtime has none):
 * extended regular expressions, match or no match (REG_NOSUB is what resolver/matchspec.c asks),
 * by base/os/win32_regex.c. Only the Windows build has this folder on its include path. */
#ifndef WP_BASE_OS_WIN32INC_REGEX_H
#define WP_BASE_OS_WIN32INC_REGEX_H

#include <stddef.h>

#define REG_EXTENDED 1
#define REG_ICASE    2
#define REG_NOSUB    4
#define REG_NEWLINE  8

#define REG_NOMATCH  1
#define REG_BADPAT   2
#define REG_EBRACK   7
#define REG_EPAREN   8
#define REG_EBRACE   9
#define REG_BADBR    10
#define REG_ERANGE   11
#define REG_ESPACE   12
#define REG_BADRPT   13
#define REG_ECTYPE   4

typedef struct {
	size_t re_nsub;
	void *prog; /* the compiled program (win32_regex.c's) */
} regex_t;

typedef long regoff_t;
typedef struct {
	regoff_t rm_so, rm_eo;
} regmatch_t;

int wp_libc_regcomp(regex_t *re, const char *pattern, int flags);
int wp_libc_regexec(const regex_t *re, const char *text, size_t nmatch, regmatch_t *m, int flags);
void wp_libc_regfree(regex_t *re);
#define regcomp wp_libc_regcomp
#define regexec wp_libc_regexec
#define regfree wp_libc_regfree

#endif
