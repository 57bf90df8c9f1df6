/* resolver/gpu.h: NVIDIA facts the CUDA rule needs: GPUs and their compute capabilities, which CUDA
 * versions build for a capability, which CUDA a driver runs, and whether a build's kernels serve a
 * GPU. The tables are compiled in from resolver/data/ (see PROVENANCE.md there). Nothing here
 * allocates or owns memory except what callers pass in (a wp_buf they own); returned strings are
 * static; the structs are plain data, copyable by assignment. Compute capabilities and CUDA
 * versions are x10 integers where one int is used: 86 for sm_86 / 8.6, 120 for sm_120 / 12.0. */
#ifndef WP_GPU_H
#define WP_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define WP_DRIVER_PARTS 4

/* An NVIDIA driver version: "535.104.05" is {535, 104, 5, 0}, nparts 3; text as given. */
struct wp_driver {
	long part[WP_DRIVER_PARTS];
	int nparts;        /* 0: not known */
	char text[32];
};

/* ---- GPUs ---- */

/* "sm_86", "sm86", "compute_86", "8.6", "86", "12.0", "sm_90a" (the arch-specific a/f suffix
 * names the same hardware). Syntax only: any capability is accepted. 0, or -WPE_PARSE. */
int wp_gpu_sm_parse(const char *text, int *sm);

/* What --gpu takes: an architecture ("sm_86", "8.6", "86", "sm_90a") that wheelpick knows, or a GPU
 * name ("RTX 3090", "rtx3090", "NVIDIA GeForce RTX 3090", "A100-SXM4-80GB", "H100 80GB HBM3",
 * "Jetson AGX Orin"): case, spaces, dashes and the words NVIDIA/GeForce/Tesla do not matter, and
 * trailing form-factor words (Ti, SUPER, SXM4, PCIe, 80GB, Laptop GPU ...) are accepted. 0 with *sm
 * set, or -WPE_USAGE naming the nearest known ones: "unknown GPU architecture 'sm_99'; known near
 * it: sm_90, sm_100, sm_101, sm_103", "unknown GPU 'RTX 3090x'; known names near it: GeForce RTX
 * 3090, ...". */
int wp_gpu_parse(const char *text, int *sm, struct wp_err *err);

/* Intel device IPs: a name ("bmg-g21", "dg2", "pvc", "lnl-m") or an IP ("20.1.0") into its IP, and
 * the IP of its base platform (whose code it runs), "" when none. false for an unknown name. */
bool wp_intel_device_ip(const char *name_or_ip, char ip[16], char compat[16]);

/* The architecture family ("Ampere", "Blackwell"), or NULL for a capability not in the table. */
const char *wp_gpu_family(int sm);

/* The first CUDA toolkit that can build for sm: 86 -> 11.1, 89 and 90 -> 11.8, 100 and 120
 * -> 12.8. 0, or -WPE_NOMATCH for a capability not in the table. */
int wp_gpu_min_cuda(int sm, int *major, int *minor);

/* An NVIDIA PCI device id (vendor 0x10de; 0x2b85) as its product name ("NVIDIA GeForce RTX 5090")
 * with *sm set (120), from NVIDIA's list of the GPUs its open kernel modules run (Turing and
 * later); NULL for an id not in it (older GPUs among them). */
const char *wp_gpu_from_pci_id(unsigned device_id, int *sm);

/* The last CUDA toolkit that still builds for sm: 35/37 -> 11.8 (CUDA 12 dropped Kepler);
 * Maxwell, Pascal, Volta (50 ... 72) -> 12.9 (CUDA 13.0 dropped them). 0 when there is such
 * a last version; 1 when every known CUDA since the first still supports sm (*major and
 * *minor are then left alone); -WPE_NOMATCH for an unknown capability. */
int wp_gpu_max_cuda(int sm, int *major, int *minor);

/* ---- what a build contains ---- */

enum wp_arch_kind {
	WP_ARCH_REAL = 0, /* SASS ("8.0", "80_real", sm_80): runs on sm_8x with x >= 0 */
	WP_ARCH_PTX,      /* PTX ("8.0+PTX", "80_virtual", compute_80): JIT-compiled for sm >= 80 */
	WP_ARCH_SPECIFIC, /* arch-specific SASS ("9.0a", "90a_real", sm_90a): runs on sm_90 only */
};

struct wp_arch {
	int sm;
	enum wp_arch_kind kind;
};

#define WP_ARCH_LIST_MAX 32

/* An arch list with, when it came from wp_torch_arch_list (resolver/torchbuilds.h), where it came
 * from. */
struct wp_arch_list {
	size_t n;
	struct wp_arch archs[WP_ARCH_LIST_MAX];
	int cuda_major, cuda_minor; /* the build's CUDA (0.0 when unknown); messages name it */
	char release[16]; /* the release asked about ("2.7"), "" when not from the table */
	char borrowed_from[16]; /* "" when the table has that release; else the release whose list
				   it is */
	char platform[16];          /* the platform family whose list it is */
	bool other_platform; /* the asked-for family has no list for that CUDA: another family's */
};

/* Parse an arch list into out (reset first; the provenance fields are cleared). Entries separated
 * by
 * ';', ',' or spaces, in PyTorch's TORCH_CUDA_ARCH_LIST notation ("7.5;8.0;8.6;9.0a;12.0+PTX",
 * where X+PTX is both SASS and PTX for X) or PEP 825 nvidia sm_arch values ("80_real",
 * "120_virtual", "90a_real"), or nvcc names (sm_80, compute_80, sm_90a). Duplicates are dropped. 0,
 * or -WPE_PARSE naming the entry, or -WPE_TOO_BIG past WP_ARCH_LIST_MAX entries. */
