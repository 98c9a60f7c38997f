/* The model's log2 histograms, drawn from with formats/rng.h's seeded generator. */
#include <stdbool.h>
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

unsigned rp_mh_fine_index(uint64_t v)
{
	const unsigned b = rp_mh_bucket(v);
	if (b == 0)
		return 0;
	const uint64_t low = bucket_low(b), off = v - low; /* off < low */
	const unsigned part = b - 1 >= 3 ? (unsigned)(off >> (b - 4)) : (unsigned)(off * RP_MH_SUB / low);
	return b * RP_MH_SUB + part;
}

bool rp_mh_fine_sample(const uint64_t *fine, const rp_mh_exact *ex, uint32_t nex, unsigned b, rp_rng *r, uint64_t *v)
{
	if (!fine || b < 5 || b >= RP_MH_BUCKETS)
		return false;
	const uint64_t *const p = &fine[b * RP_MH_SUB];
	uint64_t t = 0;
	for (unsigned s = 0; s < RP_MH_SUB; s++)
		t += p[s];
	if (t == 0)
		return false;
	uint64_t k = rp_rng_below(r, t);
	unsigned s = 0;
	for (; s < RP_MH_SUB - 1; s++) {
		if (k < p[s])
			break;
		k -= p[s];
	}
	/* inside part s: its exact values first, by their counts; k past them is the rest, drawn uniformly */
	const unsigned idx = b * RP_MH_SUB + s;
	for (uint32_t i = 0; i < nex; i++) {
		if (ex[i].v < 16 || rp_mh_fine_index(ex[i].v) != idx)
			continue;
		if (k < ex[i].n) {
			*v = ex[i].v;
			return true;
		}
		k -= ex[i].n;
	}
	const uint64_t w = bucket_low(b) / RP_MH_SUB; /* b >= 5: the part's width, a power of two */
	*v = bucket_low(b) + s * w + rp_rng_below(r, w);
	return true;
}
