/* ops/publish/bundle.c: a wheelhouse or a conda channel with its locks as one reproducible tarball
 * (pax, zstd or gzip) with an offline install.sh. */
#include "ops/publish/bundle.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "ops/core/unpack.h"
#include "ops/publish/manifest.h"
#include "ops/publish/mirror.h"
#include "verify/hash.h"
#include "verify/archopen.h"
#include "verify/wheel.h"
#include "base/os/os.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char install_sh[] =
	"#!/bin/sh\n"
	"# install.sh: install the wheels beside this script, offline, every file checked against the\n"
	"# sha256 in the requirement file: requirements.txt, or the requirements-<target>.txt this\n"
	"# machine is (say which: ./install.sh requirements-cu118-py3.10-manylinux_2_28_x86_64.txt).\n"
	"# It runs 'wheelpick install' when a wheelpick is on PATH, else pip; arguments after the\n"
	"# file go to either (--target DIR, ...).\n"
	"set -eu\n"
	"here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
	"case \"${1:-}\" in\n"
	"requirements*.txt) req=$here/$(basename \"$1\"); shift ;;\n"
	"*) req=$here/requirements.txt ;;\n"
	"esac\n"
	"if [ ! -f \"$req\" ]; then\n"
	"\techo \"install.sh: no $(basename \"$req\") here; this bundle is for targets that each have a file:\" >&2\n"
	"\tfor f in \"$here\"/requirements-*.txt; do [ -f \"$f\" ] && sed -n '2p' \"$f\" | sed \"s|^#  *|  $(basename \"$f\"): |\" >&2; done\n"
	"\techo \"run ./install.sh FILE with the one for this machine\" >&2\n"
	"\texit 2\n"
	"fi\n"
	"if [ -z \"${WHEELPICK_USE_PIP:-}\" ] && command -v wheelpick >/dev/null 2>&1; then\n"
	"\techo \"install.sh: installing with $(command -v wheelpick) (WHEELPICK_USE_PIP=1 uses pip)\" >&2\n"
	"\texec wheelpick install -r \"$req\" --find-links \"$here\" --python \"${PYTHON:-python3}\" \"$@\"\n"
	"fi\n"
	"echo \"install.sh: installing with pip (no wheelpick on PATH)\" >&2\n"
	"exec \"${PYTHON:-python3}\" -m pip install --no-index --find-links \"$here\" --require-hashes -r \"$req\" \"$@\"\n";

/* Why the conda script rewrites the lock rather than installing from the channel by name: an
 * explicit file runs no solver (CEP 23), so the environment is exactly the lock that verify
 * checked, and no virtual package (__cuda on a machine whose driver conda cannot see) stops it; its
 * upstream https URLs are refused by conda's offline mode unless the package cache already has
 * them, so each one is pointed at the same file in the bundle's channel, which offline mode reads
 * (file://). The path is percent-encoded byte by byte (od) outside [A-Za-z0-9/._~-], so a folder
 * with spaces or '#' stays one URL and nothing reaches sed's replacement but those characters and
 * '%'. The rewrite rule (the URL's last two components are channel/<subdir>/<file>) is the one
 * wp_explicit_entry_parse applies, so verify checks what this script will install. */
static const char install_sh_conda[] =
	"#!/bin/sh\n"
	"# install.sh: create a conda environment from the packages beside this script, offline and\n"
	"# exactly as locked: conda create --offline --file with the explicit lock (CEP 23) for this\n"
	"# machine, each URL pointed at channel/ in this folder, each package checked against the lock's\n"
	"# sha256. explicit-<subdir>.txt, or say which: ./install.sh explicit-linux-64-cu121-py3.11.txt.\n"
	"# Arguments after it go to conda create (-n NAME or -p PREFIX, else -n with environment.yml's\n"
	"# name; -y). $CONDA names another conda (mamba, micromamba).\n"
	"set -eu\n"
	"here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
	"lock=\n"
	"case \"${1:-}\" in\n"
	"explicit-*.txt | */explicit-*.txt) lock=$here/$(basename \"$1\"); shift ;;\n"
	"*)\n"
	"\tn=0\n"
	"\tfor f in \"$here\"/explicit-*.txt; do if [ -f \"$f\" ]; then n=$((n + 1)); lock=$f; fi; done\n"
	"\tif [ \"$n\" != 1 ]; then\n"
	"\t\techo \"install.sh: this bundle has a lock for each kind of machine; say which is this one's:\" >&2\n"
	"\t\tfor f in \"$here\"/explicit-*.txt; do\n"
	"\t\t\tif [ -f \"$f\" ]; then printf '  %s: ' \"$(basename \"$f\")\" >&2; sed -n '1s/^# written by wheelpick for: //p' \"$f\" >&2; fi\n"
	"\t\tdone\n"
	"\t\techo \"run ./install.sh FILE with the one for this machine\" >&2\n"
	"\t\texit 2\n"
	"\tfi ;;\n"
	"esac\n"
	"if [ ! -f \"$lock\" ]; then\n"
	"\techo \"install.sh: no $(basename \"$lock\") here; the locks are: $(cd \"$here\" && echo explicit-*.txt)\" >&2\n"
	"\texit 2\n"
	"fi\n"
	"conda=${CONDA:-conda}\n"
	"if ! command -v \"$conda\" >/dev/null 2>&1; then\n"
	"\techo \"install.sh: '$conda' is not on PATH: install conda (Miniforge or Miniconda), or set CONDA to the one "
	"this machine has (CONDA=mamba, CONDA=micromamba, or its path) and run ./install.sh again\" >&2\n"
	"\texit 3\n"
	"fi\n"
	"named=\n"
	"for a in \"$@\"; do case $a in -n | -p | --name | --prefix | --name=* | --prefix=* | -n?* | -p?*) named=1 ;; esac; done\n"
	"if [ -z \"$named\" ]; then\n"
	"\tname=$(sed -n 's/^name: //p' \"$here\"/environment*.yml 2>/dev/null | head -n 1)\n"
	"\tset -- -n \"${name:-env}\" \"$@\"\n"
	"fi\n"
	"LC_ALL=C\n"
	"enc=\n"
	"rest=$here\n"
	"while [ -n \"$rest\" ]; do\n"
	"\tc=${rest%\"${rest#?}\"}\n"
	"\trest=${rest#?}\n"
	"\tcase $c in\n"
	"\t[A-Za-z0-9/._~-]) enc=$enc$c ;;\n"
	"\t*) enc=$enc$(printf '%s' \"$c\" | od -An -tx1 | tr -d ' \\n' | sed 's/../%&/g') ;;\n"
	"\tesac\n"
	"done\n"
	"tmp=$(mktemp -d \"${TMPDIR:-/tmp}/wheelpick-install.XXXXXX\")\n"
	"trap 'rm -rf \"$tmp\"' EXIT\n"
	"trap 'exit 130' INT TERM\n"
	"sed -e '/^[[:space:]]*#/b' -e '/^[[:space:]]*@EXPLICIT[[:space:]]*$/b' \\\n"
	"\t-e \"s|^[^#]*/\\([^/#]*/[^/#]*\\)\\(#.*\\)\\{0,1\\}\\$|file://$enc/channel/\\1\\2|\" \"$lock\" >\"$tmp/explicit.txt\"\n"
	"if grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*@EXPLICIT[[:space:]]*$' -e '^file://' -e '^[[:space:]]*$' \\\n"
	"\t\"$tmp/explicit.txt\" >/dev/null; then\n"
	"\techo \"install.sh: $(basename \"$lock\") has a line that is no package URL; run 'wheelpick verify' on the bundle\" >&2\n"
	"\texit 4\n"
	"fi\n"
	"\"$conda\" create --offline --file \"$tmp/explicit.txt\" \"$@\"\n";

