/* ops/publish/publish_s3.h: a mirror (or a conda channel) published to S3-compatible object
 * storage, and read back to be verified. The tree is the one ops/publish/mirror.c writes on disk:
 * it is built in a staging folder under the cache's tmp/ and its difference from the bucket is
 * uploaded in the order that keeps every reader's view whole (files, then project pages, then
 * roots, then the manifest, then removals). Ownership: everything passed is borrowed for the call;
 * a report holds only counts. */
#ifndef WP_OPS_PUBLISH_PUBLISH_S3_H
#define WP_OPS_PUBLISH_PUBLISH_S3_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "net/s3.h"
#include "ops/conda/conda.h"
#include "ops/core/session.h"
#include "ops/publish/mirror.h"
#include "ops/wheel/pick.h"

struct wp_s3_dest {
	const char *url;       /* s3://BUCKET/PREFIX */
	const char *endpoint;  /* --s3-endpoint, or NULL (AWS_ENDPOINT_URL, else AWS) */
	const char *acl;       /* --s3-acl ("public-read"), or NULL */
	int parallel;          /* uploads at once; 0: 16 */
	const struct wp_s3_conf *conf; /* credentials, region, TLS as cli/ read them; NULL: none */
};

struct wp_s3_report {
	struct wp_mirror_report mirror; /* the tree, as the staging's write counted it */
	size_t objects;                 /* objects the published tree has */
	size_t uploaded;                /* objects PUT by this run */
	long long uploaded_bytes;
	size_t unchanged;               /* objects already there with the same size and sha256 */
	size_t looked_up;               /* HEADs a listing could not settle */
	size_t deleted;                 /* objects removed (the pages and files no longer linked) */
	size_t aborted; /* --prune: unfinished multipart uploads under the prefix aborted */
	size_t acl_set; /* with a canned ACL: objects already there given it (PutObjectAcl) */
};

/* What can be said before any work: the URL, endpoint and ACL as wp_s3_open takes them, that there
 * are credentials to publish with (-WPE_USAGE naming what is wrong), and, with one request, that
 * the bucket is there and takes them (-WPE_NET: a missing bucket is said before anything is
 * resolved or downloaded). */
int wp_s3_dest_check(const struct wp_s3_dest *d, struct wp_err *err);

/* How a re-run knows the bucket: the prefix is listed once (ListObjectsV2); the manifest the last
 * run published (.wheelpick-mirror.json) is read into the fresh staging folder, and each file it
 * names that the listing has, at its size, stands there as a sparse placeholder of that size, so
 * the local writer keeps it on the pages without its bytes being downloaded. A placeholder is
 * never uploaded (its sha256 is the manifest's, which the bucket already holds). An object is
 * unchanged when the listing has it at the same size and either both manifests give it the same
 * sha256, or its ETag is the MD5 of the bytes (a single PUT), or a HEAD shows the same
 * x-amz-meta-sha256. Uploads of one rank run in parallel; a failure stops before the next rank.
 * -WPE_NET (listing, uploads, refused credentials: the message says what to check), -WPE_USAGE
 * (a bad URL or endpoint), and what wp_publish_mirror returns. */
int wp_publish_s3_mirror(const struct wp_session *s, const struct wp_pick_run *run,
			 const struct wp_s3_dest *d, bool prune, struct wp_s3_report *rep,
			 struct wp_err *err);

/* The conda job's channel, staged as wp_conda_run writes it (job->dest ignored), then published
 * as above: packages and shards first, then each subdir's repodata. Nothing is removed. res as
 * wp_conda_run fills it; release it. */
int wp_publish_s3_conda(const struct wp_session *s, const struct wp_conda_job *job,
			const struct wp_s3_dest *d, struct wp_conda_result *res,
			struct wp_s3_report *rep, struct wp_err *err);

/* A bundle for s3://BUCKET/KEY (KEY named as a bundle file is): written by make into a file of
 * that name in a staging folder under the cache's tmp/, then it (or, with volumes, each volume
 * KEY.001 ...) put as objects beside KEY, in parallel (each over 64 MiB in parts), and the staging
 * removed. make is given the local path; *nfiles (optional) gets how many objects went up.
 * A reader sees a volume whole or not at all; the set is whole when the last PUT ends. */
typedef int wp_s3_make_fn(void *ctx, const char *local_path, size_t *nvolumes, struct wp_err *err);
int wp_publish_s3_bundle(const struct wp_session *s, const struct wp_s3_dest *d,
			 wp_s3_make_fn *make, void *ctx, size_t *nfiles, struct wp_err *err);

#endif
