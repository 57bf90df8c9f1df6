/* ops/core/metadata.c: a picked wheel's Requires-Dist: catalog, PEP 658, range read, or the
 * wheel. */
#include "ops/core/metadata.h"

#include "base/os/os.h"
#include "index/localsrc.h"
#include "base/buf.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/url.h"
#include "base/vec.h"
#include "net/http.h"
#include "ops/core/fetch.h"
#include "ops/core/remote_metadata.h"
#include "verify/hash.h"
#include "verify/metadata.h"
#include "verify/wheel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void wp_depmeta_release(struct wp_depmeta *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->reqs[i]);
	free(m->reqs);
	free(m->requires_python);
	free(m->source);
	memset(m, 0, sizeof(*m));
}

static void push(struct wp_depmeta *m, const char *s, size_t n)
{
	wp_vec_push_fields(m->reqs, m->n, m->cap, wp_xstrndup(s, n));
}

static void push_all(struct wp_depmeta *m, const struct wp_metadata *meta, const char *source)
{
	for (size_t i = 0; i < meta->n_requires_dist; i++)
		push(m, meta->requires_dist[i], strlen(meta->requires_dist[i]));
	m->requires_python = meta->requires_python ? wp_xstrdup(meta->requires_python) : NULL;
	m->source = wp_xstrdup(source);
}

static int from_catalog(void *vctx, const char *requires_python, const char *requires_dist)
{
	struct wp_depmeta *m = vctx;
	m->requires_python = requires_python && *requires_python ? wp_xstrdup(requires_python) :
								   NULL;
	for (const char *p = requires_dist; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n)
			push(m, p, n);
		p = nl ? nl + 1 : p + n;
	}
	m->source = wp_xstrdup("catalog");
	return 0;
}

/* checked: m is the proven wheel's own METADATA; else what a PEP 658 file or a Range read claimed,
 * which the wheel is held to when it is fetched (ops/core/fetch.c). */
static int save(const struct wp_depmeta_opts *o, const char *url, const struct wp_depmeta *m,
		bool checked, struct wp_err *err)
{
	struct wp_buf all = WP_BUF_INIT;
	if (o->cat->read_only)
		return 0; /* a catalog we may not write: read again next time */
	for (size_t i = 0; i < m->n; i++)
		wp_buf_printf(&all, "%s\n", m->reqs[i]);
	int rc = wp_catalog_metadata_put(o->cat, url, m->requires_python, wp_buf_cstr(&all),
					 checked, err);
	wp_buf_free(&all);
	return rc;
}

/* PEP 658: URL + ".metadata", checked against the hash the index gave. 1 read, 0 not read
 * (the caller tries the next way), or -WPE_INTEGRITY for a file that is not what the index said. */
static int from_pep658(const struct wp_net_conf *net, const struct wp_candidate *c,
		       const char *core_metadata, struct wp_depmeta *m, struct wp_err *err)
{
	char *url = wp_xasprintf("%s.metadata", c->url);
	struct wp_http_req req = { .url = url, .max_bytes = 16 << 20, .policy = { .conf = net } };
	struct wp_http_res res;
	struct wp_err fe = WP_ERR_INIT;
	int rc = 0;
	if (wp_http_get(&req, &res, &fe) == 0) {
		char hex[65] = "";
		struct wp_hasher h;
		if (wp_hasher_init(&h, WP_HASH_SHA256, &fe) == 0) {
			wp_hasher_update(&h, res.body.data, res.body.len);
			wp_hasher_final(&h, hex, NULL, &fe);
			wp_hasher_release(&h);
		}
		const char *want = !strncmp(core_metadata, "sha256=", 7) ? core_metadata + 7 : NULL;
		struct wp_metadata meta;
		if (want && strcasecmp(want, hex) != 0) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': sha256 mismatch: expected %s, got %s", url, want, hex);
		} else if (wp_metadata_parse(wp_buf_cstr(&res.body), res.body.len, &meta, &fe) ==
			   0) {
			push_all(m, &meta, "PEP 658 metadata");
			wp_metadata_release(&meta);
			rc = 1;
		}
	}
	wp_http_res_release(&res);
	free(url);
	return rc;
}

/* The wheel's METADATA member read with a few range requests (its tail, central directory and
 * that member) instead of the whole file. 1 read; 0 on a failure the whole wheel may get past
 * (the caller then downloads it, and it is proven whole: sha256, RECORD, where this read is only
 * checked by CRC-32); -WPE_NET when the server says the file is not there (404, 410): nothing
 * would get it, and the message says so rather than what the index lacks. */
