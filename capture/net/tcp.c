/* TCP reassembly (RFC 9293 sequence space): retransmission, overlap, reordering, loss and mid-stream start. */
#include "capture/net/tcp.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"

struct rp_tcp_seg {
	rp_tcp_seg *next;
	uint32_t seq;
	uint32_t len;      /* captured bytes in data */
	uint32_t wire_len; /* bytes on the wire; the rest is a snaplen gap */
	uint64_t ts_ns, frame;
	uint8_t data[];
};

/* Sequence comparisons modulo 2^32. */
static inline bool seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }

/*
 * What a held segment costs: its header and bytes, the allocator's chunk
 * header, rounded as malloc rounds.  The bounds count this, not payload bytes:
 * a segment cut by the snaplen carries no bytes but still costs its header,
 * and counting bytes alone let small or empty segments pile up to several
 * times the documented bound.
 */
#define MALLOC_OVERHEAD 16
static inline uint32_t seg_cost(uint32_t len)
{
	return (uint32_t)((sizeof(rp_tcp_seg) + len + MALLOC_OVERHEAD + 15) & ~(size_t)15);
}

/* An ACK this far beyond what we saw is noise, not acknowledged data. */
#define ACK_PLAUSIBLE (1u << 30)

int rp__tcp_header(const uint8_t *p, uint32_t len, uint32_t wire_len, uint64_t ts_ns, uint64_t frame,
		   rp_tcp_seginfo *out)
{
	rp_cur c = rp_cur_make(p, len);
	out->sport = rp_cur_be16(&c);
	out->dport = rp_cur_be16(&c);
	out->seq = rp_cur_be32(&c);
	out->ack = rp_cur_be32(&c);
	const uint8_t off = rp_cur_u8(&c);
	out->flags = rp_cur_u8(&c);
	if (c.err)
		return -1;
	const uint32_t hlen = (uint32_t)(off >> 4) * 4;
	if (hlen < 20 || hlen > wire_len)
		return -2;
	if (hlen > len)
		return -1;
	out->data = p + hlen;
	out->len = len - hlen;
	out->wire_len = wire_len - hlen;
	out->ts_ns = ts_ns;
	out->frame = frame;
	return 0;
}

static void emit(rp_tcp_ctx *t, rp_tcp_dir *D, uint8_t d, const uint8_t *p, uint32_t len, uint32_t wire_len,
		 uint64_t ts_ns, uint64_t frame)
{
	if (len)
		t->out.data(t->out.ctx, d, p, len, ts_ns, frame);
	if (wire_len > len)
		t->out.gap(t->out.ctx, d, wire_len - len, ts_ns, frame);
	D->next += wire_len;
	if (D->fin && D->next == D->fin_seq)
		D->done = true;
}

/* Deliver queued segments that now touch the stream. */
static void drain(rp_tcp_ctx *t, rp_tcp_dir *D, uint8_t d)
{
	while (D->ooo && seq_le(D->ooo->seq, D->next)) {
		rp_tcp_seg *const s = D->ooo;
		D->ooo = s->next;
		D->ooo_bytes -= seg_cost(s->len);
		t->queued -= seg_cost(s->len);
		const uint32_t end = s->seq + s->wire_len;
		if (seq_lt(D->next, end)) {
			const uint32_t skip = D->next - s->seq;
			const uint32_t cskip = skip < s->len ? skip : s->len;
			emit(t, D, d, s->data + cskip, s->len - cskip, s->wire_len - skip, s->ts_ns, s->frame);
		}
		free(s);
	}
	if (!D->ooo)
		D->hole_since_ns = 0;
}

/* Declare the bytes up to target lost and carry on from there. */
static void skip_to(rp_tcp_ctx *t, rp_tcp_dir *D, uint8_t d, uint32_t target, uint64_t ts_ns, uint64_t frame)
{
	if (seq_lt(D->next, target)) {
		t->out.gap(t->out.ctx, d, target - D->next, ts_ns, frame);
		D->next = target;
	}
	drain(t, D, d);
}

void rp__tcp_flush(rp_tcp_ctx *t, rp_tcp_dir *D, uint8_t d, uint64_t ts_ns, uint64_t frame)
{
	while (D->ooo)
		skip_to(t, D, d, D->ooo->seq, ts_ns, frame);
}

void rp__tcp_free(rp_tcp_ctx *t, rp_tcp_dir *D)
{
	while (D->ooo) {
		rp_tcp_seg *const s = D->ooo;
		D->ooo = s->next;
		t->queued -= seg_cost(s->len);
		free(s);
	}
	D->ooo_bytes = 0;
}

