/* ops/core/remote_metadata.c: fetch a wheel's tail, central directory and METADATA member by range,
 * then decode. */
#include "ops/core/remote_metadata.h"

#include "base/buf.h"
#include "base/mem.h"
#include "net/http.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"
#include "verify/metadata.h"
#include "verify/zipmeta.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* how far before the tail a zip64 end record may lie (it is normally right before its locator) */
#define MAX_Z64_GAP ((uint64_t)1 << 20)

/* Bytes [start, start + len) of the file, owned. */
struct span {
	unsigned char *p;
	size_t len;
	uint64_t start;
};

struct rm {
	const struct wp_net_conf *net;
	const char *url;
	const char *file;        /* the wheel's file name, for messages */
	uint64_t size;           /* the file's size, once the first answer told it */
	bool whole;              /* the server sent the whole file: nothing more to ask */
	struct wp_remote_stats *st;
	struct wp_err *err;
};

static void span_free(struct span *s)
{
	free(s->p);
	memset(s, 0, sizeof(*s));
}

/* A pointer to bytes [off, off + n) of the file when s holds them, else NULL. */
static const unsigned char *span_at(const struct span *s, uint64_t off, uint64_t n)
{
	if (off < s->start || off - s->start > s->len || n > s->len - (off - s->start))
		return NULL;
	return s->p + (off - s->start);
}

/* One request. suffix: the last n bytes (the first request, which also learns the size and
 * takes a whole body from a server without ranges); else bytes [start, start + n), which must
 * come back exactly. *out is a new span. */
static int get(struct rm *r, bool suffix, uint64_t start, uint64_t n, struct span *out)
{
	char range[64];
	struct wp_http_res res;
	struct wp_err fe = WP_ERR_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	if (suffix)
		snprintf(range, sizeof(range), "-%" PRIu64, n);
	else
		snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, start, start + n - 1);
	struct wp_http_req req = {
		.policy = { .conf = r->net },
		.url = r->url,
		.range = range,
		.max_bytes = suffix ? WP_REMOTEMETA_MAX_WHOLE : (size_t)n,
	};
	rc = wp_http_get(&req, &res, &fe);
	if (r->st) {
		r->st->requests += res.tries;
		r->st->bytes += (long long)res.body.len;
		if (res.status)
			r->st->status = res.status;
	}
	if (rc == -WPE_TOO_BIG && suffix && res.status == 200) {
		rc = wp_fail(r->err, rc,
			     "'%s' does not serve byte ranges and is larger than %zu bytes; "
			     "download it whole",
			     r->url, WP_REMOTEMETA_MAX_WHOLE);
		goto out;
	}
	if (rc == -WPE_TOO_BIG) {
		rc = wp_fail(r->err, -WPE_NET,
			     "'%s' answered bytes %s with more than was asked for (%ld)", r->url,
			     range, res.status);
		goto out;
	}
	if (rc) {
		rc = wp_fail(r->err, rc, "%s", fe.msg);
		goto out;
	}

	if (!res.partial) {
		/* the whole file: allowed for the first request only, under its cap */
		if (!suffix) {
			rc = wp_fail(r->err, -WPE_NET, "'%s' answered bytes %s with the whole file",
				     r->url, range);
			goto out;
		}
		if (r->size && (uint64_t)res.body.len != r->size) {
			rc = wp_fail(r->err, -WPE_INTEGRITY, "'%s' is %zu bytes, expected %" PRIu64,
				     r->url, res.body.len, r->size);
			goto out;
		}
		r->size = res.body.len;
		r->whole = true;
		out->start = 0;
	} else {
		uint64_t got = res.body.len, at = (uint64_t)res.range_start;
		uint64_t total = res.range_total >= 0 ? (uint64_t)res.range_total :
				 suffix               ? at + got :
							r->size;
		if (!total && !got) {
			rc = wp_fail(r->err, -WPE_INTEGRITY, "'%s' is empty", r->url);
			goto out;
		}
		if (r->size && total != r->size) {
			rc = wp_fail(r->err, -WPE_INTEGRITY,
				     "'%s' is %" PRIu64 " bytes, expected %" PRIu64, r->url, total,
				     r->size);
			goto out;
		}
		uint64_t want_at = suffix ? (total > n ? total - n : 0) : start;
		uint64_t want_n = suffix ? total - want_at : n;
		if (at != want_at || got != want_n || at + got > total) {
			rc = wp_fail(r->err, -WPE_NET,
				     "'%s' answered bytes %s with bytes %" PRIu64 "-%" PRIu64 " of "
				     "%" PRIu64,
				     r->url, range, at, at + got - 1, total);
			goto out;
		}
		r->size = total;
		out->start = at;
	}
	out->p = (unsigned char *)wp_buf_detach(&res.body, &out->len);
