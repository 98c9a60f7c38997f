/* Unit tests: results packed and unpacked, shares merged exactly (replay/merge.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../replay/harness.h"
#include "replay/engine.h"
#include "replay/hist.h"
#include "replay/merge.h"
#include "replay/subset.h"

/* A workload of one client: open, reads and writes of several sizes, a stat of a missing name, close. */
static void workload(wl *t)
{
	wl_init(t, RP_SRC_LOADFILE_SMB);
	wl_add(t, 1, RP_OP_OPEN, "\\f", 7, 0, 0, 0);
	for (int i = 0; i < 12; i++)
		wl_add(t, 1, i % 3 ? RP_OP_READ : RP_OP_WRITE, NULL, 7, (uint64_t)i * 4096, 512u << (i % 4), 0);
	wl_add(t, 1, RP_OP_STAT, "\\missing", 0, 0, 0, 2 /* ENOENT as recorded */);
	wl_add(t, 1, RP_OP_CLOSE, NULL, 7, 0, 0, 0);
	wl_open(t);
}

/* One pass of copies [base, base + copies) with the null backend. */
static rp_replay *share(wl *t, uint32_t copies, uint32_t base)
{
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend = "null";
	o.clones = copies;
	o.clone_base = base;
	char eb[RP_ERRBUF_SIZE];
	rp_replay *r = NULL;
	assert_int_equal(rp_replay_create(&r, &o, t->w, eb), 0);
	assert_int_equal(rp_replay_run(r, eb), 0);
	return r;
}

static uint8_t *pack(const rp_replay_results *res, size_t *n)
{
	uint8_t *buf = NULL;
	assert_int_equal(rp_replay_results_pack(res, &buf, n), 0);
	assert_non_null(buf);
	return buf;
}

