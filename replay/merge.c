/* Results packed as little-endian bytes, and the shares of one run merged exactly (replay/merge.h, docs/mpi.md). */
#include "replay/merge.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"
#include "replay/client.h"
#include "replay/engine.h"
#include "replay/stats.h"
#include "replay/verdict.h"

static const uint8_t magic[4] = { 'R', 'P', 'R', 'W' };

/* ---- Packing ---------------------------------------------------------------------------- */

typedef struct wbuf {
	uint8_t *p;
	size_t n, cap;
	bool oom;
} wbuf;

static void put(wbuf *b, const void *src, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n)
			cap *= 2;
		uint8_t *const p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, src, n);
	b->n += n;
}

static void u8(wbuf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void u16(wbuf *b, uint16_t v)
{
	const uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	put(b, x, 2);
}

static void u32(wbuf *b, uint32_t v)
{
	const uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(b, x, 4);
}

static void u64(wbuf *b, uint64_t v)
{
	u32(b, (uint32_t)v);
	u32(b, (uint32_t)(v >> 32));
}

static void f64(wbuf *b, double v)
{
	uint64_t x;
	memcpy(&x, &v, sizeof(x));
	u64(b, x);
}

static void str(wbuf *b, const char *s)
{
	const size_t n = s ? strlen(s) : 0;
	u32(b, (uint32_t)n);
	put(b, s, n);
}

/* count, sum, min, max, then the buckets that hold anything as (index, count) pairs. */
static void hist(wbuf *b, const rp_hist *h)
{
	u8(b, h != NULL);
	if (!h)
		return;
	u64(b, h->count);
	u64(b, h->sum);
	u64(b, h->min);
	u64(b, h->max);
	uint32_t used = 0;
	for (unsigned i = 0; i < RP_HIST_BUCKETS; i++)
		used += h->bucket[i] != 0;
	u32(b, used);
	for (unsigned i = 0; i < RP_HIST_BUCKETS; i++)
		if (h->bucket[i]) {
			u16(b, (uint16_t)i);
			u64(b, h->bucket[i]);
		}
}

static void lat(wbuf *b, const rp_replay_lat *l)
{
	u64(b, l->count);
	const double v[] = { l->min_us, l->avg_us, l->stddev_us, l->max_us, l->p50_us,
			     l->p90_us, l->p95_us, l->p99_us, l->p999_us, l->p9999_us };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		f64(b, v[i]);
}

static void depth(wbuf *b, const rp_replay_depth *d)
{
	u32(b, d->max);
	u32(b, d->rec_max);
	f64(b, d->mean);
	f64(b, d->rec_mean);
	u32(b, d->bound);
	/* version 5: in flight at the target, as sums (the means follow from them) */
	u32(b, d->tgt_max);
	const uint64_t t[] = { d->tgt_requests, d->tgt_unmeasured, d->tgt_at_req_sum, d->tgt_area_ns, d->tgt_busy_ns };
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		u64(b, t[i]);
}

int rp_replay_results_pack(const rp_replay_results *res, uint8_t **out, size_t *n)
{
	wbuf b = { .oom = false };
	put(&b, magic, sizeof(magic));
	u32(&b, RP_MERGE_WIRE_VERSION);
	str(&b, res->backend);
	u32(&b, (uint32_t)res->timing);
	f64(&b, res->speed);
	u32(&b, res->clients);
	str(&b, rp_stop_name(res->stop));
	f64(&b, res->elapsed_s);
	f64(&b, res->warmup_s);
	const uint64_t counts[] = { res->ops, res->bytes, res->lag_count, res->warmup_ops, res->passes,
				    res->failures, res->mismatches, res->unknown_handles, res->skipped, res->escapes,
				    res->failures_expected, res->specials, res->unsupported };
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		u64(&b, counts[i]);
	u32(&b, RP_OP__COUNT);
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		const rp_replay_opstats *const o = &res->op[op];
		const uint64_t oc[] = { o->count, o->bytes, o->failures, o->failures_expected, o->mismatches,
					o->unknown_handles, o->skipped, o->escapes, o->specials, o->unsupported };
		for (size_t i = 0; i < sizeof(oc) / sizeof(oc[0]); i++)
			u64(&b, oc[i]);
		hist(&b, o->hist);
	}
	uint32_t used = 0;
	for (unsigned e = 0; e < RP_REPLAY_ERRNO_MAX; e++)
		used += res->errnos[e] != 0;
	u32(&b, used);
	for (unsigned e = 0; e < RP_REPLAY_ERRNO_MAX; e++)
		if (res->errnos[e]) {
			u32(&b, e);
			u64(&b, res->errnos[e]);
		}
	u32(&b, (uint32_t)res->n_series);
	for (size_t k = 0; k < res->n_series; k++) {
		const rp_replay_second *const s = &res->series[k];
		u64(&b, s->ops);
		u64(&b, s->bytes);
		u64(&b, s->failures);
		f64(&b, s->lag_max_us);
		u64(&b, s->lat_count);
		f64(&b, s->lat_avg_us);
		f64(&b, s->lat_max_us);
		u8(&b, s->warmup);
	}
	u32(&b, (uint32_t)res->n_samples);
	for (size_t k = 0; k < res->n_samples; k++) {
		const rp_replay_sample *const s = &res->samples[k];
		u32(&b, s->client);
		u32(&b, s->copy);
		u64(&b, s->index);
		u16(&b, s->op);
		u32(&b, (uint32_t)s->expected);
		u32(&b, (uint32_t)s->actual);
		u64(&b, s->count);
		u64(&b, s->handle);
		str(&b, s->path);
	}
	u64(&b, res->sample_others);
	u8(&b, res->prepare.ran);
	u64(&b, res->prepare.dirs);
	u64(&b, res->prepare.files);
	u64(&b, res->prepare.bytes);
	u64(&b, res->prepare.failures);
	u64(&b, res->prepare.written);
	u64(&b, res->prepare.kept);
	u64(&b, res->prepare.extended);
	u32(&b, (uint32_t)res->prepare.fill);
	f64(&b, res->prepare.seconds);
	u32(&b, (uint32_t)res->prepare.caches);
	u8(&b, res->final_sync.asked);
	u8(&b, res->final_sync.ran);
	u32(&b, (uint32_t)res->final_sync.err);
	u64(&b, res->final_sync.ns);
	u64(&b, (uint64_t)res->final_sync.dirty_start);
	u64(&b, (uint64_t)res->final_sync.dirty_end);
	str(&b, res->error);
	u32(&b, res->max_inflight);
	u8(&b, res->inflight_auto);
	u32(&b, res->inflight_cap);
	depth(&b, &res->depth);
	hist(&b, res->hist);
	hist(&b, res->lag_hist);
	hist(&b, res->tgt_hist); /* version 5 */
	u32(&b, (uint32_t)res->n_client_depth);
	for (size_t i = 0; i < res->n_client_depth; i++) {
		const rp_replay_client *const c = &res->client[i];
		u32(&b, c->trace_client);
		u32(&b, c->clone);
		str(&b, c->dir);
		str(&b, rp_stop_name(c->stop));
		const uint64_t cc[] = { c->ops, c->bytes, c->failures, c->mismatches, c->warmup_ops, c->passes, c->order_waits };
		for (size_t j = 0; j < sizeof(cc) / sizeof(cc[0]); j++)
			u64(&b, cc[j]);
		f64(&b, c->order_wait_us);
		lat(&b, &c->lat);
		lat(&b, &c->tgt_lat); /* version 5 */
		depth(&b, &res->client_depth[i]);
	}
	u32(&b, (uint32_t)res->order);
	u32(&b, res->order_resources);
	u64(&b, res->order_bytes);
	u64(&b, res->order_waits);
	f64(&b, res->order_wait_us);
	/* version 3: the schedule's times (each share's from the agreed start), the verdict's facts */
	const rp_replay_schedule *const sc = &res->schedule;
	u8(&b, sc->known);
	const double st[] = { sc->first_s, sc->last_s, sc->sched_first_s, sc->sched_last_s, sc->max_ratio, sc->max_lag_us };
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		f64(&b, st[i]);
	u32(&b, res->trace_clients);
	u64(&b, (uint64_t)res->target_entries);
	/* version 4: the backend's mode and what fell back, by reason */
	str(&b, res->backend_mode ? res->backend_mode : "");
	u64(&b, res->protocol_ops);
	u32(&b, (uint32_t)res->n_fallbacks);
	for (size_t i = 0; i < res->n_fallbacks; i++) {
		str(&b, res->fallbacks[i].reason);
		u64(&b, res->fallbacks[i].count);
	}
	u64(&b, res->own_requests); /* version 6 */
	str(&b, res->backend_mode_why ? res->backend_mode_why : ""); /* version 7 */
	u64(&b, res->lock_polls); /* version 8 */
	u64(&b, res->lock_releases);
	u64(&b, res->lock_expired);
	if (b.oom) {
		free(b.p);
		return RP_E_NOMEM;
	}
	*out = b.p;
	*n = b.n;
	return 0;
}

