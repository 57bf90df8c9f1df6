/* net/http.c: fetching pages and sources into a capped buffer or a file, one or many at once. */
#include "net/http.h"

#include "base/mem.h"
#include "net/xfer.h"
#include "base/os/os.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where one fetch's body goes: the result buffer, or a ".part" file renamed on success. */
struct sink {
	struct wp_buf *buf;
	int fd;
	char *part;
	const char *path;
	size_t spill_after;   /* > 0: buf until it would pass this, then the file (opened then) */
	bool spilled;
};

static int sink_open(struct sink *k, const char *path, struct wp_err *err);
static int write_all(struct sink *k, const void *p, size_t n, struct wp_err *err);

/* A body past spill_after leaves memory for the file: what was kept goes first. Big index pages
 * are read from there in pieces, so a crawl's memory does not grow with them. */
static int spill(struct sink *k, struct wp_err *err)
{
	int rc = sink_open(k, k->path, err);
	if (!rc)
		rc = write_all(k, k->buf->data, k->buf->len, err);
	k->spilled = true;
	wp_buf_free(k->buf);
	return rc;
}

static int write_all(struct sink *k, const void *p, size_t n, struct wp_err *err)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = wp_os_write(k->fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return wp_fail(err, -WPE_IO, "cannot write '%s': %s", k->part,
				       strerror(errno));
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int sink_write(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	struct sink *k = ctx;
	int rc;

	if (k->fd < 0 && k->spill_after && k->buf->len + n > k->spill_after && (rc = spill(k, err)))
		return rc;
	if (k->fd < 0) {
		if (wp_buf_add(k->buf, p, n) < 0)
			return wp_fail(err, -WPE_TOO_BIG, "body is larger than %zu bytes",
				       k->buf->max);
		return 0;
	}
	return write_all(k, p, n, err);
}

static int sink_reset(void *ctx, long long offset, struct wp_err *err)
{
	struct sink *k = ctx;

	if (k->fd < 0) {
		if ((size_t)offset < k->buf->len)
			k->buf->len = (size_t)offset;
		if (k->buf->data)
			k->buf->data[k->buf->len] = 0;
		return 0;
	}
	if (wp_os_ftruncate(k->fd, (off_t)offset) < 0 ||
	    wp_os_lseek(k->fd, (off_t)offset, SEEK_SET) < 0)
		return wp_fail(err, -WPE_IO, "cannot truncate '%s': %s", k->part, strerror(errno));
	return 0;
}

static int sink_open(struct sink *k, const char *path, struct wp_err *err)
{
	k->path = path;
	k->part = wp_xasprintf("%s.part", path);
	k->fd = wp_os_open(k->part, WP_O_WRONLY | WP_O_CREAT | WP_O_TRUNC | WP_O_CLOEXEC, 0644);
	if (k->fd < 0)
		return wp_fail(err, -WPE_IO, "cannot create '%s': %s", k->part, strerror(errno));
	return 0;
}

/* Close the file; keep it under its real name only when a new body arrived. */
static int sink_close(struct sink *k, bool keep, struct wp_err *err)
{
	int rc = 0;

	if (k->fd >= 0 && wp_os_close(k->fd) < 0 && keep)
		rc = wp_fail(err, -WPE_IO, "cannot write '%s': %s", k->part, strerror(errno));
	k->fd = -1;
	if (k->part) {
		if (keep && !rc && wp_os_rename(k->part, k->path) < 0)
			rc = wp_fail(err, -WPE_IO, "cannot rename '%s' to '%s': %s", k->part,
				     k->path, strerror(errno));
		if (!keep || rc)
			wp_os_unlink(k->part);
	}
	free(k->part);
	k->part = NULL;
	return rc;
}

int wp_http_get_many(const struct wp_http_req *reqs, struct wp_http_res *res, size_t n,
		  struct wp_err *errs)
{
	struct wp_xfer *xs = wp_xcalloc(n ? n : 1, sizeof(*xs));
	struct sink *sinks = wp_xcalloc(n ? n : 1, sizeof(*sinks));
	size_t *map = wp_xcalloc(n ? n : 1, sizeof(*map));
	int *early = wp_xcalloc(n ? n : 1, sizeof(*early));
	size_t m = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		const struct wp_http_req *q = &reqs[i];
		struct wp_err *err = errs ? &errs[i] : NULL;
		size_t max = q->max_bytes ? q->max_bytes : WP_HTTP_MAX_DEFAULT;

		memset(&res[i], 0, sizeof(res[i]));
		res[i].body = (struct wp_buf)WP_BUF_INIT_MAX(max);
		res[i].range_total = -1;
		if (err)
			wp_err_clear(err);
		sinks[i].buf = &res[i].body;
		sinks[i].fd = -1;
		sinks[i].spill_after = q->to_path ? q->spill_after : 0;
		if (sinks[i].spill_after)
			sinks[i].path = q->to_path; /* opened when the body outgrows memory */
		else if (q->to_path && (early[i] = sink_open(&sinks[i], q->to_path, err)) < 0) {
			sink_close(&sinks[i], false, NULL);
			continue;
		}
		struct wp_xfer *x = &xs[m];
		x->url = q->url;
		x->verb = "fetch";
		x->if_none_match = q->etag;
		x->if_modified_since = q->last_modified;
		x->accept = q->accept;
		/* a page is small and cheap to fetch again, and a Range over an encoded body is
		 * not portable, so pages restart instead of resuming, and a part is not encoded */
		x->decode = !q->range;
		x->resume = false;
		x->range = q->range;
		x->max_bytes = max > (size_t)LLONG_MAX ? LLONG_MAX : (long long)max;
		x->expect_size = -1;
		x->policy = q->policy;
		x->write = sink_write;
		x->reset = sink_reset;
		x->ctx = &sinks[i];
		x->err = err;
		map[m++] = i;
	}

	wp_xfer_run(xs, m, NULL);

	for (size_t j = 0; j < m; j++) {
		size_t i = map[j];
		struct wp_xfer *x = &xs[j];
		struct wp_http_res *r = &res[i];
		int xrc = x->result;

		if (sinks[i].part) {
			int crc = sink_close(&sinks[i], !xrc && !x->not_modified, x->err);
			if (!xrc)
				xrc = crc;
		}
		r->spilled = !xrc && sinks[i].spilled;
		r->status = x->status;
		r->not_modified = !xrc && x->not_modified;
		r->tries = x->tries;
		r->partial = !xrc && x->status == 206 && x->range;
		r->range_start = r->partial ? x->range_start : 0;
		r->range_total = r->partial ? x->range_total : -1;
		r->etag = x->etag;
		r->last_modified = x->last_modified;
		r->content_type = x->content_type;
		r->effective_url = x->effective_url;
		x->etag = x->last_modified = x->content_type = x->effective_url = NULL;
		wp_xfer_release(x); /* what is left: the validator */
		/* a 304 need not repeat the validators; the ones we sent still hold */
		if (r->not_modified && !r->etag && reqs[i].etag)
			r->etag = wp_xstrdup(reqs[i].etag);
		if (r->not_modified && !r->last_modified && reqs[i].last_modified)
			r->last_modified = wp_xstrdup(reqs[i].last_modified);
		if (xrc)
			wp_buf_free(&r->body);
		early[i] = xrc;
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = early[i];

	free(early);
	free(map);
	free(sinks);
	free(xs);
	return rc;
}

int wp_http_get(const struct wp_http_req *req, struct wp_http_res *res, struct wp_err *err)
{
	struct wp_err local = WP_ERR_INIT;
	int rc = wp_http_get_many(req, res, 1, &local);

	if (rc && err && !err->code)
		*err = local;
	return rc;
}

void wp_http_res_release(struct wp_http_res *res)
{
	wp_buf_free(&res->body);
	free(res->etag);
	free(res->last_modified);
	free(res->content_type);
	free(res->effective_url);
	res->etag = res->last_modified = res->content_type = res->effective_url = NULL;
}
