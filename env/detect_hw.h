/* env/detect_hw.h: what detection reads from files beyond NVIDIA's: the x86-64 microarchitecture
 * level from /proc/cpuinfo's flags, the ROCm version from /opt/rocm/.info/version and the AMD GPUs'
 * gfx targets from the kfd topology (/sys/class/kfd/kfd/topology/nodes/N/properties). The parsers
 * are pure (text in, values out); wp_detect_hw reads under a sysroot. Nothing is allocated that the
 * caller must free: results go into caller-owned fixed fields. */
#ifndef WP_DETECT_HW_H
#define WP_DETECT_HW_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "env/detectdata.h"

/* The x86-64 level (1-4) that a cpuinfo "flags" list (space-separated, as /proc/cpuinfo gives it)
 * meets, the way the x86_64 variant provider and glibc's ld.so count them: v2 needs cx16 lahf_lm
 * popcnt sse4_1 sse4_2 ssse3; v3 adds avx avx2 bmi1 bmi2 f16c fma lzcnt (cpuinfo says abm, or
 * nothing in some VMs: AVX2 with BMI1 implies it) movbe
 * xsave; v4 adds avx512f avx512bw avx512cd avx512dq avx512vl. 0 when the list has none of
 * x86-64's baseline (lm), i.e. it is not an x86-64 CPU. */
int wp_x86_64_level_from_flags(const char *flags, size_t len);

/* The lowest level over every processor of a /proc/cpuinfo text (a kernel may list CPUs of two
 * kinds); 0 when no "flags" line says x86-64. */
int wp_x86_64_level_from_cpuinfo(const char *text, size_t len);

/* "6.4.1-120" or "7.0.0" (the first line of /opt/rocm/.info/version): major and minor. false when
 * the text does not start with N.N. */
bool wp_rocm_version_parse(const char *text, size_t len, int *major, int *minor);

/* A kfd node's properties text: its "gfx_target_version" (major*10000 + minor*100 + stepping, as
 * 90402 for gfx942, 90010 for gfx90a, 110000 for gfx1100) as a gfx name into out. false for a CPU
 * node (0, or none) and for values no gfx name can spell. */
bool wp_gfx_from_kfd_properties(const char *text, size_t len, char out[16]);

/* Fill d's x86_64_level, rocm_* and gfx fields from the files under root ("" for the host).
 * Missing files leave them empty; what a user should know becomes a warning through warn (ctx is
 * passed back). */
void wp_detect_hw(struct wp_detect *d, const char *root, void (*warn)(void *ctx, const char *msg),
		  void *ctx);

/* Up to max bytes of a file into out (reset first); -1 when it cannot be opened. A longer file is
 * cut: every file detection reads is parsed from its start. O_NONBLOCK: a FIFO never blocks. */
int wp_env_read_small(const char *path, size_t max, struct wp_buf *out);

#endif