/* ---- Unpacking -------------------------------------------------------------------------- */

/* A client directory: "client8192" at most (engine.h's rp_client.dir). */
#define DIR_MAX 24
/* A backend's name, as its vtable gives it. */
#define BACKEND_MAX 32
/* A backend's mode ("exact") and a fallback's reason, as its report gives them. */
#define MODE_MAX 32
#define REASON_MAX 96
#define WHY_MAX 256

typedef struct part {
	bool added;
	rp_replay_results res;
	char backend[BACKEND_MAX];
	char mode[MODE_MAX];
	char why[WHY_MAX];
	char reasons[RP_REPLAY_FALLBACKS][REASON_MAX];
	char (*dirs)[DIR_MAX];
} part;

struct rp_replay_merge {
	size_t n_parts;
	part *parts;
	bool merged;
	rp_replay_results res;
	char (*dirs)[DIR_MAX];
};

static double rf64(rp_cur *c)
{
	const uint64_t x = rp_cur_le64(c);
	double v;
	memcpy(&v, &x, sizeof(v));
	return v;
}

/* A string of at most cap - 1 bytes into dst, NUL-terminated; a longer one is corruption. */
static void rstr(rp_cur *c, char *dst, size_t cap)
{
	const uint32_t n = rp_cur_le32(c);
	if (n >= cap) {
		c->err = true;
		dst[0] = '\0';
		return;
	}
	const uint8_t *const p = rp_cur_take(c, n);
	if (!p) {
		dst[0] = '\0';
		return;
	}
	memcpy(dst, p, n);
	dst[n] = '\0';
	if (memchr(dst, '\0', n))
		c->err = true;
}

