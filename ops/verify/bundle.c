/* ops/verify/bundle.c: a bundle (or the volumes of a split one, as a set) unpacked into a temp dir
 * with every member checked, then verified as what it carries: a wheelhouse, or a conda channel
 * with its locks. */
#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/str.h"
#include "index/repodata.h"
#include "ops/core/shardread.h"
#include "ops/core/unpack.h"
#include "ops/core/untar.h"
#include "ops/publish/bundle.h"
#include "ops/publish/manifest.h"
#include "ops/verify/common.h"
#include "ops/wheel/sbom.h"
#include "verify/wheel.h"
#include "verify/archopen.h"
#include "base/os/os.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bundle ---- */


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
 * bundle of its own; else a NULL-terminated array the caller frees (wp_vo_free_list with *n). */
static char **volume_set(struct vo_ctx *c, const char *path, size_t *n)
{
	size_t len = strlen(path);
	char *base;
	struct wp_os_stat sb;
	if (len > 4 && path[len - 4] == '.' && strspn(path + len - 3, "0123456789") == 3)
		base = wp_xstrndup(path, len - 4);
	else if (wp_os_stat(path, &sb) < 0)
		base = wp_xstrdup(path);
	else
		return NULL;
	const char *fname = wp_path_base(base); /* after a '\\' too on Windows */
	const char *slash = fname > base ? fname - 1 : NULL;
	char *dir = slash ? wp_xstrndup(base, (size_t)(slash - base)) : wp_xstrdup(".");
	size_t nn, max = 0;
	char **names = wp_vo_list_dir(*dir ? dir : "/", &nn);
	for (size_t i = 0; i < nn; i++) {
		size_t v = volume_no(names[i], fname);
		if (v > max)
			max = v;
	}
	char **vols = wp_xcalloc(max + 1, sizeof(*vols));
	long long first = -1;
	for (size_t i = 1; i <= max; i++) {
		vols[i - 1] = wp_xasprintf("%s.%03zu", base, i);
		if (wp_os_stat(vols[i - 1], &sb) < 0 || !WP_S_ISREG(sb.st_mode)) {
			wp_vo_problem_add(c, true, vols[i - 1],
					  "is missing: the volumes of '%s' run from .001 to .%03zu",
					  base, max);
			continue;
		}
		if (i == 1)
			first = (long long)sb.st_size;
		else if (i < max && (long long)sb.st_size != first)
			wp_vo_problem_add(c, true, vols[i - 1],
					  "is %lld bytes where every volume but the last is %lld: it is %s",
					  (long long)sb.st_size, first,
					  (long long)sb.st_size < first ?
						  "cut short, or the volumes "
						  "after it do not belong to this bundle" :
						  "not a volume of this bundle");
		else if (i == max &&
			 (sb.st_size == 0 || (first >= 0 && (long long)sb.st_size > first)))
			wp_vo_problem_add(c, true, vols[i - 1], "is %lld bytes, %s",
					  (long long)sb.st_size,
					  sb.st_size ?
						  "more than the first volume: not a volume of this bundle" :
						  "empty");
	}
	if (!max)
		wp_vo_problem_add(c, true, path, "has no volumes beside it (%s.001, ...)", base);
	wp_vo_free_list(names, nn);
	free(dir);
	free(base);
	*n = max;
	return vols;
}

/* install.sh is what a user runs on the air-gapped machine: it must be, byte for byte, the script
 * wheelpick writes, or a bundle could carry 'curl ... | sh' past a verify that checks every
 * wheel. */
static void check_install_sh(struct vo_ctx *c, const char *inst, enum wp_bundle_kind kind)
{
	struct wp_buf b;
	struct wp_err e = WP_ERR_INIT;
	const char *want = wp_bundle_install_sh_for(kind);
	if (wp_file_read_capped(inst, 1 << 20, &b, &e) < 0)
		wp_vo_problem_add(c, true, inst, "%s", e.msg);
	else if (b.len != strlen(want) || memcmp(b.data, want, b.len))
		wp_vo_problem_add(c, true, inst,
				  "is not the install.sh wheelpick writes: it was changed; do not run "
				  "it, make the bundle again");
	wp_buf_free(&b);
}