/* Four copies in two shares of two merge into what one run of four counts, clients in order. */
static void test_merge_shares(void **state)
{
	(void)state;
	wl t;
	workload(&t);
	rp_replay *const whole = share(&t, 4, 0), *const a = share(&t, 2, 0), *const b = share(&t, 2, 2);
	const rp_replay_results *const w = rp_replay_get_results(whole);
	size_t na, nb;
	uint8_t *const pa = pack(rp_replay_get_results(a), &na), *const pb = pack(rp_replay_get_results(b), &nb);
	rp_replay_merge *m = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_replay_merge_create(&m, 2), 0);
	assert_int_equal(rp_replay_merge_run(m, eb), RP_E_STATE); /* shares missing */
	assert_int_equal(rp_replay_merge_add(m, 1, pb, nb, eb), 0);
	assert_int_equal(rp_replay_merge_add(m, 0, pa, na, eb), 0);
	assert_int_equal(rp_replay_merge_add(m, 0, pa, na, eb), RP_E_STATE);
	assert_int_equal(rp_replay_merge_run(m, eb), 0);
	const rp_replay_results *const g = rp_replay_merge_results(m);
	assert_non_null(g);
	assert_int_equal(g->clients, 4);
	assert_int_equal(g->ops, w->ops);
	assert_int_equal(g->bytes, w->bytes);
	assert_int_equal(g->failures, w->failures);
	assert_int_equal(g->failures_expected, w->failures_expected);
	assert_int_equal(g->mismatches, w->mismatches);
	assert_int_equal(g->passes, w->passes);
	assert_int_equal(g->stop, RP_STOP_END);
	assert_string_equal(g->backend, "null");
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		assert_int_equal(g->op[op].count, w->op[op].count);
		assert_int_equal(g->op[op].bytes, w->op[op].bytes);
		assert_int_equal(g->op[op].failures, w->op[op].failures);
		assert_int_equal(g->op[op].hist != NULL, w->op[op].hist != NULL);
		if (g->op[op].hist)
			assert_int_equal(g->op[op].hist->count, w->op[op].hist->count);
	}
	for (unsigned e = 0; e < RP_REPLAY_ERRNO_MAX; e++)
		assert_int_equal(g->errnos[e], w->errnos[e]);
	/* The clients of the shares in order: copies 0..3, their own directories. */
	assert_int_equal(g->n_client_depth, 4);
	for (uint32_t i = 0; i < 4; i++) {
		char dir[24];
		snprintf(dir, sizeof(dir), "client%u", i + 1);
		assert_int_equal(g->client[i].clone, i);
		assert_string_equal(g->client[i].dir, dir);
		assert_int_equal(g->client[i].ops, w->client[i].ops);
		assert_int_equal(g->client_depth[i].max, 1);
		/* In flight at the target: each share's client as it counted, sums and latency. */
		const rp_replay_depth *const gd = &g->client_depth[i];
		const rp_replay_results *const src = rp_replay_get_results(i < 2 ? a : b);
		const rp_replay_depth *const sd = &src->client_depth[i % 2];
		assert_true(gd->tgt_requests > 0);
		assert_int_equal(gd->tgt_requests, sd->tgt_requests);
		assert_int_equal(gd->tgt_at_req_sum, sd->tgt_at_req_sum);
		assert_int_equal(gd->tgt_busy_ns, sd->tgt_busy_ns);
		assert_int_equal(gd->tgt_max, 1);
		assert_true(gd->tgt_mean == sd->tgt_mean);
		assert_int_equal(g->client[i].tgt_lat.count, src->client[i % 2].tgt_lat.count);
	}
	/* The run's: the clients' requests pooled, the latency histograms merged. */
	assert_int_equal(g->depth.tgt_requests, rp_replay_get_results(a)->depth.tgt_requests +
							 rp_replay_get_results(b)->depth.tgt_requests);
	assert_non_null(g->tgt_hist);
	assert_int_equal(g->tgt_hist->count, rp_replay_get_results(a)->tgt_hist->count + rp_replay_get_results(b)->tgt_hist->count);
	assert_int_equal(g->tgt_lat.count, g->tgt_hist->count);
	/* A share unpacked is the share: its counts and clients as packed. */
	const rp_replay_results *const pb2 = rp_replay_merge_part(m, 1);
	assert_int_equal(pb2->ops, rp_replay_get_results(b)->ops);
	assert_int_equal(pb2->client[0].clone, 2);
	assert_null(rp_replay_merge_part(m, 2));
	rp_replay_merge_destroy(m);
	free(pa);
	free(pb);
	rp_replay_destroy(whole);
	rp_replay_destroy(a);
	rp_replay_destroy(b);
	wl_fini(&t);
}

/* Results whose only content is one op kind's latencies, for the histogram tests. */
static void fake(rp_replay_results *res, rp_hist *h, uint64_t from, uint64_t to, uint64_t step)
{
	memset(res, 0, sizeof(*res));
	res->backend = "null";
	res->stop = RP_STOP_END;
	res->speed = 1;
	rp__hist_init(h);
	for (uint64_t v = from; v < to; v += step)
		rp__hist_add(h, v * v / 97 + 1); /* spread over several decades */
	res->op[RP_OP_READ].count = h->count;
	res->op[RP_OP_READ].hist = h;
	res->ops = h->count;
	res->hist = h;
}