int wp_arch_list_parse(const char *text, struct wp_arch_list *out, struct wp_err *err);

/* Append "7.0, 7.5, 8.0, 9.0a, 12.0+PTX" (sorted; X+PTX when X has PTX) to out. */
void wp_arch_list_format(const struct wp_arch_list *l, struct wp_buf *out);

/* Whether the build whose arch list is l has kernels for gpu_sm: real code of the same major with a
 * minor not above the GPU's (sm_86 runs sm_80 code), an arch-specific entry for exactly gpu_sm, or
 * PTX not above gpu_sm when ptx_jit_ok. JIT needs a driver at least as new as the build's CUDA:
 * pass ptx_jit_ok = (how == WP_RUNS_NATIVE) from wp_cuda_runs_on_driver. When not, why (unless
 * NULL) gets "no kernels for sm_61 (built for 7.0, 7.5, 8.0, 8.6, 9.0, 10.0, 12.0)", plus "; its
 * PTX for 8.0 needs a driver for CUDA 12.8 or newer to be JIT-compiled" when PTX would have
 * served. */
bool wp_arch_list_serves(const struct wp_arch_list *l, int gpu_sm, bool ptx_jit_ok,
			 struct wp_buf *why);

/* ---- drivers (struct wp_driver is above) ---- */

/* "535.104.05", "570.26", "580": 1-4 dot-separated numbers. 0, or -WPE_USAGE ("invalid driver
 * version 'x'; expected numbers like 535.104.05"). */
int wp_driver_parse(const char *text, struct wp_driver *out, struct wp_err *err);

/* <0, 0, >0 as a is older, the same, newer than b (missing parts count as 0: 580 == 580.0). */
int wp_driver_cmp(const struct wp_driver *a, const struct wp_driver *b);

/* The newest CUDA toolkit a driver fully supports (NVIDIA's "CUDA Toolkit and Corresponding Driver
 * Versions", lowest row of each minor): Linux 460.27.03 -> 11.2, 525.60.13 -> 12.0; Windows 551.61
 * -> 12.4, 580.88 -> 13.0. 0, or -WPE_NOMATCH for a driver older than CUDA 7.0's. */
int wp_driver_newest_cuda(const struct wp_driver *d, bool windows, int *major, int *minor);

/* The same for Linux from text (kept for its callers). 0; -WPE_PARSE for a malformed version;
 * -WPE_NOMATCH for a driver older than CUDA 7.0's. */
int wp_driver_max_cuda(const char *driver_version, int *major, int *minor);

/* The newest CUDA release in NVIDIA's driver table (what a driver installed today runs). */
void wp_cuda_newest_known(int *major, int *minor);

/* The oldest driver for CUDA major.minor ("570.26" Linux, "570.65" Windows for 12.8). A minor with
 * no toolkit of its own (12.7) gets the next toolkit's floor in that major (12.8's), which is what
 * a build labelled so would need at most. 0, or -WPE_NOMATCH (unknown version; on Windows also
 * CUDA 13.1, whose row names no Windows driver). */
int wp_cuda_min_driver_os(int major, int minor, bool windows, const char **driver);

/* wp_cuda_min_driver_os for Linux (kept for its callers). */
int wp_cuda_min_driver(int major, int minor, const char **driver);

/* What --cuda X.Y means: the oldest driver whose newest CUDA is X.Y (see wp_cuda_min_driver_os;
 * --cuda 11.0 is 450.36.06). 0, or -WPE_NOMATCH. */
int wp_driver_for_cuda(int major, int minor, bool windows, struct wp_driver *out);

/* NVIDIA minor-version compatibility: the oldest driver on which any CUDA major.x build runs, even
 * one newer than the driver's own CUDA (11: 450.80.02 / 452.39; 12: 525.60.13 / 528.33; 13: 580).
 * 0, or -WPE_NOMATCH for a major without it (10 and older). */
int wp_cuda_compat_min_driver(int major, bool windows, const char **driver);

enum wp_runs_how {
	WP_RUNS_NO = 0,
	WP_RUNS_NATIVE, /* the build's CUDA is not newer than the driver's: everything works, PTX
			   JIT too */
	WP_RUNS_MINOR_COMPAT, /* same major, newer minor, driver at the major's compatibility floor
			       */
};

/* "same or older CUDA", "minor-version compatibility", "does not run". */
const char *wp_runs_how_name(enum wp_runs_how how);

/* Whether a CUDA build_major.build_minor build runs on drv: its major older than the driver's
 * CUDA; or the same major and not newer; or the same major and newer when the driver is at least
 * that major's minor-version compatibility floor (never with strict, i.e. --cuda-compat strict). A
 * newer major never runs. how (unless NULL) says which; why (unless NULL) gets the reason it does
 * not: "CUDA 11.1 needs driver 455.23 or newer, or 450.80.02 for minor-version compatibility;
 * driver 450.36.06 supports CUDA 11.0". */
bool wp_cuda_runs_on_driver(int build_major, int build_minor, const struct wp_driver *drv,
			    bool windows, bool strict, enum wp_runs_how *how, struct wp_buf *why);

#endif
