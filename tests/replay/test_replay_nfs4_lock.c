/*
 * Unit tests: NFSv4.0 exact mode's locks (replay/backends/nfs4_lock.c, RFC 7530 s16.10-16.12,
 * s9.1.7) without a server: the LOCK, LOCKT and LOCKU arguments built for an open of ours, and the
 * lock-owner's state (seqids, stateid, its name's generation) moved by the replies.
 */
#define RP_NFS_LIBNFS 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "formats/op.h"
#include "replay/backends/nfs_int.h"
#include "replay/backends/nfs4_exact_int.h"

typedef struct rig {
	nfs_client c;
	struct nfs4x x;
	nfile f;
	cbuild b;
	rp_op op;
} rig;

static rig *rig_new(void)
{
	rig *const r = calloc(1, sizeof(*r));
	assert_non_null(r);
	r->x.id = 7;
	r->x.clientid = 0x1122334455667788ull;
	r->x.own[1].seqid = 5;
	r->c.x4 = &r->x;
	/* An open of ours by open-owner 1, with the OPEN's stateid. */
	r->f.exact = r->f.sid_ok = true;
	r->f.owner = 1;
	r->f.sid_seq = 1;
	memset(r->f.sid_other, 0xab, sizeof(r->f.sid_other));
	return r;
}

static const nfs_argop4 *build(rig *r, uint16_t opc, uint16_t flags, uint64_t off, uint64_t len, unsigned k, bool ok)
{
	r->b.n = 0;
	r->op = (rp_op){ .op = opc, .flags = flags, .offset = off, .length = len };
	unsigned why = 0;
	const bool got = rp__nfs4x_lock_args(&r->c, &r->b, &r->op, k == K_LOCKT ? NULL : &r->f, k, &why);
	assert_int_equal(got, ok);
	if (!ok) {
		assert_int_equal(why, RP_NFS_FB_NO_LOCK);
		return NULL;
	}
	assert_int_equal(r->b.n, 1);
	return &r->b.a[0];
}

/* A reply of one LOCK or LOCKU result: status, and the stateid of a success; the generation given up, or -1. */
static long reply(rig *r, unsigned k, bool fresh, nfsstat4 st, uint32_t sid_seq)
{
	nfs_resop4 op;
	memset(&op, 0, sizeof(op));
	op.resop = k == K_LOCK ? OP_LOCK : OP_LOCKU;
	if (k == K_LOCK) {
		op.nfs_resop4_u.oplock.status = st;
		op.nfs_resop4_u.oplock.LOCK4res_u.resok4.lock_stateid.seqid = sid_seq;
		memset(op.nfs_resop4_u.oplock.LOCK4res_u.resok4.lock_stateid.other, 0xcd, 12);
	} else {
		op.nfs_resop4_u.oplocku.status = st;
		op.nfs_resop4_u.oplocku.LOCKU4res_u.lock_stateid.seqid = sid_seq;
		memset(op.nfs_resop4_u.oplocku.LOCKU4res_u.lock_stateid.other, 0xcd, 12);
	}
	COMPOUND4res res;
	memset(&res, 0, sizeof(res));
	res.status = st;
	res.resarray.resarray_len = 1;
	res.resarray.resarray_val = &op;
	uint32_t gen = UINT32_MAX;
	return rp__nfs4x_locked(&r->c, &r->f, k, fresh, r->f.owner, &res, &gen) ? (long)gen : -1;
}