/* Merged percentiles are those of one histogram fed every sample: the merge is bucket by bucket. */
static void test_merge_hist_exact(void **state)
{
	(void)state;
	rp_hist *const h = calloc(4, sizeof(*h));
	rp_replay_results ra, rb, rc;
	fake(&ra, &h[0], 1, 300000, 3);
	fake(&rb, &h[1], 2, 900000, 7);
	fake(&rc, &h[2], 5, 50000, 1);
	rp_hist *const all = &h[3];
	rp__hist_init(all);
	rp__hist_merge(all, &h[0]);
	rp__hist_merge(all, &h[1]);
	rp__hist_merge(all, &h[2]);
	const rp_replay_results *const in[] = { &ra, &rb, &rc };
	rp_replay_merge *m = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_replay_merge_create(&m, 3), 0);
	for (size_t i = 0; i < 3; i++) {
		size_t n;
		uint8_t *const p = pack(in[i], &n);
		assert_int_equal(rp_replay_merge_add(m, i, p, n, eb), 0);
		free(p);
	}
	assert_int_equal(rp_replay_merge_run(m, eb), 0);
	const rp_replay_results *const g = rp_replay_merge_results(m);
	assert_memory_equal(g->op[RP_OP_READ].hist, all, sizeof(*all));
	assert_memory_equal(g->hist, all, sizeof(*all));
	const double qs[] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		assert_int_equal(rp__hist_quantile(g->op[RP_OP_READ].hist, qs[i]), rp__hist_quantile(all, qs[i]));
	assert_true(g->op[RP_OP_READ].p99_us == (double)rp__hist_quantile(all, 0.99) / 1e3);
	assert_true(g->lat.p999_us == (double)rp__hist_quantile(all, 0.999) / 1e3);
	assert_int_equal(g->lat.count, all->count);
	assert_int_equal(g->op[RP_OP_READ].count, all->count);
	rp_replay_merge_destroy(m);
	free(h);
}

/* The run's stop reason is the most telling of its shares', by name on the wire both ways. */
static void test_merge_stop(void **state)
{
	(void)state;
	static const char *const names[] = { "end", "time", "interrupted", "mismatch", "error" };
	for (unsigned k = 0; k < RP_STOP__COUNT; k++) {
		assert_string_equal(rp_stop_name((rp_stop)k), names[k]);
		assert_int_equal(rp_stop_from_name(names[k]), (int)k);
	}
	assert_null(rp_stop_name(RP_STOP__COUNT));
	assert_int_equal(rp_stop_from_name("ended"), -1);
	const rp_stop cases[][3] = {
		{ RP_STOP_END, RP_STOP_TIME, RP_STOP_TIME },
		{ RP_STOP_MISMATCH, RP_STOP_INTERRUPTED, RP_STOP_MISMATCH },
		{ RP_STOP_ERROR, RP_STOP_MISMATCH, RP_STOP_ERROR },
		{ RP_STOP_END, RP_STOP_END, RP_STOP_END },
	};
	rp_hist *const h = calloc(2, sizeof(*h));
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		rp_replay_results ra, rb;
		fake(&ra, &h[0], 1, 1000, 3);
		fake(&rb, &h[1], 2, 1000, 7);
		ra.stop = cases[c][0];
		rb.stop = cases[c][1];
		const rp_replay_results *const in[] = { &ra, &rb };
		rp_replay_merge *m = NULL;
		char eb[RP_ERRBUF_SIZE];
		assert_int_equal(rp_replay_merge_create(&m, 2), 0);
		for (size_t i = 0; i < 2; i++) {
			size_t n;
			uint8_t *const p = pack(in[i], &n);
			assert_int_equal(rp_replay_merge_add(m, i, p, n, eb), 0);
			assert_int_equal(rp_replay_merge_part(m, i)->stop, in[i]->stop);
			free(p);
		}
		assert_int_equal(rp_replay_merge_run(m, eb), 0);
		assert_int_equal(rp_replay_merge_results(m)->stop, cases[c][2]);
		rp_replay_merge_destroy(m);
	}
	free(h);
}

/*
 * The schedule merges as one run's: the earliest first issue to the latest
 * completion of every share (from the common start), the lag p99 of the merged
 * histogram, the verdict made again; and the mismatch share over all the ops.
 */
