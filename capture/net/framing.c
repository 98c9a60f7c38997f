/* Application framing: ONC RPC record marking (RFC 5531 §11), NetBIOS session messages (RFC 1002 §4.3), resync. */
#include "capture/net/framing.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"

/* Opaque auth bodies are at most 400 bytes (RFC 5531 §8.2). */
#define RPC_MAX_AUTH 400
/* The smallest RPC message, a reply with a null verifier, has 24 bytes. */
#define RPC_MIN_MSG 24
/* Buffers above this are freed, not kept, once empty: idle flows keep little memory. */
#define KEEP_BUF (256u << 10)

typedef enum presult { P_MSG, P_SKIP, P_NEED, P_BAD } presult;

typedef struct parsed {
	size_t consumed;  /* bytes of the stream the message (or skipped unit) takes */
	size_t body_len;  /* payload bytes, fragments joined */
	uint32_t frags;   /* RPC fragments */
	size_t need;      /* P_NEED: bytes from the message start needed to go on */
} parsed;

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline bool flavor_ok(uint32_t f)
{
	return f <= 7; /* AUTH_NONE .. AUTH_TLS, with RPCSEC_GSS = 6 */
}

int rp__frame_looks_rpc(const uint8_t *p, size_t n, bool marked)
{
	rp_cur c = rp_cur_make(p, n);
	if (marked) {
		const uint32_t len = rp_cur_be32(&c) & 0x7fffffff;
		if (c.err)
			return -1;
		if (len < RPC_MIN_MSG || len > RP_FRAME_MAX_MSG)
			return 0;
	}
	rp_cur_skip(&c, 4); /* xid */
	const uint32_t type = rp_cur_be32(&c);
	if (c.err)
		return -1;
	if (type == 0) { /* CALL: rpcvers 2, prog, vers, proc, credential */
		const uint32_t rpcvers = rp_cur_be32(&c);
		if (!c.err && rpcvers != 2)
			return 0;
		/*
		 * A datagram is one whole message: xid, CALL and version 2 are
		 * enough, and a call with a broken credential is the decoder's
		 * to count as invalid.  In a stream we may be scanning any bytes.
		 */
		if (!marked)
			return c.err ? -1 : 1;
		rp_cur_skip(&c, 12);
		const uint32_t flavor = rp_cur_be32(&c);
		const uint32_t len = rp_cur_be32(&c);
		if (c.err)
			return -1;
		return flavor_ok(flavor) && len <= RPC_MAX_AUTH;
	}
	if (type != 1)
		return 0;
	const uint32_t stat = rp_cur_be32(&c);
	if (c.err)
		return -1;
	if (stat == 1) { /* MSG_DENIED: RPC_MISMATCH or AUTH_ERROR */
		const uint32_t rej = rp_cur_be32(&c);
		return c.err ? -1 : rej <= 1;
	}
	if (stat != 0)
		return 0;
	const uint32_t flavor = rp_cur_be32(&c);
	const uint32_t len = rp_cur_be32(&c);
	if (c.err)
		return -1;
	if (!flavor_ok(flavor) || len > RPC_MAX_AUTH)
		return 0;
	if (len)
		return 1;
	const uint32_t accept = rp_cur_be32(&c);
	return c.err ? -1 : accept <= 5; /* SUCCESS .. SYSTEM_ERR */
}

int rp__frame_looks_smb(const uint8_t *p, size_t n)
{
	if (n < 8)
		return -1;
	if (p[0] != 0 || p[5] != 'S' || p[6] != 'M' || p[7] != 'B')
		return 0;
	const uint32_t len = be24(p + 1);
	switch (p[4]) {
	case 0xfe: /* SMB2/3: StructureSize 64 follows the protocol id */
		if (n < 10)
			return -1;
		return len >= 64 && p[8] == 64 && p[9] == 0;
	case 0xff: /* SMB1: 32-byte header and a word count */
		return len >= 33;
	case 0xfd: /* SMB3 transform (encrypted) */
		return len >= 52;
	case 0xfc: /* SMB3.1.1 compression transform */
		return len >= 16;
	default:
		return 0;
	}
}

/* ---- buffers ---- */

static void buf_drop(rp_framer *f, rp_frame_dir *D)
{
	f->buffered -= D->cap;
	free(D->buf);
	D->buf = NULL;
	D->len = D->cap = D->want = 0;
	D->walk_off = D->walk_body = 0;
	D->walk_frags = 0;
}

