/* cache/condastore.c: conda records staged per package, written as packed chunks, first-seen
 * hashes checked a package at a time. */
#include "cache/condastore.h"
#include "base/arena.h"
#include "base/mem.h"
#include "base/url.h"
#include "base/vec.h"
#include "cache/condabatch.h"
#include "cache/condapack.h"
#include "resolver/ask.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct wp_condastore {
	sqlite3_stmt *st_chunk_put, *st_seen_get, *st_seen_put;

	/* Two batches: the parser stages into fill while the writer thread writes the other one
	 * (todo). Parsing a repodata and storing it each take about half the time, so on two cores
	 * the one hides the other. Everything below todo belongs to whoever writes: the writer
	 * thread, or the caller's thread once the writer is idle. */
	struct wp_condabatch batch[2];
	struct wp_condabatch *fill;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started, quit;
	bool sync; /* write batches on the caller's thread (schema migration, which
		      reads the connection while it adds) */
	struct wp_condabatch *todo;    /* handed to the writer; NULL when it is idle */
	int wrc; /* the writer's first error: reported until the batches are discarded */
	struct wp_err werr;
	uint64_t wconflicts;

	/* scratch reused across packages within a write */
	struct row *rows;
	size_t n_rows, cap_rows;
	struct wp_buf seen_blob, seen_out, packed;
	struct wp_seen_list seen;
	struct wp_seen_entry *added;
	size_t cap_added;
	struct wp_arena conflicts; /* first-seen hashes copied into rows, until the chunk is written
				    */
	struct wp_arena urls;      /* URLs the reader rebuilt, kept while the rows are */
};

/* A decoded row and where its URL's folder ends; idx breaks ties so that the last of two
 * records with the same URL is the one kept, as in a JSON object with a repeated key. */
struct row {
	struct wp_file_row f;
	size_t dir_len;
	size_t idx;
};

static int damaged(struct wp_catalog *cat, struct wp_err *err, const char *what, const char *name)
{
	return wp_fail(err, -WPE_CATALOG,
		       "catalog '%s': the %s of '%s' are damaged; remove the catalog and %s",
		       cat->path, what, name, wp_ask_words(cat->asks, WP_ASK_UPDATE));
}

static int prepare(struct wp_catalog *cat, struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	if (!cs) {
		cs = cat->conda = wp_xcalloc(1, sizeof(*cs));
		cs->fill = &cs->batch[0];
		pthread_mutex_init(&cs->mu, NULL);
		pthread_cond_init(&cs->cv, NULL);
	}
	if (cs->st_chunk_put)
		return 0;
	static const char *const sql[] = {
		"INSERT INTO conda_chunks (source_id, project, n_files, conflicts, records) VALUES (?1, ?2, ?3, ?4, ?5)",
		"SELECT hashes FROM conda_seen_files WHERE subdir = ?1 AND project = ?2",
		"INSERT OR REPLACE INTO conda_seen_files (subdir, project, hashes) VALUES (?1, ?2, ?3)",
	};
	sqlite3_stmt **st[] = { &cs->st_chunk_put, &cs->st_seen_get, &cs->st_seen_put };
	for (size_t i = 0; i < WP_ARRAY_LEN(sql); i++) {
		if (sqlite3_prepare_v3(cat->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, st[i],
				       NULL) != SQLITE_OK) {
			int rc = wp_catalog_fail(cat, err, "cannot prepare statements");
			for (size_t k = 0; k <= i; k++) {
				sqlite3_finalize(*st[k]);
				*st[k] = NULL;
			}
			return rc;
		}
	}
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	size_t n = x->dir_len < y->dir_len ? x->dir_len : y->dir_len;
	int c = memcmp(x->f.url, y->f.url, n);
	if (!c)
		c = (x->dir_len > y->dir_len) - (x->dir_len < y->dir_len);
	if (!c)
		c = strcmp(x->f.url + x->dir_len, y->f.url + y->dir_len);
	if (!c)
		c = (x->idx > y->idx) - (x->idx < y->idx);
	return c;
}

/* The subdir a folder URL (its first dir_len bytes) ends in, percent-decoded: "linux-64". The
 * first-seen lists are keyed by it, not by the folder's URL, so that a mirror of the channel, or
 * the same channel spelled otherwise, is held to the bytes first seen. */
static void subdir_of(const char *url, size_t dir_len, struct wp_buf *out)
{
	const char *slash = dir_len ? memrchr(url, '/', dir_len) : NULL;
	const char *seg = slash ? slash + 1 : url;
	size_t n = dir_len - (size_t)(seg - url);
	char *dec = NULL;
	wp_buf_reset(out);
	if (wp_url_decode(seg, n, &dec, NULL) == 0)
		wp_buf_addstr(out, dec);
	else
		wp_buf_add(out, seg, n);
	free(dec);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct wp_seen_entry *x = a, *y = b;
	int c = memcmp(x->leaf, y->leaf, x->leaf_len < y->leaf_len ? x->leaf_len : y->leaf_len);
	return c ? c : (x->leaf_len > y->leaf_len) - (x->leaf_len < y->leaf_len);
}

