/* Unit tests: ONC RPC headers, auth flavours, call/reply matching, retransmissions, other programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nfs_harness.h"

enum { NFS = 100003 };

/* A GETATTR call (xid) of handle 0x11 with the given credential bytes. */
static void getattr_call(xb *x, uint32_t xid, uint32_t flavor, const xb *cred)
{
	xb_u32(x, xid);
	xb_u32(x, 0);
	xb_u32(x, 2);
	xb_u32(x, NFS);
	xb_u32(x, 3);
	xb_u32(x, 1);
	xb_u32(x, flavor);
	xb_opaque(x, cred ? cred->b : NULL, cred ? cred->n : 0);
	xb_u32(x, 0);
	xb_u32(x, 0);
}

static void getattr_reply(xb *x, uint32_t xid)
{
	xb_reply(x, xid);
	xb_u32(x, 70); /* NFS3ERR_STALE: nothing more to read */
	xb_u32(x, 0);
}

static size_t stale_reply(xb *x, uint32_t xid)
{
	xb_reply(x, xid);
	xb_u32(x, 70);
	return x->n;
}

/* AUTH_SYS uids tell clients apart on one address; AUTH_NONE is principal 0. */
static void auth_sys_clients(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	for (uint32_t i = 0; i < 3; i++) {
		xb c = { .n = 0 }, r = { .n = 0 };
		xb_call(&c, 10 + i, NFS, 3, 1, i == 2 ? 500 : 1000 + i);
		xb_fh(&c, 0x11, 8);
		stale_reply(&r, 10 + i);
		env_send(e, 0, &c);
		env_send(e, 1, &r);
	}
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 3);
	assert_int_equal(e->ms.ops[0].client, 1);
	assert_int_equal(e->ms.ops[1].client, 2);
	assert_int_equal(e->ms.ops[2].client, 3);
	CHECK(e, strstr(e->lines[0], "(NFS3ERR_STALE)") != NULL);
	assert_int_equal(e->st.messages, 6);
	env_free(e);
}

static void auth_none_and_gss(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	xb c = { .n = 0 }, r = { .n = 0 };
	getattr_call(&c, 1, 0, NULL); /* AUTH_NONE */
	xb_fh(&c, 0x11, 8);
	env_send(e, 0, &c);
	getattr_reply(&r, 1);
	env_send(e, 1, &r);

	/* RPCSEC_GSS DATA, service none: the arguments follow directly. */
	xb g = { .n = 0 };
	xb_u32(&g, 1);
	xb_u32(&g, 0);
	xb_u32(&g, 1);
	xb_u32(&g, 1);
	xb_str(&g, "ctx");
	c.n = 0;
	getattr_call(&c, 2, 6, &g);
	xb_fh(&c, 0x11, 8);
	env_send(e, 0, &c);
	r.n = 0;
	getattr_reply(&r, 2);
	env_send(e, 1, &r);

	/* integrity: args inside opaque { seq_num, args } */
	g.n = 0;
	xb_u32(&g, 1);
	xb_u32(&g, 0);
	xb_u32(&g, 2);
	xb_u32(&g, 2);
	xb_str(&g, "ctx");
	c.n = 0;
	getattr_call(&c, 3, 6, &g);
	xb body = { .n = 0 };
	xb_u32(&body, 2);
	xb_fh(&body, 0x22, 8);
	xb_opaque(&c, body.b, body.n);
	xb_str(&c, "checksum");
	env_send(e, 0, &c);
	r.n = 0;
	xb_reply(&r, 3);
	body.n = 0;
	xb_u32(&body, 2);
	xb_u32(&body, 70);
	xb_opaque(&r, body.b, body.n);
	xb_str(&r, "checksum");
	env_send(e, 1, &r);

	/* privacy: undecodable, counted by name */
	g.n = 0;
	xb_u32(&g, 1);
	xb_u32(&g, 0);
	xb_u32(&g, 3);
	xb_u32(&g, 3);
	xb_str(&g, "ctx");
	c.n = 0;
	getattr_call(&c, 4, 6, &g);
	xb_str(&c, "sealed bytes");
	env_send(e, 0, &c);
	r.n = 0;
	xb_reply(&r, 4);
	xb_str(&r, "sealed");
	env_send(e, 1, &r);

	env_finish(e);
	assert_int_equal(e->ms.n_ops, 3);
	for (size_t i = 0; i < 3; i++)
		CHECK(e, strstr(e->lines[i], "stat path=\"/.reprise/nfs/") && strstr(e->lines[i], "NFS3ERR_STALE"));
	assert_int_equal(e->st.unsupported, 1);
	assert_string_equal(e->st.unsupported_by_name[0].name, "RPCSEC_GSS privacy");
	assert_int_equal(e->st.unmatched + e->st.invalid + e->st.truncated, 0);
	env_free(e);
}

