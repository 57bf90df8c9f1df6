/* ops/verify/report.h: what a verification found: the kind of thing checked, its problems (each
 * naming its file) and counts. Every verifier of the room adds to one (ops/verify/common.h's
 * wp_vo_problem_add). Ownership: the report owns its problems and their strings
 * (wp_verify_report_release). */
#ifndef WP_OPS_VERIFY_REPORT_H
#define WP_OPS_VERIFY_REPORT_H

#include <stdbool.h>
#include <stddef.h>

enum wp_verify_kind {
	WP_VERIFY_NONE = 0,
	WP_VERIFY_WHEEL, /* one .whl */
	WP_VERIFY_CONDA_PKG, /* one .conda or .tar.bz2 */
	WP_VERIFY_WHEELHOUSE, /* a directory of wheels with requirements.txt */
	WP_VERIFY_MIRROR, /* DIR/simple/... (PEP 503, 691, 658) */
	WP_VERIFY_CHANNEL, /* a conda channel, or one subdir of it */
	WP_VERIFY_BUNDLE, /* .tar.zst / .tar.gz made by wp_bundle_write */
	WP_VERIFY_LOCK, /* pylock.toml / pylock.NAME.toml (PEP 751), and the local files it names */
	WP_VERIFY_ENV, /* an installed environment, for its GPU code only (verify --gpu) */
};

struct wp_verify_problem {
	char *path; /* where: a file, a page, "requirements.txt:12"; inside a bundle BUNDLE:member
		     */
	char *what;   /* lower case, no full stop: "sha256 is 3b5c..., the page says 9f2a..." */
	bool fatal;   /* false for a note that is no integrity failure (pages mid-update) */
};

/* One distribution's provenance as verify found it (PEP 740): who signed it, when. */
struct wp_verify_prov {
	char *path;      /* the distribution, shown as problems are */
	const char *status; /* "verified", "carried", "failed", "missing" (static strings) */
	char *signer; /* the certificate's Source Repository URI, else its SubjectAltName; NULL
			 unless verified */
	char *issuer;    /* OIDC issuer */
	char *build;     /* Build Config URI (the workflow at its ref), or NULL */
	long long signed_at; /* Unix seconds (the log's integratedTime); -1 unless verified */
};

/* verify --target: the GPUs each wheel's GPU code is judged on (the caller's, borrowed). */
#define WP_VERIFY_GPUS_MAX 16
struct wp_verify_gpus {
	int n;
	int sm[WP_VERIFY_GPUS_MAX];  /* compute capabilities x10 */
	int driver_cuda; /* the driver's newest CUDA x10; 0 unknown (PTX assumed JIT-able) */
};

/* One wheel on one GPU: resolver/gpucode.h's verdict, and why when not native. */
struct wp_verify_gpucode {
	char *path;
	int sm;
	int verdict;  /* enum wp_gpu_verdict */
	char *why;    /* NULL when native or no GPU code */
	char *archs;  /* what its GPU code holds ("sm_80 sm_90 compute_90"), "" none */
};

/* Counts and problems add up over calls; start from WP_VERIFY_REPORT_INIT. */
struct wp_verify_report {
	enum wp_verify_kind kind;   /* what the last path was */
	struct wp_verify_problem *problems;
	size_t n_problems, cap_problems;
	size_t n_fatal;
	size_t files;   /* files whose bytes were hashed */
	size_t wheels;  /* wheels checked against RECORD, WHEEL and METADATA */
	size_t pages;   /* index pages and repodata files read */
	size_t links;   /* links, requirement lines and repodata records checked */
	size_t packages; /* conda packages hashed (of files) */
	size_t provenance_verified; /* files whose FILE.provenance verified against the trusted root
				     */
	size_t provenance_unchecked; /* files carrying provenance when no trusted root was given */
	struct wp_verify_prov *provs; /* each distribution that carries provenance, or that a policy
					 names */
	size_t n_provs, cap_provs;
	const struct wp_verify_gpus *gpus;  /* in (NULL: no GPU check): set by the caller */
	struct wp_verify_gpucode *gpucode;  /* out: each wheel with a shared object, on each GPU */
	size_t n_gpucode, cap_gpucode;
};

#define WP_VERIFY_REPORT_INIT { 0 }

struct wp_trust_root;
struct wp_prov_policy;

/* What verify checks beyond the bytes. Borrowed for the call. */
struct wp_verify_opts {
	const struct wp_trust_root *trust; /* check each FILE.provenance against it; NULL: only
					      count */
	const struct wp_prov_policy *policy; /* projects whose files must carry provenance by a
						publisher */
	const char *tmpdir; /* where a bundle is unpacked to be checked ($TMPDIR); NULL: /tmp */
};

void wp_verify_report_release(struct wp_verify_report *rep);

/* "wheel", "wheelhouse", "mirror", ... for messages. */
const char *wp_verify_kind_name(enum wp_verify_kind kind);

#endif
