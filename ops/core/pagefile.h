/* ops/core/pagefile.h: an index page to read, in memory while small, else an open file that the
 * readers take in pieces, so memory stays bounded whatever the page's size. The crawl, the
 * suggestions' root pages and the mirror's verifier all read pages through it.
 * Ownership: a struct wp_page owns its fd and body; wp_page_release frees both. */
#ifndef WP_OPS_PAGEFILE_H
#define WP_OPS_PAGEFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "index/record.h"

struct wp_page {
	int fd;                 /* >= 0: the page is this file, read from its start in pieces */
	struct wp_buf body;     /* fd < 0: the page's bytes */
	unsigned long long max; /* the ceiling a reader holds the file to */
};
#define WP_PAGE_INIT { .fd = -1, .body = WP_BUF_INIT, .max = 0 }

/* A page that already outgrew memory (a fetch's spilled copy): path opened to be read in pieces,
 * up to max bytes. -WPE_IO naming name when it cannot be opened. */
int wp_page_open(struct wp_page *pg, const char *path, const char *name, unsigned long long max,
		 struct wp_err *err);

/* The page in the file at path: its bytes in body when it has at most in_memory of them, else
 * the open file (one that grows past in_memory while read is kept open, its bytes dropped).
 * -WPE_TOO_BIG naming name past max; -WPE_IO naming name when it cannot be read. */
int wp_page_load(struct wp_page *pg, const char *path, const char *name, unsigned long long max,
		 size_t in_memory, struct wp_err *err);

void wp_page_release(struct wp_page *pg);

/* index/'s readers on the page, PEP 691 JSON or HTML: a project's links (project as for the
 * readers, may be NULL), or a root's projects. Errors and records as theirs. */
int wp_page_read_links(const struct wp_page *pg, bool json, const char *url, const char *project,
		       wp_record_fn *sink, void *ctx, struct wp_index_stats *st,
		       struct wp_err *err);
int wp_page_read_projects(const struct wp_page *pg, bool json, const char *url,
			  wp_project_fn *sink, void *ctx, struct wp_index_stats *st,
			  struct wp_err *err);

/* A PEP 691 document in a file: a root ("projects", no "files") or a project page, read in
 * pieces. -WPE_IO naming url when the file cannot be read. */
int wp_page_json_is_root(int fd, bool *root, const char *url, struct wp_err *err);

/* The page's first byte that is not white space, or -1 when there is none (or it cannot be
 * read): '{' for a PEP 691 document. */
int wp_page_lead(const struct wp_page *pg);

#endif
