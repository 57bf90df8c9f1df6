/* ops/core/session.h: what every job runs with: the catalog, the cache folder, how much to say and
 * where to say it. ops/ never prints: it reports through the session, and the CLI (or a test)
 * decides what reaches the terminal. Ownership: the strings are the caller's; the session
 * borrows them while jobs run. */
#ifndef WP_OPS_CORE_SESSION_H
#define WP_OPS_CORE_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "net/transfer.h"
#include "resolver/ask.h"

struct wp_s3_conf;

enum wp_say_level {
	WP_SAY_DEBUG,  /* -v: sources, cache hits, each decision */
	WP_SAY_INFO,   /* what happened: "updated URL", "mirror DIR: 12 files" */
	WP_SAY_NOTE,   /* what the user should know: fallbacks, detection */
	WP_SAY_WARN,   /* something is off but the job goes on */
	WP_SAY_ERROR,  /* one item failed; the job's own error is returned, not said */
};

typedef void wp_say_fn(void *ctx, enum wp_say_level level, const char *msg);

/* Transfers of a job: begin (names and sizes, -1 unknown), progress per file, one end per
 * file (result 0 or -WPE_*), then done. All optional. */
struct wp_progress_sink {
	void (*begin)(void *ctx, const char *const *names, const long long *sizes, size_t n);
	void (*update)(void *ctx, size_t index, long long received, long long total);
	/* an earlier run had kept this many bytes of file index, and the transfer goes on from
	 * there: its received counts include them, but they were not downloaded now */
	void (*resumed)(void *ctx, size_t index, long long kept);
	void (*file_done)(void *ctx, size_t index, int result, bool cached);
	void (*end)(void *ctx);
	void *ctx;
};

struct wp_session {
	const char *catalog_path;  /* the SQLite catalog */
	const char *cache_dir;     /* files/ (the store) and tmp/ live here */
	int verbosity; /* -1 quiet, 0 normal, 1+ verbose (decides nothing but what is said) */
	long max_age_s; /* a source refreshed this recently is used as it is; < 0: always refresh */
	wp_say_fn *say;            /* NULL: nothing is said */
	void *say_ctx;
	struct wp_progress_sink progress;
	const struct wp_asks *asks; /* how the user asks for what a message advises (cli's flags);
				       NULL: plain words */
	const char *nvidia_lib_dir; /* where detection loads NVML and libcuda from
				       ($WHEELPICK_NVIDIA_LIBDIR); NULL: the loader's own search */
	/* SOURCE_DATE_EPOCH (reproducible-builds.org): the one time outputs may carry (a bundle's
	 * member mtimes, an SBOM's timestamp); source_date_set false: none given (mtimes are 0 and
	 * an SBOM has no timestamp) */
	long long source_date;
	bool source_date_set;
	bool sbom_spdx; /* outputs carry sbom.spdx.json (SPDX 2.3) beside sbom.cdx.json */
	const char *const *envp; /* the process environment as a value (base/envp.h), handed by
				    cli/: the WHEELPICK_* defaults the jobs read; NULL: none set */
	/* the run's network settings, built once by cli/ (TLS, timeout, netrc): every transfer a
	 * job makes carries net (wp_session_net_policy), every S3 handle s3; NULL: net/'s
	 * defaults */
	const struct wp_net_conf *net;
	const struct wp_s3_conf *s3;
	/* the store net->creds reads (cli/'s): a job adds the userinfo of the URLs it is given (its
	 * --index, -f, channels) while it sets up its sources, before the transfers that read it
	 * and never while they run; NULL: that userinfo is dropped */
	struct wp_net_creds *creds;
	const char *tmpdir; /* where scratch folders outside the cache go ($TMPDIR); NULL: /tmp */
	unsigned long long max_page_bytes; /* the largest index page or repodata a crawl takes
	                               (ops/core/crawl.h); 0: WP_CRAWL_PAGE_MAX_DEFAULT */
};

/* A source refreshed within this many seconds is used as is ($WHEELPICK_MAX_AGE overrides). */
#define WP_DEFAULT_MAX_AGE_S 3600

void wp_say(const struct wp_session *s, enum wp_say_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The defaults a session takes from the environment, each allocated (the caller frees):
 * the catalog ($WHEELPICK_CATALOG, else $XDG_CACHE_HOME/wheelpick/catalog.sqlite3, else
 * ~/.cache/wheelpick/catalog.sqlite3) and the cache folder ($WHEELPICK_CACHE_DIR, else
 * $XDG_CACHE_HOME/wheelpick, else ~/.cache/wheelpick). NULL when no home can be found: no
 * $HOME, no $XDG_CACHE_HOME (a catalog must not land in whatever folder the job ran from). */
char *wp_session_default_catalog(const char *const *envp);
char *wp_session_default_cache_dir(const char *const *envp);
/* $SOURCE_DATE_EPOCH (from s->envp) into s->source_date (set: whether it is); -WPE_USAGE for
 * garbage. */
int wp_session_source_date(struct wp_session *s, struct wp_err *err);
/* $WHEELPICK_MAX_AGE in seconds, else WP_DEFAULT_MAX_AGE_S; -WPE_USAGE for garbage. */
int wp_session_max_age(const char *const *envp, long *out, struct wp_err *err);
/* What a job's transfers are told: net/'s defaults with the session's settings (s may be NULL). */
struct wp_net_policy wp_session_net_policy(const struct wp_session *s);
/* NAME's value in the session's environment (NULL: unset or empty). */
const char *wp_session_env(const struct wp_session *s, const char *name);

#endif