const char *wp_bundle_install_sh(void)
{
	return install_sh;
}

const char *wp_bundle_install_sh_for(enum wp_bundle_kind kind)
{
	return kind == WP_BUNDLE_CONDA  ? install_sh_conda :
	       kind == WP_BUNDLE_MIRROR ? NULL :
					  install_sh;
}

/* ---- explicit lock lines, read as the conda install.sh reads them ---- */

static bool lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* s[0..n) percent-decoded (as conda's url_to_path does), or NULL when it holds NUL or '/' once
 * decoded, or is empty, "." or "..": a component that would not stay one folder down. */
static char *component(const char *s, size_t n)
{
	char *out = wp_xmalloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == '%' && i + 2 < n && wp_hexval(s[i + 1]) >= 0 && wp_hexval(s[i + 2]) >= 0) {
			c = wp_hexval(s[i + 1]) * 16 + wp_hexval(s[i + 2]);
			i += 2;
		}
		if (c == 0 || c == '/') {
			free(out);
			return NULL;
		}
		out[k++] = (char)c;
	}
	out[k] = 0;
	if (!k || !strcmp(out, ".") || !strcmp(out, "..")) {
		free(out);
		return NULL;
	}
	return out;
}

int wp_explicit_entry_parse(const char *line, struct wp_explicit_entry *e, const char **why)
{
	static const char *const ws = " \t\r\n\v\f";
	memset(e, 0, sizeof(*e));
	*why = NULL;
	line += strspn(line, ws);
	size_t len = strlen(line);
	while (len && strchr(ws, line[len - 1]))
		len--;
	if (!len || line[0] == '#' || (len == 9 && !strncmp(line, "@EXPLICIT", 9)))
		return 0;
	const char *hash = memchr(line, '#', len);
	size_t ulen = hash ? (size_t)(hash - line) : len;
	/* the last two components of the URL: .../<subdir>/<file> */
	const char *fn = NULL, *sd = NULL;
	for (size_t i = ulen; i-- > 0;)
		if (line[i] == '/') {
			if (!fn)
				fn = line + i + 1;
			else {
				sd = line + i + 1;
				break;
			}
		}
	if (!fn || !sd) {
		*why = "is not a URL ending in <subdir>/<package file>";
		return -1;
	}
	e->subdir = component(sd, (size_t)(fn - 1 - sd));
	e->filename = component(fn, (size_t)(line + ulen - fn));
	if (!e->subdir || !e->filename) {
		*why = "names a subdir or file that is empty, '.', '..' or holds '/'";
		goto bad;
	}
	size_t fl = strlen(e->filename);
	if (!((fl > 6 && !strcmp(e->filename + fl - 6, ".conda")) ||
	      (fl > 8 && !strcmp(e->filename + fl - 8, ".tar.bz2")))) {
		*why = "names a file that is not a conda package (.conda or .tar.bz2)";
		goto bad;
	}
	if (hash) {
		const char *h = hash + 1;
		size_t hl = (size_t)(line + len - h);
		if (hl > 7 && !strncmp(h, "sha256:", 7))
			h += 7, hl -= 7;
		if (hl == 64 && lower_hex(h, 64))
			e->sha256 = wp_xstrndup(h, 64);
		else if (hl == 32 && lower_hex(h, 32) && h == hash + 1)
			e->md5 = wp_xstrndup(h, 32);
		else {
			*why = "has a hash that is not '#sha256:' and 64 hex digits (or an md5's 32)";
			goto bad;
		}
	}
	return 1;
bad:
	wp_explicit_entry_release(e);
	return -1;
}

