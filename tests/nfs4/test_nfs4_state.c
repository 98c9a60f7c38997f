/* NFSv4 decoder: locks, LOCKT, SETATTR values, stateids met mid-stream, open upgrades (RFC 7530/8881). */
#include "nfs4_rig.h"

static void lock_and_unlock(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	build_open(&c, &p, "FH-EXPORT", "lk", 0xc3, "FH-LK");
	exchange(r, &c, &p);

	xb c2 = { 0 }, p2 = { 0 };
	xb_call(&c2, 1, 3);
	xb_sequence_arg(&c2);
	xb_putfh(&c2, "FH-LK");
	xb_u32(&c2, 12); /* LOCK */
	xb_u32(&c2, 2);  /* WRITE_LT */
	xb_u32(&c2, 0);  /* reclaim */
	xb_u64(&c2, 100);
	xb_u64(&c2, 50);
	xb_u32(&c2, 1); /* new lock owner */
	xb_u32(&c2, 0);
	xb_stateid(&c2, 1, 0xc3);
	xb_u32(&c2, 0);
	xb_u64(&c2, 0x1234);
	xb_str(&c2, "lockowner");
	xb_reply(&p2, 0, 3);
	xb_sequence_res(&p2);
	xb_res(&p2, 22, 0);
	xb_res(&p2, 12, 0);
	xb_stateid(&p2, 1, 0xd4);
	exchange(r, &c2, &p2);

	xb c3 = { 0 }, p3 = { 0 };
	xb_call(&c3, 1, 3);
	xb_sequence_arg(&c3);
	xb_putfh(&c3, "FH-LK");
	xb_u32(&c3, 14); /* LOCKU */
	xb_u32(&c3, 1);  /* READ_LT */
	xb_u32(&c3, 0);
	xb_stateid(&c3, 1, 0xd4); /* the lock stateid */
	xb_u64(&c3, 100);
	xb_u64(&c3, 50);
	xb_reply(&p3, 0, 3);
	xb_sequence_res(&p3);
	xb_res(&p3, 22, 0);
	xb_res(&p3, 14, 0);
	xb_stateid(&p3, 2, 0xd4);
	exchange(r, &c3, &p3);
	rig_finish(r);

	assert_int_equal(r->sink.n_ops, 4);
	const uint64_t h = op_at(r, 1)->handle;
	assert_int_equal(op_at(r, 2)->op, RP_OP_LOCK);
	assert_int_equal(op_at(r, 2)->handle, h);
	assert_int_equal(op_at(r, 2)->offset, 100);
	assert_int_equal(op_at(r, 2)->length, 50);
	assert_true(op_at(r, 2)->flags & RP_OPF_EXCLUSIVE);
	assert_int_equal(op_at(r, 3)->op, RP_OP_UNLOCK);
	assert_int_equal(op_at(r, 3)->handle, h);
	assert_false(op_at(r, 3)->flags & RP_OPF_EXCLUSIVE);
	/* WRITE_LT does not block; NFS locks are advisory */
	/* (the rig speaks 4.1: every op carries flag session) */
	assert_int_equal(op_at(r, 2)->flags, RP_OPF_EXCLUSIVE | RP_OPF_SESSION);
	assert_int_equal(op_at(r, 2)->proto, RP_PROTO_NFS4);
	assert_int_equal(op_at(r, 3)->flags, RP_OPF_SESSION);
	rig_free(r);
}