static rp_stop rstop(rp_cur *c)
{
	char s[16];
	rstr(c, s, sizeof(s));
	const int k = rp_stop_from_name(s);
	if (k >= 0)
		return (rp_stop)k;
	c->err = true;
	return RP_STOP_ERROR;
}

/* A histogram (NULL when absent) whose buckets add up to its count, indexes increasing. */
static int rhist(rp_cur *c, const rp_hist **out)
{
	*out = NULL;
	if (!rp_cur_u8(c))
		return 0;
	rp_hist *const h = malloc(sizeof(*h));
	if (!h)
		return RP_E_NOMEM;
	rp__hist_init(h);
	h->count = rp_cur_le64(c);
	h->sum = rp_cur_le64(c);
	h->min = rp_cur_le64(c);
	h->max = rp_cur_le64(c);
	const uint32_t used = rp_cur_le32(c);
	if (used > RP_HIST_BUCKETS)
		c->err = true;
	uint64_t total = 0;
	int prev = -1;
	for (uint32_t k = 0; k < used && !c->err; k++) {
		const uint16_t i = rp_cur_le16(c);
		const uint64_t n = rp_cur_le64(c);
		if (i >= RP_HIST_BUCKETS || (int)i <= prev || n == 0 || __builtin_add_overflow(total, n, &total))
			c->err = true;
		else
			h->bucket[i] = n;
		prev = i;
	}
	if (total != h->count || (h->count && h->min > h->max))
		c->err = true;
	*out = h;
	return 0;
}

static void rlat(rp_cur *c, rp_replay_lat *l)
{
	l->count = rp_cur_le64(c);
	double *const v[] = { &l->min_us, &l->avg_us, &l->stddev_us, &l->max_us, &l->p50_us,
			      &l->p90_us, &l->p95_us, &l->p99_us, &l->p999_us, &l->p9999_us };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		*v[i] = rf64(c);
}

static void rdepth(rp_cur *c, rp_replay_depth *d)
{
	d->max = rp_cur_le32(c);
	d->rec_max = rp_cur_le32(c);
	d->mean = rf64(c);
	d->rec_mean = rf64(c);
	d->bound = rp_cur_le32(c);
	d->tgt_max = rp_cur_le32(c);
	uint64_t *const t[] = { &d->tgt_requests, &d->tgt_unmeasured, &d->tgt_at_req_sum, &d->tgt_area_ns, &d->tgt_busy_ns };
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		*t[i] = rp_cur_le64(c);
	rp__stats_tdepth_means(d);
}

static void part_free(part *p)
{
	rp__stats_free(&p->res);
	free(p->res.series);
	free(p->res.client);
	free(p->res.client_depth);
	free(p->dirs);
	memset(p, 0, sizeof(*p));
}

/* A count of entries that each take at least `each` bytes: more than the bytes left is corruption. */
static uint32_t rcount(rp_cur *c, size_t each, uint32_t max)
{
	const uint32_t n = rp_cur_le32(c);
	if (n > max || (size_t)n > rp_cur_left(c) / each)
		c->err = true;
	return c->err ? 0 : n;
}

