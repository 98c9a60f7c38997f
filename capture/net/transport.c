/* Frames -> link -> IP -> flow table (TCP reassembly, UDP) -> framing; bounded, expiring flow state. */
#include "capture/net/transport.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/net/ip.h"
#include "capture/net/link.h"
#include "capture/net/tcp.h"
#include "formats/cursor.h"

#define SEC 1000000000ull

enum { L_OPEN, L_CLOSED, L_UDP, L_COUNT };

typedef struct flow {
	rp_conn conn; /* what the decoders see; its address is stable for the flow's life */
	rp_frame_conn fc;
	rp_tcp_dir tcp[2];
	struct flow *hnext;
	struct flow *newer, *older; /* LRU list `list` */
	uint64_t hash;
	uint64_t last_ns;
	uint64_t frames; /* of this flow, for the tally of other traffic when it ends as neither NFS nor SMB */
	uint8_t list;
} flow;

typedef struct lru {
	flow *newest, *oldest;
} lru;

struct rp_transport {
	rp_transport_hooks hooks;
	rp_transport_limits lim;
	rp_capture_stats *stats;
	rp_framer fr;
	rp_tcp_ctx tcp;
	rp_ipfrag *frag;
	flow **bucket;
	uint32_t nbuckets; /* a power of two */
	uint32_t nflows;
	lru lists[L_COUNT];
	uint64_t next_id;
	uint64_t frame; /* frames seen: the current one's 1-based number */
	uint64_t now;   /* newest timestamp seen */
	flow *cur;      /* the flow whose segment is being reassembled */
	flow *last;     /* one-entry lookup cache */
};

/* ---- TCP output: into the current flow's framing ---- */

static void tcp_data(void *ctx, uint8_t d, const uint8_t *p, uint32_t n, uint64_t ts_ns, uint64_t frame)
{
	rp_transport *const t = ctx;
	rp__frame_data(&t->fr, &t->cur->fc, d, p, n, ts_ns, frame);
}

static void tcp_gap(void *ctx, uint8_t d, uint32_t n, uint64_t ts_ns, uint64_t frame)
{
	rp_transport *const t = ctx;
	if (t->cur->fc.app != RP_APP_IGNORED)
		t->hooks.count(t->hooks.user, RP_OUT_GAP, NULL);
	rp__frame_gap(&t->fr, &t->cur->fc, d, n, ts_ns, frame);
}

/* ---- flow table ---- */

