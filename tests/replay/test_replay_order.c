/*
 * --order=resource (replay/order.c): ops on one path keep their recorded
 * order across clients.  A recording backend logs each op's tag (its uid) as
 * it completes and makes chosen ops slow, so the order is asserted from the
 * log, never from timings.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

/* ---- A recording backend ---------------------------------------------------------------- */

#define LOG_MAX 100000
#define SLOW_UID 1000 /* an op with uid >= this sleeps (uid - SLOW_UID) ms before it completes */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry {
	uint32_t tag;
	char dir[24];
} log_e[LOG_MAX];
static size_t log_n;
static _Atomic uint64_t next_bh = 1;

typedef struct rec_client {
	char dir[24];
} rec_client;

static int rec_create(void **b, const rp_backend_args *a, char *eb)
{
	(void)a, (void)eb;
	*b = (void *)1;
	return 0;
}
static void rec_destroy(void *b)
{
	(void)b;
}
static int rec_client_init(void *b, void *c, const char *dir, char *eb)
{
	(void)b, (void)eb;
	snprintf(((rec_client *)c)->dir, sizeof(((rec_client *)c)->dir), "%s", dir);
	return 0;
}
static int rec_submit(void *b, void *c, rp_breq *req)
{
	(void)b;
	const rp_op *const op = req->op;
	const uint32_t uid = op->uid;
	if (uid >= SLOW_UID) {
		const long ms = (long)(uid - SLOW_UID) % 1000;
		const struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	req->status = req->no_handle ? EBADF : op->status;
	req->result = op->op == RP_OP_READ || op->op == RP_OP_WRITE ? op->length : 0;
	if (op->op == RP_OP_OPEN && req->status == 0)
		req->bh = atomic_fetch_add(&next_bh, 1);
	if (op->gid) { /* the tag: gid, so the slow marker (uid) stays apart */
		pthread_mutex_lock(&log_mu);
		if (log_n < LOG_MAX) {
			log_e[log_n].tag = op->gid;
			snprintf(log_e[log_n].dir, sizeof(log_e[log_n].dir), "%s", ((rec_client *)c)->dir);
			log_n++;
		}
		pthread_mutex_unlock(&log_mu);
	}
	if (req->cb)
		req->cb(req);
	return 0;
}
static void rec_release(void *b, void *c, uint64_t bh)
{
	(void)b, (void)c, (void)bh;
}

static const rp_backend_ops rec_ops = {
	.version = RP_BACKEND_VERSION, .name = "rec", .summary = "records completions", .client_size = sizeof(rec_client),
	.caps = RP_BCAP_MT_CLIENT, .create = rec_create, .destroy = rec_destroy, .client_init = rec_client_init,
	.submit = rec_submit, .release = rec_release,
};

static void log_reset(void)
{
	pthread_mutex_lock(&log_mu);
	log_n = 0;
	pthread_mutex_unlock(&log_mu);
}

/* The tags logged in dir, in completion order, into out (at most cap); how many. */
static size_t log_tags(const char *dir, uint32_t *out, size_t cap)
{
	size_t n = 0;
	pthread_mutex_lock(&log_mu);
	for (size_t i = 0; i < log_n && n < cap; i++)
		if (strcmp(log_e[i].dir, dir) == 0)
			out[n++] = log_e[i].tag;
	pthread_mutex_unlock(&log_mu);
	return n;
}

/* ---- Helpers ------------------------------------------------------------------------------ */

/* An op at recorded time t (us), tagged, slow_ms late when it completes (0: at once). */
static rp_op *at(wl *t, uint32_t client, uint64_t t_us, unsigned opcode, const char *path, uint32_t tag, unsigned slow_ms)
{
	rp_op *const op = wl_add(t, client, opcode, path, 0, 0, 0, 0);
	op->t_start = t_us * 1000;
	op->t_end = op->t_start + 1000;
	op->gid = tag;
	op->uid = slow_ms ? SLOW_UID + slow_ms : 0;
	return op;
}

static void opts(rp_replay_opts *o)
{
	rp_replay_opts_init(o);
	o->target = "/nonexistent-unused";
	o->backend_ops = &rec_ops;
	o->no_prepare = true;
	o->order = RP_ORDER_RESOURCE;
}

static const rp_replay_results *run(wl *t, const rp_replay_opts *o, rp_replay **r)
{
	char eb[RP_ERRBUF_SIZE];
	log_reset();
	if (rp_replay_create(r, o, wl_open(t), eb) < 0 || rp_replay_run(*r, eb) < 0)
		fail_msg("%s", eb);
	return rp_replay_get_results(*r);
}

/* Where tag completed in the log (its first completion); fails when it did not. */
static size_t pos_of(uint32_t tag)
{
	uint32_t got[64];
	const size_t n = log_tags("", got, 64);
	for (size_t i = 0; i < n; i++)
		if (got[i] == tag)
			return i;
	fail_msg("tag %u never completed", tag);
	return 0;
}

static void expect_tags(const char *dir, const uint32_t *want, size_t n)
{
	uint32_t got[64];
	const size_t k = log_tags(dir, got, 64);
	assert_int_equal(k, n);
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("dir '%s': completion %zu is tag %u, want %u", dir, i, got[i], want[i]);
}

/* ---- Tests -------------------------------------------------------------------------------- */

/*
 * Two clients on one path: client 2's unlink was recorded after client 1's
 * open, and client 1 is slow (its first op takes 50 ms), so without the order
 * the unlink would come first; with it, it waits.  Both with one op at a time
 * and through the window, on the client thread and on workers.
 */
static void test_two_clients(void **state)
{
	(void)state;
	for (uint32_t inflight = 1; inflight <= 4; inflight += 3) {
		wl t;
		wl_init(&t, RP_SRC_SYSCALL);
		at(&t, 1, 10, RP_OP_STAT, "/other", 0, 50); /* the lag: 50 ms before client 1 reaches "f" */
		at(&t, 1, 20, RP_OP_STAT, "/f", 1, 0);
		at(&t, 2, 30, RP_OP_UNLINK, "/f", 2, 0);
		at(&t, 1, 40, RP_OP_STAT, "/f", 3, 0)->status = ENOENT;
		rp_replay_opts o;
		opts(&o);
		o.max_inflight = inflight;
		rp_replay *r;
		const rp_replay_results *const res = run(&t, &o, &r);
		static const uint32_t want[] = { 1, 2, 3 };
		expect_tags("", want, 3);
		assert_int_equal(res->mismatches, 0);
		assert_int_equal(res->order, RP_ORDER_RESOURCE);
		assert_int_equal(res->order_resources, 2);
		assert_true(res->order_bytes > 0);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/*
 * A blocking lock granted in the recording (client 2's, started at 20 us while
 * client 1 held the range, granted at 60 us after client 1's unlock at 50 us)
 * takes its place on the file when it was granted: after that unlock, which
 * keyed by its start would wait for the lock that waits for it.  A blocking
 * lock the recording saw denied keeps its start.
 */
static void test_blocking_lock(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	at(&t, 1, 10, RP_OP_LOCK, "/f", 1, 0)->flags = RP_OPF_EXCLUSIVE;
	rp_op *const w = at(&t, 2, 20, RP_OP_LOCK, "/f", 2, 0);
	w->flags = RP_OPF_EXCLUSIVE | RP_OPF_WAIT;
	w->t_end = 60 * 1000u;
	at(&t, 1, 50, RP_OP_UNLOCK, "/f", 3, 0);
	at(&t, 2, 70, RP_OP_UNLOCK, "/f", 4, 0);
	rp_op *const d = at(&t, 3, 80, RP_OP_LOCK, "/f", 5, 0); /* denied as recorded: by its start */
	d->flags = RP_OPF_EXCLUSIVE | RP_OPF_WAIT;
	d->status = EAGAIN;
	d->t_end = 200 * 1000u;
	at(&t, 1, 90, RP_OP_STAT, "/f", 6, 0);
	rp_replay_opts o;
	opts(&o);
	rp_replay *r;
	(void)run(&t, &o, &r);
	static const uint32_t want[] = { 1, 3, 2, 4, 5, 6 };
	expect_tags("", want, 6);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* The default keeps no order across clients: nothing is scanned, and no op waits. */
static void test_client_order_default(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	at(&t, 1, 20, RP_OP_STAT, "/f", 1, 20);
	at(&t, 2, 30, RP_OP_UNLINK, "/f", 2, 0);
	rp_replay_opts o;
	opts(&o);
	o.order = RP_ORDER_CLIENT;
	rp_replay *r;
	const rp_replay_results *const res = run(&t, &o, &r);
	assert_int_equal(res->order, RP_ORDER_CLIENT);
	assert_int_equal(res->order_resources, 0);
	assert_int_equal(res->order_waits, 0);
	assert_int_equal(res->client[0].order_waits + res->client[1].order_waits, 0);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * Three clients and rename's two paths: the create of a, the rename a -> b,
 * a stat of b, each in its own client, the first two slow: the stat of b
 * waits for the rename (its path2), which waits for the create.  An op on a
 * handle without a path is ordered by its open's path.
 */
static void test_three_clients_rename(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	rp_op *const op = at(&t, 1, 10, RP_OP_OPEN, "/a", 1, 30);
	op->handle = 7;
	op->disp = RP_DISP_CREATE;
	rp_op *const w = at(&t, 1, 15, RP_OP_WRITE, NULL, 2, 20);
	w->handle = 7;
	w->length = 10;
	w->result = 10;
	rp_op *const rn = at(&t, 2, 20, RP_OP_RENAME, "/a", 3, 20);
	rn->path2 = wl_str(&t, "/b");
	at(&t, 3, 30, RP_OP_STAT, "/b", 4, 0);
	at(&t, 3, 31, RP_OP_STAT, "/c", 0, 0);
	rp_op *const cl = at(&t, 1, 40, RP_OP_CLOSE, NULL, 5, 0);
	cl->handle = 7;
	rp_replay_opts o;
	opts(&o);
	rp_replay *r;
	const rp_replay_results *const res = run(&t, &o, &r);
	/* On a: open, write, rename, close; on b: rename, stat (the stat and the close are unordered). */
	assert_true(pos_of(1) < pos_of(2));
	assert_true(pos_of(2) < pos_of(3));
	assert_true(pos_of(3) < pos_of(4));
	assert_true(pos_of(3) < pos_of(5));
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->order_resources, 3);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * Copies (--clients 2) are independent: each copy keeps its own order on its
 * own "f", whatever the other copy does.
 */
static void test_copies(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	at(&t, 1, 10, RP_OP_STAT, "/f", 1, 30);
	at(&t, 2, 20, RP_OP_STAT, "/f", 2, 0);
	at(&t, 1, 30, RP_OP_STAT, "/f", 3, 0);
	rp_replay_opts o;
	opts(&o);
	o.clones = 2;
	rp_replay *r;
	const rp_replay_results *const res = run(&t, &o, &r);
	static const uint32_t want[] = { 1, 2, 3 };
	expect_tags("client1", want, 3);
	expect_tags("client2", want, 3);
	assert_int_equal(res->mismatches, 0);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * Loops: in pass p a client waits for the pass-p ops of the others before
 * its own (and the others' pass-p + 1 ops wait for it), so the log alternates
 * 1, 2, 1, 2 ... to the end, the time limit included (a client waiting when
 * the time is up stops rather than go out of order).  Also through the window.
 */
static void test_loops(void **state)
{
	(void)state;
	for (uint32_t inflight = 1; inflight <= 4; inflight += 3) {
		wl t;
		wl_init(&t, RP_SRC_SYSCALL);
		at(&t, 1, 10, RP_OP_STAT, "/f", 1, 2);
		at(&t, 2, 20, RP_OP_STAT, "/f", 2, 0);
		at(&t, 2, 21, RP_OP_STAT, "/g", 0, 0);
		rp_replay_opts o;
		opts(&o);
		o.max_inflight = inflight;
		o.duration_s = 1.0;
		o.warmup_s = 0;
		rp_replay *r;
		const rp_replay_results *const res = run(&t, &o, &r);
		static uint32_t got[LOG_MAX];
		const size_t n = log_tags("", got, LOG_MAX);
		assert_true(n >= 4);
		for (size_t i = 0; i < n; i++)
			if (got[i] != (i % 2 ? 2u : 1u))
				fail_msg("completion %zu of %zu is tag %u", i, n, got[i]);
		assert_true(res->passes >= 2);
		assert_int_equal(res->stop, RP_STOP_TIME);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/*
 * The window: client 1's ops overlap in the recording (each starts before
 * the previous ends), so with --max-inflight 4 they are in flight together on
 * workers; client 2's op on "f" was recorded after client 1's slow write to
 * "f", and waits for it even though client 1 is not blocked on it.
 */
static void test_window(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	rp_op *const a = at(&t, 1, 10, RP_OP_STAT, "/f", 1, 40);
	a->t_end = 100000;
	rp_op *const b = at(&t, 1, 11, RP_OP_STAT, "/x", 0, 40);
	b->t_end = 100000;
	rp_op *const c = at(&t, 1, 12, RP_OP_STAT, "/y", 0, 0);
	c->t_end = 100000;
	at(&t, 2, 50, RP_OP_STAT, "/f", 2, 0);
	at(&t, 2, 60, RP_OP_STAT, "/y", 3, 0);
	rp_replay_opts o;
	opts(&o);
	o.max_inflight = 4;
	rp_replay *r;
	const rp_replay_results *const res = run(&t, &o, &r);
	uint32_t got[8];
	assert_int_equal(log_tags("", got, 8), 3);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 2);
	assert_int_equal(got[2], 3);
	assert_int_equal(res->mismatches, 0);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * The asynchronous path (null's async: completions only from poll()): a
 * client waiting for the order polls its own ops in flight, or the op it
 * waits for, its own, would never complete.  Loops and the window: it must
 * end (the test's timeout is the bound).
 */
static void test_async_window(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	for (uint64_t i = 0; i < 20; i++) {
		rp_op *const op = at(&t, 1 + (uint32_t)(i % 3), 10 + i, RP_OP_STAT, i % 2 ? "/f" : "/g", 0, 0);
		op->t_end = op->t_start + 5000; /* overlapping: in flight together */
	}
	rp_replay_opts o;
	opts(&o);
	o.backend_ops = NULL;
	o.backend = "null";
	o.backend_opts = "async";
	o.max_inflight = 4;
	/* Long enough for whole passes on a loaded machine; what is checked is that it ends, not a pace. */
	o.duration_s = 1.0;
	o.warmup_s = 0;
	rp_replay *r;
	char eb[RP_ERRBUF_SIZE];
	if (rp_replay_create(&r, &o, wl_open(&t), eb) < 0 || rp_replay_run(r, eb) < 0)
		fail_msg("%s", eb);
	const rp_replay_results *const res = rp_replay_get_results(r);
	assert_true(res->passes >= 1);
	assert_int_equal(res->mismatches, 0);
	rp_replay_destroy(r);
	wl_fini(&t);
}

static rp_op *fork_op(wl *t, uint32_t parent, uint64_t t_us, uint32_t child)
{
	rp_op *const op = at(t, parent, t_us, RP_OP_FORK, NULL, 0, 0);
	op->result = child;
	return op;
}

static rp_op *wait_op(wl *t, uint32_t parent, uint64_t t_us, uint32_t child)
{
	rp_op *const op = at(t, parent, t_us, RP_OP_WAIT, NULL, 0, 0);
	op->result = child;
	return op;
}

/*
 * A fork gate and a wait op with the order: the parent's op on f, its fork
 * of the child, the child's op on f, the parent's wait and its op on f after
 * it.  Then the same with the times lying (the child's op recorded before
 * the fork, the parent's after-wait op before the child's): the scan raises
 * them so no wait points forward, and the run ends in the gate's and the
 * wait's order rather than deadlocking.  In loops too.
 */
static void test_fork_wait(void **state)
{
	(void)state;
	for (int lying = 0; lying < 2; lying++) {
		for (int loop = 0; loop < 2; loop++) {
			wl t;
			wl_init(&t, RP_SRC_SYSCALL);
			at(&t, 1, 10, RP_OP_STAT, "/f", 1, 20);
			fork_op(&t, 1, 20, 2);
			wait_op(&t, 1, 30, 2);
			at(&t, 1, lying ? 35 : 60, RP_OP_STAT, "/f", 3, 0);
			at(&t, 2, lying ? 5 : 40, RP_OP_STAT, "/f", 2, 10);
			at(&t, 2, lying ? 50 : 45, RP_OP_STAT, "/g", 0, 0);
			rp_replay_opts o;
			opts(&o);
			if (loop) {
				o.duration_s = 0.6;
				o.warmup_s = 0;
			}
			rp_replay *r;
			const rp_replay_results *const res = run(&t, &o, &r);
			static uint32_t got[LOG_MAX];
			const size_t n = log_tags("", got, LOG_MAX);
			assert_true(n >= 3);
			for (size_t i = 0; i < n; i++)
				if (got[i] != i % 3 + 1)
					fail_msg("lying %d loop %d: completion %zu of %zu is tag %u", lying, loop, i, n, got[i]);
			assert_int_equal(res->mismatches, 0);
			rp_replay_destroy(r);
			wl_fini(&t);
		}
	}
}

/* Forks that make each other (a hostile trace): no order keeps them, and create says so. */
static void test_fork_cycle(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	fork_op(&t, 1, 10, 2);
	at(&t, 1, 11, RP_OP_STAT, "/f", 1, 0);
	fork_op(&t, 2, 12, 1);
	at(&t, 2, 13, RP_OP_STAT, "/f", 2, 0);
	rp_replay_opts o;
	opts(&o);
	rp_replay *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "cycle"));
	assert_null(r);
	wl_fini(&t);
}

/*
 * A stop while a client waits: client 1 sleeps (an explicit sleep op of
 * 1000 s) before its op on f; client 2's later op on f waits for it.  A stop
 * ends both at once (the test's timeout is the bound, not a timed assertion),
 * and client 2's op was never issued.
 */
static void test_stop_during_wait(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	rp_op *const s = at(&t, 1, 1, RP_OP_SLEEP, NULL, 0, 0);
	s->length = 1000ull * 1000000000ull;
	at(&t, 1, 10, RP_OP_STAT, "/f", 1, 0);
	at(&t, 2, 20, RP_OP_STAT, "/f", 2, 0);
	rp_replay_opts o;
	opts(&o);
	rp_replay *r;
	char eb[RP_ERRBUF_SIZE];
	log_reset();
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), 0);
	assert_int_equal(rp_replay_start(r, eb), 0);
	/* Until client 2 has reached its op (it has nothing before it): then it can only be waiting. */
	rp_replay_progress p;
	const struct timespec ms = { 0, 1000000L };
	do {
		nanosleep(&ms, NULL);
		rp_replay_progress_get(r, &p);
	} while (p.elapsed_s < 0.05);
	rp_replay_stop(r);
	assert_int_equal(rp_replay_finish(r, eb), 0);
	const rp_replay_results *const res = rp_replay_get_results(r);
	assert_int_equal(res->client[1].stop, RP_STOP_INTERRUPTED);
	uint32_t got[4];
	assert_int_equal(log_tags("", got, 4), 0); /* neither op on f ran */
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* Past the memory limit for the order tables: a clear error from create, before any thread. */
static void test_memory_limit(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	char name[32];
	for (unsigned i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "/f%u", i);
		at(&t, 1 + i % 2, i, RP_OP_STAT, name, 0, 0);
	}
	rp_replay_opts o;
	opts(&o);
	o.order_mem_max = 64 * 1024;
	rp_replay *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "--order=resource"));
	assert_non_null(strstr(eb, "MiB"));
	assert_null(r);
	/* Under a limit it fits: the same trace runs, and the tables it reports are within it. */
	o.order_mem_max = 4u << 20;
	assert_int_equal(rp_replay_create(&r, &o, t.w, eb), 0);
	assert_int_equal(rp_replay_run(r, eb), 0);
	const rp_replay_results *const res = rp_replay_get_results(r);
	assert_int_equal(res->order_resources, 5000);
	assert_true(res->order_bytes > 5000 * 8 && res->order_bytes < (4u << 20));
	rp_replay_destroy(r);
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_clients),
		cmocka_unit_test(test_blocking_lock),
		cmocka_unit_test(test_client_order_default),
		cmocka_unit_test(test_three_clients_rename),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_async_window),
		cmocka_unit_test(test_fork_wait),
		cmocka_unit_test(test_fork_cycle),
		cmocka_unit_test(test_stop_during_wait),
		cmocka_unit_test(test_memory_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
