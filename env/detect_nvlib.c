/* env/detect_nvlib.c: NVML and libcuda (nvml.dll, nvcuda.dll) asked through the seam's dynamic
 * loading, for detection (env/detect.c). */
#include "env/detect_nvlib.h"
#include "base/mem.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first of the candidates that loads. */
static void *open_lib(const char *const *candidates)
{
	void *h = NULL;
	for (size_t i = 0; !h && candidates && candidates[i]; i++)
		h = wp_os_dlopen(candidates[i], NULL, 0);
	return h;
}

static void add(struct wp_nvlib *r, const char *name, int maj, int min)
{
	if (r->n_gpus >= WP_DETECT_MAX_GPUS)
		return;
	struct wp_detect_gpu *g = &r->gpus[r->n_gpus++];
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->cc_major = maj;
	g->cc_minor = maj >= 0 ? min : -1;
}

/* nvml.h: nvmlReturn_t is an int, nvmlDevice_t a pointer; the _v2 entry points exist since driver
 * 325 */
typedef int nvml_fn_void(void);
typedef int nvml_fn_str(char *, unsigned);
typedef int nvml_fn_int(int *);
typedef int nvml_fn_uint(unsigned *);
typedef int nvml_fn_handle(unsigned, void **);
typedef int nvml_fn_name(void *, char *, unsigned);
typedef int nvml_fn_cc(void *, int *, int *);

void wp_nvlib_nvml(const char *const *candidates, struct wp_nvlib *r)
{
	memset(r, 0, sizeof(*r));
	void *h = open_lib(candidates);
	if (!h)
		return;
	nvml_fn_void *init = (nvml_fn_void *)wp_os_dlsym(h, "nvmlInit_v2");
	nvml_fn_void *shutdown = (nvml_fn_void *)wp_os_dlsym(h, "nvmlShutdown");
	nvml_fn_str *driver = (nvml_fn_str *)wp_os_dlsym(h, "nvmlSystemGetDriverVersion");
	nvml_fn_int *cuda = (nvml_fn_int *)wp_os_dlsym(h, "nvmlSystemGetCudaDriverVersion_v2");
	nvml_fn_uint *count = (nvml_fn_uint *)wp_os_dlsym(h, "nvmlDeviceGetCount_v2");
	nvml_fn_handle *handle = (nvml_fn_handle *)wp_os_dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	nvml_fn_name *name = (nvml_fn_name *)wp_os_dlsym(h, "nvmlDeviceGetName");
	nvml_fn_cc *cc = (nvml_fn_cc *)wp_os_dlsym(h, "nvmlDeviceGetCudaComputeCapability");
	if (!init)
		goto out;
	r->loaded = true;
	r->init_rc = init();
	if (r->init_rc != 0)
		goto out;
	char buf[96] = "";
	if (driver && driver(buf, sizeof(buf) - 1) == 0) {
		buf[sizeof(buf) - 1] = 0;
		snprintf(r->driver, sizeof(r->driver), "%s", buf);
	}
	int v = 0;
	if (cuda && cuda(&v) == 0 && v >= 1000)
		r->cuda = v;
	unsigned n = 0;
	if (count && handle && name && count(&n) == 0)
		for (unsigned i = 0; i < n && i < WP_DETECT_MAX_GPUS; i++) {
			void *dev = NULL;
			int maj = -1, min = -1;
			char nm[128] = "";
			if (handle(i, &dev) != 0)
				continue;
			if (name(dev, nm, sizeof(nm) - 1) != 0)
				nm[0] = 0;
			nm[sizeof(nm) - 1] = 0;
			if (!cc || cc(dev, &maj, &min) != 0 || maj < 0 || min < 0)
				maj = min = -1;
			add(r, nm, maj, min);
		}
	if (shutdown)
		shutdown();
out:
	wp_os_dlclose(h);
}

void wp_nvlib_libcuda(const char *const *candidates, struct wp_nvlib *r)
{
	memset(r, 0, sizeof(*r));
	void *h = open_lib(candidates);
	if (!h)
		return;
	int (*cu_init)(unsigned int) = (int (*)(unsigned int))wp_os_dlsym(h, "cuInit");
	int (*cu_version)(int *) = (int (*)(int *))wp_os_dlsym(h, "cuDriverGetVersion");
	int (*cu_count)(int *) = (int (*)(int *))wp_os_dlsym(h, "cuDeviceGetCount");
	int (*cu_get)(int *, int) = (int (*)(int *, int))wp_os_dlsym(h, "cuDeviceGet");
	int (*cu_attr)(int *, int,
		       int) = (int (*)(int *, int, int))wp_os_dlsym(h, "cuDeviceGetAttribute");
	int (*cu_name)(char *, int,
		       int) = (int (*)(char *, int, int))wp_os_dlsym(h, "cuDeviceGetName");
	int v = 0, n = 0;
	if (!cu_init)
		goto out;
	r->loaded = true;
	if (cu_version && cu_version(&v) == 0 && v >= 1000)
		r->cuda = v;
	r->init_rc = cu_init(0);
	if (r->init_rc != 0 || !cu_count || !cu_get || !cu_attr || !cu_name || cu_count(&n) != 0)
		goto out;
	for (int i = 0; i < n && i < WP_DETECT_MAX_GPUS; i++) {
		int dev = 0, maj = -1, min = -1;
		char name[128] = "";
		if (cu_get(&dev, i) != 0)
			continue;
		if (cu_attr(&maj, 75, dev) != 0 ||
		    cu_attr(&min, 76, dev) != 0) /* COMPUTE_CAPABILITY_MAJOR/MINOR
						  */
			maj = min = -1;
		if (cu_name(name, sizeof(name) - 1, dev) != 0)
			name[0] = 0;
		name[sizeof(name) - 1] = 0;
		add(r, name, maj, min);
	}
out:
	wp_os_dlclose(h);
}

const char *wp_nvml_error_name(int rc)
{
	switch (rc) {
	case 1:   return "NVML_ERROR_UNINITIALIZED";
	case 4:   return "NVML_ERROR_NO_PERMISSION";
	case 9:   return "NVML_ERROR_DRIVER_NOT_LOADED";
	case 12:  return "NVML_ERROR_LIBRARY_NOT_FOUND";
	case 17:  return "NVML_ERROR_OPERATING_SYSTEM";
	case 18:  return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
	case 999: return "NVML_ERROR_UNKNOWN";
	default:  return NULL;
	}
}

const char *wp_cu_error_name(int rc)
{
	switch (rc) {
	case 3:   return "CUDA_ERROR_NOT_INITIALIZED";
	case 34:  return "CUDA_ERROR_STUB_LIBRARY";
	case 46:  return "CUDA_ERROR_DEVICES_UNAVAILABLE";
	case 100: return "CUDA_ERROR_NO_DEVICE";
	case 101: return "CUDA_ERROR_INVALID_DEVICE";
	case 304: return "CUDA_ERROR_OPERATING_SYSTEM";
	case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
	case 804: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
	case 999: return "CUDA_ERROR_UNKNOWN";
	default:  return NULL;
	}
}