static void test_merge_schedule(void **state)
{
	(void)state;
	rp_hist *const h = calloc(5, sizeof(*h));
	rp_replay_results ra, rb;
	fake(&ra, &h[0], 1, 1000, 3);
	fake(&rb, &h[1], 2, 1000, 7);
	rp_hist *const la = &h[2], *const lb = &h[3], *const all = &h[4];
	rp__hist_init(la);
	rp__hist_init(lb);
	rp__hist_init(all);
	/* Share a on time (lags of 1..99 us), share b late (lags up to 50 ms): b's tail is the job's p99. */
	for (uint64_t v = 1; v < 100; v++)
		rp__hist_add(la, v * 1000);
	for (uint64_t v = 1; v <= 10; v++)
		rp__hist_add(lb, v * 5000000);
	rp__hist_merge(all, la);
	rp__hist_merge(all, lb);
	ra.lag_hist = la;
	rb.lag_hist = lb;
	ra.lag_count = la->count;
	rb.lag_count = lb->count;
	ra.timing = rb.timing = RP_TIMING_TRACE;
	ra.trace_clients = rb.trace_clients = 1;
	ra.target_entries = 0;
	rb.target_entries = -1;
	const rp_replay_schedule sa = { .known = true, .first_s = 0.010, .last_s = 1.0, .sched_first_s = 0.010,
					.sched_last_s = 1.0, .max_ratio = 1.05, .max_lag_us = 10000 };
	rp_replay_schedule sb = sa;
	sb.first_s = 0.2;
	sb.last_s = 1.6;
	sb.sched_first_s = 0.1;
	sb.sched_last_s = 1.2;
	ra.schedule = sa;
	rb.schedule = sb;
	ra.mismatches = ra.ops / 100; /* 1 % each, 1 % in all: representative */
	const rp_replay_results *const in[] = { &ra, &rb };
	rp_replay_merge *m = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_replay_merge_create(&m, 2), 0);
	for (size_t i = 0; i < 2; i++) {
		size_t n;
		uint8_t *const p = pack(in[i], &n);
		assert_int_equal(rp_replay_merge_add(m, i, p, n, eb), 0);
		free(p);
	}
	/* Each share as packed, judged on its own: a is on time, b behind by its lag. */
	assert_false(rp_replay_merge_part(m, 0)->schedule.behind);
	assert_true(rp_replay_merge_part(m, 1)->schedule.behind);
	assert_true(rp_replay_merge_part(m, 1)->schedule.first_s == 0.2);
	assert_int_equal(rp_replay_merge_run(m, eb), 0);
	const rp_replay_results *const g = rp_replay_merge_results(m);
	assert_true(g->schedule.known);
	assert_true(g->schedule.first_s == 0.010 && g->schedule.last_s == 1.6);
	assert_true(g->schedule.sched_first_s == 0.010 && g->schedule.sched_last_s == 1.2);
	assert_true(g->schedule.span_s == 1.6 - 0.010);
	assert_true(g->schedule.rec_span_s == 1.2 - 0.010);
	assert_true(g->schedule.ratio == (1.6 - 0.010) / (1.2 - 0.010));
	assert_true(g->lag_p99_us == (double)rp__hist_quantile(all, 0.99) / 1e3);
	assert_true(g->lag_p99_us > 10000);
	assert_true(g->schedule.behind);
	assert_true(g->schedule.max_ratio == 1.05 && g->schedule.max_lag_us == 10000);
	assert_int_equal(g->trace_clients, 1);
	assert_int_equal(g->target_entries, 0);
	assert_true(g->representative);
	rp_replay_merge_destroy(m);
	free(h);
}

