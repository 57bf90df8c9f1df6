/* index/s3xml.c: S3's XML answers (ListObjectsV2, ListMultipartUploads, ListParts, Error,
 * InitiateMultipartUpload) through libxml2's tree reader: no network, no entity loaded, nothing
 * printed; bounded in bytes, entries a page and the length of each text. */
#include "index/s3xml.h"

#include "base/buf.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define KEY_MAX 1024   /* S3's longest key, in bytes */
#define TEXT_MAX 4096  /* a token, marker or ETag is far shorter */

/* The document, or NULL (rc set) for bytes past the ceiling or no libxml2; NULL with rc 0 for bytes
 * that are no well-formed XML (the caller words that). */
static xmlDocPtr read_doc(const char *xml, size_t n, int *rc, struct wp_err *err)
{
	*rc = 0;
	if (n > WP_S3XML_MAX_BYTES) {
		*rc = wp_fail(err, -WPE_TOO_BIG, "an S3 answer of %zu bytes (more than %zu)", n,
			      WP_S3XML_MAX_BYTES);
		return NULL;
	}
	if (!xml || !n || (*rc = wp_lazy_require(WP_LIB_XML, err)))
		return NULL;
	xmlInitParser();
	/* no DTD or entity fetched (NONET, no NOENT), no message on stderr: ops/ words the
	 * failure */
	return xmlReadMemory(xml, (int)n, NULL, NULL,
			     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
				     XML_PARSE_NOCDATA);
}

static bool named(const xmlNode *nd, const char *name)
{
	return nd && nd->type == XML_ELEMENT_NODE && nd->name &&
	       !strcmp((const char *)nd->name, name);
}

static const xmlNode *child(const xmlNode *parent, const char *name)
{
	for (const xmlNode *c = parent ? parent->children : NULL; c; c = c->next)
		if (named(c, name))
			return c;
	return NULL;
}

/* The element's own text (its text children, entities already decoded), into out (reset); false
 * when it has none, or more than out's ceiling. */
static bool text_of(const xmlNode *nd, struct wp_buf *out)
{
	wp_buf_reset(out);
	if (!nd)
		return false;
	for (const xmlNode *c = nd->children; c; c = c->next)
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content &&
		    wp_buf_add(out, c->content, strlen((const char *)c->content)) < 0)
			return false;
	return true;
}

static bool child_text(const xmlNode *parent, const char *name, struct wp_buf *out)
{
	return text_of(child(parent, name), out);
}

static bool number_of(const xmlNode *parent, const char *name, long long *v)
{
	struct wp_buf t = WP_BUF_INIT_MAX(64);
	bool ok = child_text(parent, name, &t) &&
		  wp_str_to_ll(wp_str_trim((struct wp_str){ t.data, t.len }), v);
	wp_buf_free(&t);
	return ok;
}

static bool is_true(const xmlNode *parent, const char *name)
{
	struct wp_buf t = WP_BUF_INIT_MAX(64);
	bool yes = child_text(parent, name, &t) &&
		   wp_str_eq(wp_str_trim((struct wp_str){ t.data, t.len }), "true");
	wp_buf_free(&t);
	return yes;
}

static bool key_text_ok(const struct wp_buf *k)
{
	if (!k->len || k->len > KEY_MAX || memchr(k->data, 0, k->len))
		return false;
	for (size_t i = 0; i < k->len; i++)
		if ((unsigned char)k->data[i] < 0x20 || k->data[i] == 0x7f)
			return false;
	return true;
}

static void code_of(const xmlNode *root, char *code, size_t size)
{
	struct wp_buf t = WP_BUF_INIT_MAX(TEXT_MAX);
	size_t k = 0;
	if (size && named(root, "Error") && child_text(root, "Code", &t))
		for (size_t i = 0; i < t.len && k + 1 < size; i++)
			if (isalnum((unsigned char)t.data[i]) || t.data[i] == '.' ||
			    t.data[i] == '_')
				code[k++] = t.data[i];
	if (size)
		code[k] = 0;
	wp_buf_free(&t);
}

/* -WPE_SOURCE: the answer is no WHAT (an <Error>'s code said). */
static int not_a(const xmlNode *root, const char *what, struct wp_err *err)
{
	char code[64];
	code_of(root, code, sizeof(code));
	return wp_fail(err, -WPE_SOURCE, "the answer is no %s%s%s", what, code[0] ? ": " : "",
		       code);
}

