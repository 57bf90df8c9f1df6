/* verify/zipmeta.c: find a wheel's METADATA in pieces of its zip and decode it. Pure; no I/O. */
#include "verify/zipmeta.h"

#include "base/bytes.h"
#include "base/mem.h"
#include "resolver/version.h"
#include "verify/wheel.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define SIG_LOCAL   0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD    0x06054b50u
#define SIG_Z64_LOC 0x07064b50u
#define SIG_Z64_END 0x06064b50u

#define EOCD_LEN    22u
#define Z64_LOC_LEN 20u
#define Z64_END_LEN 56u
#define CENTRAL_LEN 46u
#define LOCAL_LEN   30u
#define MAX_COMMENT 65535u
#define META_SUFFIX ".dist-info/METADATA"
/* deflate never grows data by this much; a larger compressed METADATA is not one */
#define MAX_META_COMP (WP_ZIPMETA_MAX_META + ((uint64_t)1 << 20))

int wp_zip_end_find(const char *file, const unsigned char *win, size_t win_len, uint64_t file_size,
		    struct wp_zip_end *end, struct wp_err *err)
{
	memset(end, 0, sizeof(*end));
	if (win_len > file_size)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': a tail of %zu bytes is longer than the file (%" PRIu64 ")",
			       file, win_len, file_size);
	if (win_len < EOCD_LEN)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' is not a zip: %zu bytes are too few for an end record",
			       file, win_len);
	uint64_t win_start = file_size - win_len;

	/* the EOCD whose comment runs exactly to the end of the file, nearest the end first */
	size_t i = win_len - EOCD_LEN, lo = i > MAX_COMMENT ? i - MAX_COMMENT : 0;
	bool found = false;
	for (;; i--) {
		if (wp_le32(win + i) == SIG_EOCD && i + EOCD_LEN + wp_le16(win + i + 20) == win_len) {
			found = true;
			break;
		}
		if (i == lo)
			break;
	}
	if (!found)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' is not a zip: no end of central directory record in its "
			       "last %zu bytes", file, win_len);

	const unsigned char *e = win + i;
	uint64_t eocd_pos = win_start + i;
	uint64_t disk = wp_le16(e + 4), cd_disk = wp_le16(e + 6), n_disk = wp_le16(e + 8), n = wp_le16(e + 10);
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
			return wp_fail(err, -WPE_INTEGRITY, "'%s' is a multi-disk zip (zip64 locator: disk %" PRIu32
				       " of %" PRIu32 ")", file, wp_le32(l + 4), wp_le32(l + 16));
		if (loc_pos < Z64_END_LEN || z64_off > loc_pos - Z64_END_LEN)
			return wp_fail(err, -WPE_INTEGRITY, "'%s': the zip64 end record at offset %" PRIu64
				       " does not fit before its locator at %" PRIu64, file, z64_off, loc_pos);
		if (z64_off < win_start) {
			end->need_more = true;
			end->need_from = z64_off;
			return 0;
		}
		const unsigned char *r = win + (z64_off - win_start);
		uint64_t rec_len = wp_le64(r + 4);
		if (wp_le32(r) != SIG_Z64_END || rec_len < Z64_END_LEN - 12 || rec_len > loc_pos - z64_off - 12)
			return wp_fail(err, -WPE_INTEGRITY, "'%s': no zip64 end record at offset %" PRIu64
				       " where its locator points", file, z64_off);
		disk = wp_le32(r + 16);
		cd_disk = wp_le32(r + 20);
		n_disk = wp_le64(r + 24);
		n = wp_le64(r + 32);
		cd_size = wp_le64(r + 40);
		cd_off = wp_le64(r + 48);
		end_start = z64_off;
	} else if (saturated) {
		return wp_fail(err, -WPE_INTEGRITY, "'%s': the end record needs zip64 values, but there is no "
			       "zip64 locator", file);
	}

	if (disk != 0 || cd_disk != 0 || n_disk != n)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' is a multi-disk zip (disk %" PRIu64 ", directory on "
			       "disk %" PRIu64 ")", file, disk, cd_disk);
	if (cd_size > WP_ZIPMETA_MAX_CD)
		return wp_fail(err, -WPE_TOO_BIG, "'%s': a central directory of %" PRIu64 " bytes is over "
			       "the limit of %" PRIu64, file, cd_size, WP_ZIPMETA_MAX_CD);
	if (cd_off > end_start || cd_size > end_start - cd_off)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': the central directory (%" PRIu64 " bytes at offset "
			       "%" PRIu64 ") runs past its end record at %" PRIu64, file, cd_size, cd_off,
			       end_start);
	if (n > cd_size / CENTRAL_LEN)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': %" PRIu64 " entries cannot fit in a central "
			       "directory of %" PRIu64 " bytes", file, n, cd_size);
	end->cd_offset = cd_off;
	end->cd_size = cd_size;
	end->n_entries = n;
	return 0;
}

