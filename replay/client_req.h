/*
 * A client's requests to the backend: below the client, its window, the NT
 * layer and sharing, which all issue through it; it calls only req.c.
 */
#ifndef REPRISE_REPLAY_CLIENT_REQ_H
#define REPRISE_REPLAY_CLIENT_REQ_H

#include "replay/backend.h"

struct rp_client;

/* Hand a request to the backend and wait for it (synchronously or through poll()); a backend error is fatal. */
void rp__client_submit(struct rp_client *c, rp_breq *req);
/* The backend's submit returned rc < 0: it cannot go on; the run stops with an error naming op and status (any thread). */
void rp__client_fatal(struct rp_client *c, int rc, const rp_breq *req);
/* Delete what `where` names (a delete-on-close at its last close): unlink, or rmdir a directory; 0 or the errno. */
int rp__nt_delete(struct rp_client *c, const char *where);

#endif