static void buf_clear(rp_framer *f, rp_frame_dir *D)
{
	if (D->cap > KEEP_BUF)
		buf_drop(f, D);
	D->len = D->want = 0;
	D->walk_off = D->walk_body = 0;
	D->walk_frags = 0;
}

/* Make room for `need` bytes in all; false when over the bound. */
static bool buf_reserve(rp_framer *f, rp_frame_dir *D, size_t need)
{
	if (need <= D->cap)
		return true;
	size_t cap = D->cap ? D->cap : 4096;
	while (cap < need)
		cap *= 2;
	if (cap > 2 * (size_t)RP_FRAME_MAX_MSG + 65536)
		return false;
	if (f->buffered - D->cap + cap > f->max_buffered)
		return false;
	uint8_t *const b = realloc(D->buf, cap);
	if (!b)
		return false;
	f->buffered += cap - D->cap;
	D->buf = b;
	D->cap = cap;
	return true;
}

/* ---- delivery ---- */

static void deliver(rp_framer *f, rp_frame_conn *fc, uint8_t d, const uint8_t *body, size_t len, size_t wire_len,
		    bool truncated, uint64_t ts_ns, uint64_t frame)
{
	const rp_msg m = {
		.data = body,
		.len = len,
		.wire_len = wire_len,
		.ts_ns = ts_ns,
		.frame = frame,
		.from = d,
		.truncated = truncated,
	};
	f->hooks.message(f->hooks.user, fc->conn, (rp_app)fc->app, &m);
}

/* Join the bodies of the first `frags` fragments of the record at p (plus `extra` bytes of the next). */
static const uint8_t *join(rp_framer *f, const uint8_t *p, uint32_t frags, size_t body_len, size_t extra)
{
	const size_t need = body_len + extra ? body_len + extra : 1; /* never a NULL scratch, even for empty fragments */
	if (need > f->join_cap) {
		uint8_t *const b = realloc(f->join, need);
		if (!b)
			return NULL;
		f->join = b;
		f->join_cap = need;
	}
	size_t off = 0, at = 0;
	for (uint32_t i = 0; i < frags; i++) {
		const uint32_t l = be32(p + off) & 0x7fffffff;
		memcpy(f->join + at, p + off + 4, l);
		at += l;
		off += 4 + (size_t)l;
	}
	if (extra)
		memcpy(f->join + at, p + off + 4, extra);
	return f->join;
}

/* ---- parsing at a boundary ---- */

static presult parse_rpc(rp_frame_dir *D, const uint8_t *p, size_t n, parsed *o)
{
	size_t off = D->walk_off, body = D->walk_body;
	uint32_t frags = D->walk_frags;
	for (;;) {
		if (n - off < 4) {
			o->need = off + 4;
			break;
		}
		const uint32_t mark = be32(p + off);
		const uint32_t len = mark & 0x7fffffff;
		const bool last = mark >> 31;
		if (len > RP_FRAME_MAX_MSG || body + len > RP_FRAME_MAX_MSG)
			return P_BAD;
		if (frags == 0) {
			if (last && len < RPC_MIN_MSG)
				return P_BAD;
			if (len >= 8 && n - off < 12) {
				o->need = off + 12;
				break;
			}
			if (len >= 8 && be32(p + off + 8) > 1)
				return P_BAD; /* msg_type is CALL or REPLY */
		}
		if (n - off - 4 < len) {
			o->need = off + 4 + len;
			break;
		}
		off += 4 + (size_t)len;
		body += len;
		frags++;
		if (last) {
			o->consumed = off;
			o->body_len = body;
			o->frags = frags;
			D->walk_off = D->walk_body = 0;
			D->walk_frags = 0;
			return P_MSG;
		}
	}
	D->walk_off = off;
	D->walk_body = body;
	D->walk_frags = frags;
	return P_NEED;
}

