/* ops/core/sources.h: which sources a job reads, and crawling them into the catalog with a report.
 * A wp_sources owns its URL strings (wp_sources_release). */
#ifndef WP_OPS_CORE_SOURCES_H
#define WP_OPS_CORE_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/vec.h"
#include "cache/catalog.h"
#include "ops/core/session.h"
#include "resolver/requirement.h"

struct wp_net_creds;

struct wp_sources {
	char **urls;
	size_t n, cap;
	/* where a URL's userinfo goes when it is added (the run's store, the session's creds);
	 * NULL: it is dropped. The URLs kept never hold it. Borrowed. */
	struct wp_net_creds *creds;
};

/* PyTorch's index: the find-links page and the PEP 503 root (which also carries torch's
 * dependencies: numpy, sympy, nvidia-*). */
#define WP_PYTORCH_FINDLINKS "https://download.pytorch.org/whl/torch_stable.html"
#define WP_PYTORCH_ROOT      "https://download.pytorch.org/whl/"
/* conda-forge: where PyTorch's conda builds live since the pytorch channel stopped at 2.5, and
 * nearly every dependency; the pytorch channel is read when asked for (-c pytorch). */
#define WP_CONDA_FORGE "https://conda.anaconda.org/conda-forge"
#define WP_CONDA_DEFAULT_CHANNEL WP_CONDA_FORGE

/* An index as given: a URL, or a local path (pip's --find-links DIR habit), which becomes an
 * absolute file:// URL. Duplicates are dropped. A URL's userinfo (user:TOKEN@) is taken into
 * s->creds (net/auth.h; NULL: dropped) and is not part of the URL kept. An index root is kept the
 * way pip reads it, with its trailing slash: "https://host/simple" (a last segment without a dot)
 * is "https://host/simple/", and a local folder holding a PEP 503 tree (a project folder with its
 * index.html; or a mirror whose simple/ is one) is that tree's root; a folder of wheels stays a
 * find-links folder. */
void wp_sources_add_index(struct wp_sources *s, const char *url);
/* A find-links page or folder (pip's -f): as given, never taken for a root. */
void wp_sources_add_findlinks(struct wp_sources *s, const char *url);
/* Is url (as wp_sources_add_index keeps it) an index root: it ends in '/' and, on this machine,
 * names a folder holding a PEP 503 tree? */
bool wp_sources_is_root(const char *url);
/* A conda channel (a name, as conda's -c takes it, or a URL or path without a repodata file)
 * expanded to CHANNEL/SUBDIR/repodata.json for each subdir; a repodata URL is kept as it is. */
void wp_sources_add_channel(struct wp_sources *s, const char *channel, const char *const *subdirs,
			    size_t n);
void wp_sources_release(struct wp_sources *s);

/* The default sources: $WHEELPICK_INDEX (or $WHEELPICK_CHANNEL for conda; whitespace or comma
 * separated), else PyTorch's find-links page (or conda-forge). The strings pushed point
 * into the returned block, which the caller frees after the list (it may be NULL). */
char *wp_default_indexes(const char *const *envp, struct wp_strlist *out, bool conda);

/* Index roots a dependency's page may be under (a project no source was crawled for): the
 * given indexes that are roots (wp_sources_is_root: PEP 503 roots such as .../whl/ or .../simple/,
 * with or without the slash given), else those of $WHEELPICK_INDEX, else PyTorch's root. Given
 * indexes that are all pages (-f) make no root: nothing is asked for a dependency then. */
void wp_sources_dependency_roots(const char *const *envp, const struct wp_strlist *indexes,
				 struct wp_sources *roots);

/* Crawl the sources into the catalog and say what happened to each (one line per source at
 * WP_SAY_INFO; failures after the first at WP_SAY_ERROR; the first failure is returned).
 * projects: names to follow on root pages (NULL: torch, torchvision, torchaudio). max_age_s > 0
 * skips sources refreshed within that many seconds. */
int wp_sources_crawl(const struct wp_session *s, struct wp_catalog *cat,
		     const struct wp_sources *src, const char *const *projects, size_t n_projects,
		     bool force, long max_age_s, struct wp_err *err);

/* The sources of a pick, crawled as pip reads them: an index root is asked only for the pages of
 * the projects reqs name (ROOT/<name>/, PEP 691 JSON preferred; a 404 is "not on this index"),
 * never for the root page itself; other sources (pages, folders) are crawled whole. A root that
 * has none of them and that the catalog never knew as a root is then read as a page (a project
 * page given as --index). Freshness (max_age_s, conditional requests) as wp_sources_crawl.
 * first_index (uv's default strategy): the roots are asked in order, each only for the projects
 * the ones before it lack, so a root that is never needed is never asked and cannot fail the run;
 * otherwise every root is asked for every project, in parallel. */
int wp_sources_crawl_given(const struct wp_session *s, struct wp_catalog *cat,
			   const struct wp_sources *src, const struct wp_reqs *reqs, bool force,
			   long max_age_s, bool first_index, struct wp_err *err);

/* Conda channels (src: CHANNEL/SUBDIR/repodata.json URLs) for a closure of package names (names:
 * MatchSpecs or plain names): where a subdir has CEP 16 sharded repodata, its index and only the
 * shards of the names and, transitively, of their records' depends (ops/core/shardread.h); where it
 * has none (or its index cannot be read, said as a warning), its repodata.json whole, as
 * wp_sources_crawl does. With no names, every subdir's repodata.json whole. channels: the base URLs
 * whose records' depends count. The first failure is returned; a shard that fails its hash is
 * -WPE_INTEGRITY. */
int wp_sources_crawl_conda(const struct wp_session *s, struct wp_catalog *cat,
			   const struct wp_sources *src, const char *const *names, size_t n,
			   const char *const *channels, size_t nch, bool force, long max_age_s,
			   struct wp_err *err);

/* Project pages under roots, crawled quietly: a root that does not have a project answers 404,
 * which is the answer and not a failure. Any other failure (a server error, no connection, a
 * page that is not an index) is returned, naming the URL. first_index: the roots in order, each
 * asked only for what the ones before it lack (as wp_sources_crawl_given). max_age_s: freshness
 * (0: asked again, conditionally, whatever its age). */
int wp_sources_crawl_projects(const struct wp_session *s, struct wp_catalog *cat,
			      const struct wp_sources *roots, const char *const *projects, size_t n,
			      bool first_index, long max_age_s, struct wp_err *err);

/* `update`: the sources given (indexes, or channels with conda; each channel for each subdir),
 * else the defaults (PyTorch's find-links page and PEP 503 root, $WHEELPICK_INDEX in their place;
 * with conda, conda-forge or $WHEELPICK_CHANNEL, and no wheel index), crawled whatever their age.
 * A plain update reads no conda channel: conda-forge's repodata is large, and read when asked.
 * With conda and projects, a sharded channel gives only those projects' closure (as the conda
 * route reads it); without projects, every channel's repodata.json whole (the user asked for
 * the whole channel). */
struct wp_update_job {
	struct wp_strlist index, channel, subdir, project;
	bool conda, force;
};
int wp_update(const struct wp_session *s, const struct wp_update_job *job, struct wp_err *err);

#endif
