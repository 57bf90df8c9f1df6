/* index/repodata.h: conda repodata.json (plain, .bz2, .zst, .gz, .xz), streamed, into records.
 * Ownership: readers borrow every argument; what they pass to a sink lives only for that call. */
#ifndef WP_REPODATA_H
#define WP_REPODATA_H

#include <stdbool.h>
#include <stddef.h>

#include "index/record.h"

#define WP_REPODATA_MAX_OUT   ((unsigned long long)4 << 30) /* decompressed bytes */
#define WP_REPODATA_MAX_RATIO 1000                          /* decompressed / compressed */
#define WP_REPODATA_RATIO_AFTER ((unsigned long long)16 << 20) /* ratio judged past this */
#define WP_REPODATA_MAX_TOKEN ((size_t)1 << 20)             /* one JSON string or number */

/* CEP 50: a record's "attestations_sha256" names a JSON array of Sigstore bundles (CEP 27) served
 * beside the package as FILENAME.sigs.<that sha256>; a record that carries it has that URL as its
 * provenance (the name fixes the bytes). */
#define WP_CONDA_ATTEST_INFIX ".sigs."

/* Stream repodata from path, decompressing by content (not by name), and push one
 * WP_KIND_CONDA record per entry of "packages" and "packages.conda" as each entry closes, so
 * memory stays bounded whatever the file's size. base_url is the channel subdir's URL (the
 * URL of repodata.json minus "/repodata.json"); a record's url is base_url + "/" + its file
 * name, or info.base_url (CEP 15) + file name when the repodata names one before its packages.
 * Entries that are broken (no name, bad hash, wrong types, over the per-field caps) are
 * skipped and counted; stats may be NULL.
 * -WPE_IO when path cannot be opened; -WPE_SOURCE (naming path) for corrupt compression,
 * malformed or truncated JSON, nesting past WP_JSON_MAX_DEPTH (base/json.h), or JSON that is not
 * repodata; -WPE_TOO_BIG past WP_REPODATA_MAX_OUT, WP_REPODATA_MAX_RATIO or WP_REPODATA_MAX_TOKEN.
 * Records sent before a later error stand: the caller's transaction decides. */
int wp_read_repodata_file(const char *path, const char *base_url, wp_record_fn *sink, void *ctx,
			  struct wp_index_stats *stats, struct wp_err *err);

/* As wp_read_repodata_file; tap (not NULL) is handed every byte of a file that is not
 * compressed, in order, as the parser reads it, and *tapped is set when it was handed the whole
 * file (the parse reached its end): a caller that wants the file's hash takes it from there
 * instead of reading the file a second time. A compressed file is not tapped. */
typedef void wp_repodata_tap_fn(void *tap_ctx, const void *data, size_t n);
int wp_read_repodata_file_tap(const char *path, const char *base_url, wp_repodata_tap_fn *tap,
			      void *tap_ctx, bool *tapped, wp_record_fn *sink, void *ctx,
			      struct wp_index_stats *stats, struct wp_err *err);

/* The same for bytes in memory (as downloaded; compressed or not). Errors name base_url. */
int wp_read_repodata_mem(const char *data, size_t len, const char *base_url, wp_record_fn *sink,
			 void *ctx, struct wp_index_stats *stats, struct wp_err *err);

#endif
