/* verify/wheelstream.c: a wheel's members hashed as its bytes stream past (local headers, in file
 * order), so that the RECORD check after a download needs no second pass over the data. With the
 * file the bytes are written to (wp_wheel_stream_use_file), the members' data is read back from it
 * and inflated and hashed on a small pool of threads, one member per thread, each following its
 * member as the download writes it: every core works on the wheel while it arrives. Inflating is
 * ISA-L's (Intel's igzip: 1.7x zlib's speed here, streaming, so memory stays flat) where the
 * build has it, zlib's otherwise. */
#include "verify/wheelstream.h"

#include "base/buf.h"
#include "base/bytes.h"
#include "base/mem.h"
#include "verify/fatbin.h"
#include "verify/hash.h"
#include "verify/metadata.h"
#include "base/os/os.h"
#include "verify/sha256pair.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifndef WP_ISAL
#define WP_ISAL 0 /* the Makefile says (ISAL=1 by default) */
#endif
#if WP_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

#define SIG_LOCAL   0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define LOCAL_LEN   30u
#define OUT_BLOCK   (256u << 10) /* inflated bytes per hash update */
#define IN_BLOCK    (256u << 10) /* compressed bytes a pool thread reads back at a time */
#define POOL_MAX    8            /* threads at most, whatever the core count */
/* Deflated members this small (compressed) are done inline, on the feeder, until the file passes
 * POOL_AFTER: a small wheel pays nothing for threads it does not need. Stored members stay on the
 * feeder too: hashing them is one pass over bytes it holds (the store's tap thread takes a big
 * one), where a pool thread would read them back first. */
#define POOL_MIN_MEMBER (256u << 10)
#define POOL_AFTER      (1u << 20)

/* What the stream is doing. Anything it does not follow (a data descriptor, an unknown method,
 * bytes between members) makes it LOST: the verifier then takes the full second pass, which
 * reports whatever is wrong in its own words. */
enum state { S_HEAD, S_NAME, S_DATA, S_DONE, S_LOST };

/* One member's data being hashed (and inflated): by the feeder as the bytes pass, or by a pool
 * thread reading them back from the file. m is where its verdict goes (a pool thread's own copy,
 * published under the lock when it is done). */
struct work {
	struct wp_wheel_smember *m;
	const struct wp_wheel_limits *lim;
	uint64_t *total;                 /* uncompressed bytes of all members (shared: atomic) */
	uint64_t left;                   /* compressed bytes still to come */
	bool inflating, z_ended, crc_on;
	uint32_t crc;
	z_stream z;
	bool z_ready;
#if WP_ISAL
	struct inflate_state *isal;      /* instead of z, once set up */
#endif
	struct wp_sha256 h;
	bool h_ready;
	/* the feeder's own work, when the stream takes the file's digest too: a stored member's
	 * bytes go into both at once (member_bytes), and paired says the last ones did */
	struct wp_sha256 *pair;
	bool paired;
	unsigned char *out;              /* OUT_BLOCK bytes for inflate */
	struct wp_fatbin_scan *fb; /* a shared object's GPU code, read on the way (NULL: not one) */
};

struct job {
	size_t index;                    /* into s->m */
	uint64_t data_off;               /* of its compressed data in the file */
	struct wp_wheel_smember shadow;  /* the fields the work needs and fills */
	struct job *next;
};

struct pool {
	char *path;                      /* the file, read back: opened when the first job comes */
	int fd;
	int nthreads;
	pthread_t th[POOL_MAX];
	pthread_mutex_t mu;
	pthread_cond_t cv;               /* jobs queued, bytes arrived, cancel, quit */
	pthread_cond_t idle;             /* a job finished */
	struct job *head, *tail;
	size_t busy;                     /* jobs taken and not yet finished */
	uint64_t avail;                  /* bytes of the file written (and fed) so far */
	unsigned gen; /* bumped by reset: work of an older generation is dropped */
	bool eof;                        /* no more bytes will come (settle) */
	bool quit;
	bool started;
	uint64_t min_member, after;      /* which members it takes (POOL_MIN_MEMBER, POOL_AFTER) */
};

