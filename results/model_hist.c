/* The model's log2 histograms and its seeded random numbers (xoshiro256**, splitmix64 seeding). */
#include <stdlib.h>

#include "results/model.h"

unsigned rp_mh_bucket(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
}

void rp_mh_add(rp_mhist *h, uint64_t v)
{
	h->n[rp_mh_bucket(v)]++;
}

uint64_t rp_mh_total(const rp_mhist *h)
{
	uint64_t t = 0;
	for (unsigned b = 0; b < RP_MH_BUCKETS; b++)
		t += h->n[b];
	return t;
}

/* The lowest value of bucket b and the bucket's width. */
static uint64_t bucket_low(unsigned b)
{
	return b == 0 ? 0 : UINT64_C(1) << (b - 1);
}

double rp_mh_mean(const rp_mhist *h)
{
	double sum = 0, n = 0;
	for (unsigned b = 0; b < RP_MH_BUCKETS; b++) {
		const double mid = b == 0 ? 0 : (double)bucket_low(b) * 1.5;
		sum += mid * (double)h->n[b];
		n += (double)h->n[b];
	}
	return n > 0 ? sum / n : 0;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void rp_rng_seed(rp_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rp_rng_next(rp_rng *r)
{
	uint64_t *const s = r->s;
	const uint64_t result = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t rp_rng_below(rp_rng *r, uint64_t n)
{
	if (n == 0)
		return 0;
	/* rejection keeps it uniform: the values above the last whole multiple of n are drawn again */
	const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = rp_rng_next(r);
	while (x >= limit);
	return x % n;
}

uint64_t rp_mh_sample(const rp_mhist *h, rp_rng *r)
{
	const uint64_t t = rp_mh_total(h);
	if (t == 0)
		return 0;
	uint64_t k = rp_rng_below(r, t);
	unsigned b = 0;
	for (; b < RP_MH_BUCKETS - 1; b++) {
		if (k < h->n[b])
			break;
		k -= h->n[b];
	}
	if (b == 0)
		return 0;
	const uint64_t low = bucket_low(b);
	return low + rp_rng_below(r, low); /* [2^(b-1), 2^b): the width equals the low end */
}
