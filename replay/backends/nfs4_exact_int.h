/*
 * The nfs backend's NFSv4.0 exact mode: its per-client state and the
 * COMPOUND it builds, shared by nfs4_exact.c (the ops and their replies)
 * and nfs4_build.c (below it: the client id, open-owners, the handle map's
 * locked access, arguments).  Included after nfs_int.h with RP_NFS_LIBNFS.
 */
#ifndef REPRISE_REPLAY_NFS4_EXACT_INT_H
#define REPRISE_REPLAY_NFS4_EXACT_INT_H

#include <nfsc/libnfs-raw-nfs4.h>

#include "replay/backends/nfs_int.h"

/* Leading LOOKUPs of one COMPOUND gathered (a deeper path is sent from its nearest known directory). */
#define PRE_MAX 16
/* Ops in one COMPOUND of ours: PUTFH, PRE_MAX LOOKUPs, the op and its SAVEFH/PUTFH/GETFH/GETATTR. */
#define ARGS_MAX (PRE_MAX + 8)
/*
 * The lease is renewed (a RENEW of our own) once a third of it passed
 * without an op that renews it; the server's lease_time is read at client
 * start (ganesha's default: 60 s), this when it cannot be.
 */
#define LEASE_DEFAULT_S 45u
/* Renewals no more often than this (the engine polls an idle client once a second). */
#define RENEW_MIN_NS 1000000000ull
/*
 * Open-owners per client.  A second OPEN of a file by one open-owner gets
 * the same open state back (upgraded), so a CLOSE of either ends both; each
 * open of a file that is open already goes by an owner of its own (its
 * first OPEN confirmed), as many at once as this.
 */
#define OWNERS_MAX 8
/* Files open at once per client (their owners' records). */
#define OPENS_MAX 4096
/*
 * A blocking LOCK (READW_LT, WRITEW_LT) the target denies is sent again, as
 * RFC 7530 s9.4.1 and s16.10.5 have a client poll (NFSv4.0 has no callback
 * for it): first after this, then twice as long each time up to the cap,
 * for as long as the backend option lock-wait says.
 */
#define LOCK_POLL_MIN_NS 10000000ull
#define LOCK_POLL_MAX_NS 500000000ull
/* The SETCLIENTID handshake's wait per reply. */
#define SYNC_TIMEOUT_MS 30000

/* The COMPOUND an op goes as (nreq.xproc). */
enum { K_LOOKUP = 1, K_OPEN, K_CLOSE, K_READ, K_WRITE, K_COMMIT, K_GETATTR, K_SETATTR, K_REMOVE, K_RENAME, K_MKDIR,
       K_READDIR, K_ACCESS, K_READLINK, K_STATFS, K_SYMLINK, K_LINK, K_MKNOD, K_LOCK, K_LOCKT, K_LOCKU };

/* A request that waits its turn (an OPEN or CLOSE while another is in flight). */
typedef struct wait_node {
	struct wait_node *next;
	rp_breq *req;
} wait_node;

/* An open-owner: its next seqid and its generation (a new name once the server refused a seqid). */
typedef struct owner4 {
	uint32_t seqid;
	uint32_t gen;
} owner4;

/* A file open by one of the owners (its handle), with how many handles of the trace's share that open. */
typedef struct xopen {
	unsigned char fh[RP_NFS_FH_MAX];
	uint8_t len, owner;
	unsigned refs;
} xopen;

