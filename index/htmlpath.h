/* index/htmlpath.h: choosing the reader of an HTML page, for tests and fuzzing (index/html.c).
 * Ownership: as index/html.h: every argument is borrowed. */
#ifndef WP_HTMLPATH_H
#define WP_HTMLPATH_H

#include "index/html.h"

/* Which reader reads a page. AUTO: the fast scanner when the page is a plain, well-formed
 * anchor list (no entities, ASCII, known elements), libxml2 otherwise; both give the same
 * records. LIBXML: libxml2 alone. FAST: the scanner alone, returning 1 (nothing read, nothing
 * emitted) for a page it leaves to libxml2. LIBXML and FAST are for tests and fuzzing. */
enum wp_html_path { WP_HTML_AUTO, WP_HTML_LIBXML, WP_HTML_FAST };
int wp_read_html_links_via(enum wp_html_path path, const char *page_url, const char *project,
			   const char *data, size_t len, wp_record_fn *sink, void *ctx,
			   struct wp_index_stats *stats, struct wp_err *err);
int wp_read_html_projects_via(enum wp_html_path path, const char *page_url, const char *data,
			      size_t len, wp_project_fn *sink, void *ctx,
			      struct wp_index_stats *stats, struct wp_err *err);


/* As the two above, the page in memory read as a file is, in pieces: the first first bytes
 * long, then each piece bytes (0: the rest), so that a test cuts it anywhere. */
int wp_read_html_links_pieces(enum wp_html_path path, const char *page_url, const char *project,
			      const char *data, size_t len, size_t first, size_t piece,
			      wp_record_fn *sink, void *ctx, struct wp_index_stats *stats,
			      struct wp_err *err);
int wp_read_html_projects_pieces(enum wp_html_path path, const char *page_url, const char *data,
				 size_t len, size_t first, size_t piece, wp_project_fn *sink,
				 void *ctx, struct wp_index_stats *stats, struct wp_err *err);

#endif
