/*
 * The nfs backend's NFSv4.0 exact mode, byte-range locks (RFC 7530
 * s16.10-16.12, s9.1.7): a recorded LOCK, LOCKT or LOCKU sent as its
 * operation on a lock-owner of our own.  Each open of ours that locks has
 * one lock-owner (a name of its client state's, lk_id, of generation
 * lk_gen): its first LOCK carries open_to_lock_owner4 (the open-owner's
 * seqid, the OPEN's stateid, lock seqid 0), the next ones and the LOCKUs
 * exist_lock_owner4 with the lock stateid of the server's last reply and
 * the lock-owner's seqid, which moves as RFC 7530 s9.1.7 says.  A LOCKT
 * goes by a lock-owner of the client state's that holds no lock, so every
 * lock on the range is tested, as the capture records a test (by path).
 * The type, offset and length are the recorded ones; reclaim is false.
 * The COMPOUND is built and sent by nfs4_exact.c, which calls these.
 *
 * Blocking locks (READW_LT, WRITEW_LT: the trace's F_SETLKW, flock without
 * LOCK_NB) that the target denies are polled, as RFC 7530 s9.4.1 and
 * s16.10.5 have a client do: the same LOCK again after 10 ms, then twice as
 * long each time up to 500 ms, until granted or the backend option
 * lock-wait has passed (then ETIMEDOUT); nfs4_exact.c sends them, the rule
 * of when is here.  A lock-owner whose name is given up (a first LOCK
 * refused, a seqid out of step, its open closed) is released
 * (RELEASE_LOCKOWNER, RFC 7530 s16.37), so the target keeps no state of it.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"
#include "replay/backends/nfs4_exact_int.h"

#include <errno.h>
#include <poll.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

#include <nfsc/libnfs-raw-nfs4.h>
#include <nfsc/libnfs-raw.h>

#include "formats/op.h"

/* The lock-owner ids a client state names, at most (then its locks go the counted fallback). */
#define LOCKOWNERS_MAX 0x7fffffffu

bool rp__nfs4x_lock_new(const nfile *f)
{
	return !f->lk_ok;
}

static nfs_lock_type4 lock_type(const rp_op *op, bool may_wait)
{
	const bool excl = (op->flags & RP_OPF_EXCLUSIVE) != 0;
	if (may_wait && (op->flags & RP_OPF_WAIT))
		return excl ? WRITEW_LT : READW_LT;
	return excl ? WRITE_LT : READ_LT;
}

/* The lock-owner lk_id of generation gen into buf (id 0: LOCKT's, which holds no lock). */
static void owner_name(const nfs_client *c, char *buf, size_t cap, lock_owner4 *o, uint32_t lk_id, uint32_t gen)
{
	const int n = lk_id ? snprintf(buf, cap, "reprise-lock-%u-%u-%u", c->x4->id, lk_id, gen)
			    : snprintf(buf, cap, "reprise-lockt-%u", c->x4->id);
	o->clientid = c->x4->clientid;
	o->owner.owner_len = n > 0 && (size_t)n < cap ? (u_int)n : (u_int)strlen(buf);
	o->owner.owner_val = buf;
}

static void lock_owner(const nfs_client *c, cbuild *b, lock_owner4 *o, const nfile *f)
{
	owner_name(c, b->owner, sizeof(b->owner), o, f ? f->lk_id : 0, f ? f->lk_gen : 0);
}

bool rp__nfs4x_lock_polls(const rp_op *op)
{
	return op->op == RP_OP_LOCK && (op->flags & RP_OPF_WAIT) && !(op->flags & RP_OPF_TEST) &&
	       (op->status == 0 || (op->flags & RP_OPF_NO_REPLY));
}

uint64_t rp__nfs4x_poll_next(uint64_t first_ns, uint64_t now_ns, uint64_t *backoff_ns, uint64_t bound_ns)
{
	const uint64_t end = first_ns + bound_ns;
	if (!bound_ns || now_ns >= end)
		return 0;
	uint64_t wait = *backoff_ns ? *backoff_ns * 2 : LOCK_POLL_MIN_NS;
	if (wait > LOCK_POLL_MAX_NS)
		wait = LOCK_POLL_MAX_NS;
	*backoff_ns = wait;
	/* The last send at the bound itself: a lock granted then is granted, one denied then gives up. */
	return end - now_ns > wait ? now_ns + wait : end;
}

/* Its answer is no op's: a lock-owner the target did not know, or one still holding locks, changes nothing. */
static void release_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc, (void)status, (void)data;
	nfs_client *const c = priv;
	if (c->x4 && c->x4->releasing)
		c->x4->releasing--;
}

/* A client's last RELEASE_LOCKOWNERs (after its last CLOSE) are answered before its connection goes, this long at most. */
#define RELEASE_DRAIN_NS 2000000000ull