/* The root element when it is named root_name; else NULL with rc set (-WPE_SOURCE naming what). */
static const xmlNode *root_as(xmlDocPtr doc, int *rc, const char *root_name, const char *what,
			      struct wp_err *err)
{
	const xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
	if (!*rc && !named(root, root_name)) {
		*rc = not_a(root, what, err);
		return NULL;
	}
	return *rc ? NULL : root;
}

static int too_many(const char *what, struct wp_err *err)
{
	return wp_fail(err, -WPE_TOO_BIG, "an S3 %s page of more than %d entries", what,
		       WP_S3XML_MAX_ENTRIES);
}

int wp_s3xml_list_parse(const char *xml, size_t n, struct wp_s3_listing *out, bool *truncated,
			char **next, struct wp_err *err)
{
	int rc;
	*truncated = false;
	*next = NULL;
	xmlDocPtr doc = read_doc(xml, n, &rc, err);
	const xmlNode *root = root_as(doc, &rc, "ListBucketResult", "object listing", err);
	struct wp_buf key = WP_BUF_INIT_MAX(KEY_MAX + 1), etag = WP_BUF_INIT_MAX(TEXT_MAX);
	size_t entries = 0;
	for (const xmlNode *c = root ? root->children : NULL; c && !rc; c = c->next) {
		if (!named(c, "Contents"))
			continue;
		if (++entries > WP_S3XML_MAX_ENTRIES) {
			rc = too_many("object listing", err);
			break;
		}
		long long sz = -1;
		/* an entry with a key that is not text, or no size, is no object of ours: left
		 * out */
		if (!child_text(c, "Key", &key) || !key_text_ok(&key) ||
		    !number_of(c, "Size", &sz) || sz < 0)
			continue;
		if (out->n >= WP_S3_LIST_MAX_KEYS) {
			rc = wp_fail(err, -WPE_TOO_BIG, "more than %d objects under the prefix",
				     WP_S3_LIST_MAX_KEYS);
			break;
		}
		struct wp_s3_object *o = wp_vec_add(out);
		memset(o, 0, sizeof(*o));
		o->key = wp_xstrdup(wp_buf_cstr(&key));
		o->size = sz;
		if (child_text(c, "ETag", &etag))
			wp_s3_etag_copy(o->etag, sizeof(o->etag), etag.data ? etag.data : "",
					etag.len);
	}
	if (!rc) {
		struct wp_buf t = WP_BUF_INIT_MAX(TEXT_MAX);
		*truncated = is_true(root, "IsTruncated");
		if (*truncated && child_text(root, "NextContinuationToken", &t) && t.len &&
		    !memchr(t.data, 0, t.len))
			*next = wp_buf_detach(&t, NULL);
		wp_buf_free(&t);
		if (*truncated && !*next)
			rc = wp_fail(err, -WPE_SOURCE,
				     "a truncated object listing without a continuation token");
	}
	wp_buf_free(&key);
	wp_buf_free(&etag);
	if (doc)
		xmlFreeDoc(doc);
	return rc;
}

int wp_s3xml_uploads_parse(const char *xml, size_t n, struct wp_s3_uploads *out, bool *truncated,
			   char **next_key, char **next_id, struct wp_err *err)
{
	int rc;
	*truncated = false;
	*next_key = *next_id = NULL;
	xmlDocPtr doc = read_doc(xml, n, &rc, err);
	const xmlNode *root = root_as(doc, &rc, "ListMultipartUploadsResult",
				      "listing of multipart uploads", err);
	struct wp_buf key = WP_BUF_INIT_MAX(KEY_MAX + 1), id = WP_BUF_INIT_MAX(KEY_MAX + 1);
	size_t entries = 0;
	for (const xmlNode *c = root ? root->children : NULL; c && !rc; c = c->next) {
		if (!named(c, "Upload"))
			continue;
		if (++entries > WP_S3XML_MAX_ENTRIES) {
			rc = too_many("multipart upload listing", err);
			break;
		}
		if (child_text(c, "Key", &key) && key_text_ok(&key) &&
		    child_text(c, "UploadId", &id) && key_text_ok(&id) &&
		    out->n < WP_S3_LIST_MAX_KEYS)
			wp_vec_push(out, (struct wp_s3_upload){ wp_xstrdup(wp_buf_cstr(&key)),
								wp_xstrdup(wp_buf_cstr(&id)) });
	}
	if (!rc) {
		*truncated = is_true(root, "IsTruncated");
		if (*truncated) {
			if (child_text(root, "NextKeyMarker", &key) && key_text_ok(&key))
				*next_key = wp_xstrdup(wp_buf_cstr(&key));
			if (child_text(root, "NextUploadIdMarker", &id) && key_text_ok(&id))
				*next_id = wp_xstrdup(wp_buf_cstr(&id));
			if (!*next_key)
				rc = wp_fail(err, -WPE_SOURCE,
					     "a truncated listing of multipart uploads without a next key marker");
		}
	}
	wp_buf_free(&key);
	wp_buf_free(&id);
	if (doc)
		xmlFreeDoc(doc);
	return rc;
}