/* Bad RPC headers: wrong rpcvers, credentials over MAX_AUTH_BYTES or longer
 * than the message, a bad AUTH_SYS body, an unknown message type. */
static void bad_headers(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_UDP);
	xb c = { .n = 0 };
	xb_call(&c, 1, NFS, 3, 1, 0);
	c.b[11] = 3; /* rpcvers 3 */
	env_send(e, 0, &c);
	c.n = 0;
	getattr_call(&c, 2, 1, NULL);
	c.b[31] = 0xff; /* credential length 255... */
	c.b[30] = 0xff; /* ...65535: over MAX_AUTH_BYTES */
	env_send(e, 0, &c);
	env_send_cut(e, 0, c.b, 40, 1500); /* and in a cut message: still invalid */
	xb sys = { .n = 0 };
	xb_u32(&sys, 0);
	xb_str(&sys, "host");
	xb_u32(&sys, 0);
	xb_u32(&sys, 0);
	xb_u32(&sys, 17); /* 17 gids: more than AUTH_SYS allows */
	c.n = 0;
	getattr_call(&c, 3, 1, &sys);
	env_send(e, 0, &c);
	c.n = 0;
	xb_u32(&c, 4);
	xb_u32(&c, 2); /* msg_type 2 */
	env_send(e, 0, &c);
	c.n = 0;
	getattr_call(&c, 5, 0, NULL);
	c.b[39] = 200; /* verifier length 200 with only 8 bytes left */
	env_send(e, 0, &c);
	env_finish(e);
	assert_int_equal(e->st.invalid, 6);
	assert_int_equal(e->ms.n_ops, 0);
	env_free(e);
}

/* A call without a reply is kept (status unknown); a reply without a call is counted. */
static void unmatched(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	xb c = { .n = 0 }, r = { .n = 0 };
	xb_call(&c, 1, NFS, 3, 1, 0);
	xb_fh(&c, 0x11, 8);
	env_send(e, 0, &c);
	getattr_reply(&r, 99);
	env_send(e, 1, &r);
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 1);
	CHECK(e, strstr(e->lines[0], " - c1 stat") != NULL);
	CHECK(e, strstr(e->lines[0], "flags=synth,noreply raw=nfs3 -> UNKNOWN") != NULL);
	assert_int_equal(e->st.unmatched, 2);
	env_free(e);
}

/* UDP: a call sent twice before its reply, and a reply sent twice: one op. */
static void udp_duplicates(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_UDP);
	xb c = { .n = 0 }, r = { .n = 0 };
	xb_call(&c, 1, NFS, 3, 1, 0);
	xb_fh(&c, 0x11, 8);
	getattr_reply(&r, 1);
	env_send(e, 0, &c);
	env_send(e, 0, &c);
	env_send(e, 1, &r);
	env_send(e, 1, &r);
	env_send(e, 0, &c); /* a late retransmission, answered from the server's cache */
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 1);
	/* the op keeps the first call's time and the first reply's */
	assert_int_equal(e->ms.ops[0].t_end - e->ms.ops[0].t_start, 2000000);
	assert_int_equal(e->st.ignored, 3);
	assert_int_equal(e->st.unmatched, 0);
	env_free(e);
}

/* A reply delivered before its (late-reassembled, earlier) call still completes it. */
static void reply_before_call(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	xb c = { .n = 0 }, r = { .n = 0 };
	xb_call(&c, 1, NFS, 3, 1, 0);
	xb_fh(&c, 0x11, 8);
	getattr_reply(&r, 1);
	const uint64_t t0 = e->ts;
	rp__capctx_frame(e->cx, t0, 0); /* the capture starts before both */
	e->ts += 5000000;
	env_send(e, 1, &r); /* reply stamped t0 + 6 ms */
	e->ts = t0;         /* the call's packet came first (t0 + 1 ms) */
	env_send(e, 0, &c);
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 1);
	CHECK(e, strstr(e->lines[0], "NFS3ERR_STALE") != NULL);
	assert_int_equal(e->ms.ops[0].t_end - e->ms.ops[0].t_start, 5000000);
	assert_int_equal(e->st.unmatched, 1); /* counted when it came */
	env_free(e);
}