/* LOCKT is a lock op that only tests; a LOCK of READW_LT/WRITEW_LT waits (RFC 8881 18.10, 18.11). */
static void lockt_and_blocking_lock(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	build_open(&c, &p, "FH-EXPORT", "lk", 0xc3, "FH-LK");
	exchange(r, &c, &p);

	xb c2 = { 0 }, p2 = { 0 };
	xb_call(&c2, 1, 3);
	xb_sequence_arg(&c2);
	xb_putfh(&c2, "FH-LK");
	xb_u32(&c2, 13); /* LOCKT */
	xb_u32(&c2, 4);  /* WRITEW_LT */
	xb_u64(&c2, 0);
	xb_u64(&c2, 10);
	xb_u64(&c2, 0x1234); /* lock_owner4: clientid, owner */
	xb_str(&c2, "lockowner");
	xb_reply(&p2, 10010, 3); /* NFS4ERR_DENIED: a conflicting lock, described */
	xb_sequence_res(&p2);
	xb_res(&p2, 22, 0);
	xb_res(&p2, 13, 10010);
	xb_u64(&p2, 0);
	xb_u64(&p2, 10);
	xb_u32(&p2, 2);
	xb_u64(&p2, 0x9999);
	xb_str(&p2, "other");
	exchange(r, &c2, &p2);

	xb c3 = { 0 }, p3 = { 0 };
	xb_call(&c3, 1, 3);
	xb_sequence_arg(&c3);
	xb_putfh(&c3, "FH-LK");
	xb_u32(&c3, 12); /* LOCK */
	xb_u32(&c3, 3);  /* READW_LT */
	xb_u32(&c3, 0);
	xb_u64(&c3, 20);
	xb_u64(&c3, 5);
	xb_u32(&c3, 1); /* new lock owner */
	xb_u32(&c3, 0);
	xb_stateid(&c3, 1, 0xc3);
	xb_u32(&c3, 0);
	xb_u64(&c3, 0x1234);
	xb_str(&c3, "lockowner");
	xb_reply(&p3, 0, 3);
	xb_sequence_res(&p3);
	xb_res(&p3, 22, 0);
	xb_res(&p3, 12, 0);
	xb_stateid(&p3, 1, 0xd5);
	exchange(r, &c3, &p3);
	rig_finish(r);

	assert_int_equal(r->sink.n_ops, 4);
	assert_int_equal(unsupported(r, "NFSv4 LOCKT"), 0);
	const rp_op *const t = op_at(r, 2);
	assert_int_equal(t->op, RP_OP_LOCK);
	assert_int_equal(t->flags, RP_OPF_TEST | RP_OPF_EXCLUSIVE | RP_OPF_SESSION); /* WRITEW_LT: a write lock; a test does not wait */
	assert_int_equal(t->handle, 0); /* a lock owner, no stateid: a test by path against every lock */
	assert_int_equal(t->path, op_at(r, 1)->path);
	assert_int_equal(t->offset, 0);
	assert_int_equal(t->length, 10);
	assert_int_equal(t->proto_status, 10010);
	const rp_op *const l = op_at(r, 3);
	assert_int_equal(l->op, RP_OP_LOCK);
	assert_int_equal(l->flags, RP_OPF_WAIT | RP_OPF_SESSION);
	rig_free(r);
}

