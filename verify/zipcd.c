/* verify/zipcd.c: a zip's end records and central directory entries, read from bytes (the one
 * reader). */
#include "verify/zipcd.h"

#include "base/bytes.h"

#include <inttypes.h>
#include <string.h>

#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD    0x06054b50u
#define SIG_Z64_LOC 0x07064b50u
#define SIG_Z64_END 0x06064b50u

#define EOCD_LEN    22u
#define Z64_LOC_LEN 20u
#define Z64_END_LEN 56u
#define MAX_COMMENT 65535u

int wp_zip_end_read(const char *file, const unsigned char *win, size_t win_len, uint64_t file_size,
		    uint64_t max_cd, struct wp_zip_end *end, struct wp_err *err)
{
	memset(end, 0, sizeof(*end));
	if (win_len > file_size)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': a tail of %zu bytes is longer than the file (%" PRIu64 ")",
			       file, win_len, file_size);
	if (win_len < EOCD_LEN)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s' is not a zip: %zu bytes are too few for an end record", file,
			       win_len);
	uint64_t win_start = file_size - win_len;

	/* the EOCD whose comment runs exactly to the end of the file, nearest the end first */
	size_t i = win_len - EOCD_LEN, lo = i > MAX_COMMENT ? i - MAX_COMMENT : 0;
	bool found = false;
	for (;; i--) {
		if (wp_le32(win + i) == SIG_EOCD &&
		    i + EOCD_LEN + wp_le16(win + i + 20) == win_len) {
			found = true;
			break;
		}
		if (i == lo)
			break;
	}
	if (!found)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s' is not a zip: no end of central directory record in its "
			       "last %zu bytes",
			       file, win_len);

	const unsigned char *e = win + i;
	uint64_t eocd_pos = win_start + i;
	uint64_t disk = wp_le16(e + 4), cd_disk = wp_le16(e + 6), n_disk = wp_le16(e + 8),
		 n = wp_le16(e + 10);
	uint64_t cd_size = wp_le32(e + 12), cd_off = wp_le32(e + 16);
	bool saturated = n == 0xFFFF || n_disk == 0xFFFF || disk == 0xFFFF || cd_disk == 0xFFFF ||
			 cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu;
	uint64_t end_start = eocd_pos;

	if (i < Z64_LOC_LEN && win_start > 0 && eocd_pos >= Z64_LOC_LEN && saturated) {
		end->need_more = true; /* the locator is just before the window */
		end->need_from = eocd_pos - Z64_LOC_LEN;
		return 0;
	}
	if (i >= Z64_LOC_LEN && wp_le32(e - Z64_LOC_LEN) == SIG_Z64_LOC) {
		const unsigned char *l = e - Z64_LOC_LEN;
		uint64_t loc_pos = eocd_pos - Z64_LOC_LEN;
		uint64_t z64_off = wp_le64(l + 8);
		if (wp_le32(l + 4) != 0 || wp_le32(l + 16) > 1)
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s' is a multi-disk zip (zip64 locator: disk %" PRIu32
				       " of %" PRIu32 ")",
				       file, wp_le32(l + 4), wp_le32(l + 16));
		if (loc_pos < Z64_END_LEN || z64_off > loc_pos - Z64_END_LEN)
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s': the zip64 end record at offset %" PRIu64
				       " does not fit before its locator at %" PRIu64,
				       file, z64_off, loc_pos);
		if (z64_off < win_start) {
			end->need_more = true;
			end->need_from = z64_off;
			return 0;
		}
		const unsigned char *r = win + (z64_off - win_start);
		uint64_t rec_len = wp_le64(r + 4);
		if (wp_le32(r) != SIG_Z64_END || rec_len < Z64_END_LEN - 12 ||
		    rec_len > loc_pos - z64_off - 12)
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s': no zip64 end record at offset %" PRIu64
				       " where its locator points",
				       file, z64_off);
		disk = wp_le32(r + 16);
		cd_disk = wp_le32(r + 20);
		n_disk = wp_le64(r + 24);
		n = wp_le64(r + 32);
		cd_size = wp_le64(r + 40);
		cd_off = wp_le64(r + 48);
		end_start = z64_off;
	} else if (saturated) {
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': the end record needs zip64 values, but there is no "
			       "zip64 locator",
			       file);
	}

	if (disk != 0 || cd_disk != 0 || n_disk != n)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s' is a multi-disk zip (disk %" PRIu64 ", directory on "
			       "disk %" PRIu64 ")",
			       file, disk, cd_disk);
	if (cd_size > max_cd)
		return wp_fail(err, -WPE_TOO_BIG,
			       "'%s': a central directory of %" PRIu64 " bytes is over "
			       "the limit of %" PRIu64,
			       file, cd_size, max_cd);
	if (cd_off > end_start || cd_size > end_start - cd_off)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': the central directory (%" PRIu64 " bytes at offset "
			       "%" PRIu64 ") runs past its end record at %" PRIu64,
			       file, cd_size, cd_off, end_start);
	if (n > cd_size / WP_ZIP_CENTRAL_LEN)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': %" PRIu64 " entries cannot fit in a central "
			       "directory of %" PRIu64 " bytes",
			       file, n, cd_size);
	end->cd_offset = cd_off;
	end->cd_size = cd_size;
	end->n_entries = n;
	end->end_start = end_start;
	return 0;
}

