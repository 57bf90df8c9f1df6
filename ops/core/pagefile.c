/* ops/core/pagefile.c: an index page in memory while small, else a file read in pieces. */
#include "ops/core/pagefile.h"

#include "base/mem.h"
#include "base/os/os.h"
#include "index/html.h"
#include "index/pep691.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int open_ro(struct wp_page *pg, const char *path, const char *name, const char *what,
		   struct wp_err *err)
{
	/* WP_O_NONBLOCK: a page swapped for a FIFO opens at once, instead of waiting for a
	 * writer, and reads as empty */
	pg->fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC | WP_O_NONBLOCK);
	if (pg->fd < 0)
		return wp_fail(err, -WPE_IO, "cannot read %s'%s': %s", what, name,
			       strerror(errno));
	return 0;
}

int wp_page_open(struct wp_page *pg, const char *path, const char *name, unsigned long long max,
		 struct wp_err *err)
{
	pg->max = max;
	return open_ro(pg, path, name, "the copy of ", err);
}

int wp_page_load(struct wp_page *pg, const char *path, const char *name, unsigned long long max,
		 size_t in_memory, struct wp_err *err)
{
	struct wp_os_stat st;
	int rc;
	pg->max = max;
	if ((rc = open_ro(pg, path, name, "", err)))
		return rc;
	if (wp_os_fstat(pg->fd, &st) < 0) {
		rc = wp_fail(err, -WPE_IO, "cannot read '%s': %s", name, strerror(errno));
		goto out;
	}
	if ((unsigned long long)st.st_size > max) {
		rc = wp_fail(err, -WPE_TOO_BIG, "'%s' is larger than %llu bytes", name, max);
		goto out;
	}
	if ((unsigned long long)st.st_size > in_memory)
		return 0;
	/* read from the descriptor that was measured: the file read is the file sized */
	pg->body = (struct wp_buf)WP_BUF_INIT_MAX(in_memory < max ? in_memory : (size_t)max);
	int r = wp_buf_read_fd(&pg->body, pg->fd);
	if (r == -2 && in_memory < max) {
		/* it grew while read: past memory's share it is read from the file after all */
		wp_buf_free(&pg->body);
		return 0;
	}
	if (r == -1)
		rc = wp_fail(err, -WPE_IO, "cannot read '%s': %s", name, strerror(errno));
	else if (r == -2)
		rc = wp_fail(err, -WPE_TOO_BIG, "'%s' is larger than %llu bytes", name, max);
	wp_os_close(pg->fd);
	pg->fd = -1;
	if (!rc)
		return 0;
out:
	wp_page_release(pg);
	return rc;
}

void wp_page_release(struct wp_page *pg)
{
	if (pg->fd >= 0)
		wp_os_close(pg->fd);
	pg->fd = -1;
	wp_buf_free(&pg->body);
}

int wp_page_read_links(const struct wp_page *pg, bool json, const char *url, const char *project,
		       wp_record_fn *sink, void *ctx, struct wp_index_stats *st,
		       struct wp_err *err)
{
	const char *data = wp_buf_cstr(&pg->body);
	if (json)
		return wp_read_pep691_fd(url, project, pg->fd, pg->max, data, pg->body.len, sink,
					 ctx, st, err);
	return wp_read_html_links_fd(url, project, pg->fd, pg->max, data, pg->body.len, sink, ctx,
				     st, err);
}

int wp_page_read_projects(const struct wp_page *pg, bool json, const char *url,
			  wp_project_fn *sink, void *ctx, struct wp_index_stats *st,
			  struct wp_err *err)
{
	const char *data = wp_buf_cstr(&pg->body);
	if (json)
		return wp_read_pep691_projects_fd(url, pg->fd, pg->max, data, pg->body.len, sink,
						  ctx, st, err);
	return wp_read_html_projects_fd(url, pg->fd, pg->max, data, pg->body.len, sink, ctx, st,
					err);
}

/* The needles split across two pieces are found: each piece starts with the last bytes of the
 * one before. */
int wp_page_json_is_root(int fd, bool *root, const char *url, struct wp_err *err)
{
	enum { BLOCK = 1 << 20, KEEP = 16 };
	char *buf = wp_xmalloc(BLOCK + KEEP);
	bool projects = false, files = false;
	size_t keep = 0;
	int64_t at = 0;
	int rc = 0;
	for (;;) {
		ssize_t n = wp_os_pread(fd, buf + keep, BLOCK, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = wp_fail(err, -WPE_IO, "cannot read the copy of '%s': %s", url,
				     strerror(errno));
			break;
		}
		if (n == 0)
			break;
		at += n;
		size_t len = keep + (size_t)n;
		projects = projects || memmem(buf, len, "\"projects\"", 10);
		files = files || memmem(buf, len, "\"files\"", 7);
		if (files)
			break;
		keep = len < KEEP ? len : KEEP;
		memmove(buf, buf + len - keep, keep);
	}
	free(buf);
	*root = projects && !files;
	return rc;
}

int wp_page_lead(const struct wp_page *pg)
{
	char buf[4096];
	int64_t at = 0;
	if (pg->fd < 0) {
		for (size_t i = 0; i < pg->body.len; i++)
			if (!isspace((unsigned char)pg->body.data[i]))
				return (unsigned char)pg->body.data[i];
		return -1;
	}
	for (;;) {
		ssize_t n = wp_os_pread(pg->fd, buf, sizeof(buf), at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		for (ssize_t i = 0; i < n; i++)
			if (!isspace((unsigned char)buf[i]))
				return (unsigned char)buf[i];
		at += n;
	}
}
