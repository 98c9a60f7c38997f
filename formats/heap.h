/* A binary min-heap over a caller's array, for any element type and order: the one heap of reprise. */
#ifndef REPRISE_FORMATS_HEAP_H
#define REPRISE_FORMATS_HEAP_H

#include <stddef.h>

/*
 * RP_HEAP_DEFINE(name, type, less) defines static inline functions over an
 * array h of n elements of type, kept as a min-heap by less(const type *a,
 * const type *b) (a strict weak order: true when a goes before b):
 *
 *   name_up(h, k)        element k may be before its parent: move it up
 *   name_down(h, n, k)   element k may be after a child: move it down
 *   name_push(h, &n, e)  add e (the array has room for n + 1)
 *   name_pop(h, &n)      take the first element off (n > 0) and return it
 *
 * The array is the caller's (its room, its growth): the heap only orders it.
 * The first element is h[0]; to change it in place, set it and call
 * name_down(h, n, 0).  The moves are fixed (a parent of k is (k - 1) / 2, a
 * child goes up only when strictly before, the left child wins over an equal
 * right one), so equal elements come out in the same order on every run and
 * every build: an order that must break ties puts the tie-breaker in less.
 */
#define RP_HEAP_DEFINE(name, type, less)                                                   \
	static inline void name##_up(type *h, size_t k)                                        \
	{                                                                                      \
		const type e = h[k];                                                           \
		for (; k > 0 && less(&e, &h[(k - 1) / 2]); k = (k - 1) / 2)                    \
			h[k] = h[(k - 1) / 2];                                                 \
		h[k] = e;                                                                      \
	}                                                                                      \
	static inline void name##_down(type *h, size_t n, size_t k)                            \
	{                                                                                      \
		for (;;) {                                                                     \
			const size_t l = 2 * k + 1, r = l + 1;                                 \
			size_t m = k;                                                          \
			if (l < n && less(&h[l], &h[m]))                                       \
				m = l;                                                         \
			if (r < n && less(&h[r], &h[m]))                                       \
				m = r;                                                         \
			if (m == k)                                                            \
				return;                                                        \
			const type t = h[k];                                                   \
			h[k] = h[m];                                                           \
			h[m] = t;                                                              \
			k = m;                                                                 \
		}                                                                              \
	}                                                                                      \
	static inline void name##_push(type *h, size_t *n, type e)                             \
	{                                                                                      \
		h[*n] = e;                                                                     \
		name##_up(h, (*n)++);                                                          \
	}                                                                                      \
	static inline type name##_pop(type *h, size_t *n)                                      \
	{                                                                                      \
		const type top = h[0];                                                         \
		h[0] = h[--*n];                                                                \
		name##_down(h, *n, 0);                                                         \
		return top;                                                                    \
	}

#endif