/* Per client state (nfs_client.x4). */
struct nfs4x {
	uint64_t clientid;
	int8_t big;            /* a PDU of room for a big WRITE is laid out as expected: 1, not: -1, not looked at: 0 */
	unsigned id;           /* this client state's number, in the owners' names */
	owner4 own[OWNERS_MAX];
	xopen *opens;
	unsigned n_opens;
	bool seq_busy;         /* an OPEN, CLOSE, LOCK or LOCKU is in flight: the next waits (seqids go in order) */
	uint32_t n_lockowners; /* lock-owners named so far (one per open that locks: nfile.lk_id) */
	wait_node *wq, **wq_tail;
	uint64_t last_ns;      /* when the last COMPOUND that renews the lease went (one with state: OPEN, CLOSE, I/O, RENEW) */
	uint64_t renew_ns;     /* a RENEW of our own once this long passed since then: a third of the lease */
	bool renewing;         /* our RENEW is in flight */
	unsigned releasing;    /* RELEASE_LOCKOWNERs of ours not answered yet (waited for at the client's end) */
	nreq *polls;           /* blocking LOCKs denied, waiting to be sent again (nreq.poll_next), in no order */
	unsigned n_pre;        /* gathered LOOKUPs */
	char *pre[PRE_MAX];
};

/* One COMPOUND of ours, built on the stack of its sender (what the arguments point to lives here too). */
typedef struct cbuild {
	nfs_argop4 a[ARGS_MAX];
	unsigned n;
	uint32_t mask[2];
	char attrs[64]; /* fattr4 values of a SETATTR, OPEN or CREATE */
	char owner[64]; /* an OPEN's open-owner name, a LOCK's or LOCKT's lock-owner name */
} cbuild;

uint64_t rp__nfs4x_now_ns(void);
/*
 * Queue a COMPOUND (data: the bytes a WRITE carries, above 2 KiB into a PDU
 * of its own room) with its callback: 0, or < 0 when it was not queued.
 * big_ok: whether such a PDU is laid out as expected (looked at once).
 */
int rp__nfs4x_send(nfs_client *c, COMPOUND4args *a, rpc_cb cb, void *priv, size_t data);
bool rp__nfs4x_big_ok(struct rpc_context *rpc);
/* What the inline API encodes at most besides the header: the WRITE data above this goes the big way. */
#define SMALL_DATA_MAX 2048u
/* The lease renewed by a RENEW of our own once a third of it passed without one (from the event loop). */
void rp__nfs4x_renew(nfs_client *c);
/*
 * Result i of a COMPOUND's reply, copied out: libnfs 4.0's XDR decoder
 * packs what it allocates without aligning it (UBSan: a misaligned
 * nfs_resop4), so no field of its structs is read in place.
 */
void rp__nfs4x_resop(const COMPOUND4res *res, u_int i, nfs_resop4 *out);
/* The handle map (nfs_fhmap.c) under the group's lock: the handle of path, of its directory (and its name). */
bool rp__nfs4x_map_get(nfs_client *c, const char *path, unsigned char *fh, uint32_t *len);
bool rp__nfs4x_map_parent(nfs_client *c, const char *path, unsigned char *fh, uint32_t *len, const char **name);
/* Learn path's handle and kind (RP_NFS_FK_*) from a reply; that nothing is at path. */
void rp__nfs4x_learn(nfs_client *c, const char *path, const void *fh, size_t len, int kind);
void rp__nfs4x_absent(nfs_client *c, const char *path);
/* A READDIR's reply: its entries counted, where it ended kept for the next READDIR of the directory. */
void rp__nfs4x_listed(nreq *q, const COMPOUND4res *res);
/* Forget the gathered LOOKUPs. */
void rp__nfs4x_drop_pre(struct nfs4x *x);
/* The first open-owner with no open of the file (fh NULL: not known, owner 0), or -1 when all have one. */
int rp__nfs4x_pick_owner(struct nfs4x *x, const void *fh, size_t len);
/* One handle more (d 1) or less (d -1) on owner's open of the file. */
void rp__nfs4x_open_ref(struct nfs4x *x, const void *fh, size_t len, unsigned owner, int d);
/* Append an op to b (zeroed but its number). */
nfs_argop4 *rp__nfs4x_add(cbuild *b, nfs_opnum4 op);
void rp__nfs4x_putfh(cbuild *b, unsigned char *fh, uint32_t len);
/* GETATTR of the type alone (a LOOKUP's, for the kind the map keeps). */
void rp__nfs4x_getattr_type(cbuild *b);
/* A fattr4 of size, mode and the times in b's buffer; false for attributes it cannot carry (owners). */
bool rp__nfs4x_make_fattr(const nfs_client *c, cbuild *b, fattr4 *f, uint32_t attrs, uint64_t size, uint32_t mode,
			  const rp_op *op);
