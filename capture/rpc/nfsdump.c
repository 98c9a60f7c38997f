/* The nfsdump text decoder: lines -> calls paired with replies by client, server and xid -> op records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/rpc/nfsdump_int.h"

/*
 * Calls waiting for their reply.  Past this many the oldest is let go (its op
 * has long left as "no reply"): a trace whose replies are lost cannot make
 * this grow.  An entry is ~700 bytes, so this bounds the table to ~45 MB.
 */
#define PENDING_MAX (1u << 16)
/* A reply this long after its call (trace time, in match timeouts) still teaches the map; later it is an orphan. */
#define LATE_FACTOR 4
/* The clock going back by this much or more is a jump (EECS lair62's monitor: five minutes); less is reordering. */
#define JUMP_NS 1000000000ull

typedef struct pend {
	struct pend *hnext;       /* hash chain */
	struct pend *prev, *next; /* call order, oldest first */
	uint64_t k1, k2;          /* client and server addresses; ports and xid */
	uint64_t t_call;
	nd_pending p;
} pend;

struct rp_nfsdump {
	rp_sink wrap; /* first: what capctx writes to, forwarding to sink with the trace's source set */
	rp_sink *sink;
	char source_name[RP_META_NAME_MAX];
	rp_capture_stats cst;
	rp_capctx *cx;
	nd_ctx c;
	rp_nfsdump_stats st;
	bool have_time;
	uint64_t last_ns, shift_ns;
	uint64_t late_ns;
	pend **buckets; /* PENDING_MAX of them */
	pend *oldest, *newest, *spare;
	size_t n_pending;
	int err;
	char errbuf[RP_ERRBUF_SIZE];
	nd_rec rec;
};

/* ---- the sink capctx writes to: the trace says it came from nfsdump text ---- */

static int forward(rp_nfsdump *d, int rc)
{
	if (rc < 0)
		memcpy(d->wrap.errbuf, d->sink->errbuf, sizeof(d->wrap.errbuf));
	return rc;
}

static int w_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_nfsdump *const d = (rp_nfsdump *)s;
	rp_trace_meta m = *meta;
	m.source = RP_SRC_NFSDUMP;
	snprintf(m.source_name, sizeof(m.source_name), "%s", d->source_name);
	return forward(d, d->sink->meta(d->sink, &m));
}

static int w_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_nfsdump *const d = (rp_nfsdump *)s;
	return forward(d, d->sink->string(d->sink, id, str, len));
}

static int w_op(rp_sink *s, const rp_op *op)
{
	rp_nfsdump *const d = (rp_nfsdump *)s;
	return forward(d, d->sink->op(d->sink, op));
}

static int w_finish(rp_sink *s)
{
	rp_nfsdump *const d = (rp_nfsdump *)s;
	return forward(d, d->sink->finish(d->sink));
}

