/* base/s3xml.h: S3's XML answers as plain values (ListObjectsV2, ListMultipartUploads, ListParts
 * pages, an <Error>'s code, InitiateMultipartUpload's UploadId), and the table of the functions
 * that read them. net/s3.c asks through the table its caller put in the handle (ops/ hands it
 * index/s3xml.c's, which reads with libxml2), so net/ includes no XML library and every include
 * still points down. Ownership: a page's strings are malloc'd and its own (the *_free functions in
 * net/s3.h); a next marker handed out is the caller's to free. */
#ifndef WP_BASE_S3XML_H
#define WP_BASE_S3XML_H

#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>

#define WP_S3_LIST_MAX_KEYS 1000000 /* a prefix with more objects is refused */

struct wp_s3_object {
	char *key;
	long long size;
	char etag[80];    /* quotes removed */
};

struct wp_s3_listing {
	struct wp_s3_object *v;
	size_t n, cap;
};

/* One unfinished multipart upload. */
struct wp_s3_upload {
	char *key, *id;
};

struct wp_s3_uploads {
	struct wp_s3_upload *v;
	size_t n, cap;
};

struct wp_s3_part {
	long number;
	long long size;
	char etag[80];    /* quotes removed */
};

struct wp_s3_parts {
	struct wp_s3_part *v;
	size_t n, cap;
};

/* Each reads xml (n bytes, not NUL-terminated) and is pure. -WPE_SOURCE for what is no such page
 * (an <Error>: its code named), -WPE_TOO_BIG past a ceiling (the bytes, the entries of one page,
 * WP_S3_LIST_MAX_KEYS objects in out). */
struct wp_s3_xml {
	/* One ListObjectsV2 page appended to out; *truncated and *next (malloc'd, or NULL) say
	 * whether and where it goes on. An entry whose key is not text, or that has no size, is
	 * left out. */
	int (*list)(const char *xml, size_t n, struct wp_s3_listing *out, bool *truncated,
		    char **next, struct wp_err *err);
	/* One ListMultipartUploads page appended to out; *truncated, and where it goes on
	 * (*next_key, *next_id: malloc'd or NULL). */
	int (*uploads)(const char *xml, size_t n, struct wp_s3_uploads *out, bool *truncated,
		       char **next_key, char **next_id, struct wp_err *err);
	/* One ListParts page: its parts appended to out (free out->v), *truncated and the next
	 * part-number marker. */
	int (*parts)(const char *xml, size_t n, struct wp_s3_parts *out, bool *truncated,
		     long *next, struct wp_err *err);
	/* The code of an <Error> body ("NoSuchBucket"; letters, digits, '.' and '_' kept), or "",
	 * into code (size bytes). Never fails: what is no error body has no code. */
	void (*error_code)(const char *xml, size_t n, char *code, size_t size);
	/* InitiateMultipartUploadResult's UploadId into id (size bytes): false when there is none,
	 * or it is not text that fits. */
	bool (*upload_id)(const char *xml, size_t n, char *id, size_t size);
};

/* An ETag (a header's value or an element's text, n bytes) into dst (size bytes) without its
 * quotes and surrounding blanks, cut to fit. */
void wp_s3_etag_copy(char *dst, size_t size, const char *s, size_t n);

#endif
