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
	{ "lock",   wp_cmd_lock,   "write a PEP 751 lock (pylock.toml) for targets, downloading nothing" },
	{ "matrix", wp_cmd_matrix, "what each of several targets would get (plan a migration)" },
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

/* What ops/ reports, by level: debug with -v, info and notes unless -q, warnings and item
 * failures always. */
static void say(void *ctx, enum wp_say_level level, const char *msg)
{
	const struct wp_cli *cli = ctx;
	switch (level) {
	case WP_SAY_DEBUG:
		if (cli->verbosity > 0)
			fprintf(stderr, "wheelpick: %s\n", msg);
		break;
	case WP_SAY_INFO:
	case WP_SAY_NOTE:
		if (cli->verbosity >= 0)
			fprintf(stderr, "wheelpick: %s\n", msg);
		break;
	case WP_SAY_WARN:
		fprintf(stderr, "wheelpick: warning: %s\n", msg);
		break;
	case WP_SAY_ERROR:
		fprintf(stderr, "wheelpick: %s\n", msg);
		break;
	}
}

int wp_cli_need_paths(struct wp_cli *cli, struct wp_err *err)
{
	if (!cli->session.catalog_path)
		return wp_fail(err, -WPE_USAGE, "no folder for the catalog: HOME and XDG_CACHE_HOME are unset or not absolute; "
						"give --catalog PATH or set WHEELPICK_CATALOG");
	if (!cli->session.cache_dir)
		return wp_fail(err, -WPE_USAGE, "no folder for the file cache: HOME and XDG_CACHE_HOME are unset or not "
						"absolute; set WHEELPICK_CACHE_DIR");
	return 0;
}

void wp_cli_progress(struct wp_cli *cli, bool json)
{
	wp_progress_sink_for(&cli->progress, cli->stdout_tty && cli->verbosity >= 0 && !json, &cli->session.progress);
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
	const char *catalog = NULL;
	int verbosity = 0;
	int i = 1, rc;

	cli.stdout_tty = isatty(STDOUT_FILENO);
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--catalog") && i + 1 < argc)
			catalog = argv[++i];
		else if (!strncmp(a, "--catalog=", 10))
			catalog = a + 10;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			verbosity = -1;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
			verbosity++;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("wheelpick %s\n", WP_VERSION);
			return 0;
		} else
			break; /* a pick option before the package: `wheelpick --cuda 11.2 torch` */
	}
	cli.verbosity = verbosity;
	if (!catalog)
		catalog = cli.catalog_alloc = wp_session_default_catalog();
	cli.cache_alloc = wp_session_default_cache_dir();
	cli.session = (struct wp_session){
		.catalog_path = catalog, .cache_dir = cli.cache_alloc, .verbosity = verbosity, .say = say, .say_ctx = &cli,
	};
	if ((rc = wp_session_max_age(&cli.session.max_age_s, &err)))
		goto out;

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
out:
	if (rc && err.code)
		fprintf(stderr, "wheelpick: %s\n", err.msg);
	else if (rc)
		fprintf(stderr, "wheelpick: failed (code %d)\n", -rc);
out_code:
	free(cli.catalog_alloc);
	free(cli.cache_alloc);
	return wp_err_exit_code(rc);
}
