/* Timing tests with an injected clock: the schedule, its absolute deadlines, the issue-lag bookkeeping, the span kept or not. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/*
 * A per-thread fake clock: reading it costs nothing, sleeping lands `late` ns
 * after the deadline, and the backend can charge a service time to an op.
 */
static uint64_t base_t = 5000000000ull;
static _Thread_local uint64_t now_t;
static uint64_t late = 3000;

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return now_t ? now_t : base_t;
}
static void fake_sleep(void *ctx, uint64_t d)
{
	(void)ctx;
	if (!now_t)
		now_t = base_t;
	if (d > now_t)
		now_t = d + late;
}
static void on_thread(void *ctx, uint32_t client)
{
	(void)ctx, (void)client;
	now_t = base_t;
}

/* The recording backend: issue time of every op, by client and op sequence (in op->mode). */
#define MAXREC 256
static uint64_t issued[4][MAXREC];
static uint64_t service[MAXREC]; /* ns to charge to op with this sequence number */

typedef struct tc {
	int id;
} tc;
static _Atomic int next_id;

static int t_create(void **b, const rp_backend_args *a, char *eb)
{
	(void)a, (void)eb;
	*b = NULL;
	return 0;
}
static void t_destroy(void *b)
{
	(void)b;
}
static int t_client_init(void *b, void *c, const char *dir, char *eb)
{
	(void)b, (void)eb;
	((tc *)c)->id = dir[0] ? dir[strlen(dir) - 1] - '1' : atomic_fetch_add(&next_id, 1);
	return 0;
}
static void t_client_fini(void *b, void *c)
{
	(void)b, (void)c;
}
static int t_submit(void *b, void *cs, rp_breq *req)
{
	(void)b;
	const tc *const c = cs;
	const uint32_t seq = req->op->mode;
	if (c->id >= 0 && c->id < 4 && seq < MAXREC) {
		issued[c->id][seq] = fake_now(NULL);
		now_t = fake_now(NULL) + service[seq];
	}
	req->status = 0;
	return 0;
}
static void t_release(void *b, void *c, uint64_t bh)
{
	(void)b, (void)c, (void)bh;
}
static const rp_backend_ops t_ops = {
	.version = RP_BACKEND_VERSION, .name = "timing", .summary = "test", .client_size = sizeof(tc),
	.create = t_create, .destroy = t_destroy, .client_init = t_client_init,
	.client_fini = t_client_fini, .submit = t_submit, .release = t_release,
};

static const rp_replay_clock fake = { fake_now, fake_sleep, NULL };

static void reset(void)
{
	memset(issued, 0, sizeof(issued));
	memset(service, 0, sizeof(service));
	atomic_store(&next_id, 0);
	now_t = 0;
}

/* n ops, op i recorded at start_ns(i) .. start_ns(i) + dur_ns; sequence number i in mode. */
static void build(wl *t, int n, uint64_t step_ns, uint64_t dur_ns)
{
	wl_init(t, RP_SRC_LOADFILE_SMB);
	t->meta.flags = RP_META_TIMED;
	for (int i = 0; i < n; i++) {
		rp_op *const op = wl_add(t, 1, RP_OP_STAT, "\\a", 0, 0, 0, 0);
		op->t_start = (uint64_t)i * step_ns;
		op->t_end = dur_ns ? op->t_start + dur_ns : RP_TIME_UNKNOWN;
		op->mode = (uint32_t)i;
	}
}

static const rp_replay_results *go(wl *t, rp_replay_opts *o, rp_replay **rout)
{
	o->target = "unused";
	o->backend_ops = &t_ops;
	o->clock = &fake;
	o->on_thread = on_thread;
	o->no_prepare = true; /* prepare would be one more client of the recording backend */
	char eb[RP_ERRBUF_SIZE];
	if (rp_replay_create(rout, o, wl_open(t), eb) < 0 || rp_replay_run(*rout, eb) < 0)
		fail_msg("%s", eb);
	return rp_replay_get_results(*rout);
}

static void assert_near(double got, double want, double tol)
{
	if (got < want - tol || got > want + tol)
		fail_msg("%f is not %f +- %f", got, want, tol);
}