/* The same xid reused for another procedure is a new call. */
static void xid_reuse(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	xb c = { .n = 0 }, r = { .n = 0 };
	xb_call(&c, 1, NFS, 3, 1, 0);
	xb_fh(&c, 0x11, 8);
	env_send(e, 0, &c);
	c.n = 0;
	xb_call(&c, 1, NFS, 3, 18, 0); /* FSSTAT */
	xb_fh(&c, 0x11, 8);
	env_send(e, 0, &c);
	getattr_reply(&r, 1);
	env_send(e, 1, &r);
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 2);
	CHECK(e, strstr(e->lines[0], "stat ") && strstr(e->lines[0], "UNKNOWN"));
	CHECK(e, strstr(e->lines[1], "statfs ") && strstr(e->lines[1], "NFS3ERR_STALE"));
	env_free(e);
}

/* Replies after the match timeout find no call. */
static void timeout(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	xb c = { .n = 0 }, r = { .n = 0 };
	xb_call(&c, 1, NFS, 3, 1, 0);
	xb_fh(&c, 0x11, 8);
	env_send(e, 0, &c);
	e->ts += 31ull * 1000000000ull; /* past the default 30 s */
	getattr_reply(&r, 1);
	env_send(e, 1, &r);
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 1);
	CHECK(e, strstr(e->lines[0], "UNKNOWN") != NULL);
	assert_int_equal(e->st.unmatched, 2); /* the call (capctx) and the reply */
	env_free(e);
}

/* RPC-level failures: the op is answered with OTHER. */
static void rpc_errors(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	xb c = { .n = 0 }, r = { .n = 0 };
	xb_call(&c, 1, NFS, 3, 1, 0);
	xb_fh(&c, 0x11, 8);
	env_send(e, 0, &c);
	xb_u32(&r, 1);
	xb_u32(&r, 1);
	xb_u32(&r, 1); /* MSG_DENIED */
	xb_u32(&r, 1); /* AUTH_ERROR */
	xb_u32(&r, 1);
	env_send(e, 1, &r);
	c.n = 0;
	xb_call(&c, 2, NFS, 3, 1, 0);
	xb_fh(&c, 0x11, 8);
	env_send(e, 0, &c);
	r.n = 0;
	xb_reply(&r, 2);
	r.b[r.n - 1] = 4; /* GARBAGE_ARGS */
	env_send(e, 1, &r);
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 2);
	CHECK(e, strstr(e->lines[0], "-> OTHER") != NULL);
	CHECK(e, strstr(e->lines[1], "-> OTHER") != NULL);
	env_free(e);
}

/* Other programs on the NFS port: counted by name; pings and PORTMAP ignored. */
static void other_programs(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	static const uint32_t calls[][3] = {
		{ 100227, 3, 1 }, { 100227, 3, 0 }, { 100021, 4, 2 }, { 100000, 2, 3 },
		{ 100003, 2, 4 }, { 100005, 1, 1 }, { 100005, 1, 5 }, { 399999, 1, 1 },
	};
	for (uint32_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		xb c = { .n = 0 }, r = { .n = 0 };
		xb_call(&c, 100 + i, calls[i][0], calls[i][1], calls[i][2], 0);
		xb_u32(&c, 0);
		xb_reply(&r, 100 + i);
		xb_u32(&r, 0);
		env_send(e, 0, &c);
		env_send(e, 1, &r);
	}
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 0);
	assert_int_equal(e->st.unsupported, 5);
	assert_int_equal(e->st.ignored, 3);
	assert_int_equal(e->st.unmatched, 0);
	const char *const names[] = { "NFS_ACL v3 GETACL", "NLM v4 LOCK", "NFSv2 LOOKUP", "MOUNTv1 MNT",
				      "RPC program 399999 v1" };
	assert_int_equal(e->st.n_unsupported, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(e->st.unsupported_by_name[i].name, names[i]);
	env_free(e);
}

/* Many unanswered calls: the pending table stays bounded, nothing leaks (ASan). */
static void many_unanswered(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	for (uint32_t i = 0; i < 70000; i++) {
		xb c = { .n = 0 };
		xb_call(&c, i, NFS, 3, 3, 0);
		xb_fh(&c, 0x11, 8);
		xb_str(&c, "name");
		env_send(e, 0, &c);
	}
	xb r = { .n = 0 };
	getattr_reply(&r, 1); /* forgotten: the oldest were evicted */
	env_send(e, 1, &r);
	env_finish(e);
	assert_int_equal(e->ms.n_ops, 70000);
	assert_int_equal(e->st.unmatched, 70001);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(auth_sys_clients), cmocka_unit_test(auth_none_and_gss),
		cmocka_unit_test(bad_headers),      cmocka_unit_test(unmatched),
		cmocka_unit_test(udp_duplicates),   cmocka_unit_test(xid_reuse),
		cmocka_unit_test(reply_before_call),
		cmocka_unit_test(timeout),          cmocka_unit_test(rpc_errors),
		cmocka_unit_test(other_programs),   cmocka_unit_test(many_unanswered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
