/* The writer's event queue between the drain and the encoder thread (capture/preload/evq.c). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "capture/preload/evq.h"
#include "formats/error.h"

#define N 50000

/* What fn saw, checked against what make_event pushed. */
typedef struct seen {
	pthread_mutex_t mu; /* fn runs on the encoder thread, then on the test's after the join */
	uint64_t got;
	uint64_t bad;        /* events that differ from the one pushed at their index */
	uint64_t fail_at;    /* fn returns RP_E_IO for this event (0: never) */
	unsigned ticks;
	int tick_fail_after; /* tick returns RP_E_IO after this many ticks (0: never) */
	/* The gate: while closed, fn waits (an encoder that cannot keep up). */
	bool closed;
	pthread_cond_t open;
	bool on_caller; /* the last event was seen on the test's own thread */
	pthread_t caller;
} seen;

static char path_bytes[RP_SYSEV_PATH_MAX];

/* Event i: its fields and paths from i (p0 absent, empty, short or of the longest length; p1 now and then). */
static rp_sysev make_event(uint64_t i)
{
	rp_sysev ev = {
		.nr = (uint16_t)(i % 40),
		.flags = (uint16_t)(i % 3),
		.pid = (uint32_t)(1000 + i % 7),
		.tid = (uint32_t)(2000 + i % 11),
		.ret = -(int64_t)(i % 5),
		.t_start = 1000000 + i * 10,
		.t_end = 1000000 + i * 10 + 3,
	};
	for (int k = 0; k < RP_SYSEV_ARGS; k++)
		ev.a[k] = (int64_t)(i * 31 + (uint64_t)k) - 100;
	/* the extremes of every field the queue writes compactly, and times that go back */
	if (i % 13 == 0) {
		ev.a[0] = INT64_MIN, ev.a[1] = INT64_MAX, ev.a[2] = -1, ev.a[5] = (int64_t)1 << 40;
		ev.ret = INT64_MIN;
		ev.pid = UINT32_MAX, ev.tid = 0;
		ev.nr = UINT16_MAX, ev.flags = UINT16_MAX;
	}
	if (i % 17 == 0) {
		ev.t_start = i % 2 ? UINT64_MAX - i : i; /* far from the previous, either way */
		ev.t_end = ev.t_start - 5;               /* an end before the start passes as it came */
	}
	switch (i % 5) {
	case 0: break;                                               /* no path */
	case 1: ev.p[0] = path_bytes, ev.plen[0] = 0; break;         /* present and empty */
	case 2: ev.p[0] = path_bytes + i % 97, ev.plen[0] = (uint32_t)(i % 200); break;
	case 3: ev.p[0] = path_bytes, ev.plen[0] = RP_SYSEV_PATH_MAX; break;
	default: ev.p[0] = path_bytes + 5, ev.plen[0] = 17, ev.p[1] = path_bytes + 9, ev.plen[1] = (uint32_t)(i % 300); break;
	}
	return ev;
}

static bool same_path(const char *a, uint32_t la, const char *b, uint32_t lb)
{
	if (!a || !b)
		return !a && !b;
	return la == lb && memcmp(a, b, la) == 0;
}

static bool same_event(const rp_sysev *a, const rp_sysev *b)
{
	return a->nr == b->nr && a->flags == b->flags && a->pid == b->pid && a->tid == b->tid && a->ret == b->ret &&
	       a->t_start == b->t_start && a->t_end == b->t_end && memcmp(a->a, b->a, sizeof a->a) == 0 &&
	       same_path(a->p[0], a->plen[0], b->p[0], b->plen[0]) && same_path(a->p[1], a->plen[1], b->p[1], b->plen[1]);
}

static int fn(void *ctx, const rp_sysev *ev)
{
	seen *const s = ctx;
	pthread_mutex_lock(&s->mu);
	while (s->closed)
		pthread_cond_wait(&s->open, &s->mu);
	const uint64_t i = s->got++;
	const rp_sysev want = make_event(i);
	if (!same_event(ev, &want))
		s->bad++;
	s->on_caller = pthread_equal(pthread_self(), s->caller);
	const int rc = s->fail_at && i + 1 == s->fail_at ? RP_E_IO : 0;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

static int tick(void *ctx)
{
	seen *const s = ctx;
	pthread_mutex_lock(&s->mu);
	const int rc = s->tick_fail_after && ++s->ticks > (unsigned)s->tick_fail_after ? RP_E_IO : 0;
	if (!s->tick_fail_after)
		s->ticks++;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

static void seen_init(seen *s)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->open, NULL);
	s->caller = pthread_self();
}

