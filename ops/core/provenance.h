/* ops/core/provenance.h: PEP 740 provenance carried beside a file as FILE.provenance (in a
 * wheelhouse, a mirror's files/, a bundle): where it lives, what state it is in, and the trusted
 * root and policy files a user names. For verify, and for whatever reports a file (the SBOM's
 * per-file provenance status).
 * Ownership: paths are borrowed; a result is the caller's; a trust root or policy loaded here is
 * released by its verify/ release function. */
#ifndef WP_OPS_PROVENANCE_H
#define WP_OPS_PROVENANCE_H

#include <stdbool.h>

#include "base/err.h"
#include "net/transfer.h"
#include "verify/provenance.h"

#define WP_PROV_SUFFIX ".provenance"

enum wp_prov_status {
	WP_PROV_NONE = 0,  /* no FILE.provenance */
	WP_PROV_CARRIED,   /* there, not checked (no trusted root was given) */
	WP_PROV_VERIFIED,  /* checked against the trusted root */
	WP_PROV_FAILED,    /* there and unreadable or unverifiable (err says why) */
};

/* "none", "carried", "verified", "failed": the words reports use. */
const char *wp_prov_status_name(enum wp_prov_status s);

/* The provenance beside file_path (file_path + ".provenance"). filename: the name the statement
 * must carry (NULL: file_path's last component); sha256_hex: the file's (NULL: hashed here);
 * tr: NULL only looks whether it is there. res (optional) gets the signers when verified; err
 * the reason when failed. */
enum wp_prov_status wp_provenance_status(const char *file_path, const char *filename,
					 const char *sha256_hex, const struct wp_trust_root *tr,
					 struct wp_prov_result *res, struct wp_err *err);

struct wp_catalog;

/* Carry a file's provenance: when the catalog knows a provenance URL for file_url (its index
 * gave one), fetch it (at most WP_PROV_MAX_BYTES, read as JSON) and write it atomically to
 * dest. *got says whether one was written. 0; -WPE_NET / -WPE_TOO_BIG when it cannot be fetched;
 * -WPE_INTEGRITY when it is not JSON (what the index serves there is no provenance). */
int wp_provenance_carry(const struct wp_net_conf *net, struct wp_catalog *cat, const char *file_url,
			const char *dest, bool *got, struct wp_err *err);
/* The same for n files at once, fetched in parallel: got[i] and errs[i] (n each) for each; the
 * number that failed. */
size_t wp_provenance_carry_many(const struct wp_net_conf *net, struct wp_catalog *cat,
				const char *const *file_urls, const char *const *dests, size_t n,
				bool *got, struct wp_err *errs);

/* A trusted_root.json file read and parsed (-WPE_IO when it cannot be read, -WPE_INTEGRITY when it
 * is not one). */
int wp_trust_root_load_file(struct wp_trust_root *tr, const char *path, struct wp_err *err);

/* A policy rule ("torch=github:pytorch/pytorch"), or a file of them when spec names no '='. */
int wp_prov_policy_add_spec(struct wp_prov_policy *p, const char *spec, struct wp_err *err);

#endif