out:
	wp_http_res_release(&res);
	return rc;
}

/* Grow s back to start at from (fetching [from, s->start)). */
static int extend_back(struct rm *r, struct span *s, uint64_t from)
{
	struct span more;
	int rc;
	if (from >= s->start)
		return 0;
	if ((rc = get(r, false, from, s->start - from, &more)))
		return rc;
	more.p = wp_xrealloc(more.p, more.len + s->len + 1);
	memcpy(more.p + more.len, s->p, s->len);
	more.len += s->len;
	span_free(s);
	*s = more;
	return 0;
}

/* Grow s forward to end at to (fetching [s->start + s->len, to)). */
static int extend_forward(struct rm *r, struct span *s, uint64_t to)
{
	struct span more;
	uint64_t have = s->start + s->len;
	int rc;
	if (to <= have)
		return 0;
	if ((rc = get(r, false, have, to - have, &more)))
		return rc;
	s->p = wp_xrealloc(s->p, s->len + more.len + 1);
	memcpy(s->p + s->len, more.p, more.len);
	s->len += more.len;
	span_free(&more);
	return 0;
}

/* The METADATA must parse and name this wheel's project and version. */
static int check_metadata(struct rm *r, const struct wp_wheelname *wn, const char *member,
			  const char *text, size_t len)
{
	struct wp_metadata md;
	struct wp_err sub = WP_ERR_INIT;
	struct wp_buf norm = WP_BUF_INIT;
	int rc = 0;

	if (wp_metadata_parse(text, len, &md, &sub))
		return wp_fail(r->err, -WPE_PARSE, "'%s': member '%s': %s", r->file, member,
			       sub.msg);
	wp_project_name_normalize(md.name, strlen(md.name), &norm);
	if (strcmp(wp_buf_cstr(&norm), wn->project) != 0 ||
	    !wp_version_same(md.version, wn->version))
		rc = wp_fail(r->err, -WPE_INTEGRITY,
			     "'%s': member '%s' says '%s %s', the file name says '%s %s'", r->file,
			     member, md.name, md.version, wn->name, wn->version);
	wp_buf_free(&norm);
	wp_metadata_release(&md);
	return rc;
}

