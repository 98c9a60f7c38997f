/* FNV-1a, 64 bit (Fowler/Noll/Vo; draft-eastlake-fnv): the one byte-string hash of reprise. */
#ifndef REPRISE_FORMATS_HASH_H
#define REPRISE_FORMATS_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * The offset basis and prime of 64-bit FNV (14695981039346656037 and
 * 1099511628211 in decimal).  Synthetic paths in traces are made from this
 * hash, so a different basis would change trace bytes: take these, never a
 * copy.
 */
#define RP_FNV64_OFFSET 0xcbf29ce484222325ull
#define RP_FNV64_PRIME 0x100000001b3ull
/* A second start, independent of the first (the basis with its halves swapped), for a 128-bit key made of two hashes. */
#define RP_FNV64_OFFSET_SWAPPED 0x84222325cbf29ce4ull

/* Continue an FNV-1a hash h (start with RP_FNV64_OFFSET) over n bytes at p. */
static inline uint64_t rp_fnv1a64(uint64_t h, const void *p, size_t n)
{
	const uint8_t *const b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * RP_FNV64_PRIME;
	return h;
}

#endif
