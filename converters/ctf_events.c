/* One CTF event of the `reprise` provider -> rp_sysev, the start-time reordering, and the summary line (converters/ctf.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "converters/ctf.h"
#include "formats/error.h"
#include "formats/heap.h"

/* ---- decoding ---- */

#define KIND_NAME(e, n, name) [n] = name,
static const char *const kind_names[RP_SYSEV__MAX] = { RP_SYSEV_MAP(KIND_NAME) };
#undef KIND_NAME

unsigned rp_ctf_kind_by_name(const char *name, size_t len)
{
	for (unsigned i = 1; i < RP_SYSEV__MAX; i++)
		if (kind_names[i] && strlen(kind_names[i]) == len && memcmp(kind_names[i], name, len) == 0)
			return i;
	return 0;
}

static const char *const verdict_names[RP_CTF_VERDICTS] = {
	[RP_CTF_OK] = "decoded",
	[RP_CTF_NOT_OURS] = "other provider",
	[RP_CTF_UNKNOWN] = "unknown event",
	[RP_CTF_MISSING] = "missing field",
	[RP_CTF_WRONG_TYPE] = "field of the wrong type",
	[RP_CTF_RANGE] = "value out of range",
	[RP_CTF_TOO_LONG] = "path too long",
};

const char *rp_ctf_verdict_name(rp_ctf_verdict v)
{
	return (unsigned)v < RP_CTF_VERDICTS ? verdict_names[v] : "?";
}

static const rp_ctf_field *field(const rp_ctf_field *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].name && strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

/* An unsigned field up to max (a signed one that is not negative is taken too: a writer's choice of type). */
static rp_ctf_verdict get_u(const rp_ctf_field *f, size_t n, const char *name, uint64_t max, uint64_t *out)
{
	const rp_ctf_field *const x = field(f, n, name);
	if (!x)
		return RP_CTF_MISSING;
	if (x->kind == RP_CTF_UINT)
		*out = x->u;
	else if (x->kind == RP_CTF_SINT && x->s >= 0)
		*out = (uint64_t)x->s;
	else
		return x->kind == RP_CTF_SINT ? RP_CTF_RANGE : RP_CTF_WRONG_TYPE;
	return *out <= max ? RP_CTF_OK : RP_CTF_RANGE;
}

static rp_ctf_verdict get_s(const rp_ctf_field *f, size_t n, const char *name, int64_t *out)
{
	const rp_ctf_field *const x = field(f, n, name);
	if (!x)
		return RP_CTF_MISSING;
	if (x->kind == RP_CTF_SINT)
		*out = x->s;
	else if (x->kind == RP_CTF_UINT && x->u <= (uint64_t)INT64_MAX)
		*out = (int64_t)x->u;
	else
		return x->kind == RP_CTF_UINT ? RP_CTF_RANGE : RP_CTF_WRONG_TYPE;
	return RP_CTF_OK;
}

/* A path field: absent when empty, as in the rings (formats/sysev.h: an empty path is no path). */
static rp_ctf_verdict get_path(const rp_ctf_field *f, size_t n, const char *name, const char **p, uint32_t *plen)
{
	const rp_ctf_field *const x = field(f, n, name);
	if (!x)
		return RP_CTF_MISSING;
	if (x->kind != RP_CTF_STR || (!x->str && x->len))
		return RP_CTF_WRONG_TYPE;
	if (x->len > RP_SYSEV_PATH_MAX)
		return RP_CTF_TOO_LONG;
	*p = x->len ? x->str : NULL;
	*plen = (uint32_t)x->len;
	return RP_CTF_OK;
}

#define TRY(e)                                   \
	do {                                     \
		const rp_ctf_verdict v_ = (e);   \
		if (v_ != RP_CTF_OK)             \
			return v_;               \
	} while (0)

