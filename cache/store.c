/* cache/store.c: content-addressed objects by sha256, written once through a hashing temp file. */
#include "cache/store.h"
#include "base/mem.h"
#include "base/parallel.h"
#include "base/os/os.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

int wp_store_init(struct wp_store *st, const char *root, struct wp_err *err)
{
	memset(st, 0, sizeof(*st));
	st->max_size = WP_STORE_DEFAULT_MAX_SIZE;
	st->reverify = true;
	st->resume_min = WP_STORE_RESUME_MIN;
	char *objects = wp_xasprintf("%s/sha256", root);
	char *tmp = wp_xasprintf("%s/tmp", root);
	int rc = wp_mkdir_p(objects, 0755, err);
	if (!rc)
		rc = wp_mkdir_p(tmp, 0755, err);
	free(objects);
	free(tmp);
	if (!rc)
		st->root = wp_xstrdup(root);
	return rc;
}

void wp_store_release(struct wp_store *st)
{
	free(st->root);
	st->root = NULL;
	free(st->proven);
	st->proven = NULL;
	st->n_proven = st->cap_proven = 0;
}

/* Lowercase copy of a valid sha256 into out; false when it is not one. */
static bool norm_sha256(const char *in, char out[WP_SHA256_HEX_LEN + 1])
{
	if (!in || !wp_sha256_hex_valid(in))
		return false;
	for (int i = 0; i <= WP_SHA256_HEX_LEN; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	return true;
}

char *wp_store_path(const struct wp_store *st, const char *sha256)
{
	char h[WP_SHA256_HEX_LEN + 1];
	if (!norm_sha256(sha256, h))
		return NULL;
	/* Two hex digits of fan-out keep directories near 1/256 of the store, as git does. */
	return wp_xasprintf("%s/sha256/%.2s/%s", st->root, h, h + 2);
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

static bool proven(const struct wp_store *st, const char *h)
{
	for (size_t i = 0; i < st->n_proven; i++)
		if (!strcmp(st->proven[i], h))
			return true;
	return false;
}

void wp_store_mark_proven(struct wp_store *st, const char *sha256)
{
	char h[WP_SHA256_HEX_LEN + 1];
	if (!norm_sha256(sha256, h) || proven(st, h))
		return;
	if (st->n_proven == st->cap_proven) {
		st->cap_proven = st->cap_proven ? st->cap_proven * 2 : 16;
		st->proven = wp_xrealloc(st->proven, st->cap_proven * sizeof(*st->proven));
	}
	memcpy(st->proven[st->n_proven++], h, sizeof(h));
}

/* A proof stamp: when an object was last proven, its size, mtime and inode. Any write to the
 * object (through a wheelhouse's hard link, say) moves its mtime, and then it is re-hashed; while
 * they match, reuse costs a stat instead of a hash (1 GiB: 2.5 s here). A stamp that is missing or
 * torn means a re-hash, never trust. It is an extended attribute of the object itself (set when
 * the object is written, before it is made read-only): a file and a fan-out folder of their own
 * per object cost more than the rest of a small file's store (16 x 200 KB: 32 of the run's 70
 * inodes). Where the file system has no user attributes, or one cannot be set (an object re-proven
 * later is read-only), the stamp is a file, ROOT/proven/ab/cdef... (apart from the objects, so
 * that nothing listing them meets it). Either one that matches proves the object. */
#define STAMP_XATTR "user.wheelpick.proven"

static char *stamp_path(const struct wp_store *st, const char *h)
{
	return wp_xasprintf("%s/proven/%.2s/%s", st->root, h, h + 2);
}

static void stamp_text(const struct wp_os_stat *sb, char *out, size_t n)
{
	snprintf(out, n, "%lld %lld %ld %llu\n", (long long)sb->st_size, (long long)sb->st_mtime_s,
		 (long)sb->st_mtime_ns, (unsigned long long)sb->st_ino);
}

static bool stamp_matches(const struct wp_store *st, const char *h, const char *object,
			  const struct wp_os_stat *sb)
{
	char want[96], got[96] = "";
	stamp_text(sb, want, sizeof(want));
	ssize_t n = st->stamp_files ? -1 :
				      wp_os_getxattr(object, STAMP_XATTR, got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = 0;
	if (!strcmp(got, want))
		return true;
	char *p = stamp_path(st, h);
	int fd = wp_os_open(p, WP_O_RDONLY | WP_O_CLOEXEC | WP_O_NOFOLLOW);
	free(p);
	if (fd < 0)
		return false;
	n = wp_os_read(fd, got, sizeof(got) - 1);
	wp_os_close(fd);
	got[n > 0 ? n : 0] = 0;
	return !strcmp(got, want);
}

/* The stamp as an attribute of the open file fd (its writer's, before it is read-only): false
 * when the file system has none, or when store->stamp_files says not to. */
static bool stamp_set_fd(const struct wp_store *st, int fd, bool *one_name)
{
	struct wp_os_stat sb;
	char text[96];
	if (st->stamp_files || wp_os_fstat(fd, &sb) < 0)
		return false;
	*one_name = sb.st_nlink == 1;
	stamp_text(&sb, text, sizeof(text));
	return wp_os_fsetxattr(fd, STAMP_XATTR, text, strlen(text)) == 0;
}

/* Best effort: without a stamp the next reuse re-hashes. */
static void stamp_write(const struct wp_store *st, const char *h, const char *object)
{
	struct wp_os_stat sb;
	char text[96];
	if (wp_os_stat(object, &sb) < 0)
		return;
	stamp_text(&sb, text, sizeof(text));
	if (!st->stamp_files && wp_os_setxattr(object, STAMP_XATTR, text, strlen(text)) == 0)
		return;
	char *dir = wp_xasprintf("%s/proven/%.2s", st->root, h), *p = stamp_path(st, h);
	char *tmp = wp_xasprintf("%s.%ld", p, wp_os_getpid());
	struct wp_err e = WP_ERR_INIT;
	if (wp_mkdir_p(dir, 0755, &e) == 0) {
		int fd = wp_os_open(tmp,
				    WP_O_WRONLY | WP_O_CREAT | WP_O_TRUNC | WP_O_CLOEXEC |
					    WP_O_NOFOLLOW,
				    0644);
		if (fd >= 0) {
			bool ok = wp_os_write(fd, text, strlen(text)) == (ssize_t)strlen(text);
			wp_os_close(fd);
			if (!ok || wp_os_rename(tmp, p) < 0)
				wp_os_unlink(tmp);
		}
	}
	free(tmp);
	free(p);
	free(dir);
}

static void stamp_remove(const struct wp_store *st, const char *h)
{
	char *p = stamp_path(st, h);
	wp_os_unlink(p);
	free(p);
}

int wp_store_lookup(struct wp_store *st, const char *sha256, char **path_out,
		    struct wp_err *err)
{
	char want[WP_SHA256_HEX_LEN + 1], got[WP_SHA256_HEX_LEN + 1];
	struct wp_os_stat sb;
	int rc = 0;
	char *path = wp_store_path(st, sha256);
	if (!path)
		return wp_fail(err, -WPE_PARSE, "'%s' is not a sha256 (64 hex digits)", sha256);
	norm_sha256(sha256, want);
	if (wp_os_stat(path, &sb) < 0) {
		if (errno == ENOENT)
			goto out;
		rc = wp_fs_fail(err, errno, "cannot look at", path);
		goto out;
	}
	if (!WP_S_ISREG(sb.st_mode)) {
		rc = wp_fail(err, -WPE_IO, "store object '%s' is not a regular file", path);
		goto out;
	}
	if (st->reverify && !proven(st, want) && !stamp_matches(st, want, path, &sb)) {
		rc = wp_hash_file(path, got, NULL, err);
		if (rc)
			goto out;
		if (strcmp(got, want) != 0) {
			/* Something wrote to it after it was proven: most likely through a
			 * wheelhouse, whose files are hard links to their objects. Removing it lets
			 * the next fetch heal the store instead of failing forever; an old
			 * wheelhouse keeps its changed copy. */
			wp_os_unlink(path);
			stamp_remove(st, want);
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "store object '%s' was changed after it was proven "
				     "(sha256 mismatch: expected %s, got %s); removed, run again to download it anew",
				     path, want, got);
			goto out;
		}
		stamp_write(st, want, path);
	}
	if (st->reverify)
		wp_store_mark_proven(st, want);
	rc = 1;
out:
	if (rc == 1 && path_out) {
		*path_out = path;
		path = NULL;
	}
	free(path);
	return rc;
}

/* Whether a temp file's writer is alive, as its lock says: each writer holds one on its file
 * while it lives (a killed process's locks go with it). */
enum writer { W_GONE, W_ALIVE, W_UNKNOWN };
#define ORPHAN_MIN_AGE_S 2 /* younger, it may be one whose writer has not locked it yet */
static enum writer writer_of(int dirfd, const char *name, const struct wp_os_stat *sb, time_t now)
{
	if (now - sb->st_mtime_s < ORPHAN_MIN_AGE_S)
		return W_ALIVE;
	int fd = wp_os_openat(dirfd, name,
			      WP_O_RDONLY | WP_O_NOFOLLOW | WP_O_NONBLOCK | WP_O_CLOEXEC);
	if (fd < 0)
		return W_UNKNOWN;
	struct wp_os_stat fb;
	enum writer w = W_UNKNOWN;
	if (wp_os_fstat(fd, &fb) == 0 && fb.st_ino == sb->st_ino && fb.st_dev == sb->st_dev) {
		if (wp_os_flock(fd, WP_LOCK_EX | WP_LOCK_NB) == 0)
			w = W_GONE;
		else if (errno == EWOULDBLOCK)
			w = W_ALIVE;
	}
	wp_os_close(fd); /* and with it our lock */
	return w;
}

char *wp_store_partial_dir(const struct wp_store *st)
{
	return wp_xasprintf("%s/partial", st->root);
}

/* Partials nobody wrote for a week, and whose writer is gone; with each its validator, and a
 * validator (or its temp) whose partial is gone. */
static void clean_partials(const struct wp_store *st, time_t now)
{
	char *dir = wp_store_partial_dir(st);
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *e;
	while (d && (e = wp_os_readdir(d))) {
		struct wp_os_stat sb;
		size_t len = strlen(e->d_name);
		if (len > WP_SHA256_HEX_LEN && len <= WP_SHA256_HEX_LEN + 6 &&
		    e->d_name[WP_SHA256_HEX_LEN] == '.' &&
		    (!strcmp(e->d_name + WP_SHA256_HEX_LEN, ".v") ||
		     !strcmp(e->d_name + WP_SHA256_HEX_LEN, ".v.tmp"))) {
			char part[WP_SHA256_HEX_LEN + 1];
			memcpy(part, e->d_name, WP_SHA256_HEX_LEN);
			part[WP_SHA256_HEX_LEN] = 0;
			if (wp_os_fstatat(wp_os_dirfd(d), part, &sb, WP_AT_SYMLINK_NOFOLLOW) < 0 &&
			    errno == ENOENT)
				wp_os_unlinkat(wp_os_dirfd(d), e->d_name, 0);
			continue;
		}
		if (len != WP_SHA256_HEX_LEN ||
		    wp_os_fstatat(wp_os_dirfd(d), e->d_name, &sb, WP_AT_SYMLINK_NOFOLLOW) < 0 ||
		    !WP_S_ISREG(sb.st_mode) || now - sb.st_mtime_s <= WP_STORE_PARTIAL_MAX_AGE_S)
			continue;
		if (writer_of(wp_os_dirfd(d), e->d_name, &sb, now) != W_ALIVE) {
			char v[WP_SHA256_HEX_LEN + 3];
			snprintf(v, sizeof(v), "%s.v", e->d_name);
			wp_os_unlinkat(wp_os_dirfd(d), e->d_name, 0);
			wp_os_unlinkat(wp_os_dirfd(d), v, 0);
		}
	}
	if (d)
		wp_os_closedir(d);
	free(dir);
}

int wp_store_clean_tmp(const struct wp_store *st, long long max_age, struct wp_err *err)
{
	char *dir = wp_xasprintf("%s/tmp", st->root);
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *e;
	int rc = 0;
	time_t now = time(NULL);
	if (!d) {
		rc = errno == ENOENT ? 0 : wp_fs_fail(err, errno, "cannot list", dir);
		goto out;
	}
	while ((e = wp_os_readdir(d))) {
		struct wp_os_stat sb;
		/* Only our own temp names: never whatever else someone put there. */
		if (!strstr(e->d_name, ".tmp.") ||
		    wp_os_fstatat(wp_os_dirfd(d), e->d_name, &sb, WP_AT_SYMLINK_NOFOLLOW) < 0 ||
		    !WP_S_ISREG(sb.st_mode))
			continue;
		/* a locked file's writer lives, however long it stalls; without locks (a file
		 * system that has none), age decides */
		enum writer w = writer_of(wp_os_dirfd(d), e->d_name, &sb, now);
		if (w == W_GONE || (w == W_UNKNOWN && now - sb.st_mtime_s > max_age))
			wp_os_unlinkat(wp_os_dirfd(d), e->d_name, 0);
	}
	wp_os_closedir(d);
	clean_partials(st, now);
out:
	free(dir);
	return rc;
}

#define WRITEBACK_WINDOW (16LL << 20)

/* A name safe to use inside ROOT/tmp, so `ls tmp/` says which download a stray file was. */
static char *tmp_base(const struct wp_store *st, const char *name)
{
	char safe[96];
	size_t n = 0;
	for (const char *p = name; *p && n < sizeof(safe) - 1; p++) {
		unsigned char c = (unsigned char)*p;
		safe[n++] = (isalnum(c) || c == '.' || c == '-' || c == '_' || c == '+') ? (char)c :
											   '_';
	}
	safe[n] = 0;
	if (n == 0 || safe[0] == '.')
		return wp_xasprintf("%s/tmp/download%s", st->root, safe);
	return wp_xasprintf("%s/tmp/%s", st->root, safe);
}

/* A validator is one header value: a line of at most this many printable bytes. */
#define VALIDATOR_MAX 512

static bool strong_etag(const char *v)
{
	return v && v[0] == '"';
}

/* The line in a validator file, or NULL (none, unreadable, not one header value, or cut short:
 * the line ends in a newline, so a write a kill cut short reads as none). */
static char *read_validator(const char *vpath)
{
	char buf[VALIDATOR_MAX + 2];
	int fd = wp_os_open(vpath, WP_O_RDONLY | WP_O_NOFOLLOW | WP_O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = wp_os_read(fd, buf, sizeof(buf) - 1);
	wp_os_close(fd);
	if (n <= 0 || n > VALIDATOR_MAX + 1)
		return NULL;
	buf[n] = 0;
	if (buf[n - 1] != '\n')
		return NULL;
	buf[--n] = 0;
	if (n == 0 || n > VALIDATOR_MAX)
		return NULL;
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return NULL;
	return wp_xstrdup(buf);
}

/* The validator file says v (NULL: removed), written in place in one write: a kill leaves the old
 * line, the new one, or a line cut short, which read_validator takes for none (a temp file and a
 * rename cost two more calls per download, for nothing a reader could tell apart). Not synced: a
 * validator lost with the power makes a resume start over (or fail its sha256 and start over),
 * never join two versions' bytes under a wrong one. The partial's lock makes its holder the one
 * writer. False when it could not be written: then none is left. */
static bool write_validator(const char *vpath, const char *v)
{
	if (!v) {
		return wp_os_unlink(vpath) == 0 || errno == ENOENT;
	} else if (!*v || strlen(v) > VALIDATOR_MAX || strpbrk(v, "\r\n")) {
		wp_os_unlink(vpath);
		return false;
	}
	char line[VALIDATOR_MAX + 1];
	size_t len = strlen(v);
	memcpy(line, v, len);
	line[len++] = '\n';
	int fd = wp_os_open(vpath,
			    WP_O_WRONLY | WP_O_CREAT | WP_O_TRUNC | WP_O_NOFOLLOW | WP_O_CLOEXEC,
			    0644);
	bool ok = fd >= 0 && wp_os_write(fd, line, len) == (ssize_t)len;
	if (fd >= 0 && wp_os_close(fd) < 0)
		ok = false;
	if (!ok)
		wp_os_unlink(vpath);
	return ok;
}

/* A download whose sha256 is known writes to ROOT/partial/<sha256>, resuming what an earlier run
 * left there (w->kept, under w->validator); one whose URL is given instead, to ROOT/partial/<sha256
 * of the URL>, resumed only under a strong ETag. False (nothing changed) when the folder cannot be
 * made or another process holds that file now: the caller takes a temp file of its own. */
static bool open_partial(struct wp_store_writer *w, struct wp_store *st, const char *key)
{
	char *dir = wp_store_partial_dir(st);
	struct wp_err e = WP_ERR_INIT;
	/* the folder once per store, not once per file (a mkdir and a stat each) */
	bool ok = st->partial_made || wp_mkdir_p(dir, 0755, &e) == 0;
	st->partial_made = ok;
	char *path = wp_xasprintf("%s/%s", dir, key);
	free(dir);
	int fd = ok ? wp_os_open(path, WP_O_RDWR | WP_O_CREAT | WP_O_NOFOLLOW | WP_O_CLOEXEC,
				 0644) :
		      -1;
	struct wp_os_stat sb;
	/* a partial longer than the file is no start of it: begin again */
	if (fd >= 0 && wp_os_fstat(fd, &sb) == 0 && w->expect_size >= 0 &&
	    sb.st_size > w->expect_size && wp_os_flock(fd, WP_LOCK_EX | WP_LOCK_NB) == 0 &&
	    wp_os_ftruncate(fd, 0) < 0) {
		wp_os_close(fd);
		fd = -1;
	}
	if (fd < 0 || wp_os_flock(fd, WP_LOCK_EX | WP_LOCK_NB) < 0 || wp_os_fstat(fd, &sb) < 0 ||
	    !WP_S_ISREG(sb.st_mode) || wp_os_lseek(fd, 0, SEEK_END) < 0) {
		/* someone else's download of it now: not ours to use */
		if (fd >= 0)
			wp_os_close(fd);
		free(path);
		return false;
	}
	/* A small file is not worth resuming: it starts over, and keeps no validator beside it (a
	 * create, a rename and an unlink per file, more than the bytes it could save cost) */
	bool small = w->expect_size >= 0 && w->expect_size < st->resume_min;
	w->vpath = small ? NULL : wp_xasprintf("%s.v", path);
	w->validator = sb.st_size > 0 && !small ? read_validator(w->vpath) : NULL;
	/* bytes of no known version, with no hash to prove them: not a start to build on */
	if ((small || w->by_url) && sb.st_size > 0 && (small || !strong_etag(w->validator))) {
		if (wp_os_ftruncate(fd, 0) < 0 || wp_os_lseek(fd, 0, SEEK_SET) < 0) {
			wp_os_close(fd);
			free(path);
			free(w->vpath);
			free(w->validator);
			w->vpath = w->validator = NULL;
			return false;
		}
		sb.st_size = 0;
	}
	if (sb.st_size == 0) {
		/* a validator left beside an empty partial is not read (only one beside kept bytes
		 * is), and the answer's own is written before its first byte: nothing to remove */
		free(w->validator);
		w->validator = NULL;
	}
	w->file.fd = fd;
	w->file.tmp = path;
	w->partial = true;
	w->kept = w->size = w->written = w->flushed = (long long)sb.st_size;
	return true;
}

void wp_store_writer_set_validator(void *ctx, const char *validator, long long total)
{
	struct wp_store_writer *w = ctx;
	if (w->partial && w->vpath && total >= 0 && total < w->store->resume_min) {
		/* Announced small only by the answer (the index gave no size): most such downloads
		 * finish, and ROOT/partial/<name>.v written now would be removed at once (a create,
		 * a write, a close and an unlink, two changes to the folder per small file: issue
		 * 42). Its validator is written only if the download stops short and is kept
		 * (_keep). What an earlier run left there goes now (one unlink), so none outlives
		 * its bytes. A kill leaves the bytes with no validator: a later run resumes them
		 * with Range alone, and the sha256 proves or refuses the result (one known only by
		 * URL starts over). */
		write_validator(w->vpath, NULL);
		free(w->validator);
		w->validator = validator && *validator ? wp_xstrdup(validator) : NULL;
		w->validator_lazy = true;
		return;
	}
	w->validator_lazy = false;
	free(w->validator);
	w->validator = validator && *validator ? wp_xstrdup(validator) : NULL;
	if (w->partial && w->vpath && !write_validator(w->vpath, w->validator)) {
		/* what comes now has no validator on disk: a later run cannot resume it by URL */
		free(w->validator);
		w->validator = NULL;
	}
}

/* The partial file's name for a download the index gives no sha256 for: a hash of its URL. */
static bool url_key(const char *url, char key[WP_SHA256_HEX_LEN + 1])
{
	struct wp_hasher h;
	struct wp_err e = WP_ERR_INIT;
	if (wp_hasher_init(&h, WP_HASH_SHA256, &e))
		return false;
	wp_hasher_update(&h, "url:", 4);
	wp_hasher_update(&h, url, strlen(url));
	int rc = wp_hasher_final(&h, key, NULL, &e);
	wp_hasher_release(&h);
	return rc == 0;
}

int wp_store_writer_begin(struct wp_store_writer *w, struct wp_store *st, const char *expect_sha256,
			  long long expect_size, const char *name, struct wp_err *err)
{
	return wp_store_writer_begin_url(w, st, expect_sha256, expect_size, name, NULL, err);
}

int wp_store_writer_begin_url(struct wp_store_writer *w, struct wp_store *st,
			      const char *expect_sha256, long long expect_size, const char *name,
			      const char *url, struct wp_err *err)
{
	memset(w, 0, sizeof(*w));
	w->file = (struct wp_atomic_file)WP_ATOMIC_FILE_INIT;
	w->store = st;
	w->expect_size = expect_size < 0 ? -1 : expect_size;
	if (!name || !*name)
		name = "(unnamed download)";
	if (expect_sha256 && !norm_sha256(expect_sha256, w->expect))
		return wp_fail(err, -WPE_PARSE, "'%s': expected sha256 '%s' is not 64 hex digits",
			       name, expect_sha256);
	if (w->expect_size > st->max_size)
		return wp_fail(err, -WPE_TOO_BIG,
			       "'%s' is %lld bytes, over the store's limit of %lld", name,
			       w->expect_size, st->max_size);
	int rc = wp_hasher_init(&w->hasher, WP_HASH_SHA256, err);
	if (rc)
		return rc;
	if (w->expect[0] && open_partial(w, st, w->expect)) {
		w->name = wp_xstrdup(name);
		return 0;
	}
	char key[WP_SHA256_HEX_LEN + 1];
	if (!w->expect[0] && url &&
	    (!strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8)) &&
	    url_key(url, key)) {
		w->by_url = true;
		if (open_partial(w, st, key)) {
			w->name = wp_xstrdup(name);
			return 0;
		}
		w->by_url = false;
	}
	char *base = tmp_base(st, name);
	rc = wp_atomic_file_open(&w->file, base, err);
	free(base);
	if (rc) {
		wp_hasher_release(&w->hasher);
		return rc;
	}
	/* held while this process lives: wp_store_clean_tmp leaves a locked temp file alone. Where
	 * the file system has no locks, the sweep finds none to take either, and goes by age. */
	(void)wp_os_flock(w->file.fd, WP_LOCK_EX | WP_LOCK_NB);
	w->name = wp_xstrdup(name);
	return 0;
}

/* The tap on a thread of its own: a ring of blocks the writer fills (and writes, and hashes unless
 * the tap takes the file's digest: tap_sha256) while the tap thread reads the ones before. The
 * hashing (a wheel's file and member digests, one pass for both with tap_sha256) then runs on a
 * second core where there is one, beside the transfer and the writes. */
#define TAP_RING 4
#define TAP_THREAD_AFTER (8LL << 20) /* smaller files are tapped inline: a thread costs more */

struct wp_store_tapq {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *buf[TAP_RING];
	size_t len[TAP_RING];
	unsigned long head, tail; /* blocks tapped, blocks handed over; the ring holds tail - head
				   */
	bool quit;
	void (*tap)(void *tap_ctx, const void *p, size_t n);
	void *ctx;
};

static void *tap_main(void *arg)
{
	struct wp_store_tapq *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (q->head == q->tail && !q->quit)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->head == q->tail)
			break;
		unsigned i = (unsigned)(q->head % TAP_RING);
		pthread_mutex_unlock(&q->mu);
		q->tap(q->ctx, q->buf[i], q->len[i]);
		pthread_mutex_lock(&q->mu);
		q->head++;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* Start the tap thread; on failure the tap simply stays inline. The writer's block becomes the
 * ring's first slot. */
static void tap_thread_start(struct wp_store_writer *w)
{
	struct wp_store_tapq *q = wp_xcalloc(1, sizeof(*q));
	q->tap = w->tap;
	q->ctx = w->tap_ctx;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	if (pthread_create(&q->th, NULL, tap_main, q) != 0) {
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
		free(q);
		return;
	}
	for (int i = 0; i < TAP_RING; i++)
		q->buf[i] = wp_xmalloc(WP_STORE_BLOCK);
	w->tq = q;
}

/* Wait until the tap thread has seen every block handed to it. */
static void tap_drain(struct wp_store_tapq *q)
{
	pthread_mutex_lock(&q->mu);
	while (q->head != q->tail)
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

/* Finish the tap thread (after the blocks it holds) and free the ring. */
static void tap_thread_stop(struct wp_store_writer *w)
{
	struct wp_store_tapq *q = w->tq;
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->quit = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	for (int i = 0; i < TAP_RING; i++)
		free(q->buf[i]);
	free(q);
	w->tq = NULL;
}

/* The block just written and hashed goes to the tap thread; the writer goes on in the next free
 * slot (waiting when all are still being tapped). */
static void tap_hand_over(struct wp_store_writer *w, size_t n)
{
	struct wp_store_tapq *q = w->tq;
	pthread_mutex_lock(&q->mu);
	q->len[q->tail % TAP_RING] = n;
	q->tail++;
	pthread_cond_broadcast(&q->cv);
	while (q->tail - q->head == TAP_RING)
		pthread_cond_wait(&q->cv, &q->mu);
	w->block = q->buf[q->tail % TAP_RING];
	pthread_mutex_unlock(&q->mu);
	w->block_len = 0;
}

/* The tap takes up the file's first `upto` bytes, read back from it (page cache): a deferred tap
 * (w->tap_defer) starting, now that the file is big enough or finished. */
static int tap_catch_up(struct wp_store_writer *w, long long upto)
{
	enum { CHUNK = 256 << 10 };
	unsigned char *buf = wp_xmalloc(CHUNK);
	int rc = 0;
	for (long long pos = 0; pos < upto && !rc;) {
		size_t want = upto - pos < CHUNK ? (size_t)(upto - pos) : CHUNK;
		ssize_t k = wp_os_pread(w->file.fd, buf, want, pos);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = k < 0 ? wp_fs_fail(&w->err, errno, "cannot re-read", w->file.tmp) :
				     wp_fail(&w->err, -WPE_IO, "'%s' shrank while it was written",
					     w->file.tmp);
		else
			w->tap(w->tap_ctx, buf, (size_t)k);
		pos += k > 0 ? k : 0;
	}
	free(buf);
	if (!rc)
		w->tap_live = true;
	return rc;
}

/* n bytes to the file, the hash and the tap. */
static int put(struct wp_store_writer *w, const unsigned char *p, size_t n)
{
	const unsigned char *q = p;
	size_t left = n;
	while (left) {
		ssize_t k = wp_os_write(w->file.fd, q, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return wp_fs_fail(&w->err, errno, "cannot write", w->file.tmp);
		q += k;
		left -= (size_t)k;
	}
	if (!w->tap_sha256)
		wp_hasher_update(&w->hasher, p, n);
	/* a deferred tap starts once the file reaches tap_defer: what came before is read back */
	if (w->tap && !w->tap_live && w->written + (long long)n >= w->tap_defer) {
		int rc = tap_catch_up(w, w->written);
		if (rc)
			return rc;
	}
	if (w->tq && p == w->block)
		tap_hand_over(w, n);
	else if (w->tap && w->tap_live)
		w->tap(w->tap_ctx, p, n);
	w->written += (long long)n;
	/* Start writing back what has arrived, a window at a time, so the fsync before the rename
	 * waits for the last window, not for the whole file: 1 GB spent 1.2 s in that fsync. Only a
	 * hint; an error here shows at the fsync. */
	if (w->written - w->flushed >= WRITEBACK_WINDOW) {
		wp_os_start_writeback(w->file.fd, w->flushed, w->written - w->flushed);
		w->flushed = w->written;
	}
	return 0;
}

static int flush_block(struct wp_store_writer *w)
{
	int rc = 0;
	if (w->block_len)
		rc = put(w, w->block, w->block_len);
	w->block_len = 0;
	/* a big file's tap moves to its own thread, at a block boundary */
	if (!rc && w->tap && w->tap_live && w->tap_thread && !w->tq &&
	    w->written >= TAP_THREAD_AFTER) {
		tap_thread_start(w);
		if (w->tq) {
			free(w->block);
			w->block = w->tq->buf[0];
		}
	}
	return rc;
}

int wp_store_writer_write(void *ctx, const void *data, size_t n)
{
	struct wp_store_writer *w = ctx;
	if (w->err.code)
		return w->err.code;
	if (w->file.fd < 0)
		return wp_fail(&w->err, -WPE_IO, "'%s': write after the download was closed",
			       w->name ? w->name : "?");
	long long limit = w->expect_size >= 0 ? w->expect_size : w->store->max_size;
	if (n > (unsigned long long)(limit - w->size)) {
		if (w->expect_size >= 0)
			return wp_fail(&w->err, -WPE_INTEGRITY,
				       "'%s': size mismatch: expected %lld "
				       "bytes, got more than that",
				       w->name, w->expect_size);
		return wp_fail(&w->err, -WPE_TOO_BIG, "'%s' is larger than the store's limit of "
			       "%lld bytes", w->name, limit);
	}
	const unsigned char *p = data;
	int rc = 0;
	w->size += (long long)n;
	/* a whole block or more with nothing waiting goes out as it is, without a copy (not to a
	 * tap thread, which needs the bytes to stay put: those go through the ring); so does the
	 * first MiB of a file: a small wheel would pay more for the block (a 1 MiB allocation and
	 * its page faults, a copy) than for a dozen write()s (16 x 200 KB: 10% of the run) */
	if (!w->block_len && (n >= WP_STORE_BLOCK || w->written < WP_STORE_BLOCK) && !w->tq)
		return put(w, p, n);
	while (n) {
		if (!w->block)
			w->block = wp_xmalloc(WP_STORE_BLOCK);
		size_t k = WP_STORE_BLOCK - w->block_len < n ? WP_STORE_BLOCK - w->block_len : n;
		memcpy(w->block + w->block_len, p, k);
		w->block_len += k;
		p += k;
		n -= k;
		if (w->block_len == WP_STORE_BLOCK && (rc = flush_block(w)))
			return rc;
	}
	return 0;
}

int wp_store_writer_reset(void *ctx, long long offset)
{
	struct wp_store_writer *w = ctx;
	unsigned char *buf = NULL;
	int rc = 0;
	if (w->err.code)
		return w->err.code;
	if (w->file.fd < 0)
		return wp_fail(&w->err, -WPE_IO, "'%s': reset after the download was closed",
			       w->name ? w->name : "?");
	if (offset < 0 || offset > w->size)
		return wp_fail(&w->err, -WPE_IO, "'%s': cannot resume at byte %lld: only %lld "
			       "bytes were received", w->name, offset, w->size);
	/* what waits in the block is part of what is kept (or cut below) */
	if ((rc = flush_block(w)))
		return rc;
	if (w->tq)
		tap_drain(w->tq); /* the tap thread is idle from here to the next block handed over
				   */
	if (w->tap_reset)
		w->tap_reset(w->tap_ctx);
	if (wp_os_ftruncate(w->file.fd, offset) < 0)
		return wp_fs_fail(&w->err, errno, "cannot truncate", w->file.tmp);
	rc = wp_hasher_reset(&w->hasher, &w->err);
	if (rc)
		return rc;
	/* The hash cannot be rewound, so a resume re-reads what is kept; offset 0 reads nothing. */
	enum { CHUNK = 256 << 10 };
	buf = wp_xmalloc(CHUNK);
	long long pos = 0;
	while (pos < offset) {
		size_t want = offset - pos < CHUNK ? (size_t)(offset - pos) : CHUNK;
		ssize_t k = wp_os_pread(w->file.fd, buf, want, pos);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = k < 0 ? wp_fs_fail(&w->err, errno, "cannot re-read", w->file.tmp)
				   : wp_fail(&w->err, -WPE_IO, "'%s' shrank while resuming",
					     w->file.tmp);
			goto out;
		}
		if (!w->tap_sha256)
			wp_hasher_update(&w->hasher, buf, (size_t)k);
		if (w->tap && w->tap_live)
			w->tap(w->tap_ctx, buf, (size_t)k);
		pos += k;
	}
	if (wp_os_lseek(w->file.fd, offset, SEEK_SET) < 0) {
		rc = wp_fs_fail(&w->err, errno, "cannot seek in", w->file.tmp);
		goto out;
	}
	w->size = w->written = offset;
	if (w->flushed > offset)
		w->flushed = offset;
out:
	free(buf);
	return rc;
}

long long wp_store_writer_keep(struct wp_store_writer *w)
{
	long long kept = 0;
	if (w->partial && w->file.fd >= 0 && !w->sealed) {
		/* what waits in the block goes in too: all of what came is kept */
		flush_block(w);
		if (w->tq) {
			tap_thread_stop(w);
			w->block = NULL;
		}
		struct wp_os_stat sb;
		if (wp_os_fstat(w->file.fd, &sb) == 0)
			kept = (long long)sb.st_size;
		if ((w->by_url && !strong_etag(w->validator)) || !w->vpath)
			kept = 0; /* nothing a later run could prove it continues, or too small to
				     resume: it goes, below */
		/* a validator held back (_set_validator) goes beside the bytes kept */
		if (kept > 0 && w->validator_lazy && w->validator &&
		    !write_validator(w->vpath, w->validator))
			kept = 0;
		w->validator_lazy = false;
		if (kept > 0) { /* an empty one goes, below */
			wp_os_close(w->file.fd); /* and the lock: the next run takes it up */
			w->file.fd = -1;
			free(w->file.tmp);
			w->file.tmp = NULL;
		}
	}
	wp_store_writer_abort(w);
	return kept;
}

void wp_store_writer_abort(struct wp_store_writer *w)
{
	if (w->vpath && w->file.tmp && !w->validator_lazy) /* the partial goes (_keep and _commit
							    * leave no tmp): its validator too */
		write_validator(w->vpath, NULL);
	free(w->vpath);
	free(w->validator);
	w->vpath = w->validator = NULL;
	wp_atomic_file_abort(&w->file);
	wp_hasher_release(&w->hasher);
	free(w->name);
	w->name = NULL;
	if (w->tq) {
		tap_thread_stop(w); /* the ring, w->block among it, goes with it */
		w->block = NULL;
	}
	free(w->block);
	w->block = NULL;
	w->block_len = 0;
}

/* The file's sha256 into w->got: the writer's own, or the tap's (tap_sha256) when it covers exactly
 * the bytes in the file; otherwise the file read back and hashed here. The tap's is taken on trust
 * only for its count: it is fed from the same blocks put() writes, in order, so a tap that saw as
 * many bytes as were written saw these bytes. */
static int seal_digest(struct wp_store_writer *w, struct wp_err *err)
{
	unsigned char d[WP_SHA256_LEN];
	long long len = -1;
	if (!w->tap_sha256)
		return wp_hasher_final(&w->hasher, w->got, NULL, err);
	if (w->tap_live && w->tap_sha256(w->tap_ctx, d, &len) == 0 && len == w->written) {
		wp_hex_encode(d, sizeof(d), w->got);
		return 0;
	}
	int rc = wp_hasher_reset(&w->hasher, err);
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = rc ? NULL : wp_xmalloc(CHUNK);
	for (long long pos = 0; !rc && pos < w->written;) {
		size_t want = w->written - pos < CHUNK ? (size_t)(w->written - pos) : CHUNK;
		ssize_t k = wp_os_pread(w->file.fd, buf, want, pos);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = k < 0 ? wp_fs_fail(err, errno, "cannot re-read", w->file.tmp) :
				     wp_fail(err, -WPE_IO, "'%s' shrank while it was written",
					     w->file.tmp);
		else
			wp_hasher_update(&w->hasher, buf, (size_t)k);
		pos += k > 0 ? k : 0;
	}
	free(buf);
	return rc ? rc : wp_hasher_final(&w->hasher, w->got, NULL, err);
}

int wp_store_writer_seal(struct wp_store_writer *w, char out_sha256[WP_SHA256_HEX_LEN + 1],
			 struct wp_err *err)
{
	int rc = 0;
	if (w->err.code)
		return wp_fail(err, w->err.code, "%s", w->err.msg);
	if (w->file.fd < 0 || w->sealed)
		return wp_fail(err, -WPE_IO, "'%s': the download was already finished",
			       w->name ? w->name : "?");
	if (flush_block(w))
		return wp_fail(err, w->err.code, "%s", w->err.msg);
	if (w->tq) {
		/* every byte tapped before anyone reads what the tap made */
		tap_thread_stop(w);
		w->block = NULL;
	}
	if (w->expect_size >= 0 && w->size != w->expect_size)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s': size mismatch: expected %lld bytes, got %lld", w->name,
			       w->expect_size, w->size);
	/* a deferred tap that never started takes the whole file now, on the thread that seals
	 * it */
	if (w->tap && !w->tap_live && tap_catch_up(w, w->written))
		return wp_fail(err, w->err.code, "%s", w->err.msg);
	if ((rc = seal_digest(w, err)))
		return rc;
	if (w->expect[0] && strcmp(w->expect, w->got) != 0) {
		if (out_sha256) /* what the bytes are: the caller may name where the expected ones
				   were seen */
			memcpy(out_sha256, w->got, sizeof(w->got));
		return wp_fail(err, -WPE_INTEGRITY, "'%s': sha256 mismatch: expected %s, got %s",
			       w->name, w->expect, w->got);
	}
	/* its proof stamp, while the file may still take one (every byte is in it: its mtime is
	 * final, and the rename keeps its inode) */
	w->stamped = stamp_set_fd(w->store, w->file.fd, &w->one_name);
	/* Objects are never written again: read-only, so that an edit through a wheelhouse's hard
	 * link fails for anyone but root (and _lookup's re-hash catches root's). */
	if (wp_os_fchmod(w->file.fd, 0444) < 0)
		return wp_fs_fail(err, errno, "cannot make read-only", w->file.tmp);
	w->sealed = true;
	if (out_sha256)
		memcpy(out_sha256, w->got, sizeof(w->got));
	return 0;
}

int wp_store_writer_sync(struct wp_store_writer *w, struct wp_err *err)
{
	if (!w->sealed || w->file.fd < 0)
		return wp_fail(err, -WPE_IO, "'%s': synced before it was sealed",
			       w->name ? w->name : "?");
	__atomic_fetch_add(&w->store->counts.file_syncs, 1, __ATOMIC_RELAXED);
	if (wp_os_fsync(w->file.fd) < 0)
		return wp_fs_fail(err, errno, "cannot sync", w->file.tmp);
	w->synced = true;
	return 0;
}

void wp_store_writer_start_sync(struct wp_store_writer *w)
{
	if (w->file.fd >= 0 && !w->synced)
		wp_os_start_writeback(w->file.fd, w->flushed, 0);
}

/* Which fan-out folders ROOT/sha256 holds, read once (best effort: an unreadable folder counts as
 * holding none, and each commit then makes its own). */
static void fanout_learn(struct wp_store *st)
{
	if (st->fanout_read)
		return;
	st->fanout_read = true;
	char *objects = wp_xasprintf("%s/sha256", st->root);
	struct wp_os_dir *d = wp_os_opendir(objects);
	free(objects);
	if (!d)
		return;
	const struct wp_os_dirent *e;
	while ((e = wp_os_readdir(d)))
		if (strlen(e->d_name) == 2 && isxdigit((unsigned char)e->d_name[0]) &&
		    isxdigit((unsigned char)e->d_name[1]) &&
		    !isupper((unsigned char)e->d_name[0]) && !isupper((unsigned char)e->d_name[1]))
			st->fanout[hexval(e->d_name[0]) << 4 | hexval(e->d_name[1])] = true;
	wp_os_closedir(d);
}

int wp_store_writer_commit(struct wp_store_writer *w, char **out_path, struct wp_err *err)
{
	char *path = NULL, *dir = NULL;
	int rc = 0;
	if (!w->sealed) {
		rc = wp_fail(err, -WPE_IO, "'%s': committed before it was sealed",
			     w->name ? w->name : "?");
		goto out;
	}
	path = wp_store_path(w->store, w->got);
	/* Data first, then the name: otherwise a crash can leave a complete-looking torn object. */
	if (!w->synced) {
		__atomic_fetch_add(&w->store->counts.file_syncs, 1, __ATOMIC_RELAXED);
		if (wp_os_fsync(w->file.fd) < 0) {
			rc = wp_fs_fail(err, errno, "cannot sync", w->file.tmp);
			goto out;
		}
	}
	/* The fan-out folders are listed once per process (one read of ROOT/sha256), and one not
	 * there is made before the rename: a fresh store's commits then cost a mkdir and a rename,
	 * not a failed rename besides (16 of them for 16 small wheels: issue 42). Once it exists (a
	 * store soon has all 256) a commit costs a rename. A folder that went since (or one the
	 * list missed) is still made when the rename says it is missing. A new folder is a new
	 * name in ROOT/sha256, which is then synced with the rest. */
	int fan = hexval(w->got[0]) << 4 | hexval(w->got[1]);
	fanout_learn(w->store);
	if (!w->store->fanout[fan]) {
		dir = wp_xasprintf("%s/sha256/%.2s", w->store->root, w->got);
		if (wp_os_mkdir(dir, 0755) == 0) {
			w->store->counts.dirs_made++;
			w->store->dirty_objects = true;
		}
		w->store->fanout[fan] = true; /* made, or there already (EEXIST), or see the rename
					       */
		free(dir);
		dir = NULL;
	}
	int r = wp_os_rename(w->file.tmp, path);
	if (r < 0 && errno == ENOENT) {
		dir = wp_xasprintf("%s/sha256/%.2s", w->store->root, w->got);
		if ((rc = wp_mkdir_p(dir, 0755, err)))
			goto out;
		w->store->counts.dirs_made++;
		w->store->dirty_objects = true;
		r = wp_os_rename(w->file.tmp, path);
	}
	if (r < 0) {
		rc = wp_fs_fail(err, errno, "cannot rename into place", path);
		goto out;
	}
	/* rename() leaves both names when they were already links to one file; a file that had
	 * one name when it was sealed cannot be (that unlink failed once per download: issue 42) */
	if (!w->one_name)
		wp_os_unlink(w->file.tmp);
	if (w->vpath && !w->validator_lazy) /* a partial became the object: its validator is done
					       with */
		write_validator(w->vpath, NULL);
	free(w->file.tmp);
	w->file.tmp = NULL;
	w->store->dirty[(unsigned char)hexval(w->got[0]) << 4 | hexval(w->got[1])] = true;
	w->store->dirty_tmp = true;
	if (!w->stamped)
		stamp_write(w->store, w->got, path);
	if (out_path) {
		*out_path = path;
		path = NULL;
	}
out:
	free(path);
	free(dir);
	wp_store_writer_abort(w);
	return rc;
}

/* The folders one wp_store_sync_dirs syncs, and the store whose counts they go to. */
struct dir_set {
	struct wp_store *st;
	char *dirs[258];
};

static int sync_one_dir(void *ctx, size_t i, struct wp_err *err)
{
	struct dir_set *ds = ctx;
	int rc = 0, fd = wp_os_open(ds->dirs[i], WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC);
	__atomic_fetch_add(&ds->st->counts.dir_syncs, 1, __ATOMIC_RELAXED);
	if (fd < 0 || wp_os_fsync(fd) < 0)
		rc = wp_fs_fail(err, errno, "cannot sync", ds->dirs[i]);
	if (fd >= 0)
		wp_os_close(fd);
	return rc;
}

/* At most this many directories are synced at once: a sync mostly waits for the disk, and syncs
 * that wait together share the file system's journal commits and the disk's cache flushes (17
 * in a row took 2.5 ms idle, 13 ms under load). */
#define SYNC_THREADS 16

int wp_store_sync_dirs(struct wp_store *st, struct wp_err *err)
{
	struct dir_set ds = { .st = st };
	size_t n = 0;
	int rc = 0;
	if (st->dirty_objects) {
		/* a fan-out folder was made: its name in ROOT/sha256 is durable before any name in
		 * it */
		struct dir_set one = { .st = st, .dirs = { wp_xasprintf("%s/sha256", st->root) } };
		rc = sync_one_dir(&one, 0, err);
		free(one.dirs[0]);
		if (rc)
			return rc;
		st->dirty_objects = false;
	}
	for (int i = 0; i <= 256; i++) {
		bool tmp = i == 256;
		if (tmp ? !st->dirty_tmp : !st->dirty[i])
			continue;
		ds.dirs[n++] = tmp ? wp_xasprintf("%s/tmp", st->root) :
				     wp_xasprintf("%s/sha256/%02x", st->root, i);
		if (tmp)
			st->dirty_tmp = false;
		else
			st->dirty[i] = false;
	}
	rc = n ? wp_parallel_for(n, n < SYNC_THREADS ? n : SYNC_THREADS, sync_one_dir, &ds, err) :
		 0;
	for (size_t i = 0; i < n; i++)
		free(ds.dirs[i]);
	return rc;
}

int wp_store_writer_finish(struct wp_store_writer *w, char out_sha256[WP_SHA256_HEX_LEN + 1],
			   char **out_path, struct wp_err *err)
{
	int rc = wp_store_writer_seal(w, out_sha256, err);
	if (rc) {
		wp_store_writer_abort(w);
		return rc;
	}
	rc = wp_store_writer_commit(w, out_path, err);
	if (!rc)
		rc = wp_store_sync_dirs(w->store, err);
	return rc;
}