/* The first LOCK names a new lock-owner from the open; the next ones and the LOCKUs the lock state. */
static void test_lock_owner_sequence(void **state)
{
	(void)state;
	rig *const r = rig_new();
	assert_true(rp__nfs4x_lock_new(&r->f));
	const nfs_argop4 *a = build(r, RP_OP_LOCK, 0, 0, 100, K_LOCK, true);
	assert_int_equal(a->argop, OP_LOCK);
	const LOCK4args *l = &a->nfs_argop4_u.oplock;
	assert_int_equal(l->locktype, READ_LT);
	assert_int_equal(l->reclaim, 0);
	assert_int_equal(l->offset, 0);
	assert_int_equal(l->length, 100);
	assert_int_equal(l->locker.new_lock_owner, 1);
	const open_to_lock_owner4 *o = &l->locker.locker4_u.open_owner;
	assert_int_equal(o->open_seqid, 5);
	assert_int_equal(o->open_stateid.seqid, 1);
	assert_int_equal((unsigned char)o->open_stateid.other[0], 0xab);
	assert_int_equal(o->lock_seqid, 0);
	assert_true(o->lock_owner.clientid == r->x.clientid);
	char name[64];
	snprintf(name, sizeof(name), "reprise-lock-7-%u-0", r->f.lk_id);
	assert_int_equal(o->lock_owner.owner.owner_len, strlen(name));
	assert_memory_equal(o->lock_owner.owner.owner_val, name, strlen(name));
	assert_int_equal(reply(r, K_LOCK, true, NFS4_OK, 1), -1);
	assert_true(r->f.lk_ok);
	assert_int_equal(r->f.lk_seqid, 1);
	assert_int_equal(r->x.own[1].seqid, 6); /* open_to_lock_owner4 moved the open-owner's seqid */

	/* An exclusive one that may wait: WRITEW_LT, on the lock state (exist_lock_owner4). */
	a = build(r, RP_OP_LOCK, RP_OPF_EXCLUSIVE | RP_OPF_WAIT, 200, 50, K_LOCK, true);
	l = &a->nfs_argop4_u.oplock;
	assert_int_equal(l->locktype, WRITEW_LT);
	assert_int_equal(l->locker.new_lock_owner, 0);
	assert_int_equal(l->locker.locker4_u.lock_owner.lock_seqid, 1);
	assert_int_equal(l->locker.locker4_u.lock_owner.lock_stateid.seqid, 1);
	assert_int_equal((unsigned char)l->locker.locker4_u.lock_owner.lock_stateid.other[0], 0xcd);
	/* Denied: the lock-owner's seqid moves all the same (s9.1.7), its stateid stays, the open-owner's too. */
	assert_int_equal(reply(r, K_LOCK, false, NFS4ERR_DENIED, 0), -1); /* the lock-owner holds its locks still */
	assert_true(r->f.lk_ok);
	assert_int_equal(r->f.lk_seqid, 2);
	assert_int_equal(r->f.lk_seq, 1);
	assert_int_equal(r->x.own[1].seqid, 6);

	/* LOCKU: the recorded range and type, the lock-owner's seqid and stateid; its reply's stateid kept. */
	a = build(r, RP_OP_UNLOCK, RP_OPF_EXCLUSIVE, 0, 250, K_LOCKU, true);
	assert_int_equal(a->argop, OP_LOCKU);
	const LOCKU4args *u = &a->nfs_argop4_u.oplocku;
	assert_int_equal(u->locktype, WRITE_LT);
	assert_int_equal(u->seqid, 2);
	assert_int_equal(u->lock_stateid.seqid, 1);
	assert_int_equal(u->offset, 0);
	assert_int_equal(u->length, 250);
	assert_int_equal(reply(r, K_LOCKU, false, NFS4_OK, 2), -1);
	assert_int_equal(r->f.lk_seqid, 3);
	assert_int_equal(r->f.lk_seq, 2);

	/* BAD_SEQID: the lock-owner is given up; the next LOCK names one of the next generation. */
	(void)build(r, RP_OP_LOCK, 0, 0, 10, K_LOCK, true);
	assert_int_equal(reply(r, K_LOCK, false, NFS4ERR_BAD_SEQID, 0), 0); /* generation 0 given up: released */
	assert_false(r->f.lk_ok);
	assert_int_equal(r->f.lk_gen, 1);
	a = build(r, RP_OP_LOCK, 0, 0, 10, K_LOCK, true);
	assert_int_equal(a->nfs_argop4_u.oplock.locker.new_lock_owner, 1);
	snprintf(name, sizeof(name), "reprise-lock-7-%u-1", r->f.lk_id);
	o = &a->nfs_argop4_u.oplock.locker.locker4_u.open_owner;
	assert_memory_equal(o->lock_owner.owner.owner_val, name, strlen(name));
	assert_int_equal(o->open_seqid, 6);
	free(r);
}

/* A first LOCK refused (DENIED): no lock state, the open-owner's seqid moved, a new lock-owner next. */
static void test_fresh_denied(void **state)
{
	(void)state;
	rig *const r = rig_new();
	(void)build(r, RP_OP_LOCK, RP_OPF_EXCLUSIVE, 210, 10, K_LOCK, true);
	const uint32_t id = r->f.lk_id;
	assert_int_not_equal(id, 0);
	/* The refused name (generation 0) is given up: the caller releases it. */
	assert_int_equal(reply(r, K_LOCK, true, NFS4ERR_DENIED, 0), 0);
	assert_false(r->f.lk_ok);
	assert_int_equal(r->f.lk_gen, 1);
	assert_int_equal(r->f.lk_seqid, 0);
	assert_int_equal(r->x.own[1].seqid, 6);
	/* No lock granted: a LOCKU has no stateid to name (counted, not sent). */
	(void)build(r, RP_OP_UNLOCK, 0, 210, 10, K_LOCKU, false);
	const nfs_argop4 *a = build(r, RP_OP_LOCK, 0, 50, 20, K_LOCK, true);
	assert_int_equal(a->nfs_argop4_u.oplock.locker.new_lock_owner, 1);
	assert_int_equal(a->nfs_argop4_u.oplock.locker.locker4_u.open_owner.open_seqid, 6);
	assert_int_equal(r->f.lk_id, id); /* the same open's lock-owner, a new generation of its name */
	free(r);
}

