/* env/detectdata.h: what a detection found, as plain data (struct wp_detect and its parts). Apart
 * from env/detect.h so that env/detect_hw.h, whose reader fills some of it and which detect.c
 * calls, need not include detect.h back. Ownership: as env/detect.h says. */
#ifndef WP_DETECTDATA_H
#define WP_DETECTDATA_H

#include <stdbool.h>
#include <stddef.h>

#define WP_DETECT_MAX_GPUS 64

/* Where the "highest CUDA the driver runs" figure came from, best first. */
enum wp_cuda_source {
	WP_CUDA_SRC_NONE = 0,
	WP_CUDA_SRC_NVML, /* nvmlSystemGetCudaDriverVersion_v2 through dlopen("libnvidia-ml.so.1")
			   */
	WP_CUDA_SRC_LIBCUDA, /* cuDriverGetVersion through dlopen("libcuda.so.1"), once cuInit
				worked */
	WP_CUDA_SRC_NVIDIA_SMI, /* "CUDA Version: X.Y" in the nvidia-smi banner */
	WP_CUDA_SRC_DRIVER_TABLE, /* derived from the driver version with NVIDIA's table */
};

/* What state the NVIDIA driver is in, as far as CUDA programs care. */
enum wp_driver_state {
	WP_DRIVER_NONE = 0, /* no NVIDIA driver, and no NVIDIA GPU seen */
	WP_DRIVER_LOADED, /* the kernel module is loaded (its version file, or a driver that
			     answered) */
	WP_DRIVER_NOT_LOADED, /* NVIDIA's user-space driver is installed (NVML, libcuda or
				 nvidia-smi) but nothing shows its kernel module loaded: no CUDA
				 program runs */
	WP_DRIVER_NONE_YET, /* an NVIDIA GPU on the PCI bus and no NVIDIA driver at all: the machine
			       a driver is still to be installed on */
};

struct wp_detect_gpu {
	char name[128];
	int cc_major, cc_minor;   /* compute capability; -1, -1 when unknown */
};

struct wp_detect_toolkit {
	int major, minor, patch;  /* patch -1 when unknown */
	char *path;               /* toolkit root as seen inside the sysroot; may be "" */
	const char *source; /* static: "nvcc", "CUDA_HOME", "CUDA_PATH", "version.json",
			       "version.txt" */
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
	const char *driver_source; /* static: "proc", "sysfs", "nvidia-smi"; NULL with no driver */
	bool gpu_hardware; /* an NVIDIA device is visible (PCI, /dev/nvidia0, /proc gpus) */
	enum wp_driver_state driver_state;
	char driver_failure[512]; /* WP_DRIVER_NOT_LOADED: what the user-space driver said
				     ("nvmlInit_v2: NVML_ERROR_DRIVER_NOT_LOADED; cuInit:
				     CUDA_ERROR_NO_DEVICE"); "" else */
	int userspace_cuda_major, userspace_cuda_minor; /* WP_DRIVER_NOT_LOADED: the CUDA libcuda
					 says it is for (cuDriverGetVersion works without the
					 module); 0.0 when unknown */
	const char *gpu_source; /* static: "nvml", "nvidia-smi", "libcuda", "pci"; NULL with no GPU
				 */

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

	/* PEP 825 variants (env/detect_hw.c): the same fields --x86-64-level, --rocm and --gfx
	 * fill */
	int x86_64_level; /* 1-4 from /proc/cpuinfo's flags; 0 when not x86-64 or unknown */
	char rocm_version[32]; /* /opt/rocm/.info/version as written ("6.4.1-120"); "" when none */
	int rocm_major, rocm_minor;   /* from it; 0.0 when none */
	char gfx[WP_DETECT_MAX_GPUS][16]; /* AMD GPUs' targets from the kfd topology ("gfx942"),
					     each once */
	int n_gfx;

	char **warnings;              /* lower-case sentences for the user, most important first */
	size_t n_warnings, cap_warnings;
};

#endif
