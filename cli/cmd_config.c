/* cli/cmd_config.c: `wheelpick config list|debug`: every configuration value in effect and where
 * it came from, in pip's words (pip config list / pip config debug) and then wheelpick's. */
#include "base/envp.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/urlmask.h"
#include "cli/cli.h"
#include "cli/envtable.h"
#include "ops/core/indexconf.h"
#include "ops/core/session.h"
#include "base/os/os.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct config_opts {
	bool json, isolated;
	const char *command;
};

const struct wp_opt wp_config_table[] = {
	{ "json", 0, NULL, WP_OPT_FLAG, offsetof(struct config_opts, json), NULL,
	  "the same as one JSON document on stdout" },
	{ "isolated", 0, NULL, WP_OPT_FLAG, offsetof(struct config_opts, isolated), NULL,
	  "as a pick with --isolated sees it: no pip or uv variables or files" },
	{ "pip-command", 0, NULL, WP_OPT_STR, offsetof(struct config_opts, command),
	  "download|install", "pip's section read after [global] (a pick reads [download])" },
	WP_OPT_END,
};

/* value with each URL in it shown as pip shows it ("user:****@host") */
static char *redact_text(const char *value)
{
	struct wp_buf b = WP_BUF_INIT;
	const char *p = value;
	while (*p) {
		size_t sp = strspn(p, " \t\r\n");
		wp_buf_add(&b, p, sp);
		p += sp;
		size_t n = strcspn(p, " \t\r\n");
		if (!n)
			continue;
		char *tok = wp_xstrndup(p, n), *r = wp_url_redact(tok);
		wp_buf_addstr(&b, r);
		free(tok);
		free(r);
		p += n;
	}
	return wp_buf_detach(&b, NULL);
}

/* Python's repr of a str, as pip config list prints values */
static void print_repr(const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	putchar(q);
	for (const char *c = s; *c; c++) {
		if (*c == '\n')
			fputs("\\n", stdout);
		else if (*c == '\t')
			fputs("\\t", stdout);
		else if (*c == '\\' || *c == q)
			printf("\\%c", *c);
		else if ((unsigned char)*c < 0x20)
			printf("\\x%02x", (unsigned char)*c);
		else
			putchar(*c);
	}
	putchar(q);
}

/* pip's dictionary: the last value of each name (a later file replaces an earlier one) */
static const struct wp_config_value *last_of(const struct wp_index_config *c, size_t i)
{
	for (size_t k = c->values.n; k-- > i + 1;)
		if (!strcmp(c->values.v[k].name, c->values.v[i].name))
			return NULL;
	return &c->values.v[i];
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct wp_config_value *const *)a)->name,
		      (*(const struct wp_config_value *const *)b)->name);
}

/* wheelpick's own variables that are set, from the one table */
static void own_vars(void (*fn)(void *ctx, const char *name, const char *value), void *ctx)
{
	for (size_t i = 0; i < wp_n_env_vars; i++) {
		const struct wp_env_var *v = &wp_env_vars[i];
		const char *val = !v->is_file && !strcmp(v->tool, "wheelpick") ?
					  wp_envp_get(wp_os_environ(), v->name) :
					  NULL;
		if (val && *val && strcmp(v->name, "WHEELPICK_INDEX") != 0)
			fn(ctx, v->name, val);
	}
}

static void list_own(void *ctx, const char *name, const char *value)
{
	char *r = redact_text(value);
	printf("%s=", name);
	print_repr(r);
	putchar('\n');
	free(r);
}

static void cmd_list(const struct wp_index_config *c)
{
	const struct wp_config_value **v = wp_xcalloc(c->values.n + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < c->values.n; i++)
		if (last_of(c, i))
			v[n++] = &c->values.v[i];
	qsort(v, n, sizeof(*v), by_name);
	for (size_t i = 0; i < n; i++) {
		char *r = redact_text(v[i]->value);
		printf("%s=", v[i]->name);
		print_repr(r);
		putchar('\n');
		free(r);
	}
	free(v);
	own_vars(list_own, NULL);
}

static void debug_own(void *ctx, const char *name, const char *value)
{
	char *r = redact_text(value);
	printf("  %s=", name);
	print_repr(r);
	putchar('\n');
	free(r);
}

static void print_file_values(const struct wp_index_config *c, const char *path)
{
	for (size_t i = 0; i < c->values.n; i++) {
		const struct wp_config_value *v = &c->values.v[i];
		if (!v->file || strcmp(v->file, path) != 0 || !strncmp(v->name, "uv.", 3))
			continue;
		char *r = redact_text(v->value);
		printf("    %s: %s\n", v->name, r);
		free(r);
	}
}