/* trace: op i at t0 + i ms; every sleep lands 3 us late, and that is the lag recorded. */
static void test_trace_schedule(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	rp_replay *r;
	const rp_replay_results *const res = go(&t, &o, &r);
	const uint64_t t0 = base_t;
	/* The first op is due at the start itself: no sleep, no lag. */
	assert_int_equal(issued[0][0], t0);
	for (int i = 1; i < 10; i++)
		assert_int_equal(issued[0][i], t0 + (uint64_t)i * 1000000 + late);
	assert_int_equal(res->lag_count, 10);
	assert_near(res->lag_p50_us, 3.0, 0.03);
	assert_near(res->lag_max_us, 3.0, 0.001);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* A 5.5 ms stall makes the next ops late, but the schedule is absolute: op 9 is on time again. */
static void test_trace_no_accumulation(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	service[3] = 5500000;
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	rp_replay *r;
	const rp_replay_results *const res = go(&t, &o, &r);
	const uint64_t t0 = base_t;
	const uint64_t stall_end = issued[0][3] + 5500000;
	for (int i = 4; i <= 8; i++)
		assert_int_equal(issued[0][i], stall_end); /* issued at once, each later than its slot */
	assert_int_equal(issued[0][9], t0 + 9000000 + late);
	/* Lags: 3 us x 5, then 4.503, 3.503, 2.503, 1.503, 0.503 ms. */
	assert_near(res->lag_max_us, 4503.0, 0.001);
	assert_near(res->lag_p50_us, 3.0, 0.03);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* --speed 2 halves every recorded interval. */
static void test_trace_speed(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	o.speed = 2;
	rp_replay *r;
	go(&t, &o, &r);
	const uint64_t t0 = base_t;
	for (int i = 1; i < 10; i++)
		assert_int_equal(issued[0][i], t0 + (uint64_t)i * 500000 + late);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* think: each op starts its recorded gap (800 us) after the previous one ended, whatever it took. */
static void test_think(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 200000);
	for (int i = 0; i < 10; i++)
		service[i] = (uint64_t)(i + 1) * 50000;
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_THINK;
	rp_replay *r;
	const rp_replay_results *const res = go(&t, &o, &r);
	for (int i = 1; i < 10; i++)
		assert_int_equal(issued[0][i], issued[0][i - 1] + service[i - 1] + 800000 + late);
	assert_near(res->lag_max_us, 3.0, 0.001);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* Looping in trace mode: passes follow each other one mean gap apart; warm-up and end are exact. */
static void test_trace_loop_window(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	o.duration_s = 0.05;
	o.warmup_s = 0.01;
	rp_replay *r;
	const rp_replay_results *const res = go(&t, &o, &r);
	assert_int_equal(res->stop, RP_STOP_TIME);
	assert_int_equal(res->warmup_ops, 10);
	assert_int_equal(res->ops, 50);
	assert_int_equal(res->passes, 6);
	assert_near(res->elapsed_s, 0.05, 1e-9);
	assert_near(res->ops_per_sec, 1000, 1e-6);
	assert_near(res->lag_max_us, 3.0, 0.001);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* --clone-offset: copy k starts k offsets after the first. */
static void test_clone_offset(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 5, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	o.clones = 3;
	o.clone_offset_s = 0.1;
	rp_replay *r;
	go(&t, &o, &r);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 5; i++)
			assert_int_equal(issued[k][i], base_t + (uint64_t)k * 100000000 + (uint64_t)i * 1000000 +
								(k || i ? late : 0));
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* afap records no lag at all. */
static void test_afap_no_lag(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	rp_replay *r;
	const rp_replay_results *const res = go(&t, &o, &r);
	assert_int_equal(res->lag_count, 0);
	assert_int_equal(res->ops, 10);
	for (int i = 1; i < 10; i++)
		assert_int_equal(issued[0][i], issued[0][0]);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* On time: the ops took the recorded 9 ms and the last one's 3 us of lag; nothing fell behind. */
static void test_span_on_time(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	rp_replay *r;
	const rp_replay_schedule *const s = &go(&t, &o, &r)->schedule;
	assert_true(s->known);
	assert_near(s->first_s, 0, 1e-12);
	assert_near(s->last_s, 0.009003, 1e-12);
	assert_near(s->sched_first_s, 0, 1e-12);
	assert_near(s->rec_span_s, 0.009, 1e-12);
	assert_near(s->span_s, 0.009003, 1e-12);
	assert_near(s->ratio, 9.003 / 9, 1e-9);
	assert_near(s->max_ratio, 1.05, 0);
	assert_near(s->max_lag_us, 10000, 1e-9);
	assert_false(s->behind);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * Ops 1 ms apart that take 5 ms each: op i goes at 5i ms, the last ends at
 * 50 ms for 9 recorded (x5.56), its lag 36 ms: behind on both counts, and on
 * either alone when the other threshold is out of reach.
 */
static void test_span_behind(void **state)
{
	(void)state;
	const struct {
		double span, lag_s;
		bool behind;
	} cases[] = { { 1.05, 0.010, true }, { 10, 0.010, true }, { 5, 1, true }, { 6, 0.037, false } };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		reset();
		wl t;
		build(&t, 10, 1000000, 0);
		for (int i = 0; i < 10; i++)
			service[i] = 5000000;
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.timing = RP_TIMING_TRACE;
		o.behind_span = cases[k].span;
		o.behind_lag_s = cases[k].lag_s;
		rp_replay *r;
		const rp_replay_results *const res = go(&t, &o, &r);
		const rp_replay_schedule *const s = &res->schedule;
		assert_near(s->span_s, 0.050, 1e-12);
		assert_near(s->rec_span_s, 0.009, 1e-12);
		assert_near(s->ratio, 50.0 / 9, 1e-9);
		assert_near(res->lag_p99_us, 36000, 36000 * 0.004);
		assert_near(res->lag_max_us, 36000, 1e-6);
		assert_int_equal(s->behind, cases[k].behind);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* --speed 2: the recorded span counts half. */
static void test_span_speed(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	o.speed = 2;
	rp_replay *r;
	const rp_replay_schedule *const s = &go(&t, &o, &r)->schedule;
	assert_near(s->rec_span_s, 0.0045, 1e-12);
	assert_near(s->span_s, 0.004503, 1e-12);
	assert_false(s->behind);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * think: the recorded span is 9.2 ms (10 ops of 200 us, 1 ms apart).  Ops that
 * take 2 ms keep their 800 us gaps and end at 27.227 ms: x2.96, behind by the
 * span while the lag stays 3 us; ops that take 200 us keep the span.
 */
static void test_span_think(void **state)
{
	(void)state;
	const uint64_t took[] = { 2000000, 200000 };
	const double span[] = { 9 * 0.002803 + 0.002, 9 * 0.001003 + 0.0002 };
	for (size_t k = 0; k < 2; k++) {
		reset();
		wl t;
		build(&t, 10, 1000000, 200000);
		for (int i = 0; i < 10; i++)
			service[i] = took[k];
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.timing = RP_TIMING_THINK;
		rp_replay *r;
		const rp_replay_results *const res = go(&t, &o, &r);
		const rp_replay_schedule *const s = &res->schedule;
		assert_near(s->rec_span_s, 0.0092, 1e-12);
		assert_near(s->span_s, span[k], 1e-12);
		assert_near(res->lag_max_us, 3.0, 0.001);
		assert_int_equal(s->behind, k == 0);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/*
 * Looping with a warm-up: only the measured ops, from the warm-up's end (the
 * first at 10.003 ms) to the time limit (the last at 59 ms), on both sides.
 */
static void test_span_loop_warmup(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	o.duration_s = 0.05;
	o.warmup_s = 0.01;
	rp_replay *r;
	const rp_replay_schedule *const s = &go(&t, &o, &r)->schedule;
	assert_near(s->first_s, 0.010003, 1e-12);
	assert_near(s->sched_first_s, 0.010, 1e-12);
	assert_near(s->last_s, 0.059003, 1e-12);
	assert_near(s->sched_last_s, 0.059, 1e-12);
	assert_near(s->ratio, 1.0, 1e-9);
	assert_false(s->behind);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* Copies 100 ms apart: the offsets are in the schedule, so the run's span is the three copies'. */
static void test_span_clones(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 5, 1000000, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.timing = RP_TIMING_TRACE;
	o.clones = 3;
	o.clone_offset_s = 0.1;
	rp_replay *r;
	const rp_replay_schedule *const s = &go(&t, &o, &r)->schedule;
	assert_near(s->rec_span_s, 0.204, 1e-12);
	assert_near(s->span_s, 0.204003, 1e-12);
	assert_false(s->behind);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* Every op recorded at one instant: no span to compare (ratio -1); the lag alone says behind. */
static void test_span_one_instant(void **state)
{
	(void)state;
	const uint64_t took[] = { 1000000, 5000000 };
	for (size_t k = 0; k < 2; k++) {
		reset();
		wl t;
		build(&t, 5, 0, 0);
		for (int i = 0; i < 5; i++)
			service[i] = took[k];
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.timing = RP_TIMING_TRACE;
		rp_replay *r;
		const rp_replay_results *const res = go(&t, &o, &r);
		assert_true(res->schedule.known);
		assert_near(res->schedule.ratio, -1, 0);
		assert_near(res->schedule.span_s, 5e-9 * (double)took[k], 1e-12);
		assert_int_equal(res->schedule.behind, k == 1); /* lag p99 4 ms, then 20 ms */
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* afap has no schedule: nothing known, never behind. */
static void test_span_afap(void **state)
{
	(void)state;
	reset();
	wl t;
	build(&t, 10, 1000000, 0);
	for (int i = 0; i < 10; i++)
		service[i] = 5000000;
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	rp_replay *r;
	const rp_replay_results *const res = go(&t, &o, &r);
	assert_false(res->schedule.known);
	assert_false(res->schedule.behind);
	assert_near(res->schedule.ratio, -1, 0);
	rp_replay_destroy(r);
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_schedule),
		cmocka_unit_test(test_trace_no_accumulation),
		cmocka_unit_test(test_trace_speed),
		cmocka_unit_test(test_think),
		cmocka_unit_test(test_trace_loop_window),
		cmocka_unit_test(test_clone_offset),
		cmocka_unit_test(test_afap_no_lag),
		cmocka_unit_test(test_span_on_time),
		cmocka_unit_test(test_span_behind),
		cmocka_unit_test(test_span_speed),
		cmocka_unit_test(test_span_think),
		cmocka_unit_test(test_span_loop_warmup),
		cmocka_unit_test(test_span_clones),
		cmocka_unit_test(test_span_one_instant),
		cmocka_unit_test(test_span_afap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
