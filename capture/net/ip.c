/* IPv4 (RFC 791) and IPv6 (RFC 8200: extension headers, fragments) with bounded fragment reassembly. */
#include "capture/net/ip.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"

#define IP_MAX_PAYLOAD 65535u
/* Fragments of one datagram may leave at most this many holes: more is an attack, not traffic. */
#define FRAG_MAX_RANGES 64
#define FRAG_BUCKETS 1024
/* IPv6 headers chained deeper than this are not traffic we decode. */
#define IP6_MAX_EXT 8

typedef struct dgram {
	struct dgram *hnext;        /* hash chain */
	struct dgram *older, *newer; /* age list, oldest first */
	rp_addr src, dst;
	uint32_t id;
	uint8_t proto; /* v4: IP protocol; v6: next header after the fragment header */
	uint32_t total; /* payload length, known once the last fragment came; else 0 */
	uint64_t ts_ns, frame; /* of the first fragment seen */
	uint64_t born_ns;
	uint8_t *buf;
	uint32_t cap;
	uint16_t nr;
	struct { uint32_t lo, hi; } r[FRAG_MAX_RANGES]; /* received bytes, sorted, disjoint, not adjacent */
} dgram;

struct rp_ipfrag {
	rp_ipfrag_limits lim;
	dgram *bucket[FRAG_BUCKETS];
	dgram *oldest, *newest;
	uint32_t count;
	uint64_t bytes;
	uint32_t dropped;
	dgram *done; /* the datagram handed out by the last call; freed by the next */
};

rp_ipfrag *rp__ipfrag_create(const rp_ipfrag_limits *lim)
{
	rp_ipfrag *const f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	if (lim)
		f->lim = *lim;
	if (!f->lim.timeout_ns)
		f->lim.timeout_ns = 30ull * 1000000000ull;
	if (!f->lim.max_datagrams)
		f->lim.max_datagrams = 1024;
	if (!f->lim.max_bytes)
		f->lim.max_bytes = 32u << 20;
	return f;
}

static void dgram_free(dgram *d)
{
	if (d) {
		free(d->buf);
		free(d);
	}
}

static uint32_t key_hash(const rp_addr *src, const rp_addr *dst, uint32_t id)
{
	uint64_t h = id * 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 16; i += 4) {
		uint32_t a, b;
		memcpy(&a, src->a + i, 4);
		memcpy(&b, dst->a + i, 4);
		h = (h ^ a) * 0xff51afd7ed558ccdull;
		h = (h ^ b) * 0xc4ceb9fe1a85ec53ull;
	}
	return (uint32_t)(h >> 40) % FRAG_BUCKETS;
}

/* Unlink d from the table (but do not free it). */
static void unlink_dgram(rp_ipfrag *f, dgram *d)
{
	dgram **pp = &f->bucket[key_hash(&d->src, &d->dst, d->id)];
	while (*pp && *pp != d)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = d->hnext;
	if (d->older)
		d->older->newer = d->newer;
	else
		f->oldest = d->newer;
	if (d->newer)
		d->newer->older = d->older;
	else
		f->newest = d->older;
	f->count--;
	f->bytes -= d->cap;
}

static void drop(rp_ipfrag *f, dgram *d)
{
	unlink_dgram(f, d);
	dgram_free(d);
	f->dropped++;
}

void rp__ipfrag_destroy(rp_ipfrag *f)
{
	if (!f)
		return;
	while (f->oldest) {
		dgram *const d = f->oldest;
		unlink_dgram(f, d);
		dgram_free(d);
	}
	dgram_free(f->done);
	free(f);
}

void rp__ipfrag_expire(rp_ipfrag *f, uint64_t now_ns)
{
	while (f->oldest && now_ns > f->oldest->born_ns && now_ns - f->oldest->born_ns > f->lim.timeout_ns)
		drop(f, f->oldest);
}

uint32_t rp__ipfrag_take_dropped(rp_ipfrag *f)
{
	const uint32_t n = f->dropped;
	f->dropped = 0;
	return n;
}

uint32_t rp__ipfrag_pending(const rp_ipfrag *f)
{
	return f->count;
}

static int addr_eq(const rp_addr *a, const rp_addr *b)
{
	return a->family == b->family && memcmp(a->a, b->a, 16) == 0;
}

