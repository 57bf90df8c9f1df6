/* tests/unit/test_store.c: the content-addressed store as a download sink. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "cache/store.h"

/* sha256("hello world") */
#define HELLO_SHA "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"
#define HELLO_PATH_TAIL "/sha256/b9/4d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"

/* The downloader's view: the sink is two callbacks and a context. */
typedef int sink_write_fn(void *ctx, const void *data, size_t n);
typedef int sink_reset_fn(void *ctx, long long offset);

struct fx {
	char dir[64];
	struct wp_store st;
};

static int fx_setup(void **state)
{
	struct fx *fx = wp_xcalloc(1, sizeof(*fx));
	struct wp_err err = WP_ERR_INIT;
	if (test_tmpdir_make(fx->dir, sizeof(fx->dir), "store") < 0)
		return -1;
	char *root = wp_xasprintf("%s/files", fx->dir);
	int rc = wp_store_init(&fx->st, root, &err);
	free(root);
	*state = fx;
	return rc;
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;
	int rc = test_tmpdir_remove(fx->dir);
	wp_store_release(&fx->st);
	free(fx);
	return rc;
}

/* Files anywhere under dir (the tmp/ area and the objects). */
static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = wp_xasprintf("%s/%s", dir, e->d_name);
		struct stat sb;
		if (lstat(p, &sb) == 0)
			n += S_ISDIR(sb.st_mode) ? count_files(p) : 1;
		free(p);
	}
	closedir(d);
	return n;
}

static void test_right_hash(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	char sha[65], *path = NULL;
	sink_write_fn *write_cb = wp_store_writer_write;
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, 11, "hello.txt", &err), 0);
	assert_int_equal(write_cb(&w, "hello ", 6), 0);
	assert_int_equal(write_cb(&w, "world", 5), 0);
	assert_int_equal(wp_store_writer_finish(&w, sha, &path, &err), 0);
	assert_string_equal(sha, HELLO_SHA);
	assert_non_null(strstr(path, HELLO_PATH_TAIL));
	free(path);
	path = NULL;

	assert_int_equal(wp_store_lookup(&fx->st, HELLO_SHA, &path, &err), 1);
	FILE *f = fopen(path, "r");
	char buf[32] = { 0 };
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), 11);
	fclose(f);
	assert_string_equal(buf, "hello world");
	free(path);

	/* Upper-case hashes name the same object; nothing is left in tmp/. */
	fx->st.reverify = true;
	assert_int_equal(wp_store_lookup(&fx->st,
					 "B94D27B9934D3E08A52E52D7DA7DABFAC484EFE37A5380EE9088F7ACE2EFCDE9",
					 NULL, &err),
			 1);
	fx->st.reverify = false;
	char *tmp = wp_xasprintf("%s/tmp", fx->st.root);
	assert_int_equal(count_files(tmp), 0);
	free(tmp);
}

static void test_wrong_hash_leaves_nothing(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	char *path = NULL;
	const char *want = "0000000000000000000000000000000000000000000000000000000000000000";
	int before = count_files(fx->st.root);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, want, -1, "torch-2.0.whl", &err), 0);
	assert_int_equal(wp_store_writer_write(&w, "hello world", 11), 0);
	assert_int_equal(wp_store_writer_finish(&w, NULL, &path, &err), -WPE_INTEGRITY);
	assert_null(path);
	assert_string_equal(err.msg,
			    "'torch-2.0.whl': sha256 mismatch: expected "
			    "0000000000000000000000000000000000000000000000000000000000000000, got " HELLO_SHA);
	assert_int_equal(count_files(fx->st.root), before);
	char *obj = wp_store_path(&fx->st, want);
	assert_int_not_equal(access(obj, F_OK), 0);
	free(obj);
	assert_int_equal(wp_store_lookup(&fx->st, want, NULL, &err), 0);
}

