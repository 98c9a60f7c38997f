/*
 * The in-flight window (--max-inflight, window.c): a scheduler of up to that
 * many request slots of one client in flight at once, each with its
 * dependency key and a completion to call back, and the dependency rule.
 */
#ifndef REPRISE_REPLAY_WINDOW_H
#define REPRISE_REPLAY_WINDOW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/op.h"
#include "replay/backend.h"

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


/*
 * A slot's completion, called once on the client thread when the window
 * reaps the slot (its request completed); ctx is the submitter's.
 */
typedef struct rp_slot rp_slot;
typedef void (*rp_slot_done)(void *ctx, rp_slot *s);

/*
 * One request in flight.  The submitter fills req, key, complete and ctx;
 * the rest of the slot (up to rp__win_create's slot_size) is the
 * submitter's own, for what it needs at the completion (a slot lives in the
 * window's array: its address holds until it is reaped).
 */
struct rp_slot {
	rp_breq req;           /* req.op and its strings stay valid until the completion */
	rp_wkey key;           /* what later requests may depend on (rp__win_depends) */
	rp_slot_done complete;
	void *ctx;
	uint64_t issue, done;  /* the window's: when the backend got it, and when it completed */
	uint64_t posted;       /* when it was handed to a worker */
	_Atomic bool finished; /* set by the worker (release) or the async callback */
	bool busy;
	rp_worker *worker; /* NULL: an asynchronous backend has it */
	rp_window *win;
};

struct rp_window {
	rp_client *c;
	uint32_t max;      /* --max-inflight */
	uint32_t n;        /* slots busy */
	unsigned char *slots; /* max of them, slot_size apart */
	size_t slot_size;
	rp_worker **workers; /* synchronous backends: max - 1 threads */
	uint32_t n_workers;
	bool async;        /* submit + poll instead of workers */
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

/* Client thread, after client_init: slots of slot_size bytes (at least an rp_slot, the submitter's part after it). */
int rp__win_create(rp_client *c, uint32_t max, size_t slot_size, char *errbuf);
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
 * Wait until deadline with nothing in flight (c->win may be NULL): an
 * asynchronous backend is polled, waiting for nothing, once a second of the
 * wait, so that it can keep up what it holds (an NFSv4 lease).
 */
uint64_t rp__win_idle_wait(rp_client *c, uint64_t deadline);
/*
 * Where the next request, of op kind `op`, goes (rp__win_ready said there
 * is room): a free slot to fill and hand over with rp__win_post, when an
 * asynchronous backend takes it or an idle worker does (the next request
 * overlaps it in the recording and it takes longer than a hand-off); NULL to
 * issue it here and now, then tell the window how long it took (rp__win_ran).
 */
rp_slot *rp__win_take(rp_client *c, unsigned op, bool next_overlaps);
/* Hand over the slot rp__win_take gave, filled; the time to go on from. */
uint64_t rp__win_post(rp_client *c, rp_slot *s);
/* A request of op kind `op` ran on the client thread in ns: how long such requests take. */
void rp__win_ran(rp_client *c, unsigned op, uint64_t ns);
/* Run the completions of what completed (and free their slots). */
void rp__win_reap(rp_client *c);
void rp__win_drain(rp_client *c); /* until nothing is in flight */

#endif
