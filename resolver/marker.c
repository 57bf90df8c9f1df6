/* resolver/marker.c: PEP 508 markers: tokenise and parse as packaging, print, evaluate by the
 * living dependency-specifiers text. Pure. */
#include "resolver/marker.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "resolver/name.h"
#include "resolver/specifier.h"
#include "resolver/version.h"

enum var {
	V_IMPLEMENTATION_NAME,
	V_IMPLEMENTATION_VERSION,
	V_OS_NAME,
	V_PLATFORM_MACHINE,
	V_PLATFORM_RELEASE,
	V_PLATFORM_SYSTEM,
	V_PLATFORM_VERSION,
	V_PYTHON_FULL_VERSION,
	V_PLATFORM_PYTHON_IMPLEMENTATION,
	V_PYTHON_VERSION,
	V_SYS_PLATFORM,
	V_EXTRA,
	V_VARIANT_LABEL,
	V_VARIANT_NAMESPACES, /* the sets: V_VARIANT_NAMESPACES and after */
	V_VARIANT_FEATURES,
	V_VARIANT_PROPERTIES,
	V_EXTRAS,             /* PEP 751 lock-file sets: names, compared in PEP 503 form */
	V_DEPENDENCY_GROUPS,
};

static bool is_set(enum var v)
{
	return v >= V_VARIANT_NAMESPACES;
}

static const struct {
	const char *name;
	size_t offset;
} vars[] = {
	[V_IMPLEMENTATION_NAME] = { "implementation_name",
				    offsetof(struct wp_marker_env, implementation_name) },
	[V_IMPLEMENTATION_VERSION] = { "implementation_version",
				       offsetof(struct wp_marker_env, implementation_version) },
	[V_OS_NAME] = { "os_name", offsetof(struct wp_marker_env, os_name) },
	[V_PLATFORM_MACHINE] = { "platform_machine",
				 offsetof(struct wp_marker_env, platform_machine) },
	[V_PLATFORM_RELEASE] = { "platform_release",
				 offsetof(struct wp_marker_env, platform_release) },
	[V_PLATFORM_SYSTEM] = { "platform_system",
				offsetof(struct wp_marker_env, platform_system) },
	[V_PLATFORM_VERSION] = { "platform_version",
				 offsetof(struct wp_marker_env, platform_version) },
	[V_PYTHON_FULL_VERSION] = { "python_full_version",
				    offsetof(struct wp_marker_env, python_full_version) },
	[V_PLATFORM_PYTHON_IMPLEMENTATION] = { "platform_python_implementation",
					       offsetof(struct wp_marker_env,
							platform_python_implementation) },
	[V_PYTHON_VERSION] = { "python_version", offsetof(struct wp_marker_env, python_version) },
	[V_SYS_PLATFORM] = { "sys_platform", offsetof(struct wp_marker_env, sys_platform) },
	[V_EXTRA] = { "extra", offsetof(struct wp_marker_env, extra) },
	[V_VARIANT_LABEL] = { "variant_label", offsetof(struct wp_marker_env, variant_label) },
	[V_VARIANT_NAMESPACES] = { "variant_namespaces",
				   offsetof(struct wp_marker_env, variant_namespaces) },
	[V_VARIANT_FEATURES] = { "variant_features",
				 offsetof(struct wp_marker_env, variant_features) },
	[V_VARIANT_PROPERTIES] = { "variant_properties",
				   offsetof(struct wp_marker_env, variant_properties) },
	[V_EXTRAS] = { "extras", offsetof(struct wp_marker_env, extras) },
	[V_DEPENDENCY_GROUPS] = { "dependency_groups",
				  offsetof(struct wp_marker_env, dependency_groups) },
};

/* The spellings packaging's VARIABLE token takes; PEP 345's dotted names and setuptools'
 * python_implementation read as the PEP 508 names. */
static const struct {
	const char *spelling;
	enum var var;
} spellings[] = {
	{ "python_version", V_PYTHON_VERSION },
	{ "python_full_version", V_PYTHON_FULL_VERSION },
	{ "os_name", V_OS_NAME },
	{ "os.name", V_OS_NAME },
	{ "sys_platform", V_SYS_PLATFORM },
	{ "sys.platform", V_SYS_PLATFORM },
	{ "platform_release", V_PLATFORM_RELEASE },
	{ "platform_system", V_PLATFORM_SYSTEM },
	{ "platform_version", V_PLATFORM_VERSION },
	{ "platform.version", V_PLATFORM_VERSION },
	{ "platform_machine", V_PLATFORM_MACHINE },
	{ "platform.machine", V_PLATFORM_MACHINE },
	{ "platform_python_implementation", V_PLATFORM_PYTHON_IMPLEMENTATION },
	{ "platform.python_implementation", V_PLATFORM_PYTHON_IMPLEMENTATION },
	{ "python_implementation", V_PLATFORM_PYTHON_IMPLEMENTATION },
	{ "implementation_name", V_IMPLEMENTATION_NAME },
	{ "implementation_version", V_IMPLEMENTATION_VERSION },
	{ "extra", V_EXTRA },
	{ "variant_label", V_VARIANT_LABEL },
	{ "variant_namespaces", V_VARIANT_NAMESPACES },
	{ "variant_features", V_VARIANT_FEATURES },
	{ "variant_properties", V_VARIANT_PROPERTIES },
	{ "extras", V_EXTRAS },
	{ "dependency_groups", V_DEPENDENCY_GROUPS },
};

