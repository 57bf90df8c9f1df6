/* resolver/tags.h: PEP 425 tags a target accepts, in pip's priority order, with a fast lookup.
 * A wp_tagset owns every string it holds (tags and platforms); wp_tagset_release frees them.
 * Lookups borrow the caller's tag text and keep nothing. */
#ifndef WP_TAGS_H
#define WP_TAGS_H

#include <stddef.h>

#include "base/err.h"
#include "resolver/target.h"

struct wp_tagset {
	char **tags;        /* "cp38-cp38-manylinux_2_28_x86_64" ...; index = priority, 0 best */
	size_t n;
	char **platforms;   /* the platform ladder the tags were built from, best first */
	size_t n_platforms;
	size_t *slots; /* open addressing: tag index + 1, 0 = empty; nslots is a power of two */
	size_t nslots;
};

#define WP_TAGSET_INIT { NULL, 0, NULL, 0, NULL, 0 }

/* The tags pip (packaging HEAD's cpython_tags + compatible_tags with the interpreter) would
 * accept on the target machine; a free-threaded ABI (cp315t) takes abi3t where a GIL one takes
 * abi3 (PEP 803). linux_ARCH stays after manylinux/musllinux, as before packaging 26.3. t->impl ""
 * means "cp"; t->abi "" means the default ABI (cp38; cp37m for 3.7 and older; cp27mu on Linux for
 * Python 2). The platform ladder comes from t->platform (see wp_platform_ladder). Fails with
 * -WPE_USAGE on a malformed target. */
int wp_tagset_build(struct wp_tagset *ts, const struct wp_target *t, struct wp_err *err);

/* Priority of one tag (case-insensitive): 0 best, -1 when the target does not accept it.
 * A compressed tag set ("py2.py3-none-any") is not one tag: expand it first (wheelname.h). */
int wp_tagset_priority(const struct wp_tagset *ts, const char *tag);
int wp_tagset_priority_n(const struct wp_tagset *ts, const char *tag, size_t n);

void wp_tagset_release(struct wp_tagset *ts);

/* The platform tags a machine named by its most specific tag accepts, best first:
 * manylinux_2_28_x86_64 -> manylinux_2_28 ... 2_17, manylinux2014, ... 2_5, manylinux1,
 * linux_x86_64 (any arch: riscv64 counts down to 2_17); musllinux_1_2_* -> 1_2, 1_1, 1_0, linux_*;
 * macosx_X_Y_ARCH -> packaging's mac ladder; linux_* uses t->glibc_* / t->musl_* when set (and
 * platform_exact is false); anything else is itself. *out is a malloc'ed array of malloc'ed strings
 * the caller frees with wp_platform_ladder_free. */
int wp_platform_ladder(const struct wp_target *t, char ***out, size_t *n, struct wp_err *err);
void wp_platform_ladder_free(char **list, size_t n);

#endif
