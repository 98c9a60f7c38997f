/* Scaling a trace in space: N copies on disjoint namespaces, de-synchronised by seeded offsets (converters/scale.h). */
#include "converters/scale.h"

#include <inttypes.h>
#include <math.h>
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

/*
 * The correlation's inputs: the trace's op starts (sleeps left out, they are
 * no load) in order, and each copy's, as placed (its clock, then its offset;
 * both never decreasing, so still in order).
 */
typedef struct corr {
	uint64_t *base; /* the trace's starts */
	size_t n;
	uint64_t *starts; /* copy k's at starts + k * n */
	uint32_t *a, *b;  /* a pair's counts per bin, RP_SCALE_BINS_MAX each */
	uint64_t work;    /* starts and bins the redraws may still visit (RP_SCALE_CORR_WORK) */
} corr;

static int cmp_u64(const void *x, const void *y)
{
	const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/*
 * 0, or 1 when the trace is not to be measured (too many starts, or
 * measuring every pair once would visit more than RP_SCALE_CORR_WORK starts
 * and bins: 1024 copies of a short trace), or RP_E_NOMEM.
 */
static int corr_init(corr *c, const rp_memsink *in, uint32_t copies, uint64_t span, uint64_t spread)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < in->n_ops; i++)
		c->n += in->ops[i].op != RP_OP_SLEEP;
	if (!c->n || c->n > RP_SCALE_CORR_STARTS_MAX / copies)
		return 1;
	const long double pairs = (long double)copies * (copies - 1) / 2;
	if (pairs * (2.0L * c->n + 3.0L * (long double)(span + spread) / RP_SCALE_BIN_NS) > (long double)RP_SCALE_CORR_WORK)
		return 1;
	c->work = RP_SCALE_CORR_WORK;
	c->base = malloc(c->n * sizeof(*c->base));
	c->starts = malloc(c->n * copies * sizeof(*c->starts));
	c->a = malloc(RP_SCALE_BINS_MAX * sizeof(*c->a));
	c->b = malloc(RP_SCALE_BINS_MAX * sizeof(*c->b));
	if (!c->base || !c->starts || !c->a || !c->b)
		return RP_E_NOMEM;
	size_t j = 0;
	for (size_t i = 0; i < in->n_ops; i++)
		if (in->ops[i].op != RP_OP_SLEEP)
			c->base[j++] = in->ops[i].t_start;
	qsort(c->base, c->n, sizeof(*c->base), cmp_u64);
	return 0;
}

static void corr_fini(corr *c)
{
	free(c->base);
	free(c->starts);
	free(c->a);
	free(c->b);
}

/* Copy k's starts through its clock w (NULL: none) and its offset (saturating: an overflow fails the merge later). */
static void corr_place(corr *c, uint32_t k, const warp *w, uint64_t off)
{
	uint64_t *const s = c->starts + (size_t)k * c->n;
	for (size_t i = 0; i < c->n; i++) {
		const uint64_t t = w ? warp_time(w, c->base[i]) : c->base[i];
		s[i] = t > UINT64_MAX - off ? UINT64_MAX : t + off;
	}
}

/* ts's starts per bin from lo into bins counts. */
static void corr_bin(const uint64_t *ts, size_t n, uint64_t lo, uint64_t bins, uint32_t *cnt)
{
	memset(cnt, 0, bins * sizeof(*cnt));
	for (size_t i = 0; i < n; i++)
		if (ts[i] >= lo && (ts[i] - lo) / RP_SCALE_BIN_NS < bins)
			cnt[(ts[i] - lo) / RP_SCALE_BIN_NS]++;
}