/* ---- a conda bundle: channel/ and the locks beside it ---- */

/* A package the bundle's channel lists: where, which, its hashes, and whether a lock names it. */
struct cpkg {
	char *subdir, *filename, *name, *version, *build, *sha256, *md5;
	bool locked;
	char *attest; /* the name of its CEP 50 attestations beside it, or NULL */
};

WP_VEC_OF(cpkgs, struct cpkg);

struct cpkg_ctx {
	struct cpkgs *v;
	const char *subdir;
};

static char *dup_or_null(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static int cpkg_add(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct cpkg_ctx *x = ctx;
	const char *slash = rec->provenance ? strrchr(rec->provenance, '/') : NULL;
	if (rec->filename)
		wp_vec_push(x->v,
			    ((struct cpkg){ wp_xstrdup(x->subdir), wp_xstrdup(rec->filename),
					    dup_or_null(rec->project), dup_or_null(rec->version),
					    dup_or_null(rec->build), dup_or_null(rec->sha256),
					    dup_or_null(rec->md5), false,
					    slash ? wp_xstrdup(slash + 1) : NULL }));
	return 0;
}

static void cpkgs_free(struct cpkgs *v)
{
	for (size_t i = 0; i < v->n; i++) {
		struct cpkg *p = &v->v[i];
		free(p->subdir), free(p->filename), free(p->name), free(p->version), free(p->build),
			free(p->sha256), free(p->md5), free(p->attest);
	}
	wp_vec_free(v);
}

static struct cpkg *cpkg_find(struct cpkgs *v, const char *subdir, const char *filename)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i].subdir, subdir) && !strcmp(v->v[i].filename, filename))
			return &v->v[i];
	return NULL;
}

/* A package's attestations (checked with it by wp_vo_verify_channel) */
static bool attest_named(const struct cpkgs *v, const char *subdir, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].attest && !strcmp(v->v[i].subdir, subdir) &&
		    !strcmp(v->v[i].attest, name))
			return true;
	return false;
}

/* Every name in dir, dot files too (wp_vo_list_dir leaves them out, and a bundle may hide
 * nothing). */