static void test_reset_mid_stream(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	char sha[65];
	sink_reset_fn *reset_cb = wp_store_writer_reset;
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, 11, "hello.txt", &err), 0);
	/* A transfer that died after garbage, restarted from scratch. */
	assert_int_equal(wp_store_writer_write(&w, "garbage!", 8), 0);
	assert_int_equal(reset_cb(&w, 0), 0);
	assert_int_equal(wp_store_writer_write(&w, "hello w", 7), 0);
	/* Then resumed at byte 6 (HTTP Range), the tail after it re-sent. */
	assert_int_equal(reset_cb(&w, 6), 0);
	assert_int_equal(wp_store_writer_write(&w, "world", 5), 0);
	assert_int_equal(wp_store_writer_finish(&w, sha, NULL, &err), 0);
	assert_string_equal(sha, HELLO_SHA);

	/* A resume past what was received is refused and reported at finish. */
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "x", &err), 0);
	assert_int_equal(wp_store_writer_write(&w, "abc", 3), 0);
	assert_int_equal(reset_cb(&w, 10), -WPE_IO);
	assert_int_equal(wp_store_writer_finish(&w, NULL, NULL, &err), -WPE_IO);
	assert_non_null(strstr(err.msg, "cannot resume at byte 10"));
}

static void test_size_mismatch(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	int before = count_files(fx->st.root);
	/* Too few bytes: refused at the end. */
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, 12, "short.whl", &err), 0);
	assert_int_equal(wp_store_writer_write(&w, "hello world", 11), 0);
	assert_int_equal(wp_store_writer_finish(&w, NULL, NULL, &err), -WPE_INTEGRITY);
	assert_string_equal(err.msg, "'short.whl': size mismatch: expected 12 bytes, got 11");
	/* Too many: the write itself stops the transfer. */
	wp_err_clear(&err);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, 5, "long.whl", &err), 0);
	assert_int_equal(wp_store_writer_write(&w, "hello", 5), 0);
	assert_int_equal(wp_store_writer_write(&w, " world", 6), -WPE_INTEGRITY);
	assert_int_equal(wp_store_writer_write(&w, "x", 1), -WPE_INTEGRITY);
	assert_int_equal(wp_store_writer_finish(&w, NULL, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "'long.whl': size mismatch: expected 5 bytes"));
	assert_int_equal(count_files(fx->st.root), before);
}

static void test_abort_and_ceiling(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	int before = count_files(fx->st.root);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "../../weird name", &err), 0);
	/* Slashes cannot escape tmp/, and a leading dot cannot hide the file. */
	assert_non_null(strstr(w.file.tmp, "/tmp/download.._.._weird_name.tmp."));
	assert_int_equal(wp_store_writer_write(&w, "abc", 3), 0);
	assert_int_equal(count_files(fx->st.root), before + 1);
	wp_store_writer_abort(&w);
	wp_store_writer_abort(&w);
	assert_int_equal(count_files(fx->st.root), before);

	fx->st.max_size = 4;
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "big", &err), 0);
	assert_int_equal(wp_store_writer_write(&w, "hello", 5), -WPE_TOO_BIG);
	assert_int_equal(wp_store_writer_finish(&w, NULL, NULL, &err), -WPE_TOO_BIG);
	wp_err_clear(&err);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, 100, "big", &err), -WPE_TOO_BIG);
	fx->st.max_size = WP_STORE_DEFAULT_MAX_SIZE;
	assert_int_equal(count_files(fx->st.root), before);

	wp_err_clear(&err);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, "abc", -1, "x", &err), -WPE_PARSE);
	assert_int_equal(wp_store_lookup(&fx->st, "xyz", NULL, &err), -WPE_PARSE);
}

static void test_reverify_removes_corrupt(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	char sha[65], *path = NULL;
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "c.txt", &err), 0);
	assert_int_equal(wp_store_writer_write(&w, "corrupt me", 10), 0);
	assert_int_equal(wp_store_writer_finish(&w, sha, &path, &err), 0);
	FILE *f = fopen(path, "w");
	fputs("rotten", f);
	fclose(f);
	assert_int_equal(wp_store_lookup(&fx->st, sha, NULL, &err), 1); /* no re-hash: trusts it */
	fx->st.reverify = true;
	assert_int_equal(wp_store_lookup(&fx->st, sha, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "sha256 mismatch: expected"));
	assert_int_not_equal(access(path, F_OK), 0);
	fx->st.reverify = false;
	free(path);
}

