/* ops/publish/manifest.h: what a tree holds (a wheelhouse, an unpacked bundle, a channel, a
 * mirror): every file's path and sha256, and one digest of the whole, so that a delta made against
 * it can be chained to it and checked on the far side. Ownership: a wp_tree_manifest owns its files
 * and their strings (wp_tree_manifest_release). */
#ifndef WP_OPS_PUBLISH_MANIFEST_H
#define WP_OPS_PUBLISH_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

/* A delta bundle's own member (beside the files it carries): the new tree's manifest, what it
 * carries, and the tree and manifest it was made against. Never part of a tree's digest. */
#define WP_DELTA_NAME "wheelpick-delta.json"
#define WP_TREE_MANIFEST_MAX ((size_t)256 << 20) /* a manifest file past this is refused */

struct wp_tree_file {
	char *path;        /* relative, '/'-separated */
	char sha256[65];
	long long size;
	bool carried;      /* a delta's: in the delta (else the far side has it) */
};

struct wp_tree_manifest {
	struct wp_tree_file *v;  /* sorted by path */
	size_t n;
	char tree[65]; /* sha256 of the lines "SHA256  PATH\n" in path order (sha256sum's form) */
	char source_sha256[65];  /* the sha256 of the manifest file it was read from, or "" */
	/* a delta's: the tree it was made against, and the sha256 of that tree's manifest as
	 * given */
	char prev_tree[65], prev_manifest[65];
	bool is_delta;
};

/* Every regular file under dir (links not followed; a FIFO, device or link is an error), but
 * WP_DELTA_NAME at its top. */
int wp_tree_manifest_of_dir(const char *dir, struct wp_tree_manifest *m, struct wp_err *err);
/* A manifest file (`verify --manifest`'s, or a delta's WP_DELTA_NAME) read back; -WPE_PARSE for
 * one that is not. */
int wp_tree_manifest_load(const char *path, struct wp_tree_manifest *m, struct wp_err *err);
/* The same for the text in data (len bytes); path names it in messages. */
int wp_tree_manifest_parse(const char *data, size_t len, const char *path,
			   struct wp_tree_manifest *m, struct wp_err *err);
/* Sorts m->v by path and sets m->tree. */
void wp_tree_manifest_seal(struct wp_tree_manifest *m);
/* The JSON form (deterministic) appended to out: kind names what the tree is ("wheelhouse"). */
int wp_tree_manifest_format(const struct wp_tree_manifest *m, const char *kind, struct wp_buf *out,
			    struct wp_err *err);
/* The entry for path, or NULL. */
const struct wp_tree_file *wp_tree_manifest_find(const struct wp_tree_manifest *m,
						 const char *path);
void wp_tree_manifest_add(struct wp_tree_manifest *m, const char *path, const char *sha256,
			  long long size);
void wp_tree_manifest_release(struct wp_tree_manifest *m);

#endif
