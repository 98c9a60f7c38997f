/*
 * A replay client (client.c, its thread in client_thread.c): its state,
 * statistics and the run of its passes.
 */
#ifndef REPRISE_REPLAY_CLIENT_H
#define REPRISE_REPLAY_CLIENT_H

#include <pthread.h>
#include <stdatomic.h>

#include "formats/error.h"
#include "formats/path.h"
#include "replay/handles.h"
#include "replay/hist.h"
#include "replay/ntsem.h"
#include "replay/order.h"
#include "replay/replay.h"
#include "replay/share.h"
#include "replay/tdepth.h"
#include "replay/window.h"
#include "replay/workload.h"

/* One op kind's numbers for one client. */
typedef struct rp_opacc {
	rp_hist *lat; /* allocated on first use */
	uint64_t count, bytes, failures, mismatches, unknown, skipped, escapes;
	uint64_t failures_expected; /* failures that match the recorded status */
	uint64_t unsupported; /* the backend cannot express the op: never sent to it */
	uint64_t specials; /* refused: the path names a FIFO, device or socket (rp_breq.special) */
} rp_opacc;

/* One second of one client's run (lag in ns). */
typedef struct rp_csecond {
	uint64_t ops, bytes, failures, lag_max;
	uint64_t lat_n, lat_sum, lat_max; /* ops with a latency, and their latencies (ns) */
} rp_csecond;

/* A trace path after normalisation: the string, or why it cannot be used. */
typedef struct rp_pathent {
	char *s;
	int err; /* 0, EXDEV (escapes), ENAMETOOLONG, EINVAL */
} rp_pathent;

typedef struct rp_client {
	rp_replay *r;
	uint32_t index;        /* 0 .. n_clients-1 */
	uint32_t trace_client; /* its client id in the trace */
	uint32_t clone;        /* which copy (0 when not cloning) */
	char dir[24];          /* beneath the target: "client3", or "" */
	void *bstate;          /* backend per-client state */
	bool binit;
	bool async;            /* the backend completes through poll() */
	rp_op_source *src;
	rp_op scratch;         /* an op the engine rewrote (loop_open) */
	rp_handles handles;
	/*
	 * The table shared with other threads (NULL: handles is the client's own,
	 * read without a lock: a client that never forks pays nothing).
	 */
	rp_shtab *sh;
	bool refd;      /* holds a backend handle that others may reference too (dup, fork): closes count references */
	rp_gate *gate;  /* made by a fork op of another client; NULL: starts at once */
	rp_ntclient nt;    /* the NT layer's view of its handles (replay/ntsem.c) */
	rp_followups fu;   /* what the NT layer and sharing left to issue (deletes at a last close): client_req.c */
	rp_pathent *paths; /* by string id */
	size_t n_paths;

	rp_opacc acc[RP_OP__COUNT];
	rp_hist *lag;
	uint64_t warmup_ops, passes;
	uint64_t last_done; /* completion time of its last op */
	/*
	 * trace and think timing, over its measured ops: the first one's issue,
	 * and their schedule's earliest start and latest end (UINT64_MAX, 0: none yet).
	 */
	uint64_t sp_first, sp_sched_first, sp_sched_last;
	uint64_t errnos[RP_REPLAY_ERRNO_MAX];
	rp_csecond *series;
	size_t n_series;
	rp_csecond *sec;  /* the series entry of the current second (NULL: none yet, or no memory) */
	uint64_t sec_end; /* absolute ns at which that second ends */
	uint64_t n_ops, n_bytes; /* running totals, published to prog_* */
	uint64_t late_est;       /* how late its sleeps have been waking (rp__wait_until) */
	rp_replay_sample samples[RP_REPLAY_SAMPLES]; /* one per kind of mismatch, with its count */
	size_t n_samples;
	uint64_t sample_others; /* mismatches of further kinds */
	rp_stop stop; /* why it stopped; RP_STOP__COUNT until it does */
	int rc;
	char errbuf[RP_ERRBUF_SIZE];
	/*
	 * A backend that cannot go on (submit returned an rp error: its server
	 * went away): the error, and the op and status it failed with; set once,
	 * from any of the client's threads, read by the client when it stops.
	 */
	_Atomic int fatal;
	_Atomic int32_t fatal_status;
	_Atomic unsigned fatal_op;
	pthread_t thread;
	bool started;
	rp_window *win; /* --max-inflight > 1; NULL: one op at a time, as before */
	rp_handles hpath; /* window: trace handle -> path id of its (successful) open, for the keys of handle ops */
	/* In-flight depth at each backend issue (window only; with one at a time it is 1). */
	uint64_t depth_ops, depth_sum;
	uint32_t depth_max;
	rp_tdepth tdepth;       /* in flight at the target: its requests from the backend's send to the answer */
	uint32_t bound;         /* its ops in flight at most (--max-inflight, auto: its recorded depth, capped) */

	/* Read by the progress snapshot; written with relaxed stores, on its own cache line. */
	_Alignas(64) _Atomic uint64_t prog_ops;
	_Atomic uint64_t prog_bytes;
	_Atomic uint64_t prog_lag_max;
	_Atomic int running;
	/* For wait ops (replay/share.c): passes this client has finished (UINT64_MAX once it ended), and the
	 * client it is blocked on (index + 1; 0: none), which a wait follows to find a cycle. */
	_Atomic uint64_t passes_done;
	_Atomic uint32_t waiting_for;
	/* --order=resource (order.c): its trace client's places, its copy's done counts, a cursor, the waits. */
	const rp_ordclient *ord;
	_Atomic uint32_t *ord_done;
	uint32_t ord_x;
	uint64_t ord_wait_ns, ord_waits;
} rp_client;

/* client.c */
void rp__client_free(rp_client *c);
/* The client's passes through its ops until the end, the time limit, a stop or an error (c->stop says which), its window drained. */
void rp__client_run(rp_client *c);
/* Every handle the client holds released (after a pass, and when it stops). */
void rp__client_release_all(rp_client *c);
/* The size of the client's window slots (rp__win_create): an rp_slot and what the op's end needs. */
extern const size_t rp__client_slot_size;

/* client_thread.c: the client's thread (pthread_create's start routine). */
void *rp__client_main(void *arg);

#endif
