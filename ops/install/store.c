/* ops/install/store.c: the unpacked store behind --link-mode hardlink|reflink: each wheel's members
 * extracted once under <cache>/unpacked/<sha256 of the wheel>/, only after RECORD matched them
 * (filled under a temp name, synced, renamed into place), then linked into each environment, as uv
 * does. Files an environment gets by hard link share the store's inode: a later edit of one edits
 * both (uv's hardlink mode has the same property; reflink and copy do not). */
#include "base/fs.h"
#include "base/mem.h"
#include "ops/install/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/install/install.h"
#include "base/os/os.h"

/* Folders "<sha256>.tmp.<pid>" that a killed run was filling, its process gone. */
static void sweep_dead(const char *root, const char *sha)
{
	char *dir = wp_xasprintf("%s/unpacked", root);
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	size_t sl = strlen(sha);
	while (d && (de = wp_os_readdir(d))) {
		if (strncmp(de->d_name, sha, sl) || strncmp(de->d_name + sl, ".tmp.", 5))
			continue;
		char *end = NULL;
		long pid = strtol(de->d_name + sl + 5, &end, 10);
		if (pid <= 0 || *end || pid == wp_os_getpid() || wp_os_pid_alive(pid))
			continue;
		char *p = wp_xasprintf("%s/%s", dir, de->d_name);
		wp_fs_remove_tree(p);
		free(p);
	}
	if (d)
		wp_os_closedir(d);
	free(dir);
}

int wp_istore_open(struct wp_iwheel *w, const char *root, struct wp_err *err)
{
	struct wp_os_stat sb;
	int rc;
	char *dir = wp_xasprintf("%s/unpacked", root);
	rc = wp_mkdir_p(dir, 0777, err);
	free(dir);
	if (rc)
		return rc;
	w->store = wp_xasprintf("%s/unpacked/%s", root, w->sha256);
	if (wp_os_stat(w->store, &sb) == 0 && WP_S_ISDIR(sb.st_mode))
		return wp_wheel_reader_trust_record(w->r, err);
	w->store_tmp = wp_xasprintf("%s.tmp.%ld", w->store, wp_os_getpid());
	sweep_dead(root, w->sha256);
	return 0;
}


struct fsink {
	int fd;
	const char *path;
};

static int fsink(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	struct fsink *s = ctx;
	return wp_fd_write_all(s->fd, p, n, s->path, err);
}

int wp_istore_fill_member(struct wp_iwheel *w, size_t i, mode_t um, struct wp_err *err)
{
	struct wp_wheel_entry e;
	wp_wheel_reader_entry(w->r, i, &e);
	if (e.is_dir)
		return 0;
	char *path = wp_xasprintf("%s/%s", w->store_tmp, e.name);
	char *slash = strrchr(path, '/');
	int rc = 0;
	*slash = 0;
	rc = wp_mkdir_p(path, 0777, err);
	*slash = '/';
	struct fsink s = { -1, path };
	if (!rc && (s.fd = wp_os_open(path, WP_O_WRONLY | WP_O_CREAT | WP_O_TRUNC | WP_O_CLOEXEC,
				      0666)) < 0)
		rc = wp_fs_fail(err, errno, "cannot create", path);
	if (!rc)
		rc = wp_wheel_reader_extract(w->r, i, fsink, &s, err);
	if (!rc && WP_S_ISREG(e.mode) && (e.mode & 0111) &&
	    wp_os_fchmod(s.fd, (0777 & ~um) | 0111) < 0)
		rc = wp_fs_fail(err, errno, "cannot set the mode of", path);
	if (s.fd >= 0 && wp_os_close(s.fd) < 0 && !rc)
		rc = wp_fs_fail(err, errno, "cannot write", path);
	free(path);
	return rc;
}

