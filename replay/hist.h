/* Log-linear latency histograms: mergeable, <= 1 % relative error (HdrHistogram's bucket idea). */
#ifndef REPRISE_REPLAY_HIST_H
#define REPRISE_REPLAY_HIST_H

#include <stdint.h>

/*
 * Values are nanoseconds.  Below 2^RP_HIST_SUB_BITS every value has its own
 * bucket; above, each power of two is split into 2^RP_HIST_SUB_BITS linear
 * buckets, so a bucket is at most 1/128 of its value wide and the midpoint we
 * report is within 0.4 % of any value in it.  Values from 2^RP_HIST_MAX_BITS ns
 * (about 18 minutes) up land in the last bucket; the exact maximum is kept
 * apart.
 */
#define RP_HIST_SUB_BITS 7
#define RP_HIST_MAX_BITS 40
#define RP_HIST_BUCKETS ((RP_HIST_MAX_BITS - RP_HIST_SUB_BITS + 1) << RP_HIST_SUB_BITS)

typedef struct rp_hist {
	uint64_t count;
	uint64_t sum; /* ns; wraps only after ~584 years of latency */
	uint64_t min, max;
	uint64_t bucket[RP_HIST_BUCKETS];
} rp_hist;

void rp__hist_init(rp_hist *h);

static inline unsigned rp__hist_index(uint64_t v)
{
	if (v < (1u << RP_HIST_SUB_BITS))
		return (unsigned)v;
	const unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= RP_HIST_SUB_BITS */
	if (e >= RP_HIST_MAX_BITS)
		return RP_HIST_BUCKETS - 1;
	const unsigned sub = (unsigned)(v >> (e - RP_HIST_SUB_BITS)) & ((1u << RP_HIST_SUB_BITS) - 1);
	return ((e - RP_HIST_SUB_BITS + 1) << RP_HIST_SUB_BITS) + sub;
}

static inline void rp__hist_add(rp_hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->bucket[rp__hist_index(v)]++;
}

/* dst += src. */
void rp__hist_merge(rp_hist *dst, const rp_hist *src);
/* The value at quantile q in [0, 1] (bucket midpoint, clamped to [min, max]); 0 when empty. */
uint64_t rp__hist_quantile(const rp_hist *h, double q);
/* Lowest and highest value a bucket holds. */
void rp__hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi);

#endif
