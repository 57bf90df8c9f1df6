/* cli/main.c: global options (anywhere on the line), dispatch through the command table, what
 * reaches stderr at each verbosity, and the one place errors become exit codes. */
#include "base/envp.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/urlmask.h"
#include "cache/catalog.h"
#include "cache/names.h"
#include "cli/cli.h"
#include "cli/print.h"
#include "ops/core/indexconf.h"
#include "ops/core/suggest.h"
#include "ops/install/install.h"
#include "resolver/wheelname.h"
#include "base/os/os.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct wp_asks wp_cli_asks = { .words = {
	[WP_ASK_CPU] = "--cuda cpu",
	[WP_ASK_ROCM] = "--rocm X.Y",
	[WP_ASK_XPU] = "--xpu",
	[WP_ASK_PRE] = "--pre",
	[WP_ASK_INDEX] = "--index URL",
	[WP_ASK_CHANNEL] = "-c CHANNEL",
	[WP_ASK_NO_DEPS] = "--no-deps",
	[WP_ASK_CATALOG] = "--catalog",
	[WP_ASK_CUDA] = "--cuda X.Y",
	[WP_ASK_PYTHON] = "--python X.Y",
	[WP_ASK_INTERPRETER] = "--python PATH",
	[WP_ASK_ROCM_AS] = "give --rocm",
	[WP_ASK_PROFILE] = "detect --json",
	[WP_ASK_TRUST] = "run 'wheelpick trust'",
	[WP_ASK_UPDATE] = "run 'wheelpick update'",
	[WP_ASK_CUDA_AS] = "give --cuda",
	[WP_ASK_GPU] = "--gpu NAME",
	[WP_ASK_PAGE_SIZE] = "--max-page-size SIZE",
} };

static double now(void)
{
	return (double)wp_os_monotonic_ns() / 1e9;
}

double wp_cli_elapsed(const struct wp_cli *cli)
{
	return now() - cli->start;
}

static void vsay(const struct wp_cli *cli, const char *prefix, const char *fmt, va_list ap)
{
	fputs("wheelpick: ", stderr);
	if (cli->verbosity > 0)
		fprintf(stderr, "[%.2f s] ", wp_cli_elapsed(cli));
	fputs(prefix, stderr);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) >= 0) {
		/* values from indexes, files and the environment; a URL's user:password never */
		char *shown = wp_url_text_mask(msg);
		wp_fputs_shown(shown, stderr);
		free(shown);
	}
	free(msg);
	fputc('\n', stderr);
}