/* PEP 503 normalisation into a fixed buffer; false when it does not fit. */
static bool norm_name(const char *s, size_t n, char *out, size_t outsz)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '-' || c == '_' || c == '.') {
			if (o && out[o - 1] == '-')
				continue;
			c = '-';
		} else if (c >= 'A' && c <= 'Z') {
			c = (char)(c - 'A' + 'a');
		}
		if (o + 1 >= outsz)
			return false;
		out[o++] = c;
	}
	out[o] = 0;
	return true;
}

/* "<name>-<version>.dist-info/METADATA" at the top level, for this project and version. */
static bool is_our_metadata(const unsigned char *name, size_t n, const char *project, const char *version)
{
	size_t sl = strlen(META_SUFFIX);
	const char *s = (const char *)name;
	if (n <= sl || memcmp(s + n - sl, META_SUFFIX, sl) != 0 || memchr(s, 0, n))
		return false;
	size_t stem = n - sl; /* "<name>-<version>" */
	const char *dash = memchr(s, '-', stem);
	if (!dash || memchr(s, '/', stem) || dash == s || dash + 1 == s + stem)
		return false;
	char norm[256];
	if (!norm_name(s, (size_t)(dash - s), norm, sizeof(norm)) || strcmp(norm, project) != 0)
		return false;
	return wp_version_text_equal(dash + 1, (size_t)(s + stem - dash - 1), version, strlen(version));
}

/* The zip64 extra (id 1) fills the saturated fields, in the order the format fixes. */
static int apply_zip64(const char *file, const unsigned char *x, size_t xl, struct wp_zip_member *m,
		       bool need_size, bool need_comp, bool need_off, struct wp_err *err)
{
	char show[96];
	while (xl >= 4) {
		uint16_t id = wp_le16(x), len = wp_le16(x + 2);
		if ((size_t)len > xl - 4)
			break;
		if (id == 1) {
			const unsigned char *p = x + 4;
			size_t left = len;
			if (need_size) {
				if (left < 8)
					goto short_extra;
				m->size = wp_le64(p);
				p += 8;
				left -= 8;
				need_size = false;
			}
			if (need_comp) {
				if (left < 8)
					goto short_extra;
				m->comp_size = wp_le64(p);
				p += 8;
				left -= 8;
				need_comp = false;
			}
			if (need_off) {
				if (left < 8)
					goto short_extra;
				m->local_offset = wp_le64(p);
				need_off = false;
			}
			break;
		}
		x += 4 + (size_t)len;
		xl -= 4 + (size_t)len;
	}
	if (!need_size && !need_comp && !need_off)
		return 0;
short_extra:
	return wp_fail(err, -WPE_INTEGRITY, "'%s': entry '%s' lacks the zip64 sizes its header asks for", file,
		       wp_member_name_show(m->name, m->name_len, show, sizeof(show)));
}

