/* cli/opts.c: table-driven option parsing, "did you mean" for a mistyped option, and the --help
 * text generated from the same table. */
#include "cli/opts.h"
#include "base/buf.h"
#include "base/mem.h"
#include "cli/cli.h"
#include "ops/core/suggest.h"

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

const struct wp_opt *wp_opts_find_long(const struct wp_opt *table, const char *name, size_t n)
{
	for (const struct wp_opt *o = table; o && o->name; o++)
		if (name_matches(o, name, n))
			return o;
	return NULL;
}

const struct wp_opt *wp_opts_find_short(const struct wp_opt *table, char c)
{
	for (const struct wp_opt *o = table; o && o->name; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

/* Every long name (and alias) of a table, as "--name" strings pushed to names (owned). */
static void long_names(const struct wp_opt *table, char ***names, size_t *n)
{
	size_t cap = *n; /* what *names holds at least; it grows by doubling */
	for (const struct wp_opt *o = table; o && o->name; o++) {
		wp_vec_push_fields(*names, *n, cap, wp_xasprintf("--%s", o->name));
		for (const char *a = o->aliases; a && *a;) {
			const char *bar = strchr(a, '|');
			size_t an = bar ? (size_t)(bar - a) : strlen(a);
			wp_vec_push_fields(*names, *n, cap, wp_xasprintf("--%.*s", (int)an, a));
			a = bar ? bar + 1 : a + an;
		}
	}
}

/* "unknown option" with what was meant: a close name of this command, or another command that
 * takes the option. */
static int unknown(const struct wp_opt *table, const char *word, size_t n, struct wp_err *err)
{
	const struct wp_cmd *self = wp_cmd_of_table(table);
	const char *cmd = self ? self->name : "this command";
	char *given = wp_xasprintf("%.*s", (int)n, word);
	struct wp_buf others = WP_BUF_INIT;
	int rc;
	/* commands that take it */
	for (size_t i = 0; i < wp_n_commands; i++) {
		const struct wp_cmd *c = &wp_commands[i];
		if (c == self)
			continue;
		bool has = given[1] == '-' ? wp_opts_find_long(c->table, given + 2,
							       strlen(given + 2)) != NULL :
					     given[1] && !given[2] &&
						     wp_opts_find_short(c->table, given[1]) != NULL;
		if (has)
			wp_buf_printf(&others, "%s'%s'", others.len ? ", " : "", c->name);
	}
	char **names = NULL;
	size_t nn = 0;
	long_names(table, &names, &nn);
	struct wp_strlist close = { 0 };
	if (given[1] == '-')
		wp_suggest_closest(given, (const char *const *)names, nn, 2, &close);
	if (others.len) {
		rc = wp_fail(err, -WPE_USAGE,
			     "unknown option '%s' for %s: it is an option of %s (see 'wheelpick %s --help')",
			     given, cmd, others.data, cmd);
	} else if (close.n) {
		struct wp_buf b = WP_BUF_INIT;
		wp_suggest_join(&close, &b);
		rc = wp_fail(err, -WPE_USAGE,
			     "unknown option '%s' for %s; did you mean %s? (see 'wheelpick %s --help')",
			     given, cmd, b.data, cmd);
		wp_buf_free(&b);
	} else {
		rc = wp_fail(err, -WPE_USAGE,
			     "unknown option '%s' for %s (see 'wheelpick %s --help')", given, cmd,
			     cmd);
	}
	wp_strlist_release(&close);
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	wp_buf_free(&others);
	free(given);
	return rc;
}

int wp_opts_parse(const struct wp_opt *table, void *out, int argc, char **argv,
		  struct wp_strlist *pos, struct wp_err *err)
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
			if (!(o = wp_opts_find_long(table, name, n)))
				return unknown(table, a, n + 2, err);
			if (eq)
				val = eq + 1;
			if (eq && o->type == WP_OPT_FLAG)
				return wp_fail(err, -WPE_USAGE, "option '--%s' takes no value",
					       o->name);
		} else {
			if (!(o = wp_opts_find_short(table, a[1])))
				return unknown(table, a, 2, err);
			if (a[2]) {
				if (o->type == WP_OPT_FLAG)
					return wp_fail(err, -WPE_USAGE,
						       "option '-%c' takes no value", a[1]);
				val = a + 2;
			}
		}
		if (o->type != WP_OPT_FLAG && !val) {
			if (i + 1 >= argc)
				return wp_fail(err, -WPE_USAGE, "option '--%s' needs a value (%s)",
					       o->name, o->metavar ? o->metavar : "VALUE");
			val = argv[++i];
		}
		store(o, out, val);
	}
	return 0;
}

/* text, wrapped at width, every line after the first indented by indent. */
void wp_opts_wrap(FILE *f, const char *text, size_t col, size_t indent, size_t width)
{
	const char *p = text;
	while (*p) {
		size_t word = strcspn(p, " ");
		if (col > indent && col + 1 + word > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, word, f);
		col += word;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void wp_opts_help(FILE *f, const char *usage, const char *summary, const struct wp_opt *table)
{
	fprintf(f, "usage: %s\n\n%s\n", usage, summary);
	if (!table || !table->name)
		return;
	fprintf(f, "\noptions:\n");
	for (const struct wp_opt *o = table; o->name; o++) {
		char head[96], help[512];
		int n = 0;
		if (o->short_name)
			n = snprintf(head, sizeof(head), "-%c, ", o->short_name);
		snprintf(head + n, sizeof(head) - (size_t)n, "--%s%s%s", o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
		snprintf(help, sizeof(help), "%s%s", o->help,
			 o->type == WP_OPT_LIST ? " (repeatable)" : "");
		size_t hl = strlen(head);
		if (hl > 28) {
			fprintf(f, "  %s\n%*s", head, 32, "");
			wp_opts_wrap(f, help, 32, 32, 79);
		} else {
			fprintf(f, "  %-29s ", head);
			wp_opts_wrap(f, help, 32, 32, 79);
		}
		if (o->aliases) {
			struct wp_buf b = WP_BUF_INIT;
			wp_buf_addstr(&b, "also spelled:");
			for (const char *a = o->aliases; *a;) {
				const char *bar = strchr(a, '|');
				size_t an = bar ? (size_t)(bar - a) : strlen(a);
				wp_buf_printf(&b, " --%.*s", (int)an, a);
				a = bar ? bar + 1 : a + an;
			}
			fprintf(f, "%*s", 32, "");
			wp_opts_wrap(f, b.data, 32, 32, 79);
			wp_buf_free(&b);
		}
	}
}
