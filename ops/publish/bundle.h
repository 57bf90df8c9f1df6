/* ops/publish/bundle.h: pack a wheelhouse, or a conda channel with its locks, into one reproducible
 * .tar.zst (or .tar.gz) with an install.sh. Ownership: every argument is borrowed for the call;
 * a wp_explicit_entry owns its strings (wp_explicit_entry_release). */
#ifndef WP_OPS_PUBLISH_BUNDLE_H
#define WP_OPS_PUBLISH_BUNDLE_H

#include <stddef.h>

#include "base/err.h"

#define WP_BUNDLE_MTIME 0 /* every member's mtime, so the same wheelhouse gives the same bytes */

/* Write out_path (.tar.zst or .tzst: zstd; .tar.gz or .tgz: gzip; .tar: none) holding src_dir's
 * regular files (symbolic links followed; sorted, uid 0, fixed mtime) under one top folder
 * named after out_path without its extension ("torch-bundle/"), plus a generated install.sh
 * that installs them offline with --require-hashes. src_dir must hold requirements.txt or
 * requirements-<target>.txt files (an
 * install.sh of its own is replaced). The archive is written under a temp name and renamed.
 * -WPE_USAGE for an unknown extension or a wheelhouse without a requirement file; -WPE_IO for
 * the file system. */
int wp_bundle_write(const char *out_path, const char *src_dir, struct wp_err *err);

/* Volumes for media with a file-size limit: the same archive cut into OUT.001, OUT.002, ... each
 * of at most split bytes (the last may be smaller), which `cat OUT.* | tar --zstd -x` joins. */
#define WP_BUNDLE_SPLIT_MIN   ((unsigned long long)1 << 10)
#define WP_BUNDLE_MAX_VOLUMES 999

/* wp_bundle_write, cut into volumes when split > 0: every volume is written under a temp name,
 * and renamed into place (fsync first) only once the whole archive is written, so a failure or a
 * kill leaves no volume where a good one is expected; volumes a longer earlier run left past the
 * new last one are removed (they would read as part of it). *nvolumes (may be NULL) gets how many
 * were written (1 without split: the archive itself). -WPE_USAGE when more than
 * WP_BUNDLE_MAX_VOLUMES would be needed or split is below WP_BUNDLE_SPLIT_MIN. */
int wp_bundle_write_split(const char *out_path, const char *src_dir, unsigned long long split,
			  size_t *nvolumes, struct wp_err *err);

/* -WPE_USAGE unless out_path is a name a bundle can have (NAME.tar.zst, .tzst, .tar.gz, .tgz,
 * .tar): the CLI asks before anything is resolved or downloaded. */
int wp_bundle_name_check(const char *out_path, struct wp_err *err);

/* "700M", "4G", "4000000000", "4GB", "1.5G": K/M/G/T (or KiB ...) are powers of 1024 as split(1)
 * reads them, KB/MB/GB/TB powers of 1000. -WPE_USAGE naming s when it is none of these, or below
 * WP_BUNDLE_SPLIT_MIN. */
int wp_bundle_size_parse(const char *s, unsigned long long *out, struct wp_err *err);

/* The name of volume i (1-based) of out_path: "OUT.tar.zst.001" (a new string). */
char *wp_bundle_volume_name(const char *out_path, size_t i);

/* The install.sh text a wheel bundle carries (static). */
const char *wp_bundle_install_sh(void);

/* What a bundle carries: a wheelhouse (requirement files, pip installs it), or a conda channel
 * (channel/<subdir>/... with repodata, shards and packages) with its locks beside it
 * (explicit-<subdir>.txt, environment.yml), which conda installs. */
/* A mirror bundle is a `mirror` tree as it is (only deltas of one are written: `mirror --delta`):
 * no install.sh, since the far side serves the tree, and the tree is the mirror folder itself. */
enum wp_bundle_kind { WP_BUNDLE_WHEELS, WP_BUNDLE_CONDA, WP_BUNDLE_MIRROR };

#define WP_BUNDLE_CHANNEL_DIR "channel" /* a conda bundle's channel, under its top folder */