/* Every cut of a packed share, a flipped byte and another version: an error, never a crash or a share. */
static void test_unpack_hostile(void **state)
{
	(void)state;
	wl t;
	workload(&t);
	rp_replay *const r = share(&t, 3, 0);
	size_t n;
	uint8_t *const p = pack(rp_replay_get_results(r), &n);
	char eb[RP_ERRBUF_SIZE];
	for (size_t cut = 0; cut < n; cut++) {
		rp_replay_merge *m = NULL;
		assert_int_equal(rp_replay_merge_create(&m, 1), 0);
		uint8_t *const c = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees any read past them */
		memcpy(c, p, cut);
		assert_true(rp_replay_merge_add(m, 0, c, cut, eb) < 0);
		assert_null(rp_replay_merge_part(m, 0));
		free(c);
		rp_replay_merge_destroy(m);
	}
	/* Trailing bytes are corruption too. */
	uint8_t *const longer = malloc(n + 1);
	memcpy(longer, p, n);
	longer[n] = 0;
	rp_replay_merge *m = NULL;
	assert_int_equal(rp_replay_merge_create(&m, 1), 0);
	assert_int_equal(rp_replay_merge_add(m, 0, longer, n + 1, eb), RP_E_CORRUPT);
	/* Another version is refused as such. */
	longer[4] = 99;
	assert_int_equal(rp_replay_merge_add(m, 0, longer, n, eb), RP_E_VERSION);
	/* Any single byte flipped: accepted or refused, never a crash (ASan and UBSan run this). */
	for (size_t i = 8; i < n; i++) {
		rp_replay_merge *m2 = NULL;
		assert_int_equal(rp_replay_merge_create(&m2, 1), 0);
		memcpy(longer, p, n);
		longer[i] ^= 0xa5;
		(void)rp_replay_merge_add(m2, 0, longer, n, eb);
		rp_replay_merge_destroy(m2);
	}
	rp_replay_merge *none = NULL;
	assert_int_equal(rp_replay_merge_create(&none, 0), RP_E_RANGE);
	assert_null(none);
	rp_replay_merge_destroy(m);
	free(longer);
	free(p);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* A trace's clients dealt by id: 2 shares of ids {2, 5, 9} hold {2, 9} and {5}, and their runs add up to the whole. */
static void test_subset(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	const uint32_t ids[] = { 5, 2, 9 };
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < 3; i++) {
			const uint64_t h = 10 * ids[i] + (uint64_t)round;
			char path[32];
			snprintf(path, sizeof(path), "\\f%u", ids[i]);
			wl_add(&t, ids[i], RP_OP_OPEN, path, h, 0, 0, 0);
			for (uint32_t k = 0; k < ids[i]; k++) /* client id ops of its own: shares are told apart by count */
				wl_add(&t, ids[i], RP_OP_READ, NULL, h, 0, 512, 0);
			wl_add(&t, ids[i], RP_OP_CLOSE, NULL, h, 0, 0, 0);
		}
	wl_open(&t);
	char eb[RP_ERRBUF_SIZE];
	rp_workload *s0 = NULL, *s1 = NULL, *bad = NULL;
	uint32_t n = 0;
	assert_int_equal(rp_workload_open_subset(&s0, t.w, 0, 2, &n, eb), 0);
	assert_int_equal(n, 3);
	assert_int_equal(rp_workload_open_subset(&s1, t.w, 1, 2, NULL, eb), 0);
	assert_int_equal(rp_workload_open_subset(&bad, t.w, 0, 4, NULL, eb), RP_E_RANGE);
	assert_int_equal(rp_workload_open_subset(&bad, t.w, 2, 2, NULL, eb), RP_E_RANGE);
	assert_null(bad);
	uint64_t reads[2];
	rp_workload *const shares[] = { s0, s1 };
	for (int k = 0; k < 2; k++) {
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = "unused";
		o.backend = "null";
		rp_replay *r = NULL;
		assert_int_equal(rp_replay_create(&r, &o, shares[k], eb), 0);
		assert_int_equal(rp_replay_run(r, eb), 0);
		const rp_replay_results *const res = rp_replay_get_results(r);
		reads[k] = res->op[RP_OP_READ].count;
		assert_int_equal(res->clients, k == 0 ? 2 : 1);
		assert_int_equal(res->op[RP_OP_OPEN].count, 3 * res->clients);
		rp_replay_destroy(r);
	}
	assert_int_equal(reads[0], 3 * (2 + 9));
	assert_int_equal(reads[1], 3 * 5);
	rp_workload_destroy(s0);
	rp_workload_destroy(s1);
	wl_fini(&t);
	/* Clients that fork cannot be split. */
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_OPEN, "\\a", 1, 0, 0, 0);
	rp_op *const fk = wl_add(&t, 1, RP_OP_FORK, NULL, 0, 0, 0, 0);
	fk->result = 2;
	wl_add(&t, 2, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_open(&t);
	assert_int_equal(rp_workload_open_subset(&bad, t.w, 0, 2, NULL, eb), RP_E_UNSUPPORTED);
	assert_non_null(strstr(eb, "fork or wait"));
	wl_fini(&t);
}