/* The stateid of f's OPEN of ours, or the anonymous one. */
void rp__nfs4x_sid_of(const nfile *f, stateid4 *s);
void rp__nfs4x_component(component4 *s, const char *name);
/* OPEN's arguments from the op's semantics for owner k: false for what one CLAIM_NULL OPEN is not. */
bool rp__nfs4x_open_args(nfs_client *c, cbuild *b, const rp_op *op, OPEN4args *o, const char *name, unsigned k);

/*
 * Locks (nfs4_lock.c, RFC 7530 s16.10-16.12), the current handle set: the
 * LOCK, LOCKT or LOCKU (k) of op on f's open appended to b; false and the
 * fallback reason in *why when it cannot go so (f NULL: a LOCKT by path).
 */
bool rp__nfs4x_lock_args(nfs_client *c, cbuild *b, const rp_op *op, nfile *f, unsigned k, unsigned *why);
/* Whether a LOCK of f names its lock-owner for the first time (open_to_lock_owner4). */
bool rp__nfs4x_lock_new(const nfile *f);
/*
 * A LOCK's or LOCKU's reply (fresh: it carried open_to_lock_owner4): the
 * seqids moved, f's lock stateid kept.  True when the lock-owner's name of
 * generation *gave_up (f->lk_id's) was given up for the next one: the
 * caller releases it (rp__nfs4x_release_owner).
 */
bool rp__nfs4x_locked(nfs_client *c, nfile *f, unsigned k, bool fresh, unsigned owner, const COMPOUND4res *res,
		      uint32_t *gave_up);
/*
 * RELEASE_LOCKOWNER (RFC 7530 s16.37) of the lock-owner lk_id of generation
 * lk_gen, a COMPOUND of our own whose answer nothing waits for, counted;
 * NFSv4.0 only (RFC 8881 s18.56: 4.1 has none).
 */
void rp__nfs4x_release_owner(nfs_client *c, uint32_t lk_id, uint32_t lk_gen);
/* At the client's end: its RELEASE_LOCKOWNERs still unanswered are written and answered (2 s at most). */
void rp__nfs4x_release_drain(nfs_client *c);
/* Whether a LOCK of op that the target denies is polled: a blocking one the trace saw granted (or no answer of). */
bool rp__nfs4x_lock_polls(const rp_op *op);
/*
 * The time of a denied blocking LOCK's next send, first sent at first_ns,
 * now now_ns, *backoff_ns the wait before it (0 at first; doubled here up to
 * LOCK_POLL_MAX_NS): never past first_ns + bound_ns; 0 when that has come
 * (the lock gives up).
 */
/*
 * A LOCK's or LOCKU's reply to q: the lock-owner's state moved (a name given
 * up is released); true when q is a denied blocking LOCK to be sent again
 * (in the client's polls, due at q->poll_due_ns), else *out is its status
 * (ETIMEDOUT: still denied when lock-wait ran out, counted).
 */
bool rp__nfs4x_lock_reply(nreq *q, const COMPOUND4res *res, int *out);
/* A polled LOCK due by now_ns, out of the client's polls; NULL: none. */
nreq *rp__nfs4x_poll_take(struct nfs4x *x, uint64_t now_ns);
uint64_t rp__nfs4x_poll_next(uint64_t first_ns, uint64_t now_ns, uint64_t *backoff_ns, uint64_t bound_ns);
/* The open-owner's seqid after a reply of status s4 to one of its seqid ops (BAD_SEQID: a new generation). */
void rp__nfs4x_owner_moved(owner4 *ow, uint32_t s4);

#endif