void wp_explicit_entry_release(struct wp_explicit_entry *e)
{
	free(e->subdir);
	free(e->filename);
	free(e->sha256);
	free(e->md5);
	memset(e, 0, sizeof(*e));
}

enum compression { C_NONE, C_GZIP, C_ZSTD };

static const struct {
	const char *suffix;
	enum compression c;
} suffixes[] = {
	{ ".tar.zst", C_ZSTD }, { ".tzst", C_ZSTD }, { ".tar.gz", C_GZIP }, { ".tgz", C_GZIP },
	{ ".tar", C_NONE },
};

WP_VEC_OF(names, char *); /* each name owned */

static void names_add(struct names *ns, char *s)
{
	wp_vec_push(ns, s);
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	wp_vec_free(ns);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file and directory under root/rel, as paths relative to root ("sub/" for a directory). */
static int collect(const char *root, const char *rel, const struct wp_os_stat *skip,
		   struct names *out, int depth, struct wp_err *err)
{
	char *dir = *rel ? wp_xasprintf("%s/%s", root, rel) : wp_xstrdup(root);
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	int rc = 0;
	if (!d) {
		rc = wp_fs_fail(err, errno, "cannot read directory", dir);
		goto out;
	}
	if (depth > 32) {
		rc = wp_fail(err, -WPE_USAGE, "wheelhouse '%s' nests directories too deeply", root);
		goto out;
	}
	while (!rc && (de = wp_os_readdir(d))) {
		struct wp_os_stat sb;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    wp_fs_is_tmp_name(de->d_name) || (!*rel && !strcmp(de->d_name, "install.sh")))
			continue;
		char *path = wp_xasprintf("%s/%s", dir, de->d_name);
		char *sub = *rel ? wp_xasprintf("%s/%s", rel, de->d_name) : wp_xstrdup(de->d_name);
		if (wp_os_stat(path, &sb) < 0) {
			rc = wp_fs_fail(err, errno, "cannot read", path);
		} else if (skip && sb.st_dev == skip->st_dev && sb.st_ino == skip->st_ino) {
			/* the bundle being replaced, written into its own wheelhouse */
		} else if (WP_S_ISDIR(sb.st_mode)) {
			names_add(out, wp_xasprintf("%s/", sub));
			rc = collect(root, sub, skip, out, depth + 1, err);
		} else if (WP_S_ISREG(sb.st_mode)) {
			names_add(out, sub);
			sub = NULL;
		} else {
			rc = wp_fail(err, -WPE_USAGE, "'%s' is not a regular file or directory",
				     path);
		}
		free(path);
		free(sub);
	}
out:
	if (d)
		wp_os_closedir(d);
	free(dir);
	return rc;
}

static bool ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* Whether the top folder and every member name are ASCII. */
static bool names_ascii(const char *top, const struct names *files)
{
	if (!ascii(top))
		return false;
	for (size_t i = 0; i < files->n; i++)
		if (!ascii(files->v[i]))
			return false;
	return true;
}

static struct archive_entry *new_entry(const char *path, mode_t type, mode_t perm, long long size,
				       long long mtime)
{
	struct archive_entry *ae = archive_entry_new();
	archive_entry_set_pathname(ae, path);
	archive_entry_set_filetype(ae, type);
	archive_entry_set_perm(ae, perm);
	archive_entry_set_size(ae, type == AE_IFREG ? size : 0);
	archive_entry_set_mtime(ae, (time_t)mtime, 0);
	archive_entry_set_uid(ae, 0);
	archive_entry_set_gid(ae, 0);
	return ae;
}

static int add_bytes(struct archive *a, const char *out, const char *name, const void *data,
		     size_t n, mode_t perm, long long mtime, struct wp_err *err)
{
	struct archive_entry *ae = new_entry(name, AE_IFREG, perm, (long long)n, mtime);
	int rc = 0;
	if (archive_write_header(a, ae) != ARCHIVE_OK ||
	    (n && archive_write_data(a, data, n) != (la_ssize_t)n))
		rc = wp_fail(err, -WPE_IO, "cannot write bundle '%s': %s", out,
			     archive_error_string(a));
	archive_entry_free(ae);
	return rc;
}

static int add_file(struct archive *a, const char *out, const char *name, const char *path,
		    long long mtime, struct wp_err *err)
{
	struct archive_entry *ae = NULL;
	struct wp_os_stat sb;
	char *buf = NULL;
	int rc = 0;
	int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (fd < 0 || wp_os_fstat(fd, &sb) < 0) {
		rc = wp_fs_fail(err, errno, "cannot read", path);
		goto out;
	}
	ae = new_entry(name, AE_IFREG, sb.st_mode & 0111 ? 0755 : 0644, (long long)sb.st_size,
		       mtime);
	if (archive_write_header(a, ae) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_IO, "cannot write bundle '%s': %s", out,
			     archive_error_string(a));
		goto out;
	}
	enum { CHUNK = 256 << 10 };
	buf = wp_xmalloc(CHUNK);
	long long left = (long long)sb.st_size;
	while (left > 0) {
		ssize_t got = wp_os_read(fd, buf, CHUNK);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = wp_fs_fail(err, errno, "cannot read", path);
			goto out;
		}
		if (got == 0) {
			/* the header promised st_size bytes; a shrinking file would corrupt the
			 * tar */
			rc = wp_fail(err, -WPE_IO, "'%s' shrank while it was being bundled", path);
			goto out;
		}
		if (got > left)
			got = (ssize_t)left;
		if (archive_write_data(a, buf, (size_t)got) != (la_ssize_t)got) {
			rc = wp_fail(err, -WPE_IO, "cannot write bundle '%s': %s", out,
				     archive_error_string(a));
			goto out;
		}
		left -= got;
	}
out:
	archive_entry_free(ae);
	free(buf);
	if (fd >= 0)
		wp_os_close(fd);
	return rc;
}