static void enqueue(rp_tcp_ctx *t, rp_tcp_dir *D, uint8_t d, const rp_tcp_seginfo *s, uint32_t seq,
		    const uint8_t *p, uint32_t len, uint32_t wire_len)
{
	if (seq - D->next > t->window) {
		t->dropped++; /* too far ahead to be worth holding: its bytes become a gap later */
		if (++D->far < RP_TCP_FAR_RESYNC)
			return;
		/* Segment after segment lands there: the capture lost a burst, not one segment. */
		rp__tcp_flush(t, D, d, s->ts_ns, s->frame);
		skip_to(t, D, d, seq, s->ts_ns, s->frame);
		D->far = 0;
		emit(t, D, d, p, len, wire_len, s->ts_ns, s->frame);
		drain(t, D, d);
		return;
	}
	D->far = 0;
	rp_tcp_seg **pp = &D->ooo;
	while (*pp && seq_lt((*pp)->seq, seq))
		pp = &(*pp)->next;
	if (*pp && (*pp)->seq == seq && (*pp)->wire_len >= wire_len && (*pp)->len >= len)
		return; /* a retransmission of a segment we hold */
	rp_tcp_seg *const n = malloc(sizeof(*n) + len);
	if (!n) {
		t->dropped++;
		return;
	}
	n->seq = seq;
	n->len = len;
	n->wire_len = wire_len;
	n->ts_ns = s->ts_ns;
	n->frame = s->frame;
	memcpy(n->data, p, len);
	n->next = *pp;
	*pp = n;
	if (!D->hole_since_ns)
		D->hole_since_ns = s->ts_ns ? s->ts_ns : 1;
	D->ooo_bytes += seg_cost(len);
	t->queued += seg_cost(len);
	/*
	 * Over the bounds: stop waiting for the hole (its bytes become a gap, the
	 * framing resyncs).  Draining this direction whenever the total is over
	 * keeps every direction together within max_queued after each segment.
	 */
	while (D->ooo && (D->ooo_bytes > t->window || t->queued > t->max_queued)) {
		t->queue_full++;
		skip_to(t, D, d, D->ooo->seq, s->ts_ns, s->frame);
	}
}

static void payload(rp_tcp_ctx *t, rp_tcp_dir *D, uint8_t d, const rp_tcp_seginfo *s, uint32_t seq)
{
	const uint8_t *p = s->data;
	uint32_t len = s->len, wire_len = s->wire_len;
	if (!wire_len)
		return;
	const uint32_t end = seq + wire_len;
	if (seq_le(end, D->next))
		return; /* all old: a retransmission or a keep-alive probe */
	if (seq_lt(seq, D->next)) { /* overlaps what we have: keep only the new tail */
		const uint32_t skip = D->next - seq;
		const uint32_t cskip = skip < len ? skip : len;
		p += cskip;
		len -= cskip;
		wire_len -= skip;
		seq = D->next;
	}
	if (seq == D->next) {
		D->far = 0;
		emit(t, D, d, p, len, wire_len, s->ts_ns, s->frame);
		if (D->ooo)
			drain(t, D, d);
	} else {
		enqueue(t, D, d, s, seq, p, len, wire_len);
	}
}

/* The peer acknowledged bytes of D we never saw: they were lost in the capture, not on the wire. */
static void acked(rp_tcp_ctx *t, rp_tcp_dir *D, uint8_t d, uint32_t ack, uint64_t ts_ns, uint64_t frame)
{
	if (!D->synced || !seq_lt(D->next, ack) || ack - D->next > ACK_PLAUSIBLE)
		return;
	if (D->fin && seq_lt(D->fin_seq, ack))
		ack = D->fin_seq; /* the FIN takes a sequence number but no byte */
	while (seq_lt(D->next, ack)) {
		const uint32_t target = D->ooo && seq_lt(D->ooo->seq, ack) ? D->ooo->seq : ack;
		skip_to(t, D, d, target, ts_ns, frame);
	}
}

rp_tcp_res rp__tcp_segment(rp_tcp_ctx *t, rp_tcp_dir dirs[2], uint8_t d, const rp_tcp_seginfo *s)
{
	rp_tcp_dir *const D = &dirs[d];
	if (s->flags & RP_TCP_RST)
		return RP_TCP_RESET;
	uint32_t seq = s->seq;
	if (s->flags & RP_TCP_SYN) {
		if (D->syn && seq + 1 != D->next && !(s->flags & RP_TCP_ACK))
			return RP_TCP_NEWCONN; /* a new SYN on the same ports */
		if (!D->syn && D->synced) {
			/* Data came before the SYN: reordered if close behind, else a new connection. */
			if (seq_lt(D->next, seq + 1) || D->next - (seq + 1) > t->window)
				return RP_TCP_NEWCONN;
			D->syn = true;
		} else if (!D->syn) {
			D->next = seq + 1;
			D->synced = true;
			D->syn = true;
		}
		seq++;
	}
	if (!D->synced) {
		if (!s->wire_len && !(s->flags & RP_TCP_FIN))
			goto ack;
		D->next = seq; /* mid-stream: the stream starts here, at no particular boundary */
		D->synced = true;
	}
	payload(t, D, d, s, seq);
	if ((s->flags & RP_TCP_FIN) && !D->fin) {
		D->fin = true;
		D->fin_seq = seq + s->wire_len;
		if (D->next == D->fin_seq)
			D->done = true;
	}
	if (D->ooo && s->ts_ns > D->hole_since_ns && s->ts_ns - D->hole_since_ns > t->hole_timeout_ns)
		skip_to(t, D, d, D->ooo->seq, s->ts_ns, s->frame);
ack:
	if (s->flags & RP_TCP_ACK)
		acked(t, &dirs[d ^ 1], d ^ 1, s->ack, s->ts_ns, s->frame);
	return RP_TCP_OK;
}
