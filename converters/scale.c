/* Scaling a trace in space: N copies on disjoint namespaces, de-synchronised by seeded offsets (converters/scale.h). */
#include "converters/scale.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "converters/merge.h"

/* splitmix64: a 64-bit mix of a counter, enough for offsets that must only be reproducible and spread. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The span from the earliest start to the latest known end (an unknown end counts as its start). */
static uint64_t span_of(const rp_memsink *m)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < m->n_ops; i++) {
		const rp_op *const op = &m->ops[i];
		const uint64_t end = op->t_end != RP_TIME_UNKNOWN && op->t_end > op->t_start ? op->t_end : op->t_start;
		if (op->t_start < lo)
			lo = op->t_start;
		if (end > hi)
			hi = end;
	}
	return m->n_ops ? hi - lo : 0;
}

/* A fraction in [0, 1) from the seed and a counter. */
static double draw(uint64_t seed, uint64_t k)
{
	return (double)(mix64(mix64(seed) ^ k) >> 11) * 0x1p-53;
}

/*
 * The copies' offsets in [0, spread): copy k gets stratum p(k) of n equal
 * strata (p a permutation drawn from the seed) and a point in that stratum's
 * middle half.  Independent draws put two of eight copies within a bin of
 * each other often enough to correlate them (the worst pair of pgbench's at 0.997,
 * docs/BENCHMARKS.md); strata keep every two copies at least spread / 2n
 * apart.
 */
static void offsets_draw(uint64_t seed, uint32_t n, uint64_t spread, uint32_t *perm, uint64_t *off)
{
	for (uint32_t k = 0; k < n; k++)
		perm[k] = k;
	for (uint32_t i = n; i > 1; i--) { /* Fisher-Yates */
		const uint32_t j = (uint32_t)(draw(seed, (uint64_t)i << 32) * i);
		const uint32_t t = perm[i - 1];
		perm[i - 1] = perm[j < i ? j : i - 1];
		perm[j < i ? j : i - 1] = t;
	}
	for (uint32_t k = 0; k < n; k++) {
		const double v = ((double)perm[k] + 0.25 + 0.5 * draw(seed, k + 1)) * (double)spread / n;
		off[k] = v < (double)spread ? (uint64_t)v : spread - 1;
	}
}

/*
 * A copy's clock (--scale-jitter): the span cut into RP_SCALE_SEGMENTS equal
 * parts, each run at its own rate, the whole as long as before.  The map is
 * piecewise linear and never decreasing, so every start and end of the copy
 * keeps its place among the others (what ended before an op began still
 * does: the dependencies of replay's resource order, forks and waits); only
 * gaps and durations stretch or shrink, by the rate of their part.
 */
typedef struct warp {
	uint64_t in[RP_SCALE_SEGMENTS + 1], out[RP_SCALE_SEGMENTS + 1];
} warp;

__extension__ typedef unsigned __int128 u128; /* (t - in) * (out span) fits: both under 2^64 */

