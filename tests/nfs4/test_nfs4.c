/* Unit tests of the NFSv4 COMPOUND decoder: crafted calls and replies through rp__nfs4_prog. */
#include "nfs4_rig.h"

static void open_write_close(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	build_open(&c, &p, "FH-EXPORT", "file", 0xa1, "FH-FILE");
	exchange(r, &c, &p);
	xb c2 = { 0 }, p2 = { 0 };
	build_write(&c2, &p2, "FH-FILE", 0xa1, 8192, 2, 5);
	exchange(r, &c2, &p2);
	xb c3 = { 0 }, p3 = { 0 };
	build_close(&c3, &p3, "FH-FILE", 0xa1);
	exchange(r, &c3, &p3);
	rig_finish(r);

	assert_int_equal(r->sink.n_ops, 4); /* lookup, open, write, close: no stat, no access */
	const rp_op *const lk = op_at(r, 0);
	assert_int_equal(lk->op, RP_OP_LOOKUP);
	assert_string_equal(path_of(r, lk->path), "/export");
	assert_int_equal(lk->status, 0);
	assert_int_equal(lk->status_kind, RP_SK_NFS4);
	assert_int_equal(lk->client, 1);

	const rp_op *const op = op_at(r, 1);
	assert_int_equal(op->op, RP_OP_OPEN);
	assert_string_equal(path_of(r, op->path), "/export/file");
	assert_true(op->handle != 0);
	assert_false(op->flags & RP_OPF_NO_REPLY);
	/* share_access BOTH is read and write (the defect: it was a host O_RDWR read as an NT mask) */
	assert_int_equal(op->want, RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_WRITE);
	assert_int_equal(op->disp, RP_DISP_TRUNC_IF); /* UNCHECKED4 with size 0 */
	assert_int_equal(op->oflags, 0);
	assert_int_equal(op->proto, RP_PROTO_NFS4);
	assert_int_equal(op->raw.access, 3);
	assert_int_equal(op->raw.disposition, 1); /* OPEN4_CREATE */
	assert_int_equal(op->raw.options, 0);     /* UNCHECKED4 */
	assert_int_equal(op->raw.level, 0);       /* CLAIM_NULL */
	assert_int_equal(op->mode, 0644);
	assert_true(op->t_end != RP_TIME_UNKNOWN && op->t_end > op->t_start);

	const rp_op *const wr = op_at(r, 2);
	assert_int_equal(wr->op, RP_OP_WRITE);
	assert_int_equal(wr->handle, op->handle);
	assert_int_equal(wr->offset, 8192);
	assert_int_equal(wr->length, 5);
	assert_int_equal(wr->result, 5);
	assert_true(wr->flags & RP_OPF_STABLE);
	assert_string_equal(path_of(r, wr->path), "/export/file"); /* PUTFH of the GETFH handle resolves */

	const rp_op *const cl = op_at(r, 3);
	assert_int_equal(cl->op, RP_OP_CLOSE);
	assert_int_equal(cl->handle, op->handle);
	assert_int_equal(r->stats.unsupported, 0);
	assert_int_equal(r->stats.invalid, 0);
	rig_free(r);
}

/*
 * A client's mount (PUTROOTFH, LOOKUP export, GETFH) makes its handle the
 * client's root: no op for the mount's LOOKUP (counted ignored), and a file in
 * it is /file, not /export/file, so a replay to nfs://HOST/export works in the
 * export itself (it worked one directory deeper, in /export/export).
 */
static void mount_is_the_root(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export_from(r, 24);
	xb c = { 0 }, p = { 0 };
	build_open(&c, &p, "FH-EXPORT", "file", 0xa1, "FH-FILE");
	exchange(r, &c, &p);
	xb c2 = { 0 }, p2 = { 0 };
	build_write(&c2, &p2, "FH-FILE", 0xa1, 0, 2, 5);
	exchange(r, &c2, &p2);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 2); /* open, write: the mount is no op */
	assert_int_equal(r->stats.ignored, 1);
	assert_int_equal(op_at(r, 0)->op, RP_OP_OPEN);
	assert_string_equal(path_of(r, op_at(r, 0)->path), "/file");
	assert_string_equal(path_of(r, op_at(r, 1)->path), "/file");
	rig_free(r);
}

/* A LOOKUP from the root that is no mount (a public root, here) keeps today's paths, the export's name in them. */
static void lookup_from_public_root_keeps_path(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	build_open(&c, &p, "FH-EXPORT", "file", 0xa1, "FH-FILE");
	exchange(r, &c, &p);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 2);
	assert_string_equal(path_of(r, op_at(r, 0)->path), "/export");
	assert_string_equal(path_of(r, op_at(r, 1)->path), "/export/file");
	rig_free(r);
}

