/* ops/core/crawl.h: refreshing sources into the catalog: fetch (conditional GET, in parallel), pick
 * the reader for what came back, and replace the source's rows in one transaction.
 * The report owns its strings (wp_crawl_report_release); options and URLs are borrowed. */
#ifndef WP_OPS_CORE_CRAWL_H
#define WP_OPS_CORE_CRAWL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "net/transfer.h"
#include "base/vec.h"
#include "cache/catalog.h"
#include "resolver/ask.h"

struct wp_crawl_opts {
	const char *const *projects; /* projects to follow from a root page (normalised or not);
	                                NULL = torch, torchvision, torchaudio */
	size_t n_projects;
	const char *tmp_dir;         /* where repodata downloads land (same file system as nothing
	                                in particular; removed after parsing) */
	const char *const *envp; /* the environment (base/envp.h): its TMPDIR when tmp_dir is NULL
				  */
	const struct wp_net_conf *net; /* the run's network settings (the session's); NULL: defaults
					*/
	bool force;                  /* ignore validators and content hashes: reparse everything */
	long max_age_s;              /* > 0: skip a source refreshed less than this long ago */
	const struct wp_asks *asks; /* the words of the advice when a page is too big; NULL: plain
				     */
	unsigned long long max_page_bytes; /* the largest page or repodata taken (as sent, before
					any decompression); 0: WP_CRAWL_PAGE_MAX_DEFAULT */
};

/* The default ceiling on one index page or repodata file. Pages past WP_CRAWL_PAGE_IN_MEMORY are
 * read from a temporary file in pieces (PEP 691 JSON, HTML and repodata: streamed, memory
 * bounded; a local page past it likewise, from where it lies), so the ceiling guards the disk and
 * the time, not memory. 2 GiB: the largest
 * real index documents are conda-forge's repodata.json (a few hundred MB uncompressed and
 * growing; 2 GiB was already its ceiling), PyPI's /simple/ root (~600,000 projects, ~30-40 MB in
 * HTML or JSON) and the roots of company indexes that proxy all of PyPI with absolute URLs per
 * project (~100-200 bytes a link: 60-120 MB, past the old 64 MiB); 2 GiB leaves them ten times
 * room. */
#define WP_CRAWL_PAGE_MAX_DEFAULT ((unsigned long long)2 << 30)
#define WP_CRAWL_PAGE_IN_MEMORY   ((size_t)8 << 20)

struct wp_crawl_source {
	char *url;
	enum wp_source_kind kind;    /* what it turned out to be, decided once when its bytes came
	                                (findlinks, simple, simple-json, repodata, root) */
	int rc;                      /* 0 or -WPE_* */
	char *error;                 /* message when rc != 0 */
	bool not_found; /* the failure is a 404/410, or a local path that does not exist:
			   the source has no such page (an answer, not an outage) */
	bool unchanged;              /* 304, the same bytes as last time, or fresh enough */
	char *redirected_to; /* the host a redirect took the request to, when it is another */
	unsigned long long files, skipped, malformed, conflicts;
	unsigned long long refused; /* of malformed: links the page may not make (a local file from
				       a page on the network, plain http from https), never followed
				     */
};

WP_VEC_OF(wp_crawl_report, struct wp_crawl_source); /* v, n, cap */

/* Refresh every URL. A failing source does not stop the others; the catalog keeps its old rows
 * for it. Returns 0 when all succeeded, else the first failure's code with err set. */
int wp_crawl(struct wp_catalog *cat, const char *const *urls, size_t n,
	     const struct wp_crawl_opts *opts, struct wp_crawl_report *rep, struct wp_err *err);
void wp_crawl_report_release(struct wp_crawl_report *rep);

/* True when url names a conda repodata file (repodata.json, current_repodata.json, .bz2, .zst). */
bool wp_crawl_is_repodata(const char *url);

/* Would a crawl with this max_age_s leave the source at url alone: read (or checked) under
 * max_age_s seconds ago? Its caller loads no library for such a source (a warm pick given --index
 * URL loaded libcurl and libcrypto, 4.5 ms of its 8.3, for a page it did not read). A catalog that
 * cannot say answers no. */
bool wp_crawl_is_fresh(struct wp_catalog *cat, const char *url, long max_age_s);

struct wp_file_record;

/* A conda record as the catalog row it is stored as (borrowing rec's strings and variant, which
 * receives wp_conda_variant of its build); false for a record without a name or version, which
 * is malformed. The repodata.json crawl and the sharded read (ops/core/shardread.c) store alike. */
bool wp_crawl_conda_row(const struct wp_file_record *rec, int64_t source_id, char variant[48],
			struct wp_file_row *row);

#endif
