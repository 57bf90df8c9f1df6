/* cache/gpucodedb.h: the GPU code read from each stored file (resolver/gpucode.h's text form), kept
 * in the catalog's gpu_code table by the file's sha256, so that a file's shared objects are read
 * once. Ownership: *code is the caller's to free. */
#ifndef WP_GPUCODEDB_H
#define WP_GPUCODEDB_H

#include "base/err.h"
#include "cache/catalogdb.h"

/* Bumped when the fatbinary reader learns something that changes its answers: rows of an older
 * reader are read again. */
#define WP_GPU_CODE_READER 1

/* The code kept for sha256 (hex): *code NULL when none is kept (never read, or by an older reader);
 * "-" when the file has no shared object, "" when its shared objects carry no GPU code. */
int wp_catalog_gpu_code_get(struct wp_catalog *cat, const char *sha256, char **code,
			    struct wp_err *err);
/* Keep it (a read-only catalog keeps nothing, quietly). */
int wp_catalog_gpu_code_put(struct wp_catalog *cat, const char *sha256, const char *code,
			    struct wp_err *err);

#endif