/* A queue over s, made ready by seen_init and the test (o: NULL for the defaults). */
static rp_evq *start(seen *s, const rp_evq_opts *o)
{
	rp_evq *q;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_evq_create(&q, fn, s, o, eb), 0);
	return q;
}

/* Let a gated fn go on. */
static void gate_open(seen *s)
{
	pthread_mutex_lock(&s->mu);
	s->closed = false;
	pthread_cond_broadcast(&s->open);
	pthread_mutex_unlock(&s->mu);
}

static uint64_t got(seen *s)
{
	pthread_mutex_lock(&s->mu);
	const uint64_t g = s->got;
	pthread_mutex_unlock(&s->mu);
	return g;
}

/* Every event, in push order, fields and paths (absent and empty told apart), on both threads. */
static void test_order_and_paths(void **state)
{
	(void)state;
	for (int idle = 0; idle < 2; idle++) {
		seen s;
		seen_init(&s);
		rp_evq *q;
		char eb[RP_ERRBUF_SIZE];
		const rp_evq_opts o = {.idle = idle, .tick = tick};
		assert_int_equal(rp_evq_create(&q, fn, &s, &o, eb), 0);
		for (uint64_t i = 0; i < N; i++) {
			const rp_sysev ev = make_event(i);
			assert_int_equal(rp_evq_push(q, &ev), 0);
			if (i % 1000 == 999)
				assert_int_equal(rp_evq_publish(q), 0);
		}
		assert_int_equal(rp_evq_finish(q, false), 0);
		assert_int_equal(s.got, N);
		assert_int_equal(s.bad, 0);
		assert_true(s.ticks > 0);
		assert_int_equal(rp_evq_get_stats(q)->events, N);
		assert_true(rp_evq_get_stats(q)->max_queued > 0);
		/* finished: no more pushes */
		const rp_sysev ev = make_event(0);
		assert_int_equal(rp_evq_push(q, &ev), RP_E_STATE);
		rp_evq_destroy(q);
	}
}

/* Nothing published before the finish: the caller's thread encodes it all, in order. */
static void test_finish_encodes_the_rest(void **state)
{
	(void)state;
	seen s;
	seen_init(&s);
	rp_evq *const q = start(&s, NULL);
	for (uint64_t i = 0; i < 100; i++) {
		const rp_sysev ev = make_event(i);
		assert_int_equal(rp_evq_push(q, &ev), 0);
	}
	assert_int_equal(rp_evq_finish(q, false), 0);
	assert_int_equal(s.got, 100);
	assert_int_equal(s.bad, 0);
	assert_true(s.on_caller);
	assert_int_equal(rp_evq_finish(q, false), 0); /* a second finish does nothing */
	assert_int_equal(s.got, 100);
	rp_evq_destroy(q);
}

/* discard: what the thread did not reach is dropped, never encoded twice or out of order. */
static void test_discard(void **state)
{
	(void)state;
	seen s;
	seen_init(&s);
	s.closed = true;
	rp_evq *const q = start(&s, NULL);
	for (uint64_t i = 0; i < 3000; i++) {
		const rp_sysev ev = make_event(i);
		assert_int_equal(rp_evq_push(q, &ev), 0);
	}
	assert_int_equal(rp_evq_publish(q), 0);
	gate_open(&s);
	assert_int_equal(rp_evq_finish(q, true), 0);
	/* the thread stops at a batch's end: what it took came in order, each once (bad counts by index) */
	assert_true(s.got <= 3000);
	assert_int_equal(s.bad, 0);
	assert_int_equal(rp_evq_get_stats(q)->events, 3000);
	rp_evq_destroy(q);
}

typedef struct drain_arg {
	rp_evq *q;
	int rc;
	bool done;
	pthread_mutex_t mu;
} drain_arg;