enum op { OP_ARB, OP_EQ, OP_COMPAT, OP_NE, OP_LE, OP_GE, OP_LT, OP_GT, OP_IN, OP_NOT_IN };

/* In the order packaging's OP token tries them. */
static const char *const op_names[] = {
	[OP_ARB] = "===", [OP_EQ] = "==", [OP_COMPAT] = "~=", [OP_NE] = "!=", [OP_LE] = "<=",
	[OP_GE] = ">=", [OP_LT] = "<", [OP_GT] = ">", [OP_IN] = "in", [OP_NOT_IN] = "not in",
};

struct operand {
	bool is_var;
	enum var var;
	char *value; /* owned; the string's value, escapes resolved */
};

/* packaging's nested lists: a list node holds atoms joined by and/or (or_before[i] joins
 * item i to item i-1), a leaf holds one comparison. */
struct wp_marker_node {
	bool leaf;
	struct operand lhs, rhs;
	enum op op;
	struct wp_marker_node **items;
	bool *or_before;
	size_t n;
};

/* ---- environment ---- */

static char *field(struct wp_marker_env *env, enum var v)
{
	return (char *)env + vars[v].offset;
}

static const char *cfield(const struct wp_marker_env *env, enum var v)
{
	return (const char *)env + vars[v].offset;
}

void wp_marker_env_init(struct wp_marker_env *env)
{
	memset(env, 0, sizeof(*env));
}

static int find_var(const char *name)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(vars); i++)
		if (!strcmp(vars[i].name, name))
			return (int)i;
	return -1;
}

int wp_marker_env_set(struct wp_marker_env *env, const char *name, const char *value,
		      struct wp_err *err)
{
	int v = find_var(name);
	if (v < 0)
		return wp_fail(err, -WPE_USAGE, "unknown marker variable '%s'", name);
	size_t max = is_set((enum var)v) ? WP_MARKER_SET_MAX : WP_MARKER_VALUE_MAX;
	if (strlen(value) >= max)
		return wp_fail(err, -WPE_TOO_BIG,
			       "value for marker variable '%s' is longer than %zu bytes", name,
			       max - 1);
	snprintf(field(env, (enum var)v), max, "%s", value);
	return 0;
}