static dgram *find_or_add(rp_ipfrag *f, const rp_addr *src, const rp_addr *dst, uint32_t id, uint8_t proto,
			  uint64_t ts_ns, uint64_t frame)
{
	const uint32_t h = key_hash(src, dst, id);
	for (dgram *d = f->bucket[h]; d; d = d->hnext)
		if (d->id == id && d->proto == proto && addr_eq(&d->src, src) && addr_eq(&d->dst, dst))
			return d;
	while (f->count >= f->lim.max_datagrams && f->oldest)
		drop(f, f->oldest);
	dgram *const d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->src = *src;
	d->dst = *dst;
	d->id = id;
	d->proto = proto;
	d->ts_ns = ts_ns;
	d->frame = frame;
	d->born_ns = ts_ns;
	d->hnext = f->bucket[h];
	f->bucket[h] = d;
	d->older = f->newest;
	if (f->newest)
		f->newest->newer = d;
	else
		f->oldest = d;
	f->newest = d;
	f->count++;
	return d;
}

static int grow(rp_ipfrag *f, dgram *d, uint32_t need)
{
	if (need <= d->cap)
		return 0;
	uint32_t cap = d->cap ? d->cap : 2048;
	while (cap < need)
		cap *= 2;
	if (cap > IP_MAX_PAYLOAD + 1)
		cap = IP_MAX_PAYLOAD + 1;
	while (f->bytes + (cap - d->cap) > f->lim.max_bytes && f->oldest && f->oldest != d)
		drop(f, f->oldest);
	uint8_t *const b = realloc(d->buf, cap);
	if (!b)
		return -1;
	f->bytes += cap - d->cap;
	d->buf = b;
	d->cap = cap;
	return 0;
}

/* Copy the parts of [lo, hi) not received yet, then record the range. Returns -1 if too fragmented. */
static int add_range(dgram *d, uint32_t lo, uint32_t hi, const uint8_t *data)
{
	uint32_t at = lo;
	for (uint16_t i = 0; i < d->nr && at < hi; i++) {
		if (d->r[i].hi <= at)
			continue;
		if (d->r[i].lo >= hi)
			break;
		if (d->r[i].lo > at)
			memcpy(d->buf + at, data + (at - lo), d->r[i].lo - at);
		at = d->r[i].hi;
	}
	if (at < hi)
		memcpy(d->buf + at, data + (at - lo), hi - at);
	/* Insert, then merge neighbours that overlap or touch. */
	uint16_t i = 0;
	while (i < d->nr && d->r[i].hi < lo)
		i++;
	uint16_t j = i;
	uint32_t nlo = lo, nhi = hi;
	while (j < d->nr && d->r[j].lo <= hi) {
		if (d->r[j].lo < nlo)
			nlo = d->r[j].lo;
		if (d->r[j].hi > nhi)
			nhi = d->r[j].hi;
		j++;
	}
	const uint16_t merged = (uint16_t)(j - i);
	if (merged == 0 && d->nr == FRAG_MAX_RANGES)
		return -1;
	if (merged != 1)
		memmove(&d->r[i + 1], &d->r[j], (size_t)(d->nr - j) * sizeof(d->r[0]));
	d->r[i].lo = nlo;
	d->r[i].hi = nhi;
	d->nr = (uint16_t)(d->nr + 1 - merged);
	return 0;
}

/*
 * Store one fragment covering payload bytes [off, off+len).  Returns the
 * whole datagram, RP_IP_HELD, or an error result.
 */
static rp_ip_res fragment(rp_ipfrag *f, const rp_addr *src, const rp_addr *dst, uint32_t id, uint8_t proto,
			  uint32_t off, bool more, const uint8_t *data, uint32_t len, uint64_t ts_ns,
			  uint64_t frame, dgram **whole)
{
	rp__ipfrag_expire(f, ts_ns);
	const uint32_t end = off + len;
	if (end > IP_MAX_PAYLOAD)
		return RP_IP_INVALID;
	dgram *const d = find_or_add(f, src, dst, id, proto, ts_ns, frame);
	if (!d)
		return RP_IP_INVALID;
	if (ts_ns < d->ts_ns || (ts_ns == d->ts_ns && frame < d->frame)) {
		d->ts_ns = ts_ns; /* the datagram began with its earliest fragment */
		d->frame = frame;
	}
	const uint32_t max_hi = d->nr ? d->r[d->nr - 1].hi : 0;
	if (!more) {
		if ((d->total && d->total != end) || end < max_hi) {
			drop(f, d); /* two different ends: we cannot tell which is true */
			return RP_IP_INVALID;
		}
		d->total = end;
	} else if (d->total && end > d->total) {
		drop(f, d);
		return RP_IP_INVALID;
	}
	if (len) {
		if (grow(f, d, end) != 0 || add_range(d, off, end, data) != 0) {
			drop(f, d);
			return RP_IP_INVALID;
		}
	}
	if (d->total && d->nr == 1 && d->r[0].lo == 0 && d->r[0].hi == d->total) {
		unlink_dgram(f, d);
		*whole = d;
		return RP_IP_L4;
	}
	return RP_IP_HELD;
}

