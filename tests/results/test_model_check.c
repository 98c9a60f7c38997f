/* Unit tests of results/model_check.c: the two-sample KS statistic, its histogram form, the sampling sink and the op-mix difference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "results/model_check.h"

static void ks_known(void **state)
{
	(void)state;
	double a[] = { 3, 1, 2, 4 }, b[] = { 4, 2, 3, 1 };
	assert_true(rp_ks2(a, 4, b, 4) == 0.0); /* the same values in another order */
	assert_true(a[0] == 1 && a[3] == 4);    /* sorted in place */
	double c[] = { 1, 2, 3, 4 }, d[] = { 5, 6, 7, 8 };
	assert_true(rp_ks2(c, 4, d, 4) == 1.0); /* disjoint */
	/* {1,2,3,4} and {3,4,5,6}: at 2, F_a = 0.5 and F_b = 0 */
	double e[] = { 1, 2, 3, 4 }, f[] = { 3, 4, 5, 6 };
	assert_true(fabs(rp_ks2(e, 4, f, 4) - 0.5) < 1e-12);
	/* different sizes: {1,2} and {1,1,1,2}: at 1, 0.5 against 0.75 */
	double g[] = { 1, 2 }, h[] = { 1, 1, 1, 2 };
	assert_true(fabs(rp_ks2(g, 2, h, 4) - 0.25) < 1e-12);
	/* ties across both samples are stepped over together: {1,1} and {1,1} is 0, not 0.5 */
	double i[] = { 1, 1 }, j[] = { 1, 1 };
	assert_true(rp_ks2(i, 2, j, 2) == 0.0);
	assert_true(rp_ks2(NULL, 0, NULL, 0) == 0.0);
	assert_true(rp_ks2(i, 2, NULL, 0) == 1.0);
}

/* Two large samples of one uniform distribution are close; a shifted one is not. */
static void ks_samples(void **state)
{
	(void)state;
	enum { N = 20000 };
	double *const a = malloc(N * sizeof(*a)), *const b = malloc(N * sizeof(*b)), *const c = malloc(N * sizeof(*c));
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	rp_rng r;
	rp_rng_seed(&r, 7);
	for (int k = 0; k < N; k++) {
		a[k] = (double)rp_rng_below(&r, 1000000);
		b[k] = (double)rp_rng_below(&r, 1000000);
		c[k] = (double)rp_rng_below(&r, 1000000) + 100000;
	}
	const double same = rp_ks2(a, N, b, N);
	assert_true(same < 0.02); /* the 0.1 % critical value at this size is 0.0195 */
	const double shifted = rp_ks2(a, N, c, N);
	assert_true(fabs(shifted - 0.1) < 0.02);
	free(a);
	free(b);
	free(c);
}

static void ks_hist(void **state)
{
	(void)state;
	rp_mhist a = { { 0 } }, b = { { 0 } };
	assert_true(rp_mh_ks(&a, &b) == 0.0);
	rp_mh_add(&a, 100);
	assert_true(rp_mh_ks(&a, &b) == 1.0);
	rp_mh_add(&b, 120); /* the same bucket [64, 128) */
	assert_true(rp_mh_ks(&a, &b) == 0.0);
	rp_mh_add(&a, 5000);
	rp_mh_add(&b, 100);
	/* a: one in [64,128), one in [4096,8192); b: two in [64,128): 0.5 apart from bucket 7 to 12 */
	assert_true(fabs(rp_mh_ks(&a, &b) - 0.5) < 1e-12);
}

static rp_op op_at(uint16_t kind, uint32_t client, uint64_t t)
{
	rp_op o;
	memset(&o, 0, sizeof(o));
	o.op = kind;
	o.client = client;
	o.t_start = t;
	o.t_end = t + 10;
	return o;
}

static void sample_sink(void **state)
{
	(void)state;
	rp_check_sample s, u;
	assert_int_equal(rp_check_sample_init(&s, 1), 0);
	assert_int_equal(rp_check_sample_init(&u, 2), 0);
	const rp_op ops[] = { op_at(RP_OP_OPEN, 1, 0), op_at(RP_OP_READ, 1, 100), op_at(RP_OP_SLEEP, 1, 150),
			      op_at(RP_OP_READ, 2, 120), op_at(RP_OP_READ, 1, 400), op_at(RP_OP_CLOSE, 2, 1000),
			      op_at(RP_OP_CLOSE, 99999, 1000) /* past the client cap: the last slot */ };
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		assert_int_equal(s.base.op(&s.base, &ops[k]), 0);
	assert_int_equal(s.n_ops, 6); /* the sleep aside */
	assert_int_equal(s.ops[RP_OP_READ], 3);
	assert_true(s.timed);
	/* client 1: 100, 300 (the sleep is not an arrival); client 2: 880 */
	assert_int_equal(s.n_gaps, 3);
	assert_true(s.gaps[0] == 100 && s.gaps[1] == 300 && s.gaps[2] == 880);
	/* u: the same ops but one read a write: 1 of 6 moves, 16.667 points */
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		rp_op o = ops[k];
		if (k == 4)
			o.op = RP_OP_WRITE;
		assert_int_equal(u.base.op(&u.base, &o), 0);
	}
	unsigned op = 0;
	const double d = rp_check_mix_diff(&s, &u, &op);
	assert_true(fabs(d - 100.0 / 6) < 1e-9);
	assert_true(op == RP_OP_READ || op == RP_OP_WRITE);
	assert_true(rp_check_mix_diff(&s, &s, NULL) == 0.0);
	rp_check_sample_fini(&s);
	rp_check_sample_fini(&u);
}

/* Past RP_CHECK_GAPS_MAX gaps a sample of them is kept, of the same distribution. */
static void sample_reservoir(void **state)
{
	(void)state;
	rp_check_sample s;
	assert_int_equal(rp_check_sample_init(&s, 3), 0);
	const uint64_t n = (uint64_t)RP_CHECK_GAPS_MAX + RP_CHECK_GAPS_MAX / 2;
	uint64_t t = 0;
	for (uint64_t k = 0; k <= n; k++) {
		const rp_op o = op_at(RP_OP_READ, 0, t);
		assert_int_equal(s.base.op(&s.base, &o), 0);
		t += k < n / 2 ? 10 : 20; /* the first half of the gaps 10 ns, the second 20 */
	}
	assert_int_equal(s.seen, n);
	assert_int_equal(s.n_gaps, RP_CHECK_GAPS_MAX);
	size_t tens = 0;
	for (size_t k = 0; k < s.n_gaps; k++)
		tens += s.gaps[k] == 10;
	const double share = (double)tens / (double)s.n_gaps;
	assert_true(fabs(share - 0.5) < 0.01);
	rp_check_sample_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ks_known),     cmocka_unit_test(ks_samples),      cmocka_unit_test(ks_hist),
		cmocka_unit_test(sample_sink),  cmocka_unit_test(sample_reservoir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