int wp_istore_finish(struct wp_iwheel *w, struct wp_err *err)
{
	int rc = wp_wheel_reader_check(w->r, err);
	if (rc) {
		wp_istore_abort(w);
		return rc;
	}
	int fd = wp_os_open(w->store_tmp, WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC);
	if (fd >= 0) {
		wp_os_syncfs(fd);
		wp_os_close(fd);
	}
	if (wp_os_rename(w->store_tmp, w->store) < 0) {
		if (errno != EEXIST && errno != ENOTEMPTY)
			return wp_fs_fail(err, errno, "cannot put in place", w->store);
		wp_istore_abort(w); /* another run filled it first: the same bytes */
	}
	free(w->store_tmp);
	w->store_tmp = NULL;
	return 0;
}

void wp_istore_abort(struct wp_iwheel *w)
{
	if (!w->store_tmp)
		return;
	wp_fs_remove_tree(w->store_tmp);
	free(w->store_tmp);
	w->store_tmp = NULL;
}

static int copy_fd(int from, int to, const char *src, struct wp_err *err)
{
	for (;;) {
		ssize_t k = wp_os_copy_range(from, NULL, to, 1 << 30);
		if (k == 0)
			return 0;
		if (k > 0)
			continue;
		if (errno == EINTR)
			continue;
		if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
			return wp_fs_fail(err, errno, "cannot copy", src);
		break;
	}
	char buf[1 << 16];
	for (;;) {
		ssize_t k = wp_os_read(from, buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return wp_fs_fail(err, errno, "cannot read", src);
		if (k == 0)
			return 0;
		int rc = wp_fd_write_all(to, buf, (size_t)k, src, err);
		if (rc)
			return rc;
	}
}

int wp_istore_place(struct wp_iwheel *w, const struct wp_ienv *env, struct wp_iwheel_file *f,
		    struct wp_err *err)
{
	mode_t um = env->umask;
	struct wp_wheel_entry e;
	unsigned char sha[WP_SHA256_LEN];
	char b64[48];
	int rc = 0;
	wp_wheel_reader_entry(w->r, f->member, &e);
	char *src = wp_xasprintf("%s/%s", w->store, e.name);
	if (w->link_mode == WP_LINK_HARDLINK && wp_ienv_link(env, src, f->tmp) == 0)
		goto done;
	if (w->link_mode == WP_LINK_HARDLINK && errno != EXDEV && errno != EPERM &&
	    errno != EMLINK) {
		rc = wp_fs_fail(err, errno, "cannot link", f->tmp);
		goto out;
	}
	int in = wp_os_open(src, WP_O_RDONLY | WP_O_CLOEXEC);
	if (in < 0) {
		rc = wp_fs_fail(err, errno, "cannot open", src);
		goto out;
	}
	int fd = wp_ienv_open_file(env, f->tmp, WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL | WP_O_CLOEXEC,
				   0666);
	if (fd < 0) {
		rc = wp_fs_fail(err, errno, "cannot create", f->tmp);
		wp_os_close(in);
		goto out;
	}
	if (w->link_mode != WP_LINK_REFLINK || wp_os_clone(in, fd) < 0) {
		if (w->link_mode != WP_LINK_COPY) /* several workers may say so at once */
			__atomic_store_n(&w->link_fell_back, true, __ATOMIC_RELAXED);
		rc = copy_fd(in, fd, src, err);
	}
	if (!rc && f->exec && wp_os_fchmod(fd, (0777 & ~um) | 0111) < 0)
		rc = wp_fs_fail(err, errno, "cannot set the mode of", f->tmp);
	wp_os_close(in);
	if (wp_os_close(fd) < 0 && !rc)
		rc = wp_fs_fail(err, errno, "cannot write", f->tmp);
	if (rc)
		goto out;
done:
	wp_wheel_reader_sha256(w->r, f->member, sha);
	wp_b64url_encode(sha, WP_SHA256_LEN, b64);
	snprintf(f->hash, sizeof(f->hash), "sha256=%s", b64);
	f->size = (long long)e.size;
out:
	free(src);
	return rc;
}
