/* cli/common.h: what several commands share: the catalog, the list of sources, crawling with a
 * report on stderr. Allocated strings in a wp_sources are owned by it (wp_sources_release). */
#ifndef WP_CLI_COMMON_H
#define WP_CLI_COMMON_H

#include "cache/catalog.h"
#include "cli/cli.h"
#include "resolver/target.h"

struct wp_sources {
	char **urls;
	size_t n;
};

int wp_cli_open_catalog(struct wp_cli *cli, struct wp_catalog *cat, struct wp_err *err);

/* --index URLs as given, plus for conda each channel (a name, or a URL without a repodata file)
 * expanded to CHANNEL/SUBDIR/repodata.json for each subdir. A local path becomes a file:// URL. */
void wp_sources_add_index(struct wp_sources *s, const char *url);
void wp_sources_add_channel(struct wp_sources *s, const char *channel, const char *const *subdirs, size_t n);
void wp_sources_release(struct wp_sources *s);

/* Crawl the sources into the catalog and report each on stderr (one line per source unless
 * quiet). projects: names to follow on root pages (NULL: torch, torchvision, torchaudio). */
int wp_cli_crawl(struct wp_cli *cli, struct wp_catalog *cat, const struct wp_sources *src,
		 const char *const *projects, size_t n_projects, bool force, long max_age_s, struct wp_err *err);

/* The same with nothing said about each source (fetching dependency pages on demand). */
int wp_cli_crawl_quiet(struct wp_cli *cli, struct wp_catalog *cat, const struct wp_sources *src, struct wp_err *err);

/* --python/--cuda/--rocm/--platform/--gpu/--target into a target; "auto" and missing values
 * come from detection on this machine. notes: said on stderr (no driver -> CPU). */
struct wp_target_words {
	const char *python, *cuda, *rocm, *platform, *target_file;
	const struct wp_strlist *gpus;
	bool conda;
};
int wp_cli_target(struct wp_cli *cli, const struct wp_target_words *w, struct wp_target *t, struct wp_err *err);

#endif
