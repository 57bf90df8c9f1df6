/* base/json.h: writing JSON for --json output (a thin layer over yajl_gen).
 * struct wp_json owns its generator; the text is written to the FILE on wp_json_finish. */
#ifndef WP_JSON_H
#define WP_JSON_H

#include <stdio.h>

struct wp_json {
	void *gen; /* yajl_gen */
};

void wp_json_init(struct wp_json *j);
void wp_json_obj(struct wp_json *j);
void wp_json_obj_end(struct wp_json *j);
void wp_json_arr(struct wp_json *j);
void wp_json_arr_end(struct wp_json *j);
void wp_json_key(struct wp_json *j, const char *key);
void wp_json_str(struct wp_json *j, const char *s); /* NULL writes null */
void wp_json_int(struct wp_json *j, long long v);
void wp_json_null(struct wp_json *j);
/* key + value shorthands */
void wp_json_kstr(struct wp_json *j, const char *key, const char *s);
void wp_json_kint(struct wp_json *j, const char *key, long long v);
/* A JSON array of strings given as text (conda depends), re-emitted string by string; NULL or
 * unreadable text writes []. */
void wp_json_raw_list(struct wp_json *j, const char *json_array);
/* Write the document (plus a newline) and free the generator. */
void wp_json_finish(struct wp_json *j, FILE *f);

#endif
