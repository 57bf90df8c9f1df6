/* base/arena.h: strings that live and die together, in a few large blocks.
 * Why: loading a project's rows keeps ten strings per row; one malloc each (and one realloc of a
 * pointer list each) was most of a warm `pick --dry-run`. Freed all at once by wp_arena_free. */
#ifndef WP_ARENA_H
#define WP_ARENA_H

#include <stddef.h>

struct wp_arena_block;

struct wp_arena {
	struct wp_arena_block *head; /* newest block first; the arena owns the chain */
};

#define WP_ARENA_INIT { NULL }

/* A copy of s that lives until wp_arena_free; NULL stays NULL. Aborts on out-of-memory. */
const char *wp_arena_strdup(struct wp_arena *a, const char *s);
void wp_arena_free(struct wp_arena *a);

#endif
