/* cli/commands.c: the one table of commands, with each command's options, usage and help: what
 * --help, `wheelpick help`, the man page and the shell completions are written from. */
#include "base/mem.h"
#include "cli/cli.h"
#include "cli/envtable.h"
#include "cli/pick_opts.h"
#include "ops/core/suggest.h"

#include <stdio.h>
#include <string.h>

const struct wp_opt wp_global_table[] = {
	{ "catalog", 0, NULL, WP_OPT_STR, 0, "PATH",
	  "the catalog of index pages read so far (default $WHEELPICK_CATALOG, else ~/.cache/wheelpick/catalog.sqlite3)" },
	{ "max-page-size", 0, NULL, WP_OPT_STR, 0, "SIZE",
	  "the largest index page or repodata file a crawl takes, in bytes or with K, M or G (powers of 1024; default 2G)" },
	{ "quiet", 'q', NULL, WP_OPT_FLAG, 0, NULL, "print only errors on stderr" },
	{ "verbose", 'v', NULL, WP_OPT_FLAG, 0, NULL,
	  "also say where each page comes from, what was already downloaded, each choice, and how long each step took" },
	{ "help", 'h', NULL, WP_OPT_FLAG, 0, NULL, "describe the command" },
	WP_OPT_END,
};

const struct wp_opt wp_help_table[] = { WP_OPT_END };

