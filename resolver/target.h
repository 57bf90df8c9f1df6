/* resolver/target.h: the machine a pick is for, whether given by flags, a profile or detection.
 * Plain data: fixed-size fields, no ownership, copyable by assignment. */
#ifndef WP_TARGET_H
#define WP_TARGET_H

#include <stdbool.h>

#include "resolver/gpu.h"

enum wp_accel {
	WP_ACCEL_CUDA = 0, /* NVIDIA: a driver, whose newest CUDA is cuda_major.cuda_minor */
	WP_ACCEL_CPU, /* asked for CPU builds (--cuda cpu, or no driver found with --cuda auto) */
	WP_ACCEL_ROCM, /* asked for ROCm builds (--rocm X.Y) */
	WP_ACCEL_XPU, /* asked for Intel GPU builds (--xpu) */
};

/* "cuda", "cpu", "rocm" or "xpu": the accelerator as JSON and pylock.toml name it. */
const char *wp_accel_word(enum wp_accel a);

#define WP_TARGET_VARIANT_PROPS 8192 /* a profile's variant_properties, all lines */
#define WP_TARGET_MAX_GPUS 16
struct wp_target {
	/* Python: cp38 is impl "cp", py_major 3, py_minor 8. abi is "" for the default (cp38,
	 * or cp37m for 3.7 and older). */
	char impl[8];
	int py_major, py_minor, py_micro; /* py_micro -1 when unknown */
	char abi[16];

	/* Platform: the most specific tag (manylinux_2_28_x86_64, macosx_11_0_arm64, win_amd64,
	 * musllinux_1_2_aarch64, linux_x86_64). platform_exact: accept only that tag (a bare
	 * linux_* given by the user, pip's --platform habit). */
	char platform[64];
	bool platform_exact;
	char conda_subdir[32];  /* linux-64, osx-arm64 ... ("" = derived from platform) */

	enum wp_accel accel;
	int cuda_major, cuda_minor; /* valid when accel == WP_ACCEL_CUDA: the driver's newest CUDA
				     */
	struct wp_driver driver; /* the driver itself (--driver, detection); set from
				    cuda_major.minor (the oldest driver of that CUDA) by
				    wp_target_finish otherwise */
	bool driver_given;            /* the driver is the machine's, not derived from --cuda */
	bool driver_none_yet; /* the machine has GPUs but no driver yet (detection's PCI rung):
				 cuda_major.minor is the newest CUDA known, and the pick says which
				 driver its builds need */
	bool cuda_strict;             /* --cuda-compat strict: no minor-version compatibility */
	bool accel_foreign; /* CPU because --platform names another machine whose GPU no word gave
			       (this machine's is not taken); the plan says so */
	int rocm_major, rocm_minor;   /* valid when accel == WP_ACCEL_ROCM */
	int n_gpus;
	int gpu_sm[WP_TARGET_MAX_GPUS]; /* NVIDIA compute capability x10: 86 for sm_86; empty when
					   unknown */
	int n_gfx;
	char gfx[WP_TARGET_MAX_GPUS][16]; /* AMD GPU architectures for ROCm builds: "gfx942" */
	int n_intel_ips;
	char intel_ip[WP_TARGET_MAX_GPUS][16]; /* Intel GPUs for XPU builds, as device IPs
						  ("20.1.0") or names intel-variant-provider knows
						  ("bmg-g21") */
	int x86_64_level; /* x86-64 microarchitecture level 1-4 (PEP 825 x86_64 :: level); 0
			     unknown, which counts as the baseline v1 */

	/* glibc for the manylinux ladder (0 when not Linux/glibc); musl likewise. */
	int glibc_major, glibc_minor;
	int musl_major, musl_minor;

	/* PEP 825: a user-supplied list of compatible variant properties (the providers draft's
	 * shape, a profile's "variant_properties"): "ns :: feature :: value" a line, each feature's
	 * values most preferred first. When variant_given, support comes from this list alone (no
	 * provider rule runs; a namespace it leaves out supports nothing but the file's static
	 * ones), so a machine described elsewhere picks variants here. resolver/wheelvariant.h
	 * fills it. */
	bool variant_given;
	char variant_props[WP_TARGET_VARIANT_PROPS];
};

