/* The run's statistics (stats.c): the clients' merged into the results, and the pieces merge.c shares. */
#ifndef REPRISE_REPLAY_STATS_H
#define REPRISE_REPLAY_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "replay/hist.h"
#include "replay/replay.h"

/* The clients' counts, histograms and series into r->res, once they stopped: 0 or RP_E_NOMEM. */
int rp__stats_merge(rp_replay *r);
/* Free the histograms the results keep (rp_replay_destroy). */
void rp__stats_free(rp_replay_results *res);
/* An op's latency fields and distribution from its histogram, and a distribution alone (replay/merge.c). */
void rp__stats_opstats_fill(rp_replay_opstats *o, const rp_hist *h);
void rp__stats_lat_fill(rp_replay_lat *l, const rp_hist *h);
/* Op kind op's counts (res->op[op] merged from clients or shares) into the run's totals (sleeps: no ops, no bytes). */
void rp__stats_add_opstats(rp_replay_results *res, unsigned op, const rp_replay_opstats *o);
/* res->depth (the run's in-flight depths) from its clients' (res->client_depth): the largest, and the means of those that issued. */
void rp__stats_depth_total(rp_replay_results *res);
/* d's means at the target (tgt_mean, tgt_busy_mean) from its sums. */
void rp__stats_tdepth_means(rp_replay_depth *d);
/* Kinds of mismatch into res's: the same kind adds its count, the first example stays, past RP_REPLAY_SAMPLES counted in others. */
void rp__stats_add_samples(rp_replay_results *res, const rp_replay_sample *samples, size_t n, uint64_t others);

#endif
