/* Shared test scaffolding for the capture decoders: an XDR builder (RFC 4506) and a capctx over a memsink. */
#ifndef REPRISE_TESTS_CAPTURE_HARNESS_H
#define REPRISE_TESTS_CAPTURE_HARNESS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/decode.h"
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

/* ---- a capture context over a memory sink ---- */

/* The decoder entry point messages go to: rp__rpc_message, rp__smb_message. */
typedef int (*env_deliver_fn)(rp_capctx *cx, rp_conn *conn, const rp_msg *m);

typedef struct env {
	rp_memsink ms;
	rp_capture_stats st;
	rp_capctx *cx;
	rp_conn conn;
	env_deliver_fn deliver;
	uint64_t ts;
	char lines[64][512]; /* formatted ops after env_finish */
	size_t n_lines;
} env;

/* One connection id from 10.0.0.1:client_port to 10.0.0.2:server_port over l4 (aborts when out of memory). */
static inline env *env_make(uint64_t id, uint8_t l4, uint16_t client_port, uint16_t server_port,
			    env_deliver_fn deliver)
{
	env *const e = calloc(1, sizeof(*e));
	if (!e || rp_memsink_init(&e->ms) != 0)
		abort();
	e->cx = rp__capctx_create(&e->ms.base, NULL, &e->st);
	if (!e->cx)
		abort();
	e->conn.id = id;
	e->conn.l4 = l4;
	e->conn.addr[0] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 1 } };
	e->conn.addr[1] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 2 } };
	e->conn.port[0] = client_port;
	e->conn.port[1] = server_port;
	e->deliver = deliver;
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
	e->deliver(e->cx, &e->conn, &m);
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
	if (e->conn.proto_free)
		e->conn.proto_free(e->conn.proto_state);
	rp__capctx_destroy(e->cx);
	rp_memsink_fini(&e->ms);
	free(e);
}

#endif
