/* ops/conda/channel.h: write a local conda channel (subdirs with repodata.json) from proven
 * packages. Ownership: every argument is borrowed for the call. The channel under DIR belongs to
 * wheelpick while a write runs (an exclusive lock on DIR keeps a second writer out). */
#ifndef WP_OPS_CONDA_CHANNEL_H
#define WP_OPS_CONDA_CHANNEL_H

#include <stddef.h>

#include "base/err.h"

struct wp_conda_file {
	const char *subdir;       /* linux-64, noarch ... */
	const char *filename;     /* pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2, or .conda */
	const char *store_path;   /* the proven object to link or copy in */
	const char *record_json; /* the upstream repodata record, a JSON object, copied byte for
				    byte */
	const char *attest_path; /* CEP 27/50: its attestations (a sidecar held to attest_sha256),
				    or NULL */
	const char *attest_sha256;
};

#define WP_CHANNEL_REPODATA_MAX ((size_t)1 << 30) /* an existing repodata.json past this: refused */

/* Write DIR/<subdir>/<filename> and DIR/<subdir>/repodata.json ({"info":{"subdir":...},
 * "packages":{...}, "packages.conda":{...}, "repodata_version":1}: .tar.bz2 records under
 * packages, .conda under packages.conda), merged with the repodata.json already there (a re-run
 * adds; a record whose file has gone is dropped), and an empty DIR/noarch/repodata.json when
 * there is none, as conda requires; each repodata.json with repodata.json.zst and CEP 16 shards
 * (repodata_shards.msgpack.zst, shards/<sha256>.msgpack.zst) beside it. Files are in place before
 * the repodata that names them, and every write is atomic. -WPE_USAGE for a bad subdir or file
 * name, or a record that is not a JSON object; -WPE_INTEGRITY when a record's size disagrees with
 * the store object; -WPE_PARSE for an existing repodata.json that is not JSON; -WPE_IO for the file
 * system. */
/* A file's attestations go beside it as <filename>.sigs.<attest_sha256> (ops/conda/attest.h), in
 * place before the record that names them. */
int wp_channel_write(const char *dir, const struct wp_conda_file *files, size_t n,
		     const long long *source_date, struct wp_err *err);

#endif
