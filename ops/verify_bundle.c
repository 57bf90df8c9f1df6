/* ops/verify_bundle.c: a bundle (or the volumes of a split one, as a set) unpacked into a temp dir with every
 * member checked, then verified as a wheelhouse. */
#include "ops/verify_common.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "ops/bundle.h"
#include "verify/wheel.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- bundle ---- */

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* "OUT.tar.zst.001" -> 1; 0 when name is not base + "." + three digits. */
static size_t volume_no(const char *name, const char *base)
{
	size_t bl = strlen(base);
	if (strncmp(name, base, bl) || name[bl] != '.' || strlen(name + bl + 1) != 3)
		return 0;
	size_t v = 0;
	for (const char *p = name + bl + 1; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		v = v * 10 + (size_t)(*p - '0');
	}
	return v;
}

/* The volumes of a split bundle (path: one of them, or their base name), in order, checked as a
 * set: all there from .001 on, every one but the last exactly as long as the first (the writer
 * cuts them so), the last no longer and not empty. Problems name the volume. NULL when path is a
 * bundle of its own; else a NULL-terminated array the caller frees (vo_free_list with *n). */
static char **volume_set(struct vo_ctx *c, const char *path, size_t *n)
{
	size_t len = strlen(path);
	char *base;
	struct stat sb;
	if (len > 4 && path[len - 4] == '.' && strspn(path + len - 3, "0123456789") == 3)
		base = wp_xstrndup(path, len - 4);
	else if (stat(path, &sb) < 0)
		base = wp_xstrdup(path);
	else
		return NULL;
	char *slash = strrchr(base, '/');
	char *dir = slash ? wp_xstrndup(base, (size_t)(slash - base)) : wp_xstrdup(".");
	const char *fname = slash ? slash + 1 : base;
	size_t nn, max = 0;
	char **names = vo_list_dir(*dir ? dir : "/", &nn);
	for (size_t i = 0; i < nn; i++) {
		size_t v = volume_no(names[i], fname);
		if (v > max)
			max = v;
	}
	char **vols = wp_xcalloc(max + 1, sizeof(*vols));
	long long first = -1;
	for (size_t i = 1; i <= max; i++) {
		vols[i - 1] = wp_xasprintf("%s.%03zu", base, i);
		if (stat(vols[i - 1], &sb) < 0 || !S_ISREG(sb.st_mode)) {
			vo_problem_add(c, true, vols[i - 1], "is missing: the volumes of '%s' run from .001 to .%03zu", base, max);
			continue;
		}
		if (i == 1)
			first = (long long)sb.st_size;
		else if (i < max && (long long)sb.st_size != first)
			vo_problem_add(c, true, vols[i - 1], "is %lld bytes where every volume but the last is %lld: it is %s",
				       (long long)sb.st_size, first, (long long)sb.st_size < first ? "cut short, or the volumes "
				       "after it do not belong to this bundle" : "not a volume of this bundle");
		else if (i == max && (sb.st_size == 0 || (first >= 0 && (long long)sb.st_size > first)))
			vo_problem_add(c, true, vols[i - 1], "is %lld bytes, %s", (long long)sb.st_size,
				       sb.st_size ? "more than the first volume: not a volume of this bundle" : "empty");
	}
	if (!max)
		vo_problem_add(c, true, path, "has no volumes beside it (%s.001, ...)", base);
	vo_free_list(names, nn);
	free(dir);
	free(base);
	*n = max;
	return vols;
}

/* The volumes read as one stream, one after the other. */
struct vol_reader {
	char **names;
	size_t n, at;
	int fd;
	char buf[64 << 10];
};

