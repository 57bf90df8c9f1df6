/* verify/zipcd.h: a zip's end records and central directory entries read from bytes: the one
 * reader the wheel verifier (verify/wheel.c) and the METADATA-from-pieces reader (verify/zipmeta.c)
 * share. Pure: no I/O, nothing read past the bytes given; each caller says what is wrong in its
 * own words (the entry functions return a code, not a message). */
#ifndef WP_ZIPCD_H
#define WP_ZIPCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define WP_ZIP_CENTRAL_LEN 46u /* a central directory entry's fixed part */

/* Where the central directory lies, from the end of central directory record (and, when the
 * EOCD's fields are saturated or a locator is present, the zip64 records). */
struct wp_zip_end {
	uint64_t cd_offset;  /* where the central directory starts in the file */
	uint64_t cd_size;    /* its length in bytes; cd_offset + cd_size <= end_start */
	uint64_t n_entries;
	uint64_t end_start;  /* where the end records start (the zip64 one when there is one) */
	bool need_more;      /* the zip64 records start before the window: call again with a */
	uint64_t need_from;  /* window that reaches back to this offset */
};

/* win holds the last win_len bytes of a file of file_size bytes. 0 with end filled (check
 * need_more), -WPE_TOO_BIG for a central directory over max_cd bytes, or -WPE_INTEGRITY naming
 * file and what is wrong (no EOCD in the window, a second disk, offsets outside the file...). */
int wp_zip_end_read(const char *file, const unsigned char *win, size_t win_len, uint64_t file_size,
		    uint64_t max_cd, struct wp_zip_end *end, struct wp_err *err);

/* One central directory entry's fields, borrowed from the directory's bytes. */
struct wp_zip_entry {
	const unsigned char *name, *extra;
	size_t name_len, extra_len;
	uint16_t made_by, flags, method;
	uint32_t crc32, ext_attr;
	uint64_t comp_size, size, local_offset; /* 0xffffffff until wp_zip_entry_zip64 */
	size_t next;                            /* where the entry after it starts */
};

enum {
	WP_ZIP_ENTRY_BAD = -1,  /* no room for an entry there, or no entry signature */
	WP_ZIP_ENTRY_PAST = -2, /* its name, extra or comment runs past the directory's end */
};

/* The entry at cd[pos] (pos <= cd_len): 0 with e filled, or WP_ZIP_ENTRY_*. */
int wp_zip_entry_read(const unsigned char *cd, size_t cd_len, size_t pos, struct wp_zip_entry *e);

/* The zip64 extra (id 1) fills the saturated sizes and offset, in the order the format fixes:
 * 0, or -1 when a saturated field has no value there. */
int wp_zip_entry_zip64(struct wp_zip_entry *e);

#endif
