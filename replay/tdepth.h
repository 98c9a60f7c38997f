/*
 * In flight at the target (tdepth.c): a client's requests between the
 * backend putting them on the wire (a synchronous backend: the engine
 * calling it) and their answers, as a depth over time (max, time-weighted
 * mean while any is there, the mean at each request, itself included) and
 * the latency of that interval.  Fed by the request lifecycle (req.c) only.
 */
#ifndef REPRISE_REPLAY_TDEPTH_H
#define REPRISE_REPLAY_TDEPTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "replay/backend.h"

struct rp_hist;

typedef struct rp_tdepth {
	uint32_t cur, max;
	uint64_t t_last;     /* CLOCK_MONOTONIC ns of the last event */
	uint64_t busy_ns;    /* time with at least one request at the target */
	uint64_t area;       /* the depth's integral, ns x requests (Little: the requests' times added up) */
	uint64_t requests;   /* requests measured (sent and answered) */
	uint64_t at_req_sum; /* the depth at each one's send, itself included */
	uint64_t unmeasured; /* requests the backend gave no times for (an asynchronous backend before version 11) */
	uint64_t warm_end;   /* latency counted for requests sent from then (CLOCK_MONOTONIC; 0: all) */
	struct rp_hist *lat; /* that latency, ns; NULL until the first */
	/* An asynchronous request being submitted: an answer inside its submit waits for its send to be counted. */
	const rp_breq *issuing;
	bool issuing_done;
	bool locked; /* the window's workers share it: every update under mu */
	pthread_mutex_t mu;
} rp_tdepth;

/* Zeroed, latency from warm_end on; shared by threads (window workers) when locked. */
void rp__tdepth_init(rp_tdepth *d, uint64_t warm_end, bool locked);
void rp__tdepth_fini(rp_tdepth *d);
/* A synchronous request starts now: counted at the target; its send time for rp__tdepth_end. */
uint64_t rp__tdepth_begin(rp_tdepth *d);
/* The synchronous request begun at sent has returned. */
void rp__tdepth_end(rp_tdepth *d, uint64_t sent);
/* An asynchronous request sent at `sent` (its backend's sent_ns). */
void rp__tdepth_sent(rp_tdepth *d, uint64_t sent);
/* An asynchronous request sent at `sent` answered at `done`. */
void rp__tdepth_done(rp_tdepth *d, uint64_t sent, uint64_t done);

#endif
