/* ONC RPC call/reply plumbing shared by the RPC program decoders (RFC 5531). */
#ifndef REPRISE_CAPTURE_RPC_H
#define REPRISE_CAPTURE_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/decode.h"

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
	bool truncated;      /* the call message was cut short (args may end early) */
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
 * slots and releases anything pending points to.  drop() releases it when no
 * reply comes (the call timed out, was evicted, or its xid was reused; cx is
 * NULL at capture teardown); may be NULL.  The RPC layer calls exactly one of
 * reply() and drop() per call().  A truncated message gives a cursor over the
 * bytes present.  UDP retransmissions and duplicate replies never reach the
 * program: the first call and the first reply do.
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
/* fh is `name` inside directory dir_fh (LOOKUP, CREATE, MKDIR, READDIRPLUS, OPEN, ...):
 * it is shown by that name from now on; another live name it had stays an alias. */
void rp__fhmap_child(rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name, size_t nlen,
		     const uint8_t *fh, size_t len);
/* fh was listed as `name` in dir_fh (READDIRPLUS, READDIR with handles): learnt only
 * when fh has no live name yet, since a hard-linked file is listed under each name. */
void rp__fhmap_child_listed(rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name, size_t nlen,
			    const uint8_t *fh, size_t len);
/* LINK: fh is also `name` in dir_fh (a hard link), an alias that keeps fh's shown name. */
void rp__fhmap_link(rp_fhmap *m, const uint8_t *fh, size_t len, const uint8_t *dir_fh, size_t dlen,
		    const char *name, size_t nlen);
/* Whether fh has a path the map was told (whole, or as a name in a directory): not one made up for it. */
bool rp__fhmap_known(rp_fhmap *m, const uint8_t *fh, size_t len);
/* Forget fh (REMOVE/RMDIR of its name, or a stale handle). */
void rp__fhmap_forget(rp_fhmap *m, const uint8_t *fh, size_t len);
/* String id of fh's path; synthesises one if unknown and sets *synth (may be NULL). */
uint32_t rp__fhmap_path(rp_capctx *cx, rp_fhmap *m, const uint8_t *fh, size_t len, bool *synth);
/* String id of `name` inside directory dir_fh. */
uint32_t rp__fhmap_child_path(rp_capctx *cx, rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name,
			      size_t nlen, bool *synth);
/* `name` in dir_fh is gone (REMOVE/RMDIR): the name no longer leads to its
 * handle.  If it was the name the handle is shown by, the handle is shown by
 * its most recent other live name (alias); with none it keeps its last path
 * for I/O still in flight. */
void rp__fhmap_unlink_name(rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name, size_t nlen);
/* RENAME: whatever handle `from_name` in from_dir named is now `to_name` in to_dir
 * (children of a renamed directory follow, since they refer to it by handle); the
 * renamed name may be an alias, which then moves. */
void rp__fhmap_rename(rp_fhmap *m, const uint8_t *from_dir, size_t flen, const char *from_name, size_t fnlen,
		      const uint8_t *to_dir, size_t tlen, const char *to_name, size_t tnlen);
/*
 * The trace-local handle id (rp_op.handle) of fh: dense from 1 per capture and
 * shared by every NFS version, so ids never collide in mixed captures.  0 only
 * when out of memory.  A handle evicted from the bounded map gets a new id if
 * it comes back (replay then opens the file again).
 */
uint64_t rp__fhmap_handle(rp_fhmap *m, const uint8_t *fh, size_t len);
/* A fresh id from the same counter, for ids not tied to one file handle (NFSv4 stateids). */
uint64_t rp__fhmap_new_handle(rp_fhmap *m);

/* ---- XDR helpers (RFC 4506) shared by the RPC program decoders ---- */

#define RP_NFS3_FHSIZE 64  /* RFC 1813 NFS3_FHSIZE */
#define RP_NFS4_FHSIZE 128 /* RFC 7530 NFS4_FHSIZE */
/* Longest name component kept for the handle map (NAME_MAX on the servers we meet;
 * longer names still make op paths but are not remembered). */
#define RP_NFS_NAME_MAX 255
/* A path (symlink target, MOUNT dirpath) longer than this is corruption (RFC 1813 MNTPATHLEN is 1024;
 * Linux PATH_MAX is 4096). */
#define RP_NFS_PATH_MAX 4096

/* A variable-length opaque/string of at most max bytes: sets *len and returns its
 * bytes (NULL and c->err set when short or longer than max). */
static inline const uint8_t *rp_cur_xdr_var(rp_cur *c, size_t max, size_t *len)
{
	const uint32_t n = rp_cur_be32(c);
	if (n > max)
		c->err = true;
	*len = c->err ? 0 : n;
	return rp_cur_xdr_opaque(c, *len);
}

/* An XDR bool: anything but 0 or 1 is invalid. */
static inline bool rp_cur_xdr_bool(rp_cur *c)
{
	const uint32_t v = rp_cur_be32(c);
	if (v > 1)
		c->err = true;
	return v == 1;
}

#endif
