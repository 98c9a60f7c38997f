/* One request submitted to the backend and waited for (replay/req.h). */
#include "replay/req.h"

#include "formats/error.h"

/* A poll's time limit while waiting for one completion: 1 ms. */
#define REQ_POLL_NS 1000000ull
/*
 * A backend that stays full through this many polls is not coming back (the
 * window's rule): RP_E_LIMIT goes to the caller rather than a run that spins.
 */
#define REQ_BUSY_TRIES 1000

static void req_done(rp_breq *req)
{
	*(bool *)req->data = true;
}

int rp__req_wait(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req)
{
	bool done = false;
	req->cb = async ? req_done : NULL;
	if (async)
		req->data = &done;
	int rc;
	for (int tries = 0; (rc = bops->submit(backend, cs, req)) == RP_E_LIMIT && async && tries < REQ_BUSY_TRIES; tries++)
		bops->poll(backend, cs, REQ_POLL_NS);
	if (rc < 0)
		return rc;
	while (async && !done)
		bops->poll(backend, cs, REQ_POLL_NS);
	return 0;
}
