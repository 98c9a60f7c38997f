/* replay --mpi's run protocol over the MPI transport (mpi_comm.h): agree, share the trace, prepare, start together, gather (docs/mpi.md). */
#ifndef REPRISE_REPLAY_MPI_RUN_H
#define REPRISE_REPLAY_MPI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/merge.h"
#include "replay/replay.h"

/* A trace over this much is not broadcast: every rank opens the same path (a shared file system; docs/mpi.md). */
#define RP_MPI_TRACE_MAX (256ull << 20)
/* At most this much packed results reach rank 0 in all: 100 hosts x 64 clients pack to some 2 MiB (docs/mpi.md). */
#define RP_MPI_GATHER_MAX (1ull << 30)
/* Ping-pong rounds per rank for the clock offsets: the least round trip of these is kept. */
#define RP_MPI_CLOCK_ROUNDS 16

typedef struct rp_mpi_run_opts {
	double timeout_s; /* the longest a rank waits for the others in one phase (> 0) */
	/*
	 * A message for the user, one sentence: on rank 0 the ranks that failed a
	 * phase and notes on the trace; on any rank what made it end the job
	 * (a transport failure: the job is aborted right after).
	 */
	void (*say)(void *ctx, const char *msg);
	/* Optional: rewrite a message that names the trace's local path so it names the trace as given. */
	void (*fix_msg)(void *ctx, char *msg, size_t size);
	void *ctx;
} rp_mpi_run_opts;

/* What a rank is, as rank 0 knows after the phases. */
typedef struct rp_mpi_rank {
	char host[64];
	int64_t offset_ns;   /* its CLOCK_REALTIME - rank 0's (after rp_mpi_run_start_together) */
	int64_t rtt_ns;      /* the round trip of that measurement */
	size_t result_bytes; /* its packed results (rank 0, after rp_mpi_run_gather) */
} rp_mpi_rank;

typedef struct rp_mpi_run rp_mpi_run;

/* Load the transport module and join the job: 0, or an rp error with errbuf (nothing to end). */
int rp_mpi_run_create(rp_mpi_run **out, const rp_mpi_run_opts *o, char *errbuf);
/* replay --processes: at most this many (each holds its own backend connection and trace reader). */
#define RP_PROCS_MAX 256
/* replay's default for smb:// with --clients N: one process per copy, up to this many. */
#define RP_PROCS_AUTO 64

/*
 * The same over nprocs processes of this host (2..RP_PROCS_MAX, replay/procs.h):
 * this call forks the others, each returning from it as its own rank.
 */
int rp_mpi_run_create_local(rp_mpi_run **out, unsigned nprocs, const rp_mpi_run_opts *o, char *errbuf);
/* The same over a transport given (internal: the unit tests run ranks as threads over an in-process one). */
struct rp_mpi_comm;
int rp__mpi_run_create_with(rp_mpi_run **out, const struct rp_mpi_comm *comm, const rp_mpi_run_opts *o,
			    char *errbuf);
/* Leave the job (MPI_Finalize) and free; NULL is a no-op. */
void rp_mpi_run_destroy(rp_mpi_run *m);
int rp_mpi_run_rank(const rp_mpi_run *m);
int rp_mpi_run_size(const rp_mpi_run *m);
/* Every rank's, in rank order (hosts from the first check on). */
const rp_mpi_rank *rp_mpi_run_ranks(const rp_mpi_run *m);
/* The common start, rank 0's CLOCK_REALTIME in ns since the epoch. */
int64_t rp_mpi_run_start_ns(const rp_mpi_run *m);
/* The run's --clients over all ranks, once rp_mpi_run_setup has it (0: the trace's own clients). */
uint32_t rp_mpi_run_clones(const rp_mpi_run *m);

