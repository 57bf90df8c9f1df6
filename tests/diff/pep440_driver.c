/* tests/diff/pep440_driver.c: answers PEP 440 queries from stdin with resolver/version and
 * specifier, for pep440_diff.py. */

/* One query a line, fields separated by tabs, each field backslash-escaped (\\ \t \n \r \f \v
 * \xHH): V <version>                      -> "ok <str> <is_pre> <is_dev> <is_post> <public> <base>
 * <local|->" or "invalid" C <version> <version>            -> "-1", "0" or "1" (wp_version_cmp) S
 * <specifier>                    -> "ok <str> <prereleases 0|1>" or "invalid" I <specifier>
 * <version> <pre>    -> "0" or "1": Specifier.contains; pre is none|true|false T <set> <version>
 * <pre>          -> "0" or "1": SpecifierSet.contains Z <set>                          ->
 * str(SpecifierSet) (duplicates dropped, sorted), or "invalid" M <marker>                       ->
 * "ok <str(Marker)>" or "invalid" K <conda version> <conda version> -> "-1", "0", "1" (conda's
 * VersionOrder) or "invalid" E <marker> <NAME=VALUE;...>      -> "1", "0" (Marker.evaluate) or
 * "error" A field that does not parse where it must answers "error <message>". Output is escaped
 * the same way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "resolver/condaver.h"
#include "resolver/marker.h"
#include "resolver/specifier.h"
#include "resolver/version.h"

#define MAX_FIELDS 5

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 32) >= 'a' && (c | 32) <= 'f')
		return (c | 32) - 'a' + 10;
	return -1;
}

/* Unescape s in place; returns the length (the text may hold any byte but NUL-free output is
 * not assumed: the length is what counts). */
static size_t unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r;
			continue;
		}
		switch (*++r) {
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 'f': *w++ = '\f'; break;
		case 'v': *w++ = '\v'; break;
		case 'x':
			if (hex(r[1]) >= 0 && hex(r[2]) >= 0) {
				*w++ = (char)(hex(r[1]) * 16 + hex(r[2]));
				r += 2;
			} else {
				*w++ = 'x';
			}
			break;
		default: *w++ = *r; break;
		}
	}
	*w = 0;
	return (size_t)(w - s);
}