static void standalone_getattr_is_stat(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	xb_call(&c, 1, 3);
	xb_sequence_arg(&c);
	xb_putfh(&c, "FH-EXPORT");
	xb_getattr_arg(&c);
	xb_reply(&p, 0, 3);
	xb_sequence_res(&p);
	xb_res(&p, 22, 0);
	xb_getattr_res(&p, 2, 4096);
	exchange(r, &c, &p);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 2);
	const rp_op *const st = op_at(r, 1);
	assert_int_equal(st->op, RP_OP_STAT);
	assert_string_equal(path_of(r, st->path), "/export");
	assert_true(st->flags & RP_OPF_DIRECTORY);
	rig_free(r);
}

/* CREATE a directory, then REMOVE it: rmdir, because the CREATE said it is one. */
static void create_dir_then_remove_is_rmdir(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	xb_call(&c, 1, 5);
	xb_sequence_arg(&c);
	xb_putfh(&c, "FH-EXPORT");
	xb_u32(&c, 6); /* CREATE */
	xb_u32(&c, 2); /* NF4DIR */
	xb_str(&c, "d");
	xb_u32(&c, 2); /* fattr4: mode */
	xb_u32(&c, 0);
	xb_u32(&c, 1u << 1);
	xb_u32(&c, 4);
	xb_u32(&c, 0755);
	xb_u32(&c, 10);
	xb_getattr_arg(&c);
	xb_reply(&p, 0, 5);
	xb_sequence_res(&p);
	xb_res(&p, 22, 0);
	xb_res(&p, 6, 0);
	xb_change_info(&p);
	xb_u32(&p, 0);
	xb_getfh_res(&p, "FH-D");
	xb_getattr_res(&p, 2, 0);
	exchange(r, &c, &p);

	xb c2 = { 0 }, p2 = { 0 };
	xb_call(&c2, 1, 3);
	xb_sequence_arg(&c2);
	xb_putfh(&c2, "FH-EXPORT");
	xb_u32(&c2, 28);
	xb_str(&c2, "d");
	xb_reply(&p2, 0, 3);
	xb_sequence_res(&p2);
	xb_res(&p2, 22, 0);
	xb_res(&p2, 28, 0);
	xb_change_info(&p2);
	exchange(r, &c2, &p2);

	/* A file never seen as a directory is unlinked. */
	xb c3 = { 0 }, p3 = { 0 };
	xb_call(&c3, 1, 3);
	xb_sequence_arg(&c3);
	xb_putfh(&c3, "FH-EXPORT");
	xb_u32(&c3, 28);
	xb_str(&c3, "f");
	xb_reply(&p3, 10006, 3);
	xb_sequence_res(&p3);
	xb_res(&p3, 22, 0);
	xb_res(&p3, 28, 2); /* NFS4ERR_NOENT */
	exchange(r, &c3, &p3);
	rig_finish(r);

	assert_int_equal(r->sink.n_ops, 4);
	assert_int_equal(op_at(r, 1)->op, RP_OP_MKDIR);
	assert_string_equal(path_of(r, op_at(r, 1)->path), "/export/d");
	assert_int_equal(op_at(r, 1)->mode, 0755);
	assert_int_equal(op_at(r, 2)->op, RP_OP_RMDIR);
	assert_string_equal(path_of(r, op_at(r, 2)->path), "/export/d");
	assert_int_equal(op_at(r, 3)->op, RP_OP_UNLINK);
	assert_int_equal(op_at(r, 3)->proto_status, 2);
	assert_int_equal(op_at(r, 3)->status, 2); /* ENOENT */
	rig_free(r);
}

