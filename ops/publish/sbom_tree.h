/* ops/publish/sbom_tree.h: the SBOM a mirror carries beside its manifest. Everything is borrowed
 * for the call. */
#ifndef WP_OPS_PUBLISH_SBOM_TREE_H
#define WP_OPS_PUBLISH_SBOM_TREE_H

#include "base/err.h"
#include "ops/core/session.h"
#include "ops/wheel/sbom.h"
#include "resolver/solve.h"

/* dir/sbom.cdx.json (and sbom.spdx.json when s->sbom_spdx) for the mirror at dir, written after its
 * manifest: every file the manifest lists, under its path in the tree (files/PROJECT/FILE); this
 * run's (plan's) files with their targets and dependencies, earlier runs' with what the tree's
 * earlier SBOM said of them. */
int wp_publish_mirror_sbom(const struct wp_session *s, const struct wp_plan *plan, const char *dir,
			   struct wp_err *err);

#endif