void rp__nfs4x_release_drain(nfs_client *c)
{
	struct nfs4x *const x = c->x4;
	const uint64_t end = rp__nfs4x_now_ns() + RELEASE_DRAIN_NS;
	while (x && x->releasing && !c->lost && c->nfs) {
		const uint64_t now = rp__nfs4x_now_ns();
		if (now >= end)
			break;
		struct pollfd pfd = { .fd = nfs_get_fd(c->nfs), .events = (short)nfs_which_events(c->nfs) };
		const uint64_t left = end - now;
		const struct timespec ts = { .tv_sec = (time_t)(left / 1000000000u), .tv_nsec = (long)(left % 1000000000u) };
		const int n = ppoll(&pfd, 1, &ts, NULL);
		if ((n < 0 && errno != EINTR) || nfs_service(c->nfs, n > 0 ? pfd.revents : 0) < 0)
			break;
	}
}

void rp__nfs4x_release_owner(nfs_client *c, uint32_t lk_id, uint32_t lk_gen)
{
	struct nfs4x *const x = c->x4;
	if (!x || !lk_id || c->lost || c->ending || !c->nfs)
		return;
	char name[64];
	nfs_argop4 op;
	memset(&op, 0, sizeof(op));
	op.argop = OP_RELEASE_LOCKOWNER;
	owner_name(c, name, sizeof(name), &op.nfs_argop4_u.oprelease_lockowner.lock_owner, lk_id, lk_gen);
	COMPOUND4args a = { .minorversion = 0, .argarray = { .argarray_len = 1, .argarray_val = &op } };
	if (rpc_nfs4_compound_async(nfs_get_rpc_context(c->nfs), release_cb, &a, c) < 0)
		return;
	x->releasing++;
	x->last_ns = rp__nfs4x_now_ns(); /* it names the client id: it renews the lease (s9.6) */
	atomic_fetch_add_explicit(&c->nb->lock_releases, 1u, memory_order_relaxed);
}

static void lock_sid(const nfile *f, stateid4 *s)
{
	s->seqid = f->lk_seq;
	memcpy(s->other, f->lk_other, sizeof(s->other));
}

bool rp__nfs4x_lock_args(nfs_client *c, cbuild *b, const rp_op *op, nfile *f, unsigned k, unsigned *why)
{
	struct nfs4x *const x = c->x4;
	if (k == K_LOCKT) {
		LOCKT4args *const t = &rp__nfs4x_add(b, OP_LOCKT)->nfs_argop4_u.oplockt;
		t->locktype = lock_type(op, false);
		t->offset = op->offset;
		t->length = op->length;
		lock_owner(c, b, &t->owner, NULL);
		return true;
	}
	/* LOCK and LOCKU name an OPEN of ours (its stateid, its owner's seqid) or the lock state it began. */
	if (!f || !f->exact || !f->sid_ok) {
		*why = RP_NFS_FB_NO_LOCK;
		return false;
	}
	if (k == K_LOCKU) {
		if (!f->lk_ok) {
			*why = RP_NFS_FB_NO_LOCK; /* no LOCK of ours was granted on it: no lock stateid to name */
			return false;
		}
		LOCKU4args *const u = &rp__nfs4x_add(b, OP_LOCKU)->nfs_argop4_u.oplocku;
		u->locktype = lock_type(op, false);
		u->seqid = f->lk_seqid;
		lock_sid(f, &u->lock_stateid);
		u->offset = op->offset;
		u->length = op->length;
		return true;
	}
	if (!f->lk_ok && (f->owner >= OWNERS_MAX || f->gen != x->own[f->owner].gen)) {
		*why = RP_NFS_FB_OWNER_LOST; /* its open-owner was given up: no open_seqid of it is right */
		return false;
	}
	if (!f->lk_id) {
		if (x->n_lockowners >= LOCKOWNERS_MAX) {
			*why = RP_NFS_FB_NO_LOCK;
			return false;
		}
		f->lk_id = ++x->n_lockowners;
	}
	LOCK4args *const l = &rp__nfs4x_add(b, OP_LOCK)->nfs_argop4_u.oplock;
	l->locktype = lock_type(op, true);
	l->reclaim = 0;
	l->offset = op->offset;
	l->length = op->length;
	if (!f->lk_ok) {
		l->locker.new_lock_owner = 1;
		open_to_lock_owner4 *const o = &l->locker.locker4_u.open_owner;
		o->open_seqid = x->own[f->owner].seqid;
		rp__nfs4x_sid_of(f, &o->open_stateid);
		o->lock_seqid = 0;
		lock_owner(c, b, &o->lock_owner, f);
	} else {
		l->locker.new_lock_owner = 0;
		exist_lock_owner4 *const e = &l->locker.locker4_u.lock_owner;
		lock_sid(f, &e->lock_stateid);
		e->lock_seqid = f->lk_seqid;
	}
	return true;
}

