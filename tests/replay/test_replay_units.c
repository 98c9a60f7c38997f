/* Unit tests: log-linear histograms, the handle table, trace path normalisation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "replay/client.h"
#include "replay/engine.h"
#include "replay/handles.h"
#include "replay/hist.h"
#include "replay/req.h"

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Quantiles stay within 1 % of the exact order statistic over 9 decades. */
static void test_hist_accuracy(void **state)
{
	(void)state;
	enum { N = 200000 };
	uint64_t *const v = malloc(N * sizeof(*v));
	rp_hist *const h = malloc(sizeof(*h));
	rp__hist_init(h);
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = 1 + (x % 1000) * (uint64_t)(1ull << (x >> 58) % 30) / 7;
		rp__hist_add(h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	const double qs[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999 };
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		const uint64_t exact = v[(size_t)(qs[i] * N + 0.999999) - 1];
		const uint64_t got = rp__hist_quantile(h, qs[i]);
		const double rel = exact ? ((double)got - (double)exact) / (double)exact : 0;
		assert_true(rel < 0.01 && rel > -0.01);
	}
	assert_int_equal(rp__hist_quantile(h, 1.0), v[N - 1]);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->count, N);
	free(v);
	free(h);
}

/* Merging two halves gives the histogram of the whole, bucket for bucket. */
static void test_hist_merge(void **state)
{
	(void)state;
	rp_hist *const a = malloc(sizeof(*a)), *const b = malloc(sizeof(*b)), *const all = malloc(sizeof(*all));
	rp__hist_init(a), rp__hist_init(b), rp__hist_init(all);
	for (uint64_t i = 1; i < 100000; i += 7) {
		rp__hist_add(i % 2 ? a : b, i * 13);
		rp__hist_add(all, i * 13);
	}
	rp__hist_merge(a, b);
	assert_memory_equal(a, all, sizeof(*a));
	/* Huge values go to the last bucket; the exact max is kept. */
	rp__hist_add(a, UINT64_MAX / 2);
	assert_int_equal(rp__hist_quantile(a, 1.0), UINT64_MAX / 2);
	for (unsigned i = 0; i < RP_HIST_BUCKETS; i++) {
		uint64_t lo, hi;
		rp__hist_bucket_range(i, &lo, &hi);
		assert_int_equal(rp__hist_index(lo), i);
		assert_int_equal(rp__hist_index(hi), i);
	}
	free(a), free(b), free(all);
}

static void test_handles(void **state)
{
	(void)state;
	rp_handles t;
	rp__handles_init(&t);
	uint64_t v;
	assert_int_equal(rp__handles_get(&t, 5, &v), 0);
	for (uint64_t k = 1; k <= 100000; k++)
		assert_int_equal(rp__handles_put(&t, k * 3, k), 0);
	for (uint64_t k = 1; k <= 100000; k += 2)
		assert_int_equal(rp__handles_del(&t, k * 3, &v), 1);
	assert_int_equal(t.live, 50000);
	for (uint64_t k = 1; k <= 100000; k++) {
		const int got = rp__handles_get(&t, k * 3, &v);
		assert_int_equal(got, k % 2 == 0);
		if (got)
			assert_int_equal(v, k);
	}
	/* Churn: many put/delete cycles do not fill the table with tombstones. */
	for (uint64_t k = 1; k <= 1000000; k++) {
		assert_int_equal(rp__handles_put(&t, 1000000 + k, k), 0);
		assert_int_equal(rp__handles_del(&t, 1000000 + k, &v), 1);
	}
	assert_true(t.cap <= 1u << 18);
	assert_int_equal(rp__handles_put(&t, 0, 1), RP_E_INVAL);
	uint64_t key;
	size_t n = 0;
	while (rp__handles_pop(&t, &key, &v))
		n++;
	assert_int_equal(n, 50000);
	rp__handles_fini(&t);
}

static void check_norm(const char *in, const char *want, int err)
{
	char out[64];
	const int n = rp_path_norm(in, (uint32_t)strlen(in), out, sizeof(out));
	if (err) {
		assert_int_equal(n, -err);
		return;
	}
	assert_true(n >= 0);
	assert_string_equal(out, want);
}