void wp_cli_note(const struct wp_cli *cli, const char *fmt, ...)
{
	if (cli->verbosity < 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsay(cli, "", fmt, ap);
	va_end(ap);
}

void wp_cli_warn(const struct wp_cli *cli, const char *fmt, ...)
{
	if (cli->verbosity < 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsay(cli, "warning: ", fmt, ap);
	va_end(ap);
}

void wp_cli_debug(const struct wp_cli *cli, const char *fmt, ...)
{
	if (cli->verbosity <= 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsay(cli, "", fmt, ap);
	va_end(ap);
}

/* What ops/ reports, by level: debug with -v (with the time since the start), info and notes
 * unless -q, warnings unless -q, item failures always. */
static void say(void *ctx, enum wp_say_level level, const char *msg)
{
	const struct wp_cli *cli = ctx;
	switch (level) {
	case WP_SAY_DEBUG:
		wp_cli_debug(cli, "%s", msg);
		break;
	case WP_SAY_INFO:
		/* "updated URL" while a pick reads its sources is -v material; for update, the
		 * result */
		if (cli->info_as_debug)
			wp_cli_debug(cli, "%s", msg);
		else
			wp_cli_note(cli, "%s", msg);
		break;
	case WP_SAY_NOTE:
		wp_cli_note(cli, "%s", msg);
		break;
	case WP_SAY_WARN:
		wp_cli_warn(cli, "%s", msg);
		break;
	case WP_SAY_ERROR:
		fputs("wheelpick: ", stderr);
		wp_fputs_shown(msg, stderr);
		fputc('\n', stderr);
		break;
	}
}

int wp_cli_need_paths(struct wp_cli *cli, struct wp_err *err)
{
	/* what the default comes from (ops/core/session.c): Windows' LOCALAPPDATA, else XDG's */
	const char *from = wp_os_layout == WP_OS_LAYOUT_WINDOWS ? "LOCALAPPDATA is" :
								  "HOME and XDG_CACHE_HOME are";
	if (!cli->session.catalog_path)
		return wp_fail(err, -WPE_USAGE,
			       "no folder for the catalog: %s unset or not absolute; "
			       "give --catalog PATH or set WHEELPICK_CATALOG",
			       from);
	if (!cli->session.cache_dir)
		return wp_fail(err, -WPE_USAGE, "no folder for the file cache: %s unset or not "
						"absolute; set WHEELPICK_CACHE_DIR", from);
	return 0;
}

void wp_cli_progress(struct wp_cli *cli, bool json)
{
	enum wp_progress_mode mode = cli->verbosity < 0 ? WP_PROGRESS_OFF
				   : cli->stderr_tty && !json ? WP_PROGRESS_BAR
							      : WP_PROGRESS_LINES;
	wp_progress_sink_for(&cli->progress, mode, &cli->session.progress);
}

/* The global options, wherever they are before "--": taken out of argv (kept in order in
 * *rest). A value of a command's option that happens to read "-v" stays its value. */
struct globals {
	const char *catalog;
	unsigned long long max_page_bytes; /* 0: the default */
	int verbosity;
	bool help, version;
	const char *gen_man, *gen_completion;
	bool complete_projects;
};

/* "65536", "64K", "300M", "2G" (powers of 1024; "MiB", "MB" read alike): a page size limit. */
static int parse_size(const char *v, unsigned long long *out, struct wp_err *err)
{
	char *end = NULL;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	unsigned shift = 0;
	if (end && *end) {
		const char *u = strchr("KMGT", toupper((unsigned char)*end));
		shift = u ? 10 * (unsigned)(u - "KMGT" + 1) : 0;
		end += shift ? 1 : 0;
		if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
			end += strlen(end);
	}
	if (!isdigit((unsigned char)v[0]) || errno || !end || *end || !n ||
	    (shift && n > (ULLONG_MAX >> shift)))
		return wp_fail(err, -WPE_USAGE,
			       "option '--max-page-size' takes a size in bytes, or with K, M or G "
			       "(64M, 2G), not '%s'",
			       v);
	*out = n << shift;
	return 0;
}

static int take_global(const char *a, const char *next, struct globals *g, int *consumed,
		       struct wp_err *err)
{
	*consumed = 0;
	if (!strcmp(a, "--max-page-size") || !strncmp(a, "--max-page-size=", 16)) {
		const char *v = a[15] == '=' ? a + 16 : next;
		if (!v)
			return wp_fail(err, -WPE_USAGE,
				       "option '--max-page-size' needs a value (SIZE)");
		*consumed = a[15] == '=' ? 1 : 2;
		return parse_size(v, &g->max_page_bytes, err);
	}
	if (!strcmp(a, "--catalog")) {
		if (!next)
			return wp_fail(err, -WPE_USAGE, "option '--catalog' needs a value (PATH)");
		g->catalog = next;
		*consumed = 2;
	} else if (!strncmp(a, "--catalog=", 10)) {
		g->catalog = a + 10;
		*consumed = 1;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		g->verbosity = -1;
		*consumed = 1;
	} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose") || !strcmp(a, "-vv")) {
		g->verbosity = (g->verbosity < 0 ? 0 : g->verbosity) + (a[2] == 'v' ? 2 : 1);
		*consumed = 1;
	}
	return 0;
}

/* Does option word a (of cmd's table) take the next word as its value? */
static bool takes_value(const struct wp_cmd *cmd, const char *a)
{
	const struct wp_opt *o = NULL;
	if (a[0] != '-' || !a[1])
		return false;
	if (a[1] == '-') {
		if (strchr(a, '='))
			return false;
		o = wp_opts_find_long(cmd->table, a + 2, strlen(a + 2));
	} else if (!a[2]) {
		o = wp_opts_find_short(cmd->table, a[1]);
	}
	return o && o->type != WP_OPT_FLAG;
}

/* Does option word a take the next word as its value, in pick's table or, failing that, in any
 * command's? (For options written before the command word, whose command is not known yet.) */
static bool takes_value_anywhere(const char *a)
{
	const struct wp_cmd *pick = wp_cmd_find("pick");
	if (a[0] != '-' || !a[1] || (a[1] == '-' && strchr(a, '=')) || (a[1] != '-' && a[2]))
		return false;
	const struct wp_opt *o = a[1] == '-' ? wp_opts_find_long(pick->table, a + 2, strlen(a + 2))
					     : wp_opts_find_short(pick->table, a[1]);
	if (o)
		return o->type != WP_OPT_FLAG;
	for (size_t c = 0; c < wp_n_commands; c++) {
		o = a[1] == '-' ? wp_opts_find_long(wp_commands[c].table, a + 2, strlen(a + 2))
				: wp_opts_find_short(wp_commands[c].table, a[1]);
		if (o)
			return o->type != WP_OPT_FLAG;
	}
	return false;
}

/* Options written before the command word (`wheelpick --json detect`, `--dry-run list torch`):
 * the first word that is no option nor an option's value, when it names a command, is the
 * command (-1 otherwise: `--cuda 11.2 torch` picks torch). *version: --version is among them. */
static int command_after_options(int argc, char **argv, int i, bool *version)
{
	for (int j = i; j < argc && strcmp(argv[j], "--"); j++) {
		const char *a = argv[j];
		if (a[0] == '-' && a[1]) {
			*version = *version || !strcmp(a, "--version");
			if (takes_value_anywhere(a))
				j++;
			continue;
		}
		return wp_cmd_find(a) ? j : -1;
	}
	return -1;
}

/* A first word that is no command but close to one, which the catalog does not know as a
 * project: a typo, not a package to pick ("wheelpick lsit torch"). */
static int check_command_typo(const char *word, const char *catalog, struct wp_err *err)
{
	size_t n = strlen(word);
	if (n < 4 || strcspn(word, "<>=!~[;@ (") != n)
		return 0;
	const char *names[64];
	size_t nn = 0;
	for (size_t i = 0; i < wp_n_commands && nn < WP_ARRAY_LEN(names); i++)
		names[nn++] = wp_commands[i].name;
	struct wp_strlist close = { 0 };
	wp_suggest_closest(word, names, nn, 1, &close);
	if (!close.n)
		return 0;
	bool known = false;
	struct wp_os_stat st;
	if (catalog && wp_os_stat(catalog, &st) == 0) {
		struct wp_catalog cat = { 0 };
		struct wp_err e = WP_ERR_INIT;
		struct wp_buf canon = WP_BUF_INIT;
		wp_project_name_normalize(word, n, &canon);
		if (wp_catalog_open(&cat, catalog, &e) == 0)
			wp_catalog_has_project(&cat, canon.data, false, &known, &e);
		wp_catalog_close(&cat);
		wp_buf_free(&canon);
	}
	int rc = known ? 0 :
			 wp_fail(err, -WPE_USAGE,
				 "'%s' is not a command; did you mean 'wheelpick %s'? (to pick a package "
				 "named %s: 'wheelpick pick %s')",
				 word, close.v[0], word, word);
	wp_strlist_release(&close);
	return rc;
}

/* Verbs of pip, uv and conda typed by habit: one line saying what wheelpick does instead (a
 * project of that name is still picked with 'wheelpick pick NAME'). */
static const struct {
	const char *verb, *instead;
} habits[] = {
	{ "download",
	  "wheelpick downloads with its default command: 'wheelpick PKG... -d DIR' writes a verified wheelhouse" },
	{ "sync",
	  "'wheelpick -r requirements.txt -d wh' writes a verified wheelhouse for the target, and "
	  "'wheelpick install wh' puts it into this environment" },
	{ "compile",
	  "to pin versions and hashes without downloading: 'wheelpick lock PKG... -o pylock.toml', or "
	  "'wheelpick PKG... --dry-run' to see the picks" },
	{ "show",
	  "what the catalog has for a project: 'wheelpick list PKG' (and 'wheelpick PKG --dry-run --explain' for a pick)" },
	{ "freeze",
	  "what an environment holds: 'wheelpick list --installed'; to pin what a target gets: "
	  "'wheelpick lock PKG... -o pylock.toml'" },
	{ "search", "to see a project's versions and builds: 'wheelpick list PKG'" },
};

static int check_habit(const char *word, struct wp_err *err)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(habits); i++)
		if (!strcmp(word, habits[i].verb))
			return wp_fail(err, -WPE_USAGE,
				       "'%s' is not a wheelpick command; %s (to pick a package named %s: "
				       "'wheelpick pick %s')",
				       word, habits[i].instead, word, word);
	return 0;
}

