/* ops/core/unpack.h: a bundle's members written to disk through the OS seam (its volumes are read
 * by verify/archopen.h), by install, verify and apply alike. libarchive's own disk writer turns a
 * member's name into the C locale's bytes (Linux: a name that is not ASCII is refused) or Windows'
 * ANSI code page (mangled); here a name stays the UTF-8 a bundle holds (ops/publish/bundle.c
 * writes names as bytes: hdrcharset=BINARY), and the seam takes it to UTF-16 on Windows. The
 * caller has checked the member's name (wp_member_name_problem) and kind (ops/core/untar.h) and
 * writes under a folder of its own. */
#ifndef WP_OPS_CORE_UNPACK_H
#define WP_OPS_CORE_UNPACK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

struct wp_unpack_out {
	int fd;           /* the file being written; -1 for a folder or when closed */
	const char *path; /* borrowed from the caller, for messages */
};

/* Makes the folder dest (and its parents), or creates the file dest (its parents made; a file
 * already there is an error: no bundle names a file twice) with mode perm & 0777, exactly. */
int wp_unpack_begin(struct wp_unpack_out *o, const char *dest, bool dir, unsigned perm,
		    struct wp_err *err);

/* n bytes of the member at offset off (libarchive's data blocks; a hole stays zeros). */
int wp_unpack_block(struct wp_unpack_out *o, const void *blk, size_t n, long long off,
		    struct wp_err *err);

/* Closes the file (a folder: nothing); safe to call twice and after a failed begin. */
int wp_unpack_end(struct wp_unpack_out *o, struct wp_err *err);

#endif
