/* Merging per-client statistics into the run's results (histograms merge exactly). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/client.h"
#include "replay/engine.h"
#include "replay/stats.h"
#include "replay/verdict.h"

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static void fill(rp_replay_opstats *o, const rp_hist *h)
{
	if (!h || h->count == 0)
		return;
	o->avg_us = (double)h->sum / (double)h->count / 1e3;
	o->p50_us = us(rp__hist_quantile(h, 0.50));
	o->p99_us = us(rp__hist_quantile(h, 0.99));
	o->p999_us = us(rp__hist_quantile(h, 0.999));
	o->max_us = us(h->max);
}

/*
 * The whole distribution of h.  The standard deviation is the sample one
 * (n - 1, as fio reports it) over the bucket midpoints around the exact mean:
 * the histogram keeps no sum of squares, and a midpoint is within 0.4 % of
 * every value in its bucket.
 */
static void lat_fill(rp_replay_lat *l, const rp_hist *h)
{
	memset(l, 0, sizeof(*l));
	if (!h || h->count == 0)
		return;
	l->count = h->count;
	l->min_us = us(h->min);
	l->max_us = us(h->max);
	const double mean = (double)h->sum / (double)h->count;
	l->avg_us = mean / 1e3;
	double m2 = 0;
	for (unsigned i = 0; i < RP_HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		uint64_t lo, hi;
		rp__hist_bucket_range(i, &lo, &hi);
		double mid = hi == UINT64_MAX ? (double)h->max : (double)lo + (double)(hi - lo) / 2;
		if (mid < (double)h->min)
			mid = (double)h->min;
		if (mid > (double)h->max)
			mid = (double)h->max;
		m2 += (double)h->bucket[i] * (mid - mean) * (mid - mean);
	}
	l->stddev_us = h->count > 1 ? sqrt(m2 / (double)(h->count - 1)) / 1e3 : 0;
	l->p50_us = us(rp__hist_quantile(h, 0.50));
	l->p90_us = us(rp__hist_quantile(h, 0.90));
	l->p95_us = us(rp__hist_quantile(h, 0.95));
	l->p99_us = us(rp__hist_quantile(h, 0.99));
	l->p999_us = us(rp__hist_quantile(h, 0.999));
	l->p9999_us = us(rp__hist_quantile(h, 0.9999));
}

void rp__stats_free(rp_replay_results *res)
{
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		free((rp_hist *)res->op[op].hist);
		res->op[op].hist = NULL;
	}
	free((rp_hist *)res->hist);
	res->hist = NULL;
	free((rp_hist *)res->lag_hist);
	res->lag_hist = NULL;
	free((rp_hist *)res->tgt_hist);
	res->tgt_hist = NULL;
}

/* Per-client results: counts of the measured period, and the latency of all its ops but sleeps. */
static int client_results(rp_replay *r, rp_hist *h)
{
	rp_replay_results *const res = &r->res;
	res->client = calloc(r->n_clients ? r->n_clients : 1, sizeof(*res->client));
	if (!res->client)
		return RP_E_NOMEM;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		const rp_client *const c = r->clients[i];
		rp_replay_client *const cr = &res->client[i];
		cr->trace_client = c->trace_client;
		cr->clone = r->opts.clone_base + c->clone;
		cr->dir = c->dir;
		cr->stop = c->stop < RP_STOP__COUNT ? c->stop : RP_STOP_END;
		cr->warmup_ops = c->warmup_ops;
		cr->passes = c->passes;
		cr->order_waits = c->ord_waits;
		cr->order_wait_us = (double)c->ord_wait_ns / 1e3;
		res->order_waits += c->ord_waits;
		res->order_wait_us += cr->order_wait_us;
		rp__hist_init(h);
		for (unsigned op = 0; op < RP_OP__COUNT; op++) {
			const rp_opacc *const a = &c->acc[op];
			if (op == RP_OP_SLEEP)
				continue;
			cr->ops += a->count;
			cr->bytes += a->bytes;
			cr->failures += a->failures;
			cr->mismatches += a->mismatches;
			if (a->lat)
				rp__hist_merge(h, a->lat);
		}
		lat_fill(&cr->lat, h);
		lat_fill(&cr->tgt_lat, c->tdepth.lat);
	}
	return 0;
}

#define RP__STOP_NAME(e, name) name,
static const char *const stop_names[] = { RP_STOP_MAP(RP__STOP_NAME) };
#undef RP__STOP_NAME
_Static_assert(sizeof(stop_names) / sizeof(stop_names[0]) == RP_STOP__COUNT, "stop table");

const char *rp_stop_name(rp_stop s)
{
	return (unsigned)s < RP_STOP__COUNT ? stop_names[s] : NULL;
}