/* A backend's mode, its fallbacks and its own requests travel with a share; the merge adds them up (by reason). */
/* Two shares' results packed, as two ranks send them, and merged. */
static rp_replay_merge *merge_two(const rp_replay_results *ra, const rp_replay_results *rb)
{
	size_t na, nb;
	uint8_t *const pa = pack(ra, &na), *const pb = pack(rb, &nb);
	rp_replay_merge *m = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_replay_merge_create(&m, 2), 0);
	assert_int_equal(rp_replay_merge_add(m, 0, pa, na, eb), 0);
	assert_int_equal(rp_replay_merge_add(m, 1, pb, nb, eb), 0);
	assert_int_equal(rp_replay_merge_run(m, eb), 0);
	free(pa);
	free(pb);
	return m;
}

static void test_merge_backend_report(void **state)
{
	(void)state;
	wl t;
	workload(&t);
	rp_replay *const a = share(&t, 1, 0), *const b = share(&t, 1, 1);
	rp_replay_results ra = *rp_replay_get_results(a), rb = *rp_replay_get_results(b);
	ra.backend_mode = rb.backend_mode = "exact";
	ra.protocol_ops = 10;
	rb.protocol_ops = 5;
	ra.own_requests = 9;
	rb.own_requests = 1;
	ra.lock_polls = 4; /* version 8: of the own requests, blocking-lock polls and lock-owner releases */
	ra.lock_releases = 3;
	rb.lock_releases = 1;
	ra.lock_expired = 1;
	rb.lock_expired = 2;
	ra.n_fallbacks = 2;
	ra.fallbacks[0].reason = "unknown fh";
	ra.fallbacks[0].count = 3;
	ra.fallbacks[1].reason = "readdir cookie";
	ra.fallbacks[1].count = 1;
	rb.n_fallbacks = 1;
	rb.fallbacks[0].reason = "unknown fh";
	rb.fallbacks[0].count = 4;
	rp_replay_merge *const m = merge_two(&ra, &rb);
	const rp_replay_results *const g = rp_replay_merge_results(m);
	assert_string_equal(g->backend_mode, "exact");
	assert_int_equal(g->protocol_ops, 15);
	assert_int_equal(g->own_requests, 10);
	assert_int_equal(g->lock_polls, 4);
	assert_int_equal(g->lock_releases, 4);
	assert_int_equal(g->lock_expired, 3);
	assert_int_equal(g->n_fallbacks, 2);
	assert_string_equal(g->fallbacks[0].reason, "unknown fh");
	assert_int_equal(g->fallbacks[0].count, 7);
	assert_string_equal(g->fallbacks[1].reason, "readdir cookie");
	assert_int_equal(g->fallbacks[1].count, 1);
	rp_replay_merge_destroy(m);
	rp_replay_destroy(a);
	rp_replay_destroy(b);
	wl_fini(&t);
}

/* A share whose ops all fell back reports semantic (replay/backends/nfs.c): one that sent some exact says the run's. */
static void merged_mode(const char *mode_a, uint64_t ops_a, const char *mode_b, uint64_t ops_b, const char *want)
{
	wl t;
	workload(&t);
	rp_replay *const a = share(&t, 1, 0), *const b = share(&t, 1, 1);
	rp_replay_results ra = *rp_replay_get_results(a), rb = *rp_replay_get_results(b);
	ra.backend_mode = mode_a;
	rb.backend_mode = mode_b;
	ra.protocol_ops = ops_a;
	rb.protocol_ops = ops_b;
	ra.n_fallbacks = rb.n_fallbacks = 1;
	ra.fallbacks[0].reason = rb.fallbacks[0].reason = "nfs4.1 session";
	ra.fallbacks[0].count = rb.fallbacks[0].count = 4;
	rp_replay_merge *const m = merge_two(&ra, &rb);
	const rp_replay_results *const g = rp_replay_merge_results(m);
	assert_string_equal(g->backend_mode, want);
	assert_int_equal(g->protocol_ops, ops_a + ops_b);
	assert_int_equal(g->fallbacks[0].count, 8);
	rp_replay_merge_destroy(m);
	rp_replay_destroy(a);
	rp_replay_destroy(b);
	wl_fini(&t);
}

