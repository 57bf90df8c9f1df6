/* cli/main.c: global options, the command table, and the one place errors become exit codes. */
#include "cli/cli.h"
#include "base/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct wp_cmd commands[] = {
	{ "pick",   wp_cmd_pick,   "choose the build that fits a target, and fetch it" },
	{ "update", wp_cmd_update, "crawl index sources into the catalog" },
	{ "list",   wp_cmd_list,   "show what the catalog has for a project" },
	{ "detect", wp_cmd_detect, "describe this machine as a target" },
	{ "tags",   wp_cmd_tags,   "print the wheel tags a target accepts, best first" },
	{ "mirror", wp_cmd_mirror, "write a PEP 503/691 mirror for targets" },
	{ "bundle", wp_cmd_bundle, "write one archive to carry across an air gap" },
	{ "verify", wp_cmd_verify, "re-check files against hashes and RECORDs" },
	{ "trust",  wp_cmd_trust,  "accept hashes that changed since first seen" },
};

void wp_cli_note(const struct wp_cli *cli, const char *fmt, ...)
{
	if (cli->verbosity < 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("wheelpick: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void wp_cli_warn(const struct wp_cli *cli, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("wheelpick: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static char *xdg_path(const char *env_override, const char *leaf)
{
	const char *e = getenv(env_override);
	if (e && *e)
		return wp_xstrdup(e);
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return wp_xasprintf("%s/wheelpick%s%s", xdg, leaf ? "/" : "", leaf ? leaf : "");
	const char *home = getenv("HOME");
	return wp_xasprintf("%s/.cache/wheelpick%s%s", home && *home ? home : ".", leaf ? "/" : "", leaf ? leaf : "");
}

char *wp_cli_cache_dir(void)
{
	return xdg_path("WHEELPICK_CACHE_DIR", NULL);
}

char *wp_cli_default_indexes(struct wp_strlist *out, bool conda)
{
	const char *e = getenv(conda ? "WHEELPICK_CHANNEL" : "WHEELPICK_INDEX");
	if (e && *e) {
		/* split a private copy; the pushed strings point into it */
		char *copy = wp_xstrdup(e), *save = NULL;
		for (char *t = strtok_r(copy, " \t\n,", &save); t; t = strtok_r(NULL, " \t\n,", &save))
			wp_strlist_push(out, t);
		return copy;
	}
	wp_strlist_push(out, conda ? "https://conda.anaconda.org/pytorch" : "https://download.pytorch.org/whl/torch_stable.html");
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: wheelpick [--catalog PATH] [-q|-v] COMMAND [ARGS...]\n"
		   "       wheelpick PKG[SPEC]... [pick options]   (same as 'wheelpick pick')\n\n"
		   "Which PyTorch build fits this machine, and how to carry it to one with no internet.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < WP_ARRAY_LEN(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nglobal options:\n"
		   "  --catalog PATH   catalog file (default $WHEELPICK_CATALOG, else\n"
		   "                   $XDG_CACHE_HOME/wheelpick/catalog.sqlite3, else ~/.cache/wheelpick/catalog.sqlite3)\n"
		   "  -q, --quiet      only errors on stderr\n"
		   "  -v, --verbose    say more\n"
		   "  --version        print the version\n\n"
		   "exit codes: 0 done; 1 nothing fits the request; 2 usage; 3 a source, network or local\n"
		   "failure; 4 an integrity failure (hash, RECORD, archive).\n"
		   "'wheelpick COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	struct wp_cli cli = { 0 };
	struct wp_err err = WP_ERR_INIT;
	int i = 1, rc;

	cli.stdout_tty = isatty(STDOUT_FILENO);
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--catalog") && i + 1 < argc)
			cli.catalog_path = argv[++i];
		else if (!strncmp(a, "--catalog=", 10))
			cli.catalog_path = a + 10;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			cli.verbosity = -1;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
			cli.verbosity++;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("wheelpick %s\n", WP_VERSION);
			return 0;
		} else
			break; /* a pick option before the package: `wheelpick --cuda 11.2 torch` */
	}
	if (!cli.catalog_path)
		cli.catalog_path = cli.catalog_path_alloc = xdg_path("WHEELPICK_CATALOG", "catalog.sqlite3");

	const struct wp_cmd *cmd = NULL;
	if (i < argc) {
		for (size_t k = 0; k < WP_ARRAY_LEN(commands); k++)
			if (!strcmp(argv[i], commands[k].name))
				cmd = &commands[k];
	}
	if (i >= argc) {
		usage(stderr);
		rc = -WPE_USAGE;
		goto out_code;
	}
	if (cmd)
		rc = cmd->fn(&cli, argc - i - 1, argv + i + 1, &err);
	else /* `wheelpick torch --cuda 11.2` */
		rc = wp_cmd_pick(&cli, argc - i, argv + i, &err);
	if (rc && err.code)
		fprintf(stderr, "wheelpick: %s\n", err.msg);
	else if (rc)
		fprintf(stderr, "wheelpick: failed (code %d)\n", -rc);
out_code:
	free(cli.catalog_path_alloc);
	return wp_err_exit_code(rc);
}