static int unpack(part *p, rp_cur *c, char *errbuf)
{
	rp_replay_results *const res = &p->res;
	const uint8_t *const m = rp_cur_take(c, sizeof(magic));
	if (!m || memcmp(m, magic, sizeof(magic)) != 0)
		return rp_fail(errbuf, RP_E_CORRUPT, "not packed results");
	const uint32_t version = rp_cur_le32(c);
	if (version != RP_MERGE_WIRE_VERSION)
		return rp_fail(errbuf, RP_E_VERSION, "packed results of version %u (this build reads %u)", version,
			       RP_MERGE_WIRE_VERSION);
	rstr(c, p->backend, sizeof(p->backend));
	res->backend = p->backend;
	res->timing = (rp_timing)rp_cur_le32(c);
	if ((unsigned)res->timing > RP_TIMING_THINK)
		c->err = true;
	res->speed = rf64(c);
	res->clients = rp_cur_le32(c);
	res->stop = rstop(c);
	res->elapsed_s = rf64(c);
	res->warmup_s = rf64(c);
	uint64_t *const counts[] = { &res->ops, &res->bytes, &res->lag_count, &res->warmup_ops, &res->passes,
				     &res->failures, &res->mismatches, &res->unknown_handles, &res->skipped, &res->escapes,
				     &res->failures_expected, &res->specials, &res->unsupported };
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		*counts[i] = rp_cur_le64(c);
	if (rp_cur_le32(c) != RP_OP__COUNT && !c->err)
		return rp_fail(errbuf, RP_E_VERSION, "packed results with another set of op kinds");
	int rc = 0;
	for (unsigned op = 0; op < RP_OP__COUNT && !c->err && rc == 0; op++) {
		rp_replay_opstats *const o = &res->op[op];
		uint64_t *const oc[] = { &o->count, &o->bytes, &o->failures, &o->failures_expected, &o->mismatches,
					 &o->unknown_handles, &o->skipped, &o->escapes, &o->specials, &o->unsupported };
		for (size_t i = 0; i < sizeof(oc) / sizeof(oc[0]); i++)
			*oc[i] = rp_cur_le64(c);
		rc = rhist(c, &o->hist);
		if (o->hist)
			rp__stats_opstats_fill(o, o->hist);
	}
	if (rc < 0)
		return rp_fail(errbuf, rc, "out of memory");
	const uint32_t n_err = rcount(c, 12, RP_REPLAY_ERRNO_MAX);
	for (uint32_t k = 0; k < n_err; k++) {
		const uint32_t e = rp_cur_le32(c);
		const uint64_t v = rp_cur_le64(c);
		if (e >= RP_REPLAY_ERRNO_MAX)
			c->err = true;
		else
			res->errnos[e] = v;
	}
	/* A series longer than the largest run (1e8 s of --time plus its warm-up) is corruption. */
	const uint32_t n_series = rcount(c, 57, UINT32_MAX);
	res->series = calloc(n_series ? n_series : 1, sizeof(*res->series));
	if (!res->series)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	res->n_series = n_series;
	for (uint32_t k = 0; k < n_series; k++) {
		rp_replay_second *const s = &res->series[k];
		s->ops = rp_cur_le64(c);
		s->bytes = rp_cur_le64(c);
		s->failures = rp_cur_le64(c);
		s->lag_max_us = rf64(c);
		s->lat_count = rp_cur_le64(c);
		s->lat_avg_us = rf64(c);
		s->lat_max_us = rf64(c);
		s->warmup = rp_cur_u8(c) != 0;
	}
	res->n_samples = rcount(c, 46, RP_REPLAY_SAMPLES);
	for (size_t k = 0; k < res->n_samples; k++) {
		rp_replay_sample *const s = &res->samples[k];
		s->client = rp_cur_le32(c);
		s->copy = rp_cur_le32(c);
		s->index = rp_cur_le64(c);
		s->op = rp_cur_le16(c);
		s->expected = (int32_t)rp_cur_le32(c);
		s->actual = (int32_t)rp_cur_le32(c);
		s->count = rp_cur_le64(c);
		s->handle = rp_cur_le64(c);
		rstr(c, s->path, sizeof(s->path));
	}
	res->sample_others = rp_cur_le64(c);
	res->prepare.ran = rp_cur_u8(c) != 0;
	res->prepare.dirs = rp_cur_le64(c);
	res->prepare.files = rp_cur_le64(c);
	res->prepare.bytes = rp_cur_le64(c);
	res->prepare.failures = rp_cur_le64(c);
	res->prepare.written = rp_cur_le64(c);
	res->prepare.kept = rp_cur_le64(c);
	res->prepare.extended = rp_cur_le64(c);
	res->prepare.fill = (rp_prepare_fill)rp_cur_le32(c);
	res->prepare.seconds = rf64(c);
	res->prepare.caches = (int)rp_cur_le32(c);
	res->final_sync.asked = rp_cur_u8(c) != 0;
	res->final_sync.ran = rp_cur_u8(c) != 0;
	res->final_sync.err = (int)rp_cur_le32(c);
	res->final_sync.ns = rp_cur_le64(c);
	res->final_sync.dirty_start = (int64_t)rp_cur_le64(c);
	res->final_sync.dirty_end = (int64_t)rp_cur_le64(c);
	rstr(c, res->error, sizeof(res->error));
	res->max_inflight = rp_cur_le32(c);
	res->inflight_auto = rp_cur_u8(c) != 0;
	res->inflight_cap = rp_cur_le32(c);
	rdepth(c, &res->depth);
	if ((rc = rhist(c, &res->hist)) < 0 || (rc = rhist(c, &res->lag_hist)) < 0 || (rc = rhist(c, &res->tgt_hist)) < 0)
		return rp_fail(errbuf, rc, "out of memory");
	rp__stats_lat_fill(&res->lat, res->hist);
	rp__stats_lat_fill(&res->tgt_lat, res->tgt_hist);
	const uint32_t n_clients = rcount(c, 170, RP_REPLAY_CLIENTS_MAX);
	res->client = calloc(n_clients ? n_clients : 1, sizeof(*res->client));
	res->client_depth = calloc(n_clients ? n_clients : 1, sizeof(*res->client_depth));
	p->dirs = calloc(n_clients ? n_clients : 1, sizeof(*p->dirs));
	if (!res->client || !res->client_depth || !p->dirs)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	res->n_client_depth = n_clients;
	for (uint32_t i = 0; i < n_clients; i++) {
		rp_replay_client *const cl = &res->client[i];
		cl->trace_client = rp_cur_le32(c);
		cl->clone = rp_cur_le32(c);
		rstr(c, p->dirs[i], sizeof(p->dirs[i]));
		cl->dir = p->dirs[i];
		cl->stop = rstop(c);
		uint64_t *const cc[] = { &cl->ops, &cl->bytes, &cl->failures, &cl->mismatches, &cl->warmup_ops, &cl->passes,
					 &cl->order_waits };
		for (size_t j = 0; j < sizeof(cc) / sizeof(cc[0]); j++)
			*cc[j] = rp_cur_le64(c);
		cl->order_wait_us = rf64(c);
		rlat(c, &cl->lat);
		rlat(c, &cl->tgt_lat);
		rdepth(c, &res->client_depth[i]);
	}
	res->order = (rp_order_mode)rp_cur_le32(c);
	res->order_resources = rp_cur_le32(c);
	res->order_bytes = rp_cur_le64(c);
	res->order_waits = rp_cur_le64(c);
	res->order_wait_us = rf64(c);
	rp_replay_schedule *const sc = &res->schedule;
	sc->known = rp_cur_u8(c) != 0;
	double *const st[] = { &sc->first_s, &sc->last_s, &sc->sched_first_s, &sc->sched_last_s, &sc->max_ratio, &sc->max_lag_us };
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		*st[i] = rf64(c);
	res->trace_clients = rp_cur_le32(c);
	res->target_entries = (int64_t)rp_cur_le64(c);
	rstr(c, p->mode, sizeof(p->mode));
	res->backend_mode = p->mode[0] ? p->mode : NULL;
	res->protocol_ops = rp_cur_le64(c);
	res->n_fallbacks = rcount(c, 12, RP_REPLAY_FALLBACKS);
	for (size_t i = 0; i < res->n_fallbacks; i++) {
		rstr(c, p->reasons[i], sizeof(p->reasons[i]));
		res->fallbacks[i].reason = p->reasons[i];
		res->fallbacks[i].count = rp_cur_le64(c);
	}
	res->own_requests = rp_cur_le64(c);
	rstr(c, p->why, sizeof(p->why));
	res->backend_mode_why = p->why[0] ? p->why : NULL;
	res->lock_polls = rp_cur_le64(c);
	res->lock_releases = rp_cur_le64(c);
	res->lock_expired = rp_cur_le64(c);
	if (c->err)
		return rp_fail(errbuf, RP_E_CORRUPT, "packed results cut short or inconsistent");
	if (rp_cur_left(c))
		return rp_fail(errbuf, RP_E_CORRUPT, "%zu bytes after the packed results", rp_cur_left(c));
	if (n_clients != res->clients)
		return rp_fail(errbuf, RP_E_CORRUPT, "packed results of %u clients list %u", res->clients, n_clients);
	/* Rates and the verdict follow from what is packed, as stats.c makes them. */
	if (res->elapsed_s > 0) {
		res->ops_per_sec = (double)res->ops / res->elapsed_s;
		res->mb_per_sec = (double)res->bytes / 1e6 / res->elapsed_s;
	}
	res->lag_p99_us = res->lag_hist ? (double)rp__hist_quantile(res->lag_hist, 0.99) / 1e3 : 0;
	rp__verdict(res);
	return 0;
}

