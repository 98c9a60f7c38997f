/* Test helpers: build frames (link, IPv4/IPv6, TCP/UDP), RPC and SMB messages, and collect what the transport delivers. */
#ifndef REPRISE_TESTS_CAPTURE_PKT_H
#define REPRISE_TESTS_CAPTURE_PKT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/net/transport.h"

/* ---- byte building ---- */

typedef struct buf {
	uint8_t b[200000];
	size_t n;
} buf;

static inline void put8(buf *x, uint8_t v) { x->b[x->n++] = v; }
static inline void put16(buf *x, uint16_t v) { put8(x, (uint8_t)(v >> 8)); put8(x, (uint8_t)v); }
static inline void put32(buf *x, uint32_t v) { put16(x, (uint16_t)(v >> 16)); put16(x, (uint16_t)v); }
static inline void putn(buf *x, const void *p, size_t n)
{
	if (n) /* p may be NULL for an empty payload */
		memcpy(x->b + x->n, p, n);
	x->n += n;
}
static inline void putpat(buf *x, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		put8(x, (uint8_t)(seed + i * 7));
}

/* An RPC CALL (NFSv3 proc, AUTH_NONE) with `extra` pattern bytes of arguments. */
static inline void rpc_call(buf *x, uint32_t xid, uint32_t proc, size_t extra)
{
	put32(x, xid);
	put32(x, 0);
	put32(x, 2);
	put32(x, 100003);
	put32(x, 3);
	put32(x, proc);
	put32(x, 0); put32(x, 0); /* cred */
	put32(x, 0); put32(x, 0); /* verf */
	putpat(x, extra, (uint8_t)xid);
}

/* An accepted, successful RPC REPLY with `extra` result bytes. */
static inline void rpc_reply(buf *x, uint32_t xid, size_t extra)
{
	put32(x, xid);
	put32(x, 1);
	put32(x, 0);
	put32(x, 0); put32(x, 0);
	put32(x, 0);
	putpat(x, extra, (uint8_t)xid);
}

/* Wrap body as one record-marked fragment (last or not). */
static inline void rm(buf *out, const uint8_t *body, size_t n, int last)
{
	put32(out, (uint32_t)n | (last ? 0x80000000u : 0));
	putn(out, body, n);
}

/* An SMB2 header (64 bytes, command cmd, message id mid) plus `extra` body bytes, in a NetBIOS session message. */
static inline void smb2_msg(buf *x, uint16_t cmd, uint64_t mid, size_t extra)
{
	const uint32_t len = 64 + (uint32_t)extra;
	put8(x, 0);
	put8(x, (uint8_t)(len >> 16)); put8(x, (uint8_t)(len >> 8)); put8(x, (uint8_t)len);
	put8(x, 0xfe); put8(x, 'S'); put8(x, 'M'); put8(x, 'B');
	put8(x, 64); put8(x, 0);
	putpat(x, 2, 0); /* credit charge */
	put32(x, 0); /* status */
	put8(x, (uint8_t)cmd); put8(x, (uint8_t)(cmd >> 8));
	putpat(x, 2, 0); /* credits */
	put32(x, 0); /* flags */
	put32(x, 0); /* next command */
	for (int i = 0; i < 8; i++)
		put8(x, (uint8_t)(mid >> (8 * i)));
	putpat(x, 32, 0); /* process/async id, tree id, session id, signature */
	putpat(x, extra, (uint8_t)mid);
}

/* ---- frames ---- */

static const uint8_t CLI4[4] = { 10, 0, 0, 1 }, SRV4[4] = { 10, 0, 0, 2 };
static const uint8_t CLI6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t SRV6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };

static inline void tcp_seg(buf *x, uint16_t sp, uint16_t dp, uint32_t seq, uint32_t ack, uint8_t flags,
			   const uint8_t *p, size_t n)
{
	put16(x, sp); put16(x, dp);
	put32(x, seq); put32(x, ack);
	put8(x, 5 << 4); put8(x, flags);
	put16(x, 65535); put16(x, 0xdead); put16(x, 0); /* window, a wrong checksum, urgent */
	putn(x, p, n);
}

static inline void udp_dgram(buf *x, uint16_t sp, uint16_t dp, const uint8_t *p, size_t n)
{
	put16(x, sp); put16(x, dp);
	put16(x, (uint16_t)(8 + n)); put16(x, 0);
	putn(x, p, n);
}

