/* ops/core/untar.c: the rules every bundle member is unpacked under (ops/core/untar.h). */
#include "ops/core/untar.h"
#include "base/os/os.h"

#include <stdio.h>

void wp_untar_budget_init(struct wp_untar_budget *b, long long packed)
{
	*b = (struct wp_untar_budget){
		.packed = packed,
		.max_total = 64LL << 30,
		.max_ratio = 500,
		.ratio_min = 1LL << 20,
		.max_members = 200000,
	};
}

const char *wp_untar_kind_problem(unsigned type, const char *hardlink, const char *symlink,
				  bool sparse)
{
	if (hardlink && *hardlink)
		return "is a hard link (a bundle holds plain files and folders only)";
	if ((symlink && *symlink) || type == WP_S_IFLNK)
		return "is a symlink (a bundle holds plain files and folders only)";
	if (type != WP_S_IFREG && type != WP_S_IFDIR)
		return "is not a plain file or folder";
	if (sparse)
		return "is a sparse file (a bundle holds plain files and folders only)";
	return NULL;
}

static const char *over(const struct wp_untar_budget *b, long long total, char *why, size_t n)
{
	if (total > b->max_total) {
		snprintf(why, n, "would unpack more than %lld bytes, the most a bundle may",
			 b->max_total);
		return why;
	}
	if (total > b->ratio_min && b->max_ratio > 0 && total / b->max_ratio > b->packed) {
		snprintf(why, n,
			 "would unpack more than %lld times its own %lld bytes (a bomb, not a bundle)",
			 b->max_ratio, b->packed);
		return why;
	}
	return NULL;
}

const char *wp_untar_budget_member(struct wp_untar_budget *b, long long size, char *why, size_t n)
{
	if (++b->members > b->max_members) {
		snprintf(why, n, "has more than %lld members, the most a bundle may",
			 b->max_members);
		return why;
	}
	if (size < 0 || size > b->max_total)
		return over(b, b->max_total + 1, why, n);
	return over(b, b->unpacked + size, why, n);
}

const char *wp_untar_budget_extent(struct wp_untar_budget *b, long long *seen, long long extent,
				   char *why, size_t n)
{
	if (extent <= *seen)
		return NULL;
	if (extent > b->max_total)
		return over(b, b->max_total + 1, why, n);
	b->unpacked += extent - *seen;
	*seen = extent;
	return over(b, b->unpacked, why, n);
}
