/* env/profile.h: a detected machine as JSON (`wheelpick detect --json`), and that JSON read back
 * as a target (`--target FILE`, for build hosts that have no GPU).
 * Ownership: the caller owns out and t; nothing here keeps a pointer after returning. */
#ifndef WP_PROFILE_H
#define WP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "env/detect.h"
#include "resolver/target.h"

#define WP_PROFILE_MAX (1 << 20) /* a profile past 1 MiB is not a profile */

/* Append d (and the target it makes, under "target") to out as pretty JSON. -WPE_TOO_BIG when
 * out's ceiling is reached, -WPE_ENV when the JSON writer refuses. */
int wp_detect_format_json(const struct wp_detect *d, struct wp_buf *out);

/* Read a profile: the output of wp_detect_format_json, or a hand-written object with the
 * "target" keys at its top level, e.g.
 *   {"python": "3.10", "platform": "manylinux_2_28_x86_64", "cuda": "12.1", "gpu_sms": [80]}
 * t is overwritten. -WPE_USAGE, naming the file, when it is missing, unreadable or malformed. */
int wp_target_load_profile(const char *path, struct wp_target *t, struct wp_err *err);
/* The same, with the words for the advice in its messages (resolver/ask.h; NULL: plain words), and
 * a FIFO or device given idle_s seconds to say something when that is under 10 (the run's timeout;
 * 0: 10 s). */
struct wp_asks;
int wp_target_load_profile_as(const char *path, const struct wp_asks *asks, long idle_s,
			      struct wp_target *t, struct wp_err *err);

#endif
