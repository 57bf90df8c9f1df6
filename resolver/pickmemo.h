/* resolver/pickmemo.h: the per-file parse a pick makes (the version, the build variant), kept
 * across the picks of one project's files. The solver picks them once per target, and a 16-target
 * mirror spent a third of what its fifteen extra targets added in parsing the same files again
 * (BENCHMARKS.md, case 7). Entry i is for the file at index i of the array picked from; it is
 * checked against that file before it is used (the version text, the file name, the label, whether
 * the label came from metadata, the variant metadata), so an array that changed (files appended, a
 * label learned from metadata, another array) costs a parse, never a wrong answer.
 * Ownership: the memo owns its entries (wp_pick_memo_release); what wp_pick_memo_get gives is the
 * memo's, valid until the next get for the same index or the release. */
#ifndef WP_PICKMEMO_H
#define WP_PICKMEMO_H

#include <stdbool.h>
#include <stddef.h>

#include "resolver/candidate.h"
#include "resolver/variant.h"
#include "resolver/version.h"

struct wp_pick_memo_entry;

struct wp_pick_memo {
	struct wp_pick_memo_entry *e;
	size_t n;
};

struct wp_pick_parsed {
	bool v_ok;                   /* the version is PEP 440 */
	const struct wp_version *v;  /* it, parsed, when v_ok (the memo's) */
	struct wp_variant var;       /* as wp_pick_candidate_variant says */
	bool var_pending;
	const char *var_src;
};

/* How a file's variant is told (resolver/pick.c wp_pick_candidate_variant): handed in, so that
 * the memo does not include the rule that uses it. */
typedef void wp_pick_variant_fn(const struct wp_candidate *c, struct wp_variant *v, bool *pending,
				const char **source);

/* The parse of k, the file at index i of the array picked from: the memo's when it holds one for
 * this very file, else made now (its variant by variant_of) and kept. */
void wp_pick_memo_get(struct wp_pick_memo *m, size_t i, const struct wp_candidate *k,
		      wp_pick_variant_fn *variant_of, struct wp_pick_parsed *out);

void wp_pick_memo_release(struct wp_pick_memo *m);

#endif