static int read_metadata(struct rm *r, const struct wp_wheelname *wn, char **text)
{
	struct span tail = { 0 }, cdpart = { 0 }, mem = { 0 };
	struct wp_zip_end end;
	struct wp_zip_member m;
	const unsigned char *cd, *entry;
	size_t data_at = 0, text_len = 0;
	uint64_t need = 0;
	int rc;

	/* 1: the tail, which holds the end records and, for most wheels, the central directory */
	if ((rc = get(r, true, 0, WP_ZIPMETA_TAIL, &tail)))
		goto out;
	for (int i = 0;; i++) {
		if ((rc = wp_zip_end_find(r->file, tail.p, tail.len, r->size, &end, r->err)))
			goto out;
		if (!end.need_more)
			break;
		if (i == 2 || tail.start - end.need_from > MAX_Z64_GAP) {
			rc = wp_fail(r->err, -WPE_INTEGRITY,
				     "'%s': its zip64 end record at offset %" PRIu64
				     " is too far from the end",
				     r->file, end.need_from);
			goto out;
		}
		if ((rc = extend_back(r, &tail, end.need_from)))
			goto out;
	}

	/* 2: the part of the central directory before the tail */
	uint64_t cd_end = end.cd_offset + end.cd_size;
	if (!(cd = span_at(&tail, end.cd_offset, end.cd_size))) {
		if (cd_end >= tail.start) {
			if ((rc = extend_back(r, &tail, end.cd_offset)))
				goto out;
			cd = span_at(&tail, end.cd_offset, end.cd_size);
		} else {
			/* something lies between the directory and the end records: fetch just
			 * it */
			if ((rc = get(r, false, end.cd_offset, end.cd_size, &cdpart)))
				goto out;
			cd = span_at(&cdpart, end.cd_offset, end.cd_size);
		}
	}
	if (!cd) {
		rc = wp_fail(r->err, -WPE_INTEGRITY,
			     "'%s': the central directory is not where its end record "
			     "says",
			     r->file);
		goto out;
	}
	if ((rc = wp_zip_find_metadata(r->file, cd, (size_t)end.cd_size, &end, wn->project,
				       wn->version, &m, r->err)))
		goto out;

	/* 3: its local header and data, with slack for the local extra field (checked below) */
	uint64_t want = 30 + (uint64_t)m.name_len + WP_REMOTEMETA_SLACK + m.comp_size;
	if (want > end.cd_offset - m.local_offset)
		want = end.cd_offset - m.local_offset;
	const struct span *src = &tail;
	if (!span_at(&tail, m.local_offset, 1)) {
		if (m.local_offset + want >= tail.start) {
			if ((rc = extend_back(r, &tail, m.local_offset)))
				goto out;
		} else {
			if ((rc = get(r, false, m.local_offset, want, &mem)))
				goto out;
			src = &mem;
		}
	}
	for (int i = 0;; i++) {
		uint64_t avail = src->start + src->len - m.local_offset;
		entry = span_at(src, m.local_offset, avail);
		if ((rc = wp_zip_local_data(r->file, entry, (size_t)avail, &m, &data_at, &need,
					    r->err)))
			goto out;
		if (!need)
			break;
		if (i == 1 || src != &mem || need > end.cd_offset - m.local_offset) {
			rc = wp_fail(r->err, -WPE_INTEGRITY,
				     "'%s': member '%s' runs past the start of the central "
				     "directory",
				     r->file, m.name);
			goto out;
		}
		if ((rc = extend_forward(r, &mem, m.local_offset + need)))
			goto out;
	}
	if ((uint64_t)data_at + m.comp_size > end.cd_offset - m.local_offset) {
		rc = wp_fail(r->err, -WPE_INTEGRITY,
			     "'%s': member '%s' runs past the start of the central "
			     "directory",
			     r->file, m.name);
		goto out;
	}
	if ((rc = wp_zip_member_decode(r->file, entry + data_at, (size_t)m.comp_size, &m, text,
				       &text_len, r->err)))
		goto out;
	if ((rc = check_metadata(r, wn, m.name, *text, text_len))) {
		free(*text);
		*text = NULL;
	}
out:
	span_free(&tail);
	span_free(&cdpart);
	span_free(&mem);
	return rc;
}

int wp_remote_metadata(const struct wp_net_conf *net, const char *url, const char *filename,
		       long long size_or_minus1, char **metadata_text, struct wp_remote_stats *st,
		       struct wp_err *err)
{
	struct wp_wheelname wn;
	const char *slash = strrchr(filename, '/');
	const char *base = slash ? slash + 1 : filename;
	struct rm r = {
		.net = net,
		.url = url,
		.file = base,
		.size = size_or_minus1 > 0 ? (uint64_t)size_or_minus1 : 0,
		.st = st,
		.err = err,
	};
	int rc;

	*metadata_text = NULL;
	if (st)
		memset(st, 0, sizeof(*st));
	if ((rc = wp_wheelname_parse(base, &wn, err)))
		return rc;
	rc = read_metadata(&r, &wn, metadata_text);
	wp_wheelname_release(&wn);
	return rc;
}
