/* env/detect_nvlib.h: NVIDIA's driver libraries asked through dlopen: NVML (libnvidia-ml.so.1,
 * nvml.dll), the first source detection asks, and libcuda.so.1 (nvcuda.dll). Results go into a
 * caller-owned struct; nothing is allocated that the caller must free, and each library is closed
 * again before returning. */
#ifndef WP_DETECT_NVLIB_H
#define WP_DETECT_NVLIB_H

#include <stdbool.h>

#include "env/detectdata.h"

struct wp_nvlib {
	bool loaded;              /* the library was found and has the entry points asked for */
	int init_rc;              /* nvmlInit_v2 / cuInit(0): 0 when the driver answered */
	char driver[32]; /* NVML's nvmlSystemGetDriverVersion; "" when unknown (always for libcuda)
			  */
	int cuda; /* 12020 for CUDA 12.2; 0 when unknown. libcuda's cuDriverGetVersion answers
		     even when cuInit fails (the kernel module is not loaded): init_rc says */
	int n_gpus;
	struct wp_detect_gpu gpus[WP_DETECT_MAX_GPUS];
};

/* Ask the first of candidates (NULL-terminated: paths, or a bare name for the loader's own search)
 * that loads, NVML (libnvidia-ml.so.1, nvml.dll), for the driver, its CUDA and the GPUs with
 * their compute capabilities. r is overwritten; r->loaded false when none loads. */
void wp_nvlib_nvml(const char *const *candidates, struct wp_nvlib *r);

/* The same from libcuda (libcuda.so.1, nvcuda.dll). */
void wp_nvlib_libcuda(const char *const *candidates, struct wp_nvlib *r);

/* "NVML_ERROR_DRIVER_NOT_LOADED", "CUDA_ERROR_NO_DEVICE": the names of the codes a missing or
 * unreachable driver gives; NULL for others. */
const char *wp_nvml_error_name(int rc);
const char *wp_cu_error_name(int rc);

#endif
