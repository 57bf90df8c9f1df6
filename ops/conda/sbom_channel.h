/* ops/conda/sbom_channel.h: the SBOM a local conda channel carries. Everything is borrowed for the
 * call. */
#ifndef WP_OPS_CONDA_SBOM_CHANNEL_H
#define WP_OPS_CONDA_SBOM_CHANNEL_H

#include "base/err.h"
#include "ops/conda/picks.h"
#include "resolver/target.h"
#include "ops/core/session.h"

/* dir/sbom.cdx.json (and sbom.spdx.json when s->sbom_spdx) for the channel at dir: every package
 * each subdir's repodata.json lists (SUBDIR/FILE, pkg:conda purls), this run's picks
 * (targets[p.target]) with the targets they serve and what needs them. */
int wp_conda_write_sbom(const struct wp_session *s, const char *dir,
			const struct wp_conda_pick *picks, size_t n,
			const struct wp_target *targets, struct wp_err *err);

#endif
