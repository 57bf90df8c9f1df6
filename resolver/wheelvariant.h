/* resolver/wheelvariant.h: PEP 825 wheel variants for a described machine, decided natively: the
 * values the nvidia, amd, intel, x86_64 and static (priority) namespaces support on the target,
 * written in C the way their provider plugins compute them (no plugin code runs), whether a label
 * fits, PEP 825's order among labels, and the variant markers' values. Pure: no I/O.
 * A struct wp_variants owns every string in it until wp_variants_release (index/variants.c parses
 * one). A struct wp_vorder borrows its metadata and target, and owns the value lists it
 * computed. */
#ifndef WP_WHEELVARIANT_H
#define WP_WHEELVARIANT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "resolver/ask.h"
#include "resolver/target.h"

/* A variants.json (or a wheel's variant.json) past these is refused (-WPE_TOO_BIG): the real ones
 * are under 5 KiB, with 7 labels and about 100 values; ordering costs grow with labels x values. */
#define WP_VARIANTS_MAX_BYTES (1u << 20)
#define WP_VARIANTS_MAX_LABELS 512
#define WP_VARIANTS_MAX_VALUES 8192 /* property values in the whole file */

/* namespace :: feature :: one or more values (in the order written). */
struct wp_vprop {
	char *ns, *feature;
	char **values;
	size_t n_values;
};

/* One variant label and its properties, grouped by feature; "null" has none. */
struct wp_vlabel {
	char *label;
	struct wp_vprop *props;
	size_t n_props;
};

/* An ordered list of feature names for one namespace (0.0.x default-priorities.feature). */
struct wp_vfeatures {
	char *ns;
	char **features;
	size_t n;
};

struct wp_variants {
	char *schema;               /* the $schema URL as written */
	int schema_major, schema_minor, schema_patch; /* from the URL; 0.0.0 for wheelnext's first,
	                                                 unversioned URL */
	char **namespaces;          /* default-priorities.namespace, most preferred first */
	size_t n_namespaces;
	struct wp_vfeatures *feature_prio;  /* 0.0.x default-priorities.feature */
	size_t n_feature_prio;
	struct wp_vprop *value_prio; /* 0.0.x default-priorities.property: preferred values first */
	size_t n_value_prio;
	struct wp_vprop *static_props; /* 0.0.3 static-properties: what a static namespace supports
					*/
	size_t n_static_props;
	char **static_ns;           /* 0.0.x providers that run no code at install time
	                               ("install-time": false, "plugin-use": "none") */
	size_t n_static_ns;
	struct wp_vlabel *labels;   /* in file order */
	size_t n_labels;
};

void wp_variants_release(struct wp_variants *v);
/* A deep copy (allocated; wp_variants_release it, then free it). */
struct wp_variants *wp_variants_copy(const struct wp_variants *v);

/* The label's entry, or NULL. */
const struct wp_vlabel *wp_variants_find(const struct wp_variants *v, const char *label);
/* True when the namespace runs no code at install time, so its supported values are the file's
 * own. */
bool wp_variants_is_static_ns(const struct wp_variants *v, const char *ns);
/* The ordered values the file itself gives for ns :: feature (static-properties, then
 * default-priorities.property), or NULL. */
const struct wp_vprop *wp_variants_static_values(const struct wp_variants *v, const char *ns,
						 const char *feature);
const struct wp_vprop *wp_variants_value_prio(const struct wp_variants *v, const char *ns,
					      const char *feature);
const struct wp_vfeatures *wp_variants_feature_prio(const struct wp_variants *v, const char *ns);
/* Position of ns in default-priorities.namespace, or -1. */
int wp_variants_ns_rank(const struct wp_variants *v, const char *ns);


/* ---- deciding for a target ---- */

/* The ordered supported values of every (namespace, feature) the metadata's labels use. */
struct wp_vfeature_order {
	char *ns, *feature;
	int ns_rank, feature_rank;  /* positions in the namespace and feature orders */
	bool known;                 /* false: no provider wheelpick knows (why says so) */
	char **values;              /* supported, most preferred first */
	size_t n_values;
	char why[160];              /* when none is supported or unknown: why */
	int ask; /* with why: what the user could ask for instead (enum wp_ask), or -1 */
};

struct wp_vorder {
	const struct wp_variants *v;
	const struct wp_target *t;
	struct wp_vfeature_order *f;
	size_t n;
	const struct wp_asks *asks; /* the words for what a why advises; NULL (as init leaves it):
				       plain ones */
};

void wp_vorder_init(struct wp_vorder *o, const struct wp_variants *v, const struct wp_target *t);
void wp_vorder_release(struct wp_vorder *o);

/* Does the target support every feature of the label (at least one value each, and, beyond the
 * providers, a kernel for every GPU the target names)? When not, why gets one line naming the
 * property ("cuda12.8: nvidia :: sm_arch has none of sm_61's values (61_real, 60_real,
 * 60_virtual)"). why may be NULL. */
bool wp_vorder_supported(const struct wp_vorder *o, const struct wp_vlabel *l, struct wp_buf *why);

/* PEP 825's order between two supported labels: < 0 when a comes first. decider (may be NULL) gets
 * the property that decided ("priority :: order :: 2 before 3"). */
int wp_vorder_cmp(const struct wp_vorder *o, const struct wp_vlabel *a, const struct wp_vlabel *b,
		  struct wp_buf *decider);

/* The label's first property in PEP 825 order, as "ns :: feature :: value" (its best supported
 * value), for a why-line when no other label competes; "" for null. */
void wp_vorder_first_prop(const struct wp_vorder *o, const struct wp_vlabel *l, struct wp_buf *out);

/* True when the metadata uses an accelerator namespace (nvidia, amd, intel): its labels without one
 * are then CPU builds, which a GPU target never takes silently. */
bool wp_variants_has_accel(const struct wp_variants *v);
/* "nvidia", "amd", "intel": the accelerator a label is for, or NULL (null, CPU-only labels). */
const char *wp_vlabel_accel(const struct wp_vlabel *l);

/* The variant markers' sets for a chosen label (PEP 825 "evaluating variant markers"): its
 * properties that the target supports, as "ns :: feature :: value" lines into props, and the
 * features ("ns :: feature") and namespaces derived from them. Each buffer is reset; entries are
 * separated by '\n'. */
void wp_vorder_marker_sets(const struct wp_vorder *o, const struct wp_vlabel *l,
			   struct wp_buf *props, struct wp_buf *features,
			   struct wp_buf *namespaces);

/* ---- a target's own list of compatible properties (PEP 825 providers draft) ---- */

/* Add "ns :: feature :: value" to t's list and mark it given. Names are PEP 825's ([a-z0-9_]+;
 * values [a-z0-9_.]+); -WPE_USAGE for another, -WPE_TOO_BIG past WP_TARGET_VARIANT_PROPS. */
int wp_target_add_variant_prop(struct wp_target *t, const char *ns, const char *feature,
			       const char *value, struct wp_err *err);
/* The list t supports: t's own when given, else what wheelpick's providers (nvidia, amd, intel,
 * x86_64) compute for t, as "ns :: feature :: value" lines, each feature's values most
 * preferred first. A feature whose values would come from a file (no AMD architecture or Intel
 * device named) is left out. out is reset. */
void wp_target_variant_props(const struct wp_target *t, struct wp_buf *out);

#endif
