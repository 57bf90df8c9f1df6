/* cli/opts.c: table-driven option parsing and the --help text generated from the same table. */
#include "cli/opts.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static bool name_matches(const struct wp_opt *o, const char *name, size_t n)
{
	if (strlen(o->name) == n && memcmp(o->name, name, n) == 0)
		return true;
	for (const char *a = o->aliases; a && *a;) {
		const char *bar = strchr(a, '|');
		size_t an = bar ? (size_t)(bar - a) : strlen(a);
		if (an == n && memcmp(a, name, n) == 0)
			return true;
		a = bar ? bar + 1 : a + an;
	}
	return false;
}

static void store(const struct wp_opt *o, void *out, const char *val)
{
	char *base = out;
	switch (o->type) {
	case WP_OPT_FLAG:
		*(bool *)(base + o->offset) = true;
		break;
	case WP_OPT_STR:
		*(const char **)(base + o->offset) = val;
		break;
	case WP_OPT_LIST:
		wp_strlist_push((struct wp_strlist *)(base + o->offset), val);
		break;
	}
}

bool wp_opts_wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

int wp_opts_parse(const struct wp_opt *table, void *out, int argc, char **argv, struct wp_strlist *pos,
		  struct wp_err *err)
{
	bool only_pos = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct wp_opt *o = NULL;
		const char *val = NULL;
		if (only_pos || a[0] != '-' || a[1] == 0) {
			wp_strlist_push(pos, a);
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			for (o = table; o->name && !name_matches(o, name, n); o++)
				;
			if (!o->name)
				return wp_fail(err, -WPE_USAGE, "unknown option '--%.*s'; see --help", (int)n, name);
			if (eq)
				val = eq + 1;
			if (eq && o->type == WP_OPT_FLAG)
				return wp_fail(err, -WPE_USAGE, "option '--%s' takes no value", o->name);
		} else {
			for (o = table; o->name && o->short_name != a[1]; o++)
				;
			if (!o->name)
				return wp_fail(err, -WPE_USAGE, "unknown option '-%c'; see --help", a[1]);
			if (a[2]) {
				if (o->type == WP_OPT_FLAG)
					return wp_fail(err, -WPE_USAGE, "option '-%c' takes no value", a[1]);
				val = a + 2;
			}
		}
		if (o->type != WP_OPT_FLAG && !val) {
			if (i + 1 >= argc)
				return wp_fail(err, -WPE_USAGE, "option '--%s' needs a value (%s)", o->name,
					       o->metavar ? o->metavar : "VALUE");
			val = argv[++i];
		}
		store(o, out, val);
	}
	return 0;
}

void wp_opts_help(FILE *f, const char *usage, const char *summary, const struct wp_opt *table)
{
	fprintf(f, "usage: %s\n\n%s\n", usage, summary);
	if (!table || !table->name)
		return;
	fprintf(f, "\noptions:\n");
	for (const struct wp_opt *o = table; o->name; o++) {
		char head[96];
		int n = 0;
		if (o->short_name)
			n = snprintf(head, sizeof(head), "-%c, ", o->short_name);
		snprintf(head + n, sizeof(head) - (size_t)n, "--%s%s%s", o->name, o->metavar ? " " : "",
			 o->metavar ? o->metavar : "");
		fprintf(f, "  %-30s %s%s\n", head, o->help, o->type == WP_OPT_LIST ? " (repeatable)" : "");
		if (o->aliases) {
			fprintf(f, "  %-30s   also spelled:", "");
			for (const char *a = o->aliases; *a;) {
				const char *bar = strchr(a, '|');
				size_t an = bar ? (size_t)(bar - a) : strlen(a);
				fprintf(f, " --%.*s", (int)an, a);
				a = bar ? bar + 1 : a + an;
			}
			fputc('\n', f);
		}
	}
}
