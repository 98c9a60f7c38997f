/* Inside libreprise-replay: the engine's state, shared by engine.c, client.c, prepare.c and stats.c. */
#ifndef REPRISE_REPLAY_ENGINE_H
#define REPRISE_REPLAY_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "replay/handles.h"
#include "replay/hist.h"
#include "replay/ntsem.h"
#include "replay/order.h"
#include "replay/replay.h"
#include "replay/workload.h"
#include "formats/path.h"
#include "formats/plan.h"

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

/*
 * What the in-flight window knows of an op to order it (window.c): its
 * recorded times, handle, byte range and the names it touches (its paths, or
 * for an op on a handle the path that handle was opened with).
 */
enum rp_wkind {
	RP_WK_CHANGE = 1u << 0,  /* may change its names: create, remove, rename, set attributes, close */
	RP_WK_READ = 1u << 1,    /* reads [off, end) of its handle */
	RP_WK_WRITE = 1u << 2,   /* writes [off, end) of its handle */
	RP_WK_ORDERED = 1u << 3, /* keeps its order with every op on its handle (open, close, locks, ...) */
};
typedef struct rp_wkey {
	uint64_t t_start, rec_end; /* recorded; rec_end = t_start when the end is unknown */
	uint64_t handle;           /* trace handle, 0 = none */
	uint64_t off, end;         /* read/write byte range */
	const char *name[2];       /* normalised, NULL = none */
	unsigned kind;             /* rp_wkind */
} rp_wkey;

/* The key of op, whose names are name and name2 (either NULL). */
void rp__win_key(rp_wkey *k, const rp_op *op, const char *name, const char *name2);
/* The dependency rule (docs/replay.md): must `later` wait for `earlier` to complete? */
bool rp__win_depends(const rp_wkey *earlier, const rp_wkey *later);


/* window.c: up to --max-inflight ops of one client in flight at once. */
typedef struct rp_window rp_window;
typedef struct rp_worker rp_worker;
typedef struct rp_client rp_client;

/* One op in flight: copies of what it needs, since the source's batch moves on. */
typedef struct rp_slot {
	rp_op op;  /* the trace op */
	rp_op alt; /* the op the engine issues instead (loop_open), when req.op points here */
	rp_breq req;
	rp_wkey key;
	uint64_t index, sched, issue, done;
	uint64_t posted; /* when the client handed it to a worker */
	rp_ordreq ord;   /* --order=resource: moved on when it is reaped */
	_Atomic bool finished; /* set by the worker (release) or the async callback */
	bool busy;
	rp_worker *worker; /* NULL: an asynchronous backend has it */
	rp_client *c;
} rp_slot;

/*
 * What the window calls back in its client (client.c's rp__client_win_hooks),
 * so that it calls nothing above it: the NT layer before an op (true: the
 * layer answered it, req->status set) and an op's end (handle table,
 * statistics, resource order), each op exactly once.
 */
typedef struct rp_win_hooks {
	bool (*pre)(rp_client *c, const rp_op *op, rp_breq *req);
	void (*finish)(rp_client *c, const rp_op *op, rp_breq *req, uint64_t index, uint64_t sched, uint64_t issue,
		       uint64_t done, const rp_ordreq *ord);
} rp_win_hooks;

struct rp_window {
	rp_client *c;
	const rp_win_hooks *hooks;
	uint32_t max;      /* --max-inflight */
	uint32_t n;        /* slots busy */
	rp_slot *slots;    /* max of them */
	rp_worker **workers; /* synchronous backends: max - 1 threads */
	uint32_t n_workers;
	bool async;        /* submit + poll instead of workers */
	rp_handles hpath;  /* trace handle -> path id of its (successful) open, for the names of handle ops */
	/*
	 * Moving averages (ns): how long each kind of op takes on this backend,
	 * and how long a hand-off to a worker takes to start it.  An op faster
	 * than a hand-off runs on the client thread.
	 */
	uint64_t lat_est[RP_OP__COUNT];
	uint64_t handoff_est;
	_Alignas(64) _Atomic uint32_t completions; /* futex word the client sleeps on */
	_Atomic int waiting;
};

/* In a handle table: the trace's open of this handle failed here (no backend handle is ever this). */
#define BH_FAILED UINT64_MAX
/* In a handle table: the backend cannot express this handle's open, nor so the ops on it. */
#define BH_UNSUPPORTED (UINT64_MAX - 1)
static inline bool rp__bh_real(uint64_t bh)
{
	return bh != BH_FAILED && bh != BH_UNSUPPORTED;
}

