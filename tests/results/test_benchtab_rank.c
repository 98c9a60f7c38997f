/*
 * Unit tests of compare's verdict rules (results/benchtab_rank.c, docs/compare.md "Who wins"):
 * no best within the runs' spread, below RP_BT_MIN_OPS, within 5 %, on rows equal for every
 * target, or on throughput paced by the trace; differences, not ratios, against a best of
 * about 0; the runs' spread flag and the runs a stable median needs; short labels; the
 * refusal of inputs of two traces; process ops out of "all".  Sets are built in memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab.h"

/* A target with one counted run per value of mb (MB/s), each of ops ops, timing "afap". */
static rp_bt_target *target(rp_bt_set *s, const char *name, const char *fs, const double *mb, size_t n, uint64_t ops)
{
	char err[256];
	rp_bt_target *const t = rp__bt_target_get(s, name, fs, "rw", err, sizeof(err));
	assert_non_null(t);
	for (size_t i = 0; i < n; i++) {
		rp_bt_run *const r = rp__bt_run_add(t, err, sizeof(err));
		assert_non_null(r);
		r->run = (uint32_t)i + 1;
		r->mb_per_sec = mb[i];
		r->ops_per_sec = mb[i] * 100;
		r->total_ops = ops;
		snprintf(r->timing, sizeof(r->timing), "afap");
	}
	return t;
}

static rp_bt_rank rank(const rp_bt_set *s, rp_bt_metric m)
{
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	return rp__bt_row(s, m, NULL, sp);
}

static void a_clear_win_is_marked(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	target(s, "/a", "ext4", (const double[]){ 100, 101, 102 }, 3, 1000);
	target(s, "/b", "xfs", (const double[]){ 50, 51, 52 }, 3, 1000);
	const rp_bt_rank k = rank(s, RP_BT_MB_S);
	assert_int_equal(k.why, RP_BT_WIN);
	assert_int_equal(k.best_i, 0);
	assert_false(k.absolute);
	rp__bt_set_destroy(s);
}

static void no_win_within_the_spread_or_five_percent(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	target(s, "/a", "ext4", (const double[]){ 12.6, 30, 40.4 }, 3, 1000);
	target(s, "/b", "xfs", (const double[]){ 20, 25, 35 }, 3, 1000);
	assert_int_equal(rank(s, RP_BT_MB_S).why, RP_BT_SPREAD);
	rp__bt_set_destroy(s);
	/* one run each: no spread to overlap, but 1.03x is within the 5 % margin */
	rp_bt_set *const t = rp__bt_set_create();
	target(t, "/a", "ext4", (const double[]){ 103 }, 1, 1000);
	target(t, "/b", "xfs", (const double[]){ 100 }, 1, 1000);
	assert_int_equal(rank(t, RP_BT_MB_S).why, RP_BT_CLOSE);
	rp__bt_set_destroy(t);
}

static void no_win_below_the_minimum_ops(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	target(s, "/a", "ext4", (const double[]){ 100 }, 1, RP_BT_MIN_OPS - 1);
	target(s, "/b", "xfs", (const double[]){ 10 }, 1, 1000);
	assert_int_equal(rank(s, RP_BT_MB_S).why, RP_BT_FEW);
	rp__bt_set_destroy(s);
}

static void equal_rows_and_trace_timing_are_not_ranked(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	target(s, "/a", "ext4", (const double[]){ 100 }, 1, 1000);
	target(s, "/b", "xfs", (const double[]){ 10 }, 1, 1000);
	/* errors and mismatches are 0 for both: no star */
	assert_int_equal(rank(s, RP_BT_FAILURES).why, RP_BT_EQUAL);
	assert_int_equal(rank(s, RP_BT_LAG_P99).why, RP_BT_EQUAL);
	snprintf(s->targets[1].runs[0].timing, sizeof(s->targets[1].runs[0].timing), "trace");
	assert_int_equal(rank(s, RP_BT_MB_S).why, RP_BT_SCHEDULE);
	assert_int_equal(rank(s, RP_BT_OPS_S).why, RP_BT_SCHEDULE);
	/* dirty data, load and steal: never */
	assert_int_equal(rank(s, RP_BT_DIRTY_MB).why, RP_BT_UNRANKED);
	rp__bt_set_destroy(s);
}

static void a_best_of_about_zero_gives_differences(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	target(s, "/a", "ext4", (const double[]){ 1 }, 1, 1000);
	target(s, "/b", "xfs", (const double[]){ 1 }, 1, 1000);
	s->targets[0].runs[0].lag_p99_us = 14.7;
	s->targets[1].runs[0].lag_p99_us = 0.001;
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	const rp_bt_rank k = rp__bt_row(s, RP_BT_LAG_P99, NULL, sp);
	assert_true(k.absolute);
	assert_int_equal(k.why, RP_BT_WIN);
	char mark[48];
	bool best;
	rp__bt_mark(mark, sizeof(mark), &k, sp, 0, &best);
	assert_false(best);
	assert_string_equal(mark, "+14.7"); /* not "14700x" */
	rp__bt_mark(mark, sizeof(mark), &k, sp, 1, &best);
	assert_true(best);
	rp__bt_set_destroy(s);
}

