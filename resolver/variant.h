/* resolver/variant.h: PyTorch build variants (cu111, rocm4.0.1, cpu, cpu.cxx11.abi, xpu) from a
 * local version label or an index directory name. Plain data: a wp_variant owns nothing and is
 * copyable by assignment; the parsers borrow their input only for the call. */
#ifndef WP_VARIANT_H
#define WP_VARIANT_H

#include <stdbool.h>

#include "base/buf.h"

enum wp_variant_kind {
	WP_VARIANT_NONE = 0, /* not a variant: no label, or a plain PEP 440 local (+ubuntu.1) */
	WP_VARIANT_CPU,
	WP_VARIANT_CUDA,
	WP_VARIANT_ROCM,
	WP_VARIANT_XPU,
	WP_VARIANT_OTHER,    /* a variant family with a flavour we do not know (cu118.with.foo):
	                        never picked for a target, only when asked for by label */
};

struct wp_variant {
	enum wp_variant_kind kind;
	int major, minor, patch; /* CUDA 11.1 -> 11, 1, 0; ROCm 4.0.1 -> 4, 0, 1; 0 otherwise */
	char label[48];          /* normalised: "cu111", "rocm4.0.1", "cpu", "cpu.cxx11.abi",
	                            "cu117.with.pypi.cudnn", "xpu"; "" for NONE */
	char flavour[32];        /* "" (plain), "cxx11.abi", "pypi.cudnn" */
};

/* From a PEP 440 local label, with or without the '+': cu111, cu92 (9.2), cu100 (10.0),
 * cu130 (13.0), cuda100 (jaxlib's spelling), rocm4.0.1, cpu, cpu.cxx11.abi, cpu-cxx11-abi,
 * cu117.with.pypi.cudnn, cu117_pypi_cudnn, xpu; case-insensitive, '-' '_' '.' alike.
 * Returns 1 and fills *v for a variant; 0 (v->kind NONE) for anything else, never an error. */
int wp_variant_from_label(const char *local, struct wp_variant *v);

/* The same for an index directory (cu102/, cpu-cxx11-abi/, cu117_pypi_cudnn/, rocm3.7/);
 * nightly/, whl/, project directories and "" are not variants. */
int wp_variant_from_dir(const char *dir, struct wp_variant *v);

/* Total order for preference, higher = preferred within a kind: by kind first (NONE, CPU,
 * CUDA, ROCM, XPU, OTHER: callers filter by kind before ranking), then major, minor, patch;
 * at the same version the plain build beats any flavour, because cxx11.abi only matters to
 * C++ extension builders and pypi.cudnn changes where cuDNN comes from: both are opt-in.
 * Flavours then order by name so the result is deterministic. */
int wp_variant_cmp(const struct wp_variant *a, const struct wp_variant *b);

/* Human form for messages: "CUDA 11.1", "ROCm 4.0.1", "CPU (cxx11.abi)", "no variant".
 * out is reset first. */
void wp_variant_format(const struct wp_variant *v, struct wp_buf *out);

#endif