static char **all_names(const char *dir, size_t *n)
{
	char **v = NULL;
	size_t k = 0, cap = 0;
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	while (d && (de = wp_os_readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		wp_vec_push_fields(v, k, cap, wp_xstrdup(de->d_name));
	}
	if (d)
		wp_os_closedir(d);
	*n = k;
	return v;
}

static bool shard_named(const struct wp_shard_index *ix, const char *fname)
{
	for (size_t i = 0; i < ix->n; i++)
		if (strlen(fname) == WP_SHA256_HEX_LEN + 12 &&
		    !strncmp(fname, ix->v[i].sha256, WP_SHA256_HEX_LEN) &&
		    !strcmp(fname + WP_SHA256_HEX_LEN, ".msgpack.zst"))
			return true;
	return false;
}

/* One subdir of the channel: its packages into pkgs, and nothing in it that its repodata.json and
 * shard index do not account for (what they name is checked by wp_vo_verify_channel). */
static void conda_subdir(struct vo_ctx *c, const char *dir, const char *subdir, struct cpkgs *pkgs)
{
	char *repodata = wp_xasprintf("%s/repodata.json", dir), *url = wp_vo_file_url(dir, "");
	char *index = wp_xasprintf("%s/" WP_SHARD_INDEX_FILE, dir),
	     *ixurl = wp_vo_file_url(dir, "/" WP_SHARD_INDEX_FILE);
	struct cpkg_ctx x = { pkgs, subdir };
	struct wp_index_stats st = { 0 };
	struct wp_err e = WP_ERR_INIT;
	struct wp_shard_index ix = { 0 };
	struct wp_buf body;
	bool have_ix = false;
	memset(&body, 0, sizeof(body));
	if (wp_read_repodata_file(repodata, url, cpkg_add, &x, &st, &e) < 0)
		goto out; /* said by the channel check */
	have_ix = wp_vo_is_file(index) &&
		  wp_file_read_capped(index, WP_SHARD_INDEX_MAX, &body, &e) == 0 &&
		  wp_shard_index_decode(body.data, body.len, ixurl, &ix, &e) == 0;
	size_t n;
	char **names = all_names(dir, &n);
	for (size_t i = 0; i < n; i++) {
		char *p = wp_xasprintf("%s/%s", dir, names[i]);
		if (!strcmp(names[i], "shards") && wp_vo_is_dir(p)) {
			size_t ns;
			char **shards = all_names(p, &ns);
			for (size_t k = 0; k < ns; k++) {
				char *sp = wp_xasprintf("%s/%s", p, shards[k]);
				if (!have_ix || !shard_named(&ix, shards[k]) || !wp_vo_is_file(sp))
					wp_vo_problem_add(c, true, sp, "is no shard that %s names",
							  WP_SHARD_INDEX_FILE);
				free(sp);
			}
			wp_vo_free_list(shards, ns);
		} else if (wp_vo_is_file(p) && (!strcmp(names[i], "repodata.json") ||
						!strcmp(names[i], "repodata.json.zst") ||
						!strcmp(names[i], WP_SHARD_INDEX_FILE) ||
						cpkg_find(pkgs, subdir, names[i]) ||
						attest_named(pkgs, subdir, names[i]))) {
			/* accounted for */
		} else {
			wp_vo_problem_add(c, true, p,
					  "is not in %s/repodata.json: a bundle's channel holds what it lists, no more",
					  subdir);
		}
		free(p);
	}
	wp_vo_free_list(names, n);
out:
	wp_shard_index_release(&ix);
	wp_buf_free(&body);
	free(repodata);
	free(url);
	free(index);
	free(ixurl);
}

/* One explicit lock: every line conda reads names a package of the channel, at the place install.sh
 * points it to, with the hash the channel gives (which wp_vo_verify_channel holds the file to). */
static void conda_explicit(struct vo_ctx *c, const char *path, struct cpkgs *pkgs)
{
	struct wp_buf b;
	struct wp_err e = WP_ERR_INIT;
	size_t n = 0;
	bool marker = false;
	if (wp_file_read_capped(path, VO_REQS_MAX, &b, &e) < 0) {
		wp_vo_problem_add(c, true, path, "%s", e.msg);
		return;
	}
	if (memchr(b.data, 0, b.len))
		wp_vo_problem_add(c, true, path,
				  "holds a NUL byte: what conda reads past it is not what is checked here");
	int lineno = 0;
	for (char *line = b.data, *next; line && *line; line = next) {
		struct wp_explicit_entry en;
		const char *why;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		int k = wp_explicit_entry_parse(line, &en, &why);
		if (k == 0) {
			marker |= strstr(line, "@EXPLICIT") && line[strspn(line, " \t\r")] == '@';
			continue;
		}
		if (k < 0) {
			wp_vo_problem_add(c, true, path, "line %d %s", lineno, why);
			continue;
		}
		n++;
		struct cpkg *p = cpkg_find(pkgs, en.subdir, en.filename);
		if (!p)
			wp_vo_problem_add(c, true, path,
					  "line %d names '%s/%s', which the bundle's channel does not list",
					  lineno, en.subdir, en.filename);
		else if (!en.sha256 && !en.md5)
			wp_vo_problem_add(c, true, path,
					  "line %d names '%s' without a hash: conda would not check it",
					  lineno, en.filename);
		else if (en.sha256 && (!p->sha256 || strcmp(en.sha256, p->sha256)))
			wp_vo_problem_add(c, true, path,
					  "line %d gives '%s' sha256 %s, the channel %s", lineno,
					  en.filename, en.sha256, p->sha256 ? p->sha256 : "none");
		else if (en.md5 && (!p->md5 || strcmp(en.md5, p->md5)))
			wp_vo_problem_add(c, true, path,
					  "line %d gives '%s' md5 %s, the channel %s", lineno,
					  en.filename, en.md5, p->md5 ? p->md5 : "none");
		else
			p->locked = true;
		wp_explicit_entry_release(&en);
	}
	if (!marker)
		wp_vo_problem_add(c, true, path,
				  "has no @EXPLICIT line: conda would read it as specs and run a solver");
	else if (!n)
		wp_vo_problem_add(c, true, path, "names no package");
	wp_buf_free(&b);
}

/* One environment.yml: every pin under dependencies: is name=version=build of a package the channel
 * holds. */
static void conda_environment(struct vo_ctx *c, const char *path, const struct cpkgs *pkgs)
{
	struct wp_buf b;
	struct wp_err e = WP_ERR_INIT;
	if (wp_file_read_capped(path, VO_REQS_MAX, &b, &e) < 0) {
		wp_vo_problem_add(c, true, path, "%s", e.msg);
		return;
	}
	char *save = NULL;
	bool deps = false;
	for (char *line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != ' ' && line[0] != '-' && line[0] != '#')
			deps = !strncmp(line, "dependencies:", 13);
		const char *item = line + strspn(line, " ");
		if (!deps || strncmp(item, "- ", 2))
			continue;
		item += 2;
		char *pin = wp_xstrndup(item, strcspn(item, " \t\r#"));
		char *v = strchr(pin, '='), *bld = v ? strchr(v + 1, '=') : NULL;
		bool found = false;
		if (v && bld) {
			*v++ = 0;
			*bld++ = 0;
			for (size_t i = 0; i < pkgs->n && !found; i++) {
				const struct cpkg *p = &pkgs->v[i];
				found = p->name && p->version && p->build &&
					!strcmp(p->name, pin) && !strcmp(p->version, v) &&
					!strcmp(p->build, bld);
			}
		}
		if (!found)
			wp_vo_problem_add(c, true, path,
					  "pins '%s', which is no name=version=build of a package the bundle's "
					  "channel holds",
					  item);
		free(pin);
	}
	wp_buf_free(&b);
}

