/*
 * What a client records of each op: the per-second series, the op kind's
 * counts and latency histogram, the lag, the progress counters, the kinds of
 * mismatch.  The per-op path is inline (the client's hot path); its slow
 * paths are in client_stats.c.  Merged into the run's results by stats.c.
 */
#ifndef REPRISE_REPLAY_CLIENT_STATS_H
#define REPRISE_REPLAY_CLIENT_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "formats/status.h"
#include "replay/client.h"
#include "replay/engine.h"

#define RP__CSTATS_NS 1000000000ull

/* The series entry for time t, when t is past the cached second (NULL: no memory). */
rp_csecond *rp__cstats_second_slow(rp_client *c, uint64_t t);
/*
 * A mismatch: count it under its kind (op, expected, got), keeping the kind's
 * first example, and stop everything under --on-mismatch=abort.
 */
void rp__cstats_mismatch(rp_client *c, const rp_op *op, uint64_t index, int32_t expected, int32_t actual,
			 const char *path, bool measured);
/* A latency histogram, initialised; NULL without memory. */
rp_hist *rp__cstats_new_hist(void);

static inline __attribute__((always_inline)) rp_csecond *rp__cstats_second(rp_client *c, uint64_t t, bool windowed)
{
	/*
	 * Issue times only grow within a client, one op at a time: one compare per
	 * op until the second is over.  With the window, ops are recorded as they
	 * complete, so an earlier second may come back.
	 */
	if (windowed && t + RP__CSTATS_NS < c->sec_end)
		return rp__cstats_second_slow(c, t);
	return t < c->sec_end && c->sec ? c->sec : rp__cstats_second_slow(c, t);
}

/* trace and think timing: a measured op let go at t, scheduled from sched_s to sched_e (rp_replay_schedule). */
static inline void rp__cstats_sched(rp_client *c, uint64_t t, uint64_t sched_s, uint64_t sched_e)
{
	if (t < c->sp_first)
		c->sp_first = t;
	if (sched_s < c->sp_sched_first)
		c->sp_sched_first = sched_s;
	if (sched_e > c->sp_sched_last)
		c->sp_sched_last = sched_e;
}

static inline bool rp__cstats_matches(int32_t expected, int32_t actual)
{
	if (expected == actual || expected == RP_STATUS_UNKNOWN)
		return true;
	return expected == RP_STATUS_OTHER && actual != 0;
}

/* Statistics for one op that ran (or was refused by the engine: lat_ok false). */
static inline __attribute__((always_inline)) void rp__cstats_record(rp_client *c, const rp_op *op, uint64_t index,
								   uint64_t sched, uint64_t issue, uint64_t done,
								   bool lat_ok, int32_t expected, int32_t status,
								   uint64_t result, const char *path, bool windowed)
{
	const rp_replay *const r = c->r;
	/* Bytes moved: read, write and copy. */
	const bool io = ((1ull << RP_OP_READ | 1ull << RP_OP_WRITE | 1ull << RP_OP_COPY) >> op->op) & 1u;
	const uint64_t bytes = io && status == 0 ? result : 0;
	const uint64_t lag = issue > sched ? issue - sched : 0; /* sched is 0 in afap: no lag recorded below */

	rp_csecond *const s = rp__cstats_second(c, issue, windowed);
	if (s) {
		s->ops++;
		s->bytes += bytes;
		s->failures += status != 0;
		if (sched && lag > s->lag_max)
			s->lag_max = lag;
		if (lat_ok) {
			const uint64_t lat = done - issue;
			s->lat_n++;
			s->lat_sum += lat;
			if (lat > s->lat_max)
				s->lat_max = lat;
		}
	}
	/* Only this thread writes them: a relaxed store of a private running total, no read-modify-write. */
	atomic_store_explicit(&c->prog_ops, ++c->n_ops, memory_order_relaxed);
	if (bytes)
		atomic_store_explicit(&c->prog_bytes, c->n_bytes += bytes, memory_order_relaxed);
	if (sched && lag > atomic_load_explicit(&c->prog_lag_max, memory_order_relaxed))
		atomic_store_explicit(&c->prog_lag_max, lag, memory_order_relaxed);

	const bool bad = !rp__cstats_matches(expected, status);
	if (bad)
		rp__cstats_mismatch(c, op, index, expected, status, path, issue >= r->warm_end);
	if (issue < r->warm_end) {
		c->warmup_ops++;
		return;
	}
	rp_opacc *const a = &c->acc[op->op];
	a->count++;
	a->bytes += bytes;
	a->mismatches += bad;
	if (status != 0) {
		a->failures++;
		a->failures_expected += !bad;
		c->errnos[status > 0 && status < RP_REPLAY_ERRNO_MAX ? status : 0]++;
	}
	if (lat_ok && (a->lat || (a->lat = rp__cstats_new_hist())))
		rp__hist_add(a->lat, done - issue);
	if (sched)
		rp__hist_add(c->lag, lag);
}

#endif