/* rp_breq.hold: the references a request holds until it completes (share.c). */
enum rp_hold {
	RP__HOLD_BH = 1u << 0,   /* on bh: its table is shared with other threads, which may close it meanwhile */
	RP__HOLD_BH2 = 1u << 1,  /* on bh2, likewise */
	RP__HOLD_LAST = 1u << 2, /* a close of bh's last reference: what waits for its last close follows it */
};

/*
 * A handle table shared by clients that are threads of one process (a fork
 * op with RP_FK_SHARE): guarded by rp_replay.share_mu, freed by the last
 * client to leave it.
 */
typedef struct rp_shtab {
	rp_handles tab;
	uint32_t users;
} rp_shtab;

/*
 * A client made by a fork op of another (the scan found it: rp_plan.parent):
 * it starts each pass once its parent's fork op has been replayed, with the
 * handles that op handed over.  Guarded by mu.
 */
typedef struct rp_gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t opened;    /* fork ops of the parent replayed so far */
	uint32_t parent;    /* the parent's rp_client.index */
	bool parent_gone;   /* the parent's thread ended: no fork op comes any more */
	bool child_gone;    /* the child's thread ended: the parent keeps what it would hand over */
	rp_shtab *sh;       /* handed over: the table to share (users counts the child) */
	rp_handles copy;    /* or the child's copies of the parent's handles, a reference held on each */
	bool has_copy;
} rp_gate;

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
	rp_pathent *paths; /* by string id */
	size_t n_paths;

	rp_opacc acc[RP_OP__COUNT];
	rp_hist *lag;
	uint64_t warmup_ops, passes;
	uint64_t last_done; /* completion time of its last op */
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
	const char *stop; /* why it stopped */
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
	/* In-flight depth at each backend issue (window only; with one at a time it is 1). */
	uint64_t depth_ops, depth_sum;
	uint32_t depth_max;

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
	/* prepare.c: its first backend error (rc 0: none), with the op and status, which fails prepare */
	struct { int rc; int32_t status; unsigned op; } prep_err;

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
/* /proc/meminfo's Dirty + Writeback in bytes (system-wide), -1 when unreadable (replay/flush.c). */
int64_t rp__dirty_bytes(void);
/* After the clients stopped: the dirty bytes left, then the final sync when asked (res.final_sync). */
void rp__final_sync(rp_replay *r);
void rp__prepare_free(rp_replay *r);


/* client.c */
void rp__client_free(rp_client *c);
/* The client's passes through its ops until the end, the time limit, a stop or an error (c->stop says which), its window drained. */
void rp__client_run(rp_client *c);
/* Every handle the client holds released (after a pass, and when it stops). */
void rp__client_release_all(rp_client *c);
/*
 * The NT layer before op reaches the backend (client thread): true when the
 * layer completed it itself (req->status set: an access refused, a
 * delete-on-close set-info), false to hand it to the backend.
 */
bool rp__client_nt_pre(rp_client *c, const rp_op *op, rp_breq *req);
/* After an op completed: the handle table, the statistics (what exec does once the backend returned). */
void rp__client_finish(rp_client *c, const rp_op *op, rp_breq *req, uint64_t index, uint64_t sched, uint64_t issue,
		       uint64_t done);
/* The window's calls into the client: rp__client_nt_pre, and rp__client_finish then resource order's done. */
extern const rp_win_hooks rp__client_win_hooks;

/* client_thread.c: the client's thread (pthread_create's start routine). */
void *rp__client_main(void *arg);

/* share.c: handles held by several trace handles or clients (docs/replay.md "Forks, threads and dups"). */
void rp__share_init(rp_replay *r);
void rp__share_fini(rp_replay *r);
/* The gates of the clients made by fork ops (after the clients are made): 0 or RP_E_NOMEM. */
int rp__share_gates(rp_replay *r, char *errbuf);
void rp__share_gate_free(rp_client *c);
/* One more reference on bh: 0 or RP_E_NOMEM. */
int rp__share_hold(rp_replay *r, uint64_t bh);
/* Drop a reference: true when it was the last (the caller closes or releases bh). */
bool rp__share_drop(rp_replay *r, uint64_t bh);
/* Drop a reference and release bh if it was the last (and what waited for that). */
void rp__share_release(rp_client *c, uint64_t bh);
/* Whether bh is still referenced (after the caller dropped its own). */
bool rp__share_held(rp_replay *r, uint64_t bh);
/* A delete-on-close of `where` to carry out at bh's last close (ntsem.c): 0 or RP_E_NOMEM. */
int rp__share_defer(rp_replay *r, uint64_t bh, const char *where);
/* bh's last reference went: a delete deferred to it now. */
void rp__share_last(rp_client *c, uint64_t bh);
/* The table ops through the shared table (c->sh set); hold: take a reference on a real bh found. */
int rp__sh_get(rp_client *c, uint64_t key, uint64_t *val, bool hold);
int rp__sh_put(rp_client *c, uint64_t key, uint64_t val);
int rp__sh_del(rp_client *c, uint64_t key, uint64_t *val);
/*
 * A close of handle by a client with references (c->refd): its entry goes;
 * *bh is what it held.  1: bh was the last reference (the backend closes
 * it), 0: others hold it (the close is the engine's), -1: no entry.
 */