static uint64_t warp_time(const void *ctx, uint64_t t)
{
	const warp *const w = ctx;
	if (t <= w->in[0] || t >= w->in[RP_SCALE_SEGMENTS])
		return t; /* outside the span (an end past it is no end: the span holds every end) */
	uint32_t lo = 0, hi = RP_SCALE_SEGMENTS; /* in[lo] <= t < in[hi] */
	while (hi - lo > 1) {
		const uint32_t mid = (lo + hi) / 2;
		if (w->in[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	const uint64_t din = w->in[lo + 1] - w->in[lo], dout = w->out[lo + 1] - w->out[lo];
	return w->out[lo] + (uint64_t)((u128)(t - w->in[lo]) * dout / din);
}

static void warp_draw(warp *w, uint64_t seed, uint32_t copy, uint64_t t0, uint64_t span, double jitter)
{
	long double rate[RP_SCALE_SEGMENTS], sum = 0;
	for (uint32_t i = 0; i <= RP_SCALE_SEGMENTS; i++)
		w->in[i] = t0 + (uint64_t)((u128)span * i / RP_SCALE_SEGMENTS);
	for (uint32_t i = 0; i < RP_SCALE_SEGMENTS; i++) {
		rate[i] = (long double)(1 - jitter + 2 * jitter * draw(seed, (uint64_t)copy << 40 | (uint64_t)(i + 1) << 8 | 1));
		sum += rate[i] * (long double)(w->in[i + 1] - w->in[i]);
	}
	w->out[0] = t0;
	long double acc = 0;
	for (uint32_t i = 0; i < RP_SCALE_SEGMENTS; i++) {
		acc += rate[i] * (long double)(w->in[i + 1] - w->in[i]);
		const long double v = (long double)t0 + acc * (long double)span / (sum > 0 ? sum : 1);
		uint64_t o = (uint64_t)(v + 0.5L);
		if (o < w->out[i])
			o = w->out[i]; /* never backwards, whatever the rounding */
		w->out[i + 1] = o;
	}
	w->out[RP_SCALE_SEGMENTS] = w->in[RP_SCALE_SEGMENTS]; /* the span's length kept */
	for (uint32_t i = RP_SCALE_SEGMENTS; i-- > 1;)
		if (w->out[i] > w->out[i + 1])
			w->out[i] = w->out[i + 1];
}

/* The earliest start of m's ops. */
static uint64_t first_start(const rp_memsink *m)
{
	uint64_t lo = UINT64_MAX;
	for (size_t i = 0; i < m->n_ops; i++)
		lo = m->ops[i].t_start < lo ? m->ops[i].t_start : lo;
	return m->n_ops ? lo : 0;
}

int rp_scale_space_run(const rp_memsink *in, const rp_scale_opts *opts, rp_sink *out, uint64_t *offsets,
		       rp_scale_stats *st, char *errbuf)
{
	memset(st, 0, sizeof(*st));
	const uint32_t n = opts->copies;
	if (n < 1 || n > RP_SCALE_COPIES_MAX)
		return rp_fail(errbuf, RP_E_INVAL, "--scale-space must be 1 to %u (got %" PRIu32 ")", RP_SCALE_COPIES_MAX, n);
	if (!(opts->jitter >= 0 && opts->jitter <= RP_SCALE_JITTER_MAX))
		return rp_fail(errbuf, RP_E_INVAL, "--scale-jitter must be 0 to %g (got %g)", RP_SCALE_JITTER_MAX, opts->jitter);
	st->span_ns = span_of(in);
	st->timed = st->span_ns > 0;
	st->spread_ns = opts->lockstep ? 0 : opts->spread_ns ? opts->spread_ns : st->span_ns;
	const rp_memsink **const ins = calloc(n, sizeof(*ins));
	rp_merge_place *const places = calloc(n, sizeof(*places));
	rp_merge_map *const maps = calloc(n, sizeof(*maps));
	char (*const dirs)[16] = calloc(n, sizeof(*dirs));
	uint64_t *const off = calloc(n, sizeof(*off));
	uint32_t *const perm = calloc(n, sizeof(*perm));
	const bool jitter = st->timed && !opts->lockstep && opts->jitter > 0;
	warp *const warps = jitter ? calloc(n, sizeof(*warps)) : NULL;
	int rc = 0;
	if (!ins || !places || !maps || !dirs || !off || !perm || (jitter && !warps)) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	if (st->spread_ns)
		offsets_draw(opts->seed, n, st->spread_ns, perm, off);
	uint64_t lo = UINT64_MAX;
	for (uint32_t k = 0; k < n; k++)
		lo = off[k] < lo ? off[k] : lo;
	st->offset_min = UINT64_MAX;
	for (uint32_t k = 0; k < n; k++) {
		off[k] -= lo; /* the first copy to start starts at the trace's own start */
		st->offset_min = off[k] < st->offset_min ? off[k] : st->offset_min;
		st->offset_max = off[k] > st->offset_max ? off[k] : st->offset_max;
		snprintf(dirs[k], sizeof(dirs[k]), "/client%" PRIu32, k + 1);
		ins[k] = in;
		places[k] = (rp_merge_place){ .prefix = dirs[k], .t_offset = st->timed ? off[k] : 0,
					      .lead_sleep_ns = st->timed ? 0 : off[k] };
		if (offsets)
			offsets[k] = off[k];
		if (jitter) {
			warp_draw(&warps[k], opts->seed, k + 1, first_start(in), st->span_ns, opts->jitter);
			places[k].warp = warp_time;
			places[k].warp_ctx = &warps[k];
		}
	}
	st->jitter = jitter ? opts->jitter : 0;
	if ((rc = rp_merge_run_placed(ins, n, RP_MERGE_START, places, out, maps, errbuf)) < 0)
		goto out;
	st->clients = maps[0].clients;
	st->handles = n > 1 ? maps[1].handle_offset : 0;
	st->ops = in->n_ops * (uint64_t)n;
out:
	free(ins);
	free(places);
	free(maps);
	free(dirs);
	free(off);
	free(perm);
	free(warps);
	return rc;
}
