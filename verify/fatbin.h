/* verify/fatbin.h: the GPU code inside a shared object, read from its NVIDIA fatbinary containers.
 * Pure: bytes in (whole, or as they stream past, once), containers and entries out; no I/O.
 *
 * A container (magic 0xBA55ED50) is a 16-byte header then entries, each a 64-byte header plus an
 * extension, then its payload; an entry names its kind (SASS cubin or PTX), its architecture and
 * whether it is compressed. Containers are found by scanning the bytes for the magic (headers are
 * validated, so other bytes do not make one) and, in an ELF file, placed into their sections
 * (.nv_fatbin, __nv_relfatbin, or another: cuFFT keeps thousands in .ldata) and matched with the
 * registration wrappers of .nvFatBinSegment, which tell which containers the CUDA runtime loads.
 * Ownership: struct wp_fatbin owns its arrays (wp_fatbin_free); the scanner is the caller's. */
#ifndef WP_FATBIN_H
#define WP_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define WP_FATBIN_MAGIC 0xBA55ED50u

enum wp_fatbin_kind {
	WP_FATBIN_PTX = 1,
	WP_FATBIN_CUBIN = 2,
};

/* The header's flags word (+40) */
#define WP_FATBIN_FLAG_LZ4    0x2000u
#define WP_FATBIN_FLAG_ZSTD   0x8000u
#define WP_FATBIN_FLAG_A      0x100000u /* arch-specific: sm_90a */
#define WP_FATBIN_FLAG_F      0x200000u /* family-specific: sm_100f */

/* Where a container sits. */
enum wp_fatbin_section {
	WP_FATBIN_SEC_UNKNOWN = 0, /* no section table at hand (a scan) */
	WP_FATBIN_SEC_FATBIN, /* .nv_fatbin (PE: .nv_fatb) */
	WP_FATBIN_SEC_REL, /* __nv_relfatbin: relocatable device code (-rdc, libcudadevrt) */
	WP_FATBIN_SEC_OTHER, /* any other section (cuFFT's .ldata) */
};

/* What a container is for the verdict (wp_fatbin_units). */
enum wp_fatbin_role {
	WP_FATBIN_UNIT = 0, /* a translation unit's code, judged on its own */
	WP_FATBIN_EMPTY, /* no entries */
	WP_FATBIN_DLINK, /* nvcc -shared's device-link image of a build without -rdc: no kernels */
	WP_FATBIN_LINKED, /* the device-linked image of an -rdc build: judged with its REL parts */
	WP_FATBIN_RDC_PART, /* relocatable code the LINKED image was linked from (its PTX can be
			       JIT-linked) */
	WP_FATBIN_DEVRT, /* relocatable code nvcc links into every build (libcudadevrt): no kernels
			    of the package */
};

struct wp_fatbin_entry {
	uint8_t kind;          /* enum wp_fatbin_kind */
	char variant;          /* 0, 'a' or 'f' */
	uint16_t arch;         /* 10 * major + minor: 86, 90, 100, 121 */
	uint16_t ver_major, ver_minor; /* PTX: its ISA version (7.8); cubin: the ELF format's */
	uint32_t flags;
	uint32_t container;    /* index into wp_fatbin.containers */
	uint64_t offset;       /* of its header in the file */
	uint64_t payload;      /* payload bytes (compressed when compressed) */
	uint64_t size;         /* uncompressed bytes (payload when not compressed) */
};

struct wp_fatbin_container {
	uint64_t offset;       /* of its header in the file */
	uint64_t size;         /* header + entries */
	uint32_t first, n;     /* its entries: entries[first .. first + n) */
	uint8_t section;       /* enum wp_fatbin_section */
	uint8_t registered; /* 0: no wrapper names it (or none read); 1 or 2: the wrapper's version
			     */
	uint8_t role;          /* enum wp_fatbin_role, from wp_fatbin_units */
	bool cut;              /* the bytes ended inside it */
};

struct wp_fatbin {
	struct wp_fatbin_container *containers;
	size_t n_containers;
	struct wp_fatbin_entry *entries;
	size_t n_entries;
	bool elf, pe;          /* the file is one (its header said so) */
	bool sections;         /* containers were placed into sections */
	bool wrappers;         /* .nvFatBinSegment's wrappers were read and named containers */
};

void wp_fatbin_free(struct wp_fatbin *fb);

/* "sm_86", "sm_90a", "compute_120f" into out (at least 24 bytes); returns out. */
const char *wp_fatbin_entry_name(const struct wp_fatbin_entry *en, char *out, size_t cap);

/* Whether an archive member's name is a shared object whose GPU code is worth reading: "*.so",
 * "*.so.N...", "*.pyd", "*.dll" (any case for the Windows ones). */
bool wp_fatbin_wanted(const char *name);

/* The streaming reader: feed the file's bytes in order, any chunk sizes, then finish. */
struct wp_fatbin_scan;

struct wp_fatbin_scan *wp_fatbin_scan_new(void);
void wp_fatbin_scan_free(struct wp_fatbin_scan *s);
void wp_fatbin_scan_feed(struct wp_fatbin_scan *s, const void *p, size_t n);
/* Moves what was read into out (reset first) and assigns roles (wp_fatbin_units). 0; -WPE_INTEGRITY
 * naming subject for a container whose version is not 1 or an entry of unknown kind, or a container
 * whose entries do not add up to its size (out still holds what was read before it). */
int wp_fatbin_scan_finish(struct wp_fatbin_scan *s, const char *subject, struct wp_fatbin *out,
			  struct wp_err *err);

/* A whole file in memory: the same as one feed and finish. */
int wp_fatbin_read(const void *p, size_t n, const char *subject, struct wp_fatbin *out,
		   struct wp_err *err);

/* Assign each container its role (done by finish; exposed for the tests' section-free views). */
void wp_fatbin_units(struct wp_fatbin *fb);

/* The code the runtime would load, in resolver/gpucode.h's text form, appended to out: each UNIT
 * container one unit; the LINKED image with the PTX every RDC_PART has, one unit; the rest left
 * out. Codes sorted, units each once. Nothing appended when there is no GPU code. */
void wp_fatbin_summary(const struct wp_fatbin *fb, struct wp_buf *out);

#endif