/* Everything a conda bundle holds, and nothing else: install.sh, channel/ (checked as verify checks
 * a channel, and holding only what its repodata lists), the explicit locks and environment files,
 * each naming only packages of the channel, and every package of the channel named by a lock (the
 * bundle carries the locked closure). */
static void verify_conda_bundle(struct vo_ctx *c, const char *house, const char *chan)
{
	struct cpkgs pkgs = { 0 };
	size_t n, nlocks = 0;
	wp_vo_verify_channel(c, chan);
	char **subs = all_names(chan, &n);
	for (size_t i = 0; i < n; i++) {
		char *sd = wp_xasprintf("%s/%s", chan, subs[i]),
		     *rd = wp_xasprintf("%s/repodata.json", sd);
		if (wp_vo_is_dir(sd) && wp_vo_is_file(rd))
			conda_subdir(c, sd, subs[i], &pkgs);
		else if ((!strcmp(subs[i], WP_SBOM_CDX_NAME) ||
			  !strcmp(subs[i], WP_SBOM_SPDX_NAME)) &&
			 wp_vo_is_file(sd))
			; /* the channel's SBOM, which wp_vo_verify_channel checked */
		else
			wp_vo_problem_add(c, true, sd,
					  "is not a channel subdir (a folder with repodata.json)");
		free(sd);
		free(rd);
	}
	wp_vo_free_list(subs, n);
	char **top = all_names(house, &n);
	for (size_t pass = 0; pass < 2; pass++) /* the explicit locks first: they mark what is
						   locked */
		for (size_t i = 0; i < n; i++) {
			const char *f = top[i];
			char *p = wp_xasprintf("%s/%s", house, f);
			bool lock = !strncmp(f, "explicit-", 9) && wp_cstr_endswith(f, ".txt") &&
				    wp_vo_is_file(p);
			bool env = (!strcmp(f, "environment.yml") ||
				    (!strncmp(f, "environment-", 12) &&
				     wp_cstr_endswith(f, ".yml"))) &&
				   wp_vo_is_file(p);
			if (pass == 0 && lock) {
				conda_explicit(c, p, &pkgs);
				nlocks++;
			} else if (pass == 1 && env) {
				conda_environment(c, p, &pkgs);
			} else if (pass == 1 && !lock &&
				   !(!strcmp(f, "install.sh") && wp_vo_is_file(p)) &&
				   !(!strcmp(f, WP_BUNDLE_CHANNEL_DIR) && wp_vo_is_dir(p))) {
				wp_vo_problem_add(c, true, p,
						  "is not part of a conda bundle (install.sh, channel/, explicit-*.txt, "
						  "environment*.yml)");
			}
			free(p);
		}
	wp_vo_free_list(top, n);
	if (!nlocks)
		wp_vo_problem_add(c, true, house,
				  "has no explicit-<subdir>.txt for install.sh to install");
	for (size_t i = 0; i < pkgs.n; i++)
		if (!pkgs.v[i].locked) {
			char *p = wp_xasprintf("%s/%s/%s", chan, pkgs.v[i].subdir,
					       pkgs.v[i].filename);
			wp_vo_problem_add(c, true, p,
					  "is in the channel but in no explicit lock: a bundle carries the locked "
					  "closure, no more");
			free(p);
		}
	cpkgs_free(&pkgs);
}