int wp_zip_find_metadata(const char *file, const unsigned char *cd, size_t cd_len, const struct wp_zip_end *end,
			 const char *project, const char *version, struct wp_zip_member *m, struct wp_err *err)
{
	char proj[256], show[96];
	size_t p = 0, found = 0;

	memset(m, 0, sizeof(*m));
	if (!norm_name(project, strlen(project), proj, sizeof(proj)))
		return wp_fail(err, -WPE_USAGE, "project name '%s' is too long", project);
	if (cd_len != end->cd_size)
		return wp_fail(err, -WPE_USAGE, "'%s': %zu bytes of central directory given, %" PRIu64 " needed",
			       file, cd_len, end->cd_size);
	for (uint64_t k = 0; k < end->n_entries; k++) {
		if (cd_len - p < CENTRAL_LEN || wp_le32(cd + p) != SIG_CENTRAL)
			return wp_fail(err, -WPE_INTEGRITY, "'%s': central directory entry %" PRIu64 " of %" PRIu64
				       " is missing or bad (at byte %zu of %zu)", file, k + 1, end->n_entries, p,
				       cd_len);
		const unsigned char *c = cd + p;
		size_t nl = wp_le16(c + 28), xl = wp_le16(c + 30), cl = wp_le16(c + 32);
		if (cd_len - p - CENTRAL_LEN < nl + xl + cl)
			return wp_fail(err, -WPE_INTEGRITY, "'%s': central directory entry %" PRIu64 " runs past "
				       "the directory's end", file, k + 1);
		const unsigned char *name = c + CENTRAL_LEN;
		if (is_our_metadata(name, nl, proj, version)) {
			if (++found > 1)
				return wp_fail(err, -WPE_INTEGRITY, "'%s' has more than one '%s'", file, m->name);
			if (nl >= sizeof(m->name))
				return wp_fail(err, -WPE_INTEGRITY, "'%s': a METADATA path of %zu bytes is too long",
					       file, nl);
			memcpy(m->name, name, nl);
			m->name[nl] = 0;
			m->name_len = (uint16_t)nl;
			m->flags = wp_le16(c + 8);
			m->method = wp_le16(c + 10);
			m->crc32 = wp_le32(c + 16);
			m->comp_size = wp_le32(c + 20);
			m->size = wp_le32(c + 24);
			m->local_offset = wp_le32(c + 42);
			bool z_size = m->size == 0xFFFFFFFFu, z_comp = m->comp_size == 0xFFFFFFFFu;
			bool z_off = m->local_offset == 0xFFFFFFFFu;
			int rc;
			if ((z_size || z_comp || z_off) &&
			    (rc = apply_zip64(file, name + nl, xl, m, z_size, z_comp, z_off, err)))
				return rc;
		}
		p += CENTRAL_LEN + nl + xl + cl;
	}
	if (!found)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' has no %s-%s.dist-info/METADATA", file, project, version);

	const char *mn = wp_member_name_show(m->name, m->name_len, show, sizeof(show));
	if (m->flags & 1)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' is encrypted", file, mn);
	if (m->method != 0 && m->method != 8)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' uses compression method %u (only stored and "
			       "deflated are read)", file, mn, m->method);
	if (m->size > WP_ZIPMETA_MAX_META || m->comp_size > MAX_META_COMP)
		return wp_fail(err, -WPE_TOO_BIG, "'%s': '%s' is %" PRIu64 " bytes (%" PRIu64 " packed), over the "
			       "limit of %" PRIu64, file, mn, m->size, m->comp_size, WP_ZIPMETA_MAX_META);
	if (m->method == 0 && m->comp_size != m->size)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' is stored, but its sizes differ (%" PRIu64 " and "
			       "%" PRIu64 ")", file, mn, m->comp_size, m->size);
	/* its local header and data come before the central directory */
	uint64_t least = LOCAL_LEN + (uint64_t)m->name_len + m->comp_size;
	if (m->local_offset > end->cd_offset || least > end->cd_offset - m->local_offset)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' at offset %" PRIu64 " (%" PRIu64 " bytes) overlaps "
			       "the central directory at %" PRIu64, file, mn, m->local_offset, m->comp_size,
			       end->cd_offset);
	return 0;
}