int rp_replay_merge_create(rp_replay_merge **out, size_t n_parts)
{
	*out = NULL;
	if (n_parts == 0 || n_parts > RP_MERGE_PARTS_MAX)
		return RP_E_RANGE;
	rp_replay_merge *const m = calloc(1, sizeof(*m));
	if (!m)
		return RP_E_NOMEM;
	m->parts = calloc(n_parts, sizeof(*m->parts));
	if (!m->parts) {
		free(m);
		return RP_E_NOMEM;
	}
	m->n_parts = n_parts;
	*out = m;
	return 0;
}

void rp_replay_merge_destroy(rp_replay_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_parts; i++)
		part_free(&m->parts[i]);
	free(m->parts);
	rp__stats_free(&m->res);
	free(m->res.series);
	free(m->res.client);
	free(m->res.client_depth);
	free(m->dirs);
	free(m);
}

int rp_replay_merge_add(rp_replay_merge *m, size_t i, const uint8_t *buf, size_t n, char *errbuf)
{
	if (i >= m->n_parts)
		return rp_fail(errbuf, RP_E_RANGE, "share %zu of %zu", i, m->n_parts);
	if (m->parts[i].added || m->merged)
		return rp_fail(errbuf, RP_E_STATE, "share %zu added twice", i);
	if (n > RP_MERGE_WIRE_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "packed results of %zu bytes (at most %u)", n, RP_MERGE_WIRE_MAX);
	rp_cur c = rp_cur_make(buf, n);
	const int rc = unpack(&m->parts[i], &c, errbuf);
	if (rc < 0) {
		part_free(&m->parts[i]);
		return rc;
	}
	m->parts[i].added = true;
	return 0;
}

