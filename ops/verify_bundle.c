/* ops/verify_bundle.c: a bundle unpacked into a temp dir with every member checked, then verified as a wheelhouse. */
#include "ops/verify_common.h"
#include "base/mem.h"
#include "verify/wheel.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
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

void vo_verify_bundle(struct vo_ctx *c, const char *path, struct wp_err *err)
{
	char tmpl[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR");
	snprintf(tmpl, sizeof(tmpl), "%s/wheelpick-verify-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	struct archive *a = archive_read_new(), *disk = archive_write_disk_new();
	struct archive_entry *ae;
	char *top = NULL, *shown = NULL, *name = NULL;
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
	if (archive_read_open_filename(a, path, 64 << 10) != ARCHIVE_OK) {
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
	vo_verify_wheelhouse(c, house, true);
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
}