static rp_ip_res l4_out(uint8_t proto, const rp_addr *src, const rp_addr *dst, const uint8_t *data, uint32_t len,
			uint32_t wire_len, uint64_t ts_ns, uint64_t frame, rp_l4pkt *out)
{
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return RP_IP_OTHER;
	out->src = *src;
	out->dst = *dst;
	out->proto = proto;
	out->data = data;
	out->len = len;
	out->wire_len = wire_len;
	out->ts_ns = ts_ns;
	out->frame = frame;
	return RP_IP_L4;
}

static rp_ip_res take_whole(rp_ipfrag *f, dgram *d, rp_l4pkt *out, uint8_t ipver);

static rp_ip_res ipv4(rp_ipfrag *f, const uint8_t *pkt, uint32_t caplen, uint64_t ts_ns, uint64_t frame,
		      rp_l4pkt *out)
{
	rp_cur c = rp_cur_make(pkt, caplen);
	const uint8_t vhl = rp_cur_u8(&c);
	rp_cur_skip(&c, 1); /* DSCP/ECN */
	const uint16_t total = rp_cur_be16(&c);
	const uint16_t id = rp_cur_be16(&c);
	const uint16_t frag = rp_cur_be16(&c);
	rp_cur_skip(&c, 1); /* TTL */
	const uint8_t proto = rp_cur_u8(&c);
	rp_cur_skip(&c, 2); /* header checksum: never verified (offload makes it wrong on lo) */
	const uint8_t *const sa = rp_cur_take(&c, 4);
	const uint8_t *const da = rp_cur_take(&c, 4);
	const uint32_t hlen = (uint32_t)(vhl & 0x0f) * 4;
	if (c.err)
		return RP_IP_TRUNCATED;
	if (hlen < 20 || total < hlen)
		return RP_IP_INVALID;
	if (hlen > caplen)
		return RP_IP_TRUNCATED;
	rp_addr src = { .family = 4 }, dst = { .family = 4 };
	memcpy(src.a, sa, 4);
	memcpy(dst.a, da, 4);
	/* Frames shorter than the minimum are padded (Ethernet): trust the IP length, not caplen. */
	const uint32_t have = (caplen < total ? caplen : total) - hlen;
	const uint32_t wire = total - hlen;
	const bool more = frag & 0x2000;
	const uint32_t off = (uint32_t)(frag & 0x1fff) * 8;
	if (!more && off == 0)
		return l4_out(proto, &src, &dst, pkt + hlen, have, wire, ts_ns, frame, out);
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return RP_IP_OTHER;
	if (!f)
		return RP_IP_OTHER;
	if (have < wire)
		return RP_IP_TRUNCATED;
	dgram *whole = NULL;
	const rp_ip_res r = fragment(f, &src, &dst, id, proto, off, more, pkt + hlen, have, ts_ns, frame, &whole);
	return r == RP_IP_L4 ? take_whole(f, whole, out, 4) : r;
}

/* Walk IPv6 extension headers from next header nh at c; the fragment header is handled by the caller. */
typedef struct ip6_walk {
	uint8_t nh;
	bool frag;
	uint32_t frag_off, frag_id;
	bool frag_more;
} ip6_walk;

static rp_ip_res ip6_chain(rp_cur *c, ip6_walk *w)
{
	for (int n = 0; n < IP6_MAX_EXT; n++) {
		switch (w->nh) {
		case 0:  /* hop-by-hop options */
		case 43: /* routing */
		case 60: /* destination options */
		case 135: /* mobility */ {
			const uint8_t nh = rp_cur_u8(c);
			const uint8_t len = rp_cur_u8(c);
			rp_cur_skip(c, (size_t)len * 8 + 6);
			if (c->err)
				return RP_IP_TRUNCATED;
			w->nh = nh;
			break;
		}
		case 51: { /* authentication header: length in 4-byte units, minus 2 */
			const uint8_t nh = rp_cur_u8(c);
			const uint8_t len = rp_cur_u8(c);
			rp_cur_skip(c, ((size_t)len + 2) * 4 - 2);
			if (c->err)
				return RP_IP_TRUNCATED;
			w->nh = nh;
			break;
		}
		case 44: { /* fragment */
			if (w->frag)
				return RP_IP_INVALID; /* two fragment headers */
			const uint8_t nh = rp_cur_u8(c);
			rp_cur_skip(c, 1);
			const uint16_t offm = rp_cur_be16(c);
			const uint32_t id = rp_cur_be32(c);
			if (c->err)
				return RP_IP_TRUNCATED;
			w->nh = nh;
			w->frag_off = (uint32_t)(offm >> 3) * 8;
			w->frag_more = offm & 1;
			w->frag_id = id;
			/* An atomic fragment (offset 0, no more) is a whole datagram (RFC 6946). */
			w->frag = w->frag_off != 0 || w->frag_more;
			if (w->frag)
				return RP_IP_L4; /* the rest is fragment data */
			break;
		}
		case IPPROTO_TCP:
		case IPPROTO_UDP:
			return RP_IP_L4;
		default: /* ESP, no next header, ICMPv6, ... */
			return RP_IP_OTHER;
		}
	}
	return RP_IP_OTHER;
}