/* Trust on first use for rows[0..n), which share one folder: read the package's first-seen list
 * for that folder's subdir, mark rows whose sha256 differs (when mark), and add the files not
 * seen yet. Entries are keyed by file name. */
static int check_seen(struct wp_catalog *cat, const char *project, struct row *rows, size_t n,
		      bool mark, uint64_t *conflicts, struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	sqlite3_stmt *st = cs->st_seen_get;
	struct wp_buf subdir = WP_BUF_INIT;
	int rc = 0, s;

	subdir_of(rows[0].f.url, rows[0].dir_len, &subdir);
	wp_buf_reset(&cs->seen_blob);
	sqlite3_bind_text(st, 1, wp_buf_cstr(&subdir), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, project, -1, SQLITE_STATIC);
	s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		wp_buf_add(&cs->seen_blob, sqlite3_column_blob(st, 0),
			   (size_t)sqlite3_column_bytes(st, 0));
	sqlite3_reset(st);
	cs->seen.n = 0;
	if (s != SQLITE_ROW && s != SQLITE_DONE) {
		rc = wp_catalog_fail(cat, err, "cannot read first-seen hashes");
		goto out;
	}
	if (s == SQLITE_ROW &&
	    wp_seen_decode(&cs->seen, cs->seen_blob.data, cs->seen_blob.len) < 0) {
		rc = damaged(cat, err, "first-seen hashes", project);
		goto out;
	}

	if (n > cs->cap_added) {
		cs->cap_added = n;
		cs->added = wp_xrealloc(cs->added, n * sizeof(*cs->added));
	}
	size_t n_added = 0;
	long long now = (long long)time(NULL);
	for (size_t i = 0, j; i < n; i = j) {
		/* rows[i..j) share one URL (a file listed twice): only the last is stored
		 * (put_chunk), and it is held to the hash seen first, which may be an earlier
		 * copy's, as in a per-URL check made row by row */
		for (j = i + 1; j < n && !strcmp(rows[j].f.url, rows[i].f.url); j++)
			;
		struct wp_file_row *f = &rows[j - 1].f;
		const char *leaf = f->filename;
		size_t leaf_len = strlen(leaf);
		const struct wp_seen_entry *e = wp_seen_find(&cs->seen, leaf, leaf_len);
		const char *first = e ? e->sha256 : NULL;
		for (size_t k = i; k < j && !first; k++) {
			/* a row that carries a conflict already (schema migration) keeps it: that
			 * hash came first */
			first = rows[k].f.hash_conflict ? rows[k].f.hash_conflict :
							  rows[k].f.sha256;
			if (first)
				cs->added[n_added++] = (struct wp_seen_entry){ leaf, leaf_len,
									       first, now };
		}
		if (mark && first && !f->hash_conflict && f->sha256 &&
		    strcmp(first, f->sha256) != 0) {
			f->hash_conflict = wp_arena_strdup(&cs->conflicts, first);
			(*conflicts)++;
		}
	}
	if (!n_added)
		goto out;
	/* rows come sorted by URL; names decoded from it may sort otherwise, and wp_seen_merge
	 * takes each name once */
	qsort(cs->added, n_added, sizeof(*cs->added), entry_cmp);
	size_t u = 0;
	for (size_t k = 0; k < n_added; k++)
		if (!u || entry_cmp(&cs->added[u - 1], &cs->added[k]) != 0)
			cs->added[u++] = cs->added[k];
	n_added = u;
	wp_seen_merge(&cs->seen, cs->added, n_added);
	struct wp_buf *out = &cs->seen_out;
	wp_buf_reset(out);
	wp_seen_encode(&cs->seen, out);
	st = cs->st_seen_put;
	sqlite3_bind_text(st, 1, wp_buf_cstr(&subdir), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, project, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, out->data, (int)out->len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot store first-seen hashes");
	sqlite3_reset(st);
out:
	wp_buf_free(&subdir);
	return rc;
}

/* Add a decoded row to cs->rows (its strings stay where they are, but for a URL the reader
 * rebuilt in its scratch, which is copied). */
static void push_row(struct wp_condastore *cs, const struct wp_file_row *f,
		     const struct wp_condapack_reader *rd)
{
	if (cs->n_rows == cs->cap_rows) {
		cs->cap_rows = cs->cap_rows ? cs->cap_rows * 2 : 256;
		cs->rows = wp_xrealloc(cs->rows, cs->cap_rows * sizeof(*cs->rows));
	}
	struct row *x = &cs->rows[cs->n_rows];
	x->f = *f;
	if (rd && f->url == wp_buf_cstr(&rd->url))
		x->f.url = wp_arena_strdup(&cs->urls, f->url);
	x->dir_len = wp_condapack_folder_len(x->f.url);
	x->idx = cs->n_rows++;
}

static int push_staged(void *ctx, const struct wp_file_row *f)
{
	push_row(ctx, f, NULL);
	return 0;
}

static void sort_rows(struct wp_condastore *cs)
{
	if (cs->n_rows > 1)
		qsort(cs->rows, cs->n_rows, sizeof(*cs->rows), row_cmp);
}

/* A stored chunk into cs->rows, sorted by folder, file name, then arrival. 0, or -1 when
 * damaged. */
static int load_chunk(struct wp_condastore *cs, const void *blob, size_t len,
		      struct wp_condapack_reader *rd)
{
	struct wp_file_row f;
	int r;
	cs->n_rows = 0;
	wp_condapack_reader_init(rd, blob, len);
	memset(&f, 0, sizeof(f));
	while ((r = wp_condapack_get_row(rd, &f)) == 1)
		push_row(cs, &f, rd);
	sort_rows(cs);
	return r;
}

/* Check each folder's run of rows against its first-seen list. */
static int check_runs(struct wp_catalog *cat, const char *project, bool mark, uint64_t *conflicts,
		      struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	int rc = 0;
	for (size_t i = 0, j; i < cs->n_rows && !rc; i = j) {
		for (j = i + 1; j < cs->n_rows && cs->rows[j].dir_len == cs->rows[i].dir_len &&
				!memcmp(cs->rows[j].f.url, cs->rows[i].f.url, cs->rows[i].dir_len);
		     j++)
			;
		rc = check_seen(cat, project, cs->rows + i, j - i, mark, conflicts, err);
	}
	return rc;
}

/* Pack cs->rows (dropping all but the last of rows with one URL) and insert them as one chunk. */
static int put_chunk(struct wp_catalog *cat, int64_t source_id, const char *project,
		     struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	struct wp_condapack_writer w;
	size_t n = 0;
	long long conflicts = 0;
	int rc = 0;
	wp_buf_reset(&cs->packed);
	wp_condapack_begin(&cs->packed);
	wp_condapack_writer_init(&w, &cs->packed);
	for (size_t i = 0; i < cs->n_rows; i++) {
		if (i + 1 < cs->n_rows && !strcmp(cs->rows[i].f.url, cs->rows[i + 1].f.url))
			continue;
		wp_condapack_put_row(&w, &cs->rows[i].f);
		conflicts += cs->rows[i].f.hash_conflict != NULL;
		n++;
	}
	wp_condapack_writer_release(&w);
	sqlite3_stmt *st = cs->st_chunk_put;
	sqlite3_bind_int64(st, 1, source_id);
	sqlite3_bind_text(st, 2, project, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)n);
	sqlite3_bind_int64(st, 4, conflicts);
	sqlite3_bind_blob(st, 5, cs->packed.data, (int)cs->packed.len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot store conda records");
	sqlite3_reset(st);
	return rc;
}

/* Write batch b: per package, its rows sorted, checked against the first-seen hashes, packed
 * into one chunk. Runs on the writer thread, or on the caller's while the writer is idle. */
static int write_batch(struct wp_catalog *cat, struct wp_condabatch *b, uint64_t *conflicts,
		       struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	int rc = 0;
	for (size_t i = 0; i < b->n_pkg && !rc; i++) {
		const char *project = wp_condabatch_package(b, i);
		cs->n_rows = 0;
		if (wp_condabatch_rows(b, i, push_staged, cs) < 0)
			rc = damaged(cat, err, "staged records", project); /* cannot happen: we
									      packed them */
		sort_rows(cs);
		if (!rc)
			rc = check_runs(cat, project, true, conflicts, err);
		if (!rc)
			rc = put_chunk(cat, b->source_id, project, err);
		wp_arena_free(&cs->conflicts);
		wp_arena_free(&cs->urls);
	}
	wp_condabatch_reset(b);
	return rc;
}

static void *writer_main(void *arg)
{
	struct wp_catalog *cat = arg;
	struct wp_condastore *cs = cat->conda;
	pthread_mutex_lock(&cs->mu);
	for (;;) {
		while (!cs->todo && !cs->quit)
			pthread_cond_wait(&cs->cv, &cs->mu);
		if (!cs->todo)
			break;
		struct wp_condabatch *b = cs->todo;
		uint64_t conflicts = 0;
		struct wp_err e = WP_ERR_INIT;
		pthread_mutex_unlock(&cs->mu);
		int rc = write_batch(cat, b, &conflicts, &e);
		pthread_mutex_lock(&cs->mu);
		if (rc && !cs->wrc) {
			cs->wrc = rc;
			cs->werr = e;
		}
		cs->wconflicts += conflicts;
		cs->todo = NULL;
		pthread_cond_broadcast(&cs->cv);
	}
	pthread_mutex_unlock(&cs->mu);
	return NULL;
}

/* Wait for the writer to be idle, then take what it found: its conflicts into the refresh's
 * count, its error (reported once) into err. Afterwards the caller may use the connection. */
static int settle(struct wp_catalog *cat, struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	int rc = 0;
	if (!cs || !cs->started)
		return 0;
	pthread_mutex_lock(&cs->mu);
	while (cs->todo)
		pthread_cond_wait(&cs->cv, &cs->mu);
	cat->refresh_conflicts += cs->wconflicts;
	cs->wconflicts = 0;
	/* kept until wp_condastore_discard: a refresh that lost a batch must not commit */
	if (cs->wrc) {
		rc = cs->wrc;
		wp_fail(err, rc, "%s", cs->werr.msg);
	}
	pthread_mutex_unlock(&cs->mu);
	return rc;
}

/* The fill batch is full: hand it to the writer and stage into the other one. Without a thread
 * (it could not be started) the batch is written here. */
static int hand_off(struct wp_catalog *cat, struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	int rc;
	if ((rc = settle(cat, err)))
		return rc;
	if (!cs->started && !cs->sync && pthread_create(&cs->thread, NULL, writer_main, cat) == 0)
		cs->started = true;
	if (!cs->started || cs->sync)
		return write_batch(cat, cs->fill, &cat->refresh_conflicts, err);
	pthread_mutex_lock(&cs->mu);
	cs->todo = cs->fill;
	pthread_cond_signal(&cs->cv);
	pthread_mutex_unlock(&cs->mu);
	cs->fill = cs->fill == &cs->batch[0] ? &cs->batch[1] : &cs->batch[0];
	return 0;
}

int wp_condastore_flush(struct wp_catalog *cat, struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	int rc;
	if (!cs)
		return 0;
	if ((rc = settle(cat, err)))
		return rc;
	return cs->fill->n_pkg ? write_batch(cat, cs->fill, &cat->refresh_conflicts, err) : 0;
}

int wp_condastore_idle(struct wp_catalog *cat, struct wp_err *err)
{
	return settle(cat, err);
}

int wp_condastore_add(struct wp_catalog *cat, int64_t source_id, const struct wp_file_row *f,
		      struct wp_err *err)
{
	int rc;
	if ((rc = prepare(cat, err)))
		return rc;
	struct wp_condastore *cs = cat->conda;
	if (!f->project || !f->url || !f->filename || !f->version)
		return wp_fail(err, -WPE_CATALOG,
			       "catalog '%s': a conda record without a name, URL or version",
			       cat->path);
	if (cs->fill->n_pkg && cs->fill->source_id != source_id &&
	    (rc = wp_condastore_flush(cat, err)))
		return rc;
	/* as the files table stores a row: no variant is "", an unknown number -1 */
	struct wp_file_row row = *f;
	row.variant = f->variant ? f->variant : "";
	row.size = f->size < 0 ? -1 : f->size;
	row.build_number = f->build_number < 0 ? -1 : f->build_number;
	row.timestamp = f->timestamp < 0 ? -1 : f->timestamp;
	cs->fill->source_id = source_id;
	wp_condabatch_add(cs->fill, &row);
	if (cs->fill->stage.len >=
	    (cat->conda_batch_bytes ? cat->conda_batch_bytes : WP_CONDASTORE_BATCH_BYTES))
		return hand_off(cat, err);
	return 0;
}

void wp_condastore_discard(struct wp_catalog *cat)
{
	struct wp_condastore *cs = cat->conda;
	if (!cs)
		return;
	settle(cat, NULL);
	cs->wrc = 0;
	wp_condabatch_reset(&cs->batch[0]);
	wp_condabatch_reset(&cs->batch[1]);
}

/* Run one statement, binding id to ?1 when it has one. */
static int run_one(struct wp_catalog *cat, const char *sql, int64_t id, struct wp_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot update conda records");
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot update conda records");
	sqlite3_finalize(st);
	return rc;
}

int wp_condastore_clear_source(struct wp_catalog *cat, int64_t source_id, struct wp_err *err)
{
	wp_condastore_discard(cat);
	return run_one(cat, "DELETE FROM conda_chunks WHERE source_id = ?1", source_id, err);
}

/* A package's chunks, copied out of SQLite so that all its rows can be held at once: a file
 * listed twice may sit in two chunks (two batches of one refresh), and only the last is kept, as
 * the files table's UNIQUE (source_id, url) kept the last row written. */
struct held_chunk {
	int64_t id, source_id;
	char *source_url;
	void *blob;
	size_t len;
};

struct held_row {
	struct wp_file_row f;
	size_t pos;
	bool drop;
};

static int held_cmp(const void *a, const void *b)
{
	const struct held_row *x = *(const struct held_row *const *)a,
			      *y = *(const struct held_row *const *)b;
	if (x->f.source_id != y->f.source_id)
		return x->f.source_id < y->f.source_id ? -1 : 1;
	int c = strcmp(x->f.url, y->f.url);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

int wp_condastore_files(struct wp_catalog *cat, const char *name, wp_file_row_fn *fn, void *ctx,
			struct wp_err *err)
{
	static const char
		sql[] = "SELECT c.id, c.source_id, c.records, s.url FROM conda_chunks c"
			" JOIN sources s ON s.id = c.source_id WHERE c.project = ?1 ORDER BY c.id";
	sqlite3_stmt *st = NULL;
	struct held_chunk *ch = NULL;
	struct held_row *rows = NULL, **by_url = NULL;
	size_t n_ch = 0, cap_ch = 0, n_rows = 0, cap_rows = 0;
	struct wp_arena urls = WP_ARENA_INIT;
	int rc = 0, s;
	if (sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK)
		return wp_catalog_fail(cat, err, "cannot query conda records");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct held_chunk c = { .id = sqlite3_column_int64(st, 0),
					.source_id = sqlite3_column_int64(st, 1),
					.len = (size_t)sqlite3_column_bytes(st, 2) };
		c.blob = wp_xmalloc(c.len ? c.len : 1);
		if (c.len)
			memcpy(c.blob, sqlite3_column_blob(st, 2), c.len);
		c.source_url = wp_xstrdup(
			sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
		wp_vec_push_fields(ch, n_ch, cap_ch, c);
	}
	if (s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read conda records");
	sqlite3_finalize(st);

	for (size_t i = 0; i < n_ch && !rc; i++) {
		struct wp_condapack_reader rd;
		struct wp_file_row f;
		int r;
		memset(&f, 0, sizeof(f));
		wp_condapack_reader_init(&rd, ch[i].blob, ch[i].len);
		while ((r = wp_condapack_get_row(&rd, &f)) == 1) {
			if (n_rows == cap_rows) {
				cap_rows = cap_rows ? cap_rows * 2 : 64;
				rows = wp_xrealloc(rows, cap_rows * sizeof(*rows));
			}
			struct held_row *h = &rows[n_rows];
			h->f = f;
			if (f.url == wp_buf_cstr(&rd.url))
				h->f.url = wp_arena_strdup(&urls, f.url);
			h->f.id = ch[i].id;
			h->f.source_id = ch[i].source_id;
			h->f.source_url = ch[i].source_url;
			h->f.project = name;
			h->f.kind = "conda";
			h->pos = n_rows++;
			h->drop = false;
		}
		if (r < 0)
			rc = damaged(cat, err, "conda records", name);
		wp_condapack_reader_release(&rd);
	}
	if (!rc && n_ch > 1 && n_rows > 1) {
		by_url = wp_xmalloc(n_rows * sizeof(*by_url));
		for (size_t i = 0; i < n_rows; i++)
			by_url[i] = &rows[i];
		qsort(by_url, n_rows, sizeof(*by_url), held_cmp);
		for (size_t i = 0; i + 1 < n_rows; i++)
			by_url[i]->drop = by_url[i]->f.source_id == by_url[i + 1]->f.source_id &&
					  !strcmp(by_url[i]->f.url, by_url[i + 1]->f.url);
	}
	for (size_t i = 0; i < n_rows && !rc; i++)
		if (!rows[i].drop)
			rc = fn(ctx, &rows[i].f, err);

	free(by_url);
	free(rows);
	wp_arena_free(&urls);
	for (size_t i = 0; i < n_ch; i++) {
		free(ch[i].blob);
		free(ch[i].source_url);
	}
	free(ch);
	return rc;
}

/* Write the package's first-seen list for subdir back (or remove it when it is empty). */
static int put_seen(struct wp_catalog *cat, const char *subdir, const char *project,
		    sqlite3_stmt *del, struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	sqlite3_stmt *w = cs->seen.n ? cs->st_seen_put : del;
	int rc = 0;
	wp_buf_reset(&cs->seen_out);
	wp_seen_encode(&cs->seen, &cs->seen_out);
	sqlite3_bind_text(w, 1, subdir, -1, SQLITE_STATIC);
	sqlite3_bind_text(w, 2, project, -1, SQLITE_STATIC);
	if (cs->seen.n)
		sqlite3_bind_blob(w, 3, cs->seen_out.data, (int)cs->seen_out.len, SQLITE_STATIC);
	if (sqlite3_step(w) != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot update first-seen hashes");
	sqlite3_reset(w);
	return rc;
}

/* The package's first-seen list for subdir into cs->seen (empty when there is none). */
static int get_seen(struct wp_catalog *cat, const char *subdir, const char *project,
		    struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	sqlite3_stmt *st = cs->st_seen_get;
	wp_buf_reset(&cs->seen_blob);
	sqlite3_bind_text(st, 1, subdir, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, project, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		wp_buf_add(&cs->seen_blob, sqlite3_column_blob(st, 0),
			   (size_t)sqlite3_column_bytes(st, 0));
	sqlite3_reset(st);
	cs->seen.n = 0;
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return wp_catalog_fail(cat, err, "cannot read first-seen hashes");
	if (s == SQLITE_ROW && wp_seen_decode(&cs->seen, cs->seen_blob.data, cs->seen_blob.len) < 0)
		return damaged(cat, err, "first-seen hashes", project);
	return 0;
}

/* The files listed at a URL that matches pattern: their current hashes become the first seen for
 * their names (the user accepted them), whatever another listing of the name says. */
static int accept_seen(struct wp_catalog *cat, const char *pattern, struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	struct wp_condapack_reader rd;
	struct wp_buf subdir = WP_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc = 0, s = SQLITE_DONE;
	long long now = (long long)time(NULL);
	memset(&rd, 0, sizeof(rd));
	if (sqlite3_prepare_v2(cat->db, "SELECT project, records FROM conda_chunks ORDER BY id", -1,
			       &st, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot read first-seen hashes");
		goto out;
	}
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *project = (const char *)sqlite3_column_text(st, 0);
		project = project ? project : "";
		if (load_chunk(cs, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
			       &rd) < 0) {
			rc = damaged(cat, err, "conda records", project);
			break;
		}
		for (size_t i = 0, j; i < cs->n_rows && !rc; i = j) {
			bool any = false;
			for (j = i;
			     j < cs->n_rows && cs->rows[j].dir_len == cs->rows[i].dir_len &&
			     !memcmp(cs->rows[j].f.url, cs->rows[i].f.url, cs->rows[i].dir_len);
			     j++)
				any |= cs->rows[j].f.sha256 &&
				       sqlite3_strlike(pattern, cs->rows[j].f.url, 0) == 0;
			if (!any)
				continue;
			subdir_of(cs->rows[i].f.url, cs->rows[i].dir_len, &subdir);
			if ((rc = get_seen(cat, wp_buf_cstr(&subdir), project, err)))
				break;
			if (j - i > cs->cap_added) {
				cs->cap_added = j - i;
				cs->added = wp_xrealloc(cs->added,
							cs->cap_added * sizeof(*cs->added));
			}
			size_t n_added = 0;
			for (size_t k = i; k < j; k++) {
				const struct wp_file_row *f = &cs->rows[k].f;
				if (!f->sha256 || sqlite3_strlike(pattern, f->url, 0) != 0)
					continue;
				struct wp_seen_entry *e = (struct wp_seen_entry *)
					wp_seen_find(&cs->seen, f->filename, strlen(f->filename));
				if (e) {
					e->sha256 = f->sha256;
					e->first_seen = now;
				} else {
					cs->added[n_added++] = (struct wp_seen_entry){
						f->filename, strlen(f->filename), f->sha256, now
					};
				}
			}
			qsort(cs->added, n_added, sizeof(*cs->added), entry_cmp);
			size_t u = 0;
			for (size_t k = 0; k < n_added; k++)
				if (!u || entry_cmp(&cs->added[u - 1], &cs->added[k]) != 0)
					cs->added[u++] = cs->added[k];
			wp_seen_merge(&cs->seen, cs->added, u);
			rc = put_seen(cat, wp_buf_cstr(&subdir), project, NULL, err);
		}
		wp_arena_free(&cs->urls);
		/* the next chunk's reader starts afresh: its URL buffer goes now, not with the
		 * last */
		wp_condapack_reader_release(&rd);
	}
	if (!rc && s != SQLITE_DONE && s != SQLITE_ROW)
		rc = wp_catalog_fail(cat, err, "cannot read conda records");
out:
	wp_condapack_reader_release(&rd);
	sqlite3_finalize(st);
	wp_buf_free(&subdir);
	return rc;
}

/* Clear the conflicts whose URL matches pattern (all when NULL) in every chunk that has some, and
 * then record every listed file's hash as first seen where none is (the ones just forgotten). */
static int clear_and_reseed(struct wp_catalog *cat, const char *pattern, int64_t *n,
			    struct wp_err *err)
{
	struct wp_condastore *cs = cat->conda;
	struct wp_condapack_reader rd;
	sqlite3_stmt *st = NULL, *up = NULL;
	uint64_t ignored = 0;
	int rc = 0, s = SQLITE_DONE;
	memset(&rd, 0, sizeof(rd));
	if (sqlite3_prepare_v2(cat->db,
			       "SELECT id, source_id, project, conflicts, records FROM conda_chunks ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cat->db,
			       "UPDATE conda_chunks SET conflicts = ?2, records = ?3 WHERE id = ?1",
			       -1, &up, NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot read conda records");
		goto out;
	}
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *project = (const char *)sqlite3_column_text(st, 2);
		if (load_chunk(cs, sqlite3_column_blob(st, 4), (size_t)sqlite3_column_bytes(st, 4),
			       &rd) < 0) {
			rc = damaged(cat, err, "conda records", project ? project : "?");
			wp_condapack_reader_release(&rd);
			wp_arena_free(&cs->urls);
			break;
		}
		if (sqlite3_column_int64(st, 3) > 0) {
			long long left = 0, cleared = 0;
			for (size_t i = 0; i < cs->n_rows; i++) {
				struct wp_file_row *f = &cs->rows[i].f;
				if (f->hash_conflict &&
				    (!pattern || sqlite3_strlike(pattern, f->url, 0) == 0)) {
					f->hash_conflict = NULL;
					cleared++;
				}
				left += f->hash_conflict != NULL;
			}
			if (cleared) {
				*n += cleared;
				struct wp_condapack_writer w;
				wp_buf_reset(&cs->packed);
				wp_condapack_begin(&cs->packed);
				wp_condapack_writer_init(&w, &cs->packed);
				for (size_t i = 0; i < cs->n_rows; i++)
					wp_condapack_put_row(&w, &cs->rows[i].f);
				wp_condapack_writer_release(&w);
				sqlite3_bind_int64(up, 1, sqlite3_column_int64(st, 0));
				sqlite3_bind_int64(up, 2, left);
				sqlite3_bind_blob(up, 3, cs->packed.data, (int)cs->packed.len,
						  SQLITE_STATIC);
				if (sqlite3_step(up) != SQLITE_DONE)
					rc = wp_catalog_fail(cat, err,
							     "cannot update conda records");
				sqlite3_reset(up);
			}
		}
		if (!rc)
			rc = check_runs(cat, project ? project : "", false, &ignored, err);
		wp_condapack_reader_release(&rd);
		wp_arena_free(&cs->urls);
	}
	if (!rc && s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read conda records");
out:
	sqlite3_finalize(st);
	sqlite3_finalize(up);
	return rc;
}

int wp_condastore_accept(struct wp_catalog *cat, const char *url_like, int64_t *n,
			 struct wp_err *err)
{
	int rc;
	if ((rc = prepare(cat, err)))
		return rc;
	if (!url_like)
		rc = run_one(cat, "DELETE FROM conda_seen_files", 0, err);
	else
		rc = accept_seen(cat, url_like, err);
	return rc ? rc : clear_and_reseed(cat, url_like, n, err);
}

int wp_condastore_migrate(struct wp_catalog *cat, struct wp_err *err)
{
	static const char sql[] =
		"SELECT source_id, project, version, variant, filename, url, sha256, md5, requires_python, yanked,"
		" core_metadata, tags, build, subdir, depends, constrains, track_features, hash_conflict, size,"
		" build_number, timestamp FROM files WHERE kind = 'conda' ORDER BY source_id, id";
	sqlite3_stmt *st = NULL;
	int rc = 0, s;
	if ((rc = prepare(cat, err)))
		return rc;
	/* the SELECT below stays open on the connection while rows are added: no writer thread */
	cat->conda->sync = true;
	if (sqlite3_prepare_v2(cat->db, sql, -1, &st, NULL) != SQLITE_OK) {
		cat->conda->sync = false;
		return wp_catalog_fail(cat, err, "cannot read conda records to move");
	}
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct wp_file_row f = { .source_id = sqlite3_column_int64(st, 0),
					 .kind = "conda" };
		const char **text[] = {
			&f.project,      &f.version,       &f.variant,    &f.filename,
			&f.url,          &f.sha256,        &f.md5,        &f.requires_python,
			&f.yanked,       &f.core_metadata, &f.tags,       &f.build,
			&f.subdir,       &f.depends,       &f.constrains, &f.track_features,
			&f.hash_conflict
		};
		for (size_t i = 0; i < WP_ARRAY_LEN(text); i++)
			*text[i] = (const char *)sqlite3_column_text(st, 1 + (int)i);
		long long *num[] = { &f.size, &f.build_number, &f.timestamp };
		for (size_t i = 0; i < WP_ARRAY_LEN(num); i++) {
			int c = 1 + (int)WP_ARRAY_LEN(text) + (int)i;
			*num[i] = sqlite3_column_type(st, c) == SQLITE_NULL ?
					  -1 :
					  sqlite3_column_int64(st, c);
		}
		rc = wp_condastore_add(cat, f.source_id, &f, err);
	}
	if (!rc && s != SQLITE_DONE)
		rc = wp_catalog_fail(cat, err, "cannot read conda records to move");
	sqlite3_finalize(st);
	if (!rc)
		rc = wp_condastore_flush(cat, err);
	if (!rc)
		rc = run_one(cat,
			     "DELETE FROM seen_hashes WHERE url IN (SELECT url FROM files WHERE kind = 'conda')",
			     0, err);
	if (!rc)
		rc = run_one(cat, "DELETE FROM files WHERE kind = 'conda'", 0, err);
	if (rc)
		wp_condastore_discard(cat);
	cat->conda->sync = false;
	return rc;
}

/* One old entry, its name decoded, on its way to a subdir's list. */
struct old_seen {
	const char *subdir, *project, *leaf, *sha256;
	long long first_seen;
};

static int old_seen_cmp(const void *a, const void *b)
{
	const struct old_seen *x = a, *y = b;
	int c = strcmp(x->project, y->project);
	if (!c)
		c = strcmp(x->subdir, y->subdir);
	if (!c)
		c = strcmp(x->leaf, y->leaf);
	if (!c)
		c = (x->first_seen > y->first_seen) - (x->first_seen < y->first_seen);
	return c;
}

int wp_condastore_migrate_seen(struct wp_catalog *cat, struct wp_err *err)
{
	struct wp_condastore *cs;
	struct wp_arena mem = WP_ARENA_INIT;
	struct wp_buf subdir = WP_BUF_INIT;
	struct wp_seen_list old = { 0 };
	struct old_seen *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int rc, s;
	if ((rc = prepare(cat, err)))
		return rc;
	cs = cat->conda;
	if (sqlite3_prepare_v2(cat->db, "SELECT dir, project, hashes FROM conda_seen", -1, &st,
			       NULL) != SQLITE_OK) {
		rc = wp_catalog_fail(cat, err, "cannot read first-seen hashes to move");
		goto out;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *dir = (const char *)sqlite3_column_text(st, 0),
			   *project = (const char *)sqlite3_column_text(st, 1);
		if (!dir || !project ||
		    wp_seen_decode(&old, sqlite3_column_blob(st, 2),
				   (size_t)sqlite3_column_bytes(st, 2)) < 0) {
			rc = damaged(cat, err, "first-seen hashes", project ? project : "?");
			goto out;
		}
		subdir_of(dir, strlen(dir), &subdir);
		const char *sd = wp_arena_strdup(&mem, wp_buf_cstr(&subdir)),
			   *pj = wp_arena_strdup(&mem, project);
		for (size_t i = 0; i < old.n; i++) {
			/* schemas 3-4 keyed entries by the URL's last segment, as written */
			char *leaf = NULL, *raw = wp_xstrndup(old.v[i].leaf, old.v[i].leaf_len);
			struct old_seen e = { sd, pj, NULL, wp_arena_strdup(&mem, old.v[i].sha256),
					      old.v[i].first_seen };
			e.leaf = wp_arena_strdup(&mem,
						 wp_url_decode(raw, strlen(raw), &leaf, NULL) == 0 ?
							 leaf :
							 raw);
			free(leaf);
			free(raw);
			wp_vec_push_fields(v, n, cap, e);
		}
	}
	if (s != SQLITE_DONE) {
		rc = wp_catalog_fail(cat, err, "cannot read first-seen hashes to move");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (n > 1)
		qsort(v, n, sizeof(*v), old_seen_cmp);
	/* per (project, subdir): the earliest of each name joins what that list holds already */
	for (size_t i = 0, j; i < n && !rc; i = j) {
		for (j = i + 1; j < n && !strcmp(v[j].project, v[i].project) &&
				!strcmp(v[j].subdir, v[i].subdir);
		     j++)
			;
		if ((rc = get_seen(cat, v[i].subdir, v[i].project, err)))
			break;
		size_t n_added = 0;
		if (j - i > cs->cap_added) {
			cs->cap_added = j - i;
			cs->added = wp_xrealloc(cs->added, cs->cap_added * sizeof(*cs->added));
		}
		for (size_t k = i; k < j; k++) {
			if (k > i && !strcmp(v[k].leaf, v[k - 1].leaf))
				continue; /* a later sighting of the same name */
			if (wp_seen_find(&cs->seen, v[k].leaf, strlen(v[k].leaf)))
				continue;
			cs->added[n_added++] = (struct wp_seen_entry){ v[k].leaf, strlen(v[k].leaf),
								       v[k].sha256,
								       v[k].first_seen };
		}
		if (!n_added)
			continue;
		wp_seen_merge(&cs->seen, cs->added, n_added);
		rc = put_seen(cat, v[i].subdir, v[i].project, NULL, err);
	}
	if (!rc)
		rc = run_one(cat, "DROP TABLE conda_seen", 0, err);
out:
	sqlite3_finalize(st);
	wp_seen_release(&old);
	free(v);
	wp_buf_free(&subdir);
	wp_arena_free(&mem);
	return rc;
}

void wp_condastore_free(struct wp_catalog *cat)
{
	struct wp_condastore *cs = cat->conda;
	if (!cs)
		return;
	if (cs->started) {
		pthread_mutex_lock(&cs->mu);
		cs->quit = true;
		pthread_cond_broadcast(&cs->cv);
		pthread_mutex_unlock(&cs->mu);
		pthread_join(cs->thread, NULL);
	}
	pthread_mutex_destroy(&cs->mu);
	pthread_cond_destroy(&cs->cv);
	wp_condabatch_free(&cs->batch[0]);
	wp_condabatch_free(&cs->batch[1]);
	sqlite3_finalize(cs->st_chunk_put);
	sqlite3_finalize(cs->st_seen_get);
	sqlite3_finalize(cs->st_seen_put);
	free(cs->rows);
	free(cs->added);
	wp_buf_free(&cs->seen_blob);
	wp_buf_free(&cs->seen_out);
	wp_buf_free(&cs->packed);
	wp_seen_release(&cs->seen);
	wp_arena_free(&cs->conflicts);
	wp_arena_free(&cs->urls);
	free(cs);
	cat->conda = NULL;
}
