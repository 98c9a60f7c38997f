/*
 * replay --processes N: the run protocol of replay --mpi (replay/mpi_run.h) over N processes of
 * this host, forked from this one, each talking to process 0 over a socket pair.  A backend that
 * serialises its clients inside one process (libsmbclient's process-wide lock) then runs them in
 * parallel, and the results are merged as the ranks of an MPI job are (docs/replay.md, Processes).
 */
#ifndef REPRISE_REPLAY_PROCS_H
#define REPRISE_REPLAY_PROCS_H

#include "replay/mpi_comm.h"
#include "replay/mpi_run.h" /* RP_PROCS_MAX */

/*
 * The transport for a job of n processes (2..RP_PROCS_MAX).  Its init forks
 * the n - 1 others (after flushing stdio, so no buffered output is written
 * twice): each returns from it as rank 1..n-1, this process as rank 0.  One
 * job per process.  A process whose parent dies is killed (PR_SET_PDEATHSIG);
 * abort kills every other process of the job.
 */
const rp_mpi_comm *rp_procs_comm(unsigned n);

#endif
