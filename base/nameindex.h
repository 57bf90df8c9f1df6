/* base/nameindex.h: names -> item numbers by hash, for items added in order and removed newest
 * first (the solver's wants as it goes back; projects, never removed). Each bucket is a chain
 * through next[], newest first, so removing the newest item pops its bucket's head.
 * Ownership: the index owns its arrays (wp_name_index_free); the keys are borrowed and must stay
 * valid, unchanged, while their items are in the index. Zero-initialise before use. */
#ifndef WP_NAMEINDEX_H
#define WP_NAMEINDEX_H

#include <stddef.h>

#define WP_NAME_NONE ((size_t)-1)

struct wp_name_index {
	const char **key;  /* item i's name */
	size_t *next;      /* the item after i in its bucket, WP_NAME_NONE at the end */
	size_t *head;      /* each bucket's newest item, WP_NAME_NONE when empty */
	size_t n, cap, nb;
};

/* Adds key as item ix->n (then n grows by one). */
void wp_name_index_push(struct wp_name_index *ix, const char *key);
/* Removes the newest item; the caller may free its key afterwards. */
void wp_name_index_pop(struct wp_name_index *ix);
/* The newest item named name, or WP_NAME_NONE. */
size_t wp_name_index_find(const struct wp_name_index *ix, const char *name);
void wp_name_index_free(struct wp_name_index *ix);

#endif
