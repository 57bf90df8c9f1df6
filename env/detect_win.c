/* env/detect_win.c: where detection looks on Windows: System32 and the NVSMI folder, nvidia-smi.exe
 * and NVIDIA's DLLs there (elsewhere these lookups take PATH and the loader's search), and
 * CUDA_PATH against the CUDA folders on PATH. */
#include "env/detect_internal.h"
#include "base/envp.h"
#include "base/mem.h"
#include "base/str.h"
#include "env/detect_nvlib.h"
#include "base/os/os.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A folder of Windows from the environment handed in: %SystemRoot%\System32 (wheelpick.exe is a
 * 64-bit program, so System32 is the 64-bit folder where the driver puts nvidia-smi.exe, nvml.dll
 * and nvcuda.dll; a 32-bit program would see SysWOW64 there and must ask for Sysnative), and
 * %ProgramFiles%\NVIDIA Corporation\NVSMI, where drivers before the DCH ones (2019) put them
 * (%ProgramW6432% first: a 32-bit program's %ProgramFiles% is "Program Files (x86)"). */
void wp_dx_windows_dirs(struct wp_dx_ctx *c)
{
	const char *root = wp_envp_get(c->envp, "SystemRoot");
	if (!root)
		root = wp_envp_get(c->envp, "windir");
	const char *pf = wp_envp_get(c->envp, "ProgramW6432");
	if (!pf)
		pf = wp_envp_get(c->envp, "ProgramFiles");
	c->program_files = wp_xstrdup(pf ? pf : "C:\\Program Files");
	c->system32 = wp_xasprintf("%s\\System32", root ? root : "C:\\Windows");
	c->nvsmi = wp_xasprintf("%s\\NVIDIA Corporation\\NVSMI", c->program_files);
}

/* nvidia-smi: on PATH, else (Windows) in the NVSMI folder, then System32. */
char *wp_dx_find_smi(const struct wp_dx_ctx *c)
{
	char *p = wp_dx_find_program(c, "nvidia-smi");
	for (int i = 0; !p && c->windows && i < 2; i++) {
		p = wp_xasprintf("%s\\nvidia-smi.exe", i ? c->system32 : c->nvsmi);
		if (!wp_dx_is_exec(p)) {
			free(p);
			p = NULL;
		}
	}
	return p;
}

/* Where NVIDIA's library is loaded from (cand[3] filled, NULL-terminated, each freed by the
 * caller): lib_dir's copy when given; else on Linux the loader's search, on Windows the driver's
 * own folders by full path (System32, and for NVML the NVSMI folder), never the DLL search order
 * (the program's folder, the current one, PATH: a planted DLL would be loaded). */
static void nvlib_candidates(const struct wp_dx_ctx *c, bool nvml, char **cand)
{
	const char *name = c->windows ? (nvml ? "nvml.dll" : "nvcuda.dll") :
					(nvml ? "libnvidia-ml.so.1" : "libcuda.so.1");
	size_t n = 0;
	if (c->lib_dir)
		cand[n++] = wp_xasprintf("%s/%s", c->lib_dir, name);
	else if (!c->windows)
		cand[n++] = wp_xstrdup(name);
	else {
		cand[n++] = wp_xasprintf("%s\\%s", c->system32, name);
		if (nvml)
			cand[n++] = wp_xasprintf("%s\\%s", c->nvsmi, name);
	}
	cand[n] = NULL;
}

void wp_dx_nvlib_ask(const struct wp_dx_ctx *c, bool nvml, struct wp_nvlib *r)
{
	char *cand[3];
	nvlib_candidates(c, nvml, cand);
	if (nvml)
		wp_nvlib_nvml((const char *const *)cand, r);
	else
		wp_nvlib_libcuda((const char *const *)cand, r);
	for (size_t i = 0; cand[i]; i++)
		free(cand[i]);
}

/* The first folder on PATH that holds a CUDA toolkit's programs or runtime (nvcc.exe,
 * cudart64_*.dll); NULL when none. */
static char *first_cuda_bin(const struct wp_dx_ctx *c)
{
	struct wp_str rest = WP_STR(c->path_env);
	while (rest.n) {
		struct wp_str e = wp_dx_path_entry(&rest);
		if (!e.n)
			continue;
		char *dir = wp_xstrndup(e.p, e.n);
		char *nvcc = wp_xasprintf("%s/nvcc%s", dir, wp_os_exe_suffix);
		bool cuda = wp_dx_is_exec(nvcc) || wp_dx_dir_has_prefix(dir, "cudart64_");
		free(nvcc);
		if (cuda)
			return dir;
		free(dir);
	}
	return NULL;
}

/* Windows: CUDA_PATH is the toolkit a user installed for building (nvcc, the CUDA DLLs in its
 * bin), not the CUDA the driver runs, and PyTorch's wheels bring their own CUDA runtime: said when
 * the two differ, as LD_LIBRARY_PATH's runtimes are on Linux. Which toolkit's DLLs a program that
 * takes them from PATH gets is the first CUDA bin folder on PATH: warned when that is not
 * CUDA_PATH's. */
void wp_dx_warn_cuda_path(struct wp_dx_ctx *c)
{
	struct wp_detect *d = c->d;
	const char *cp = wp_envp_get(c->envp, "CUDA_PATH");
	if (!cp)
		return;
	int v[3] = { 0, 0, 0 }, w[3] = { 0, 0, 0 };
	bool known = wp_dx_read_toolkit_version(cp, v) != NULL;
	char shown[PATH_MAX];
	snprintf(shown, sizeof(shown), "%s", cp);
	wp_dx_sanitize(shown);
	if (known && d->cuda_major && wp_dx_cuda_cmp(v[0], v[1], d->cuda_major, d->cuda_minor))
		wp_dx_note(c,
			   "CUDA_PATH names the CUDA %d.%d toolkit at '%s': the toolkit installed "
			   "for building (nvcc, its DLLs), not the CUDA the driver runs (%d.%d, "
			   "driver %s); PyTorch's CUDA wheels bring their own CUDA runtime and "
			   "need only the driver",
			   v[0], v[1], shown, d->cuda_major, d->cuda_minor,
			   d->driver_version[0] ? d->driver_version : "?");
	char *first = first_cuda_bin(c);
	char *want = wp_xasprintf("%s\\bin", cp);
	if (first && !wp_dx_same_file(first, want)) {
		char *top = wp_xstrndup(wp_dx_parent_dir(WP_STR(first)).p,
					wp_dx_parent_dir(WP_STR(first)).n);
		char ver[32] = "";
		if (wp_dx_read_toolkit_version(top, w))
			snprintf(ver, sizeof(ver), " (CUDA %d.%d)", w[0], w[1]);
		char fshown[PATH_MAX];
		snprintf(fshown, sizeof(fshown), "%s", first);
		wp_dx_sanitize(fshown);
		char cver[32] = "";
		if (known)
			snprintf(cver, sizeof(cver), " (CUDA %d.%d)", v[0], v[1]);
		wp_dx_warn(c,
			   "PATH puts the CUDA folder '%s'%s before CUDA_PATH's '%s\\bin'%s: "
			   "programs that take nvcc or the CUDA DLLs (cudart64_*.dll, cuDNN) from "
			   "PATH get that one, not CUDA_PATH's",
			   fshown, ver, shown, cver);
		free(top);
	}
	free(first);
	free(want);
}
