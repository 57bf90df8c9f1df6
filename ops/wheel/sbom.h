/* ops/wheel/sbom.h: the SBOM every output carries: sbom.cdx.json (CycloneDX 1.6), and on request
 * sbom.spdx.json (SPDX 2.3), listing each file of the output with its sha256, purl, the targets it
 * serves, the dependencies it was resolved with, the SBOMs a wheel carries (PEP 770) and its
 * provenance status. Deterministic: the same files give the same bytes (no time unless
 * SOURCE_DATE_EPOCH; the serial number is derived from the content).
 * Ownership: a wp_sbom owns its components and their strings (wp_sbom_release). */
#ifndef WP_OPS_WHEEL_SBOM_H
#define WP_OPS_WHEEL_SBOM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "ops/core/session.h"
#include "resolver/solve.h"

#define WP_SBOM_CDX_NAME "sbom.cdx.json"
#define WP_SBOM_SPDX_NAME "sbom.spdx.json"

/* Which documents an output carries: CycloneDX always, SPDX on request. */
enum { WP_SBOM_CDX = 1, WP_SBOM_SPDX = 2 };

/* What is known of a file's PEP 740 provenance: the SBOM writer fills "absent" or "present" from
 * a FILE.provenance beside it (ops/core/provenance.h's WP_PROV_SUFFIX); an output is written
 * with no trusted root at hand, so "verified" is verify's word, not the SBOM's. */

struct wp_sbom_comp {
	char *path; /* in the output, relative: "torch-1.8.0+cu111-...whl", "files/torch/..." */
	char *ecosystem;           /* "pypi" or "conda" */
	char *name, *version, *filename, *sha256;
	char *url; /* where it came from (purl's repository_url: its folder), or NULL */
	long long size;            /* -1 unknown */
	char *subdir, *build;      /* conda */
	char *channel;             /* conda: the channel's URL, or NULL */
	char *tags;                /* a wheel's tags, or NULL */
	char *variant;             /* "cu111", "cpu", "rocm6.0", or NULL */
	char *gpu_archs; /* "sm_37 sm_50 ... compute_86" (PyTorch's list for the build), or NULL */
	char **targets; /* the targets it serves, in words ("CUDA 11.2, Python 3.8, linux_x86_64")
			 */
	size_t n_targets;
	size_t *deps;              /* indexes of the components it needs, as resolved */
	size_t n_deps;
	char **sboms; /* PEP 770: "NAME.dist-info/sboms/X" members, each "PATH sha256" */
	size_t n_sboms;
	char *provenance;          /* "absent", "present", "verified", "failed"; NULL: looked up */
};

struct wp_sbom {
	const char *kind;          /* "wheelhouse", "mirror", "conda channel", "bundle" */
	const char *name; /* the output's name (its folder's last part), for the document */
	struct wp_sbom_comp *c;
	size_t n;
};

/* The files of a plan that were fetched (path set), each as its own name (a wheelhouse's layout;
 * a mirror sets its paths after). */
void wp_sbom_from_plan(const struct wp_plan *plan, struct wp_sbom *out);
/* A component (zeroed) appended to b; its index is b->n - 1. */
struct wp_sbom_comp *wp_sbom_add(struct wp_sbom *b);
/* Appends target words to c unless there. */
void wp_sbom_comp_target(struct wp_sbom_comp *c, const char *words);

/* Write dir/sbom.cdx.json (and dir/sbom.spdx.json when formats has WP_SBOM_SPDX; an earlier
 * one is removed when not), each atomically. Fills what a component lacks from dir: its
 * provenance status, and the SBOMs a wheel carries (PEP 770; read from the wheel at
 * dir/path). The time is s->source_date when set, else none. */
int wp_sbom_write(const struct wp_session *s, const char *dir, struct wp_sbom *b, unsigned formats,
		  struct wp_err *err);

/* The CycloneDX document alone, appended to out (for tests and S3 staging). */
int wp_sbom_cdx(const struct wp_session *s, const struct wp_sbom *b, struct wp_buf *out,
		struct wp_err *err);

void wp_sbom_release(struct wp_sbom *b);

#endif