static presult parse_nbss(const uint8_t *p, size_t n, parsed *o)
{
	if (n < 4) {
		o->need = 4;
		return P_NEED;
	}
	const uint8_t type = p[0];
	const uint32_t len = be24(p + 1);
	if (type == 0) {
		if (len < 4)
			return P_BAD;
		if (n < 8) {
			o->need = 8;
			return P_NEED;
		}
		if (p[5] != 'S' || p[6] != 'M' || p[7] != 'B' || p[4] < 0xfc)
			return P_BAD;
	} else if (type < 0x81 || type > 0x85) {
		return P_BAD; /* not a NetBIOS session packet type */
	}
	if (n - 4 < len) {
		o->need = 4 + (size_t)len;
		return P_NEED;
	}
	o->consumed = 4 + (size_t)len;
	o->body_len = len;
	o->frags = 1;
	return type == 0 ? P_MSG : P_SKIP; /* session request/response/keep-alive carry no SMB */
}

/*
 * At a boundary of a connection whose protocol is unknown: 1 decided
 * (fc->app set), 0 neither protocol, -1 need more bytes, 2 skip 4 bytes
 * (a NetBIOS keep-alive before anything else).
 */
static int detect(rp_frame_conn *fc, const uint8_t *p, size_t n)
{
	const int rpc = rp__frame_looks_rpc(p, n, true);
	if (rpc == 1) {
		fc->app = RP_APP_RPC;
		return 1;
	}
	const int smb = rp__frame_looks_smb(p, n);
	if (smb == 1) {
		fc->app = RP_APP_SMB;
		return 1;
	}
	if (n >= 4 && p[0] == 0x85 && be24(p + 1) == 0)
		return 2;
	if (n >= 5 && p[0] == 0x81 && be24(p + 1) >= 68 && be24(p + 1) <= 256 && p[4] == 0x20) {
		fc->app = RP_APP_SMB; /* NetBIOS session request (port 139): two encoded names follow */
		return 1;
	}
	return rpc < 0 || smb < 0 ? -1 : 0;
}

/*
 * Scan for a plausible message start.  Returns its offset with *found set, or
 * the offset from which the bytes may still start one (keep them).
 */
static size_t scan(rp_frame_conn *fc, const uint8_t *p, size_t n, bool *found)
{
	const bool want_rpc = fc->app != RP_APP_SMB, want_smb = fc->app != RP_APP_RPC;
	*found = false;
	for (size_t i = 0; i < n; i++) {
		const size_t left = n - i;
		const uint8_t *const q = p + i;
		if (want_smb) {
			if (left < 8)
				return i;
			if (q[0] == 0 && q[5] == 'S' && q[6] == 'M' && q[7] == 'B') {
				const int r = rp__frame_looks_smb(q, left);
				if (r < 0)
					return i;
				if (r == 1) {
					fc->app = RP_APP_SMB;
					*found = true;
					return i;
				}
			}
		}
		if (want_rpc) {
			if (left < 12)
				return i;
			if ((q[0] & 0x7f) <= 1 && q[8] == 0 && q[9] == 0 && q[10] == 0 && q[11] <= 1) {
				const int r = rp__frame_looks_rpc(q, left, true);
				if (r < 0)
					return i;
				if (r == 1) {
					fc->app = RP_APP_RPC;
					*found = true;
					return i;
				}
			}
		}
	}
	return n;
}

static void ignore_conn(rp_framer *f, rp_frame_conn *fc)
{
	fc->app = RP_APP_IGNORED;
	for (int d = 0; d < 2; d++)
		buf_drop(f, &fc->dir[d]);
}

/*
 * Consume whole messages from p[0, n) at the direction's current state;
 * returns how many bytes were used (the rest must be kept).  The first
 * message is stamped (ts0, fr0), later ones (ts, fr): bytes after a message
 * that just completed came with the newest segment.
 */