/* ---- volumes ---- */

int wp_bundle_size_parse(const char *s, unsigned long long *out, struct wp_err *err)
{
	static const struct {
		const char *suffix;
		unsigned long long unit;
	} units[] = {
		{ "", 1 },
		{ "B", 1 },
		{ "K", 1ull << 10 },
		{ "KiB", 1ull << 10 },
		{ "KB", 1000ull },
		{ "M", 1ull << 20 },
		{ "MiB", 1ull << 20 },
		{ "MB", 1000000ull },
		{ "G", 1ull << 30 },
		{ "GiB", 1ull << 30 },
		{ "GB", 1000000000ull },
		{ "T", 1ull << 40 },
		{ "TiB", 1ull << 40 },
		{ "TB", 1000000000000ull },
	};
	char *end = NULL;
	double v = 0;
	if (s && *s >= '0' && *s <= '9') {
		errno = 0;
		v = strtod(s, &end);
		if (errno)
			end = NULL;
	}
	for (size_t i = 0; end && i < WP_ARRAY_LEN(units); i++) {
		const char *u = end;
		/* "4 G" and "4g" as well: people type sizes many ways */
		while (*u == ' ')
			u++;
		if (strcasecmp(u, units[i].suffix) != 0)
			continue;
		double bytes = v * (double)units[i].unit;
		if (bytes >= (double)WP_BUNDLE_SPLIT_MIN && bytes < 1.8e19) {
			*out = (unsigned long long)bytes;
			return 0;
		}
		break;
	}
	return wp_fail(err, -WPE_USAGE,
		       "--split '%s' is not a size of at least 1K: give bytes or a number with K, M, G "
		       "or T (powers of 1024; KB, MB, GB: of 1000), e.g. --split 4G or --split 700M",
		       s ? s : "");
}

char *wp_bundle_volume_name(const char *out_path, size_t i)
{
	return wp_xasprintf("%s.%03zu", out_path, i);
}

/* The archive, written whole into volume 1's temp file, cut from its end: each later volume's
 * bytes copied into a temp file of its own, then the big one truncated, so the disk holds at most
 * one volume more than the bundle. Nothing is renamed into place until every volume is cut. */
struct volumes {
	const char *out;
	unsigned long long split;
	struct wp_atomic_file *v; /* v[0] is the whole archive until cut */
	size_t n;
};

