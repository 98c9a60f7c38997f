/* Unit tests of the NFSv4 COMPOUND decoder: crafted calls and replies through rp__nfs4_prog. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture/rpc/nfs4_int.h"
#include "formats/sink.h"
#include "nfs4_xdr_build.h"

/* A capture context over a memory sink, fed call/reply pairs by hand. */
typedef struct rig {
	rp_memsink sink;
	rp_capture_stats stats;
	rp_capctx *cx;
	rp_conn conn;
	uint32_t xid;
	uint64_t now;
	bool finished;
} rig;

static rig *rig_new(void)
{
	rig *const r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(rp_memsink_init(&r->sink), 0);
	r->cx = rp__capctx_create(&r->sink.base, NULL, &r->stats);
	assert_non_null(r->cx);
	r->now = 1000000000ull;
	rp__capctx_frame(r->cx, r->now, 0);
	return r;
}

static void rig_finish(rig *r)
{
	if (!r->finished)
		assert_int_equal(rp__capctx_finish(r->cx), 0);
	r->finished = true;
}

static void rig_free(rig *r)
{
	rp__capctx_destroy(r->cx);
	rp_memsink_fini(&r->sink);
	free(r);
}

/* One COMPOUND: call (cut to call_len bytes if smaller), then the reply (NULL: none; cut likewise). */
static void exchange_cut(rig *r, const xb *call, size_t call_len, const xb *reply, size_t reply_len)
{
	max_align_t pend[4];
	memset(pend, 0, sizeof(pend));
	assert_true(rp__nfs4_prog.pending_size <= sizeof(pend));
	rp_rpc_call c = { .xid = ++r->xid, .prog = 100003, .vers = 4, .proc = 1, .auth_flavor = 1,
			  .has_unix_cred = true, .uid = 1000, .ts_ns = r->now, .client = 1,
			  .truncated = call_len < call->n };
	/* An exact-size copy so the sanitizer sees any read past the end. */
	uint8_t *const cb = malloc(call_len ? call_len : 1);
	memcpy(cb, call->b, call_len);
	rp_cur args = rp_cur_make(cb, call_len);
	rp__nfs4_prog.call(r->cx, &r->conn, &c, &args, pend);
	free(cb);
	r->now += 1000;
	rp__capctx_frame(r->cx, r->now, 0);
	if (reply) {
		rp_rpc_reply rep = { .ts_ns = r->now, .truncated = reply_len < reply->n };
		uint8_t *const rb = malloc(reply_len ? reply_len : 1);
		memcpy(rb, reply->b, reply_len);
		rp_cur res = rp_cur_make(rb, reply_len);
		rp__nfs4_prog.reply(r->cx, &r->conn, &c, &rep, &res, pend);
		free(rb);
	} else {
		rp__nfs4_prog.drop(r->cx, pend);
	}
	r->now += 1000;
	rp__capctx_frame(r->cx, r->now, 0);
}

static void exchange(rig *r, const xb *call, const xb *reply)
{
	exchange_cut(r, call, call->n, reply, reply ? reply->n : 0);
}

static const char *path_of(rig *r, uint32_t id)
{
	static char buf[512];
	uint32_t len = 0;
	const char *const s = rp_memsink_string(&r->sink, id, &len);
	if (!s)
		return "";
	memcpy(buf, s, len < sizeof(buf) - 1 ? len : sizeof(buf) - 1);
	buf[len < sizeof(buf) - 1 ? len : sizeof(buf) - 1] = '\0';
	return buf;
}

static const rp_op *op_at(rig *r, size_t i)
{
	assert_true(i < r->sink.n_ops);
	return &r->sink.ops[i];
}

static uint64_t unsupported(const rig *r, const char *name)
{
	for (uint32_t i = 0; i < r->stats.n_unsupported; i++)
		if (strcmp(r->stats.unsupported_by_name[i].name, name) == 0)
			return r->stats.unsupported_by_name[i].count;
	return 0;
}

/* ---- the exchanges of a small NFSv4.1 session ---- */

static void lookup_export(rig *r)
{
	xb c = { 0 }, p = { 0 };
	xb_call(&c, 1, 5);
	xb_sequence_arg(&c);
	xb_u32(&c, 24); /* PUTROOTFH */
	xb_u32(&c, 15); /* LOOKUP */
	xb_str(&c, "export");
	xb_u32(&c, 10); /* GETFH */
	xb_getattr_arg(&c);
	xb_reply(&p, 0, 5);
	xb_sequence_res(&p);
	xb_res(&p, 24, 0);
	xb_res(&p, 15, 0);
	xb_getfh_res(&p, "FH-EXPORT");
	xb_getattr_res(&p, 2, 4096);
	exchange(r, &c, &p);
}

