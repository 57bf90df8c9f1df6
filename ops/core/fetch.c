/* ops/core/fetch.c: downloads into the store through one parallel run; each file is stored and
 * checked by a checker thread as soon as its transfer ends, while the others go on. */
#include "ops/core/fetch.h"
#include "base/buf.h"
#include "base/mem.h"
#include "base/parallel.h"
#include "base/vec.h"
#include "cache/catalog.h"
#include "verify/conda.h"
#include "verify/wheel.h"
#include "verify/wheelstream.h"
#include "base/os/os.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The downloader's callbacks carry an error record; the store writer keeps its own. */
struct sink {
	struct wp_store_writer w;
	bool open;
	bool settled; /* stored and checked (by a checker), or failed: nothing left to do */
	/* a wheel's members hashed as they arrive (the store writer taps its bytes into it), so
	 * that its check needs no second pass; freed once the check has taken what it needs */
	struct wp_wheel_stream *ws;
	/* a wheel's own METADATA, as the check read it: what it needs */
	bool have_meta;
	char *requires_dist;   /* one requirement per line */
	char *requires_python; /* NULL when none */
};

static void sink_release(struct sink *k)
{
	free(k->requires_dist);
	free(k->requires_python);
	k->requires_dist = k->requires_python = NULL;
	k->have_meta = false;
	wp_wheel_stream_free(k->ws);
	k->ws = NULL;
}

static void tap_feed(void *ctx, const void *p, size_t n)
{
	wp_wheel_stream_feed(ctx, p, n);
}

static void tap_reset(void *ctx)
{
	wp_wheel_stream_reset(ctx);
}

static int tap_sha256(void *ctx, unsigned char out[32], long long *len)
{
	return wp_wheel_stream_file_sha256(ctx, out, len);
}

/* Verify a wheel, keeping what its METADATA says it needs in k. */
static int verify_wheel(struct wp_fetch_item *it, struct sink *k)
{
	struct wp_wheel_info info;
	memset(&info, 0, sizeof(info));
	int rc = wp_wheel_verify_streamed(it->path, it->filename, k->ws, NULL, &info, &it->err);
	wp_wheel_stream_free(k->ws);
	k->ws = NULL;
	if (!rc) {
		struct wp_buf all = WP_BUF_INIT;
		for (size_t i = 0; i < info.n_requires_dist; i++)
			wp_buf_printf(&all, "%s\n", info.requires_dist[i]);
		free(k->requires_dist);
		free(k->requires_python);
		k->requires_dist = wp_buf_detach(&all, NULL);
		if (!k->requires_dist)
			k->requires_dist = wp_xstrdup("");
		k->requires_python = info.requires_python ? wp_xstrdup(info.requires_python) : NULL;
		k->have_meta = true;
		free(it->gpu_code);
		it->gpu_code = wp_xstrdup(info.gpu_code ? info.gpu_code : "-");
	}
	wp_wheel_info_release(&info);
	return rc;
}

static int sink_write(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	struct sink *s = ctx;
	int rc = wp_store_writer_write(&s->w, p, n);
	if (rc)
		wp_fail(err, rc, "%s",
			s->w.err.msg[0] ? s->w.err.msg : "cannot write to the store");
	return rc;
}

static int sink_reset(void *ctx, long long offset, struct wp_err *err)
{
	struct sink *s = ctx;
	int rc = wp_store_writer_reset(&s->w, offset);
	if (rc)
		wp_fail(err, rc, "%s",
			s->w.err.msg[0] ? s->w.err.msg : "cannot rewind the download");
	return rc;
}

static void sink_validated(void *ctx, const char *validator, long long total)
{
	struct sink *s = ctx;
	wp_store_writer_set_validator(&s->w, validator, total);
}

/* The downloader numbers only what it transfers; the caller numbers every item. */
struct progress_map {
	const size_t *which;
	size_t base; /* the batch's first item in the caller's array */
	wp_dl_progress_fn *fn;
	void *ctx;
};

static void progress_trampoline(void *pctx, size_t index, long long received, long long total)
{
	struct progress_map *m = pctx;
	m->fn(m->ctx, m->base + m->which[index], received, total);
}

/* md5 over the stored file: a second pass, taken only for records that carry md5 (conda), which
 * are small next to wheels. */