static void test_clean_tmp(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	char *tmpdir = wp_xasprintf("%s/tmp", fx->st.root);
	char *other = wp_xasprintf("%s/keep-me", tmpdir);
	FILE *f = fopen(other, "w");
	fclose(f);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "crashed.whl", &err), 0);
	int fd = w.file.fd;
	char *stale = wp_xstrdup(w.file.tmp);
	/* Forget it as a crash would: the temp stays, with an old mtime. */
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	assert_int_equal(futimens(fd, old), 0);
	close(fd);
	free(w.file.tmp);
	free(w.file.path);
	free(w.name);
	wp_hasher_release(&w.hasher);
	/* A download in flight is young and stays. */
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "live.whl", &err), 0);
	assert_int_equal(count_files(tmpdir), 3);
	assert_int_equal(wp_store_clean_tmp(&fx->st, 3600, &err), 0);
	assert_int_not_equal(access(stale, F_OK), 0);
	assert_int_equal(access(w.file.tmp, F_OK), 0);
	assert_int_equal(access(other, F_OK), 0);
	wp_store_writer_abort(&w);
	unlink(other);
	free(stale);
	free(other);
	free(tmpdir);
}

/* Objects are read-only and stamped; a write through a hard link (a wheelhouse file) moves the
 * object's mtime, so the next lookup re-hashes it, removes it and says so. The stamp is the
 * object's attribute (no file, no folder of its own) where the file system has them, else a
 * file under ROOT/proven/ (files: the store told to use files). */
static void stamped(struct fx *fx, bool files)
{
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	char sha[65], *path = NULL, *stamp, *alias, *provdir, attr[96];
	struct stat sb;
	fx->st.reverify = true;
	fx->st.stamp_files = files;
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, files ? "f.whl" : "s.whl",
					       &err),
			 0);
	assert_int_equal(wp_store_writer_write(&w, files ? "stamped file" : "stamped bytes",
					       files ? 12 : 13),
			 0);
	assert_int_equal(wp_store_writer_finish(&w, sha, &path, &err), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0444);
	stamp = wp_xasprintf("%s/proven/%.2s/%s", fx->st.root, sha, sha + 2);
	provdir = wp_xasprintf("%s/proven", fx->st.root);
	ssize_t an = getxattr(path, "user.wheelpick.proven", attr, sizeof(attr) - 1);
	if (files) {
		assert_true(an < 0);
		assert_int_equal(access(stamp, F_OK), 0);
	} else if (an < 0) {
		/* a file system without user attributes (tmpfs before Linux 6.6): the file it is */
		assert_true(errno == ENOTSUP || errno == EOPNOTSUPP);
		assert_int_equal(access(stamp, F_OK), 0);
	} else {
		/* size, mtime and inode, and no stamp file nor its folders */
		attr[an] = 0;
		char *want = wp_xasprintf("%lld %lld %ld %llu\n", (long long)sb.st_size,
					  (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec,
					  (unsigned long long)sb.st_ino);
		assert_string_equal(attr, want);
		free(want);
		assert_int_not_equal(access(provdir, F_OK), 0);
	}
	assert_int_equal(wp_store_lookup(&fx->st, sha, NULL, &err), 1);
	/* a new process (no memory of what it proved): the stamp still matches */
	fx->st.n_proven = 0;
	assert_int_equal(wp_store_lookup(&fx->st, sha, NULL, &err), 1);
	if (!files) {
		/* a torn attribute is no proof: re-hashed (the same bytes), and stamped again */
		assert_int_equal(setxattr(path, "user.wheelpick.proven", "1 2 3 4\n", 8, 0) == 0 ||
					 an < 0,
				 1);
		fx->st.n_proven = 0;
		assert_int_equal(wp_store_lookup(&fx->st, sha, NULL, &err), 1);
		fx->st.n_proven = 0;
		assert_int_equal(wp_store_lookup(&fx->st, sha, NULL, &err), 1);
	}
	alias = wp_xasprintf("%s/wheelhouse-copy-%d.whl", fx->dir, files);
	assert_int_equal(link(path, alias), 0);
	struct timespec later = { 0 };
	clock_gettime(CLOCK_REALTIME, &later);
	later.tv_sec += 5; /* a write after the proof, whatever the clock's grain */
	int fd = open(alias, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "!", 1), 1);
	struct timespec ts[2] = { { 0, UTIME_OMIT }, later };
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
	fx->st.n_proven = 0;
	assert_int_equal(wp_store_lookup(&fx->st, sha, NULL, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "was changed after it was proven"));
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_not_equal(access(stamp, F_OK), 0);
	unlink(alias);
	free(alias);
	free(stamp);
	free(provdir);
	free(path);
	fx->st.reverify = false;
	fx->st.stamp_files = false;
}

