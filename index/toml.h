/* index/toml.h: a bounded TOML 1.0 reader, for pylock.toml (PEP 751) and nothing larger.
 * Debian has no C TOML library (libtomlc99 and libtoml are not packaged; libcpptoml is C++), so
 * this reads the whole of TOML 1.0's syntax into a tree: tables, arrays of tables, dotted and
 * quoted keys, inline tables, arrays, the four string forms, integers (decimal, 0x, 0o, 0b),
 * floats, booleans and the four date-time forms (kept as their text, checked for shape).
 * Refused with -WPE_PARSE and the line: what TOML 1.0 refuses (a key defined twice, a table
 * header twice, text after a value, bad escapes, invalid UTF-8, control bytes). Caps
 * (-WPE_TOO_BIG): WP_TOML_MAX_BYTES of input, WP_TOML_MAX_DEPTH of nesting, WP_TOML_MAX_NODES
 * values in all.
 * Ownership: wp_toml_parse returns a tree the caller frees with wp_toml_free; every string and
 * value in it belongs to the tree. Lookups borrow the tree. */
#ifndef WP_TOML_H
#define WP_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define WP_TOML_MAX_BYTES (64u << 20)
#define WP_TOML_MAX_DEPTH 32
#define WP_TOML_MAX_NODES 2000000

enum wp_toml_type {
	WP_TOML_STRING = 1,
	WP_TOML_INTEGER,
	WP_TOML_FLOAT, /* text in str, as written */
	WP_TOML_BOOL,
	WP_TOML_DATETIME, /* text in str, as written: offset or local date-time, local date or time
			   */
	WP_TOML_ARRAY,
	WP_TOML_TABLE,
};

struct wp_toml {
	enum wp_toml_type type;
	char *str; /* STRING (UTF-8, unescaped; len bytes, NUL-terminated), FLOAT, DATETIME */
	size_t len;
	int64_t i;              /* INTEGER */
	bool b;                 /* BOOL */
	struct wp_toml **items; /* ARRAY: the values; TABLE: the values of keys[] */
	char **keys;            /* TABLE: keys in the order they were defined */
	size_t n, cap;
	unsigned flags;         /* private to toml.c: how a table was made */
	unsigned line;          /* where the value starts (1-based), for messages */
};

/* Parse n bytes of s (what: the file's name for messages). *out is the root table. */
int wp_toml_parse(const char *s, size_t n, const char *what, struct wp_toml **out,
		  struct wp_err *err);
void wp_toml_free(struct wp_toml *t);

/* The value under key in table t, or NULL when t is no table or has no such key. */
const struct wp_toml *wp_toml_get(const struct wp_toml *t, const char *key);
/* The type's name for messages: "string", "integer", "table", ... */
const char *wp_toml_type_name(enum wp_toml_type type);

#endif
