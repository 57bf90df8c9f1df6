/* verify/archopen.h: a libarchive read handle opened on files through the OS seam. libarchive's
 * own archive_read_open_filename(s) turns a path through Windows' ANSI code page, so a UTF-8 path
 * that is not ASCII cannot be opened there; here every path is UTF-8 on every OS. */
#ifndef WP_VERIFY_ARCHOPEN_H
#define WP_VERIFY_ARCHOPEN_H

#include <stddef.h>

struct archive;

/* Opens a on the files names[0..n) (a copy is kept) read one after the other as one stream (a
 * bundle's volumes; n = 1 for one file); libarchive closes them with the handle. ARCHIVE_OK or
 * libarchive's failure, with the reason in archive_error_string(a). */
int wp_archive_read_open_paths(struct archive *a, const char *const *names, size_t n);

#endif
