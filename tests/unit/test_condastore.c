/* tests/unit/test_condastore.c: conda records packed per package in the catalog: the encoding
 * (round trip, damaged blobs), first-seen lists, refreshes across batches, trust on first use,
 * `trust`, a rolled-back refresh and the move from a schema 2 catalog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/vec.h"
#include "cache/catalog.h"
#include "cache/condapack.h"

static const char *CH = "https://conda.example/chan/linux-64";

/* ---- the encoding ---- */

static void expect_same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void expect_same_row(const struct wp_file_row *a, const struct wp_file_row *b)
{
	const char *const sa[] = {
		a->version,       a->variant,    a->filename,        a->url,
		a->sha256,        a->md5,        a->requires_python, a->yanked,
		a->core_metadata, a->tags,       a->build,           a->subdir,
		a->depends,       a->constrains, a->track_features,  a->hash_conflict
	};
	const char *const sb[] = {
		b->version,       b->variant,    b->filename,        b->url,
		b->sha256,        b->md5,        b->requires_python, b->yanked,
		b->core_metadata, b->tags,       b->build,           b->subdir,
		b->depends,       b->constrains, b->track_features,  b->hash_conflict
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(sa); i++)
		expect_same_str(sa[i], sb[i]);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->build_number, b->build_number);
	assert_int_equal(a->timestamp, b->timestamp);
}

static const struct wp_file_row sample[] = {
	{ .version = "1.8.0",
	  .variant = "cu111",
	  .filename = "pytorch-1.8.0-py3.8_cuda11.1_0.tar.bz2",
	  .url = "https://conda.example/chan/linux-64/pytorch-1.8.0-py3.8_cuda11.1_0.tar.bz2",
	  .sha256 = "aa",
	  .md5 = "bb",
	  .build = "py3.8_cuda11.1_0",
	  .subdir = "linux-64",
	  .depends = "[\"python >=3.8\"]",
	  .size = 1234567890123LL,
	  .build_number = 0,
	  .timestamp = 1600000000000LL },
	/* same folder: the URL is not stored again */
	{ .version = "1.8.0",
	  .variant = "",
	  .filename = "pytorch-1.8.0-py3.8_cpu_0.tar.bz2",
	  .url = "https://conda.example/chan/linux-64/pytorch-1.8.0-py3.8_cpu_0.tar.bz2",
	  .size = -1,
	  .build_number = -1,
	  .timestamp = -1,
	  .hash_conflict = "cc" },
	/* a URL that is not folder/filename (CEP 15 base_url elsewhere, or encoded) */
	{ .version = "2",
	  .filename = "x-2-0.conda",
	  .url = "https://cdn.example/x-2-0.conda?sig=1",
	  .yanked = "",
	  .requires_python = ">=3",
	  .core_metadata = "true",
	  .tags = "t",
	  .track_features = "a b",
	  .constrains = "[]",
	  .size = 0,
	  .build_number = -7,
	  .timestamp = -123456 },
	/* no folder at all */
	{ .version = "3", .filename = "y", .url = "y", .size = 1, .build_number = 1, .timestamp = 1 },
};

static void pack_sample(struct wp_buf *b)
{
	struct wp_condapack_writer w;
	wp_condapack_begin(b);
	wp_condapack_writer_init(&w, b);
	for (size_t i = 0; i < WP_ARRAY_LEN(sample); i++)
		wp_condapack_put_row(&w, &sample[i]);
	wp_condapack_writer_release(&w);
}

static void test_pack_round_trip(void **state)
{
	struct wp_buf b = WP_BUF_INIT;
	struct wp_condapack_reader r;
	struct wp_file_row f;
	pack_sample(&b);
	/* the second URL is elided: the blob is shorter than one that repeats it */
	assert_null(memmem(b.data, b.len, sample[1].url, strlen(sample[1].url)));
	wp_condapack_reader_init(&r, b.data, b.len);
	for (size_t i = 0; i < WP_ARRAY_LEN(sample); i++) {
		memset(&f, 0, sizeof(f));
		assert_int_equal(wp_condapack_get_row(&r, &f), 1);
		expect_same_row(&f, &sample[i]);
	}
	assert_int_equal(wp_condapack_get_row(&r, &f), 0);
	wp_condapack_reader_release(&r);
	wp_buf_free(&b);
}

