/* ops/core/remote_metadata.h: a remote wheel's METADATA read with a few HTTP range requests, not
 * the whole file. Ownership: the arguments are borrowed for the call; *metadata_text is the
 * caller's to free. */
#ifndef WP_OPS_CORE_REMOTE_METADATA_H
#define WP_OPS_CORE_REMOTE_METADATA_H

#include <stddef.h>

#include "base/err.h"
#include "net/transfer.h"

/* A server that ignores Range (answers 200): its whole body is used up to this size, and a
 * larger file fails fast (on Content-Length) so the caller can download it properly instead. */
#define WP_REMOTEMETA_MAX_WHOLE ((size_t)64 << 20)
/* Bytes fetched past a member's name for its local header's extra field, in the same request. */
#define WP_REMOTEMETA_SLACK 1024

struct wp_remote_stats {
	int requests;        /* HTTP requests made, retries included */
	long long bytes;     /* body bytes received */
	long status; /* the last HTTP status answered (404: the file is not there), 0 none */
};

/* METADATA of the wheel at url (http:// or https://; file:// reads the whole file) whose file
 * name is filename (name-version-...whl: it says which dist-info is the wheel's own).
 * size_or_minus1 is the size the index gave, checked against the server's, or -1.
 *
 * Requests: the last 64 KiB (Range: bytes=-65536); the rest of the central directory when it
 * starts before that; the METADATA member's local header and data. Small wheels take one.
 * On 0, *metadata_text is the decoded METADATA (NUL-terminated, checked: CRC-32, size, and a
 * Name and Version that match filename). st (may be NULL) counts what was spent, failure or not.
 * Errors (the caller then falls back to downloading the wheel): -WPE_NET, -WPE_TOO_BIG (a
 * server without ranges and a file over WP_REMOTEMETA_MAX_WHOLE, a central directory or METADATA
 * over its cap), -WPE_INTEGRITY (a zip that is not sound where it was read), -WPE_PARSE
 * (filename is not a wheel name, METADATA does not parse). */
int wp_remote_metadata(const struct wp_net_conf *net, const char *url, const char *filename,
		       long long size_or_minus1, char **metadata_text, struct wp_remote_stats *st,
		       struct wp_err *err);

#endif