struct wp_wheel_stream {
	enum state state;
	struct wp_wheel_limits lim;
	uint64_t pos;                    /* bytes fed so far (the file offset of the next byte) */
	unsigned char head[LOCAL_LEN];
	size_t head_have;
	struct wp_buf namex;             /* the name and extra field of the header being read */
	size_t namex_want;
	uint16_t nlen;
	/* the member whose data is streaming */
	struct wp_wheel_smember *cur;
	bool cur_pooled;                 /* its data is a pool thread's: the feeder only skips it */
	uint64_t skip;                   /* compressed bytes of a pooled member still to pass */
	struct work w;                   /* the feeder's own work, for members done inline */
	uint64_t total;                  /* uncompressed bytes of all members */
	struct wp_wheel_smember *m;      /* in file order */
	size_t n, cap;
	struct pool *pool;               /* NULL: everything inline */
	bool crc_all; /* every member's CRC-32 too, not only the dist-info files' */
	bool hash_file;                  /* the file's own sha256 too (wp_wheel_stream_hash_file) */
	struct wp_sha256 file;
};

struct wp_wheel_stream *wp_wheel_stream_new(const struct wp_wheel_limits *lim)
{
	struct wp_wheel_stream *s = wp_xcalloc(1, sizeof(*s));
	wp_wheel_limits_fill(&s->lim, lim);
	s->namex = (struct wp_buf)WP_BUF_INIT_MAX(2u * 65535u);
	s->w.lim = &s->lim;
	s->w.total = &s->total;
	return s;
}

static void work_release(struct work *w)
{
#if WP_ISAL
	free(w->isal);
	w->isal = NULL;
#endif
	if (w->z_ready)
		inflateEnd(&w->z);
	if (w->h_ready)
		wp_sha256_release(&w->h);
	free(w->out);
	wp_fatbin_scan_free(w->fb);
	w->fb = NULL;
	w->z_ready = w->h_ready = false;
	w->out = NULL;
}

/* ---- one member's bytes: the same for the feeder and a pool thread ---- */

/* Ready w for the member w->m (sizes and method set in it): false when it cannot start. */
static bool work_begin(struct work *w, bool crc_on)
{
	struct wp_err e = WP_ERR_INIT;
	w->crc_on = crc_on;
	w->crc = 0;
	w->left = w->m->csize;
	w->inflating = w->m->method == 8;
	w->z_ended = false;
	wp_fatbin_scan_free(w->fb);
	w->fb = w->m->shared_object ? wp_fatbin_scan_new() : NULL;
	if (wp_sha256_init(&w->h, &e))
		return false;
	w->h_ready = true;
	if (w->inflating && WP_ISAL) {
#if WP_ISAL
		if (!w->isal)
			w->isal = wp_xmalloc(sizeof(*w->isal));
		isal_inflate_init(w->isal);
		w->isal->crc_flag = ISAL_DEFLATE;
		if (!w->out)
			w->out = wp_xmalloc(OUT_BLOCK);
#endif
	} else if (w->inflating) {
		if (!w->z_ready) {
			memset(&w->z, 0, sizeof(w->z));
			if (inflateInit2(&w->z, -MAX_WBITS) != Z_OK)
				return false;
			w->z_ready = true;
		} else {
			inflateReset(&w->z);
		}
		if (!w->out)
			w->out = wp_xmalloc(OUT_BLOCK);
	}
	return true;
}

#if WP_ISAL
static uint32_t crc(uint32_t c, const unsigned char *p, size_t n)
{
	return crc32_gzip_refl(c, p, (uint64_t)n); /* zlib's crc32, faster */
}
#else
#define crc(c, p, n) 0u
#endif

/* Uncompressed bytes of the member: counted against its claims and the limits, hashed, and kept
 * when it is one the verifier parses. A member past any bound is marked bad and its remaining
 * bytes only skipped: the second pass then says what is wrong. */