static void test_path_norm(void **state)
{
	(void)state;
	check_norm("/clients/client1/~dmtmp/PWRPNT", "clients/client1/~dmtmp/PWRPNT", 0);
	check_norm("/export/a//b/./c/", "export/a/b/c", 0);
	/* a backslash is a name character: an NFS file "a\\b" is one name (SMB producers wrote "/") */
	check_norm("/dir/a\\b", "dir/a\\b", 0);
	check_norm("a\\b/../c", "c", 0);
	check_norm("\\", "\\", 0);
	check_norm("\\..\\x", "\\..\\x", 0);
	check_norm("", "", 0);
	check_norm("..", NULL, EXDEV);
	check_norm("/a/../../etc/passwd", NULL, EXDEV);
	check_norm("/../etc", NULL, EXDEV);
	check_norm("a/b/../../..", NULL, EXDEV);
	check_norm("..hidden/x", "..hidden/x", 0);
	check_norm("0123456789/0123456789/0123456789/0123456789/0123456789/0123456789/0123", NULL, ENAMETOOLONG);
	const char nul[] = { 'a', '\0', 'b' };
	char out[8];
	assert_int_equal(rp_path_norm(nul, 3, out, sizeof(out)), -EINVAL);
}

/* Sleep-then-spin never returns before the deadline, and learns how late this machine's sleeps wake. */
static void test_wait_until(void **state)
{
	(void)state;
	rp_replay *const r = calloc(1, sizeof(*r));
	r->clock = (rp_replay_clock){ rp__clock_mono, rp__clock_mono_sleep, NULL };
	r->mono = true;
	r->spin_ns = 50000;
	atomic_init(&r->stop, false);
	uint64_t late = 0;
	const uint64_t t0 = rp__mono_ns();
	for (int i = 1; i <= 20; i++) {
		const uint64_t deadline = t0 + (uint64_t)i * 1000000;
		assert_true(rp__wait_until(r, &late, deadline) >= deadline);
	}
	assert_true(late > 0); /* no timer fires exactly on time */
	assert_true(rp__wait_until(r, NULL, t0 + 22000000) >= t0 + 22000000);
	/* A stop request ends a wait early. */
	atomic_store(&r->stop, true);
	const uint64_t far = rp__mono_ns() + 10000000000ull;
	assert_true(rp__wait_until(r, &late, far) < far);
	free(r);
}

/*
 * A fake asynchronous backend: full for its first submits (RP_BREQ_BUSY, or
 * RP_E_LIMIT as a backend before version 8 said it), then completing on the next poll.
 */
typedef struct busy_be {
	int full, submits, polls, busy_rc;
	rp_breq *pending;
} busy_be;
static int busy_submit(void *b, void *c, rp_breq *req)
{
	(void)c;
	busy_be *const be = b;
	be->submits++;
	if (be->full > 0) {
		be->full--;
		return be->busy_rc ? be->busy_rc : RP_BREQ_BUSY;
	}
	be->pending = req;
	return 0;
}
static int busy_poll(void *b, void *c, uint64_t timeout_ns)
{
	(void)c, (void)timeout_ns;
	busy_be *const be = b;
	be->polls++;
	if (be->pending) {
		rp_breq *const req = be->pending;
		be->pending = NULL;
		req->status = 7;
		req->cb(req);
	}
	return 0;
}

/* rp__req_wait: a full backend is polled and the submit retried; the wait ends at the completion. */
static void test_req_wait_busy(void **state)
{
	(void)state;
	const rp_backend_ops ops = { .version = RP_BACKEND_VERSION, .name = "busy", .submit = busy_submit, .poll = busy_poll };
	busy_be be = { .full = 3 };
	rp_breq req = { 0 };
	assert_int_equal(rp__req_wait(&ops, &be, NULL, true, &req, NULL), 0);
	assert_int_equal(be.submits, 4);
	assert_int_equal(be.polls, 4);
	assert_int_equal(req.status, 7);
	assert_null(be.pending);
}

/* rp__req_wait: a backend that never has room ends the wait with RP_E_LIMIT, not a spin. */
static void test_req_wait_always_full(void **state)
{
	(void)state;
	const rp_backend_ops ops = { .version = RP_BACKEND_VERSION, .name = "busy", .submit = busy_submit, .poll = busy_poll };
	busy_be be = { .full = 1 << 30 };
	rp_breq req = { .status = 662695936 }; /* what an earlier request left there */
	assert_int_equal(rp__req_wait(&ops, &be, NULL, true, &req, NULL), RP_E_LIMIT);
	assert_int_equal(be.submits, 1001);
	assert_int_equal(be.polls, 1000);
	assert_int_equal(req.status, 0); /* nothing ran: the failure names RP_E_LIMIT, no stale status */
}

static void count_done(rp_breq *req)
{
	++*(int *)req->data;
}

/*
 * A version 7 backend's RP_E_LIMIT from submit is its busy: polled and
 * retried like RP_BREQ_BUSY, by the window's issue and poll as by the wait.
 */