bool wp_vo_is_conda_bundle_dir(const char *dir)
{
	char *chan = wp_xasprintf("%s/" WP_BUNDLE_CHANNEL_DIR, dir),
	     *inst = wp_xasprintf("%s/install.sh", dir);
	bool yes = wp_vo_is_dir(chan) && wp_vo_is_file(inst) && wp_vo_is_channel(chan);
	free(chan);
	free(inst);
	return yes;
}

void wp_vo_verify_bundle_dir(struct vo_ctx *c, const char *house)
{
	char *inst = wp_xasprintf("%s/install.sh", house);
	char *chan = wp_xasprintf("%s/" WP_BUNDLE_CHANNEL_DIR, house);
	/* a conda bundle (bundle --conda) carries its channel at channel/; a wheel bundle is
	 * flat */
	enum wp_bundle_kind kind = wp_vo_is_dir(chan) ? WP_BUNDLE_CONDA : WP_BUNDLE_WHEELS;
	struct wp_os_stat sb;
	if (wp_os_stat(inst, &sb) < 0 || !WP_S_ISREG(sb.st_mode))
		wp_vo_problem_add(c, true, inst, "is missing");
	else if (wp_os_keeps_modes && !(sb.st_mode & 0100)) /* Windows has no such bit */
		wp_vo_problem_add(c, true, inst, "is not executable");
	else if (sb.st_mode & (WP_S_ISUID | WP_S_ISGID | WP_S_ISVTX | WP_S_IWOTH))
		wp_vo_problem_add(c, true, inst,
				  "has mode %04o: setuid, setgid, sticky or world-writable, which the "
				  "install.sh wheelpick writes (0755) never has",
				  (unsigned)sb.st_mode & 07777);
	else
		check_install_sh(c, inst, kind);
	if (kind == WP_BUNDLE_CONDA)
		verify_conda_bundle(c, house, chan);
	else
		wp_vo_verify_wheelhouse(c, house);
	free(chan);
	free(inst);
}

/* A delta (bundle --since, mirror --delta) is no whole tree: what it carries must be what its
 * manifest says it carries, byte for byte; the tree it makes is checked whole by apply. */