/* RENAME with SAVEFH/PUTFH; afterwards the file's handle resolves to its new name. */
static void rename_moves_handle(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	build_open(&c, &p, "FH-EXPORT", "old", 0xb2, "FH-OLD");
	exchange(r, &c, &p);

	xb c2 = { 0 }, p2 = { 0 };
	xb_call(&c2, 1, 5);
	xb_sequence_arg(&c2);
	xb_putfh(&c2, "FH-EXPORT");
	xb_u32(&c2, 32); /* SAVEFH */
	xb_putfh(&c2, "FH-EXPORT");
	xb_u32(&c2, 29);
	xb_str(&c2, "old");
	xb_str(&c2, "new");
	xb_reply(&p2, 0, 5);
	xb_sequence_res(&p2);
	xb_res(&p2, 22, 0);
	xb_res(&p2, 32, 0);
	xb_res(&p2, 22, 0);
	xb_res(&p2, 29, 0);
	xb_change_info(&p2);
	xb_change_info(&p2);
	exchange(r, &c2, &p2);

	xb c3 = { 0 }, p3 = { 0 };
	build_write(&c3, &p3, "FH-OLD", 0xb2, 0, 0, 100);
	exchange(r, &c3, &p3);
	rig_finish(r);

	assert_int_equal(r->sink.n_ops, 4);
	const rp_op *const rn = op_at(r, 2);
	assert_int_equal(rn->op, RP_OP_RENAME);
	assert_string_equal(path_of(r, rn->path), "/export/old");
	assert_string_equal(path_of(r, rn->path2), "/export/new");
	const rp_op *const wr = op_at(r, 3);
	assert_string_equal(path_of(r, wr->path), "/export/new");
	assert_false(wr->flags & RP_OPF_STABLE);
	assert_int_equal(wr->handle, op_at(r, 1)->handle);
	rig_free(r);
}

/* A failed PUTFH: the READ it set up fails with NFS4ERR_STALE; the GETATTR after it never ran. */
static void failed_putfh_blames_next_op(void **state)
{
	(void)state;
	rig *const r = rig_new();
	xb c = { 0 }, p = { 0 };
	xb_call(&c, 1, 4);
	xb_sequence_arg(&c);
	xb_putfh(&c, "FH-GONE");
	xb_u32(&c, 25);
	xb_stateid(&c, 0, 0); /* anonymous stateid */
	xb_u64(&c, 0);
	xb_u32(&c, 4096);
	xb_getattr_arg(&c);
	xb_reply(&p, 70, 2);
	xb_sequence_res(&p);
	xb_res(&p, 22, 70); /* NFS4ERR_STALE */
	exchange(r, &c, &p);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 1);
	const rp_op *const rd = op_at(r, 0);
	assert_int_equal(rd->op, RP_OP_READ);
	assert_int_equal(rd->proto_status, 70);
	assert_true(rd->handle != 0); /* per-handle id for anonymous I/O */
	assert_true(rd->flags & RP_OPF_SYNTH_PATH);
	assert_true(strncmp(path_of(r, rd->path), "/.reprise/", 10) == 0);
	rig_free(r);
}

/* A LOOKUP that fails: the ops after it (GETFH, GETATTR, OPEN) are dropped, not emitted. */
static void ops_after_failure_are_cancelled(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	xb_call(&c, 1, 5);
	xb_sequence_arg(&c);
	xb_putfh(&c, "FH-EXPORT");
	xb_u32(&c, 15);
	xb_str(&c, "missing");
	xb_u32(&c, 27); /* READLINK */
	xb_getattr_arg(&c);
	xb_reply(&p, 2, 3);
	xb_sequence_res(&p);
	xb_res(&p, 22, 0);
	xb_res(&p, 15, 2);
	exchange(r, &c, &p);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 2);
	assert_int_equal(op_at(r, 1)->op, RP_OP_LOOKUP);
	assert_int_equal(op_at(r, 1)->status, 2);
	assert_string_equal(path_of(r, op_at(r, 1)->path), "/export/missing");
	rig_free(r);
}

static void unknown_op_stops_compound(void **state)
{
	(void)state;
	rig *const r = rig_new();
	xb c = { 0 };
	xb_call(&c, 2, 4);
	xb_putfh(&c, "FH-X");
	xb_u32(&c, 99); /* not an NFSv4 op */
	xb_u32(&c, 27);
	xb_u32(&c, 27);
	exchange(r, &c, NULL);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 0);
	assert_int_equal(unsupported(r, "NFSv4 unknown op"), 1);
	assert_int_equal(unsupported(r, "NFSv4 op after an unknown op"), 2);
	rig_free(r);
}

static void huge_op_count_does_not_allocate(void **state)
{
	(void)state;
	rig *const r = rig_new();
	xb c = { 0 };
	xb_call(&c, 1, 0x80000000u);
	xb_u32(&c, 27);
	exchange(r, &c, NULL);
	xb c2 = { 0 };
	xb_call(&c2, 1, 4000); /* under the op limit, but only one op's bytes */
	xb_u32(&c2, 27);
	exchange(r, &c2, NULL);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 1); /* the one READLINK that is there */
	assert_int_equal(r->stats.invalid, 2);
	rig_free(r);
}