/* Pushes 3 full chunks of events and publishes: more than a 64 KiB queue holds. */
static void *drain(void *arg)
{
	drain_arg *const d = arg;
	int rc = 0;
	for (uint64_t i = 0; i < 30000 && rc == 0; i++) {
		const rp_sysev ev = make_event(i);
		rc = rp_evq_push(d->q, &ev);
	}
	if (rc == 0)
		rc = rp_evq_publish(d->q);
	pthread_mutex_lock(&d->mu);
	d->rc = rc;
	d->done = true;
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* A full queue holds the drain until the encoder makes room; nothing is lost. */
static void test_full_queue_waits(void **state)
{
	(void)state;
	seen s;
	seen_init(&s);
	s.closed = true;
	const rp_evq_opts o = {.max_bytes = 64 << 10, .idle = true};
	rp_evq *const q = start(&s, &o);
	drain_arg d = {.q = q};
	pthread_mutex_init(&d.mu, NULL);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, drain, &d), 0);
	/* The encoder is held in its first event: the drain cannot be done (it needs room for 30,000). */
	const struct timespec pause = {0, 50 * 1000 * 1000};
	nanosleep(&pause, NULL);
	pthread_mutex_lock(&d.mu);
	const bool done_early = d.done;
	pthread_mutex_unlock(&d.mu);
	assert_false(done_early);
	gate_open(&s);
	pthread_join(t, NULL);
	assert_int_equal(d.rc, 0);
	assert_int_equal(rp_evq_finish(q, false), 0);
	assert_int_equal(s.got, 30000);
	assert_int_equal(s.bad, 0);
	assert_true(rp_evq_get_stats(q)->full_waits >= 1);
	/* the bound held: at most the bound and one chunk (the one being filled when it was reached) */
	assert_true(rp_evq_get_stats(q)->max_queued <= (64u << 10) + (1u << 20));
	rp_evq_destroy(q);
}

/* fn's error stops the encoder: it is what publish and finish return; later events are not encoded. */
static void test_fn_error(void **state)
{
	(void)state;
	seen s;
	seen_init(&s);
	s.fail_at = 10;
	rp_evq *const q = start(&s, NULL);
	int rc = 0;
	for (uint64_t i = 0; i < 200000 && rc == 0; i++) {
		const rp_sysev ev = make_event(i);
		rc = rp_evq_push(q, &ev);
		if (rc == 0 && i % 100 == 99)
			rc = rp_evq_publish(q);
		if (rc == 0 && i == 100)
			while (got(&s) < 10) /* the encoder has reached the failing event */
				sched_yield();
	}
	assert_int_equal(rc, RP_E_IO); /* said by a push or publish after the failure */
	assert_int_equal(rp_evq_finish(q, false), RP_E_IO);
	assert_int_equal(s.got, 10);
	rp_evq_destroy(q);
}

/* tick's error stops the encoder as fn's does. */
static void test_tick_error(void **state)
{
	(void)state;
	seen s;
	seen_init(&s);
	s.tick_fail_after = 2;
	const rp_evq_opts o = {.tick = tick};
	rp_evq *const q = start(&s, &o);
	/* a chunk filled hands it to the thread: the error may already be there for a later push */
	int rc = 0;
	for (uint64_t i = 0; i < 5000 && rc == 0; i++) {
		const rp_sysev ev = make_event(i);
		rc = rp_evq_push(q, &ev);
	}
	assert_true(rc == 0 || rc == RP_E_IO);
	assert_int_equal(rp_evq_finish(q, false), RP_E_IO);
	/* at most three batches: two ticks passed, the third failed */
	assert_true(s.got <= 3 * RP_EVQ_BATCH);
	assert_int_equal(s.bad, 0);
	rp_evq_destroy(q);
}

/* Made and destroyed without a finish, with events queued: the thread stops, nothing leaks (ASan). */
static void test_destroy_unfinished(void **state)
{
	(void)state;
	seen s;
	seen_init(&s);
	rp_evq *const q = start(&s, NULL);
	for (uint64_t i = 0; i < 20000; i++) {
		const rp_sysev ev = make_event(i);
		assert_int_equal(rp_evq_push(q, &ev), 0);
	}
	assert_int_equal(rp_evq_publish(q), 0);
	rp_evq_destroy(q);
	assert_int_equal(s.bad, 0);
	rp_evq_destroy(NULL);
}

int main(void)
{
	for (size_t i = 0; i < sizeof path_bytes; i++)
		path_bytes[i] = (char)('a' + i % 26);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_paths),
		cmocka_unit_test(test_finish_encodes_the_rest),
		cmocka_unit_test(test_discard),
		cmocka_unit_test(test_full_queue_waits),
		cmocka_unit_test(test_fn_error),
		cmocka_unit_test(test_tick_error),
		cmocka_unit_test(test_destroy_unfinished),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
