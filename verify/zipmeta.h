/* verify/zipmeta.h: a wheel's METADATA from pieces of its zip (the tail, the central directory, one
 * member). Pure: no I/O. The caller fetches the pieces (cache/remotemeta does it with HTTP ranges);
 * every offset and length these functions read from the bytes is checked against the pieces given
 * and the file's size, so hostile bytes can ask for a missing piece but never make them read past
 * one. Ownership: the pieces are borrowed for the call; wp_zip_member_decode's output is the
 * caller's. */
#ifndef WP_ZIPMETA_H
#define WP_ZIPMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "verify/zipcd.h"

#define WP_ZIPMETA_TAIL     65536                /* the first piece: the file's last 64 KiB */
#define WP_ZIPMETA_MAX_CD   ((uint64_t)64 << 20) /* a central directory past 64 MiB is refused */
#define WP_ZIPMETA_MAX_META ((uint64_t)16 << 20) /* a METADATA past 16 MiB (unpacked) is refused */

/* win holds the last win_len bytes of a file of file_size bytes. 0 with end filled (check
 * need_more), or -WPE_INTEGRITY naming file and what is wrong (no EOCD in the window, a second
 * disk, offsets outside the file, a central directory over WP_ZIPMETA_MAX_CD...). */
int wp_zip_end_find(const char *file, const unsigned char *win, size_t win_len, uint64_t file_size,
		    struct wp_zip_end *end, struct wp_err *err);

/* One central directory entry, its zip64 extra applied. */
struct wp_zip_member {
	uint64_t local_offset; /* of its local header in the file */
	uint64_t comp_size;
	uint64_t size;
	uint32_t crc32;
	uint16_t method;       /* 0 stored, 8 deflated (anything else is refused by find) */
	uint16_t flags;
	uint16_t name_len;
	char name[256];        /* NUL-terminated copy; METADATA's path is short */
};

/* The central directory (cd: all end->cd_size bytes) has exactly one entry
 * "<dir>.dist-info/METADATA" whose <dir> is "<name>-<version>" for this project (PEP 503
 * normalised, as wp_project_name_normalize makes it) and version (PEP 440 equal, or the same
 * text ignoring case). 0 with m filled and its data checked to lie before the central
 * directory; -WPE_INTEGRITY for a malformed directory, none or several such entries, an
 * encrypted or unsupported entry, or one over WP_ZIPMETA_MAX_META. */
int wp_zip_find_metadata(const char *file, const unsigned char *cd, size_t cd_len,
			 const struct wp_zip_end *end, const char *project, const char *version,
			 struct wp_zip_member *m, struct wp_err *err);

/* buf holds len bytes of the file from m->local_offset on. When they include the local header
 * and all m->comp_size bytes of data: 0 with *data_at the data's offset in buf. When they stop
 * short: 0 with *data_at = 0 and *need = how many bytes buf must hold (ask for the rest, call
 * again). -WPE_INTEGRITY when the local header is not one or disagrees with the central entry. */
int wp_zip_local_data(const char *file, const unsigned char *buf, size_t len,
		      const struct wp_zip_member *m, size_t *data_at, uint64_t *need,
		      struct wp_err *err);

/* Stored or inflated data (len must be m->comp_size) into *out (NUL-terminated, caller frees,
 * *out_len bytes), checked against m->size and m->crc32. -WPE_INTEGRITY otherwise. */
int wp_zip_member_decode(const char *file, const unsigned char *data, size_t len,
			 const struct wp_zip_member *m, char **out, size_t *out_len,
			 struct wp_err *err);

#endif