rp_ctf_verdict rp_ctf_decode(const char *name, const rp_ctf_field *f, size_t n, rp_sysev *ev)
{
	static const char prefix[] = "reprise:";
	if (!name || strncmp(name, prefix, sizeof(prefix) - 1) != 0)
		return RP_CTF_NOT_OURS;
	const char *const kind = name + sizeof(prefix) - 1;
	const unsigned nr = rp_ctf_kind_by_name(kind, strlen(kind));
	if (nr == 0)
		return RP_CTF_UNKNOWN;
	memset(ev, 0, sizeof(*ev));
	ev->nr = (uint16_t)nr;
	uint64_t u;
	TRY(get_u(f, n, "pid", UINT32_MAX, &u));
	ev->pid = (uint32_t)u;
	TRY(get_u(f, n, "tid", UINT32_MAX, &u));
	ev->tid = (uint32_t)u;
	TRY(get_s(f, n, "ret", &ev->ret));
	TRY(get_u(f, n, "t_start", UINT64_MAX, &ev->t_start));
	TRY(get_u(f, n, "t_end", UINT64_MAX, &ev->t_end));
	TRY(get_u(f, n, "flags", UINT16_MAX, &u));
	ev->flags = (uint16_t)u;
	static const char *const args[RP_SYSEV_ARGS] = { "a0", "a1", "a2", "a3", "a4", "a5" };
	for (size_t i = 0; i < RP_SYSEV_ARGS; i++)
		TRY(get_s(f, n, args[i], &ev->a[i]));
	TRY(get_path(f, n, "p0", &ev->p[0], &ev->plen[0]));
	TRY(get_path(f, n, "p1", &ev->p[1], &ev->plen[1]));
	return RP_CTF_OK;
}

/* ---- start-time order ---- */

typedef struct held {
	rp_sysev ev; /* its paths point into mem */
	uint64_t seq; /* arrival: ties in t_start keep the trace's order */
	char *mem;
	size_t bytes;
} held;

struct rp_ctf_order {
	rp_ctf_emit_fn fn;
	void *ctx;
	held *heap;
	size_t n, cap;
	uint32_t max_events;
	uint64_t max_bytes, bytes;
	uint64_t seq;
	uint64_t max_lag;   /* the longest emission-minus-start seen */
	uint64_t last_out;  /* t_start of the last event released */
	bool any_out;
	uint64_t late;
};

int rp_ctf_order_create(rp_ctf_order **out, rp_ctf_emit_fn fn, void *ctx, uint32_t max_events, uint64_t max_bytes)
{
	rp_ctf_order *const o = calloc(1, sizeof(*o));
	if (!o)
		return RP_E_NOMEM;
	o->fn = fn;
	o->ctx = ctx;
	o->max_events = max_events ? max_events : RP_CTF_HOLD_MAX;
	o->max_bytes = max_bytes ? max_bytes : RP_CTF_HOLD_BYTES;
	*out = o;
	return 0;
}

void rp_ctf_order_destroy(rp_ctf_order *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++)
		free(o->heap[i].mem);
	free(o->heap);
	free(o);
}

uint64_t rp_ctf_order_late(const rp_ctf_order *o)
{
	return o->late;
}

static bool before(const held *a, const held *b)
{
	return a->ev.t_start != b->ev.t_start ? a->ev.t_start < b->ev.t_start : a->seq < b->seq;
}

RP_HEAP_DEFINE(held_heap, held, before)

/* The earliest held event to fn. */
static int release_one(rp_ctf_order *o)
{
	held top = held_heap_pop(o->heap, &o->n);
	o->bytes -= top.bytes;
	if (o->any_out && top.ev.t_start < o->last_out)
		o->late++;
	else
		o->last_out = top.ev.t_start;
	o->any_out = true;
	const int rc = o->fn(o->ctx, &top.ev);
	free(top.mem);
	return rc;
}

