/* env/detect.h: describe this machine (NVIDIA driver, CUDA, GPUs, toolkits, Pythons, libc, OS)
 * and turn the description into a wp_target.
 * Ownership: a struct wp_detect owns every string and array it holds (wp_detect_release frees
 * them); the caller owns the struct itself. Options and targets are only borrowed. */
#ifndef WP_DETECT_H
#define WP_DETECT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "resolver/target.h"

#define WP_DETECT_MAX_GPUS 64

/* Where the "highest CUDA the driver runs" figure came from, best first. */
enum wp_cuda_source {
	WP_CUDA_SRC_NONE = 0,
	WP_CUDA_SRC_LIBCUDA,      /* cuDriverGetVersion through dlopen("libcuda.so.1") */
	WP_CUDA_SRC_NVIDIA_SMI,   /* "CUDA Version: X.Y" in the nvidia-smi banner */
	WP_CUDA_SRC_DRIVER_TABLE, /* derived from the driver version with NVIDIA's table */
};

struct wp_detect_gpu {
	char name[128];
	int cc_major, cc_minor;   /* compute capability; -1, -1 when unknown */
};

struct wp_detect_toolkit;
struct wp_detect_python;
/* A free-threaded CPython (PEP 703: SOABI cpython-313t-..., python3.13t): its wheels are cp313t. */
bool wp_detect_python_free_threaded(const struct wp_detect_python *py);

struct wp_detect_toolkit {
	int major, minor, patch;  /* patch -1 when unknown */
	char *path;               /* toolkit root as seen inside the sysroot; may be "" */
	const char *source;       /* static: "nvcc", "CUDA_HOME", "CUDA_PATH", "version.json", "version.txt" */
};

struct wp_detect_python {
	char *path;               /* the executable found on PATH */
	char impl[32];            /* sys.implementation.name: "cpython", "pypy" */
	int major, minor, micro;
	char soabi[64];           /* "cpython-313t-x86_64-linux-gnu"; "" when the build has none */
	char machine[32];
};

struct wp_detect {
	char driver_version[32];      /* "535.104.05"; "" when no driver was found */
	const char *driver_source;    /* static: "proc", "sysfs", "nvidia-smi"; NULL with no driver */
	bool gpu_hardware;            /* an NVIDIA device is visible (PCI, /dev/nvidia0, /proc gpus) */

	int cuda_major, cuda_minor;   /* highest CUDA the driver runs; 0.0 when unknown */
	enum wp_cuda_source cuda_source;

	struct wp_detect_gpu gpus[WP_DETECT_MAX_GPUS];
	int n_gpus;

	struct wp_detect_toolkit *toolkits;
	size_t n_toolkits, cap_toolkits;

	struct wp_detect_python *pythons;
	size_t n_pythons, cap_pythons;
	int default_python;           /* index into pythons; -1 when none */

	int glibc_major, glibc_minor; /* 0.0 when not glibc */
	int musl_major, musl_minor;   /* 0.0 when not musl */
	char os[32], os_release[128], machine[32]; /* uname: "Linux", "6.1.0-18-amd64", "x86_64" */

	/* PEP 825 variants (env/detect_hw.c): the same fields --x86-64-level, --rocm and --gfx fill */
	int x86_64_level;             /* 1-4 from /proc/cpuinfo's flags; 0 when not x86-64 or unknown */
	char rocm_version[32];        /* /opt/rocm/.info/version as written ("6.4.1-120"); "" when none */
	int rocm_major, rocm_minor;   /* from it; 0.0 when none */
	char gfx[WP_DETECT_MAX_GPUS][16]; /* AMD GPUs' targets from the kfd topology ("gfx942"), each once */
	int n_gfx;

	char **warnings;              /* lower-case sentences for the user, most important first */
	size_t n_warnings, cap_warnings;
};

struct wp_detect_opts {
	const char *sysroot;  /* root for /proc, /sys, /dev, /opt/rocm, /usr/local/cuda*; NULL: $WHEELPICK_SYSROOT,
	                         else "/" */
	const char *path;     /* where programs are looked up; NULL: $PATH */
	bool no_dlopen;       /* never dlopen libcuda (also implied by a sysroot other than "/") */
	int timeout_ms;       /* each program's time limit; 0: 5000. A few run at once, and the
			       * whole run stops starting programs after three limits */
	size_t output_max;    /* bytes kept from each program; 0: 64 KiB */
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
 * asked for, and a note says how). t is overwritten. -WPE_ENV when the OS has no platform tag wheelpick
 * knows (the rest of t is still filled). */
int wp_detect_to_target(const struct wp_detect *d, struct wp_target *t);

/* The same for a profile (detect --json), which describes the machine for picking elsewhere: there,
 * ROCm with an AMD GPU and no NVIDIA driver is a ROCm target, as --rocm X.Y --gfx G would make. */
int wp_detect_profile_target(const struct wp_detect *d, struct wp_target *t);

/* "libcuda", "nvidia-smi", "driver-table", or NULL for WP_CUDA_SRC_NONE. */
const char *wp_cuda_source_name(enum wp_cuda_source s);

#endif
