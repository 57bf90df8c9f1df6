/* resolver/pick.h: the picking rule: the version first, then the variant that runs on the target,
 * then the best wheel tag; with a reason for the pick and for every rejected file. Pure: no I/O.
 * Candidates are borrowed for the call. A wp_pick_result owns its strings
 * (wp_pick_result_release). */
#ifndef WP_PICK_H
#define WP_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "resolver/ask.h"
#include "resolver/marker.h"
#include "resolver/specifier.h"
#include "resolver/tags.h"
#include "resolver/target.h"
#include "resolver/variant.h"
#include "resolver/wheelvariant.h"
#include "resolver/candidate.h"

struct wp_pick_memo;

struct wp_pick_request {
	const char *project;             /* normalised */
	const char *spec_text;           /* for messages: "==1.8.0" or "" */
	const struct wp_specset *spec;   /* may be NULL: any version */
	/* The last n_given_up specifiers of spec are "!=V" for versions the solver tried and gave
	 * up, each with why (given_up_why[k], may be NULL): a file one of them rules out is said to
	 * be given up, not outside the request (spec_text names the requirements only). */
	size_t n_given_up;
	const char *const *given_up_why;
	bool pre;                        /* --pre */
	const char *require_variant;     /* the set's variant label that must match, or NULL */
	const char **avoid_variants;     /* labels already found unable to complete the set */
	size_t n_avoid;
	bool reasons; /* fill res->rejects with every other file and why (--explain) */
	/* The candidates are not all the project's files: the others are each older than all of
	 * these, or outside an == pin the request carries. The pick stands when it is made on the
	 * first pass (no pre-release fallback) without reasons; otherwise res->incomplete asks for
	 * the rest. */
	bool partial;
	/* How the user asks for what a message advises ("--cuda cpu"); NULL: plain words. */
	const struct wp_asks *asks;
	/* Each file's parse kept across picks of the same files (the solver keeps one per project,
	 * for all its targets), or NULL: this pick parses each file (resolver/pickmemo.h). */
	struct wp_pick_memo *memo;
};

struct wp_pick_reject {
	size_t index;  /* into the candidates */
	char *why;     /* "cu113: CUDA 11.3 is newer than the target's 11.2" */
};

struct wp_pick_result {
	long chosen;               /* index into the candidates; -1 when nothing fits */
	long needs_metadata; /* >= 0: this candidate could be the pick, but its variant is only in
				its METADATA (an unlabeled torch wheel): read it, set variant and
				variant_from_metadata, and pick again. -1 otherwise. */
	size_t *pending; /* every such candidate that could matter, best first (owned): read
			    them together, as a read costs a round trip */
	size_t n_pending;
	struct wp_variant variant; /* of the chosen file */
	char *reason;              /* why this one (owned) */
	char *message; /* when nothing fits: what exists and why each was rejected (owned) */
	struct wp_pick_reject *rejects; /* with req->reasons: every other candidate and why (owned)
					 */
	size_t n_rejects;
	bool incomplete; /* req->partial and these candidates cannot decide: nothing else is set */
	/* >= 0 (with chosen -1 and message): the file that would be the pick has other bytes than
	 * were first trusted for its name (hash_conflict), and no trusted copy ranks with it. The
	 * pick stops there: another build in its place would be a silent substitution. message says
	 * which file and both hashes, not yet what to do. -1 otherwise. */
	long untrusted;
};

/* Picks for one project. Returns 0 with res->chosen set (or -1 and res->message), or a negative
 * -WPE_* for a malformed request. res is overwritten; release it after either outcome. */
int wp_pick(const struct wp_candidate *cands, size_t n, const struct wp_pick_request *req,
	    const struct wp_target *t, const struct wp_tagset *ts, struct wp_pick_result *res,
	    struct wp_err *err);
void wp_pick_result_release(struct wp_pick_result *res);

/* Human form of the target for messages: "CUDA 11.2, Python 3.8, manylinux_2_17_x86_64". */
void wp_target_describe(const struct wp_target *t, struct wp_buf *out);

/* The variant a candidate is built for, as the picking rule sees it: its local label or variant
 * folder; for an unlabeled torch wheel, what its METADATA said (variant_from_metadata), else
 * PyPI's known build for that release and platform (bundled CUDA up to 1.12, CPU on Windows and
 * macOS). *pending is set when only the METADATA can tell. source (unless NULL) gets where the
 * answer came from: "label", "folder", "metadata", "PyPI default", "variant label" (PEP 825: what
 * the label's properties say when c->variants is set, else what the label's name says). */
void wp_pick_candidate_variant(const struct wp_candidate *c, struct wp_variant *v, bool *pending,
			       const char **source);

/* PEP 825 "evaluating variant markers": env's variant_label and its sets for candidate c on target
 * t (the label's properties from c->variants, those the target supports). A non-variant wheel gets
 * "" and empty sets. */
void wp_pick_variant_marker_env(struct wp_marker_env *env, const struct wp_candidate *c,
				const struct wp_target *t);

/* True for a wheel whose name carries a PEP 825 variant label. */
bool wp_pick_candidate_is_variant_wheel(const struct wp_candidate *c);

/* True for the projects whose builds come in variants that must match across a set. */
bool wp_pick_is_torch_family(const char *project);

#endif
