/* base/json.c: --json output through yajl_gen (which escapes and validates UTF-8 for us). */
#include "base/json.h"

#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

void wp_json_init(struct wp_json *j)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	yajl_gen_config(g, yajl_gen_beautify, 1);
	yajl_gen_config(g, yajl_gen_indent_string, "  ");
	/* Strings from indexes may carry invalid UTF-8: refuse silently rather than emit it. */
	yajl_gen_config(g, yajl_gen_validate_utf8, 1);
	j->gen = g;
}

void wp_json_obj(struct wp_json *j) { yajl_gen_map_open(j->gen); }
void wp_json_obj_end(struct wp_json *j) { yajl_gen_map_close(j->gen); }
void wp_json_arr(struct wp_json *j) { yajl_gen_array_open(j->gen); }
void wp_json_arr_end(struct wp_json *j) { yajl_gen_array_close(j->gen); }
void wp_json_null(struct wp_json *j) { yajl_gen_null(j->gen); }
void wp_json_int(struct wp_json *j, long long v) { yajl_gen_integer(j->gen, v); }

void wp_json_str(struct wp_json *j, const char *s)
{
	if (!s) {
		yajl_gen_null(j->gen);
		return;
	}
	if (yajl_gen_string(j->gen, (const unsigned char *)s, strlen(s)) == yajl_gen_invalid_string)
		yajl_gen_string(j->gen, (const unsigned char *)"\xef\xbf\xbd", 3); /* U+FFFD */
}

void wp_json_key(struct wp_json *j, const char *key) { wp_json_str(j, key); }

void wp_json_kstr(struct wp_json *j, const char *key, const char *s)
{
	wp_json_key(j, key);
	wp_json_str(j, s);
}

void wp_json_kint(struct wp_json *j, const char *key, long long v)
{
	wp_json_key(j, key);
	wp_json_int(j, v);
}

void wp_json_finish(struct wp_json *j, FILE *f)
{
	const unsigned char *buf;
	size_t len;
	yajl_gen_get_buf(j->gen, &buf, &len);
	fwrite(buf, 1, len, f);
	if (len && buf[len - 1] != '\n')
		fputc('\n', f);
	yajl_gen_free(j->gen);
	j->gen = NULL;
}

void wp_json_raw_list(struct wp_json *j, const char *json_array)
{
	char errbuf[128];
	yajl_val v = json_array ? yajl_tree_parse(json_array, errbuf, sizeof(errbuf)) : NULL;
	wp_json_arr(j);
	if (v && YAJL_IS_ARRAY(v)) {
		for (size_t i = 0; i < v->u.array.len; i++)
			if (YAJL_IS_STRING(v->u.array.values[i]))
				wp_json_str(j, YAJL_GET_STRING(v->u.array.values[i]));
	}
	wp_json_arr_end(j);
	if (v)
		yajl_tree_free(v);
}