/* Every truncation and every single-byte change of a valid blob reads as damaged or as fewer
 * rows, never past its end (ASan and valgrind runs check that). */
static void test_pack_damaged(void **state)
{
	struct wp_buf b = WP_BUF_INIT;
	struct wp_file_row f;
	pack_sample(&b);
	for (size_t len = 0; len < b.len; len++) {
		unsigned char *copy = wp_xmalloc(len ? len : 1); /* exact size: an overread is
								    caught */
		memcpy(copy, b.data, len);
		struct wp_condapack_reader r;
		int got, rows = 0;
		wp_condapack_reader_init(&r, copy, len);
		while ((got = wp_condapack_get_row(&r, &f)) == 1)
			rows++;
		assert_true(got == -1 || (got == 0 && rows < (int)WP_ARRAY_LEN(sample)));
		wp_condapack_reader_release(&r);
		free(copy);
	}
	for (size_t at = 0; at < b.len; at++)
		for (int bit = 0; bit < 8; bit++) {
			unsigned char *copy = wp_xmalloc(b.len);
			memcpy(copy, b.data, b.len);
			copy[at] ^= (unsigned char)(1u << bit);
			struct wp_condapack_reader r;
			wp_condapack_reader_init(&r, copy, b.len);
			for (int n = 0; wp_condapack_get_row(&r, &f) == 1; n++)
				assert_true(n < 64);
			wp_condapack_reader_release(&r);
			free(copy);
		}
	/* another layout version is refused, not guessed at */
	b.data[0] = 2;
	struct wp_condapack_reader r;
	wp_condapack_reader_init(&r, b.data, b.len);
	assert_int_equal(wp_condapack_get_row(&r, &f), -1);
	wp_condapack_reader_release(&r);
	wp_buf_free(&b);
}

static void test_seen_list(void **state)
{
	struct wp_seen_list l = { 0 };
	struct wp_seen_entry add1[] = { { "b", 1, "hb", 10 }, { "d", 1, "hd", 11 } };
	struct wp_seen_entry add2[] = { { "a", 1, "ha", 12 },
					{ "c", 1, "hc", 13 },
					{ "e.conda", 7, "he", 14 } };
	struct wp_buf enc = WP_BUF_INIT;
	wp_seen_merge(&l, add1, 2);
	wp_seen_merge(&l, add2, 3);
	assert_int_equal(l.n, 5);
	for (size_t i = 1; i < l.n; i++)
		assert_true(strcmp(l.v[i - 1].leaf, l.v[i].leaf) < 0);
	wp_seen_encode(&l, &enc);
	struct wp_seen_list back = { 0 };
	assert_int_equal(wp_seen_decode(&back, enc.data, enc.len), 0);
	assert_int_equal(back.n, 5);
	const struct wp_seen_entry *e = wp_seen_find(&back, "c", 1);
	assert_non_null(e);
	assert_string_equal(e->sha256, "hc");
	assert_int_equal(e->first_seen, 13);
	assert_null(wp_seen_find(&back, "cc", 2));
	assert_non_null(wp_seen_find(&back, "e.conda", 7));
	/* unsorted or repeated names would make lookups miss: refused */
	struct wp_seen_list bad = { 0 };
	struct wp_seen_entry twice[] = { { "a", 1, "h1", 1 }, { "a", 1, "h2", 2 } };
	bad.v = wp_xmalloc(sizeof(twice));
	memcpy(bad.v, twice, sizeof(twice));
	bad.n = bad.cap = 2;
	struct wp_buf benc = WP_BUF_INIT;
	wp_seen_encode(&bad, &benc);
	assert_int_equal(wp_seen_decode(&back, benc.data, benc.len), -1);
	/* truncations */
	for (size_t len = 0; len < enc.len; len++) {
		unsigned char *copy = wp_xmalloc(len ? len : 1);
		memcpy(copy, enc.data, len);
		int rc = wp_seen_decode(&back, copy, len);
		assert_true(rc == -1 || back.n < 5);
		free(copy);
	}
	wp_buf_free(&benc);
	wp_seen_release(&bad);
	wp_seen_release(&back);
	wp_seen_release(&l);
	wp_buf_free(&enc);
}