/* The correlation of copies i and j (above); false when they share too few bins (or too many to count). */
static bool corr_pair(corr *c, uint32_t i, uint32_t j, double *r)
{
	const uint64_t *const si = c->starts + (size_t)i * c->n, *const sj = c->starts + (size_t)j * c->n;
	const uint64_t lo = si[0] > sj[0] ? si[0] : sj[0];
	const uint64_t hi = si[c->n - 1] < sj[c->n - 1] ? si[c->n - 1] : sj[c->n - 1];
	const uint64_t bins = hi > lo ? (hi - lo) / RP_SCALE_BIN_NS : 0;
	const uint64_t cost = 2 * c->n + 3 * bins;
	c->work = c->work > cost ? c->work - cost : 0;
	if (bins < RP_SCALE_BINS_MIN || bins > RP_SCALE_BINS_MAX)
		return false;
	corr_bin(si, c->n, lo, bins, c->a);
	corr_bin(sj, c->n, lo, bins, c->b);
	double ma = 0, mb = 0;
	for (uint64_t x = 0; x < bins; x++) {
		ma += c->a[x];
		mb += c->b[x];
	}
	ma /= (double)bins;
	mb /= (double)bins;
	double cov = 0, va = 0, vb = 0;
	for (uint64_t x = 0; x < bins; x++) {
		const double da = c->a[x] - ma, db = c->b[x] - mb;
		cov += da * db;
		va += da * da;
		vb += db * db;
	}
	if (va > 0 && vb > 0)
		*r = cov / sqrt(va * vb);
	else /* a flat copy: in step only with its equal */
		*r = memcmp(c->a, c->b, bins * sizeof(*c->a)) ? 0 : 1;
	return true;
}

/* The worst (largest) correlation of copy k with copies 0 .. upto-1 but itself; -2 when no pair counts. */
static double corr_worst(corr *c, uint32_t k, uint32_t upto)
{
	double worst = -2, r;
	for (uint32_t j = 0; j < upto; j++)
		if (j != k && corr_pair(c, j, k, &r) && r > worst)
			worst = r;
	return worst;
}

/* Every pair of the n copies into st. */
static void corr_all(corr *c, uint32_t n, rp_scale_stats *st)
{
	double sum = 0, r;
	st->corr_max = -1;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++) {
			if (!corr_pair(c, i, j, &r)) {
				st->corr_short++;
				continue;
			}
			sum += r;
			st->corr_max = r > st->corr_max ? r : st->corr_max;
			st->corr_pairs++;
		}
	st->corr_measured = true;
	st->corr_mean = st->corr_pairs ? sum / st->corr_pairs : 0;
	if (!st->corr_pairs)
		st->corr_max = 0;
}

/* What a copy's draws come from: the seed, the spread, the span and the jitter; the warps (NULL: no jitter). */
typedef struct drawer {
	uint64_t seed, spread, t0, span;
	double jitter;
	warp *warps;
	uint32_t *draws; /* each copy's draws so far: the next one's counter */
	uint32_t redraws;
} drawer;

/*
 * Copy k's offset and clock against copies 0 .. upto-1: while its
 * correlation with one of them is over the target, another draw (an offset
 * anywhere in the spread, another clock), each from the seed, the copy and
 * its draw count, RP_SCALE_DRAWS at most; the one of the smallest worst pair
 * is kept (what it had counts as a draw).  Drawing again checks what
 * independent draws only make likely: a trace of long phases (bonnie++'s
 * create, stat and delete) lines two copies' phases up at some seeds.
 */
static void place_copy(corr *c, drawer *dr, uint32_t k, uint32_t upto, uint64_t *off)
{
	warp *const w = dr->warps ? &dr->warps[k] : NULL;
	warp best_w;
	if (w)
		best_w = *w;
	uint64_t best_off = *off;
	corr_place(c, k, w, *off);
	double best = corr_worst(c, k, upto);
	for (uint32_t d = 0; d < RP_SCALE_DRAWS && best > RP_SCALE_CORR_TARGET && c->work; d++) {
		const uint64_t s = mix64(dr->seed ^ ((uint64_t)++dr->draws[k] << 40));
		const double v = draw(s, (uint64_t)k << 20 | 2) * (double)dr->spread;
		const uint64_t o = v < (double)dr->spread ? (uint64_t)v : dr->spread - 1;
		if (w)
			warp_draw(w, s, k + 1, dr->t0, dr->span, dr->jitter);
		dr->redraws++;
		corr_place(c, k, w, o);
		const double worst = corr_worst(c, k, upto);
		if (worst < best) {
			best = worst;
			best_off = o;
			if (w)
				best_w = *w;
		}
	}
	*off = best_off;
	if (w)
		*w = best_w;
	corr_place(c, k, w, best_off);
}