static void corrupt_lengths_are_invalid(void **state)
{
	(void)state;
	rig *const r = rig_new();
	xb c = { 0 };
	xb_call(&c, 1, 2);
	xb_putfh(&c, "FH-X");
	xb_u32(&c, 15);
	xb_u32(&c, 0xffffffffu); /* name length */
	xb_u32(&c, 0);
	exchange(r, &c, NULL);
	xb c2 = { 0 };
	xb_call(&c2, 1, 1);
	xb_u32(&c2, 22);
	xb_u32(&c2, 200); /* a handle longer than NFS4_FHSIZE */
	for (int i = 0; i < 50; i++)
		xb_u32(&c2, 0);
	exchange(r, &c2, NULL);
	xb c3 = { 0 };
	xb_call(&c3, 1, 1);
	xb_u32(&c3, 9);
	xb_u32(&c3, 0x7fffffffu); /* bitmap words */
	exchange(r, &c3, NULL);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 0);
	assert_int_equal(r->stats.invalid, 3);
	rig_free(r);
}

/* Every cut of a call and of a reply: no crash, no read past the end, sensible counts. */
static void truncated_at_every_byte(void **state)
{
	(void)state;
	xb c = { 0 }, p = { 0 };
	build_open(&c, &p, "FH-EXPORT", "file", 0xa1, "FH-FILE");
	for (size_t cut = 0; cut <= c.n; cut++) {
		rig *const r = rig_new();
		exchange_cut(r, &c, cut, &p, p.n);
		rig_finish(r);
		assert_true(r->sink.n_ops <= 1);
		if (cut < c.n)
			assert_true(r->stats.truncated + r->stats.invalid >= 1);
		rig_free(r);
	}
	for (size_t cut = 0; cut <= p.n; cut++) {
		rig *const r = rig_new();
		exchange_cut(r, &c, c.n, &p, cut);
		rig_finish(r);
		assert_int_equal(r->sink.n_ops, 1);
		assert_int_equal(op_at(r, 0)->op, RP_OP_OPEN);
		rig_free(r);
	}
	xb w = { 0 }, wp = { 0 };
	build_write(&w, &wp, "FH-FILE", 0xa1, 0, 0, 4000);
	for (size_t cut = 0; cut <= w.n; cut++) {
		rig *const r = rig_new();
		exchange_cut(r, &w, cut, &wp, wp.n);
		rig_finish(r);
		/* Once the WRITE's head is there, the cut data does not lose the op. */
		const size_t head = 4 + 4 + 4 + 4 + 4 + 44 + 4 + 4 + 8 + 4 + 4 + 16 + 8 + 4 + 4;
		if (cut >= head) {
			assert_int_equal(r->sink.n_ops, 1);
			assert_int_equal(op_at(r, 0)->length, 4000);
		}
		rig_free(r);
	}
}

static void other_procedures_and_versions(void **state)
{
	(void)state;
	rig *const r = rig_new();
	max_align_t pend[4];
	memset(pend, 0, sizeof(pend));
	rp_rpc_call nul = { .prog = 100003, .vers = 4, .proc = 0 };
	rp_cur none = rp_cur_make("", 0);
	rp__nfs4_prog.call(r->cx, &r->conn, &nul, &none, pend);
	xb c = { 0 };
	xb_call(&c, 3, 1);
	xb_u32(&c, 24);
	exchange(r, &c, NULL);
	rig_finish(r);
	assert_int_equal(r->stats.ignored, 1);
	assert_int_equal(unsupported(r, "NFSv4 minor version > 2"), 1);
	assert_int_equal(r->sink.n_ops, 0);
	rig_free(r);
}

