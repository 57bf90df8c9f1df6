/* ops/verify/report.c: a verification's report: released, and its kind in words. */
#include "ops/verify/report.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

void wp_verify_report_release(struct wp_verify_report *rep)
{
	for (size_t i = 0; i < rep->n_problems; i++) {
		free(rep->problems[i].path);
		free(rep->problems[i].what);
	}
	free(rep->problems);
	for (size_t i = 0; i < rep->n_provs; i++) {
		free(rep->provs[i].path);
		free(rep->provs[i].signer);
		free(rep->provs[i].issuer);
		free(rep->provs[i].build);
	}
	free(rep->provs);
	for (size_t i = 0; i < rep->n_gpucode; i++) {
		free(rep->gpucode[i].path);
		free(rep->gpucode[i].why);
		free(rep->gpucode[i].archs);
	}
	free(rep->gpucode);
	memset(rep, 0, sizeof(*rep));
}

const char *wp_verify_kind_name(enum wp_verify_kind kind)
{
	static const char *const names[] = {
		[WP_VERIFY_NONE] = "nothing", [WP_VERIFY_WHEEL] = "wheel",
		[WP_VERIFY_CONDA_PKG] = "conda package", [WP_VERIFY_WHEELHOUSE] = "wheelhouse",
		[WP_VERIFY_MIRROR] = "mirror", [WP_VERIFY_CHANNEL] = "conda channel",
		[WP_VERIFY_BUNDLE] = "bundle", [WP_VERIFY_LOCK] = "pylock.toml",
		[WP_VERIFY_ENV] = "installed environment",
	};
	return (unsigned)kind < WP_ARRAY_LEN(names) ? names[kind] : "nothing";
}