/* Ctrl-C (or a lost session): one line saying it stopped and where what arrived is kept; the
 * partial files are already on disk (cache/store.h), so nothing else is to be done here. Built
 * before the command runs: a handler may only write(). */
static char interrupted_msg[1200];
static size_t interrupted_len;

static void on_interrupt(int sig)
{
	wp_install_on_interrupt(); /* an install's staged temps, before its commit (nothing
				      otherwise) */
	ssize_t r = wp_os_write(WP_OS_STDERR, interrupted_msg, interrupted_len);
	(void)r;
	wp_os_exit_now(128 + sig);
}

static void catch_interrupts(const char *cache_dir)
{
	int n = snprintf(interrupted_msg, sizeof(interrupted_msg),
			 "\nwheelpick: interrupted; what had arrived of unfinished downloads is kept in %s%s, and "
			 "the next run resumes it\n",
			 cache_dir ? cache_dir : "the cache", cache_dir ? "/files/partial" : "");
	interrupted_len = n < 0                               ? 0 :
			  (size_t)n < sizeof(interrupted_msg) ? (size_t)n :
								sizeof(interrupted_msg) - 1;
	wp_os_on_interrupt(on_interrupt);
}

/* For shell completion: the project names of the catalog, if there is one (never made here). */
static void complete_projects(const char *catalog)
{
	char *def = catalog ? NULL : wp_session_default_catalog(wp_os_environ());
	const char *path = catalog ? catalog : def;
	struct wp_os_stat st;
	if (path && wp_os_stat(path, &st) == 0) {
		struct wp_catalog cat = { 0 };
		struct wp_names names = { 0 };
		struct wp_err e = WP_ERR_INIT;
		if (wp_catalog_open(&cat, path, &e) == 0 &&
		    wp_catalog_project_names(&cat, false, 20000, &names, &e) == 0)
			for (size_t i = 0; i < names.n; i++)
				printf("%s\n", names.v[i]);
		wp_names_release(&names);
		wp_catalog_close(&cat);
	}
	free(def);
}

