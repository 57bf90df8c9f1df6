/* env/detect_internal.h: what env/detect.c and its parts (detect_util.c, detect_driver.c,
 * detect_toolkit.c, detect_python.c, detect_win.c, detect_target.c) share: one run's state, its
 * plan of the programs to start, and the functions one part calls in another (wp_dx_: detection's
 * internals). Not a public interface: everything here lives for one wp_detect_run. */
#ifndef WP_DETECT_INTERNAL_H
#define WP_DETECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/str.h"
#include "base/vec.h"
#include "env/detect.h"
#include "env/detect_nvlib.h"
#include "env/run.h"

/* version files are a few KiB; anything bigger is not one */
#define WP_DX_SMALL_FILE_MAX (256 << 10)
#define WP_DX_MAX_TOOLKITS 64
#define WP_DX_MAX_JOBS 32
#define WP_DX_N_PY_NAMES 12 /* python3 and its versioned names (env/detect_python.c) */

struct wp_dx_toolkit_probe {
	char *dir;             /* host path of the toolkit root */
	const char *source;
	int major, minor, patch;
	bool have;
	int job;               /* nvcc job that tells the version, or -1 */
};

WP_VEC_OF(wp_dx_strs, char *); /* each string owned */

/* One run of detection: what it was handed and what it found on the way. */
struct wp_dx_ctx {
	struct wp_detect *d;
	bool windows; /* the seam's uname says Windows: its places, names and driver table */
	char *system32; /* Windows: %SystemRoot%\System32, and NVIDIA's NVSMI folder under
			   %ProgramFiles% */
	char *nvsmi, *program_files;
	char *root;            /* sysroot without its trailing '/'; "" for the host */
	bool host;
	const char *path_env;
	const char *const *envp; /* the environment handed in (base/envp.h): CUDA_HOME,
				    LD_LIBRARY_PATH... */
	const char *lib_dir; /* where NVIDIA's libraries are dlopened from; NULL: the loader's
				search */
	bool dlopen_ok;
	struct wp_nvlib nvml, cuda; /* what each library said (loaded false when not asked or not
				       found) */
	bool smi_found, smi_answered; /* nvidia-smi is on PATH; it printed a driver (so the module
					 is loaded) */
	int smi_status;
	char smi_line[256];    /* nvidia-smi's first line when it failed */
	unsigned pci_ids[WP_DETECT_MAX_GPUS]; /* NVIDIA GPUs on the PCI bus: device ids, 0 when
						 unreadable */
	int n_pci;
	int timeout_ms;
	size_t output_max;
	const struct wp_asks *asks;
	struct wp_dx_strs notes; /* lesser warnings, appended after the main ones */
	struct wp_dx_strs tk_keys; /* resolved toolkit roots, to count each toolkit once */
};

/* Everything that needs a program is started at once and shares one deadline. */
struct wp_dx_plan {
	struct wp_run jobs[WP_DX_MAX_JOBS];
	size_t nj;
	int smi_banner, smi_query, ldd, py_launcher;
	int py[WP_DX_N_PY_NAMES]; /* the probe job of each name on PATH, or -1 */
	struct wp_dx_toolkit_probe tp[WP_DX_MAX_TOOLKITS];
	size_t ntp;
};


/* ---- env/detect_util.c ---- */