const struct wp_cmd wp_commands[] = {
	{ "pick", wp_cmd_pick, wp_pick_table,
	  "wheelpick [pick] PKG[SPEC]... [-r FILE] [--cuda X.Y|auto|cpu] [--python X.Y] [--platform TAG]... [-d DIR]",
	  "choose the build that fits a machine, and download it",
	  "Pick the build of each package that fits the target machine: the newest version with a build\n"
	  "that runs there, then the newest CUDA the driver runs (PyTorch never shipped a CUDA 11.2 build,\n"
	  "so a CUDA 11.2 machine gets the 11.1 one), then the best wheel for its Python and platform;\n"
	  "with the packages they need, chosen for that machine too. It prints what it picked and why,\n"
	  "with the total size, then downloads, checks every file (sha256 and each wheel's own list of\n"
	  "hashes) and writes a folder that pip installs with no network:\n"
	  "  pip install --no-index --find-links DIR --require-hashes -r DIR/requirements.txt\n"
	  "Several --cuda, --python and --platform values make one target each. With --conda (or -c\n"
	  "CHANNEL) it picks conda packages and writes a local channel.",
	  WP_ARGS_PACKAGES },
	{ "update", wp_cmd_update, wp_update_table,
	  "wheelpick update [--index URL]... [--conda] [-c CHANNEL]...",
	  "read index pages into the catalog",
	  "Read index pages into the catalog: with no --index, the configured ones\n"
	  "($WHEELPICK_INDEX, else uv's or pip's settings), else PyTorch's torch_stable.html and\n"
	  "its index at https://download.pytorch.org/whl/. A plain update reads no conda channel:\n"
	  "--conda (conda-forge) or -c CHANNEL does. A page that did not change costs one short\n"
	  "request and no writes; each page is replaced at once, so an interrupted update leaves\n"
	  "the catalog as it was.",
	  WP_ARGS_URLS },
	{ "lock", wp_cmd_lock, wp_lock_table,
	  "wheelpick lock PKG[SPEC]... [--cuda X.Y]... [--python X.Y]... [--platform TAG]... [-o pylock.toml]",
	  "write a PEP 751 lock (pylock.toml) for targets, downloading nothing",
	  "Pick for every target and write a PEP 751 lock (pylock.toml) that uv, pip and pdm install\n"
	  "from: each package with the condition (marker) of the targets that need it, every wheel by URL\n"
	  "with its size and sha256, and what each target got under [tool.wheelpick]. Targets that markers\n"
	  "cannot tell apart (another CUDA driver on the same Python and platform) get a lock each,\n"
	  "pylock.<target>.toml, beside it. Nothing is downloaded.",
	  WP_ARGS_PACKAGES },
	{ "matrix", wp_cmd_matrix, wp_matrix_table,
	  "wheelpick matrix PKG[SPEC]... --cuda X.Y... --python X.Y... [--platform TAG]... [--gpu G]",
	  "what each of several targets would get (plan a migration)",
	  "What each target would get, to plan a migration (a driver upgrade, a new Python): every\n"
	  "combination of the --cuda/--driver, --python and --platform values is picked on its own, and\n"
	  "the grid shows the version (and build) of each package, or why nothing fits. Nothing is\n"
	  "downloaded.",
	  WP_ARGS_PACKAGES },
	{ "list", wp_cmd_list, wp_list_table,
	  "wheelpick list PKG [--all] [--json] [--conda] [--cuda X.Y|--driver V] [--python X.Y] [--platform TAG] [--gpu G]",
	  "show the versions and builds the catalog has for a project",
	  "Show what the catalog has for a project, newest version first: for each build (cu128 is the\n"
	  "CUDA 12.8 build, rocm6.4 AMD ROCm 6.4, cpu no GPU) the versions it exists for, or with --all a\n"
	  "grid of versions by builds. With target options, '*' marks what that machine can take. --json\n"
	  "gives every file (filename, version, build, url, sha256, size, source, ...). Files from an\n"
	  "index pick would not use for this project (another index lists it first) are set apart.",
	  WP_ARGS_PACKAGE },
	{ "detect", wp_cmd_detect, wp_detect_table, "wheelpick detect [--json]",
	  "describe this machine as a target",
	  "Describe this machine as a target: NVIDIA driver and the newest CUDA it runs, GPUs and their\n"
	  "architecture, CUDA toolkits, Pythons, glibc or musl, OS and CPU, with warnings for known\n"
	  "traps. Save it with --json and give it to another machine with --target FILE.\n"
	  "$WHEELPICK_SYSROOT reads /proc, /sys and /usr/local/cuda* under another root.",
	  WP_ARGS_NONE },
	{ "tags", wp_cmd_tags, wp_tags_table,
	  "wheelpick tags [--python X.Y] [--platform TAG] [--target FILE]",
	  "print the wheel tags a target accepts, best first",
	  "Print the wheel tags (PEP 425) the target accepts, best first, as pip on that machine would\n"
	  "('pip debug -v').",
	  WP_ARGS_NONE },
	{ "mirror", wp_cmd_mirror, wp_mirror_table,
	  "wheelpick mirror DIR PKG[SPEC]... [--cuda X.Y]... [--python X.Y]... [--platform TAG]... [--prune]",
	  "write an index (PEP 503/691) or a conda channel for targets",
	  "Write an index pip and uv read (PEP 503 pages and PEP 691 JSON) under DIR/simple/, with the\n"
	  "files under DIR/files/, holding exactly what the targets need (every combination of the --cuda,\n"
	  "--python and --platform values, or --target files). Re-running adds; --prune removes what is no\n"
	  "longer needed. Pages are replaced at once. Serve DIR/simple/ and give pip --index-url.\n"
	  "With --conda, DIR becomes a local conda channel. DIR may be s3://BUCKET/PREFIX: the same tree\n"
	  "as objects (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION; AWS_ENDPOINT_URL or\n"
	  "--s3-endpoint for Ceph, MinIO and others), uploading only what changed.",
	  WP_ARGS_DIR_PACKAGES },
	{ "bundle", wp_cmd_bundle, wp_bundle_table,
	  "wheelpick bundle OUT.tar.zst PKG[SPEC]... [pick options]",
	  "write one archive to carry across an air gap",
	  "Write one archive to carry to a machine with no network: the wheels for the targets,\n"
	  "requirements.txt with hashes, pylock.toml, the pick record, and install.sh, which runs pip offline\n"
	  "from the unpacked folder. '.tar.gz' and '.tar' work too. 'wheelpick verify OUT.tar.zst' checks it.\n"
	  "--split 4G cuts it into volumes OUT.tar.zst.001, .002, ... for media with a file-size limit;\n"
	  "join them on the target with 'cat OUT.tar.zst.[0-9][0-9][0-9] | tar --zstd -xf -'.\n"
	  "With --conda, the closure as a local channel under channel/ with its locks, and an install.sh\n"
	  "that runs 'conda create --offline' from the lock.",
	  WP_ARGS_FILE_PACKAGES },
	{ "config", wp_cmd_config, wp_config_table, "wheelpick config list|debug [--json]",
	  "show the configuration in effect and where each value came from",
	  "Show the configuration a pick reads, as pip's 'pip config list' and 'pip config debug' show\n"
	  "theirs: 'list' prints each value (pip's files and PIP_* variables in pip's words, then uv's\n"
	  "and wheelpick's variables); 'debug' prints every file looked for and whether it exists, the\n"
	  "values each holds, then what is in effect: each index with where it came from (file and\n"
	  "line, variable, flag or default), TLS settings, the timeout, the catalog and the freshness\n"
	  "limit, and pip's 'Looking in indexes' line. Credentials are masked as pip masks them.\n"
	  "The variables and files are listed below, as under ENVIRONMENT and FILES in the man page.",
	  WP_ARGS_NONE },
	{ "verify", wp_cmd_verify, wp_verify_table, "wheelpick verify PATH...",
	  "check files against their hashes",
	  "Check a wheel, a wheelhouse (its requirements.txt hashes), a mirror (every link, hash and\n"
	  "metadata file), a conda channel (its index against the files, and its CEP 16 shards against\n"
	  "its index) or a bundle (or its volumes, named by any one of them): every hash, and each wheel\n"
	  "against its own list of hashes (RECORD). A pylock.toml is checked as PEP 751 reads it, and the\n"
	  "files it names on this disk against its hashes. Exit 4 when anything does not match, naming the file.\n"
	  "s3://BUCKET/PREFIX reads a mirror or channel back from object storage and checks it the same way.",
	  WP_ARGS_PATHS },
	{ "apply", wp_cmd_apply, wp_apply_table, "wheelpick apply DELTA DEST",
	  "lay a delta bundle onto the folder it was made against",
	  "Update, on the far side, the folder an earlier bundle unpacked to (or a wheelhouse, conda\n"
	  "bundle folder or mirror) with a delta made by 'wheelpick bundle OUT PKG... --since OLD' or\n"
	  "'wheelpick mirror DIR PKG... --delta OUT' (or its volumes):\n"
	  "the folder must be exactly the tree the delta names as its previous one; the new tree is built\n"
	  "beside it from the files the delta carries and those it keeps, each checked against the delta's\n"
	  "manifest, verified as a whole, and only then swapped into place. Any failure leaves the folder\n"
	  "as it was (exit 4 for a broken chain or a file that is not what the manifest says).",
	  WP_ARGS_PATHS },
	{ "install", wp_cmd_install, wp_install_table,
	  "wheelpick install SOURCE... [-r FILE -f DIR] [--python PY | --prefix DIR | --target DIR] [--compile]",
	  "install a wheelhouse or bundle into a Python environment, with no pip",
	  "Install what wheelpick carried into the environment of a Python interpreter (the active virtual\n"
	  "environment's, else python3; or --python PY), with no pip and no network: a wheelhouse (its\n"
	  "requirements.txt, or the requirements-<target>.txt for this interpreter), a bundle (.tar.zst,\n"
	  "its volumes, or the unpacked folder), a .whl, a pylock.toml, or -r FILE --find-links DIR. Every wheel's sha256\n"
	  "and RECORD are checked before anything is written; a project already installed is replaced, and\n"
	  "an interrupted install leaves the old environment or is finished by the next wheelpick run.",
	  WP_ARGS_PATHS },
	{ "uninstall", wp_cmd_uninstall, wp_uninstall_table,
	  "wheelpick uninstall NAME... [--python PY]", "remove installed projects by their RECORD",
	  "Remove each named project from the interpreter's environment: every file its RECORD lists (and\n"
	  "their .pyc), all or nothing. 'wheelpick list --installed' shows what is there.",
	  WP_ARGS_PACKAGES },
	{ "trust", wp_cmd_trust, wp_trust_table, "wheelpick trust [URL-PATTERN]",
	  "accept hashes that changed since first seen",
	  "Accept the hashes an index now gives for files whose sha256 changed since wheelpick first saw\n"
	  "them (all files, or those whose URL matches the pattern, '%' matching anything). Check with\n"
	  "the index's owner first: a changed hash under the same name is how tampering looks.",
	  WP_ARGS_PATTERN },
	{ "help", wp_cmd_help, wp_help_table, "wheelpick help [COMMAND]",
	  "describe wheelpick or one command",
	  "Describe wheelpick (its commands, options and exit codes), or one command: the same as\n"
	  "'wheelpick COMMAND --help'. 'man wheelpick' has it all in one page.",
	  WP_ARGS_COMMAND },
};

