/* resolver/gpucode.h: whether the GPU code a binary carries runs on a GPU: natively (SASS), by the
 * driver's JIT (PTX), or not at all. Pure; works on the code's text form, which the store keeps.
 *
 * The text form ("GPU code"): units separated by ' ', each a translation unit's codes separated by
 * ',': "sm_80,sm_86,compute_90@7.8 sm_75". A unit is what the CUDA runtime loads as one module, so
 * it is judged on its own and a file (or wheel) is as good as its worst unit: a union of
 * architectures over units would say "native" where every GPU fails. SASS is "sm_XY" (arch-specific
 * "sm_90a", family "sm_100f"); PTX is "compute_XY" with "@M.N", the PTX ISA version the driver must
 * know.
 * "" is no GPU code at all. */
#ifndef WP_GPUCODE_H
#define WP_GPUCODE_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"

enum wp_gpu_verdict {
	WP_GPU_NO_CODE = 0, /* no GPU code: a CPU-only wheel, or one whose libraries carry none */
	WP_GPU_NONE, /* some unit has neither SASS nor PTX for the GPU: the import fails at its
			first kernel */
	WP_GPU_PTX_JIT, /* every unit runs, some only by JIT-compiling PTX (slower first run, maybe
			   slower kernels) */
	WP_GPU_NATIVE, /* every unit has SASS for the GPU */
};

/* "no GPU code", "none", "ptx-jit", "native" */
const char *wp_gpu_verdict_name(enum wp_gpu_verdict v);

/* Whether SASS for arch (x10: 86, 100; variant 0, 'a' or 'f') runs on a GPU of compute capability
 * gpu_sm (x10): the same major and a minor not above the GPU's; 'a' code only on exactly its arch;
 * Tegra parts (3.2, 5.3, 6.2, 7.2, 8.7, 10.1, 11.0) only run SASS built for exactly them. */
bool wp_gpucode_sass_runs(int arch, char variant, int gpu_sm);
/* Whether PTX for compute_arch can be JIT-compiled for gpu_sm: any GPU at or above arch; 'a' PTX
 * only on exactly arch, 'f' PTX on the same major at or above it. The driver is checked apart. */
bool wp_gpucode_ptx_runs(int arch, char variant, int gpu_sm);
/* The oldest CUDA (x10) whose driver JIT-compiles PTX ISA isa (x10: 78 -> 118, 90 -> 130); 0
 * unknown. */
int wp_gpucode_ptx_min_cuda(int isa);

/* The verdict of code (the text form) on gpu_sm. driver_cuda is the newest CUDA (x10) the GPU's
 * driver supports, or 0 when unknown (PTX is then assumed JIT-able). why (unless NULL) gets, for
 * none and ptx-jit, the reason: "no SASS for sm_61 and no PTX at or below it in code built for
 * sm_70, sm_80"; "PTX compute_90 needs a driver for CUDA 11.8 or newer". -WPE_PARSE when code is
 * not the text form. */
int wp_gpucode_verdict(const char *code, int gpu_sm, int driver_cuda, enum wp_gpu_verdict *out,
		       struct wp_buf *why, struct wp_err *err);

/* The union of two texts' units (each once), into out (reset first): a wheel's code from its
 * files'. */
void wp_gpucode_merge(const char *a, const char *b, struct wp_buf *out);

/* The architectures over all units, for a listing: "sm_70 sm_80 compute_90" (sorted, each once). */
void wp_gpucode_archs(const char *code, struct wp_buf *out);

#endif
