/* The NFSv4 reply half's entry points, called by the call half's RPC program (nfs4.c). */
#ifndef REPRISE_CAPTURE_NFS4_REPLY_H
#define REPRISE_CAPTURE_NFS4_REPLY_H

#include "capture/rpc/rpc.h"

/* The RPC program's reply and drop entry points (nfs4_reply.c); pending is an nfs4_pending. */
void rp__nfs4_reply(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, const rp_rpc_reply *rep, rp_cur *res,
		    void *pend);
void rp__nfs4_drop(rp_capctx *cx, void *pend);

#endif