/* len bytes at off of from into to (from its start). */
static int copy_range(int from, off_t off, int to, unsigned long long len, const char *what,
		      struct wp_err *err)
{
	int64_t in = off;
	while (len) {
		ssize_t got = wp_os_copy_range(from, &in, to,
					       len > (1u << 30) ? (1u << 30) : (size_t)len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 &&
		    (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
			/* a file system without it: plain reads and writes */
			char buf[1 << 16];
			ssize_t r = wp_os_pread(from, buf,
						len < sizeof(buf) ? (size_t)len : sizeof(buf), in);
			if (r <= 0 || wp_os_write(to, buf, (size_t)r) != r)
				return wp_fs_fail(err, r < 0 ? errno : EIO, "cannot write", what);
			got = r;
			in += r;
		} else if (got <= 0) {
			return wp_fs_fail(err, got < 0 ? errno : EIO, "cannot write", what);
		}
		len -= (unsigned long long)got;
	}
	return 0;
}

static int volumes_cut(struct volumes *vs, struct wp_err *err)
{
	struct wp_os_stat sb;
	if (wp_os_fstat(vs->v[0].fd, &sb) < 0)
		return wp_fs_fail(err, errno, "cannot read", vs->v[0].tmp);
	unsigned long long total = (unsigned long long)sb.st_size;
	size_t n = total ? (size_t)((total + vs->split - 1) / vs->split) : 1;
	if (n > WP_BUNDLE_MAX_VOLUMES)
		return wp_fail(err, -WPE_USAGE,
			       "bundle '%s' is %llu bytes: more than %d volumes of %llu bytes; give a larger "
			       "--split",
			       vs->out, total, WP_BUNDLE_MAX_VOLUMES, vs->split);
	vs->v = wp_xrealloc(vs->v, n * sizeof(*vs->v));
	for (size_t i = 1; i < n; i++)
		vs->v[i] = (struct wp_atomic_file)WP_ATOMIC_FILE_INIT;
	vs->n = n; /* every slot is aborted on failure; an unopened one is a no-op */
	for (size_t i = n; i >= 2; i--) {
		unsigned long long off = (unsigned long long)(i - 1) * vs->split;
		char *name = wp_bundle_volume_name(vs->out, i);
		struct wp_atomic_file *af = &vs->v[i - 1];
		int rc = wp_atomic_file_open(af, name, err);
		free(name);
		if (rc)
			return rc;
		if ((rc = copy_range(vs->v[0].fd, (off_t)off, af->fd, total - off, af->tmp, err)))
			return rc;
		if (wp_os_ftruncate(vs->v[0].fd, (off_t)off) < 0)
			return wp_fs_fail(err, errno, "cannot write", vs->v[0].tmp);
		total = off;
	}
	return 0;
}

static void volumes_abort(struct volumes *vs)
{
	for (size_t i = 0; i < vs->n; i++)
		wp_atomic_file_abort(&vs->v[i]);
	free(vs->v);
	vs->v = NULL;
	vs->n = 0;
}

/* Volumes first.. that an earlier run left beside out: they would read as part of this bundle
 * (verify of OUT.001 passed a stale set beside a new plain OUT). */
static void remove_volumes_from(const char *out, size_t first)
{
	for (size_t i = first; i <= WP_BUNDLE_MAX_VOLUMES; i++) {
		char *stale = wp_bundle_volume_name(out, i);
		int gone = wp_os_unlink(stale);
		free(stale);
		if (gone < 0)
			break;
	}
}

/* Every volume into place (fsync, rename); then those an earlier, longer run left after the last
 * are removed, and a whole bundle an earlier run without --split left under the name itself. */
static int volumes_commit(struct volumes *vs, struct wp_err *err)
{
	int rc = 0;
	for (size_t i = 0; i < vs->n && !rc; i++)
		rc = wp_atomic_file_commit(&vs->v[i], err);
	if (!rc) {
		remove_volumes_from(vs->out, vs->n + 1);
		wp_os_unlink(vs->out);
	}
	return rc;
}

/* The compression out_path's suffix asks for, and (in *top, owned) the folder every member sits in;
 * -1 (and *top NULL) for a name no bundle has. */
static int bundle_name(const char *out_path, char **top)
{
	const char *base = wp_path_base(out_path); /* Z:\dir\b.tar.zst too */
	size_t blen = strlen(base);
	*top = NULL;
	for (size_t i = 0; i < WP_ARRAY_LEN(suffixes); i++) {
		size_t k = strlen(suffixes[i].suffix);
		if (blen > k && !strcmp(base + blen - k, suffixes[i].suffix) && base[0] != '.') {
			*top = wp_xstrndup(base, blen - k);
			return (int)suffixes[i].c;
		}
	}
	return -1;
}

int wp_bundle_name_check(const char *out_path, struct wp_err *err)
{
	char *top = NULL;
	int kind = bundle_name(out_path, &top);
	free(top);
	return kind < 0 ?
		       wp_fail(err, -WPE_USAGE,
			       "bundle '%s' must be named NAME.tar.zst or NAME.tar.gz", out_path) :
		       0;
}

int wp_bundle_write(const char *out_path, const char *src_dir, struct wp_err *err)
{
	return wp_bundle_write_split(out_path, src_dir, 0, NULL, err);
}

int wp_bundle_write_split(const char *out_path, const char *src_dir, unsigned long long split,
			  size_t *nvolumes, struct wp_err *err)
{
	return wp_bundle_write_as(out_path, src_dir, WP_BUNDLE_WHEELS, split, nvolumes, err);
}

/* What install.sh reads must be there: a requirement file for pip, or an explicit lock and the
 * channel it points into for conda. */
static bool has_what_install_reads(const struct names *files, enum wp_bundle_kind kind)
{
	bool lock = false, channel = kind != WP_BUNDLE_CONDA;
	if (kind == WP_BUNDLE_MIRROR) {
		/* a mirror's pages: what its clients read */
		for (size_t i = 0; i < files->n; i++)
			if (!strcmp(files->v[i], "simple/index.html"))
				return true;
		return false;
	}
	for (size_t i = 0; i < files->n; i++) {
		const char *f = files->v[i];
		size_t n = strlen(f);
		if (kind == WP_BUNDLE_CONDA) {
			lock |= !strchr(f, '/') && !strncmp(f, "explicit-", 9) && n > 13 &&
				!strcmp(f + n - 4, ".txt");
			channel |= !strcmp(f, WP_BUNDLE_CHANNEL_DIR "/");
		} else {
			lock |= !strcmp(f, "requirements.txt") ||
				(!strncmp(f, "requirements-", 13) && n > 17 &&
				 !strcmp(f + n - 4, ".txt"));
		}
	}
	return lock && channel;
}

/* A delta against o->since: every file of the new tree hashed (install.sh as written) into *m,
 * each marked carried unless the far side has those bytes at that path, chained to the old tree;
 * its JSON in *json, and its name among the members. */
static int delta_plan(const char *src_dir, struct names *files, const char *script,
		      const struct wp_bundle_opts *o, struct wp_tree_manifest *m,
		      struct wp_buf *json, struct wp_err *err)
{
	int rc = 0;
	for (size_t i = 0; i < files->n && !rc; i++) {
		const char *rel = files->v[i];
		char hex[WP_SHA256_HEX_LEN + 1];
		long long size = 0;
		if (rel[strlen(rel) - 1] == '/')
			continue;
		if (!strcmp(rel, "install.sh") && script) {
			size = (long long)strlen(script);
			rc = wp_sha256_hex_of(script, strlen(script), hex);
		} else if (!strcmp(rel, WP_DELTA_NAME)) {
			continue; /* a delta staged from a delta: not part of the tree */
		} else {
			char *path = wp_xasprintf("%s/%s", src_dir, rel);
			rc = wp_hash_file(path, hex, &size, err);
			free(path);
		}
		if (rc)
			break;
		wp_tree_manifest_add(m, rel, hex, size);
		const struct wp_tree_file *old = wp_tree_manifest_find(o->since, rel);
		m->v[m->n - 1].carried = !old || strcmp(old->sha256, hex) != 0;
	}
	if (rc)
		return rc < 0 ? rc : wp_fail(err, -WPE_IO, "cannot hash the bundle's files");
	m->is_delta = true;
	snprintf(m->prev_tree, sizeof(m->prev_tree), "%s", o->since->tree);
	snprintf(m->prev_manifest, sizeof(m->prev_manifest), "%s", o->since->source_sha256);
	wp_tree_manifest_seal(m);
	if ((rc = wp_tree_manifest_format(m, o->kind_name ? o->kind_name : "bundle", json, err)))
		return rc;
	names_add(files, wp_xstrdup(WP_DELTA_NAME));
	qsort(files->v, files->n, sizeof(*files->v), name_cmp);
	return 0;
}

static bool delta_carries(const struct wp_tree_manifest *m, const char *rel)
{
	const struct wp_tree_file *f = wp_tree_manifest_find(m, rel);
	return !f || f->carried;
}

int wp_bundle_write_as(const char *out_path, const char *src_dir, enum wp_bundle_kind what,
		       unsigned long long split, size_t *nvolumes, struct wp_err *err)
{
	const struct wp_bundle_opts o = { .split = split, .mtime = WP_BUNDLE_MTIME };
	return wp_bundle_write_opts(out_path, src_dir, what, &o, nvolumes, err);
}

int wp_bundle_write_opts(const char *out_path, const char *src_dir, enum wp_bundle_kind what,
			 const struct wp_bundle_opts *o, size_t *nvolumes, struct wp_err *err)
{
	unsigned long long split = o->split;
	long long mtime = o->mtime;
	struct wp_tree_manifest delta = { 0 };
	struct wp_buf delta_json = WP_BUF_INIT;
	const char *script = wp_bundle_install_sh_for(what);
	struct wp_atomic_file af = WP_ATOMIC_FILE_INIT;
	struct volumes vs = { .out = out_path, .split = split };
	struct names files = { 0 };
	struct archive *a = NULL;
	struct wp_os_stat out_sb, sb;
	char *top = NULL, *name = NULL, *path = NULL;
	int rc = 0;

	int kind = bundle_name(out_path, &top);
	if (kind < 0)
		return wp_fail(err, -WPE_USAGE,
			       "bundle '%s' must be named NAME.tar.zst or NAME.tar.gz", out_path);
	if (split && split < WP_BUNDLE_SPLIT_MIN) {
		free(top);
		return wp_fail(err, -WPE_USAGE,
			       "--split %llu is below the smallest volume, %llu bytes", split,
			       WP_BUNDLE_SPLIT_MIN);
	}

	rc = collect(src_dir, "", wp_os_stat(out_path, &out_sb) == 0 ? &out_sb : NULL, &files, 0,
		     err);
	if (rc)
		goto out;
	(void)sb;
	if (!has_what_install_reads(&files, what)) {
		rc = what == WP_BUNDLE_MIRROR ?
			     wp_fail(err, -WPE_USAGE,
				     "mirror '%s' has no simple/index.html: make it with 'wheelpick mirror "
				     "DIR PKG...'",
				     src_dir) :
		     what == WP_BUNDLE_CONDA ?
			     wp_fail(err, -WPE_USAGE,
				     "conda channel '%s' has no explicit-<subdir>.txt beside a channel/ folder "
				     "for the bundle's install.sh",
				     src_dir) :
			     wp_fail(err, -WPE_USAGE,
				     "wheelhouse '%s' has no requirements.txt (or requirements-<target>.txt) "
				     "for the bundle's install.sh",
				     src_dir);
		goto out;
	}
	if (script)
		names_add(&files, wp_xstrdup("install.sh"));
	qsort(files.v, files.n, sizeof(*files.v), name_cmp);
	if (o->since && (rc = delta_plan(src_dir, &files, script, o, &delta, &delta_json, err)))
		goto out;

	if (split) {
		/* the whole archive goes to volume 1's temp first, and is cut at the end */
		char *first = wp_bundle_volume_name(out_path, 1);
		vs.v = wp_xcalloc(1, sizeof(*vs.v));
		vs.v[0] = (struct wp_atomic_file)WP_ATOMIC_FILE_INIT;
		rc = wp_atomic_file_open(&vs.v[0], first, err);
		free(first);
		if (rc)
			goto out;
		vs.n = 1;
	} else if ((rc = wp_atomic_file_open(&af, out_path, err))) {
		goto out;
	}
	a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	int fr = ARCHIVE_OK;
	/* Names are UTF-8 bytes. libarchive would translate them from the C locale's charset
	 * (Linux: refused) or Windows' ANSI code page (mangled), and in libarchive 3.6 the pax
	 * writer reads an entry's name through that charset even when set by the _utf8 calls (it
	 * crashes on one that is not ASCII in the C locale). So a bundle with a name that is not
	 * ASCII says its names are bytes (pax hdrcharset=BINARY), which every reader takes as they
	 * are (GNU tar, bsdtar, Python's tarfile, ours); an ASCII-only bundle is as it was. */
	if (!names_ascii(top, &files))
		fr = archive_write_set_options(a, "hdrcharset=BINARY");
	if (kind == C_ZSTD)
		fr = archive_write_add_filter_zstd(a);
	else if (kind == C_GZIP)
		fr = archive_write_add_filter_gzip(a);
	/* no timestamp in the gzip header: the same wheelhouse gives the same bytes */
	if (fr == ARCHIVE_OK && kind == C_GZIP)
		fr = archive_write_set_filter_option(a, "gzip", "timestamp", NULL);
	if (fr != ARCHIVE_OK || archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(a, split ? vs.v[0].fd : af.fd) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_IO, "cannot write bundle '%s': %s", out_path,
			     archive_error_string(a));
		goto out;
	}
	name = wp_xasprintf("%s/", top);
	struct archive_entry *ae = new_entry(name, AE_IFDIR, 0755, 0, mtime);
	if (archive_write_header(a, ae) != ARCHIVE_OK)
		rc = wp_fail(err, -WPE_IO, "cannot write bundle '%s': %s", out_path,
			     archive_error_string(a));
	archive_entry_free(ae);
	for (size_t i = 0; i < files.n && !rc; i++) {
		const char *rel = files.v[i];
		size_t len = strlen(rel);
		free(name);
		name = wp_xasprintf("%s/%s", top, rel);
		if (rel[len - 1] == '/') {
			ae = new_entry(name, AE_IFDIR, 0755, 0, mtime);
			if (archive_write_header(a, ae) != ARCHIVE_OK)
				rc = wp_fail(err, -WPE_IO, "cannot write bundle '%s': %s", out_path,
					     archive_error_string(a));
			archive_entry_free(ae);
		} else if (!strcmp(rel, "install.sh") && script) {
			if (!o->since || delta_carries(&delta, rel))
				rc = add_bytes(a, out_path, name, script, strlen(script), 0755,
					       mtime, err);
		} else if (o->since && !strcmp(rel, WP_DELTA_NAME)) {
			rc = add_bytes(a, out_path, name, delta_json.data, delta_json.len, 0644,
				       mtime, err);
		} else if (o->since && !delta_carries(&delta, rel)) {
			/* the far side has these bytes at this path */
		} else {
			free(path);
			path = wp_xasprintf("%s/%s", src_dir, rel);
			rc = add_file(a, out_path, name, path, mtime, err);
		}
	}
	if (rc)
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		rc = wp_fail(err, -WPE_IO, "cannot write bundle '%s': %s", out_path,
			     archive_error_string(a));
		goto out;
	}
	if (split && (rc = volumes_cut(&vs, err)))
		goto out;
	rc = split ? volumes_commit(&vs, err) : wp_atomic_file_commit(&af, err);
	if (!rc && !split)
		remove_volumes_from(out_path, 1);
	if (!rc && nvolumes)
		*nvolumes = split ? vs.n : 1;
	if (o->n_carried)
		for (size_t i = 0; i < delta.n; i++)
			*o->n_carried += delta.v[i].carried;