/* This rank failed (exit status rc, why) in the phase under way: the next check says so. */
void rp_mpi_run_fail(rp_mpi_run *m, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Whether this rank has failed in the phase under way. */
bool rp_mpi_run_failed(const rp_mpi_run *m);
/*
 * The end of a phase: every rank's status to every rank.  0 when all are
 * fine; else rank 0 says each rank that failed (phase: rank N (host): why),
 * and every rank returns the worst status.
 */
int rp_mpi_run_check(rp_mpi_run *m, const char *phase);

/*
 * The same command line on every rank (argv[0] aside, which may differ by
 * host), and what --mpi cannot do: too few --clients copies for the ranks,
 * --order=resource.  A check: 0, or 2 on every rank.
 */
int rp_mpi_run_check_options(rp_mpi_run *m, int argc, char *const *argv, const rp_replay_opts *ro);

/* How the trace reached this rank (rp_mpi_run_share_trace). */
typedef enum rp_mpi_trace_mode {
	RP_MPI_TRACE_NONE = 0,  /* rank 0 could not open or read it: the run stops */
	RP_MPI_TRACE_BYTES = 1, /* broadcast: on ranks but 0, fd is an unlinked file with them */
	RP_MPI_TRACE_PATH = 2,  /* over RP_MPI_TRACE_MAX: every rank opens the path itself (a shared file system) */
} rp_mpi_trace_mode;

typedef struct rp_mpi_trace {
	rp_mpi_trace_mode mode;
	int fd;        /* RP_MPI_TRACE_BYTES, ranks but 0: the file ($TMPDIR, unlinked), or -1 after rp_mpi_run_fail */
	uint64_t size; /* its bytes */
} rp_mpi_trace;

/*
 * The trace from rank 0 to every rank.  On rank 0, status is how opening it
 * went (0, or an exit status), path the file opened, name the trace as given.
 * Returns 0, or (RP_MPI_TRACE_NONE) the exit status on every rank; the caller
 * then ends the phase with rp_mpi_run_check(m, "trace"), after opening the
 * path itself on ranks but 0 for RP_MPI_TRACE_PATH.
 */
int rp_mpi_run_share_trace(rp_mpi_run *m, int status, const char *path, const char *name, rp_mpi_trace *t);

/*
 * Open the workload at path and prepare this rank's share, checking that
 * every rank could ("prepare", "setup").  Copies (ro->clones): each rank
 * prepares its own copies, [first, first + count) of them, whose directories
 * are disjoint.  A trace's own clients share the target: rank 0 prepares it
 * once for all of them, the others wait, then each rank runs its clients,
 * dealt by client id (replay/subset.h), without a prepare.  *full, *w and *rr
 * are the caller's to destroy (*rr, then *w, then *full) whatever it returns.
 */
int rp_mpi_run_setup(rp_mpi_run *m, const char *path, const rp_replay_opts *ro, bool lenient, rp_workload **full,
		     rp_workload **w, rp_replay **rr);

/* Rank 0 measures the clocks, picks a start ahead of them all and tells every rank; each waits for it. */
void rp_mpi_run_start_together(rp_mpi_run *m);

/*
 * After this rank's run (run_rc < 0: it failed; its error is in its
 * results): every rank's results to rank 0, then the "run" check, whose
 * status it returns.
 */
int rp_mpi_run_gather(rp_mpi_run *m, const rp_replay *r, int run_rc);

/* Rank 0: the ranks' results merged (*mg the caller's), and how long that took: 0, or an rp error with errbuf. */
int rp_mpi_run_merge(rp_mpi_run *m, rp_replay_merge **mg, double *merge_s, char *errbuf);

/* After the table: one line per rank, with its clock against rank 0's. */
void rp_mpi_run_write_ranks(const rp_mpi_run *m, const rp_replay_merge *mg, FILE *f);

/*
 * Rank 0, after rp_mpi_run_merge: the merged results as replay --json
 * writes them (with prov), and the ranks added ("ranks"; "mpi": the start,
 * the clock rounds, the bytes gathered, merge_s, and per rank its host,
 * first copy, clients, stop, error, counts, clock and share's size), to f.
 * RP_OK; RP_E_NOMEM before anything is written; RP_E_IO when the document
 * could not be made or written (a write error stays on f for the caller's
 * check); the message in errbuf.
 */
int rp_mpi_run_write_json(const rp_mpi_run *m, const rp_replay_merge *mg, double merge_s,
			  const rp_replay_provenance *prov, FILE *f, char *errbuf);

#endif