static size_t consume(rp_framer *f, rp_frame_conn *fc, uint8_t d, const uint8_t *p, size_t n, uint64_t ts0,
		      uint64_t fr0, uint64_t ts, uint64_t fr)
{
	rp_frame_dir *const D = &fc->dir[d];
	size_t off = 0;
	D->want = 0;
	while (off < n) {
		if (fc->app == RP_APP_IGNORED)
			return n;
		if (D->skip) {
			const size_t k = D->skip < n - off ? (size_t)D->skip : n - off;
			off += k;
			D->skip -= k;
			continue;
		}
		if (D->resync) {
			bool found;
			const size_t at = scan(fc, p + off, n - off, &found);
			if (!found && fc->app == RP_APP_NONE) {
				if (at >= fc->budget) {
					ignore_conn(f, fc);
					return n;
				}
				fc->budget -= (uint32_t)at;
			}
			off += at;
			if (!found)
				return off;
			D->resync = false;
			continue;
		}
		if (D->skip_frags) {
			if (n - off < 4)
				return off;
			const uint32_t mark = be32(p + off);
			D->skip = mark & 0x7fffffff;
			D->skip_frags = !(mark >> 31);
			off += 4;
			continue;
		}
		if (fc->app == RP_APP_NONE) {
			const int r = detect(fc, p + off, n - off);
			if (r < 0)
				return off;
			if (r == 0) {
				ignore_conn(f, fc);
				return n;
			}
			if (r == 2) {
				off += 4;
				continue;
			}
		}
		parsed o;
		const presult r = fc->app == RP_APP_RPC ? parse_rpc(D, p + off, n - off, &o) : parse_nbss(p + off, n - off, &o);
		const uint64_t mts = off ? ts : ts0, mfr = off ? fr : fr0;
		switch (r) {
		case P_NEED:
			D->want = o.need;
			return off;
		case P_MSG: {
			const uint8_t *const base = p + off;
			const uint8_t *const body = o.frags == 1 ? base + 4 : join(f, base, o.frags, o.body_len, 0);
			if (body)
				deliver(f, fc, d, body, o.body_len, o.body_len, false, mts, mfr);
			else
				f->hooks.count(f->hooks.user, RP_OUT_TRUNCATED, NULL);
			off += o.consumed;
			break;
		}
		case P_SKIP:
			off += o.consumed;
			break;
		case P_BAD:
			/* A header that cannot be one: we lost the boundaries.  Look for the next message. */
			f->hooks.count(f->hooks.user, RP_OUT_INVALID,
				       fc->app == RP_APP_RPC ? "RPC record mark" : "NetBIOS session header");
			D->resync = true;
			D->walk_off = D->walk_body = 0;
			D->walk_frags = 0;
			off += 1;
			break;
		}
	}
	return off;
}

void rp__frame_init(rp_frame_conn *fc, rp_conn *conn)
{
	memset(fc, 0, sizeof(*fc));
	fc->conn = conn;
	fc->budget = RP_FRAME_DETECT_BUDGET;
	fc->dir[0].resync = fc->dir[1].resync = true;
}

void rp__frame_boundary(rp_frame_conn *fc, uint8_t d)
{
	if (!fc->dir[d].seen)
		fc->dir[d].resync = false;
}

/* Over the memory bound: the bytes are as good as lost. */
static void overflow(rp_framer *f, rp_frame_conn *fc, uint8_t d, size_t n, uint64_t ts_ns, uint64_t frame)
{
	f->hooks.count(f->hooks.user, RP_OUT_TRUNCATED, NULL);
	rp__frame_gap(f, fc, d, n, ts_ns, frame);
}

void rp__frame_data(rp_framer *f, rp_frame_conn *fc, uint8_t d, const uint8_t *p, size_t n, uint64_t ts_ns,
		    uint64_t frame)
{
	if (fc->app == RP_APP_IGNORED || !n)
		return;
	rp_frame_dir *const D = &fc->dir[d];
	D->seen = true;
	if (!D->len) {
		const size_t used = consume(f, fc, d, p, n, ts_ns, frame, ts_ns, frame);
		if (used == n || fc->app == RP_APP_IGNORED)
			return;
		if (!buf_reserve(f, D, D->want > n - used ? D->want : n - used)) {
			overflow(f, fc, d, n - used, ts_ns, frame);
			return;
		}
		memcpy(D->buf, p + used, n - used);
		D->len = n - used;
		D->ts_ns = ts_ns;
		D->frame = frame;
		return;
	}
	if (!buf_reserve(f, D, D->len + n > D->want ? D->len + n : D->want)) {
		overflow(f, fc, d, n, ts_ns, frame);
		return;
	}
	memcpy(D->buf + D->len, p, n);
	D->len += n;
	if (D->len < D->want)
		return;
	const size_t used = consume(f, fc, d, D->buf, D->len, D->ts_ns, D->frame, ts_ns, frame);
	if (fc->app == RP_APP_IGNORED)
		return;
	if (used == D->len) {
		const size_t want = D->want;
		buf_clear(f, D);
		D->want = want;
		return;
	}
	if (used) {
		memmove(D->buf, D->buf + used, D->len - used);
		D->len -= used;
		D->ts_ns = ts_ns;
		D->frame = frame;
	}
}