/* OPEN "name" in dir_fh, creating it; the reply gives stateid fill `sid` and handle fh. */
static void build_open(xb *c, xb *p, const char *dir_fh, const char *name, uint8_t sid, const char *fh)
{
	xb_call(c, 1, 6);
	xb_sequence_arg(c);
	xb_putfh(c, dir_fh);
	xb_u32(c, 18); /* OPEN */
	xb_u32(c, 0);  /* seqid */
	xb_u32(c, 3);  /* share_access BOTH */
	xb_u32(c, 0);  /* share_deny NONE */
	xb_u64(c, 0x1234);
	xb_str(c, "owner");
	xb_u32(c, 1); /* OPEN4_CREATE */
	xb_u32(c, 0); /* UNCHECKED4 */
	xb_u32(c, 2); /* fattr4: size (bit 4) and mode (bit 33) */
	xb_u32(c, 1u << 4);
	xb_u32(c, 1u << 1);
	xb_u32(c, 12);
	xb_u64(c, 0);
	xb_u32(c, 0644);
	xb_u32(c, 0); /* CLAIM_NULL */
	xb_str(c, name);
	xb_u32(c, 10); /* GETFH */
	xb_u32(c, 3);  /* ACCESS */
	xb_u32(c, 0x1f);
	xb_getattr_arg(c);

	xb_reply(p, 0, 6);
	xb_sequence_res(p);
	xb_res(p, 22, 0);
	xb_res(p, 18, 0);
	xb_stateid(p, 1, sid);
	xb_change_info(p);
	xb_u32(p, 4); /* rflags */
	xb_u32(p, 0); /* attrset: empty bitmap */
	xb_u32(p, 0); /* OPEN_DELEGATE_NONE */
	xb_getfh_res(p, fh);
	xb_res(p, 3, 0);
	xb_u32(p, 0x1f);
	xb_u32(p, 0x1f);
	xb_getattr_res(p, 1, 0);
}

static void build_write(xb *c, xb *p, const char *fh, uint8_t sid, uint64_t off, uint32_t stable, uint32_t len)
{
	static const uint8_t data[4096];
	xb_call(c, 1, 4);
	xb_sequence_arg(c);
	xb_putfh(c, fh);
	xb_u32(c, 38);
	xb_stateid(c, 1, sid);
	xb_u64(c, off);
	xb_u32(c, stable);
	xb_opaque(c, data, len);
	xb_getattr_arg(c);
	if (!p)
		return;
	xb_reply(p, 0, 4);
	xb_sequence_res(p);
	xb_res(p, 22, 0);
	xb_res(p, 38, 0);
	xb_u32(p, len);
	xb_u32(p, stable);
	xb_u64(p, 0x77);
	xb_getattr_res(p, 1, off + len);
}

static void build_close(xb *c, xb *p, const char *fh, uint8_t sid)
{
	xb_call(c, 1, 3);
	xb_sequence_arg(c);
	xb_putfh(c, fh);
	xb_u32(c, 4);
	xb_u32(c, 0);
	xb_stateid(c, 1, sid);
	xb_reply(p, 0, 3);
	xb_sequence_res(p);
	xb_res(p, 22, 0);
	xb_res(p, 4, 0);
	xb_stateid(p, 2, sid);
}

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
	assert_int_equal(op_at(r, 2)->flags, RP_OPF_EXCLUSIVE);
	assert_int_equal(op_at(r, 2)->proto, RP_PROTO_NFS4);
	assert_int_equal(op_at(r, 3)->flags, 0);
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
	assert_int_equal(t->flags, RP_OPF_TEST | RP_OPF_EXCLUSIVE); /* WRITEW_LT: a write lock; a test does not wait */
	assert_int_equal(t->handle, 0); /* a lock owner, no stateid: a test by path against every lock */
	assert_int_equal(t->path, op_at(r, 1)->path);
	assert_int_equal(t->offset, 0);
	assert_int_equal(t->length, 10);
	assert_int_equal(t->proto_status, 10010);
	const rp_op *const l = op_at(r, 3);
	assert_int_equal(l->op, RP_OP_LOCK);
	assert_int_equal(l->flags, RP_OPF_WAIT);
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
		cmocka_unit_test(standalone_getattr_is_stat),
		cmocka_unit_test(create_dir_then_remove_is_rmdir),
		cmocka_unit_test(rename_moves_handle),
		cmocka_unit_test(lock_and_unlock),
		cmocka_unit_test(lockt_and_blocking_lock),
		cmocka_unit_test(setattr_values),
		cmocka_unit_test(failed_putfh_blames_next_op),
		cmocka_unit_test(ops_after_failure_are_cancelled),
		cmocka_unit_test(unknown_op_stops_compound),
		cmocka_unit_test(huge_op_count_does_not_allocate),
		cmocka_unit_test(corrupt_lengths_are_invalid),
		cmocka_unit_test(truncated_at_every_byte),
		cmocka_unit_test(mid_stream_stateid_gets_a_handle),
		cmocka_unit_test(other_procedures_and_versions),
		cmocka_unit_test(v42_and_xattr_ops),
		cmocka_unit_test(rpc_failure_and_no_reply),
		cmocka_unit_test(open_upgrade_is_not_a_second_open),
		cmocka_unit_test(op_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
