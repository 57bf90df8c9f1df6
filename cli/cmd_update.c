/* cli/cmd_update.c: `wheelpick update`: crawl sources into the catalog. */
#include "cli/cli.h"
#include "ops/sources.h"
#include "ops/targets.h"

#include <stddef.h>
#include <stdlib.h>

struct update_opts {
	struct wp_strlist index, channel, project, subdir;
	bool conda, force, help;
};

static const struct wp_opt update_table[] = {
	{ "index", 'i', "index-url|extra-index-url|find-links", WP_OPT_LIST, offsetof(struct update_opts, index), "URL",
	  "a find-links page, PEP 503/691 page or root, or repodata.json" },
	{ "find-links", 'f', NULL, WP_OPT_LIST, offsetof(struct update_opts, index), "URL", "same as --index" },
	{ "channel", 'c', NULL, WP_OPT_LIST, offsetof(struct update_opts, channel), "NAME|URL",
	  "a conda channel (implies --conda)" },
	{ "conda", 0, NULL, WP_OPT_FLAG, offsetof(struct update_opts, conda), NULL,
	  "only conda channels ($WHEELPICK_CHANNEL, default: pytorch); --index URLs are channels then" },
	{ "subdir", 0, NULL, WP_OPT_LIST, offsetof(struct update_opts, subdir), "SUBDIR",
	  "conda subdirs to crawl (default linux-64 and noarch)" },
	{ "project", 'p', NULL, WP_OPT_LIST, offsetof(struct update_opts, project), "NAME",
	  "project to follow from an index root (default torch, torchvision, torchaudio)" },
	{ "force", 0, NULL, WP_OPT_FLAG, offsetof(struct update_opts, force), NULL,
	  "refetch and reparse even unchanged sources" },
	WP_OPT_END,
};

int wp_cmd_update(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct update_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_sources src = { 0 };
	struct wp_catalog cat = { 0 };
	int rc;
	static const char *const default_subdirs[] = { "linux-64", "noarch" };

	if (wp_opts_wants_help(argc, argv)) {
		wp_opts_help(stdout, "wheelpick update [--index URL]... [--conda] [-c CHANNEL]...",
			     "Crawl index sources into the catalog (default: PyTorch's torch_stable.html, its PEP 503 root\n"
			     "https://download.pytorch.org/whl/ and the pytorch conda channel; $WHEELPICK_INDEX replaces\n"
			     "the first two). Unchanged sources cost one conditional request and\n"
			     "no writes; each source is replaced in one transaction, so an interrupted update leaves\n"
			     "the catalog as it was.",
			     update_table);
		return 0;
	}
	if ((rc = wp_opts_parse(update_table, &o, argc, argv, &pos, err)))
		goto out;
	for (size_t i = 0; i < pos.n; i++) /* `wheelpick update URL` */
		wp_strlist_push(&o.index, pos.v[i]);
	if (o.channel.n)
		o.conda = true;
	const char *const *subdirs = o.subdir.n ? o.subdir.v : default_subdirs;
	size_t nsub = o.subdir.n ? o.subdir.n : 2;
	for (size_t i = 0; i < o.index.n; i++) {
		if (o.conda)
			wp_sources_add_channel(&src, o.index.v[i], subdirs, nsub);
		else
			wp_sources_add_index(&src, o.index.v[i]);
	}
	for (size_t i = 0; i < o.channel.n; i++)
		wp_sources_add_channel(&src, o.channel.v[i], subdirs, nsub);
	if (!src.n) {
		/* the defaults: PyTorch's find-links page and PEP 503 root (following the projects asked
		 * for), and the pytorch conda channel; with --conda, the channels only */
		struct wp_strlist def = { 0 }, chans = { 0 };
		char *def_store = NULL, *chan_store = NULL;
		if (!o.conda) {
			def_store = wp_default_indexes(&def, false);
			for (size_t i = 0; i < def.n; i++)
				wp_sources_add_index(&src, def.v[i]);
			if (!getenv("WHEELPICK_INDEX"))
				wp_sources_add_index(&src, "https://download.pytorch.org/whl/");
		}
		if (o.conda || !getenv("WHEELPICK_INDEX")) {
			chan_store = wp_default_indexes(&chans, true);
			for (size_t i = 0; i < chans.n; i++)
				wp_sources_add_channel(&src, chans.v[i], subdirs, nsub);
		}
		wp_strlist_release(&def);
		wp_strlist_release(&chans);
		free(def_store);
		free(chan_store);
	}
	if ((rc = wp_cli_need_paths(cli, err)) || (rc = wp_catalog_open(&cat, cli->session.catalog_path, err)))
		goto out;
	rc = wp_sources_crawl(&cli->session, &cat, &src, o.project.n ? o.project.v : NULL, o.project.n, o.force, 0, err);
out:
	wp_catalog_close(&cat);
	wp_sources_release(&src);
	wp_strlist_release(&pos);
	wp_strlist_release(&o.index);
	wp_strlist_release(&o.channel);
	wp_strlist_release(&o.project);
	wp_strlist_release(&o.subdir);
	return rc;
}