int rp_stop_from_name(const char *name)
{
	for (unsigned i = 0; i < RP_STOP__COUNT; i++)
		if (strcmp(name, stop_names[i]) == 0)
			return (int)i;
	return -1;
}

/* The run's stop reason: the most telling of the clients'. */
static rp_stop stop_reason(const rp_replay *r)
{
	bool any = false;
	rp_stop s = RP_STOP_END;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		const rp_stop cs = r->clients[i]->stop;
		if (cs < RP_STOP__COUNT) {
			any = true;
			s = cs > s ? cs : s;
		}
	}
	if (any)
		return s;
	if (r->start_rc < 0)
		return RP_STOP_ERROR;
	return atomic_load(&r->aborted) ? RP_STOP_MISMATCH : atomic_load(&r->stop) ? RP_STOP_INTERRUPTED : RP_STOP_END;
}

void rp__stats_tdepth_means(rp_replay_depth *d)
{
	d->tgt_mean = d->tgt_requests ? (double)d->tgt_at_req_sum / (double)d->tgt_requests : 0;
	d->tgt_busy_mean = d->tgt_busy_ns ? (double)d->tgt_area_ns / (double)d->tgt_busy_ns : 0;
}

void rp__stats_depth_total(rp_replay_results *res)
{
	double sum = 0, rec_sum = 0;
	uint32_t n_mean = 0, n_rec = 0;
	rp_replay_depth *const t = &res->depth;
	res->depth.max = res->depth.rec_max = res->depth.bound = 0;
	t->tgt_max = 0;
	t->tgt_requests = t->tgt_unmeasured = t->tgt_at_req_sum = t->tgt_area_ns = t->tgt_busy_ns = 0;
	for (size_t i = 0; i < res->n_client_depth; i++) {
		const rp_replay_depth *const d = &res->client_depth[i];
		if (d->tgt_max > t->tgt_max)
			t->tgt_max = d->tgt_max;
		t->tgt_requests += d->tgt_requests;
		t->tgt_unmeasured += d->tgt_unmeasured;
		t->tgt_at_req_sum += d->tgt_at_req_sum;
		t->tgt_area_ns += d->tgt_area_ns;
		t->tgt_busy_ns += d->tgt_busy_ns;
		if (d->rec_max) {
			rec_sum += d->rec_mean;
			n_rec++;
		}
		if (d->max) {
			sum += d->mean;
			n_mean++;
		}
		if (d->max > res->depth.max)
			res->depth.max = d->max;
		if (d->rec_max > res->depth.rec_max)
			res->depth.rec_max = d->rec_max;
		if (d->bound > res->depth.bound)
			res->depth.bound = d->bound;
	}
	res->depth.mean = n_mean ? sum / n_mean : 0;
	res->depth.rec_mean = n_rec ? rec_sum / n_rec : 0;
	rp__stats_tdepth_means(t);
}

void rp__stats_add_opstats(rp_replay_results *res, unsigned op, const rp_replay_opstats *o)
{
	/* A sleep is no op of the workload's: its count is its own, not the run's ops, and it moves no bytes. */
	if (op != RP_OP_SLEEP) {
		res->ops += o->count;
		res->bytes += o->bytes;
	}
	res->failures += o->failures;
	res->failures_expected += o->failures_expected;
	res->mismatches += o->mismatches;
	res->unknown_handles += o->unknown_handles;
	res->skipped += o->skipped;
	res->escapes += o->escapes;
	res->unsupported += o->unsupported;
	res->specials += o->specials;
}

/* Kinds of mismatch (a client's, another rank's share) into the run's: the same kind adds its count, the first example stays. */
void rp__stats_add_samples(rp_replay_results *res, const rp_replay_sample *samples, size_t n, uint64_t others)
{
	res->sample_others += others;
	for (size_t k = 0; k < n; k++) {
		const rp_replay_sample *const s = &samples[k];
		size_t j = 0;
		while (j < res->n_samples && !(res->samples[j].op == s->op && res->samples[j].expected == s->expected &&
					       res->samples[j].actual == s->actual))
			j++;
		if (j < res->n_samples)
			res->samples[j].count += s->count;
		else if (j < RP_REPLAY_SAMPLES)
			res->samples[res->n_samples++] = *s;
		else
			res->sample_others += s->count;
	}
}

/* s after the run's start. */
static double since_t0(const rp_replay *r, uint64_t t)
{
	return t > r->t0 ? (double)(t - r->t0) / 1e9 : 0;
}