const char *wp_marker_env_get(const struct wp_marker_env *env, const char *name)
{
	int v = find_var(name);
	return v < 0 ? NULL : cfield(env, (enum var)v);
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* The architecture at the end of a platform tag: manylinux_2_28_x86_64 -> x86_64. */
static const char *tag_arch(const char *tag)
{
	static const char *const archs[] = { "x86_64",  "aarch64",     "ppc64le", "ppc64",
					     "s390x",   "i686",        "armv7l",  "armv6l",
					     "riscv64", "loongarch64", "arm64",   "universal2" };
	size_t n = strlen(tag);
	for (size_t i = 0; i < WP_ARRAY_LEN(archs); i++) {
		size_t k = strlen(archs[i]);
		if (n > k && tag[n - k - 1] == '_' && !strcmp(tag + n - k, archs[i]))
			return archs[i];
	}
	return "";
}

static void set(struct wp_marker_env *env, enum var v, const char *value)
{
	snprintf(field(env, v), WP_MARKER_VALUE_MAX, "%s", value);
}

static void set_system(struct wp_marker_env *env, const char *sys_platform, const char *system,
		       const char *os, const char *machine)
{
	set(env, V_SYS_PLATFORM, sys_platform);
	set(env, V_PLATFORM_SYSTEM, system);
	set(env, V_OS_NAME, os);
	set(env, V_PLATFORM_MACHINE, machine);
}

void wp_marker_env_from_target(struct wp_marker_env *env, const struct wp_target *t)
{
	const char *p = t->platform;
	char buf[64];

	wp_marker_env_init(env);
	if (has_prefix(p, "manylinux") || has_prefix(p, "musllinux") || has_prefix(p, "linux_")) {
		set_system(env, "linux", "Linux", "posix", tag_arch(p));
	} else if (!strcmp(p, "win_amd64")) {
		set_system(env, "win32", "Windows", "nt", "AMD64");
	} else if (!strcmp(p, "win32")) {
		set_system(env, "win32", "Windows", "nt", "x86");
	} else if (!strcmp(p, "win_arm64")) {
		set_system(env, "win32", "Windows", "nt", "ARM64");
	} else if (has_prefix(p, "macosx_")) {
		const char *a = tag_arch(p);
		set_system(env, "darwin", "Darwin", "posix",
			   !strcmp(a, "universal2") ? "arm64" : a);
	} else if (!p[0]) {
		static const struct {
			const char *subdir, *sys, *system, *os, *machine;
		} subdirs[] = {
			{ "linux-64", "linux", "Linux", "posix", "x86_64" },
			{ "linux-aarch64", "linux", "Linux", "posix", "aarch64" },
			{ "linux-ppc64le", "linux", "Linux", "posix", "ppc64le" },
			{ "linux-s390x", "linux", "Linux", "posix", "s390x" },
			{ "linux-32", "linux", "Linux", "posix", "i686" },
			{ "osx-64", "darwin", "Darwin", "posix", "x86_64" },
			{ "osx-arm64", "darwin", "Darwin", "posix", "arm64" },
			{ "win-64", "win32", "Windows", "nt", "AMD64" },
			{ "win-32", "win32", "Windows", "nt", "x86" },
			{ "win-arm64", "win32", "Windows", "nt", "ARM64" },
		};
		for (size_t i = 0; i < WP_ARRAY_LEN(subdirs); i++)
			if (!strcmp(t->conda_subdir, subdirs[i].subdir))
				set_system(env, subdirs[i].sys, subdirs[i].system, subdirs[i].os,
					   subdirs[i].machine);
	}
	if (t->py_major > 0) {
		snprintf(buf, sizeof(buf), "%d.%d", t->py_major, t->py_minor);
		set(env, V_PYTHON_VERSION, buf);
		snprintf(buf, sizeof(buf), "%d.%d.%d", t->py_major, t->py_minor,
			 t->py_micro < 0 ? 0 : t->py_micro);
		set(env, V_PYTHON_FULL_VERSION, buf);
		set(env, V_IMPLEMENTATION_VERSION, buf);
	}
	if (!strcmp(t->impl, "pp")) {
		set(env, V_IMPLEMENTATION_NAME, "pypy");
		set(env, V_PLATFORM_PYTHON_IMPLEMENTATION, "PyPy");
	} else {
		set(env, V_IMPLEMENTATION_NAME, "cpython");
		set(env, V_PLATFORM_PYTHON_IMPLEMENTATION, "CPython");
	}
}

/* ---- tokens ---- */

struct tok {
	const char *s;
	size_t n, pos;
	int depth;
	struct wp_err *err;
};

static bool word_char(unsigned char c)
{
	/* Python's \w; every non-ASCII byte counts, as the characters they encode mostly do */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

static bool boundary_before(const struct tok *t, size_t i)
{
	return i == 0 || !word_char((unsigned char)t->s[i - 1]);
}

static bool boundary_after(const struct tok *t, size_t i)
{
	return i >= t->n || !word_char((unsigned char)t->s[i]);
}

/* A keyword at pos with \b on both sides. */
static bool at_keyword(const struct tok *t, const char *kw)
{
	size_t k = strlen(kw);
	return t->n - t->pos >= k && !memcmp(t->s + t->pos, kw, k) && boundary_before(t, t->pos) &&
	       boundary_after(t, t->pos + k);
}

static void skip_ws(struct tok *t)
{
	while (t->pos < t->n && (t->s[t->pos] == ' ' || t->s[t->pos] == '\t'))
		t->pos++;
}

static int syntax(struct tok *t, const char *expected)
{
	size_t n = t->n < 200 ? t->n : 200;
	return wp_fail(t->err, -WPE_PARSE, "invalid marker '%.*s%s': expected %s at position %zu",
		       (int)n, t->s, t->n > n ? "..." : "", expected, t->pos);
}

static int put_utf8(struct wp_buf *out, unsigned long cp)
{
	char b[4];
	size_t k;
	if (cp < 0x80) {
		b[0] = (char)cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	return wp_buf_add(out, b, k);
}

/* The body of a Python string literal (packaging runs ast.literal_eval on it): the usual
 * escapes resolved, unknown ones kept with their backslash. Refused: \N{...} (no name table
 * here), NUL and surrogates (not C text), and a raw line break, which Python refuses too. */
static const char *unquote(const char *s, size_t n, struct wp_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\r' || (c == '\n'))
			return "a line break inside a quoted string";
		if (c != '\\') {
			wp_buf_addch(out, c);
			continue;
		}
		if (++i >= n)
			return "a character after the backslash";
		c = s[i];
		unsigned long cp;
		int digits = 0;
		switch (c) {
		case '\n': continue;
		case '\\': case '\'': case '"': wp_buf_addch(out, c); continue;
		case 'a': wp_buf_addch(out, '\a'); continue;
		case 'b': wp_buf_addch(out, '\b'); continue;
		case 'f': wp_buf_addch(out, '\f'); continue;
		case 'n': wp_buf_addch(out, '\n'); continue;
		case 'r': wp_buf_addch(out, '\r'); continue;
		case 't': wp_buf_addch(out, '\t'); continue;
		case 'v': wp_buf_addch(out, '\v'); continue;
		case 'x': digits = 2; break;
		case 'u': digits = 4; break;
		case 'U': digits = 8; break;
		case 'N': return "no \\N{...} escape (wheelpick has no Unicode name table)";
		default:
			if (c >= '0' && c <= '7') {
				cp = 0;
				for (int k = 0; k < 3 && i < n && s[i] >= '0' && s[i] <= '7';
				     k++, i++)
					cp = cp * 8 + (unsigned long)(s[i] - '0');
				i--;
				if (!cp)
					return "no NUL character in a quoted string";
				put_utf8(out, cp);
				continue;
			}
			wp_buf_addch(out, '\\');
			wp_buf_addch(out, c);
			continue;
		}
		cp = 0;
		for (int k = 0; k < digits; k++) {
			int h = i + 1 < n ? wp_hexval((unsigned char)s[i + 1]) : -1;
			if (h < 0)
				return "hex digits after \\x, \\u or \\U";
			cp = cp * 16 + (unsigned long)h;
			i++;
		}
		if (!cp || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return "a code point that is not NUL, a surrogate or past U+10FFFF";
		put_utf8(out, cp);
	}
	return NULL;
}

/* marker_var = VARIABLE | QUOTED_STRING */
static int parse_operand(struct tok *t, struct operand *o)
{
	if (t->pos < t->n && (t->s[t->pos] == '\'' || t->s[t->pos] == '"')) {
		const char *end = memchr(t->s + t->pos + 1, t->s[t->pos], t->n - t->pos - 1);
		struct wp_buf v = WP_BUF_INIT;
		const char *why;
		if (!end)
			return syntax(t, "a closing quote");
		why = unquote(t->s + t->pos + 1, (size_t)(end - t->s) - t->pos - 1, &v);
		if (why) {
			wp_buf_free(&v);
			return syntax(t, why);
		}
		o->is_var = false;
		o->value = wp_buf_detach(&v, NULL);
		if (!o->value)
			o->value = wp_xstrdup("");
		t->pos = (size_t)(end - t->s) + 1;
		return 0;
	}
	for (size_t i = 0; i < WP_ARRAY_LEN(spellings); i++) {
		if (!at_keyword(t, spellings[i].spelling))
			continue;
		o->is_var = true;
		o->var = spellings[i].var;
		t->pos += strlen(spellings[i].spelling);
		return 0;
	}
	return syntax(t, "a marker variable or quoted string");
}

/* marker_op = IN | NOT WS IN | OP */
static int parse_op(struct tok *t, enum op *op)
{
	if (at_keyword(t, "in")) {
		t->pos += 2;
		*op = OP_IN;
		return 0;
	}
	if (at_keyword(t, "not")) {
		t->pos += 3;
		if (t->pos >= t->n || (t->s[t->pos] != ' ' && t->s[t->pos] != '\t'))
			return syntax(t, "whitespace after 'not'");
		skip_ws(t);
		if (!at_keyword(t, "in"))
			return syntax(t, "'in' after 'not'");
		t->pos += 2;
		*op = OP_NOT_IN;
		return 0;
	}
	for (int k = OP_ARB; k <= OP_GT; k++) {
		size_t len = strlen(op_names[k]);
		if (t->n - t->pos >= len && !memcmp(t->s + t->pos, op_names[k], len)) {
			t->pos += len;
			*op = (enum op)k;
			return 0;
		}
	}
	return syntax(t, "a marker operator, one of <, <=, ==, !=, >=, >, ~=, ===, in, not in");
}

static void free_node(struct wp_marker_node *node)
{
	if (!node)
		return;
	free(node->lhs.value);
	free(node->rhs.value);
	for (size_t i = 0; i < node->n; i++)
		free_node(node->items[i]);
	free(node->items);
	free(node->or_before);
	free(node);
}

static int parse_list(struct tok *t, struct wp_marker_node **out);

/* marker_atom = WS? '(' WS? marker WS? ')' WS? | WS? marker_item WS? */
static int parse_atom(struct tok *t, struct wp_marker_node **out)
{
	struct wp_marker_node *node = NULL;
	int rc;

	skip_ws(t);
	if (t->pos < t->n && t->s[t->pos] == '(') {
		if (++t->depth > WP_MARKER_MAX_DEPTH)
			return wp_fail(t->err, -WPE_TOO_BIG,
				       "marker nests parentheses more than %d deep",
				       WP_MARKER_MAX_DEPTH);
		t->pos++;
		skip_ws(t);
		if ((rc = parse_list(t, &node)) < 0)
			return rc;
		skip_ws(t);
		if (t->pos >= t->n || t->s[t->pos] != ')') {
			free_node(node);
			return syntax(t, "')' to close the marker expression");
		}
		t->pos++;
		t->depth--;
	} else {
		node = wp_xcalloc(1, sizeof(*node));
		node->leaf = true;
		if ((rc = parse_operand(t, &node->lhs)) < 0)
			goto fail;
		skip_ws(t);
		if ((rc = parse_op(t, &node->op)) < 0)
			goto fail;
		skip_ws(t);
		if ((rc = parse_operand(t, &node->rhs)) < 0)
			goto fail;
	}
	skip_ws(t);
	*out = node;
	return 0;
fail:
	free_node(node);
	return rc;
}

/* marker = marker_atom (BOOLOP marker_atom)* */
static int parse_list(struct tok *t, struct wp_marker_node **out)
{
	struct wp_marker_node *list = wp_xcalloc(1, sizeof(*list)), *atom = NULL;
	size_t cap_items = 0, cap_or = 0, n_or = 0; /* n_or follows list->n */
	bool is_or = false;
	int rc;

	for (;;) {
		if ((rc = parse_atom(t, &atom)) < 0) {
			free_node(list);
			return rc;
		}
		wp_vec_push_fields(list->or_before, n_or, cap_or, is_or);
		wp_vec_push_fields(list->items, list->n, cap_items, atom);
		if (at_keyword(t, "and")) {
			is_or = false;
			t->pos += 3;
		} else if (at_keyword(t, "or")) {
			is_or = true;
			t->pos += 2;
		} else {
			break;
		}
	}
	*out = list;
	return 0;
}

/* packaging's _normalize_extra_values: only the first comparison of the top level gets its
 * extra name in PEP 503 form (it matters for printing only; evaluation normalises all). */
static void normalise_first_extra(struct wp_marker_node *root)
{
	struct wp_marker_node *first = root->n ? root->items[0] : NULL;
	struct operand *o = NULL;
	struct wp_buf b = WP_BUF_INIT;

	if (!first || !first->leaf)
		return;
	if (first->lhs.is_var && first->lhs.var == V_EXTRA && !first->rhs.is_var)
		o = &first->rhs;
	else if (first->rhs.is_var && first->rhs.var == V_EXTRA && !first->lhs.is_var)
		o = &first->lhs;
	if (!o)
		return;
	wp_name_canonicalize(o->value, strlen(o->value), &b);
	free(o->value);
	o->value = wp_buf_detach(&b, NULL);
	if (!o->value)
		o->value = wp_xstrdup("");
}

int wp_marker_parse_at(struct wp_marker *m, const char *s, size_t n, size_t *pos,
		       struct wp_err *err)
{
	struct tok t = { s, n, *pos, 0, err };
	int rc;

	m->root = NULL;
	if (n > WP_MARKER_MAX_LEN)
		return wp_fail(err, -WPE_TOO_BIG, "marker '%.64s...' is longer than %d bytes", s,
			       WP_MARKER_MAX_LEN);
	if (memchr(s, 0, n))
		return wp_fail(err, -WPE_PARSE, "marker '%s' contains a NUL byte", s);
	if ((rc = parse_list(&t, &m->root)) < 0)
		return rc;
	normalise_first_extra(m->root);
	*pos = t.pos;
	return 0;
}

int wp_marker_parse(struct wp_marker *m, const char *s, size_t n, struct wp_err *err)
{
	size_t pos = 0;
	int rc = wp_marker_parse_at(m, s, n, &pos, err);
	if (rc < 0)
		return rc;
	/* END: packaging HEAD's '\Z': whitespace is only space and tab, so a final newline is an
	 * error (24.2's '$' let one through) */
	if (pos == n)
		return 0;
	struct tok t = { s, n, pos, 0, err };
	wp_marker_release(m);
	return syntax(&t, "the end of the marker or 'and' / 'or'");
}

void wp_marker_release(struct wp_marker *m)
{
	free_node(m->root);
	m->root = NULL;
}

/* ---- printing ---- */

static void format_operand(const struct operand *o, struct wp_buf *out)
{
	/* packaging HEAD's Value.serialize: double quotes, or single ones around a value that holds
	 * a double quote ('a"b'); a value with both has no spelling (packaging raises; this prints
	 * the double-quoted form) */
	if (o->is_var)
		wp_buf_addstr(out, vars[o->var].name);
	else if (strchr(o->value, '"') && !strchr(o->value, '\''))
		wp_buf_printf(out, "'%s'", o->value);
	else
		wp_buf_printf(out, "\"%s\"", o->value);
}

/* packaging HEAD's _format_marker: a list of one list prints as that list in the same place (so
 * "((a or b)) and c" keeps the parentheses its meaning needs; 24.2 printed it as the outermost
 * list and lost them); inner lists get parentheses, the outermost none. */
static void format_node(const struct wp_marker_node *node, bool first, struct wp_buf *out)
{
	if (!node->leaf && node->n == 1) {
		format_node(node->items[0], first, out);
		return;
	}
	if (node->leaf) {
		format_operand(&node->lhs, out);
		wp_buf_printf(out, " %s ", op_names[node->op]);
		format_operand(&node->rhs, out);
		return;
	}
	if (!first)
		wp_buf_addch(out, '(');
	for (size_t i = 0; i < node->n; i++) {
		if (i)
			wp_buf_addstr(out, node->or_before[i] ? " or " : " and ");
		format_node(node->items[i], false, out);
	}
	if (!first)
		wp_buf_addch(out, ')');
}

int wp_marker_format(const struct wp_marker *m, struct wp_buf *out)
{
	struct wp_buf tmp = WP_BUF_INIT;
	int rc = 0;
	if (m->root)
		format_node(m->root, true, &tmp);
	if (wp_buf_add(out, tmp.data ? tmp.data : "", tmp.len) < 0)
		rc = wp_fail(NULL, -WPE_TOO_BIG, "marker text over the buffer's ceiling");
	wp_buf_free(&tmp);
	return rc;
}

/* ---- evaluation ---- */

/* The field types of the living dependency-specifiers text (revised 2026-01-10, "Marker field
 * types"): they decide what an operator means. */
enum kind {
	K_STRING,         /* os_name, sys_platform, platform_machine, ...: opaque strings */
	K_VERSION,        /* python_version, python_full_version, implementation_version */
	K_VERSION_STRING, /* platform_release, platform_version; and a comparison naming no field */
	K_EXTRA,          /* extra: == and != only */
};

static enum kind kind_of(enum var v)
{
	switch (v) {
	case V_PYTHON_VERSION:
	case V_PYTHON_FULL_VERSION:
	case V_IMPLEMENTATION_VERSION: return K_VERSION;
	case V_PLATFORM_RELEASE:
	case V_PLATFORM_VERSION: return K_VERSION_STRING;
	case V_EXTRA: return K_EXTRA;
	default: return K_STRING;
	}
}

/* 1 true, 0 false, negative -WPE_* */
static int eval_op(const char *lhs, enum op op, const char *rhs, enum kind kind, struct wp_err *err)
{
	struct wp_specifier sp;
	struct wp_version v;
	struct wp_err local = WP_ERR_INIT;
	int rc;

	/* "Other comparison operations on extra are not defined ... installation tools SHOULD
	 * evaluate them as False" */
	if (kind == K_EXTRA)
		return op == OP_EQ ? !strcmp(lhs, rhs) : op == OP_NE ? strcmp(lhs, rhs) != 0 : 0;
	if (op == OP_IN)
		return strstr(rhs, lhs) != NULL;
	if (op == OP_NOT_IN)
		return strstr(rhs, lhs) == NULL;
	if (kind != K_STRING) {
		/* version semantics "when either both the marker field value and the user supplied
		 * constant can be parsed as valid version specifiers or the === arbitrary
		 * equivalence comparison operator is used" */
		char *text = wp_xasprintf("%s%s", op_names[op], rhs);
		rc = wp_specifier_parse(&sp, text, strlen(text), &local);
		free(text);
		if (rc == -WPE_TOO_BIG)
			return wp_fail(err, rc, "marker value '%s': %s", rhs, local.msg);
		if (rc == 0) {
			wp_err_clear(&local);
			rc = wp_version_parse(&v, lhs, strlen(lhs), &local);
			if (rc == 0) {
				bool in = wp_specifier_contains(&sp, &v, WP_PRERELEASES_YES);
				wp_version_release(&v);
				wp_specifier_release(&sp);
				return in;
			}
			wp_specifier_release(&sp);
			if (rc == -WPE_TOO_BIG)
				return wp_fail(err, rc, "marker value '%s': %s", lhs, local.msg);
		}
		/* PEP 440's arbitrary equality is string equality (packaging: case-insensitive),
		 * whatever either side holds: platform_release === "6.1.0-17-amd64" */
		if (op == OP_ARB)
			return strcasecmp(lhs, rhs) == 0;
		/* else "fall back to String field comparison logic", where installers "MAY instead
		 * interpret [~=] as equivalent to ==": platform_release ~= "6.1" on a Debian
		 * kernel's "6.1.0-17-amd64" is False, not an error that would refuse the version */
		if (op == OP_COMPAT)
			return strcmp(lhs, rhs) == 0;
	}
	switch (op) {
	case OP_EQ:
	case OP_LE:
	case OP_GE: return strcmp(lhs, rhs) == 0; /* "treat >= and <= as equivalent to ==" */
	case OP_NE: return strcmp(lhs, rhs) != 0;
	case OP_LT:
	case OP_GT: return 0; /* "treat > and < as always being False" */
	default:
		return wp_fail(err, -WPE_PARSE,
			       "marker compares '%s' %s '%s', which has no meaning for strings",
			       lhs, op_names[op], rhs);
	}
}

/* PEP 825 set entries compare without their whitespace ("nvidia::sm_arch" is "nvidia :: sm_arch");
 * the grammar allows none inside a name or value. */
static void squeeze(const char *s, size_t n, struct wp_buf *out)
{
	wp_buf_reset(out);
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			wp_buf_addch(out, s[i]);
	wp_buf_addstr(out, "");
}

/* 'VALUE' in SET: SET is one entry a line. */
static int eval_set(const struct wp_marker_node *node, enum var key, const char *set,
		    struct wp_err *err)
{
	if (node->lhs.is_var || (node->op != OP_IN && node->op != OP_NOT_IN))
		return wp_fail(err, -WPE_PARSE,
			       "marker uses '%s' with '%s'; it is a set: test it with "
			       "'VALUE' in %s or not in",
			       vars[key].name, op_names[node->op], vars[key].name);
	struct wp_buf want = WP_BUF_INIT, have = WP_BUF_INIT;
	bool names = key == V_EXTRAS || key == V_DEPENDENCY_GROUPS; /* PEP 685, PEP 735 */
	if (names)
		wp_name_canonicalize(node->lhs.value, strlen(node->lhs.value), &want); /* want
											  starts
											  empty */
	else
		squeeze(node->lhs.value, strlen(node->lhs.value), &want);
	bool found = false;
	for (const char *p = set; *p && !found;) {
		size_t n = strcspn(p, "\n");
		if (names) {
			wp_buf_reset(&have);
			wp_name_canonicalize(p, n, &have);
		}
		else
			squeeze(p, n, &have);
		found = !strcmp(wp_buf_cstr(&want), wp_buf_cstr(&have));
		p += n + (p[n] == '\n');
	}
	wp_buf_free(&want);
	wp_buf_free(&have);
	return node->op == OP_IN ? found : !found;
}

static int eval_leaf(const struct wp_marker_node *node, const struct wp_marker_env *env,
		     struct wp_err *err)
{
	const char *l, *r;
	enum var key;
	char full[WP_MARKER_VALUE_MAX + 8];
	struct wp_buf nl = WP_BUF_INIT, nr = WP_BUF_INIT;
	int rc;

	if (node->lhs.is_var == node->rhs.is_var) {
		/* PEP 508's grammar is marker_var marker_op marker_var: two strings ("2.7.9" <
		 * "foo") or two variables compare by the same rules as a variable and a string
		 * (versions when both sides are, else Python's string rules). packaging raises
		 * there instead. */
		if (node->lhs.is_var && (is_set(node->lhs.var) || is_set(node->rhs.var)))
			return wp_fail(err, -WPE_PARSE,
				       "marker compares two variables and one is a set; test a set with "
				       "'VALUE' in SET");
		l = node->lhs.is_var ? cfield(env, node->lhs.var) : node->lhs.value;
		r = node->rhs.is_var ? cfield(env, node->rhs.var) : node->rhs.value;
		return eval_op(l, node->op, r, K_VERSION_STRING, err);
	}
	key = node->lhs.is_var ? node->lhs.var : node->rhs.var;
	const char *value = cfield(env, key);
	if ((key == V_EXTRAS || key == V_DEPENDENCY_GROUPS) && !env->lock_sets)
		/* "Outside lock file processing, marker evaluation environments DO NOT need to
		 * define these fields", and an undefined field "SHOULD render a package version
		 * ineligible" */
		return wp_fail(err, -WPE_PARSE,
			       "marker names '%s', which only a lock file's packages.marker "
			       "defines",
			       vars[key].name);
	if (is_set(key))
		return eval_set(node, key, value, err);
	/* packaging repairs a python_full_version like "3.11.0+" (a CPython built from git) */
	if (key == V_PYTHON_FULL_VERSION && value[0] && value[strlen(value) - 1] == '+') {
		snprintf(full, sizeof(full), "%slocal", value);
		value = full;
	}
	l = node->lhs.is_var ? value : node->lhs.value;
	r = node->rhs.is_var ? value : node->rhs.value;
	if (key == V_EXTRA) {
		/* PEP 685: extras compare in PEP 503 form */
		wp_name_canonicalize(l, strlen(l), &nl);
		wp_name_canonicalize(r, strlen(r), &nr);
		l = wp_buf_cstr(&nl);
		r = wp_buf_cstr(&nr);
	}
	rc = eval_op(l, node->op, r, kind_of(key), err);
	wp_buf_free(&nl);
	wp_buf_free(&nr);
	return rc;
}

/* Every comparison is evaluated, as packaging does (so an error anywhere is reported), then
 * "and" binds tighter than "or". */
static int eval_node(const struct wp_marker_node *node, const struct wp_marker_env *env,
		     struct wp_err *err)
{
	bool any = false, all = true;
	int rc = 0;

	if (node->leaf)
		return eval_leaf(node, env, err);
	for (size_t i = 0; i < node->n; i++) {
		int v = eval_node(node->items[i], env, err);
		if (v < 0) {
			if (!rc)
				rc = v;
			continue;
		}
		if (i && node->or_before[i]) {
			any = any || all;
			all = true;
		}
		all = all && v;
	}
	if (rc)
		return rc;
	return any || all;
}

static bool uses(const struct wp_marker_node *node, enum var v)
{
	if (!node)
		return false;
	if (node->leaf)
		return (node->lhs.is_var && node->lhs.var == v) ||
		       (node->rhs.is_var && node->rhs.var == v);
	for (size_t i = 0; i < node->n; i++)
		if (uses(node->items[i], v))
			return true;
	return false;
}

bool wp_marker_uses(const struct wp_marker *m, const char *name)
{
	int v = find_var(name);
	return v >= 0 && uses(m->root, (enum var)v);
}

/* A leaf "VAR == 'value'" (either way round) with value equal to want; extra in PEP 503 form. */
static bool compares_eq(const struct wp_marker_node *node, enum var v, const char *want)
{
	if (!node)
		return false;
	if (!node->leaf) {
		for (size_t i = 0; i < node->n; i++)
			if (compares_eq(node->items[i], v, want))
				return true;
		return false;
	}
	const struct operand *var = node->lhs.is_var ? &node->lhs : &node->rhs;
	const struct operand *lit = node->lhs.is_var ? &node->rhs : &node->lhs;
	if (node->op != OP_EQ || !var->is_var || var->var != v || lit->is_var)
		return false;
	if (v != V_EXTRA)
		return !strcmp(lit->value, want);
	struct wp_buf a = WP_BUF_INIT, b = WP_BUF_INIT;
	wp_name_canonicalize(lit->value, strlen(lit->value), &a);
	wp_name_canonicalize(want, strlen(want), &b);
	bool same = !strcmp(wp_buf_cstr(&a), wp_buf_cstr(&b));
	wp_buf_free(&a);
	wp_buf_free(&b);
	return same;
}

bool wp_marker_compares_eq(const struct wp_marker *m, const char *name, const char *value)
{
	int v = find_var(name);
	return v >= 0 && compares_eq(m->root, (enum var)v, value);
}

int wp_marker_evaluate(const struct wp_marker *m, const struct wp_marker_env *env, bool *result,
		       struct wp_err *err)
{
	int rc;
	*result = false;
	if (!m->root) {
		*result = true;
		return 0;
	}
	rc = eval_node(m->root, env, err);
	if (rc < 0)
		return rc;
	*result = rc == 1;
	return 0;
}

void wp_target_marker(const struct wp_target *t, struct wp_buf *out)
{
	struct wp_marker_env env;
	const char *sep = "";
	wp_marker_env_from_target(&env, t);
	if (env.python_version[0]) {
		wp_buf_printf(out, "python_version == \"%s\"", env.python_version);
		sep = " and ";
	}
	if (env.sys_platform[0]) {
		wp_buf_printf(out, "%ssys_platform == \"%s\"", sep, env.sys_platform);
		sep = " and ";
	}
	if (env.platform_machine[0])
		wp_buf_printf(out, "%splatform_machine == \"%s\"", sep, env.platform_machine);
}