/* A deferred tap (tap_defer) sees every byte once and in order: a file that ends smaller all at
 * _seal (on the sealing thread), a bigger one caught up from the file when it gets there, and
 * after a reset what is kept once more, as the inline tap does. */
struct tapped {
	struct wp_buf got;
	int resets;
};

static void tap_into(void *ctx, const void *p, size_t n)
{
	wp_buf_add(&((struct tapped *)ctx)->got, p, n);
}

static void tap_restart(void *ctx)
{
	struct tapped *t = ctx;
	wp_buf_reset(&t->got);
	t->resets++;
}

static void deferred(struct fx *fx, size_t size, long long defer, long long reset_at)
{
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	struct tapped t = { WP_BUF_INIT, 0 };
	char sha[65];
	unsigned char *data = wp_xmalloc(size);
	for (size_t i = 0; i < size; i++)
		data[i] = (unsigned char)(i * 7 + size);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "tapped.whl", &err), 0);
	w.tap = tap_into;
	w.tap_reset = tap_restart;
	w.tap_ctx = &t;
	w.tap_defer = defer;
	bool started = false;
	for (size_t at = 0; at < size; at += 100) {
		size_t n = size - at < 100 ? size - at : 100;
		assert_int_equal(wp_store_writer_write(&w, data + at, n), 0);
		if (reset_at >= 0 && at + n >= (size_t)reset_at && at < (size_t)reset_at) {
			/* a resume keeps the first 250 bytes; the rest comes again */
			assert_int_equal(wp_store_writer_reset(&w, 250), 0);
			at = 250 - 100;
			reset_at = -1;
			continue;
		}
		/* once the file reached tap_defer the tap is up to date as the bytes come (a reset
		 * after that keeps it so); before, it waits */
		started |= (long long)(at + n) >= defer;
		assert_int_equal(t.got.len, started ? at + n : 0);
	}
	assert_int_equal(wp_store_writer_seal(&w, sha, &err), 0);
	assert_int_equal(t.got.len, size);
	assert_memory_equal(t.got.data, data, size);
	wp_store_writer_abort(&w);
	wp_buf_free(&t.got);
	free(data);
}

static void test_deferred_tap(void **state)
{
	deferred(*state, 500, 1000, -1);  /* ends below: all at the seal */
	deferred(*state, 3000, 1000, -1); /* caught up at 1000, then as it comes */
	deferred(*state, 3000, 0, -1);    /* no deferral: as it comes */
	deferred(*state, 3000, 1000, 600); /* reset before the tap started */
	deferred(*state, 3000, 1000, 1500); /* reset after */
	deferred(*state, 0, 1000, -1);
}

static void test_read_only_and_stamped(void **state)
{
	stamped(*state, false);
}

static void test_read_only_and_stamped_files(void **state)
{
	stamped(*state, true);
}

