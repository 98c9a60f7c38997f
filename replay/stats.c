/* Merging per-client statistics into the run's results (histograms merge exactly). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine.h"

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

/* The run's stop reason: the most telling of the clients'. */
static const char *stop_reason(const rp_replay *r)
{
	static const char *const order[] = { "error", "mismatch", "interrupted", "time", "end" };
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (uint32_t i = 0; i < r->n_clients; i++)
			if (r->clients[i]->stop && strcmp(r->clients[i]->stop, order[k]) == 0)
				return order[k];
	return atomic_load(&r->aborted) ? "mismatch" : atomic_load(&r->stop) ? "interrupted" : "end";
}

/* One client's kinds of mismatch into the run's: the same kind adds its count, the first example stays. */
static void merge_samples(rp_replay_results *res, const rp_client *c)
{
	res->sample_others += c->sample_others;
	for (size_t k = 0; k < c->n_samples; k++) {
		const rp_replay_sample *const s = &c->samples[k];
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
	size_t n_series = 0;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		const rp_client *const c = r->clients[i];
		if (c->lag)
			rp__hist_merge(lag, c->lag);
		res->warmup_ops += c->warmup_ops;
		res->passes += c->passes;
		for (unsigned e = 0; e < RP_REPLAY_ERRNO_MAX; e++)
			res->errnos[e] += c->errnos[e];
		merge_samples(res, c);
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
	/* The measured period: from the end of the warm-up to the time limit, or to the last completion. */
	uint64_t last = 0;
	for (uint32_t i = 0; i < r->n_clients; i++)
		if (r->clients[i]->last_done > last)
			last = r->clients[i]->last_done;
	if (r->end && strcmp(res->stop, "time") == 0)
		last = r->end;
	/* Interrupted: it ran until the stop, even if no op completed since (a wait for a recorded time). */
	const uint64_t stop_at = atomic_load(&r->stop_at);
	if (strcmp(res->stop, "interrupted") == 0 && stop_at > last)
		last = stop_at;
	/* Stopped in the warm-up: the warm-up it had, and nothing measured. */
	if (r->warm_end > r->t0 && last < r->warm_end)
		res->warmup_s = last > r->t0 ? (double)(last - r->t0) / 1e9 : 0;
	if (last < r->warm_end)
		last = r->warm_end;
	if (r->end && last > r->end)
		last = r->end;
	res->elapsed_s = (double)(last - r->warm_end) / 1e9;
	if (res->elapsed_s > 0) {
		res->ops_per_sec = (double)res->ops / res->elapsed_s;
		res->mb_per_sec = (double)res->bytes / 1e6 / res->elapsed_s;
	}
	res->lag_count = lag->count;
	res->lag_p50_us = us(rp__hist_quantile(lag, 0.50));
	res->lag_p99_us = us(rp__hist_quantile(lag, 0.99));
	res->lag_max_us = us(lag->count ? lag->max : 0);
	free(h);
	free(lag);

	res->max_inflight = r->opts.max_inflight > 1 ? r->opts.max_inflight : 1;
	res->client_depth = calloc(r->n_clients ? r->n_clients : 1, sizeof(*res->client_depth));
	if (!res->client_depth)
		return RP_E_NOMEM;
	res->n_client_depth = r->n_clients;
	double sum = 0, rec_sum = 0;
	uint32_t n_mean = 0, n_rec = 0;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		const rp_client *const c = r->clients[i];
		rp_replay_depth *const d = &res->client_depth[i];
		if (res->max_inflight == 1) {
			/* One at a time: 1 for a client that issued anything, without counting on the hot path. */
			d->max = c->n_ops ? 1 : 0;
			d->mean = d->max;
		} else {
			d->max = c->depth_max;
			d->mean = c->depth_ops ? (double)c->depth_sum / (double)c->depth_ops : 0;
		}
		const rp_plan_depth *const rd = r->rec_depth ? &r->rec_depth[i % r->n_trace_clients] : NULL;
		if (rd && rd->ops) {
			d->rec_max = rd->max;
			d->rec_mean = (double)rd->sum / (double)rd->ops;
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
	}
	res->depth.mean = n_mean ? sum / n_mean : 0;
	res->depth.rec_mean = n_rec ? rec_sum / n_rec : 0;

	res->series = calloc(n_series ? n_series : 1, sizeof(*res->series));
	if (!res->series)
		return RP_E_NOMEM;
	res->n_series = n_series;
	for (size_t k = 0; k < n_series; k++) {
		rp_replay_second *const s = &res->series[k];
		uint64_t lag_max = 0;
		for (uint32_t i = 0; i < r->n_clients; i++) {
			const rp_client *const c = r->clients[i];
			if (k >= c->n_series)
				continue;
			s->ops += c->series[k].ops;
			s->bytes += c->series[k].bytes;
			s->failures += c->series[k].failures;
			if (c->series[k].lag_max > lag_max)
				lag_max = c->series[k].lag_max;
		}
		s->lag_max_us = us(lag_max);
		s->warmup = r->t0 + (k + 1) * 1000000000ull <= r->warm_end;
	}
	return 0;
}
