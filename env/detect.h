/* env/detect.h: describe this machine (NVIDIA driver, CUDA, GPUs, toolkits, Pythons, libc, OS)
 * and turn the description into a wp_target.
 * Ownership: a struct wp_detect owns every string and array it holds (wp_detect_release frees
 * them); the caller owns the struct itself. Options and targets are only borrowed. */
#ifndef WP_DETECT_H
#define WP_DETECT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "env/detectdata.h"
#include "resolver/ask.h"
#include "resolver/target.h"

/* A free-threaded CPython (PEP 703: SOABI cpython-313t-..., python3.13t): its wheels are cp313t. */
bool wp_detect_python_free_threaded(const struct wp_detect_python *py);

struct wp_detect_opts {
	const char *sysroot; /* root for /proc, /sys, /dev, /opt/rocm, /usr/local/cuda*; NULL:
				envp's WHEELPICK_SYSROOT, else "/" */
	const char *path;     /* where programs are looked up; NULL: envp's PATH */
	bool no_dlopen; /* never dlopen NVML or libcuda (also implied by a sysroot other than "/",
			   unless lib_dir is given) */
	const char *lib_dir; /* the folder libnvidia-ml.so.1 and libcuda.so.1 are loaded from, also
				under a sysroot (a test's fake libraries, or a driver outside the
				loader's path); NULL: the loader's own search, on the host only */
	int timeout_ms;       /* each program's time limit; 0: 5000. A few run at once, and the
			       * whole run stops starting programs after three limits */
	size_t output_max;    /* bytes kept from each program; 0: 64 KiB */
	const struct wp_asks *asks; /* how the user asks for what a warning advises ("--cuda X.Y");
				       NULL: plain words */
	const char *const *envp; /* the process environment as a value (base/envp.h), handed by
				    cli/: PATH, CUDA_HOME, CUDA_PATH, LD_LIBRARY_PATH,
				    WHEELPICK_SYSROOT; NULL: none of them set */
};

/* Fill d (which need not be initialised) from the machine. Missing pieces are not errors:
 * they stay empty, and the ones a user should know about become warnings. -WPE_ENV only when
 * the sysroot is not a directory; d is then empty and still needs wp_detect_release. */
int wp_detect_run(struct wp_detect *d, const struct wp_detect_opts *opts, struct wp_err *err);

void wp_detect_release(struct wp_detect *d);

/* The target this machine is: CUDA at the driver's figure (CPU when no driver was found; run
 * added a warning saying so), the default Python, the most specific platform tag, the GPUs'
 * compute capabilities, the x86-64 level and the AMD GPUs' gfx targets (with rocm_major/minor
 * when ROCm and an AMD GPU are here; the accelerator stays CPU: ROCm builds are taken only when
 * asked for, and a note says how). t is overwritten. -WPE_ENV when the OS has no platform tag
 * wheelpick knows (the rest of t is still filled). */
int wp_detect_to_target(const struct wp_detect *d, struct wp_target *t);

/* The same for a profile (detect --json), which describes the machine for picking elsewhere: there,
 * ROCm with an AMD GPU and no NVIDIA driver is a ROCm target, as --rocm X.Y --gfx G would make. */
int wp_detect_profile_target(const struct wp_detect *d, struct wp_target *t);

/* "loaded", "not loaded", "none yet" or "none" (enum wp_driver_state). */
const char *wp_driver_state_name(enum wp_driver_state s);

/* "nvml", "libcuda", "nvidia-smi", "driver-table", or NULL for WP_CUDA_SRC_NONE. */
const char *wp_cuda_source_name(enum wp_cuda_source s);

#endif
