/*
 * A client's requests to the backend (replay/client_req.h): handed over and
 * waited for, the one error policy when the backend cannot go on, and the
 * follow-ups the NT layer and sharing leave (the delete a delete-on-close
 * asks for at the last close), issued like any request.
 */
#include "replay/client_req.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/status.h"
#include "replay/client.h"
#include "replay/engine.h"
#include "replay/req.h"

void rp__client_submit(rp_client *c, rp_breq *req)
{
	const rp_replay *const r = c->r;
	const int rc = rp__req_wait(r->bops, r->bstate, c->bstate, c->async, req, &c->tdepth);
	if (rc >= 0)
		return;
	/* One policy, sync and async alike: the backend cannot go on, the run stops naming the op. */
	rp__client_fatal(c, rc, req);
}

void rp__client_fatal(rp_client *c, int rc, rp_breq *req)
{
	int none = 0;
	if (atomic_compare_exchange_strong(&c->fatal, &none, rc)) {
		atomic_store(&c->fatal_status, req->status);
		atomic_store(&c->fatal_op, req->op ? req->op->op : RP_OP__COUNT);
	}
	atomic_store(&c->r->stop, true);
	/* The op failed, whether or not the backend said how. */
	if (!req->status)
		req->status = RP_STATUS_OTHER;
}

const char *rp__fatal_reason(char *buf, size_t size, unsigned op, const char *of, int rc, int32_t status)
{
	const char *const on = rp_op_name(op);
	const char *const sn = status ? rp_status_name(status) : NULL; /* none said: not "[OK]" */
	snprintf(buf, size, "%s%s%s: %s%s%s%s", on ? on : "op", of ? " of " : "", of ? of : "",
		 status > 0 ? strerror(rp_errno_to_host(status)) : rp_strerror(rc), sn ? " [" : "", sn ? sn : "", sn ? "]" : "");
	return buf;
}

/* The object a delete-on-close handle named, at the last close: unlink it, or rmdir if it is a directory. */
static int nt_delete(rp_client *c, const char *where)
{
	rp_op del = { .op = RP_OP_UNLINK, .t_end = RP_TIME_UNKNOWN };
	rp_breq r2 = { .op = &del, .path = where };
	rp__client_submit(c, &r2);
	if (r2.status == EISDIR || r2.status == EPERM) {
		del.op = RP_OP_RMDIR;
		r2 = (rp_breq){ .op = &del, .path = where };
		rp__client_submit(c, &r2);
	}
	return r2.status == ENOENT ? 0 : r2.status;
}

int rp__client_followups(rp_client *c)
{
	int first = 0;
	for (char *where; (where = rp__followup_next(&c->fu)) != NULL; free(where)) {
		const int st = nt_delete(c, where);
		if (!first)
			first = st;
	}
	return first;
}
