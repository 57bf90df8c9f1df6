/* ops/publish/mirror.h: write a PEP 503 + PEP 691 simple tree (with PEP 658 .metadata files) from
 * proven files. Ownership: every argument is borrowed for the call; the report holds only counts.
 * The tree under DIR belongs to wheelpick while a write runs (an exclusive lock on DIR keeps a
 * second writer out). */
#ifndef WP_OPS_PUBLISH_MIRROR_H
#define WP_OPS_PUBLISH_MIRROR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

/* A file the caller has already fetched and checked (its store object has this sha256). */
struct wp_mirror_file {
	const char *project;          /* as the user knows it; normalised for paths and pages */
	const char *filename;         /* torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl */
	const char *store_path;       /* the proven object to link or copy in */
	const char *sha256;           /* hex */
	long long size;               /* -1 when not known (then taken from store_path) */
	const char *requires_python;  /* or NULL */
	const char *metadata;         /* METADATA text for the PEP 658 file, or NULL: read from the
	                                 wheel then */
	const char *upload_time;      /* ISO 8601 (PEP 700), or NULL */
	const char *variant; /* the build's variant label ("cu118", "cpu"), "" or NULL for none:
				the file is also listed under DIR/<variant>/ */
	const char *body; /* a PEP 825 {name}-{version}-variants.json only: its bytes (the
			     catalog keeps them; there is no store object), body_len long;
			     store_path is then unused and sha256 is checked against them */
	size_t body_len;
	const struct wp_wheelname *wheel; /* filename as the plan parsed it (borrowed), or NULL: the
	                                     writer parses the name (a file that is no wheel, or one
	                                     given without a plan) */
	const struct wp_version *version; /* wheel's version parsed (borrowed), or NULL: parsed here
					   */
};

/* Where a wheel's PEP 658 .metadata goes instead of a file under the tree: rel is
 * "files/PROJECT/FILENAME.metadata", the bytes (len, their sha256 in hex) are borrowed for the
 * call. Nonzero (-WPE_*, err set) stops the write. */
typedef int wp_mirror_meta_fn(void *ctx, const char *rel, const char *bytes, size_t len,
			      const char *sha256, struct wp_err *err);

/* A wheel's .metadata bytes the caller already has (project and filename as in its
 * wp_mirror_file), *len set; NULL: the writer reads them from the wheel. */
typedef const char *wp_mirror_meta_in_fn(void *ctx, const char *project, const char *filename,
					 size_t *len);

struct wp_mirror_opts {
	bool prune;                   /* drop files that are not in this run's set ... */
	const char *const *keep;      /* ... except these file names (pinned) */
	size_t n_keep;
	/* NULL: .metadata files are written under the tree. Set: each goes to meta_out instead (a
	 * staging for object storage keeps them in memory: a thousand small files are a thousand
	 * inodes made and removed for nothing), every wheel's, this run's unchanged ones too; a
	 * .metadata already under the tree (a stand-in) counts as there for the manifest's
	 * entries. */
	wp_mirror_meta_fn *meta_out;
	/* set: asked first for a wheel's .metadata (S3's early uploads made them already) */
	wp_mirror_meta_in_fn *meta_in;
	void *meta_ctx;               /* for meta_out and meta_in */
	/* set: called once the manifest is written and removals are done, before the pending list
	 * is settled, with the tree still locked (what it writes beside the manifest, an SBOM, is
	 * safe from another run's sweep of temp names, and a kill before it leaves the pending
	 * list) */
	int (*after)(void *ctx, const char *dir, struct wp_err *err);
	void *after_ctx;
};

struct wp_mirror_report {
	size_t files;      /* files the pages list after the run */
	size_t projects;   /* projects the root page lists */
	size_t added;      /* files linked or copied in by this run */
	size_t unchanged;  /* files of this run already in the tree with the same sha256 */
	size_t replaced;   /* files of this run whose name was in the tree with other bytes */
	size_t removed;    /* files pruned (and their .metadata) */
	size_t pinned;     /* files kept by opts->keep although not in this run's set */
	size_t metadata;   /* .metadata files the pages announce */
	size_t roots;      /* page roots written: simple/ and one per variant */
	size_t foreign;    /* files under files/ that no run of this tree wrote (left alone) */
};

/* The manifest beside the tree: every file with its sha256, project and page attributes. It is
 * the source of truth for what a re-run keeps. */
#define WP_MIRROR_MANIFEST ".wheelpick-mirror.json"
/* The files a run is about to place, written before them and removed when the manifest lists
 * them: what a killed run left under files/ is known by it ("project/filename" lines). */
#define WP_MIRROR_PENDING ".wheelpick-mirror.pending"

/* Write or update the tree under dir:
 *   dir/files/<project>/<filename>            the file (hard link from the store, else a copy)
 *   dir/files/<project>/<filename>.metadata   PEP 658 core metadata, for wheels
 *   dir/simple/index.{html,json}              every project
 *   dir/simple/<project>/index.{html,json}    relative links with #sha256=, PEP 691 JSON beside
 *   dir/<variant>/...                         the same for one variant ("cu118"): its builds and
 *                                             every file without a variant, as PyTorch's
 * /whl/cu118/ A {name}-{version}-variants.json (PEP 825: "MUST be provided in all the responses
 * where the variant wheels are included") is listed on simple/ and on every variant root's page
 * that lists a variant wheel of its release; re-runs, --prune and the pending list treat it as a
 * file. A re-run adds to what the manifest lists; with opts->prune only this run's files and the
 * pinned ones stay. Only pages and files this tree's writer made (the manifest, and the list of
 * files a run writes before placing them) are ever removed. Every write is atomic and ordered
 * (files, then project pages, then the root, then the manifest, then removals), so a reader or a
 * crash sees the old tree or the new one. opts may be NULL; rep may be NULL. -WPE_USAGE for a bad
 * project or file name or two files of one name with different bytes; -WPE_IO for the file system;
 * -WPE_INTEGRITY when a store object is not the size announced, or a variants.json body is not the
 * sha256 given. */
/* The METADATA of the wheel at path (filename names it in messages), read through the central
 * directory so a 2 GB wheel is not streamed: what the tree's .metadata file holds. 0 with out
 * filled (out->max bounds it: WP_METADATA_MAX_LEN), 0 with out empty when the wheel has none;
 * -WPE_INTEGRITY for what is no wheel, -WPE_TOO_BIG past the bound. */
int wp_mirror_wheel_metadata(const char *path, const char *filename, struct wp_buf *out,
			     struct wp_err *err);

int wp_mirror_write(const char *dir, const struct wp_mirror_file *files, size_t n,
		    const struct wp_mirror_opts *opts, struct wp_mirror_report *rep,
		    struct wp_err *err);

#endif