static uint64_t end_hash(const rp_addr *a, uint16_t port)
{
	uint64_t h = (uint64_t)port * 0x9e3779b97f4a7c15ull ^ a->family;
	const int n = a->family == 4 ? 4 : 16;
	for (int i = 0; i < n; i += 4) {
		uint32_t w;
		memcpy(&w, a->a + i, 4);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

static uint64_t flow_hash(const rp_addr *s, uint16_t sp, const rp_addr *d, uint16_t dp, uint8_t l4)
{
	/* Symmetric, so both directions find the same bucket. */
	uint64_t h = end_hash(s, sp) + end_hash(d, dp) + l4;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static inline bool addr_eq(const rp_addr *a, const rp_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* The flow of a packet and its direction (0: sent by conn endpoint 0), or NULL. */
static flow *lookup(rp_transport *t, uint64_t h, const rp_addr *s, uint16_t sp, const rp_addr *d, uint16_t dp,
		    uint8_t l4, uint8_t *dir)
{
	flow *f = t->last;
	if (!f || f->hash != h)
		f = t->bucket[h & (t->nbuckets - 1)];
	for (; f; f = f->hnext) {
		if (f->hash != h || f->conn.l4 != l4)
			continue;
		const rp_conn *const c = &f->conn;
		if (c->port[0] == sp && c->port[1] == dp && addr_eq(&c->addr[0], s) && addr_eq(&c->addr[1], d)) {
			*dir = 0;
			break;
		}
		if (c->port[1] == sp && c->port[0] == dp && addr_eq(&c->addr[1], s) && addr_eq(&c->addr[0], d)) {
			*dir = 1;
			break;
		}
	}
	if (f)
		t->last = f;
	return f;
}

static void lru_unlink(rp_transport *t, flow *f)
{
	lru *const l = &t->lists[f->list];
	if (f->newer)
		f->newer->older = f->older;
	else
		l->newest = f->older;
	if (f->older)
		f->older->newer = f->newer;
	else
		l->oldest = f->newer;
	f->newer = f->older = NULL;
}

static void lru_push(rp_transport *t, flow *f, uint8_t list)
{
	lru *const l = &t->lists[list];
	f->list = list;
	f->newer = NULL;
	f->older = l->newest;
	if (l->newest)
		l->newest->newer = f;
	else
		l->oldest = f;
	l->newest = f;
}

static void touch(rp_transport *t, flow *f, uint8_t list)
{
	f->last_ns = t->now;
	if (f->list == list && t->lists[list].newest == f)
		return;
	lru_unlink(t, f);
	lru_push(t, f, list);
}

/* ---- other traffic: frames of no NFS or SMB, by kind (rp_capture_stats.other_by_kind) ---- */

static void other(rp_transport *t, const char *kind, uint64_t frames)
{
	rp_capture_stats *const st = t->stats;
	if (!st || !frames)
		return;
	st->other_frames += frames;
	for (uint32_t i = 0; i < st->n_other; i++) {
		if (strcmp(st->other_by_kind[i].name, kind) == 0) {
			st->other_by_kind[i].frames += frames;
			return;
		}
	}
	if (st->n_other == RP_CAP_OTHER_MAX) {
		st->other_beyond += frames; /* kinds past the table's: together */
		return;
	}
	snprintf(st->other_by_kind[st->n_other].name, sizeof(st->other_by_kind[0].name), "%s", kind);
	st->other_by_kind[st->n_other++].frames = frames;
}

/* The kind of a flow's traffic: its transport and the lower of its ports (a server's, mostly). */
static void other_port(rp_transport *t, uint8_t l4, uint16_t a, uint16_t b, uint64_t frames)
{
	char kind[24];
	snprintf(kind, sizeof(kind), "%s port %u", l4 == RP_L4_UDP ? "UDP" : "TCP", (unsigned)(a < b ? a : b));
	other(t, kind, frames);
}

/* Flush what the flow holds, tell nobody more, free it. */
static void flow_end(rp_transport *t, flow *f)
{
	if (f->fc.app != RP_APP_RPC && f->fc.app != RP_APP_SMB)
		other_port(t, f->conn.l4, f->conn.port[0], f->conn.port[1], f->frames);
	flow *const saved = t->cur;
	t->cur = f;
	for (uint8_t d = 0; d < 2; d++) {
		if (f->conn.l4 == RP_L4_TCP)
			rp__tcp_flush(&t->tcp, &f->tcp[d], d, t->now, t->frame);
		rp__frame_end(&t->fr, &f->fc, d);
		rp__tcp_free(&t->tcp, &f->tcp[d]);
	}
	rp__frame_free(&t->fr, &f->fc);
	if (f->conn.proto_free && f->conn.proto_state)
		f->conn.proto_free(f->conn.proto_state);
	t->cur = saved == f ? NULL : saved;
	flow **pp = &t->bucket[f->hash & (t->nbuckets - 1)];
	while (*pp != f)
		pp = &(*pp)->hnext;
	*pp = f->hnext;
	lru_unlink(t, f);
	if (t->last == f)
		t->last = NULL;
	t->nflows--;
	free(f);
}

static uint64_t list_timeout(const rp_transport *t, int list)
{
	return list == L_OPEN ? t->lim.tcp_idle_ns : list == L_CLOSED ? t->lim.closed_linger_ns : t->lim.udp_idle_ns;
}

static void expire(rp_transport *t)
{
	rp__ipfrag_expire(t->frag, t->now);
	for (int l = 0; l < L_COUNT; l++) {
		const uint64_t to = list_timeout(t, l);
		flow *f;
		while ((f = t->lists[l].oldest) && t->now > f->last_ns && t->now - f->last_ns > to)
			flow_end(t, f);
	}
}

static void grow_table(rp_transport *t)
{
	const uint32_t n = t->nbuckets * 2;
	flow **const b = calloc(n, sizeof(*b));
	if (!b)
		return; /* keep the longer chains */
	for (uint32_t i = 0; i < t->nbuckets; i++) {
		flow *f = t->bucket[i];
		while (f) {
			flow *const next = f->hnext;
			f->hnext = b[f->hash & (n - 1)];
			b[f->hash & (n - 1)] = f;
			f = next;
		}
	}
	free(t->bucket);
	t->bucket = b;
	t->nbuckets = n;
}

static flow *flow_new(rp_transport *t, uint64_t h, const rp_addr *s, uint16_t sp, const rp_addr *d, uint16_t dp,
		      uint8_t l4)
{
	if (t->nflows >= t->lim.max_flows) {
		const int order[] = { L_CLOSED, L_UDP, L_OPEN };
		for (int i = 0; i < 3; i++) {
			if (t->lists[order[i]].oldest) {
				flow_end(t, t->lists[order[i]].oldest);
				if (t->stats)
					t->stats->flows_evicted++;
				break;
			}
		}
	}
	if (t->nflows >= t->nbuckets)
		grow_table(t);
	flow *const f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->conn.id = t->next_id++;
	f->conn.addr[0] = *s;
	f->conn.addr[1] = *d;
	f->conn.port[0] = sp;
	f->conn.port[1] = dp;
	f->conn.l4 = l4;
	rp__frame_init(&f->fc, &f->conn);
	f->hash = h;
	f->hnext = t->bucket[h & (t->nbuckets - 1)];
	t->bucket[h & (t->nbuckets - 1)] = f;
	f->last_ns = t->now;
	lru_push(t, f, l4 == RP_L4_UDP ? L_UDP : L_OPEN);
	t->nflows++;
	t->last = f;
	return f;
}

/* ---- L4 ---- */

static void ignored(rp_transport *t)
{
	t->hooks.count(t->hooks.user, RP_OUT_IGNORED, NULL);
}

static void tcp_packet(rp_transport *t, const rp_l4pkt *pk)
{
	rp_tcp_seginfo s;
	const int hr = rp__tcp_header(pk->data, pk->len, pk->wire_len, pk->ts_ns, pk->frame, &s);
	if (hr != 0) {
		t->hooks.count(t->hooks.user, hr == -1 ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		return;
	}
	const uint64_t h = flow_hash(&pk->src, s.sport, &pk->dst, s.dport, RP_L4_TCP);
	uint8_t d = 0;
	flow *f = lookup(t, h, &pk->src, s.sport, &pk->dst, s.dport, RP_L4_TCP, &d);
	if (!f) {
		if ((s.flags & RP_TCP_RST) || (!s.wire_len && !(s.flags & RP_TCP_SYN))) {
			ignored(t); /* the end or an ACK of a connection we know nothing of */
			other_port(t, RP_L4_TCP, s.sport, s.dport, 1);
			return;
		}
		f = flow_new(t, h, &pk->src, s.sport, &pk->dst, s.dport, RP_L4_TCP);
		if (!f)
			return;
	}
	f->frames++;
	if (f->fc.app == RP_APP_IGNORED) {
		ignored(t);
		touch(t, f, (s.flags & (RP_TCP_RST | RP_TCP_FIN)) ? L_CLOSED : f->list);
		return;
	}
	t->cur = f;
	if ((s.flags & RP_TCP_SYN) && !f->tcp[d].syn)
		rp__frame_boundary(&f->fc, d);
	rp_tcp_res r = rp__tcp_segment(&t->tcp, f->tcp, d, &s);
	if (r == RP_TCP_NEWCONN) {
		flow_end(t, f);
		f = flow_new(t, h, &pk->src, s.sport, &pk->dst, s.dport, RP_L4_TCP);
		if (!f)
			return;
		t->cur = f;
		d = 0;
		rp__frame_boundary(&f->fc, d);
		f->frames++;
		r = rp__tcp_segment(&t->tcp, f->tcp, d, &s);
	}
	const bool closed = r == RP_TCP_RESET || (f->tcp[0].fin && f->tcp[1].fin) || f->list == L_CLOSED;
	touch(t, f, closed ? L_CLOSED : L_OPEN);
	t->cur = NULL;
}

static void udp_packet(rp_transport *t, const rp_l4pkt *pk)
{
	rp_cur c = rp_cur_make(pk->data, pk->len);
	const uint16_t sport = rp_cur_be16(&c);
	const uint16_t dport = rp_cur_be16(&c);
	const uint16_t ulen = rp_cur_be16(&c);
	rp_cur_skip(&c, 2); /* checksum: never verified */
	if (c.err) {
		t->hooks.count(t->hooks.user, RP_OUT_TRUNCATED, NULL);
		return;
	}
	if (ulen < 8 || ulen > pk->wire_len) {
		t->hooks.count(t->hooks.user, RP_OUT_INVALID, NULL);
		return;
	}
	const uint32_t wire = ulen - 8u;
	const uint32_t have = pk->len - 8u < wire ? pk->len - 8u : wire;
	const uint8_t *const p = pk->data + 8;
	const uint64_t h = flow_hash(&pk->src, sport, &pk->dst, dport, RP_L4_UDP);
	uint8_t d = 0;
	flow *f = lookup(t, h, &pk->src, sport, &pk->dst, dport, RP_L4_UDP, &d);
	if (!f) {
		/* Most UDP is DNS and the like: keep no state for it. */
		if (rp__frame_looks_rpc(p, have, false) != 1) {
			ignored(t);
			other_port(t, RP_L4_UDP, sport, dport, 1);
			return;
		}
		f = flow_new(t, h, &pk->src, sport, &pk->dst, dport, RP_L4_UDP);
		if (!f)
			return;
	}
	f->frames++;
	touch(t, f, L_UDP);
	rp__frame_datagram(&t->fr, &f->fc, d, p, have, wire, pk->ts_ns, pk->frame);
	if (f->fc.app != RP_APP_RPC)
		ignored(t);
}

/* ---- public ---- */

int rp__transport_create(rp_transport **out, const rp_transport_hooks *hooks, const rp_transport_limits *lim,
			 rp_capture_stats *stats)
{
	*out = NULL;
	rp_transport *const t = calloc(1, sizeof(*t));
	if (!t)
		return RP_E_NOMEM;
	t->hooks = *hooks;
	if (lim)
		t->lim = *lim;
	rp_transport_limits *const L = &t->lim;
	if (!L->max_flows)
		L->max_flows = 65536;
	if (!L->tcp_idle_ns)
		L->tcp_idle_ns = 3600 * SEC;
	if (!L->udp_idle_ns)
		L->udp_idle_ns = 120 * SEC;
	if (!L->closed_linger_ns)
		L->closed_linger_ns = 2 * SEC;
	if (!L->tcp_window)
		L->tcp_window = 4u << 20;
	if (!L->tcp_max_queued)
		L->tcp_max_queued = 256ull << 20;
	if (!L->tcp_hole_timeout_ns)
		L->tcp_hole_timeout_ns = 10 * SEC;
	if (!L->max_buffered)
		L->max_buffered = 512ull << 20;
	t->stats = stats;
	t->fr.hooks = *hooks;
	t->fr.max_buffered = L->max_buffered;
	t->tcp.window = L->tcp_window;
	t->tcp.max_queued = L->tcp_max_queued;
	t->tcp.hole_timeout_ns = L->tcp_hole_timeout_ns;
	t->tcp.out = (rp_tcp_out){ .ctx = t, .data = tcp_data, .gap = tcp_gap };
	const rp_ipfrag_limits fl = {
		.timeout_ns = L->frag_timeout_ns,
		.max_datagrams = L->frag_max_datagrams,
		.max_bytes = L->frag_max_bytes,
	};
	t->frag = rp__ipfrag_create(&fl);
	t->nbuckets = 1024;
	t->bucket = calloc(t->nbuckets, sizeof(*t->bucket));
	t->next_id = 1;
	if (!t->frag || !t->bucket) {
		rp__transport_destroy(t);
		return RP_E_NOMEM;
	}
	*out = t;
	return 0;
}

static void frags_dropped(rp_transport *t)
{
	const uint32_t n = rp__ipfrag_take_dropped(t->frag);
	if (!n)
		return;
	if (t->stats)
		t->stats->frags_dropped += n;
	for (uint32_t i = 0; i < n; i++)
		t->hooks.count(t->hooks.user, RP_OUT_TRUNCATED, NULL);
}

void rp__transport_packet(rp_transport *t, int dlt, uint64_t ts_ns, const uint8_t *data, uint32_t caplen,
			  uint32_t wirelen)
{
	(void)wirelen; /* the IP header says how long each layer was */
	t->frame++;
	if (ts_ns > t->now)
		t->now = ts_ns;
	expire(t);
	uint32_t off = 0;
	uint8_t ver = 0;
	if (rp__link_ip(dlt, data, caplen, &off, &ver) != RP_LINK_IP) {
		ignored(t);
		other(t, "not IP", 1);
		return;
	}
	rp_l4pkt pk;
	const rp_ip_res r = rp__ip_parse(t->frag, ver, data + off, caplen - off, ts_ns, t->frame, &pk);
	switch (r) {
	case RP_IP_L4:
		if (pk.proto == IPPROTO_TCP)
			tcp_packet(t, &pk);
		else
			udp_packet(t, &pk);
		break;
	case RP_IP_HELD:
		break;
	case RP_IP_OTHER:
		ignored(t);
		other(t, "IP, not TCP or UDP", 1);
		break;
	case RP_IP_TRUNCATED:
		t->hooks.count(t->hooks.user, RP_OUT_TRUNCATED, NULL);
		break;
	case RP_IP_INVALID:
		t->hooks.count(t->hooks.user, RP_OUT_INVALID, NULL);
		break;
	}
	frags_dropped(t);
	if (t->stats) {
		t->stats->segments_dropped = t->tcp.dropped;
		t->stats->tcp_queue_full = t->tcp.queue_full;
	}
}

void rp__transport_finish(rp_transport *t)
{
	for (int l = 0; l < L_COUNT; l++)
		while (t->lists[l].oldest)
			flow_end(t, t->lists[l].oldest);
	rp__ipfrag_expire(t->frag, UINT64_MAX);
	frags_dropped(t);
	if (t->stats) {
		t->stats->segments_dropped = t->tcp.dropped;
		t->stats->tcp_queue_full = t->tcp.queue_full;
	}
}

uint32_t rp__transport_flows(const rp_transport *t)
{
	return t->nflows;
}

void rp__transport_destroy(rp_transport *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; t->bucket && i < t->nbuckets; i++) {
		flow *f = t->bucket[i];
		while (f) {
			flow *const next = f->hnext;
			for (int d = 0; d < 2; d++)
				rp__tcp_free(&t->tcp, &f->tcp[d]);
			rp__frame_free(&t->fr, &f->fc);
			if (f->conn.proto_free && f->conn.proto_state)
				f->conn.proto_free(f->conn.proto_state);
			free(f);
			f = next;
		}
	}
	free(t->bucket);
	rp__ipfrag_destroy(t->frag);
	rp__framer_fini(&t->fr);
	free(t);
}
