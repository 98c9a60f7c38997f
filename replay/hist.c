/* Log-linear latency histograms: merge and quantiles. */
#include "replay/hist.h"

#include <string.h>

void rp__hist_init(rp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void rp__hist_merge(rp_hist *dst, const rp_hist *src)
{
	if (src->count == 0)
		return;
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (unsigned i = 0; i < RP_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

void rp__hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	const unsigned sub_count = 1u << RP_HIST_SUB_BITS;
	if (idx < sub_count) {
		*lo = *hi = idx;
		return;
	}
	const unsigned e = (idx >> RP_HIST_SUB_BITS) + RP_HIST_SUB_BITS - 1;
	const uint64_t sub = idx & (sub_count - 1);
	const unsigned shift = e - RP_HIST_SUB_BITS;
	*lo = (((uint64_t)sub_count + sub) << shift);
	*hi = *lo + ((uint64_t)1 << shift) - 1;
	if (idx == RP_HIST_BUCKETS - 1)
		*hi = UINT64_MAX;
}

uint64_t rp__hist_quantile(const rp_hist *h, double q)
{
	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* The rank of the wanted value, 1-based: the smallest value with at least q of the mass at or below it. */
	uint64_t rank = (uint64_t)(q * (double)h->count + 0.999999999);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < RP_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t lo, hi;
			rp__hist_bucket_range(i, &lo, &hi);
			uint64_t v = hi == UINT64_MAX ? h->max : lo + (hi - lo) / 2;
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}
