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
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"
#include "replay/backends/nfs4_exact_int.h"

#include <stdio.h>
#include <string.h>

#include <nfsc/libnfs-raw-nfs4.h>

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

static void lock_owner(const nfs_client *c, cbuild *b, lock_owner4 *o, const nfile *f)
{
	const int n = f ? snprintf(b->owner, sizeof(b->owner), "reprise-lock-%u-%u-%u", c->x4->id, f->lk_id, f->lk_gen)
			: snprintf(b->owner, sizeof(b->owner), "reprise-lockt-%u", c->x4->id);
	o->clientid = c->x4->clientid;
	o->owner.owner_len = n > 0 && (size_t)n < sizeof(b->owner) ? (u_int)n : (u_int)strlen(b->owner);
	o->owner.owner_val = b->owner;
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

void rp__nfs4x_locked(nfs_client *c, nfile *f, unsigned k, bool fresh, unsigned owner, const COMPOUND4res *res)
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
			return;
		const stateid4 *sid = NULL;
		if (s4 == NFS4_OK)
			sid = k == K_LOCK ? &r.nfs_resop4_u.oplock.LOCK4res_u.resok4.lock_stateid
					  : &r.nfs_resop4_u.oplocku.LOCKU4res_u.lock_stateid;
		if (sid) {
			f->lk_ok = true;
			f->lk_seq = sid->seqid;
			memcpy(f->lk_other, sid->other, sizeof(f->lk_other));
			f->lk_seqid = fresh ? 1 : f->lk_seqid + 1;
		} else if (fresh) {
			/* Refused (DENIED, ...): no lock state of ours; the next LOCK names a new lock-owner. */
			lock_owner_lost(f);
		} else if (s4 == NFS4ERR_BAD_SEQID) {
			lock_owner_lost(f);
		} else if (rp__nfs4_seqid_moves(s4)) {
			f->lk_seqid++;
		}
		return;
	}
}