static void member_bytes(struct work *w, const unsigned char *p, size_t n)
{
	struct wp_wheel_smember *m = w->m;
	if (m->bad)
		return;
	uint64_t limit = (uint64_t)w->lim->max_ratio * (m->csize ? m->csize : 1);
	if (limit < (uint64_t)w->lim->ratio_min_size)
		limit = (uint64_t)w->lim->ratio_min_size;
	m->actual += n;
	uint64_t total = __atomic_add_fetch(w->total, (uint64_t)n, __ATOMIC_RELAXED);
	if (m->actual > m->usize || m->actual > limit || total > (uint64_t)w->lim->max_total_size ||
	    (m->is_dir && n)) {
		m->bad = true;
		return;
	}
	if (w->pair && !w->inflating) {
		/* a stored member's bytes are the file's bytes: both digests in one pass */
		wp_sha256_update2(w->pair, &w->h, p, n);
		w->paired = true;
	} else {
		wp_sha256_update(&w->h, p, n);
	}
	if (w->fb)
		wp_fatbin_scan_feed(w->fb, p, n);
	if (w->crc_on)
		w->crc = WP_ISAL ? crc(w->crc, p, n) : (uint32_t)crc32(w->crc, p, (uInt)n);
	if (m->captured && wp_buf_add(&m->capture, p, n) < 0)
		m->bad = true;
}

static void work_end(struct work *w)
{
	struct wp_wheel_smember *m = w->m;
	struct wp_err e = WP_ERR_INIT;
	if (w->inflating && !w->z_ended)
		m->bad = true; /* the deflate stream did not end with its compressed size */
	if (!m->bad && wp_sha256_final(&w->h, m->sha256, &e))
		m->bad = true;
	m->crc = w->crc;
	m->crc_checked = w->crc_on;
	if (w->fb && !m->bad) {
		/* the bytes just hashed are the ones the GPU code was read from: no second pass */
		struct wp_fatbin fb = { 0 };
		struct wp_buf sum = WP_BUF_INIT;
		wp_err_clear(&e);
		if (wp_fatbin_scan_finish(w->fb, m->name ? m->name : "member", &fb, &e))
			m->gpu_problem = wp_xstrdup(e.msg);
		wp_fatbin_summary(&fb, &sum);
		m->gpu_code = wp_xstrdup(wp_buf_cstr(&sum));
		wp_buf_free(&sum);
		wp_fatbin_free(&fb);
	}
	wp_fatbin_scan_free(w->fb);
	w->fb = NULL;
	m->done = true;
}

/* Compressed bytes of the member (n <= w->left); true when they were its last. */
static bool work_data(struct work *w, const unsigned char *p, size_t n)
{
	struct wp_wheel_smember *m = w->m;
	w->left -= n;
	if (!w->inflating) {
		member_bytes(w, p, n);
#if WP_ISAL
	} else if (!m->bad) {
		struct inflate_state *st = w->isal;
		st->next_in = (uint8_t *)p;
		st->avail_in = (uint32_t)n;
		if (w->z_ended && n)
			m->bad = true; /* bytes after the deflate stream's end */
		while (!m->bad && !w->z_ended && (st->avail_in || w->left == 0)) {
			uint32_t had = st->avail_in;
			st->next_out = w->out;
			st->avail_out = OUT_BLOCK;
			int r = isal_inflate(st);
			size_t got = OUT_BLOCK - st->avail_out;
			if (got)
				member_bytes(w, w->out, got);
			if (r < 0) {
				m->bad = true; /* data that does not decode */
			} else if (st->block_state == ISAL_BLOCK_FINISH) {
				w->z_ended = true;
				if (st->avail_in)
					m->bad = true;
			} else if (!got && st->avail_in == had) {
				/* nothing more without input: at the member's end, a stream that
				 * does not end */
				if (w->left == 0)
					m->bad = true;
				break;
			}
		}
#else
	} else if (!m->bad) {
		if (w->z_ended && n) {
			m->bad = true; /* bytes after the deflate stream's end */
		} else {
			w->z.next_in = (Bytef *)p;
			w->z.avail_in = (uInt)n;
			while (!m->bad && !w->z_ended && (w->z.avail_in || w->left == 0)) {
				w->z.next_out = w->out;
				w->z.avail_out = OUT_BLOCK;
				int zr = inflate(&w->z, Z_NO_FLUSH);
				size_t got = OUT_BLOCK - w->z.avail_out;
				if (got)
					member_bytes(w, w->out, got);
				if (zr == Z_STREAM_END) {
					w->z_ended = true;
					if (w->z.avail_in)
						m->bad = true;
				} else if (zr != Z_OK || (!got && !w->z.avail_in)) {
					/* an error, or a stream that wants input past its
					 * compressed size */
					if (zr != Z_OK || w->left == 0)
						m->bad = true;
					break;
				}
			}
		}
#endif
	}
	if (w->left == 0) {
		work_end(w);
		return true;
	}
	return false;
}