/* Whether a build for CUDA major.minor can have kernels for every GPU of t (too old a toolkit for a
 * new GPU, or past the last CUDA that builds for an old one). When not, why (unless NULL) gets
 * "LABEL: CUDA 10.2 cannot run on sm_86, which needs CUDA 11.1 or newer". A coarse check from the
 * toolkit alone; wp_arch_list_serves answers from what a build actually contains. */
bool wp_gpu_cuda_fits(const struct wp_target *t, int major, int minor, const char *label,
		      struct wp_buf *why);

/* The target's driver (given, or the oldest for its CUDA) runs a CUDA major.minor build: the rule
 * above, with t's platform and --cuda-compat. The one place the wheel and conda rules ask this. */
bool wp_target_runs_cuda(const struct wp_target *t, int major, int minor, enum wp_runs_how *how,
			 struct wp_buf *why);

/* Setting a target from the user's words (flags, profiles, test cases). Each returns 0 or
 * -WPE_USAGE with a message naming the value and the accepted forms. */
struct wp_err;
/* Defaults: CPython 3.12, manylinux_2_28_x86_64, CUDA accelerator unset (CPU). */
void wp_target_init(struct wp_target *t);
/* "3.8", "3.10.4", "38", "cp38"; "3.13t" is the free-threaded build (abi cp313t) */
int wp_target_set_python(struct wp_target *t, const char *s, struct wp_err *err);
/* "11.2", "12", "cu111" -> CUDA (a driver whose newest CUDA that is); "cpu" / "none" -> CPU */
int wp_target_set_cuda(struct wp_target *t, const char *s, struct wp_err *err);
/* "535.104.05": the NVIDIA driver itself (a CUDA target) */
int wp_target_set_driver(struct wp_target *t, const char *s, struct wp_err *err);
/* "minor" (NVIDIA's minor-version compatibility, the default) or "strict" */
int wp_target_set_cuda_compat(struct wp_target *t, const char *s, struct wp_err *err);
/* Intel GPUs: XPU builds */
void wp_target_set_xpu(struct wp_target *t);
/* "5.7", "rocm5.7" */
int wp_target_set_rocm(struct wp_target *t, const char *s, struct wp_err *err);
/* a platform tag: manylinux_2_28_x86_64, manylinux2014_aarch64, musllinux_1_2_x86_64,
 * macosx_11_0_arm64, win_amd64, linux_x86_64 (exactly that tag); or a conda subdir. */
int wp_target_set_platform(struct wp_target *t, const char *s, struct wp_err *err);
/* A GPU: "sm_86", "8.6", "86", a name ("RTX 3090", "A100"), or an AMD "gfx942" (added to the
 * list; every GPU must be served). An unknown one is -WPE_USAGE naming the nearest known. */
int wp_target_add_gpu(struct wp_target *t, const char *s, struct wp_err *err);
/* "v3", "3", "x86-64-v3": the x86-64 level of the machine */
int wp_target_set_x86_64_level(struct wp_target *t, const char *s, struct wp_err *err);
/* An Intel GPU: a device IP ("20.1.0") or a name ("bmg-g21", "dg2", "pvc"); makes it an XPU
 * target. */
int wp_target_add_intel_ip(struct wp_target *t, const char *s, struct wp_err *err);
/* After the words: the driver from the CUDA version or the CUDA version from the driver (Windows
 * drivers number differently), and what the words say together. -WPE_USAGE for a --cuda that
 * the --driver cannot run. */
int wp_target_finish(struct wp_target *t, struct wp_err *err);
/* "t" for a free-threaded Python (abi cp313t), else "": messages write "Python 3.13t" as given. */
const char *wp_target_py_suffix(const struct wp_target *t);
/* True for a Windows platform (drivers and compatibility floors differ there). */
bool wp_target_is_windows(const struct wp_target *t);

#endif
