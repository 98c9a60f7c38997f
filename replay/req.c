/* Requests to the backend: submit, busy, poll, wait (replay/req.h). */
#include "replay/req.h"

#include "formats/error.h"
#include "replay/tdepth.h"

/* A poll's time limit while waiting for room: 1 ms (the busy retries count these). */
#define REQ_POLL_NS 1000000ull
/*
 * A poll's time limit while waiting for one completion, which ends the poll
 * at once: nothing else is waited for, so a long one.  A short limit costs a
 * timer armed and cancelled in every poll, which on these VMs reprograms the
 * local APIC timer each time: at 1 ms, 1.6x the client CPU of a plain libnfs
 * loop (docs/BENCHMARKS.md, "NFS replay against a plain libnfs loop").
 */
#define REQ_WAIT_NS 100000000ull
/*
 * A backend that stays full through this many polls is not coming back:
 * RP_E_LIMIT goes to the caller rather than a run that spins.
 */
#define REQ_BUSY_TRIES 1000

/* One try; an older backend's RP_E_LIMIT read as busy.  Inline: the wait's common case is one call to the backend. */
static inline int submit_once(const rp_backend_ops *bops, void *backend, void *cs, rp_breq *req)
{
	const int rc = bops->submit(backend, cs, req);
	/* Before version 8 a full queue was RP_E_LIMIT: the same as busy. */
	if (__builtin_expect(rc == RP_E_LIMIT, 0) && bops->version < 8)
		return RP_BREQ_BUSY;
	return rc;
}

int rp__req_poll(const rp_backend_ops *bops, void *backend, void *cs, uint64_t timeout_ns)
{
	return bops->poll(backend, cs, timeout_ns);
}

/* The backend was busy at the first try: poll and try again (out of line, off the common path). */
static __attribute__((noinline)) int issue_busy(const rp_backend_ops *bops, void *backend, void *cs, bool async,
						rp_breq *req)
{
	for (int tries = 0;; tries++) {
		if (!async || tries == REQ_BUSY_TRIES) {
			/* Nothing of it ran: no status of the backend's (the failure names RP_E_LIMIT). */
			req->status = 0;
			return RP_E_LIMIT;
		}
		bops->poll(backend, cs, REQ_POLL_NS);
		const int rc = submit_once(bops, backend, cs, req);
		if (rc != RP_BREQ_BUSY)
			return rc < 0 ? rc : 0;
	}
}

static inline int issue(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req)
{
	rp__req_begin(req);
	const int rc = submit_once(bops, backend, cs, req);
	if (__builtin_expect(rc == 0, 1))
		return 0;
	if (rc != RP_BREQ_BUSY)
		return rc < 0 ? rc : 0;
	return issue_busy(bops, backend, cs, async, req);
}

/*
 * issue, counted at the target.  Synchronous: the call is the request's time
 * at the target, or what the backend timed of it (RP_BCAP_TIMES).  Asynchronous: the backend says when it sent the request; an
 * answer that came inside the submit (its callback ran already) is counted
 * after the send.  A backend before version 11 says nothing: not measured.
 */
static int issue_counted(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req, rp_tdepth *d)
{
	if (!d)
		return issue(bops, backend, cs, async, req);
	if (!req->cb && (bops->caps & RP_BCAP_TIMES) && bops->version >= 11) {
		/* The backend times its own call of the server (inside its lock): counted as it says, after it. */
		const int rc = issue(bops, backend, cs, async, req);
		if (req->sent_ns && req->done_ns >= req->sent_ns) {
			rp__tdepth_sent(d, req->sent_ns);
			rp__tdepth_done(d, req->sent_ns, req->done_ns);
		}
		return rc;
	}
	if (!req->cb) {
		const uint64_t sent = rp__tdepth_begin(d);
		const int rc = issue(bops, backend, cs, async, req);
		rp__tdepth_end(d, sent);
		return rc;
	}
	d->issuing = req;
	d->issuing_done = false;
	const int rc = issue(bops, backend, cs, async, req);
	d->issuing = NULL;
	if (rc < 0)
		return rc;
	if (req->sent_ns) {
		rp__tdepth_sent(d, req->sent_ns);
		if (d->issuing_done)
			rp__tdepth_done(d, req->sent_ns, req->done_ns > req->sent_ns ? req->done_ns : req->sent_ns);
	} else if (bops->version < 11) {
		d->unmeasured++;
	}
	return 0;
}

int rp__req_issue(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req, rp_tdepth *d)
{
	return issue_counted(bops, backend, cs, async, req, d);
}

void rp__req_done(rp_tdepth *d, const rp_breq *req)
{
	if (!d || !req->sent_ns)
		return; /* not at the target, or not measured */
	if (req == d->issuing) {
		d->issuing_done = true; /* inside its submit: counted once its send is */
		return;
	}
	rp__tdepth_done(d, req->sent_ns, req->done_ns > req->sent_ns ? req->done_ns : req->sent_ns);
}

typedef struct wait_ctx {
	bool done;
	rp_tdepth *d;
} wait_ctx;

static void req_done(rp_breq *req)
{
	wait_ctx *const w = req->data;
	rp__req_done(w->d, req);
	w->done = true;
}

int rp__req_wait(const rp_backend_ops *bops, void *backend, void *cs, bool async, rp_breq *req, rp_tdepth *d)
{
	wait_ctx w = { .done = false, .d = d };
	req->cb = async ? req_done : NULL;
	if (async)
		req->data = &w;
	const int rc = issue_counted(bops, backend, cs, async, req, d);
	if (rc < 0)
		return rc;
	while (async && !w.done)
		bops->poll(backend, cs, REQ_WAIT_NS);
	return 0;
}
