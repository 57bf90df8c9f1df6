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

#define LOCAL_LEN   30u
#define META_SUFFIX ".dist-info/METADATA"
/* deflate never grows data by this much; a larger compressed METADATA is not one */
#define MAX_META_COMP (WP_ZIPMETA_MAX_META + ((uint64_t)1 << 20))

int wp_zip_end_find(const char *file, const unsigned char *win, size_t win_len, uint64_t file_size,
		    struct wp_zip_end *end, struct wp_err *err)
{
	return wp_zip_end_read(file, win, win_len, file_size, WP_ZIPMETA_MAX_CD, end, err);
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
static bool is_our_metadata(const unsigned char *name, size_t n, const char *project,
			    const char *version)
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
	return wp_version_text_equal(dash + 1, (size_t)(s + stem - dash - 1), version,
				     strlen(version));
}

int wp_zip_find_metadata(const char *file, const unsigned char *cd, size_t cd_len,
			 const struct wp_zip_end *end, const char *project, const char *version,
			 struct wp_zip_member *m, struct wp_err *err)
{
	char proj[256], show[96];
	size_t p = 0, found = 0;

	memset(m, 0, sizeof(*m));
	if (!norm_name(project, strlen(project), proj, sizeof(proj)))
		return wp_fail(err, -WPE_USAGE, "project name '%s' is too long", project);
	if (cd_len != end->cd_size)
		return wp_fail(err, -WPE_USAGE,
			       "'%s': %zu bytes of central directory given, %" PRIu64 " needed",
			       file, cd_len, end->cd_size);
	for (uint64_t k = 0; k < end->n_entries; k++) {
		struct wp_zip_entry e;
		int er = wp_zip_entry_read(cd, cd_len, p, &e);
		if (er == WP_ZIP_ENTRY_BAD)
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s': central directory entry %" PRIu64 " of %" PRIu64
				       " is missing or bad (at byte %zu of %zu)",
				       file, k + 1, end->n_entries, p, cd_len);
		if (er)
			return wp_fail(err, -WPE_INTEGRITY,
				       "'%s': central directory entry %" PRIu64 " runs past "
				       "the directory's end",
				       file, k + 1);
		size_t nl = e.name_len;
		if (is_our_metadata(e.name, nl, proj, version)) {
			if (++found > 1)
				return wp_fail(err, -WPE_INTEGRITY, "'%s' has more than one '%s'",
					       file, m->name);
			if (nl >= sizeof(m->name))
				return wp_fail(err, -WPE_INTEGRITY,
					       "'%s': a METADATA path of %zu bytes is too long",
					       file, nl);
			memcpy(m->name, e.name, nl);
			m->name[nl] = 0;
			m->name_len = (uint16_t)nl;
			if (wp_zip_entry_zip64(&e))
				return wp_fail(err, -WPE_INTEGRITY,
					       "'%s': entry '%s' lacks the zip64 sizes its header "
					       "asks for",
					       file,
					       wp_member_name_show(m->name, m->name_len, show,
								   sizeof(show)));
			m->flags = e.flags;
			m->method = e.method;
			m->crc32 = e.crc32;
			m->comp_size = e.comp_size;
			m->size = e.size;
			m->local_offset = e.local_offset;
		}
		p = e.next;
	}
	if (!found)
		return wp_fail(err, -WPE_INTEGRITY, "'%s' has no %s-%s.dist-info/METADATA", file,
			       project, version);

	const char *mn = wp_member_name_show(m->name, m->name_len, show, sizeof(show));
	if (m->flags & 1)
		return wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' is encrypted", file, mn);
	if (m->method != 0 && m->method != 8)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': '%s' uses compression method %u (only stored and "
			       "deflated are read)",
			       file, mn, m->method);
	if (m->size > WP_ZIPMETA_MAX_META || m->comp_size > MAX_META_COMP)
		return wp_fail(err, -WPE_TOO_BIG,
			       "'%s': '%s' is %" PRIu64 " bytes (%" PRIu64 " packed), over the "
			       "limit of %" PRIu64,
			       file, mn, m->size, m->comp_size, WP_ZIPMETA_MAX_META);
	if (m->method == 0 && m->comp_size != m->size)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': '%s' is stored, but its sizes differ (%" PRIu64 " and "
			       "%" PRIu64 ")",
			       file, mn, m->comp_size, m->size);
	/* its local header and data come before the central directory */
	uint64_t least = LOCAL_LEN + (uint64_t)m->name_len + m->comp_size;
	if (m->local_offset > end->cd_offset || least > end->cd_offset - m->local_offset)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': '%s' at offset %" PRIu64 " (%" PRIu64 " bytes) overlaps "
			       "the central directory at %" PRIu64,
			       file, mn, m->local_offset, m->comp_size, end->cd_offset);
	return 0;
}

