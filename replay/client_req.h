/*
 * A client's requests to the backend: below the client and its window,
 * which issue through it, and the follow-ups the NT layer and sharing leave
 * it; it calls only req.c.
 */
#ifndef REPRISE_REPLAY_CLIENT_REQ_H
#define REPRISE_REPLAY_CLIENT_REQ_H

#include <stddef.h>
#include <stdint.h>

#include "replay/backend.h"

struct rp_client;

/* Hand a request to the backend and wait for it (synchronously or through poll()); a backend error is fatal. */
void rp__client_submit(struct rp_client *c, rp_breq *req);
/*
 * The backend's submit returned rc < 0: it cannot go on; the run stops with
 * an error naming op and status (any thread, by the one that owns req).
 * req failed: its status is RP_STATUS_OTHER when the backend set none.
 */
void rp__client_fatal(struct rp_client *c, int rc, rp_breq *req);
/*
 * Why the backend cannot go on, as the run's error says it: "OP: reason
 * [STATUS]", or "OP of OF: ..." when of is not NULL.  The reason is status's
 * (an rp status > 0) or else rc's; status 0 (the backend said none) has no
 * [STATUS]; an op out of range is "op".  Returns buf.
 */
const char *rp__fatal_reason(char *buf, size_t size, unsigned op, const char *of, int rc, int32_t status);
/*
 * Issue the client's follow-ups (c->fu, replay/followup.h) in order: each
 * delete an unlink, or an rmdir of a directory, through rp__client_submit
 * (not counted as ops, as none of the engine's own requests is).  0 (what
 * was to go is gone: ENOENT too), or the first delete's errno that is not.
 */
int rp__client_followups(struct rp_client *c);

#endif