static la_ssize_t vol_read(struct archive *a, void *ctx, const void **out)
{
	struct vol_reader *r = ctx;
	for (;;) {
		if (r->fd < 0) {
			if (r->at >= r->n)
				return 0;
			r->fd = open(r->names[r->at], O_RDONLY | O_CLOEXEC);
			if (r->fd < 0) {
				archive_set_error(a, errno, "cannot read '%s': %s", r->names[r->at], strerror(errno));
				return -1;
			}
		}
		ssize_t got = read(r->fd, r->buf, sizeof(r->buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			archive_set_error(a, errno, "cannot read '%s': %s", r->names[r->at], strerror(errno));
			return -1;
		}
		if (got > 0) {
			*out = r->buf;
			return got;
		}
		close(r->fd);
		r->fd = -1;
		r->at++;
	}
}

static int vol_close(struct archive *a, void *ctx)
{
	struct vol_reader *r = ctx;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	return ARCHIVE_OK;
}

/* install.sh is what a user runs on the air-gapped machine: it must be, byte for byte, the script
 * wheelpick writes, or a bundle could carry 'curl ... | sh' past a verify that checks every wheel. */
static void check_install_sh(struct vo_ctx *c, const char *inst)
{
	struct wp_buf b;
	struct wp_err e = WP_ERR_INIT;
	const char *want = wp_bundle_install_sh();
	if (wp_file_read_capped(inst, 1 << 20, &b, &e) < 0)
		vo_problem_add(c, true, inst, "%s", e.msg);
	else if (b.len != strlen(want) || memcmp(b.data, want, b.len))
		vo_problem_add(c, true, inst, "is not the install.sh wheelpick writes: it was changed; do not run "
			       "it, make the bundle again");
	wp_buf_free(&b);
}

void vo_verify_bundle(struct vo_ctx *c, const char *path, struct wp_err *err)
{
	char tmpl[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR");
	snprintf(tmpl, sizeof(tmpl), "%s/wheelpick-verify-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	struct archive *a = archive_read_new(), *disk = archive_write_disk_new();
	struct archive_entry *ae;
	char *top = NULL, *shown = NULL, *name = NULL;
	char **vols = NULL;
	size_t nvols = 0;
	struct vol_reader *vr = NULL;
	int r;
	char *real = NULL;
	bool made = mkdtemp(tmpl) != NULL;
	if (!made || !(real = realpath(tmpl, NULL))) {
		vo_problem_add(c, true, path, "cannot make a directory to unpack it in: %s", strerror(errno));
		goto out;
	}
	snprintf(tmpl, sizeof(tmpl), "%s", real);
	free(real);
	archive_read_support_format_tar(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_gzip(a);
	/* Members land under an absolute temp path, which SECURE_NOABSOLUTEPATHS would refuse: each
	 * name is checked by wp_member_name_problem (absolute, '..', NUL, ...) before the prefix goes
	 * on, and the other two guards see the whole path (the temp dir is resolved, so no link in
	 * it trips SECURE_SYMLINKS). */
	archive_write_disk_set_options(disk, ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
				       ARCHIVE_EXTRACT_PERM);
	size_t fatal = c->rep->n_fatal;
	vols = volume_set(c, path, &nvols);
	if (vols && c->rep->n_fatal > fatal)
		goto out; /* a set with a hole or a stranger in it is no archive to read */
	/* volumes are one stream cut in pieces: libarchive reads them one after the other */
	char *one[1] = { (char *)path };
	vr = wp_xcalloc(1, sizeof(*vr));
	*vr = (struct vol_reader){ .names = vols ? vols : one, .n = vols ? nvols : 1, .fd = -1 };
	if (archive_read_open(a, vr, NULL, vol_read, vol_close) != ARCHIVE_OK) {
		if (vols)
			goto short_set;
		vo_problem_add(c, true, path, "is not a tar archive: %s", archive_error_string(a));
		goto out;
	}
	c->real = tmpl;
	shown = wp_xasprintf("%s:", path);
	c->shown = shown;
	size_t tops = 0;
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		free(name);
		name = archive_entry_pathname(ae) ? wp_xstrdup(archive_entry_pathname(ae)) : NULL;
		char buf[256];
		const char *bad = name ? wp_member_name_problem(name, strlen(name)) : "has no name";
		mode_t type = archive_entry_filetype(ae);
		if (bad || (type != AE_IFREG && type != AE_IFDIR)) {
			vo_problem_add(c, true, path, "member '%s' %s", wp_member_name_show(name ? name : "",
				    name ? strlen(name) : 0, buf, sizeof(buf)),
				    bad ? bad : "is not a file or a directory");
			continue;
		}
		const char *slash = strchr(name, '/');
		size_t tlen = slash ? (size_t)(slash - name) : strlen(name);
		if (!top) {
			top = wp_xstrndup(name, tlen);
			tops = 1;
		} else if (strlen(top) != tlen || strncmp(top, name, tlen)) {
			tops++;
		}
		if (!slash && type == AE_IFREG) {
			tops++; /* a file beside the top folder */
			continue;
		}
		char *dest = wp_xasprintf("%s/%s", tmpl, name);
		archive_entry_set_pathname(ae, dest);
		free(dest);
		if (archive_write_header(disk, ae) != ARCHIVE_OK) {
			vo_problem_add(c, true, path, "cannot unpack member '%s': %s", name, archive_error_string(disk));
			continue;
		}
		const void *blk;
		size_t sz;
		la_int64_t off;
		while ((r = archive_read_data_block(a, &blk, &sz, &off)) == ARCHIVE_OK)
			if (archive_write_data_block(disk, blk, sz, off) != ARCHIVE_OK)
				break;
		archive_write_finish_entry(disk);
		if (r != ARCHIVE_EOF) {
			vo_problem_add(c, true, path, "member '%s' cannot be read: %s", name, archive_error_string(a));
			goto out;
		}
	}
	if (r != ARCHIVE_EOF && vols) {
	short_set:
		/* every volume there and of the right size, yet the stream breaks: the last one is cut short
		 * (the likeliest), a volume after it is missing, or one was changed in place */
		vo_problem_add(c, true, vols[nvols - 1], "ends the bundle early: it is cut short, a volume after it "
							 "is missing, or a volume is damaged (%s)", archive_error_string(a));
		goto out;
	}
	if (r != ARCHIVE_EOF) {
		vo_problem_add(c, true, path, "is damaged: %s", archive_error_string(a));
		goto out;
	}
	if (!top || tops != 1) {
		vo_problem_add(c, true, path, "has %s top-level folder", !top ? "no" : "more than one");
		goto out;
	}
	char *house = wp_xasprintf("%s/%s", tmpl, top);
	char *inst = wp_xasprintf("%s/install.sh", house);
	struct stat sb;
	if (stat(inst, &sb) < 0 || !S_ISREG(sb.st_mode))
		vo_problem_add(c, true, inst, "is missing");
	else if (!(sb.st_mode & 0100))
		vo_problem_add(c, true, inst, "is not executable");
	else
		check_install_sh(c, inst);
	vo_verify_wheelhouse(c, house);
	free(inst);
	free(house);
out:
	c->real = NULL;
	archive_read_free(a);
	archive_write_free(disk);
	if (made)
		nftw(tmpl, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(name);
	free(top);
	free(shown);
	if (vols)
		vo_free_list(vols, nvols);
	free(vr);
}