int wp_zip_local_data(const char *file, const unsigned char *buf, size_t len,
		      const struct wp_zip_member *m, size_t *data_at, uint64_t *need,
		      struct wp_err *err)
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
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': no local header for '%s' at offset %" PRIu64, file, mn,
			       m->local_offset);
	uint64_t nl = wp_le16(buf + 26), xl = wp_le16(buf + 28);
	if (nl != m->name_len || wp_le16(buf + 8) != m->method || (wp_le16(buf + 6) & 1))
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': the local header of '%s' disagrees with its central "
			       "directory entry",
			       file, mn);
	uint64_t total = LOCAL_LEN + nl + xl + m->comp_size;
	if (total > len) {
		*need = total;
		return 0;
	}
	if (memcmp(buf + LOCAL_LEN, m->name, m->name_len) != 0)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': the local header at offset %" PRIu64 " names another "
			       "file than '%s'",
			       file, m->local_offset, mn);
	*data_at = (size_t)(LOCAL_LEN + nl + xl);
	return 0;
}

int wp_zip_member_decode(const char *file, const unsigned char *data, size_t len,
			 const struct wp_zip_member *m, char **out, size_t *out_len,
			 struct wp_err *err)
{
	char show[96];
	const char *mn = wp_member_name_show(m->name, m->name_len, show, sizeof(show));
	int rc = 0;

	*out = NULL;
	*out_len = 0;
	if (len != m->comp_size || m->size > WP_ZIPMETA_MAX_META || m->comp_size > MAX_META_COMP)
		return wp_fail(err, -WPE_USAGE,
			       "'%s': '%s' needs %" PRIu64 " bytes of data, %zu given", file, mn,
			       m->comp_size, len);
	size_t size = (size_t)m->size;
	/* one byte more than declared, so data that inflates past it is seen */
	char *buf = wp_xmalloc(size + 1);

	if (m->method == 0) {
		if (len != size) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': '%s' is stored, but its sizes differ", file, mn);
			goto out;
		}
		if (size)
			memcpy(buf, data, size);
	} else if (m->method == 8) {
		z_stream zs;
		memset(&zs, 0, sizeof(zs));
		if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': cannot start inflating '%s'", file,
				     mn);
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
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': '%s' inflates to more than the %zu bytes its entry "
				     "declares",
				     file, mn, size);
			goto out;
		}
		if (zr != Z_STREAM_END) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' does not inflate: %s", file,
				     mn, whybuf);
			goto out;
		}
		if (got != size) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': '%s' inflates to %" PRIu64 " bytes, its entry "
				     "declares %zu",
				     file, mn, got, size);
			goto out;
		}
	} else {
		rc = wp_fail(err, -WPE_INTEGRITY, "'%s': '%s' uses compression method %u", file, mn,
			     m->method);
		goto out;
	}
	uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)buf, (uInt)size);
	if (crc != m->crc32) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s': '%s' has CRC-32 %08" PRIx32 ", its entry says %08" PRIx32, file,
			     mn, crc, m->crc32);
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
