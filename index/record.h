/* index/record.h: the record every index reader pushes into a sink, one per file it lists.
 * Every pointer is borrowed from the reader and valid only during the sink call: a sink that
 * keeps anything copies it. Fields a format does not carry are NULL (strings) or -1 (numbers). */
#ifndef WP_RECORD_H
#define WP_RECORD_H

#include "base/err.h"

enum wp_file_kind {
	WP_KIND_UNKNOWN = 0,
	WP_KIND_WHEEL, /* *.whl */
	WP_KIND_SDIST, /* *.tar.gz, *.zip, *.tar.bz2 ... of a Python project */
	WP_KIND_CONDA, /* conda .tar.bz2 / .conda from repodata */
	WP_KIND_VARIANTS, /* PEP 825 {name}-{version}-variants.json, listed beside the wheels it
			     describes */
};

struct wp_file_record {
	enum wp_file_kind kind;
	const char *filename; /* percent-decoded last path segment: torch-1.8.0+cu111-cp38-...whl */
	const char *url;             /* absolute URL, fragment removed, as it must be fetched */
	const char *dir;             /* last directory segment of the href ("cu102") or NULL; the
	                                variant rule falls back to it for unlabeled files */
	const char *project; /* project as the page names it (PEP 503 page, conda name) or NULL */
	const char *sha256;          /* lowercase hex, or NULL */
	const char *md5;             /* lowercase hex, or NULL */
	const char *requires_python; /* PEP 503 data-requires-python / PEP 691, unescaped, or NULL
				      */
	const char *yanked; /* NULL = not yanked; "" = yanked without reason; else the reason */
	const char *core_metadata;   /* PEP 658/714: NULL = none; "true" or "sha256=<hex>" */
	long long size;              /* bytes, -1 unknown */
	const char *provenance;      /* PEP 740: the absolute URL of the file's provenance (PEP 691
	                                "provenance", HTML data-provenance), or NULL */

	/* conda only (NULL / -1 elsewhere) */
	const char *version;         /* conda version string */
	const char *build;           /* build string: py3.8_cuda11.1_cudnn8.0.5_0 */
	long long build_number;
	const char *subdir;          /* linux-64, noarch ... */
	const char *depends;         /* JSON array text: ["cudatoolkit >=11.1,<11.2", ...] */
	const char *constrains;      /* JSON array text */
	const char *track_features;  /* space-separated */
	long long timestamp;         /* ms since the epoch */
	const char *noarch;          /* "python", "generic" or NULL */
	const char *license;         /* as the repodata writes it, or NULL */
};

/* What a reader saw, for `update -v` and for telling a thin page from a broken one.
 * links == records + skipped; malformed counts the part of skipped that was broken
 * (bad href, bad hash, bad name, a link the page may not make: wp_url_link_refused) rather
 * than merely not a package file. */
struct wp_index_stats {
	unsigned long long links;
	unsigned long long records;
	unsigned long long skipped;
	unsigned long long malformed;
	unsigned long long refused; /* the part of malformed that a page may not send us to: a local
				       file from a page on the network, plain http from https */
};

/* A sink returns 0 to go on, or a negative -WPE_* (after wp_fail) to stop the reader,
 * which then returns that code unchanged. */
typedef int wp_record_fn(void *ctx, const struct wp_file_record *rec, struct wp_err *err);

/* Root pages (PEP 503 /simple/, PEP 691 root JSON) name projects instead of files: name as the
 * page writes it, url absolute. Same borrowing and stopping rules as wp_record_fn. */
typedef int wp_project_fn(void *ctx, const char *name, const char *url, struct wp_err *err);

#endif
