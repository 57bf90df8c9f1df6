/* cache/condabatch.h: conda records staged in memory, grouped by package, until they are written.
 * A repodata lists its records in any order (conda-index sorts them by file name; generated or
 * merged ones need not); grouping here is what lets the catalog store a package's records as one
 * chunk whatever the order. Rows are packed as they arrive (cache/condapack.h), each URL whole,
 * so that reading them back hands out pointers into the batch for every field.
 * Ownership: the batch owns its buffers, kept from one batch to the next (wp_condabatch_reset)
 * until wp_condabatch_free. */
#ifndef WP_CONDABATCH_H
#define WP_CONDABATCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "cache/catalogdb.h"

struct wp_condabatch {
	int64_t source_id;
	struct wp_buf stage;   /* packed rows, in arrival order */
	struct wp_buf names;   /* package names, NUL-separated */
	struct wp_condabatch_rec *rec;
	size_t n_rec, cap_rec;
	struct wp_condabatch_pkg *pkg;
	size_t n_pkg, cap_pkg;
	uint32_t *slot;        /* open addressing over pkg (index + 1; 0 = empty) */
	size_t n_slot;
};

/* Stage a copy of f under f->project (which must be set). */
void wp_condabatch_add(struct wp_condabatch *b, const struct wp_file_row *f);
/* Packages in order of first appearance: 0 .. n_pkg - 1. */
const char *wp_condabatch_package(const struct wp_condabatch *b, size_t i);
/* Package i's rows in arrival order, to fn; their strings live until the batch is reset.
 * 0, fn's first non-zero return, or -1 should a staged row not read back. */
int wp_condabatch_rows(const struct wp_condabatch *b, size_t i,
		       int (*fn)(void *ctx, const struct wp_file_row *f), void *ctx);
void wp_condabatch_reset(struct wp_condabatch *b);
void wp_condabatch_free(struct wp_condabatch *b);

#endif
