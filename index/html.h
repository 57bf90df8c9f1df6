/* index/html.h: HTML link pages (torch_stable.html find-links, PEP 503 simple pages) into records.
 * Ownership: readers borrow every argument; what they pass to a sink lives only for that call. */
#ifndef WP_HTML_H
#define WP_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "index/record.h"

#define WP_HTML_MAX_BYTES   ((size_t)256 << 20) /* a page past this is refused */
#define WP_HTML_MAX_ANCHORS 2000000             /* more <a> elements than this is refused */
#define WP_HTML_MAX_DEPTH   1024                /* elements nested deeper than this: refused */

/* Read a links page: every <a href> that names a wheel or an sdist becomes a record (hrefs
 * resolved against page_url or a <base href>, hashes from the fragment, PEP 503/592/658/714
 * data-* attributes); other links are counted in stats and skipped. project is NULL for a
 * find-links page, or the project a PEP 503 page is for. stats may be NULL.
 * -WPE_SOURCE (naming page_url) when the bytes are not an index: binary, or a page with text
 * and no package links that does not look like an empty PEP 503 page (an error page, a bot
 * challenge), or a PEP 629 repository version other than 1.x. -WPE_TOO_BIG over the caps.
 * -WPE_USAGE when page_url is not an absolute http, https or file URL. */
int wp_read_html_links(const char *page_url, const char *project, const char *data, size_t len,
		       wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
		       struct wp_err *err);

/* Read a root page (PEP 503 /simple/, https://download.pytorch.org/whl/): each anchor names a
 * project (its text, else the href's last segment) and the URL of the project's page. Names
 * that are not valid project names are counted as malformed; links to files (a links page
 * read as a root) are skipped, so such a page names no projects. Errors as for links. */
int wp_read_html_projects(const char *page_url, const char *data, size_t len, wp_project_fn *sink,
			  void *ctx, struct wp_index_stats *stats, struct wp_err *err);

/* As the two above, from an open file (fd >= 0) read with pread in pieces from its start, a few
 * MiB of memory whatever its size, instead of data/len: at most max_bytes (-WPE_TOO_BIG past
 * it, instead of WP_HTML_MAX_BYTES), -WPE_IO when it cannot be read or changes between the
 * reads. fd < 0: data/len as above. The same records as from the bytes in memory. */
int wp_read_html_links_fd(const char *page_url, const char *project, int fd,
			  unsigned long long max_bytes, const char *data, size_t len,
			  wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
			  struct wp_err *err);
int wp_read_html_projects_fd(const char *page_url, int fd, unsigned long long max_bytes,
			     const char *data, size_t len, wp_project_fn *sink, void *ctx,
			     struct wp_index_stats *stats, struct wp_err *err);

/* Wheel, sdist or unknown, from a file name's extension (the readers' common rule). */
enum wp_file_kind wp_index_file_kind(const char *filename);

/* A PEP 508 project name: letters and digits, with '.', '_' and '-' inside, at most 200 bytes. */
bool wp_index_project_name_ok(const char *s, size_t n);

#endif