int wp_zip_entry_read(const unsigned char *cd, size_t cd_len, size_t pos, struct wp_zip_entry *e)
{
	memset(e, 0, sizeof(*e));
	if (cd_len - pos < WP_ZIP_CENTRAL_LEN || wp_le32(cd + pos) != SIG_CENTRAL)
		return WP_ZIP_ENTRY_BAD;
	const unsigned char *c = cd + pos;
	size_t nl = wp_le16(c + 28), xl = wp_le16(c + 30), cl = wp_le16(c + 32);
	if (cd_len - pos - WP_ZIP_CENTRAL_LEN < nl + xl + cl)
		return WP_ZIP_ENTRY_PAST;
	e->name = c + WP_ZIP_CENTRAL_LEN;
	e->name_len = nl;
	e->extra = e->name + nl;
	e->extra_len = xl;
	e->made_by = wp_le16(c + 4);
	e->flags = wp_le16(c + 8);
	e->method = wp_le16(c + 10);
	e->crc32 = wp_le32(c + 16);
	e->comp_size = wp_le32(c + 20);
	e->size = wp_le32(c + 24);
	e->ext_attr = wp_le32(c + 38);
	e->local_offset = wp_le32(c + 42);
	e->next = pos + WP_ZIP_CENTRAL_LEN + nl + xl + cl;
	return 0;
}

int wp_zip_entry_zip64(struct wp_zip_entry *e)
{
	bool need_size = e->size == 0xFFFFFFFFu, need_comp = e->comp_size == 0xFFFFFFFFu;
	bool need_off = e->local_offset == 0xFFFFFFFFu;
	if (!need_size && !need_comp && !need_off)
		return 0;
	const unsigned char *x = e->extra;
	size_t xl = e->extra_len;
	while (xl >= 4) {
		uint16_t id = wp_le16(x), len = wp_le16(x + 2);
		if ((size_t)len > xl - 4)
			break;
		if (id == 1) {
			if ((size_t)len < 8u * ((size_t)need_size + need_comp + need_off))
				return -1;
			const unsigned char *p = x + 4;
			if (need_size)
				e->size = wp_le64(p), p += 8;
			if (need_comp)
				e->comp_size = wp_le64(p), p += 8;
			if (need_off)
				e->local_offset = wp_le64(p);
			return 0;
		}
		x += 4 + (size_t)len;
		xl -= 4 + (size_t)len;
	}
	return -1;
}
