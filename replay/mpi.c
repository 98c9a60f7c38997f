/* reprise-mpi.so: collectives with bounded waits and clock offsets over Open MPI (MPI 3.1 nonblocking collectives). */
#include "replay/mpi_comm.h"

#include <limits.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/error.h"

/* A bcast goes in pieces of at most this much: MPI counts are ints. */
#define PIECE (64u << 20)

static int64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int mpi_fail(char *errbuf, int code, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "error %d", code);
	return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", what, msg);
}

/*
 * Wait for req: spin for the first millisecond (a ping-pong's round trip is
 * microseconds), then poll each 200 us, up to timeout_s (<= 0: no limit).
 */
static int wait_req(MPI_Request *req, double timeout_s, const char *what, char *errbuf)
{
	const double t0 = mono_s();
	for (;;) {
		int done = 0;
		const int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS)
			return mpi_fail(errbuf, rc, what);
		if (done)
			return 0;
		const double waited = mono_s() - t0;
		if (timeout_s > 0 && waited > timeout_s)
			return rp_fail(errbuf, RP_E_INTERRUPTED, "%s: timed out after %.0f s (--mpi-timeout)", what, timeout_s);
		if (waited > 1e-3) {
			const struct timespec nap = { 0, 200000 };
			nanosleep(&nap, NULL);
		}
	}
}

