/* Building a jansson document with one check at the end: the first failed step sticks in the builder. */
#ifndef REPRISE_FORMATS_JSON_BUILD_H
#define REPRISE_FORMATS_JSON_BUILD_H

/*
 * Header only, for the libraries that write JSON and link jansson (replay/'s
 * report, results/' stat --json and compare --json): formats/ itself neither
 * includes this header nor links jansson, so libreprise-formats stays libc
 * and libzstd.
 *
 * A document is built by nesting calls (put(b, o, "k", json_integer(1)))
 * without a check at each: a value that could not be made (NULL, out of
 * memory), a container that could not be made, or a key or member jansson
 * refuses marks the builder, and the caller writes nothing when it is marked,
 * never a document with holes.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct rp_jb {
	bool failed;
} rp_jb;

/* obj[key] = v, v's reference taken. */
static inline void rp_jb_put(rp_jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!v || !obj || json_object_set_new(obj, key, v) < 0)
		b->failed = true;
}

/* v appended to arr, v's reference taken. */
static inline void rp_jb_add(rp_jb *b, json_t *arr, json_t *v)
{
	if (!v || !arr || json_array_append_new(arr, v) < 0)
		b->failed = true;
}

/* A count as a JSON integer (json_int_t is signed 64-bit): saturated at INT64_MAX, never wrapped negative. */
static inline json_t *rp_jb_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

#endif
