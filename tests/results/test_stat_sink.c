/* Unit tests of results/stat_sink.c: one pass of ops into stat's summary, prepare plan and timeline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "formats/error.h"
#include "results/stat_sink.h"

static const char *const names[] = { NULL, "d/f", "d/g" };

static const char *name_of(void *ctx, uint32_t id, uint32_t *len)
{
	(void)ctx;
	if (id == 0 || id >= sizeof(names) / sizeof(names[0]))
		return NULL;
	*len = (uint32_t)strlen(names[id]);
	return names[id];
}

/* A read of an existing d/f by client 1 at 0.5 s, and a stat of d/g at 2.5 s. */
static const rp_op ops[] = {
	{ .op = RP_OP_OPEN, .client = 1, .path = 1, .handle = 1, .want = RP_WANT_KNOWN | RP_WANT_READ,
	  .disp = RP_DISP_OPEN, .t_start = 500000000, .t_end = 500001000 },
	{ .op = RP_OP_READ, .client = 1, .handle = 1, .offset = 0, .length = 100, .result = 100, .t_start = 600000000,
	  .t_end = 600001000 },
	{ .op = RP_OP_CLOSE, .client = 1, .handle = 1, .t_start = 700000000, .t_end = 700001000 },
	{ .op = RP_OP_STAT, .client = 2, .path = 2, .t_start = 2500000000, .t_end = 2500001000 },
};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))

static void feed(rp_stat_sink *s)
{
	const rp_trace_meta m = { .source_name = "t.rpz", .host = "h" };
	assert_int_equal(s->base.meta(&s->base, &m), 0);
	for (uint32_t id = 1; id < 3; id++)
		assert_int_equal(s->base.string(&s->base, id, names[id], (uint32_t)strlen(names[id])), 0);
	for (size_t i = 0; i < N_OPS; i++)
		assert_int_equal(s->base.op(&s->base, &ops[i]), 0);
	assert_int_equal(s->base.finish(&s->base), 0);
}

static void each_op_reaches_summary_plan_and_timeline(void **state)
{
	(void)state;
	rp_stat_sink s;
	assert_int_equal(rp_stat_sink_init(&s, 1000000000), RP_OK);
	feed(&s);
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_stat_sink_plan(&s, eb), RP_OK);
	assert_string_equal(s.meta.source_name, "t.rpz");
	assert_string_equal(s.meta.host, "h");
	assert_int_equal(rp_summary_ops(s.sum), N_OPS);
	assert_int_equal(rp_summary_count(s.sum, RP_OP_READ), 1);
	/* one-second steps: ops in the first and the third */
	const rp_timeline_bin *bins = NULL;
	assert_int_equal(rp_timeline_bins(s.timeline, &bins), 3);
	assert_int_equal(bins[0].ops, 3);
	assert_int_equal(bins[1].ops, 0);
	assert_int_equal(bins[2].ops, 1);
	assert_int_equal(bins[0].bytes_read, 100);
	/* the plan is what formats/plan.h makes of the same ops */
	rp_plan want;
	const rp_plan_opts po = { .items = true };
	assert_int_equal(rp_plan_ops(&want, ops, N_OPS, name_of, NULL, &po, eb), 0);
	assert_true(want.files >= 1);
	assert_int_equal(s.plan.n_items, want.n_items);
	assert_int_equal(s.plan.dirs, want.dirs);
	assert_int_equal(s.plan.files, want.files);
	assert_int_equal(s.plan.bytes, want.bytes);
	assert_int_equal(s.plan.n_clients, 2);
	rp_plan_free(&want);
	rp_stat_sink_fini(&s);
	rp_stat_sink_fini(&s); /* left empty: again is harmless */
}

static void no_step_no_timeline(void **state)
{
	(void)state;
	rp_stat_sink s;
	assert_int_equal(rp_stat_sink_init(&s, 0), RP_OK);
	assert_null(s.timeline);
	feed(&s);
	assert_int_equal(rp_summary_ops(s.sum), N_OPS);
	rp_stat_sink_fini(&s);
}

static void an_op_past_the_timeline_is_named(void **state)
{
	(void)state;
	rp_stat_sink s;
	assert_int_equal(rp_stat_sink_init(&s, 1), RP_OK); /* 1 ns steps: an op at 2.5 s is far past the last */
	const rp_trace_meta m = { .source_name = "t.rpz" };
	assert_int_equal(s.base.meta(&s.base, &m), 0);
	assert_int_equal(s.base.op(&s.base, &ops[3]), RP_E_LIMIT);
	assert_string_equal(s.base.errbuf, "timeline: an op at 2.500 s is past the last of its 100000 steps");
	assert_true(s.timeline_full);
	rp_stat_sink_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_op_reaches_summary_plan_and_timeline),
		cmocka_unit_test(no_step_no_timeline),
		cmocka_unit_test(an_op_past_the_timeline_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