void rp__nfs4x_owner_moved(owner4 *ow, uint32_t s4)
{
	if (s4 == NFS4ERR_BAD_SEQID) {
		ow->gen++;
		ow->seqid = 0;
	} else if (rp__nfs4_seqid_moves(s4)) {
		ow->seqid++;
	}
}

/* The lock-owner is given up (a new name of the next generation, first LOCK with open_to_lock_owner4 again). */
static void lock_owner_lost(nfile *f)
{
	f->lk_ok = false;
	f->lk_gen++;
	f->lk_seqid = 0;
}

bool rp__nfs4x_locked(nfs_client *c, nfile *f, unsigned k, bool fresh, unsigned owner, const COMPOUND4res *res,
		      uint32_t *gave_up)
{
	const nfs_opnum4 want = k == K_LOCK ? OP_LOCK : OP_LOCKU;
	for (u_int i = 0; i < res->resarray.resarray_len; i++) {
		nfs_resop4 r;
		rp__nfs4x_resop(res, i, &r);
		if (r.resop != want)
			continue;
		const uint32_t s4 = (uint32_t)r.nfs_resop4_u.oplock.status;
		/* A first LOCK moves its open-owner's seqid, as an OPEN does (s9.1.7); the lock-owner begins at 0. */
		if (fresh && owner < OWNERS_MAX)
			rp__nfs4x_owner_moved(&c->x4->own[owner], s4);
		if (!f)
			return false;
		const stateid4 *sid = NULL;
		if (s4 == NFS4_OK)
			sid = k == K_LOCK ? &r.nfs_resop4_u.oplock.LOCK4res_u.resok4.lock_stateid
					  : &r.nfs_resop4_u.oplocku.LOCKU4res_u.lock_stateid;
		if (sid) {
			f->lk_ok = true;
			f->lk_seq = sid->seqid;
			memcpy(f->lk_other, sid->other, sizeof(f->lk_other));
			f->lk_seqid = fresh ? 1 : f->lk_seqid + 1;
		} else if (fresh || s4 == NFS4ERR_BAD_SEQID) {
			/*
			 * Refused (DENIED, ...): no lock state of ours; the next LOCK names
			 * a new lock-owner.  Out of step: the same.  The target may keep
			 * the old name (its last reply, for a retransmission): released.
			 */
			*gave_up = f->lk_gen;
			lock_owner_lost(f);
			return true;
		} else if (rp__nfs4_seqid_moves(s4)) {
			f->lk_seqid++;
		}
		return false;
	}
	return false;
}

/* ---- blocking locks polled ---- */

/*
 * A blocking LOCK the target denied: sent again later (into the client's
 * polls, true), or not (false): lock-wait is 0, or it ran out (counted).
 */
static bool poll_later(nreq *q)
{
	nfs_client *const c = q->c;
	const uint64_t bound = c->nb->lock_wait_ns, now = rp__nfs4x_now_ns();
	if (!bound)
		return false;
	if (!q->poll_first_ns)
		q->poll_first_ns = now;
	const uint64_t due = rp__nfs4x_poll_next(q->poll_first_ns, now, &q->poll_backoff_ns, bound);
	if (!due) {
		atomic_fetch_add_explicit(&c->nb->lock_expired, 1u, memory_order_relaxed);
		return false;
	}
	q->poll_due_ns = due;
	q->poll_next = c->x4->polls;
	c->x4->polls = q;
	return true;
}

bool rp__nfs4x_lock_reply(nreq *q, const COMPOUND4res *res, int *out)
{
	nfs_client *const c = q->c;
	nfile *const f = (nfile *)(uintptr_t)q->req->bh;
	uint32_t gen = 0;
	if (rp__nfs4x_locked(c, f, q->xproc, q->xstage == 1, q->xowner, res, &gen))
		rp__nfs4x_release_owner(c, f->lk_id, gen);
	if (q->xproc != K_LOCK || res->status != NFS4ERR_DENIED || !f || !rp__nfs4x_lock_polls(q->req->op))
		return false;
	if (poll_later(q))
		return true;
	if (q->poll_first_ns)
		*out = ETIMEDOUT; /* still denied when lock-wait ran out: no blocking lock waits for ever */
	return false;
}

nreq *rp__nfs4x_poll_take(struct nfs4x *x, uint64_t now_ns)
{
	for (nreq **pp = &x->polls; *pp; pp = &(*pp)->poll_next) {
		nreq *const q = *pp;
		if (q->poll_due_ns > now_ns)
			continue;
		*pp = q->poll_next;
		q->poll_next = NULL;
		q->poll_due_ns = 0;
		return q;
	}
	return NULL;
}

uint64_t rp__nfs4_exact_due(const nfs_client *c)
{
	uint64_t due = 0;
	for (const nreq *q = c->x4 ? c->x4->polls : NULL; q; q = q->poll_next)
		if (!due || q->poll_due_ns < due)
			due = q->poll_due_ns;
	return due;
}
