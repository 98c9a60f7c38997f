/*
 * Handles held by several trace handles or clients (share.c; docs/replay.md
 * "Forks, threads and dups"): reference counts, tables shared by threads,
 * the gates of forked clients, deletes deferred to the last close.
 */
#ifndef REPRISE_REPLAY_SHARE_H
#define REPRISE_REPLAY_SHARE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "formats/op.h"
#include "replay/followup.h"
#include "replay/handles.h"
#include "replay/replay.h"

typedef struct rp_client rp_client;

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
/* Drop a reference and release bh if it was the last (a delete that waited for that left in fu: rp__share_last). */
void rp__share_release(rp_client *c, uint64_t bh, rp_followups *fu);
/* Whether bh is still referenced (after the caller dropped its own). */
bool rp__share_held(rp_replay *r, uint64_t bh);
/* A delete-on-close of `where` to carry out at bh's last close (ntsem.c): 0 or RP_E_NOMEM. */
int rp__share_defer(rp_replay *r, uint64_t bh, const char *where);
/* bh's last reference went: a delete deferred to it is left in fu, for the lifecycle to issue. */
void rp__share_last(rp_replay *r, uint64_t bh, rp_followups *fu);
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
/* The parent's fork op: hand the child its table or copies, and let it start.  The status of the op; fu as release. */
int32_t rp__share_fork(rp_client *c, const rp_op *op, rp_followups *fu);
/* A wait op: block until the child client has finished this pass (or ended, or the run stops); 0. */
int32_t rp__share_wait(rp_client *c, const rp_op *op);
/* c finished `passes` passes (UINT64_MAX: it ended): wake the waits on it. */
void rp__share_pass_done(rp_client *c, uint64_t passes);
/* The child, before the first op of a pass: wait for the fork op and take what it handed over. */
void rp__share_gate_wait(rp_client *c);
/* The end of a pass: leave the shared table (the last user releases it; fu as release). */
void rp__share_leave(rp_client *c, rp_followups *fu);
/* The client's thread ends: its children stop waiting, a hand-over it never took is released (fu as release). */
void rp__share_exit(rp_client *c, bool can_release, rp_followups *fu);

#endif