const size_t wp_n_commands = WP_ARRAY_LEN(wp_commands);

const struct wp_exit_code wp_exit_codes[] = {
	{ 0, "done" },
	{ 1,
	  "nothing fits the request (the message says what exists and why each was rejected), a policy "
	  "refused it, or the resolution outgrew its bounds" },
	{ 2, "usage: an option, a value or a requirement that cannot be read" },
	{ 3,
	  "a source, network or local failure (scripts may retry): a source the resolution needs that "
	  "fails is always this, never a silently smaller pick" },
	{ 4, "an integrity failure: a hash, a wheel's RECORD, an archive" },
	{ 130,
	  "interrupted by Ctrl-C (128 + the signal: 143 for SIGTERM, 129 for a lost session; "
	  "on Windows the console's Ctrl-C, close and shutdown events likewise): what arrived "
	  "of unfinished downloads is kept for the next run, and no half-written file is left "
	  "where a good one is expected" },
};
const size_t wp_n_exit_codes = WP_ARRAY_LEN(wp_exit_codes);

const struct wp_cmd *wp_cmd_find(const char *name)
{
	for (size_t i = 0; i < wp_n_commands; i++)
		if (!strcmp(wp_commands[i].name, name))
			return &wp_commands[i];
	return NULL;
}

const struct wp_cmd *wp_cmd_of_table(const struct wp_opt *table)
{
	for (size_t i = 0; i < wp_n_commands; i++)
		if (wp_commands[i].table == table)
			return &wp_commands[i];
	return NULL;
}