/* ---- in a catalog ---- */

struct fx {
	char dir[64];
	char path[96];
	struct wp_catalog cat;
};

static int fx_setup(void **state)
{
	struct fx *x = wp_xcalloc(1, sizeof(*x));
	if (test_tmpdir_make(x->dir, sizeof(x->dir), "condastore") < 0)
		return -1;
	snprintf(x->path, sizeof(x->path), "%s/c.sqlite3", x->dir);
	struct wp_err err = WP_ERR_INIT;
	if (wp_catalog_open(&x->cat, x->path, &err) < 0)
		return -1;
	x->cat.conda_batch_bytes = 4096; /* a few dozen records per batch: refreshes cross batches
					  */
	*state = x;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *x = *state;
	wp_catalog_close(&x->cat);
	int rc = test_tmpdir_remove(x->dir);
	free(x);
	return rc;
}

/* Record i of a synthetic channel: package "p<i % 7>", interleaved as an unsorted repodata is. */
struct rowbuf {
	char name[16], file[80], url[160], sha[80];
};

static void make_row(size_t i, struct rowbuf *b, struct wp_file_row *f)
{
	snprintf(b->name, sizeof(b->name), "p%zu", i % 7);
	snprintf(b->file, sizeof(b->file), "p%zu-1.%zu-h%zu_0.tar.bz2", i % 7, i, i);
	snprintf(b->url, sizeof(b->url), "%s/%s", CH, b->file);
	snprintf(b->sha, sizeof(b->sha), "%064zx", i);
	*f = (struct wp_file_row){ .project = b->name,
				   .version = "1.0",
				   .variant = "",
				   .kind = "conda",
				   .filename = b->file,
				   .url = b->url,
				   .sha256 = b->sha,
				   .build = "h_0",
				   .subdir = "linux-64",
				   .depends = "[\"python >=3.8\", \"libgcc-ng >=12\"]",
				   .size = (long long)i,
				   .build_number = 0,
				   .timestamp = (long long)i * 1000 };
}

/* Refresh CH's repodata with n records; record `changed` (if < n) gets another sha256. */
static uint64_t refresh(struct fx *x, size_t n, size_t changed)
{
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	assert_int_equal(wp_catalog_refresh_begin(&x->cat,
						  "https://conda.example/chan/linux-64/repodata.json",
						  WP_SOURCE_REPODATA, &sid, &err),
			 0);
	for (size_t i = 0; i < n; i++) {
		struct rowbuf buf;
		struct wp_file_row f;
		make_row(i, &buf, &f);
		if (i == changed)
			buf.sha[0] = 'f';
		f.source_id = sid;
		assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
	}
	assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, (int64_t)n,
						   &err),
			 0);
	return x->cat.refresh_conflicts;
}

struct collect {
	size_t n, conflicts;
	long long size_sum;
	char *conflict_url, *conflict_first;
};

static int collect_fn(void *ctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct collect *c = ctx;
	assert_string_equal(r->kind, "conda");
	assert_non_null(r->source_url);
	assert_true(strncmp(r->url, CH, strlen(CH)) == 0);
	assert_string_equal(r->url + strlen(CH) + 1, r->filename);
	c->n++;
	c->size_sum += r->size;
	if (r->hash_conflict) {
		c->conflicts++;
		free(c->conflict_url), free(c->conflict_first);
		c->conflict_url = wp_xstrdup(r->url);
		c->conflict_first = wp_xstrdup(r->hash_conflict);
	}
	return 0;
}

static struct collect files_of(struct fx *x, const char *name)
{
	struct collect c = { 0 };
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_catalog_files(&x->cat, name, true, collect_fn, &c, &err), 0);
	return c;
}

static void collect_release(struct collect *c)
{
	free(c->conflict_url);
	free(c->conflict_first);
}