/* A warning (d->warnings), or a note: a lesser one, added after the warnings. */
__attribute__((format(printf, 2, 3)))
void wp_dx_warn(struct wp_dx_ctx *c, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void wp_dx_note(struct wp_dx_ctx *c, const char *fmt, ...);
void wp_dx_sanitize(char *s);
void wp_dx_copy_clean(char *dst, size_t size, struct wp_str s);
/* abs under the sysroot */
char *wp_dx_root_path(const struct wp_dx_ctx *c, const char *abs);
bool wp_dx_is_dir(const char *path);
bool wp_dx_is_exec(const char *path);
bool wp_dx_same_file(const char *a, const char *b);
bool wp_dx_is_space(char ch);
struct wp_str wp_dx_next_word(struct wp_str *s);
/* s from needle's first occurrence on; an empty view at s's end when there is none */
struct wp_str wp_dx_find(struct wp_str s, const char *needle);
int wp_dx_parse_version(struct wp_str s, int *v, int max);
struct wp_str wp_dx_version_prefix(struct wp_str s);
/* -1, 0 or 1 as CUDA amaj.amin is older than, the same as or newer than bmaj.bmin */
int wp_dx_cuda_cmp(int amaj, int amin, int bmaj, int bmin);
struct wp_str wp_dx_path_entry(struct wp_str *rest);
char *wp_dx_find_program(const struct wp_dx_ctx *c, const char *name);
struct wp_str wp_dx_parent_dir(struct wp_str s);
/* A job running path (owned by the job from here on, freed when there is no room): NULL when
 * jobs already holds WP_DX_MAX_JOBS. */
struct wp_run *wp_dx_job_add(struct wp_run *jobs, size_t *n, char *path, bool merge_stderr);
void wp_dx_run_jobs(struct wp_run *jobs, size_t n, int timeout_ms, size_t max,
		    const char *const *envp);
void wp_dx_job_release(struct wp_run *j);
void wp_dx_job_note(struct wp_dx_ctx *c, const struct wp_run *j);

/* ---- env/detect_driver.c ---- */

void wp_dx_detect_driver_files(struct wp_dx_ctx *c);
void wp_dx_detect_gpu_hardware(struct wp_dx_ctx *c);
void wp_dx_probe_nvml(struct wp_dx_ctx *c);
void wp_dx_probe_libcuda(struct wp_dx_ctx *c);
void wp_dx_decide_driver_state(struct wp_dx_ctx *c);
void wp_dx_derive_cuda_from_driver(struct wp_dx_ctx *c);
/* nvidia-smi's jobs in the plan (smi: its path, or NULL), and their answers */
void wp_dx_plan_smi(struct wp_dx_ctx *c, struct wp_dx_plan *pl, const char *smi);
bool wp_dx_collect_smi(struct wp_dx_ctx *c, const struct wp_dx_plan *pl);
void wp_dx_smi_old_query(struct wp_dx_ctx *c, const char *smi);

/* ---- env/detect_toolkit.c ---- */

const char *wp_dx_read_toolkit_version(const char *dir, int *v);
size_t wp_dx_plan_toolkits(struct wp_dx_ctx *c, struct wp_dx_toolkit_probe *tp, size_t max,
			   struct wp_run *jobs, size_t *nj);
void wp_dx_collect_toolkits(struct wp_dx_ctx *c, struct wp_dx_plan *pl);
void wp_dx_warn_toolkits(struct wp_dx_ctx *c);
/* dir holds a file whose name starts with prefix */
bool wp_dx_dir_has_prefix(const char *dir, const char *prefix);
void wp_dx_warn_ld_library_path(struct wp_dx_ctx *c);

/* ---- env/detect_python.c ---- */

void wp_dx_plan_pythons(struct wp_dx_ctx *c, struct wp_dx_plan *pl);
bool wp_dx_collect_pythons(struct wp_dx_ctx *c, const struct wp_dx_plan *pl);
int wp_dx_launched_pythons(struct wp_dx_ctx *c, const struct wp_dx_plan *pl);
void wp_dx_pick_default_python(struct wp_dx_ctx *c, bool have_python3, int launcher_default);

/* ---- env/detect_win.c ---- */

/* c->system32, c->nvsmi and c->program_files, from the environment handed in */
void wp_dx_windows_dirs(struct wp_dx_ctx *c);
char *wp_dx_find_smi(const struct wp_dx_ctx *c);
/* NVML (nvml true) or libcuda asked, from the places nvlib_candidates names */
void wp_dx_nvlib_ask(const struct wp_dx_ctx *c, bool nvml, struct wp_nvlib *r);
void wp_dx_warn_cuda_path(struct wp_dx_ctx *c);

#endif
