/* verify/wheellimits.c: a wheel's ceilings, defaults filled in. */
#include "verify/wheellimits.h"

#include <string.h>

#define DEF_MAX_MEMBERS 200000
#define DEF_MAX_TOTAL (8LL << 30)
/* Deflate cannot exceed ~1032:1, so a limit of 2000:1 would only ever catch bzip2 or lzma; 500:1
 * still catches a deflated block of zeros, while real members (libraries, headers, data) stay
 * well under 50:1. */
#define DEF_MAX_RATIO 500
#define DEF_RATIO_MIN (1LL << 20)
#define DEF_MAX_RECORD (64LL << 20)

void wp_wheel_limits_fill(struct wp_wheel_limits *l, const struct wp_wheel_limits *in)
{
	if (in)
		*l = *in;
	else
		memset(l, 0, sizeof(*l));
	if (l->max_members <= 0)
		l->max_members = DEF_MAX_MEMBERS;
	if (l->max_total_size <= 0)
		l->max_total_size = DEF_MAX_TOTAL;
	if (l->max_ratio <= 0)
		l->max_ratio = DEF_MAX_RATIO;
	if (l->ratio_min_size <= 0)
		l->ratio_min_size = DEF_RATIO_MIN;
	if (l->max_record <= 0)
		l->max_record = DEF_MAX_RECORD;
}
