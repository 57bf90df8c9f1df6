/* ops/verify/common.h: what the verify checks share (inside ops/ only): where problems go, how a
 * path is shown, a per-run cache of file hashes, and the small file-system helpers.
 * Ownership: problems belong to the report; a vo_hcache owns its entries (wp_vo_hcache_free);
 * wp_vo_list_dir's array and names belong to the caller (wp_vo_free_list). */
#ifndef WP_OPS_VERIFY_COMMON_H
#define WP_OPS_VERIFY_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/vec.h"
#include "ops/verify/report.h"
#include "verify/hash.h"

#define VO_PAGE_MAX ((size_t)256 << 20)
#define VO_REQS_MAX ((size_t)16 << 20)  /* a requirements.txt past this is not ours */
#define VO_JSON_MAX ((size_t)64 << 20)  /* wheelpick.json */

/* Where problems go, and how a path on disk is shown (a bundle's temp dir as BUNDLE:). */
struct vo_ctx {
	struct wp_verify_report *rep;
	const char *real;   /* prefix on disk, or NULL */
	const char *shown;  /* what replaces it in messages */
	size_t fatal_before;
	const struct wp_verify_opts *opts; /* provenance settings; NULL: none */
};

void wp_vo_problem_add(struct vo_ctx *c, bool fatal, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* path as messages show it (a bundle's temp dir as BUNDLE:), newly allocated. */
char *wp_vo_show(const struct vo_ctx *c, const char *path);
bool wp_vo_is_file(const char *path);   /* a regular file (links followed) */
bool wp_vo_is_dir(const char *path);
/* Sorted names in dir (no dot files). */
char **wp_vo_list_dir(const char *dir, size_t *n);
void wp_vo_free_list(char **v, size_t n);
/* file:// URL of an absolute path, each byte outside the unreserved set percent-encoded, + tail. */
char *wp_vo_file_url(const char *abs, const char *tail);

/* A file's sha256 once per run: mirrors name one file from two pages. */
struct vo_hashed {
	char *path;
	char sha256[WP_SHA256_HEX_LEN + 1]; /* "" when it could not be read */
	long long size;
	bool wheel_checked;
};

/* Each entry allocated alone: callers keep pointers to entries while the cache grows. */
WP_VEC_OF(vo_hcache, struct vo_hashed *);

struct vo_hashed *wp_vo_hash_of(struct vo_ctx *c, struct vo_hcache *hc, const char *path);
void wp_vo_hcache_free(struct vo_hcache *hc);

/* A wheel against its RECORD, WHEEL and METADATA (and its file name when given). */
void wp_vo_check_wheel(struct vo_ctx *c, const char *path, const char *filename);

/* The FILE.provenance beside a distribution (PEP 740): verified when a trusted root is given,
 * required when the policy names the file's project. filename: the distribution's name (NULL:
 * path's last component); sha256: its hash when known (NULL: hashed here). */
void wp_vo_check_provenance(struct vo_ctx *c, const char *path, const char *filename,
			    const char *sha256);
/* A conda package's CEP 27 attestations (path + ".sigs.<sha256>", the sha256 attest_url's name
 * gives; attest_url NULL: its record names none): present, those bytes, and each bundle about this
 * package (verified in full with a trusted root); required when the policy names project. */
void wp_vo_check_conda_attest(struct vo_ctx *c, const char *path, const char *filename,
			      const char *project, const char *sha256, const char *attest_url);

/* The checks of each kind, each adding its problems to c->rep. */
void wp_vo_verify_wheelhouse(struct vo_ctx *c, const char *dir);
void wp_vo_verify_mirror(struct vo_ctx *c, const char *root);
bool wp_vo_is_channel(const char *dir);
void wp_vo_verify_channel(struct vo_ctx *c, const char *dir);
void wp_vo_verify_bundle(struct vo_ctx *c, const char *path, struct wp_err *err);
/* An unpacked bundle's top folder: install.sh as wheelpick writes it, then the wheels or (a conda
 * bundle: channel/, locks beside it) the channel and its locks. */
bool wp_vo_is_conda_bundle_dir(const char *dir);
void wp_vo_verify_bundle_dir(struct vo_ctx *c, const char *house);
/* PEP 825 in one folder (a wheelhouse, a mirror's files/<project>/): each variants.json, each
 * variant wheel's variant.json against its file name and its release's variants.json. linked (a
 * mirror's; NULL for a wheelhouse): the sorted paths its pages link; such a variant wheel must have
 * its release's variants.json beside it (an index must host it). One no page links yet is a cut
 * short run's, which the unlisted-file check already names. */
/* A PEP 751 lock: valid as packaging's Pylock.from_dict reads it (-WPE_PARSE otherwise, returned),
 * then each file it names by path (or file:// URL) against its sha256 and size, and each such
 * wheel against its RECORD. Files named by http(s) URL are counted, not fetched. */
int wp_vo_verify_pylock(struct vo_ctx *c, const char *path, struct wp_err *err);
/* An installed environment (verify --gpu): the site-packages folder of dir (itself, or a virtual
 * environment's), NULL when dir is neither; then each distribution's shared objects, as its RECORD
 * lists them, judged on c->rep->gpus. */
char *wp_vo_site_packages(const char *dir);
void wp_vo_verify_installed(struct vo_ctx *c, const char *site);
void wp_vo_check_variants(struct vo_ctx *c, const char *dir, char *const *linked, size_t n_linked);
/* An output's SBOM (dir/sbom.cdx.json; dir/sbom.spdx.json when there) against its files: paths
 * (relative to dir) with the sha256 of their bytes. A missing CycloneDX document is a note (an
 * output written before SBOMs were); a file it omits or adds, or another sha256, is a failure (a
 * note when !fatal: a mirror run cut short before it wrote the SBOM, which its pending list
 * says). */
void wp_vo_check_sbom(struct vo_ctx *c, const char *dir, const char *const *paths,
		      const char *const *sha, size_t n, bool fatal);

#endif
