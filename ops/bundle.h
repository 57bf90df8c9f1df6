/* ops/bundle.h: pack a wheelhouse into one reproducible .tar.zst (or .tar.gz) with an install.sh.
 * Ownership: both paths are borrowed for the call. */
#ifndef WP_BUNDLE_H
#define WP_BUNDLE_H

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

/* The install.sh text a bundle carries (static). */
const char *wp_bundle_install_sh(void);

#endif
