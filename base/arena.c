/* base/arena.c: bump allocation of strings in 64 KiB blocks (a longer string gets its own). */
#include "base/arena.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES (64 * 1024)

struct wp_arena_block {
	struct wp_arena_block *next;
	size_t used, cap;
	char data[];
};

const char *wp_arena_strdup(struct wp_arena *a, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	struct wp_arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > BLOCK_BYTES ? n : BLOCK_BYTES;
		b = wp_xmalloc(sizeof(*b) + cap);
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	char *out = b->data + b->used;
	memcpy(out, s, n);
	b->used += n;
	return out;
}

void wp_arena_free(struct wp_arena *a)
{
	for (struct wp_arena_block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}
