/* base/vec.h: one growable array for any element type, and the list of borrowed strings.
 * A vector owns its array (wp_vec_free), not what the elements point to. A wp_strlist borrows
 * its strings: they belong to argv, the environment, or whoever pushed them. */
#ifndef WP_VEC_H
#define WP_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* struct NAME { T *v; size_t n, cap; }: declare once per element type, zero-initialise. */
#define WP_VEC_OF(name, T)                                                                       \
	struct name {                                                                            \
		T *v;                                                                            \
		size_t n, cap;                                                                   \
	}

/* Room for at least need elements of elem bytes each (doubling; aborts on out-of-memory). */
void wp_vec_reserve_(void **v, size_t *cap, size_t need, size_t elem);

/* Append one element (an expression of the element type); evaluates to its index. */
#define wp_vec_push(vec, ...)                                                                    \
	(wp_vec_reserve_((void **)&(vec)->v, &(vec)->cap, (vec)->n + 1, sizeof(*(vec)->v)),      \
	 (vec)->v[(vec)->n] = (__VA_ARGS__), (vec)->n++)

/* A zeroed element at the end; evaluates to a pointer to it. */
#define wp_vec_add(vec)                                                                          \
	(wp_vec_reserve_((void **)&(vec)->v, &(vec)->cap, (vec)->n + 1, sizeof(*(vec)->v)),      \
	 memset(&(vec)->v[(vec)->n], 0, sizeof(*(vec)->v)), &(vec)->v[(vec)->n++])

/* The same push for an array kept in separate fields of a struct that other code reads by name
 * (ptr, count, cap: struct wp_detect's toolkits, n_toolkits, cap_toolkits); evaluates to the
 * index. Zero-initialised fields are an empty array. */
#define wp_vec_push_fields(ptr, n, cap, ...)                                                     \
	(wp_vec_reserve_((void **)&(ptr), &(cap), (size_t)(n) + 1, sizeof(*(ptr))),               \
	 (ptr)[(n)] = (__VA_ARGS__), (n)++)

/* Free the array (not what the elements own) and empty the vector. */
#define wp_vec_free(vec) (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)

/* Strings borrowed for as long as the list lives. */
struct wp_strlist {
	const char **v;
	size_t n, cap;
};

void wp_strlist_push(struct wp_strlist *l, const char *s);
void wp_strlist_release(struct wp_strlist *l);

#endif