int rp__share_close(rp_client *c, uint64_t handle, uint64_t *bh);
/* The parent's fork op: hand the child its table or copies, and let it start.  The status of the op. */
int32_t rp__share_fork(rp_client *c, const rp_op *op);
/* A wait op: block until the child client has finished this pass (or ended, or the run stops); 0. */
int32_t rp__share_wait(rp_client *c, const rp_op *op);
/* c finished `passes` passes (UINT64_MAX: it ended): wake the waits on it. */
void rp__share_pass_done(rp_client *c, uint64_t passes);
/* The child, before the first op of a pass: wait for the fork op and take what it handed over. */
void rp__share_gate_wait(rp_client *c);
/* The end of a pass: leave the shared table (the last user releases it). */
void rp__share_leave(rp_client *c);
/* The client's thread ends: its children stop waiting, a hand-over it never took is released. */
void rp__share_exit(rp_client *c, bool can_release);

/* window.c */
int rp__win_create(rp_client *c, uint32_t max, const rp_win_hooks *hooks, char *errbuf); /* client thread, after client_init */
void rp__win_destroy(rp_client *c);                          /* drains first; NULL window is a no-op */
/* Reap what completed; true when k may be issued now (room in the window, nothing in flight it depends on). */
bool rp__win_ready(rp_client *c, const rp_wkey *k);
/* Wait for at least one completion (or a short while). */
void rp__win_block(rp_client *c);
/*
 * While resource order waits on *word (still v): the client's own ops in
 * flight may be what it waits for, so they are reaped, and polled or waited
 * for up to 1 ms.  False when it has none in flight (the caller waits itself).
 */
bool rp__win_progress(rp_client *c, _Atomic uint32_t *word, uint32_t v);
/* Wait until deadline; an asynchronous backend's completions run meanwhile. */
uint64_t rp__win_wait_until(rp_client *c, uint64_t deadline);
/*
 * Issue a resolved op: to an idle worker (or the asynchronous backend) when
 * the next op overlaps it in the recording, else here and now.  Returns the
 * time to go on from.
 */
uint64_t rp__win_issue(rp_client *c, const rp_op *op, rp_breq *req, const rp_wkey *k, uint64_t index,
		       uint64_t sched, bool next_overlaps, const rp_ordreq *ord);
/* Record what completed (and move its resources' counts on: --order=resource). */
void rp__win_reap(rp_client *c);
void rp__win_drain(rp_client *c); /* until nothing is in flight */

/* stats.c */
int rp__stats_merge(rp_replay *r);
/* Free the histograms the results keep (rp_replay_destroy). */
void rp__stats_free(rp_replay_results *res);
/* An op's latency fields and distribution from its histogram, and a distribution alone (replay/merge.c). */
void rp__stats_opstats_fill(rp_replay_opstats *o, const rp_hist *h);
void rp__stats_lat_fill(rp_replay_lat *l, const rp_hist *h);
/* Op kind op's counts (res->op[op] merged from clients or shares) into the run's totals (sleeps: no ops, no bytes). */
void rp__stats_add_opstats(rp_replay_results *res, unsigned op, const rp_replay_opstats *o);
/* res->depth (the run's in-flight depths) from its clients' (res->client_depth): the largest, and the means of those that issued. */
void rp__stats_depth_total(rp_replay_results *res);
/* Kinds of mismatch into res's: the same kind adds its count, the first example stays, past RP_REPLAY_SAMPLES counted in others. */
void rp__stats_add_samples(rp_replay_results *res, const rp_replay_sample *samples, size_t n, uint64_t others);

#endif
