/* ops/core/untar.h: the rules every bundle member is unpacked under, by install and verify alike:
 * plain files and folders only (a tar hard link or symlink would write where its target points),
 * and a ceiling on what one bundle may unpack, in the wheel reader's style (verify/wheellimits.h):
 * a total, a member count, and a ratio to the bundle's own size. Plain data, no I/O; the caller
 * owns the budget. */
#ifndef WP_OPS_CORE_UNTAR_H
#define WP_OPS_CORE_UNTAR_H

#include <stdbool.h>
#include <stddef.h>

struct wp_untar_budget {
	long long packed;      /* the bundle's bytes on disk, every volume */
	long long unpacked;    /* bytes unpacked so far (a sparse file's holes count) */
	long long members;     /* members so far */
	long long max_total;   /* default 64 GiB */
	long long max_ratio;   /* unpacked:packed; default 500, as a wheel's members */
	long long ratio_min;   /* the ratio applies past this many bytes; default 1 MiB */
	long long max_members; /* default 200,000 */
};

/* The defaults, for a bundle of packed bytes. */
void wp_untar_budget_init(struct wp_untar_budget *b, long long packed);

/* What is wrong with a member of this kind (its tar type as mode bits, S_IFREG or S_IFDIR; its
 * hard-link or symlink target, NULL when none; sparse): NULL when it may be unpacked. */
const char *wp_untar_kind_problem(unsigned type, const char *hardlink, const char *symlink,
				  bool sparse);

/* One more member declaring size bytes: NULL while within the budget (nothing is counted for the
 * bytes yet), else why not, in words ("would unpack more than ..."). */
const char *wp_untar_budget_member(struct wp_untar_budget *b, long long size, char *why, size_t n);

/* The member being unpacked now reaches extent bytes (offset + length of a block; its blocks may
 * come in any order): NULL while within the budget, else why not. *seen is the member's extent so
 * far (0 at its start). */
const char *wp_untar_budget_extent(struct wp_untar_budget *b, long long *seen, long long extent,
				   char *why, size_t n);

#endif
