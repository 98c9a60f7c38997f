/*
 * Requests to the backend: the only callers of its submit and poll in
 * replay/.  Every "submit, then poll until done" of the engine (the client's
 * one-at-a-time requests, the window's slots and workers, prepare, the NT
 * layer's deletes, resource order's waits) goes through these, so that a
 * busy backend is retried in one way and an old backend's busy return is
 * mapped in one place.
 *
 * The error policy is the callers' and it is one: a negative return is the
 * backend saying it cannot go on; the client stops the run naming the op and
 * its status (rp__client_fatal), prepare fails the run the same way.
 */
#ifndef REPRISE_REPLAY_REQ_H
#define REPRISE_REPLAY_REQ_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/backend.h"
#include "replay/tdepth.h"

/* Whether the backend completes later, through poll (RP_BCAP_ASYNC; rp_backend_check makes sure it has a poll). */
static inline bool rp__req_async(const rp_backend_ops *bops)
{
	return (bops->caps & RP_BCAP_ASYNC) && bops->poll;
}

/*
 * A request's begin, before its submit: nothing of an earlier answer is left
 * in its reply fields (status, result, granted, special, escape), so a
 * backend that fails it without a status shows none.  rp__req_issue does it
 * for every submit; the client does it for the ops answered without one.
 */
static inline void rp__req_begin(rp_breq *req)
{
	req->status = 0;
	req->result = 0;
	req->granted = 0;
	req->special = false;
	req->escape = false;
	req->sent_ns = 0;
	req->done_ns = 0;
}

/* Run the backend's completions, waiting up to timeout_ns; how many completed (an async backend's poll). */
int rp__req_poll(const rp_backend_ops *bops, void *backend, void *cs, uint64_t timeout_ns);

/*
 * Submit req until the backend takes it.  A submit returns 0 (started, or
 * done by a synchronous backend), RP_BREQ_BUSY (nothing was started: the
 * backend's queue is full; a backend before version 8 said RP_E_LIMIT), or
 * the backend's negative rp error.  A busy backend is polled (async:
 * completions make room) and the submit retried, up to 1000 times, then
 * RP_E_LIMIT (a backend that stays full is not coming back); req begins
 * first (rp__req_begin).  A synchronous
 * backend has nothing to poll: busy is RP_E_LIMIT at once (req->status 0:
 * nothing of it ran).  0 when req was taken, else a negative rp error.
 * req->cb and req->data are the caller's.
 *
 * In flight at the target (d, NULL: not counted, as prepare's): a
 * synchronous submit is timed from its call to its return; an asynchronous
 * one counts from the backend's req->sent_ns, and its callback calls
 * rp__req_done.
 */
int rp__req_issue(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req, rp_tdepth *d);
/* An asynchronous request rp__req_issue took with d has its answer (its callback, first): counted at the target. */
void rp__req_done(rp_tdepth *d, const rp_breq *req);

/*
 * Submit req to the backend's client state cs and return once it completed:
 * synchronously (async false: req->cb is cleared), or by polling an
 * asynchronous backend until its completion ran (req->cb and req->data are
 * the wait's own).  Busy is retried as rp__req_issue does.  0 when req
 * completed (its status in req->status), or a negative rp error.  d as
 * for rp__req_issue.
 */
int rp__req_wait(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req, rp_tdepth *d);

#endif