static void test_refresh_across_batches(void **state)
{
	struct fx *x = *state;
	assert_int_equal(refresh(x, 500, (size_t)-1), 0);
	size_t total = 0;
	long long sum = 0;
	for (int p = 0; p < 7; p++) {
		char name[8];
		snprintf(name, sizeof(name), "p%d", p);
		struct collect c = files_of(x, name);
		total += c.n;
		sum += c.size_sum;
		assert_int_equal(c.conflicts, 0);
		collect_release(&c);
	}
	assert_int_equal(total, 500);
	assert_int_equal(sum, 499 * 500 / 2);
	/* more than one batch was written, so packages span chunks */
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(x->cat.db, "SELECT count(*) FROM conda_chunks", -1, &st,
					    NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_true(sqlite3_column_int(st, 0) > 7);
	sqlite3_finalize(st);
	/* a pick's lookup by name uses the index (the query cache/condastore.c sends) */
	assert_int_equal(sqlite3_prepare_v2(x->cat.db,
					    "EXPLAIN QUERY PLAN SELECT c.id, c.source_id, c.records, s.url"
					    " FROM conda_chunks c JOIN sources s ON s.id = c.source_id WHERE c.project = 'p1'"
					    " ORDER BY c.id",
					    -1, &st, NULL),
			 SQLITE_OK);
	bool indexed = false;
	while (sqlite3_step(st) == SQLITE_ROW)
		indexed |= strstr((const char *)sqlite3_column_text(st, 3),
				  "conda_chunks_by_project") != NULL;
	sqlite3_finalize(st);
	assert_true(indexed);
	/* a refresh replaces, never adds */
	assert_int_equal(refresh(x, 300, (size_t)-1), 0);
	struct collect c = files_of(x, "p0");
	assert_int_equal(c.n, (300 + 6) / 7);
	collect_release(&c);
}

static void test_first_seen_and_trust(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	int64_t n = -1;
	assert_int_equal(refresh(x, 200, (size_t)-1), 0);
	/* record 15 (package p1) now has another hash: one conflict, the first hash kept */
	assert_int_equal(refresh(x, 200, 15), 1);
	struct collect c = files_of(x, "p1");
	assert_int_equal(c.conflicts, 1);
	assert_non_null(strstr(c.conflict_url, "/p1-1.15-h15_0.tar.bz2"));
	char first[80];
	snprintf(first, sizeof(first), "%064zx", (size_t)15);
	assert_string_equal(c.conflict_first, first);
	collect_release(&c);
	/* it stays refused on every later refresh */
	assert_int_equal(refresh(x, 200, 15), 1);
	/* trust with a pattern that misses changes nothing */
	assert_int_equal(wp_catalog_accept_hashes(&x->cat, "%/p2-%", &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(refresh(x, 200, 15), 1);
	/* trust the file: the new hash is now the one first seen */
	assert_int_equal(wp_catalog_accept_hashes(&x->cat, "%/p1-1.15-%", &n, &err), 0);
	assert_int_equal(n, 1);
	c = files_of(x, "p1");
	assert_int_equal(c.conflicts, 0);
	collect_release(&c);
	assert_int_equal(refresh(x, 200, 15), 0);
	/* and going back to the old hash is a change again */
	assert_int_equal(refresh(x, 200, (size_t)-1), 1);
	/* trust everything */
	assert_int_equal(wp_catalog_accept_hashes(&x->cat, NULL, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(refresh(x, 200, (size_t)-1), 0);
}

static void test_repeated_url_keeps_last(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	struct rowbuf buf;
	struct wp_file_row f;
	assert_int_equal(wp_catalog_refresh_begin(&x->cat,
						  "https://conda.example/chan/linux-64/repodata.json",
						  WP_SOURCE_REPODATA, &sid, &err),
			 0);
	for (int k = 0; k < 2; k++) {
		make_row(3, &buf, &f);
		f.source_id = sid;
		f.size = 100 + k;
		assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
	}
	assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, 2, &err), 0);
	struct collect c = files_of(x, "p3");
	assert_int_equal(c.n, 1);
	assert_int_equal(c.size_sum, 101);
	collect_release(&c);
}

static void exec_sql(sqlite3 *db, const char *sql);

/* Refresh with record 3 listed twice: first as usual, then (after `gap` other records, so in a
 * later batch when the gap is long) with size 777 and, when other_hash, another sha256. */
static uint64_t refresh_with_repeat(struct fx *x, size_t gap, bool other_hash)
{
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	assert_int_equal(wp_catalog_refresh_begin(&x->cat,
						  "https://conda.example/chan/linux-64/repodata.json",
						  WP_SOURCE_REPODATA, &sid, &err),
			 0);
	for (size_t i = 0; i < gap + 2; i++) {
		struct rowbuf buf;
		struct wp_file_row f;
		size_t which = i == 0 || i == gap + 1 ? 3 : 100 + i;
		make_row(which, &buf, &f);
		f.source_id = sid;
		if (i == gap + 1) {
			f.size = 777;
			if (other_hash)
				buf.sha[0] = 'e';
		}
		assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
	}
	assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, (int64_t)gap + 2,
						   &err),
			 0);
	return x->cat.refresh_conflicts;
}

/* A file listed twice keeps its last copy, whether the copies are in one batch or in two; a copy
 * with another hash is held to the hash of the first copy, as a row-by-row check would. */
static void test_repeated_url_across_batches(void **state)
{
	struct fx *x = *state;
	for (int far = 0; far < 2; far++)
		for (int other = 0; other < 2; other++) {
			uint64_t conflicts = refresh_with_repeat(x, far ? 300 : 1, other);
			struct collect c = files_of(x, "p3");
			size_t p3_rows = 1; /* record 3; the filler records are 100 + i: p3 when i %
					       7 == 0 */
			for (size_t i = 1; i <= (far ? 300 : 1); i++)
				p3_rows += (100 + i) % 7 == 3;
			assert_int_equal(c.n, p3_rows);
			assert_true(c.size_sum >= 777);
			assert_int_equal(conflicts, other ? 1 : 0);
			assert_int_equal(c.conflicts, other ? 1 : 0);
			collect_release(&c);
			/* start the next case from a clean slate of first-seen hashes */
			struct wp_err err = WP_ERR_INIT;
			int64_t n;
			assert_int_equal(wp_catalog_accept_hashes(&x->cat, NULL, &n, &err), 0);
			exec_sql(x->cat.db, "DELETE FROM conda_seen_files");
		}
}

static void test_abort_keeps_old_rows(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	assert_int_equal(refresh(x, 70, (size_t)-1), 0);
	assert_int_equal(wp_catalog_refresh_begin(&x->cat,
						  "https://conda.example/chan/linux-64/repodata.json",
						  WP_SOURCE_REPODATA, &sid, &err),
			 0);
	for (size_t i = 0; i < 400; i++) { /* several batches written inside the transaction */
		struct rowbuf buf;
		struct wp_file_row f;
		make_row(i, &buf, &f);
		f.source_id = sid;
		assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
	}
	wp_catalog_refresh_abort(&x->cat);
	struct collect c = files_of(x, "p0");
	assert_int_equal(c.n, 10);
	collect_release(&c);
	/* and the next refresh starts clean */
	assert_int_equal(refresh(x, 14, (size_t)-1), 0);
	c = files_of(x, "p0");
	assert_int_equal(c.n, 2);
	collect_release(&c);
}

/* A current catalog made to look like one of schema 2 (or 4): first-seen hashes by URL. */
#define SEEN_HASHES "CREATE TABLE seen_hashes (url TEXT PRIMARY KEY, sha256 TEXT NOT NULL, first_seen INTEGER NOT NULL);"
#define SCHEMA_2 \
	"DROP TABLE conda_chunks; DROP TABLE conda_seen_files; DROP TABLE seen_files; PRAGMA user_version = 2;"

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* A schema 2 catalog kept conda records as rows of files: opening it moves them into chunks,
 * conflicts and first-seen hashes included. */
static void test_migrate_from_schema_2(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	sqlite3 *db = x->cat.db;
	exec_sql(db,
		 "INSERT INTO sources (id, url, kind) VALUES (5, 'https://conda.example/chan/linux-64/repodata.json', 'repodata');"
		 "INSERT INTO files (source_id, project, version, variant, kind, filename, url, sha256, size, build, build_number,"
		 " depends, hash_conflict) VALUES"
		 " (5, 'zed', '1.0', '', 'conda', 'zed-1.0-0.tar.bz2', 'https://conda.example/chan/linux-64/zed-1.0-0.tar.bz2',"
		 "  'aa', 10, '0', 0, '[]', NULL),"
		 " (5, 'zed', '2.0', '', 'conda', 'zed-2.0-0.tar.bz2', 'https://conda.example/chan/linux-64/zed-2.0-0.tar.bz2',"
		 "  'bb', 20, '0', 0, '[]', 'b0');" SEEN_HASHES
		 "INSERT INTO seen_hashes (url, sha256, first_seen) VALUES"
		 " ('https://conda.example/chan/linux-64/zed-1.0-0.tar.bz2', 'aa', 1),"
		 " ('https://conda.example/chan/linux-64/zed-2.0-0.tar.bz2', 'b0', 1);" SCHEMA_2);
	wp_catalog_close(&x->cat);
	assert_int_equal(wp_catalog_open(&x->cat, x->path, &err), 0);
	struct collect c = files_of(x, "zed");
	assert_int_equal(c.n, 2);
	assert_int_equal(c.size_sum, 30);
	assert_int_equal(c.conflicts, 1);
	assert_string_equal(c.conflict_first, "b0");
	collect_release(&c);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(x->cat.db,
					    "SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM sqlite_master WHERE name = 'seen_hashes'),"
					    " (SELECT user_version FROM pragma_user_version)",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	assert_int_equal(sqlite3_column_int(st, 1), WP_CATALOG_SCHEMA_VERSION);
	sqlite3_finalize(st);
	/* the first-seen hashes came along: the listed hash of zed 1.0 changing is caught */
	int64_t sid;
	assert_int_equal(wp_catalog_refresh_begin(&x->cat,
						  "https://conda.example/chan/linux-64/repodata.json",
						  WP_SOURCE_REPODATA, &sid, &err),
			 0);
	struct wp_file_row f = { .source_id = sid,
				 .project = "zed",
				 .version = "1.0",
				 .kind = "conda",
				 .filename = "zed-1.0-0.tar.bz2",
				 .url = "https://conda.example/chan/linux-64/zed-1.0-0.tar.bz2",
				 .sha256 = "cc",
				 .size = -1,
				 .build_number = -1,
				 .timestamp = -1 };
	assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
	assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, 1, &err), 0);
	assert_int_equal(x->cat.refresh_conflicts, 1);
}