static void test_req_busy_v7(void **state)
{
	(void)state;
	const rp_backend_ops ops = { .version = 7, .name = "busy7", .submit = busy_submit, .poll = busy_poll };
	busy_be be = { .full = 2, .busy_rc = RP_E_LIMIT };
	int done = 0;
	rp_breq req = { .cb = count_done, .data = &done };
	assert_int_equal(rp__req_issue(&ops, &be, NULL, true, &req, NULL), 0);
	assert_int_equal(be.submits, 3);
	assert_int_equal(be.polls, 2);
	assert_int_equal(done, 0); /* taken, not yet completed */
	assert_int_equal(rp__req_poll(&ops, &be, NULL, 1000000), 0);
	assert_int_equal(done, 1);
	assert_int_equal(req.status, 7);
	be = (busy_be){ .full = 2, .busy_rc = RP_E_LIMIT };
	req = (rp_breq){ 0 };
	assert_int_equal(rp__req_wait(&ops, &be, NULL, true, &req, NULL), 0);
	assert_int_equal(be.submits, 3);
	assert_int_equal(req.status, 7);
}

/* From a version 8 backend RP_E_LIMIT is an error like any other: returned at once, never retried. */
static void test_req_limit_v8_is_error(void **state)
{
	(void)state;
	const rp_backend_ops ops = { .version = 8, .name = "busy8", .submit = busy_submit, .poll = busy_poll };
	busy_be be = { .full = 5, .busy_rc = RP_E_LIMIT };
	rp_breq req = { 0 };
	assert_int_equal(rp__req_wait(&ops, &be, NULL, true, &req, NULL), RP_E_LIMIT);
	assert_int_equal(be.submits, 1);
	assert_int_equal(be.polls, 0);
}

/* A synchronous caller has nothing to poll: busy is RP_E_LIMIT at once (rp__req_issue). */
static void test_req_busy_sync(void **state)
{
	(void)state;
	const rp_backend_ops ops = { .version = RP_BACKEND_VERSION, .name = "busy", .submit = busy_submit, .poll = busy_poll };
	busy_be be = { .full = 1 };
	rp_breq req = { .status = EIO };
	assert_int_equal(rp__req_issue(&ops, &be, NULL, false, &req, NULL), RP_E_LIMIT);
	assert_int_equal(be.submits, 1);
	assert_int_equal(be.polls, 0);
	assert_int_equal(req.status, 0);
}

/*
 * In flight at the target (tdepth.c): three requests sent 10 ns apart and
 * answered 30 ns after their sends; the depth at each send is 1, 2, 3; the
 * time-weighted mean while busy (0..50) is 90 / 50; the latency histogram
 * counts only those sent from the warm-up's end (10) on.
 */
static void test_tdepth_arith(void **state)
{
	(void)state;
	rp_tdepth d;
	rp__tdepth_init(&d, 10, false);
	rp__tdepth_sent(&d, 1000);
	rp__tdepth_sent(&d, 1010);
	rp__tdepth_sent(&d, 1020);
	rp__tdepth_done(&d, 1000, 1030);
	rp__tdepth_done(&d, 1010, 1040);
	rp__tdepth_done(&d, 1020, 1050);
	assert_int_equal(d.max, 3);
	assert_int_equal(d.cur, 0);
	assert_int_equal(d.requests, 3);
	assert_int_equal(d.at_req_sum, 6);
	assert_int_equal(d.area, 90);
	assert_int_equal(d.busy_ns, 50);
	assert_non_null(d.lat);
	assert_int_equal(d.lat->count, 3);
	/* An event a worker brings late counts at the last one's time: nothing goes backwards. */
	rp__tdepth_sent(&d, 2000);
	rp__tdepth_done(&d, 2000, 1990);
	assert_int_equal(d.cur, 0);
	assert_int_equal(d.busy_ns, 50);
	rp__tdepth_fini(&d);
}

/* A fake asynchronous backend of a given version that answers inside its submit, or on the next poll. */
typedef struct stamp_be {
	bool inline_answer;
	rp_breq *pending;
} stamp_be;
static int stamp_submit(void *b, void *c, rp_breq *req)
{
	(void)c;
	stamp_be *const be = b;
	req->sent_ns = 100;
	if (be->inline_answer) {
		req->done_ns = 150;
		req->cb(req);
		return 0;
	}
	be->pending = req;
	return 0;
}
static int stamp_poll(void *b, void *c, uint64_t timeout_ns)
{
	(void)c, (void)timeout_ns;
	stamp_be *const be = b;
	if (!be->pending)
		return 0;
	rp_breq *const req = be->pending;
	be->pending = NULL;
	req->done_ns = 400;
	req->cb(req);
	return 1;
}

