/* resolver/gpu.h: NVIDIA facts the CUDA rule needs: which CUDA versions a compute capability
 * builds with, and which CUDA a driver runs. Static tables; nothing is allocated or owned, and
 * returned strings are static. Compute capabilities are x10 integers, as in wp_target.gpu_sm:
 * 86 for sm_86 / 8.6, 120 for sm_120 / 12.0. */
#ifndef WP_GPU_H
#define WP_GPU_H

#include <stdbool.h>

#include "base/buf.h"
#include "resolver/target.h"

/* "sm_86", "sm86", "compute_86", "8.6", "86", "12.0", "sm_90a" (the arch-specific a/f suffix
 * names the same hardware). 0, or -WPE_PARSE. */
int wp_gpu_sm_parse(const char *text, int *sm);

/* The first CUDA toolkit that can build for sm: 86 -> 11.1, 89 and 90 -> 11.8, 100 and 120
 * -> 12.8. 0, or -WPE_NOMATCH for a capability not in the table. */
int wp_gpu_min_cuda(int sm, int *major, int *minor);

/* The last CUDA toolkit that still builds for sm: 35/37 -> 11.8 (CUDA 12 dropped Kepler);
 * Maxwell, Pascal, Volta (50 ... 72) -> 12.9 (CUDA 13.0 dropped them). 0 when there is such
 * a last version; 1 when every known CUDA since the first still supports sm (*major and
 * *minor are then left alone); -WPE_NOMATCH for an unknown capability. */
int wp_gpu_max_cuda(int sm, int *major, int *minor);

/* Whether a build for CUDA major.minor runs on every GPU of t (too old for a new GPU, or past
 * the last CUDA that builds for an old one). When not, why (unless NULL) gets "LABEL: CUDA 10.2
 * cannot run on sm_86, which needs CUDA 11.1 or newer". The one place the wheel and conda rules ask this. */
bool wp_gpu_cuda_fits(const struct wp_target *t, int major, int minor, const char *label, struct wp_buf *why);

/* The newest CUDA toolkit a Linux x86_64 driver fully supports, from NVIDIA's "CUDA Toolkit
 * and Corresponding Driver Versions" table (GA rows): 460.27.03 -> 11.2, 525.60.13 -> 12.0.
 * Minor-version compatibility (11.x on >= 450.80.02, 12.x on >= 525.60.13) is deliberately
 * not applied: it leaves out PTX JIT, and PyTorch's kernels may need it.
 * 0; -WPE_PARSE for a malformed version; -WPE_NOMATCH for a driver older than CUDA 7.0's. */
int wp_driver_max_cuda(const char *driver_version, int *major, int *minor);

/* The oldest Linux x86_64 driver for CUDA major.minor ("570.26" for 12.8). A minor with no
 * toolkit of its own (12.7) gets the next toolkit's floor in that major (12.8's), which is
 * what a build labelled so would need at most. 0, or -WPE_NOMATCH. */
int wp_cuda_min_driver(int major, int minor, const char **driver);

#endif
