/* tests/diff/pylock_driver.c: answers pylock queries from stdin with index/pylock, for
 * pylock_diff.py. One command a line, fields split by a tab; every command but the setters answers
 * one line: lock PATH          read PATH: "valid" or "invalid MESSAGE" (later selects use it) reset
 * forget the environment, tags, extras and groups env NAME VALUE     a marker value;  tag TAG  the
 * next tag (best first) extra NAME         an extra to install;  group NAME  a dependency group
 * (any group line means "exactly these groups"; "groups" alone means none, not the defaults) select
 * "ok NAME:KIND:FILE NAME:KIND:FILE ..." or "error nomatch|parse MESSAGE" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "index/pylock.h"

#define MAX_LIST 4096

int main(void)
{
	struct wp_pylock lk;
	bool have = false;
	struct wp_marker_env env;
	char *tags[MAX_LIST], *extras[64], *groups[64];
	size_t ntags = 0, nextras = 0, ngroups = 0;
	bool groups_set = false;
	char line[1 << 16];

	wp_marker_env_init(&env);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		char *arg = strchr(line, '\t');
		if (arg)
			*arg++ = 0;
		if (!strcmp(line, "lock") && arg) {
			FILE *f = fopen(arg, "rb");
			struct wp_buf b = WP_BUF_INIT;
			char chunk[65536];
			size_t k;
			if (have)
				wp_pylock_release(&lk);
			have = false;
			if (!f) {
				printf("invalid cannot open\n");
				continue;
			}
			while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
				wp_buf_add(&b, chunk, k);
			fclose(f);
			struct wp_err err = WP_ERR_INIT;
			if (wp_pylock_parse(&lk, b.data ? b.data : "", b.len, arg, &err) < 0) {
				printf("invalid %s\n", err.msg);
			} else {
				have = true;
				printf("valid\n");
			}
			wp_buf_free(&b);
		} else if (!strcmp(line, "reset")) {
			wp_marker_env_init(&env);
			for (size_t i = 0; i < ntags; i++)
				free(tags[i]);
			for (size_t i = 0; i < nextras; i++)
				free(extras[i]);
			for (size_t i = 0; i < ngroups; i++)
				free(groups[i]);
			ntags = nextras = ngroups = 0;
			groups_set = false;
		} else if (!strcmp(line, "env") && arg) {
			char *val = strchr(arg, '\t');
			if (val)
				*val++ = 0;
			wp_marker_env_set(&env, arg, val ? val : "", NULL);
		} else if (!strcmp(line, "tag") && arg && ntags < MAX_LIST) {
			tags[ntags++] = strdup(arg);
		} else if (!strcmp(line, "extra") && arg && nextras < 64) {
			extras[nextras++] = strdup(arg);
		} else if (!strcmp(line, "group") && arg && ngroups < 64) {
			groups[ngroups++] = strdup(arg);
			groups_set = true;
		} else if (!strcmp(line, "groups")) {
			groups_set = true;
		} else if (!strcmp(line, "select")) {
			if (!have) {
				printf("error parse no lock\n");
				continue;
			}
			struct wp_pylock_want w = { &env,
						    NULL,
						    (const char *const *)tags,
						    ntags,
						    (const char *const *)extras,
						    nextras,
						    groups_set ? (const char *const *)groups : NULL,
						    ngroups };
			static const char *const none[1] = { NULL };
			if (groups_set && !ngroups)
				w.groups = none;
			struct wp_pylock_pick *picks;
			size_t n;
			struct wp_err err = WP_ERR_INIT;
			int rc = wp_pylock_select(&lk, &w, &picks, &n, &err);
			if (rc < 0) {
				printf("error %s %s\n", rc == -WPE_NOMATCH ? "nomatch" : "parse",
				       err.msg);
				continue;
			}
			fputs("ok", stdout);
			for (size_t i = 0; i < n; i++)
				printf(" %s:%s:%s", picks[i].pkg->name,
				       wp_pylock_source_name(picks[i].source),
				       picks[i].file && picks[i].file->name ? picks[i].file->name :
									      "-");
			putchar('\n');
			free(picks);
		} else {
			printf("error parse unknown command\n");
		}
	}
	if (have)
		wp_pylock_release(&lk);
	return 0;
}