/*
 * A message is cut at D->len bytes by a loss of n bytes (UINT64_MAX: the
 * stream ended).  Deliver what we have as truncated, then skip the rest of
 * the message when the loss ends inside it, or resync when it goes past.
 */
static void cut_message(rp_framer *f, rp_frame_conn *fc, uint8_t d, uint64_t n)
{
	rp_frame_dir *const D = &fc->dir[d];
	const uint8_t *body = NULL;
	size_t have = 0, wire = 0, end = 0;
	bool last = true, known = false;
	if (fc->app == RP_APP_RPC) {
		const size_t at = D->walk_off;
		size_t part = 0;
		if (D->len >= at + 4) {
			const uint32_t mark = be32(D->buf + at);
			const uint32_t len = mark & 0x7fffffff;
			last = mark >> 31;
			end = at + 4 + (size_t)len;
			part = D->len - at - 4;
			if (part > len)
				part = len;
			wire = D->walk_body + len;
			known = true;
		} else {
			wire = D->walk_body;
		}
		have = D->walk_body + part;
		if (have)
			body = D->walk_frags == 0 ? D->buf + 4 : join(f, D->buf, D->walk_frags, D->walk_body, part);
	} else if (fc->app == RP_APP_SMB && D->len >= 4) {
		const uint32_t len = be24(D->buf + 1);
		end = 4 + (size_t)len;
		known = true;
		if (D->buf[0] == 0) {
			have = D->len - 4;
			wire = len;
			body = D->buf + 4;
		}
	}
	if (have && body)
		deliver(f, fc, d, body, have, wire, true, D->ts_ns, D->frame);
	else if (known && (fc->app == RP_APP_RPC || D->buf[0] == 0))
		f->hooks.count(f->hooks.user, RP_OUT_TRUNCATED, NULL); /* only a header: nothing to decode */
	const uint64_t missing = known && end > D->len ? end - D->len : 0;
	if (!known || n > missing) {
		D->resync = true;
	} else {
		D->skip = missing - n;
		D->skip_frags = !last;
	}
	buf_clear(f, D);
}

void rp__frame_gap(rp_framer *f, rp_frame_conn *fc, uint8_t d, uint64_t n, uint64_t ts_ns, uint64_t frame)
{
	if (fc->app == RP_APP_IGNORED || !n)
		return;
	rp_frame_dir *const D = &fc->dir[d];
	D->seen = true;
	if (D->skip) {
		if (n <= D->skip) {
			D->skip -= n;
			return;
		}
		D->skip = 0;
		D->skip_frags = false;
		D->resync = true;
		buf_clear(f, D);
		return;
	}
	if (D->resync || D->skip_frags || fc->app == RP_APP_NONE || !D->len) {
		/* Lost bytes at a boundary (or while looking for one): whatever they held, we resync after. */
		D->resync = true;
		D->skip_frags = false;
		buf_clear(f, D);
		return;
	}
	cut_message(f, fc, d, n);
}

void rp__frame_end(rp_framer *f, rp_frame_conn *fc, uint8_t d)
{
	rp_frame_dir *const D = &fc->dir[d];
	if (fc->app != RP_APP_IGNORED && fc->app != RP_APP_NONE && D->len && !D->resync && !D->skip &&
	    !D->skip_frags)
		cut_message(f, fc, d, UINT64_MAX);
	buf_drop(f, D);
}

void rp__frame_datagram(rp_framer *f, rp_frame_conn *fc, uint8_t d, const uint8_t *p, size_t n, size_t wire_len,
			uint64_t ts_ns, uint64_t frame)
{
	if (fc->app == RP_APP_IGNORED)
		return;
	if (fc->app == RP_APP_NONE) {
		if (rp__frame_looks_rpc(p, n, false) != 1) {
			if (++fc->udp_tries >= RP_FRAME_UDP_TRIES)
				fc->app = RP_APP_IGNORED;
			return;
		}
		fc->app = RP_APP_RPC;
	}
	deliver(f, fc, d, p, n, wire_len, n < wire_len, ts_ns, frame);
}

void rp__frame_free(rp_framer *f, rp_frame_conn *fc)
{
	buf_drop(f, &fc->dir[0]);
	buf_drop(f, &fc->dir[1]);
}

void rp__framer_fini(rp_framer *f)
{
	free(f->join);
	f->join = NULL;
	f->join_cap = 0;
}
