/*
 * The in-flight window (--max-inflight, window.c): up to that many ops of
 * one client in flight at once, the dependency rule that orders them, and
 * the hooks through which it calls its client back.
 */
#ifndef REPRISE_REPLAY_WINDOW_H
#define REPRISE_REPLAY_WINDOW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "formats/op.h"
#include "replay/backend.h"
#include "replay/handles.h"
#include "replay/order.h"

typedef struct rp_window rp_window;
typedef struct rp_worker rp_worker;
typedef struct rp_client rp_client;

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

#endif
