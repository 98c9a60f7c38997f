/* Runs' results as bytes, and the shares of one run merged into its results (reprise replay --mpi, docs/mpi.md). */
#ifndef REPRISE_REPLAY_MERGE_H
#define REPRISE_REPLAY_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "replay/replay.h"

/* The packed form's version (docs/mpi.md, "Results on the wire"); a reader refuses others. */
#define RP_MERGE_WIRE_VERSION 8

/*
 * A packed share over 64 MiB is corruption, not results: the largest run
 * (8192 clients, some 350 bytes each) with every op kind's histogram full
 * (34 KiB sparse at worst each) and an hour of per-second series packs to
 * under 3 MiB.
 */
#define RP_MERGE_WIRE_MAX (64u << 20)

/* At most this many shares in one merge (mpirun -np): far beyond one rank per client of the largest run. */
#define RP_MERGE_PARTS_MAX 65536

/*
 * res as little-endian bytes (malloc'd into *out, its length in *n): every
 * count, the histograms (sparse), the series, the samples and the clients.
 * 0 or RP_E_NOMEM.
 */
int rp_replay_results_pack(const rp_replay_results *res, uint8_t **out, size_t *n);

typedef struct rp_replay_merge rp_replay_merge;

/* A merge of n_parts shares (1..RP_MERGE_PARTS_MAX): 0, RP_E_RANGE or RP_E_NOMEM. */
int rp_replay_merge_create(rp_replay_merge **out, size_t n_parts);
void rp_replay_merge_destroy(rp_replay_merge *m); /* NULL is a no-op */

/*
 * Share `part` from what rp_replay_results_pack made (untrusted: a bad
 * buffer is RP_E_CORRUPT, RP_E_VERSION or RP_E_LIMIT with what was wrong in
 * errbuf, never a crash).  Each part once.
 */
int rp_replay_merge_add(rp_replay_merge *m, size_t part, const uint8_t *buf, size_t n, char *errbuf);
/* A share as added (NULL: not added); its histograms are its own. */
const rp_replay_results *rp_replay_merge_part(const rp_replay_merge *m, size_t part);

/*
 * Merge every share (all added) into one run's results: counts summed,
 * histograms merged bucket by bucket (so percentiles are those of one
 * histogram fed every sample), the per-second series summed second by second
 * (the shares started together), the clients and their depths in share order,
 * the measured period the longest share's.  0, RP_E_STATE (a share missing,
 * with which in errbuf) or RP_E_NOMEM.
 */
int rp_replay_merge_run(rp_replay_merge *m, char *errbuf);
/* The merged results (after rp_replay_merge_run; NULL before). */
const rp_replay_results *rp_replay_merge_results(const rp_replay_merge *m);

#endif