int wp_zip_local_data(const char *file, const unsigned char *buf, size_t len, const struct wp_zip_member *m,
		      size_t *data_at, uint64_t *need, struct wp_err *err)
{
	char show[96];
	const char *mn = wp_member_name_show(m->name, m->name_len, show, sizeof(show));

	*data_at = 0;
	*need = 0;
	if (len < LOCAL_LEN) {
		*need = LOCAL_LEN + (uint64_t)m->name_len + m->comp_size;
		return 0;
	}
	if (wp_le32(buf) != SIG_LOCAL)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': no local header for '%s' at offset %" PRIu64, file, mn,
			       m->local_offset);
	uint64_t nl = wp_le16(buf + 26), xl = wp_le16(buf + 28);
	if (nl != m->name_len || wp_le16(buf + 8) != m->method || (wp_le16(buf + 6) & 1))
		return wp_fail(err, -WPE_INTEGRITY, "'%s': the local header of '%s' disagrees with its central "
			       "directory entry", file, mn);
	uint64_t total = LOCAL_LEN + nl + xl + m->comp_size;
	if (total > len) {
		*need = total;
		return 0;
	}
	if (memcmp(buf + LOCAL_LEN, m->name, m->name_len) != 0)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': the local header at offset %" PRIu64 " names another "
			       "file than '%s'", file, m->local_offset, mn);
	*data_at = (size_t)(LOCAL_LEN + nl + xl);
	return 0;
}

int wp_zip_member_decode(const char *file, const unsigned char *data, size_t len, const struct wp_zip_member *m,
			 char **out, size_t *out_len, struct wp_err *err)
{
	char show[96];
	const char *mn = wp_member_name_show(m->name, m->name_len, show, sizeof(show));
	int rc = 0;

	*out = NULL;
	*out_len = 0;
	if (len != m->comp_size || m->size > WP_ZIPMETA_MAX_META || m->comp_size > MAX_META_COMP)
		return wp_fail(err, -WPE_USAGE, "'%s': '%s' needs %" PRIu64 " bytes of data, %zu given", file, mn,
			       m->comp_size, len);
	size_t size = (size_t)m->size;
	/* one byte more than declared, so data that inflates past it is seen */
	char *buf = wp_xmalloc(size + 1);

	if (m->method == 0) {
		if (len != size) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' is stored, but its sizes differ", file, mn);
			goto out;
		}
		if (size)
			memcpy(buf, data, size);
	} else if (m->method == 8) {
		z_stream zs;
		memset(&zs, 0, sizeof(zs));
		if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': cannot start inflating '%s'", file, mn);
			goto out;
		}
		zs.next_in = (Bytef *)(uintptr_t)data;
		zs.avail_in = (uInt)len;
		zs.next_out = (Bytef *)buf;
		zs.avail_out = (uInt)(size + 1);
		int zr = inflate(&zs, Z_FINISH);
		uint64_t got = zs.total_out;
		const char *why = zs.msg ? zs.msg : "truncated data";
		char whybuf[128];
		snprintf(whybuf, sizeof(whybuf), "%s", why);
		inflateEnd(&zs);
		if (got > size) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' inflates to more than the %zu bytes its entry "
				     "declares", file, mn, size);
			goto out;
		}
		if (zr != Z_STREAM_END) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' does not inflate: %s", file, mn, whybuf);
			goto out;
		}
		if (got != size) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' inflates to %" PRIu64 " bytes, its entry "
				     "declares %zu", file, mn, got, size);
			goto out;
		}
	} else {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' uses compression method %u", file, mn, m->method);
		goto out;
	}
	uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)buf, (uInt)size);
	if (crc != m->crc32) {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' has CRC-32 %08" PRIx32 ", its entry says %08" PRIx32,
			     file, mn, crc, m->crc32);
		goto out;
	}
	buf[size] = 0;
	*out = buf;
	*out_len = size;
	buf = NULL;
out:
	free(buf);
	return rc;
}
