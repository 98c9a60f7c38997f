/* A workload that shows only some of another's clients: a trace's own clients dealt across processes (replay --mpi). */
#ifndef REPRISE_REPLAY_SUBSET_H
#define REPRISE_REPLAY_SUBSET_H

#include <stdint.h>

#include "replay/replay.h"

/*
 * Over inner (which must outlive it; destroying the subset leaves inner
 * alone): the trace's distinct client ids in increasing order, the i-th kept
 * when i % parts == part, so `parts` subsets with part 0..parts-1 deal every
 * client out exactly once, about evenly.  The engine run on it sees only the
 * kept clients: its scan, prepare plan and client threads are theirs.
 *
 * Clients that fork or wait for each other cannot be split (their relation
 * would cross processes): a trace with fork or wait ops is RP_E_UNSUPPORTED.
 * Fewer clients than parts is RP_E_RANGE; more than RP_REPLAY_CLIENTS_MAX,
 * RP_E_LIMIT.  *n_clients (may be NULL) gets the trace's client count.
 */
int rp_workload_open_subset(rp_workload **out, rp_workload *inner, uint32_t part, uint32_t parts,
			    uint32_t *n_clients, char *errbuf);

#endif
