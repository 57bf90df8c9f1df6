/* ops/core/targets.h: the machines a job is for, from the user's words (--cuda, --python,
 * --platform,
 * --gpu, --rocm, --target profiles), with "auto" and missing words detected on this machine.
 * The words are borrowed; the targets array is the caller's to free. */
#ifndef WP_OPS_CORE_TARGETS_H
#define WP_OPS_CORE_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/vec.h"
#include "ops/core/session.h"
#include "resolver/target.h"

struct wp_target_spec {
	struct wp_strlist cuda, python, platform; /* one target per value of each (their product) */
	struct wp_strlist driver; /* NVIDIA drivers: one target each, beside the --cuda ones */
	struct wp_strlist target_files; /* saved 'detect --json' profiles: the product again */
	struct wp_strlist gpu;                    /* every GPU of every target */
	const char *rocm;                         /* X.Y: ROCm builds */
	const char *cuda_compat; /* "minor" (default) or "strict"; NULL: $WHEELPICK_CUDA_COMPAT */
	bool xpu;                                 /* Intel GPU builds */
	struct wp_strlist gfx;                    /* AMD GPU architectures, as --gpu gfxN */
	struct wp_strlist intel_ip;               /* Intel GPUs (device IPs or names): XPU builds */
	const char *x86_64_level;                 /* v1..v4, or NULL */
	bool conda;                               /* --platform names conda subdirs */
};

/* Every target the spec names (at least one). Notes (no driver found: CPU) are said through s.
 * -WPE_USAGE naming the value at fault; -WPE_ENV when detection is needed and fails. */
int wp_targets_build(const struct wp_session *s, const struct wp_target_spec *spec,
		     struct wp_target **out, size_t *n, struct wp_err *err);

/* One target from single words (NULL: $WHEELPICK_* or detected). cuda is "X.Y", "cpu", "auto",
 * or, for the other accelerator words, "driver=VERSION" and "xpu". */
struct wp_target_words {
	const char *python, *cuda, *rocm, *platform, *target_file, *cuda_compat;
	const struct wp_strlist *gpus;
	const struct wp_strlist *gfx, *intel_ips; /* AMD architectures, Intel GPUs (PEP 825); may be
						     NULL */
	const char *x86_64_level; /* NULL: $WHEELPICK_X86_64_LEVEL, else the profile's or v1 */
	bool conda;
};
int wp_target_from_words(const struct wp_session *s, const struct wp_target_words *w,
			 struct wp_target *t, struct wp_err *err);

#endif