/* A schema 2 catalog with more conda rows than one batch holds (16 MiB staged): the move
 * writes batch after batch while its own read of the files table stays open. */
static void test_migrate_many_rows(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	exec_sql(x->cat.db, SEEN_HASHES
		 "INSERT INTO sources (id, url, kind) VALUES (5, 'https://conda.example/chan/linux-64/repodata.json', 'repodata');"
		 "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59999)"
		 " INSERT INTO files (source_id, project, version, variant, kind, filename, url, sha256, size, build,"
		 " build_number, depends)"
		 " SELECT 5, 'q' || (i % 50), '1.' || i, '', 'conda', 'q' || (i % 50) || '-1.' || i || '-0.tar.bz2',"
		 " 'https://conda.example/chan/linux-64/q' || (i % 50) || '-1.' || i || '-0.tar.bz2',"
		 " printf('%064x', i), i, '0', 0, '[\"' || printf('%.300c', 'x') || '\"]' FROM n;" SCHEMA_2);
	wp_catalog_close(&x->cat);
	assert_int_equal(wp_catalog_open(&x->cat, x->path, &err), 0);
	struct collect c = files_of(x, "q7");
	assert_int_equal(c.n, 1200);
	collect_release(&c);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(x->cat.db,
					    "SELECT sum(n_files), count(*) FROM conda_chunks", -1,
					    &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 60000);
	assert_true(sqlite3_column_int(st, 1) > 50); /* more than one batch */
	sqlite3_finalize(st);
}