static rp_ip_res ipv6(rp_ipfrag *f, const uint8_t *pkt, uint32_t caplen, uint64_t ts_ns, uint64_t frame,
		      rp_l4pkt *out)
{
	rp_cur c = rp_cur_make(pkt, caplen);
	rp_cur_skip(&c, 4); /* version, traffic class, flow label */
	const uint16_t plen = rp_cur_be16(&c);
	ip6_walk w = { .nh = rp_cur_u8(&c) };
	rp_cur_skip(&c, 1); /* hop limit */
	const uint8_t *const sa = rp_cur_take(&c, 16);
	const uint8_t *const da = rp_cur_take(&c, 16);
	if (c.err)
		return RP_IP_TRUNCATED;
	if (plen == 0)
		return RP_IP_OTHER; /* a jumbogram: not NFS or SMB traffic */
	rp_addr src = { .family = 6 }, dst = { .family = 6 };
	memcpy(src.a, sa, 16);
	memcpy(dst.a, da, 16);
	const uint32_t have_all = caplen - 40 < plen ? caplen - 40 : plen;
	c = rp_cur_make(pkt + 40, have_all);
	const rp_ip_res r = ip6_chain(&c, &w);
	if (r != RP_IP_L4)
		return r;
	const uint32_t hdrs = (uint32_t)(c.p - (pkt + 40));
	const uint32_t have = have_all - hdrs;
	const uint32_t wire = plen - hdrs;
	if (!w.frag)
		return l4_out(w.nh, &src, &dst, c.p, have, wire, ts_ns, frame, out);
	if (!f)
		return RP_IP_OTHER;
	if (have < wire)
		return RP_IP_TRUNCATED;
	dgram *whole = NULL;
	const rp_ip_res fr = fragment(f, &src, &dst, w.frag_id, w.nh, w.frag_off, w.frag_more, c.p, have, ts_ns,
				      frame, &whole);
	return fr == RP_IP_L4 ? take_whole(f, whole, out, 6) : fr;
}

/* Hand out a reassembled datagram; it lives until the next call. */
static rp_ip_res take_whole(rp_ipfrag *f, dgram *d, rp_l4pkt *out, uint8_t ipver)
{
	dgram_free(f->done);
	f->done = d;
	if (ipver == 4)
		return l4_out(d->proto, &d->src, &d->dst, d->buf, d->total, d->total, d->ts_ns, d->frame, out);
	/* The fragmentable part of IPv6 may begin with more extension headers. */
	rp_cur c = rp_cur_make(d->buf, d->total);
	ip6_walk w = { .nh = d->proto, .frag = true };
	const rp_ip_res r = ip6_chain(&c, &w);
	if (r != RP_IP_L4)
		return r;
	const uint32_t hdrs = (uint32_t)(c.p - d->buf);
	return l4_out(w.nh, &d->src, &d->dst, c.p, d->total - hdrs, d->total - hdrs, d->ts_ns, d->frame, out);
}

rp_ip_res rp__ip_parse(rp_ipfrag *f, uint8_t ipver, const uint8_t *pkt, uint32_t caplen, uint64_t ts_ns,
		       uint64_t frame, rp_l4pkt *out)
{
	if (f && f->done) {
		dgram_free(f->done);
		f->done = NULL;
	}
	if (caplen < 1)
		return RP_IP_TRUNCATED;
	if ((pkt[0] >> 4) != ipver)
		return RP_IP_INVALID;
	return ipver == 4 ? ipv4(f, pkt, caplen, ts_ns, frame, out) : ipv6(f, pkt, caplen, ts_ns, frame, out);
}