/* trace and think timing: the run's first issue and last completion, and their schedule's, from the clients'. */
static void schedule(rp_replay *r)
{
	rp_replay_schedule *const s = &r->res.schedule;
	s->max_ratio = r->opts.behind_span;
	s->max_lag_us = r->opts.behind_lag_s * 1e6;
	uint64_t first = UINT64_MAX, last = 0, sfirst = UINT64_MAX, slast = 0;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		const rp_client *const c = r->clients[i];
		if (c->sp_first == UINT64_MAX)
			continue; /* nothing measured */
		first = c->sp_first < first ? c->sp_first : first;
		last = c->last_done > last ? c->last_done : last;
		sfirst = c->sp_sched_first < sfirst ? c->sp_sched_first : sfirst;
		slast = c->sp_sched_last > slast ? c->sp_sched_last : slast;
	}
	s->known = r->opts.timing != RP_TIMING_AFAP && first != UINT64_MAX;
	if (!s->known)
		return;
	s->first_s = since_t0(r, first);
	s->last_s = since_t0(r, last > first ? last : first);
	s->sched_first_s = since_t0(r, sfirst);
	s->sched_last_s = since_t0(r, slast > sfirst ? slast : sfirst);
}

int rp__stats_merge(rp_replay *r)
{
	rp_replay_results *const res = &r->res;
	res->backend = r->bops->name;
	res->timing = r->opts.timing;
	res->speed = r->opts.speed;
	res->clients = r->n_clients;
	res->stop = stop_reason(r);

	rp_hist *const h = malloc(sizeof(*h));
	rp_hist *const lag = malloc(sizeof(*lag));
	if (!h || !lag) {
		free(h);
		free(lag);
		return RP_E_NOMEM;
	}
	rp__hist_init(lag);
	rp_hist *const all = malloc(sizeof(*all));
	if (!all) {
		free(h);
		free(lag);
		return RP_E_NOMEM;
	}
	rp__hist_init(all);
	res->hist = all;
	size_t n_series = 0;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		const rp_client *const c = r->clients[i];
		if (c->lag)
			rp__hist_merge(lag, c->lag);
		res->warmup_ops += c->warmup_ops;
		res->passes += c->passes;
		for (unsigned e = 0; e < RP_REPLAY_ERRNO_MAX; e++)
			res->errnos[e] += c->errnos[e];
		rp__stats_add_samples(res, c->samples, c->n_samples, c->sample_others);
		for (size_t k = c->n_series; k > 0; k--)
			if (c->series[k - 1].ops) {
				if (k > n_series)
					n_series = k;
				break;
			}
		if (!res->error[0] && c->rc < 0)
			snprintf(res->error, sizeof(res->error), "%s", c->errbuf);
	}
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		rp_replay_opstats *const o = &res->op[op];
		rp__hist_init(h);
		for (uint32_t i = 0; i < r->n_clients; i++) {
			const rp_opacc *const a = &r->clients[i]->acc[op];
			o->count += a->count;
			o->bytes += a->bytes;
			o->failures += a->failures;
			o->failures_expected += a->failures_expected;
			o->mismatches += a->mismatches;
			o->unknown_handles += a->unknown;
			o->skipped += a->skipped;
			o->escapes += a->escapes;
			o->unsupported += a->unsupported;
			o->specials += a->specials;
			if (a->lat)
				rp__hist_merge(h, a->lat);
		}
		fill(o, h);
		lat_fill(&o->lat, h);
		if (h->count) {
			/* Kept for the JSON, which carries the histograms themselves. */
			rp_hist *const keep = malloc(sizeof(*keep));
			if (!keep) {
				free(h);
				free(lag);
				return RP_E_NOMEM;
			}
			memcpy(keep, h, sizeof(*keep));
			o->hist = keep;
			if (op != RP_OP_SLEEP)
				rp__hist_merge(all, h);
		}
		rp__stats_add_opstats(res, op, o);
	}
	/* The measured period: from the end of the warm-up to the time limit, or to the last completion. */
	uint64_t last = 0;
	for (uint32_t i = 0; i < r->n_clients; i++)
		if (r->clients[i]->last_done > last)
			last = r->clients[i]->last_done;
	if (r->end && res->stop == RP_STOP_TIME)
		last = r->end;
	/* Interrupted: it ran until the stop, even if no op completed since (a wait for a recorded time). */
	const uint64_t stop_at = atomic_load(&r->stop_at);
	if ((res->stop == RP_STOP_INTERRUPTED || r->start_rc < 0) && stop_at > last)
		last = stop_at;
	/* Stopped in the warm-up: the warm-up it had, and nothing measured. */
	if (r->warm_end > r->t0 && last < r->warm_end)
		res->warmup_s = last > r->t0 ? (double)(last - r->t0) / 1e9 : 0;
	if (last < r->warm_end)
		last = r->warm_end;
	if (r->end && last > r->end)
		last = r->end;
	res->elapsed_s = (double)(last - r->warm_end) / 1e9;
	/* The final sync is the end of the run's writing: its time is measured (the gap before it, joining the clients, is not). */
	if (res->final_sync.ran)
		res->elapsed_s += (double)res->final_sync.ns / 1e9;
	if (res->elapsed_s > 0) {
		res->ops_per_sec = (double)res->ops / res->elapsed_s;
		res->mb_per_sec = (double)res->bytes / 1e6 / res->elapsed_s;
	}
	res->lag_count = lag->count;
	res->lag_p50_us = us(rp__hist_quantile(lag, 0.50));
	res->lag_p99_us = us(rp__hist_quantile(lag, 0.99));
	res->lag_max_us = us(lag->count ? lag->max : 0);
	lat_fill(&res->lat, all);
	const int crc = client_results(r, h);
	free(h);
	if (lag->count)
		res->lag_hist = lag; /* kept for merging runs (replay/merge.c) */
	else
		free(lag);
	if (crc < 0)
		return crc;

	res->max_inflight = 1;
	for (uint32_t i = 0; i < r->n_clients; i++)
		if (r->clients[i]->bound > res->max_inflight)
			res->max_inflight = r->clients[i]->bound;
	res->order = r->opts.order;
	res->client_depth = calloc(r->n_clients ? r->n_clients : 1, sizeof(*res->client_depth));
	if (!res->client_depth)
		return RP_E_NOMEM;
	res->n_client_depth = r->n_clients;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		const rp_client *const c = r->clients[i];
		rp_replay_depth *const d = &res->client_depth[i];
		d->bound = c->bound ? c->bound : 1;
		if (d->bound == 1) {
			/* One at a time: 1 for a client that issued anything, without counting on the hot path. */
			d->max = c->n_ops ? 1 : 0;
			d->mean = d->max;
		} else {
			d->max = c->depth_max;
			d->mean = c->depth_ops ? (double)c->depth_sum / (double)c->depth_ops : 0;
		}
		const rp_plan_depth *const rd = r->rec_depth ? &r->rec_depth[i % r->n_trace_clients] : NULL;
		if (rd && rd->ops) {
			d->rec_max = rd->max; /* at least 1 with ops: what rp__stats_depth_total counts by */
			d->rec_mean = (double)rd->sum / (double)rd->ops;
		}
		const rp_tdepth *const td = &c->tdepth;
		d->tgt_max = td->max;
		d->tgt_requests = td->requests;
		d->tgt_unmeasured = td->unmeasured;
		d->tgt_at_req_sum = td->at_req_sum;
		d->tgt_area_ns = td->area;
		d->tgt_busy_ns = td->busy_ns;
		rp__stats_tdepth_means(d);
	}
	rp__stats_depth_total(res);
	/* Latency at the target, every client's requests of the measured period. */
	rp_hist *const tl = malloc(sizeof(*tl));
	if (!tl)
		return RP_E_NOMEM;
	rp__hist_init(tl);
	for (uint32_t i = 0; i < r->n_clients; i++)
		if (r->clients[i]->tdepth.lat)
			rp__hist_merge(tl, r->clients[i]->tdepth.lat);
	lat_fill(&res->tgt_lat, tl);
	if (tl->count)
		res->tgt_hist = tl;
	else
		free(tl);

	res->series = calloc(n_series ? n_series : 1, sizeof(*res->series));
	if (!res->series)
		return RP_E_NOMEM;
	res->n_series = n_series;
	for (size_t k = 0; k < n_series; k++) {
		rp_replay_second *const s = &res->series[k];
		uint64_t lag_max = 0, lat_sum = 0, lat_max = 0;
		for (uint32_t i = 0; i < r->n_clients; i++) {
			const rp_client *const c = r->clients[i];
			if (k >= c->n_series)
				continue;
			s->ops += c->series[k].ops;
			s->bytes += c->series[k].bytes;
			s->failures += c->series[k].failures;
			if (c->series[k].lag_max > lag_max)
				lag_max = c->series[k].lag_max;
			s->lat_count += c->series[k].lat_n;
			lat_sum += c->series[k].lat_sum;
			if (c->series[k].lat_max > lat_max)
				lat_max = c->series[k].lat_max;
		}
		s->lag_max_us = us(lag_max);
		s->lat_avg_us = s->lat_count ? (double)lat_sum / (double)s->lat_count / 1e3 : 0;
		s->lat_max_us = us(lat_max);
		s->warmup = r->t0 + (k + 1) * 1000000000ull <= r->warm_end;
	}
	schedule(r);
	res->trace_clients = r->n_trace_clients;
	res->target_entries = r->opts.target_entries;
	rp__verdict(res);
	return 0;
}

void rp__stats_opstats_fill(rp_replay_opstats *o, const rp_hist *h)
{
	fill(o, h);
	lat_fill(&o->lat, h);
}

void rp__stats_lat_fill(rp_replay_lat *l, const rp_hist *h)
{
	lat_fill(l, h);
}