/* The install.sh text a bundle of that kind carries (static; NULL for a mirror). The conda one
 * creates the environment with `conda create --offline --file` from the chosen explicit-*.txt, each
 * URL rewritten to file://<the bundle>/channel/<subdir>/<file> (the lock's hash kept, so conda
 * checks every package): explicit, so no solver runs and the environment is exactly the lock;
 * offline, so conda never reaches for the network (its offline mode still reads file:// URLs). */
const char *wp_bundle_install_sh_for(enum wp_bundle_kind kind);

/* wp_bundle_write_split for a bundle of either kind. A conda src_dir must hold channel/ and at
 * least one explicit-*.txt (-WPE_USAGE otherwise). */
int wp_bundle_write_as(const char *out_path, const char *src_dir, enum wp_bundle_kind kind,
		       unsigned long long split, size_t *nvolumes, struct wp_err *err);

/* How a bundle is written: cut into volumes of split bytes (0: one file), every member's mtime
 * (SOURCE_DATE_EPOCH where the user gives one, else WP_BUNDLE_MTIME): the same files give the
 * same bytes whatever the paths, owners and clocks of the machine that packs them. */
struct wp_tree_manifest;
struct wp_bundle_opts {
	unsigned long long split;
	long long mtime;
	/* set: a delta (`bundle --since OLD`): only the files the tree since names lacks at their
	 * path with their bytes, plus WP_DELTA_NAME (ops/publish/manifest.h): the whole new tree's
	 * manifest, each file marked carried or not, chained to since's tree and manifest sha256 */
	const struct wp_tree_manifest *since;
	const char *kind_name;  /* what the delta's manifest calls the tree ("wheelhouse") */
	size_t *n_carried;      /* set: gets the files the delta carries */
};

/* Reading a bundle back (ops/publish/manifest.h's tree form). The files of a bundle (.tar.zst,
 * .tar.gz, .tar; or its volumes, named by the base name or any one of them) under its top folder,
 * each hashed as it is read. */
int wp_tree_manifest_of_bundle(const char *path, struct wp_tree_manifest *m, struct wp_err *err);
/* What `bundle --since OLD` names: a manifest (.json: `verify --manifest`'s, or a delta's), or a
 * bundle (m->source_sha256 then the sha256 of the manifest `verify --manifest` writes for it). */
int wp_tree_manifest_of_old(const char *path, struct wp_tree_manifest *m, struct wp_err *err);
/* A bundle (or its volumes) unpacked under into (a folder that exists), each member name checked
 * (no absolute path, no '..', files and folders only, no setuid/world-writable mode, one top
 * folder); *top gets the top folder's path (allocated). -WPE_INTEGRITY for a damaged or hostile
 * archive. */
int wp_bundle_unpack(const char *path, const char *into, char **top, struct wp_err *err);

/* The volumes' reader is verify/archopen.h's wp_archive_read_open_paths (install's too). */

/* wp_bundle_write_as with opts. */
int wp_bundle_write_opts(const char *out_path, const char *src_dir, enum wp_bundle_kind kind,
			 const struct wp_bundle_opts *o, size_t *nvolumes, struct wp_err *err);

/* One package line of an explicit lock, as the conda install.sh reads it: the URL's last two
 * components (percent-decoded) are the package's subdir and file name in the bundle's channel,
 * and what follows '#' its hash. */
struct wp_explicit_entry {
	char *subdir, *filename;
	char *sha256;  /* lower-case hex, or NULL */
	char *md5;     /* lower-case hex, or NULL (conda's older "#<md5>" form) */
};

/* Parses line (no newline). Returns 1 for a package line (e filled), 0 for a line conda skips
 * (blank, a comment, @EXPLICIT), -1 for one that names no package a bundle's channel can hold
 * (why in *why, static): no subdir/file, "." or "..", a '/' or NUL once decoded, a file name that
 * is not .conda or .tar.bz2, a hash that is not sha256 or md5 hex. Pure. */
int wp_explicit_entry_parse(const char *line, struct wp_explicit_entry *e, const char **why);
void wp_explicit_entry_release(struct wp_explicit_entry *e);

#endif