out:
	wp_tree_manifest_release(&delta);
	wp_buf_free(&delta_json);
	if (a)
		archive_write_free(a);
	wp_atomic_file_abort(&af);
	volumes_abort(&vs);
	names_free(&files);
	free(top);
	free(name);
	free(path);
	return rc;
}

/* ---- reading bundles back: the tree a bundle (or its volumes) holds, unpacked or hashed ---- */

static bool is_file(const char *p)
{
	struct wp_os_stat sb;
	return wp_os_stat(p, &sb) == 0 && WP_S_ISREG(sb.st_mode);
}

/* The files of the archive: the path itself, or its volumes from .001 on (a NULL-terminated
 * list). */
static char **volumes_of(const char *path)
{
	size_t n = strlen(path);
	char *base = NULL;
	if (n > 4 && path[n - 4] == '.' && isdigit((unsigned char)path[n - 3]) &&
	    isdigit((unsigned char)path[n - 2]) && isdigit((unsigned char)path[n - 1]))
		base = wp_xstrndup(path, n - 4);
	else if (!is_file(path))
		base = wp_xstrdup(path);
	char **v = NULL;
	size_t k = 0;
	if (base) {
		for (size_t i = 1; i <= WP_BUNDLE_MAX_VOLUMES; i++) {
			char *vol = wp_bundle_volume_name(base, i);
			if (!is_file(vol)) {
				free(vol);
				break;
			}
			v = wp_xrealloc(v, (k + 2) * sizeof(*v));
			v[k++] = vol;
		}
		free(base);
	}
	if (!k) {
		v = wp_xrealloc(v, 2 * sizeof(*v));
		v[k++] = wp_xstrdup(path);
	}
	v[k] = NULL;
	return v;
}