void wp_cmd_print_help(const struct wp_cmd *cmd, FILE *f)
{
	wp_opts_help(f, cmd->usage, cmd->help, cmd->table);
	if (cmd->fn == wp_cmd_config) {
		/* the one table of variables and files (cli/envtable.c), as the man page has it */
		fprintf(f, "\nvariables and files:\n");
		for (size_t i = 0; i < wp_n_env_vars; i++) {
			const struct wp_env_var *v = &wp_env_vars[i];
			char line[512];
			snprintf(line, sizeof(line), "%s%s%s%s [%s]", v->meaning,
				 *v->dflt ? " (default: " : "", v->dflt, *v->dflt ? ")" : "",
				 v->tool);
			fprintf(f, "  %s\n", v->name);
			fprintf(f, "      ");
			wp_opts_wrap(f, line, 6, 6, 79);
		}
	}
	fprintf(f,
		"\nglobal options (anywhere on the line): --catalog PATH, --max-page-size SIZE, -q/--quiet, -v/--verbose\n");
}

void wp_cli_usage(FILE *f)
{
	fprintf(f,
		"usage: wheelpick [--catalog PATH] [-q|-v] COMMAND [ARGS...]\n"
		"       wheelpick PKG[SPEC]... [pick options]   (same as 'wheelpick pick')\n\n"
		"Which PyTorch build fits this machine, and how to carry it to one with no internet.\n\n"
		"commands:\n");
	for (size_t i = 0; i < wp_n_commands; i++)
		fprintf(f, "  %-9s %s\n", wp_commands[i].name, wp_commands[i].summary);
	fprintf(f, "\nglobal options (anywhere on the line):\n");
	for (const struct wp_opt *o = wp_global_table; o->name; o++) {
		char head[64];
		snprintf(head, sizeof(head), "%s%c%s--%s%s%s", o->short_name ? "-" : "",
			 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "", o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
		fprintf(f, "  %-18s ", o->short_name ? head : head + 1);
		wp_opts_wrap(f, o->help, 21, 21, 79);
	}
	fprintf(f, "  %-18s %s\n", "--version", "print the version");
	fprintf(f,
		"\nexit codes: 0 done; 1 nothing fits the request; 2 usage; 3 a source, network or local\n"
		"failure; 4 an integrity failure (a hash, a wheel's RECORD, an archive).\n"
		"'wheelpick help COMMAND' describes a command; 'man wheelpick' has everything.\n");
}

int wp_cmd_help(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	if (argc == 0) {
		wp_cli_usage(stdout);
		return 0;
	}
	if (argc > 1)
		return wp_fail(err, -WPE_USAGE,
			       "help takes one command name, e.g. 'wheelpick help pick'");
	const struct wp_cmd *cmd = wp_cmd_find(argv[0]);
	if (cmd) {
		wp_cmd_print_help(cmd, stdout);
		return 0;
	}
	const char *names[64];
	struct wp_strlist close = { 0 };
	for (size_t i = 0; i < wp_n_commands && i < WP_ARRAY_LEN(names); i++)
		names[i] = wp_commands[i].name;
	wp_suggest_closest(argv[0], names, wp_n_commands, 1, &close);
	int rc;
	if (close.n)
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' is not a command; did you mean '%s'? ('wheelpick help' lists them)",
			     argv[0], close.v[0]);
	else
		rc = wp_fail(err, -WPE_USAGE, "'%s' is not a command; 'wheelpick help' lists them",
			     argv[0]);
	wp_strlist_release(&close);
	return rc;
}