/* NFSv4.2: READ_PLUS is a read; ALLOCATE and SEEK are counted by name; xattrs map. */
static void v42_and_xattr_ops(void **state)
{
	(void)state;
	rig *const r = rig_new();
	lookup_export(r);
	xb c = { 0 }, p = { 0 };
	xb_call(&c, 2, 6);
	xb_sequence_arg(&c);
	xb_putfh(&c, "FH-EXPORT");
	xb_u32(&c, 59); /* ALLOCATE */
	xb_stateid(&c, 0, 0);
	xb_u64(&c, 0);
	xb_u64(&c, 1 << 20);
	xb_u32(&c, 69); /* SEEK */
	xb_stateid(&c, 0, 0);
	xb_u64(&c, 0);
	xb_u32(&c, 0);
	xb_u32(&c, 68); /* READ_PLUS */
	xb_stateid(&c, 0, 0);
	xb_u64(&c, 0);
	xb_u32(&c, 100);
	xb_u32(&c, 73); /* SETXATTR */
	xb_u32(&c, 0);
	xb_str(&c, "user.k");
	xb_str(&c, "value");
	xb_reply(&p, 0, 6);
	xb_sequence_res(&p);
	xb_res(&p, 22, 0);
	xb_res(&p, 59, 0);
	xb_res(&p, 69, 0);
	xb_u32(&p, 0);
	xb_u64(&p, 0);
	xb_res(&p, 68, 0);
	xb_u32(&p, 1); /* eof */
	xb_u32(&p, 2); /* two contents: 10 data bytes and a 90-byte hole */
	xb_u32(&p, 0);
	xb_u64(&p, 0);
	xb_str(&p, "0123456789");
	xb_u32(&p, 1);
	xb_u64(&p, 10);
	xb_u64(&p, 90);
	xb_res(&p, 73, 0);
	xb_change_info(&p);
	exchange(r, &c, &p);
	rig_finish(r);
	assert_int_equal(unsupported(r, "NFSv4 ALLOCATE"), 1);
	assert_int_equal(unsupported(r, "NFSv4 SEEK"), 1);
	assert_int_equal(r->sink.n_ops, 3);
	assert_int_equal(op_at(r, 1)->op, RP_OP_READ);
	assert_int_equal(op_at(r, 1)->result, 100);
	assert_int_equal(op_at(r, 2)->op, RP_OP_SETXATTR);
	assert_string_equal(path_of(r, op_at(r, 2)->path2), "user.k");
	assert_int_equal(op_at(r, 2)->length, 5);
	rig_free(r);
}

static void rpc_failure_and_no_reply(void **state)
{
	(void)state;
	rig *const r = rig_new();
	xb c = { 0 }, p = { 0 };
	build_close(&c, &p, "FH-Z", 0x11);
	/* The RPC layer says the call was not executed (res NULL). */
	max_align_t pend[4];
	memset(pend, 0, sizeof(pend));
	rp_rpc_call call = { .prog = 100003, .vers = 4, .proc = 1, .client = 1 };
	rp_cur args = rp_cur_make(c.b, c.n);
	rp__nfs4_prog.call(r->cx, &r->conn, &call, &args, pend);
	const rp_rpc_reply rep = { .reply_stat = 1 };
	rp__nfs4_prog.reply(r->cx, &r->conn, &call, &rep, NULL, pend);
	/* No reply at all: the op goes out with an unknown status. */
	exchange(r, &c, NULL);
	rig_finish(r);
	assert_int_equal(r->sink.n_ops, 1);
	assert_true(op_at(r, 0)->flags & RP_OPF_NO_REPLY);
	assert_int_equal(op_at(r, 0)->status, RP_STATUS_UNKNOWN);
	assert_int_equal(r->stats.unmatched, 1);
	rig_free(r);
}

static void op_table(void **state)
{
	(void)state;
	for (uint32_t op = 3; op <= OP4_LAST; op++) {
		assert_non_null(rp__nfs4_op_name(op));
		assert_true(rp__nfs4_op_role(op) != ROLE_NONE);
	}
	assert_null(rp__nfs4_op_name(2));
	assert_null(rp__nfs4_op_name(76));
	assert_string_equal(rp__nfs4_op_name(OP4_ILLEGAL), "ILLEGAL");
	assert_string_equal(rp__nfs4_unsup_name(OP4_OPEN_DOWNGRADE), "NFSv4 OPEN_DOWNGRADE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_write_close),
		cmocka_unit_test(mount_is_the_root),
		cmocka_unit_test(lookup_from_public_root_keeps_path),
		cmocka_unit_test(standalone_getattr_is_stat),
		cmocka_unit_test(create_dir_then_remove_is_rmdir),
		cmocka_unit_test(rename_moves_handle),
		cmocka_unit_test(failed_putfh_blames_next_op),
		cmocka_unit_test(ops_after_failure_are_cancelled),
		cmocka_unit_test(unknown_op_stops_compound),
		cmocka_unit_test(huge_op_count_does_not_allocate),
		cmocka_unit_test(corrupt_lengths_are_invalid),
		cmocka_unit_test(truncated_at_every_byte),
		cmocka_unit_test(other_procedures_and_versions),
		cmocka_unit_test(v42_and_xattr_ops),
		cmocka_unit_test(rpc_failure_and_no_reply),
		cmocka_unit_test(op_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