const rp_replay_results *rp_replay_merge_part(const rp_replay_merge *m, size_t i)
{
	return i < m->n_parts && m->parts[i].added ? &m->parts[i].res : NULL;
}

const rp_replay_results *rp_replay_merge_results(const rp_replay_merge *m)
{
	return m->merged ? &m->res : NULL;
}

/* ---- Merging ---------------------------------------------------------------------------- */

/* A merged histogram kept in the results (NULL when nothing was recorded). */
static int merged_hist(const rp_hist **out, rp_hist *h)
{
	*out = NULL;
	if (!h->count)
		return 0;
	rp_hist *const keep = malloc(sizeof(*keep));
	if (!keep)
		return RP_E_NOMEM;
	memcpy(keep, h, sizeof(*keep));
	*out = keep;
	return 0;
}

/* The whole job's span: the earliest first issue to the latest completion, as each share's from the agreed start. */
static void merge_schedule(rp_replay_schedule *s, const rp_replay_schedule *q)
{
	if (!q->known)
		return;
	if (!s->known) {
		s->first_s = q->first_s;
		s->last_s = q->last_s;
		s->sched_first_s = q->sched_first_s;
		s->sched_last_s = q->sched_last_s;
		s->known = true;
		return;
	}
	s->first_s = q->first_s < s->first_s ? q->first_s : s->first_s;
	s->last_s = q->last_s > s->last_s ? q->last_s : s->last_s;
	s->sched_first_s = q->sched_first_s < s->sched_first_s ? q->sched_first_s : s->sched_first_s;
	s->sched_last_s = q->sched_last_s > s->sched_last_s ? q->sched_last_s : s->sched_last_s;
}