static void test_clean_tmp_by_lock(void **state)
{
	struct fx *fx = *state;
	struct wp_err err = WP_ERR_INIT;
	int p[2];
	char dead[512] = "";
	assert_int_equal(pipe(p), 0);
	pid_t child = fork();
	if (child == 0) {
		struct wp_store_writer cw;
		struct wp_err e = WP_ERR_INIT;
		if (wp_store_writer_begin(&cw, &fx->st, NULL, -1, "killed.whl", &e) == 0) {
			(void)wp_store_writer_write(&cw, "half", 4);
			(void)write(p[1], cw.file.tmp, strlen(cw.file.tmp));
		}
		_exit(0); /* as kill -9 would: no abort, no unlink */
	}
	close(p[1]);
	ssize_t n = read(p[0], dead, sizeof(dead) - 1);
	close(p[0]);
	waitpid(child, NULL, 0);
	assert_true(n > 0);
	dead[n] = 0;
	struct wp_store_writer w;
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, NULL, -1, "stalled.whl", &err), 0);
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	assert_int_equal(futimens(w.file.fd, old), 0);
	assert_int_equal(utimensat(AT_FDCWD, dead, old, 0), 0);
	assert_int_equal(wp_store_clean_tmp(&fx->st, 3600, &err), 0);
	assert_int_not_equal(access(dead, F_OK), 0);
	assert_int_equal(access(w.file.tmp, F_OK), 0);
	wp_store_writer_abort(&w);
}

/* Issue 27: a download whose sha256 is known keeps what came for a later writer (a later run),
 * which takes it up; one kept by a live writer is not taken; the finished object leaves none. */
static void test_partial_across_runs(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w, other;
	struct wp_err err = WP_ERR_INIT;
	char sha[65];
	char *dir = wp_store_partial_dir(&fx->st);
	char *part = wp_xasprintf("%s/%s", dir, HELLO_SHA);
	fx->st.resume_min = 0; /* hello.txt is small: resumed here all the same */
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, 11, "hello.txt", &err), 0);
	assert_true(w.partial);
	assert_int_equal(w.kept, 0);
	/* a second writer of the same file meanwhile takes a temp file of its own */
	assert_int_equal(wp_store_writer_begin(&other, &fx->st, HELLO_SHA, 11, "hello.txt", &err),
			 0);
	assert_false(other.partial);
	wp_store_writer_abort(&other);
	assert_int_equal(wp_store_writer_write(&w, "hello ", 6), 0);
	assert_int_equal(wp_store_writer_keep(&w), 6);
	assert_int_equal(access(part, F_OK), 0);
	/* the next run: the 6 bytes are kept, re-read, and the rest appended */
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, 11, "hello.txt", &err), 0);
	assert_int_equal(w.kept, 6);
	assert_int_equal(wp_store_writer_reset(&w, 6), 0);
	assert_int_equal(wp_store_writer_write(&w, "world", 5), 0);
	assert_int_equal(wp_store_writer_finish(&w, sha, NULL, &err), 0);
	assert_string_equal(sha, HELLO_SHA);
	assert_int_not_equal(access(part, F_OK), 0);
	/* other bytes than the sha256 says: the partial goes, the next run starts over */
	const char *zero = "0000000000000000000000000000000000000000000000000000000000000000";
	char *zpart = wp_xasprintf("%s/%s", dir, zero);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, zero, -1, "z", &err), 0);
	assert_int_equal(wp_store_writer_write(&w, "abc", 3), 0);
	assert_int_equal(wp_store_writer_finish(&w, NULL, NULL, &err), -WPE_INTEGRITY);
	assert_int_not_equal(access(zpart, F_OK), 0);
	/* nothing came: nothing is kept */
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, zero, -1, "z", &err), 0);
	assert_int_equal(wp_store_writer_keep(&w), 0);
	assert_int_not_equal(access(zpart, F_OK), 0);
	fx->st.resume_min = WP_STORE_RESUME_MIN;
	free(zpart);
	free(part);
	free(dir);
}

/* A file announced smaller than resume_min starts over: no validator beside it, nothing kept */
static void test_small_starts_over(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	char sha[65];
	char *dir = wp_store_partial_dir(&fx->st);
	char *part = wp_xasprintf("%s/%s", dir, HELLO_SHA), *v = wp_xasprintf("%s.v", part);
	assert_int_equal(fx->st.resume_min, WP_STORE_RESUME_MIN);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, 11, "hello.txt", &err), 0);
	assert_true(w.partial);
	wp_store_writer_set_validator(&w, "\"strong\"", 11);
	assert_int_not_equal(access(v, F_OK), 0);
	assert_int_equal(wp_store_writer_write(&w, "hello ", 6), 0);
	assert_int_equal(wp_store_writer_keep(&w), 0);
	assert_int_not_equal(access(part, F_OK), 0);
	/* a partial an older run left is begun again, not resumed */
	FILE *f = fopen(part, "w");
	assert_non_null(f);
	fputs("hello ", f);
	fclose(f);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, 11, "hello.txt", &err), 0);
	assert_int_equal(w.kept, 0);
	assert_int_equal(wp_store_writer_write(&w, "hello world", 11), 0);
	assert_int_equal(wp_store_writer_finish(&w, sha, NULL, &err), 0);
	assert_string_equal(sha, HELLO_SHA);
	free(v);
	free(part);
	free(dir);
}