static void runs_that_disagree_and_the_runs_a_median_needs(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	const rp_bt_target *const t = target(s, "/a", "ext4", (const double[]){ 50.8, 862.8, 400 }, 3, 1000);
	size_t out;
	const double sp = rp__bt_run_spread(t, RP_BT_SPREAD_LIMIT, &out);
	assert_true(sp > 16 && sp < 17);
	assert_int_equal(out, 2);
	assert_int_equal(rp__bt_runs_needed(out), 7);
	assert_int_equal(rp__bt_runs_needed(0), 5);
	/* two counted runs: the median is the mean of the two, and the note says so */
	rp_bt_set *const e = rp__bt_set_create();
	const rp_bt_target *const u = target(e, "/a", "ext4", (const double[]){ 10, 20 }, 2, 1000);
	assert_true(fabs(rp__bt_spread(u, RP_BT_MB_S, NULL).median - 15) < 1e-9);
	char *buf = NULL;
	size_t len = 0;
	FILE *const f = open_memstream(&buf, &len);
	rp__bt_notes(e, f, false);
	fclose(f);
	assert_non_null(strstr(buf, "the runs disagree, spread 2.00x"));
	assert_non_null(strstr(buf, "mean of the middle two"));
	free(buf);
	rp__bt_set_destroy(e);
	rp__bt_set_destroy(s);
}

static void short_labels(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	const double one[] = { 1 };
	target(s, "/srv/bench/reprise-mkfs-ext4", "ext4", one, 1, 1000);
	target(s, "/srv/bench/reprise-mkfs-xfs", "xfs", one, 1, 1000);
	target(s, "/mnt/data/pg", "tmpfs", one, 1, 1000);
	target(s, "/mnt/other/pg2/", "tmpfs", one, 1, 1000);
	char l[RP_BT_LABEL_MAX];
	rp__bt_label(l, sizeof(l), s, 0);
	assert_string_equal(l, "ext4");
	rp__bt_label(l, sizeof(l), s, 1);
	assert_string_equal(l, "xfs");
	rp__bt_label(l, sizeof(l), s, 2); /* tmpfs twice: the last path component */
	assert_string_equal(l, "pg");
	rp__bt_label(l, sizeof(l), s, 3);
	assert_string_equal(l, "pg2");
	rp__bt_set_destroy(s);
}

static void inputs_of_two_traces_are_refused(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	char err[512];
	rp_bt_input *const a = rp__bt_input_add(s, "pg-bench.json", err, sizeof(err));
	assert_non_null(a);
	memset(a->trace_sha256, 'a', 64);
	rp_bt_input *const u = rp__bt_input_add(s, "unknown.json", err, sizeof(err));
	assert_non_null(u); /* its hash not known: not compared */
	rp_bt_input *const b = rp__bt_input_add(s, "pg-again.json", err, sizeof(err));
	assert_non_null(b);
	memset(b->trace_sha256, 'a', 64);
	assert_int_equal(rp__bt_traces_check(s, err, sizeof(err)), 0);
	rp_bt_input *const c = rp__bt_input_add(s, "bonnie-bench.json", err, sizeof(err));
	assert_non_null(c);
	memset(c->trace_sha256, 'b', 64);
	assert_int_equal(rp__bt_traces_check(s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "pg-bench.json replayed"));
	assert_non_null(strstr(err, "bonnie-bench.json replayed"));
	rp__bt_set_destroy(s);
}

/* A replay result of two ops, open (1 ms) and wait (47.7 s), each with a histogram. */
static const char wait_run[] =
	"{\"schema\":\"reprise-replay\",\"schema_version\":2,\"histogram_layout\":{\"sub_bits\":7,\"max_bits\":40},"
	"\"lag_us\":{\"p50\":0,\"p99\":0,\"max\":0},\"latency_us\":{\"p50\":1000,\"p99\":47700000,\"max\":47700000},"
	"\"elapsed_s\":50,\"warmup_s\":0,\"mb_per_sec\":1,\"ops_per_sec\":4,\"total_ops\":200,\"bytes\":0,"
	"\"failures\":0,\"failures_expected\":0,\"mismatches\":0,\"series\":[],\"timing\":\"afap\",\"stop\":\"end\","
	"\"ops\":{\"open\":{\"count\":100,\"bytes\":0,\"failures\":0,\"mismatches\":0,\"avg_us\":1000,\"p50_us\":1000,"
	"\"p99_us\":1000,\"max_us\":1000,\"histogram\":{\"count\":100,\"min_ns\":1000000,\"max_ns\":1000000,"
	"\"buckets\":[[999424,100]]}},"
	"\"wait\":{\"count\":100,\"bytes\":0,\"failures\":0,\"mismatches\":0,\"avg_us\":47700000,\"p50_us\":47700000,"
	"\"p99_us\":47700000,\"max_us\":47700000,\"histogram\":{\"count\":100,\"min_ns\":47700000000,"
	"\"max_ns\":47700000000,\"buckets\":[[47513075712,100]]}}}}";

static void process_ops_are_not_in_all(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	char err[512];
	assert_int_equal(rp__bt_load_buffer(s, "w.json", wait_run, sizeof(wait_run) - 1, err, sizeof(err)), 0);
	const rp_bt_run *const r = &s->targets[0].runs[0];
	assert_true(r->all_fs_only);
	assert_true(r->fixed_work);
	assert_true(r->all_max_us < 1100 && r->all_max_us > 900);
	assert_true(r->all_p99_us < 1100);
	assert_true(rp__bt_process_op("wait") && rp__bt_process_op("fork") && !rp__bt_process_op("open"));
	rp__bt_set_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_clear_win_is_marked),
		cmocka_unit_test(no_win_within_the_spread_or_five_percent),
		cmocka_unit_test(no_win_below_the_minimum_ops),
		cmocka_unit_test(equal_rows_and_trace_timing_are_not_ranked),
		cmocka_unit_test(a_best_of_about_zero_gives_differences),
		cmocka_unit_test(runs_that_disagree_and_the_runs_a_median_needs),
		cmocka_unit_test(short_labels),
		cmocka_unit_test(inputs_of_two_traces_are_refused),
		cmocka_unit_test(process_ops_are_not_in_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
