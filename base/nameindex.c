/* base/nameindex.c: names -> item numbers by hash (FNV-1a, chained buckets, newest first). */
#include "base/nameindex.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static size_t name_hash(const char *s)
{
	size_t h = (size_t)1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * (size_t)1099511628211ULL;
	return h;
}

static void link_item(struct wp_name_index *ix, size_t i)
{
	size_t b = name_hash(ix->key[i]) & (ix->nb - 1);
	ix->next[i] = ix->head[b];
	ix->head[b] = i;
}

void wp_name_index_push(struct wp_name_index *ix, const char *key)
{
	if (ix->n == ix->cap) {
		ix->cap = ix->cap ? ix->cap * 2 : 16;
		ix->key = wp_xrealloc(ix->key, ix->cap * sizeof(*ix->key));
		ix->next = wp_xrealloc(ix->next, ix->cap * sizeof(*ix->next));
	}
	ix->key[ix->n++] = key;
	if (ix->n > ix->nb) {
		/* rebuilt in item order, so every chain stays newest first */
		ix->nb = ix->nb ? ix->nb * 4 : 64;
		free(ix->head);
		ix->head = wp_xcalloc(ix->nb, sizeof(*ix->head));
		memset(ix->head, 0xff, ix->nb * sizeof(*ix->head));
		for (size_t i = 0; i < ix->n; i++)
			link_item(ix, i);
	} else {
		link_item(ix, ix->n - 1);
	}
}

void wp_name_index_pop(struct wp_name_index *ix)
{
	size_t i = --ix->n;
	ix->head[name_hash(ix->key[i]) & (ix->nb - 1)] = ix->next[i];
}

size_t wp_name_index_find(const struct wp_name_index *ix, const char *name)
{
	if (!ix->nb)
		return WP_NAME_NONE;
	for (size_t i = ix->head[name_hash(name) & (ix->nb - 1)]; i != WP_NAME_NONE;
	     i = ix->next[i])
		if (!strcmp(ix->key[i], name))
			return i;
	return WP_NAME_NONE;
}

void wp_name_index_free(struct wp_name_index *ix)
{
	free(ix->key), free(ix->next), free(ix->head);
	memset(ix, 0, sizeof(*ix));
}