static void put(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static enum wp_prereleases tristate(const char *s)
{
	if (!strcmp(s, "true"))
		return WP_PRERELEASES_YES;
	if (!strcmp(s, "false"))
		return WP_PRERELEASES_NO;
	return WP_PRERELEASES_DEFAULT;
}

static void answer_version(const char *s, size_t n)
{
	struct wp_version v;
	struct wp_buf b = WP_BUF_INIT;
	if (wp_version_parse(&v, s, n, NULL) < 0) {
		fputs("invalid", stdout);
		return;
	}
	wp_version_format(&v, &b);
	wp_buf_addch(&b, '\t');
	wp_buf_printf(&b, "%d\t%d\t%d\t", wp_version_is_prerelease(&v),
		      wp_version_is_devrelease(&v), wp_version_is_postrelease(&v));
	wp_version_format_public(&v, &b);
	wp_buf_addch(&b, '\t');
	wp_version_format_base(&v, &b);
	wp_buf_printf(&b, "\t%s", wp_version_local(&v) ? wp_version_local(&v) : "-");
	fputs("ok\t", stdout);
	fputs(wp_buf_cstr(&b), stdout); /* fields are escaped by construction: versions hold no tabs
					 */
	wp_buf_free(&b);
	wp_version_release(&v);
}

static void answer(char **f, size_t *len, int nf)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_version a, b;
	struct wp_specifier sp;
	struct wp_specset set;

	if (!strcmp(f[0], "V") && nf == 2) {
		answer_version(f[1], len[1]);
	} else if (!strcmp(f[0], "C") && nf == 3) {
		if (wp_version_parse(&a, f[1], len[1], &err) < 0) {
			fputs("error\t", stdout);
			put(err.msg);
			return;
		}
		if (wp_version_parse(&b, f[2], len[2], &err) < 0) {
			wp_version_release(&a);
			fputs("error\t", stdout);
			put(err.msg);
			return;
		}
		int c = wp_version_cmp(&a, &b);
		printf("%d", (c > 0) - (c < 0));
		wp_version_release(&a);
		wp_version_release(&b);
	} else if (!strcmp(f[0], "S") && nf == 2) {
		struct wp_buf t = WP_BUF_INIT;
		if (wp_specifier_parse(&sp, f[1], len[1], NULL) < 0) {
			fputs("invalid", stdout);
			return;
		}
		wp_specifier_format(&sp, &t);
		fputs("ok\t", stdout);
		put(wp_buf_cstr(&t));
		printf("\t%d", wp_specifier_prereleases(&sp));
		wp_buf_free(&t);
		wp_specifier_release(&sp);
	} else if ((!strcmp(f[0], "I") || !strcmp(f[0], "T")) && nf == 4) {
		bool set_query = f[0][0] == 'T';
		int rc = set_query ? wp_specset_parse(&set, f[1], len[1], &err) :
				     wp_specifier_parse(&sp, f[1], len[1], &err);
		if (rc < 0) {
			fputs("error\t", stdout);
			put(err.msg);
			return;
		}
		if (wp_version_parse(&a, f[2], len[2], &err) < 0) {
			fputs("error\t", stdout);
			put(err.msg);
		} else {
			bool in = set_query ? wp_specset_contains(&set, &a, tristate(f[3]))
					    : wp_specifier_contains(&sp, &a, tristate(f[3]));
			printf("%d", in);
			wp_version_release(&a);
		}
		if (set_query)
			wp_specset_release(&set);
		else
			wp_specifier_release(&sp);
	} else if (!strcmp(f[0], "K") && nf == 3) {
		struct wp_condaver ca, cb;
		if (wp_condaver_parse(f[1], &ca, NULL) < 0) {
			fputs("invalid", stdout);
			return;
		}
		if (wp_condaver_parse(f[2], &cb, NULL) < 0) {
			wp_condaver_release(&ca);
			fputs("invalid", stdout);
			return;
		}
		int c = wp_condaver_order(&ca, &cb);
		printf("%d", (c > 0) - (c < 0));
		wp_condaver_release(&ca);
		wp_condaver_release(&cb);
	} else if (!strcmp(f[0], "M") && nf == 2) {
		struct wp_marker m;
		struct wp_buf t = WP_BUF_INIT;
		if (wp_marker_parse(&m, f[1], len[1], NULL) < 0) {
			fputs("invalid", stdout);
			return;
		}
		wp_marker_format(&m, &t);
		fputs("ok\t", stdout);
		put(wp_buf_cstr(&t));
		wp_buf_free(&t);
		wp_marker_release(&m);
	} else if (!strcmp(f[0], "E") && nf == 3) {
		struct wp_marker m;
		struct wp_marker_env env;
		bool result;
		wp_marker_env_init(&env);
		char *save = NULL;
		for (char *kv = strtok_r(f[2], ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
			char *eq = strchr(kv, '=');
			if (eq) {
				*eq = 0;
				wp_marker_env_set(&env, kv, eq + 1, NULL);
			}
		}
		if (wp_marker_parse(&m, f[1], len[1], NULL) < 0) {
			fputs("error", stdout);
			return;
		}
		fputs(wp_marker_evaluate(&m, &env, &result, NULL) < 0 ? "error" :
		      result                                          ? "1" :
									"0",
		      stdout);
		wp_marker_release(&m);
	} else if (!strcmp(f[0], "Z") && nf == 2) {
		struct wp_buf t = WP_BUF_INIT;
		if (wp_specset_parse(&set, f[1], len[1], NULL) < 0) {
			fputs("invalid", stdout);
			return;
		}
		wp_specset_format(&set, &t);
		put(wp_buf_cstr(&t));
		wp_buf_free(&t);
		wp_specset_release(&set);
	} else {
		fputs("error\tunknown query", stdout);
	}
}

int main(void)
{
	struct wp_buf line = WP_BUF_INIT_MAX(1 << 20);
	int c;
	for (;;) {
		wp_buf_reset(&line);
		while ((c = getchar()) != EOF && c != '\n')
			if (wp_buf_addch(&line, (char)c) < 0)
				break;
		if (c == EOF && !line.len)
			break;
		char *f[MAX_FIELDS];
		size_t len[MAX_FIELDS];
		int nf = 0;
		char *p = line.data ? line.data : (char *)"";
		for (;;) {
			char *tab = strchr(p, '\t');
			if (tab)
				*tab = 0;
			if (nf < MAX_FIELDS) {
				f[nf] = p;
				len[nf] = unescape(p);
				nf++;
			}
			if (!tab)
				break;
			p = tab + 1;
		}
		answer(f, len, nf);
		putchar('\n');
		if (c == EOF)
			break;
	}
	wp_buf_free(&line);
	return 0;
}
