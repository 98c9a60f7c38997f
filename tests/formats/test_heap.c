/* The generic min-heap (formats/heap.h): random pushes and pops against a sorted reference, ties, the top changed in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/heap.h"
#include "formats/rng.h"

/* An element with a key that ties often and its arrival, which the order must not look at. */
typedef struct item {
	uint32_t key;
	uint32_t seq;
} item;

static bool key_before(const item *a, const item *b)
{
	return a->key < b->key;
}

/* The order with a tie-breaker, as merge's (time, input) and CTF's (start, arrival). */
static bool key_seq_before(const item *a, const item *b)
{
	return a->key != b->key ? a->key < b->key : a->seq < b->seq;
}

static bool u64_before(const uint64_t *a, const uint64_t *b)
{
	return *a < *b;
}

RP_HEAP_DEFINE(kheap, item, key_before)
RP_HEAP_DEFINE(ksheap, item, key_seq_before)
RP_HEAP_DEFINE(uheap, uint64_t, u64_before)

#define N_MAX 2000

/* Whether h[0..n) keeps the heap property under less. */
static bool is_heap(const item *h, size_t n, bool (*less)(const item *, const item *))
{
	for (size_t k = 1; k < n; k++)
		if (less(&h[k], &h[(k - 1) / 2]))
			return false;
	return true;
}

static int cmp_key_seq(const void *pa, const void *pb)
{
	const item *const a = pa, *const b = pb;
	return key_seq_before(a, b) ? -1 : key_seq_before(b, a) ? 1 : 0;
}

/*
 * Pushes and pops mixed at random, keys from a small range so ties are
 * common: each pop gives the least of what is held by (key, seq), which the
 * reference (the held items, sorted) says.
 */
static void random_against_sorted(void **state)
{
	(void)state;
	static item h[N_MAX], ref[N_MAX];
	rp_rng r;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		rp_rng_seed(&r, seed);
		size_t n = 0, nref = 0;
		uint32_t seq = 0;
		const uint32_t range = seed % 2 ? 8 : 1000000;
		for (int step = 0; step < 6000; step++) {
			const bool push = n == 0 || (n < N_MAX && rp_rng_below(&r, 100) < 55);
			if (push) {
				const item e = { (uint32_t)rp_rng_below(&r, range), seq++ };
				ksheap_push(h, &n, e);
				ref[nref++] = e;
			} else {
				qsort(ref, nref, sizeof(ref[0]), cmp_key_seq);
				const item top = ksheap_pop(h, &n);
				assert_int_equal(top.key, ref[0].key);
				assert_int_equal(top.seq, ref[0].seq);
				ref[0] = ref[--nref];
			}
			assert_int_equal(n, nref);
			assert_true(is_heap(h, n, key_seq_before));
		}
		/* what is left drains in order */
		qsort(ref, nref, sizeof(ref[0]), cmp_key_seq);
		for (size_t i = 0; i < nref; i++) {
			const item top = ksheap_pop(h, &n);
			assert_int_equal(top.key, ref[i].key);
			assert_int_equal(top.seq, ref[i].seq);
		}
		assert_int_equal(n, 0);
	}
}

/* Without a tie-breaker the keys still come out sorted, and the same pushes give the same order of seq every time. */
static void ties_without_breaker(void **state)
{
	(void)state;
	static item h[N_MAX], again[N_MAX];
	rp_rng r;
	for (int pass = 0; pass < 2; pass++) {
		rp_rng_seed(&r, 7);
		size_t n = 0;
		for (uint32_t i = 0; i < N_MAX; i++)
			kheap_push(h, &n, (item){ (uint32_t)rp_rng_below(&r, 4), i });
		uint32_t last = 0;
		for (size_t i = 0; i < N_MAX; i++) {
			const item top = kheap_pop(h, &n);
			assert_true(top.key >= last);
			last = top.key;
			if (pass == 0)
				again[i] = top;
			else
				assert_int_equal(top.seq, again[i].seq);
		}
	}
}

/*
 * The moves themselves, which decide the order of equal elements: a child
 * goes up only when strictly before its parent, and on the way down the
 * left child wins over an equal right one.
 */
static void tie_moves(void **state)
{
	(void)state;
	item h[8];
	size_t n = 0;
	kheap_push(h, &n, (item){ 1, 0 });
	kheap_push(h, &n, (item){ 1, 1 }); /* equal to its parent: stays below */
	kheap_push(h, &n, (item){ 1, 2 });
	assert_int_equal(h[0].seq, 0);
	assert_int_equal(h[1].seq, 1);
	assert_int_equal(h[2].seq, 2);
	/* the last (seq 2) goes to the top and stays: an equal child does not climb */
	assert_int_equal(kheap_pop(h, &n).seq, 0);
	assert_int_equal(h[0].seq, 2);
	assert_int_equal(h[1].seq, 1);
	/* a strictly smaller one climbs past equals */
	kheap_push(h, &n, (item){ 0, 3 });
	assert_int_equal(h[0].seq, 3);
	assert_int_equal(h[1].seq, 1);
	assert_int_equal(h[2].seq, 2);
	/* two equal children both before their parent: the left one goes up */
	item g[3] = { { 5, 0 }, { 1, 1 }, { 1, 2 } };
	kheap_down(g, 3, 0);
	assert_int_equal(g[0].seq, 1);
	assert_int_equal(g[1].seq, 0);
	assert_int_equal(g[2].seq, 2);
}

/* The top changed in place and moved down, as merge advances an input: the heap stays a heap and pops sorted. */
static void change_top(void **state)
{
	(void)state;
	static item h[64];
	size_t n = 0;
	rp_rng r;
	rp_rng_seed(&r, 3);
	for (uint32_t i = 0; i < 64; i++)
		ksheap_push(h, &n, (item){ (uint32_t)rp_rng_below(&r, 100), i });
	for (int step = 0; step < 500; step++) {
		h[0].key += (uint32_t)rp_rng_below(&r, 50);
		ksheap_down(h, n, 0);
		assert_true(is_heap(h, n, key_seq_before));
	}
	item prev = ksheap_pop(h, &n);
	while (n) {
		const item top = ksheap_pop(h, &n);
		assert_false(key_seq_before(&top, &prev));
		prev = top;
	}
}

/* A scalar element (plan_scan's end times) and the edges: one element, a pop down to empty. */
static void scalar_and_edges(void **state)
{
	(void)state;
	uint64_t h[5];
	size_t n = 0;
	uheap_push(h, &n, 42);
	assert_int_equal(n, 1);
	assert_int_equal(uheap_pop(h, &n), 42);
	assert_int_equal(n, 0);
	const uint64_t in[5] = { 5, UINT64_MAX, 0, 5, 3 };
	for (int i = 0; i < 5; i++)
		uheap_push(h, &n, in[i]);
	const uint64_t want[5] = { 0, 3, 5, 5, UINT64_MAX };
	for (int i = 0; i < 5; i++)
		assert_true(uheap_pop(h, &n) == want[i]);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_against_sorted),
		cmocka_unit_test(ties_without_breaker),
		cmocka_unit_test(tie_moves),
		cmocka_unit_test(change_top),
		cmocka_unit_test(scalar_and_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