/* Why a share's backend chose its mode crosses the packed form and is the merged run's. */
static void test_merge_mode_why(void **state)
{
	(void)state;
	wl t;
	workload(&t);
	rp_replay *const a = share(&t, 1, 0), *const b = share(&t, 1, 1);
	rp_replay_results ra = *rp_replay_get_results(a), rb = *rp_replay_get_results(b);
	ra.backend_mode = rb.backend_mode = "semantic";
	ra.backend_mode_why = rb.backend_mode_why = "auto: an NFSv4.1 trace";
	rp_replay_merge *const m = merge_two(&ra, &rb);
	const rp_replay_results *const g = rp_replay_merge_results(m);
	assert_string_equal(g->backend_mode, "semantic");
	assert_non_null(g->backend_mode_why);
	assert_string_equal(g->backend_mode_why, "auto: an NFSv4.1 trace");
	rp_replay_merge_destroy(m);
	ra.backend_mode_why = rb.backend_mode_why = NULL;
	rp_replay_merge *const m2 = merge_two(&ra, &rb);
	assert_null(rp_replay_merge_results(m2)->backend_mode_why);
	rp_replay_merge_destroy(m2);
	rp_replay_destroy(a);
	rp_replay_destroy(b);
	wl_fini(&t);
}

static void test_merge_mode_actually_used(void **state)
{
	(void)state;
	merged_mode("semantic", 0, "exact", 5, "exact"); /* the first share fell back whole, the second did not */
	merged_mode("exact", 5, "semantic", 0, "exact");
	merged_mode("semantic", 0, "semantic", 0, "semantic"); /* every op of every share fell back */
}

/*
 * The replay-merge fuzz corpus's raw seed (tests/mpi/corpus_replay_merge/raw: 0, then a share's magic and
 * version, then zeros) is a header this build reads, so the fuzzer starts past the version check: when
 * RP_MERGE_WIRE_VERSION moves, this says to write the seed again: its sixth byte is the version's low byte.
 */
static void test_fuzz_seed_is_current(void **state)
{
	(void)state;
	const char *const root = getenv("REPRISE_SOURCE_ROOT");
	if (!root)
		skip();
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/mpi/corpus_replay_merge/raw", root);
	FILE *const f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t seed[64];
	const size_t n = fread(seed, 1, sizeof(seed), f);
	fclose(f);
	rp_replay_results res;
	memset(&res, 0, sizeof(res));
	res.backend = "null";
	res.stop = RP_STOP_END;
	uint8_t *p = NULL;
	size_t pn = 0;
	assert_int_equal(rp_replay_results_pack(&res, &p, &pn), 0);
	assert_true(n > 9 && pn > 8);
	assert_int_equal(seed[0], 0);                /* the share itself, not edits of the real one */
	assert_memory_equal(seed + 1, p, 8);         /* magic and RP_MERGE_WIRE_VERSION, little-endian */
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_shares),
		cmocka_unit_test(test_merge_hist_exact),
		cmocka_unit_test(test_merge_stop),
		cmocka_unit_test(test_merge_schedule),
		cmocka_unit_test(test_merge_backend_report),
		cmocka_unit_test(test_merge_mode_actually_used),
		cmocka_unit_test(test_merge_mode_why),
		cmocka_unit_test(test_fuzz_seed_is_current),
		cmocka_unit_test(test_unpack_hostile),
		cmocka_unit_test(test_subset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