static void verify_delta(struct vo_ctx *c, const char *house, const char *mpath)
{
	struct wp_tree_manifest want = { 0 }, have = { 0 };
	struct wp_err e = WP_ERR_INIT;
	if (wp_tree_manifest_load(mpath, &want, &e) < 0 || !want.is_delta) {
		wp_vo_problem_add(c, true, mpath, "%s", e.code ? e.msg : "is no delta manifest");
		goto out;
	}
	if (wp_tree_manifest_of_dir(house, &have, &e) < 0) {
		wp_vo_problem_add(c, true, house, "%s", e.msg);
		goto out;
	}
	for (size_t i = 0; i < have.n; i++) {
		const struct wp_tree_file *f = wp_tree_manifest_find(&want, have.v[i].path);
		char *p = wp_xasprintf("%s/%s", house, have.v[i].path);
		c->rep->files++;
		if (!f || !f->carried)
			wp_vo_problem_add(c, true, p,
					  "is carried, but %s does not list it as carried",
					  WP_DELTA_NAME);
		else if (strcmp(f->sha256, have.v[i].sha256))
			wp_vo_problem_add(c, true, p, "sha256 is %s, %s says %s", have.v[i].sha256,
					  WP_DELTA_NAME, f->sha256);
		free(p);
	}
	for (size_t i = 0; i < want.n; i++)
		if (want.v[i].carried && !wp_tree_manifest_find(&have, want.v[i].path)) {
			char *p = wp_xasprintf("%s/%s", house, want.v[i].path);
			wp_vo_problem_add(c, true, p, "is missing; %s lists it as carried",
					  WP_DELTA_NAME);
			free(p);
		}
out:
	wp_tree_manifest_release(&want);
	wp_tree_manifest_release(&have);
}