/* ---- the pool ---- */

/* Wait until the feeder has passed byte end of the file; false when the stream was reset, ended
 * (settle) or freed before it came. Called with the lock held. */
static bool pool_wait_bytes(struct pool *p, unsigned gen, uint64_t end)
{
	while (p->avail < end && !p->eof && !p->quit && p->gen == gen)
		pthread_cond_wait(&p->cv, &p->mu);
	return p->avail >= end && p->gen == gen && !p->quit;
}

/* Read n bytes of the file at off into buf: false when it cannot. */
static bool read_back(int fd, unsigned char *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = wp_os_pread(fd, buf + got, n - got, (int64_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

/* One member, read back as it arrives; its verdict published into s->m unless the stream was
 * reset (or ended) before all of it came. */
static void run_job(struct wp_wheel_stream *s, struct pool *p, struct job *j, unsigned gen,
		    struct work *w, unsigned char *in)
{
	w->m = &j->shadow;
	bool ok = work_begin(w, s->crc_all);
	uint64_t off = j->data_off, end = j->data_off + j->shadow.csize;
	if (!ok)
		j->shadow.bad = true;
	bool ended = false;
	if (ok && j->shadow.csize == 0)
		ended = work_data(w, in, 0); /* an empty deflate stream is still a stream */
	while (ok && off < end) {
		uint64_t want = end - off < IN_BLOCK ? end - off : IN_BLOCK;
		pthread_mutex_lock(&p->mu);
		/* as much as has arrived, once a whole block (or the member's rest) has */
		bool have = pool_wait_bytes(p, gen, off + want);
		if (!have && p->avail > off && p->gen == gen && !p->quit)
			want = p->avail - off; /* the stream ended: what there is, then it stops
						  short */
		else if (!have)
			want = 0;
		pthread_mutex_unlock(&p->mu);
		if (!want)
			break;
		if (!read_back(p->fd, in, (size_t)want, off))
			break;
		ended = work_data(w, in, (size_t)want);
		off += want;
	}
	pthread_mutex_lock(&p->mu);
	if (p->gen == gen && ended && j->index < s->n) {
		struct wp_wheel_smember *m = &s->m[j->index];
		m->actual = j->shadow.actual;
		m->bad = j->shadow.bad;
		m->crc = j->shadow.crc;
		m->crc_checked = j->shadow.crc_checked;
		memcpy(m->sha256, j->shadow.sha256, sizeof(m->sha256));
		m->gpu_code = j->shadow.gpu_code;
		m->gpu_problem = j->shadow.gpu_problem;
		j->shadow.gpu_code = j->shadow.gpu_problem = NULL;
		m->done = true;
	}
	free(j->shadow.gpu_code);
	free(j->shadow.gpu_problem);
	p->busy--;
	pthread_cond_broadcast(&p->idle);
	pthread_mutex_unlock(&p->mu);
}

static void *pool_main(void *arg)
{
	struct wp_wheel_stream *s = arg;
	struct pool *p = s->pool;
	struct work w = { .lim = &s->lim, .total = &s->total };
	unsigned char *in = wp_xmalloc(IN_BLOCK);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->head && !p->quit)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->quit)
			break;
		struct job *j = p->head;
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		p->busy++;
		unsigned gen = p->gen;
		pthread_mutex_unlock(&p->mu);
		run_job(s, p, j, gen, &w, in);
		free(j);
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	work_release(&w);
	free(in);
	return NULL;
}

static int cpu_count(void)
{
	/* asked once a process: each sysconf reads /sys (an open, a read, a close per wheel) */
	static int cached;
	int c = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (!c) {
		long n = wp_os_ncpu();
		c = n < 1 ? 1 : n > POOL_MAX ? POOL_MAX : (int)n;
		__atomic_store_n(&cached, c, __ATOMIC_RELAXED);
	}
	return c;
}

static int use(struct wp_wheel_stream *s, const char *path, int fd, int threads)
{
	if (s->pool || s->pos)
		return -1;
	if (threads <= 0)
		threads = cpu_count();
	if (threads > POOL_MAX)
		threads = POOL_MAX;
	struct pool *p = wp_xcalloc(1, sizeof(*p));
	p->path = path ? wp_xstrdup(path) : NULL;
	p->fd = path ? -1 : wp_os_dup(fd);
	if (!path && p->fd < 0) {
		free(p);
		return -1;
	}
	s->crc_all = !path;
	p->min_member = POOL_MIN_MEMBER;
	p->after = POOL_AFTER;
	p->nthreads = threads;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_cond_init(&p->idle, NULL);
	s->pool = p;
	return 0;
}

int wp_wheel_stream_use_file(struct wp_wheel_stream *s, const char *path, int threads)
{
	return use(s, path, -1, threads);
}

int wp_wheel_stream_use_fd(struct wp_wheel_stream *s, int fd, int threads)
{
	return use(s, NULL, fd, threads);
}

/* Why the file's digest is taken here, beside the members': a stored member's bytes need two
 * digests, and neither proves what the other does. The file's sha256 against the index's proves
 * the file is the one published (every byte of it: headers, RECORD, the central directory);
 * RECORD's line proves the member is what the wheel's builder wrote, which the index's hash says
 * nothing about (an index hashes whatever was uploaded, a RECORD that disagrees with its member
 * included, and a file with no sha256 in the page has only RECORD). The file's hash does prove
 * RECORD's bytes, so with both checks the member is covered end to end; with the file's alone it
 * is not (a wheel published broken would pass), and with RECORD's alone nothing covers the
 * headers and RECORD itself. The digests cannot share work either: SHA-256's state at the
 * member's first byte differs between the two (the file's has taken the bytes before it). So
 * the cheapest correct proof still computes both, and this computes them in one pass over the
 * bytes, the two chains interleaved (verify/sha256pair.c: ~1.2x the CPU of one). A deflated
 * member's compressed bytes (the file's digest) and its inflated bytes (RECORD's) differ, so there
 * each is hashed once, in the pass that has it. */
int wp_wheel_stream_hash_file(struct wp_wheel_stream *s)
{
	struct wp_err e = WP_ERR_INIT;
	if (s->pos || s->hash_file)
		return -1;
	if (wp_sha256_init(&s->file, &e))
		return -1;
	s->hash_file = true;
	s->w.pair = &s->file;
	return 0;
}

int wp_wheel_stream_file_sha256(struct wp_wheel_stream *s, unsigned char out[WP_SHA256_LEN],
				long long *len)
{
	struct wp_err e = WP_ERR_INIT;
	if (!s->hash_file)
		return -1;
	*len = (long long)s->file.len;
	if (wp_sha256_final(&s->file, out, &e))
		return -1;
	/* once: a second call (or feed) needs a reset first */
	s->hash_file = false;
	s->w.pair = NULL;
	return 0;
}

void wp_wheel_stream_pool_from(struct wp_wheel_stream *s, uint64_t min_member, uint64_t after)
{
	if (s->pool) {
		s->pool->min_member = min_member;
		s->pool->after = after;
	}
}

/* The threads start with the first member given to them. With none to be had, the member is
 * done inline. */
static bool pool_start(struct wp_wheel_stream *s)
{
	struct pool *p = s->pool;
	if (p->started)
		return p->nthreads > 0;
	p->started = true;
	int made = 0;
	if (p->fd < 0)
		p->fd = wp_os_open(p->path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (p->fd < 0)
		p->nthreads = 0;
	for (; made < p->nthreads; made++)
		if (pthread_create(&p->th[made], NULL, pool_main, s) != 0)
			break;
	p->nthreads = made;
	return made > 0;
}

static void pool_push(struct pool *p, struct job *j)
{
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	pthread_cond_signal(&p->cv);
}

/* Drop every queued job and wait for the running ones to give up (their results unpublished). */
static void pool_cancel(struct pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->gen++;
	while (p->head) {
		struct job *j = p->head;
		p->head = j->next;
		free(j);
	}
	p->tail = NULL;
	pthread_cond_broadcast(&p->cv);
	while (p->busy)
		pthread_cond_wait(&p->idle, &p->mu);
	p->avail = 0;
	p->eof = false;
	pthread_mutex_unlock(&p->mu);
}

void wp_wheel_stream_settle(struct wp_wheel_stream *s)
{
	struct pool *p = s ? s->pool : NULL;
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->eof = true;
	pthread_cond_broadcast(&p->cv);
	while (p->busy || p->head)
		pthread_cond_wait(&p->idle, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* ---- the feeder ---- */

static void drop_members(struct wp_wheel_stream *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->m[i].name);
		free(s->m[i].gpu_code);
		free(s->m[i].gpu_problem);
		wp_buf_free(&s->m[i].capture);
	}
	s->n = 0;
}

void wp_wheel_stream_reset(struct wp_wheel_stream *s)
{
	if (s->pool)
		pool_cancel(s->pool);
	drop_members(s);
	s->state = S_HEAD;
	s->pos = 0;
	s->head_have = 0;
	wp_buf_reset(&s->namex);
	s->cur = NULL;
	s->cur_pooled = false;
	s->skip = 0;
	s->w.left = 0;
	s->total = 0;
	if (s->w.pair) {
		struct wp_err e = WP_ERR_INIT;
		if (wp_sha256_init(&s->file, &e)) {
			/* no digest then: the store writer hashes the file itself (its fallback) */
			s->hash_file = false;
			s->w.pair = NULL;
		}
	}
}

void wp_wheel_stream_free(struct wp_wheel_stream *s)
{
	if (!s)
		return;
	struct pool *p = s->pool;
	if (p) {
		pool_cancel(p);
		pthread_mutex_lock(&p->mu);
		p->quit = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (p->started)
			for (int i = 0; i < p->nthreads; i++)
				pthread_join(p->th[i], NULL);
		pthread_cond_destroy(&p->cv);
		pthread_cond_destroy(&p->idle);
		pthread_mutex_destroy(&p->mu);
		if (p->fd >= 0)
			wp_os_close(p->fd);
		free(p->path);
		free(p);
	}
	drop_members(s);
	free(s->m);
	wp_buf_free(&s->namex);
	work_release(&s->w);
	wp_sha256_release(&s->file);
	free(s);
}

bool wp_wheel_stream_complete(const struct wp_wheel_stream *s)
{
	return s && s->state == S_DONE;
}

const struct wp_wheel_smember *wp_wheel_stream_members(const struct wp_wheel_stream *s, size_t *n)
{
	*n = s->n;
	return s->m;
}

struct wp_wheel_smember *wp_wheel_stream_take(struct wp_wheel_stream *s, size_t i)
{
	return i < s->n ? &s->m[i] : NULL;
}

static void lose(struct wp_wheel_stream *s)
{
	s->state = S_LOST;
	s->cur = NULL;
}

/* The three dist-info files the verifier parses, and the ones RECORD cannot hash (their CRC is
 * then the only check of their bytes): a top-level "*.dist-info/NAME". */
static const char *dist_info_file(const char *name)
{
	const char *slash = strchr(name, '/');
	if (!slash || strchr(slash + 1, '/') || slash - name < 10 ||
	    memcmp(slash - 10, ".dist-info", 10) != 0)
		return NULL;
	return slash + 1;
}

static size_t capture_max(const struct wp_wheel_stream *s, const char *file)
{
	if (!strcmp(file, "RECORD"))
		return (size_t)s->lim.max_record;
	if (!strcmp(file, "WHEEL") || !strcmp(file, "METADATA"))
		return WP_METADATA_MAX_LEN;
	return 0;
}

static void end_member(struct wp_wheel_stream *s)
{
	s->cur = NULL;
	s->cur_pooled = false;
	s->state = S_HEAD;
	s->head_have = 0;
}

/* A complete local header with its name and extra field: start the member. */
static void begin_member(struct wp_wheel_stream *s)
{
	const unsigned char *h = s->head;
	uint16_t flags = wp_le16(h + 6), method = wp_le16(h + 8);
	uint64_t csize = wp_le32(h + 18), usize = wp_le32(h + 22);
	const unsigned char *x = (const unsigned char *)s->namex.data + s->nlen;
	size_t xn = s->namex.len - s->nlen;
	/* encrypted, a data descriptor (sizes unknown here), or a method we do not decode */
	if ((flags & 1) || (flags & 8) || (method != 0 && method != 8) ||
	    memchr(s->namex.data, 0, s->nlen)) {
		lose(s);
		return;
	}
	if (csize == 0xffffffffu || usize == 0xffffffffu) {
		/* a local zip64 extra holds both sizes, uncompressed first */
		bool found = false;
		while (xn >= 4) {
			uint16_t id = wp_le16(x), len = wp_le16(x + 2);
			if ((size_t)len + 4 > xn)
				break;
			if (id == 0x0001 && len >= 16) {
				usize = wp_le64(x + 4);
				csize = wp_le64(x + 12);
				found = true;
				break;
			}
			x += 4 + len;
			xn -= 4 + (size_t)len;
		}
		if (!found) {
			lose(s);
			return;
		}
	}
	char *name = wp_xstrndup(s->namex.data, s->nlen);
	const char *di = dist_info_file(name);
	size_t cmax = di ? capture_max(s, di) : 0;
	bool is_dir = s->nlen && name[s->nlen - 1] == '/';
	/* a deflated member past the first MiB, or a big one, goes to the pool; the dist-info
	 * files stay here (they are small, and the verifier wants their bytes and CRC) */
	bool pooled = s->pool && !di && !is_dir && method == 8 &&
		      (csize >= s->pool->min_member || s->pos >= s->pool->after);
	if (pooled) {
		pthread_mutex_lock(&s->pool->mu);
		pooled = pool_start(s);
		pthread_mutex_unlock(&s->pool->mu);
	}
	if (s->pool)
		pthread_mutex_lock(&s->pool->mu); /* a pool thread may be publishing into s->m */
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->m = wp_xrealloc(s->m, s->cap * sizeof(*s->m));
	}
	struct wp_wheel_smember *m = &s->m[s->n++];
	memset(m, 0, sizeof(*m));
	m->offset = s->pos - LOCAL_LEN - s->namex.len;
	m->name = name;
	m->method = method;
	m->csize = csize;
	m->usize = usize;
	m->is_dir = is_dir;
	m->capture = (struct wp_buf)WP_BUF_INIT_MAX(cmax ? cmax : 1);
	m->captured = cmax > 0;
	m->shared_object = !is_dir && wp_fatbin_wanted(name);
	if (pooled) {
		struct job *j = wp_xcalloc(1, sizeof(*j));
		j->index = s->n - 1;
		j->data_off = s->pos;
		j->shadow.csize = csize;
		j->shadow.usize = usize;
		j->shadow.method = method;
		j->shadow.shared_object = m->shared_object;
		pool_push(s->pool, j);
	}
	if (s->pool)
		pthread_mutex_unlock(&s->pool->mu);
	s->cur = m;
	s->cur_pooled = pooled;
	s->state = S_DATA;
	if (pooled) {
		s->skip = csize;
		return;
	}
	s->w.m = m;
	if (!work_begin(&s->w, di != NULL || s->crc_all))
		lose(s);
}

/* Compressed bytes of the current member (n <= what is left of it). */
static void data_bytes(struct wp_wheel_stream *s, const unsigned char *p, size_t n)
{
	if (s->cur_pooled) {
		s->skip -= n;
		if (s->skip == 0)
			end_member(s);
		return;
	}
	if (work_data(&s->w, p, n))
		end_member(s);
}

static uint64_t data_left(const struct wp_wheel_stream *s)
{
	return s->cur_pooled ? s->skip : s->w.left;
}

void wp_wheel_stream_feed(struct wp_wheel_stream *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	while (n && s->state != S_DONE && s->state != S_LOST) {
		size_t k;
		const unsigned char *p0 = p; /* what this step takes goes into the file's digest */
		bool hashed = false;         /* ... unless a stored member's pass put it there */
		switch (s->state) {
		case S_HEAD:
			k = LOCAL_LEN - s->head_have < n ? LOCAL_LEN - s->head_have : n;
			memcpy(s->head + s->head_have, p, k);
			s->head_have += k;
			p += k, n -= k, s->pos += k;
			if (s->head_have >= 4 && wp_le32(s->head) == SIG_CENTRAL && s->n) {
				s->state = S_DONE; /* the members are over; the verifier reads the
						      directory itself */
				break;
			}
			if (s->head_have >= 4 && wp_le32(s->head) != SIG_LOCAL) {
				lose(s);
				break;
			}
			if (s->head_have == LOCAL_LEN) {
				s->nlen = wp_le16(s->head + 26);
				s->namex_want = (size_t)s->nlen + wp_le16(s->head + 28);
				wp_buf_reset(&s->namex);
				if (!s->nlen || s->n >= (size_t)s->lim.max_members) {
					lose(s);
					break;
				}
				s->state = S_NAME;
			}
			break;
		case S_NAME:
			k = s->namex_want - s->namex.len < n ? s->namex_want - s->namex.len : n;
			if (wp_buf_add(&s->namex, p, k) < 0) {
				lose(s);
				break;
			}
			p += k, n -= k, s->pos += k;
			if (s->namex.len == s->namex_want) {
				begin_member(s);
				if (s->state == S_DATA && data_left(s) == 0) {
					if (s->cur_pooled)
						end_member(s); /* the pool thread sees its empty
								  data itself */
					else
						data_bytes(s, p, 0); /* an empty deflate stream is
									still a stream */
				}
			}
			break;
		case S_DATA:
			k = data_left(s) < n ? (size_t)data_left(s) : n;
			s->w.paired = false;
			data_bytes(s, p, k);
			hashed = !s->cur_pooled && s->w.paired;
			p += k, n -= k, s->pos += k;
			break;
		default:
			break;
		}
		if (s->hash_file && !hashed && p > p0)
			wp_sha256_update(&s->file, p0, (size_t)(p - p0));
	}
	if (s->state == S_DONE || s->state == S_LOST) {
		if (s->hash_file)
			wp_sha256_update(&s->file, p, n);
		s->pos += n;
	}
	if (s->pool) {
		pthread_mutex_lock(&s->pool->mu);
		s->pool->avail = s->pos;
		pthread_cond_broadcast(&s->pool->cv);
		pthread_mutex_unlock(&s->pool->mu);
	}
}
