/*
 * Inside libreprise-replay: the run-wide context (rp_replay), the clock,
 * prepare and the final sync; each module has its own header (client.h,
 * window.h, share.h, ntsem.h, order.h, req.h, client_req.h, followup.h,
 * stats.h).
 */
#ifndef REPRISE_REPLAY_ENGINE_H
#define REPRISE_REPLAY_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "formats/plan.h"
#include "replay/handles.h"
#include "replay/hist.h"
#include "replay/ntsem.h"
#include "replay/order.h"
#include "replay/replay.h"
#include "replay/workload.h"

typedef struct rp_client rp_client;

/* In a handle table: the trace's open of this handle failed here (no backend handle is ever this). */
#define BH_FAILED UINT64_MAX
/* In a handle table: the backend cannot express this handle's open, nor so the ops on it. */
#define BH_UNSUPPORTED (UINT64_MAX - 1)
static inline bool rp__bh_real(uint64_t bh)
{
	return bh != BH_FAILED && bh != BH_UNSUPPORTED;
}

struct rp_replay {
	rp_replay_opts opts;
	char *target;
	const rp_backend_ops *bops;
	bool nt_layer;       /* the backend has no NT semantics of its own: replay/ntsem.c supplies them */
	rp_ntlocks ntlocks;  /* mandatory byte-range locks of every client */
	void *bstate;
	rp_backend_parsed bopts; /* --backend-opt, parsed against the backend's table */
	/* The backend's client_error (version 6 on; NULL when it has none): asked before each op. */
	int (*client_error)(void *backend, void *client, char *errbuf);
	uint64_t op_mask;        /* the ops the backend can express (its op_mask, 0 taken as every op), and dup and fork */
	uint64_t fast_mask;      /* op_mask without the ops resolve takes apart (dup, copy, fork) */
	rp_workload *w;
	rp_replay_clock clock;
	bool mono; /* clock is CLOCK_MONOTONIC: read it inline, not through clock.now */
	uint64_t spin_ns, offset_ns;
	double inv_speed;

	rp_image_opts image_opts; /* opts.image's, copied (spec points to image_spec) */
	rp_image_spec image_spec;
	rp_image image;          /* drawn by the scan when opts.image (formats/image.h) */
	unsigned image_try;      /* which name its directory has: rp-image (0), rp-image-2 (1), ... */
	rp_plan plan;            /* the scan's (formats/plan.h): clients, what prepare makes, loop conflicts */
	uint32_t *trace_clients; /* plan.clients */
	uint32_t n_trace_clients;
	rp_client **clients;
	uint32_t n_clients;
	const rp_plan_depth *rec_depth; /* recorded depth, by index in trace_clients (the plan's) */
	/*
	 * (trace client << 32 | op index in its pass) of the creations that find
	 * what the previous pass left (EEXIST in every pass after the first).
	 */
	rp_handles loop_conflicts;
	/*
	 * Backend handles referenced by more than one trace handle or client
	 * (dup, fork): bh + 1 -> references, present while any remains once
	 * shared; deferred: bh + 1 -> a delete-on-close path (malloc'd) waiting
	 * for that handle's last close.  Both, and every rp_shtab, under share_mu.
	 */
	pthread_mutex_t share_mu;
	/* wait ops sleep on wait_cv; a client that ends a pass (or its run) broadcasts it */
	pthread_mutex_t wait_mu;
	pthread_cond_t wait_cv;
	rp_handles refs, deferred;
	rp_order *order; /* --order=resource (order.c); NULL: per-client order only */
	bool prepared, started, finished;
	int start_rc; /* rp_replay_start failed after the run began (prepare): its error; the run stopped with "error" */

	/*
	 * Client threads that ended, a futex word: each bumps it and wakes the
	 * waiter as its last act (client_thread.c), so rp_replay_wait sees the end
	 * of the run at once instead of at its next look (a late wake-up is wall
	 * time of the run's process: up to 100 ms a run).
	 */
	_Atomic uint32_t ended;
	atomic_bool stop;   /* SIGINT, abort on mismatch */
	atomic_int aborted; /* set by a mismatch under RP_MISMATCH_ABORT */
	_Atomic uint64_t stop_at; /* when rp_replay_stop was first called (absolute ns; 0: not, or not known yet) */
	uint64_t t0, warm_end, end; /* absolute ns; end 0 = run each client through its trace once */
	rp_replay_results res;
};

/* clock.c */
static inline uint64_t rp__mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
/* The engine's clock (a vDSO read for the real one, no indirect call). */
static inline uint64_t rp__now(const rp_replay *r)
{
	return r->mono ? rp__mono_ns() : r->clock.now(r->clock.ctx);
}
uint64_t rp__clock_mono(void *ctx);
void rp__clock_mono_sleep(void *ctx, uint64_t deadline_ns);
/*
 * Wait for deadline with sleep-then-spin; returns the time seen, early if stop
 * is raised.  late_est (per client, may be NULL) learns how late sleeps wake.
 */
uint64_t rp__wait_until(const rp_replay *r, uint64_t *late_est, uint64_t deadline);

/* prepare.c */
int rp__scan(rp_replay *r, char *errbuf);
int rp__prepare_run(rp_replay *r, char *errbuf);
/* sync, then drop the page cache: 1, or the errno that prevented it (EPERM: not root). */
int rp__drop_caches(void);
void rp__prepare_free(rp_replay *r);

/* flush.c: /proc/meminfo's Dirty + Writeback in bytes (system-wide), -1 when unreadable. */
int64_t rp__dirty_bytes(void);
/* After the clients stopped: the dirty bytes left, then the final sync when asked (res.final_sync). */
void rp__final_sync(rp_replay *r);

#endif