/* LOCKT: a lock-owner of the client's that holds nothing, the recorded type and range, no handle. */
static void test_lockt(void **state)
{
	(void)state;
	rig *const r = rig_new();
	const nfs_argop4 *a = build(r, RP_OP_LOCK, RP_OPF_EXCLUSIVE | RP_OPF_TEST, 300, 10, K_LOCKT, true);
	assert_int_equal(a->argop, OP_LOCKT);
	const LOCKT4args *t = &a->nfs_argop4_u.oplockt;
	assert_int_equal(t->locktype, WRITE_LT);
	assert_int_equal(t->offset, 300);
	assert_int_equal(t->length, 10);
	assert_true(t->owner.clientid == r->x.clientid);
	assert_int_equal(t->owner.owner.owner_len, strlen("reprise-lockt-7"));
	assert_memory_equal(t->owner.owner.owner_val, "reprise-lockt-7", strlen("reprise-lockt-7"));
	free(r);
}

/* What cannot go: a lock on an open the semantic path made, or on no OPEN of ours; a lost open-owner. */
static void test_refused(void **state)
{
	(void)state;
	rig *const r = rig_new();
	r->f.exact = false;
	(void)build(r, RP_OP_LOCK, 0, 0, 1, K_LOCK, false);
	r->f.exact = true;
	r->f.sid_ok = false;
	(void)build(r, RP_OP_LOCK, 0, 0, 1, K_LOCK, false);
	r->f.sid_ok = true;
	r->x.own[1].gen = 1; /* the open-owner was given up after the OPEN: no open_seqid of it is right */
	r->b.n = 0;
	r->op = (rp_op){ .op = RP_OP_LOCK, .length = 1 };
	unsigned why = 0;
	assert_false(rp__nfs4x_lock_args(&r->c, &r->b, &r->op, &r->f, K_LOCK, &why));
	assert_int_equal(why, RP_NFS_FB_OWNER_LOST);
	assert_int_equal(r->b.n, 0);
	free(r);
}

/* A blocking LOCK polls only when the trace saw it granted (or saw no answer); a test or a plain lock never. */
static void test_lock_polls(void **state)
{
	(void)state;
	rp_op op = { .op = RP_OP_LOCK, .flags = RP_OPF_WAIT | RP_OPF_EXCLUSIVE };
	assert_true(rp__nfs4x_lock_polls(&op));
	op.status = 11; /* EAGAIN: the recorded client saw it denied (its own polls are ops of the trace) */
	assert_false(rp__nfs4x_lock_polls(&op));
	op.flags |= RP_OPF_NO_REPLY;
	assert_true(rp__nfs4x_lock_polls(&op));
	op = (rp_op){ .op = RP_OP_LOCK, .flags = RP_OPF_EXCLUSIVE };
	assert_false(rp__nfs4x_lock_polls(&op));
	op.flags = RP_OPF_WAIT | RP_OPF_TEST;
	assert_false(rp__nfs4x_lock_polls(&op));
	op = (rp_op){ .op = RP_OP_UNLOCK, .flags = RP_OPF_WAIT };
	assert_false(rp__nfs4x_lock_polls(&op));
}

/* The back-off: 10 ms, doubling to 500 ms, never past the bound, which then gives up; bound 0 never polls. */
static void test_poll_next(void **state)
{
	(void)state;
	const uint64_t ms = 1000000u, t0 = 1000 * ms, bound = 3000 * ms;
	uint64_t backoff = 0, now = t0, total = 0;
	const uint64_t want[] = { 10, 20, 40, 80, 160, 320, 500, 500, 500, 500, 500 };
	unsigned n = 0;
	for (;;) {
		const uint64_t due = rp__nfs4x_poll_next(t0, now, &backoff, bound);
		if (!due)
			break;
		assert_true(due > now);
		assert_true(due <= t0 + bound);
		if (n < sizeof(want) / sizeof(want[0]))
			assert_true(due - now == want[n] * ms || due == t0 + bound);
		total = due - t0;
		now = due;
		n++;
		assert_true(n < 100);
	}
	/* 10+20+...+320 = 630 ms, then 500 ms steps: the last send at the bound itself, then none. */
	assert_int_equal(total, bound);
	assert_int_equal(n, 11); /* at 10, 30, 70, 150, 310, 630, 1130, ... 2630 ms and 3 s */
	backoff = 0;
	assert_int_equal(rp__nfs4x_poll_next(t0, t0, &backoff, 0), 0);
	assert_int_equal(rp__nfs4x_poll_next(t0, t0 + bound, &backoff, bound), 0);
	/* A bound shorter than the first step: one send at the bound. */
	backoff = 0;
	assert_int_equal(rp__nfs4x_poll_next(t0, t0, &backoff, 4 * ms), t0 + 4 * ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_owner_sequence),
		cmocka_unit_test(test_fresh_denied),
		cmocka_unit_test(test_lockt),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_lock_polls),
		cmocka_unit_test(test_poll_next),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