/* Up to the hard limit (at most 16384): a run of thousands of files downloads and uploads them in
 * batches sized by the soft limit (ops/core/fetch.c), 1024 on many systems; Go's runtime does the
 * same at start. Where it cannot be raised, the batches are smaller, never failing. */
static void raise_open_file_limit(void)
{
	wp_os_raise_open_files(16384);
}

int main(int argc, char **argv)
{
	struct wp_cli cli = { 0 };
	struct wp_err err = WP_ERR_INIT;
	struct globals g = { 0 };
	wp_os_utf8_args(&argc, &argv); /* Windows: the command line again, in UTF-8 */
	char **rest = wp_xcalloc((size_t)argc + 1, sizeof(*rest));
	int nrest = 0, i = 1, rc = 0, used;
	const struct wp_cmd *cmd = NULL;
	bool implicit = false;
	raise_open_file_limit();
	/* the network settings, built once: net/ says how to give a private CA in our words (it
	 * names no option of ours); a command's pip configuration and TLS options are added to
	 * them */
	wp_cli_net_init(&cli.net, wp_os_environ(),
			"give its PEM file with --cert or WHEELPICK_CA_BUNDLE");

	/* --json anywhere before "--": every failure is one JSON object on stdout (scripts parse
	 * it) */
	bool want_json = false;
	for (int k = 1; k < argc && strcmp(argv[k], "--"); k++)
		want_json = want_json || !strcmp(argv[k], "--json");
	cli.start = now();
	cli.argc = argc;
	cli.argv = argv;
	wp_os_term_init();
	cli.stdout_tty = wp_os_isatty(WP_OS_STDOUT);
	cli.stderr_tty = wp_os_isatty(WP_OS_STDERR);
	/* before the command: globals, --help, --version, the generators, or a pick option */
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if ((rc = take_global(a, i + 1 < argc ? argv[i + 1] : NULL, &g, &used, &err)))
			goto out;
		if (used) {
			i += used - 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			g.help = true;
		} else if (!strcmp(a, "--version")) {
			g.version = true;
		} else if (!strcmp(a, "--generate-man")) {
			g.gen_man = a;
		} else if (!strcmp(a, "--generate-completion") && i + 1 < argc) {
			g.gen_completion = argv[++i];
		} else if (!strcmp(a, "--complete-projects")) {
			g.complete_projects = true;
		} else {
			break; /* a pick option before the package: `wheelpick --cuda 11.2 torch` */
		}
	}
	/* options before the command word do not hide it (nor --version among them) */
	int cmd_at = i < argc && argv[i][0] == '-' ?
			     command_after_options(argc, argv, i, &g.version) :
			     -1;
	if (i < argc && !strcmp(argv[i], "version"))
		g.version = true; /* `wheelpick version` is --version, not a package to look up */
	if (g.version) {
		if (want_json) {
			struct wp_json j;
			wp_json_init(&j);
			wp_json_obj(&j);
			wp_json_kstr(&j, "name", "wheelpick");
			wp_json_kstr(&j, "version", WP_VERSION);
			wp_json_obj_end(&j);
			wp_print_json_out(&j);
		} else {
			printf("wheelpick %s\n", WP_VERSION);
		}
		goto out;
	}
	if (g.gen_man) {
		rc = wp_gen_man(stdout);
		goto out;
	}
	if (g.gen_completion) {
		rc = wp_gen_completion(stdout, g.gen_completion, &err);
		goto out;
	}
	if (g.complete_projects) {
		complete_projects(g.catalog);
		goto out_code;
	}
	if (cmd_at >= 0)
		cmd = wp_cmd_find(argv[cmd_at]);
	else if (i < argc && (cmd = wp_cmd_find(argv[i])))
		i++;
	if (!cmd) {
		if (g.help || i >= argc) {
			wp_cli_usage(g.help ? stdout : stderr);
			rc = g.help ? 0 : -WPE_USAGE;
			if (rc && want_json)
				wp_print_json_error(rc,
						    &(struct wp_err){
							    -WPE_USAGE,
							    "a command or a package to pick is needed; see 'wheelpick --help'" },
						    NULL);
			goto out_code;
		}
		cmd = wp_cmd_find("pick");
		implicit = true;
	}
	/* the rest: globals anywhere before "--", everything else for the command */
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (i == cmd_at)
			continue; /* the command word, after options written before it */
		if (!strcmp(a, "--")) {
			while (i < argc)
				rest[nrest++] = argv[i++];
			break;
		}
		if ((rc = take_global(a, i + 1 < argc ? argv[i + 1] : NULL, &g, &used, &err)))
			goto out;
		if (used) {
			i += used - 1;
			continue;
		}
		rest[nrest++] = argv[i];
		if (takes_value(cmd, a) && i + 1 < argc)
			rest[nrest++] = argv[++i];
	}
	cli.verbosity = g.verbosity;
	const char *catalog = g.catalog;
	if (!catalog)
		catalog = cli.catalog_alloc = wp_session_default_catalog(wp_os_environ());
	cli.cache_alloc = wp_session_default_cache_dir(wp_os_environ());
	cli.session = (struct wp_session){
		.catalog_path = catalog,
		.cache_dir = cli.cache_alloc,
		.verbosity = cli.verbosity,
		.say = say,
		.say_ctx = &cli,
		.asks = &wp_cli_asks,
		.nvidia_lib_dir = wp_envp_get(wp_os_environ(), "WHEELPICK_NVIDIA_LIBDIR"),
		.envp = wp_os_environ(),
		.net = &cli.net.net,
		.s3 = &cli.net.s3,
		.creds = &cli.net.creds,
		.tmpdir = wp_envp_get(wp_os_environ(), "TMPDIR"),
		.max_page_bytes = g.max_page_bytes,
	};
	if (g.help || wp_opts_wants_help(nrest, rest)) {
		wp_cmd_print_help(cmd, stdout);
		goto out;
	}
	if ((rc = wp_session_max_age(wp_os_environ(), &cli.session.max_age_s, &err)) ||
	    (rc = wp_session_source_date(&cli.session, &err)))
		goto out;
	if (implicit && nrest && rest[0][0] != '-' &&
	    ((rc = check_habit(rest[0], &err)) ||
	     (rc = check_command_typo(rest[0], catalog, &err))))
		goto out;
	catch_interrupts(cli.cache_alloc);
	wp_cli_debug(&cli, "catalog %s, file cache %s", catalog ? catalog : "(none)",
		     cli.cache_alloc ? cli.cache_alloc : "(none)");
	rc = cmd->fn(&cli, nrest, rest, &err);
	wp_cli_debug(&cli, "%s: done in %.2f s", cmd->name, wp_cli_elapsed(&cli));
out:
	if (rc && want_json && !wp_print_json_printed())
		wp_print_json_error(rc, &err, NULL);
	if (rc && err.code) {
		/* a URL's user:password never reaches the terminal, whoever wrote the message */
		char *shown = wp_url_text_mask(err.msg);
		fputs("wheelpick: ", stderr);
		wp_fputs_shown(shown, stderr);
		free(shown);
		fputc('\n', stderr);
	}
	else if (rc)
		fprintf(stderr, "wheelpick: failed (code %d)\n", -rc);
out_code:
	free(rest);
	free(cli.catalog_alloc);
	free(cli.cache_alloc);
	wp_cli_net_release(&cli.net);
	return wp_err_exit_code(rc);
}