int wp_s3xml_parts_parse(const char *xml, size_t n, struct wp_s3_parts *out, bool *truncated,
			 long *next, struct wp_err *err)
{
	int rc;
	*truncated = false;
	*next = 0;
	xmlDocPtr doc = read_doc(xml, n, &rc, err);
	const xmlNode *root = root_as(doc, &rc, "ListPartsResult", "listing of parts", err);
	struct wp_buf etag = WP_BUF_INIT_MAX(TEXT_MAX);
	size_t entries = 0;
	for (const xmlNode *c = root ? root->children : NULL; c && !rc; c = c->next) {
		if (!named(c, "Part"))
			continue;
		if (++entries > WP_S3XML_MAX_ENTRIES) {
			rc = too_many("part listing", err);
			break;
		}
		long long num = 0, size = -1;
		if (number_of(c, "PartNumber", &num) && num >= 1 && num <= 10000 &&
		    number_of(c, "Size", &size) && size >= 0 && child_text(c, "ETag", &etag) &&
		    out->n < 10000) {
			struct wp_s3_part *x = wp_vec_add(out);
			x->number = (long)num;
			x->size = size;
			wp_s3_etag_copy(x->etag, sizeof(x->etag), etag.data ? etag.data : "",
					etag.len);
		}
	}
	if (!rc) {
		long long m = 0;
		*truncated = is_true(root, "IsTruncated");
		if (*truncated) {
			if (number_of(root, "NextPartNumberMarker", &m) && m >= 1 && m < 10000)
				*next = (long)m;
			else
				rc = wp_fail(err, -WPE_SOURCE,
					     "a truncated listing of parts without a next part number");
		}
	}
	wp_buf_free(&etag);
	if (doc)
		xmlFreeDoc(doc);
	return rc;
}

void wp_s3xml_error_code(const char *xml, size_t n, char *code, size_t size)
{
	int rc;
	struct wp_err ignored = WP_ERR_INIT;
	if (size)
		code[0] = 0;
	xmlDocPtr doc = read_doc(xml, n, &rc, &ignored);
	if (doc) {
		code_of(xmlDocGetRootElement(doc), code, size);
		xmlFreeDoc(doc);
	}
}

bool wp_s3xml_upload_id(const char *xml, size_t n, char *id, size_t size)
{
	int rc;
	struct wp_err ignored = WP_ERR_INIT;
	struct wp_buf t = WP_BUF_INIT_MAX(KEY_MAX + 1);
	bool ok = false;
	if (size)
		id[0] = 0;
	xmlDocPtr doc = read_doc(xml, n, &rc, &ignored);
	const xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
	if (named(root, "InitiateMultipartUploadResult") && child_text(root, "UploadId", &t) &&
	    key_text_ok(&t) && t.len < size) {
		memcpy(id, t.data, t.len);
		id[t.len] = 0;
		ok = true;
	}
	wp_buf_free(&t);
	if (doc)
		xmlFreeDoc(doc);
	return ok;
}

const struct wp_s3_xml wp_s3xml_reader = {
	.list = wp_s3xml_list_parse,
	.uploads = wp_s3xml_uploads_parse,
	.parts = wp_s3xml_parts_parse,
	.error_code = wp_s3xml_error_code,
	.upload_id = wp_s3xml_upload_id,
};
