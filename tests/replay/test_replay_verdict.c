/* The verdict of a run's results (replay/verdict.c): falling behind, representative or not, the likely cause. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "replay/verdict.h"

/* Results of 1000 measured ops, prepare run, one trace client, an empty target, per-client order. */
static void base(rp_replay_results *res)
{
	memset(res, 0, sizeof(*res));
	res->ops = 1000;
	res->prepare.ran = true;
	res->trace_clients = 1;
	res->clients = 1;
	res->order = RP_ORDER_CLIENT;
	res->target_entries = 0;
	res->schedule.max_ratio = 1.05;
	res->schedule.max_lag_us = 10000;
}

/* n mismatches of op, recorded OK, that got err: one kind kept as the engine keeps it. */
static void mismatch(rp_replay_results *res, uint16_t op, int32_t err, uint64_t n)
{
	rp_replay_sample *const s = &res->samples[res->n_samples++];
	memset(s, 0, sizeof(*s));
	s->op = op;
	s->expected = 0;
	s->actual = err;
	s->count = n;
	res->mismatches += n;
}

static void schedule(rp_replay_results *res, double first, double last, double sfirst, double slast, double lag_p99_us)
{
	res->schedule.known = true;
	res->schedule.first_s = first;
	res->schedule.last_s = last;
	res->schedule.sched_first_s = sfirst;
	res->schedule.sched_last_s = slast;
	res->lag_p99_us = lag_p99_us;
}

static void assert_close(double got, double want)
{
	if (got < want - 1e-9 || got > want + 1e-9)
		fail_msg("%.12f is not %.12f", got, want);
}

/* The run: 14.65 s for 4.2 s, lag p99 10.4 s: behind; at the thresholds exactly: not. */
static void test_behind(void **state)
{
	(void)state;
	rp_replay_results res;
	base(&res);
	schedule(&res, 0.5, 15.15, 0.5, 4.7, 10.4e6);
	rp__verdict(&res);
	assert_close(res.schedule.span_s, 14.65);
	assert_close(res.schedule.rec_span_s, 4.2);
	assert_close(res.schedule.ratio, 14.65 / 4.2);
	assert_true(res.schedule.behind);

	base(&res);
	schedule(&res, 0, 1.05, 0, 1, 10000); /* x1.05 and 10 ms: not over */
	rp__verdict(&res);
	assert_false(res.schedule.behind);
	res.lag_p99_us = 10000.5;
	rp__verdict(&res);
	assert_true(res.schedule.behind);

	base(&res);
	schedule(&res, 0, 1.06, 0, 1, 0);
	rp__verdict(&res);
	assert_true(res.schedule.behind);
	res.schedule.max_ratio = 1.1;
	rp__verdict(&res);
	assert_false(res.schedule.behind);
}

/* No recorded span (every op at one instant): no ratio, the lag alone decides; afap: nothing. */
static void test_no_span(void **state)
{
	(void)state;
	rp_replay_results res;
	base(&res);
	schedule(&res, 0, 3, 2, 2, 5000);
	rp__verdict(&res);
	assert_close(res.schedule.ratio, -1);
	assert_false(res.schedule.behind);
	res.lag_p99_us = 20000;
	rp__verdict(&res);
	assert_true(res.schedule.behind);

	base(&res);
	res.lag_p99_us = 1e9; /* afap records none; not known means not judged */
	rp__verdict(&res);
	assert_false(res.schedule.behind);
	assert_close(res.schedule.ratio, -1);
	assert_close(res.schedule.span_s, 0);
}

/* 1 % mismatched is still representative; more is not; no ops: nothing to judge. */
static void test_share(void **state)
{
	(void)state;
	rp_replay_results res;
	base(&res);
	mismatch(&res, RP_OP_STAT, ENOENT, 10);
	rp__verdict(&res);
	assert_close(res.mismatch_share, 0.01);
	assert_true(res.representative);
	assert_int_equal(res.likely_cause, RP_CAUSE_NONE);
	assert_null(rp_cause_name(res.likely_cause));
	char buf[512];
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_string_equal(buf, "");
	mismatch(&res, RP_OP_STAT, ENOENT, 1);
	rp__verdict(&res);
	assert_false(res.representative);

	base(&res);
	res.ops = 0;
	rp__verdict(&res);
	assert_true(res.representative);
	assert_close(res.mismatch_share, 0);
}

/* Each cause from its evidence, in the documented order. */
static void test_causes(void **state)
{
	(void)state;
	char buf[512];
	rp_replay_results res;

	/* A target that was not empty, and creations that found what was there. */
	base(&res);
	res.target_entries = 3;
	mismatch(&res, RP_OP_MKDIR, EEXIST, 40);
	mismatch(&res, RP_OP_OPEN, ENOENT, 5);
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_TARGET);
	assert_string_equal(rp_cause_name(res.likely_cause), "target");
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_non_null(strstr(buf, "3 entries before the run"));
	assert_non_null(strstr(buf, "replay into an empty directory"));
	/* Prepare finding files there says the same when the target was not counted. */
	res.target_entries = -1;
	res.prepare.kept = 2;
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_TARGET);
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_non_null(strstr(buf, "prepare found 2 files already there"));

	/* Files missing and no prepare. */
	base(&res);
	res.prepare.ran = false;
	res.trace_clients = 4; /* the prepare evidence comes first */
	mismatch(&res, RP_OP_OPEN, ENOENT, 30);
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_PREPARE);
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_non_null(strstr(buf, "30 ops found no file"));
	assert_non_null(strstr(buf, "--no-prepare"));
	res.prepare.ran = true;
	res.prepare.failures = 7;
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_PREPARE);
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_non_null(strstr(buf, "failed to make 7"));

	/* Several trace clients in per-client order (pgbench's processes): --order=resource. */
	base(&res);
	res.trace_clients = 13;
	res.clients = 13;
	mismatch(&res, RP_OP_READ, EBADF, 20);
	mismatch(&res, RP_OP_OPEN, ENOENT, 20);
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_ORDER);
	assert_string_equal(rp_cause_name(res.likely_cause), "order");
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_non_null(strstr(buf, "13 clients"));
	assert_non_null(strstr(buf, "try --order=resource"));
	/* --order auto chose client order as nothing is shared: not the order; chose it as a fallback: the order. */
	res.order_auto = true;
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_PREPARE);
	res.order_fallback = true;
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_ORDER);
	res.order_auto = res.order_fallback = false;
	/* Already in resource order: the missing files point at prepare. */
	res.order = RP_ORDER_RESOURCE;
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_PREPARE);
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_non_null(strstr(buf, "cut at its start"));
	/* Copies of one client (--clients 8) are not clients that share: nothing to order. */
	base(&res);
	res.clients = 8;
	mismatch(&res, RP_OP_READ, EBADF, 20);
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_UNKNOWN);
	assert_string_equal(rp_cause_name(res.likely_cause), "unknown");
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_non_null(strstr(buf, "nothing the run knows"));
	/* ... unless the target held something. */
	res.target_entries = 1;
	rp__verdict(&res);
	assert_int_equal(res.likely_cause, RP_CAUSE_TARGET);
	rp_replay_cause_text(&res, buf, sizeof(buf));
	assert_non_null(strstr(buf, "1 entry before"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_behind),
		cmocka_unit_test(test_no_span),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_causes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
