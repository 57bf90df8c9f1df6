/* verify/zipwrite.c: a one-member stored zip (verify/zipwrite.h); zlib is this folder's, for the
 * CRC-32. */
#include "verify/zipwrite.h"

#include <stdint.h>
#include <string.h>
#include <zlib.h>

static void le16(struct wp_buf *b, unsigned v)
{
	unsigned char p[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
	wp_buf_add(b, p, 2);
}

static void le32(struct wp_buf *b, uint32_t v)
{
	unsigned char p[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };
	wp_buf_add(b, p, 4);
}

void wp_zip_one_stored(const char *name, const void *data, size_t n, struct wp_buf *out)
{
	size_t nl = strlen(name);
	uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)data, (uInt)n);
	/* DOS time: 1980-01-01 00:00, as zipfile.writestr gives a ZipInfo with no date_time */
	const unsigned dtime = 0, ddate = (0 << 9) | (1 << 5) | 1;
	size_t start = out->len;
	le32(out, 0x04034b50); /* local file header */
	le16(out, 20);	       /* version needed: 2.0 */
	le16(out, 0);	       /* flags */
	le16(out, 0);	       /* stored */
	le16(out, dtime);
	le16(out, ddate);
	le32(out, crc);
	le32(out, (uint32_t)n);
	le32(out, (uint32_t)n);
	le16(out, (unsigned)nl);
	le16(out, 0);
	wp_buf_add(out, name, nl);
	wp_buf_add(out, data, n);
	size_t cd = out->len;
	le32(out, 0x02014b50); /* central directory header */
	le16(out, 20);	       /* made by: 2.0, MS-DOS attributes */
	le16(out, 20);
	le16(out, 0);
	le16(out, 0);
	le16(out, dtime);
	le16(out, ddate);
	le32(out, crc);
	le32(out, (uint32_t)n);
	le32(out, (uint32_t)n);
	le16(out, (unsigned)nl);
	le16(out, 0); /* extra */
	le16(out, 0); /* comment */
	le16(out, 0); /* disk */
	le16(out, 0); /* internal attributes */
	le32(out, (uint32_t)0600 << 16); /* external: zipfile's default for writestr, rw------- */
	le32(out, 0);			  /* the local header's offset */
	wp_buf_add(out, name, nl);
	size_t cd_len = out->len - cd;
	le32(out, 0x06054b50); /* end of central directory */
	le16(out, 0);
	le16(out, 0);
	le16(out, 1);
	le16(out, 1);
	le32(out, (uint32_t)cd_len);
	le32(out, (uint32_t)(cd - start));
	le16(out, 0);
}