int rp_nfsdump_create(rp_nfsdump **out, rp_sink *sink, const rp_capture_opts *opts, const char *source_name,
		      char *errbuf)
{
	*out = NULL;
	rp_nfsdump *const d = calloc(1, sizeof(*d));
	if (!d)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	d->wrap = (rp_sink){ .meta = w_meta, .string = w_string, .op = w_op, .finish = w_finish };
	d->sink = sink;
	/* The file's name without its directories, as the other producers record it. */
	const char *const slash = source_name ? strrchr(source_name, '/') : NULL;
	snprintf(d->source_name, sizeof(d->source_name), "%s", slash ? slash + 1 : source_name ? source_name : "");
	d->cx = rp__capctx_create(&d->wrap, opts, &d->cst);
	d->buckets = calloc(PENDING_MAX, sizeof(*d->buckets));
	if (!d->cx || !d->buckets) {
		rp_nfsdump_destroy(d);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	d->c = (nd_ctx){ .cx = d->cx, .map = rp__fhmap(d->cx), .st = &d->st };
	if (!d->c.map) {
		rp_nfsdump_destroy(d);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	d->late_ns = rp__cap_opts(d->cx)->match_timeout_ns * LATE_FACTOR;
	*out = d;
	return 0;
}

void rp_nfsdump_destroy(rp_nfsdump *d)
{
	if (!d)
		return;
	for (pend *e = d->oldest; e;) {
		pend *const next = e->next;
		free(e);
		e = next;
	}
	for (pend *e = d->spare; e;) {
		pend *const next = e->next;
		free(e);
		e = next;
	}
	free(d->buckets);
	rp__capctx_destroy(d->cx);
	free(d);
}

rp_nfsdump_stats *rp_nfsdump_get_stats(rp_nfsdump *d)
{
	d->st.ops = d->cst.ops;
	return &d->st;
}

const char *rp_nfsdump_error(const rp_nfsdump *d)
{
	return d->errbuf;
}

/* ---- time: kept in order whatever the monitor's clock did ---- */

static uint64_t line_time(rp_nfsdump *d, uint64_t raw)
{
	uint64_t t = raw + d->shift_ns;
	if (!d->have_time) {
		d->have_time = true;
	} else if (t < d->last_ns) {
		if (d->last_ns - t >= JUMP_NS) {
			/* The clock jumped back: later times move forward by as much, so the trace keeps its order. */
			d->shift_ns += d->last_ns - t;
			d->st.clock_back++;
		} else {
			d->st.reordered++;
		}
		t = d->last_ns;
	} else if (d->shift_ns && t - d->last_ns >= d->shift_ns) {
		/* ... and came back: the shift is taken off again. */
		t -= d->shift_ns;
		d->shift_ns = 0;
		if (t < d->last_ns)
			t = d->last_ns;
	}
	d->last_ns = t;
	return t;
}

/* ---- calls waiting for replies ---- */

static size_t bucket(uint64_t k1, uint64_t k2)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ull ^ k2 * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	return (size_t)(h & (PENDING_MAX - 1));
}

static pend *find(const rp_nfsdump *d, uint64_t k1, uint64_t k2)
{
	for (pend *e = d->buckets[bucket(k1, k2)]; e; e = e->hnext)
		if (e->k1 == k1 && e->k2 == k2)
			return e;
	return NULL;
}

static void unlink_pend(rp_nfsdump *d, pend *e)
{
	for (pend **pp = &d->buckets[bucket(e->k1, e->k2)]; *pp; pp = &(*pp)->hnext)
		if (*pp == e) {
			*pp = e->hnext;
			break;
		}
	if (e->prev)
		e->prev->next = e->next;
	else
		d->oldest = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		d->newest = e->prev;
	d->n_pending--;
	e->next = d->spare;
	d->spare = e;
}

/* The oldest call is given up: its op (if any) left, or leaves, as "no reply". */
static void give_up(rp_nfsdump *d)
{
	pend *const e = d->oldest;
	if (e->p.slot != RP_SLOT_NONE)
		d->st.no_reply++;
	unlink_pend(d, e);
}

static pend *add_pend(rp_nfsdump *d, uint64_t k1, uint64_t k2, uint64_t t)
{
	if (d->n_pending == PENDING_MAX)
		give_up(d);
	pend *e = d->spare;
	if (e)
		d->spare = e->next;
	else if (!(e = malloc(sizeof(*e))))
		return NULL;
	e->k1 = k1;
	e->k2 = k2;
	e->t_call = t;
	pend **const b = &d->buckets[bucket(k1, k2)];
	e->hnext = *b;
	*b = e;
	e->next = NULL;
	e->prev = d->newest;
	if (d->newest)
		d->newest->next = e;
	else
		d->oldest = e;
	d->newest = e;
	d->n_pending++;
	return e;
}

static void keys(uint32_t client_ip, uint16_t client_port, uint32_t server_ip, uint16_t server_port, uint32_t xid,
		 uint64_t *k1, uint64_t *k2)
{
	*k1 = (uint64_t)client_ip << 32 | server_ip;
	*k2 = (uint64_t)client_port << 48 | (uint64_t)server_port << 32 | xid;
}

static void on_call(rp_nfsdump *d, const nd_rec *r, uint64_t t)
{
	d->st.calls++;
	uint64_t k1, k2;
	keys(r->src_ip, r->src_port, r->dst_ip, r->dst_port, r->xid, &k1, &k2);
	if (find(d, k1, k2)) {
		d->st.dup_calls++; /* a retransmission: the first call is the one its reply answers */
		return;
	}
	pend *const e = add_pend(d, k1, k2, t);
	if (!e) {
		if (!d->err)
			d->err = rp_fail(d->errbuf, RP_E_NOMEM, "out of memory");
		return;
	}
	/* A client is its address (and uid, when the trace prints it): as the packet decoder makes them. */
	rp_conn conn = { .id = (k1 ^ (k2 >> 32) * 0x9e3779b97f4a7c15ull) | 1, .l4 = r->udp ? RP_L4_UDP : RP_L4_TCP };
	conn.addr[0].family = conn.addr[1].family = 4;
	for (int i = 0; i < 4; i++) {
		conn.addr[0].a[i] = (uint8_t)(r->src_ip >> (24 - 8 * i));
		conn.addr[1].a[i] = (uint8_t)(r->dst_ip >> (24 - 8 * i));
	}
	conn.port[0] = r->src_port;
	conn.port[1] = r->dst_port;
	const uint32_t client = rp__cap_client(d->cx, &conn, 0, r->have & NR_EUID ? r->euid : 0);
	d->c.server = (uint64_t)r->dst_ip << 16 | r->dst_port;
	rp_op op;
	if (rp__nd_call_op(&d->c, r, client, rp__cap_time(d->cx, t), &op, &e->p))
		e->p.slot = rp__cap_reserve(d->cx, &op);
}

static void on_reply(rp_nfsdump *d, const nd_rec *r, uint64_t t)
{
	d->st.replies++;
	uint64_t k1, k2;
	keys(r->dst_ip, r->dst_port, r->src_ip, r->src_port, r->xid, &k1, &k2);
	pend *const e = find(d, k1, k2);
	if (!e || e->p.proc != r->proc) {
		d->st.orphan_replies++;
		return;
	}
	d->st.paired++;
	rp_op *const op = rp__cap_slot(d->cx, e->p.slot);
	if (e->p.slot != RP_SLOT_NONE && !op)
		d->st.late_replies++;
	d->c.server = (uint64_t)r->src_ip << 16 | r->src_port;
	if (e->p.slot != RP_SLOT_NONE || e->p.proc != ND_NULL)
		rp__nd_reply(&d->c, r, &e->p, op, rp__cap_time(d->cx, t));
	rp__cap_done(d->cx, e->p.slot);
	unlink_pend(d, e);
}

int rp_nfsdump_line(rp_nfsdump *d, const char *line, size_t len)
{
	if (d->err)
		return d->err;
	d->st.lines++;
	d->st.bytes += len + 1;
	if (len > RP_NFSDUMP_LINE_MAX) {
		d->st.long_lines++;
		return 0;
	}
	if (memchr(line, '\0', len)) {
		d->st.nul_lines++;
		return 0;
	}
	nd_rec *const r = &d->rec;
	const int rc = rp__nd_parse(line, len, r);
	if (rc < 0) {
		d->st.comments++;
		return 0;
	}
	if (rc == 0) {
		d->st.garbage++;
		return 0;
	}
	d->st.bad_values += r->bad_values;
	d->st.absurd += r->absurd;
	d->st.v2_times += r->v2_time;
	const uint64_t t = line_time(d, r->ts_ns);
	rp__capctx_frame(d->cx, t, (uint32_t)len);
	while (d->oldest && t - d->oldest->t_call > d->late_ns)
		give_up(d);
	if (r->call)
		on_call(d, r, t);
	else
		on_reply(d, r, t);
	const char *detail = NULL;
	const int e = rp__capctx_error(d->cx, &detail);
	if (e && !d->err) {
		d->err = e;
		snprintf(d->errbuf, sizeof(d->errbuf), "%s", detail);
	}
	return d->err;
}

int rp_nfsdump_finish(rp_nfsdump *d)
{
	while (d->oldest)
		give_up(d);
	if (d->err)
		return d->err;
	const int rc = rp__capctx_finish(d->cx);
	if (rc < 0) {
		const char *detail = NULL;
		(void)rp__capctx_error(d->cx, &detail);
		d->err = rc;
		snprintf(d->errbuf, sizeof(d->errbuf), "%s", detail ? detail : rp_strerror(rc));
	}
	d->st.ops = d->cst.ops;
	return d->err;
}
