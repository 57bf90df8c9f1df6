/* base/vec.c: the growth step shared by every vector, and the borrowed string list. */
#include "base/vec.h"
#include "base/mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void wp_vec_reserve_(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 8;
	while (c < need)
		c *= 2;
	*v = wp_xrealloc(*v, c * elem);
	*cap = c;
}

void wp_strlist_push(struct wp_strlist *l, const char *s)
{
	wp_vec_push(l, s);
}

void wp_strlist_release(struct wp_strlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
