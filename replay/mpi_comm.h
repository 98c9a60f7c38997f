/*
 * The MPI transport reprise replay --mpi runs over (docs/mpi.md): a module,
 * reprise-mpi.so, the only code linked with libmpi, so that reprise without
 * --mpi never loads the MPI runtime (linking it costs some 10 ms at every start).
 */
#ifndef REPRISE_REPLAY_MPI_COMM_H
#define REPRISE_REPLAY_MPI_COMM_H

#include <stddef.h>
#include <stdint.h>

#define RP_MPI_COMM_VERSION 1
/* The module's file and the symbol of its rp_mpi_comm. */
#define RP_MPI_MODULE "reprise-mpi.so"
#define RP_MPI_SYMBOL "rp__mpi_comm"

/* Most ping-pong rounds per rank for the clock offsets. */
#define RP_MPI_CLOCK_ROUNDS_MAX 64

/*
 * Every call is collective over MPI_COMM_WORLD, rank 0 the root, and returns
 * 0 or a negative rp error with what went wrong in errbuf.  A wait is bounded:
 * past timeout_s (> 0) the call gives up with RP_E_INTERRUPTED ("timed out"),
 * and the caller aborts the job (a peer that never answers cannot be left).
 */
typedef struct rp_mpi_comm {
	unsigned version; /* RP_MPI_COMM_VERSION */
	/* MPI_Init_thread (only the calling thread makes MPI calls); this process's rank and the job's size. */
	int (*init)(int *rank, int *size, char *errbuf);
	/* n bytes from rank 0 into buf on every rank (any n: sent in pieces). */
	int (*bcast)(void *buf, size_t n, double timeout_s, char *errbuf);
	/* Every rank's n bytes, in rank order, into all (size * n bytes) on every rank. */
	int (*allgather)(const void *mine, size_t n, void *all, double timeout_s, char *errbuf);
	/*
	 * Every rank's bytes to rank 0: *all (malloc'd there, NULL elsewhere)
	 * holds them in rank order, sizes[rank] their lengths (size entries).
	 * More than max_total bytes in all is RP_E_LIMIT on every rank.
	 */
	int (*gatherv)(const void *mine, size_t n, uint8_t **all, size_t *sizes, size_t max_total, double timeout_s,
		       char *errbuf);
	/*
	 * Rank 0 measures every rank's CLOCK_REALTIME against its own with
	 * `rounds` ping-pongs, keeping the round with the least round trip:
	 * offset_ns[r] = rank r's clock - rank 0's, rtt_ns[r] that round trip
	 * (rank 0 only; both size entries; 0 for rank 0).
	 */
	int (*clock_offsets)(unsigned rounds, int64_t *offset_ns, int64_t *rtt_ns, double timeout_s, char *errbuf);
	/* The host this rank runs on (MPI_Get_processor_name). */
	void (*host)(char *buf, size_t cap);
	/* End the whole job now (MPI_Abort): every rank exits with code. */
	void (*abort)(int code);
	void (*finalize)(void);
} rp_mpi_comm;

#endif