/*
 * Every copy's offset and clock: each copy drawn against the copies before
 * it, then rounds over all of them, each copy over the target with another
 * drawn again against all the others, until none is or RP_SCALE_ROUNDS.
 */
static void place_all(corr *c, drawer *dr, uint32_t n, uint64_t *off)
{
	corr_place(c, 0, dr->warps ? &dr->warps[0] : NULL, off[0]);
	for (uint32_t k = 1; k < n; k++)
		place_copy(c, dr, k, k, &off[k]);
	for (uint32_t round = 0; round < RP_SCALE_ROUNDS && c->work; round++) {
		bool over = false;
		for (uint32_t k = 0; k < n; k++)
			if (corr_worst(c, k, n) > RP_SCALE_CORR_TARGET) {
				over = true;
				place_copy(c, dr, k, n, &off[k]);
			}
		if (!over)
			break;
	}
}

/*
 * A timed trace's copies measured (st's correlation) and, unless in
 * lockstep, placed under the target (place_all); off and warps (NULL: no
 * jitter) hold the first draws and get the kept ones.  0 or RP_E_NOMEM.
 */
static int measure_place(const rp_memsink *in, const rp_scale_opts *opts, rp_scale_stats *st, uint64_t t0, warp *warps,
			 uint64_t *off)
{
	const uint32_t n = opts->copies;
	corr c = { 0 };
	const int skip = st->timed && n > 1 ? corr_init(&c, in, n, st->span_ns, st->spread_ns) : 1;
	uint32_t *const draws = skip ? NULL : calloc(n, sizeof(*draws));
	if (skip < 0 || (!skip && !draws)) {
		corr_fini(&c);
		return RP_E_NOMEM;
	}
	if (!skip) {
		drawer dr = { .seed = opts->seed, .spread = st->spread_ns, .t0 = t0, .span = st->span_ns,
			      .jitter = opts->jitter, .warps = warps, .draws = draws };
		if (st->spread_ns) {
			place_all(&c, &dr, n, off);
		} else {
			for (uint32_t k = 0; k < n; k++)
				corr_place(&c, k, NULL, off[k]);
		}
		st->redraws = dr.redraws;
		corr_all(&c, n, st);
	}
	free(draws);
	corr_fini(&c);
	return 0;
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
	const uint64_t t0 = first_start(in);
	for (uint32_t k = 0; jitter && k < n; k++)
		warp_draw(&warps[k], opts->seed, k + 1, t0, st->span_ns, opts->jitter);
	if ((rc = measure_place(in, opts, st, t0, jitter ? warps : NULL, off)) < 0) {
		rc = rp_fail(errbuf, rc, "out of memory");
		goto out;
	}
	uint64_t lo = UINT64_MAX;
	for (uint32_t k = 0; k < n; k++)
		lo = off[k] < lo ? off[k] : lo;
	st->offset_min = UINT64_MAX;
	for (uint32_t k = 0; k < n; k++) {
		off[k] -= lo; /* the first copy to start starts at the trace's own start (the correlation does not move) */
		st->offset_min = off[k] < st->offset_min ? off[k] : st->offset_min;
		st->offset_max = off[k] > st->offset_max ? off[k] : st->offset_max;
		snprintf(dirs[k], sizeof(dirs[k]), "/client%" PRIu32, k + 1);
		ins[k] = in;
		places[k] = (rp_merge_place){ .prefix = dirs[k], .t_offset = st->timed ? off[k] : 0,
					      .lead_sleep_ns = st->timed ? 0 : off[k] };
		if (offsets)
			offsets[k] = off[k];
		if (jitter) {
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