/* One record of zed in the repodata at `repodata` (a URL ending in /repodata.json): its refresh's
 * conflicts. */
static uint64_t refresh_zed(struct fx *x, const char *repodata, const char *sha)
{
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	char url[256];
	snprintf(url, sizeof(url), "%.*s/zed-1.0-0.tar.bz2",
		 (int)(strrchr(repodata, '/') - repodata), repodata);
	assert_int_equal(wp_catalog_refresh_begin(&x->cat, repodata, WP_SOURCE_REPODATA, &sid,
						  &err),
			 0);
	struct wp_file_row f = { .source_id = sid,
				 .project = "zed",
				 .version = "1.0",
				 .kind = "conda",
				 .filename = "zed-1.0-0.tar.bz2",
				 .url = url,
				 .sha256 = sha,
				 .size = -1,
				 .build_number = -1,
				 .timestamp = -1 };
	assert_int_equal(wp_catalog_add_file(&x->cat, &f, &err), 0);
	assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, 1, &err), 0);
	return x->cat.refresh_conflicts;
}

/* Trust on first use is kept per subdir and file name, not per channel URL: the same file from a
 * mirror, or the channel spelled otherwise, with other bytes is caught; another subdir is not. */
static void test_first_seen_across_channel_urls(void **state)
{
	struct fx *x = *state;
	assert_int_equal(refresh_zed(x, "https://conda.example/chan/linux-64/repodata.json", "aa"),
			 0);
	assert_int_equal(refresh_zed(x, "https://mirror.example/pytorch/linux-64/repodata.json",
				     "bb"),
			 1);
	assert_int_equal(refresh_zed(x, "https://CONDA.example//chan/linux-64/repodata.json", "bb"),
			 1);
	assert_int_equal(refresh_zed(x, "https://mirror.example/pytorch/linux-64/repodata.json",
				     "aa"),
			 0);
	assert_int_equal(refresh_zed(x, "https://conda.example/chan/osx-arm64/repodata.json", "cc"),
			 0);
	/* trust by a pattern that names the mirror's file accepts its bytes for the name */
	assert_int_equal(refresh_zed(x, "https://mirror.example/pytorch/linux-64/repodata.json",
				     "bb"),
			 1);
	struct wp_err err = WP_ERR_INIT;
	int64_t n = 0;
	assert_int_equal(wp_catalog_accept_hashes(&x->cat, "%mirror.example%", &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(refresh_zed(x, "https://mirror.example/pytorch/linux-64/repodata.json",
				     "bb"),
			 0);
}

/* Schema 4 kept conda first-seen lists per folder URL (conda_seen), entries by the URL's last
 * segment: opening it moves them to subdir lists, where a mirror's other bytes are caught. */
static void test_migrate_conda_seen_from_schema_4(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	struct wp_seen_list l = { 0 };
	struct wp_buf blob = WP_BUF_INIT;
	struct wp_seen_entry e[] = { { "yak%2B1-1.0-0.tar.bz2", 21, "dd", 5 },
				     { "zed-1.0-0.tar.bz2", 17, "aa", 1 } };
	for (size_t i = 0; i < 2; i++)
		wp_vec_push(&l, e[i]);
	wp_seen_encode(&l, &blob);
	sqlite3_stmt *st;
	exec_sql(x->cat.db,
		 "CREATE TABLE conda_seen (dir TEXT NOT NULL, project TEXT NOT NULL, hashes BLOB NOT NULL,"
		 " PRIMARY KEY (dir, project)); DROP TABLE conda_seen_files;"
		 " ALTER TABLE metadata DROP COLUMN checked; PRAGMA user_version = 4;" SEEN_HASHES);
	assert_int_equal(sqlite3_prepare_v2(x->cat.db,
					    "INSERT INTO conda_seen VALUES ('https://conda.example/chan/linux-64',"
					    " 'zed', ?1)",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_blob(st, 1, blob.data, (int)blob.len, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	wp_buf_free(&blob);
	wp_seen_release(&l);
	wp_catalog_close(&x->cat);
	assert_int_equal(wp_catalog_open(&x->cat, x->path, &err), 0);
	assert_int_equal(refresh_zed(x, "https://mirror.example/pytorch/linux-64/repodata.json",
				     "bb"),
			 1);
	assert_int_equal(sqlite3_prepare_v2(x->cat.db,
					    "SELECT (SELECT count(*) FROM sqlite_master WHERE name IN ('conda_seen',"
					    " 'seen_hashes')), (SELECT count(*) FROM pragma_table_info('metadata') WHERE name = 'checked')",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	assert_int_equal(sqlite3_column_int(st, 1), 1);
	sqlite3_finalize(st);
}

static void test_damaged_chunk_is_reported(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(refresh(x, 7, (size_t)-1), 0);
	exec_sql(x->cat.db,
		 "UPDATE conda_chunks SET records = substr(records, 1, length(records) - 3) WHERE project = 'p2'");
	struct collect c = { 0 };
	assert_int_equal(wp_catalog_files(&x->cat, "p2", true, collect_fn, &c, &err), -WPE_CATALOG);
	assert_non_null(strstr(err.msg, "'p2' are damaged; remove the catalog"));
	collect_release(&c);
}

/* A batch the writer thread fails to store: the error comes back to the refresh (at the next
 * batch or the commit), which rolls back to the old rows. */
static void test_writer_error_rolls_back(void **state)
{
	struct fx *x = *state;
	struct wp_err err = WP_ERR_INIT;
	int64_t sid;
	int rc = 0;
	assert_int_equal(refresh(x, 70, (size_t)-1), 0);
	/* the first p3 chunk fails, once (FAIL keeps the trigger's own insert): later batches go
	 * in */
	exec_sql(x->cat.db,
		 "CREATE TABLE tripped (n); CREATE TRIGGER no_p3 BEFORE INSERT ON conda_chunks"
		 " WHEN NEW.project = 'p3' AND NOT EXISTS (SELECT 1 FROM tripped)"
		 " BEGIN INSERT INTO tripped VALUES (1); SELECT RAISE(FAIL, 'p3 refused'); END");
	assert_int_equal(wp_catalog_refresh_begin(&x->cat,
						  "https://conda.example/chan/linux-64/repodata.json",
						  WP_SOURCE_REPODATA, &sid, &err),
			 0);
	for (size_t i = 0; i < 400; i++) { /* a caller that goes on after an error... */
		struct rowbuf buf;
		struct wp_file_row f;
		struct wp_err e = WP_ERR_INIT;
		make_row(i, &buf, &f);
		f.source_id = sid;
		int r = wp_catalog_add_file(&x->cat, &f, &e);
		if (r && !rc) {
			rc = r;
			err = e;
		}
	}
	assert_int_equal(rc, -WPE_CATALOG);
	assert_non_null(strstr(err.msg, "cannot store conda records: p3 refused"));
	/* ...still cannot commit a refresh that lost a batch */
	struct wp_err cerr = WP_ERR_INIT;
	assert_int_equal(wp_catalog_refresh_commit(&x->cat, sid, NULL, NULL, NULL, 400, &cerr),
			 -WPE_CATALOG);
	assert_non_null(strstr(cerr.msg, "p3 refused"));
	struct collect c = files_of(x, "p0");
	assert_int_equal(c.n, 10);
	collect_release(&c);
	exec_sql(x->cat.db, "DROP TRIGGER no_p3; DROP TABLE IF EXISTS tripped");
	assert_int_equal(refresh(x, 14, (size_t)-1), 0);
	c = files_of(x, "p3");
	assert_int_equal(c.n, 2);
	collect_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_round_trip),
		cmocka_unit_test(test_pack_damaged),
		cmocka_unit_test(test_seen_list),
		cmocka_unit_test_setup_teardown(test_refresh_across_batches, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_first_seen_and_trust, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_repeated_url_keeps_last, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_repeated_url_across_batches, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_abort_keeps_old_rows, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_many_rows, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_schema_2, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_first_seen_across_channel_urls, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_conda_seen_from_schema_4, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_damaged_chunk_is_reported, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_writer_error_rolls_back, fx_setup,
						fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
