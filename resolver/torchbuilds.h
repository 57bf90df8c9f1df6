/* resolver/torchbuilds.h: what PyTorch built: the CUDA architectures in each release's wheels, what
 * the unlabeled torch wheels on PyPI are, and a build's CUDA from its METADATA Requires-Dist pins.
 * Answers come from tables compiled in from resolver/data/ (PROVENANCE.md there). Nothing is
 * allocated or kept: results go into caller-owned structs (plain data, copyable by assignment);
 * arguments are borrowed for the call only. */
#ifndef WP_TORCHBUILDS_H
#define WP_TORCHBUILDS_H

#include <stdbool.h>
#include <stddef.h>

#include "resolver/gpu.h"
#include "resolver/variant.h"

/* The platform families the tables know, from a wheel platform tag: manylinux_2_28_x86_64,
 * manylinux2014_x86_64, linux_x86_64 -> "linux-x86_64"; ..._aarch64 -> "linux-aarch64"; win_amd64
 * -> "windows"; macosx_* -> "macos"; conda subdirs likewise (linux-64, linux-aarch64, win-64,
 * osx-*); NULL for anything else (any, win32, ppc64le ...). Static strings. */
const char *wp_torch_platform_family(const char *platform_tag);

/* The arch list PyTorch built for torch_version ("2.7.1", "2.7.1+cu128", "2.7": major.minor is what
 * counts) with CUDA cuda_major.cuda_minor on platform_family ("linux-x86_64", "linux-aarch64",
 * "windows"). When the table has no list for that release, the nearest release that has one for the
 * same CUDA version and family is used and out->borrowed_from names it (the nearer by minor within
 * the same major, the older on a tie, a release of the same major before another major's). A
 * Windows build with no Windows list for that CUDA version at all takes the Linux x86_64 one
 * (out->other_platform, out->platform says which). out->release, cuda_major and cuda_minor are
 * always set. 0; -WPE_NOMATCH when no release has a list for that CUDA version (and family);
 * -WPE_PARSE for a version without major.minor or an unknown family (macos has no CUDA builds). */
int wp_torch_arch_list(const char *torch_version, int cuda_major, int cuda_minor,
		       const char *platform_family, struct wp_arch_list *out);

/* What an unlabeled build of project on PyPI is, for a final release (a public version such as
 * "1.8.0"; a +local label is ignored; pre-, post- and dev releases are unknown): the table's value
 * for that version, else its major.minor's when the table has that release line; else CPU where
 * PyPI ships only CPU builds (windows, macos, and linux-aarch64 before 2.11). Only "torch" is known
 * (compared ignoring case). 1 with *out filled (wp_variant_from_label's form: cu102, cpu), 0 when
 * unknown (out is then kind NONE). torch 1.8.0 linux-x86_64 -> cu102; 2.x windows -> cpu; 2.11.0
 * linux-aarch64 -> cu130. */
int wp_pypi_default_variant(const char *project, const char *version, const char *platform_family,
			    struct wp_variant *out);

/* A build's CUDA from its METADATA Requires-Dist values ("nvidia-cuda-runtime-cu12==12.8.90;
 * platform_system == \"Linux\"", "nvidia-cuda-runtime==13.0.96": CUDA 13 packages have no -cuNN
 * suffix; a leading "Requires-Dist:" is skipped). The first usable pin (==, === or ~=; "12.8.*"
 * too) of nvidia-cuda-runtime[-cuNN] decides, else nvidia-cuda-nvrtc[-cuNN], else
 * nvidia-cublas[-cuNN] from CUDA 12 on (cuBLAS 11.x numbered itself apart from the toolkit: 11.10
 * came with CUDA 11.7). The -cuNN suffix must agree with the pin's major; requirements under an
 * extra (";extra == ...") and unparsable lines are skipped. 1 with *out = that CUDA variant
 * (cu128), 0 when nothing pins a CUDA version (out is then kind NONE). */
int wp_variant_from_requires(const char *const *requires_dist, size_t n, struct wp_variant *out);
/* The same for Requires-Dist already parsed (the solver's, parsed once where the metadata was
 * read); the text form above parses each line and calls this. */
struct wp_req;
int wp_variant_from_reqs(const struct wp_req *reqs, size_t n, struct wp_variant *out);

#endif