static void free_list(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static struct archive *open_bundle(const char *path, char ***vols, struct wp_err *err)
{
	struct archive *a = archive_read_new();
	archive_read_support_format_tar(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_gzip(a);
	*vols = volumes_of(path);
	size_t n = 0;
	while ((*vols)[n])
		n++;
	if (wp_archive_read_open_paths(a, (const char *const *)*vols, n) != ARCHIVE_OK) {
		wp_fail(err, -WPE_INTEGRITY, "'%s' is not a bundle (tar): %s", path,
			archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* A member's name after its top folder, checked; NULL (err set) for one no bundle of ours has. */
static const char *member_rest(const char *path, const char *name, char **top, struct wp_err *err)
{
	const char *bad = name ? wp_member_name_problem(name, strlen(name)) : "has no name";
	if (bad) {
		char shown[256];
		wp_fail(err, -WPE_INTEGRITY, "bundle '%s': member '%s' %s", path,
			wp_member_name_show(name ? name : "", name ? strlen(name) : 0, shown,
					    sizeof(shown)),
			bad);
		return NULL;
	}
	size_t tlen = strcspn(name, "/");
	if (!*top)
		*top = wp_xstrndup(name, tlen);
	else if (strlen(*top) != tlen || strncmp(*top, name, tlen)) {
		wp_fail(err, -WPE_INTEGRITY, "bundle '%s' has more than one top-level folder",
			path);
		return NULL;
	}
	return name[tlen] ? name + tlen + 1 : name + tlen;
}

/* The bundle's files into m, and with delta_json its WP_DELTA_NAME's bytes (when it is a delta). */
static int manifest_of_bundle(const char *path, struct wp_tree_manifest *m,
			      struct wp_buf *delta_json, struct wp_err *err)
{
	char **vols = NULL, *top = NULL;
	struct archive_entry *ae;
	int rc = 0, r;
	memset(m, 0, sizeof(*m));
	struct archive *a = open_bundle(path, &vols, err);
	if (!a) {
		free_list(vols);
		return -WPE_INTEGRITY;
	}
	while (!rc && (r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		const char *rest = member_rest(path, archive_entry_pathname(ae), &top, err);
		if (!rest) {
			rc = -WPE_INTEGRITY;
			break;
		}
		mode_t type = archive_entry_filetype(ae);
		if (type == AE_IFDIR)
			continue;
		if (type != AE_IFREG || !*rest) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "bundle '%s': member '%s' is not a file in its folder", path,
				     archive_entry_pathname(ae));
			break;
		}
		struct wp_hasher h;
		char hex[WP_SHA256_HEX_LEN + 1];
		long long size = 0;
		if ((rc = wp_hasher_init(&h, WP_HASH_SHA256, err)))
			break;
		const void *blk;
		size_t sz;
		la_int64_t off;
		bool keep = delta_json && !strcmp(rest, WP_DELTA_NAME);
		while ((r = archive_read_data_block(a, &blk, &sz, &off)) == ARCHIVE_OK) {
			wp_hasher_update(&h, blk, sz);
			size += (long long)sz;
			if (keep && wp_buf_add(delta_json, blk, sz) < 0) {
				rc = wp_fail(err, -WPE_TOO_BIG,
					     "bundle '%s': its %s is past %zu bytes", path,
					     WP_DELTA_NAME, WP_TREE_MANIFEST_MAX);
				break;
			}
		}
		if (rc)
			;
		else if (r != ARCHIVE_EOF)
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "bundle '%s': member '%s' cannot be read: %s", path,
				     archive_entry_pathname(ae), archive_error_string(a));
		else if (!(rc = wp_hasher_final(&h, hex, NULL, err)) &&
			 strcmp(rest, WP_DELTA_NAME) != 0)
			wp_tree_manifest_add(m, rest, hex, size);
		wp_hasher_release(&h);
	}
	if (!rc && r != ARCHIVE_EOF)
		rc = wp_fail(err, -WPE_INTEGRITY, "bundle '%s' is damaged or cut short: %s", path,
			     archive_error_string(a));
	if (!rc && !top)
		rc = wp_fail(err, -WPE_INTEGRITY, "bundle '%s' is empty", path);
	archive_read_free(a);
	free_list(vols);
	free(top);
	if (!rc)
		wp_tree_manifest_seal(m);
	else
		wp_tree_manifest_release(m);
	return rc;
}

int wp_tree_manifest_of_bundle(const char *path, struct wp_tree_manifest *m, struct wp_err *err)
{
	return manifest_of_bundle(path, m, NULL, err);
}

int wp_bundle_unpack(const char *path, const char *into, char **top_out, struct wp_err *err)
{
	char **vols = NULL, *top = NULL, *dest = NULL;
	struct archive_entry *ae;
	int rc = 0, r;
	*top_out = NULL;
	struct archive *a = open_bundle(path, &vols, err);
	struct wp_unpack_out out = { .fd = -1 };
	if (!a) {
		free_list(vols);
		return -WPE_INTEGRITY;
	}
	/* names are checked (member_rest) before the prefix goes on, links refused, and into is a
	 * fresh folder: nothing there for a member to write through */
	while (!rc && (r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(ae);
		const char *rest = member_rest(path, name, &top, err);
		mode_t type = archive_entry_filetype(ae);
		if (!rest) {
			rc = -WPE_INTEGRITY;
			break;
		}
		if ((type != AE_IFREG && type != AE_IFDIR) || (type == AE_IFREG && !*rest) ||
		    (archive_entry_perm(ae) &
		     (WP_S_ISUID | WP_S_ISGID | WP_S_ISVTX | WP_S_IWOTH))) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "bundle '%s': member '%s' is not a plain file or folder of "
				     "a bundle wheelpick writes",
				     path, name);
			break;
		}
		free(dest);
		dest = wp_xasprintf("%s/%s", into, name);
		struct wp_err werr = WP_ERR_INIT;
		const void *blk;
		size_t sz;
		la_int64_t off;
		if (!wp_unpack_begin(&out, dest, type == AE_IFDIR, archive_entry_perm(ae), &werr))
			while ((r = archive_read_data_block(a, &blk, &sz, &off)) == ARCHIVE_OK)
				if (wp_unpack_block(&out, blk, sz, off, &werr))
					break;
		if (!werr.code)
			wp_unpack_end(&out, &werr);
		if (werr.code)
			rc = wp_fail(err, werr.code, "cannot unpack '%s' of '%s': %s", name, path,
				     werr.msg);
		else if (r != ARCHIVE_EOF)
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "bundle '%s': member '%s' cannot be unpacked: %s", path, name,
				     archive_error_string(a));
		if (rc)
			break;
		r = ARCHIVE_OK;
	}
	if (!rc && r != ARCHIVE_EOF)
		rc = wp_fail(err, -WPE_INTEGRITY, "bundle '%s' is damaged or cut short: %s", path,
			     archive_error_string(a));
	if (!rc && !top)
		rc = wp_fail(err, -WPE_INTEGRITY, "bundle '%s' is empty", path);
	if (!rc)
		*top_out = wp_xasprintf("%s/%s", into, top);
	wp_unpack_end(&out, NULL);
	archive_read_free(a);
	free_list(vols);
	free(top);
	free(dest);
	return rc;
}

int wp_tree_manifest_of_old(const char *path, struct wp_tree_manifest *m, struct wp_err *err)
{
	if (wp_cstr_endswith(path, ".json"))
		return wp_tree_manifest_load(path, m, err);
	struct wp_buf dj = WP_BUF_INIT_MAX(WP_TREE_MANIFEST_MAX);
	int rc = manifest_of_bundle(path, m, &dj, err);
	if (!rc && dj.len) {
		/* an earlier delta: the tree it makes on the far side, as its own manifest names
		 * it */
		wp_tree_manifest_release(m);
		rc = wp_tree_manifest_parse(dj.data, dj.len, path, m, err);
		wp_buf_free(&dj);
		return rc;
	}
	wp_buf_free(&dj);
	if (!rc) {
		/* the bundle's manifest as `verify --manifest` would write it: what the chain
		 * names */
		struct wp_buf b = WP_BUF_INIT;
		if (!wp_tree_manifest_format(m, "bundle", &b, NULL))
			wp_sha256_hex_of(b.data, b.len, m->source_sha256);
		wp_buf_free(&b);
	}
	return rc;
}