static int from_range(const struct wp_net_conf *net, const struct wp_candidate *c,
		      struct wp_depmeta *m, struct wp_err *err)
{
	char *text = NULL;
	struct wp_err re = WP_ERR_INIT;
	struct wp_remote_stats rs;
	struct wp_metadata meta;
	int rc = 0;
	if (strncasecmp(c->url, "http://", 7) != 0 && strncasecmp(c->url, "https://", 8) != 0)
		return 0;
	if (wp_remote_metadata(net, c->url, c->filename, c->size > 0 ? c->size : -1, &text, &rs,
			       &re) == 0 &&
	    wp_metadata_parse(text, strlen(text), &meta, &re) == 0) {
		push_all(m, &meta, "the wheel's METADATA, read by range");
		wp_metadata_release(&meta);
		rc = 1;
	} else if (rs.status == 404 || rs.status == 410) {
		rc = wp_fail(err, -WPE_NET,
			     "'%s' is not found at '%s' (HTTP %ld): the index lists a file its server "
			     "does not have",
			     c->filename, c->url, rs.status);
	}
	free(text);
	return rc;
}

/* The network ways, in order; no catalog, so that threads may run it. 1 read, 0 not, < 0 error. */
static int from_network(const struct wp_net_conf *net, const struct wp_candidate *c,
			const char *core_metadata, struct wp_depmeta *m, struct wp_err *err)
{
	int rc;
	if (core_metadata && (rc = from_pep658(net, c, core_metadata, m, err)) != 0)
		return rc;
	return from_range(net, c, m, err);
}

/* A wheel on this machine (a file:// link of a local index): read where it lies, held to the
 * index's sha256 when it gives one, instead of copied into the store, so a dry run over a local
 * folder needs no download and leaves the cache as it was. 1 read, 0 not a local file, < 0
 * error. */
static int from_local(const struct wp_candidate *c, struct wp_depmeta *m, struct wp_err *err)
{
	char *path = NULL;
	struct wp_err de = WP_ERR_INIT;
	/* wp_local_path: file:///C:/x is C:/x on Windows */
	if (!wp_local_is_file_url(c->url) || wp_local_path(c->url, &path, &de) < 0 ||
	    !wp_os_path_is_abs(path)) {
		free(path);
		return 0;
	}
	int rc = 0;
	if (c->sha256) {
		char sha[WP_SHA256_HEX_LEN + 1];
		long long size;
		if ((rc = wp_hash_file(path, sha, &size, err)))
			goto out;
		if (strcasecmp(sha, c->sha256)) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s' has sha256 %s, its index says %s",
				     path, sha, c->sha256);
			goto out;
		}
	}
	struct wp_wheel_info info;
	memset(&info, 0, sizeof(info));
	if ((rc = wp_wheel_verify_named(path, c->filename, NULL, &info, err)))
		goto out;
	for (size_t i = 0; i < info.n_requires_dist; i++)
		push(m, info.requires_dist[i], strlen(info.requires_dist[i]));
	m->requires_python = info.requires_python ? wp_xstrdup(info.requires_python) : NULL;
	m->source = wp_xstrdup("the wheel's METADATA, read in place");
	wp_wheel_info_release(&info);
	rc = 1;
out:
	free(path);
	return rc;
}

/* Wheels fetched into this store are held to what this catalog says they need (see
 * struct wp_store's catalog): a resolution that read metadata here fetches with that check. */
static void attach(const struct wp_depmeta_opts *o)
{
	if (o->store && o->cat && !o->store->catalog)
		o->store->catalog = o->cat;
}

