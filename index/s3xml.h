/* index/s3xml.h: S3's XML answers read with libxml2 into base/s3xml.h's plain values; ops/ hands
 * the table (wp_s3xml_reader) to each S3 handle it opens, so that net/ reads no XML itself. */
#ifndef WP_INDEX_S3XML_H
#define WP_INDEX_S3XML_H

#include "base/s3xml.h"

/* An answer past this many bytes, or a page past this many entries, is refused (-WPE_TOO_BIG):
 * S3 pages at most 1,000 keys (10,000 parts) in a few hundred KiB. */
#define WP_S3XML_MAX_BYTES ((size_t)16 << 20)
#define WP_S3XML_MAX_ENTRIES 10000

int wp_s3xml_list_parse(const char *xml, size_t n, struct wp_s3_listing *out, bool *truncated,
			char **next, struct wp_err *err);
int wp_s3xml_uploads_parse(const char *xml, size_t n, struct wp_s3_uploads *out, bool *truncated,
			   char **next_key, char **next_id, struct wp_err *err);
int wp_s3xml_parts_parse(const char *xml, size_t n, struct wp_s3_parts *out, bool *truncated,
			 long *next, struct wp_err *err);
void wp_s3xml_error_code(const char *xml, size_t n, char *code, size_t size);
bool wp_s3xml_upload_id(const char *xml, size_t n, char *id, size_t size);

/* The five above, as net/s3.h's handle takes them. */
extern const struct wp_s3_xml wp_s3xml_reader;

#endif