/* SETATTR: the attributes with their values; an owner name that is not an id is left out (RFC 7530 5.9). */
static void setattr_values(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 }, v = { 0 };
	xb_call(&c, 1, 4);
	xb_sequence_arg(&c);
	xb_putfh(&c, "FH-EXPORT");
	xb_u32(&c, 34); /* SETATTR */
	xb_stateid(&c, 0, 0); /* anonymous: chmod/chown/utimes, no open */
	xb_u32(&c, 2);
	xb_u32(&c, 1u << 4); /* size */
	xb_u32(&c, (1u << 1) | (1u << 4) | (1u << 5) | (1u << 16) | (1u << 22)); /* mode, owner, owner_group, times */
	xb_u64(&v, 4096);
	xb_u32(&v, 0640);
	xb_str(&v, "1000");
	xb_str(&v, "staff@example.org");
	xb_u32(&v, 0); /* time_access_set: SET_TO_SERVER_TIME4 */
	xb_u32(&v, 1); /* time_modify_set: SET_TO_CLIENT_TIME4 */
	xb_u64(&v, 1600000000);
	xb_u32(&v, 7);
	xb_opaque(&c, v.b, v.n);
	xb_u32(&c, 3); /* ACCESS on its own: READ | LOOKUP asked */
	xb_u32(&c, 0x3);
	xb_reply(&p, 0, 4);
	xb_sequence_res(&p);
	xb_res(&p, 22, 0);
	xb_res(&p, 34, 0);
	xb_u32(&p, 0); /* attrsset */
	xb_res(&p, 3, 0);
	xb_u32(&p, 0x3);
	xb_u32(&p, 0x1); /* granted READ */
	exchange(r, &c, &p);
	/* ACCESS in a compound of its own is an access op: READ | LOOKUP | MODIFY asked, READ | LOOKUP granted */
	xb c2 = { 0 }, p2 = { 0 };
	xb_call(&c2, 1, 3);
	xb_sequence_arg(&c2);
	xb_putfh(&c2, "FH-EXPORT");
	xb_u32(&c2, 3);
	xb_u32(&c2, 0x7);
	xb_reply(&p2, 0, 3);
	xb_sequence_res(&p2);
	xb_res(&p2, 22, 0);
	xb_res(&p2, 3, 0);
	xb_u32(&p2, 0x7);
	xb_u32(&p2, 0x3);
	exchange(r, &c2, &p2);
	rig_finish(r);

	assert_int_equal(r->sink.n_ops, 3); /* lookup, setattr (the ACCESS after it folds into it), access */
	const rp_op *const ac = op_at(r, 2);
	assert_int_equal(ac->op, RP_OP_ACCESS);
	assert_int_equal(ac->want, RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_EXEC | RP_WANT_WRITE);
	assert_int_equal(ac->result, RP_WANT_READ | RP_WANT_EXEC);
	assert_int_equal(ac->raw.access, 0x7);
	assert_int_equal(ac->raw.options, 0x3);
	const rp_op *const sa = op_at(r, 1);
	assert_int_equal(sa->op, RP_OP_SETATTR);
	assert_int_equal(sa->proto, RP_PROTO_NFS4);
	assert_int_equal(sa->attrs, RP_SA_SIZE | RP_SA_MODE | RP_SA_UID | RP_SA_ATIME_NOW | RP_SA_MTIME);
	assert_int_equal(sa->raw.level, 1 | 2 | 4 | 8 | 16 | 32); /* what was sent, the group included */
	assert_int_equal(sa->length, 4096);
	assert_int_equal(sa->mode, 0640);
	assert_int_equal(sa->uid, 1000);
	assert_int_equal(sa->gid, 0);
	assert_int_equal(sa->mtime, 1600000000000000007ull);
	assert_int_equal(sa->handle, 0);
	rig_free(r);
}

static void mid_stream_stateid_gets_a_handle(void **state)
{
	(void)state;
	rig *const r = rig_new();
	xb c = { 0 }, p = { 0 };
	build_write(&c, &p, "FH-UNSEEN", 0xe5, 0, 1, 10);
	exchange(r, &c, &p);
	xb c2 = { 0 }, p2 = { 0 };
	build_close(&c2, &p2, "FH-UNSEEN", 0xe5);
	exchange(r, &c2, &p2);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 2);
	assert_true(op_at(r, 0)->handle != 0);
	assert_int_equal(op_at(r, 0)->handle, op_at(r, 1)->handle);
	assert_true(op_at(r, 0)->flags & RP_OPF_SYNTH_PATH);
	assert_true(op_at(r, 0)->flags & RP_OPF_STABLE); /* DATA_SYNC4 */
	rig_free(r);
}

/* A second OPEN that returns a stateid already open is an upgrade: no second open op. */
static void open_upgrade_is_not_a_second_open(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	build_open(&c, &p, "FH-EXPORT", "twice", 0x42, "FH-TWICE");
	exchange(r, &c, &p);
	exchange(r, &c, &p);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 2);
	assert_int_equal(op_at(r, 1)->op, RP_OP_OPEN);
	assert_int_equal(r->stats.ignored, 1);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lock_and_unlock),
		cmocka_unit_test(lockt_and_blocking_lock),
		cmocka_unit_test(setattr_values),
		cmocka_unit_test(mid_stream_stateid_gets_a_handle),
		cmocka_unit_test(open_upgrade_is_not_a_second_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