void wp_vo_verify_bundle(struct vo_ctx *c, const char *path, struct wp_err *err)
{
	char tmpl[PATH_MAX];
	const char *tmpdir = c->opts ? c->opts->tmpdir : NULL;
	snprintf(tmpl, sizeof(tmpl), "%s/wheelpick-verify-XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	struct wp_unpack_out out = { .fd = -1 };
	char *top = NULL, *shown = NULL, *name = NULL;
	char **vols = NULL;
	size_t nvols = 0;
	int r;
	char *real = NULL;
	bool made = wp_os_mkdtemp(tmpl) != NULL;
	if (!made || !(real = wp_os_realpath(tmpl))) {
		wp_vo_problem_add(c, true, path, "cannot make a directory to unpack it in: %s",
				  strerror(errno));
		goto out;
	}
	snprintf(tmpl, sizeof(tmpl), "%s", real);
	free(real);
	archive_read_support_format_tar(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_gzip(a);
	/* Members land under the fresh temp folder through the OS seam (ops/core/unpack.h: names
	 * stay UTF-8): each name is checked by wp_member_name_problem (absolute, '..', NUL, ...)
	 * before the prefix goes on, and links are refused, so nothing there leads out. */
	size_t fatal = c->rep->n_fatal;
	vols = volume_set(c, path, &nvols);
	if (vols && c->rep->n_fatal > fatal)
		goto out; /* a set with a hole or a stranger in it is no archive to read */
	/* volumes are one stream cut in pieces: libarchive reads them one after the other */
	char *one[1] = { (char *)path };
	if (wp_archive_read_open_paths(a, (const char *const *)(vols ? vols : one),
				       vols ? nvols : 1) != ARCHIVE_OK) {
		if (vols)
			goto short_set;
		wp_vo_problem_add(c, true, path, "is not a tar archive: %s",
				  archive_error_string(a));
		goto out;
	}
	long long packed = 0;
	for (size_t i = 0; i < (vols ? nvols : 1); i++) {
		struct wp_os_stat vsb;
		if (wp_os_stat(vols ? vols[i] : path, &vsb) == 0)
			packed += (long long)vsb.st_size;
	}
	struct wp_untar_budget budget;
	wp_untar_budget_init(&budget, packed);
	c->real = tmpl;
	shown = wp_xasprintf("%s:", path);
	c->shown = shown;
	size_t tops = 0;
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		free(name);
		name = archive_entry_pathname(ae) ? wp_xstrdup(archive_entry_pathname(ae)) : NULL;
		char buf[256], why[160];
		const char *bad = name ? wp_member_name_problem(name, strlen(name)) : "has no name";
		mode_t type = archive_entry_filetype(ae);
		/* a link entry is never written: a hard link carrying data would write into its
		 * target */
		if (!bad)
			bad = wp_untar_kind_problem((unsigned)type, archive_entry_hardlink(ae),
						    archive_entry_symlink(ae),
						    archive_entry_sparse_count(ae) > 0);
		if (bad) {
			wp_vo_problem_add(c, true, path, "member '%s' %s",
					  wp_member_name_show(name ? name : "",
							      name ? strlen(name) : 0, buf,
							      sizeof(buf)),
					  bad);
			continue;
		}
		if ((bad = wp_untar_budget_member(&budget, archive_entry_size(ae), why,
						  sizeof(why)))) {
			wp_vo_problem_add(c, true, path, "%s (at member '%s')", bad,
				       wp_member_name_show(name, strlen(name), buf, sizeof(buf)));
			goto out;
		}
		/* wheelpick writes 0644 and 0755: a setuid, setgid or sticky bit, or a member
		 * anyone may write, is a bundle someone changed (install.sh 4777 runs as its owner,
		 * for anyone) */
		mode_t perm = archive_entry_perm(ae);
		if (perm & (WP_S_ISUID | WP_S_ISGID | WP_S_ISVTX | WP_S_IWOTH))
			wp_vo_problem_add(c, true, path,
					  "member '%s' has mode %04o: setuid, setgid, sticky or world-writable, "
					  "which no bundle wheelpick writes has",
					  wp_member_name_show(name, strlen(name), buf, sizeof(buf)),
					  (unsigned)perm & 07777);
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
		struct wp_err werr = WP_ERR_INIT;
		int wrc = wp_unpack_begin(&out, dest, type == AE_IFDIR, perm, &werr);
		free(dest);
		if (wrc) {
			wp_vo_problem_add(c, true, path, "cannot unpack member '%s': %s", name,
					  werr.msg);
			continue;
		}
		const void *blk;
		size_t sz;
		la_int64_t off;
		long long seen = 0;
		while ((r = archive_read_data_block(a, &blk, &sz, &off)) == ARCHIVE_OK) {
			if ((bad = wp_untar_budget_extent(&budget, &seen,
							  (long long)off + (long long)sz, why,
							  sizeof(why)))) {
				wp_vo_problem_add(c, true, path, "%s (at member '%s')", bad,
						  wp_member_name_show(name, strlen(name), buf,
								      sizeof(buf)));
				goto out;
			}
			if (wp_unpack_block(&out, blk, sz, off, &werr))
				break;
		}
		if (!werr.code)
			wp_unpack_end(&out, &werr);
		if (werr.code) {
			wp_vo_problem_add(c, true, path, "cannot unpack member '%s': %s", name,
					  werr.msg);
			goto out;
		}
		if (r != ARCHIVE_EOF) {
			wp_vo_problem_add(c, true, path, "member '%s' cannot be read: %s", name,
					  archive_error_string(a));
			goto out;
		}
	}
	if (r != ARCHIVE_EOF && vols) {
	short_set:
			/* every volume there and of the right size, yet the stream breaks: the last
			 * one is cut short (the likeliest), a volume after it is missing, or one
			 * was changed in place */
			wp_vo_problem_add(c, true, vols[nvols - 1],
					  "ends the bundle early: it is cut short, a volume after it "
					  "is missing, or a volume is damaged (%s)",
					  archive_error_string(a));
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		wp_vo_problem_add(c, true, path, "is damaged: %s", archive_error_string(a));
		goto out;
	}
	if (!top || tops != 1) {
		wp_vo_problem_add(c, true, path, "has %s top-level folder",
				  !top ? "no" : "more than one");
		goto out;
	}
	char *house = wp_xasprintf("%s/%s", tmpl, top);
	char *dj = wp_xasprintf("%s/" WP_DELTA_NAME, house);
	if (wp_vo_is_file(dj))
		verify_delta(c, house, dj);
	else
		wp_vo_verify_bundle_dir(c, house);
	free(dj);
	free(house);
out:
	c->real = NULL;
	archive_read_free(a);
	wp_unpack_end(&out, NULL);
	if (made)
		wp_fs_remove_tree(tmpl);
	free(name);
	free(top);
	free(shown);
	if (vols)
		wp_vo_free_list(vols, nvols);
}
