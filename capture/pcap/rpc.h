/* ONC RPC call/reply plumbing shared by the RPC program decoders (RFC 5531). */
#ifndef REPRISE_CAPTURE_RPC_H
#define REPRISE_CAPTURE_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/pcap/decode.h"

/* What the RPC layer learnt from a CALL. */
typedef struct rp_rpc_call {
	uint32_t xid, prog, vers, proc;
	uint32_t auth_flavor; /* 0 AUTH_NONE, 1 AUTH_SYS, 6 RPCSEC_GSS, ... */
	bool has_unix_cred;
	uint32_t uid, gid;   /* AUTH_SYS only */
	uint64_t ts_ns;      /* Unix ns of the call */
	uint64_t frame;
	uint8_t client_end;  /* which endpoint of conn is the client */
	uint32_t client;     /* rp__cap_client() for this call */
} rp_rpc_call;

/* What the RPC layer learnt from the matching REPLY. */
typedef struct rp_rpc_reply {
	uint32_t reply_stat;  /* 0 MSG_ACCEPTED, 1 MSG_DENIED */
	uint32_t accept_stat; /* 0 SUCCESS, ...; only when accepted */
	uint64_t ts_ns;
	uint64_t frame;
	bool truncated;       /* the reply message was cut short */
} rp_rpc_reply;

/*
 * A program decoder.  call() decodes the arguments (cursor positioned after
 * the RPC header), reserves op slots through capctx and keeps what it needs
 * for the reply in `pending` (pending_size bytes, zeroed, owned by the RPC
 * layer).  reply() gets the results (cursor after the accepted-reply header,
 * only when accept_stat is SUCCESS; otherwise res is NULL) and completes the
 * slots.  drop() releases anything pending points to when no reply comes
 * (may be NULL).  A truncated message gives a cursor over the bytes present.
 */
typedef struct rp_rpc_prog {
	const char *name; /* "NFSv3", "MOUNTv3", "NFSv4" */
	uint32_t prog, vers;
	size_t pending_size;
	void (*call)(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, rp_cur *args, void *pending);
	void (*reply)(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, const rp_rpc_reply *rep, rp_cur *res,
		      void *pending);
	void (*drop)(rp_capctx *cx, void *pending);
} rp_rpc_prog;

/* The programs rpc.c dispatches to (by program and version, never by port). */
extern const rp_rpc_prog rp__mount3_prog;
extern const rp_rpc_prog rp__nfs3_prog;
extern const rp_rpc_prog rp__nfs4_prog;

/*
 * The NFS file handle -> path map shared by MOUNT, NFSv3 and NFSv4, one per
 * capture (kept in capctx state).  Paths are absolute, '/'-separated, relative
 * to the export root; a handle first seen without a name gets a stable
 * synthetic path (rp__cap_synth_path) so its I/O still replays.
 */
typedef struct rp_fhmap rp_fhmap;
rp_fhmap *rp__fhmap(rp_capctx *cx); /* created on first use */
/* fh is a root (MOUNT reply, PUTROOTFH/GETFH) or otherwise known to be `path`. */
void rp__fhmap_set(rp_fhmap *m, const uint8_t *fh, size_t len, const char *path, size_t plen);
/* fh is `name` inside directory dir_fh (LOOKUP, CREATE, MKDIR, READDIRPLUS, OPEN, ...). */
void rp__fhmap_child(rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name, size_t nlen,
		     const uint8_t *fh, size_t len);
/* Forget fh (REMOVE/RMDIR of its name, or a stale handle). */
void rp__fhmap_forget(rp_fhmap *m, const uint8_t *fh, size_t len);
/* String id of fh's path; synthesises one if unknown and sets *synth (may be NULL). */
uint32_t rp__fhmap_path(rp_capctx *cx, rp_fhmap *m, const uint8_t *fh, size_t len, bool *synth);
/* String id of `name` inside directory dir_fh. */
uint32_t rp__fhmap_child_path(rp_capctx *cx, rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name,
			      size_t nlen, bool *synth);

#endif
