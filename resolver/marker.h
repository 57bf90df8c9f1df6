/* resolver/marker.h: PEP 508 environment markers: parse to a tree, print, evaluate (the
 * dependency-specifiers text of 2026-01-10). */
/* Ownership: a struct wp_marker owns its tree (wp_marker_release frees it). A struct wp_marker_env
 * is plain data with fixed-size fields, copyable by assignment. Nothing here keeps its
 * arguments. */
#ifndef WP_MARKER_H
#define WP_MARKER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/target.h"

#define WP_MARKER_MAX_LEN 16384  /* marker text past this is refused (-WPE_TOO_BIG) */
#define WP_MARKER_MAX_DEPTH 64   /* parentheses nested deeper are refused (-WPE_TOO_BIG) */
#define WP_MARKER_VALUE_MAX 256  /* one environment value, NUL included */
#define WP_MARKER_SET_MAX 4096   /* one PEP 825 set value (all its entries), NUL included */

/* The values a marker may name; "" where unknown. extra is "" unless a requirement is being
 * evaluated for one of its extras. */
struct wp_marker_env {
	char implementation_name[WP_MARKER_VALUE_MAX];            /* cpython */
	char implementation_version[WP_MARKER_VALUE_MAX];         /* 3.8.0 */
	char os_name[WP_MARKER_VALUE_MAX];                        /* posix, nt */
	char platform_machine[WP_MARKER_VALUE_MAX];               /* x86_64, AMD64, arm64 */
	char platform_release[WP_MARKER_VALUE_MAX];
	char platform_system[WP_MARKER_VALUE_MAX];                /* Linux, Windows, Darwin */
	char platform_version[WP_MARKER_VALUE_MAX];
	char python_full_version[WP_MARKER_VALUE_MAX];            /* 3.8.0 */
	char platform_python_implementation[WP_MARKER_VALUE_MAX]; /* CPython */
	char python_version[WP_MARKER_VALUE_MAX];                 /* 3.8 */
	char sys_platform[WP_MARKER_VALUE_MAX];                   /* linux, win32, darwin */
	char extra[WP_MARKER_VALUE_MAX];
	/* PEP 825 variant markers, scoped to the wheel whose dependencies are evaluated: its label
	 * ("" for a non-variant wheel), and the sets (one entry a line: "nvidia", "nvidia ::
	 * sm_arch", "nvidia :: sm_arch :: 120_real") of its properties the target supports. Sets
	 * are tested only with 'VALUE' in / not in SET; whitespace around "::" does not count. */
	char variant_label[WP_MARKER_VALUE_MAX];
	char variant_namespaces[WP_MARKER_SET_MAX];
	char variant_features[WP_MARKER_SET_MAX];
	char variant_properties[WP_MARKER_SET_MAX];
	/* PEP 751 lock-file sets (pylock.toml's packages.marker): the extras and dependency groups
	 * being installed, one name a line, compared in PEP 503 form ('Test' in extras) */
	char extras[WP_MARKER_SET_MAX];
	char dependency_groups[WP_MARKER_SET_MAX];
	/* extras and dependency_groups are defined (a pylock.toml's packages.marker); elsewhere a
	 * marker naming them is an error, as the dependency-specifiers text has it */
	bool lock_sets;
};

/* Every value "". */
void wp_marker_env_init(struct wp_marker_env *env);
/* The values pip would see running on target t's machine: platform tags manylinux_*, musllinux_*,
 * linux_* give linux/Linux/posix; win_amd64, win32, win_arm64 give win32/Windows/nt with machine
 * AMD64, x86, ARM64; macosx_* gives darwin/Darwin/posix (universal2 is taken as arm64). The
 * machine comes from the tag's architecture; with no platform, from t->conda_subdir. Python
 * values come from t's version (micro 0 when unknown) and implementation (cp -> CPython, pp ->
 * PyPy). platform_release, platform_version and extra stay "". */
void wp_marker_env_from_target(struct wp_marker_env *env, const struct wp_target *t);
/* Set one value by its marker name ("python_version"). -WPE_USAGE for an unknown name,
 * -WPE_TOO_BIG for a value of WP_MARKER_VALUE_MAX bytes or more (WP_MARKER_SET_MAX for a set). */
int wp_marker_env_set(struct wp_marker_env *env, const char *name, const char *value,
		      struct wp_err *err);
/* A value by its marker name, or NULL for an unknown name. */
const char *wp_marker_env_get(const struct wp_marker_env *env, const char *name);

struct wp_marker_node; /* private to marker.c */

struct wp_marker {
	struct wp_marker_node *root; /* owned; NULL when empty */
};

#define WP_MARKER_INIT { NULL }

/* Marker(text). m is overwritten, not released; after failure it holds nothing. -WPE_PARSE
 * (the message names the text and the position), -WPE_TOO_BIG over the caps above. */
int wp_marker_parse(struct wp_marker *m, const char *s, size_t n, struct wp_err *err);
/* For the requirement grammar: parse the marker that starts at *pos in s (after its ';'),
 * leaving *pos just past it; what follows is the caller's to check. */
int wp_marker_parse_at(struct wp_marker *m, const char *s, size_t n, size_t *pos,
		       struct wp_err *err);
void wp_marker_release(struct wp_marker *m);
/* str(Marker): variables bare, values in double quotes, single spaces, needed parentheses only. */
int wp_marker_format(const struct wp_marker *m, struct wp_buf *out);
/* Marker.evaluate(env), by the living dependency-specifiers text (revised 2026-01-10): on the
 * Version fields (python_version, python_full_version, implementation_version) and the
 * Version | String ones (platform_release, platform_version; and a comparison of two strings or
 * two variables) a specifier built from the operator and the right-hand value when both sides
 * are versions, === as case-insensitive string equality whatever they hold, else the String
 * rules; on String fields ==, != as Python strings, >= and <= as ==, > and < False; in and not
 * in as Python substrings; extra (names in PEP 503 form) == and != only, anything else False.
 * Errors (-WPE_PARSE), which make the version that declares the marker ineligible: ~= or ===
 * on a String field (~= on a non-version), a set used other than 'VALUE' in SET, and extras or
 * dependency_groups when env->lock_sets is false. */
int wp_marker_evaluate(const struct wp_marker *m, const struct wp_marker_env *env, bool *result,
		       struct wp_err *err);

/* Whether m names the variable name ("extra") anywhere: a context that does not define it (a lock
 * file's markers have extras, not extra) refuses such a marker, as packaging does. */
bool wp_marker_uses(const struct wp_marker *m, const char *name);
/* Whether m holds the comparison name == 'value' (either way round) anywhere: a Requires-Dist
 * that belongs to the extra "value" (name "extra": compared in PEP 503 form, as PEP 685 has it). */
bool wp_marker_compares_eq(const struct wp_marker *m, const char *name, const char *value);
/* The environment marker that selects target t's machines and no other kind: "python_version ==
 * \"3.10\" and sys_platform == \"linux\" and platform_machine == \"x86_64\"" (what pip sees there;
 * parts the target leaves unknown are left out). Appended to out. Two targets that differ only in
 * what markers cannot see (the CUDA driver, the GPU, a free-threaded build) get the same text. */
void wp_target_marker(const struct wp_target *t, struct wp_buf *out);

#endif
