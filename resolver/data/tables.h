/* resolver/data/tables.h: the rows gen.sh compiles from the TSV files beside it; read only by
 * resolver/gpu.c and resolver/torchbuilds.c. Static, read-only data: nothing is allocated or owned.
 * CUDA versions and compute capabilities are x10 integers (11.8 -> 118, sm_86 -> 86); a NULL string
 * is a "-" cell (no value). */
#ifndef WP_DATA_TABLES_H
#define WP_DATA_TABLES_H

#include <stddef.h>

struct wp_tbl_arch {            /* gpu_archs.tsv */
	int sm;
	const char *family;     /* "Ampere" */
	int min_cuda;           /* first toolkit that builds for it */
	int max_cuda;           /* last toolkit that does; 0 = still supported */
};

struct wp_tbl_driver {          /* cuda_drivers.tsv, newest CUDA first */
	int cuda;
	const char *linux_min;
	const char *windows_min;
};

struct wp_tbl_compat {          /* cuda_minor_compat.tsv */
	int major;
	const char *linux_min;
	const char *windows_min;
};

struct wp_tbl_arch_list {       /* torch_arch_lists.tsv */
	const char *release;    /* "2.7" */
	int cuda;
	const char *platform;   /* "linux-x86_64", "linux-aarch64", "windows" */
	const char *archs;      /* TORCH_CUDA_ARCH_LIST notation: "7.5;8.0;12.0+PTX" */
};

struct wp_tbl_gpu_name {        /* gpu_names.tsv */
	const char *name;
	int sm;
};

struct wp_tbl_gpu_pci {         /* gpu_pci_ids.tsv, by ascending id */
	unsigned id;            /* PCI device id (vendor 0x10de) */
	const char *name;       /* "NVIDIA GeForce RTX 5090" */
	int sm;
};

enum { WP_TBL_LINUX_X86_64, WP_TBL_LINUX_AARCH64, WP_TBL_WINDOWS, WP_TBL_MACOS, WP_TBL_NPLATFORMS };

struct wp_tbl_pypi {            /* pypi_torch_defaults.tsv */
	const char *version;    /* "1.8.0" */
	const char *variant[WP_TBL_NPLATFORMS]; /* "cu102", "cpu", NULL */
};

extern const struct wp_tbl_arch wp_tbl_archs[];
extern const size_t wp_tbl_archs_len;
extern const struct wp_tbl_driver wp_tbl_drivers[];
extern const size_t wp_tbl_drivers_len;
extern const struct wp_tbl_compat wp_tbl_compat[];
extern const size_t wp_tbl_compat_len;
extern const struct wp_tbl_arch_list wp_tbl_arch_lists[];
extern const size_t wp_tbl_arch_lists_len;
extern const struct wp_tbl_gpu_name wp_tbl_gpu_names[];
extern const size_t wp_tbl_gpu_names_len;
extern const struct wp_tbl_gpu_pci wp_tbl_gpu_pci[];
extern const size_t wp_tbl_gpu_pci_len;
extern const struct wp_tbl_pypi wp_tbl_pypi_torch[];
extern const size_t wp_tbl_pypi_torch_len;

#endif