static int init(int *rank, int *size, char *errbuf)
{
	int provided = 0;
	int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
	if (rc != MPI_SUCCESS)
		return rp_fail(errbuf, RP_E_SYSTEM, "MPI_Init_thread failed (%d)", rc);
	/* Errors come back to us, so a failed call is reported with what it was doing. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if ((rc = MPI_Comm_rank(MPI_COMM_WORLD, rank)) != MPI_SUCCESS ||
	    (rc = MPI_Comm_size(MPI_COMM_WORLD, size)) != MPI_SUCCESS)
		return mpi_fail(errbuf, rc, "MPI_Comm_rank");
	return 0;
}

static int bcast(void *buf, size_t n, double timeout_s, char *errbuf)
{
	for (size_t at = 0; at < n || n == 0;) {
		const size_t piece = n - at > PIECE ? PIECE : n - at;
		MPI_Request req;
		const int rc = MPI_Ibcast((char *)buf + at, (int)piece, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
		if (rc != MPI_SUCCESS)
			return mpi_fail(errbuf, rc, "MPI_Ibcast");
		const int wrc = wait_req(&req, timeout_s, "broadcast", errbuf);
		if (wrc < 0)
			return wrc;
		at += piece;
		if (n == 0)
			break;
	}
	return 0;
}

static int allgather(const void *mine, size_t n, void *all, double timeout_s, char *errbuf)
{
	if (n > INT_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "allgather of %zu bytes", n);
	MPI_Request req;
	const int rc = MPI_Iallgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, MPI_COMM_WORLD, &req);
	if (rc != MPI_SUCCESS)
		return mpi_fail(errbuf, rc, "MPI_Iallgather");
	return wait_req(&req, timeout_s, "allgather", errbuf);
}

static int gatherv(const void *mine, size_t n, uint8_t **all, size_t *sizes, size_t max_total, double timeout_s,
		   char *errbuf)
{
	*all = NULL;
	int rank = 0, size = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* The sizes first, on every rank, so a share too large fails everywhere alike. */
	uint64_t *const ns = calloc((size_t)size, sizeof(*ns));
	int *const counts = calloc((size_t)size, sizeof(*counts));
	int *const displs = calloc((size_t)size, sizeof(*displs));
	int rc = ns && counts && displs ? 0 : rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	const uint64_t mine_n = n;
	if (rc == 0)
		rc = allgather(&mine_n, sizeof(mine_n), ns, timeout_s, errbuf);
	uint64_t total = 0;
	for (int r = 0; rc == 0 && r < size; r++) {
		sizes[r] = (size_t)ns[r];
		if (ns[r] > INT_MAX || total + ns[r] > max_total || total + ns[r] > INT_MAX)
			rc = rp_fail(errbuf, RP_E_LIMIT, "rank %d's results (%llu bytes) pass the gather's limit of %zu bytes",
				     r, (unsigned long long)ns[r], max_total < INT_MAX ? max_total : (size_t)INT_MAX);
		else {
			counts[r] = (int)ns[r];
			displs[r] = (int)total;
			total += ns[r];
		}
	}
	uint8_t *buf = NULL;
	if (rc == 0 && rank == 0 && !(buf = malloc(total ? total : 1)))
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	if (rc == 0) {
		MPI_Request req;
		const int mrc = MPI_Igatherv(mine, (int)n, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
		rc = mrc != MPI_SUCCESS ? mpi_fail(errbuf, mrc, "MPI_Igatherv") : wait_req(&req, timeout_s, "gather", errbuf);
	}
	free(ns);
	free(counts);
	free(displs);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*all = buf;
	return 0;
}

/* One round trip: rank 0 sends its clock, peer answers with its own; both messages are one int64. */
static int ping(int peer, int64_t *offset, int64_t *rtt, double timeout_s, char *errbuf)
{
	int64_t t0 = realtime_ns(), theirs = 0;
	MPI_Request req;
	int rc = MPI_Irecv(&theirs, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD, &req);
	if (rc == MPI_SUCCESS)
		rc = MPI_Send(&t0, 1, MPI_INT64_T, peer, 0, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		return mpi_fail(errbuf, rc, "clock ping");
	const int wrc = wait_req(&req, timeout_s, "clock ping", errbuf);
	if (wrc < 0)
		return wrc;
	const int64_t t1 = realtime_ns();
	*rtt = t1 - t0;
	/* The peer read its clock halfway through the round trip, as far as we can know. */
	*offset = theirs - (t0 + *rtt / 2);
	return 0;
}

static int clock_offsets(unsigned rounds, int64_t *offset_ns, int64_t *rtt_ns, double timeout_s, char *errbuf)
{
	int rank = 0, size = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rounds == 0 || rounds > RP_MPI_CLOCK_ROUNDS_MAX)
		return rp_fail(errbuf, RP_E_RANGE, "%u clock rounds", rounds);
	if (rank != 0) {
		for (unsigned k = 0; k < rounds; k++) {
			int64_t t = 0;
			MPI_Request req;
			int rc = MPI_Irecv(&t, 1, MPI_INT64_T, 0, 0, MPI_COMM_WORLD, &req);
			if (rc != MPI_SUCCESS)
				return mpi_fail(errbuf, rc, "clock pong");
			/* Rank 0 pings the ranks one after another: a long job waits its turn. */
			rc = wait_req(&req, timeout_s, "clock pong", errbuf);
			if (rc < 0)
				return rc;
			t = realtime_ns();
			if ((rc = MPI_Send(&t, 1, MPI_INT64_T, 0, 1, MPI_COMM_WORLD)) != MPI_SUCCESS)
				return mpi_fail(errbuf, rc, "clock pong");
		}
		return 0;
	}
	offset_ns[0] = rtt_ns[0] = 0;
	for (int peer = 1; peer < size; peer++) {
		rtt_ns[peer] = INT64_MAX;
		for (unsigned k = 0; k < rounds; k++) {
			int64_t off = 0, rtt = 0;
			const int rc = ping(peer, &off, &rtt, timeout_s, errbuf);
			if (rc < 0)
				return rc;
			if (rtt < rtt_ns[peer]) {
				rtt_ns[peer] = rtt;
				offset_ns[peer] = off;
			}
		}
	}
	return 0;
}

static void host(char *buf, size_t cap)
{
	char name[MPI_MAX_PROCESSOR_NAME];
	int len = 0;
	if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS)
		snprintf(name, sizeof(name), "?");
	snprintf(buf, cap, "%s", name);
}

static void abort_job(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

static void finalize(void)
{
	MPI_Finalize();
}

__attribute__((visibility("default"))) extern const rp_mpi_comm rp__mpi_comm;
const rp_mpi_comm rp__mpi_comm = {
	.version = RP_MPI_COMM_VERSION,
	.init = init,
	.bcast = bcast,
	.allgather = allgather,
	.gatherv = gatherv,
	.clock_offsets = clock_offsets,
	.host = host,
	.abort = abort_job,
	.finalize = finalize,
};
