/* ops/conda/shards.h: CEP 16 sharded repodata for a local channel's subdir, from its repodata.json:
 * one shard per package name, shards/<sha256>.msgpack.zst (the sha256 of the file itself, so its
 * name proves its bytes), holding {"packages", "packages.conda", "removed"} with each record as
 * repodata.json has it (sha256 and md5 as bytes); and repodata_shards.msgpack.zst mapping each
 * name to its shard's sha256. Everything is borrowed for the call. */
#ifndef WP_OPS_CONDA_SHARDS_H
#define WP_OPS_CONDA_SHARDS_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

/* Writes subdir_path/shards/<sha256>.msgpack.zst for every package name in repodata (a shard
 * already there is the same bytes and stays; shards no longer named stay too, for readers that
 * hold an older index, as CEP 16 asks) and then subdir_path/repodata_shards.msgpack.zst,
 * atomically. The index's created_at is *source_date when given (SOURCE_DATE_EPOCH, the
 * session's), else the newest record's time. -WPE_PARSE when repodata is not a repodata.json;
 * -WPE_IO for the file system. */
int wp_shards_write(const char *subdir_path, const char *subdir, const char *repodata, size_t len,
		    const long long *source_date, struct wp_err *err);

#endif
