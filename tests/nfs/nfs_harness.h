/* Test harness for the RPC/NFS decoders: an XDR message builder and a capctx over a memsink. */
#ifndef REPRISE_TESTS_NFS_HARNESS_H
#define REPRISE_TESTS_NFS_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/pcap/decode.h"
#include "formats/sink.h"

/* ---- building XDR ---- */

typedef struct xb {
	uint8_t b[8192];
	size_t n;
} xb;

static inline void xb_u32(xb *x, uint32_t v)
{
	for (int i = 3; i >= 0; i--)
		x->b[x->n++] = (uint8_t)(v >> (8 * i));
}

static inline void xb_u64(xb *x, uint64_t v)
{
	xb_u32(x, (uint32_t)(v >> 32));
	xb_u32(x, (uint32_t)v);
}

static inline void xb_opaque(xb *x, const void *p, size_t n)
{
	xb_u32(x, (uint32_t)n);
	if (n)
		memcpy(x->b + x->n, p, n);
	x->n += n;
	while (x->n & 3)
		x->b[x->n++] = 0;
}

static inline void xb_str(xb *x, const char *s)
{
	xb_opaque(x, s, strlen(s));
}

/* A file handle of len bytes, all `tag`. */
static inline void xb_fh(xb *x, uint8_t tag, size_t len)
{
	uint8_t fh[128];
	memset(fh, tag, sizeof(fh));
	xb_opaque(x, fh, len);
}

enum { T_FH = 32 }; /* handle length the tests use */

/* An RPC CALL header with AUTH_SYS (uid, gid) and an AUTH_NONE verifier. */
static inline void xb_call(xb *x, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc, uint32_t uid)
{
	xb_u32(x, xid);
	xb_u32(x, 0); /* CALL */
	xb_u32(x, 2);
	xb_u32(x, prog);
	xb_u32(x, vers);
	xb_u32(x, proc);
	xb cred = { .n = 0 };
	xb_u32(&cred, 12345); /* stamp */
	xb_str(&cred, "client");
	xb_u32(&cred, uid);
	xb_u32(&cred, 100);
	xb_u32(&cred, 1);
	xb_u32(&cred, 100);
	xb_u32(x, 1); /* AUTH_SYS */
	xb_opaque(x, cred.b, cred.n);
	xb_u32(x, 0);
	xb_u32(x, 0);
}

/* An accepted REPLY header with accept_stat SUCCESS. */
static inline void xb_reply(xb *x, uint32_t xid)
{
	xb_u32(x, xid);
	xb_u32(x, 1); /* REPLY */
	xb_u32(x, 0); /* MSG_ACCEPTED */
	xb_u32(x, 0);
	xb_u32(x, 0); /* verifier AUTH_NONE, empty */
	xb_u32(x, 0); /* SUCCESS */
}

/* ---- a capture context over a memory sink ---- */

typedef struct env {
	rp_memsink ms;
	rp_capture_stats st;
	rp_capctx *cx;
	rp_conn conn;
	uint64_t ts;
	char lines[64][512]; /* formatted ops after env_finish */
	size_t n_lines;
} env;

static inline env *env_new(uint8_t l4)
{
	env *const e = calloc(1, sizeof(*e));
	if (!e || rp_memsink_init(&e->ms) != 0)
		abort();
	e->cx = rp__capctx_create(&e->ms.base, NULL, &e->st);
	if (!e->cx)
		abort();
	e->conn.id = 7;
	e->conn.l4 = l4;
	e->conn.addr[0] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 1 } };
	e->conn.addr[1] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 2 } };
	e->conn.port[0] = 800;
	e->conn.port[1] = 2049;
	e->ts = 1000000000000000000ull;
	return e;
}

/* Feed one message from endpoint `from` (0 client, 1 server), 1 ms after the last. */
static inline void env_send_cut(env *e, uint8_t from, const uint8_t *data, size_t len, size_t wire_len)
{
	e->ts += 1000000;
	rp__capctx_frame(e->cx, e->ts, (uint32_t)len);
	const rp_msg m = { .data = data, .len = len, .wire_len = wire_len, .ts_ns = e->ts,
			   .frame = e->st.frames, .from = from, .truncated = len < wire_len };
	rp__rpc_message(e->cx, &e->conn, &m);
}

static inline void env_send(env *e, uint8_t from, const xb *x)
{
	env_send_cut(e, from, x->b, x->n, x->n);
}

/* Flush the capture and format every op into e->lines. */
static inline void env_finish(env *e)
{
	rp__capctx_finish(e->cx);
	for (size_t i = 0; i < e->ms.n_ops && e->n_lines < 64; i++)
		rp_op_format(e->lines[e->n_lines++], sizeof(e->lines[0]), &e->ms.ops[i], rp_memsink_string, &e->ms);
}

static inline void env_free(env *e)
{
	if (!e)
		return;
	rp__capctx_destroy(e->cx);
	rp_memsink_fini(&e->ms);
	free(e);
}

/* Print the ops (for failing tests). */
static inline void env_dump(const env *e)
{
	for (size_t i = 0; i < e->n_lines; i++)
		fprintf(stderr, "# op %zu: %s\n", i, e->lines[i]);
}

/* assert_true that prints the ops when it fails. */
#define CHECK(e, cond)                                                         \
	do {                                                                   \
		if (!(cond)) {                                                 \
			env_dump(e);                                           \
			fprintf(stderr, "# counters: trunc %llu inval %llu unsup %llu unmatched %llu ignored %llu\n", \
				(unsigned long long)(e)->st.truncated, (unsigned long long)(e)->st.invalid, \
				(unsigned long long)(e)->st.unsupported, (unsigned long long)(e)->st.unmatched, \
				(unsigned long long)(e)->st.ignored);          \
		}                                                              \
		assert_true(cond);                                             \
	} while (0)

#endif