static int check_md5(struct wp_fetch_item *it)
{
	struct wp_hasher h;
	char hex[WP_MD5_HEX_LEN + 1] = "";
	unsigned char buf[1 << 16];
	size_t n;
	int rc;
	FILE *f = fopen(it->path, "rb");
	if (!f)
		return wp_fail(&it->err, -WPE_IO, "cannot read '%s' back to check its md5",
			       it->path);
	if ((rc = wp_hasher_init(&h, WP_HASH_MD5, &it->err))) {
		fclose(f);
		return rc;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		wp_hasher_update(&h, buf, n);
	fclose(f);
	rc = wp_hasher_final(&h, NULL, hex, &it->err);
	wp_hasher_release(&h);
	if (!rc && strcasecmp(hex, it->md5) != 0)
		rc = wp_fail(&it->err, -WPE_INTEGRITY,
			     "'%s' (%s): md5 mismatch: expected %s, got %s", it->filename, it->url,
			     it->md5, hex);
	return rc;
}

static int check_archive(struct wp_fetch_item *it, struct sink *k)
{
	int rc = 0;
	if (it->md5 && (rc = check_md5(it))) {
		wp_os_unlink(it->path);
		return rc;
	}
	if (it->check == WP_FETCH_CHECK_WHEEL) {
		rc = verify_wheel(it, k);
	} else if (it->check == WP_FETCH_CHECK_CONDA) {
		struct wp_conda_expect ex = { it->conda_name, it->conda_version, it->conda_build };
		char *json = NULL;
		rc = wp_conda_verify_named(it->path, it->filename, &ex, &json, &it->err);
		free(json);
	}
	if (rc) {
		/* the hash matched the index, but the archive lies: it must not stay trusted */
		wp_os_unlink(it->path);
		wp_err_prefix(&it->err, "'%s' (%s)", it->filename, it->url);
	}
	return rc;
}

#define SYNC_ON_CHECKER (8LL << 20)
#define FETCH_BATCH_MIN 8     /* files a batch holds at least (a very low RLIMIT_NOFILE) ... */
#define FETCH_BATCH_MAX 4096  /* ... and at most (past it, memory for what a batch keeps) */

/* A finished download: its size and sha256, then its archive check, on the temp file (it->path
 * for now); the store takes it after the run, with the others (commit_all). */
static void settle(struct wp_fetch_item *it, struct sink *k)
{
	it->rc = wp_store_writer_seal(&k->w, it->sha256_out, &it->err);
	if (it->rc) {
		wp_err_prefix(&it->err, "'%s'", it->url);
	} else {
		it->path = wp_xstrdup(k->w.file.tmp);
		it->rc = check_archive(it, k);
		/* a big file's data made durable here, on a checker thread: its sync overlaps the
		 * transfers still running, and only its name waits for the end. A small one's waits
		 * for the end too (commit_all), where the syncs of a batch run together: a sync
		 * made while other files are still being written commits their changes as well, so
		 * one after another they cost a journal commit each (16 x 200 KB: 12 of 66 ms) */
		if (!it->rc && k->w.size >= SYNC_ON_CHECKER &&
		    (it->rc = wp_store_writer_sync(&k->w, &it->err)))
			wp_err_prefix(&it->err, "'%s'", it->url);
	}
	if (it->rc) {
		wp_store_writer_abort(&k->w);
		free(it->path);
		it->path = NULL;
	}
	k->settled = true;
}

/* The proven downloads whose data is not durable yet, synced all at once. */
struct sync_batch {
	struct wp_fetch_item *items;
	struct sink *sinks;
	size_t *which; /* item indexes */
};

static int sync_one(void *ctx, size_t k, struct wp_err *unused)
{
	struct sync_batch *b = ctx;
	struct wp_fetch_item *it = &b->items[b->which[k]];
	if ((it->rc = wp_store_writer_sync(&b->sinks[b->which[k]].w, &it->err))) {
		wp_err_prefix(&it->err, "'%s'", it->url);
		wp_store_writer_abort(&b->sinks[b->which[k]].w); /* nothing of it goes in */
		free(it->path);
		it->path = NULL;
	}
	return 0; /* the item's own failure: the others go on */
}

#define SYNC_THREADS 16

/* Every proven download into the store at once: the data of those not synced yet (settle) is
 * made durable together, on up to SYNC_THREADS threads (syncs that wait together share the
 * journal's commits and the disk's cache flushes), then each is renamed into place and each
 * directory synced once: a batch pays one sync per file and one per directory, overlapped, not
 * three per file in a row. */
static void commit_all(struct wp_store *st, struct wp_fetch_item *items, struct sink *sinks,
		       const size_t *which, size_t nd)
{
	struct wp_err derr = WP_ERR_INIT;
	bool any = false;
	struct sync_batch b = { items, sinks, wp_xcalloc(nd ? nd : 1, sizeof(size_t)) };
	size_t ns = 0;
	for (size_t k = 0; k < nd; k++)
		if (!items[which[k]].rc && sinks[which[k]].w.sealed && !sinks[which[k]].w.synced) {
			wp_store_writer_start_sync(&sinks[which[k]].w);
			b.which[ns++] = which[k];
		}
	/* One fsync per file, on threads that wait together, is what this file system takes best:
	 * syncfs(2) once for the batch's data and once for its names (2 calls, no threads, the same
	 * guarantee on Linux >= 5.8) was tried and measured slower here (16 x 200 KB, ext4 without
	 * a journal, load 8: 151 ms against 105 ms median): each syncfs writes back the block
	 * device's metadata and flushes the disk's cache, and the two run one after the other,
	 * where sixteen fsyncs share their flushes. BENCHMARKS.md, "Per-file cost of a
	 * download". */
	if (ns)
		(void)wp_parallel_for(ns, ns < SYNC_THREADS ? ns : SYNC_THREADS, sync_one, &b,
				      &derr);
	free(b.which);
	for (size_t k = 0; k < nd; k++) {
		struct wp_fetch_item *it = &items[which[k]];
		struct sink *sk = &sinks[which[k]];
		if (it->rc || !sk->w.sealed)
			continue;
		free(it->path);
		it->path = NULL;
		if ((it->rc = wp_store_writer_commit(&sk->w, &it->path, &it->err)))
			wp_err_prefix(&it->err, "'%s'", it->url);
		else
			any = true;
	}
	if (any && wp_store_sync_dirs(st, &derr) < 0) {
		for (size_t k = 0; k < nd; k++) {
			struct wp_fetch_item *it = &items[which[k]];
			if (!it->rc && it->path) {
				it->rc = derr.code;
				it->err = derr;
			}
		}
	}
}

/* --- holding a fetched wheel to what the catalog knows of it (main thread, after the run) --- */

/* A requirement list as a comparable text: white space dropped (a PEP 658 file is a copy of
 * METADATA, and spacing is all that may differ without meaning), one per line, sorted. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *norm_reqs(const char *lines)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct wp_buf out = WP_BUF_INIT;
	for (const char *p = lines ? lines : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *one = wp_xmalloc(len + 1);
		size_t k = 0;
		for (size_t i = 0; i < len; i++)
			if (!isspace((unsigned char)p[i]))
				one[k++] = p[i];
		one[k] = 0;
		if (k)
			wp_vec_push_fields(v, n, cap, one);
		else
			free(one);
		p += len + (nl != NULL);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		wp_buf_printf(&out, "%s%s", i ? "\n" : "", v[i]);
		free(v[i]);
	}
	free(v);
	char *r = wp_buf_detach(&out, NULL);
	return r ? r : wp_xstrdup("");
}

static bool same_meta(const char *rd_a, const char *rp_a, const char *rd_b, const char *rp_b)
{
	char *a = norm_reqs(rd_a), *b = norm_reqs(rd_b), *pa = norm_reqs(rp_a),
	     *pb = norm_reqs(rp_b);
	bool same = !strcmp(a, b) && !strcmp(pa, pb);
	free(a), free(b), free(pa), free(pb);
	return same;
}

/* "a, b, c" of a requirement list, for a message (bounded by outsz) */
static void show_reqs(const char *lines, char *out, size_t outsz)
{
	char *norm = norm_reqs(lines);
	struct wp_buf b = WP_BUF_INIT;
	for (const char *p = norm; *p; p++) {
		if (*p == '\n')
			wp_buf_addstr(&b, ", ");
		else
			wp_buf_addch(&b, *p);
	}
	snprintf(out, outsz, "%s", b.len ? wp_buf_cstr(&b) : "nothing");
	wp_buf_free(&b);
	free(norm);
}

static void fail_item(struct wp_fetch_item *it, int rc)
{
	it->rc = rc;
	free(it->path);
	it->path = NULL;
	free(it->gpu_code);
	it->gpu_code = NULL;
}

/* A wheel now proven in the store is held to the catalog: a file the index gave no sha256 for to
 * the hash first seen for its name (trust on first use), and the metadata the resolution used (a
 * PEP 658 file or a Range read, which only the whole wheel proves) to the wheel's own METADATA. A
 * mismatch is an integrity failure; the catalog then keeps the wheel's own, so that it is not
 * used again. */
static void hold_to_catalog(struct wp_store *st, struct wp_fetch_item *it, struct sink *k)
{
	struct wp_catalog *cat = st->catalog;
	struct wp_catalog_meta cm;
	int rc;
	if (!it->sha256 && (rc = wp_catalog_record_hash(cat, it->url, it->sha256_out, &it->err))) {
		wp_err_prefix(&it->err, "'%s'", it->filename);
		fail_item(it, rc);
		return;
	}
	if ((rc = wp_catalog_metadata_lookup(cat, it->url, &cm, &it->err))) {
		fail_item(it, rc);
		return;
	}
	if (!k->have_meta && cm.found && !cm.checked) {
		/* a stored wheel and metadata nobody compared with it yet: read the wheel's own */
		if ((rc = verify_wheel(it, k))) {
			wp_err_prefix(&it->err, "'%s' (%s)", it->filename, it->url);
			fail_item(it, rc);
			goto out;
		}
	}
	if (!k->have_meta)
		goto out; /* nothing to compare, or it was compared before */
	if (cm.found && !same_meta(cm.requires_dist, cm.requires_python, k->requires_dist,
				   k->requires_python)) {
		char own[400], used[400];
		show_reqs(k->requires_dist, own, sizeof(own));
		show_reqs(cm.requires_dist, used, sizeof(used));
		rc = wp_fail(&it->err, -WPE_INTEGRITY,
			     "'%s' (%s): its own METADATA differs from the metadata the resolution used (a PEP 658 file "
			     "or Range reads): it needs %s (Requires-Python %s), the index's metadata said %s "
			     "(Requires-Python %s)%s",
			     it->filename, it->url, own,
			     k->requires_python ? k->requires_python : "any", used,
			     cm.requires_python ? cm.requires_python : "any",
			     cat->read_only ?
				     "; the catalog is read-only here and keeps what it said" :
				     "; the catalog now holds the wheel's own, run again");
		fail_item(it, rc);
	}
	if ((!cm.found || !cm.checked || it->rc) && !cat->read_only) {
		struct wp_err pe = WP_ERR_INIT;
		if ((rc = wp_catalog_metadata_put(cat, it->url, k->requires_python,
						  k->requires_dist, true, &pe)) &&
		    !it->rc) {
			it->err = pe;
			fail_item(it, rc);
		}
	}
out:
	wp_catalog_meta_release(&cm);
}

/* Downloads that ended well, waiting for a checker thread. */
#define CHECKERS 2
#define CHECK_INLINE_BYTES (8LL << 20) /* a batch this small is checked after its transfers */

struct checkq {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t *todo; /* item indexes; room for every download */
	size_t head, tail;
	bool closed;
	struct wp_fetch_item *items;
	struct sink *sinks;
	const size_t *which;
};

static void ended(void *ectx, size_t k, int result)
{
	struct checkq *q = ectx;
	if (result)
		return; /* failures are sorted out once the run is over */
	pthread_mutex_lock(&q->lock);
	q->todo[q->tail++] = q->which[k];
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

static void *checker(void *vq)
{
	struct checkq *q = vq;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		while (q->head == q->tail && !q->closed)
			pthread_cond_wait(&q->cond, &q->lock);
		if (q->head == q->tail) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		size_t i = q->todo[q->head++];
		pthread_mutex_unlock(&q->lock);
		settle(&q->items[i], &q->sinks[i]);
	}
}

/* One batch: items[0, n), the base-th of the caller's onwards; each item's result in it. */
static void fetch_batch(struct wp_store *st, struct wp_fetch_item *items, size_t n, size_t base,
			const struct wp_fetch_opts *opts)
{
	struct wp_download *dl = wp_xcalloc(n ? n : 1, sizeof(*dl));
	struct sink *sinks = wp_xcalloc(n ? n : 1, sizeof(*sinks));
	size_t *which = wp_xcalloc(n ? n : 1, sizeof(*which)), nd = 0;

	for (size_t i = 0; i < n; i++) {
		struct wp_fetch_item *it = &items[i];
		it->rc = 0;
		wp_err_clear(&it->err);
		it->path = NULL;
		it->cached = false;
		it->resumed = it->kept = 0;
		it->sha256_out[0] = 0;
		if (it->sha256) {
			int found = wp_store_lookup(st, it->sha256, &it->path, &it->err);
			if (found < 0) {
				it->rc = found;
				continue;
			}
			if (found) {
				/* the bytes of that hash are here; a size the index or lock gives
				 * must be theirs too, as a download is held to it (a lock whose
				 * size and hash disagree is not honoured by one way and refused by
				 * the other) */
				struct wp_os_stat sb;
				if (it->size >= 0 && wp_os_stat(it->path, &sb) == 0 &&
				    (long long)sb.st_size != it->size) {
					it->rc = wp_fail(&it->err, -WPE_INTEGRITY,
							 "'%s' (%s): its sha256 %s is of a file of "
							 "%lld bytes, but its size is given as %lld",
							 it->filename, it->url, it->sha256,
							 (long long)sb.st_size, it->size);
					free(it->path);
					it->path = NULL;
					continue;
				}
				it->cached = true;
				snprintf(it->sha256_out, sizeof(it->sha256_out), "%s", it->sha256);
				continue;
			}
		}
		if (opts->offline) {
			it->rc = wp_fail(&it->err, -WPE_NET,
					 "'%s' is not in the cache and --offline forbids fetching it%s",
					 it->filename,
					 it->sha256 ?
						 "" :
						 " (the index gives no sha256 to look it up by)");
			continue;
		}
		/* with no sha256, a partial kept across runs is keyed by the URL (strong ETags
		 * only) */
		if ((it->rc = wp_store_writer_begin_url(&sinks[i].w, st, it->sha256, it->size,
							it->filename, it->url, &it->err)))
			continue;
		sinks[i].open = true;
		if (it->check == WP_FETCH_CHECK_WHEEL) {
			sinks[i].ws = wp_wheel_stream_new(NULL);
			sinks[i].w.tap = tap_feed;
			sinks[i].w.tap_reset = tap_reset;
			sinks[i].w.tap_ctx = sinks[i].ws;
			/* a big wheel's deflated members are read back from the temp file, inflated
			 * and hashed on every core as they arrive; the file's own sha256 is the
			 * stream's too, so a stored member's bytes get both digests in one pass
			 * (the tap thread, a second core where there is one) while the transfer
			 * runs on this one */
			wp_wheel_stream_use_file(sinks[i].ws, sinks[i].w.file.tmp, 0);
			if (wp_wheel_stream_hash_file(sinks[i].ws) == 0)
				sinks[i].w.tap_sha256 = tap_sha256;
			sinks[i].w.tap_thread = true;
			/* a small wheel's members are hashed when it is sealed, on a checker
			 * thread, not on the transfers' thread (16 x 200 KB: their second hash was
			 * 6% of the run) */
			sinks[i].w.tap_defer = WP_STORE_BLOCK;
		}
		/* what an earlier run kept of it: re-read (hash, wheel members) and the rest asked
		 * for; a file:// source is read whole again (cheap, and its ranges say nothing of
		 * offsets) */
		long long kept = sinks[i].w.kept;
		bool http = !strncasecmp(it->url, "http:", 5) || !strncasecmp(it->url, "https:", 6);
		if (kept > 0 && (it->rc = sink_reset(&sinks[i], http ? kept : 0, &it->err))) {
			wp_store_writer_abort(&sinks[i].w);
			sinks[i].open = false;
			continue;
		}
		if (kept > 0 && http) {
			it->resumed = kept;
			if (opts->resumed)
				opts->resumed(opts->pctx, base + i, kept);
		}
		dl[nd] = (struct wp_download){
			.url = it->url,
			.expect_size = it->size,
			.write = sink_write,
			.reset = sink_reset,
			.validated = sink_validated,
			.ctx = &sinks[i],
			.start = it->resumed,
			.if_range = it->resumed ? sinks[i].w.validator : NULL,
		};
		which[nd++] = i;
	}
	if (nd) {
		struct wp_dl_opts dopts = opts->dl ? *opts->dl : (struct wp_dl_opts){ 0 };
		if (!dopts.policy.conf)
			dopts.policy.conf = opts->net;
		struct progress_map pm = { which, base, opts->progress, opts->pctx };
		struct checkq q = { .todo = wp_xcalloc(nd, sizeof(size_t)),
				    .items = items,
				    .sinks = sinks,
				    .which = which };
		pthread_t th[CHECKERS];
		size_t nth = 0;
		pthread_mutex_init(&q.lock, NULL);
		pthread_cond_init(&q.cond, NULL);
		/* one download has nothing to overlap its check with, nor a few small ones worth a
		 * thread's start (on a busy machine the second core is someone else's): no
		 * thread */
		long long known = 0;
		for (size_t k = 0; k < nd && known >= 0; k++)
			known = items[which[k]].size < 0 ? -1 : known + items[which[k]].size;
		bool few_small = known >= 0 && known <= CHECK_INLINE_BYTES;
		for (; nd > 1 && !few_small && nth < CHECKERS && nth < nd; nth++)
			if (pthread_create(&th[nth], NULL, checker, &q) != 0)
				break;
		if (nth) { /* with no thread to be had, everything is settled below, after the run
			    */
			dopts.ended = ended;
			dopts.ectx = &q;
		}
		wp_download_run(dl, nd, &dopts, opts->progress ? progress_trampoline : NULL, &pm);
		pthread_mutex_lock(&q.lock);
		q.closed = true;
		pthread_cond_broadcast(&q.cond);
		pthread_mutex_unlock(&q.lock);
		for (size_t t = 0; t < nth; t++)
			pthread_join(th[t], NULL);
		pthread_cond_destroy(&q.cond);
		pthread_mutex_destroy(&q.lock);
		free(q.todo);
	}
	for (size_t k = 0; k < nd; k++) {
		size_t i = which[k];
		struct wp_fetch_item *it = &items[i];
		/* what came now: a resume's kept part came before (all of it again when
		 * restarted) */
		it->bytes = dl[k].received >= it->resumed ? dl[k].received - it->resumed :
							    dl[k].received;
		if (sinks[i].settled)
			continue;
		if (dl[k].result) {
			it->rc = dl[k].result;
			it->err = dl[k].err;
			/* not its bytes (the network): what came stays for the next run to
			 * resume */
			if (it->rc != -WPE_INTEGRITY)
				it->kept = wp_store_writer_keep(&sinks[i].w);
			else
				wp_store_writer_abort(&sinks[i].w);
			continue;
		}
		settle(it, &sinks[i]);
	}
	commit_all(st, items, sinks, which, nd);
	for (size_t i = 0; i < n; i++) {
		struct wp_fetch_item *it = &items[i];
		if (!it->rc && !it->cached)
			wp_store_mark_proven(st, it->sha256_out);
		if (!it->rc && st->catalog && it->check == WP_FETCH_CHECK_WHEEL)
			hold_to_catalog(st, it, &sinks[i]);
		sink_release(&sinks[i]);
		if (it->rc && it->path) {
			free(it->path);
			it->path = NULL;
		}
	}
	free(dl);
	free(sinks);
	free(which);
}

/* How many files one batch may hold: each holds its temp file open from its start until the
 * batch's end (its data is synced with the others' there), and one in flight also a socket and a
 * read-back of the temp file; the rest of the process needs some too. RLIMIT_NOFILE's soft limit
 * is 1024 on many systems (cli/ raises it to the hard one where it can): a quarter of it. */
static size_t batch_size(void)
{
	long lim = wp_os_max_open_files();
	if (lim <= 0)
		return FETCH_BATCH_MAX;
	size_t b = (size_t)(lim / 4);
	return b < FETCH_BATCH_MIN ? FETCH_BATCH_MIN : b > FETCH_BATCH_MAX ? FETCH_BATCH_MAX : b;
}

int wp_fetch_files(struct wp_store *st, struct wp_fetch_item *items, size_t n,
		   const struct wp_fetch_opts *opts, struct wp_err *err)
{
	int rc = 0;
	size_t b = batch_size();
	size_t a = 0;
	do { /* batch by batch; a file shared by two targets is in the store for the later one */
		size_t k = n - a < b ? n - a : b;
		fetch_batch(st, items + a, k, a, opts);
		a += k;
	} while (a < n);
	/* first integrity failure wins (exit 4), else the first failure */
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (size_t i = 0; i < n && !rc; i++)
			if (items[i].rc && (pass == 1 || items[i].rc == -WPE_INTEGRITY))
				rc = wp_fail(err, items[i].rc, "%s", items[i].err.msg);
	return rc;
}

void wp_fetch_item_release(struct wp_fetch_item *it)
{
	free(it->path);
	it->path = NULL;
	free(it->gpu_code);
	it->gpu_code = NULL;
}
