/* cli/cmd_update.c: `wheelpick update`: crawl sources into the catalog. */
#include "base/json.h"
#include "base/mem.h"
#include "cli/cli.h"
#include "cli/print.h"
#include "ops/core/indexconf.h"
#include "ops/core/sources.h"
#include "ops/core/targets.h"
#include "base/os/os.h"

#include <stddef.h>
#include <stdlib.h>

struct update_opts {
	struct wp_strlist index, channel, project, subdir;
	bool conda, force, help, json;
};

/* --json: what the crawl says of each source (info and notes) goes into the document, not to
 * stderr; warnings and errors still go there. */
struct said {
	struct wp_cli *cli;
	wp_say_fn *say;
	void *say_ctx;
	WP_VEC_OF(, char *) lines;
};

static void collect(void *ctx, enum wp_say_level level, const char *msg)
{
	struct said *c = ctx;
	if (level == WP_SAY_INFO || level == WP_SAY_NOTE)
		wp_vec_push(&c->lines, wp_xstrdup(msg));
	else
		c->say(c->say_ctx, level, msg);
}

const struct wp_opt wp_update_table[] = {
	{ "index", 'i', "index-url|extra-index-url|find-links", WP_OPT_LIST,
	  offsetof(struct update_opts, index), "URL",
	  "a find-links page, PEP 503/691 page or root, or repodata.json" },
	{ "find-links", 'f', NULL, WP_OPT_LIST, offsetof(struct update_opts, index), "URL",
	  "same as --index" },
	{ "channel", 'c', NULL, WP_OPT_LIST, offsetof(struct update_opts, channel), "NAME|URL",
	  "a conda channel (implies --conda)" },
	{ "conda", 0, NULL, WP_OPT_FLAG, offsetof(struct update_opts, conda), NULL,
	  "only conda channels ($WHEELPICK_CHANNEL, default: conda-forge); --index URLs are channels then; with "
	  "--project, a sharded channel (CEP 16) gives only those packages and what they depend on" },
	{ "subdir", 0, NULL, WP_OPT_LIST, offsetof(struct update_opts, subdir), "SUBDIR",
	  "conda subdirs to crawl (default linux-64 and noarch)" },
	{ "project", 'p', NULL, WP_OPT_LIST, offsetof(struct update_opts, project), "NAME",
	  "project to follow from an index root (default torch, torchvision, torchaudio; a root that lists none of those: "
	  "every project it lists), or with --conda a package "
	  "whose closure to read from sharded channels" },
	{ "force", 0, NULL, WP_OPT_FLAG, offsetof(struct update_opts, force), NULL,
	  "refetch and reparse even unchanged sources" },
	{ "json", 0, NULL, WP_OPT_FLAG, offsetof(struct update_opts, json), NULL,
	  "print {\"sources\": [...], \"messages\": [...]} on stdout (a failure: {\"error\": ...})" },
	WP_OPT_END,
};

int wp_cmd_update(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct update_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	int rc;

	if ((rc = wp_opts_parse(wp_update_table, &o, argc, argv, &pos, err)))
		goto out;
	for (size_t i = 0; i < pos.n; i++) /* `wheelpick update URL` */
		wp_strlist_push(&o.index, pos.v[i]);
	/* no index given: pip's and uv's configuration, as a pick reads it (and its TLS
	 * settings) */
	struct wp_index_config icfg = { 0 };
	struct wp_index_given none = { .envp = wp_os_environ(), .creds = &cli->net.creds };
	if (!o.index.n && !o.channel.n && !o.conda) {
		if ((rc = wp_index_config_resolve(&none, &icfg, err))) {
			wp_index_config_release(&icfg);
			goto out;
		}
		wp_cli_net_apply(&cli->net, &icfg);
		for (size_t i = 0; icfg.index.n + icfg.find_links.n && i < icfg.shown.n; i++)
			wp_strlist_push(&o.index, icfg.shown.v[i]);
		for (size_t i = 0; i < icfg.shown.n; i++)
			wp_cli_debug(cli, "index: %s (from %s)", icfg.shown.v[i],
				     icfg.shown_from.v[i]);
	}
	struct wp_update_job job = {
		.index = o.index,
		.channel = o.channel,
		.subdir = o.subdir,
		.project = o.project,
		.conda = o.conda,
		.force = o.force,
	};
	struct said said = { .cli = cli, .say = cli->session.say, .say_ctx = cli->session.say_ctx };
	if (o.json) {
		cli->session.say = collect;
		cli->session.say_ctx = &said;
	}
	if (!(rc = wp_cli_need_paths(cli, err)))
		rc = wp_update(&cli->session, &job, err);
	cli->session.say = said.say;
	cli->session.say_ctx = said.say_ctx;
	if (!rc && o.json) {
		struct wp_json j;
		wp_json_init(&j);
		wp_json_obj(&j);
		wp_json_key(&j, "sources");
		wp_json_arr(&j);
		for (size_t i = 0; i < job.index.n; i++)
			wp_json_str(&j, job.index.v[i]);
		for (size_t i = 0; i < job.channel.n; i++)
			wp_json_str(&j, job.channel.v[i]);
		wp_json_arr_end(&j);
		wp_json_key(&j, "messages");
		wp_json_arr(&j);
		for (size_t i = 0; i < said.lines.n; i++)
			wp_json_str(&j, said.lines.v[i]);
		wp_json_arr_end(&j);
		wp_json_obj_end(&j);
		wp_print_json_out(&j);
	} else if (rc) {
		for (size_t i = 0; i < said.lines.n; i++) /* what it did before it failed */
			said.say(said.say_ctx, WP_SAY_INFO, said.lines.v[i]);
	}
	for (size_t i = 0; i < said.lines.n; i++)
		free(said.lines.v[i]);
	wp_vec_free(&said.lines);
	wp_index_config_release(&icfg);
out:
	wp_strlist_release(&pos);
	wp_strlist_release(&o.index);
	wp_strlist_release(&o.channel);
	wp_strlist_release(&o.project);
	wp_strlist_release(&o.subdir);
	return rc;
}
