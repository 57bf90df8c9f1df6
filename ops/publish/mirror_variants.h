/* ops/publish/mirror_variants.h: the PEP 825 {name}-{version}-variants.json files a mirror carries:
 * one for each release of which the plan picked a variant wheel, as the catalog kept it when pick
 * read it. Ownership: a wp_mirror_vjson owns its files and every string in them
 * (wp_mirror_vjson_free). */
#ifndef WP_OPS_PUBLISH_MIRROR_VARIANTS_H
#define WP_OPS_PUBLISH_MIRROR_VARIANTS_H

#include <stddef.h>

#include "base/err.h"
#include "ops/publish/mirror.h"
#include "ops/wheel/pick.h"

struct wp_mirror_vjson {
	struct wp_mirror_file *files;  /* body and sha256 set; store_path NULL */
	size_t n;
};

/* Fill out (overwritten) from run's plan and catalog (only read). -WPE_SOURCE, naming the release,
 * when the catalog keeps no bytes of a variants.json that such a release's index lists: a mirror
 * without it would list variant wheels no installer can choose among (PEP 825). */
int wp_mirror_vjson_collect(const struct wp_pick_run *run, struct wp_mirror_vjson *out,
			    struct wp_err *err);
void wp_mirror_vjson_free(struct wp_mirror_vjson *v);

#endif
