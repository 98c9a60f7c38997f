/* Requests to the backend: submit, busy, poll, wait (replay/req.h). */
#include "replay/req.h"

#include "formats/error.h"

/* A poll's time limit while waiting for room or for one completion: 1 ms. */
#define REQ_POLL_NS 1000000ull
/*
 * A backend that stays full through this many polls is not coming back:
 * RP_E_LIMIT goes to the caller rather than a run that spins.
 */
#define REQ_BUSY_TRIES 1000

int rp__req_submit(const rp_backend_ops *bops, void *backend, void *cs, rp_breq *req)
{
	const int rc = bops->submit(backend, cs, req);
	/* Before version 8 a full queue was RP_E_LIMIT: the same as busy. */
	if (rc == RP_E_LIMIT && bops->version < 8)
		return RP_BREQ_BUSY;
	return rc;
}

int rp__req_poll(const rp_backend_ops *bops, void *backend, void *cs, uint64_t timeout_ns)
{
	return bops->poll(backend, cs, timeout_ns);
}

int rp__req_issue(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req)
{
	for (int tries = 0;; tries++) {
		const int rc = rp__req_submit(bops, backend, cs, req);
		if (rc != RP_BREQ_BUSY)
			return rc < 0 ? rc : 0;
		if (!async || tries == REQ_BUSY_TRIES) {
			/* Nothing of it ran: no status of the backend's (the failure names RP_E_LIMIT). */
			req->status = 0;
			return RP_E_LIMIT;
		}
		rp__req_poll(bops, backend, cs, REQ_POLL_NS);
	}
}

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
	const int rc = rp__req_issue(bops, backend, cs, async, req);
	if (rc < 0)
		return rc;
	while (async && !done)
		rp__req_poll(bops, backend, cs, REQ_POLL_NS);
	return 0;
}
