/* The NFSv4 decoder test rig: a capture context over a memory sink, crafted COMPOUND exchanges (shared by test_nfs4*.c). */
#ifndef REPRISE_TESTS_NFS4_RIG_H

#define REPRISE_TESTS_NFS4_RIG_H
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

static __attribute__((unused)) rig *rig_new(void)
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

static __attribute__((unused)) void rig_finish(rig *r)
{
	if (!r->finished)
		assert_int_equal(rp__capctx_finish(r->cx), 0);
	r->finished = true;
}

static __attribute__((unused)) void rig_free(rig *r)
{
	rp__capctx_destroy(r->cx);
	rp_memsink_fini(&r->sink);
	free(r);
}

/* One COMPOUND: call (cut to call_len bytes if smaller), then the reply (NULL: none; cut likewise). */
static __attribute__((unused)) void exchange_cut(rig *r, const xb *call, size_t call_len, const xb *reply, size_t reply_len)
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

static __attribute__((unused)) void exchange(rig *r, const xb *call, const xb *reply)
{
	exchange_cut(r, call, call->n, reply, reply ? reply->n : 0);
}

static __attribute__((unused)) const char *path_of(rig *r, uint32_t id)
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

static __attribute__((unused)) const rp_op *op_at(rig *r, size_t i)
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

/*
 * root_op PUTROOTFH (24): a client's mount of /export, whose handle is its root
 * ("/"), the LOOKUP no op; PUTPUBFH (23): a lookup of /export from the root,
 * an op, paths beneath it /export/...
 */
static __attribute__((unused)) void lookup_export_from(rig *r, uint32_t root_op)
{
	xb c = { 0 }, p = { 0 };
	xb_call(&c, 1, 5);
	xb_sequence_arg(&c);
	xb_u32(&c, root_op);
	xb_u32(&c, 15); /* LOOKUP */
	xb_str(&c, "export");
	xb_u32(&c, 10); /* GETFH */
	xb_getattr_arg(&c);
	xb_reply(&p, 0, 5);
	xb_sequence_res(&p);
	xb_res(&p, root_op, 0);
	xb_res(&p, 15, 0);
	xb_getfh_res(&p, "FH-EXPORT");
	xb_getattr_res(&p, 2, 4096);
	exchange(r, &c, &p);
}

/* The export looked up from the (public) root: FH-EXPORT is /export. */
static __attribute__((unused)) void lookup_export(rig *r)
{
	lookup_export_from(r, 23);
}

/* OPEN "name" in dir_fh, creating it; the reply gives stateid fill `sid` and handle fh. */
static __attribute__((unused)) void build_open(xb *c, xb *p, const char *dir_fh, const char *name, uint8_t sid, const char *fh)
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

static __attribute__((unused)) void build_write(xb *c, xb *p, const char *fh, uint8_t sid, uint64_t off, uint32_t stable, uint32_t len)
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

static __attribute__((unused)) void build_close(xb *c, xb *p, const char *fh, uint8_t sid)
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

#endif
