/* A run's verdict (verdict.c): the schedule kept or not, representative or not, and the likely cause. */
#ifndef REPRISE_REPLAY_VERDICT_H
#define REPRISE_REPLAY_VERDICT_H

#include "replay/replay.h"

/*
 * s's spans and ratio from its first, last and scheduled times (known set,
 * thresholds filled), and whether the run fell behind given the issue lag's p99.
 */
void rp__verdict_schedule(rp_replay_schedule *s, double lag_p99_us);
/*
 * The whole verdict of merged results (a run's or an MPI job's): the
 * schedule's as above, then the mismatch share, representative, and the
 * likely cause from the counts, the kinds of mismatch, prepare, the order,
 * the trace's clients and the target's entries before the run.
 */
void rp__verdict(rp_replay_results *res);

#endif
