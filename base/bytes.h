/* base/bytes.h: little-endian integers read from byte arrays (ZIP headers). Header-only; the
 * caller owns the bytes and checks that enough of them are there. */
#ifndef WP_BYTES_H
#define WP_BYTES_H

#include <stdint.h>

static inline uint16_t wp_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t wp_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t wp_le64(const unsigned char *p)
{
	return (uint64_t)wp_le32(p) | (uint64_t)wp_le32(p + 4) << 32;
}

#endif
