/* base/json.h: the one JSON module: a streaming reader skeleton, a tree loader for small
 * documents, and a writer. The only code that includes yajl; swapping the parser touches this
 * folder alone.
 * Ownership: a struct wp_json_reader owns its parser until _release; the bytes it is fed and
 * what callbacks receive are borrowed for the call only. A tree from wp_json_load owns every
 * value and string in it until wp_json_tree_free. A struct wp_json owns its generator until
 * _finish or _finish_buf. */
#ifndef WP_JSON_H
#define WP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"

#define WP_JSON_MAX_DEPTH 64 /* arrays and objects nested deeper are refused (README: security) */

/* What a value is; WP_JSON_ABSENT stands for a member that is not there. */
enum wp_json_type {
	WP_JSON_ABSENT = 0,
	WP_JSON_NULL,
	WP_JSON_BOOL,
	WP_JSON_NUMBER,
	WP_JSON_STRING,
	WP_JSON_OBJECT,
	WP_JSON_ARRAY,
};

/* ---- reading, streamed ---- */

/* What a reader does with each event, as yajl's callbacks: 0 goes on, a negative -WPE_* code
 * stops the parse (the callback records its message in the reader's err first). NULL members
 * accept the event and ignore it. Strings and numbers are borrowed for the call; a number
 * arrives as its text; strings are UTF-8 checked and unescaped. */
struct wp_json_callbacks {
	/* Every scalar through one function, for readers that switch on the type: t is NULL, BOOL
	 * (b), NUMBER (its text in s, n) or STRING (s, n). When set, the next four are not used. */
	int (*value)(void *ctx, enum wp_json_type t, const unsigned char *s, size_t n, bool b);
	int (*null)(void *ctx);
	int (*boolean)(void *ctx, bool b);
	int (*number)(void *ctx, const char *s, size_t n);
	int (*string)(void *ctx, const unsigned char *s, size_t n);
	int (*start_map)(void *ctx);
	int (*key)(void *ctx, const unsigned char *s, size_t n);
	int (*end_map)(void *ctx);
	int (*start_array)(void *ctx);
	int (*end_array)(void *ctx);
};

/* Caps and names for messages. Messages read "[NOUN ]'WHAT' is not KIND: why". */
struct wp_json_opts {
	const char *what;  /* the source: a path or URL (borrowed) */
	const char *noun;  /* optional: "profile", "mirror manifest" */
	const char *kind;  /* what it should be: "conda repodata"; NULL: "valid JSON" */
	int code;          /* for malformed or too deep: -WPE_SOURCE ...; 0: -WPE_PARSE */
	size_t max_bytes;  /* refuse more bytes than this in all (-WPE_TOO_BIG); required */
	size_t max_token;  /* refuse one string, number or literal longer than this (-WPE_TOO_BIG),
			      before the parser holds more than twice this of it (a token that
			      spans pieces is counted as the piece after the one it passes the cap
			      in is parsed; callbacks for that piece's earlier tokens may run
			      first); 0: no cap of its own */
};

/* The parser's state: fields are private to base/json.c. */
struct wp_json_reader {
	void *h; /* yajl_handle */
	const struct wp_json_callbacks *cb;
	void *ctx;
	struct wp_json_opts o;
	struct wp_err *err;
	size_t fed;
	int depth, rc;
	bool in_str, esc; /* the token guard's place, across feeds */
	size_t run;
	bool marked;      /* a token was reported in the piece being fed, the first ending at
			     first_end and the last at last_end */
	size_t first_end, last_end;
};

/* Start a document: comments, trailing garbage and second values are refused; strings must be
 * UTF-8. o is copied (its strings are borrowed); messages go to err. */
void wp_json_reader_init(struct wp_json_reader *r, const struct wp_json_callbacks *cb, void *ctx,
			 const struct wp_json_opts *o, struct wp_err *err);
/* Parse the next n bytes (a document may arrive in any number of pieces). 0, or the first
 * error: a callback's code, -WPE_TOO_BIG past a cap, o.code for malformed JSON or nesting past
 * WP_JSON_MAX_DEPTH. After an error every later call returns it again. */
int wp_json_reader_feed(struct wp_json_reader *r, const void *data, size_t n);
/* The end of the input: a truncated document is malformed. */
int wp_json_reader_finish(struct wp_json_reader *r);
void wp_json_reader_release(struct wp_json_reader *r);

/* A whole document in memory: init, feed, finish, release. */
int wp_json_read(const void *data, size_t n, const struct wp_json_callbacks *cb, void *ctx,
		 const struct wp_json_opts *o, struct wp_err *err);

/* For callbacks: a string into b (reset first); false when it holds a NUL or passes b's
 * ceiling. Inline: the repodata reader calls it for every field. */