static void cmd_debug(const struct wp_cli *cli, const struct wp_index_config *c)
{
	/* pip's part, in pip config debug's shape: variables, then each variant's files */
	puts("env_var:");
	const struct wp_config_value **ev = wp_xcalloc(c->values.n + 1, sizeof(*ev));
	size_t nev = 0;
	for (size_t i = 0; i < c->values.n; i++)
		if (!strncmp(c->values.v[i].name, ":env:.", 6))
			ev[nev++] = &c->values.v[i];
	qsort(ev, nev, sizeof(*ev), by_name); /* pip sorts them */
	for (size_t i = 0; i < nev; i++) {
		const struct wp_config_value *v = ev[i];
		char *r = redact_text(v->value);
		printf("  %s=", v->origin);
		print_repr(r);
		putchar('\n');
		free(r);
	}
	free(ev);
	static const char *const variants[] = { "env", "global", "site", "user" };
	for (size_t k = 0; k < 4; k++) {
		bool any = false;
		for (size_t i = 0; i < c->files.n; i++)
			any = any ||
			      (!strcmp(c->files.v[i].variant, variants[k]) && c->files.v[i].read);
		if (!any && k != 0)
			continue;
		printf("%s:\n", variants[k]);
		for (size_t i = 0; i < c->files.n; i++) {
			const struct wp_config_file *f = &c->files.v[i];
			if (strcmp(f->variant, variants[k]) != 0 || !f->read)
				continue;
			printf("  %s, exists: %s\n", f->path, f->exists ? "True" : "False");
			print_file_values(c, f->path);
		}
	}
	/* uv's variables and files, then wheelpick's own variables */
	puts("uv:");
	for (size_t i = 0; i < c->values.n; i++) {
		const struct wp_config_value *v = &c->values.v[i];
		if (strncmp(v->name, "UV_", 3) != 0)
			continue;
		char *r = redact_text(v->value);
		printf("  %s=", v->name);
		print_repr(r);
		putchar('\n');
		free(r);
	}
	for (size_t i = 0; i < c->files.n; i++) {
		const struct wp_config_file *f = &c->files.v[i];
		if (strncmp(f->variant, "uv-", 3) != 0)
			continue;
		printf("  %s, exists: %s\n", f->path, f->exists ? "True" : "False");
		for (size_t k = 0; k < c->values.n; k++) {
			const struct wp_config_value *v = &c->values.v[k];
			if (v->file && !strcmp(v->file, f->path) && !strncmp(v->name, "uv.", 3)) {
				char *r = redact_text(v->value);
				printf("    %s: %s\n", v->name + 3, r);
				free(r);
			}
		}
	}
	puts("wheelpick:");
	for (size_t i = 0; i < c->values.n; i++)
		if (!strcmp(c->values.v[i].name, "WHEELPICK_INDEX"))
			debug_own(NULL, "WHEELPICK_INDEX", c->values.v[i].value);
	own_vars(debug_own, NULL);

	/* what is in effect, and where each came from */
	puts("in effect:");
	printf("  tool: %s\n", c->tool ? c->tool : "none (wheelpick's default)");
	for (size_t i = 0; i < c->shown.n; i++)
		printf("  index: %s (from %s)\n", c->shown.v[i], c->shown_from.v[i]);
	for (size_t i = 0; i < c->trusted_host.n; i++)
		printf("  trusted-host: %s\n", c->trusted_host.v[i]);
	if (c->cert)
		printf("  cert: %s (from %s)\n", c->cert, c->cert_origin ? c->cert_origin : "?");
	if (c->client_cert)
		printf("  client-cert: %s\n", c->client_cert);
	if (c->timeout_s)
		printf("  timeout: %ld s\n", c->timeout_s);
	printf("  index-strategy: %s (from %s)\n",
	       c->index_strategy ? c->index_strategy : "first-index",
	       c->index_strategy ? "uv's configuration" : "the default");
	printf("  catalog: %s\n",
	       cli->session.catalog_path ? cli->session.catalog_path : "(none: no home folder)");
	printf("  cache-dir: %s\n",
	       cli->session.cache_dir ? cli->session.cache_dir : "(none: no home folder)");
	printf("  max-age: %ld s\n", cli->session.max_age_s);
	if (c->looking.n) {
		fputs("Looking in indexes: ", stdout);
		for (size_t i = 0; i < c->looking.n; i++)
			printf("%s%s", i ? ", " : "", c->looking.v[i]);
		putchar('\n');
	}
	if (c->looking_links.n) {
		fputs("Looking in links: ", stdout);
		for (size_t i = 0; i < c->looking_links.n; i++)
			printf("%s%s", i ? ", " : "", c->looking_links.v[i]);
		putchar('\n');
	}
}