int rp_ctf_order_push(rp_ctf_order *o, const rp_sysev *ev, uint64_t now_ns)
{
	const uint64_t lag = now_ns > ev->t_start ? now_ns - ev->t_start : 0;
	if (lag > o->max_lag)
		o->max_lag = lag;
	const size_t bytes = (size_t)ev->plen[0] + ev->plen[1];
	/* Room first: the limits hold for what is held, this event included. */
	while (o->n > 0 && (o->n >= o->max_events || o->bytes + bytes > o->max_bytes)) {
		const int rc = release_one(o);
		if (rc < 0)
			return rc;
	}
	if (o->n == o->cap) {
		const size_t cap = o->cap ? o->cap * 2 : 256;
		held *const h = realloc(o->heap, cap * sizeof(*h));
		if (!h)
			return RP_E_NOMEM;
		o->heap = h;
		o->cap = cap;
	}
	held x = { .ev = *ev, .seq = o->seq++, .bytes = bytes };
	if (bytes) {
		x.mem = malloc(bytes);
		if (!x.mem)
			return RP_E_NOMEM;
	}
	size_t off = 0;
	for (int i = 0; i < 2; i++) {
		if (ev->p[i] && ev->plen[i]) {
			memcpy(x.mem + off, ev->p[i], ev->plen[i]);
			x.ev.p[i] = x.mem + off;
			off += ev->plen[i];
		} else if (ev->p[i]) {
			x.ev.p[i] = ""; /* present and empty */
		}
	}
	held_heap_push(o->heap, &o->n, x);
	o->bytes += bytes;
	/* Every later event started at or after now - max_lag, unless it lasts longer than any so far. */
	const uint64_t horizon = now_ns > o->max_lag ? now_ns - o->max_lag : 0;
	while (o->n > 0 && o->heap[0].ev.t_start < horizon) {
		const int rc = release_one(o);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int rp_ctf_order_flush(rp_ctf_order *o)
{
	while (o->n > 0) {
		const int rc = release_one(o);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the summary line ---- */

__attribute__((format(printf, 4, 5))) static void addf(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
	if (*at >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	const int n = vsnprintf(buf + *at, size - *at, fmt, ap);
	va_end(ap);
	*at += n > 0 ? (size_t)n : 0;
}

void rp_ctf_summary(const rp_ctf_stats *st, const rp_sysmodel_stats *ms, char *buf, size_t size)
{
	if (!size)
		return;
	size_t at = 0;
	buf[0] = '\0';
	addf(buf, size, &at, "ctf: %" PRIu64 " events from %" PRIu64 " trace%s", st->events, st->traces,
	     st->traces == 1 ? "" : "s");
	if (ms)
		addf(buf, size, &at, " -> %" PRIu64 " ops, %" PRIu64 " processes, %" PRIu64 " threads", ms->ops, ms->processes,
		     ms->threads);
	addf(buf, size, &at, "; other events %" PRIu64 ", late %" PRIu64, st->other, st->late);
	if (st->discarded || st->discarded_packets)
		addf(buf, size, &at, "; discarded by LTTng %" PRIu64 " events, %" PRIu64 " packets", st->discarded,
		     st->discarded_packets);
	if (st->bad) {
		addf(buf, size, &at, "; bad events %" PRIu64 " (", st->bad);
		bool first = true;
		for (unsigned v = RP_CTF_UNKNOWN; v < RP_CTF_VERDICTS; v++)
			if (st->by_verdict[v]) {
				addf(buf, size, &at, "%s%s %" PRIu64, first ? "" : ", ", verdict_names[v], st->by_verdict[v]);
				first = false;
			}
		addf(buf, size, &at, ")");
	}
	if (ms) {
		const struct {
			const char *name;
			uint64_t n;
		} notes[] = {
			{ "not files", ms->nonfile },     { "filtered", ms->filtered },   { "unknown fds", ms->unknown_fd },
			{ "cut paths", ms->cut_paths },   { "lost", ms->lost },           { "untraced programs", ms->untraced },
			{ "unfinished calls", ms->noend }, { "out of order", ms->late },
		};
		for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
			if (notes[i].n)
				addf(buf, size, &at, "; %s %" PRIu64, notes[i].name, notes[i].n);
	}
	if (at >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}
