/* index/localsrc.h: sources on this machine (file:// URLs), read from disk without libcurl.
 * A crawl of a local page then costs a read(2), not loading libcurl and its 30 libraries. */
#ifndef WP_INDEX_LOCALSRC_H
#define WP_INDEX_LOCALSRC_H

#include "base/buf.h"
#include "base/err.h"

#include <stdbool.h>

/* "file:///P" or "file://localhost/P" -> "/P", percent-decoded (caller frees *path).
 * -WPE_USAGE naming the URL for another host or no absolute path. */
int wp_local_path(const char *url, char **path, struct wp_err *err);

bool wp_local_is_file_url(const char *url);

/* The file:// URL of an absolute path ("/P", or "C:/P" on Windows, '/' between its parts):
 * "file:///P", every byte but the unreserved ones, '/' and ':' percent-encoded, so that a '%',
 * '#', '?' or space in a name stays part of the path and wp_local_path gives the path back.
 * Caller frees. */
char *wp_local_url(const char *path);

/* The bytes of a local page into body (its ceiling applies: -WPE_TOO_BIG). A folder named with a
 * trailing slash that holds an index.html (a project's folder in a PEP 503 tree on disk) reads as
 * that page, as pip reads a file:// index; any other folder reads as a find-links page that links
 * every file in it, as pip's `--find-links DIR` does, and *is_folder is set. -WPE_NET naming the
 * URL when it cannot be read. */
int wp_local_read_page(const char *url, struct wp_buf *body, bool *is_folder, struct wp_err *err);

/* Where the page at url lies, for a reader that reads the file itself (a page of any size, in
 * pieces): *file the regular file (the one named, or a folder's index.html, as above; caller
 * frees) and *size its length now; or *is_folder set (*file the folder) for a folder that lists
 * its files, which wp_local_read_page makes. -WPE_NET naming the URL when it cannot be read. */
int wp_local_page_file(const char *url, char **file, bool *is_folder, unsigned long long *size,
		       struct wp_err *err);

#endif
