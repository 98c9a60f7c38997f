/* CRC-32C from many threads at once, first use included: replay's clients each read .rpz frames in their own thread. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "formats/rpz_internal.h"

#define THREADS 8

static pthread_barrier_t start;
static uint32_t got[THREADS];

static void *worker(void *arg)
{
	uint32_t *const out = arg;
	/* All threads make their first call together: a table built lazily without
	 * synchronisation is a data race here (ThreadSanitizer reports it). */
	(void)pthread_barrier_wait(&start);
	*out = rp__crc32c(0, "123456789", 9);
	return NULL;
}

static void first_use_from_many_threads(void **state)
{
	(void)state;
	pthread_t t[THREADS];
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, &got[i]), 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&start);
	/* The CRC-32C check value (RFC 3720 B.4's polynomial, the "123456789" check of the CRC catalogue). */
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(got[i], 0xe3069283u);
	assert_int_equal(rp__crc32c(rp__crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_use_from_many_threads),
	};
	return cmocka_run_group_tests_name("rpz-crc-threads", tests, NULL, NULL);
}