/* Counts that add up, and the largest of what does not. */
static void merge_scalars(rp_replay_results *res, const rp_replay_results *p, bool first)
{
	if (first) {
		res->backend = p->backend;
		res->timing = p->timing;
		res->speed = p->speed;
		res->max_inflight = p->max_inflight;
		res->inflight_auto = p->inflight_auto;
		res->inflight_cap = p->inflight_cap;
		res->order = p->order;
		res->prepare.fill = p->prepare.fill;
		res->prepare.caches = p->prepare.caches;
		res->final_sync = p->final_sync; /* the dirty counts are one host's: the first share's (docs/mpi.md) */
		res->trace_clients = p->trace_clients;
		res->target_entries = p->target_entries;
		res->schedule.max_ratio = p->schedule.max_ratio;
		res->schedule.max_lag_us = p->schedule.max_lag_us;
	} else {
		if (p->max_inflight > res->max_inflight) /* auto: each share's clients have their own bounds */
			res->max_inflight = p->max_inflight;
		res->final_sync.ran = res->final_sync.ran && p->final_sync.ran;
		if (!res->final_sync.err)
			res->final_sync.err = p->final_sync.err;
		if (p->final_sync.ns > res->final_sync.ns)
			res->final_sync.ns = p->final_sync.ns;
		if (!res->prepare.caches)
			res->prepare.caches = p->prepare.caches;
	}
	res->clients += p->clients;
	if (p->elapsed_s > res->elapsed_s)
		res->elapsed_s = p->elapsed_s;
	if (p->warmup_s > res->warmup_s)
		res->warmup_s = p->warmup_s;
	res->warmup_ops += p->warmup_ops;
	res->passes += p->passes;
	for (unsigned e = 0; e < RP_REPLAY_ERRNO_MAX; e++)
		res->errnos[e] += p->errnos[e];
	res->prepare.ran = res->prepare.ran || p->prepare.ran;
	res->prepare.dirs += p->prepare.dirs;
	res->prepare.files += p->prepare.files;
	res->prepare.bytes += p->prepare.bytes;
	res->prepare.failures += p->prepare.failures;
	res->prepare.written += p->prepare.written;
	res->prepare.kept += p->prepare.kept;
	res->prepare.extended += p->prepare.extended;
	if (p->prepare.seconds > res->prepare.seconds)
		res->prepare.seconds = p->prepare.seconds;
	res->order_resources += p->order_resources;
	res->order_bytes += p->order_bytes;
	res->order_waits += p->order_waits;
	res->order_wait_us += p->order_wait_us;
	/* One backend for every share; a share whose ops all fell back says semantic, so one that sent some exact
	 * says the run's mode. */
	if (first || (p->protocol_ops && !res->protocol_ops)) {
		res->backend_mode = p->backend_mode;
		res->backend_mode_why = p->backend_mode_why;
	}
	res->protocol_ops += p->protocol_ops;
	res->own_requests += p->own_requests;
	res->lock_polls += p->lock_polls;
	res->lock_releases += p->lock_releases;
	res->lock_expired += p->lock_expired;
	for (size_t i = 0; i < p->n_fallbacks; i++) {
		size_t k = 0;
		while (k < res->n_fallbacks && strcmp(res->fallbacks[k].reason, p->fallbacks[i].reason) != 0)
			k++;
		if (k == res->n_fallbacks) {
			if (k == RP_REPLAY_FALLBACKS)
				continue;
			res->fallbacks[k].reason = p->fallbacks[i].reason; /* the part's storage, kept with the merge */
			res->fallbacks[k].count = 0;
			res->n_fallbacks++;
		}
		res->fallbacks[k].count += p->fallbacks[i].count;
	}
	rp__stats_add_samples(res, p->samples, p->n_samples, p->sample_others);
	/* A target of any share that held something: the largest count (-1, not known, only if none knows). */
	if (p->target_entries > res->target_entries)
		res->target_entries = p->target_entries;
	merge_schedule(&res->schedule, &p->schedule);
}

static void merge_ops(rp_replay_results *res, const rp_replay_results *p, rp_hist *hs)
{
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		rp_replay_opstats *const o = &res->op[op];
		const rp_replay_opstats *const q = &p->op[op];
		o->count += q->count;
		o->bytes += q->bytes;
		o->failures += q->failures;
		o->failures_expected += q->failures_expected;
		o->mismatches += q->mismatches;
		o->unknown_handles += q->unknown_handles;
		o->skipped += q->skipped;
		o->escapes += q->escapes;
		o->specials += q->specials;
		o->unsupported += q->unsupported;
		if (q->hist)
			rp__hist_merge(&hs[op], q->hist);
	}
}

/* Second k of the run is second k of every share: they started at one agreed time. */
static int merge_series(rp_replay_results *res, const part *parts, size_t n_parts)
{
	size_t n = 0;
	for (size_t i = 0; i < n_parts; i++)
		if (parts[i].res.n_series > n)
			n = parts[i].res.n_series;
	res->series = calloc(n ? n : 1, sizeof(*res->series));
	if (!res->series)
		return RP_E_NOMEM;
	res->n_series = n;
	for (size_t k = 0; k < n; k++) {
		rp_replay_second *const s = &res->series[k];
		double lat_sum = 0;
		for (size_t i = 0; i < n_parts; i++) {
			const rp_replay_results *const p = &parts[i].res;
			if (k >= p->n_series)
				continue;
			const rp_replay_second *const q = &p->series[k];
			s->ops += q->ops;
			s->bytes += q->bytes;
			s->failures += q->failures;
			s->lat_count += q->lat_count;
			lat_sum += q->lat_avg_us * (double)q->lat_count;
			if (q->lag_max_us > s->lag_max_us)
				s->lag_max_us = q->lag_max_us;
			if (q->lat_max_us > s->lat_max_us)
				s->lat_max_us = q->lat_max_us;
			s->warmup = s->warmup || q->warmup;
		}
		s->lat_avg_us = s->lat_count ? lat_sum / (double)s->lat_count : 0;
	}
	return 0;
}

