/* One seeded source of random numbers for everything drawn (reprise generate, replay --image): a seed fixes the output. */
#ifndef REPRISE_FORMATS_RNG_H
#define REPRISE_FORMATS_RNG_H

#include <stdint.h>

/* xoshiro256** seeded by splitmix64. */
typedef struct rp_rng {
	uint64_t s[4];
} rp_rng;
void rp_rng_seed(rp_rng *r, uint64_t seed);
uint64_t rp_rng_next(rp_rng *r);
/* Uniform in [0, n); 0 when n is 0 (rejection: no modulo bias). */
uint64_t rp_rng_below(rp_rng *r, uint64_t n);

#endif
