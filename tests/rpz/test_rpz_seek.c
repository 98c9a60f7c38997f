/* rp_rpz_reader_seek_time: a seek then a time filter gives exactly what a full decode filtered by time gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "formats/reader.h"
#include "formats/rpz.h"
#include "rpz_testlib.h"

#define FRAME_OPS 50
#define N_OPS 1000 /* 20 frames */

/* A trace in time order whose op i names a string first defined at op i (so every frame defines some). */
static int feed_trace(rp_sink *s, void *arg)
{
	const bool backwards = *(const bool *)arg;
	const rp_trace_meta meta = { .source = RP_SRC_SYNTHETIC, .flags = RP_META_TIMED };
	assert_int_equal(s->meta(s, &meta), 0);
	for (uint32_t i = 0; i < N_OPS; i++) {
		char name[32];
		const int n = snprintf(name, sizeof(name), "/d/f%u", i);
		assert_int_equal(s->string(s, i + 1, name, (uint32_t)n), 0);
		/* Op i at 1000 i ns, but (backwards) frame 10 earlier than frame 9 */
		const uint64_t t = backwards && i / FRAME_OPS == 10 ? 1000u * i - 200000u : 1000u * i;
		const rp_op op = { .t_start = t, .t_end = t + 10, .op = RP_OP_STAT, .client = i % 3,
				   .path = i + 1, .path2 = i ? i : 0 /* an earlier frame's string too */ };
		assert_int_equal(s->op(s, &op), 0);
	}
	return s->finish(s);
}

static uint8_t *make_trace(size_t *len, bool backwards)
{
	uint8_t *buf = NULL;
	char eb[RP_ERRBUF_SIZE];
	const rp_rpz_wopts wo = { .frame_ops = FRAME_OPS };
	assert_int_equal(tl_write_fn(&wo, feed_trace, &backwards, &buf, len, eb), 0);
	return buf;
}

/* The ops at or after t, each with its path and path2 as text: "t path path2\n" lines. */
static char *collect(rp_reader *r, uint64_t t)
{
	char *out = NULL;
	size_t olen = 0;
	FILE *const f = open_memstream(&out, &olen);
	rp_op op;
	int rc;
	while ((rc = rp_reader_next(r, &op)) > 0) {
		if (op.t_start < t)
			continue;
		uint32_t l1 = 0, l2 = 0;
		const char *const p1 = op.path ? rp_reader_string(r, op.path, &l1) : "";
		const char *const p2 = op.path2 ? rp_reader_string(r, op.path2, &l2) : "";
		assert_non_null(p1);
		assert_non_null(p2);
		fprintf(f, "%llu c%u %s %s\n", (unsigned long long)op.t_start, op.client, p1, p2);
	}
	assert_int_equal(rc, 0);
	fclose(f);
	return out;
}

static void check_at(const uint8_t *buf, size_t len, uint64_t t, uint64_t want_skipped)
{
	char eb[RP_ERRBUF_SIZE];
	rp_reader *full = NULL, *sk = NULL;
	assert_int_equal(rp_rpz_reader_open_mem(&full, buf, len, NULL, eb), 0);
	assert_int_equal(rp_rpz_reader_open_mem(&sk, buf, len, NULL, eb), 0);
	uint64_t skipped = 99;
	assert_int_equal(rp_rpz_reader_seek_time(sk, t, &skipped, eb), 0);
	assert_int_equal(skipped, want_skipped);
	char *const a = collect(full, t), *const b = collect(sk, t);
	assert_string_equal(a, b);
	free(a);
	free(b);
	rp_reader_close(full);
	rp_reader_close(sk);
}

static void test_seek_matches_full_decode(void **state)
{
	(void)state;
	size_t len = 0;
	uint8_t *const buf = make_trace(&len, false);
	check_at(buf, len, 0, 0);                                  /* the start: nothing skipped */
	check_at(buf, len, 1000u * FRAME_OPS * 7, 7 * FRAME_OPS);  /* exactly frame 7's first op */
	check_at(buf, len, 1000u * FRAME_OPS * 7 - 1, 6 * FRAME_OPS); /* just before it: inside frame 6 */
	check_at(buf, len, 1000u * (FRAME_OPS * 12 + 17), 12 * FRAME_OPS); /* inside frame 12 */
	check_at(buf, len, 1000u * (N_OPS - 1), N_OPS - FRAME_OPS); /* the last op */
	check_at(buf, len, UINT64_MAX - 1, N_OPS - FRAME_OPS);      /* past the end: nothing is kept */
	free(buf);
}

static void test_seek_after_rewind_and_state(void **state)
{
	(void)state;
	size_t len = 0;
	uint8_t *const buf = make_trace(&len, false);
	char eb[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	rp_op op;
	assert_int_equal(rp_reader_next(r, &op), 1);
	uint64_t skipped = 0;
	assert_int_equal(rp_rpz_reader_seek_time(r, 300000, &skipped, eb), RP_E_STATE);
	assert_int_equal(rp_reader_rewind(r), 0);
	assert_int_equal(rp_rpz_reader_seek_time(r, 300000, &skipped, eb), 0);
	assert_int_equal(skipped, 300);
	assert_int_equal(rp_reader_next(r, &op), 1);
	assert_int_equal(op.t_start, 300000);
	rp_reader_close(r);
	free(buf);
}

/* A cut file has no index: the seek says so and the caller reads from the start. */
static void test_seek_without_index(void **state)
{
	(void)state;
	size_t len = 0;
	uint8_t *const buf = make_trace(&len, false);
	char eb[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len - 100, NULL, eb), 0);
	uint64_t skipped = 0;
	assert_int_equal(rp_rpz_reader_seek_time(r, 500000, &skipped, eb), RP_E_NOTFOUND);
	assert_int_equal(skipped, 0);
	rp_op op;
	assert_int_equal(rp_reader_next(r, &op), 1);
	assert_int_equal(op.t_start, 0); /* the fallback: a full decode from the first op */
	rp_reader_close(r);
	free(buf);
}

/* Frames whose first times go backwards: seeking could miss ops, so it is refused. */
static void test_seek_out_of_order(void **state)
{
	(void)state;
	size_t len = 0;
	uint8_t *const buf = make_trace(&len, true);
	char eb[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	uint64_t skipped = 0;
	assert_int_equal(rp_rpz_reader_seek_time(r, 900000, &skipped, eb), RP_E_UNSUPPORTED);
	assert_non_null(strstr(eb, "not in time order"));
	rp_reader_close(r);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seek_matches_full_decode),
		cmocka_unit_test(test_seek_after_rewind_and_state),
		cmocka_unit_test(test_seek_without_index),
		cmocka_unit_test(test_seek_out_of_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
