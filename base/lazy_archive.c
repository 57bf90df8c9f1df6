/* base/lazy_archive.c: the libarchive functions wheelpick calls (repodata decompression, wheel
 * and conda checks, bundles), loaded on first use (see lazylib.h). */
#include "base/lazylib.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <archive.h>
#include <archive_entry.h>

#define FWD(ret, name, params, args) WP_LAZY_FORWARD(wp_lazy_archive, ret, name, params, args)
#define FWD_VOID(name, params, args) WP_LAZY_FORWARD_VOID(wp_lazy_archive, name, params, args)

typedef struct archive A;
typedef struct archive_entry E;

/* reading */
FWD(A *, archive_read_new, (void), ())
FWD(int, archive_read_free, (A *a), (a))
FWD(int, archive_read_support_filter_bzip2, (A *a), (a))
FWD(int, archive_read_support_filter_gzip, (A *a), (a))
FWD(int, archive_read_support_filter_xz, (A *a), (a))
FWD(int, archive_read_support_filter_zstd, (A *a), (a))
FWD(int, archive_read_support_format_raw, (A *a), (a))
FWD(int, archive_read_support_format_tar, (A *a), (a))
FWD(int, archive_read_support_format_zip_seekable, (A *a), (a))
FWD(int, archive_read_set_read_callback, (A * a, archive_read_callback *cb), (a, cb))
FWD(int, archive_read_set_seek_callback, (A * a, archive_seek_callback *cb), (a, cb))
FWD(int, archive_read_set_close_callback, (A * a, archive_close_callback *cb), (a, cb))
FWD(int, archive_read_set_callback_data, (A * a, void *data), (a, data))
FWD(int, archive_read_open1, (A * a), (a))
FWD(int, archive_read_open,
    (A * a, void *client_data, archive_open_callback *o, archive_read_callback *r,
     archive_close_callback *c),
    (a, client_data, o, r, c))
FWD(int, archive_read_open_FILE, (A *a, FILE *f), (a, f))
FWD(int, archive_read_open_fd, (A *a, int fd, size_t block_size), (a, fd, block_size))
FWD(int, archive_read_open_filename, (A * a, const char *filename, size_t block_size),
    (a, filename, block_size))
FWD(int, archive_read_open_filenames, (A * a, const char **filenames, size_t block_size),
    (a, filenames, block_size))
FWD(int, archive_read_open_memory, (A *a, const void *buff, size_t size), (a, buff, size))
FWD(int, archive_read_next_header, (A *a, E **entry), (a, entry))
FWD(la_ssize_t, archive_read_data, (A *a, void *buf, size_t n), (a, buf, n))
FWD(int, archive_read_data_block, (A *a, const void **buff, size_t *size, la_int64_t *offset),
    (a, buff, size, offset))
FWD(la_int64_t, archive_filter_bytes, (A *a, int n), (a, n))
FWD(const char *, archive_error_string, (A *a), (a))

/* writing (bundles, unpacking a bundle) */
FWD(A *, archive_write_new, (void), ())
FWD(A *, archive_write_disk_new, (void), ())
FWD(int, archive_write_disk_set_options, (A *a, int flags), (a, flags))
FWD(int, archive_write_add_filter_gzip, (A *a), (a))
FWD(int, archive_write_add_filter_zstd, (A *a), (a))
FWD(int, archive_write_set_filter_option, (A * a, const char *m, const char *o, const char *v),
    (a, m, o, v))
FWD(int, archive_write_set_format_pax_restricted, (A *a), (a))
FWD(int, archive_write_set_options, (A * a, const char *opts), (a, opts))
FWD(int, archive_write_set_format_raw, (A *a), (a))
FWD(int, archive_write_open_memory, (A * a, void *buf, size_t size, size_t *used),
    (a, buf, size, used))
FWD(int, archive_write_set_bytes_in_last_block, (A *a, int bytes), (a, bytes))
FWD(int, archive_write_open_fd, (A *a, int fd), (a, fd))
FWD(int, archive_write_header, (A *a, E *entry), (a, entry))
FWD(la_ssize_t, archive_write_data, (A *a, const void *buf, size_t n), (a, buf, n))
FWD(la_ssize_t, archive_write_data_block, (A * a, const void *buf, size_t n, la_int64_t offset),
    (a, buf, n, offset))
FWD(int, archive_write_finish_entry, (A *a), (a))
FWD(int, archive_write_close, (A *a), (a))
FWD(int, archive_write_free, (A *a), (a))

/* entries */
FWD(E *, archive_entry_new, (void), ())
FWD_VOID(archive_entry_free, (E *e), (e))
FWD(__LA_MODE_T, archive_entry_filetype, (E *e), (e))
FWD(__LA_MODE_T, archive_entry_perm, (E *e), (e))
FWD(const char *, archive_entry_hardlink, (E *e), (e))
FWD(const char *, archive_entry_pathname, (E *e), (e))
FWD(const char *, archive_entry_pathname_utf8, (E *e), (e))
FWD(const char *, archive_entry_symlink, (E *e), (e))
FWD(la_int64_t, archive_entry_size, (E *e), (e))
FWD(int, archive_entry_sparse_count, (E *e), (e))
FWD_VOID(archive_entry_set_filetype, (E *e, unsigned int type), (e, type))
FWD_VOID(archive_entry_set_gid, (E *e, la_int64_t gid), (e, gid))
FWD_VOID(archive_entry_set_uid, (E *e, la_int64_t uid), (e, uid))
FWD_VOID(archive_entry_set_mtime, (E *e, time_t t, long ns), (e, t, ns))
FWD_VOID(archive_entry_set_pathname, (E *e, const char *name), (e, name))
FWD_VOID(archive_entry_set_perm, (E *e, __LA_MODE_T perm), (e, perm))
FWD_VOID(archive_entry_set_size, (E *e, la_int64_t size), (e, size))

/* printf-style: format here, hand libarchive the finished text. A NULL format clears the error,
 * as libarchive documents (its own code calls it so where a test links libarchive too). */
WP_LAZY_SLOT(wp_lazy_archive, archive_set_error)
void archive_set_error(A *a, int err, const char *fmt, ...)
{
	void (*real)(A *, int, const char *, ...) = (void (*)(A *, int, const char *, ...))
		wp_lazy_fn(&wp_lazy_archive, &wp_lazy_slot_archive_set_error, "archive_set_error");
	if (!fmt) {
		real(a, err, NULL);
		return;
	}
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	real(a, err, "%s", msg ? msg : fmt);
	free(msg);
}