/* The clients of every share in share order, and the run's depth from theirs (as stats.c makes it). */
static int merge_clients(rp_replay_merge *m)
{
	rp_replay_results *const res = &m->res;
	size_t n = 0;
	for (size_t i = 0; i < m->n_parts; i++)
		n += m->parts[i].res.n_client_depth;
	res->client = calloc(n ? n : 1, sizeof(*res->client));
	res->client_depth = calloc(n ? n : 1, sizeof(*res->client_depth));
	m->dirs = calloc(n ? n : 1, sizeof(*m->dirs));
	if (!res->client || !res->client_depth || !m->dirs)
		return RP_E_NOMEM;
	res->n_client_depth = n;
	size_t at = 0;
	for (size_t i = 0; i < m->n_parts; i++) {
		const rp_replay_results *const p = &m->parts[i].res;
		for (size_t j = 0; j < p->n_client_depth; j++, at++) {
			res->client[at] = p->client[j];
			memcpy(m->dirs[at], m->parts[i].dirs[j], sizeof(m->dirs[at]));
			res->client[at].dir = m->dirs[at];
			res->client_depth[at] = p->client_depth[j];
		}
	}
	rp__stats_depth_total(res);
	return 0;
}

int rp_replay_merge_run(rp_replay_merge *m, char *errbuf)
{
	if (m->merged)
		return rp_fail(errbuf, RP_E_STATE, "merged already");
	for (size_t i = 0; i < m->n_parts; i++)
		if (!m->parts[i].added)
			return rp_fail(errbuf, RP_E_STATE, "share %zu is missing", i);
	rp_replay_results *const res = &m->res;
	/* One histogram per op kind, the lag and the total: the op kinds' are some 35 KiB each. */
	const size_t n_h = RP_OP__COUNT + 3;
	rp_hist *const hs = malloc(n_h * sizeof(*hs));
	if (!hs)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	for (size_t k = 0; k < n_h; k++)
		rp__hist_init(&hs[k]);
	rp_hist *const lag = &hs[RP_OP__COUNT], *const all = &hs[RP_OP__COUNT + 1], *const tgt = &hs[RP_OP__COUNT + 2];
	res->stop = RP_STOP_END; /* the run's: the most telling of its shares' */
	for (size_t i = 0; i < m->n_parts; i++) {
		const rp_replay_results *const p = &m->parts[i].res;
		merge_scalars(res, p, i == 0);
		merge_ops(res, p, hs);
		if (p->lag_hist)
			rp__hist_merge(lag, p->lag_hist);
		if (p->tgt_hist)
			rp__hist_merge(tgt, p->tgt_hist);
		if (p->stop > res->stop)
			res->stop = p->stop;
		if (!res->error[0] && p->error[0])
			snprintf(res->error, sizeof(res->error), "share %zu: %.480s", i, p->error);
	}
	int rc = 0;
	for (unsigned op = 0; op < RP_OP__COUNT && rc == 0; op++) {
		rp_replay_opstats *const o = &res->op[op];
		rp__stats_opstats_fill(o, &hs[op]);
		rc = merged_hist(&o->hist, &hs[op]);
		if (op != RP_OP_SLEEP)
			rp__hist_merge(all, &hs[op]);
		rp__stats_add_opstats(res, op, o);
	}
	if (rc == 0)
		rc = merged_hist(&res->hist, all);
	if (rc == 0)
		rc = merged_hist(&res->lag_hist, lag);
	if (rc == 0)
		rc = merged_hist(&res->tgt_hist, tgt);
	rp__stats_lat_fill(&res->lat, all);
	rp__stats_lat_fill(&res->tgt_lat, tgt);
	res->lag_count = lag->count;
	res->lag_p50_us = (double)rp__hist_quantile(lag, 0.50) / 1e3;
	res->lag_p99_us = (double)rp__hist_quantile(lag, 0.99) / 1e3;
	res->lag_max_us = lag->count ? (double)lag->max / 1e3 : 0;
	free(hs);
	if (res->elapsed_s > 0) {
		res->ops_per_sec = (double)res->ops / res->elapsed_s;
		res->mb_per_sec = (double)res->bytes / 1e6 / res->elapsed_s;
	}
	if (rc == 0)
		rc = merge_series(res, m->parts, m->n_parts);
	if (rc == 0)
		rc = merge_clients(m);
	if (rc < 0)
		return rp_fail(errbuf, rc, "out of memory");
	rp__verdict(res); /* the span of all the shares, the lag p99 of the merged histogram */
	m->merged = true;
	return 0;
}