static inline bool wp_json_take(struct wp_buf *b, const unsigned char *s, size_t n)
{
	wp_buf_reset(b);
	return !memchr(s, 0, n) && wp_buf_add(b, s, n) == 0;
}

/* For callbacks: a key into dst (size bytes). One too long for dst or holding a NUL becomes "":
 * it matches no key a reader looks for. */
static inline void wp_json_key_copy(char *dst, size_t size, const unsigned char *s, size_t n)
{
	if (n >= size || memchr(s, 0, n))
		n = 0;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* ---- reading small documents whole ---- */

/* A value in a tree from wp_json_load; NULL stands for "absent" and every getter accepts it. */
struct wp_json_val;

/* Parse text (len bytes; no NUL needed) into a tree with the caps and messages of opts (the
 * depth cap keeps the tree's recursive free off the stack's end). 0 with *root set, or an
 * error as wp_json_reader_feed's. */
int wp_json_load(const char *text, size_t len, const struct wp_json_opts *o,
		 struct wp_json_val **root, struct wp_err *err);
void wp_json_tree_free(struct wp_json_val *root);

enum wp_json_type wp_json_type(const struct wp_json_val *v);
/* The value at a path of object keys below v, or NULL: wp_json_get(v, "cuda", "version"). */
#define wp_json_get(v, ...) wp_json_get_path((v), (const char *const[]){ __VA_ARGS__, NULL })
const struct wp_json_val *wp_json_get_path(const struct wp_json_val *v, const char *const *path);
/* Typed views of one value: NULL, or false, when it is not of that type. */
const char *wp_json_as_str(const struct wp_json_val *v);
bool wp_json_as_int(const struct wp_json_val *v, long long *out); /* an integer that fits */
bool wp_json_as_bool(const struct wp_json_val *v, bool *out);
/* Elements of an array or members of an object (0 for anything else), and the i-th of them. */
size_t wp_json_len(const struct wp_json_val *v);
const struct wp_json_val *wp_json_at(const struct wp_json_val *v, size_t i);
/* The key of an object's i-th member, or NULL (not an object, or past the end). */
const char *wp_json_key_at(const struct wp_json_val *v, size_t i);
/* Any number as a double (an integer too); false when v is not a number. */
bool wp_json_as_double(const struct wp_json_val *v, double *out);
/* The same through a path, typed: wp_json_get_str(root, "files", "name"). */
#define wp_json_get_str(v, ...) wp_json_as_str(wp_json_get((v), __VA_ARGS__))
#define wp_json_get_obj(v, ...) wp_json_typed(wp_json_get((v), __VA_ARGS__), WP_JSON_OBJECT)
#define wp_json_get_arr(v, ...) wp_json_typed(wp_json_get((v), __VA_ARGS__), WP_JSON_ARRAY)
/* v when it has type t, else NULL. */
const struct wp_json_val *wp_json_typed(const struct wp_json_val *v, enum wp_json_type t);

/* ---- writing ---- */

struct wp_json {
	void *gen; /* yajl_gen */
	bool bad;  /* a string was not UTF-8 (written as U+FFFD), or the calls broke the grammar */
};

/* Pretty-printed with two spaces, as --json prints. */
void wp_json_init(struct wp_json *j);
/* indent: the string for one level; NULL writes the document on one line. */
void wp_json_init_indent(struct wp_json *j, const char *indent);
void wp_json_obj(struct wp_json *j);
void wp_json_obj_end(struct wp_json *j);
void wp_json_arr(struct wp_json *j);
void wp_json_arr_end(struct wp_json *j);
void wp_json_key(struct wp_json *j, const char *key);
void wp_json_str(struct wp_json *j, const char *s); /* NULL writes null */
void wp_json_int(struct wp_json *j, long long v);
void wp_json_bool(struct wp_json *j, bool v);
void wp_json_null(struct wp_json *j);
/* key + value shorthands */
void wp_json_kstr(struct wp_json *j, const char *key, const char *s);
void wp_json_kint(struct wp_json *j, const char *key, long long v);
void wp_json_kbool(struct wp_json *j, const char *key, bool v);
/* A JSON array of strings given as text (conda depends), re-emitted string by string; NULL or
 * unreadable text writes []. */
void wp_json_raw_list(struct wp_json *j, const char *json_array);
/* Write the document (plus a newline) and free the generator. */
void wp_json_finish(struct wp_json *j, FILE *f);
/* Append the document (ending in a newline) to out and free the generator. 0; -WPE_PARSE when
 * a string was not UTF-8 or a call broke the grammar (nothing is appended then); -WPE_TOO_BIG
 * past out's ceiling. */
int wp_json_finish_buf(struct wp_json *j, struct wp_buf *out);

#endif
