/*
 * One request through the backend, submitted and waited for: the only
 * "submit, then poll until done" in replay/ (prepare and the client's
 * one-at-a-time requests go through it).
 */
#ifndef REPRISE_REPLAY_REQ_H
#define REPRISE_REPLAY_REQ_H

#include <stdbool.h>

#include "replay/backend.h"

/*
 * Submit req to the backend's client state cs and return once it completed:
 * synchronously (async false: req->cb is cleared), or by polling an
 * asynchronous backend until its completion ran (req->cb and req->data are
 * the wait's own).  A submit that returns RP_E_LIMIT (the backend is full)
 * polls and is retried, up to 1000 times (then RP_E_LIMIT is returned).  0 when req completed (its status in req->status),
 * or the submit's negative return when the backend refused it.
 */
int rp__req_wait(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req);

#endif