/* The index gave no size, the answer announces a small one: no validator is written beside the
 * partial while it downloads (issue 42: it cost a create and an unlink per small file), one an
 * earlier run left there goes, so it never stands for the new bytes, and the validator is
 * written when a download that stopped short is kept; a large or unknown total writes it at
 * once. */
static void test_small_by_answer_keeps_no_validator(void **state)
{
	struct fx *fx = *state;
	struct wp_store_writer w;
	struct wp_err err = WP_ERR_INIT;
	char sha[65];
	char *dir = wp_store_partial_dir(&fx->st);
	char *part = wp_xasprintf("%s/%s", dir, HELLO_SHA), *v = wp_xasprintf("%s.v", part);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, -1, "hello.txt", &err), 0);
	assert_true(w.partial);
	FILE *f = fopen(v, "w"); /* an earlier run's */
	assert_non_null(f);
	fputs("\"old\"\n", f);
	fclose(f);
	wp_store_writer_set_validator(&w, "\"strong\"", 11);
	assert_int_not_equal(access(v, F_OK), 0);
	assert_non_null(w.validator);
	assert_int_equal(wp_store_writer_write(&w, "hello world", 11), 0);
	assert_int_equal(wp_store_writer_finish(&w, sha, NULL, &err), 0);
	assert_string_equal(sha, HELLO_SHA);
	/* unknown total: the validator is kept, as before */
	char *p2 = NULL;
	assert_int_equal(wp_store_lookup(&fx->st, HELLO_SHA, &p2, &err), 1);
	assert_int_equal(unlink(p2), 0);
	free(p2);
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, -1, "hello.txt", &err), 0);
	wp_store_writer_set_validator(&w, "\"strong\"", -1);
	assert_int_equal(access(v, F_OK), 0);
	wp_store_writer_abort(&w);
	assert_int_not_equal(access(v, F_OK), 0);
	/* small, stopped short and kept: its validator goes beside the kept bytes then */
	assert_int_equal(wp_store_writer_begin(&w, &fx->st, HELLO_SHA, -1, "hello.txt", &err), 0);
	wp_store_writer_set_validator(&w, "\"strong\"", 11);
	assert_int_not_equal(access(v, F_OK), 0);
	assert_int_equal(wp_store_writer_write(&w, "hello ", 6), 0);
	assert_int_equal(wp_store_writer_keep(&w), 6);
	char line[32] = "";
	FILE *g = fopen(v, "r");
	assert_non_null(g);
	assert_non_null(fgets(line, sizeof(line), g));
	fclose(g);
	assert_string_equal(line, "\"strong\"\n");
	unlink(v);
	unlink(part);
	free(v);
	free(part);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_right_hash),
		cmocka_unit_test(test_wrong_hash_leaves_nothing),
		cmocka_unit_test(test_reset_mid_stream),
		cmocka_unit_test(test_size_mismatch),
		cmocka_unit_test(test_abort_and_ceiling),
		cmocka_unit_test(test_reverify_removes_corrupt),
		cmocka_unit_test(test_clean_tmp),
		cmocka_unit_test(test_deferred_tap),
		cmocka_unit_test(test_read_only_and_stamped),
		cmocka_unit_test(test_read_only_and_stamped_files),
		cmocka_unit_test(test_clean_tmp_by_lock),
		cmocka_unit_test(test_partial_across_runs),
		cmocka_unit_test(test_small_starts_over),
		cmocka_unit_test(test_small_by_answer_keeps_no_validator),
	};
	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