/*
 * The lifecycle counts a request at the target once, from the backend's
 * sent_ns to done_ns: answered on a poll, answered inside its own submit
 * (counted after its send), and not at all from a backend before version 11.
 */
static void test_req_tdepth(void **state)
{
	(void)state;
	rp_backend_ops ops = { .version = RP_BACKEND_VERSION, .name = "stamp", .submit = stamp_submit, .poll = stamp_poll };
	stamp_be be = { 0 };
	rp_tdepth d;
	rp__tdepth_init(&d, 0, false);
	rp_breq req = { 0 };
	assert_int_equal(rp__req_wait(&ops, &be, NULL, true, &req, &d), 0);
	assert_int_equal(d.requests, 1);
	assert_int_equal(d.cur, 0);
	assert_int_equal(d.busy_ns, 300);
	be.inline_answer = true;
	req = (rp_breq){ 0 };
	assert_int_equal(rp__req_wait(&ops, &be, NULL, true, &req, &d), 0);
	assert_int_equal(d.requests, 2);
	assert_int_equal(d.cur, 0);
	assert_int_equal(d.max, 1);
	assert_int_equal(d.lat->count, 2);
	/* Synchronous: the engine times the call itself (this fake only records the request then). */
	be.inline_answer = false;
	req = (rp_breq){ 0 };
	assert_int_equal(rp__req_wait(&ops, &be, NULL, false, &req, &d), 0);
	be.pending = NULL;
	assert_int_equal(d.requests, 3);
	assert_int_equal(d.cur, 0);
	/* A version 10 backend says nothing of when it sent: not measured. */
	ops.version = 10;
	be.inline_answer = false;
	int done = 0;
	req = (rp_breq){ .cb = count_done, .data = &done };
	rp__tdepth_fini(&d);
	rp__tdepth_init(&d, 0, false);
	ops.submit = busy_submit;
	ops.poll = busy_poll;
	busy_be bb = { 0 };
	assert_int_equal(rp__req_issue(&ops, &bb, NULL, true, &req, &d), 0);
	assert_int_equal(rp__req_poll(&ops, &bb, NULL, 1000000), 0);
	rp__req_done(&d, &req);
	assert_int_equal(d.requests, 0);
	assert_int_equal(d.unmeasured, 1);
	rp__tdepth_fini(&d);
}

/*
 * Sharing's last close returns the delete it was left (a follow-up for the
 * lifecycle) rather than issuing it: no client and no backend here.  One
 * delete per object, in the order asked, none for a handle nothing waits on.
 */
static void test_share_followups(void **state)
{
	(void)state;
	rp_replay *const r = calloc(1, sizeof(*r));
	assert_non_null(r);
	rp__share_init(r);
	rp_followups fu = { 0 };
	assert_int_equal(rp__share_defer(r, 5, "a/x"), 0);
	assert_int_equal(rp__share_defer(r, 5, "a/y"), 0); /* the same object: its first delete stands */
	assert_int_equal(rp__share_defer(r, 0, "b"), 0);   /* handle 0 is a handle (the null backend's first) */
	rp__share_last(r, 7, &fu);
	assert_int_equal(fu.n, 0);
	rp__share_last(r, 5, &fu);
	rp__share_last(r, 0, &fu);
	rp__share_last(r, 5, &fu); /* already handed over */
	assert_int_equal(fu.n, 2);
	char *p = rp__followup_next(&fu);
	assert_string_equal(p, "a/x");
	free(p);
	p = rp__followup_next(&fu);
	assert_string_equal(p, "b");
	free(p);
	assert_null(rp__followup_next(&fu));
	/* What no one issued (a client without a backend state) goes with the list. */
	char *const left = strdup("c");
	assert_non_null(left);
	assert_int_equal(rp__followup_delete(&fu, left), 0);
	rp__followups_fini(&fu);
	assert_int_equal(fu.n, 0);
	assert_null(fu.del);
	rp__share_fini(r);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_accuracy),
		cmocka_unit_test(test_hist_merge),
		cmocka_unit_test(test_handles),
		cmocka_unit_test(test_path_norm),
		cmocka_unit_test(test_wait_until),
		cmocka_unit_test(test_req_wait_busy),
		cmocka_unit_test(test_req_wait_always_full),
		cmocka_unit_test(test_req_busy_v7),
		cmocka_unit_test(test_req_limit_v8_is_error),
		cmocka_unit_test(test_req_busy_sync),
		cmocka_unit_test(test_tdepth_arith),
		cmocka_unit_test(test_req_tdepth),
		cmocka_unit_test(test_share_followups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
