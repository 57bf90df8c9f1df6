/* ops/verify/apply.c: a delta bundle applied onto the tree it was made against: the chain checked,
 * the new tree staged beside the old, verified whole, then swapped in. */
#include "ops/verify/apply.h"
#include "base/fs.h"
#include "base/mem.h"
#include "ops/publish/bundle.h"
#include "ops/publish/manifest.h"
#include "ops/verify/outputs.h"
#include "verify/hash.h"
#include "base/os/os.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A sibling of dest for staging: the same file system, so the swap is a rename. */
static char *sibling(const char *dest, const char *what, struct wp_err *err)
{
	char *tmpl = wp_xasprintf("%s.%s-XXXXXX", dest, what);
	if (!wp_os_mkdtemp(tmpl)) {
		wp_fs_fail(err, errno, "cannot create", tmpl);
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

/* Where the system cannot swap two names in one step (Windows; a Linux file system without
 * RENAME_EXCHANGE): the old tree steps aside to a sibling name, the new one takes dest's name, and
 * the old is removed; a failure of the second rename puts the old back. Not atomic: a run killed
 * between the two renames leaves no dest, and the old tree whole at DEST.old-XXXXXX. */
static int swap_in_two(const char *stage, const char *dest, struct wp_err *err)
{
	char *old = sibling(dest, "old", err);
	int rc = 0;
	if (!old)
		return err->code ? err->code : -WPE_IO;
	/* a folder is replaced only when empty, and the old name was just made as one */
	if (wp_os_rmdir(old) < 0 || wp_os_rename(dest, old) < 0) {
		rc = wp_fs_fail(err, errno, "cannot move the old tree aside from", dest);
		goto out;
	}
	if (wp_os_rename(stage, dest) < 0) {
		int e = errno;
		if (wp_os_rename(old, dest) < 0)
			rc = wp_fail(err, -WPE_IO,
				     "cannot put the new tree at '%s' (%s), nor the old one "
				     "back: it is whole at '%s'; move it back by hand",
				     dest, strerror(e), old);
		else
			rc = wp_fs_fail(err, e, "cannot put the new tree at", dest);
		goto out;
	}
	wp_fs_remove_tree(old);
out:
	free(old);
	return rc;
}

static int mkdirs_for(const char *root, const char *rel, struct wp_err *err)
{
	const char *slash = strrchr(rel, '/');
	if (!slash)
		return 0;
	char *dir = wp_xasprintf("%s/%.*s", root, (int)(slash - rel), rel);
	int rc = wp_mkdir_p(dir, 0755, err);
	free(dir);
	return rc;
}

/* One file into the new tree: from the delta (carried) or from dest, with the manifest's bytes. */
static int place(const char *from, const char *to, const struct wp_tree_file *f, struct wp_err *err)
{
	char hex[WP_SHA256_HEX_LEN + 1];
	long long size = 0;
	int rc = wp_hash_file(from, hex, &size, err);
	if (rc)
		return rc;
	if (strcmp(hex, f->sha256) != 0)
		return wp_fail(err, -WPE_INTEGRITY,
			       "'%s' hashes to %s, but the delta's manifest says %s for '%s'; nothing "
			       "was changed",
			       from, hex, f->sha256, f->path);
	return wp_link_or_copy_unsynced(from, to, err);
}

int wp_apply_delta(const char *delta, const char *dest_in, struct wp_apply_result *res,
		   struct wp_verify_report *rep, struct wp_err *err)
{
	/* "torch/" and "torch" are one folder; the staging goes beside it, never inside */
	size_t dl = strlen(dest_in);
	while (dl > 1 && dest_in[dl - 1] == '/')
		dl--;
	char *dest_own = wp_xstrndup(dest_in, dl);
	const char *dest = dest_own;
	struct wp_tree_manifest now = { 0 }, want = { 0 }, built = { 0 };
	char *unpack = NULL, *top = NULL, *stage = NULL, *mpath = NULL;
	struct wp_os_stat sb;
	int rc = 0;
	memset(res, 0, sizeof(*res));
	if (wp_os_stat(dest, &sb) < 0 || !WP_S_ISDIR(sb.st_mode)) {
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' is no folder: apply lays a delta onto the unpacked bundle, wheelhouse, "
			     "channel or mirror folder it was made against",
			     dest);
		free(dest_own);
		return rc;
	}
	if (!(unpack = sibling(dest, "delta", err)) ||
	    (rc = wp_bundle_unpack(delta, unpack, &top, err)))
		goto fail;
	mpath = wp_xasprintf("%s/%s", top, WP_DELTA_NAME);
	if (wp_os_stat(mpath, &sb) < 0) {
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' is no delta: it carries no %s (make one with 'wheelpick bundle OUT "
			     "PKG... --since OLD')",
			     delta, WP_DELTA_NAME);
		goto fail;
	}
	if ((rc = wp_tree_manifest_load(mpath, &want, err)))
		goto fail;
	if (!want.is_delta) {
		rc = wp_fail(err, -WPE_USAGE, "'%s': %s is no delta manifest", delta,
			     WP_DELTA_NAME);
		goto fail;
	}
	/* the chain: the delta was made against exactly this tree */
	if ((rc = wp_tree_manifest_of_dir(dest, &now, err)))
		goto fail;
	if (strcmp(now.tree, want.prev_tree) != 0) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "'%s' was made against tree %.16s..., but '%s' is tree %.16s... (another "
			     "bundle, an older or newer state, or a changed file); apply the deltas in order, or compare "
			     "with 'wheelpick verify --manifest'",
			     delta, want.prev_tree, dest, now.tree);
		goto fail;
	}
	if (!(stage = sibling(dest, "new", err))) {
		rc = err->code ? err->code : -WPE_IO;
		goto fail;
	}
	for (size_t i = 0; i < want.n && !rc; i++) {
		const struct wp_tree_file *f = &want.v[i];
		char *from = f->carried ? wp_xasprintf("%s/%s", top, f->path) :
					  wp_xasprintf("%s/%s", dest, f->path);
		char *to = wp_xasprintf("%s/%s", stage, f->path);
		if (!f->carried && !wp_tree_manifest_find(&now, f->path))
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "the delta counts on '%s' being in '%s', and it is not",
				     f->path, dest);
		else if (!(rc = mkdirs_for(stage, f->path, err)))
			rc = place(from, to, f, err);
		res->carried += f->carried;
		res->kept += !f->carried;
		free(from);
		free(to);
	}
	if (rc)
		goto fail;
	/* nothing but what the manifest lists is carried in the delta */
	struct wp_tree_manifest in_delta = { 0 };
	if ((rc = wp_tree_manifest_of_dir(top, &in_delta, err)))
		goto fail;
	for (size_t i = 0; i < in_delta.n && !rc; i++) {
		const struct wp_tree_file *f = wp_tree_manifest_find(&want, in_delta.v[i].path);
		if (!f || !f->carried)
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s' carries '%s', which its manifest does not", delta,
				     in_delta.v[i].path);
	}
	wp_tree_manifest_release(&in_delta);
	if (rc || (rc = wp_fs_sync_dir(stage, err)))
		goto fail;
	/* the result as a whole: its digest is the delta's, and it verifies as what it is */
	if ((rc = wp_tree_manifest_of_dir(stage, &built, err)))
		goto fail;
	if (strcmp(built.tree, want.tree) != 0) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "the tree built from '%s' is %.16s..., not the %.16s... its manifest names",
			     delta, built.tree, want.tree);
		goto fail;
	}
	if ((rc = wp_verify_path(stage, rep, err)))
		goto fail;
	for (size_t i = 0; i < now.n; i++)
		res->removed += !wp_tree_manifest_find(&want, now.v[i].path);
	snprintf(res->tree, sizeof(res->tree), "%s", want.tree);
	/* the swap: the new tree takes dest's name in one rename; the old goes where the stage
	 * was */
	if (wp_os_rename_exchange(stage, dest) == 0) {
		wp_fs_remove_tree(stage); /* the old tree now */
		goto out;
	}
	if (errno != ENOSYS && errno != EINVAL) {
		rc = wp_fs_fail(err, errno, "cannot swap the new tree into place at", dest);
		goto fail;
	}
	rc = swap_in_two(stage, dest, err);
	if (rc)
		goto fail;
	goto out;
fail:
	if (stage)
		wp_fs_remove_tree(stage);
	if (!rc)
		rc = err->code ? err->code : -WPE_IO;
out:
	if (unpack)
		wp_fs_remove_tree(unpack);
	wp_tree_manifest_release(&now);
	wp_tree_manifest_release(&want);
	wp_tree_manifest_release(&built);
	free(unpack);
	free(top);
	free(stage);
	free(mpath);
	free(dest_own);
	return rc;
}