int wp_depmeta_get(const struct wp_depmeta_opts *o, const struct wp_candidate *c,
		   const char *core_metadata, struct wp_depmeta *m, struct wp_err *err)
{
	bool found = false;
	int rc;
	attach(o);
	if ((rc = wp_catalog_metadata_get(o->cat, c->url, from_catalog, m, &found, err)) || found)
		return rc;
	/* the network ways and the wheel itself: transfers, hashes, the zip */
	if ((rc = wp_lazy_require(WP_LIB_CRYPTO | WP_LIB_ARCHIVE | (o->offline ? 0 : WP_LIB_CURL),
				  err)))
		return rc;
	if (!o->offline) {
		if ((rc = from_network(o->net, c, core_metadata, m, err)) < 0)
			return rc;
		if (rc > 0)
			return save(o, c->url, m, false, err);
	}
	if ((rc = from_local(c, m, err)) != 0)
		return rc < 0 ? rc : save(o, c->url, m, c->sha256 != NULL, err);
	if (!o->store) {
		char size[32] = "";
		if (c->size > 0)
			snprintf(size, sizeof(size), ", %.1f MB", (double)c->size / 1e6);
		return wp_fail(err, -WPE_USAGE,
			       "'%s': its index offers no PEP 658 metadata and no Range reads, so only the "
			       "whole wheel%s would say what it needs; a dry run downloads it only with "
			       "--allow-full-downloads",
			       c->filename, size);
	}
	struct wp_fetch_item it = {
		.url = c->url,
		.filename = c->filename,
		.sha256 = c->sha256,
		.size = c->size,
		.check = WP_FETCH_CHECK_WHEEL,
	};
	struct wp_fetch_opts fo = { .offline = o->offline, .net = o->net };
	if ((rc = wp_fetch_files(o->store, &it, 1, &fo, err))) {
		wp_err_prefix(err, "reading the dependencies of '%s'", c->filename);
		wp_fetch_item_release(&it);
		return rc;
	}
	struct wp_wheel_info info;
	memset(&info, 0, sizeof(info));
	rc = wp_wheel_verify_named(it.path, c->filename, NULL, &info, err);
	if (!rc) {
		for (size_t i = 0; i < info.n_requires_dist; i++)
			push(m, info.requires_dist[i], strlen(info.requires_dist[i]));
		m->requires_python = info.requires_python ? wp_xstrdup(info.requires_python) : NULL;
		m->source = wp_xstrdup("the wheel's METADATA");
		wp_wheel_info_release(&info);
		rc = save(o, c->url, m, true, err);
	}
	wp_fetch_item_release(&it);
	return rc;
}

/* --- many at once: threads share a queue of reads; only the calling thread touches the catalog
 * --- */

struct job {
	const struct wp_candidate *c;
	const char *core_metadata;
	struct wp_depmeta m;
	int rc;
};

struct queue {
	const struct wp_net_conf *net;
	struct job *jobs;
	size_t n;
	size_t next; /* taken with an atomic add */
};

static void *worker(void *vq)
{
	struct queue *q = vq;
	for (;;) {
		size_t i = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED);
		if (i >= q->n)
			return NULL;
		struct wp_err e = WP_ERR_INIT;
		q->jobs[i].rc = from_network(q->net, q->jobs[i].c, q->jobs[i].core_metadata,
					     &q->jobs[i].m, &e);
	}
}

size_t wp_depmeta_prefetch(const struct wp_depmeta_opts *o, const struct wp_candidate *const *c,
			   const char *const *core_metadata, size_t n)
{
	struct queue q = { .net = o->net, .jobs = wp_xcalloc(n ? n : 1, sizeof(*q.jobs)) };
	size_t done = 0;
	attach(o);
	if (o->offline)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct wp_depmeta probe = { 0 };
		struct wp_err e = WP_ERR_INIT;
		bool found = false, dup = false;
		for (size_t k = 0; k < q.n && !dup; k++)
			dup = !strcmp(q.jobs[k].c->url, c[i]->url);
		if (dup ||
		    wp_catalog_metadata_get(o->cat, c[i]->url, from_catalog, &probe, &found, &e) ||
		    found) {
			wp_depmeta_release(&probe);
			continue;
		}
		q.jobs[q.n++] = (struct job){ .c = c[i], .core_metadata = core_metadata[i] };
	}
	if (q.n < 2)
		goto out; /* one read gains nothing from being early */
	/* loaded here, on this thread, before any worker needs them; without them, nothing is read
	 * early and wp_depmeta_get reports the failure */
	struct wp_err le = WP_ERR_INIT;
	if (wp_lazy_require(WP_LIB_CURL | WP_LIB_CRYPTO, &le))
		goto out;
	pthread_t th[WP_DEPMETA_PARALLEL];
	size_t nth = 0;
	for (; nth < WP_DEPMETA_PARALLEL && nth < q.n; nth++)
		if (pthread_create(&th[nth], NULL, worker, &q) != 0)
			break;
	if (!nth)
		worker(&q); /* no thread to be had: read them here, one by one */
	for (size_t t = 0; t < nth; t++)
		pthread_join(th[t], NULL);
	for (size_t i = 0; i < q.n; i++) {
		struct wp_err e = WP_ERR_INIT;
		if (q.jobs[i].rc > 0 && save(o, q.jobs[i].c->url, &q.jobs[i].m, false, &e) == 0)
			done++;
	}
out:
	for (size_t i = 0; i < q.n; i++)
		wp_depmeta_release(&q.jobs[i].m);
	free(q.jobs);
	return done;
}
