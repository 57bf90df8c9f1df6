/* index/pep691.h: PEP 691 JSON simple pages (application/vnd.pypi.simple.v1+json) into records.
 * Ownership: readers borrow every argument; what they pass to a sink lives only for that call. */
#ifndef WP_PEP691_H
#define WP_PEP691_H

#include <stddef.h>

#include "index/record.h"

#define WP_PEP691_MAX_BYTES ((size_t)256 << 20) /* a page past this is refused */
#define WP_PEP691_MAX_FILES 2000000             /* more entries than this is refused */

/* Read a project page: each entry of "files" that names a wheel or an sdist becomes a record
 * (url resolved against page_url; hashes, requires-python, yanked, PEP 714 core-metadata with
 * the older dist-info-metadata names as fallback, size). project is the page's "name", else
 * the caller's project (may be NULL). Entries that are broken (no filename or url, a bad hash,
 * a value of the wrong type) are skipped and counted. stats may be NULL.
 * -WPE_SOURCE (naming page_url) for JSON that is malformed, nested past WP_JSON_MAX_DEPTH
 * (base/json.h), not an object, or lacks a meta.api-version with major version 1; -WPE_TOO_BIG over
 * the caps; -WPE_USAGE when page_url is not an absolute http, https or file URL. The whole page is
 * checked before the first record goes to the sink, so a refused page sends nothing. */
int wp_read_pep691(const char *page_url, const char *project, const char *data, size_t len,
		   wp_record_fn *sink, void *ctx, struct wp_index_stats *stats, struct wp_err *err);

/* Read a root page ({"projects": [{"name": ...}]}): each valid name goes to sink with the
 * URL of its page, page_url + the PEP 503 normalised name + "/". Errors as above. */
int wp_read_pep691_projects(const char *page_url, const char *data, size_t len, wp_project_fn *sink,
			    void *ctx, struct wp_index_stats *stats, struct wp_err *err);

/* As the two above, from an open file (fd >= 0, read with pread from its start, twice: once to
 * check and once to emit) instead of data/len, for a page too big to hold in memory: at most
 * max_bytes in all (-WPE_TOO_BIG past it, instead of WP_PEP691_MAX_BYTES), no string longer than
 * 16 MiB (-WPE_TOO_BIG), -WPE_IO when the file cannot be read. fd < 0: data/len as above. */
int wp_read_pep691_fd(const char *page_url, const char *project, int fd,
		      unsigned long long max_bytes, const char *data, size_t len,
		      wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
		      struct wp_err *err);
int wp_read_pep691_projects_fd(const char *page_url, int fd, unsigned long long max_bytes,
			       const char *data, size_t len, wp_project_fn *sink, void *ctx,
			       struct wp_index_stats *stats, struct wp_err *err);

#endif
