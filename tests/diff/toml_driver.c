/* tests/diff/toml_driver.c: parses each file named on the command line with index/toml, for
 * toml_diff.py. One line a file: "ok JSON" (the tree: strings as JSON strings, integers as
 * {"i":"N"}, floats as {"f":"TEXT"}, date-times as {"d":"TEXT"}, booleans, arrays, tables as
 * objects in definition order) or "error MESSAGE". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "index/toml.h"

static void str(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void dump(const struct wp_toml *t)
{
	switch (t->type) {
	case WP_TOML_STRING: str(t->str, t->len); break;
	case WP_TOML_INTEGER: printf("{\"$i\":\"%lld\"}", (long long)t->i); break;
	case WP_TOML_FLOAT: printf("{\"$f\":"); str(t->str, t->len); putchar('}'); break;
	case WP_TOML_DATETIME: printf("{\"$d\":"); str(t->str, t->len); putchar('}'); break;
	case WP_TOML_BOOL: fputs(t->b ? "true" : "false", stdout); break;
	case WP_TOML_ARRAY:
		putchar('[');
		for (size_t i = 0; i < t->n; i++) {
			if (i)
				putchar(',');
			dump(t->items[i]);
		}
		putchar(']');
		break;
	case WP_TOML_TABLE:
		putchar('{');
		for (size_t i = 0; i < t->n; i++) {
			if (i)
				putchar(',');
			str(t->keys[i], strlen(t->keys[i]));
			putchar(':');
			dump(t->items[i]);
		}
		putchar('}');
		break;
	}
}

int main(int argc, char **argv)
{
	for (int a = 1; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");
		struct wp_buf b = WP_BUF_INIT;
		char chunk[65536];
		size_t k;
		if (!f) {
			printf("error cannot open\n");
			continue;
		}
		while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
			wp_buf_add(&b, chunk, k);
		fclose(f);
		struct wp_toml *t;
		struct wp_err err = WP_ERR_INIT;
		if (wp_toml_parse(b.data ? b.data : "", b.len, argv[a], &t, &err) < 0) {
			printf("error %s\n", err.msg);
			wp_err_clear(&err);
		} else {
			fputs("ok ", stdout);
			dump(t);
			putchar('\n');
			wp_toml_free(t);
		}
		wp_buf_free(&b);
	}
	return 0;
}