/* IPv4 header + payload; frag is the flags/offset field (MF 0x2000, offset in 8-byte units). */
static inline void ipv4(buf *x, const uint8_t src[4], const uint8_t dst[4], uint8_t proto, uint16_t id, uint16_t frag,
			const uint8_t *p, size_t n)
{
	put8(x, 0x45); put8(x, 0);
	put16(x, (uint16_t)(20 + n));
	put16(x, id); put16(x, frag);
	put8(x, 64); put8(x, proto);
	put16(x, 0);
	putn(x, src, 4); putn(x, dst, 4);
	putn(x, p, n);
}

/* IPv6 header + extension bytes (already chained: first next-header is nh) + payload. */
static inline void ipv6(buf *x, const uint8_t src[16], const uint8_t dst[16], uint8_t nh, const uint8_t *ext,
			size_t ext_n, const uint8_t *p, size_t n)
{
	put32(x, 0x60000000);
	put16(x, (uint16_t)(ext_n + n));
	put8(x, nh); put8(x, 64);
	putn(x, src, 16); putn(x, dst, 16);
	putn(x, ext, ext_n);
	putn(x, p, n);
}

static inline void eth(buf *x, uint16_t type)
{
	putpat(x, 12, 0x11);
	put16(x, type);
}

/* ---- collecting what the transport delivers ---- */

typedef struct got_msg {
	rp_app app;
	uint64_t conn;
	uint8_t from;
	bool truncated;
	size_t len, wire_len;
	uint64_t frame;
	uint8_t *data;
	uint16_t port[2];
} got_msg;

typedef struct collect {
	got_msg m[256];
	size_t n;
	uint64_t count[RP_OUT_MESSAGE + 1];
	rp_capture_stats stats;
	rp_transport *t;
	uint64_t ts;
	unsigned freed;
} collect;

static inline void c_message(void *user, rp_conn *conn, rp_app app, const rp_msg *m)
{
	collect *const c = user;
	if (c->n == sizeof(c->m) / sizeof(c->m[0]))
		abort();
	got_msg *const g = &c->m[c->n++];
	g->app = app;
	g->conn = conn->id;
	g->from = m->from;
	g->truncated = m->truncated;
	g->len = m->len;
	g->wire_len = m->wire_len;
	g->frame = m->frame;
	g->port[0] = conn->port[0];
	g->port[1] = conn->port[1];
	g->data = malloc(m->len ? m->len : 1);
	memcpy(g->data, m->data, m->len);
}

static inline void c_count(void *user, rp_outcome what, const char *name)
{
	(void)name;
	((collect *)user)->count[what]++;
}

static inline collect *c_new(const rp_transport_limits *lim)
{
	collect *const c = calloc(1, sizeof(*c));
	const rp_transport_hooks h = { .user = c, .message = c_message, .count = c_count };
	if (rp__transport_create(&c->t, &h, lim, &c->stats) != 0)
		abort();
	c->ts = 1700000000ull * 1000000000ull;
	return c;
}

static inline void c_free(collect *c)
{
	rp__transport_destroy(c->t);
	for (size_t i = 0; i < c->n; i++)
		free(c->m[i].data);
	free(c);
}

static inline void c_frame(collect *c, int dlt, const buf *f)
{
	c->ts += 1000000; /* 1 ms apart */
	rp__transport_packet(c->t, dlt, c->ts, f->b, (uint32_t)f->n, (uint32_t)f->n);
}

/* An Ethernet/IPv4/TCP frame between CLI4:700 and SRV4:2049 (or the port given). */
static inline void c_tcp4(collect *c, int from_client, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack,
			  uint8_t flags, const uint8_t *p, size_t n)
{
	static buf seg, ip, fr;
	seg.n = ip.n = fr.n = 0;
	tcp_seg(&seg, from_client ? sport : dport, from_client ? dport : sport, seq, ack, flags, p, n);
	ipv4(&ip, from_client ? CLI4 : SRV4, from_client ? SRV4 : CLI4, 6, 1, 0x4000, seg.b, seg.n);
	eth(&fr, 0x0800);
	putn(&fr, ip.b, ip.n);
	c_frame(c, 1, &fr);
}

#endif
