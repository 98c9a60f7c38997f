/* Slicing a trace: client, op, subtree and time filters, time scaling, handle tracking (converters/filter.h). */
#include "converters/filter.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/path.h"

const char *rp_filter_reason_name(rp_filter_reason r)
{
	static const char *const names[RP_FILTER__REASONS] = { "clients", "time", "ops", "path", "handle" };
	return (unsigned)r < RP_FILTER__REASONS ? names[r] : "?";
}

/* ---- list parsers -------------------------------------------------------- */

/* A decimal client id in s[0..len): at most 2^32-1, no sign, no spaces. */
static bool parse_u32(const char *s, size_t len, uint32_t *out)
{
	if (len == 0 || len > 10)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

int rp_filter_parse_clients(const char *s, rp_filter_range *out, size_t cap, size_t *n, char *errbuf)
{
	*n = 0;
	const size_t total = strnlen(s, RP_FILTER_LIST_MAX + 1);
	if (total == 0)
		return rp_fail(errbuf, RP_E_INVAL, "--clients: an empty list");
	if (total > RP_FILTER_LIST_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "--clients: a list longer than %u bytes", RP_FILTER_LIST_MAX);
	for (const char *p = s;;) {
		const char *const comma = memchr(p, ',', total - (size_t)(p - s));
		const size_t len = comma ? (size_t)(comma - p) : total - (size_t)(p - s);
		const char *const dash = memchr(p, '-', len);
		rp_filter_range r;
		const bool ok = dash ? parse_u32(p, (size_t)(dash - p), &r.lo) &&
					       parse_u32(dash + 1, len - (size_t)(dash - p) - 1, &r.hi)
				     : parse_u32(p, len, &r.lo);
		if (!dash)
			r.hi = r.lo;
		if (!ok)
			return rp_fail(errbuf, RP_E_INVAL,
				       "--clients: \"%.*s\" is no client id or range (ids 0-4294967295, e.g. 1,3-5)",
				       (int)(len > 64 ? 64 : len), p);
		if (r.lo > r.hi)
			return rp_fail(errbuf, RP_E_INVAL, "--clients: range %" PRIu32 "-%" PRIu32 " ends before it starts",
				       r.lo, r.hi);
		if (*n == cap)
			return rp_fail(errbuf, RP_E_LIMIT, "--clients: more than %zu ranges", cap);
		out[(*n)++] = r;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int rp_filter_parse_ops(const char *s, uint64_t *mask, char *errbuf)
{
	_Static_assert(RP_OP__COUNT <= 64, "the op mask is 64 bits");
	*mask = 0;
	const size_t total = strnlen(s, RP_FILTER_LIST_MAX + 1);
	if (total > RP_FILTER_LIST_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "--ops: a list longer than %u bytes", RP_FILTER_LIST_MAX);
	for (const char *p = s;;) {
		const char *const comma = memchr(p, ',', total - (size_t)(p - s));
		const size_t len = comma ? (size_t)(comma - p) : total - (size_t)(p - s);
		const int op = len ? rp_op_from_name(p, len) : -1;
		if (op < 0) {
			/* Say every valid name: the user is one look away from the right spelling. */
			char valid[512];
			size_t used = 0;
			for (unsigned i = 0; i < RP_OP__COUNT && used < sizeof(valid); i++) {
				const int k = snprintf(valid + used, sizeof(valid) - used, "%s%s", i ? "," : "", rp_op_name(i));
				used += k > 0 ? (size_t)k : 0;
			}
			return rp_fail(errbuf, RP_E_INVAL, "--ops: unknown op \"%.*s\"; the ops are %s",
				       (int)(len > 64 ? 64 : len), p, valid);
		}
		*mask |= 1ull << op;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* ---- a set of (client, handle) with a kept flag --------------------------- */

/* A handle's open: dropped, kept, held (wanted but for --ops: kept once a kept op uses it), kept because one did. */
enum { H_DROPPED = 0, H_KEPT = 1, H_HELD = 2, H_NEEDED = 3 };

typedef struct hslot {
	uint64_t handle; /* 0: empty (handle 0 is "none", never tracked) */
	uint64_t seq;    /* H_HELD: the held open's place in the queue */
	uint32_t client;
	uint8_t kept;    /* H_*: whether its open reached (or may reach) the output */
	uint8_t dead;    /* closed: a tombstone, so probing goes on past it */
} hslot;

typedef struct hset {
	hslot *s;
	size_t cap, used; /* used counts live and dead slots */
} hset;

/* A set grows to this many entries at most: a trace with more handles open (or clients) at once is corrupt. */
#define HSET_MAX (1u << 26)

static size_t hmix(uint32_t client, uint64_t handle)
{
	uint64_t x = handle ^ ((uint64_t)client << 32 | client) * 0x9e3779b97f4a7c15ull;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(x ^ x >> 29);
}

static hslot *hfind(const hset *h, uint32_t client, uint64_t handle)
{
	if (!h->cap)
		return NULL;
	for (size_t i = hmix(client, handle) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
		hslot *const s = &h->s[i];
		if (s->handle == 0)
			return NULL;
		if (!s->dead && s->handle == handle && s->client == client)
			return s;
	}
}

static int hput(hset *h, uint32_t client, uint64_t handle, uint8_t kept, uint64_t seq);

static int hgrow(hset *h)
{
	/* Sized by the live entries: closed handles' tombstones go, so open/close churn does not grow it. */
	size_t live = 0;
	for (size_t i = 0; i < h->cap; i++)
		live += h->s[i].handle && !h->s[i].dead;
	size_t cap = 1024;
	while ((live + 1) * 2 > cap)
		cap *= 2;
	if (cap > HSET_MAX)
		return RP_E_LIMIT;
	hset n = { .s = calloc(cap, sizeof(hslot)), .cap = cap };
	if (!n.s)
		return RP_E_NOMEM;
	for (size_t i = 0; i < h->cap; i++)
		if (h->s[i].handle && !h->s[i].dead)
			(void)hput(&n, h->s[i].client, h->s[i].handle, h->s[i].kept, h->s[i].seq);
	free(h->s);
	*h = n;
	return 0;
}

static int hput(hset *h, uint32_t client, uint64_t handle, uint8_t kept, uint64_t seq)
{
	hslot *const old = hfind(h, client, handle);
	if (old) {
		old->kept = kept;
		old->seq = seq;
		return 0;
	}
	if ((h->used + 1) * 4 > h->cap * 3) {
		const int rc = hgrow(h);
		if (rc < 0)
			return rc;
	}
	for (size_t i = hmix(client, handle) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
		hslot *const s = &h->s[i];
		if (s->handle == 0) {
			*s = (hslot){ .handle = handle, .seq = seq, .client = client, .kept = kept };
			h->used++;
			return 0;
		}
	}
}

static void hdel(hset *h, uint32_t client, uint64_t handle)
{
	hslot *const s = hfind(h, client, handle);
	if (s)
		s->dead = 1;
}

/* ---- the filter sink ----------------------------------------------------- */

/*
 * The ops held back while an open waits to learn whether a kept op needs it
 * (--ops without open: read,write keeps the opens and closes of the handles
 * they use).  Kept ops after a held open wait behind it, so the output stays
 * in start order; past QUEUE_MAX the oldest held open is kept, needed or not
 * (a handle open for the whole trace costs one open, not the memory of the
 * trace).
 */
#define QUEUE_MAX 65536u

enum { Q_READY, Q_HELD, Q_GONE };

typedef struct qent {
	rp_op op;   /* with the input's string ids */
	uint8_t st; /* Q_* */
} qent;

struct rp_filter {
	rp_sink base;
	qent *q;            /* the held ops: q[q_head, q_len) are seq q_seq, ... */
	size_t q_head, q_len, q_cap;
	uint64_t q_seq;
	bool need;          /* --ops leaves out opens: keep those the kept ops use */
	rp_sink *inner;
	rp_filter_opts o;
	rp_filter_range *clients;
	char *prefix;        /* normalised; "" keeps every path */
	size_t prefix_len;
	char *pbuf;          /* a path normalised for comparing */
	rp_strtab *in, *out; /* the input's ids, the output's */
	hset handles;
	hset clients_kept;   /* the clients of kept ops, as (0, client + 1) */
	rp_filter_stats st;
	bool any_kept;
};

static int pass_err(rp_filter *f, int rc)
{
	memcpy(f->base.errbuf, f->inner->errbuf, sizeof(f->base.errbuf));
	return rc;
}

static int fl_meta(rp_sink *s, const rp_trace_meta *m)
{
	rp_filter *const f = (rp_filter *)s;
	const int rc = f->inner->meta(f->inner, m);
	return rc < 0 ? pass_err(f, rc) : 0;
}

static int fl_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_filter *const f = (rp_filter *)s;
	const int64_t got = rp_strtab_append(f->in, str, len);
	if (got < 0)
		return rp_fail(s->errbuf, (int)got, "string %u: %s", id, rp_strerror((int)got));
	if ((uint64_t)got != id)
		return rp_fail(s->errbuf, RP_E_STATE, "string id %u out of order (expected %lld)", id, (long long)got);
	return 0;
}

static bool client_wanted(const rp_filter *f, uint32_t c)
{
	if (!f->clients)
		return true;
	for (size_t i = 0; i < f->o.n_clients; i++)
		if (c >= f->clients[i].lo && c <= f->clients[i].hi)
			return true;
	return false;
}

/* Path id under the prefix, component-wise (/a/b keeps /a/b and /a/b/c, not /a/bc). */
static bool under(rp_filter *f, uint32_t id)
{
	uint32_t len = 0;
	const char *const s = id ? rp_strtab_get(f->in, id, &len) : NULL;
	if (!s)
		return false;
	const int n = rp_path_norm(s, len, f->pbuf, RP_STR_MAX + 1);
	if (n < 0)
		return false; /* climbs above the top: under no prefix */
	if ((size_t)n < f->prefix_len || memcmp(f->pbuf, f->prefix, f->prefix_len) != 0)
		return false;
	return (size_t)n == f->prefix_len || f->prefix_len == 0 || f->pbuf[f->prefix_len] == '/';
}

/* The handle h of op's client: 1 usable (its open kept or held), 0 its open was dropped (or is before the window), -1 not tracked. */
static int handle_state(const rp_filter *f, uint32_t client, uint64_t h)
{
	const hslot *const s = hfind(&f->handles, client, h);
	if (s)
		return s->kept != H_DROPPED;
	/* Never opened in what we saw: before the window when there is one, else the input has it so */
	return f->o.window && f->o.from_ns > 0 ? 0 : -1;
}

/* Handles the op uses (not the ones it creates). */
static void used_handles(const rp_op *op, uint64_t *h1, uint64_t *h2)
{
	*h1 = op->op == RP_OP_OPEN ? 0 : op->handle;
	*h2 = op->op == RP_OP_COPY ? op->handle2 : 0;
}

/* Why op is dropped, or RP_FILTER__REASONS to keep it; by_op false: as if --ops kept every op. */
static rp_filter_reason judge(rp_filter *f, const rp_op *op, bool by_op)
{
	if (!client_wanted(f, op->client))
		return RP_FILTER_CLIENT;
	if (f->o.window && (op->t_start < f->o.from_ns || op->t_start >= f->o.to_ns))
		return RP_FILTER_TIME;
	if (by_op && f->o.ops && !(f->o.ops >> op->op & 1))
		return RP_FILTER_OP;
	uint64_t h1, h2;
	used_handles(op, &h1, &h2);
	const int s1 = h1 ? handle_state(f, op->client, h1) : -1, s2 = h2 ? handle_state(f, op->client, h2) : -1;
	/* An op that names its path goes on without the handle: replay issues it by path (as NFSv3's, docs/op-model.md) */
	if ((s1 == 0 || s2 == 0) && !op->path)
		return RP_FILTER_HANDLE;
	if (f->prefix) {
		const bool structural = op->op == RP_OP_FORK || op->op == RP_OP_WAIT || op->op == RP_OP_SLEEP;
		if (!structural && !(s1 == 1 || s2 == 1) && !under(f, op->path) && !under(f, op->path2))
			return RP_FILTER_PATH;
	}
	return RP_FILTER__REASONS;
}

/* The handle an op makes (an open's, a dup's new one), or 0. */
static uint64_t made_handle(const rp_op *op)
{
	return op->op == RP_OP_OPEN ? op->handle : op->op == RP_OP_DUP ? op->handle2 : 0;
}

/* What a kept, held or dropped op does to the handle table (kept: H_*; seq: a held op's). */
static int track(rp_filter *f, const rp_op *op, uint8_t kept, uint64_t seq)
{
	int rc = 0;
	if (made_handle(op))
		rc = hput(&f->handles, op->client, made_handle(op), kept, seq);
	else if (op->op == RP_OP_CLOSE && op->handle)
		hdel(&f->handles, op->client, op->handle);
	else if (op->op == RP_OP_FORK && kept == H_KEPT && op->result <= UINT32_MAX) {
		/* The child starts with the parent's handles (shared or copied: either way it may use them). */
		const uint32_t child = (uint32_t)op->result;
		size_t n = 0;
		for (size_t i = 0; i < f->handles.cap; i++)
			n += f->handles.s[i].handle && !f->handles.s[i].dead && f->handles.s[i].client == op->client;
		/* Copied out first: inserting may grow the table under the loop. */
		hslot *const inherit = n ? malloc(n * sizeof(*inherit)) : NULL;
		if (n && !inherit)
			return RP_E_NOMEM;
		size_t k = 0;
		for (size_t i = 0; i < f->handles.cap && k < n; i++) {
			const hslot *const s = &f->handles.s[i];
			if (s->handle && !s->dead && s->client == op->client)
				inherit[k++] = *s;
		}
		for (size_t i = 0; i < k && rc == 0; i++)
			rc = hput(&f->handles, child, inherit[i].handle, inherit[i].kept, inherit[i].seq);
		free(inherit);
	}
	return rc;
}

/* t * scale, rounded; false if it does not fit below RP_TIME_UNKNOWN. */
static bool scale_time(double scale, uint64_t t, uint64_t *out)
{
	const long double v = (long double)t * (long double)scale + 0.5L; /* rounded: the cast truncates */
	if (!(v < (long double)RP_TIME_UNKNOWN))
		return false;
	*out = (uint64_t)v;
	return true;
}

static int64_t remap(rp_filter *f, uint32_t id)
{
	if (!id)
		return 0;
	uint32_t len = 0;
	const char *const s = rp_strtab_get(f->in, id, &len);
	if (!s)
		return rp_fail(f->base.errbuf, RP_E_CORRUPT, "string id %u used before it was defined", id);
	const int64_t r = rp_sink_intern(f->inner, f->out, s, len);
	return r < 0 ? pass_err(f, (int)r) : r;
}

/* Count c among the kept clients, once: 0, or an rp error when the set cannot grow. */
static int count_client(rp_filter *f, uint32_t c)
{
	if (hfind(&f->clients_kept, 0, (uint64_t)c + 1))
		return 0;
	f->st.clients++;
	return hput(&f->clients_kept, 0, (uint64_t)c + 1, true, 0);
}

/* One kept op to the output: times scaled, strings renumbered, counted. */
static int emit(rp_filter *f, const rp_op *in)
{
	rp_sink *const s = &f->base;
	int rc;
	rp_op op = *in;
	if (f->o.scale != 0 && f->o.scale != 1) {
		const bool ok = scale_time(f->o.scale, in->t_start, &op.t_start) &&
				(in->t_end == RP_TIME_UNKNOWN || scale_time(f->o.scale, in->t_end, &op.t_end)) &&
				(in->op != RP_OP_SLEEP || scale_time(f->o.scale, in->length, &op.length));
		if (!ok)
			return rp_fail(s->errbuf, RP_E_RANGE, "op %" PRIu64 ": its time %" PRIu64 " ns times %g overflows",
				       f->st.seen, in->t_end != RP_TIME_UNKNOWN ? in->t_end : in->t_start, f->o.scale);
	}
	const int64_t p1 = remap(f, in->path);
	const int64_t p2 = p1 < 0 ? p1 : remap(f, in->path2);
	if (p2 < 0)
		return (int)p2;
	op.path = (uint32_t)p1;
	op.path2 = (uint32_t)p2;
	rc = f->inner->op(f->inner, &op);
	if (rc < 0)
		return pass_err(f, rc);
	f->st.kept++;
	if ((rc = count_client(f, op.client)) < 0)
		return rp_fail(s->errbuf, rc, "op %" PRIu64 ": %s", f->st.seen, rp_strerror(rc));
	if (!f->any_kept || op.t_start < f->st.t_first)
		f->st.t_first = op.t_start;
	const uint64_t end = op.t_end != RP_TIME_UNKNOWN && op.t_end > op.t_start ? op.t_end : op.t_start;
	if (!f->any_kept || end > f->st.t_last)
		f->st.t_last = end;
	f->any_kept = true;
	return 0;
}

/* ---- held opens (--ops without open) ---------------------------------------- */

static qent *q_at(rp_filter *f, uint64_t seq)
{
	return seq >= f->q_seq && seq - f->q_seq < f->q_len - f->q_head ? &f->q[f->q_head + (seq - f->q_seq)] : NULL;
}

/* Append op in state st; its seq in *seq. */
static int q_push(rp_filter *f, const rp_op *op, uint8_t st, uint64_t *seq)
{
	if (f->q_len == f->q_cap) {
		if (f->q_head) { /* the emitted part goes first */
			memmove(f->q, f->q + f->q_head, (f->q_len - f->q_head) * sizeof(*f->q));
			f->q_len -= f->q_head;
			f->q_head = 0;
		}
		if (f->q_len == f->q_cap) {
			const size_t cap = f->q_cap ? 2 * f->q_cap : 256;
			qent *const nq = realloc(f->q, cap * sizeof(*nq));
			if (!nq)
				return RP_E_NOMEM;
			f->q = nq;
			f->q_cap = cap;
		}
	}
	if (seq)
		*seq = f->q_seq + (f->q_len - f->q_head);
	f->q[f->q_len++] = (qent){ .op = *op, .st = st };
	return 0;
}

/* A held open is needed: it goes out in its place, and so does a held open of the handle it dups. */
static void need(rp_filter *f, hslot *h)
{
	for (int depth = 0; h && h->kept == H_HELD && depth < 64; depth++) {
		qent *const e = q_at(f, h->seq);
		h->kept = H_NEEDED;
		if (!e || e->st != Q_HELD)
			return;
		e->st = Q_READY;
		f->st.needed_opens++;
		h = e->op.op == RP_OP_DUP && e->op.handle ? hfind(&f->handles, e->op.client, e->op.handle) : NULL;
	}
}

/* The ops at the head that are decided, out; past QUEUE_MAX the oldest held open is taken as needed. */
static int q_flush(rp_filter *f)
{
	while (f->q_head < f->q_len) {
		qent *const e = &f->q[f->q_head];
		if (e->st == Q_HELD && f->q_len - f->q_head > QUEUE_MAX) {
			hslot *const h = hfind(&f->handles, e->op.client, made_handle(&e->op));
			if (h && h->kept == H_HELD && h->seq == f->q_seq) {
				need(f, h);
			} else { /* its handle was reused since: this open alone */
				e->st = Q_READY;
				f->st.needed_opens++;
			}
		}
		if (e->st == Q_HELD)
			break;
		if (e->st == Q_READY) {
			const int rc = emit(f, &e->op);
			if (rc < 0)
				return rc;
		}
		f->q_head++;
		f->q_seq++;
	}
	if (f->q_head == f->q_len)
		f->q_head = f->q_len = 0;
	return 0;
}

static int fl_op(rp_sink *s, const rp_op *in)
{
	rp_filter *const f = (rp_filter *)s;
	f->st.seen++;
	rp_filter_reason why = judge(f, in, true);
	uint8_t kept = why == RP_FILTER__REASONS ? H_KEPT : H_DROPPED;
	uint64_t seq = 0;
	int rc = 0;
	if (f->need && why == RP_FILTER_OP && made_handle(in) && judge(f, in, false) == RP_FILTER__REASONS) {
		kept = H_HELD; /* an open wanted but for --ops: kept if a kept op uses its handle */
		rc = q_push(f, in, Q_HELD, &seq);
	} else if (f->need && why == RP_FILTER_OP && in->op == RP_OP_CLOSE && in->handle) {
		hslot *const h = hfind(&f->handles, in->client, in->handle);
		if (h && h->kept == H_NEEDED) {
			why = RP_FILTER__REASONS; /* the close of an open kept for a kept op */
			kept = H_KEPT;
			f->st.needed_closes++;
		} else if (h && h->kept == H_HELD) {
			qent *const e = q_at(f, h->seq);
			if (e && e->st == Q_HELD) {
				e->st = Q_GONE; /* closed unused: the open goes with its close */
				f->st.dropped[RP_FILTER_OP]++;
			}
		}
	}
	if (kept == H_KEPT && f->need) {
		uint64_t h1, h2;
		used_handles(in, &h1, &h2);
		need(f, h1 ? hfind(&f->handles, in->client, h1) : NULL);
		need(f, h2 ? hfind(&f->handles, in->client, h2) : NULL);
	}
	if (rc == 0)
		rc = track(f, in, kept, seq);
	if (rc < 0)
		return rp_fail(s->errbuf, rc, "op %" PRIu64 ": %s handles open at once", f->st.seen,
			       rc == RP_E_LIMIT ? "too many" : "no memory for the");
	if (kept == H_DROPPED)
		f->st.dropped[why]++;
	if (kept != H_KEPT)
		return q_flush(f);
	if (f->q_head == f->q_len)
		return emit(f, in);
	if ((rc = q_push(f, in, Q_READY, NULL)) < 0)
		return rp_fail(s->errbuf, rc, "op %" PRIu64 ": out of memory", f->st.seen);
	return q_flush(f);
}

static int fl_finish(rp_sink *s)
{
	rp_filter *const f = (rp_filter *)s;
	/* Opens still held were never used by a kept op: they go. */
	for (size_t i = f->q_head; i < f->q_len; i++) {
		if (f->q[i].st == Q_HELD) {
			f->q[i].st = Q_GONE;
			f->st.dropped[RP_FILTER_OP]++;
		}
	}
	const int qrc = q_flush(f);
	if (qrc < 0)
		return qrc;
	f->st.strings = rp_strtab_count(f->out);
	const int rc = f->inner->finish(f->inner);
	return rc < 0 ? pass_err(f, rc) : 0;
}

int rp_filter_create(rp_filter **out, const rp_filter_opts *opts, rp_sink *inner, char *errbuf)
{
	*out = NULL;
	if (opts->scale != 0 && !(opts->scale >= RP_FILTER_SCALE_MIN && opts->scale <= RP_FILTER_SCALE_MAX))
		return rp_fail(errbuf, RP_E_INVAL, "--scale-time must be between %g and %g (got %g)", RP_FILTER_SCALE_MIN,
			       RP_FILTER_SCALE_MAX, opts->scale);
	if (opts->window && opts->to_ns <= opts->from_ns)
		return rp_fail(errbuf, RP_E_INVAL, "the time window ends before it starts");
	rp_filter *const f = calloc(1, sizeof(*f));
	if (!f)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	f->base = (rp_sink){ .meta = fl_meta, .string = fl_string, .op = fl_op, .finish = fl_finish };
	f->inner = inner;
	f->o = *opts;
	f->need = opts->ops && !(opts->ops >> RP_OP_OPEN & 1);
	f->in = rp_strtab_create();
	f->out = rp_strtab_create();
	bool ok = f->in && f->out;
	if (ok && opts->clients) {
		f->clients = malloc(opts->n_clients * sizeof(*f->clients) + 1);
		ok = f->clients != NULL;
		if (ok)
			memcpy(f->clients, opts->clients, opts->n_clients * sizeof(*f->clients));
	}
	if (ok && opts->prefix) {
		f->prefix = malloc(RP_STR_MAX + 1);
		f->pbuf = malloc(RP_STR_MAX + 1);
		ok = f->prefix && f->pbuf;
		const int n = ok ? rp_path_norm(opts->prefix, (uint32_t)strnlen(opts->prefix, RP_STR_MAX + 1), f->prefix,
						RP_STR_MAX + 1)
				 : 0;
		if (ok && n < 0) {
			rp_filter_destroy(f);
			return rp_fail(errbuf, RP_E_INVAL, "--path-prefix: %s",
				       n == -EXDEV ? "climbs above the top (..)" : "too long or holds a NUL");
		}
		f->prefix_len = (size_t)n;
	}
	if (!ok) {
		rp_filter_destroy(f);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	f->o.clients = NULL; /* ours is f->clients */
	f->o.prefix = NULL;
	*out = f;
	return 0;
}

rp_sink *rp_filter_sink(rp_filter *f)
{
	return &f->base;
}

const rp_filter_stats *rp_filter_get_stats(const rp_filter *f)
{
	return &f->st;
}

void rp_filter_destroy(rp_filter *f)
{
	if (!f)
		return;
	rp_strtab_destroy(f->in);
	rp_strtab_destroy(f->out);
	free(f->handles.s);
	free(f->q);
	free(f->clients_kept.s);
	free(f->clients);
	free(f->prefix);
	free(f->pbuf);
	free(f);
}