static void json_own(void *ctx, const char *name, const char *value)
{
	struct wp_json *j = ctx;
	char *r = redact_text(value);
	wp_json_obj(j);
	wp_json_kstr(j, "name", name);
	wp_json_kstr(j, "value", r);
	wp_json_kstr(j, "origin", name);
	wp_json_kbool(j, "in_effect", true);
	wp_json_obj_end(j);
	free(r);
}

static void cmd_json(const struct wp_cli *cli, const struct wp_index_config *c)
{
	struct wp_json j;
	wp_json_init_indent(&j, "  ");
	wp_json_obj(&j);
	wp_json_kstr(&j, "tool", c->tool);
	wp_json_key(&j, "values");
	wp_json_arr(&j);
	for (size_t i = 0; i < c->values.n; i++) {
		const struct wp_config_value *v = &c->values.v[i];
		char *r = redact_text(v->value);
		wp_json_obj(&j);
		wp_json_kstr(&j, "name", v->name);
		wp_json_kstr(&j, "value", r);
		wp_json_kstr(&j, "origin", v->origin);
		wp_json_kbool(&j, "in_effect", v->in_effect);
		wp_json_obj_end(&j);
		free(r);
	}
	own_vars(json_own, &j);
	wp_json_arr_end(&j);
	wp_json_key(&j, "files");
	wp_json_arr(&j);
	for (size_t i = 0; i < c->files.n; i++) {
		wp_json_obj(&j);
		wp_json_kstr(&j, "variant", c->files.v[i].variant);
		wp_json_kstr(&j, "path", c->files.v[i].path);
		wp_json_kbool(&j, "exists", c->files.v[i].exists);
		wp_json_kbool(&j, "read", c->files.v[i].read && c->files.v[i].exists);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_key(&j, "indexes");
	wp_json_arr(&j);
	for (size_t i = 0; i < c->shown.n; i++) {
		wp_json_obj(&j);
		wp_json_kstr(&j, "url", c->shown.v[i]);
		wp_json_kstr(&j, "from", c->shown_from.v[i]);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_key(&j, "looking_in_indexes");
	wp_json_arr(&j);
	for (size_t i = 0; i < c->looking.n; i++)
		wp_json_str(&j, c->looking.v[i]);
	wp_json_arr_end(&j);
	wp_json_key(&j, "looking_in_links");
	wp_json_arr(&j);
	for (size_t i = 0; i < c->looking_links.n; i++)
		wp_json_str(&j, c->looking_links.v[i]);
	wp_json_arr_end(&j);
	wp_json_key(&j, "trusted_host");
	wp_json_arr(&j);
	for (size_t i = 0; i < c->trusted_host.n; i++)
		wp_json_str(&j, c->trusted_host.v[i]);
	wp_json_arr_end(&j);
	wp_json_kstr(&j, "cert", c->cert);
	wp_json_kstr(&j, "client_cert", c->client_cert);
	wp_json_kint(&j, "timeout_s", c->timeout_s);
	wp_json_kstr(&j, "index_strategy", c->index_strategy ? c->index_strategy : "first-index");
	wp_json_kstr(&j, "catalog", cli->session.catalog_path);
	wp_json_kstr(&j, "cache_dir", cli->session.cache_dir);
	wp_json_kint(&j, "max_age_s", cli->session.max_age_s);
	wp_json_obj_end(&j);
	wp_json_finish(&j, stdout);
}

int wp_cmd_config(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct config_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_index_config c = { 0 };
	int rc;
	if ((rc = wp_opts_parse(wp_config_table, &o, argc, argv, &pos, err)))
		goto out;
	const char *what = pos.n ? pos.v[0] : "list";
	if (pos.n > 1 || (strcmp(what, "list") != 0 && strcmp(what, "debug") != 0)) {
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' is not a config command; give 'list' or 'debug'",
			     pos.n > 1 ? pos.v[1] : what);
		goto out;
	}
	if (o.command && strcmp(o.command, "download") != 0 && strcmp(o.command, "install") != 0) {
		rc = wp_fail(err, -WPE_USAGE, "--pip-command '%s' is not one of download, install",
			     o.command);
		goto out;
	}
	struct wp_index_given g = { .isolated = o.isolated,
				    .envp = wp_os_environ(),
				    .pip_command = o.command };
	if ((rc = wp_index_config_resolve(&g, &c, err)))
		goto out;
	for (size_t i = 0; i < c.warnings.n; i++)
		wp_cli_warn(cli, "%s", c.warnings.v[i]);
	if (o.json)
		cmd_json(cli, &c);
	else if (!strcmp(what, "list"))
		cmd_list(&c);
	else
		cmd_debug(cli, &c);
out:
	wp_index_config_release(&c);
	wp_strlist_release(&pos);
	return rc;
}
